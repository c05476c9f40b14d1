/* test_matmul_matmul.c — the back-to-back GEMM case and its fused variant, no GPU:
 *   - cases/matmul_matmul.json: inputs A, B, C in the order the kernel reads them, the two
 *     K grids, the stated float32 tolerance (the half types keep the defaults);
 *   - its costs: 4·M·N·K FLOPs, ideal bytes without the intermediate, eager's two GEMMs
 *     moving 2·M·N elements more (S written, read back);
 *   - the float64 reference against (A·B)·C written out by hand; rows of M evaluated alone
 *     equal the full evaluation (B and C read whole); the largest cell is checked on sampled
 *     rows, not left unchecked;
 *   - matmul_matmul.fused: registered, supports() on the grid's and selftest's shapes (odd
 *     M, N, K included) and its refusals with their reasons (float32, K > 128, shapes that do
 *     not chain, transposes), the launch plan (fb_matmul_matmul_plan: tiles, the split of N,
 *     the workspace), run() on empty shapes and without the workspace its plan needs. */
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "check.h"
#include "matmul_matmul.h"
#include "rowcheck.h"
#include "shapes.h"
#include "testing.h"
#include "variant.h"

static fb_case g_c;

static int value(const fb_case *c, const char *name)
{
    for (int v = 0; v < c->n_values; v++)
        if (strcmp(c->values[v].name, name) == 0) return v;
    return -1;
}

static fb_point point(const fb_case *c, int64_t M, int64_t N, int64_t K)
{
    fb_point p;
    memset(&p, 0, sizeof p);
    p.sym[c->axis[0].sym] = M;
    p.sym[c->axis[1].sym] = N;
    p.sym[c->fixed[0].sym] = K;
    return p;
}

/* ---- the case file ---------------------------------------------------------------- */

static void test_case_file(void)
{
    const fb_case *c = &g_c;
    CHECK_STR(c->name, "matmul_matmul");
    CHECK(c->n_inputs == 3);
    CHECK(value(c, "A") == 0 && value(c, "B") == 1 && value(c, "C") == 2);
    CHECK(c->n_outputs == 1 && c->outputs[0] == value(c, "E"));
    CHECK(c->n_nodes == 2);
    CHECK(c->n_fused == 3 && !strcmp(c->fused[0], "matmul_matmul.fused") && !strcmp(c->fused[1], "matmul_matmul.mma") &&
          !strcmp(c->fused[2], "matmul_matmul.wgmma"));
    CHECK(c->n_dtypes == 3 && c->dtypes[0] == FB_F32 && c->dtypes[1] == FB_F16 && c->dtypes[2] == FB_BF16);
    CHECK(c->n_axes == 2 && !strcmp(c->sym[c->axis[0].sym], "M") && !strcmp(c->sym[c->axis[1].sym], "N"));
    CHECK(c->axis[0].n == 5 && c->axis[0].v[0] == 128 && c->axis[0].v[4] == 16384);
    CHECK(c->n_fixed == 1 && !strcmp(c->sym[c->fixed[0].sym], "K"));
    CHECK(c->fixed[0].n == 2 && c->fixed[0].v[0] == 64 && c->fixed[0].v[1] == 128);
    CHECK(fb_case_n_points(c) == 50);
    /* float32: stated (eager's 16384-term fp32 sums; test_tolerance.c), half types: the defaults */
    CHECK(c->tol[FB_F32].set && c->tol[FB_F32].atol == 0.1 && c->tol[FB_F32].rtol == 1e-5);
    CHECK(!c->tol[FB_F16].set && !c->tol[FB_BF16].set);
}

