// matmul_matmul.cuh — what the back-to-back GEMM's two kernel files share: the launch
// parameters, and the sm_90a kernel's entry points (kernels/matmul_matmul_wgmma.cu), which
// matmul_matmul.cu's variants call. Internal to those two files.
#pragma once

#include <cuda_runtime.h>

#include "../src/fb.h"

namespace fb {
namespace mm2 {

struct Params {
    const void *A, *B, *C;
    void *E;        // the output, when splits == 1
    float *part;    // [splits][m_tiles * 128][KD] partial E, when splits > 1
    int M, N, K;
    int splits;
    int chunks_per_split;
    int n_chunks;
};

// What one CTA of either kernel owns under the plan: row tile blockIdx.x (BM rows from m0) and
// split blockIdx.y of N's chunks (n_my of them from c_begin; >= 1: the plan leaves no split
// empty), and, when N is split, its float32 partial tile [BM][KD] in the workspace.
template <int BM> struct CtaShare {
    long m0;
    int split, c_begin, n_my;
    __device__ __forceinline__ explicit CtaShare(const Params &p)
        : m0((long)blockIdx.x * BM), split((int)blockIdx.y), c_begin((int)blockIdx.y * p.chunks_per_split) {
        n_my = min(c_begin + p.chunks_per_split, p.n_chunks) - c_begin;
    }
    template <int KD> __device__ __forceinline__ float *partial(const Params &p) const {
        return p.part + ((size_t)split * gridDim.x * BM + m0) * KD;
    }
};

// The wgmma kernel's rows of A per CTA and columns of the intermediate per chunk.
constexpr int kWgmmaBM = 128, kWgmmaBN = 128;

// CTAs of the wgmma kernel for (dtype, KD = 64 or 128) resident on the GPU at once; sets the
// kernel's shared-memory attributes first. 0 if it cannot run here.
int wgmma_resident(fb_dtype dt, int kd);
// Launches the wgmma kernel on a grid of (m_tiles, p.splits) CTAs: E, or the partials when
// p.splits > 1 (the caller adds them). Rows 16-byte aligned (K, N multiples of 8).
cudaError_t wgmma_launch(fb_dtype dt, int kd, const Params &p, int m_tiles, cudaStream_t stream);

}  // namespace mm2
}  // namespace fb
