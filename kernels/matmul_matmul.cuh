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
