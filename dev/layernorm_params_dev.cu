// layernorm_params_dev.cu — what layernorm's weight and bias cost a long row held in one CTA
// (dev experiment, written in stop 29 for the next device call; issue 6).
//
// The question. At W = 32768 float32 the engine holds a row in one 1024-thread CTA an SM (8
// float4 a thread). norm_chain's math in that plan runs at the copy on the H100 and the H200 from
// 1024 rows (stop 29, results/*/stop29/), but layernorm.fused runs 86-93% of the H100's copy at
// 512-2048 rows and is 3-17% behind torch.compile on the H200 (two modes). The one difference is
// the parameters: w and b, 256 KB a row, which neither the registers (64 a thread at 1024 threads,
// 32 of them the row) nor shared memory (227 KB a CTA) hold beside the row. The engine loads a
// unit's w and b after the previous unit's store (the compiler may not lift a load above a store
// it could alias), so each thread's output phase is 8 L2 round trips in a row, while its SM loads
// nothing from DRAM. Reading: those round trips, a few microseconds a row against 7-10 us of a
// row's DRAM time an SM, are the cost. Not measured.
//
// Kernels, layernorm in float32 (biased variance, eps 1e-5, mean and variance as two CTA sums
// over the held row, y = (x - mean) * rstd * w + b), one CTA of 1024 threads a row, the row in
// registers as the engine's K_ROW_SMEM plan holds it:
//   noparams   y = (x - mean) * rstd: the plan's floor (what norm_chain measured)
//   engine     w and b of each unit loaded after the previous unit's store (the engine's order)
//   ahead      w and b of unit u + 1 loaded before unit u's store (__restrict__ outputs, one unit
//              ahead by hand: 8 more registers, no serial round trip after the first)
//   wb_first   w and b of units 0..3 loaded before the reductions, of units 4..7 one ahead:
//              half of the round trips hidden under the row's own load and sums (spills if the
//              registers cannot hold them: the build prints ptxas' use with -Xptxas -v)
//   w_smem     w copied to shared memory by cp.async while the row loads (128 KB a CTA), b one
//              unit ahead from global: the weight's round trips off the output phase
//   twopass    (stop 31) Inductor's looped form: x read twice, the second time from L2; only the
//              sums cross the barriers. twopass_loose: the same at <= 32 registers, two CTAs an SM.
//              Run in stop 32 (H100, write flush, 512 / 1024 / 2048 rows, % of the copy):
//              twopass 88.6 / 93.0 / 96.1, twopass_loose 84.3 / 83.6 / 82.8, against ahead's
//              91.5 / 95.8 / 98.0: neither wins (NOTES.md, "Stop 32" section 4).
//   w_smem_shift16  w_smem with its shared weight 16 bytes past a 128-byte boundary, where every
//              engine kernel's dynamic shared memory began (after its static `part` array): stop
//              35 found this costs the whole kernel 25% (1024 rows: 74.0 -> 92.6 us)
//   w_smem_serial   w_smem with the engine's LayerNorm arithmetic (one serial chain a sum, the output
//              from the held x in the store loop): the same time as w_smem (stop 35)
//   fb_row_smem, fb_staged   the engine's own kernels (rowengine.cuh: row_smem_kernel with K = 0,
//              what layernorm.fused ran at W = 32768 before stop 35; row_staged_kernel, K_STAGED)
//              on this harness's tensors, through an Op that is kernels/layernorm.cu's LayerNorm
//   copy       cudaMemcpyAsync of the ideal bytes (x read, y written, w and b once): the SOL
// Prediction: engine well under noparams from 512 rows (the H100: layernorm.fused 86-93% at
// 512-2048 rows against norm_chain's 97-99%); ahead and w_smem close most of it; wb_first as
// ahead or worse if it spills.
//
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 --expt-relaxed-constexpr -Ikernels -Isrc
//        -Xptxas -v dev/layernorm_params_dev.cu -o /tmp/layernorm_params_dev
// Run:   /tmp/layernorm_params_dev [write]   (write: dirty the L2 after the sweep, as --flush write)
// Beside it in the same call: fusionbench run --case layernorm --dtype float32 --flush write
//   --dim1 32768 --dim0 128:8192 --variants layernorm.fused --baseline layernorm.fused (the engine).
// Each sample: a read-only sweep of 256 MB (then a memset of it with `write`), then events around
// the kernel; median of 30 after 3 discarded, printed as "median (% of the copy) median / p20":
// layernorm.fused's samples at W = 32768 on the H200 fell in two modes (stop 29, call 6: 8192
// rows p20 598.9 us, median 675.6), so a ratio well over 1 marks a form that has them.
// Every kernel is checked on 8 rows against float64.
#include <math.h>
#include <string.h>