static void test_costs(void)
{
    const fb_case *c = &g_c;
    const int64_t M = 512, N = 2048, K = 64;
    fb_point p = point(c, M, N, K);
    fb_shape s[FB_MAX_VALUES];
    CHECK(fb_program_shapes(c, &p, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[value(c, "S")]), "[512, 2048]");
    CHECK_STR(t_shape_str(&s[value(c, "E")]), "[512, 64]");
    fb_costs k;
    CHECK(fb_program_costs(c, s, FB_F16, &k) == FB_OK);
    CHECK(k.flops == 4.0 * M * N * K);
    CHECK(k.ideal_bytes == (2.0 * M * K + 2.0 * N * K) * 2);
    CHECK(k.eager_kernels == 2);
    CHECK(k.eager_bytes - k.ideal_bytes == 2.0 * M * N * 2); /* S written and read back */
}

/* ---- the reference and its rows ------------------------------------------------------ */

static void fill(double *p, int64_t n, double seed)
{
    for (int64_t i = 0; i < n; i++) p[i] = sin(seed + 0.7 * (double)i) * 2.0;
}

static void test_reference(void)
{
    const fb_case *c = &g_c;
    enum { M = 5, N = 7, K = 3 };
    fb_point p = point(c, M, N, K);
    fb_shape s[FB_MAX_VALUES];
    CHECK(fb_program_shapes(c, &p, s) == FB_OK);
    double A[M * K], B[K * N], C[N * K], E[M * K], want[M * K];
    fill(A, M * K, 0.1);
    fill(B, K * N, 1.3);
    fill(C, N * K, 2.7);
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++) {
            double e = 0;
            for (int n = 0; n < N; n++) {
                double sv = 0;
                for (int j = 0; j < K; j++) sv += A[m * K + j] * B[j * N + n];
                e += sv * C[n * K + k];
            }
            want[m * K + k] = e;
        }
    const double *in[3] = {A, B, C};
    double *out[1] = {E};
    CHECK(fb_reference_eval(c, s, in, out) == FB_OK);
    for (int i = 0; i < M * K; i++) CHECK_NEAR(E[i], want[i], 1e-12 * (1 + fabs(want[i])));

    /* rows of M: A, S and E by rows, B and C whole; each row alone equals the full result */
    fb_rowplan rp;
    CHECK(fb_program_rowplan(c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_split == 1 && rp.n_rows == M && !rp.accumulates && rp.boxes);
    CHECK_STR(t_shape_str(&rp.row_shape[value(c, "A")]), "[1, 3]");
    CHECK_STR(t_shape_str(&rp.row_shape[value(c, "B")]), "[3, 7]");
    CHECK_STR(t_shape_str(&rp.row_shape[value(c, "C")]), "[7, 3]");
    CHECK_STR(t_shape_str(&rp.row_shape[value(c, "S")]), "[1, 7]");
    CHECK_STR(t_shape_str(&rp.row_shape[value(c, "E")]), "[1, 3]");
    CHECK(fb_t_rows_match_full(c, &rp, in, out) == 0);
}

/* The largest cell: S is [16384, 16384], far past the full check's limit: sampled rows of
 * M, each costing the reference 2·N·K multiply-adds (one row of S, one row of E). */
static void test_largest_cell_sampled(void)
{
    const fb_case *c = &g_c;
    fb_point p;
    fb_case_point(c, fb_case_n_points(c) - 1, &p);
    fb_shape s[FB_MAX_VALUES];
    CHECK(fb_program_shapes(c, &p, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[value(c, "S")]), "[16384, 16384]");
    CHECK_STR(t_shape_str(&s[value(c, "E")]), "[16384, 128]");
    fb_check_plan *plan = malloc(sizeof *plan);
    CHECK(fb_check_plan_cell(c, s, FB_RUN_FULL_LIMIT, plan) == FB_OK);
    CHECK(plan->mode == FB_CHECK_SAMPLED && plan->by_rows && plan->rp.n_rows == 16384);
    /* about 2^22 elements of the rows' own values (A, S and E: 128 + 16384 + 128 per
     * row); B and C, read whole, are fetched once and do not count */
    CHECK(plan->sample_rows == ((int64_t)1 << 22) / (128 + 16384 + 128));
    const double macs = (double)plan->sample_rows * 2 * 16384 * 128;
    printf("largest cell: %lld of 16384 rows sampled, %.2g multiply-adds of reference\n",
           (long long)plan->sample_rows, macs);
    CHECK(macs < 4e9); /* a few seconds on one core at most */
    free(plan);
}

