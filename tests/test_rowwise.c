/* test_rowwise.c — the row-wise fused variants' host side, no GPU needed: registration, the
 * fb_call contract (what supports() accepts and rejects, with a reason), the workspace of the
 * two-pass fallback, and that every shape of a wide sweep (odd widths, long rows, > 65535 rows,
 * misaligned tensors) gets a plan with an instantiated kernel (the *_plan_only hooks: the whole
 * of run() but the launch). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "double_softmax.h"
#include "fb.h"
#include "layernorm.h"
#include "norm_chain.h"
#include "rmsnorm.h"
#include "rmsnorm_backward.h"
#include "rowcall.h"
#include "softmax_backward.h"
#include "testing.h"
#include "variant.h"

typedef struct op_case {
    const char *name;
    int nin, nparam;
    int (*plan_only)(const fb_call *);
} op_case;

static const op_case ops[] = {
    {"double_softmax.fused", 1, 0, fb_double_softmax_plan_only},
    {"softmax_backward.fused", 2, 0, fb_softmax_backward_plan_only},
    {"layernorm.fused", 1, 2, fb_layernorm_plan_only},
    {"norm_chain.fused", 1, 0, fb_norm_chain_plan_only},
};
#define N_OPS (int)(sizeof ops / sizeof ops[0])

typedef t_row_call call_buf;

/* the call of variant o (rowcall.h: mis_at >= 0 misaligns that input) */
static void make_call(call_buf *b, const op_case *o, fb_dtype dt, int64_t rows, int64_t W, int mis_at)
{
    t_row_call_make(b, o->nin, o->nparam, dt, rows, W, mis_at);
}

static void test_registered(void)
{
    for (int k = 0; k < N_OPS; k++) {
        const fb_variant *v = fb_variant_find(ops[k].name);
        CHECK(v != NULL);
        if (!v) continue;
        CHECK(v->supports != NULL && v->run != NULL && v->workspace != NULL);
        CHECK(v->dtypes == FB_DTYPES_HALF_AND_F32);
        CHECK(v->about && v->about[0]);
    }
}

static int rejects(const fb_variant *v, const fb_call *c, const char *want)
{
    char why[256] = "";
    const int st = v->supports(c, why, sizeof why);
    if (st != FB_E_UNSUPPORTED || strstr(why, want) == NULL) {
        fprintf(stderr, "  %s: status %d, reason '%s' (want one with '%s')\n", v->name, st, why, want);
        return 0;
    }
    return 1;
}

static void test_contract(void)
{
    for (int k = 0; k < N_OPS; k++) {
        const op_case *o = &ops[k];
        const fb_variant *v = fb_variant_find(o->name);
        if (!v) continue;
        call_buf b;
        char why[256];
        make_call(&b, o, FB_F32, 3, 61, -1);
        CHECK(v->supports(&b.call, why, sizeof why) == FB_OK);
        CHECK(v->workspace(&b.call) == 0);

        make_call(&b, o, FB_F32, 3, 61, -1);
        b.call.n_in = o->nin + o->nparam - 1;
        CHECK(rejects(v, &b.call, "inputs and 1 output"));

        make_call(&b, o, FB_F64, 3, 61, -1);
        CHECK(rejects(v, &b.call, "float32, float16 or bfloat16"));

        make_call(&b, o, FB_F32, 3, 61, -1);
        b.in[o->nin + o->nparam - 1].dtype = FB_F16;
        CHECK(rejects(v, &b.call, "one dtype"));

        make_call(&b, o, FB_F32, 3, 61, -1);
        b.in[0].shape.dim[0] = 4;
        CHECK(rejects(v, &b.call, "input 0 must be of the output's shape"));

        if (o->nparam) {
            make_call(&b, o, FB_F32, 3, 61, -1);
            b.in[o->nin].shape.dim[0] = 62;
            CHECK(rejects(v, &b.call, "must be of shape [W]"));
        }
        /* rank 3: rows are the product of the leading dims */
        make_call(&b, o, FB_BF16, 3, 61, -1);
        for (int j = 0; j < o->nin; j++) {
            b.in[j].shape = (fb_shape){3, {2, 5, 61}};
        }
        b.out[0].shape = (fb_shape){3, {2, 5, 61}};
        CHECK(v->supports(&b.call, why, sizeof why) == FB_OK);
        CHECK(o->plan_only(&b.call) == FB_OK);
    }
}

/* Rows too long for 8 CTAs' registers take the two-pass fallback and ask for a float32
 * workspace of grid x nin x W (one row: grid 1). */
static void test_workspace(void)
{
    call_buf b;
    const fb_variant *v = fb_variant_find("double_softmax.fused");
    make_call(&b, &ops[0], FB_F32, 1, 262144, -1); /* 8 CTAs x 1024 threads x 32 values */
    CHECK(v->workspace(&b.call) == 0);
    make_call(&b, &ops[0], FB_F32, 1, 262145, -1); /* odd: scalar units, 8 values per thread */
    CHECK(v->workspace(&b.call) == (size_t)262145 * 4);
    v = fb_variant_find("softmax_backward.fused");
    make_call(&b, &ops[1], FB_F32, 1, 262144, -1); /* two inputs: 16 elements per thread */
    CHECK(v->workspace(&b.call) == (size_t)2 * 262144 * 4);
    make_call(&b, &ops[1], FB_F32, 1, 131072, -1);
    CHECK(v->workspace(&b.call) == 0);
    /* run() refuses to go without it */
    make_call(&b, &ops[1], FB_F32, 1, 262144, -1);
    CHECK(v->run(&b.call) == FB_E_UNSUPPORTED);
    CHECK(strstr(fb_last_error(), "workspace") != NULL);
}

