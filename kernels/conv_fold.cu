// conv_fold.cu — batch norm (inference form) folded into the convolution before it:
// conv_bn.fused's prepare step (kernels/conv_fused.c). Per output channel k,
// w'[k] = w[k]·γ_k/√(var_k+ε) and b'[k] = β_k − mean_k·γ_k/√(var_k+ε), so the timed run
// is one convolution with a bias epilogue instead of a convolution and a normalisation
// pass over its output. The fold is per-weights work, done once (as a deployed model
// folds its BN when it is exported), so it belongs outside the timed region.
//
// One grid-stride kernel over the weights; the first K threads also write the bias.
// Arithmetic in double and one rounding to the stored dtype: the folded weights then
// differ from the exact product by half an ulp of the dtype, the least any stored
// weights can.
#include "../src/device.h"
#include "common.cuh"
#include "conv_fold.h"

namespace {

template <typename T> __device__ __forceinline__ double to_double(T x) { return (double)fb::to_acc(x); }
__device__ __forceinline__ double to_double(double x) { return x; }

template <typename T> __device__ __forceinline__ T from_double(double x);
template <> __device__ __forceinline__ float from_double<float>(double x) { return (float)x; }
template <> __device__ __forceinline__ __half from_double<__half>(double x) { return __double2half(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_double<__nv_bfloat16>(double x) {
    return __double2bfloat16(x);
}
template <> __device__ __forceinline__ double from_double<double>(double x) { return x; }

template <typename T>
__global__ void fold_bn(const T *__restrict__ w, int64_t K, int64_t per_k, const T *__restrict__ mean,
                        const T *__restrict__ var, const T *__restrict__ gamma, const T *__restrict__ beta,
                        double eps, T *__restrict__ w_out, T *__restrict__ b_out)
{
    const int64_t n = K * per_k;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const int64_t k = i / per_k;
        const double scale = to_double(gamma[k]) / sqrt(to_double(var[k]) + eps);
        w_out[i] = from_double<T>(to_double(w[i]) * scale);
        if (i < K) {
            const double s = to_double(gamma[i]) / sqrt(to_double(var[i]) + eps);
            b_out[i] = from_double<T>(to_double(beta[i]) - to_double(mean[i]) * s);
        }
    }
}

} // namespace

extern "C" fb_status fb_conv_fold_bn(fb_dtype dt, const void *w, int64_t k, int64_t per_k, const void *mean,
                                     const void *var, const void *gamma, const void *beta, double eps, void *w_out,
                                     void *b_out, cudaStream_t stream)
{
    const int64_t n = k * per_k;
    if (n <= 0) return FB_OK;
    // b_out[i] is written at weight index i < K: every channel has per_k >= 1 weights,
    // so K <= n and the loop visits each such i once
    const int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535) blocks = 65535;
    bool launched = false;
    FB_DISPATCH(dt, T,
                fold_bn<T><<<(unsigned)blocks, threads, 0, stream>>>(
                    static_cast<const T *>(w), k, per_k, static_cast<const T *>(mean), static_cast<const T *>(var),
                    static_cast<const T *>(gamma), static_cast<const T *>(beta), eps, static_cast<T *>(w_out),
                    static_cast<T *>(b_out));
                launched = true);
    if (!launched) {
        fb_error("fb_conv_fold_bn: no kernel for %s", fb_dtype_name(dt));
        return FB_E_UNSUPPORTED;
    }
    return fb_cuda_status((int)cudaGetLastError(), "fold_bn<<<>>>", __FILE__, __LINE__);
}
