// rowcopy_dev.cu — what costs a few-wave long-row kernel its bandwidth? (dev experiment, issue 6)
//
// Each kernel copies x -> y, one CTA of 1024 threads per row of W float32 (8 float4 per thread
// at W = 32768), in the shape of the row engine's kernels:
//   phased   load every unit of the row into registers, __syncthreads (where a reduction would
//            be), then store every unit: no load overlaps a store within an SM.
//   rotated  phased, but CTA b starts its units at chunk (b * 3) % U: rows that run at once
//            do not walk the same offsets (a test for HBM channel conflicts at 128 KB strides).
//   stream   load a unit, store it, next: what a plain copy does (no phase boundary).
//   hard     phased, but the barrier is a real row reduction: every thread sums its values (so it
//            waits for all its loads), the CTA reduces the sums, and each store depends on the
//            result. No store can start before the CTA's last load lands (round 5's model of the
//            row engine's few-wave misses: "phased" lets stores overlap the tail of the loads).
//   hard3    hard with three reductions in a row (norm_chain's count).
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 dev/rowcopy_dev.cu -o build-softmax/rowcopy_dev
// Each sample: a clean L2 (a read-only sweep of 256 MB), then events around the kernel; median of 30.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

constexpr int U = 8;  // float4 units per thread: W = 1024 * 4 * U = 32768

// A CTA-wide sum: warp shuffles, one partial per warp through shared memory, one barrier.
__device__ float cta_sum(float a, float *sm) {
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    __syncthreads();  // the previous reduction's readers are done with sm
    if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = a;
    __syncthreads();
    a = sm[threadIdx.x & 31];
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    return a;
}

template <int MODE>
__global__ void __launch_bounds__(1024, 1) row_copy(const float4 *__restrict__ x, float4 *__restrict__ y) {
    const long base = (long)blockIdx.x * 1024 * U;
    float4 v[U];
    if (MODE >= 3) {
        __shared__ float sm[32];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = x[base + threadIdx.x + u * 1024];
        float scale = 1.f;
        for (int r = 0; r < (MODE == 4 ? 3 : 1); ++r) {
            float a = 0.f;
#pragma unroll
            for (int u = 0; u < U; ++u) a += (v[u].x + v[u].y) + (v[u].z + v[u].w);
            // the data are zeros: the sum is 0 and scale stays 1, which the compiler cannot know
            scale *= cta_sum(a * scale, sm) == 12345.f ? 2.f : 1.f;
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
            y[base + threadIdx.x + u * 1024] = make_float4(v[u].x * scale, v[u].y * scale, v[u].z * scale, v[u].w * scale);
        return;
    }
    if (MODE == 2) {
#pragma unroll
        for (int u = 0; u < U; ++u) y[base + threadIdx.x + u * 1024] = x[base + threadIdx.x + u * 1024];
        return;
    }
    const int rot = MODE == 1 ? (blockIdx.x * 3) % U : 0;
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = x[base + threadIdx.x + ((u + rot) % U) * 1024];
    __syncthreads();
#pragma unroll
    for (int u = 0; u < U; ++u) y[base + threadIdx.x + ((u + rot) % U) * 1024] = v[u];
}

__global__ void sweep(const float4 *p, long n, float *sink) {
    float4 a = make_float4(0, 0, 0, 0);
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        float4 t = __ldcg(p + i);
        a.x += t.x; a.y += t.y; a.z += t.z; a.w += t.w;
    }
    if (a.x + a.y + a.z + a.w == 12345.f) *sink = a.x;
}

int main() {
    const long W = 1024L * 4 * U, maxrows = 2048;
    float4 *x, *y, *fl; float *sink;
    CK(cudaMalloc(&x, maxrows * W * 4)); CK(cudaMalloc(&y, maxrows * W * 4));
    const long fln = 256L << 20;
    CK(cudaMalloc(&fl, fln)); CK(cudaMalloc(&sink, 4));
    CK(cudaMemset(x, 0, maxrows * W * 4)); CK(cudaMemset(fl, 0, fln));
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    auto timeit = [&](auto launch) {
        std::vector<float> t;
        for (int s = 0; s < 33; ++s) {
            sweep<<<132 * 8, 256>>>(fl, fln / 16, sink);
            CK(cudaEventRecord(a)); launch(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
            float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (s >= 3) t.push_back(ms * 1e3f);
        }
        std::sort(t.begin(), t.end()); return t[t.size() / 2];
    };
    printf("W = %ld float32, 1024-thread CTAs, one row each; times in us (median of 30, clean L2)\n", W);
    printf("%6s %8s %8s %8s %8s %8s %8s %8s   %%copy: phased rotated stream hard hard3\n", "rows", "MB", "memcpy", "phased",
           "rotated", "stream", "hard", "hard3");
    for (long rows : {66L, 128L, 132L, 256L, 264L, 512L, 1024L, 2048L}) {
        const size_t bytes = rows * W * 4;
        float tc = timeit([&] { CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice)); });
        float t0 = timeit([&] { row_copy<0><<<rows, 1024>>>(x, y); });
        float t1 = timeit([&] { row_copy<1><<<rows, 1024>>>(x, y); });
        float t2 = timeit([&] { row_copy<2><<<rows, 1024>>>(x, y); });
        float t3 = timeit([&] { row_copy<3><<<rows, 1024>>>(x, y); });
        float t4 = timeit([&] { row_copy<4><<<rows, 1024>>>(x, y); });
        CK(cudaGetLastError());
        printf("%6ld %8.1f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f   %5.1f %5.1f %5.1f %5.1f %5.1f\n", rows, 2.0 * bytes / 1e6, tc,
               t0, t1, t2, t3, t4, 100 * tc / t0, 100 * tc / t1, 100 * tc / t2, 100 * tc / t3, 100 * tc / t4);
    }
    return 0;
}
