/* test_matmul.c — the matmul op kind (src/ops/op_matmul.c) on the CPU: its shape
 * rule and messages, its cost, its float64 reference against hand-computed
 * products (transposes, batches, a shared B), its workspace, and its row rule:
 * tests/cases/matmul_bias.json (D = A @ B + bias) splits on M, reads B whole,
 * and every row evaluated alone equals the same row of the full evaluation, as
 * do the check's chunks of rows (rowref.c: A [rows, K] slices) and sampled rows;
 * its largest cell is checked on sampled rows (about 2^22 elements of A, C and D), not
 * left unchecked. */
#include "case.h"
#include "check.h"
#include "ops/op_table.h"
#include "program.h"
#include "rowref.h"
#include "rowcheck.h"
#include "shapes.h"
#include "testing.h"

#include <math.h>
#include <stdlib.h>

static fb_node mm(bool ta, bool tb)
{
    fb_node n;
    memset(&n, 0, sizeof n);
    CHECK(fb_op_lookup("matmul", &n.kind, &n.op) == 0);
    n.n_in = 2;
    fb_attrs_set_bool(&n.attrs, "transpose_a", ta);
    fb_attrs_set_bool(&n.attrs, "transpose_b", tb);
    return n;
}

/* The output shape as text, or "error N: MESSAGE". */
static const char *shape_of(bool ta, bool tb, fb_shape a, fb_shape b)
{
    fb_node n = mm(ta, tb);
    const fb_shape in[2] = {a, b};
    return t_node_shape(&n, 2, in);
}

static void test_kind(void)
{
    int k, op;
    CHECK(fb_op_lookup("matmul", &k, &op) == 0);
    const fb_op_kind *kind = fb_op_kind_at(k);
    CHECK(kind && kind->n_in == 2 && !kind->literals && kind->eager && kind->rows && kind->workspace);
    fb_node n = mm(false, false);
    fb_shape a = t_shape(2, 8, 4, 0, 0), b = t_shape(2, 4, 16, 0, 0), c = t_shape(2, 8, 16, 0, 0);
    const fb_shape *in[2] = {&a, &b};
    CHECK(kind->workspace(&n, in, &c, FB_F32) == (size_t)32 << 20);
}