/* ---- the fused variant --------------------------------------------------------------- */

typedef struct call_buf {
    fb_tensor in[3], out[1];
    fb_call call;
} call_buf;

static void make_call(call_buf *b, fb_dtype dt, int64_t M, int64_t N, int64_t K)
{
    memset(b, 0, sizeof *b);
    b->in[0] = (fb_tensor){NULL, dt, {2, {M, K}}};
    b->in[1] = (fb_tensor){NULL, dt, {2, {K, N}}};
    b->in[2] = (fb_tensor){NULL, dt, {2, {N, K}}};
    b->out[0] = (fb_tensor){NULL, dt, {2, {M, K}}};
    b->call = (fb_call){b->in, 3, b->out, 1, NULL, 0, NULL, NULL, &g_c, NULL};
}

static int rejects(const fb_variant *v, const fb_call *c, const char *reason_part)
{
    char why[256] = "";
    int st = v->supports(c, why, sizeof why);
    if (st != FB_E_UNSUPPORTED || strstr(why, reason_part) == NULL) {
        fprintf(stderr, "  %s: status %d, why '%s', wanted '%s'\n", v->name, st, why, reason_part);
        return 0;
    }
    return 1;
}

static void test_variant_supports(void)
{
    const fb_variant *v = fb_variant_find("matmul_matmul.fused");
    CHECK(v != NULL);
    if (!v) return;
    CHECK(v->supports && v->run && v->workspace && v->prepare && v->release);
    CHECK(v->launches == 2); /* the fused kernel, and the reduce kernel when N is split */
    CHECK((v->dtypes & FB_DTYPE_BIT(FB_F16)) && (v->dtypes & FB_DTYPE_BIT(FB_BF16)));
    CHECK(!(v->dtypes & FB_DTYPE_BIT(FB_F64)));

    call_buf b;
    /* every grid cell, and selftest's shapes (M x N at the first K) with odd K as well */
    const fb_case *c = &g_c;
    for (int i = 0; i < fb_case_n_points(c); i++) {
        fb_point p;
        fb_case_point(c, i, &p);
        make_call(&b, FB_F16, p.sym[c->axis[0].sym], p.sym[c->axis[1].sym], p.sym[c->fixed[0].sym]);
        CHECK(v->supports(&b.call, NULL, 0) == FB_OK);
    }
    const int64_t shapes[][2] = {{1, 1}, {3, 61}, {7, 130}, {5, 1027}, {2, 65536}, {300, 4096}, {1, 262144}, {4099, 33}};
    const int64_t ks[] = {1, 7, 16, 33, 61, 64, 100, 127, 128};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++)
            for (int d = FB_F16; d <= FB_BF16; d++) {
                make_call(&b, (fb_dtype)d, shapes[i][0], shapes[i][1], ks[k]);
                CHECK(v->supports(&b.call, NULL, 0) == FB_OK);
            }

    make_call(&b, FB_F32, 128, 128, 64);
    CHECK(rejects(v, &b.call, "float16 and bfloat16"));
    CHECK(rejects(v, &b.call, "not float32"));
    make_call(&b, FB_F16, 128, 128, 129);
    CHECK(rejects(v, &b.call, "K = 129 > 128"));
    CHECK(rejects(v, &b.call, "does not fit on chip"));
    make_call(&b, FB_BF16, 128, 128, 64);
    b.in[2].dtype = FB_F16;
    CHECK(rejects(v, &b.call, "one dtype"));
    make_call(&b, FB_F16, 128, 256, 64);
    b.in[2].shape = (fb_shape){2, {64, 256}}; /* C as [K, N]: does not chain */
    CHECK(rejects(v, &b.call, "C [N, K]"));
    make_call(&b, FB_F16, 128, 256, 64);
    b.out[0].shape = (fb_shape){2, {128, 256}};
    CHECK(rejects(v, &b.call, "E [M, K]"));
    make_call(&b, FB_F16, 128, 256, 64);
    b.in[0].shape = (fb_shape){3, {2, 128, 64}};
    CHECK(rejects(v, &b.call, "A [M, K]"));
    make_call(&b, FB_F16, 128, 256, 64);
    b.call.n_in = 2;
    CHECK(rejects(v, &b.call, "takes A, B, C"));

    /* the same shapes, but a program whose second matmul reads C transposed: declined */
    static fb_case t;
    t = g_c;
    fb_attrs_set_bool(&t.nodes[1].attrs, "transpose_b", true);
    make_call(&b, FB_F16, 128, 128, 128);
    b.call.program = &t;
    CHECK(rejects(v, &b.call, "untransposed"));
    b.call.program = NULL; /* no program: the shapes decide */
    CHECK(v->supports(&b.call, NULL, 0) == FB_OK);
}

