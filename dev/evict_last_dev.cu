// evict_last_dev.cu — does an L2 evict_last load survive the timer's flush? (dev experiment, issue 9)
//
// Inductor's looped reductions load their first pass with eviction_policy='evict_last' (PTX
// createpolicy.fractional.L2::evict_last + ld.L2::cache_hint). If such lines outlive a flush, the
// next sample of any kernel reading the same tensor starts with part of it in L2, and a
// do_bench-style timer reports that kernel faster than a cold read allows.
//
// x = 32 MB. Each sample: [mark x] -> flush -> [reset] -> time a plain read of x (events, median of 30).
//   cold             flush only: the reference
//   marked           x read with evict_last before the flush
//   marked+reset     ... and cudaCtxResetPersistingL2Cache() after the flush (host call, synchronous)
//   marked+demote    ... and the flush followed by applypriority.L2::evict_normal over x
//   marked+sweep_el  ... and a flush that reads the flush buffer with evict_last, then demotes it
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 dev/evict_last_dev.cu -o /tmp/evict_last_dev
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ __forceinline__ int4 ld_evict_last(const int4 *p) {
    uint64_t pol;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    int4 v;
    asm volatile("ld.global.L2::cache_hint.v4.s32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(pol));
    return v;
}
template <bool EL> __global__ void read_all(const int4 *p, long n, int *sink) {
    int acc = 0;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        const int4 v = EL ? ld_evict_last(p + i) : p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345678) *sink = acc;
}
// one thread per 128-byte line
__global__ void demote(const char *p, long bytes) {
    const long i = (blockIdx.x * (long)blockDim.x + threadIdx.x) * 128;
    if (i < bytes) asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(p + i));
}

int main() {
    const long xb = 32L << 20, fb = 256L << 20;
    int4 *x, *fl; int *sink;
    CK(cudaMalloc(&x, xb)); CK(cudaMalloc(&fl, fb)); CK(cudaMalloc(&sink, 4));
    CK(cudaMemset(x, 1, xb)); CK(cudaMemset(fl, 0, fb));
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    const int grid = 132 * 8;
    auto run = [&](const char *name, bool mark, int fix, bool write_flush) {
        std::vector<float> t;
        for (int s = 0; s < 33; ++s) {
            if (mark) read_all<true><<<grid, 256>>>(x, xb / 16, sink);
            if (fix == 3) {
                read_all<true><<<grid, 256>>>(fl, fb / 16, sink);  // the flush buffer takes the evict_last lines
                demote<<<(unsigned)((fb / 128 + 255) / 256), 256>>>((const char *)fl, fb);
            } else if (write_flush) {
                CK(cudaMemsetAsync(fl, 0, fb));
            } else {
                read_all<false><<<grid, 256>>>(fl, fb / 16, sink);
            }
            if (fix == 1) { CK(cudaDeviceSynchronize()); CK(cudaCtxResetPersistingL2Cache()); }
            if (fix == 2) demote<<<(unsigned)((xb / 128 + 255) / 256), 256>>>((const char *)x, xb);
            CK(cudaEventRecord(a)); read_all<false><<<grid, 256>>>(x, xb / 16, sink); CK(cudaEventRecord(b));
            CK(cudaEventSynchronize(b));
            float ms; CK(cudaEventElapsedTime(&ms, a, b));
            if (s >= 3) t.push_back(ms * 1000.f);
        }
        std::sort(t.begin(), t.end());
        printf("%-28s %s flush: median %7.2f us  (min %7.2f, max %7.2f)\n", name, write_flush ? "write" : "clean", t[t.size() / 2], t.front(), t.back());
    };
    for (bool w : {true, false}) {
        run("cold", false, 0, w);
        run("marked", true, 0, w);
        run("marked+reset", true, 1, w);
        run("marked+demote(x)", true, 2, w);
        run("marked+sweep_el+demote", true, 3, w);
        run("cold+sweep_el+demote", false, 3, w);
    }
    return 0;
}
