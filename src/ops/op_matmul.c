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
 * Eager is one cublasLtMatmul: float32 with CUBLAS_COMPUTE_32F (IEEE float32,
 * never TF32: the reference's float32 means float32), float16/bfloat16 stored as
 * such with CUBLAS_COMPUTE_32F (fp32 accumulation, as PyTorch), float64 with
 * CUBLAS_COMPUTE_64F. */
#include "op_table.h"

#include <cublasLt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const matmul_ops[] = {"matmul"};
static const char *const matmul_attrs[] = {"transpose_a", "transpose_b"};

/* cuBLASLt's recommended workspace on Hopper; more buys nothing. */
#define MATMUL_WORKSPACE ((size_t)32 << 20)

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
 * in k order starting from 0, so the two give the same bits. */
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
        for (int64_t m = 0; m < M; m++) {
            double *c = C + m * N;
            if (!d.tb) {
                for (int64_t j = 0; j < N; j++) c[j] = 0.0;
                for (int64_t k = 0; k < K; k++) {
                    const double x = A[m * as_m + k * as_k];
                    const double *b = B + k * bs_k;
                    for (int64_t j = 0; j < N; j++) c[j] += x * b[j];
                }
            } else {
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
    return MATMUL_WORKSPACE;
}

/* ---- eager: one cublasLtMatmul ------------------------------------------------ */

/* Check a cuBLASLt call; on failure set the message (naming the node and the
 * call) and jump to the cleanup. */
#define LT(call)                                                                     \
    do {                                                                             \
        char what_[160];                                                             \
        snprintf(what_, sizeof what_, "%s: %s", a->what, #call);                     \
        if ((s = fb_cublas_status((int)(call), what_, __FILE__, __LINE__)) != FB_OK) \
            goto done;                                                               \
    } while (0)

/* A stored row-major matrix as cuBLASLt's column-major layout: row-major
 * [rows, cols] is column-major cols x rows with leading dim cols. */
static cublasStatus_t layout(cublasLtMatrixLayout_t *l, cudaDataType_t t, int64_t rows, int64_t cols,
                             int32_t batch, int64_t batch_stride)
{
    cublasStatus_t st = cublasLtMatrixLayoutCreate(l, t, (uint64_t)cols, (uint64_t)rows, cols);
    if (st != CUBLAS_STATUS_SUCCESS || batch == 1) return st;
    st = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batch_stride,
                                              sizeof batch_stride);
    return st;
}

/* The largest power of two (at most 256) that divides the address. cuBLASLt's
 * heuristic assumes 256-byte aligned operands unless told otherwise, and an
 * algorithm it picks on that assumption fails on a tensor that starts less
 * aligned (a slice, a buffer shared by the eager planner's best fit). */
static uint32_t alignment(const void *p)
{
    uint32_t a = 256;
    while (a > 1 && (uintptr_t)p % a) a /= 2;
    return a;
}

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: cuBLASLt's
 * "A" is our B and its "B" our A, with m = N, n = M, and each stored matrix's
 * column-major view is its row-major transpose, so the transpose flags carry over
 * unchanged (a stored [K, N] B is column-major N x K: used as is, op N; a stored
 * [N, K] B is column-major K x N: op T gives N x K).
 *
 * The descriptors, the preference and the heuristic query are made and destroyed
 * here, inside the timed call: they are host-side and cost microseconds, which a
 * small matmul's time includes. Issue 10 moves them to a prepare step outside
 * the timed region. The handle is created on the first call (fb_context makes
 * library handles on first use; fb_context_destroy destroys it). */
static fb_status matmul_eager(const fb_node *n, const fb_eager_args *a)
{
    const fb_tensor *A = a->in[0], *B = a->in[1];
    fb_tensor *C = a->out;
    mm_dims d;
    mm_read(n, &A->shape, &B->shape, &d);
    const int64_t c_numel = fb_shape_numel(&C->shape);
    if (c_numel == 0) return FB_OK;
    if (d.k == 0) /* an empty sum: zeros, which are all-zero bits in every dtype */
        return fb_cuda_status(cudaMemsetAsync(C->data, 0, (size_t)c_numel * fb_dtype_size(C->dtype), a->stream),
                              a->what, __FILE__, __LINE__);

    /* A shared B and an untransposed A: the batch is one [batch·M, K] matrix, a
     * single larger GEMM (what torch does) rather than a batch with B stride 0. */
    int64_t M = d.m, batch = d.batch;
    if (d.b_shared && !d.ta) {
        M *= batch;
        batch = 1;
    }
    if (batch > INT32_MAX) {
        fb_error("%s: batch %lld is more than cuBLASLt's batch count holds", a->what, (long long)batch);
        return FB_E_UNSUPPORTED;
    }

    cudaDataType_t t, scale_t;
    cublasComputeType_t compute;
    switch (C->dtype) {
    case FB_F32: t = CUDA_R_32F, scale_t = CUDA_R_32F, compute = CUBLAS_COMPUTE_32F; break;
    case FB_F16: t = CUDA_R_16F, scale_t = CUDA_R_32F, compute = CUBLAS_COMPUTE_32F; break;
    case FB_BF16: t = CUDA_R_16BF, scale_t = CUDA_R_32F, compute = CUBLAS_COMPUTE_32F; break;
    case FB_F64: t = CUDA_R_64F, scale_t = CUDA_R_64F, compute = CUBLAS_COMPUTE_64F; break;
    default: fb_error("%s: no matmul for dtype %d", a->what, (int)C->dtype); return FB_E_UNSUPPORTED;
    }
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void *alpha = scale_t == CUDA_R_64F ? (const void *)&one_d : (const void *)&one_f;
    const void *beta = scale_t == CUDA_R_64F ? (const void *)&zero_d : (const void *)&zero_f;

    if (!a->ctx) {
        fb_error("%s: no device context (cuBLASLt needs its handle)", a->what);
        return FB_E_USAGE;
    }
    fb_status s = FB_OK;
    cublasLtMatmulDesc_t desc = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    if (!a->ctx->cublaslt) {
        cublasLtHandle_t h = NULL;
        LT(cublasLtCreate(&h));
        a->ctx->cublaslt = h;
    }
    cublasLtHandle_t h = (cublasLtHandle_t)a->ctx->cublaslt;

    /* cuBLASLt's A = our B (stored [K, N], or [N, K] transposed) */
    const int32_t nb = (int32_t)batch;
    const int64_t b_stride = d.b_shared ? 0 : d.k * d.n;
    LT(layout(&la, t, d.tb ? d.n : d.k, d.tb ? d.k : d.n, nb, b_stride));
    /* cuBLASLt's B = our A (stored [M, K], or [K, M] transposed) */
    LT(layout(&lb, t, d.ta ? d.k : M, d.ta ? M : d.k, nb, M * d.k));
    LT(layout(&lc, t, M, d.n, nb, M * d.n));

    LT(cublasLtMatmulDescCreate(&desc, compute, scale_t));
    /* int32_t: the attributes' type (cublasOperation_t's size is the compiler's) */
    const int32_t op_a = d.tb ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = d.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
    LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));

    LT(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = a->workspace ? (uint64_t)a->workspace_bytes : 0;
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    /* cuBLASLt's A is our B, its B our A; C and D are our C */
    const uint32_t al_a = alignment(B->data), al_b = alignment(A->data), al_c = alignment(C->data);
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al_a, sizeof al_a));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al_b, sizeof al_b));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al_c, sizeof al_c));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al_c, sizeof al_c));
    cublasLtMatmulHeuristicResult_t best;
    int found = 0;
    LT(cublasLtMatmulAlgoGetHeuristic(h, desc, la, lb, lc, lc, pref, 1, &best, &found));
    if (found == 0) {
        fb_error("%s: cuBLASLt has no algorithm for [%lld x %lld] x [%lld x %lld], batch %lld, %s", a->what,
                 (long long)M, (long long)d.k, (long long)d.k, (long long)d.n, (long long)batch,
                 fb_dtype_name(C->dtype));
        s = FB_E_UNSUPPORTED;
        goto done;
    }
    LT(cublasLtMatmul(h, desc, alpha, B->data, la, A->data, lb, beta, C->data, lc, C->data, lc, &best.algo,
                      a->workspace, (size_t)ws, a->stream));

done:
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (desc) cublasLtMatmulDescDestroy(desc);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (la) cublasLtMatrixLayoutDestroy(la);
    return s;
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
    .rows = matmul_rows,
};