/* The two kernels as variants of their own: mma takes what fused takes; wgmma needs an
 * sm_90a build on a 9.0 GPU (so, here without one, says that) and 16-byte rows. */
static void test_kernel_variants(void)
{
    const fb_variant *mma = fb_variant_find("matmul_matmul.mma"), *wg = fb_variant_find("matmul_matmul.wgmma");
    CHECK(mma != NULL && wg != NULL);
    if (!mma || !wg) return;
    call_buf b;
    make_call(&b, FB_F16, 5, 1027, 61);
    CHECK(mma->supports(&b.call, NULL, 0) == FB_OK);
    make_call(&b, FB_F32, 128, 128, 64);
    CHECK(rejects(mma, &b.call, "matmul_matmul.mma runs float16 and bfloat16"));
    CHECK(rejects(wg, &b.call, "matmul_matmul.wgmma runs float16 and bfloat16"));
    make_call(&b, FB_BF16, 128, 128, 64);
    if (wg->supports(&b.call, NULL, 0) == FB_OK) { /* a GPU that runs it: alignment still decides */
        make_call(&b, FB_BF16, 128, 130, 64);
        CHECK(rejects(wg, &b.call, "multiples of 8"));
    } else {
        CHECK(rejects(wg, &b.call, "compute-capability 9.0"));
    }
}

/* The plan's invariants at one shape: whole tiles, no empty split, every chunk in
 * exactly one split, the workspace of the partials. */
static void plan_kernel_ok(int64_t M, int64_t N, int64_t K, int kernel, int resident, fb_mm2_plan *pl)
{
    CHECK(fb_matmul_matmul_plan(M, N, K, kernel, resident, pl) == FB_OK);
    CHECK(pl->kernel == kernel);
    if (kernel == FB_MM2_KERNEL_MMA) {
        CHECK(pl->kd >= K && pl->kd % 32 == 0 && pl->kd <= 128 && (pl->kd == 32 || pl->kd / 2 < K));
        CHECK(pl->bm == 128 && (pl->bn == 32 || pl->bn == 64));
    } else { /* whole 64-element atoms of K; 128-column chunks */
        CHECK(pl->kd >= K && (pl->kd == 64 || pl->kd == 128) && (pl->kd == 64 || K > 64));
        CHECK(pl->bm == 128 && pl->bn == 128);
    }
    CHECK(pl->m_tiles == (M + 127) / 128);
    CHECK(pl->n_chunks == (N + pl->bn - 1) / pl->bn);
    CHECK(pl->splits >= 1 && pl->chunks_per_split >= 1);
    CHECK((int64_t)pl->splits * pl->chunks_per_split >= pl->n_chunks);
    CHECK((int64_t)(pl->splits - 1) * pl->chunks_per_split < pl->n_chunks);
    if (pl->splits > 1) {
        CHECK((int64_t)pl->splits * pl->m_tiles <= resident); /* one wave */
        CHECK(pl->chunks_per_split * pl->bn >= 128);          /* at least 128 columns of N each */
        CHECK(pl->workspace == (size_t)pl->splits * (size_t)pl->m_tiles * 128 * (size_t)pl->kd * 4);
    } else {
        CHECK(pl->workspace == 0);
    }
}

