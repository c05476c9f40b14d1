/* conv_fold.h — batch norm folded into a convolution's weights and bias
 * (kernels/conv_fold.cu), for the fused conv_bn variant's prepare step. */
#ifndef FB_CONV_FOLD_H
#define FB_CONV_FOLD_H
#include "../src/fb.h"
#include <cuda_runtime_api.h>
#ifdef __cplusplus
extern "C" {
#endif
/* For output channel k of weights w [K, per_k] (KRSC: per_k = R·S·C/groups) and the
 * batch norm's mean, var, gamma, beta [K] (all of dtype dt, in device memory):
 *   scale_k = gamma_k / sqrt(var_k + eps)          (in double)
 *   w_out[k, :] = w[k, :] · scale_k                (rounded once to dt)
 *   b_out[k]    = beta_k − mean_k · scale_k
 * so that conv(x, w_out) + b_out = (conv(x, w) − mean)·gamma/sqrt(var + eps) + beta.
 * One launch on `stream`; returns the launch's status (FB_E_CUDA, FB_E_UNSUPPORTED for
 * a dtype without a kernel). */
fb_status fb_conv_fold_bn(fb_dtype dt, const void *w, int64_t k, int64_t per_k, const void *mean, const void *var,
                          const void *gamma, const void *beta, double eps, void *w_out, void *b_out,
                          cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
