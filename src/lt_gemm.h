/* lt_gemm.h — one cuBLASLt GEMM, planned once and launched many times: the
 * matmul kind's eager launch (src/ops/op_matmul.c) and the fused epilogue
 * variants (kernels/matmul_epilogue.c) share it, so both time exactly the same
 * library path and differ only in the epilogue they ask for.
 *
 * Row-major throughout: C[m, n] = epilogue(op(A)[m, k] · op(B)[k, n] (+ D) (+ bias)),
 * batched with strides, A stored [m, k] (or [k, m] when ta), B [k, n] (or [n, k]
 * when tb). The plan holds cuBLASLt's descriptors and the algorithm its
 * heuristic picked for the operands' alignment; building it is host work
 * (microseconds to a millisecond) that belongs in a prepare step, never in a
 * timed run. */
#ifndef FB_LT_GEMM_H
#define FB_LT_GEMM_H

#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_gemm_epilogue {
    FB_GEMM_PLAIN,     /* C = A·B (+ D)                */
    FB_GEMM_RELU,      /* C = relu(A·B (+ D))          */
    FB_GEMM_BIAS,      /* C = A·B (+ D) + bias[n]      */
    FB_GEMM_RELU_BIAS, /* C = relu(A·B (+ D) + bias[n]) */
} fb_gemm_epilogue;

typedef struct fb_gemm_shape {
    fb_dtype dt;
    int64_t m, n, k;
    bool ta, tb;
    int64_t batch;              /* 1: not batched                               */
    int64_t stride_a, stride_b; /* elements between batch entries (B: 0 = shared) */
    fb_gemm_epilogue epilogue;
    bool add_d;                 /* C = ... + D, D a full [m, n] tensor (beta = 1) */
} fb_gemm_shape;

/* The operands of one launch. bias and d may be NULL when the shape has none. */
typedef struct fb_gemm_operands {
    const void *a, *b, *d, *bias;
    void *c;
} fb_gemm_operands;

typedef struct fb_gemm_plan fb_gemm_plan;

/* How the algorithm is chosen. candidates <= 1: cuBLASLt's heuristic's first
 * (what torch does, and eager); more: that many of the heuristic's best are each
 * run on the operands, timed with events from an L2 swept clean (as the timer's
 * default flush), and the fastest median kept unless the first's is within 1% of
 * it (then the first: candidates that share a kernel time within noise, and
 * ranking on noise kept different algorithms run to run). A library path's
 * autotuning, paid once in prepare. Tuning runs the GEMM: it writes the output (c) and needs the
 * workspace. */
typedef struct fb_gemm_tuning {
    int candidates;
    void *workspace; /* the one run() will get */
    cudaStream_t stream;
    bool load_only;  /* launch each candidate once, untimed, and keep the heuristic's
                        first: a variant's first prepare (fb_call.first_prepare) */
} fb_gemm_tuning;

/* Plan the GEMM for these operands' addresses (their alignment narrows the
 * algorithms) and `workspace_bytes` of workspace. float32 is IEEE unless
 * ctx->tf32. FB_E_UNSUPPORTED (with the reason) when cuBLASLt has no algorithm,
 * e.g. an epilogue it lacks for the dtype. `what` prefixes messages. tune may be
 * NULL (the heuristic's first). */
fb_status fb_gemm_plan_create(fb_context *ctx, const fb_gemm_shape *g, const fb_gemm_operands *o,
                              size_t workspace_bytes, const fb_gemm_tuning *tune, const char *what,
                              fb_gemm_plan **out);
/* Launch on `stream`. The operands must be at least as aligned as the planned
 * ones (FB_E_USAGE otherwise: the algorithm could fault). */
fb_status fb_gemm_run(fb_gemm_plan *p, const fb_gemm_operands *o, void *workspace, cudaStream_t stream,
                      const char *what);
void fb_gemm_plan_destroy(fb_gemm_plan *p);
/* What the plan runs, for the result: "cuBLASLt algorithm: the heuristic's candidate 3 of 8, kept
 * by tuning (algo id .., tile .., stages .., split-K .., swizzle .., cluster ..)" (cuBLASLt's
 * enum values; -1 where it does not say), "the heuristic's first of 8, none of the others faster
 * by > 1% when timed", or "the heuristic's first" when nothing was timed. Stop 31 read it over
 * runs of matmul_bias whose times spread 8-15%: the same algorithm in every run but one, which
 * kept a candidate tied with it to 0.1%, so the spread is the card's power state, not the choice
 * (kernels/NOTES.md, "Stop 31"). */
const char *fb_gemm_plan_note(fb_gemm_plan *p);

/* cuBLASLt's recommended workspace on Hopper; more buys nothing. */
#define FB_GEMM_WORKSPACE ((size_t)32 << 20)

#ifdef __cplusplus
}
#endif
#endif
