/* op_conv2d.c — the conv2d kind: a 2-D convolution (a cross-correlation, as every
 * framework's conv2d computes it) through cuDNN.
 *
 * Operands x and w; attribute `layout` says how both are stored:
 *   "NHWC" (default): x [N, H, W, C], w [K, R, S, C/groups] (cuDNN's NHWC filter
 *                     format, torch's channels_last weight), out [N, P, Q, K];
 *   "NCHW":           x [N, C, H, W], w [K, C/groups, R, S], out [N, K, P, Q].
 * `stride`, `padding`, `dilation` (defaults 1, 0, 1) are one integer each: the same
 * along H and W (square only; no case needs more). `groups` (default 1) splits the
 * channels: output channel k reads only the C/groups input channels of its group
 * k / (K/groups). P = (H + 2·padding − dilation·(R − 1) − 1) / stride + 1, Q the
 * same along W (PyTorch's and cuDNN's formula).
 *
 * FLOPs: 2·N·P·Q·K·(C/groups)·R·S, a multiply and an add per term, the padding's
 * zero terms included (as everyone counts them). Bytes: x and w read once, the
 * output written once (fb_cost_eager_traffic), one launch.
 *
 * The reference: direct loops in double. Each output element is the sum of its
 * terms in (r, s, c) order from 0.0, whichever way the loops are tiled, so every
 * evaluation of it (the whole tensor, a chunk of images, one sampled image) gives
 * the same bits. The loops keep a tile of output pixels' K accumulators and a
 * copy of w laid out [R, S, C/groups, K], so the innermost loop runs along K over
 * contiguous memory (it vectorises) and each weight row serves a whole tile of
 * pixels: a sampled 56x56 image with 512 channels (7.4 G terms) takes seconds,
 * not minutes.
 *
 * Row rule: an output image (axis 0) is its input image convolved with all of w,
 * so the batch axis is x's and a check may sample images. x's H, W and C and w's
 * R, S and channels are combined along (a window of pixels, every channel of a
 * group); the output's P and Q are new axes, combined too (each reads a window).
 * K is w's K, and with groups = 1 nothing combines along it: an output channel is
 * its filter alone (NCHW outputs then split on N and K). With groups > 1 a channel
 * also selects its group's input channels, so K is combined.
 *
 * Eager is one cudnnConvolutionForward. prepare (outside the timed region) makes
 * the tensor, filter and convolution descriptors and picks the algorithm: the
 * first of cudnnGetConvolutionForwardAlgorithm_v7's ranking that succeeds, with
 * the workspace it wants up to an eighth of the device (eager grows its shared
 * workspace to fit: plan_workspace), as torch's cuDNN path allocates what its
 * chosen algorithm asks. Math: float16/bfloat16 stored as such with float32 compute
 * (tensor cores, fp32 accumulation, as PyTorch); float32 with CUDNN_FMA_MATH,
 * which keeps cuDNN off TF32 (the reference's float32 means IEEE float32), or
 * CUDNN_DEFAULT_MATH, TF32 allowed, when fb_context.tf32 says so; float64 in
 * float64 where cuDNN has an algorithm (else the cell is unsupported, saying so). */
#include "op_table.h"
#include "parallel.h"

#include <cudnn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const conv_ops[] = {"conv2d"};
static const char *const conv_attrs[] = {"layout", "stride", "padding", "dilation", "groups"};

enum { LAYOUT_NHWC, LAYOUT_NCHW };
static const char *const layouts[] = {"NHWC", "NCHW"};

/* cuDNN's implicit-GEMM algorithms need little or none; 64 MiB leaves room for
 * the FFT and Winograd ones where the heuristic ranks them first. */
#define CONV_WORKSPACE ((size_t)64 << 20)
/* Largest stride, padding and dilation accepted: far beyond any real layer, small
 * enough that the output-size arithmetic cannot overflow. */
#define CONV_ATTR_MAX ((int64_t)1 << 20)

