/* cudnn_graph.c — cuDNN's backend (graph) API in a few calls (cudnn_graph.h). */
#include "cudnn_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_rounds.h"

#define DNN(call)                                                                      \
    do {                                                                               \
        fb_status dnn_s_ = fb_cudnn_status((int)(call), #call, __FILE__, __LINE__);    \
        if (dnn_s_ != FB_OK) return dnn_s_;                                            \
    } while (0)

fb_status fb_cudnn_handle(fb_context *ctx, cudnnHandle_t *out)
{
    if (!ctx) {
        fb_error("cuDNN needs the device context (its handle lives there)");
        return FB_E_CUDA;
    }
    if (!ctx->cudnn) {
        cudnnHandle_t h = NULL;
        DNN(cudnnCreate(&h));
        ctx->cudnn = h;
    }
    *out = (cudnnHandle_t)ctx->cudnn;
    return FB_OK;
}

cudnnDataType_t fb_cudnn_dtype(fb_dtype d)
{
    switch (d) {
    case FB_F16: return CUDNN_DATA_HALF;
    case FB_BF16: return CUDNN_DATA_BFLOAT16;
    case FB_F64: return CUDNN_DATA_DOUBLE;
    default: return CUDNN_DATA_FLOAT;
    }
}

void fb_cudnn_nhwc_strides(const int64_t dims[4], int64_t strides[4])
{
    const int64_t c = dims[1], h = dims[2], w = dims[3];
    strides[0] = h * w * c;
    strides[1] = 1;
    strides[2] = w * c;
    strides[3] = c;
}

int64_t fb_cudnn_alignment(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (a == 0) return 16;
    int64_t al = 1;
    while (al < 16 && (a & (uintptr_t)(2 * al - 1)) == 0) al *= 2;
    return al;
}

void fb_cudnn_graph_init(fb_cudnn_graph *g, cudnnHandle_t handle)
{
    memset(g, 0, sizeof *g);
    g->handle = handle;
    g->next_uid = 1;
    g->engine = -1;
}

void fb_cudnn_graph_free(fb_cudnn_graph *g)
{
    if (!g) return;
    if (g->pack) cudnnBackendDestroyDescriptor(g->pack);
    /* in reverse: what was made later may refer to what was made earlier */
    for (int i = g->n_owned - 1; i >= 0; i--) cudnnBackendDestroyDescriptor(g->owned[i]);
    cudnnHandle_t h = g->handle;
    fb_cudnn_graph_init(g, h);
}

/* A new descriptor that g owns. */
static fb_status make(fb_cudnn_graph *g, cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *out)
{
    if (g->n_owned == FB_CUDNN_MAX_DESC) {
        fb_error("cudnn_graph: more than %d descriptors in one graph (raise FB_CUDNN_MAX_DESC)", FB_CUDNN_MAX_DESC);
        return FB_E_CUDA;
    }
    *out = NULL;
    DNN(cudnnBackendCreateDescriptor(type, out));
    g->owned[g->n_owned++] = *out;
    return FB_OK;
}

#define SET(d, name, type, count, ptr) DNN(cudnnBackendSetAttribute((d), (name), (type), (count), (ptr)))

fb_status fb_cudnn_tensor(fb_cudnn_graph *g, cudnnDataType_t type, const int64_t dims[4],
                          const int64_t strides[4], bool is_virtual, int64_t alignment,
                          cudnnBackendDescriptor_t *out)
{
    return fb_cudnn_tensor_nd(g, type, 4, dims, strides, is_virtual, alignment, out);
}

fb_status fb_cudnn_tensor_nd(fb_cudnn_graph *g, cudnnDataType_t type, int nd, const int64_t *dims,
                             const int64_t *strides, bool is_virtual, int64_t alignment, cudnnBackendDescriptor_t *out)
{
    if (!is_virtual && g->n_io == FB_CUDNN_MAX_IO) {
        fb_error("cudnn_graph: more than %d tensors in one variant pack", FB_CUDNN_MAX_IO);
        return FB_E_CUDA;
    }
    cudnnBackendDescriptor_t t;
    FB_TRY(make(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    const int64_t uid = g->next_uid++;
    bool virt = is_virtual;
    SET(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    SET(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims);
    SET(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides);
    SET(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    SET(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
    SET(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt);
    DNN(cudnnBackendFinalize(t));
    if (!is_virtual) g->io_uid[g->n_io++] = uid;
    *out = t;
    return FB_OK;
}

fb_status fb_cudnn_tensor_nhwc(fb_cudnn_graph *g, cudnnDataType_t type, int64_t n, int64_t c, int64_t h,
                               int64_t w, bool is_virtual, int64_t alignment, cudnnBackendDescriptor_t *out)
{
    const int64_t dims[4] = {n, c, h, w};
    int64_t strides[4];
    fb_cudnn_nhwc_strides(dims, strides);
    return fb_cudnn_tensor(g, type, dims, strides, is_virtual, alignment, out);
}

static fb_status add_op(fb_cudnn_graph *g, cudnnBackendDescriptor_t op)
{
    if (g->n_ops == FB_CUDNN_MAX_OPS) {
        fb_error("cudnn_graph: more than %d operations in one graph", FB_CUDNN_MAX_OPS);
        return FB_E_CUDA;
    }
    g->ops[g->n_ops++] = op;
    return FB_OK;
}

fb_status fb_cudnn_conv_fwd(fb_cudnn_graph *g, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t w,
                            cudnnBackendDescriptor_t y, const fb_cudnn_conv2d *geom, cudnnDataType_t compute)
{
    cudnnBackendDescriptor_t conv, op;
    FB_TRY(make(g, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &conv));
    const int64_t spatial = 2;
    const int64_t stride[2] = {geom->stride, geom->stride};
    const int64_t pad[2] = {geom->pad, geom->pad};
    const int64_t dil[2] = {geom->dilation, geom->dilation};
    /* frameworks' "convolution" is cuDNN's cross-correlation (no filter flip) */
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    SET(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
    SET(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
    SET(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    SET(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride);
    SET(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
    SET(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
    SET(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil);
    DNN(cudnnBackendFinalize(conv));

    FB_TRY(make(g, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op));
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    /* y = 1 * conv + 0 * y: the scaling factors are typed as the compute type */
    if (compute == CUDNN_DATA_DOUBLE) {
        const double one = 1.0, zero = 0.0;
        SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_DOUBLE, 1, &one);
        SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_DOUBLE, 1, &zero);
    } else {
        const float one = 1.0f, zero = 0.0f;
        SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &one);
        SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &zero);
    }
    DNN(cudnnBackendFinalize(op));
    return add_op(g, op);
}

fb_status fb_cudnn_matmul(fb_cudnn_graph *g, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                          cudnnBackendDescriptor_t c, cudnnDataType_t compute)
{
    cudnnBackendDescriptor_t mm, op;
    FB_TRY(make(g, CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm));
    SET(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
    DNN(cudnnBackendFinalize(mm));
    FB_TRY(make(g, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &op));
    SET(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
    SET(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    SET(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
    SET(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
    DNN(cudnnBackendFinalize(op));
    return add_op(g, op);
}

fb_status fb_cudnn_pointwise(fb_cudnn_graph *g, cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x,
                             cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t y)
{
    cudnnBackendDescriptor_t pw, op;
    FB_TRY(make(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw));
    const cudnnDataType_t prec = CUDNN_DATA_FLOAT; /* half data is computed in float */
    SET(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    SET(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
    DNN(cudnnBackendFinalize(pw));

    FB_TRY(make(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    if (b) SET(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    DNN(cudnnBackendFinalize(op));
    return add_op(g, op);
}

/* ---- choosing the plan ------------------------------------------------------------ */

/* Why configs were refused, counted for the message when none is left. */
typedef struct refusals {
    int offered, numerics, nondeterministic, no_finalize, too_big;
    int64_t smallest_too_big;
} refusals;

/* 1 when the engine behind cfg computes what the reference means (see the top comment),
 * 0 when it does not (counted in r), or an error. *index: the engine's global index. */
static fb_status engine_acceptable(const fb_cudnn_plan_opts *o, cudnnBackendDescriptor_t cfg, refusals *r,
                                   int *ok, int64_t *index)
{
    cudnnBackendDescriptor_t eng = NULL;
    *ok = 0;
    DNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng));
    int64_t n = 0;
    cudnnBackendNumericalNote_t notes[32];
    cudnnStatus_t st = cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                                &n, &eng);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, index);
    int64_t n_notes = 0;
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                      (int64_t)(sizeof notes / sizeof notes[0]), &n_notes, notes);
    cudnnBackendDestroyDescriptor(eng);
    if (st != CUDNN_STATUS_SUCCESS) { /* an engine that cannot describe itself is not used */
        r->no_finalize++;
        return FB_OK;
    }
    bool tensor_core = false, down_convert = false, reduced = false, nondet = false;
    for (int64_t i = 0; i < n_notes && i < (int64_t)(sizeof notes / sizeof notes[0]); i++) {
        tensor_core |= notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
        down_convert |= notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS;
        reduced |= notes[i] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION;
        nondet |= notes[i] == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC;
    }
    /* float32 on tensor cores is TF32; half types on tensor cores are what they are */
    if ((o->float32 && tensor_core && !o->allow_tf32) || down_convert || reduced) {
        r->numerics++;
        return FB_OK;
    }
    if (nondet) {
        r->nondeterministic++;
        return FB_OK;
    }
    *ok = 1;
    return FB_OK;
}

/* How many plans fb_cudnn_graph_plan builds. */
static int wanted(const fb_cudnn_plan_opts *o)
{
    return o->candidates <= 1 ? 1 : o->candidates > FB_CUDNN_MAX_CANDIDATES ? FB_CUDNN_MAX_CANDIDATES : o->candidates;
}

static bool engine_seen(const fb_cudnn_graph *g, int64_t index)
{
    for (int i = 0; i < g->n_cand; i++)
        if (g->cand_engine[i] == index) return true;
    return false;
}

/* Try the configs of one heuristics mode, in its order, appending every one that is
 * acceptable, builds and fits to g->cand until `upto` are there; new_engines: only
 * configs of an engine not among the candidates yet. */
static fb_status plan_from_mode(fb_cudnn_graph *g, const fb_cudnn_plan_opts *o, cudnnBackendHeurMode_t mode,
                                int upto, bool new_engines, refusals *r)
{
    cudnnBackendDescriptor_t heur = NULL;
    cudnnBackendDescriptor_t cfg[64] = {0};
    int64_t n_cfg = 0;
    fb_status s = FB_OK;
    if (upto > FB_CUDNN_MAX_CANDIDATES) upto = FB_CUDNN_MAX_CANDIDATES;
#define TRY_DNN(call)                                                                          \
    do {                                                                                       \
        if ((s = fb_cudnn_status((int)(call), #call, __FILE__, __LINE__)) != FB_OK) goto done; \
    } while (0)
    TRY_DNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TRY_DNN(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                     &g->graph));
    TRY_DNN(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    TRY_DNN(cudnnBackendFinalize(heur));
    int64_t available = 0;
    TRY_DNN(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                     &available, NULL));
    if (available <= 0) goto done;
    if (available > (int64_t)(sizeof cfg / sizeof cfg[0])) available = (int64_t)(sizeof cfg / sizeof cfg[0]);
    for (int64_t i = 0; i < available; i++)
        TRY_DNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg[i]));
    TRY_DNN(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, available,
                                     &n_cfg, cfg));
    if (n_cfg > available) n_cfg = available;
    r->offered += (int)n_cfg;

    for (int64_t i = 0; i < n_cfg && g->n_cand < upto; i++) {
        int ok = 0;
        int64_t index = -1;
        if ((s = engine_acceptable(o, cfg[i], r, &ok, &index)) != FB_OK) goto done;
        if (!ok || (new_engines && engine_seen(g, index))) continue;
        cudnnBackendDescriptor_t plan = NULL;
        TRY_DNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
        int64_t ws = -1, got = 0;
        cudnnStatus_t st = cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
                                                    &g->handle);
        if (st == CUDNN_STATUS_SUCCESS)
            st = cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg[i]);
        /* An engine that cannot build this graph (runtime compilation unavailable, a
         * shape its kernels do not cover) fails here: the next config may not. */
        if (st == CUDNN_STATUS_SUCCESS) st = cudnnBackendFinalize(plan);
        if (st == CUDNN_STATUS_SUCCESS)
            st = cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                                          &got, &ws);
        if (st != CUDNN_STATUS_SUCCESS) {
            cudnnBackendDestroyDescriptor(plan);
            r->no_finalize++;
            continue;
        }
        if (ws > o->max_workspace) {
            cudnnBackendDestroyDescriptor(plan);
            r->too_big++;
            if (r->smallest_too_big == 0 || ws < r->smallest_too_big) r->smallest_too_big = ws;
            continue;
        }
        /* keep it, and the config it was built from */
        if (g->n_owned + 2 > FB_CUDNN_MAX_DESC) {
            cudnnBackendDestroyDescriptor(plan);
            fb_error("cudnn_graph: more than %d descriptors in one graph (raise FB_CUDNN_MAX_DESC)",
                     FB_CUDNN_MAX_DESC);
            s = FB_E_CUDA;
            goto done;
        }
        g->owned[g->n_owned++] = cfg[i];
        cfg[i] = NULL;
        g->owned[g->n_owned++] = plan;
        g->cand[g->n_cand] = plan;
        g->cand_engine[g->n_cand] = index;
        g->cand_workspace[g->n_cand] = ws;
        g->n_cand++;
    }
done:
    for (int64_t i = 0; i < (int64_t)(sizeof cfg / sizeof cfg[0]); i++)
        if (cfg[i]) cudnnBackendDestroyDescriptor(cfg[i]);
    if (heur) cudnnBackendDestroyDescriptor(heur);
    return s;
#undef TRY_DNN
}

fb_status fb_cudnn_graph_finalize(fb_cudnn_graph *g)
{
    if (g->graph) return FB_OK;
    if (g->n_ops == 0) {
        fb_error("cudnn_graph: a graph without operations");
        return FB_E_CUDA;
    }
    cudnnBackendDescriptor_t graph;
    FB_TRY(make(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph));
    SET(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, g->n_ops, g->ops);
    /* the plan needs it; the graph alone is checked without (and without a GPU) */
    if (g->handle) SET(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &g->handle);
    /* NOT_SUPPORTED here: no engine family takes this pattern (FB_E_UNSUPPORTED) */
    FB_TRY(fb_cudnn_status((int)cudnnBackendFinalize(graph), "cudnnBackendFinalize (operation graph)", __FILE__,
                           __LINE__));
    g->graph = graph;
    return FB_OK;
}

/* The candidates' distinct engines, "4, 62", into buf. */
static void engine_list(const fb_cudnn_graph *g, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < g->n_cand; i++) {
        bool first = true;
        for (int j = 0; j < i; j++) first &= g->cand_engine[j] != g->cand_engine[i];
        if (!first || at >= n) continue;
        int w = snprintf(buf + at, n - at, "%s%lld", at ? ", " : "", (long long)g->cand_engine[i]);
        if (w > 0) at += (size_t)w;
    }
}

/* Make candidate i the plan, and say so in g->note (fb_cudnn_graph_note). */
static void choose(fb_cudnn_graph *g, int i, bool tuned)
{
    g->plan = g->cand[i];
    g->engine = g->cand_engine[i];
    g->workspace_bytes = g->cand_workspace[i];
    g->rank = i;
    g->tuned = tuned;
    char engines[96];
    engine_list(g, engines, sizeof engines);
    if (tuned && i > 0)
        snprintf(g->note, sizeof g->note,
                 "cuDNN engine %lld, the heuristics' candidate %d of %d (engines %s), kept by tuning",
                 (long long)g->engine, i + 1, g->n_cand, engines);
    else if (tuned)
        snprintf(g->note, sizeof g->note,
                 "cuDNN engine %lld, the heuristics' first of %d (engines %s), none of the others faster by > %.0f%% "
                 "when timed",
                 (long long)g->engine, g->n_cand, engines, 100 * FB_TUNE_MARGIN);
    else
        snprintf(g->note, sizeof g->note, "cuDNN engine %lld, the heuristics' first", (long long)g->engine);
}

fb_status fb_cudnn_graph_plan(fb_cudnn_graph *g, const fb_cudnn_plan_opts *o, char *why, size_t n)
{
    if (!g->handle) {
        fb_error("cudnn_graph: a plan needs the cuDNN handle");
        return FB_E_CUDA;
    }
    fb_status s = fb_cudnn_graph_finalize(g);
    if (s != FB_OK) {
        if (why && n) snprintf(why, n, "cuDNN does not accept this operation graph: %s", fb_last_error());
        return s;
    }
    refusals r = {0};
    static const cudnnBackendHeurMode_t modes[] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
    static const char *const mode_names[] = {"A", "FALLBACK"};
    char failed[320] = "";
    /* FALLBACK only when mode A gave nothing: its engines are the slow, general ones */
    for (size_t m = 0; m < sizeof modes / sizeof modes[0] && g->n_cand == 0; m++) {
        s = plan_from_mode(g, o, modes[m], wanted(o), false, &r);
        /* A mode that cannot be queried for this graph (NOT_SUPPORTED, or a heuristics
         * descriptor that does not finalize) leaves the next mode to try; out of memory
         * ends it. The message is kept for the reason. */
        if (s == FB_E_OOM) return s;
        if (s != FB_OK && !failed[0]) snprintf(failed, sizeof failed, "; heuristics %s: %s", mode_names[m], fb_last_error());
    }
    /* Tuning: mode A's configs are mostly one engine's knob settings (conv_add's graph: its
     * eight were engines 4 and 7 in stop 44); mode B's ranking may name other engines, up
     * to FB_CUDNN_MORE_ENGINES of them. Its failure to answer costs nothing but them. */
    if (g->n_cand > 0 && wanted(o) > 1) {
        refusals rb = {0};
        s = plan_from_mode(g, o, CUDNN_HEUR_MODE_B, g->n_cand + FB_CUDNN_MORE_ENGINES, true, &rb);
        if (s == FB_E_OOM) return s;
    }
    if (g->n_cand > 0) {
        choose(g, 0, false);
        return FB_OK;
    }
    if (why && n) {
        char big[96] = "";
        if (r.too_big)
            snprintf(big, sizeof big, ", %d need more workspace than %lld bytes (the least %lld)", r.too_big,
                     (long long)o->max_workspace, (long long)r.smallest_too_big);
        snprintf(why, n,
                 "cuDNN has no engine for this graph: the heuristics offered %d configs; %d compute differently "
                 "(%s), %d are nondeterministic, %d did not build%s%s",
                 r.offered, r.numerics, o->float32 && !o->allow_tf32 ? "TF32, down-converted or half accumulation"
                                                                     : "down-converted or half accumulation",
                 r.nondeterministic, r.no_finalize, big, failed);
    }
    fb_error("%s", why && n ? why : "cuDNN has no engine for this graph");
    return FB_E_UNSUPPORTED;
}

/* A finalized variant pack of g's slots, or an error (and nothing built). */
static fb_status build_pack(fb_cudnn_graph *g, void *const *ptr, void *workspace, cudnnBackendDescriptor_t pack)
{
    SET(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, g->n_io, g->io_uid);
    SET(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, g->n_io, ptr);
    SET(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
    DNN(cudnnBackendFinalize(pack));
    return FB_OK;
}

/* g->pack for these pointers: kept while they stay the same, rebuilt when one changes. The
 * pack names tensors and buffers, not a plan, so every candidate plan runs with it. */
static fb_status ensure_pack(fb_cudnn_graph *g, void *const *ptr, void *workspace)
{
    bool same = g->pack && g->pack_workspace == workspace;
    for (int i = 0; same && i < g->n_io; i++) same = g->pack_ptr[i] == ptr[i];
    if (same) return FB_OK;
    if (g->pack) cudnnBackendDestroyDescriptor(g->pack);
    g->pack = NULL;
    cudnnBackendDescriptor_t pack = NULL;
    DNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
    fb_status s = build_pack(g, ptr, workspace, pack);
    if (s != FB_OK) {
        cudnnBackendDestroyDescriptor(pack); /* a half-built pack is never reused */
        return s;
    }
    g->pack = pack;
    for (int i = 0; i < g->n_io; i++) g->pack_ptr[i] = ptr[i];
    g->pack_workspace = workspace;
    return FB_OK;
}

fb_status fb_cudnn_graph_execute(fb_cudnn_graph *g, void *const *ptr, void *workspace, cudaStream_t stream)
{
    if (!g->plan) {
        fb_error("cudnn_graph: execute without a plan");
        return FB_E_CUDA;
    }
    FB_TRY(ensure_pack(g, ptr, workspace));
    DNN(cudnnSetStream(g->handle, stream));
    DNN(cudnnBackendExecute(g->handle, g->plan, g->pack));
    return FB_OK;
}

static int launch_candidate(void *arg, int i, cudaStream_t stream)
{
    fb_cudnn_graph *g = arg;
    return cudnnSetStream(g->handle, stream) != CUDNN_STATUS_SUCCESS ||
           cudnnBackendExecute(g->handle, g->cand[i], g->pack) != CUDNN_STATUS_SUCCESS;
}

fb_status fb_cudnn_graph_tune(fb_cudnn_graph *g, fb_context *ctx, void *const *ptr, void *workspace,
                              cudaStream_t stream, bool load_only, const char *what)
{
    if (!g->plan) {
        fb_error("%s: cudnn_graph: tune without a plan", what);
        return FB_E_CUDA;
    }
    if (g->n_cand <= 1) return FB_OK;
    int which;
    return fb_cudnn_graphs_tune(&g, 1, ptr, workspace, ctx, stream, load_only, what, &which);
}

/* Candidate i of the union of ng graphs' candidates (graph 0's first): its graph and index. */
typedef struct graph_set {
    fb_cudnn_graph *const *gs;
    int ng;
} graph_set;

static void locate(const graph_set *m, int i, int *gi, int *ci)
{
    int k = 0;
    while (k < m->ng - 1 && i >= m->gs[k]->n_cand) i -= m->gs[k++]->n_cand;
    *gi = k;
    *ci = i;
}

static int launch_set_candidate(void *arg, int i, cudaStream_t stream)
{
    const graph_set *m = arg;
    int gi, ci;
    locate(m, i, &gi, &ci);
    return launch_candidate(m->gs[gi], ci, stream);
}

fb_status fb_cudnn_graphs_tune(fb_cudnn_graph *const *gs, int ng, void *const *ptr, void *workspace,
                               fb_context *ctx, cudaStream_t stream, bool load_only, const char *what, int *which)
{
    int total = 0;
    for (int k = 0; k < ng; k++) {
        if (!gs[k]->plan) {
            fb_error("%s: cudnn_graph: tune without a plan (graph %d)", what, k);
            return FB_E_CUDA;
        }
        FB_TRY(ensure_pack(gs[k], ptr, workspace));
        total += gs[k]->n_cand;
    }
    const graph_set m = {gs, ng};
    int keep = 0, gi, ci;
    if (load_only)
        FB_TRY(fb_tune_load(total, launch_set_candidate, (void *)&m, stream, &keep, what));
    else
        FB_TRY(fb_tune_rounds(ctx, stream, total, launch_set_candidate, (void *)&m, &keep, what));
    locate(&m, keep, &gi, &ci);
    choose(gs[gi], ci, !load_only);
    *which = gi;
    return FB_OK;
}

fb_status fb_cudnn_graph_pick(fb_cudnn_alt *a, fb_cudnn_alt *b, void *const *ptr, void *workspace, fb_context *ctx,
                              cudaStream_t stream, bool load_only, const char *what, char *why, size_t why_n,
                              char *note, size_t note_n)
{
    if (a->planned != FB_OK && a->planned != FB_E_UNSUPPORTED) return a->planned;
    if (b->planned != FB_OK && b->planned != FB_E_UNSUPPORTED) return b->planned;
    if (a->planned != FB_OK && b->planned != FB_OK) {
        if (why && why_n) snprintf(why, why_n, "%s: %s; %s: %s", a->name, a->why, b->name, b->why);
        return FB_E_UNSUPPORTED;
    }
    int which = a->planned == FB_OK ? 0 : 1;
    if (a->planned == FB_OK && b->planned == FB_OK) {
        fb_cudnn_graph *const gs[2] = {a->g, b->g};
        FB_TRY(fb_cudnn_graphs_tune(gs, 2, ptr, workspace, ctx, stream, load_only, what, &which));
    } else {
        FB_TRY(fb_cudnn_graph_tune(which == 0 ? a->g : b->g, ctx, ptr, workspace, stream, load_only, what));
    }
    if (which == 1) { /* b's plan kept: it moves into a->g, the graph the caller runs */
        const fb_cudnn_graph t = *a->g;
        *a->g = *b->g;
        *b->g = t;
    }
    fb_cudnn_graph_free(b->g);
    const fb_cudnn_alt *won = which == 0 ? a : b, *lost = which == 0 ? b : a;
    if (note && note_n)
        snprintf(note, note_n, "%s%s%s%s: %s", won->name, lost->planned == FB_OK ? ", timed against " : " (",
                 lost->name, lost->planned == FB_OK ? "" : ": no engine)", fb_cudnn_graph_note(a->g));
    return FB_OK;
}

const char *fb_cudnn_graph_note(const fb_cudnn_graph *g) { return g->plan ? g->note : NULL; }
