/* lt_gemm.c — cuBLASLt GEMM plans (lt_gemm.h).
 *
 * Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: cuBLASLt's
 * "A" is our B and its "B" our A, with its m = our n and its n = our m, and each
 * stored matrix's column-major view is its row-major transpose, so the transpose
 * flags carry over unchanged (a stored [K, N] B is column-major N x K: used as
 * is, op N; a stored [N, K] B is column-major K x N: op T gives N x K). A bias
 * over our columns n is then a bias over cuBLASLt's rows, which is what its
 * BIAS epilogues add. The full addend D is cuBLASLt's C (beta = 1) with the
 * output's layout; our output is its D.
 *
 * Types: float32 with CUBLAS_COMPUTE_32F (IEEE float32, what the reference
 * means) unless ctx->tf32 (CUBLAS_COMPUTE_32F_FAST_TF32, as torch with
 * allow_tf32); float16/bfloat16 stored as such with fp32 accumulation (as
 * PyTorch); float64 with CUBLAS_COMPUTE_64F. */
#include "lt_gemm.h"

#include <cublasLt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "tune_rounds.h"

struct fb_gemm_plan {
    cublasLtHandle_t h;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
    size_t workspace_bytes;
    bool scale_f64, add_d, bias;
    const void *bias_ptr; /* the bias address the descriptor holds */
    uint32_t align[5]; /* planned alignment of a, b, c, d, bias (our names) */
    int rank, candidates; /* the kept algorithm: the heuristic's candidate `rank` (0: its first) of `candidates` */
    bool tuned;           /* candidates were timed (else the heuristic's first was kept untimed) */
    char note[192];       /* fb_gemm_plan_note's text, made once */
};

/* Check a cuBLASLt call; on failure set the message and jump to the cleanup. */
#define LT(call)                                                                     \
    do {                                                                             \
        char what_[200];                                                             \
        snprintf(what_, sizeof what_, "%s: %s", what, #call);                        \
        if ((s = fb_cublas_status((int)(call), what_, __FILE__, __LINE__)) != FB_OK) \
            goto fail;                                                               \
    } while (0)

/* A stored row-major [rows, cols] matrix as cuBLASLt's column-major layout. */
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
    if (!p) return 256;
    uint32_t a = 256;
    while (a > 1 && (uintptr_t)p % a) a /= 2;
    return a;
}

static const char *epilogue_name(fb_gemm_epilogue e)
{
    static const char *const names[] = {"none", "relu", "bias", "relu+bias"};
    return (unsigned)e < 4 ? names[e] : "?";
}

#define MAX_CANDIDATES 16

/* One cublasLtMatmul of the plan with `algo`. cuBLASLt's A is our B, its B our A;
 * its C is our D (beta = 1) or our C (unread at beta 0); its D is our C. */
static cublasStatus_t launch(const fb_gemm_plan *p, const fb_gemm_operands *o, const cublasLtMatmulAlgo_t *algo,
                             void *workspace, cudaStream_t stream)
{
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void *alpha = p->scale_f64 ? (const void *)&one_d : (const void *)&one_f;
    const void *beta = p->add_d ? alpha : p->scale_f64 ? (const void *)&zero_d : (const void *)&zero_f;
    return cublasLtMatmul(p->h, p->desc, alpha, o->b, p->la, o->a, p->lb, beta, p->add_d ? o->d : o->c, p->lc, o->c,
                          p->lc, algo, workspace, p->workspace_bytes, stream);
}

/* Candidates are timed by tune_rounds.c (cold, round by round, the heuristic's first kept
 * unless another beats it by more than 1%): cuBLASLt's algorithms were its first users, and
 * its comments keep their numbers. */
typedef struct tune_arg {
    fb_gemm_plan *p;
    const fb_gemm_operands *o;
    const fb_gemm_tuning *t;
    const cublasLtMatmulHeuristicResult_t *res;
} tune_arg;

static int launch_candidate(void *arg, int i, cudaStream_t stream)
{
    const tune_arg *a = arg;
    return launch(a->p, a->o, &a->res[i].algo, a->t->workspace, stream) != CUBLAS_STATUS_SUCCESS;
}

/* Time the candidates (fb_tune_rounds) and keep the fastest in p->algo. A candidate that fails to
 * launch is passed over; none launching is an error. */
static fb_status tune_algo(fb_context *ctx, fb_gemm_plan *p, const fb_gemm_operands *o, const fb_gemm_tuning *t,
                           const cublasLtMatmulHeuristicResult_t *res, int n, const char *what)
{
    tune_arg arg = {p, o, t, res};
    int keep = 0;
    fb_status s;
    if (t->load_only) { /* each candidate's kernels loaded, nothing timed: the first that ran kept */
        s = fb_tune_load(n, launch_candidate, &arg, t->stream, &keep, what);
    } else {
        p->tuned = true; /* from here the candidates are timed (fb_gemm_plan_note says so) */
        s = fb_tune_rounds(ctx, t->stream, n, launch_candidate, &arg, &keep, what);
    }
    if (s == FB_OK) {
        p->algo = res[keep].algo;
        p->rank = keep;
    }
    return s;
}

