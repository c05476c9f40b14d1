/* cudnn_graph.h — a small C layer over cuDNN's backend (graph) API, for variants and op
 * kinds that describe a computation as a cuDNN operation graph: tensors (NCHW-ordered
 * dims with any strides, NHWC included), a convolution forward, pointwise ops, the
 * graph, an execution plan chosen from the engine heuristics, and its execution.
 *
 * One fb_cudnn_graph owns every backend descriptor it creates (fb_cudnn_graph_free
 * destroys them all), so a caller builds a graph in a few calls and keeps the struct in
 * its prepare() state. Every cuDNN status goes through fb_cudnn_status (device.h): a
 * failure returns an fb_status with the call named in fb_error, never exits.
 *
 * The plan is the first engine config of the heuristics (mode A, then FALLBACK) that
 * passes the numerical filter, finalizes and fits the workspace: the filter keeps what
 * the reference means by a dtype — no TF32 for float32 unless asked, no down-converted
 * inputs, no half-precision accumulation — and only deterministic engines, since the
 * run may be repeated and compared bit for bit. Or, tuned: the first few such configs
 * (and up to FB_CUDNN_MORE_ENGINES of other engines from mode B's ranking) are each
 * built, run on the real operands (fb_cudnn_graph_tune, through tune_rounds.h, as
 * cuBLASLt's algorithms are) and the fastest kept. Stop 43 found conv_add's fused
 * graph 1.04-1.33x the plain convolution with each side on its heuristic's first. */
#ifndef FB_CUDNN_GRAPH_H
#define FB_CUDNN_GRAPH_H

#include <cudnn.h>

#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FB_CUDNN_MAX_DESC 80 /* descriptors one graph may own              */
#define FB_CUDNN_MORE_ENGINES 4   /* configs of other engines mode B may add to mode A's */
#define FB_CUDNN_MAX_CANDIDATES (8 + FB_CUDNN_MORE_ENGINES) /* plans fb_cudnn_graph_tune chooses among */
#define FB_CUDNN_MAX_OPS 8   /* operations in one graph                      */
#define FB_CUDNN_MAX_IO 8    /* non-virtual tensors (the variant pack's slots) */

/* ctx->cudnn, created on first use (as op_matmul.c does for cuBLASLt); fb_context_destroy
 * destroys it. */
fb_status fb_cudnn_handle(fb_context *ctx, cudnnHandle_t *out);

/* FB_F32 -> CUDNN_DATA_FLOAT, FB_F16 -> HALF, FB_BF16 -> BFLOAT16, FB_F64 -> DOUBLE. */
cudnnDataType_t fb_cudnn_dtype(fb_dtype d);

/* The strides of a tensor stored NHWC, described to cuDNN in its NCHW dim order:
 * dims {n, c, h, w} -> strides {h*w*c, 1, w*c, c}. */
void fb_cudnn_nhwc_strides(const int64_t dims[4], int64_t strides[4]);

/* The largest power of two, at most 16, that divides the address (a tensor's byte
 * alignment as cuDNN's engines read it; 16 for NULL, which is a virtual tensor). */
int64_t fb_cudnn_alignment(const void *p);

/* 2-d convolution geometry (symmetric padding; cross-correlation, as frameworks mean). */
typedef struct fb_cudnn_conv2d {
    int64_t stride, pad, dilation;
} fb_cudnn_conv2d;

/* Engine filter and limits for fb_cudnn_graph_plan. */
typedef struct fb_cudnn_plan_opts {
    int64_t max_workspace; /* bytes the caller can give the plan                       */
    bool allow_tf32;       /* float32 graph may use tensor cores (TF32); else IEEE only */
    bool float32;          /* the graph's data is float32 (where the TF32 rule applies) */
    int candidates;        /* plans to build for fb_cudnn_graph_tune (at most
                              FB_CUDNN_MAX_CANDIDATES); <= 1: the first acceptable only   */
} fb_cudnn_plan_opts;