static void test_plans(void)
{
    static const int64_t rows[] = {1, 2, 3, 7, 63, 64, 65, 132, 133, 264, 300, 4099, 65536, 70000, 1 << 20};
    static const int64_t widths[] = {1,    2,    3,    4,     5,     7,     8,     9,     15,     16,    17,
                                     23,   24,   25,   31,    32,    33,    47,    48,    49,     61,    63,
                                     64,   65,   96,   127,   128,   129,   130,   131,   200,    255,   256,
                                     257,  500,  511,  512,   513,   1000,  1023,  1024,  1025,   1027,  1031,
                                     1100, 2047, 2048, 2051,  4096,  5000,  8192,  16384, 16385,  32768, 32769,
                                     65536, 65537, 131072, 262144, 262145, 300001, 1228800};
    static const fb_dtype dts[] = {FB_F32, FB_F16, FB_BF16};
    int calls = 0, failed = 0;
    for (int k = 0; k < N_OPS; k++)
        for (int d = 0; d < 3; d++)
            for (int mis = -1; mis < ops[k].nin + ops[k].nparam; mis++)
                for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
                    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
                        call_buf b;
                        make_call(&b, &ops[k], dts[d], rows[r], widths[w], mis);
                        calls++;
                        if (ops[k].plan_only(&b.call) != FB_OK) {
                            if (failed++ < 10)
                                fprintf(stderr, "  %s %s %lldx%lld misaligned input %d: %s\n", ops[k].name,
                                        fb_dtype_name(dts[d]), (long long)rows[r], (long long)widths[w], mis,
                                        fb_last_error());
                        }
                    }
    CHECK(calls > 10000);
    CHECK(failed == 0);
}

/* The latency plan (rowengine.cuh, plan_rows; NOTES.md "Stop 23"): an op with parameters
 * (layernorm) spreads few rows of CTA width over up to 1024 threads, one unit each, where
 * rows x units fit one unit a thread on 132 SMs (the count a machine without a GPU plans for);
 * an op without (norm_chain) keeps the fewest threads that hold the row; many rows keep them too. */
/* threads or upt -1: any */
static void expect_plan_c(int (*info)(const fb_call *, fb_row_plan_info *), const op_case *o, fb_dtype dt,
                          int64_t rows, int64_t W, int kind, int threads, int upt, int ctas)
{
    call_buf b;
    make_call(&b, o, dt, rows, W, -1);
    fb_row_plan_info p = {-1, -1, -1, -1};
    CHECK(info(&b.call, &p) == FB_OK);
    const int as_expected = p.kind == kind && (threads < 0 || p.threads == threads) && (upt < 0 || p.upt == upt) &&
                            p.ctas_per_row == ctas;
    CHECK(as_expected);
    if (!as_expected)
        fprintf(stderr, "  %s %s %lld x %lld: kind %d threads %d upt %d c %d, want %d %d %d %d\n", o->name,
                fb_dtype_name(dt), (long long)rows, (long long)W, p.kind, p.threads, p.upt, p.ctas_per_row, kind,
                threads, upt, ctas);
}
static void expect_plan(int (*info)(const fb_call *, fb_row_plan_info *), const op_case *o, fb_dtype dt,
                        int64_t rows, int64_t W, int kind, int threads, int upt)
{
    expect_plan_c(info, o, dt, rows, W, kind, threads, upt, 1);
}

static void test_latency_plan(void)
{
    const op_case *ln = &ops[2], *nc = &ops[3];
    CHECK(strcmp(ln->name, "layernorm.fused") == 0 && strcmp(nc->name, "norm_chain.fused") == 0);
    /* with parameters: plan_params_early's CTAs (test_params_early_plan) */
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 128, 4096, 1, 512, 2);
    expect_plan(fb_layernorm_plan_info, ln, FB_BF16, 128, 4096, 1, 512, 1);   /* 8 values a unit */
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 128, 4096, 1, 256, 4);   /* no parameters: plan_few_long_rows' */
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 256, 2048, 1, 128, 4);   /* plan_mid_rows' */
}

/* float32 rows of >= 64 KB in one CTA with a shared part (kind 5, rowengine.cuh plan_rows_smem;
 * NOTES.md "Stop 27"): two 512-thread CTAs an SM for 133..528 rows (4 x the 132 SMs a machine
 * without a GPU plans for), one of 1024 threads beyond, for every op (norm_chain's pairs beyond
 * 528 rows went in stop 29: NOTES.md); one wave of 1024-thread CTAs (<= 132 rows) keeps them. */
static void test_pair_plan(void)
{
    const op_case *ds = &ops[0], *nc = &ops[3];
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 132, 32768, 5, 1024, 8);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 133, 32768, 5, 512, 8);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 528, 32768, 5, 512, 8);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 529, 32768, 5, 1024, 8);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 4096, 32768, 5, 1024, 8);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 512, 32768, 5, 512, 8);
}