/* One non-negative integer attribute with its default, at least `lo`. */
static fb_status read_size(fb_attr_reader *r, fb_node *n, const char *key, int64_t dflt, int64_t lo,
                           const char *meaning)
{
    int64_t v = dflt;
    bool present;
    fb_status s = fb_read_int(r, key, &v, &present);
    if (s) return s;
    if (v < lo) return fb_read_fail(r, key, "%s %lld is less than %lld (%s)", key, (long long)v, (long long)lo, meaning);
    const int64_t hi = strcmp(key, "groups") == 0 ? INT_MAX : CONV_ATTR_MAX;
    if (v > hi) return fb_read_fail(r, key, "%s %lld is too large (at most %lld)", key, (long long)v, (long long)hi);
    fb_attrs_set_int(&n->attrs, key, v);
    return FB_OK;
}

static fb_status conv_parse(fb_attr_reader *r, fb_node *n)
{
    int layout = LAYOUT_NHWC;
    bool present;
    fb_status s = fb_read_enum(r, "layout", layouts, 2, &layout, &present);
    if (s) return s;
    fb_attrs_set_int(&n->attrs, "layout", layout);
    if ((s = read_size(r, n, "stride", 1, 1, "the step between windows"))) return s;
    if ((s = read_size(r, n, "padding", 0, 0, "zeros added on each side"))) return s;
    if ((s = read_size(r, n, "dilation", 1, 1, "the step between a window's taps"))) return s;
    return read_size(r, n, "groups", 1, 1, "the channels split into groups");
}

/* The problem at concrete shapes. */
typedef struct cv_dims {
    int layout;
    int64_t stride, pad, dil, groups;
    int64_t n, c, h, w; /* x                                           */
    int64_t k, cg, r, s; /* w: cg is its channel count (C/groups when it fits) */
    int64_t p, q;        /* the output's rows and columns; < 1 when the filter does not fit */
} cv_dims;

/* Output length along one dim: (size + 2·pad − dil·(kernel − 1) − 1) / stride + 1,
 * or 0 when the dilated kernel does not fit (or the numbers overflow). */
static int64_t out_len(int64_t size, int64_t kernel, int64_t stride, int64_t pad, int64_t dil)
{
    int64_t span, room;
    if (kernel < 1 || __builtin_mul_overflow(dil, kernel - 1, &span) || __builtin_add_overflow(size, 2 * pad, &room))
        return 0;
    if (room - 1 < span) return 0;
    return (room - 1 - span) / stride + 1;
}

static void cv_read(const fb_node *n, const fb_shape *x, const fb_shape *w, cv_dims *d)
{
    memset(d, 0, sizeof *d);
    d->layout = (int)fb_attr_int(&n->attrs, "layout", LAYOUT_NHWC);
    d->stride = fb_attr_int(&n->attrs, "stride", 1);
    d->pad = fb_attr_int(&n->attrs, "padding", 0);
    d->dil = fb_attr_int(&n->attrs, "dilation", 1);
    d->groups = fb_attr_int(&n->attrs, "groups", 1);
    if (x->rank != 4 || w->rank != 4) return;
    const bool nhwc = d->layout == LAYOUT_NHWC;
    d->n = x->dim[0];
    d->c = x->dim[nhwc ? 3 : 1];
    d->h = x->dim[nhwc ? 1 : 2];
    d->w = x->dim[nhwc ? 2 : 3];
    d->k = w->dim[0];
    d->cg = w->dim[nhwc ? 3 : 1];
    d->r = w->dim[nhwc ? 1 : 2];
    d->s = w->dim[nhwc ? 2 : 3];
    d->p = out_len(d->h, d->r, d->stride, d->pad, d->dil);
    d->q = out_len(d->w, d->s, d->stride, d->pad, d->dil);
}