typedef struct fb_cudnn_graph {
    cudnnHandle_t handle;
    cudnnBackendDescriptor_t owned[FB_CUDNN_MAX_DESC]; /* destroyed by fb_cudnn_graph_free */
    int n_owned;
    cudnnBackendDescriptor_t ops[FB_CUDNN_MAX_OPS];
    int n_ops;
    int64_t next_uid;
    int64_t io_uid[FB_CUDNN_MAX_IO]; /* the non-virtual tensors, in creation order */
    int n_io;
    cudnnBackendDescriptor_t graph; /* after fb_cudnn_graph_plan */
    cudnnBackendDescriptor_t plan;
    int64_t workspace_bytes;        /* what the plan needs                          */
    int64_t engine;                 /* the chosen engine's global index             */
    /* the acceptable plans built (cand[0] the heuristics' first), owned like the rest */
    cudnnBackendDescriptor_t cand[FB_CUDNN_MAX_CANDIDATES];
    int64_t cand_engine[FB_CUDNN_MAX_CANDIDATES], cand_workspace[FB_CUDNN_MAX_CANDIDATES];
    int n_cand;
    int rank;    /* the kept plan's index in cand                                        */
    bool tuned;  /* the candidates were timed (fb_cudnn_graph_tune, not load-only)       */
    char note[200];
    /* the variant pack of the last execute, reused while the pointers stay the same */
    cudnnBackendDescriptor_t pack;
    void *pack_ptr[FB_CUDNN_MAX_IO];
    void *pack_workspace;
} fb_cudnn_graph;

void fb_cudnn_graph_init(fb_cudnn_graph *g, cudnnHandle_t handle);
void fb_cudnn_graph_free(fb_cudnn_graph *g);

/* A 4-d tensor of `type`, dims in cuDNN's NCHW order, stored with `strides`. A virtual
 * tensor is an intermediate the fused kernel keeps on chip (pass the compute type); a
 * non-virtual one is a slot of the variant pack: slots are numbered in creation order,
 * and fb_cudnn_graph_execute takes their pointers in that order. */
fb_status fb_cudnn_tensor(fb_cudnn_graph *g, cudnnDataType_t type, const int64_t dims[4],
                          const int64_t strides[4], bool is_virtual, int64_t alignment,
                          cudnnBackendDescriptor_t *out);
/* The same of nd dims (matmul's tensors are [batch, rows, cols]). */
fb_status fb_cudnn_tensor_nd(fb_cudnn_graph *g, cudnnDataType_t type, int nd, const int64_t *dims,
                             const int64_t *strides, bool is_virtual, int64_t alignment, cudnnBackendDescriptor_t *out);
/* The same, stored NHWC (fb_cudnn_nhwc_strides). */
fb_status fb_cudnn_tensor_nhwc(fb_cudnn_graph *g, cudnnDataType_t type, int64_t n, int64_t c, int64_t h,
                               int64_t w, bool is_virtual, int64_t alignment, cudnnBackendDescriptor_t *out);

/* y = conv2d(x, w), accumulated in `compute`. x {N,C,H,W}, w {K,C/groups,R,S}, y {N,K,P,Q}:
 * cuDNN takes the group count from x's C over w's. */
fb_status fb_cudnn_conv_fwd(fb_cudnn_graph *g, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t w,
                            cudnnBackendDescriptor_t y, const fb_cudnn_conv2d *geom, cudnnDataType_t compute);
/* c = a @ b over the last two dims, batched over the first, accumulated in `compute`:
 * a [B, M, K], b [B, K, N], c [B, M, N], any strides the engines take. */
fb_status fb_cudnn_matmul(fb_cudnn_graph *g, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                          cudnnBackendDescriptor_t c, cudnnDataType_t compute);
/* y = mode(x) or y = mode(x, b) (b broadcast where its dims are 1), computed in float. */
fb_status fb_cudnn_pointwise(fb_cudnn_graph *g, cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x,
                             cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t y);

/* The operation graph of the ops added so far, finalized (once): cuDNN checks that the
 * ops connect (every virtual tensor made and consumed). Needs no GPU when g has no
 * handle; fb_cudnn_graph_plan calls it with one. */