/* layernorm's rows that fill a CTA's registers exactly take K_STAGED (kind 8, the weight staged
 * in shared memory; rowengine.cuh plan_staged, NOTES.md "Stop 35"): float32 W = 32768 (1024
 * threads) and 16384 (512) at every row count, W = 4096 and 8192 (128, 256) from 1024 rows (W =
 * 2048 keeps the early-parameter and CTA plans), the half
 * types' W = 16384 and 32768 on up to two rows an SM (264 on the 132 SMs a machine without a GPU
 * plans for); fewer float32 rows, more half rows, other widths and the ops without parameters or
 * without LayerNorm's kStagedParams keep their plans. */
static void test_staged_plan(void)
{
    const op_case *ds = &ops[0], *ln = &ops[2];
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 1, 32768, 8, 1024, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 256, 32768, 8, 1024, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 65536, 32768, 8, 1024, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 128, 16384, 8, 512, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 65536, 16384, 8, 512, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 4096, 65536, 5, 1024, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 1024, 8192, 8, 256, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 65536, 4096, 8, 128, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 1024, 4096, 8, 128, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 1023, 8192, 1, 256, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 1024, 2048, 1, 256, 2);  /* W = 2048: early parameters */
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 128, 4096, 1, 512, 2);
    expect_plan(fb_layernorm_plan_info, ln, FB_BF16, 264, 32768, 8, 1024, 4);
    expect_plan(fb_layernorm_plan_info, ln, FB_F16, 128, 16384, 8, 512, 4);
    expect_plan(fb_layernorm_plan_info, ln, FB_BF16, 265, 32768, 1, 1024, 4);
    expect_plan(fb_layernorm_plan_info, ln, FB_BF16, 4096, 32768, 1, 1024, 4);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 4096, 32768, 5, 1024, 8);
    /* RMSNorm's engine Op stages its weight too (since stop 39), by the same rule */
    static const op_case rms = {"rmsnorm.row_engine", 1, 1, fb_rmsnorm_engine_plan_only};
    expect_plan(fb_rmsnorm_engine_plan_info, &rms, FB_F32, 512, 16384, 8, 512, 8);
    expect_plan(fb_rmsnorm_engine_plan_info, &rms, FB_F32, 2048, 8192, 8, 256, 8);
    expect_plan(fb_rmsnorm_engine_plan_info, &rms, FB_F32, 8192, 32768, 8, 1024, 8);
    {
        call_buf r;
        make_call(&r, &rms, FB_BF16, 8192, 16384, -1);
        fb_row_plan_info p = {-1, -1, -1, -1, -1};
        CHECK(fb_rmsnorm_engine_plan_info(&r.call, &p) == FB_OK && p.kind != 8);  /* > 264 half rows */
        make_call(&r, &rms, FB_F32, 512, 8192, -1);
        CHECK(fb_rmsnorm_engine_plan_info(&r.call, &p) == FB_OK && p.kind != 8);  /* < 1024 rows of 8192 */
    }
    /* a misaligned weight: no 16-byte plan at all, so no staging */
    call_buf b;
    make_call(&b, ln, FB_F32, 4096, 32768, 1);
    fb_row_plan_info p = {-1, -1, -1, -1};
    CHECK(fb_layernorm_plan_info(&b.call, &p) == FB_OK);
    CHECK(p.kind != 8);
}

/* softmax_backward's float32 rows that fill two 1024-thread CTAs (W = 32768: 64K values of y and
 * dy) take a cluster of two from 512 rows (rowengine.cuh plan_rows; NOTES.md "Stop 34"); fewer
 * rows, the half types and W = 65536 keep their plans. */
static void test_two_cta_cluster(void)
{
    const op_case *sb = &ops[1];
    CHECK(strcmp(sb->name, "softmax_backward.fused") == 0);
    /* since stop 39 eight 256-thread CTAs (four units of each input), from 256 rows */
    expect_plan_c(fb_softmax_backward_plan_info, sb, FB_F32, 512, 32768, 1, 256, 4, 8);
    expect_plan_c(fb_softmax_backward_plan_info, sb, FB_F32, 16384, 32768, 1, 256, 4, 8);
    expect_plan_c(fb_softmax_backward_plan_info, sb, FB_F32, 256, 32768, 1, 256, 4, 8);
    expect_plan(fb_softmax_backward_plan_info, sb, FB_F32, 255, 32768, 5, 1024, 4);
    expect_plan(fb_softmax_backward_plan_info, sb, FB_F32, 128, 32768, 5, 1024, 4);
    expect_plan(fb_softmax_backward_plan_info, sb, FB_BF16, 4096, 32768, 5, 1024, 2);
    expect_plan(fb_softmax_backward_plan_info, sb, FB_F32, 4096, 16384, 5, 1024, 4);
    expect_plan_c(fb_softmax_backward_plan_info, sb, FB_F32, 4096, 65536, 1, 512, 4, 8);
}

