/* conv_fused.c — a 2-d convolution and its epilogue in one cuDNN call: the fused forms
 * of the conv_relu, conv_add and conv_bn cases, and conv.tuned, the plain convolution
 * planned the same way, which they are timed in pairs with. Host C only: the kernels are cuDNN's
 * (the fold in conv_bn's prepare is kernels/conv_fold.cu).
 *
 * Layout NHWC throughout: x [N,H,W,C], w [K,R,S,C/groups] (KRSC), output [N,P,Q,K];
 * stride, padding, dilation and groups from the program's conv2d node. Half types are
 * stored as half and accumulated in fp32; float32 is IEEE float32 unless --tf32.
 *
 *   conv_relu.fused  y = relu(conv2d(x, w) + bias), bias [K]: a cuDNN operation graph
 *                    conv → add (bias as [1,K,1,1], broadcast) → relu, the intermediates
 *                    virtual (kept in the kernel's accumulators, never in memory).
 *   conv_add.fused   y = conv2d(x, w) + D, D [N,P,Q,K] (a residual): two graphs, conv → add D
 *                    and conv → add D → add 0 (a bias of K zeros, for which cuDNN offers
 *                    engine 41, the bias graphs' engine, where it offers the first engines 4
 *                    and 7), their engine configs timed in one race (graph_prepare_add).
 *   conv_bn.fused    y = (conv2d(x, w) − mean)·γ/√(var + ε) + β, inference batch norm:
 *                    folded in prepare into w' = w·γ/√(var+ε) per output channel and a
 *                    bias b' = β − mean·γ/√(var+ε), then conv(x, w') → add b'. The fold
 *                    is per-weights work, done once, as a deployed model folds its batch
 *                    norm when it is exported; the timed run is the convolution alone,
 *                    with a bias epilogue.
 *   conv.tuned       y = conv2d(x, w) alone, the same graph without an epilogue: the
 *                    floor the three are held to (their case files' "paired"). Eager's
 *                    convolution is the legacy cudnnConvolutionForward on the v7
 *                    heuristic's first algorithm; timing the fused graph against it
 *                    compared two engine choices as much as an epilogue (stop 43:
 *                    conv_add 1.04-1.33x), so the floor is planned as the fused are.
 *
 * When they win: eager writes the convolution's output [N,P,Q,K] and reads it back for
 * each epilogue op (bias add and relu; the add; batch norm's normalisation), so a fused
 * variant saves two to five passes over the output. That is most of the time of a
 * memory-bound convolution (1x1 kernels, few input channels, large spatial maps) and
 * little of a compute-bound 3x3 with many channels, where the epilogue is free either
 * way. conv_bn saves the most: its whole normalisation vanishes into the weights.
 *
 * Paths. prepare() builds the graph and the first CONV_TUNE_CANDIDATES engine configs of
 * cuDNN's heuristics (mode A; FALLBACK if A has none; then up to four configs of other
 * engines from mode B) that compute what the reference
 * means (cudnn_graph.h: no TF32 unless asked, fp32 accumulation, deterministic), build
 * and fit the workspace, then runs each on the cell's operands, cold, in rounds, and
 * keeps the fastest (tune_rounds.h, as cuBLASLt's algorithms are chosen); the result's
 * note names the engine and its rank.
 * If no engine does, it falls back to the legacy cudnnConvolutionBiasActivationForward
 * (relu, or identity with the add as its z input / the folded bias), and the cell's
 * result says so (the variant's note, written as the ok status's reason). If neither
 * can run the shape, the variant declines with both reasons. */
#include "conv_fused.h"

#include <cudnn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_fold.h"
#include "cudnn_graph.h"
#include "ops/attrs.h"

/* What the variants ask for before prepare() has a plan (cell.c allocates the workspace
 * first): enough for Hopper's implicit-GEMM engines and their split reductions (IEEE
 * float32 asks more: workspace_as); prepare's candidates are the engines whose need fits. */
#define CONV_FUSED_WORKSPACE ((size_t)64 << 20)

/* EPI_NONE is conv.tuned: the plain convolution the others are held to (the case file's
 * "paired"), planned and tuned as they are */
typedef enum epilogue { EPI_BIAS_RELU, EPI_ADD, EPI_BN, EPI_NONE, EPI_COUNT } epilogue;

static const char *const epi_name[] = {"conv_relu.fused", "conv_add.fused", "conv_bn.fused", "conv.tuned"};
static const int epi_inputs[] = {3, 3, 6, 2};
static const char *const epi_operands[] = {"x, w, bias", "x, w, D", "x, w, mean, var, gamma, beta", "x, w"};

/* How many of cuDNN's acceptable engine configs prepare builds and times (cudnn_graph.h's
 * fb_cudnn_graph_tune), as matmul_epilogue.c's cuBLASLt candidates. */
#define CONV_TUNE_CANDIDATES 8

