// long_rows_dev.cuh — what the long-row dev experiments share (looped_rows_dev.cu,
// layernorm_params_dev.cu): float4 loads with an L2 eviction hint, a CTA-wide sum, and the
// flushed event timer both time their kernels and the copy with.
#pragma once

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "../kernels/common.cuh"

#define CK(x)                                                                      \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__);    \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

__device__ __forceinline__ float4 ld_last(const float4 *p) {
    const int4 r = fb::load16_evict<fb::Evict::Last>(p);
    return *reinterpret_cast<const float4 *>(&r);
}
__device__ __forceinline__ float4 ld_first(const float4 *p) {
    const int4 r = fb::load16_evict<fb::Evict::First>(p);
    return *reinterpret_cast<const float4 *>(&r);
}
__device__ __forceinline__ float hsum(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// A CTA-wide sum: warp shuffles, a partial a warp through shared memory, one barrier.
__device__ inline float cta_sum(float a, float *sm) {
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    __syncthreads();  // the previous sum's readers are done with sm
    if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = a;
    __syncthreads();
    const int warps = blockDim.x >> 5;
    a = (int)(threadIdx.x & 31) < warps ? sm[threadIdx.x & 31] : 0.f;
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    return a;
}

// Reads every line of p[0, n) past L1 (nothing dirty left behind): the flush's sweep.
__global__ void sweep(const float4 *p, long n, float *sink) {
    float a = 0.f;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) a += hsum(__ldcg(p + i));
    if (a == 12345.f) *sink = a;
}

// Each sample: a read-only sweep of 256 MB (then a memset of it with `write`, as --flush write),
// then events around the launch; 33 samples, the first 3 discarded. time() returns the median
// and the p20 of the 30 in us.
struct FlushedTimer {
    bool write;
    int sms;
    float4 *fl = nullptr;
    float *sink = nullptr;
    cudaEvent_t e0, e1;
    static constexpr size_t kFlushBytes = 256ul << 20;
    FlushedTimer(bool write_flush, int sm_count) : write(write_flush), sms(sm_count) {
        CK(cudaMalloc(&fl, kFlushBytes));
        CK(cudaMalloc(&sink, 4));
        CK(cudaMemset(fl, 0, kFlushBytes));
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
    }
    template <class F> std::pair<float, float> time(F launch) {
        std::vector<float> t;
        for (int s = 0; s < 33; ++s) {
            sweep<<<sms * 8, 256>>>(fl, kFlushBytes / 16, sink);
            if (write) CK(cudaMemsetAsync(fl, 0, kFlushBytes));
            CK(cudaEventRecord(e0));
            launch();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (s >= 3) t.push_back(ms * 1e3f);
        }
        std::sort(t.begin(), t.end());
        return {t[t.size() / 2], t[t.size() / 5]};
    }
};

// The two layernorm harnesses' tensors (layernorm_params_dev.cu, reread_rows_dev.cu): maxrows rows
// of W float32 on the device with room past them for the copy's parameter bytes (the SOL moves x,
// y, w and b); x in [-2, 2) plus a per-row offset, w in [0.5, 1.5), b in [-0.5, 0.5), from one
// fixed LCG; the host keeps the first 8 rows of x (hx8) and w and b for the check.
struct LayerNormTensors {
    int W;
    float4 *x = nullptr, *y = nullptr, *w = nullptr, *b = nullptr;
    std::vector<float> hx8, hw, hb;
    LayerNormTensors(long maxrows, int W_) : W(W_), hx8((size_t)8 * W_), hw(W_), hb(W_) {
        const size_t maxbytes = (size_t)maxrows * W * 4;
        CK(cudaMalloc(&x, maxbytes + 2 * (size_t)W * 4));
        CK(cudaMalloc(&y, maxbytes + 2 * (size_t)W * 4));
        CK(cudaMalloc(&w, (size_t)W * 4));
        CK(cudaMalloc(&b, (size_t)W * 4));
        std::vector<float> hx((size_t)maxrows * W);
        uint32_t s = 12345u;
        auto next = [&s] {
            s = s * 1664525u + 1013904223u;
            return (s >> 8) * (1.f / 16777216.f);
        };
        for (size_t i = 0; i < hx.size(); ++i) hx[i] = 4.f * next() - 2.f + (float)((i / W) % 7);
        for (int c = 0; c < W; ++c) {
            hw[c] = 0.5f + next();
            hb[c] = next() - 0.5f;
        }
        CK(cudaMemcpy(x, hx.data(), maxbytes, cudaMemcpyHostToDevice));
        std::copy(hx.begin(), hx.begin() + hx8.size(), hx8.begin());
        CK(cudaMemcpy(w, hw.data(), (size_t)W * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(b, hb.data(), (size_t)W * 4, cudaMemcpyHostToDevice));
    }
    // max |got - want| / (1 + |want|) over y's first `rows` (<= 8) rows against float64 layernorm
    // (biased variance, eps); without params, want = (x - mean) * rstd
    double check(int rows, float eps, bool params) const {
        std::vector<float> got((size_t)rows * W);
        CK(cudaMemcpy(got.data(), y, got.size() * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (int r = 0; r < rows; ++r) {
            const float *xr = hx8.data() + (size_t)r * W;
            double m = 0, var = 0;
            for (int c = 0; c < W; ++c) m += xr[c];
            m /= W;
            for (int c = 0; c < W; ++c) var += (xr[c] - m) * (xr[c] - m);
            const double rstd = 1.0 / sqrt(var / W + eps);
            for (int c = 0; c < W; ++c) {
                const double h = (xr[c] - m) * rstd, want = params ? h * hw[c] + hb[c] : h;
                worst = std::max(worst, fabs(got[(size_t)r * W + c] - want) / (1 + fabs(want)));
            }
        }
        return worst;
    }
};