static void test_shape(void)
{
    CHECK_STR(shape_of(false, false, t_shape(2, 2, 3, 0, 0), t_shape(2, 3, 5, 0, 0)), "[2, 5]");
    CHECK_STR(shape_of(false, false, t_shape(2, 2, 3, 0, 0), t_shape(2, 4, 5, 0, 0)),
              "error 2: in: K differs: operand 0 [2, 3] has K = 3 (dim 1), operand 1 [4, 5] has K = 4 (dim 0)");
    /* transposes: A stored [K, M], B stored [N, K] */
    CHECK_STR(shape_of(true, false, t_shape(2, 3, 2, 0, 0), t_shape(2, 3, 5, 0, 0)), "[2, 5]");
    CHECK_STR(shape_of(false, true, t_shape(2, 2, 3, 0, 0), t_shape(2, 5, 3, 0, 0)), "[2, 5]");
    CHECK_STR(shape_of(true, true, t_shape(2, 3, 2, 0, 0), t_shape(2, 5, 3, 0, 0)), "[2, 5]");
    CHECK_STR(shape_of(false, true, t_shape(2, 2, 3, 0, 0), t_shape(2, 3, 5, 0, 0)),
              "error 2: in: K differs: operand 0 [2, 3] has K = 3 (dim 1), operand 1 [3, 5] has K = 5 (dim 1, "
              "transpose_b)");
    CHECK_STR(shape_of(true, false, t_shape(2, 2, 3, 0, 0), t_shape(2, 3, 5, 0, 0)),
              "error 2: in: K differs: operand 0 [2, 3] has K = 2 (dim 0, transpose_a), operand 1 [3, 5] has K = 3 "
              "(dim 0)");
    /* batches: equal leading dims, or a rank-2 B shared by the batch */
    CHECK_STR(shape_of(false, false, t_shape(3, 4, 2, 3, 0), t_shape(3, 4, 3, 5, 0)), "[4, 2, 5]");
    CHECK_STR(shape_of(false, false, t_shape(4, 6, 4, 2, 3), t_shape(4, 6, 4, 3, 5)), "[6, 4, 2, 5]");
    CHECK_STR(shape_of(false, false, t_shape(3, 4, 2, 3, 0), t_shape(2, 3, 5, 0, 0)), "[4, 2, 5]");
    CHECK_STR(shape_of(true, true, t_shape(3, 4, 3, 2, 0), t_shape(2, 5, 3, 0, 0)), "[4, 2, 5]");
    CHECK_STR(shape_of(false, false, t_shape(3, 4, 2, 3, 0), t_shape(3, 5, 3, 5, 0)),
              "error 2: in: batch dims differ: operand 0 [4, 2, 3], operand 1 [5, 3, 5] (matmul batches over equal "
              "leading dims, or shares a rank-2 operand 1 over the batch)");
    CHECK_STR(shape_of(false, false, t_shape(2, 2, 3, 0, 0), t_shape(3, 4, 3, 5, 0)),
              "error 2: in: batch dims differ: operand 0 [2, 3], operand 1 [4, 3, 5] (matmul batches over equal "
              "leading dims, or shares a rank-2 operand 1 over the batch)");
    CHECK_STR(shape_of(false, false, t_shape(4, 2, 4, 2, 3), t_shape(3, 4, 3, 5, 0)),
              "error 2: in: batch dims differ: operand 0 [2, 4, 2, 3], operand 1 [4, 3, 5] (matmul batches over "
              "equal leading dims, or shares a rank-2 operand 1 over the batch)");
    CHECK_STR(shape_of(false, false, t_shape(1, 3, 0, 0, 0), t_shape(2, 3, 5, 0, 0)),
              "error 2: in: matmul needs operands of rank 2 or more, operand 0 is [3]");
    CHECK_STR(shape_of(false, false, t_shape(2, 2, 3, 0, 0), t_shape(1, 3, 0, 0, 0)),
              "error 2: in: matmul needs operands of rank 2 or more, operand 1 is [3]");
}

static void test_cost(void)
{
    fb_node n = mm(false, false);
    fb_shape a = t_shape(3, 4, 2, 3, 0), b = t_shape(2, 3, 5, 0, 0), c = t_shape(3, 4, 2, 5, 0);
    const fb_shape *in[2] = {&a, &b};
    fb_node_cost cost;
    fb_node_kind(&n)->cost(&n, in, &c, 4, &cost);
    CHECK(cost.flops == 2.0 * 4 * 2 * 5 * 3);
    CHECK(cost.bytes_read == (24 + 15) * 4.0);
    CHECK(cost.bytes_written == 40 * 4.0);
    CHECK(cost.launches == 1);
    /* transposed: the same problem, the same count */
    n = mm(true, true);
    a = t_shape(3, 4, 3, 2, 0), b = t_shape(2, 5, 3, 0, 0);
    fb_node_kind(&n)->cost(&n, in, &c, 2, &cost);
    CHECK(cost.flops == 240 && cost.bytes_read == 39 * 2.0 && cost.bytes_written == 80);
}

/* y = the node's reference on a and b (their shapes), out shape by the rule */
static fb_status ref(bool ta, bool tb, fb_shape as, const double *a, fb_shape bs, const double *b, double *y)
{
    fb_node n = mm(ta, tb);
    const fb_shape *in[2] = {&as, &bs};
    fb_shape ys;
    fb_status s = fb_node_kind(&n)->shape(&n, in, &ys);
    if (s) return s;
    fb_ref_args r = {.in = {a, b}, .in_shape = {&as, &bs}, .out = y, .out_shape = &ys};
    return fb_node_kind(&n)->reference(&n, &r);
}

