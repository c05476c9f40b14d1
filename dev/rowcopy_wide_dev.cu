// rowcopy_wide_dev.cu — the ceiling of a one-row-an-SM kernel at float32 W = 65536 (dev experiment,
// issue 6; kernels/NOTES.md "Stop 45", Next). rowcopy_dev.cu's question at row_smem's geometry.
//
// A float32 row of 65536 is 256 KB: one SM holds one (256 KB of registers, 228 KB of shared
// memory), so the row engine's K_ROW_SMEM runs one 1024-thread CTA a row, 8 float4 a thread in
// registers and 8 in shared memory, and every reduction is a barrier no store may pass. Each
// kernel here copies x -> y in exactly that shape, with no arithmetic worth the name:
//   stream   load a unit, store it, next (the registers and shared memory unused): a copy's pace
//   hard1    the whole row in (registers + shared memory by cp.async), one CTA sum, then the stores
//   hard2    two sums in a row (layernorm's mean and variance)
//   hard3    three (norm_chain's)
//   hard2p   hard2, and every stored unit also reads two 16-byte parameters from L2 (layernorm's
//            weight and bias: 512 KB of L2 reads a row)
// If hard2 sits at row_smem layernorm's 79-83% of the copy, the one-row-an-SM shape is the
// ceiling (and issue 6's 90% at W = 65536 needs another shape); hard2p - hard2 is what the
// parameters cost; hard2 - hard1 what a barrier costs.
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 dev/rowcopy_wide_dev.cu -o rowcopy_wide
// Each sample: a clean L2 (a read-only sweep of 256 MB), then events around the kernel; median of 30.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CK(x)                                                                     \
    do {                                                                          \
        cudaError_t e_ = (x);                                                     \
        if (e_ != cudaSuccess) {                                                  \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                       \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

constexpr int T = 1024, UR = 8, US = 8;  // float4 units a thread: UR in registers, US in shared memory
constexpr long W4 = (long)T * (UR + US);  // float4 units a row: W = 65536 float32
constexpr size_t SMEM = (size_t)T * US * 16;

__device__ float cta_sum(float a, float *sm) {
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = a;
    __syncthreads();
    a = sm[threadIdx.x & 31];
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    return a;
}

__device__ __forceinline__ void cp_async16(void *dst, const void *src) {
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src));
}

template <int NSUM, bool PARAMS>
__device__ __forceinline__ void row_copy_held(const float4 *__restrict__ x, float4 *__restrict__ y,
                                              const float4 *__restrict__ w, const float4 *__restrict__ b, long base);

// NSUM: the barriers (0: stream); PARAMS: read w and b for every stored unit
template <int NSUM, bool PARAMS>
__global__ void __launch_bounds__(T, 1) row_copy(const float4 *__restrict__ x, float4 *__restrict__ y,
                                                  const float4 *__restrict__ w, const float4 *__restrict__ b) {
    const long base = (long)blockIdx.x * W4;
    if constexpr (NSUM == 0) {
        for (int u = 0; u < UR + US; ++u) y[base + threadIdx.x + (long)u * T] = x[base + threadIdx.x + (long)u * T];
    } else {
        row_copy_held<NSUM, PARAMS>(x, y, w, b, base);
    }
}

// hard1..3, hard2p: the row held (registers + shared memory) through NSUM CTA sums, then stored
template <int NSUM, bool PARAMS>
__device__ __forceinline__ void row_copy_held(const float4 *__restrict__ x, float4 *__restrict__ y,
                                              const float4 *__restrict__ w, const float4 *__restrict__ b, long base) {
    extern __shared__ float4 sm_row[];
    __shared__ float part[32];
    // the shared part first, by cp.async (in flight while the register part loads), as row_smem
#pragma unroll
    for (int k = 0; k < US; ++k) cp_async16(&sm_row[k * T + threadIdx.x], &x[base + (long)(UR + k) * T + threadIdx.x]);
    asm volatile("cp.async.commit_group;" ::: "memory");
    float4 v[UR];
#pragma unroll
    for (int u = 0; u < UR; ++u) v[u] = x[base + threadIdx.x + (long)u * T];
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    float scale = 1.f;
    for (int r = 0; r < NSUM; ++r) {
        float a = 0.f;
#pragma unroll
        for (int u = 0; u < UR; ++u) a += (v[u].x + v[u].y) + (v[u].z + v[u].w);
#pragma unroll
        for (int k = 0; k < US; ++k) {
            const float4 t = sm_row[k * T + threadIdx.x];
            a += (t.x + t.y) + (t.z + t.w);
        }
        // the data are zeros: the sum is 0 and scale stays 1, which the compiler cannot know
        scale *= cta_sum(a * scale, part) == 12345.f ? 2.f : 1.f;
    }
    auto out = [&](float4 t, long i) {
        if (PARAMS) {
            const long c = i - base;
            const float4 p = w[c], q = b[c];
            t = make_float4(t.x * p.x + q.x, t.y * p.y + q.y, t.z * p.z + q.z, t.w * p.w + q.w);
        }
        y[i] = make_float4(t.x * scale, t.y * scale, t.z * scale, t.w * scale);
    };
#pragma unroll
    for (int u = 0; u < UR; ++u) out(v[u], base + threadIdx.x + (long)u * T);
#pragma unroll 4
    for (int k = 0; k < US; ++k) out(sm_row[k * T + threadIdx.x], base + (long)(UR + k) * T + threadIdx.x);
}