static fb_status conv_shape(const fb_node *n, const fb_shape *const *in, fb_shape *out)
{
    const fb_shape *x = in[0], *w = in[1];
    char sx[96], sw[96];
    fb_shape_str(x, sx, sizeof sx);
    fb_shape_str(w, sw, sizeof sw);
    cv_dims d;
    cv_read(n, x, w, &d);
    const bool nhwc = d.layout == LAYOUT_NHWC;
    for (int i = 0; i < 2; i++)
        if (in[i]->rank != 4) {
            fb_error("in: conv2d needs operands of rank 4 (%s), operand %d is %s",
                     nhwc ? "NHWC: x [N, H, W, C], w [K, R, S, C/groups]" : "NCHW: x [N, C, H, W], w [K, C/groups, R, S]",
                     i, i ? sw : sx);
            return FB_E_CASE;
        }
    if (d.c % d.groups) {
        fb_error("groups: groups %lld does not divide the %lld input channels of operand 0 %s", (long long)d.groups,
                 (long long)d.c, sx);
        return FB_E_CASE;
    }
    if (d.k % d.groups) {
        fb_error("groups: groups %lld does not divide the %lld output channels of operand 1 %s", (long long)d.groups,
                 (long long)d.k, sw);
        return FB_E_CASE;
    }
    if (d.cg != d.c / d.groups) {
        fb_error("in: operand 1 %s has %lld channels per group (dim %d), operand 0 %s has %lld / groups %lld = %lld", sw,
                 (long long)d.cg, nhwc ? 3 : 1, sx, (long long)d.c, (long long)d.groups,
                 (long long)(d.c / d.groups));
        return FB_E_CASE;
    }
    if (d.p < 1 || d.q < 1) {
        fb_error("in: the %lldx%lld filter (dilation %lld) does not fit the %lldx%lld input with padding %lld: the "
                 "output would be empty",
                 (long long)d.r, (long long)d.s, (long long)d.dil, (long long)d.h, (long long)d.w, (long long)d.pad);
        return FB_E_CASE;
    }
    out->rank = 4;
    out->dim[0] = d.n;
    out->dim[nhwc ? 1 : 2] = d.p;
    out->dim[nhwc ? 2 : 3] = d.q;
    out->dim[nhwc ? 3 : 1] = d.k;
    return FB_OK;
}

static void conv_cost(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem, fb_node_cost *c)
{
    cv_dims d;
    cv_read(n, in[0], in[1], &d);
    fb_cost_eager_traffic(n, in, out, elem, c);
    c->flops = 2.0 * (double)d.n * (double)d.p * (double)d.q * (double)d.k * (double)d.cg * (double)d.r * (double)d.s;
}

/* Output pixels per tile: their accumulators (TILE x K doubles, 32 KiB at K = 512)
 * stay in L1 while every weight row is used TILE times. */
#define TILE 8

/* What every output row (b, p) reads: the operands, the weights transposed, the
 * geometry. Rows are independent, so fb_parallel_for hands them out (parallel.h):
 * an N = 1 cell checked in full, or the two sampled images of a large one, runs
 * on every CPU its budget allows rather than on one. */
typedef struct conv_job {
    const fb_node *node;
    const fb_ref_args *a;
    cv_dims d;
    const double *wt; /* wt[r][s][c][k] = w[k][c][r][s]: a weight row along K per (r, s, c) */
    int64_t xn, xc, xh, xw, on, ok, op, oq;
} conv_job;