static void test_reference(void)
{
    /* [[1, 2, 3], [4, 5, 6]] . [[7, 8], [9, 10], [11, 12]] = [[58, 64], [139, 154]] */
    const double A[6] = {1, 2, 3, 4, 5, 6}, At[6] = {1, 4, 2, 5, 3, 6};
    const double B[6] = {7, 8, 9, 10, 11, 12}, Bt[6] = {7, 9, 11, 8, 10, 12};
    const double want[4] = {58, 64, 139, 154};
    double y[16];
    CHECK(ref(false, false, t_shape(2, 2, 3, 0, 0), A, t_shape(2, 3, 2, 0, 0), B, y) == FB_OK);
    for (int i = 0; i < 4; i++) CHECK(y[i] == want[i]);
    CHECK(ref(true, false, t_shape(2, 3, 2, 0, 0), At, t_shape(2, 3, 2, 0, 0), B, y) == FB_OK);
    for (int i = 0; i < 4; i++) CHECK(y[i] == want[i]);
    CHECK(ref(false, true, t_shape(2, 2, 3, 0, 0), A, t_shape(2, 2, 3, 0, 0), Bt, y) == FB_OK);
    for (int i = 0; i < 4; i++) CHECK(y[i] == want[i]);
    CHECK(ref(true, true, t_shape(2, 3, 2, 0, 0), At, t_shape(2, 2, 3, 0, 0), Bt, y) == FB_OK);
    for (int i = 0; i < 4; i++) CHECK(y[i] == want[i]);

    /* the other order: [3, 2] . [2, 3] (B . A) = [[39, 54, 69], [49, 68, 87], [59, 82, 105]] */
    const double want2[9] = {39, 54, 69, 49, 68, 87, 59, 82, 105};
    CHECK(ref(false, false, t_shape(2, 3, 2, 0, 0), B, t_shape(2, 2, 3, 0, 0), A, y) == FB_OK);
    for (int i = 0; i < 9; i++) CHECK(y[i] == want2[i]);

    /* a batch of two: A and 2·A against B and -B; then against one shared B */
    double A2[12], B2[12];
    for (int i = 0; i < 6; i++) A2[i] = A[i], A2[6 + i] = 2 * A[i], B2[i] = B[i], B2[6 + i] = -B[i];
    CHECK(ref(false, false, t_shape(3, 2, 2, 3, 0), A2, t_shape(3, 2, 3, 2, 0), B2, y) == FB_OK);
    for (int i = 0; i < 4; i++) CHECK(y[i] == want[i] && y[4 + i] == -2 * want[i]);
    CHECK(ref(false, false, t_shape(3, 2, 2, 3, 0), A2, t_shape(2, 3, 2, 0, 0), B, y) == FB_OK);
    for (int i = 0; i < 4; i++) CHECK(y[i] == want[i] && y[4 + i] == 2 * want[i]);
    /* batched and transposed, B shared: A stored [2, K, M] */
    double At2[12];
    for (int i = 0; i < 6; i++) At2[i] = At[i], At2[6 + i] = 2 * At[i];
    CHECK(ref(true, true, t_shape(3, 2, 3, 2, 0), At2, t_shape(2, 2, 3, 0, 0), Bt, y) == FB_OK);
    for (int i = 0; i < 4; i++) CHECK(y[i] == want[i] && y[4 + i] == 2 * want[i]);
    /* K = 0: an empty sum */
    CHECK(ref(false, false, t_shape(2, 2, 0, 0, 0), A, t_shape(2, 0, 2, 0, 0), B, y) == FB_OK);
    for (int i = 0; i < 4; i++) CHECK(y[i] == 0.0);
}

static void fill(double *p, int64_t n, double seed)
{
    for (int64_t i = 0; i < n; i++) p[i] = sin(seed + 0.7 * (double)i) * 3.0;
}

/* The reference gives every element the bits of its plain k-order sum, with and without B
 * transposed (op_matmul.c's two loop orders, m-k-n and m-n-k, must agree), at sizes past the
 * hand-computed ones above (a blocked form was tried and reverted: NOTES.md, stop 25). */