static void plan_ok(int64_t M, int64_t N, int64_t K, int resident, fb_mm2_plan *pl)
{
    plan_kernel_ok(M, N, K, FB_MM2_KERNEL_MMA, resident, pl);
}

static void test_plan(void)
{
    fb_mm2_plan pl;
    /* the grid's corners on an H100 with 2 CTAs per SM */
    plan_ok(16384, 16384, 128, 264, &pl);
    CHECK(pl.kd == 128 && pl.bn == 32 && pl.m_tiles == 128 && pl.n_chunks == 512 && pl.splits == 2);
    CHECK(pl.chunks_per_split == 256 && pl.workspace == (size_t)2 * 16384 * 128 * 4);
    plan_ok(128, 16384, 128, 264, &pl); /* one row tile: N over 128 CTAs of 128 columns */
    CHECK(pl.m_tiles == 1 && pl.splits == 128 && pl.chunks_per_split == 4);
    plan_ok(128, 128, 64, 264, &pl); /* too little N to split */
    CHECK(pl.kd == 64 && pl.bn == 64 && pl.splits == 1 && pl.workspace == 0);
    plan_ok(8192, 2048, 64, 264, &pl); /* 64 tiles x 4 splits of 8 chunks */
    CHECK(pl.m_tiles == 64 && pl.splits == 4 && pl.chunks_per_split == 8);
    plan_ok(65536, 16384, 64, 264, &pl); /* more tiles than slots: no split */
    CHECK(pl.m_tiles == 512 && pl.splits == 1);
    /* uneven: 7 chunks of 64 columns, at most 7 / 2 = 3 splits: 3 + 3 + 1 chunks */
    plan_ok(1, 7 * 64, 64, 1000, &pl);
    CHECK(pl.n_chunks == 7 && pl.splits == 3 && pl.chunks_per_split == 3);
    /* odd shapes: K padded, tails in M and N */
    const int64_t Ms[] = {1, 3, 127, 128, 129, 4099}, Ns[] = {1, 33, 61, 130, 1027, 65536, 262144},
                  Ks[] = {1, 31, 32, 33, 64, 65, 127, 128};
    for (size_t i = 0; i < sizeof Ms / sizeof Ms[0]; i++)
        for (size_t j = 0; j < sizeof Ns / sizeof Ns[0]; j++)
            for (size_t k = 0; k < sizeof Ks / sizeof Ks[0]; k++) {
                plan_ok(Ms[i], Ns[j], Ks[k], 264, &pl);
                plan_ok(Ms[i], Ns[j], Ks[k], 1, &pl);
                plan_kernel_ok(Ms[i], Ns[j], Ks[k], FB_MM2_KERNEL_WGMMA, 132, &pl);
                plan_kernel_ok(Ms[i], Ns[j], Ks[k], FB_MM2_KERNEL_WGMMA, 1, &pl);
            }
    /* the wgmma kernel on an H100 (one CTA per SM): 128-column chunks, K padded to 64 or 128 */
    plan_kernel_ok(2048, 8192, 128, FB_MM2_KERNEL_WGMMA, 132, &pl); /* 16 tiles x 8 splits of 8 chunks */
    CHECK(pl.kd == 128 && pl.m_tiles == 16 && pl.n_chunks == 64 && pl.splits == 8 && pl.chunks_per_split == 8);
    /* one row tile, split only as far as it pays (the cost model in fb_matmul_matmul_plan):
     * at N = 16384 two chunks a split beat 128 splits of one (half the partials' traffic), at
     * N = 2048 one chunk a split still wins */
    plan_kernel_ok(128, 16384, 128, FB_MM2_KERNEL_WGMMA, 132, &pl);
    CHECK(pl.n_chunks == 128 && pl.splits == 64 && pl.chunks_per_split == 2);
    plan_kernel_ok(128, 2048, 128, FB_MM2_KERNEL_WGMMA, 132, &pl);
    CHECK(pl.n_chunks == 16 && pl.splits == 16 && pl.chunks_per_split == 1);
    plan_kernel_ok(8192, 512, 128, FB_MM2_KERNEL_WGMMA, 132, &pl); /* 64 tiles: a split costs more than 4 chunks */
    CHECK(pl.m_tiles == 64 && pl.splits == 1 && pl.workspace == 0);
    plan_kernel_ok(16384, 16384, 33, FB_MM2_KERNEL_WGMMA, 132, &pl); /* 128 tiles: no split */
    CHECK(pl.kd == 64 && pl.splits == 1 && pl.workspace == 0);
    CHECK(fb_matmul_matmul_plan(128, 128, 129, FB_MM2_KERNEL_MMA, 264, &pl) == FB_E_UNSUPPORTED);
    CHECK(fb_matmul_matmul_plan(128, 128, 129, FB_MM2_KERNEL_WGMMA, 264, &pl) == FB_E_UNSUPPORTED);
    CHECK(fb_matmul_matmul_plan(128, 128, 0, FB_MM2_KERNEL_MMA, 264, &pl) == FB_E_UNSUPPORTED);
    CHECK(fb_matmul_matmul_plan(0, 128, 64, FB_MM2_KERNEL_MMA, 264, &pl) == FB_E_UNSUPPORTED);
    CHECK(fb_matmul_matmul_plan(128, 128, 64, FB_MM2_KERNEL_MMA, 0, &pl) == FB_E_UNSUPPORTED);
    CHECK(fb_matmul_matmul_plan((int64_t)1 << 31, 128, 64, FB_MM2_KERNEL_MMA, 264, &pl) == FB_E_UNSUPPORTED);
    CHECK(fb_matmul_matmul_plan(128, 128, 64, 2, 264, &pl) == FB_E_UNSUPPORTED); /* no such kernel */
}