typedef struct conv_problem {
    epilogue epi;
    fb_dtype dt;
    int64_t n, h, w, c;  /* x [N,H,W,C]          */
    int64_t k, r, s, cg; /* w [K,R,S,C/groups]   */
    int64_t p, q;        /* output [N,P,Q,K]     */
    int64_t groups;
    fb_cudnn_conv2d geom;
    double eps;          /* conv_bn              */
} conv_problem;

/* An integer attribute of the conv2d node, or its default when absent. A value of
 * another type (a per-dimension pair, say) is not what this variant reads: declined. */
static int conv_int(const fb_attrs *a, const char *key, int64_t dflt, int64_t *out, char *why, size_t n)
{
    const fb_attr *v = fb_attrs_get(a, key);
    *out = dflt;
    if (!v) return FB_OK;
    if (v->type != FB_ATTR_INT)
        return fb_decline(why, n, "conv2d's '%s' is not one integer (this variant reads the same value for H and W)",
                          key);
    *out = v->i;
    return FB_OK;
}

/* A node's layout. The conv2d and batchnorm kinds (src/ops/op_conv2d.c, op_batchnorm.c)
 * read the case file's "NHWC" / "NCHW" as an enum and store its index as an integer
 * attribute, NHWC (0) the default; absent means that default. These variants run NHWC
 * only (for batch norm: channels last, as the convolution writes them): NCHW, or
 * anything else, is declined rather than guessed. */
enum { LAYOUT_NHWC = 0, LAYOUT_NCHW = 1 };

static int layout_nhwc(const fb_attrs *a, const char *op, char *why, size_t n)
{
    const fb_attr *v = fb_attrs_get(a, "layout");
    if (!v || (v->type == FB_ATTR_INT && v->i == LAYOUT_NHWC)) return FB_OK;
    if (v->type == FB_ATTR_INT && v->i == LAYOUT_NCHW)
        return fb_decline(why, n, "these variants run NHWC only (cuDNN's fused NHWC kernels), not NCHW (%s)", op);
    return fb_decline(why, n, "%s's layout attribute is not one this variant knows; it runs NHWC only", op);
}

static bool is_vector(const fb_tensor *t, int64_t len) { return t->shape.rank == 1 && t->shape.dim[0] == len; }

