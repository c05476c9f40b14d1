/* test_variants.c — the host side of the fused elementwise and horizontal variants, no GPU:
 * each is registered under its name, supports() accepts the case program's operands in
 * case-file order (x; x, bias; x, bias, residual; a -> b, c) and rejects, with a reason, calls
 * that would make the kernel read or write out of bounds; run() on an empty tensor launches
 * nothing; and the prepare/release life cycle (fb_variant_prepare) with a fake variant. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "case.h"
#include "horizontal_reduction_pointwise.h"
#include "horizontal_reduction_reduction.h"
#include "testing.h"
#include "variant.h"

typedef struct op_case {
    const char *family;
    int bias, res;
} op_case;

static const op_case ops[] = {
    {"pointwise_chain", 0, 0},
    {"bias_gelu", 1, 0},
    {"bias_dropout_add", 1, 1},
    {"bias_dropout_add_train", 1, 1},
};
static const char *const kinds[] = {"fused", "persistent", "scalar"};

static fb_shape shape2(int64_t r, int64_t w) { return (fb_shape){2, {r, w}}; }
static fb_shape shape1(int64_t w) { return (fb_shape){1, {w}}; }

/* A call of R x W operands for op `o` (no device memory: supports() reads only shapes). */
typedef struct call_buf {
    fb_tensor in[3], out[2];
    fb_call call;
} call_buf;

/* The program a variant reads its attributes from (dropout's p and seed). */
static fb_case g_train;

static int rejects(const fb_variant *v, const fb_call *c, const char *reason_part);

static void make_call(call_buf *b, const op_case *o, fb_dtype dt, int64_t R, int64_t W)
{
    memset(b, 0, sizeof *b);
    int n = 0;
    b->in[n++] = (fb_tensor){NULL, dt, shape2(R, W)};
    if (o->bias) b->in[n++] = (fb_tensor){NULL, dt, shape1(W)};
    if (o->res) b->in[n++] = (fb_tensor){NULL, dt, shape2(R, W)};
    b->out[0] = (fb_tensor){NULL, dt, shape2(R, W)};
    b->call = (fb_call){b->in, n, b->out, 1, NULL, 0, NULL, NULL, NULL};
    if (!strcmp(o->family, "bias_dropout_add_train")) b->call.program = &g_train;
}

/* Without the program's dropout node there is no p or seed to draw the mask with. */
static void test_dropout_needs_program(void)
{
    const op_case o = {"bias_dropout_add_train", 1, 1};
    call_buf b;
    make_call(&b, &o, FB_F32, 4, 64);
    const fb_variant *v = fb_variant_find("bias_dropout_add_train.fused");
    CHECK(v && v->supports(&b.call, NULL, 0) == FB_OK);
    b.call.program = NULL;
    CHECK(v && rejects(v, &b.call, "dropout node"));
    CHECK(v && v->run(&b.call) == FB_E_UNSUPPORTED);
}

static int rejects(const fb_variant *v, const fb_call *c, const char *reason_part)
{
    char why[256] = "";
    int st = v->supports(c, why, sizeof why);
    if (st == FB_OK || strstr(why, reason_part) == NULL) {
        fprintf(stderr, "  %s: status %d, why '%s', wanted '%s'\n", v->name, st, why, reason_part);
        return 0;
    }
    return 1;
}

static void test_registered(void)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            char name[96];
            snprintf(name, sizeof name, "%s.%s", ops[i].family, kinds[k]);
            const fb_variant *v = fb_variant_find(name);
            CHECK(v != NULL);
            if (!v) continue;
            CHECK((v->dtypes & FB_DTYPES_ALL) == FB_DTYPES_ALL);
            CHECK(v->supports != NULL && v->run != NULL && v->workspace == NULL);
        }
}

