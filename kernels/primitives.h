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

/* y = op(x); x and y have the same shape and dtype. */
int fb_prim_unary(fb_op op, const fb_tensor *x, fb_tensor *y, cudaStream_t stream);

/* y = op(a, b) with numpy broadcasting; a or b may be NULL, then the literal la / lb
 * is used in its place. y.shape is the broadcast shape; all tensors share a dtype. */
int fb_prim_binary(fb_op op, const fb_tensor *a, double la, const fb_tensor *b, double lb,
                   fb_tensor *y, cudaStream_t stream);

/* y = reduce(x) over dim (0 <= dim < rank), keepdim: y.shape = x.shape with dim = 1.
 * Accumulates in float (float64 for float64). */
int fb_prim_reduce(fb_op op, const fb_tensor *x, int dim, fb_tensor *y, cudaStream_t stream);

/* Fill with seeded values: element i of the tensor is a pure function of
 * (key, i, init) — the same on every run and every GPU. key = fb_fill_key(seed,
 * input index) (src/fb_random.h) gives each seed and each input its own stream. */
int fb_fill(fb_tensor *t, fb_init init, uint64_t key, cudaStream_t stream);

/* Fill with NaN bit patterns (0xFF bytes) so unwritten elements fail the check. */
int fb_poison(fb_tensor *t, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