static void test_reference_blocks(void)
{
    static const int64_t dims[][3] = {{37, 1100, 19}, {16, 512, 3}, {1, 1030, 7}, {33, 5, 64}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
        const int64_t M = dims[t][0], N = dims[t][1], K = dims[t][2];
        double *A = malloc(sizeof(double) * (size_t)(M * K)), *B = malloc(sizeof(double) * (size_t)(K * N));
        double *Bt = malloc(sizeof(double) * (size_t)(K * N)), *y = malloc(sizeof(double) * (size_t)(M * N));
        double *yt = malloc(sizeof(double) * (size_t)(M * N));
        fill(A, M * K, 1.0);
        fill(B, K * N, 2.0);
        for (int64_t k = 0; k < K; k++)
            for (int64_t j = 0; j < N; j++) Bt[j * K + k] = B[k * N + j];
        CHECK(ref(false, false, t_shape(2, M, K, 0, 0), A, t_shape(2, K, N, 0, 0), B, y) == FB_OK);
        CHECK(ref(false, true, t_shape(2, M, K, 0, 0), A, t_shape(2, N, K, 0, 0), Bt, yt) == FB_OK);
        int64_t bad = 0;
        for (int64_t m = 0; m < M; m++)
            for (int64_t j = 0; j < N; j++) {
                double want = 0.0;
                for (int64_t k = 0; k < K; k++) {
                    const double p = A[m * K + k] * B[k * N + j];
                    want = want + p;
                }
                bad += memcmp(&want, &y[m * N + j], sizeof want) != 0 || memcmp(&want, &yt[m * N + j], sizeof want) != 0;
            }
        CHECK(bad == 0);
        free(A);
        free(B);
        free(Bt);
        free(y);
        free(yt);
    }
}

static int value(const fb_case *c, const char *name)
{
    for (int v = 0; v < c->n_values; v++)
        if (strcmp(c->values[v].name, name) == 0) return v;
    return -1;
}

/* Full and row-by-row evaluation of c at shapes s agree. */
static void rows_agree(const fb_case *c, const fb_shape *s, const fb_rowplan *rp)
{
    double *in[FB_MAX_VALUES], *out[FB_MAX_VALUES];
    for (int v = 0; v < c->n_inputs; v++) {
        in[v] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[v]));
        fill(in[v], fb_shape_numel(&s[v]), v);
    }
    for (int o = 0; o < c->n_outputs; o++) out[o] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[c->outputs[o]]));
    CHECK(fb_reference_eval(c, s, (const double *const *)in, out) == FB_OK);
    CHECK(fb_t_rows_match_full(c, rp, (const double *const *)in, out) == 0);
    for (int v = 0; v < c->n_inputs; v++) free(in[v]);
    for (int o = 0; o < c->n_outputs; o++) free(out[o]);
}