static void test_supports(void)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        const op_case *o = &ops[i];
        char name[96];
        snprintf(name, sizeof name, "%s.fused", o->family);
        const fb_variant *v = fb_variant_find(name);
        if (!v) continue;
        call_buf b;
        /* the shapes of the grid and of selftest, odd widths and W = 1 included */
        const int64_t shapes[][2] = {{1, 1}, {3, 61}, {7, 130}, {5, 1027}, {65536, 65536}, {4099, 33}};
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int d = 0; d < FB_NDTYPES; d++) {
                make_call(&b, o, (fb_dtype)d, shapes[s][0], shapes[s][1]);
                CHECK(v->supports(&b.call, NULL, 0) == FB_OK);
            }

        /* a [1, W] bias is the same W values */
        if (o->bias) {
            make_call(&b, o, FB_F32, 3, 61);
            b.in[1].shape = shape2(1, 61);
            CHECK(v->supports(&b.call, NULL, 0) == FB_OK);
            b.in[1].shape = shape1(60);
            CHECK(rejects(v, &b.call, "bias of shape [W]"));
            b.in[1].shape = shape2(3, 61); /* a full tensor is not a bias */
            CHECK(rejects(v, &b.call, "bias of shape [W]"));
        }
        if (o->res) {
            make_call(&b, o, FB_F32, 3, 61);
            b.in[2].shape = shape2(3, 60);
            CHECK(rejects(v, &b.call, "residual in x's shape"));
            b.in[2].shape = shape1(61); /* broadcast residuals are not this kernel's */
            CHECK(rejects(v, &b.call, "residual in x's shape"));
        }

        make_call(&b, o, FB_F32, 3, 61);
        b.call.n_in--;
        CHECK(rejects(v, &b.call, "input"));
        make_call(&b, o, FB_F32, 3, 61);
        b.call.n_out = 2;
        CHECK(rejects(v, &b.call, "1 output"));
        make_call(&b, o, FB_F32, 3, 61);
        b.out[0].dtype = FB_F16;
        CHECK(rejects(v, &b.call, "one dtype"));
        make_call(&b, o, FB_F32, 3, 61);
        b.in[b.call.n_in - 1].dtype = FB_BF16;
        CHECK(rejects(v, &b.call, "one dtype"));
        make_call(&b, o, FB_F32, 3, 61);
        b.out[0].shape = shape2(3, 62);
        CHECK(rejects(v, &b.call, "output of x's shape"));
        make_call(&b, o, FB_F32, 3, 61);
        b.in[0].shape.rank = 0;
        b.out[0].shape.rank = 0;
        CHECK(rejects(v, &b.call, "rank >= 1"));
    }
}

/* The cuBLASLt epilogue variants: each accepts its own program's operands (A, B
 * and D [M, N] or bias [N]) at odd sizes in every dtype, and declines another
 * case's (a bias where D belongs), mixed dtypes, batches and empty GEMMs with a
 * reason; run() before prepare() is a usage error, not a launch. */
static void test_matmul_epilogue(void)
{
    static const struct {
        const char *name;
        int third; /* 0 none, 1 D [M, N], 2 bias [N] */
    } vs[] = {{"matmul.tuned", 0}, {"matmul_add.fused", 1}, {"matmul_bias.fused", 2}, {"matmul_relu.fused", 0},
              {"matmul_add_relu.fused", 2}};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        const fb_variant *v = fb_variant_find(vs[i].name);
        CHECK(v != NULL);
        if (!v) continue;
        CHECK(v->supports && v->run && v->prepare && v->release && v->workspace);
        const int64_t mnk[][3] = {{1, 1, 1}, {7, 61, 13}, {130, 1027, 61}, {8192, 8192, 8192}};
        for (size_t s = 0; s < sizeof mnk / sizeof mnk[0]; s++)
            for (int d = 0; d < FB_NDTYPES; d++) {
                const int64_t M = mnk[s][0], N = mnk[s][1], K = mnk[s][2];
                call_buf b;
                memset(&b, 0, sizeof b);
                b.in[0] = (fb_tensor){NULL, (fb_dtype)d, shape2(M, K)};
                b.in[1] = (fb_tensor){NULL, (fb_dtype)d, shape2(K, N)};
                b.in[2] = (fb_tensor){NULL, (fb_dtype)d, vs[i].third == 1 ? shape2(M, N) : shape1(N)};
                b.out[0] = (fb_tensor){NULL, (fb_dtype)d, shape2(M, N)};
                b.call = (fb_call){b.in, vs[i].third ? 3 : 2, b.out, 1, NULL, 0, NULL, NULL, NULL};
                CHECK(v->supports(&b.call, NULL, 0) == FB_OK);
                if (s != 1 || d != FB_F16) continue;
                /* the declines, on one shape */
                if (vs[i].third) {
                    b.in[2].shape = vs[i].third == 1 ? shape1(N) : shape2(M, N);
                    CHECK(rejects(v, &b.call, vs[i].third == 1 ? "D [M, N]" : "bias [N]"));
                    b.in[2].shape = vs[i].third == 1 ? shape2(M, N) : shape1(N);
                    b.in[2].dtype = FB_BF16;
                    CHECK(rejects(v, &b.call, "one dtype"));
                    b.in[2].dtype = FB_F16;
                }
                b.call.n_in = vs[i].third ? 2 : 3;
                CHECK(rejects(v, &b.call, "inputs"));
                b.call.n_in = vs[i].third ? 3 : 2;
                b.in[1].shape = shape2(K + 1, N);
                CHECK(rejects(v, &b.call, "not one GEMM"));
                b.in[1].shape = shape2(K, N);
                b.in[0].shape = (fb_shape){3, {2, M, K}};
                CHECK(rejects(v, &b.call, "rank-2"));
                b.in[0].shape = shape2(M, 0);
                b.in[1].shape = shape2(0, N);
                CHECK(rejects(v, &b.call, "empty GEMM"));
                b.in[0].shape = shape2(M, K);
                b.in[1].shape = shape2(K, N);
                CHECK(v->run(&b.call) == FB_E_USAGE);
            }
    }
}