#include "long_rows_dev.cuh"
#include "../kernels/layernorm.h"
#include "../kernels/rowengine.cuh"
#include "../kernels/layernorm_op.cuh"

// The engine's own kernels on this harness's tensors, through kernels/layernorm.cu's own Op (stop
// 35: they showed that the engine's staged kernel lost to w_smem by its shared area's alignment,
// not by anything else the engine does).
using EngineLayerNorm = fb::rowwise::LayerNorm;

constexpr int W = 32768;   // float32 elements a row
constexpr int W4 = W / 4;  // float4 units a row
constexpr int T = 1024;    // threads a CTA
constexpr int U = W4 / T;  // units a thread (8)
constexpr float kEps = 1e-5f;

// Loads the row and leaves v[u] = (x - mean) * rstd.
__device__ __forceinline__ void normalise(const float4 *__restrict__ xr, float4 (&v)[U], float *sm) {
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = ld_last(xr + threadIdx.x + u * T);
    float a = 0.f;
#pragma unroll
    for (int u = 0; u < U; ++u) a += hsum(v[u]);
    const float mean = cta_sum(a, sm) * (1.f / W);
    a = 0.f;
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const float4 d = make_float4(v[u].x - mean, v[u].y - mean, v[u].z - mean, v[u].w - mean);
        a += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
    }
    const float rstd = rsqrtf(cta_sum(a, sm) * (1.f / W) + kEps);
#pragma unroll
    for (int u = 0; u < U; ++u)
        v[u] = make_float4((v[u].x - mean) * rstd, (v[u].y - mean) * rstd, (v[u].z - mean) * rstd, (v[u].w - mean) * rstd);
}

__device__ __forceinline__ float4 affine(float4 h, float4 w, float4 b) {
    return make_float4(h.x * w.x + b.x, h.y * w.y + b.y, h.z * w.z + b.z, h.w * w.w + b.w);
}

__global__ void __launch_bounds__(T, 1) k_noparams(const float4 *x, float4 *y, const float4 *, const float4 *) {
    __shared__ float sm[32];
    const long base = (long)blockIdx.x * W4;
    float4 v[U];
    normalise(x + base, v, sm);
#pragma unroll
    for (int u = 0; u < U; ++u) __stcs(y + base + threadIdx.x + u * T, v[u]);
}

// The engine's order: y may alias w and b as far as the compiler knows, so each unit's loads wait
// for the previous unit's store.
__global__ void __launch_bounds__(T, 1) k_engine(const float4 *x, float4 *y, const float4 *w, const float4 *b) {
    __shared__ float sm[32];
    const long base = (long)blockIdx.x * W4;
    float4 v[U];
    normalise(x + base, v, sm);
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const int c = threadIdx.x + u * T;
        __stcs(y + base + c, affine(v[u], w[c], b[c]));
    }
}

// Stores units [U0, U) of the row, y = h * w + b, loading unit u + 1's w and b before unit u's
// store (ahead and the second half of wb_first).
template <int U0>
__device__ __forceinline__ void store_one_ahead(const float4 (&v)[U], float4 *__restrict__ yr, const float4 *__restrict__ w,
                                                const float4 *__restrict__ b) {
    float4 wn = w[threadIdx.x + U0 * T], bn = b[threadIdx.x + U0 * T];
#pragma unroll
    for (int u = U0; u < U; ++u) {
        const float4 wc = wn, bc = bn;
        if (u + 1 < U) {
            wn = w[threadIdx.x + (u + 1) * T];
            bn = b[threadIdx.x + (u + 1) * T];
        }
        __stcs(yr + threadIdx.x + u * T, affine(v[u], wc, bc));
    }
}