static void test_rowplan(void)
{
    static fb_case c;
    fb_shape s[FB_MAX_VALUES];
    fb_rowplan rp;
    CHECK(fb_case_load("cases/matmul_bias.json", &c) == FB_OK);
    CHECK(fb_case_n_points(&c) == 9);
    fb_point p;
    fb_case_point(&c, 0, &p); /* M = 128, N = 128, K = 64 */
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    const int A = value(&c, "A"), B = value(&c, "B"), bias = value(&c, "bias"), C = value(&c, "C"),
              D = value(&c, "D");
    CHECK_STR(t_shape_str(&s[C]), "[128, 128]");
    fb_costs cost;
    CHECK(fb_program_costs(&c, s, FB_F32, &cost) == FB_OK);
    CHECK(cost.flops == 2.0 * 128 * 128 * 64 + 128 * 128);
    CHECK(cost.eager_kernels == 2);

    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_split == 1 && rp.n_rows == 128 && !rp.accumulates);
    CHECK_STR(t_shape_str(&rp.row_shape[A]), "[1, 64]");
    CHECK_STR(t_shape_str(&rp.row_shape[B]), "[64, 128]"); /* read whole */
    CHECK_STR(t_shape_str(&rp.row_shape[bias]), "[128]");
    CHECK_STR(t_shape_str(&rp.row_shape[C]), "[1, 128]");
    CHECK_STR(t_shape_str(&rp.row_shape[D]), "[1, 128]");
    for (int r = 0; r < 128; r += 37) {
        CHECK(fb_rowplan_offset(&rp, A, r) == r * 64);
        CHECK(fb_rowplan_offset(&rp, B, r) == 0);
        CHECK(fb_rowplan_offset(&rp, D, r) == r * 128);
    }
    rows_agree(&c, s, &rp);

    /* B transposed (stored [N, K]): still M rows, B still whole */
    fb_attrs_set_bool(&c.nodes[0].attrs, "transpose_b", true);
    s[B] = t_shape(2, 128, 64, 0, 0);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_rows == 128);
    CHECK_STR(t_shape_str(&rp.row_shape[A]), "[1, 64]");
    CHECK_STR(t_shape_str(&rp.row_shape[B]), "[128, 64]");
    rows_agree(&c, s, &rp);

    /* A transposed (stored [K, M]): a row of M is not a contiguous slice of A,
     * and K is combined along, so nothing splits */
    fb_attrs_set_bool(&c.nodes[0].attrs, "transpose_b", false);
    fb_attrs_set_bool(&c.nodes[0].attrs, "transpose_a", true);
    s[A] = t_shape(2, 64, 128, 0, 0);
    s[B] = t_shape(2, 64, 128, 0, 0);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    CHECK_STR(rp.why, "'A' does not lead with dim 0 of output 'D', so a row of it is not one contiguous slice");

    /* batched, B shared: [2, 8, 16] @ [16, 8] + [8] splits on the batch and M */
    fb_attrs_set_bool(&c.nodes[0].attrs, "transpose_a", false);
    s[A] = t_shape(3, 2, 8, 16, 0);
    s[B] = t_shape(2, 16, 8, 0, 0);
    s[bias] = t_shape(1, 8, 0, 0, 0);
    s[C] = s[D] = t_shape(3, 2, 8, 8, 0);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_split == 2 && rp.n_rows == 16);
    CHECK_STR(t_shape_str(&rp.row_shape[A]), "[1, 1, 16]");
    CHECK_STR(t_shape_str(&rp.row_shape[B]), "[16, 8]");
    CHECK(fb_rowplan_offset(&rp, A, 9) == 9 * 16 && fb_rowplan_offset(&rp, B, 9) == 0);
    rows_agree(&c, s, &rp);

    /* batched B: one B per batch entry, read whole within its entry */
    s[B] = t_shape(3, 2, 16, 8, 0);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_split == 2 && rp.n_rows == 16);
    CHECK_STR(t_shape_str(&rp.row_shape[B]), "[1, 16, 8]");
    CHECK(fb_rowplan_offset(&rp, B, 9) == 128 && fb_rowplan_offset(&rp, B, 7) == 0);
    rows_agree(&c, s, &rp);
}

/* The check's path: rowref over chunks of M rows (each chunk evaluates A
 * [rows, K] against the whole B), and kept rows alone; the check's plan. */