__global__ void sweep(const float4 *p, long n, float *sink) {
    float4 a = make_float4(0, 0, 0, 0);
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        float4 t = __ldcg(p + i);
        a.x += t.x;
        a.y += t.y;
        a.z += t.z;
        a.w += t.w;
    }
    if (a.x + a.y + a.z + a.w == 12345.f) *sink = a.x;
}

int main() {
    const long maxrows = 8192;
    float4 *x, *y, *w, *b, *fl;
    float *sink;
    CK(cudaMalloc(&x, maxrows * W4 * 16));
    CK(cudaMalloc(&y, maxrows * W4 * 16));
    CK(cudaMalloc(&w, W4 * 16));
    CK(cudaMalloc(&b, W4 * 16));
    const long fln = 256L << 20;
    CK(cudaMalloc(&fl, fln));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMemset(x, 0, maxrows * W4 * 16));
    CK(cudaMemset(w, 0, W4 * 16));
    CK(cudaMemset(b, 0, W4 * 16));
    CK(cudaMemset(fl, 0, fln));
    for (auto k : {row_copy<1, false>, row_copy<2, false>, row_copy<3, false>, row_copy<2, true>})
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    cudaEvent_t ea, eb;
    CK(cudaEventCreate(&ea));
    CK(cudaEventCreate(&eb));
    auto timeit = [&](auto launch) {
        std::vector<float> t;
        for (int s = 0; s < 33; ++s) {
            sweep<<<132 * 8, 256>>>(fl, fln / 16, sink);
            CK(cudaEventRecord(ea));
            launch();
            CK(cudaEventRecord(eb));
            CK(cudaEventSynchronize(eb));
            float ms;
            CK(cudaEventElapsedTime(&ms, ea, eb));
            if (s >= 3) t.push_back(ms * 1e3f);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    };
    printf("W = %ld float32, 1024-thread CTAs, one row each (8 float4 a thread in registers, 8 in shared memory);\n"
           "times in us (median of 30, clean L2); %% of the memcpy of the same bytes\n",
           W4 * 4);
    printf("%6s %8s %9s %9s %9s %9s %9s %9s   %%copy: stream hard1 hard2 hard3 hard2p\n", "rows", "MB", "memcpy",
           "stream", "hard1", "hard2", "hard3", "hard2p");
    for (long rows : {128L, 256L, 512L, 1024L, 2048L, 4096L, 8192L}) {
        const size_t bytes = rows * W4 * 16;
        const float tc = timeit([&] { CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice)); });
        const float t0 = timeit([&] { row_copy<0, false><<<rows, T>>>(x, y, w, b); });
        const float t1 = timeit([&] { row_copy<1, false><<<rows, T, SMEM>>>(x, y, w, b); });
        const float t2 = timeit([&] { row_copy<2, false><<<rows, T, SMEM>>>(x, y, w, b); });
        const float t3 = timeit([&] { row_copy<3, false><<<rows, T, SMEM>>>(x, y, w, b); });
        const float t4 = timeit([&] { row_copy<2, true><<<rows, T, SMEM>>>(x, y, w, b); });
        CK(cudaGetLastError());
        printf("%6ld %8.1f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f   %5.1f %5.1f %5.1f %5.1f %5.1f\n", rows, 2.0 * bytes / 1e6,
               tc, t0, t1, t2, t3, t4, 100 * tc / t0, 100 * tc / t1, 100 * tc / t2, 100 * tc / t3, 100 * tc / t4);
    }
    return 0;
}
