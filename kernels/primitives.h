/* primitives.h — C entry points of kernels/primitives.cu: the kernels the eager
 * interpreter is built from, plus seeded input fill and output poisoning.
 * Each launcher enqueues exactly one kernel on `stream` (fill/poison: one kernel
 * or memset) and returns the cudaError_t of the launch (0 on success) as an int. */
#ifndef FB_PRIMITIVES_H
#define FB_PRIMITIVES_H

#include "../src/program.h"
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The primitives' op codes. The op kinds (src/ops/op_unary.c, ...) name them in
 * this order: a node's op index within its kind is its code here. */
typedef enum fb_prim_unary_op {
    FB_OP_NEG, FB_OP_ABS, FB_OP_EXP, FB_OP_LOG, FB_OP_COS, FB_OP_SIN, FB_OP_TANH,
    FB_OP_SQRT, FB_OP_RSQRT, FB_OP_RELU, FB_OP_SIGMOID, FB_OP_ERF, FB_OP_RECIPROCAL,
    FB_OP_SQUARE, FB_OP_GELU, FB_OP_COPY,
    FB_NUNARY
} fb_prim_unary_op;

typedef enum fb_prim_binary_op {
    FB_OP_ADD, FB_OP_SUB, FB_OP_MUL, FB_OP_DIV, FB_OP_MAX, FB_OP_MIN, FB_OP_POW,
    FB_NBINARY
} fb_prim_binary_op;

typedef enum fb_prim_reduce_op { FB_OP_SUM, FB_OP_AMAX, FB_OP_AMIN, FB_OP_MEAN, FB_NREDUCE } fb_prim_reduce_op;

/* y = op(x); x and y have the same shape and dtype. */
int fb_prim_unary(int op, const fb_tensor *x, fb_tensor *y, cudaStream_t stream);

/* y = op(a, b) with numpy broadcasting; a or b may be NULL, then the literal la / lb
 * is used in its place. y.shape is the broadcast shape; all tensors share a dtype. */
int fb_prim_binary(int op, const fb_tensor *a, double la, const fb_tensor *b, double lb,
                   fb_tensor *y, cudaStream_t stream);

/* y = reduce(x) over dim (0 <= dim < rank), keepdim: y.shape = x.shape with dim = 1.
 * Accumulates in float (float64 for float64). */
int fb_prim_reduce(int op, const fb_tensor *x, int dim, fb_tensor *y, cudaStream_t stream);

/* y = dropout(x): element i (row-major) is kept when fb_random.h's
 * fb_dropout_keep(seed, i, fb_dropout_threshold(p)), then y = x * (1 / (1 - p))
 * (the scale rounded to float for the half types and float32), else 0. 0 <= p < 1. */
int fb_prim_dropout(const fb_tensor *x, double p, uint64_t seed, fb_tensor *y, cudaStream_t stream);

/* Inference batch norm: y = (x - mean[c]) * rsqrt(var[c] + eps) * gamma[c] + beta[c],
 * c the element's index along x's dim `channel_dim`; mean, var, gamma and beta are
 * [C] with C = x.shape[channel_dim]; y has x's shape; all share a dtype. Computes
 * in float (double for float64). */
int fb_prim_batchnorm(const fb_tensor *x, const fb_tensor *mean, const fb_tensor *var, const fb_tensor *gamma,
                      const fb_tensor *beta, double eps, int channel_dim, fb_tensor *y, cudaStream_t stream);

/* Fill with seeded values: element i of the tensor is a pure function of
 * (key, i, init) — the same on every run and every GPU; row_simplex divides each
 * U(0.5, 1.5) draw by its row's sum (a function of the row's draws): rows on the simplex. key = fb_fill_key(seed, input index) (src/fb_random.h)
 * gives each seed and each input its own stream. */
int fb_fill(fb_tensor *t, fb_init init, uint64_t key, cudaStream_t stream);

/* Fill with NaN bit patterns (0xFF bytes) so unwritten elements fail the check. */
int fb_poison(fb_tensor *t, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
