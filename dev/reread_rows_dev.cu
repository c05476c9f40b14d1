// reread_rows_dev.cu — layernorm float32 at W = 65536 (256 KB rows): the engine's K_ROW_SMEM plan
// against forms that hold nothing and read the row twice, the second time from L2 (dev experiment,
// stop 36; issue 6).
//
// The question. On the H200 every row-engine case runs its float32 W = 65536 cells at 66-90% of
// the copy (layernorm 72-83%, norm_chain 72-90%, double_softmax 66-89%), where rows of 32768 held
// in registers run 99-100% from 4096 rows (K_STAGED). At W = 65536 the plan is row_smem: one
// 1024-thread CTA an SM, half the row in registers and half in shared memory, so an SM has one row
// in flight and nothing else to do while it reduces and stores. A form that holds nothing frees the
// SM for a second row, at the price of a second read of the row, from L2 if it is still there
// (rows in flight x 256 KB against 60 MB of L2: about one row an SM).
//
// Forms (layernorm, biased variance, eps 1e-5, y = (x - mean) * rstd * w + b):
//   fb_row_smem      the engine's kernel as layernorm.fused runs it (row_smem_kernel, 8 units a
//                    thread in registers, 8 in shared memory)
//   reread<T, B>     one CTA of T threads a row, B CTAs an SM (__launch_bounds__(T, B)): pass 1
//                    reads x (evict_last) for the shifted sum and sum of squares, one CTA
//                    reduction of both; pass 2 reads x again (evict_first), w and b, stores y
//   copy             cudaMemcpyAsync of the ideal bytes
// Prediction: reread<1024, 1> about as row_smem (one row an SM either way); reread<512, 2> ahead
// where two rows an SM still fit L2 (264 x 256 KB = 67 MB: some of the second reads miss).
//
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 --expt-relaxed-constexpr -Ikernels -Isrc
//        dev/reread_rows_dev.cu -o /tmp/reread_rows_dev
// Run:   /tmp/reread_rows_dev [write]
#include <math.h>
#include <string.h>

#include "long_rows_dev.cuh"
#include "../kernels/layernorm.h"
#include "../kernels/rowengine.cuh"
#include "../kernels/layernorm_op.cuh"

constexpr int W = 65536;
constexpr int W4 = W / 4;
constexpr float kEps = 1e-5f;

__device__ __forceinline__ float4 affine(float4 h, float4 w, float4 b) {
    return make_float4(h.x * w.x + b.x, h.y * w.y + b.y, h.z * w.z + b.z, h.w * w.w + b.w);
}

// both sums in one reduction: shuffles, a float2 a warp through shared memory, one barrier
__device__ __forceinline__ float2 cta_sum2(float a, float q, float2 *sm) {
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        q += __shfl_xor_sync(0xffffffffu, q, o);
    }
    if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = make_float2(a, q);
    __syncthreads();
    const int warps = blockDim.x >> 5;
    float2 s = (int)(threadIdx.x & 31) < warps ? sm[threadIdx.x & 31] : make_float2(0.f, 0.f);
    for (int o = 16; o > 0; o >>= 1) {
        s.x += __shfl_xor_sync(0xffffffffu, s.x, o);
        s.y += __shfl_xor_sync(0xffffffffu, s.y, o);
    }
    return s;
}