fb_status fb_gemm_plan_create(fb_context *ctx, const fb_gemm_shape *g, const fb_gemm_operands *o,
                              size_t workspace_bytes, const fb_gemm_tuning *tune, const char *what,
                              fb_gemm_plan **out)
{
    *out = NULL;
    if (!ctx) {
        fb_error("%s: no device context (cuBLASLt needs its handle)", what);
        return FB_E_USAGE;
    }
    if (g->batch < 1 || g->batch > INT32_MAX) {
        fb_error("%s: batch %lld is outside cuBLASLt's batch count (1 to %d)", what, (long long)g->batch, INT32_MAX);
        return FB_E_UNSUPPORTED;
    }
    const bool has_bias = g->epilogue == FB_GEMM_BIAS || g->epilogue == FB_GEMM_RELU_BIAS;
    if ((has_bias && !o->bias) || (g->add_d && !o->d)) {
        fb_error("%s: the GEMM's %s operand is missing", what, has_bias && !o->bias ? "bias" : "D");
        return FB_E_USAGE;
    }
    cudaDataType_t t, scale_t = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    switch (g->dt) {
    case FB_F32: t = CUDA_R_32F; compute = ctx->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F; break;
    case FB_F16: t = CUDA_R_16F; break;
    case FB_BF16: t = CUDA_R_16BF; break;
    case FB_F64: t = CUDA_R_64F, scale_t = CUDA_R_64F, compute = CUBLAS_COMPUTE_64F; break;
    default: fb_error("%s: no GEMM for dtype %s", what, fb_dtype_name(g->dt)); return FB_E_UNSUPPORTED;
    }

    fb_gemm_plan *p = calloc(1, sizeof *p);
    if (!p) {
        fb_error("%s: out of host memory", what);
        return FB_E_NOMEM;
    }
    fb_status s = FB_OK;
    cublasLtMatmulPreference_t pref = NULL;
    if (!ctx->cublaslt) {
        cublasLtHandle_t h = NULL;
        LT(cublasLtCreate(&h));
        ctx->cublaslt = h;
    }
    p->h = (cublasLtHandle_t)ctx->cublaslt;
    p->scale_f64 = scale_t == CUDA_R_64F;
    p->add_d = g->add_d;
    p->bias = has_bias;
    p->workspace_bytes = workspace_bytes;

    const int32_t nb = (int32_t)g->batch;
    /* cuBLASLt's A = our B (stored [K, N], or [N, K] transposed) */
    LT(layout(&p->la, t, g->tb ? g->n : g->k, g->tb ? g->k : g->n, nb, g->stride_b));
    /* cuBLASLt's B = our A (stored [M, K], or [K, M] transposed) */
    LT(layout(&p->lb, t, g->ta ? g->k : g->m, g->ta ? g->m : g->k, nb, g->stride_a));
    LT(layout(&p->lc, t, g->m, g->n, nb, g->m * g->n));

    LT(cublasLtMatmulDescCreate(&p->desc, compute, scale_t));
    /* int32_t: the attributes' type (cublasOperation_t's size is the compiler's) */
    const int32_t op_a = g->tb ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = g->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    LT(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
    LT(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
    static const cublasLtEpilogue_t epi[] = {CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_RELU,
                                             CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS};
    const uint32_t e = (uint32_t)epi[g->epilogue];
    LT(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof e));
    if (has_bias) {
        /* the bias pointer is part of the descriptor; run() sets it again for its operands */
        LT(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &o->bias, sizeof o->bias));
        p->bias_ptr = o->bias;
        if (g->batch > 1) {
            const int64_t zero = 0; /* one bias for every batch entry */
            LT(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &zero, sizeof zero));
        }
    }

    LT(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = (uint64_t)workspace_bytes;
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    p->align[0] = alignment(o->a);
    p->align[1] = alignment(o->b);
    p->align[2] = alignment(o->c);
    p->align[3] = g->add_d ? alignment(o->d) : 256;
    p->align[4] = has_bias ? alignment(o->bias) : 256;
    /* cuBLASLt's A is our B, its B our A, its C our D, its D our C */
    const uint32_t al_c = g->add_d ? p->align[3] : p->align[2];
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &p->align[1],
                                            sizeof p->align[1]));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &p->align[0],
                                            sizeof p->align[0]));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al_c, sizeof al_c));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &p->align[2],
                                            sizeof p->align[2]));
    cublasLtMatmulHeuristicResult_t res[MAX_CANDIDATES];
    int found = 0, want = tune && tune->candidates > 1 ? tune->candidates : 1;
    if (want > MAX_CANDIDATES) want = MAX_CANDIDATES;
    cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(p->h, p->desc, p->la, p->lb, p->lc, p->lc, pref, want, res,
                                                       &found);
    if (hs == CUBLAS_STATUS_NOT_SUPPORTED || (hs == CUBLAS_STATUS_SUCCESS && found == 0)) {
        fb_error("%s: cuBLASLt has no algorithm for [%lld x %lld] x [%lld x %lld], batch %lld, %s, epilogue %s%s",
                 what, (long long)g->m, (long long)g->k, (long long)g->k, (long long)g->n, (long long)g->batch,
                 fb_dtype_name(g->dt), epilogue_name(g->epilogue), g->add_d ? " + D" : "");
        s = FB_E_UNSUPPORTED;
        goto fail;
    }
    LT(hs);
    p->algo = res[0].algo;
    p->rank = 0;
    p->candidates = found;
    if (found > 1 && (s = tune_algo(ctx, p, o, tune, res, found, what)) != FB_OK) goto fail;
    cublasLtMatmulPreferenceDestroy(pref);
    *out = p;
    return FB_OK;