/* An op with parameters on grids of up to 8192 16-byte units an SM (132 SMs on a machine without a
 * GPU) loads every unit's parameters with the row (rowengine.cuh plan_params_early; NOTES.md
 * "Stop 38"): float32 rows of up to 32 lanes x 4 units as group rows of one row a group (G = the
 * row's units while one unit a thread fits, 132 x 1024 units; plan_group's G and units beyond),
 * CTAs of 256 threads halved to 64 while the grid has fewer than 264; longer rows one CTA of two
 * float32 units a thread (one of a half type), CTAs of 1024 threads only up to 4096 units an SM;
 * half types only up to 1024 units an SM, and not on rows plan_group holds at two units a lane. */
static void expect_early(const op_case *o, fb_dtype dt, int64_t rows, int64_t W, int kind, int threads, int upt,
                         int g_or_early)
{
    call_buf b;
    make_call(&b, o, dt, rows, W, -1);
    fb_row_plan_info p = {-1, -1, -1, -1, -1};
    CHECK(fb_layernorm_plan_info(&b.call, &p) == FB_OK);
    const int ok = p.kind == kind && p.threads == threads && p.upt == upt && p.params_early == g_or_early;
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s %lld x %lld: kind %d threads %d upt %d early %d, want %d %d %d %d\n", fb_dtype_name(dt),
                (long long)rows, (long long)W, p.kind, p.threads, p.upt, p.params_early, kind, threads, upt, g_or_early);
}
/* norm_chain's and double_softmax's float32 rows of 16384 (a row in the registers of 512 threads,
 * row_smem's plan with no shared part) run on K_CTA's kernel (Op::kCtaRegisterRows; NOTES.md "Stop
 * 38", double_softmax's since stop 39); their rows of 32768 (a shared part, or 1024 threads) and
 * softmax_backward's (no such trait) keep row_smem. */
static void test_cta_register_rows(void)
{
    const op_case *ds = &ops[0], *nc = &ops[3];
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 512, 16384, 1, 512, 8);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 128, 16384, 1, 512, 8);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 65536, 16384, 1, 512, 8);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 512, 16384, 1, 512, 8);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 128, 16384, 1, 512, 8);
    expect_plan(fb_softmax_backward_plan_info, &ops[1], FB_F32, 512, 16384, 5, 512, 4);
    /* their rows of 32768: test_pair_plan */
}

/* Float32 rows of 1024..2048 units of an op without parameters, on grids of up to 4096 units an SM
 * (132 SMs without a GPU): one CTA of four units a thread of each input (rowengine.cuh
 * plan_few_long_rows; NOTES.md "Stop 39"); 8192 units an SM, half types and layernorm keep their
 * plans. */
static void test_few_long_rows(void)
{
    const op_case *ds = &ops[0], *sb = &ops[1], *ln = &ops[2], *nc = &ops[3];
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 128, 8192, 1, 512, 4);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 256, 8192, 1, 512, 4);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 512, 8192, 1, 256, 8);       /* 7944 units an SM */
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 512, 4096, 1, 256, 4);  /* 3972 */
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 1024, 4096, 1, 128, 8);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 128, 6000, 1, 384, 4);  /* 1500 units */
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 128, 2048, 1, 128, 4);  /* plan_mid_rows' */
    expect_plan(fb_softmax_backward_plan_info, sb, FB_F32, 128, 4096, 1, 256, 4);
    expect_plan(fb_softmax_backward_plan_info, sb, FB_F32, 256, 8192, 1, 512, 4);
    expect_plan_c(fb_norm_chain_plan_info, nc, FB_BF16, 128, 8192, 1, 128, 4, 2);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 128, 8192, 1, 1024, 2);      /* early parameters */
}

/* Float32 rows of one input beyond one CTA's registers, up to eight 256-thread CTAs', from 128 rows
 * to the op's bound (Op::kWideRowClusterMaxRows: double_softmax and norm_chain 8192, layernorm 1024;
 * NOTES.md "Stops 39, 49"): a cluster of 256-thread CTAs of eight units; fewer or more rows, and
 * rows one CTA holds, keep row_smem. */
static void test_wide_row_clusters(void)
{
    const op_case *ds = &ops[0], *ln = &ops[2], *nc = &ops[3];
    expect_plan_c(fb_double_softmax_plan_info, ds, FB_F32, 256, 65536, 1, 256, 8, 8);
    expect_plan_c(fb_double_softmax_plan_info, ds, FB_F32, 1024, 65536, 1, 256, 8, 8);
    expect_plan_c(fb_double_softmax_plan_info, ds, FB_F32, 128, 65536, 1, 256, 8, 8);
    expect_plan_c(fb_double_softmax_plan_info, ds, FB_F32, 8192, 65536, 1, 256, 8, 8);
    expect_plan_c(fb_norm_chain_plan_info, nc, FB_F32, 512, 65536, 1, 256, 8, 8);
    expect_plan_c(fb_norm_chain_plan_info, nc, FB_F32, 2048, 65536, 1, 256, 8, 8);
    expect_plan_c(fb_norm_chain_plan_info, nc, FB_F32, 256, 40000, 1, 256, 8, 5);  /* 10000 units */
    expect_plan_c(fb_layernorm_plan_info, ln, FB_F32, 512, 65536, 1, 256, 8, 8);
    expect_plan_c(fb_layernorm_plan_info, ln, FB_F32, 128, 65536, 1, 256, 8, 8);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 127, 65536, 5, 1024, 8);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 8193, 65536, 5, 1024, 8);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 16384, 65536, 5, 1024, 8);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 512, 32768, 5, 512, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 2048, 65536, 5, 1024, 8);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 1025, 65536, 5, 1024, 8);
}