/* The call as a convolution problem, or FB_E_UNSUPPORTED and why. */
static int problem_from(epilogue e, const fb_call *call, const fb_attrs *conv, const fb_attrs *bn,
                        conv_problem *p, char *why, size_t n)
{
    memset(p, 0, sizeof *p);
    p->epi = e;
    const char *name = epi_name[e];
    if (call->n_in != epi_inputs[e])
        return fb_decline(why, n, "%s takes %d inputs (%s), got %d", name, epi_inputs[e], epi_operands[e], call->n_in);
    if (call->n_out != 1) return fb_decline(why, n, "%s writes 1 output, the call has %d", name, call->n_out);
    p->dt = call->in[0].dtype;
    if (p->dt != FB_F32 && p->dt != FB_F16 && p->dt != FB_BF16)
        return fb_decline(why, n, "cuDNN fuses float32, float16 and bfloat16 convolutions, not %s",
                          fb_dtype_name(p->dt));
    for (int i = 0; i < call->n_in; i++)
        if (call->in[i].dtype != p->dt) return fb_decline(why, n, "%s needs all tensors of one dtype", name);
    if (call->out[0].dtype != p->dt) return fb_decline(why, n, "%s needs all tensors of one dtype", name);

    if (!conv)
        return fb_decline(why, n, "%s needs the program's conv2d node (its stride, padding, dilation, groups)", name);
    int st = layout_nhwc(conv, "conv2d", why, n);
    if (st) return st;
    if ((st = conv_int(conv, "stride", 1, &p->geom.stride, why, n)) ||
        (st = conv_int(conv, "padding", 0, &p->geom.pad, why, n)) ||
        (st = conv_int(conv, "dilation", 1, &p->geom.dilation, why, n)) ||
        (st = conv_int(conv, "groups", 1, &p->groups, why, n)))
        return st;
    if (p->geom.stride < 1 || p->geom.dilation < 1 || p->groups < 1 || p->geom.pad < 0)
        return fb_decline(why, n,
                          "stride, dilation and groups must be >= 1 and padding >= 0 (got %lld, %lld, %lld, %lld)",
                          (long long)p->geom.stride, (long long)p->geom.dilation, (long long)p->groups,
                          (long long)p->geom.pad);

    const fb_shape *xs = &call->in[0].shape, *ws = &call->in[1].shape, *ys = &call->out[0].shape;
    if (xs->rank != 4 || ws->rank != 4 || ys->rank != 4)
        return fb_decline(why, n, "%s takes x [N,H,W,C], w [K,R,S,C/groups] and writes [N,P,Q,K] (NHWC, rank 4)", name);
    p->n = xs->dim[0], p->h = xs->dim[1], p->w = xs->dim[2], p->c = xs->dim[3];
    p->k = ws->dim[0], p->r = ws->dim[1], p->s = ws->dim[2], p->cg = ws->dim[3];
    if (fb_shape_numel(xs) <= 0 || fb_shape_numel(ws) <= 0)
        return fb_decline(why, n, "%s has nothing to compute for an empty x or w", name);
    if (p->c % p->groups != 0 || p->k % p->groups != 0 || p->cg * p->groups != p->c)
        return fb_decline(why, n, "w [K=%lld, R, S, %lld] does not match C=%lld in %lld groups (C/groups channels, K a "
                          "multiple of groups)",
                          (long long)p->k, (long long)p->cg, (long long)p->c, (long long)p->groups);
    const int64_t hspan = p->h + 2 * p->geom.pad - p->geom.dilation * (p->r - 1) - 1;
    const int64_t wspan = p->w + 2 * p->geom.pad - p->geom.dilation * (p->s - 1) - 1;
    if (hspan < 0 || wspan < 0)
        return fb_decline(why, n, "the %lldx%lld kernel (dilation %lld) is larger than the padded %lldx%lld input",
                          (long long)p->r, (long long)p->s, (long long)p->geom.dilation, (long long)p->h,
                          (long long)p->w);
    p->p = hspan / p->geom.stride + 1;
    p->q = wspan / p->geom.stride + 1;
    if (ys->dim[0] != p->n || ys->dim[1] != p->p || ys->dim[2] != p->q || ys->dim[3] != p->k)
        return fb_decline(why, n, "the output is not [N, P, Q, K] = [%lld, %lld, %lld, %lld]", (long long)p->n,
                          (long long)p->p, (long long)p->q, (long long)p->k);

    switch (e) {
    case EPI_NONE:
    case EPI_COUNT:
        break;
    case EPI_BIAS_RELU:
        if (!is_vector(&call->in[2], p->k)) return fb_decline(why, n, "%s needs a bias of shape [K] = [%lld]", name,
                                                          (long long)p->k);
        break;
    case EPI_ADD: {
        const fb_shape *d = &call->in[2].shape;
        bool same = d->rank == 4;
        for (int i = 0; same && i < 4; i++) same = d->dim[i] == ys->dim[i];
        if (!same) return fb_decline(why, n, "%s needs D in the output's shape [N, P, Q, K]", name);
        break;
    }
    case EPI_BN: {
        static const char *const params[] = {"mean", "var", "gamma", "beta"};
        for (int i = 0; i < 4; i++)
            if (!is_vector(&call->in[2 + i], p->k))
                return fb_decline(why, n, "%s needs %s of shape [K] = [%lld]", name, params[i], (long long)p->k);
        if (!bn) return fb_decline(why, n, "%s needs the program's batchnorm node (its eps)", name);
        if ((st = layout_nhwc(bn, "batchnorm", why, n))) return st;
        const fb_attr *eps = fb_attrs_get(bn, "eps");
        if (eps && eps->type != FB_ATTR_REAL && eps->type != FB_ATTR_INT)
            return fb_decline(why, n, "batchnorm's eps is not a number");
        p->eps = fb_attr_real(bn, "eps", 1e-5);
        if (!(p->eps >= 0 && isfinite(p->eps))) return fb_decline(why, n, "batchnorm's eps must be finite and >= 0");
        break;
    }
    }
    return FB_OK;
}

int fb_conv_fused_supports_attrs(const char *variant, const fb_call *call, const struct fb_attrs *conv,
                                 const struct fb_attrs *bn, char *why, size_t n)
{
    for (int e = 0; e < EPI_COUNT; e++)
        if (variant && strcmp(variant, epi_name[e]) == 0) {
            conv_problem p;
            return problem_from((epilogue)e, call, conv, bn, &p, why, n);
        }
    return fb_decline(why, n, "no conv fused variant '%s'", variant ? variant : "(null)");
}

static int supports_as(epilogue e, const fb_call *call, char *why, size_t n)
{
    conv_problem p;
    return problem_from(e, call, fb_call_op_attrs(call, "conv2d"), fb_call_op_attrs(call, "batchnorm"), &p, why, n);
}

/* ---- the legacy path: cudnnConvolutionBiasActivationForward ---------------------- */

typedef struct legacy_plan {
    cudnnTensorDescriptor_t x, y, bias; /* y also describes z (D, or y itself)          */
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnActivationDescriptor_t act;
    cudnnConvolutionFwdAlgo_t algo;
    size_t workspace;
} legacy_plan;

static void legacy_free(legacy_plan *l)
{
    if (l->x) cudnnDestroyTensorDescriptor(l->x);
    if (l->y) cudnnDestroyTensorDescriptor(l->y);
    if (l->bias) cudnnDestroyTensorDescriptor(l->bias);
    if (l->w) cudnnDestroyFilterDescriptor(l->w);
    if (l->conv) cudnnDestroyConvolutionDescriptor(l->conv);
    if (l->act) cudnnDestroyActivationDescriptor(l->act);
    memset(l, 0, sizeof *l);
}

/* ---- the state prepare() builds ------------------------------------------------------ */