/* The prepare/release life cycle (variant.h's fb_variant_prepare / fb_variant_release)
 * with a fake variant that counts what it builds and frees: prepare twice, the first's
 * state released before the second, the second kept for run and released once at the
 * end; the sync inside the timed prepare; a failing first or second prepare leaves
 * nothing behind but what release frees; a variant without prepare is left alone. */
static int g_built, g_freed, g_fail_on, g_prepares, g_syncs;
static int fake_prepare(const fb_call *call, void **state)
{
    if (++g_prepares == g_fail_on) return FB_E_UNSUPPORTED;
    *state = (void *)(intptr_t)(++g_built); /* a distinct token per plan */
    return FB_OK;
}
static void fake_release(void *state) { g_freed += state != NULL; }
static int fake_sync(void *arg)
{
    g_syncs++;
    return *(int *)arg;
}

static void test_lifecycle(void)
{
    fb_variant v = {.name = "fake.fused", .prepare = fake_prepare, .release = fake_release};
    fb_call call;
    double ms;
    int sync_status = FB_OK;

    memset(&call, 0, sizeof call);
    g_built = g_freed = g_fail_on = g_prepares = g_syncs = 0;
    CHECK(fb_variant_prepare(&v, &call, fake_sync, &sync_status, &ms) == FB_OK);
    CHECK(g_prepares == 2 && g_built == 2 && g_freed == 1 && g_syncs == 1);
    CHECK(call.state == (void *)(intptr_t)2); /* the second plan is the one run gets */
    CHECK(ms >= 0 && isfinite(ms));
    fb_variant_release(&v, &call);
    CHECK(g_freed == 2 && call.state == NULL);
    fb_variant_release(&v, &call); /* nothing left: no second free */
    CHECK(g_freed == 2);

    /* the first prepare fails: its status, nothing built is kept, no time */
    memset(&call, 0, sizeof call);
    g_built = g_freed = g_prepares = g_syncs = 0;
    g_fail_on = 1;
    CHECK(fb_variant_prepare(&v, &call, fake_sync, &sync_status, &ms) == FB_E_UNSUPPORTED);
    CHECK(g_prepares == 1 && g_syncs == 0 && call.state == NULL && isnan(ms));
    /* the second fails: the first's plan was freed, nothing left to free */
    g_built = g_freed = g_prepares = 0;
    g_fail_on = 2;
    CHECK(fb_variant_prepare(&v, &call, fake_sync, &sync_status, &ms) == FB_E_UNSUPPORTED);
    CHECK(g_prepares == 2 && g_built == 1 && g_freed == 1 && call.state == NULL);
    /* the sync fails (a CUDA error in the work prepare queued): its status, the plan
     * still held for the caller's release */
    g_built = g_freed = g_prepares = g_syncs = 0;
    g_fail_on = 0;
    sync_status = FB_E_CUDA;
    CHECK(fb_variant_prepare(&v, &call, fake_sync, &sync_status, &ms) == FB_E_CUDA);
    CHECK(call.state != NULL && g_freed == 1);
    fb_variant_release(&v, &call);
    CHECK(g_freed == 2 && g_built == 2);

    /* without prepare: nothing done, no time */
    fb_variant plain = {.name = "plain.fused"};
    memset(&call, 0, sizeof call);
    g_syncs = 0;
    CHECK(fb_variant_prepare(&plain, &call, fake_sync, &sync_status, &ms) == FB_OK);
    CHECK(isnan(ms) && call.state == NULL && g_syncs == 0);
    fb_variant_release(&plain, &call);
}