fb_status fb_cudnn_graph_finalize(fb_cudnn_graph *g);

/* Finalize the graph of the ops added so far and choose its plan (heuristics mode A,
 * then FALLBACK; the first config that passes the filter, finalizes and fits).
 * FB_E_UNSUPPORTED with the reason in `why` (what the heuristics offered and why each
 * was refused) when none does: the caller may try another way or decline. */
fb_status fb_cudnn_graph_plan(fb_cudnn_graph *g, const fb_cudnn_plan_opts *o, char *why, size_t n);

/* Choose among the plans fb_cudnn_graph_plan built (opts.candidates > 1): each runs on these
 * operands (ptr, workspace as for fb_cudnn_graph_execute: tuning writes the outputs) from a
 * cold L2, in rounds, and the fastest median is kept unless the heuristics' first is within
 * 1% of it (tune_rounds.h). load_only: each plan runs once, untimed, and the first is kept
 * (a variant's first prepare, fb_call.first_prepare: its kernels loaded, its choice thrown
 * away). Nothing to do with one plan. `what` prefixes messages. */
fb_status fb_cudnn_graph_tune(fb_cudnn_graph *g, fb_context *ctx, void *const *ptr, void *workspace,
                              cudaStream_t stream, bool load_only, const char *what);

/* fb_cudnn_graph_tune over several graphs of one computation (the same outputs from other
 * operation graphs, which cuDNN's heuristics may give other engines): the candidates of all
 * of them in one race, graph 0's first (the one kept on a tie within 1%). ptr is their variant
 * pack (one computation's tensors: each graph reads its first n_io). The winner's graph gets
 * that plan (*which: its index); the others keep their heuristics' first, for the caller to free. */
fb_status fb_cudnn_graphs_tune(fb_cudnn_graph *const *gs, int ng, void *const *ptr, void *workspace,
                               fb_context *ctx, cudaStream_t stream, bool load_only, const char *what, int *which);

/* One of two graphs of the same computation (fb_cudnn_graph_pick): built and planned by the caller. */
typedef struct fb_cudnn_alt {
    fb_cudnn_graph *g;
    fb_status planned; /* fb_cudnn_graph_plan's: FB_OK, FB_E_UNSUPPORTED (no engine: why), or an error */
    const char *name;  /* the graph in words, for the note: "conv -> + D"                              */
    const char *why;   /* why it has no plan                                                            */
} fb_cudnn_alt;

/* The faster of two graphs of one computation: the configs of those that planned, timed in one race
 * (fb_cudnn_graphs_tune, a's kept on a tie; fb_cudnn_graph_tune when one planned); the winner's plan
 * ends in *a->g (b's swapped in when it won) and *b->g is freed. note: "<winner>, timed against
 * <loser>: <the plan's note>" (or "<winner> (<loser>: no engine): ..."). An error either graph's
 * plan returned; FB_E_UNSUPPORTED with both reasons in why when neither planned. ptr is both graphs'
 * variant pack (a graph reads its first n_io). */
fb_status fb_cudnn_graph_pick(fb_cudnn_alt *a, fb_cudnn_alt *b, void *const *ptr, void *workspace, fb_context *ctx,
                              cudaStream_t stream, bool load_only, const char *what, char *why, size_t why_n,
                              char *note, size_t note_n);

/* What the plan runs, for the result: "cuDNN engine 7, the heuristics' candidate 3 of 8,
 * kept by tuning", "cuDNN engine 7, the heuristics' first of 8, none of the others faster by
 * > 1% when timed", or "cuDNN engine 7, the heuristics' first". NULL before a plan. */
const char *fb_cudnn_graph_note(const fb_cudnn_graph *g);

/* Run the plan on `stream`: ptr[i] is the device pointer of non-virtual tensor i.
 * The variant pack is built on the first call and rebuilt only when a pointer or the
 * workspace changes. */
fb_status fb_cudnn_graph_execute(fb_cudnn_graph *g, void *const *ptr, void *workspace, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