static fb_status conv_output_rows(void *ctx, int64_t lo, int64_t hi)
{
    const conv_job *j = ctx;
    const cv_dims *d = &j->d;
    const int64_t H = d->h, W = d->w, K = d->k, Cg = d->cg, R = d->r, S = d->s, P = d->p, Q = d->q;
    const int64_t Kg = K / d->groups;
    double *acc = malloc(sizeof(double) * (size_t)(TILE * K > 0 ? TILE * K : 1));
    if (!acc) {
        fb_error("out of host memory for the conv2d reference (accumulators)");
        return FB_E_NOMEM;
    }
    for (int64_t row = lo; row < hi; row++) {
        const int64_t b = row / P, p = row % P;
        const double *x = j->a->in[0] + b * j->xn;
        for (int64_t q0 = 0; q0 < Q; q0 += TILE) {
            const int nt = Q - q0 < TILE ? (int)(Q - q0) : TILE;
            for (int64_t i = 0; i < nt * K; i++) acc[i] = 0.0;
            for (int64_t r = 0; r < R; r++) {
                const int64_t h = p * d->stride - d->pad + r * d->dil;
                if (h < 0 || h >= H) continue; /* a padding row: zero terms */
                for (int64_t s = 0; s < S; s++) {
                    int64_t col[TILE];
                    for (int t = 0; t < nt; t++) col[t] = (q0 + t) * d->stride - d->pad + s * d->dil;
                    for (int64_t g = 0; g < d->groups; g++)
                        for (int64_t c = 0; c < Cg; c++) {
                            const double *wrow = j->wt + ((r * S + s) * Cg + c) * K + g * Kg;
                            const double *xc0 = x + h * j->xh + (g * Cg + c) * j->xc;
                            for (int t = 0; t < nt; t++) {
                                if (col[t] < 0 || col[t] >= W) continue;
                                const double xv = xc0[col[t] * j->xw];
                                double *at = acc + t * K + g * Kg;
                                for (int64_t k = 0; k < Kg; k++) at[k] += xv * wrow[k];
                            }
                        }
                }
            }
            double *o = j->a->out + b * j->on + p * j->op + q0 * j->oq;
            for (int t = 0; t < nt; t++)
                for (int64_t k = 0; k < K; k++) o[t * j->oq + k * j->ok] = acc[t * K + k];
        }
    }
    free(acc);
    return FB_OK;
}

static fb_status conv_reference(const fb_node *n, const fb_ref_args *a)
{
    conv_job j = {.node = n, .a = a};
    cv_read(n, a->in_shape[0], a->in_shape[1], &j.d);
    const cv_dims *d = &j.d;
    const bool nhwc = d->layout == LAYOUT_NHWC;
    const int64_t C = d->c, H = d->h, W = d->w, K = d->k, Cg = d->cg, R = d->r, S = d->s, P = d->p, Q = d->q;
    /* element strides of x along n, c, h, w; of w along k, c, r, s; of out along n, k, p, q */
    j.xn = C * H * W, j.xc = nhwc ? 1 : H * W, j.xh = nhwc ? W * C : W, j.xw = nhwc ? C : 1;
    const int64_t wk = Cg * R * S, wc = nhwc ? 1 : R * S, wr = nhwc ? S * Cg : S, ws = nhwc ? Cg : 1;
    j.on = K * P * Q, j.ok = nhwc ? 1 : P * Q, j.op = nhwc ? Q * K : Q, j.oq = nhwc ? K : 1;

    const int64_t wt_n = R * S * Cg * K;
    double *wt = malloc(sizeof(double) * (size_t)(wt_n > 0 ? wt_n : 1));
    if (!wt) {
        fb_error("out of host memory for the conv2d reference (a copy of w)");
        return FB_E_NOMEM;
    }
    for (int64_t r = 0; r < R; r++)
        for (int64_t s = 0; s < S; s++)
            for (int64_t c = 0; c < Cg; c++)
                for (int64_t k = 0; k < K; k++)
                    wt[((r * S + s) * Cg + c) * K + k] = a->in[1][k * wk + c * wc + r * wr + s * ws];
    j.wt = wt;
    const fb_status st = fb_parallel_for(d->n * P, 1, conv_output_rows, &j);
    free(wt);
    return st;
}

static size_t conv_workspace(const fb_node *n, const fb_shape *const *in, const fb_shape *out, fb_dtype dt)
{
    return CONV_WORKSPACE;
}

/* ---- eager: one cudnnConvolutionForward -------------------------------------------- */

typedef struct conv_plan {
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t algo;
    size_t ws_need; /* the algorithm's workspace */
    bool f64;       /* alpha and beta are doubles */
} conv_plan;

static void conv_release(void *plan)
{
    conv_plan *p = plan;
    if (!p) return;
    if (p->cd) cudnnDestroyConvolutionDescriptor(p->cd);
    if (p->wd) cudnnDestroyFilterDescriptor(p->wd);
    if (p->yd) cudnnDestroyTensorDescriptor(p->yd);
    if (p->xd) cudnnDestroyTensorDescriptor(p->xd);
    free(p);
}