static void test_rowref(void)
{
    static fb_case c;
    CHECK(fb_case_load("cases/matmul_bias.json", &c) == FB_OK);
    fb_point p;
    fb_case_point(&c, 0, &p);
    const int64_t M = 37, N = 24;
    p.sym[c.axis[0].sym] = M;
    p.sym[c.axis[1].sym] = N;
    fb_shape s[FB_MAX_VALUES];
    fb_rowplan rp;
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_rows == M);
    double *in[FB_MAX_VALUES] = {0}, whole[37 * 24], got[37 * 24];
    for (int v = 0; v < c.n_inputs; v++) {
        in[v] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[v]));
        fill(in[v], fb_shape_numel(&s[v]), 0.5 + v);
    }
    double *outs[1] = {whole};
    CHECK(fb_reference_eval(&c, s, (const double *const *)in, outs) == FB_OK);
    /* every row, in chunks of about 5 rows (per row: A 64, C and D 24 each), on 1 and 3 threads */
    for (int threads = 1; threads <= 3; threads += 2) {
        for (int i = 0; i < M * N; i++) got[i] = NAN;
        fb_rowref_job job = {.c = &c, .shapes = s, .rp = &rp, .fetch = fb_t_fetch_doubles, .fetch_ctx = in,
                             .out = {got}, .threads = threads, .chunk_elems = 5 * (64 + 2 * 24) + 64 * 24 + 24};
        int64_t rows_per_chunk, chunks;
        fb_rowref_chunking(&c, s, &rp, job.chunk_elems, &rows_per_chunk, &chunks);
        CHECK(rows_per_chunk > 1 && chunks > 1);
        CHECK(fb_rowref_eval(&job) == FB_OK);
        int bad = 0;
        for (int i = 0; i < M * N; i++) bad += got[i] != whole[i];
        CHECK(bad == 0);
    }
    /* kept rows: the first, one inside, the last */
    const int64_t keep[] = {0, 17, M - 1};
    fb_rowref_job job = {.c = &c, .shapes = s, .rp = &rp, .fetch = fb_t_fetch_doubles, .fetch_ctx = in,
                         .keep = keep, .n_keep = 3, .out = {got}, .threads = 2};
    CHECK(fb_rowref_eval(&job) == FB_OK);
    int bad = 0;
    for (int j = 0; j < 3; j++)
        for (int e = 0; e < N; e++) bad += got[j * N + e] != whole[keep[j] * N + e];
    CHECK(bad == 0);
    for (int v = 0; v < c.n_inputs; v++) free(in[v]);

    /* the grid's largest cell (M = N = 8192): sampled rows of D, not unchecked */
    fb_case_point(&c, fb_case_n_points(&c) - 1, &p);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[value(&c, "D")]), "[8192, 8192]");
    fb_check_plan *plan = malloc(sizeof *plan);
    CHECK(fb_check_plan_cell(&c, s, FB_RUN_FULL_LIMIT, plan) == FB_OK);
    CHECK(plan->mode == FB_CHECK_SAMPLED && plan->by_rows && plan->rp.n_rows == 8192);
    /* about 2^22 elements of the rows' own values: A, C and D (64 + 8192 + 8192 a row); B,
     * read whole by every row and fetched once, does not count (it would leave 7 rows) */
    CHECK(plan->sample_rows == ((int64_t)1 << 22) / (64 + 8192 + 8192));
    free(plan);
}

/* A sampled GEMM check is sized by its FLOPs too (FB_CHECK_FLOP_LIMIT): at the
 * matmul grid's largest cell (M = N = 16384, K = 8192) a row costs 2·K·N FLOPs,
 * so 29 rows fit 8 GFLOP, where the element budget alone kept 169; a cell whose
 * rows are cheap keeps the element budget's count. */
static void test_sample_by_flops(void)
{
    fb_case c;
    if (fb_case_find("matmul", &c) != FB_OK) {
        fprintf(stderr, "%s\n", fb_last_error());
        CHECK(false);
        return;
    }
    fb_point p;
    fb_shape s[FB_MAX_VALUES];
    fb_case_point(&c, fb_case_n_points(&c) - 1, &p);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[value(&c, "B")]), "[8192, 16384]");
    fb_check_plan *plan = malloc(sizeof *plan);
    CHECK(fb_check_plan_cell(&c, s, FB_RUN_FULL_LIMIT, plan) == FB_OK);
    CHECK(plan->mode == FB_CHECK_SAMPLED && plan->rp.n_rows == 16384);
    CHECK(plan->sample_rows == (int64_t)(FB_CHECK_FLOP_LIMIT / (2.0 * 8192 * 16384)));
    /* M = 16384, N = 128, K = 1024: 2^18 FLOPs a row; the element budget decides */
    p.sym[c.axis[1].sym] = 128;
    for (int i = 0; i < c.n_syms; i++)
        if (!strcmp(c.sym[i], "K")) p.sym[i] = 1024;
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_check_plan_cell(&c, s, FB_RUN_FULL_LIMIT, plan) == FB_OK);
    CHECK(plan->mode == FB_CHECK_SAMPLED && plan->sample_rows == ((int64_t)1 << 22) / (1024 + 128));
    free(plan);
}