/* run() without a GPU: an empty E launches nothing; a plan that splits N, with no
 * workspace, is a usage error before any launch. */
static void test_run_host_paths(void)
{
    const fb_variant *v = fb_variant_find("matmul_matmul.fused");
    if (!v) return;
    call_buf b;
    make_call(&b, FB_F16, 0, 128, 64);
    CHECK(v->run(&b.call) == FB_OK);
    make_call(&b, FB_BF16, 128, 128, 0);
    CHECK(v->run(&b.call) == FB_OK);
    make_call(&b, FB_F32, 128, 128, 64);
    CHECK(v->run(&b.call) == FB_E_UNSUPPORTED);
    CHECK(strstr(fb_last_error(), "float16 and bfloat16") != NULL);

    fb_mm2_plan pl;
    CHECK(fb_matmul_matmul_plan(128, 16384, 128, FB_MM2_KERNEL_MMA, 264, &pl) == FB_OK && pl.splits > 1);
    make_call(&b, FB_F16, 128, 16384, 128);
    b.call.state = &pl;
    CHECK(v->run(&b.call) == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "bytes of workspace") != NULL);
}

int main(void)
{
    fb_status s = fb_case_find("matmul_matmul", &g_c);
    if (s != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(s == FB_OK);
    if (s != FB_OK) return fb_t_report("test_matmul_matmul");
    test_case_file();
    test_costs();
    test_reference();
    test_largest_cell_sampled();
    test_variant_supports();
    test_kernel_variants();
    test_plan();
    test_run_host_paths();
    return fb_t_report("test_matmul_matmul");
}