/* Check a cuDNN call; on failure set the message (naming the node and the call)
 * and jump to the cleanup. A CUDNN_STATUS_NOT_SUPPORTED* status (a dtype, layout
 * or shape cuDNN does not do) makes the cell unsupported rather than a CUDA error. */
#define DNN(call)                                                                      \
    do {                                                                               \
        const cudnnStatus_t st_ = (call);                                              \
        if (st_ != CUDNN_STATUS_SUCCESS) { /* the message only then: eager is timed */  \
            char what_[192];                                                           \
            snprintf(what_, sizeof what_, "%s: %s", a->what, #call);                   \
            s = fb_cudnn_status((int)st_, what_, __FILE__, __LINE__);                  \
            if (CUDNN_STATUS_CATEGORY(st_) == CUDNN_STATUS_NOT_SUPPORTED)              \
                s = FB_E_UNSUPPORTED;                                                  \
            goto done;                                                                 \
        }                                                                              \
    } while (0)

/* The problem in words, for messages: "x [8, 56, 56, 64], w [64, 3, 3, 64], NHWC,
 * stride 1, padding 1, dilation 1, groups 1, float16". */
static const char *describe(const cv_dims *d, const fb_tensor *x, const fb_tensor *w, char *buf, size_t n)
{
    char sx[96], sw[96];
    snprintf(buf, n, "x %s, w %s, %s, stride %lld, padding %lld, dilation %lld, groups %lld, %s",
             fb_shape_str(&x->shape, sx, sizeof sx), fb_shape_str(&w->shape, sw, sizeof sw), layouts[d->layout],
             (long long)d->stride, (long long)d->pad, (long long)d->dil, (long long)d->groups,
             fb_dtype_name(x->dtype));
    return buf;
}

static fb_status conv_prepare(const fb_node *n, const fb_eager_args *a, void **plan_out)
{
    *plan_out = NULL;
    const fb_tensor *X = a->in[0], *Wt = a->in[1];
    cv_dims d;
    cv_read(n, &X->shape, &Wt->shape, &d);
    char about[320];
    describe(&d, X, Wt, about, sizeof about);
    if (!a->ctx) {
        fb_error("%s: no device context (cuDNN needs its handle)", a->what);
        return FB_E_USAGE;
    }
    const int64_t dims[] = {d.n, d.c, d.h, d.w, d.k, d.cg, d.r, d.s, d.p, d.q, d.stride, d.pad, d.dil, d.groups};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (dims[i] > INT_MAX) {
            fb_error("%s: a size is more than cuDNN's int holds (%s)", a->what, about);
            return FB_E_UNSUPPORTED;
        }

    cudnnDataType_t t, compute;
    switch (X->dtype) {
    case FB_F32: t = CUDNN_DATA_FLOAT, compute = CUDNN_DATA_FLOAT; break;
    case FB_F16: t = CUDNN_DATA_HALF, compute = CUDNN_DATA_FLOAT; break;
    case FB_BF16: t = CUDNN_DATA_BFLOAT16, compute = CUDNN_DATA_FLOAT; break;
    case FB_F64: t = CUDNN_DATA_DOUBLE, compute = CUDNN_DATA_DOUBLE; break;
    default: fb_error("%s: no conv2d for dtype %d", a->what, (int)X->dtype); return FB_E_UNSUPPORTED;
    }
    /* float32 without --tf32: FMA only, so no algorithm rounds operands to TF32 */
    const bool fp32_ieee = X->dtype == FB_F32 && !a->ctx->tf32;
    const cudnnMathType_t math = X->dtype == FB_F16 || X->dtype == FB_BF16 ? CUDNN_TENSOR_OP_MATH
                                 : fp32_ieee                                ? CUDNN_FMA_MATH
                                                                            : CUDNN_DEFAULT_MATH;
    const cudnnTensorFormat_t fmt = d.layout == LAYOUT_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;

    fb_status s = FB_OK;
    cudnnConvolutionFwdAlgoPerf_t *perf = NULL;
    conv_plan *p = calloc(1, sizeof *p);
    if (!p) {
        fb_error("%s: out of host memory", a->what);
        return FB_E_NOMEM;
    }
    p->f64 = X->dtype == FB_F64;
    if (!a->ctx->cudnn) {
        cudnnHandle_t h = NULL;
        DNN(cudnnCreate(&h));
        a->ctx->cudnn = h;
    }
    cudnnHandle_t h = (cudnnHandle_t)a->ctx->cudnn;

    DNN(cudnnCreateTensorDescriptor(&p->xd));
    DNN(cudnnCreateTensorDescriptor(&p->yd));
    DNN(cudnnCreateFilterDescriptor(&p->wd));
    DNN(cudnnCreateConvolutionDescriptor(&p->cd));
    /* 4-D descriptors take their sizes in N, C, H, W order whatever the layout */
    DNN(cudnnSetTensor4dDescriptor(p->xd, fmt, t, (int)d.n, (int)d.c, (int)d.h, (int)d.w));
    DNN(cudnnSetFilter4dDescriptor(p->wd, t, fmt, (int)d.k, (int)d.cg, (int)d.r, (int)d.s));
    DNN(cudnnSetTensor4dDescriptor(p->yd, fmt, t, (int)d.n, (int)d.k, (int)d.p, (int)d.q));
    DNN(cudnnSetConvolution2dDescriptor(p->cd, (int)d.pad, (int)d.pad, (int)d.stride, (int)d.stride, (int)d.dil,
                                        (int)d.dil, CUDNN_CROSS_CORRELATION, compute));
    DNN(cudnnSetConvolutionGroupCount(p->cd, (int)d.groups));
    DNN(cudnnSetConvolutionMathType(p->cd, math));

    /* cuDNN's own output size must be the shape rule's, or the two disagree on what is computed */
    int on, oc, oh, ow;
    DNN(cudnnGetConvolution2dForwardOutputDim(p->cd, p->xd, p->wd, &on, &oc, &oh, &ow));
    if (on != d.n || oc != d.k || oh != d.p || ow != d.q) {
        fb_error("%s: cuDNN's output is [N %d, K %d, P %d, Q %d], the shape rule's [%lld, %lld, %lld, %lld] (%s)",
                 a->what, on, oc, oh, ow, (long long)d.n, (long long)d.k, (long long)d.p, (long long)d.q, about);
        s = FB_E_UNSUPPORTED;
        goto done;
    }

    int max_algos = 0, found = 0;
    DNN(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_algos));
    if (max_algos < 1) max_algos = 1;
    perf = calloc((size_t)max_algos, sizeof *perf);
    if (!perf) {
        fb_error("%s: out of host memory", a->what);
        s = FB_E_NOMEM;
        goto done;
    }
    DNN(cudnnGetConvolutionForwardAlgorithm_v7(h, p->xd, p->wd, p->cd, p->yd, max_algos, &found, perf));
    /* The ranking's first acceptable algorithm, with the workspace it wants (eager grows its
     * own to fit: plan_workspace), as torch's cuDNN path takes it: capped at an eighth of the
     * device, not at the 64 MiB asked for from shapes. At 64 MiB, IEEE float32's ranking fell
     * to a slower algorithm on large maps: 11.5 ms against conv.tuned's 4.4 ms at N 32, C 256,
     * H 56 (kernels/NOTES.md, "Stop 44"). */
    const size_t ws_given = a->workspace ? a->workspace_bytes : 0;
    const size_t ws_have = a->ctx->dev.mem_bytes / 8 > ws_given ? a->ctx->dev.mem_bytes / 8 : ws_given;
    bool chosen = false;
    for (int i = 0; i < found && !chosen; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].memory > ws_have) continue;
        /* never down-convert float32 operands to half; never tensor cores (TF32) for IEEE float32 */
        if (perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) continue;
        if (fp32_ieee && perf[i].mathType == CUDNN_TENSOR_OP_MATH) continue;
        /* the ranking may pair an algorithm with another math type than the descriptor's:
         * it runs as ranked only with that one (IEEE float32 keeps FMA); set for every
         * candidate, so a skipped one's never stays */
        DNN(cudnnSetConvolutionMathType(p->cd, fp32_ieee ? CUDNN_FMA_MATH : perf[i].mathType));
        size_t need = 0;
        DNN(cudnnGetConvolutionForwardWorkspaceSize(h, p->xd, p->wd, p->cd, p->yd, perf[i].algo, &need));
        if (need > ws_have) continue;
        p->algo = perf[i].algo;
        p->ws_need = need;
        chosen = true;
    }
    if (!chosen) {
        fb_error("%s: cuDNN has no forward algorithm for %s within a %zu-byte workspace%s", a->what, about, ws_have,
                 X->dtype == FB_F64 ? " (cuDNN does few float64 convolutions)" : "");
        s = FB_E_UNSUPPORTED;
        goto done;
    }