__global__ void __launch_bounds__(T, 1) k_ahead(const float4 *__restrict__ x, float4 *__restrict__ y,
                                                const float4 *__restrict__ w, const float4 *__restrict__ b) {
    __shared__ float sm[32];
    const long base = (long)blockIdx.x * W4;
    float4 v[U];
    normalise(x + base, v, sm);
    store_one_ahead<0>(v, y + base, w, b);
}

__global__ void __launch_bounds__(T, 1) k_wb_first(const float4 *__restrict__ x, float4 *__restrict__ y,
                                                   const float4 *__restrict__ w, const float4 *__restrict__ b) {
    __shared__ float sm[32];
    const long base = (long)blockIdx.x * W4;
    constexpr int H = U / 2;
    float4 wf[H], bf[H];
#pragma unroll
    for (int u = 0; u < H; ++u) {
        wf[u] = w[threadIdx.x + u * T];
        bf[u] = b[threadIdx.x + u * T];
    }
    float4 v[U];
    normalise(x + base, v, sm);
#pragma unroll
    for (int u = 0; u < H; ++u) __stcs(y + base + threadIdx.x + u * T, affine(v[u], wf[u], bf[u]));
    store_one_ahead<H>(v, y + base, w, b);
}

// w into shared memory by cp.async (16 bytes a thread and unit) before the row's loads; the copy
// lands while the row loads and the sums run. Each thread reads back only what it copied, so a
// thread's own cp.async.wait_all is all the ordering it needs.
// This thread's units of w into shared memory, one commit group: w_smem's copies. Not
// fb::cp_async16 / cp_async_commit: their "memory" clobber reorders these kernels' SASS, and
// this is the code stop 35 measured (74.0 us aligned, 92.6 shifted 16 bytes).
__device__ __forceinline__ void stage_weight(float4 *ws, const float4 *__restrict__ w) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const int c = threadIdx.x + u * T;
        const unsigned dst = (unsigned)__cvta_generic_to_shared(ws + c);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(w + c));
    }
    asm volatile("cp.async.commit_group;");
}

template <int SHIFT16>
__global__ void __launch_bounds__(T, 1) k_w_smem_t(const float4 *__restrict__ x, float4 *__restrict__ y,
                                                   const float4 *__restrict__ w, const float4 *__restrict__ b) {
    extern __shared__ float4 ws_[];  // W4 float4: 128 KB (+ SHIFT16 float4)
    float4 *const ws = ws_ + SHIFT16;
    __shared__ float sm[32];
    const long base = (long)blockIdx.x * W4;
    stage_weight(ws, w);
    float4 v[U];
    normalise(x + base, v, sm);
    asm volatile("cp.async.wait_all;" ::: "memory");
    float4 bn = b[threadIdx.x];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const float4 bc = bn;
        if (u + 1 < U) bn = b[threadIdx.x + (u + 1) * T];
        __stcs(y + base + threadIdx.x + u * T, affine(v[u], ws[threadIdx.x + u * T], bc));
    }
}