/* fb_case_floor: the first op alone, on its own inputs (the paired measurement's plain op) */
static void test_floor(void)
{
    static fb_case c, f;
    int in_of[FB_MAX_OPERANDS];
    fb_shape s[FB_MAX_VALUES];
    CHECK(fb_case_load("cases/matmul_bias.json", &c) == FB_OK);
    CHECK(!fb_case_pairs(&c, "matmul_bias.fused")); /* the case names no plain op */
    snprintf(c.paired, sizeof c.paired, "matmul.tuned");
    CHECK(fb_case_pairs(&c, "matmul_bias.fused") && !fb_case_pairs(&c, "eager") && !fb_case_pairs(&c, "matmul.tuned"));
    CHECK(fb_case_floor(&c, &f, in_of) == FB_OK);
    CHECK_STR(f.name, "matmul_bias.floor");
    CHECK(f.n_inputs == 2 && f.n_nodes == 1 && f.n_outputs == 1 && f.n_values == 3);
    CHECK(in_of[0] == value(&c, "A") && in_of[1] == value(&c, "B"));
    CHECK_STR(f.values[0].name, "A");
    CHECK_STR(f.values[1].name, "B");
    CHECK_STR(f.values[f.outputs[0]].name, "C");
    CHECK(f.n_fused == 1);
    CHECK_STR(f.fused[0], "matmul.tuned");
    CHECK_STR(f.paired, "");
    fb_point p;
    fb_case_point(&f, 0, &p); /* M = 128, N = 128, K = 64, as the case's first point */
    CHECK(fb_program_shapes(&f, &p, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[f.outputs[0]]), "[128, 128]");
    fb_costs cost;
    CHECK(fb_program_costs(&f, s, FB_F32, &cost) == FB_OK);
    CHECK(cost.flops == 2.0 * 128 * 128 * 64);
    CHECK(cost.eager_kernels == 1);
    /* the floor's reference is the case's intermediate: C = A·B at a small point */
    double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, -1, 2, 0.5, 3}, out[4];
    fb_shape fs[FB_MAX_VALUES];
    fs[0] = (fb_shape){.rank = 2, .dim = {2, 3}};
    fs[1] = (fb_shape){.rank = 2, .dim = {3, 2}};
    fs[2] = (fb_shape){.rank = 2, .dim = {2, 2}};
    const double *ins[2] = {a, b};
    double *outs[1] = {out};
    CHECK(fb_reference_eval(&f, fs, ins, outs) == FB_OK);
    CHECK(out[0] == 1 * 1 + 2 * -1 + 3 * 0.5 && out[1] == 0 + 2 * 2 + 3 * 3);
    CHECK(out[2] == 4 - 5 + 6 * 0.5 && out[3] == 0 + 10 + 18);
    /* a first op that reads one input twice has no floor of distinct tensors */
    const char *twice = "{\"name\": \"sq\", \"summary\": \"x*x then exp\", \"inputs\": {\"x\": {\"shape\": [\"n\"]}},"
                        " \"program\": [{\"op\": \"mul\", \"in\": [\"x\", \"x\"], \"out\": \"s\"},"
                        " {\"op\": \"exp\", \"in\": [\"s\"], \"out\": \"y\"}], \"outputs\": [\"y\"],"
                        " \"dtypes\": [\"float32\"], \"grid\": {\"n\": [4]}}";
    CHECK(fb_case_parse(twice, "sq.json", &c) == FB_OK);
    fb_clear_error();
    CHECK(fb_case_floor(&c, &f, in_of) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "case 'sq': its first op reads 'x' twice; a floor needs distinct inputs");
}

int main(void)
{
    test_kind();
    test_shape();
    test_cost();
    test_reference();
    test_reference_blocks();
    test_sample_by_flops();
    test_rowplan();
    test_rowref();
    test_floor();
    return fb_t_report("test_matmul");
}