done:
    free(perf);
    if (s != FB_OK) {
        conv_release(p);
        return s;
    }
    *plan_out = p;
    return FB_OK;
}

static size_t conv_plan_workspace(const void *plan) { return plan ? ((const conv_plan *)plan)->ws_need : 0; }

static fb_status conv_eager(const fb_node *n, const fb_eager_args *a)
{
    const conv_plan *p = a->plan;
    if (!p || !a->ctx || !a->ctx->cudnn) {
        fb_error("%s: no cuDNN plan (eager's prepare step did not run)", a->what);
        return FB_E_USAGE;
    }
    if (p->ws_need > (a->workspace ? a->workspace_bytes : 0)) {
        fb_error("%s: the algorithm needs %zu bytes of workspace, the launch has %zu", a->what, p->ws_need,
                 a->workspace ? a->workspace_bytes : 0);
        return FB_E_USAGE;
    }
    fb_status s = FB_OK;
    cudnnHandle_t h = (cudnnHandle_t)a->ctx->cudnn;
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void *alpha = p->f64 ? (const void *)&one_d : (const void *)&one_f;
    const void *beta = p->f64 ? (const void *)&zero_d : (const void *)&zero_f;
    DNN(cudnnSetStream(h, a->stream));
    DNN(cudnnConvolutionForward(h, alpha, p->xd, a->in[0]->data, p->wd, a->in[1]->data, p->cd, p->algo,
                                a->workspace, a->workspace ? a->workspace_bytes : 0, beta, p->yd, a->out->data));
done:
    return s;
}