// w_smem with the engine's LayerNorm arithmetic: one serial chain per sum, the output computed
// from the held x in the store loop (what EngineLayerNorm does), nothing else changed.
__global__ void __launch_bounds__(T, 1) k_w_smem_serial(const float4 *__restrict__ x, float4 *__restrict__ y,
                                                        const float4 *__restrict__ w, const float4 *__restrict__ b) {
    extern __shared__ float4 ws[];
    __shared__ float sm[32];
    const long base = (long)blockIdx.x * W4;
    stage_weight(ws, w);
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = ld_last(x + base + threadIdx.x + u * T);
    float a = 0.f;
#pragma unroll
    for (int u = 0; u < U; ++u) a = (((a + v[u].x) + v[u].y) + v[u].z) + v[u].w;
    const float mean = cta_sum(a, sm) * (1.f / W);
    a = 0.f;
#pragma unroll
    for (int u = 0; u < U; ++u) {
        a = fmaf(v[u].x - mean, v[u].x - mean, a);
        a = fmaf(v[u].y - mean, v[u].y - mean, a);
        a = fmaf(v[u].z - mean, v[u].z - mean, a);
        a = fmaf(v[u].w - mean, v[u].w - mean, a);
    }
    const float rstd = rsqrtf(cta_sum(a, sm) * (1.f / W) + kEps);
    asm volatile("cp.async.wait_all;" ::: "memory");
    float4 bn = b[threadIdx.x];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const float4 bc = bn;
        if (u + 1 < U) bn = b[threadIdx.x + (u + 1) * T];
        const float4 wc = ws[threadIdx.x + u * T];
        const float4 o = make_float4(fmaf((v[u].x - mean) * rstd, wc.x, bc.x), fmaf((v[u].y - mean) * rstd, wc.y, bc.y),
                                     fmaf((v[u].z - mean) * rstd, wc.z, bc.z), fmaf((v[u].w - mean) * rstd, wc.w, bc.w));
        __stcs(y + base + threadIdx.x + u * T, o);
    }
}

// Inductor's looped form (stop 31, call 3: triton_red_fused_native_layer_norm_0 at 1024 x 32768, one
// row a CTA of 1024 threads, 64 registers): pass 1 reads x with L2 evict_last and sums, pass 2
// reads x again (an L2 hit, evict_first) with w and b and stores. Nothing of the row is held across
// the barriers, only two sums. The sums are shifted by the row's first element (one broadcast
// load) so that the variance from sum and sum of squares does not cancel (rows here carry an
// offset of up to 6 on a spread of ~1.2). Under ncu, Triton's kernel stalled 17 cycles an issued
// instruction against the engine's 28, at parity in time there and 3-8% ahead under the timer.
// LOOSE: 2 units a thread a step in both passes (`#pragma unroll 2`) and __launch_bounds__(T, 2):
// at most 32 registers, two rows in flight an SM (one CTA's barriers under the other's loads).
template <bool LOOSE>
__global__ void __launch_bounds__(T, LOOSE ? 2 : 1) k_twopass(const float4 *__restrict__ x, float4 *__restrict__ y,
                                                              const float4 *__restrict__ w,
                                                              const float4 *__restrict__ b) {
    __shared__ float sm[32];
    const long base = (long)blockIdx.x * W4;
    const float4 *xr = x + base;
    const float shift = reinterpret_cast<const float *>(xr)[0];
    float a = 0.f, q = 0.f;
#pragma unroll(LOOSE ? 2 : U)
    for (int u = 0; u < U; ++u) {
        const float4 v = ld_last(xr + threadIdx.x + u * T);
        const float4 d = make_float4(v.x - shift, v.y - shift, v.z - shift, v.w - shift);
        a += hsum(d);
        q += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
    }
    const float ms = cta_sum(a, sm) * (1.f / W);  // mean - shift
    const float var = fmaxf(cta_sum(q, sm) * (1.f / W) - ms * ms, 0.f);
    const float mean = shift + ms, rstd = rsqrtf(var + kEps);
#pragma unroll(LOOSE ? 2 : U)
    for (int u = 0; u < U; ++u) {
        const int c = threadIdx.x + u * T;
        const float4 v = ld_first(xr + c);
        const float4 h = make_float4((v.x - mean) * rstd, (v.y - mean) * rstd, (v.z - mean) * rstd, (v.w - mean) * rstd);
        __stcs(y + base + c, affine(h, w[c], b[c]));
    }
}