/* Early-parameter group rows of float32 on grids of up to 2048 units of row and parameters an SM
 * (layernorm's two parameters: 1024 units of row) load the row plainly, not evict_last
 * (rowengine.cuh engine_ld, Plan::plain_x; NOTES.md "Stop 40"); CTA rows, larger grids and the half
 * types (plain anyway) do not take the flag. */
static void expect_plain(const op_case *o, fb_dtype dt, int64_t rows, int64_t W, int kind, int plain)
{
    call_buf b;
    make_call(&b, o, dt, rows, W, -1);
    fb_row_plan_info p = {-1, -1, -1, -1, -1, -1};
    CHECK(fb_layernorm_plan_info(&b.call, &p) == FB_OK);
    const int ok = p.kind == kind && p.plain_x == plain;
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s %lld x %lld: kind %d plain %d, want %d %d\n", fb_dtype_name(dt), (long long)rows,
                (long long)W, p.kind, p.plain_x, kind, plain);
}

static void test_plain_row_plan(void)
{
    const op_case *ln = &ops[2];
    expect_plain(ln, FB_F32, 128, 128, 0, 1);    /* 32 units an SM */
    expect_plain(ln, FB_F32, 1024, 512, 0, 1);   /* 993 */
    expect_plain(ln, FB_F32, 4096, 128, 0, 1);   /* 993 */
    expect_plain(ln, FB_F32, 8192, 128, 0, 0);   /* 1986 x two parameters */
    expect_plain(ln, FB_F32, 4096, 512, 0, 0);   /* 3971: evict_last */
    expect_plain(ln, FB_F32, 16384, 256, 0, 0);  /* 7944 */
    expect_plain(ln, FB_F32, 128, 1024, 1, 0);   /* CTA rows */
    expect_plain(ln, FB_BF16, 128, 256, 0, 0);   /* half types */
}

static void test_params_early_plan(void)
{
    const op_case *ln = &ops[2], *nc = &ops[3];
    expect_early(ln, FB_F32, 128, 128, 0, 64, 1, 1);     /* 32 units: G = 32, 2 rows a CTA */
    expect_early(ln, FB_F32, 256, 512, 0, 64, 4, 1);
    expect_early(ln, FB_F32, 2048, 128, 0, 128, 1, 1);   /* 496 units an SM: G = 32 */
    expect_early(ln, FB_F32, 8192, 128, 0, 128, 4, 1);   /* 1986: plan_group's G = 8, 4 units */
    expect_early(ln, FB_F32, 16384, 256, 0, 256, 4, 1);  /* 7944 */
    expect_early(ln, FB_F32, 16384, 512, 0, 256, 4, 0);  /* 15888: plan_group */
    expect_early(ln, FB_F32, 128, 1024, 1, 128, 2, 1);
    expect_early(ln, FB_F32, 4096, 1024, 1, 128, 2, 1);  /* 7944 */
    expect_early(ln, FB_F32, 8192, 1024, 1, 64, 4, 0);   /* plan_mid_rows */
    expect_early(ln, FB_F32, 1024, 1100, 1, 160, 2, 1);  /* 275 units */
    expect_early(ln, FB_F32, 2048, 2048, 1, 256, 2, 1);
    expect_early(ln, FB_F32, 256, 4096, 1, 512, 2, 1);
    expect_early(ln, FB_F32, 128, 8192, 1, 1024, 2, 1);  /* 1986 units an SM */
    expect_early(ln, FB_F32, 512, 8192, 1, 256, 8, 0);   /* 7944 on 1024 threads: plan_cta */
    expect_early(ln, FB_F32, 1024, 4096, 8, 128, 8, 0);  /* staged first */
    expect_early(ln, FB_BF16, 128, 256, 0, 64, 1, 1);    /* half types: one unit a lane */
    expect_early(ln, FB_BF16, 128, 512, 0, 256, 2, 0);   /* two a lane: plan_group */
    expect_early(ln, FB_BF16, 512, 1024, 1, 128, 1, 1);
    expect_early(ln, FB_BF16, 128, 8192, 1, 1024, 1, 1);
    expect_early(ln, FB_BF16, 2048, 1024, 0, 256, 4, 0); /* 1986 units an SM: plan_group */
    expect_early(ln, FB_F16, 256, 4096, 1, 512, 1, 1);
    /* unaligned rows of 33..64 elements, up to 8192 rows: scalar group rows of 16 lanes of four
     * elements with early parameters (plan_scalar_early, NOTES.md "Stop 41") */
    expect_early(ln, FB_F32, 8192, 61, 0, 128, 4, 1);
    expect_early(ln, FB_BF16, 3, 33, 0, 128, 4, 1);
    expect_early(ln, FB_F16, 512, 63, 0, 128, 4, 1);
    expect_early(ln, FB_F32, 8193, 61, 4, 256, 4, 0); /* more rows: K_SMEM's tiles (16 lanes of four) */
    expect_early(ln, FB_F32, 512, 65, 0, 256, 2, 0);  /* longer: peeled group rows, parameters late */
    expect_early(ln, FB_F32, 512, 31, 4, 256, 2, 0);  /* shorter: K_SMEM's tiles */
    /* no parameters, unaligned rows: never */
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 128, 512, 0, 256, 4);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 8192, 61, 4, 256, 4);
    call_buf b;
    make_call(&b, ln, FB_F32, 128, 1024, 1);
    fb_row_plan_info p = {-1, -1, -1, -1, -1};
    CHECK(fb_layernorm_plan_info(&b.call, &p) == FB_OK);
    CHECK(p.params_early == 0);
    make_call(&b, ln, FB_F32, 128, 1027, -1);
    CHECK(fb_layernorm_plan_info(&b.call, &p) == FB_OK);
    CHECK(p.params_early == 0);
}