template <int T, int B>
__global__ void __launch_bounds__(T, B) k_reread(const float4 *__restrict__ x, float4 *__restrict__ y,
                                                 const float4 *__restrict__ w, const float4 *__restrict__ b) {
    constexpr int U = W4 / T;
    __shared__ float2 sm[32];
    const long base = (long)blockIdx.x * W4;
    const float4 *xr = x + base;
    const float shift = reinterpret_cast<const float *>(xr)[0];
    float a = 0.f, q = 0.f;
#pragma unroll 8
    for (int u = 0; u < U; ++u) {
        const float4 v = ld_last(xr + threadIdx.x + u * T);
        const float4 d = make_float4(v.x - shift, v.y - shift, v.z - shift, v.w - shift);
        a += hsum(d);
        q += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
    }
    const float2 s = cta_sum2(a, q, sm);
    const float ms = s.x * (1.f / W);
    const float var = fmaxf(s.y * (1.f / W) - ms * ms, 0.f);
    const float mean = shift + ms, rstd = rsqrtf(var + kEps);
#pragma unroll 8
    for (int u = 0; u < U; ++u) {
        const int c = threadIdx.x + u * T;
        const float4 v = ld_first(xr + c);
        const float4 h = make_float4((v.x - mean) * rstd, (v.y - mean) * rstd, (v.z - mean) * rstd, (v.w - mean) * rstd);
        __stcs(y + base + c, affine(h, __ldg(w + c), __ldg(b + c)));
    }
}

int main(int argc, char **argv) {
    const bool write_flush = argc > 1 && !strcmp(argv[1], "write");
    LayerNormTensors t(8192, W);
    float4 *const x = t.x, *const y = t.y, *const w = t.w, *const b = t.b;
    fb::rowwise::Args<float> fa = {};
    fa.in[0] = (const float *)x;
    fa.param[0] = (const float *)w;
    fa.param[1] = (const float *)b;
    fa.out = (float *)y;
    auto smem_k = fb::rowwise::row_smem_kernel<fb::rowwise::LayerNorm, float, 8>;
    const int smem_bytes = 8 * 1024 * 16;  // K = 8 units of 16 bytes a thread
    CK(cudaFuncSetAttribute(smem_k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));

    struct Form {
        const char *name;
        void (*kernel)(const float4 *, float4 *, const float4 *, const float4 *);
        int threads;
    };
    const Form forms[] = {{"reread1024x1", k_reread<1024, 1>, 1024},
                          {"reread512x2", k_reread<512, 2>, 512},
                          {"reread256x4", k_reread<256, 4>, 256}};
    auto launch_fb = [&](long rows) { smem_k<<<rows, 1024, smem_bytes>>>(fa, (long)W, 8); };

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    FlushedTimer timer(write_flush, prop.multiProcessorCount);
    printf("%s, %d SMs, %.0f MB L2; layernorm W = %d float32; flush: %s; median us of 30 (%% of the copy) median/p20\n",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6, W, write_flush ? "write" : "clean");
    printf("check (max |got - want| / (1 + |want|), 8 rows, against float64):");
    CK(cudaMemset(y, 0, (size_t)8 * W * 4));
    launch_fb(8);
    CK(cudaGetLastError());
    printf(" fb_row_smem %.2e", t.check(8, kEps, true));
    for (const Form &f : forms) {
        CK(cudaMemset(y, 0, (size_t)8 * W * 4));
        f.kernel<<<8, f.threads>>>(x, y, w, b);
        CK(cudaGetLastError());
        printf(" %s %.2e", f.name, t.check(8, kEps, true));
    }
    printf("\n%6s %8s %9s %22s", "rows", "MB", "copy", "fb_row_smem");
    for (const Form &f : forms) printf(" %22s", f.name);
    printf("\n");
    for (long rows : {128L, 256L, 512L, 1024L, 2048L, 4096L, 8192L}) {
        const size_t bytes = (size_t)rows * W * 4;
        const float tc = timer.time([&] { CK(cudaMemcpyAsync(y, x, bytes + 2 * W * 4, cudaMemcpyDeviceToDevice)); }).first;
        printf("%6ld %8.1f %9.1f", rows, (2.0 * bytes + 2.0 * W * 4) / 1e6, tc);
        auto t = timer.time([&] { launch_fb(rows); });
        printf(" %9.1f (%4.1f) %5.3f", t.first, 100 * tc / t.first, t.first / t.second);
        for (const Form &f : forms) {
            t = timer.time([&] { f.kernel<<<rows, f.threads>>>(x, y, w, b); });
            printf(" %9.1f (%4.1f) %5.3f", t.first, 100 * tc / t.first, t.first / t.second);
        }
        printf("\n");
        CK(cudaGetLastError());
    }
    return 0;
}
