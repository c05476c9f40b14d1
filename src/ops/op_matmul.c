/* op_matmul.c — the matmul kind: C = A @ B, batched, through cuBLASLt.
 *
 * Operands: A [..., M, K] and B [..., K, N] (row-major), output C [..., M, N].
 * Batched over A's leading dims: B has the same leading dims (one B per batch
 * entry), or B is rank 2 and shared by the whole batch (a weight). Attributes
 * transpose_a / transpose_b (default false): A is stored [..., K, M] / B
 * [..., N, K] and used transposed, as torch.matmul(a.mT, b) reads it.
 *
 * FLOPs: 2·batch·M·N·K (a multiply and an add per term). Bytes: each operand read
 * once and C written once (fb_cost_eager_traffic), one launch.
 *
 * The reference is a plain triple loop accumulating in double, terms in k order.
 * Its row rule keeps the batch dims and M (a row of C is a row of A times all of
 * B), combines along K (fb_rows_combine: the sum mixes two operands, so rows
 * cannot be split along it) and reads B whole.
 *
 * Eager is one cublasLtMatmul (src/lt_gemm.c, which the fused epilogue variants
 * share): float32 IEEE unless --tf32, float16/bfloat16 with fp32 accumulation,
 * float64 in float64. prepare() builds the descriptors and runs cuBLASLt's
 * heuristic once per cell, outside the timed region; eager only launches. */
#include "op_table.h"

#include "../lt_gemm.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const matmul_ops[] = {"matmul"};
static const char *const matmul_attrs[] = {"transpose_a", "transpose_b"};

static fb_status matmul_parse(fb_attr_reader *r, fb_node *n)
{
    bool ta = false, tb = false, present;
    fb_status s = fb_read_bool(r, "transpose_a", &ta, &present);
    if (s || (s = fb_read_bool(r, "transpose_b", &tb, &present))) return s;
    fb_attrs_set_bool(&n->attrs, "transpose_a", ta);
    fb_attrs_set_bool(&n->attrs, "transpose_b", tb);
    return FB_OK;
}

/* The problem at concrete shapes: which stored dim is which, and the sizes. */
typedef struct mm_dims {
    bool ta, tb;
    int ra, rb;
    int a_m, a_k, b_k, b_n; /* dims of A / B holding M, K / K, N            */
    int64_t m, n, k;
    int64_t batch;          /* product of A's leading dims                  */
    bool b_shared;          /* B is rank 2: one B for every batch entry     */
} mm_dims;

static void mm_read(const fb_node *n, const fb_shape *a, const fb_shape *b, mm_dims *d)
{
    d->ta = fb_attr_bool(&n->attrs, "transpose_a", false);
    d->tb = fb_attr_bool(&n->attrs, "transpose_b", false);
    d->ra = a->rank;
    d->rb = b->rank;
    d->a_m = d->ta ? a->rank - 1 : a->rank - 2;
    d->a_k = d->ta ? a->rank - 2 : a->rank - 1;
    d->b_k = d->tb ? b->rank - 1 : b->rank - 2;
    d->b_n = d->tb ? b->rank - 2 : b->rank - 1;
    d->m = d->a_m >= 0 ? a->dim[d->a_m] : 0;
    d->k = d->a_k >= 0 ? a->dim[d->a_k] : 0;
    d->n = d->b_n >= 0 ? b->dim[d->b_n] : 0;
    d->batch = 1;
    for (int j = 0; j + 2 < a->rank; j++) d->batch *= a->dim[j];
    d->b_shared = b->rank == 2;
}

static fb_status matmul_shape(const fb_node *n, const fb_shape *const *in, fb_shape *out)
{
    const fb_shape *a = in[0], *b = in[1];
    char sa[96], sb[96];
    fb_shape_str(a, sa, sizeof sa);
    fb_shape_str(b, sb, sizeof sb);
    for (int i = 0; i < 2; i++)
        if (in[i]->rank < 2) {
            fb_error("in: matmul needs operands of rank 2 or more, operand %d is %s", i, i ? sb : sa);
            return FB_E_CASE;
        }
    mm_dims d;
    mm_read(n, a, b, &d);
    if (b->dim[d.b_k] != d.k) {
        fb_error("in: K differs: operand 0 %s has K = %lld (dim %d%s), operand 1 %s has K = %lld (dim %d%s)", sa,
                 (long long)d.k, d.a_k, d.ta ? ", transpose_a" : "", sb, (long long)b->dim[d.b_k], d.b_k,
                 d.tb ? ", transpose_b" : "");
        return FB_E_CASE;
    }
    bool same_batch = b->rank == a->rank;
    for (int j = 0; same_batch && j + 2 < a->rank; j++) same_batch = a->dim[j] == b->dim[j];
    if (!d.b_shared && !same_batch) {
        fb_error("in: batch dims differ: operand 0 %s, operand 1 %s (matmul batches over equal leading dims, or "
                 "shares a rank-2 operand 1 over the batch)",
                 sa, sb);
        return FB_E_CASE;
    }
    *out = *a;
    out->dim[a->rank - 2] = d.m;
    out->dim[a->rank - 1] = d.n;
    return FB_OK;
}