/* float32 rows of 256..512 units on >= 128 rows past the early plans (layernorm's grids of up to
 * 8192 units an SM, test_params_early_plan) take a CTA of 16 values a thread
 * (four units, two with two inputs), 8 on fewer than 1024 rows of W = 1024 (kind 1, rowengine.cuh
 * plan_mid_rows; NOTES.md "Stop 37"): W = 1024 for every op, W = 2048 for an op with parameters
 * from 1024 rows and for the others up to 1024 rows with one input; the rest, fewer than 128
 * rows, the half types and unaligned rows keep their plans. */
static void test_mid_rows_plan(void)
{
    const op_case *ds = &ops[0], *sb = &ops[1], *ln = &ops[2], *nc = &ops[3];
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 8192, 1024, 1, 64, 4);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 65536, 2048, 1, 128, 4);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 4096, 1536, 1, 96, 4);     /* 384 units */
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 4096, 1100, 1, 96, 4);     /* 275 units: 3 warps */
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 1024, 1024, 1, 64, 4);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 65536, 1024, 1, 64, 4);
    expect_plan(fb_softmax_backward_plan_info, sb, FB_F32, 8192, 1024, 1, 128, 2);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 8192, 2048, 1, 64, 8);    /* no parameters */
    expect_plan(fb_softmax_backward_plan_info, sb, FB_F32, 8192, 2048, 1, 128, 4);
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 1023, 1024, 1, 128, 2); /* fewer rows */
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 128, 1024, 1, 128, 2);
    expect_plan(fb_softmax_backward_plan_info, sb, FB_F32, 512, 1024, 1, 256, 1);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 1024, 2048, 1, 128, 4);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 2048, 2048, 1, 64, 8);
    expect_plan(fb_softmax_backward_plan_info, sb, FB_F32, 512, 2048, 1, 128, 4);
    expect_plan(fb_layernorm_plan_info, ln, FB_F32, 512, 2048, 1, 256, 2);     /* early parameters */
    expect_plan(fb_double_softmax_plan_info, ds, FB_F32, 127, 1024, 0, -1, -1); /* < 128 rows */
    expect_plan(fb_norm_chain_plan_info, nc, FB_BF16, 8192, 1024, 0, -1, -1);
    expect_plan(fb_norm_chain_plan_info, nc, FB_F32, 8192, 1027, 0, -1, -1);   /* unaligned: scalar group */
}

/* Half-type rows of >= 32 KB (rowengine.cuh, plan_rows; NOTES.md "Stop 25"): one CTA a row with a
 * shared part (kind 5) for a grid of one wave (rows <= 132, the SM count a machine without a GPU
 * plans for), and beyond one wave for rows that would need a cluster only where the op asks
 * (layernorm does, norm_chain does not); rows the registers hold keep one CTA (kind 1). */
static void test_half_smem_plan(void)
{
    const op_case *ln = &ops[2], *nc = &ops[3];
    expect_plan(fb_layernorm_plan_info, ln, FB_BF16, 128, 16384, 8, 512, 4);     /* staged (test_staged_plan) */
    expect_plan(fb_norm_chain_plan_info, nc, FB_F16, 128, 32768, 5, 1024, 4);
    expect_plan(fb_layernorm_plan_info, ln, FB_BF16, 2048, 65536, 5, 1024, 4);   /* 4 units a thread shared */
    expect_plan(fb_layernorm_plan_info, ln, FB_F16, 133, 65536, 5, 1024, 4);
    expect_plan_c(fb_norm_chain_plan_info, nc, FB_BF16, 2048, 65536, 1, -1, -1, 4); /* the cluster */
    expect_plan(fb_norm_chain_plan_info, nc, FB_F16, 2048, 16384, 1, -1, -1);
    expect_plan(fb_norm_chain_plan_info, nc, FB_BF16, 4096, 32768, 1, -1, -1);   /* stop 29's change was float32's */
    expect_plan(fb_layernorm_plan_info, ln, FB_BF16, 2048, 32768, 1, -1, -1);    /* the registers hold it */
    expect_plan_c(fb_norm_chain_plan_info, nc, FB_BF16, 128, 8192, 1, -1, -1, 2); /* 16 KB rows: not taken */
}

/* rmsnorm_backward.pipelined's staging (fb_rmsnorm_backward_pipe_plan): a row stays in one CTA up
 * to 2048 16-byte units, beyond that over the fewest of 2, 4, 8 CTAs of a cluster (each at most
 * 2048 units, the slices covering the row), up to 16384 units; the stages fit the shared memory;
 * one CTA's steps go out of phase for the half types from 16 MiB of x only. */
