/* matmul_cudnn.c — matmul_add through cuDNN's graph API: out = A·B + D in one operation graph,
 * as conv_add.fused runs its convolution. Host C only: the kernels are cuDNN's.
 *
 *   matmul_add.cudnn   two graphs, matmul → add D and matmul → add D → add 0 (a bias of N
 *                      zeros: for the convolution the heuristics offer that shape the engine
 *                      the bias graphs run on, conv_fused.c graph_prepare_add), each with the
 *                      heuristics' first engine config (MM_CUDNN_CANDIDATES), the two timed
 *                      in one race (fb_cudnn_graphs_tune), the faster kept; the result's note
 *                      names the graph and the engine.
 *
 * Why: matmul_add.fused is cuBLASLt with beta = 1 and C = D, whose kernels read D after their
 * main loop, 1.12-1.20x the plain GEMM at K = 1024 (kernels/NOTES.md, stops 40-43), where
 * cuDNN's engine 41 reads a convolution's residual for 1.00-1.02x (stop 45). Whether a cuDNN
 * matmul engine does the same for a GEMM is what this variant measures.
 *
 * A [M, K], B [K, N], D and out [M, N], row-major, one dtype (the half types accumulate in
 * float32; float32 is IEEE unless --tf32, cudnn_graph.h's engine filter); transposed operands
 * are declined. */
#include "matmul_cudnn.h"

#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn_graph.h"
#include "matmul_add_problem.h"

#define MM_CUDNN_WORKSPACE ((size_t)64 << 20)
/* Engine configs planned a graph: the heuristics' first only. The two graphs' firsts are still
 * timed against each other. Eight a graph (each compiled on a cell's first prepare) cost 3.7-8.7 s
 * of host time a bfloat16 cell and bought nothing measurable: matmul_add.fused's paired geomean over
 * the nine K = 1024 cells read 1.172 with 8, 1.171 with 1 and 1.168 with 2, where one config a
 * graph prepares in 0.2-0.4 s (kernels/NOTES.md, "Stop 48"). */
#define MM_CUDNN_CANDIDATES 1

static const char kName[] = "matmul_add.cudnn";

typedef struct mm_state {
    cudnnHandle_t handle;
    fb_cudnn_graph g;     /* slots: A, B, D, out [, the zero bias]     */
    void *zero_bias;      /* N zeros of the dtype (owned)              */
    int64_t m, n, k;
    fb_dtype dt;
    char note[400];
} mm_state;

/* A [M, K], B [K, N], D [M, N] -> out [M, N], untransposed, one dtype (matmul_add_problem.h). */
static int read_problem(const fb_call *call, int64_t *m, int64_t *n, int64_t *k, char *why, size_t len)
{
    fb_mm_add_problem p;
    const int s = fb_mm_add_problem_read(call, FB_DTYPES_HALF_AND_F32, "float32, float16 or bfloat16 only", &p, why, len);
    if (s == FB_OK) *m = p.m, *n = p.n, *k = p.k;
    return s;
}

static int supports(const fb_call *call, char *why, size_t len)
{
    int64_t m, n, k;
    return read_problem(call, &m, &n, &k, why, len);
}

static size_t workspace(const fb_call *call)
{
    (void)call;
    return MM_CUDNN_WORKSPACE;
}

static void slot_pointers(const mm_state *st, const fb_call *call, void *ptr[5])
{
    ptr[0] = call->in[0].data;
    ptr[1] = call->in[1].data;
    ptr[2] = call->in[2].data;
    ptr[3] = call->out[0].data;
    ptr[4] = st->zero_bias;
}

/* The graph's tensors and operations (zero_bias: matmul -> + D -> + 0), no plan. Tensors are
 * [1, rows, cols], row-major; the slots are made first, in slot order. ptr: only the
 * alignments are read. */
static fb_status graph_ops(const mm_state *st, void *const ptr[5], bool zero_bias, fb_cudnn_graph *g)
{
    const cudnnDataType_t t = fb_cudnn_dtype(st->dt), acc_t = CUDNN_DATA_FLOAT;
    const int64_t m = st->m, n = st->n, k = st->k;
    const int64_t da[3] = {1, m, k}, sa[3] = {m * k, k, 1};
    const int64_t db[3] = {1, k, n}, sb[3] = {k * n, n, 1};
    const int64_t dc[3] = {1, m, n}, sc[3] = {m * n, n, 1};
    const int64_t dz[3] = {1, 1, n}, sz[3] = {n, n, 1};
    cudnnBackendDescriptor_t a, b, d, y, b0 = NULL, acc, sum;
    FB_TRY(fb_cudnn_tensor_nd(g, t, 3, da, sa, false, fb_cudnn_alignment(ptr[0]), &a));
    FB_TRY(fb_cudnn_tensor_nd(g, t, 3, db, sb, false, fb_cudnn_alignment(ptr[1]), &b));
    FB_TRY(fb_cudnn_tensor_nd(g, t, 3, dc, sc, false, fb_cudnn_alignment(ptr[2]), &d));
    FB_TRY(fb_cudnn_tensor_nd(g, t, 3, dc, sc, false, fb_cudnn_alignment(ptr[3]), &y));
    if (zero_bias) FB_TRY(fb_cudnn_tensor_nd(g, t, 3, dz, sz, false, fb_cudnn_alignment(ptr[4]), &b0));
    FB_TRY(fb_cudnn_tensor_nd(g, acc_t, 3, dc, sc, true, 16, &acc));
    FB_TRY(fb_cudnn_matmul(g, a, b, acc, acc_t));
    if (zero_bias) {
        FB_TRY(fb_cudnn_tensor_nd(g, acc_t, 3, dc, sc, true, 16, &sum));
        FB_TRY(fb_cudnn_pointwise(g, CUDNN_POINTWISE_ADD, acc, d, sum));
        FB_TRY(fb_cudnn_pointwise(g, CUDNN_POINTWISE_ADD, sum, b0, y));
    } else {
        FB_TRY(fb_cudnn_pointwise(g, CUDNN_POINTWISE_ADD, acc, d, y));
    }
    return FB_OK;
}