int main(int argc, char **argv) {
    const bool write_flush = argc > 1 && !strcmp(argv[1], "write");
    LayerNormTensors t(8192, W);
    float4 *const x = t.x, *const y = t.y, *const w = t.w, *const b = t.b;

    struct Form {
        const char *name;
        void (*kernel)(const float4 *, float4 *, const float4 *, const float4 *);
        size_t smem;
        bool params;
    };
    const Form forms[] = {{"noparams", k_noparams, 0, false}, {"engine", k_engine, 0, true},
                          {"ahead", k_ahead, 0, true},        {"wb_first", k_wb_first, 0, true},
                          {"w_smem", k_w_smem_t<0>, W4 * 16, true}, {"w_smem_shift16", k_w_smem_t<1>, W4 * 16 + 16, true},
                          {"w_smem_serial", k_w_smem_serial, W4 * 16, true},
                          {"twopass", k_twopass<false>, 0, true},
                          {"twopass_loose", k_twopass<true>, 0, true}};
    CK(cudaFuncSetAttribute(k_w_smem_t<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, W4 * 16));
    CK(cudaFuncSetAttribute(k_w_smem_t<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, W4 * 16 + 16));
    CK(cudaFuncSetAttribute(k_w_smem_serial, cudaFuncAttributeMaxDynamicSharedMemorySize, W4 * 16));
    auto fb_args = [&] {
        fb::rowwise::Args<float> a = {};
        a.in[0] = (const float *)x;
        a.param[0] = (const float *)w;
        a.param[1] = (const float *)b;
        a.out = (float *)y;
        return a;
    };
    auto fb_smem_k = fb::rowwise::row_smem_kernel<EngineLayerNorm, float, U>;
    auto fb_staged_k = fb::rowwise::row_staged_kernel<EngineLayerNorm, float, U, T>;
    CK(cudaFuncSetAttribute(fb_staged_k, cudaFuncAttributeMaxDynamicSharedMemorySize, W4 * 16));
    struct FbForm {
        const char *name;
        int which;
    };
    const FbForm fb_forms[] = {{"fb_row_smem", 0}, {"fb_staged", 1}};
    auto fb_launch = [&](int which, long rows) {
        const auto a = fb_args();
        if (which == 0) fb_smem_k<<<rows, T, 0>>>(a, (long)W, 0);
        else fb_staged_k<<<rows, T, W4 * 16>>>(a, (long)W);
    };

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    FlushedTimer timer(write_flush, prop.multiProcessorCount);
    auto timeit = [&](auto launch) { return timer.time(launch); };  // median, p20

    printf("%s, %d SMs; layernorm W = %d float32, one 1024-thread CTA a row; flush: %s; median us of 30 (%% of the copy) median/p20\n",
           prop.name, prop.multiProcessorCount, W, write_flush ? "write" : "clean");
    printf("check (max |got - want| / (1 + |want|) over 8 rows against float64):");
    for (const Form &f : forms) {
        CK(cudaMemset(y, 0, (size_t)8 * W * 4));
        f.kernel<<<8, T, f.smem>>>(x, y, w, b);
        CK(cudaGetLastError());
        printf(" %s %.2e", f.name, t.check(8, kEps, f.params));
    }
    for (const FbForm &f : fb_forms) {
        CK(cudaMemset(y, 0, (size_t)8 * W * 4));
        fb_launch(f.which, 8);
        CK(cudaGetLastError());
        printf(" %s %.2e", f.name, t.check(8, kEps, true));
    }
    printf("\n%6s %8s %9s", "rows", "MB", "copy");
    for (const Form &f : forms) printf(" %22s", f.name);
    for (const FbForm &f : fb_forms) printf(" %22s", f.name);
    printf("\n");
    for (long rows : {128L, 256L, 512L, 1024L, 2048L, 4096L, 8192L}) {
        const size_t bytes = (size_t)rows * W * 4;
        const float tc = timeit([&] { CK(cudaMemcpyAsync(y, x, bytes + 2 * W * 4, cudaMemcpyDeviceToDevice)); }).first;
        printf("%6ld %8.1f %9.1f", rows, (2.0 * bytes + 2.0 * W * 4) / 1e6, tc);
        for (const Form &f : forms) {
            const auto t = timeit([&] { f.kernel<<<rows, T, f.smem>>>(x, y, w, b); });
            printf(" %9.1f (%4.1f) %5.3f", t.first, 100 * tc / t.first, t.first / t.second);
        }
        for (const FbForm &f : fb_forms) {
            const auto t = timeit([&] { fb_launch(f.which, rows); });
            printf(" %9.1f (%4.1f) %5.3f", t.first, 100 * tc / t.first, t.first / t.second);
        }
        printf("\n");
        CK(cudaGetLastError());
    }
    return 0;
}