/* Zero elements: nothing to launch, so run() succeeds without a device. */
static void test_empty(void)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            char name[96];
            snprintf(name, sizeof name, "%s.%s", ops[i].family, kinds[k]);
            const fb_variant *v = fb_variant_find(name);
            if (!v) continue;
            call_buf b;
            make_call(&b, &ops[i], FB_F32, 0, 61);
            CHECK(v->run(&b.call) == FB_OK);
        }
}

/* The horizontal cases: a [R, W] -> b [R, 1] (sum) and c: cos(a) [R, W] (pointwise) or
 * amax [R, 1] (reduction). */
static const char *const hfamilies[] = {"horizontal_reduction_pointwise", "horizontal_reduction_reduction"};
static const char *const hkinds[] = {"fused", "group", "cta", "cluster", "scalar"};

static void make_hcall(call_buf *b, int pointwise, fb_dtype dt, int64_t R, int64_t W)
{
    memset(b, 0, sizeof *b);
    b->in[0] = (fb_tensor){NULL, dt, shape2(R, W)};
    b->out[0] = (fb_tensor){NULL, dt, shape2(R, 1)};
    b->out[1] = (fb_tensor){NULL, dt, pointwise ? shape2(R, W) : shape2(R, 1)};
    b->call = (fb_call){b->in, 1, b->out, 2, NULL, 0, NULL, NULL};
}

static void test_horizontal(void)
{
    for (int f = 0; f < 2; f++)
        for (size_t k = 0; k < sizeof hkinds / sizeof hkinds[0]; k++) {
            const int pw = f == 0;
            char name[96];
            snprintf(name, sizeof name, "%s.%s", hfamilies[f], hkinds[k]);
            const fb_variant *v = fb_variant_find(name);
            CHECK(v != NULL);
            if (!v) continue;
            CHECK((v->dtypes & FB_DTYPES_HALF_AND_F32) == FB_DTYPES_HALF_AND_F32);
            call_buf b;
            const int64_t shapes[][2] = {{1, 1}, {3, 61}, {7, 130}, {5, 1027}, {2, 65536}, {65536, 65536}};
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                for (int d = 0; d < FB_F64; d++) {
                    make_hcall(&b, pw, (fb_dtype)d, shapes[s][0], shapes[s][1]);
                    CHECK(v->supports(&b.call, NULL, 0) == FB_OK);
                }
            make_hcall(&b, pw, FB_F32, 3, 61);
            b.out[0].shape = (fb_shape){1, {3}}; /* [R] holds the same R values as [R, 1] */
            CHECK(v->supports(&b.call, NULL, 0) == FB_OK);
            make_hcall(&b, pw, FB_F64, 3, 61);
            CHECK(rejects(v, &b.call, "float32/float16/bfloat16"));
            make_hcall(&b, pw, FB_F32, 3, 61);
            b.out[1].dtype = FB_F16;
            CHECK(rejects(v, &b.call, "one dtype"));
            make_hcall(&b, pw, FB_F32, 3, 61);
            b.call.n_out = 1;
            CHECK(rejects(v, &b.call, "2 outputs"));
            make_hcall(&b, pw, FB_F32, 3, 61);
            b.out[0].shape = shape2(4, 1);
            CHECK(rejects(v, &b.call, "one element per row"));
            make_hcall(&b, pw, FB_F32, 3, 61);
            b.out[1].shape = shape2(3, 60);
            CHECK(rejects(v, &b.call, pw ? "c of a's shape" : "one element per row"));
            make_hcall(&b, pw, FB_F32, 3, ((int64_t)1 << 30) + 1);
            CHECK(rejects(v, &b.call, "2^30"));
            make_hcall(&b, pw, FB_F32, 0, 61);
            CHECK(v->run(&b.call) == FB_OK);
        }
}