int fb_matmul_cudnn_graph_ops(const fb_call *call, bool zero_bias, fb_cudnn_graph *g)
{
    mm_state st = {0};
    char why[200];
    if (read_problem(call, &st.m, &st.n, &st.k, why, sizeof why) != FB_OK) {
        fb_error("%s: %s", kName, why);
        return FB_E_UNSUPPORTED;
    }
    st.dt = call->out[0].dtype;
    void *ptr[5];
    slot_pointers(&st, call, ptr);
    return graph_ops(&st, ptr, zero_bias, g);
}

/* The graph and its candidate plans. */
static fb_status build(mm_state *st, const fb_call *call, bool zero_bias, fb_cudnn_graph *g, char *why, size_t len)
{
    void *ptr[5];
    slot_pointers(st, call, ptr);
    FB_TRY(graph_ops(st, ptr, zero_bias, g));
    const fb_cudnn_plan_opts o = {
        .max_workspace = (int64_t)call->workspace_bytes,
        .allow_tf32 = call->ctx && call->ctx->tf32,
        .float32 = st->dt == FB_F32,
        .candidates = MM_CUDNN_CANDIDATES,
    };
    return fb_cudnn_graph_plan(g, &o, why, len);
}

static void release(void *state)
{
    mm_state *st = state;
    if (!st) return;
    fb_cudnn_graph_free(&st->g);
    fb_dfree(st->zero_bias);
    free(st);
}

static fb_status prepare_graphs(mm_state *st, const fb_call *call)
{
    const size_t bias_bytes = (size_t)st->n * fb_dtype_size(st->dt);
    FB_TRY(fb_dmalloc(&st->zero_bias, bias_bytes));
    FB_CUDA(cudaMemsetAsync(st->zero_bias, 0, bias_bytes, call->stream));
    fb_cudnn_graph_init(&st->g, st->handle);
    fb_cudnn_graph alt; /* matmul -> + D, while both are timed: the winner ends in st->g */
    fb_cudnn_graph_init(&alt, st->handle);
    char why_z[200] = "", why_d[200] = "", why[420] = "";
    fb_cudnn_alt z = {&st->g, FB_OK, "matmul -> + D -> + 0 (a bias of N zeros)", why_z};
    fb_cudnn_alt d = {&alt, FB_OK, "matmul -> + D", why_d};
    z.planned = build(st, call, true, z.g, why_z, sizeof why_z);
    if (z.planned == FB_OK || z.planned == FB_E_UNSUPPORTED) d.planned = build(st, call, false, d.g, why_d, sizeof why_d);
    void *ptr[5];
    slot_pointers(st, call, ptr);
    const fb_status s = fb_cudnn_graph_pick(&z, &d, ptr, call->workspace, call->ctx, call->stream, call->first_prepare,
                                            kName, why, sizeof why, st->note, sizeof st->note);
    fb_cudnn_graph_free(&alt); /* pick frees it, but not when it fails before the race */
    if (s == FB_E_UNSUPPORTED && why[0]) fb_error("%s: %s", kName, why);
    return s;
}

static int prepare(const fb_call *call, void **out)
{
    *out = NULL;
    mm_state *st = calloc(1, sizeof *st);
    if (!st) {
        fb_error("%s: out of host memory", kName);
        return FB_E_NOMEM;
    }
    char why[200];
    fb_status s = (fb_status)read_problem(call, &st->m, &st->n, &st->k, why, sizeof why);
    if (s != FB_OK) {
        fb_error("%s: %s", kName, why);
        free(st);
        return s;
    }
    st->dt = call->out[0].dtype;
    s = fb_cudnn_handle(call->ctx, &st->handle);
    if (s == FB_OK) s = prepare_graphs(st, call);
    if (s != FB_OK) {
        release(st);
        return s;
    }
    *out = st;
    return FB_OK;
}

static int run(const fb_call *call)
{
    mm_state *st = call->state;
    if (!st) {
        fb_error("%s: run() without prepare()", kName);
        return FB_E_USAGE;
    }
    void *ptr[5];
    slot_pointers(st, call, ptr);
    return fb_cudnn_graph_execute(&st->g, ptr, call->workspace, call->stream);
}

static const char *note(const void *state)
{
    const mm_state *st = state;
    return st ? st->note : NULL;
}

const fb_variant fb_matmul_cudnn_variants[] = {
    {kName, "out = A @ B + D as one cuDNN operation graph (matmul -> add D [-> add 0]), the two graphs timed",
     FB_DTYPE_BIT(FB_F32) | FB_DTYPE_BIT(FB_F16) | FB_DTYPE_BIT(FB_BF16), supports, workspace, run, 1, prepare,
     release, note},
};
const int fb_matmul_cudnn_variant_count = (int)(sizeof fb_matmul_cudnn_variants / sizeof fb_matmul_cudnn_variants[0]);