static void test_rmsnorm_pipe_plan(void)
{
    static const struct { long rows, N; int esz, C; } want[] = {
        {2048, 8192, 2, 1},   {2048, 16384, 2, 1}, {2048, 32768, 2, 2},  {64, 131072, 2, 8},
        {2048, 8192, 4, 1},   {2048, 16384, 4, 2}, {2048, 12288, 4, 2},  {8, 65536, 4, 8},
        {2048, 4096, 8, 1},   {2048, 8192, 8, 2},  {2048, 16384, 8, 4},  {512, 16384, 8, 4},
        {3, 32768, 8, 8},     {1, 4, 4, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        fb_rmsnorm_pipe_plan p;
        const long units = want[i].N * want[i].esz / 16;
        const int st = fb_rmsnorm_backward_pipe_plan(want[i].rows, want[i].N, want[i].esz, &p);
        CHECK(st == FB_OK);
        if (st != FB_OK) continue;
        const bool ok = p.C == want[i].C && p.slice <= 2048 && p.slice * p.C >= units &&
                        (p.C == 1 || p.slice * (p.C / 2) < units) && p.G * p.U >= p.slice && p.threads % p.G == 0 &&
                        p.S >= 2 && p.smem <= 200 * 1024 && p.stage_bytes * (size_t)p.S < p.smem &&
                        p.out_of_phase == (want[i].esz == 2 && want[i].rows * want[i].N * 2 >= (16L << 20));
        if (!ok)
            fprintf(stderr, "pipe plan %ld x %ld (esz %d): C %d (want %d) slice %ld G %d U %d threads %d S %d smem %zu "
                            "out_of_phase %d\n", want[i].rows, want[i].N, want[i].esz, p.C, want[i].C, p.slice, p.G,
                    p.U, p.threads, p.S, p.smem, p.out_of_phase);
        CHECK(ok);
    }
    /* beyond the pipeline: rows of more than 8 x 2048 units, rows not in 16-byte units, no rows */
    fb_rmsnorm_pipe_plan p;
    CHECK(fb_rmsnorm_backward_pipe_plan(2048, 65536, 8, &p) == FB_E_UNSUPPORTED);
    CHECK(fb_rmsnorm_backward_pipe_plan(2048, 1027, 4, &p) == FB_E_UNSUPPORTED);
    CHECK(fb_rmsnorm_backward_pipe_plan(0, 4096, 4, &p) == FB_E_UNSUPPORTED);
}

/* rmsnorm_backward.fused's prefetched kernel (prefetch_wins, NOTES.md "Stops 48-49"): float32 and
 * float64 16-byte rows of 2049..8192 units (over 4096: its cluster of two) from 8 MiB of x; not the
 * half types, not rows the pipelined kernel holds in one CTA (<= 2048 units) or beyond a cluster of
 * two (> 8192), not small tensors, not unaligned rows. */
static void test_rmsnorm_backward_prefetch_rule(void)
{
    static const struct { long rows, N; int esz, want; } c[] = {
        {2048, 16384, 4, 1}, {2048, 12288, 4, 1}, {8192, 8196, 4, 1},  {2048, 8192, 8, 1},
        {2048, 8192, 4, 0},  {2048, 16384, 8, 1}, {2048, 32768, 2, 0}, {16, 16384, 4, 0},
        {2048, 16383, 4, 0}, {2048, 20480, 4, 1}, {2048, 32768, 4, 1}, {2048, 32772, 4, 0},
        {512, 16388, 8, 0},  {8192, 8194, 8, 1},  {128, 16384, 8, 1},  {2048, 4096, 8, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const int got = fb_rmsnorm_backward_takes_prefetch(c[i].rows, c[i].N, c[i].esz);
        if (got != c[i].want)
            fprintf(stderr, "prefetch rule %ld x %ld (esz %d): %d, want %d\n", c[i].rows, c[i].N, c[i].esz, got,
                    c[i].want);
        CHECK(got == c[i].want);
    }
}

/* What rmsnorm.fused runs (rmsnorm.cu: fused_pick over use_engine, straight_fits, pick_mode; "Stop 33"):
 * the row engine on float32 16-byte rows of >= 16384 and on rows that are not 16-byte rows, of >=
 * 128 elements, from 2048 rows, but not where the engine would need a workspace (its two-pass
 * plan) nor in float64; straight_reread outside float32, and in float32 from 32 MB of x, where a
 * row is exactly G x U units; elsewhere a mode. Each call still has a kernel (plan_only). */
static void test_rmsnorm_fused_pick(void)
{
    static const op_case rms = {"rmsnorm.fused", 1, 1, fb_rmsnorm_plan_only};
    static const struct { fb_dtype dt; long rows, N; const char *want; } cases[] = {
        {FB_F32, 8192, 16384, "row_engine"},      {FB_F32, 512, 16384, "row_engine"},
        {FB_F32, 8192, 65536, "row_engine"},      {FB_F32, 4, 262144, "row_engine"},
        {FB_F32, 4, 524288, "multi_wave_reload"}, /* the engine would run it two-pass */
        {FB_F32, 8192, 1027, "row_engine"},       {FB_BF16, 2048, 130, "row_engine"},
        {FB_F16, 2048, 1027, "row_engine"},       {FB_F16, 512, 1027, "static_persistent"},
        {FB_F32, 8192, 61, "row_engine"},         {FB_F64, 8192, 1027, "static_persistent"},
        {FB_F32, 2048, 61, "static_persistent"},  {FB_F32, 512, 32, "row_engine"},
        {FB_F32, 8192, 512, "row_engine"},        {FB_BF16, 8192, 256, "row_engine"}, /* 4 MiB */
        {FB_BF16, 512, 16384, "straight_reread"}, {FB_F64, 512, 32, "multi_wave_cached"},
        {FB_F32, 8192, 8192, "straight_reread"},  {FB_F32, 8192, 1024, "straight_reread"}, /* 32 MB */
        {FB_F32, 2048, 2048, "multi_wave_cached"},                                          /* 16 MB */
        {FB_BF16, 8192, 16384, "row_engine"},     {FB_F64, 8192, 16384, "multi_wave_cached"},
        {FB_BF16, 8192, 512, "static_persistent"}, /* 8 MiB: the modes */
        /* the half types' unaligned rows that the engine runs as scalar rows with early parameters
         * (rowengine.cuh plan_scalar_early: 33..64 elements; "Stop 41"), at every row count */
        {FB_BF16, 512, 61, "row_engine"},         {FB_F16, 2048, 33, "row_engine"},
        {FB_BF16, 2048, 65, "static_persistent"},  {FB_F16, 512, 31, "multi_wave_cached"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        call_buf b;
        make_call(&b, &rms, cases[i].dt, cases[i].rows, cases[i].N, -1);
        const char *got = fb_rmsnorm_fused_pick(&b.call);
        const bool ok = got && !strcmp(got, cases[i].want);
        if (!ok)
            fprintf(stderr, "rmsnorm.fused %s %ld x %ld: %s, want %s\n", fb_dtype_name(cases[i].dt), cases[i].rows,
                    cases[i].N, got ? got : "(none)", cases[i].want);
        CHECK(ok);
        CHECK(fb_rmsnorm_plan_only(&b.call) == FB_OK);
    }
}

/* rmsnorm's launch shape on small tensors (rmsnorm.cu problem(), plan_geom_latency; NOTES.md
 * "Stop 36"): a group of G = units threads a row with one unit each, G a compile-time constant of
 * the kernel at 8..256; rows of 33..64 units on one warp of two units a lane, CTAs halved to 64
 * threads while the grid has fewer than 2 x 132 CTAs; larger tensors keep plan_geom's shape. */
static void test_rmsnorm_group_shape(void)
{
    static const op_case rms = {"rmsnorm.fused", 1, 1, fb_rmsnorm_plan_only};
    static const struct { fb_dtype dt; long rows, N; int G, U, threads, fixed; } cases[] = {
        {FB_F32, 512, 32, 8, 1, 64, 1},      {FB_F32, 512, 128, 32, 1, 64, 1},
        {FB_F32, 512, 256, 32, 2, 64, 1},    /* 64 units: a warp, not a 64-thread CTA */
        {FB_F32, 2048, 256, 32, 2, 128, 1},  {FB_BF16, 512, 512, 32, 2, 64, 1},
        {FB_F32, 512, 61, 32, 2, 64, 1},     /* scalar rows of 61 elements */
        {FB_F32, 512, 512, 128, 1, 128, 1},  {FB_F32, 512, 1024, 256, 1, 256, 1},
        {FB_F64, 512, 64, 32, 1, 64, 1},     {FB_F32, 8192, 256, 16, 4, 256, 0}, /* 2 M units: plan_geom's */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        call_buf b;
        make_call(&b, &rms, cases[i].dt, cases[i].rows, cases[i].N, -1);
        int G = 0, U = 0, threads = 0, fixed = -1;
        CHECK(fb_rmsnorm_group_shape(&b.call, &G, &U, &threads, &fixed) == FB_OK);
        const bool ok = G == cases[i].G && U == cases[i].U && threads == cases[i].threads && fixed == cases[i].fixed;
        if (!ok)
            fprintf(stderr, "rmsnorm %s %ld x %ld: G %d U %d threads %d fixed %d, want %d %d %d %d\n",
                    fb_dtype_name(cases[i].dt), cases[i].rows, cases[i].N, G, U, threads, fixed, cases[i].G, cases[i].U,
                    cases[i].threads, cases[i].fixed);
        CHECK(ok);
        CHECK(fb_rmsnorm_plan_only(&b.call) == FB_OK);
    }
}

int main(void)
{
    test_registered();
    test_contract();
    test_workspace();
    test_plans();
    test_latency_plan();
    test_pair_plan();
    test_staged_plan();
    test_params_early_plan();
    test_plain_row_plan();
    test_cta_register_rows();
    test_few_long_rows();
    test_wide_row_clusters();
    test_mid_rows_plan();
    test_two_cta_cluster();
    test_half_smem_plan();
    test_rmsnorm_pipe_plan();
    test_rmsnorm_backward_prefetch_rule();
    test_rmsnorm_fused_pick();
    test_rmsnorm_group_shape();
    return fb_t_report("rowwise");
}