static void matmul_cost(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem,
                        fb_node_cost *c)
{
    mm_dims d;
    mm_read(n, in[0], in[1], &d);
    fb_cost_eager_traffic(n, in, out, elem, c);
    c->flops = 2.0 * (double)d.batch * (double)d.m * (double)d.n * (double)d.k;
}

/* Row-major, A's element (m, k) of batch entry b and B's (k, n), transposes
 * honoured. Loop order m, k, n when B is not transposed (B and C read along n,
 * contiguous), else m, n, k (B read along k): both add each C element's terms
 * in k order starting from 0, so the two give the same bits. Without a transpose
 * the rows go in blocks of MM_ROWS and the columns in tiles of MM_COLS: a tile of
 * B's row k serves every row of the block from cache, where row by row each
 * output row streamed all of B from memory (K x N doubles: 1 GiB at K = 8192,
 * N = 16384) and the sampled check of a big GEMM cell was bound by it. Each
 * element's terms are still added in k order from 0: the same bits. */
#define MM_ROWS 16
#define MM_COLS 512
static fb_status matmul_reference(const fb_node *n, const fb_ref_args *a)
{
    mm_dims d;
    mm_read(n, a->in_shape[0], a->in_shape[1], &d);
    const int64_t M = d.m, N = d.n, K = d.k;
    const int64_t as_m = d.ta ? 1 : K, as_k = d.ta ? M : 1; /* A's strides along m, k */
    const int64_t bs_k = d.tb ? 1 : N, bs_n = d.tb ? K : 1; /* B's strides along k, n */
    const int64_t b_batch = d.b_shared ? 0 : K * N;
    for (int64_t bt = 0; bt < d.batch; bt++) {
        const double *A = a->in[0] + bt * M * K, *B = a->in[1] + bt * b_batch;
        double *C = a->out + bt * M * N;
        if (!d.tb) {
            for (int64_t m0 = 0; m0 < M; m0 += MM_ROWS) {
                const int64_t mb = M - m0 < MM_ROWS ? M - m0 : MM_ROWS;
                for (int64_t r = 0; r < mb; r++)
                    for (int64_t j = 0; j < N; j++) C[(m0 + r) * N + j] = 0.0;
                for (int64_t j0 = 0; j0 < N; j0 += MM_COLS) {
                    const int64_t jb = N - j0 < MM_COLS ? N - j0 : MM_COLS;
                    for (int64_t k = 0; k < K; k++) {
                        const double *b = B + k * bs_k + j0;
                        for (int64_t r = 0; r < mb; r++) {
                            const double x = A[(m0 + r) * as_m + k * as_k];
                            double *c = C + (m0 + r) * N + j0;
                            for (int64_t j = 0; j < jb; j++) c[j] += x * b[j];
                        }
                    }
                }
            }
        } else {
            for (int64_t m = 0; m < M; m++) {
                double *c = C + m * N;
                for (int64_t j = 0; j < N; j++) {
                    double acc = 0.0;
                    for (int64_t k = 0; k < K; k++) acc += A[m * as_m + k * as_k] * B[k * bs_k + j * bs_n];
                    c[j] = acc;
                }
            }
        }
    }
    return FB_OK;
}

static size_t matmul_workspace(const fb_node *n, const fb_shape *const *in, const fb_shape *out, fb_dtype dt)
{
    return FB_GEMM_WORKSPACE;
}

/* ---- eager: one cublasLtMatmul, planned in prepare ------------------------------ */

/* The GEMM this node is, at the launch's shapes. A shared B and an untransposed
 * A make the batch one [batch·M, K] matrix, a single larger GEMM (what torch
 * does) rather than a batch with B stride 0. */