fail:
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    fb_gemm_plan_destroy(p);
    return s;
}

fb_status fb_gemm_run(fb_gemm_plan *p, const fb_gemm_operands *o, void *workspace, cudaStream_t stream,
                      const char *what)
{
    const void *ptr[5] = {o->a, o->b, o->c, p->add_d ? o->d : NULL, p->bias ? o->bias : NULL};
    static const char *const names[5] = {"A", "B", "C", "D", "bias"};
    for (int i = 0; i < 5; i++)
        if (ptr[i] && alignment(ptr[i]) < p->align[i]) {
            fb_error("%s: operand %s at %p is %u-byte aligned, the plan was made for %u", what, names[i], ptr[i],
                     alignment(ptr[i]), p->align[i]);
            return FB_E_USAGE;
        }
    fb_status s = FB_OK;
    if (p->bias && o->bias != p->bias_ptr) { /* the descriptor holds the address: a new one is set once */
        LT(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &o->bias, sizeof o->bias));
        p->bias_ptr = o->bias;
    }
    LT(launch(p, o, &p->algo, workspace, stream));
    return FB_OK;
fail:
    return s;
}

/* One of the algorithm's configuration attributes, or -1 where cuBLASLt does not say. */
static long long algo_config(const cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoConfigAttributes_t attr)
{
    /* the buffer must be exactly the attribute's size (2 or 4 bytes here): ask it first */
    size_t need = 0, written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(a, attr, NULL, 0, &need) != CUBLAS_STATUS_SUCCESS || need == 0 ||
        need > sizeof(uint64_t))
        return -1;
    unsigned char buf[sizeof(uint64_t)] = {0};
    if (cublasLtMatmulAlgoConfigGetAttribute(a, attr, buf, need, &written) != CUBLAS_STATUS_SUCCESS || written != need)
        return -1;
    uint64_t v = 0;
    memcpy(&v, buf, need); /* unsigned, in the low bytes: little-endian hosts, as CUDA's are */
    return (long long)v;
}

const char *fb_gemm_plan_note(fb_gemm_plan *p)
{
    if (!p) return NULL;
    if (!p->note[0]) {
        const cublasLtMatmulAlgo_t *a = &p->algo;
        char which[80];
        if (p->tuned && p->rank == 0)
            snprintf(which, sizeof which, "the heuristic's first of %d, none of the others faster by > %g%% when timed",
                     p->candidates, 100 * FB_TUNE_MARGIN);
        else if (p->tuned)
            snprintf(which, sizeof which, "the heuristic's candidate %d of %d, kept by tuning", p->rank + 1,
                     p->candidates);
        else
            snprintf(which, sizeof which, "the heuristic's first");
        snprintf(p->note, sizeof p->note,
                 "cuBLASLt algorithm: %s (algo id %lld, tile %lld, stages %lld, split-K %lld, swizzle %lld, "
                 "cluster %lld)",
                 which, algo_config(a, CUBLASLT_ALGO_CONFIG_ID), algo_config(a, CUBLASLT_ALGO_CONFIG_TILE_ID),
                 algo_config(a, CUBLASLT_ALGO_CONFIG_STAGES_ID), algo_config(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                 algo_config(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING),
                 algo_config(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
    }
    return p->note;
}

void fb_gemm_plan_destroy(fb_gemm_plan *p)
{
    if (!p) return;
    if (p->desc) cublasLtMatmulDescDestroy(p->desc);
    if (p->lc) cublasLtMatrixLayoutDestroy(p->lc);
    if (p->lb) cublasLtMatrixLayoutDestroy(p->lb);
    if (p->la) cublasLtMatrixLayoutDestroy(p->la);
    free(p);
}