/* rowstream's long-row rule (horizontal_reduction_reduction.fused): float32 rows of >= 1024
 * elements get one CTA per row, kUpt = 4 units a thread up to 512 threads, one-shot, whatever
 * the row count (NOTES.md, "Stop 27"); shorter rows and the half types keep the capacity rule (a
 * warp a row at 65536 rows of 512, a persistent grid). 2048 resident threads per SM, 132 SMs
 * where none is found. */
static void test_rowstream_long_rows(void)
{
    const int tps = 2048;
    fb_rowstream_plan_info p = fb_horizontal_reduction_reduction_plan(65536, 4096, 4, 1, tps);
    CHECK(p.team == 1 && p.threads == 256 && p.one_shot);
    p = fb_horizontal_reduction_reduction_plan(4096, 4096, 4, 1, tps);
    CHECK(p.team == 1 && p.threads == 256 && p.one_shot);
    p = fb_horizontal_reduction_reduction_plan(4096, 8192, 4, 1, tps);
    CHECK(p.team == 1 && p.threads == 512 && p.one_shot);
    p = fb_horizontal_reduction_reduction_plan(128, 65536, 4, 1, tps);
    CHECK(p.team == 1 && p.threads == 512 && p.one_shot); /* was a cluster of CTAs */
    p = fb_horizontal_reduction_reduction_plan(65536, 2048, 4, 1, tps);
    CHECK(p.team == 1 && p.threads == 128 && p.one_shot);
    p = fb_horizontal_reduction_reduction_plan(65536, 1024, 4, 1, tps);
    CHECK(p.team == 1 && p.threads == 64 && p.one_shot);
    p = fb_horizontal_reduction_reduction_plan(65536, 512, 4, 1, tps);
    CHECK(p.team == 0 && p.lanes == 32 && !p.one_shot);
    p = fb_horizontal_reduction_reduction_plan(65536, 8192, 2, 1, tps); /* bfloat16: unchanged */
    CHECK(p.team == 0 && p.lanes == 32 && !p.one_shot);
    p = fb_horizontal_reduction_reduction_plan(65536, 4096, 4, 0, tps); /* unaligned: unchanged */
    CHECK(p.team == 0 && p.lanes == 32 && !p.one_shot);
}

/* horizontal_reduction_pointwise.fused's short odd rows (rowstream.cuh, launch_by_shape; NOTES.md
 * stop 25): one element per access for odd rows of <= 256 bytes while x is under 4 MB or the rows
 * are of <= 128 bytes; larger tensors of longer odd rows, even rows and rows over 256 bytes keep
 * 16-byte units. */
static void test_hrp_short_odd(void)
{
    CHECK(fb_horizontal_reduction_pointwise_scalar(2048, 61, 4) == 1);
    CHECK(fb_horizontal_reduction_pointwise_scalar(16384, 61, 4) == 1);  /* 3.998 MB */
    CHECK(fb_horizontal_reduction_pointwise_scalar(32768, 61, 4) == 0);
    CHECK(fb_horizontal_reduction_pointwise_scalar(65536, 33, 4) == 0);
    CHECK(fb_horizontal_reduction_pointwise_scalar(65536, 61, 2) == 1);  /* 122-byte rows */
    CHECK(fb_horizontal_reduction_pointwise_scalar(16384, 127, 2) == 0); /* 4.2 MB of 254-byte rows */
    CHECK(fb_horizontal_reduction_pointwise_scalar(8192, 127, 2) == 1);
    CHECK(fb_horizontal_reduction_pointwise_scalar(2048, 130, 4) == 0);  /* 520-byte rows */
    CHECK(fb_horizontal_reduction_pointwise_scalar(2048, 64, 4) == 0);   /* even */
}

int main(void)
{
    if (fb_case_load("../cases/bias_dropout_add_train.json", &g_train) != FB_OK) {
        fprintf(stderr, "test_variants: %s\n", fb_last_error());
        return 1;
    }
    test_dropout_needs_program();
    test_registered();
    test_supports();
    test_matmul_epilogue();
    test_lifecycle();
    test_empty();
    test_horizontal();
    test_rowstream_long_rows();
    test_hrp_short_odd();
    return fb_t_report("variants");
}