static void gemm_shape(const fb_node *n, const fb_eager_args *a, fb_gemm_shape *g)
{
    mm_dims d;
    mm_read(n, &a->in[0]->shape, &a->in[1]->shape, &d);
    *g = (fb_gemm_shape){.dt = a->out->dtype, .m = d.m, .n = d.n, .k = d.k, .ta = d.ta, .tb = d.tb,
                         .batch = d.batch, .stride_a = d.m * d.k, .stride_b = d.b_shared ? 0 : d.k * d.n};
    if (d.b_shared && !d.ta) {
        g->m *= g->batch;
        g->batch = 1;
    }
}

static fb_gemm_operands gemm_operands(const fb_eager_args *a)
{
    return (fb_gemm_operands){.a = a->in[0]->data, .b = a->in[1]->data, .c = a->out->data};
}

/* Nothing to plan for an empty output or an empty sum (eager writes zeros). */
static bool trivial(const fb_gemm_shape *g) { return g->m == 0 || g->n == 0 || g->batch == 0 || g->k == 0; }

/* The descriptors, the preference and the heuristic query: host work that takes
 * microseconds, kept out of the timed run. */
static fb_status matmul_prepare(const fb_node *n, const fb_eager_args *a, void **plan)
{
    fb_gemm_shape g;
    gemm_shape(n, a, &g);
    if (trivial(&g)) return FB_OK;
    fb_gemm_operands o = gemm_operands(a);
    /* the heuristic's first algorithm, untuned: what torch's eager matmul runs */
    return fb_gemm_plan_create(a->ctx, &g, &o, a->workspace ? a->workspace_bytes : 0, NULL, a->what,
                               (fb_gemm_plan **)plan);
}

static void matmul_release(void *plan) { fb_gemm_plan_destroy(plan); }

static fb_status matmul_eager(const fb_node *n, const fb_eager_args *a)
{
    fb_gemm_shape g;
    gemm_shape(n, a, &g);
    fb_tensor *C = a->out;
    const int64_t c_numel = fb_shape_numel(&C->shape);
    if (c_numel == 0) return FB_OK;
    if (g.k == 0) /* an empty sum: zeros, which are all-zero bits in every dtype */
        return fb_cuda_status(cudaMemsetAsync(C->data, 0, (size_t)c_numel * fb_dtype_size(C->dtype), a->stream),
                              a->what, __FILE__, __LINE__);
    if (!a->plan) {
        fb_error("%s: not prepared (eager plans every matmul before it runs it)", a->what);
        return FB_E_USAGE;
    }
    fb_gemm_operands o = gemm_operands(a);
    return fb_gemm_run(a->plan, &o, a->workspace, a->stream, a->what);
}

/* C's batch dims are A's (and B's, when B has them), its M is A's M, its N is
 * B's N; the two K axes are one axis, combined along by a sum of products of
 * both operands (never a plain sum of one: no check splits K). B lacks M, so a
 * row (one M index) reads B whole. */
static void matmul_rows(const fb_node *n, fb_rowctx *rc, const fb_axes *const *in, fb_axes *out)
{
    const fb_axes *A = in[0], *B = in[1];
    const bool ta = fb_attr_bool(&n->attrs, "transpose_a", false);
    const bool tb = fb_attr_bool(&n->attrs, "transpose_b", false);
    const int ra = A->rank, rb = B->rank;
    out->rank = ra;
    if (ra < 2 || rb < 2) { /* shape() refuses these; nothing to trace */
        for (int j = 0; j < ra; j++) out->id[j] = -1;
        return;
    }
    for (int j = 0; j + 2 < ra; j++) out->id[j] = rb == ra ? fb_rows_same(rc, A->id[j], B->id[j]) : A->id[j];
    fb_rows_combine(rc, fb_rows_same(rc, A->id[ta ? ra - 2 : ra - 1], B->id[tb ? rb - 1 : rb - 2]));
    out->id[ra - 2] = A->id[ta ? ra - 1 : ra - 2];
    out->id[ra - 1] = B->id[tb ? rb - 2 : rb - 1];
}

const fb_op_kind fb_kind_matmul = {
    .name = "matmul",
    .ops = matmul_ops,
    .n_ops = 1,
    .n_in = 2,
    .literals = false,
    .attrs = matmul_attrs,
    .n_attrs = 2,
    .parse = matmul_parse,
    .shape = matmul_shape,
    .cost = matmul_cost,
    .reference = matmul_reference,
    .workspace = matmul_workspace,
    .eager = matmul_eager,
    .prepare = matmul_prepare,
    .release = matmul_release,
    .rows = matmul_rows,
};