/* See the top comment. */
static void conv_rows(const fb_node *n, fb_rowctx *rc, const fb_axes *const *in, fb_axes *out)
{
    const fb_axes *x = in[0], *w = in[1];
    const bool nhwc = fb_attr_int(&n->attrs, "layout", LAYOUT_NHWC) == LAYOUT_NHWC;
    out->rank = 4;
    if (x->rank != 4 || w->rank != 4) { /* shape() refuses these; nothing to trace */
        for (int j = 0; j < 4; j++) out->id[j] = -1;
        return;
    }
    for (int j = 1; j < 4; j++) {
        fb_rows_combine(rc, x->id[j]);
        fb_rows_combine(rc, w->id[j]);
    }
    const int k = w->id[0];
    if (fb_attr_int(&n->attrs, "groups", 1) > 1) fb_rows_combine(rc, k);
    const int pd = nhwc ? 1 : 2, qd = nhwc ? 2 : 3;
    const int p = fb_rows_fresh(rc, pd), q = fb_rows_fresh(rc, qd);
    fb_rows_combine(rc, p);
    fb_rows_combine(rc, q);
    out->id[0] = x->id[0];
    out->id[pd] = p;
    out->id[qd] = q;
    out->id[nhwc ? 3 : 1] = k;
}

const fb_op_kind fb_kind_conv2d = {
    .name = "conv2d",
    .ops = conv_ops,
    .n_ops = 1,
    .n_in = 2,
    .literals = false,
    .attrs = conv_attrs,
    .n_attrs = 5,
    .parse = conv_parse,
    .shape = conv_shape,
    .cost = conv_cost,
    .reference = conv_reference,
    .workspace = conv_workspace,
    .eager = conv_eager,
    .prepare = conv_prepare,
    .release = conv_release,
    .plan_workspace = conv_plan_workspace,
    .rows = conv_rows,
};