typedef struct conv_state {
    conv_problem p;
    cudnnHandle_t handle;
    bool legacy;       /* the graph API had no engine: the legacy call runs       */
    fb_cudnn_graph g;  /* slots: x, w (or w'), bias / D / b', y [, conv_add's zero bias] */
    legacy_plan l;
    void *w_fold;      /* conv_bn: w' and b' (owned)                               */
    void *b_fold;
    void *zero_bias;   /* conv_add: a bias of K zeros (owned), for the legacy call, which insists
                        * on a bias, and for the graph conv -> + D -> + 0 (graph_prepare_add) */
    char note[400];
} conv_state;

#define DNN(call) FB_TRY(fb_cudnn_status((int)(call), #call, __FILE__, __LINE__))

/* The weights the convolution reads and the epilogue operand (bias, D, b'). */
static const void *conv_weights(const conv_state *st, const fb_call *call)
{
    return st->p.epi == EPI_BN ? st->w_fold : call->in[1].data;
}
static const void *epilogue_operand(const conv_state *st, const fb_call *call)
{
    return st->p.epi == EPI_BN ? st->b_fold : st->p.epi == EPI_NONE ? NULL : call->in[2].data;
}

static bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

/* The legacy call's descriptors for p, its math type set (no algorithm chosen yet). */
static fb_status legacy_describe(const conv_problem *p, bool ieee32, legacy_plan *l, char *why, size_t n)
{
    const int64_t dims[] = {p->n, p->h, p->w, p->c, p->k, p->r, p->s, p->p, p->q, p->geom.pad, p->geom.stride,
                            p->geom.dilation, p->groups};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (!fits_int(dims[i])) return (fb_status)fb_decline(why, n, "its sizes exceed the legacy API's int");
    const cudnnDataType_t t = fb_cudnn_dtype(p->dt);
    DNN(cudnnCreateTensorDescriptor(&l->x));
    DNN(cudnnCreateTensorDescriptor(&l->y));
    DNN(cudnnCreateTensorDescriptor(&l->bias));
    DNN(cudnnCreateFilterDescriptor(&l->w));
    DNN(cudnnCreateConvolutionDescriptor(&l->conv));
    DNN(cudnnCreateActivationDescriptor(&l->act));
    DNN(cudnnSetTensor4dDescriptor(l->x, CUDNN_TENSOR_NHWC, t, (int)p->n, (int)p->c, (int)p->h, (int)p->w));
    DNN(cudnnSetTensor4dDescriptor(l->y, CUDNN_TENSOR_NHWC, t, (int)p->n, (int)p->k, (int)p->p, (int)p->q));
    DNN(cudnnSetTensor4dDescriptor(l->bias, CUDNN_TENSOR_NHWC, t, 1, (int)p->k, 1, 1));
    DNN(cudnnSetFilter4dDescriptor(l->w, t, CUDNN_TENSOR_NHWC, (int)p->k, (int)p->cg, (int)p->r, (int)p->s));
    DNN(cudnnSetConvolution2dDescriptor(l->conv, (int)p->geom.pad, (int)p->geom.pad, (int)p->geom.stride,
                                        (int)p->geom.stride, (int)p->geom.dilation, (int)p->geom.dilation,
                                        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    DNN(cudnnSetConvolutionGroupCount(l->conv, (int)p->groups));
    /* FMA math: float32 stays IEEE (DEFAULT_MATH would permit TF32); the half types use
     * tensor cores */
    const cudnnMathType_t math =
        p->dt == FB_F32 ? (ieee32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH) : CUDNN_TENSOR_OP_MATH;
    DNN(cudnnSetConvolutionMathType(l->conv, math));
    DNN(cudnnSetActivationDescriptor(l->act, p->epi == EPI_BIAS_RELU ? CUDNN_ACTIVATION_RELU
                                                                     : CUDNN_ACTIVATION_IDENTITY,
                                     CUDNN_PROPAGATE_NAN, 0.0));
    return FB_OK;
}

/* st->zero_bias, a bias of K zeros, made once: the legacy call insists on a bias (conv_add,
 * conv.tuned), and conv_add's graph conv -> + D -> + 0 adds one (graph_prepare_add). */
static fb_status ensure_zero_bias(conv_state *st, cudaStream_t stream)
{
    if (st->zero_bias) return FB_OK;
    const size_t bytes = (size_t)st->p.k * fb_dtype_size(st->p.dt);
    FB_TRY(fb_dmalloc(&st->zero_bias, bytes));
    FB_CUDA(cudaMemsetAsync(st->zero_bias, 0, bytes, stream));
    return FB_OK;
}

static fb_status legacy_prepare(conv_state *st, const fb_call *call, char *why, size_t n)
{
    const conv_problem *p = &st->p;
    legacy_plan *l = &st->l;
    const bool ieee32 = p->dt == FB_F32 && !(call->ctx && call->ctx->tf32);
    FB_TRY(legacy_describe(p, ieee32, l, why, n));
    const bool relu = p->epi == EPI_BIAS_RELU;

    /* identity is implemented by IMPLICIT_PRECOMP_GEMM only; relu takes cuDNN's pick */
    l->algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    if (relu) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int got = 0;
        DNN(cudnnGetConvolutionForwardAlgorithm_v7(st->handle, l->x, l->w, l->conv, l->y,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, perf));
        for (int i = 0; i < got; i++) {
            const cudnnConvolutionFwdAlgoPerf_t *a = &perf[i];
            if (a->status != CUDNN_STATUS_SUCCESS || a->determinism != CUDNN_DETERMINISTIC ||
                a->memory > call->workspace_bytes)
                continue;
            /* DEFAULT_MATH permits TF32 on Ampere and later: IEEE float32 is FMA math only;
             * and float32 is never converted to half (ALLOW_CONVERSION), TF32 or not */
            if (ieee32 && a->mathType != CUDNN_FMA_MATH) continue;
            if (p->dt == FB_F32 && a->mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) continue;
            l->algo = a->algo;
            /* the math type the algorithm was ranked with, as cuDNN asks */
            DNN(cudnnSetConvolutionMathType(l->conv, a->mathType));
            break;
        }
    }
    size_t ws = 0;
    DNN(cudnnGetConvolutionForwardWorkspaceSize(st->handle, l->x, l->w, l->conv, l->y, l->algo, &ws));
    if (ws > call->workspace_bytes)
        return (fb_status)fb_decline(why, n, "it needs %zu bytes of workspace, more than the %zu it has", ws,
                                     call->workspace_bytes);
    l->workspace = ws;
    /* the legacy call always adds a bias: a zero one */
    if (p->epi == EPI_ADD || p->epi == EPI_NONE) FB_TRY(ensure_zero_bias(st, call->stream));
    return FB_OK;
}

static fb_status legacy_run(conv_state *st, const fb_call *call)
{
    const legacy_plan *l = &st->l;
    const float one = 1.0f, zero = 0.0f;
    const bool add = st->p.epi == EPI_ADD;
    /* z = D with alpha2 = 1 (conv_add), else y itself scaled by 0: a tensor of y's shape
     * the call requires but does not use */
    const void *z = add ? call->in[2].data : call->out[0].data;
    const void *bias = st->zero_bias ? st->zero_bias : epilogue_operand(st, call);
    DNN(cudnnSetStream(st->handle, call->stream));
    DNN(cudnnConvolutionBiasActivationForward(st->handle, &one, l->x, call->in[0].data, l->w, conv_weights(st, call),
                                              l->conv, l->algo, call->workspace, call->workspace_bytes,
                                              add ? &one : &zero, l->y, z, l->bias, bias, l->act, l->y,
                                              call->out[0].data));
    return FB_OK;
}

/* ---- the graph path ---------------------------------------------------------------- */

/* The graph's tensors and operations into g (no plan yet). ptr: x, w (or w'), the
 * epilogue operand, y (conv.tuned: x, w, y), conv_add's zero bias — only their alignment is
 * read here. zero_bias (conv_add): conv -> + D -> + 0, a bias [K] of zeros added after D, the
 * graph for which cuDNN's heuristics offer engine 41 (the bias graphs' engine) where they offer
 * conv -> + D engines 4 and 7 (graph_prepare_add says why both are kept). */
static fb_status graph_ops(const conv_problem *p, const void *const ptr[5], bool zero_bias, fb_cudnn_graph *g)
{
    const cudnnDataType_t t = fb_cudnn_dtype(p->dt), acc_t = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t x, wd, ed, y, acc, sum;
    /* the variant pack's slots, in this order: x, w, the epilogue operand, y */
    FB_TRY(fb_cudnn_tensor_nhwc(g, t, p->n, p->c, p->h, p->w, false, fb_cudnn_alignment(ptr[0]), &x));
    FB_TRY(fb_cudnn_tensor_nhwc(g, t, p->k, p->cg, p->r, p->s, false, fb_cudnn_alignment(ptr[1]), &wd));
    if (p->epi == EPI_NONE) { /* the convolution alone, written in the data's type */
        FB_TRY(fb_cudnn_tensor_nhwc(g, t, p->n, p->k, p->p, p->q, false, fb_cudnn_alignment(ptr[2]), &y));
        return fb_cudnn_conv_fwd(g, x, wd, y, &p->geom, acc_t);
    }
    if (p->epi == EPI_ADD)
        FB_TRY(fb_cudnn_tensor_nhwc(g, t, p->n, p->k, p->p, p->q, false, fb_cudnn_alignment(ptr[2]), &ed));
    else /* a bias: [1, K, 1, 1], broadcast over N, P, Q */
        FB_TRY(fb_cudnn_tensor_nhwc(g, t, 1, p->k, 1, 1, false, fb_cudnn_alignment(ptr[2]), &ed));
    FB_TRY(fb_cudnn_tensor_nhwc(g, t, p->n, p->k, p->p, p->q, false, fb_cudnn_alignment(ptr[3]), &y));
    /* the accumulator, and what the epilogue makes of it, stay in the kernel (virtual) */
    FB_TRY(fb_cudnn_tensor_nhwc(g, acc_t, p->n, p->k, p->p, p->q, true, 16, &acc));
    FB_TRY(fb_cudnn_conv_fwd(g, x, wd, acc, &p->geom, acc_t));
    if (p->epi == EPI_BIAS_RELU) {
        FB_TRY(fb_cudnn_tensor_nhwc(g, acc_t, p->n, p->k, p->p, p->q, true, 16, &sum));
        FB_TRY(fb_cudnn_pointwise(g, CUDNN_POINTWISE_ADD, acc, ed, sum));
        FB_TRY(fb_cudnn_pointwise(g, CUDNN_POINTWISE_RELU_FWD, sum, NULL, y));
    } else if (p->epi == EPI_ADD && zero_bias) {
        cudnnBackendDescriptor_t b0; /* slot 4: made after y */
        FB_TRY(fb_cudnn_tensor_nhwc(g, t, 1, p->k, 1, 1, false, fb_cudnn_alignment(ptr[4]), &b0));
        FB_TRY(fb_cudnn_tensor_nhwc(g, acc_t, p->n, p->k, p->p, p->q, true, 16, &sum));
        FB_TRY(fb_cudnn_pointwise(g, CUDNN_POINTWISE_ADD, acc, ed, sum));
        FB_TRY(fb_cudnn_pointwise(g, CUDNN_POINTWISE_ADD, sum, b0, y));
    } else {
        FB_TRY(fb_cudnn_pointwise(g, CUDNN_POINTWISE_ADD, acc, ed, y));
    }
    return FB_OK;
}

/* The variant pack's pointers in slot order (graph_ops); a graph reads its first n_io. */
static void slot_pointers(const conv_state *st, const fb_call *call, void *ptr[5])
{
    ptr[0] = call->in[0].data;
    ptr[1] = (void *)conv_weights(st, call);
    ptr[2] = st->p.epi == EPI_NONE ? call->out[0].data : (void *)epilogue_operand(st, call);
    ptr[3] = st->p.epi == EPI_NONE ? NULL : call->out[0].data;
    ptr[4] = st->zero_bias;
}

static fb_cudnn_plan_opts plan_opts(const conv_state *st, const fb_call *call)
{
    const fb_cudnn_plan_opts o = {
        .max_workspace = (int64_t)call->workspace_bytes,
        .allow_tf32 = call->ctx && call->ctx->tf32,
        .float32 = st->p.dt == FB_F32,
        .candidates = CONV_TUNE_CANDIDATES,
    };
    return o;
}

/* g's operations (graph_ops) and its candidate plans; FB_E_UNSUPPORTED with why when cuDNN has
 * no engine for it. */
static fb_status graph_build(conv_state *st, const fb_call *call, bool zero_bias, fb_cudnn_graph *g, char *why,
                             size_t n)
{
    void *ptr[5];
    slot_pointers(st, call, ptr);
    FB_TRY(graph_ops(&st->p, (const void *const *)ptr, zero_bias, g));
    const fb_cudnn_plan_opts o = plan_opts(st, call);
    return fb_cudnn_graph_plan(g, &o, why, n);
}

/* conv_add: two graphs of y = conv(x, w) + D, conv -> + D and conv -> + D -> + 0 (a bias of K
 * zeros), their candidates timed in one race (fb_cudnn_graphs_tune), the winner kept. Why: for
 * the first cuDNN's heuristics offer engines 4 and 7 only, for the second engine 41, the one
 * the bias graphs (conv_relu, conv_bn) run on at 1.00-1.01x conv.tuned. Measured (NOTES.md "Stop
 * 45", H200, bfloat16, H = 56, N 8..64 x C 128..512, each graph alone, t_fused / t_conv.tuned in
 * pairs): conv -> + D 0.90-1.15 (N 32, C 512: 697.8 us), conv -> + D -> + 0 1.01-1.14 (595.8 us);
 * the zero bias costs a read of K values. Neither wins everywhere (N 8, C 128: 19.6 against
 * 22.5 us), so both run in the race, the zero-bias graph first (kept on a tie). */
static fb_status graph_prepare_add(conv_state *st, const fb_call *call, char *why, size_t n)
{
    FB_TRY(ensure_zero_bias(st, call->stream));
    fb_cudnn_graph alt; /* conv -> + D, while both are timed: the winner ends in st->g */
    fb_cudnn_graph_init(&alt, st->handle);
    char why_z[200] = "", why_d[200] = "";
    fb_cudnn_alt z = {&st->g, FB_OK, "conv -> + D -> + 0 (a bias of K zeros)", why_z};
    fb_cudnn_alt d = {&alt, FB_OK, "conv -> + D", why_d};
    z.planned = graph_build(st, call, true, z.g, why_z, sizeof why_z);
    if (z.planned == FB_OK || z.planned == FB_E_UNSUPPORTED) d.planned = graph_build(st, call, false, d.g, why_d, sizeof why_d);
    void *ptr[5];
    slot_pointers(st, call, ptr);
    const fb_status s = fb_cudnn_graph_pick(&z, &d, ptr, call->workspace, call->ctx, call->stream, call->first_prepare,
                                            epi_name[EPI_ADD], why, n, st->note, sizeof st->note);
    fb_cudnn_graph_free(&alt); /* pick frees it, but not when it fails before the race */
    return s;
}

static fb_status graph_prepare(conv_state *st, const fb_call *call, char *why, size_t n)
{
    if (st->p.epi == EPI_ADD) return graph_prepare_add(st, call, why, n);
    FB_TRY(graph_build(st, call, false, &st->g, why, n));
    void *ptr[5];
    slot_pointers(st, call, ptr);
    /* the first of the two prepares only loads the candidates' kernels (fb_call.first_prepare) */
    return fb_cudnn_graph_tune(&st->g, call->ctx, ptr, call->workspace, call->stream, call->first_prepare,
                               epi_name[st->p.epi]);
}

int fb_conv_fused_graph_ops(const char *variant, const fb_call *call, const struct fb_attrs *conv,
                            const struct fb_attrs *bn, bool zero_bias, fb_cudnn_graph *g)
{
    for (int e = 0; e < EPI_COUNT; e++)
        if (variant && strcmp(variant, epi_name[e]) == 0) {
            conv_problem p;
            char why[256] = "";
            if (problem_from((epilogue)e, call, conv, bn, &p, why, sizeof why) != FB_OK) {
                fb_error("%s", why);
                return FB_E_UNSUPPORTED;
            }
            /* conv_bn's w' and b' exist after prepare only: their alignment is cudaMalloc's */
            const void *const ptr[5] = {call->in[0].data, e == EPI_BN ? NULL : call->in[1].data,
                                        e == EPI_NONE ? call->out[0].data : e == EPI_BN ? NULL : call->in[2].data,
                                        e == EPI_NONE ? NULL : call->out[0].data, NULL};
            return graph_ops(&p, ptr, zero_bias, g);
        }
    fb_error("no conv fused variant '%s'", variant ? variant : "(null)");
    return FB_E_UNSUPPORTED;
}

/* ---- the variant functions ------------------------------------------------------------ */

static void release(void *state)
{
    conv_state *st = state;
    if (!st) return;
    fb_cudnn_graph_free(&st->g);
    legacy_free(&st->l);
    fb_dfree(st->w_fold);
    fb_dfree(st->b_fold);
    fb_dfree(st->zero_bias);
    free(st);
}

/* conv_bn: w' and b' into buffers the state owns, on the call's stream (the cell
 * synchronises after prepare). */
static fb_status fold(conv_state *st, const fb_call *call)
{
    const conv_problem *p = &st->p;
    const size_t el = fb_dtype_size(p->dt);
    FB_TRY(fb_dmalloc(&st->w_fold, (size_t)fb_shape_numel(&call->in[1].shape) * el));
    FB_TRY(fb_dmalloc(&st->b_fold, (size_t)p->k * el));
    return fb_conv_fold_bn(p->dt, call->in[1].data, p->k, p->r * p->s * p->cg, call->in[2].data, call->in[3].data,
                           call->in[4].data, call->in[5].data, p->eps, st->w_fold, st->b_fold, call->stream);
}

static fb_status prepare_as(epilogue e, const fb_call *call, void **out)
{
    *out = NULL;
    conv_state *st = calloc(1, sizeof *st);
    if (!st) {
        fb_error("%s: out of host memory", epi_name[e]);
        return FB_E_NOMEM;
    }
    char why[512] = "";
    fb_status s = (fb_status)problem_from(e, call, fb_call_op_attrs(call, "conv2d"),
                                          fb_call_op_attrs(call, "batchnorm"), &st->p, why, sizeof why);
    if (s != FB_OK) {
        fb_error("%s", why);
        free(st);
        return s;
    }
    s = fb_cudnn_handle(call->ctx, &st->handle);
    fb_cudnn_graph_init(&st->g, st->handle);
    if (s == FB_OK && e == EPI_BN) s = fold(st, call);
    if (s == FB_OK) s = graph_prepare(st, call, why, sizeof why);
    if (s == FB_E_UNSUPPORTED) {
        /* no engine for the graph: the legacy call, noted in the result */
        fb_cudnn_graph_free(&st->g);
        char lwhy[256] = "";
        s = legacy_prepare(st, call, lwhy, sizeof lwhy);
        if (s == FB_OK) {
            st->legacy = true;
            snprintf(st->note, sizeof st->note,
                     "legacy cudnnConvolutionBiasActivationForward (algo %d): the graph API has no engine: %s",
                     (int)st->l.algo, why);
        } else if (s == FB_E_UNSUPPORTED) {
            fb_error("%s: %s; legacy cudnnConvolutionBiasActivationForward: %s", epi_name[e], why,
                     lwhy[0] ? lwhy : fb_last_error());
        }
    }
    if (s != FB_OK) {
        release(st);
        return s;
    }
    *out = st;
    return FB_OK;
}

static int run(const fb_call *call)
{
    conv_state *st = call->state;
    if (!st) {
        fb_error("conv fused variant: run() without prepare()");
        return FB_E_CUDA;
    }
    if (st->legacy) return legacy_run(st, call);
    void *ptr[5];
    slot_pointers(st, call, ptr);
    return fb_cudnn_graph_execute(&st->g, ptr, call->workspace, call->stream);
}

/* What a variant asks for before prepare() has a plan (cell.c allocates the workspace
 * first): CONV_FUSED_WORKSPACE, or, for IEEE float32, what the legacy call's
 * IMPLICIT_PRECOMP_GEMM (its one algorithm for an identity activation) needs where that
 * is more. float32's fused graphs have no IEEE engine in cuDNN, so conv_add runs the
 * legacy call: stop 44's `run --all` skipped eight float32 conv_add cells at H = 56
 * whose call wanted 0.1 to 0.8 GB. And the engines that want that much are the fast
 * ones: with it, call 5's conv_bn graph took engine 44 at 0.78 ms where 64 MB left it
 * engine 11 at 2.89 ms (N 32, H 56, C 128). Every variant here asks the same, conv.tuned
 * included, so the pairs compare engines that had the same room. */
static size_t workspace_as(epilogue e, const fb_call *call)
{
    conv_problem p;
    if (!call->ctx || call->ctx->tf32 ||
        problem_from(e, call, fb_call_op_attrs(call, "conv2d"), fb_call_op_attrs(call, "batchnorm"), &p, NULL, 0) !=
            FB_OK ||
        p.dt != FB_F32)
        return CONV_FUSED_WORKSPACE;
    cudnnHandle_t h = NULL;
    legacy_plan l = {0};
    size_t ws = 0;
    if (fb_cudnn_handle(call->ctx, &h) != FB_OK || legacy_describe(&p, true, &l, NULL, 0) != FB_OK ||
        cudnnGetConvolutionForwardWorkspaceSize(h, l.x, l.w, l.conv, l.y, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                                &ws) != CUDNN_STATUS_SUCCESS)
        ws = 0; /* prepare will say what failed */
    legacy_free(&l);
    fb_clear_error();
    return ws > CONV_FUSED_WORKSPACE ? ws : CONV_FUSED_WORKSPACE;
}
static size_t workspace_relu(const fb_call *c) { return workspace_as(EPI_BIAS_RELU, c); }
static size_t workspace_add(const fb_call *c) { return workspace_as(EPI_ADD, c); }
static size_t workspace_bn(const fb_call *c) { return workspace_as(EPI_BN, c); }
static size_t workspace_plain(const fb_call *c) { return workspace_as(EPI_NONE, c); }

/* Which path and engine prepare kept, for the result. */
static const char *note(const void *state)
{
    const conv_state *st = state;
    if (!st) return NULL;
    return st->legacy || st->note[0] ? st->note : fb_cudnn_graph_note(&st->g);
}

static int supports_relu(const fb_call *c, char *why, size_t n) { return supports_as(EPI_BIAS_RELU, c, why, n); }
static int supports_add(const fb_call *c, char *why, size_t n) { return supports_as(EPI_ADD, c, why, n); }
static int supports_bn(const fb_call *c, char *why, size_t n) { return supports_as(EPI_BN, c, why, n); }
static int prepare_relu(const fb_call *c, void **st) { return prepare_as(EPI_BIAS_RELU, c, st); }
static int prepare_add(const fb_call *c, void **st) { return prepare_as(EPI_ADD, c, st); }
static int prepare_bn(const fb_call *c, void **st) { return prepare_as(EPI_BN, c, st); }
static int supports_plain(const fb_call *c, char *why, size_t n) { return supports_as(EPI_NONE, c, why, n); }
static int prepare_plain(const fb_call *c, void **st) { return prepare_as(EPI_NONE, c, st); }

const fb_variant fb_conv_fused_variants[] = {
    {"conv_relu.fused", "relu(conv2d + bias) in one cuDNN fused convolution (graph API; legacy ConvBiasActivation "
                        "where it has no engine)",
     FB_DTYPES_HALF_AND_F32, supports_relu, workspace_relu, run, 1, prepare_relu, release, note},
    {"conv_add.fused", "conv2d + D in one cuDNN fused convolution (graph API; legacy ConvBiasActivation where it "
                       "has no engine)",
     FB_DTYPES_HALF_AND_F32, supports_add, workspace_add, run, 1, prepare_add, release, note},
    {"conv_bn.fused", "conv2d + batch norm: BN folded into the weights and a bias in prepare, then one cuDNN "
                      "convolution with a bias epilogue",
     FB_DTYPES_HALF_AND_F32, supports_bn, workspace_bn, run, 1, prepare_bn, release, note},
    {"conv.tuned", "conv2d alone in one cuDNN graph, its engine tuned as the fused variants' are: what they are "
                   "timed in pairs with",
     FB_DTYPES_HALF_AND_F32, supports_plain, workspace_plain, run, 1, prepare_plain, release, note},
};
const int fb_conv_fused_variant_count = (int)(sizeof fb_conv_fused_variants / sizeof fb_conv_fused_variants[0]);
