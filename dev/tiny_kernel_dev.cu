// tiny_kernel_dev.cu — what a tiny fused kernel pays beyond its bytes under the timer's flush (dev
// experiment, issues 6 and 9).
//
// On the smallest cells (rmsnorm [4, 128, 32]: 64 KB in, 64 KB out) rmsnorm.fused times ~0.5 us
// slower than torch.compile's Triton kernel and than the copy of the same bytes, on a ~5 us sample
// (3 of it the events). Suspects, each timed here the way bench.c times (clean sweep of 256 MiB,
// start event, run, end event; median of 400 samples):
//   code      the sweep evicts the kernel's instructions from L2 too, so a kernel whose executed
//             code is large pays instruction fetches from DRAM; Triton's kernels are short
//   smem      a kernel with shared memory may need the SM's L1/shared split changed after the
//             sweep (which uses none)
//   variant   fusionbench's own variants (registry, as `run` calls them)
// Each is timed two ways: "cold" (as the timer: nothing warm) and "warm-code" (the same kernel run
// once on other buffers after the sweep and before the start event: its code is in L2 and the
// instruction caches, its data still cold). cold - warm is what the code fetch costs.
// Build (after the fusionbench build; compile, then link as meson links fusionbench):
//   nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -Isrc -Ibuild -c dev/tiny_kernel_dev.cu -o tkd.o
//   nvcc -gencode arch=compute_90a,code=sm_90a tkd.o -Xlinker=build/libfbcore.a -lcudart -lcublas -lcublasLt
//     -Xlinker=/usr/local/cuda/lib64/libcudnn.so -Xlinker=/usr/lib/x86_64-linux-gnu/libjansson.so -lm -ldl
//     -Xcompiler=-pthread -o build/tiny_kernel_dev
// Run: tiny_kernel_dev [samples, default 400]
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <functional>
#include <vector>

#include "variant.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void sweep(const int4 *p, long n, int *sink) {
    int acc = 0;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        const int4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345678) *sink = acc;
}

// RMSNorm of rows of 4 * G floats, G lanes a row (a power of two <= 32), w loaded with x, no shared
// memory unless SMEM; PAD extra FMAs a thread in 8 independent chains, unrolled into straight-line
// code (UNROLL) or a loop of the same work (small code), added to the sum times b (= 0 at run time).
template <bool SMEM, int PAD, bool UNROLL>
__global__ void lean_rms(const float4 *x, const float4 *w, float4 *y, int rows, int G, float inv_n, float eps, float a,
                         float b) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x, row = t / G, l = t % G;
    if (row >= rows) return;
    const float4 v = x[(long)row * G + l], wv = w[l];
    float ss = v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    for (int o = G / 2; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    if constexpr (SMEM) {
        __shared__ volatile float s[1024];
        s[threadIdx.x] = ss;
        __syncwarp();
        ss = s[threadIdx.x];
    }
    if constexpr (PAD > 0) {
        float p[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) p[k] = ss + (float)k;
        if constexpr (UNROLL) {
#pragma unroll
            for (int i = 0; i < PAD / 8; ++i)
#pragma unroll
                for (int k = 0; k < 8; ++k) p[k] = fmaf(p[k], a, b);
        } else {
#pragma unroll 1
            for (int i = 0; i < PAD / 8; ++i)
#pragma unroll
                for (int k = 0; k < 8; ++k) p[k] = fmaf(p[k], a, b);
        }
        float q = 0.f;
#pragma unroll
        for (int k = 0; k < 8; ++k) q += p[k];
        ss += q * b;
    }
    const float r = rsqrtf(ss * inv_n + eps);
    y[(long)row * G + l] = make_float4(v.x * r * wv.x, v.y * r * wv.y, v.z * r * wv.z, v.w * r * wv.w);
}


// The same RMSNorm with the fused kernel's habits switched on one at a time (KNOBS bits):
//   1 CS      stores through __stcs (st.global.cs), as every fused kernel's store_stream
//   2 WFIRST  w's load issued before x's (rmsnorm_cached_kernel's early w)
//   4 LOOP    the row in a grid-stride loop with 64-bit indices (the cached kernels' row loop)
//   8 DIVN    1/N computed in the kernel (a division) instead of passed in
template <int KNOBS>
__global__ void probe_rms(const float4 *x, const float4 *w, float4 *y, long rows, int G, float inv_n_arg, float eps) {
    constexpr bool CS = KNOBS & 1, WFIRST = KNOBS & 2, LOOP = KNOBS & 4, DIVN = KNOBS & 8;
    const int l = threadIdx.x % G, g = threadIdx.x / G, rpc = blockDim.x / G;
    const float inv_n = DIVN ? 1.f / (float)(G * 4) : inv_n_arg;
    float4 wv;
    if (WFIRST) wv = w[l];
    for (long row = (long)blockIdx.x * rpc + g; row < rows; row += LOOP ? (long)gridDim.x * rpc : rows) {
        const float4 v = x[row * G + l];
        if (!WFIRST) wv = w[l];
        float ss = v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
        for (int o = G / 2; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
        const float r = rsqrtf(ss * inv_n + eps);
        const float4 o4 = make_float4(v.x * r * wv.x, v.y * r * wv.y, v.z * r * wv.z, v.w * r * wv.w);
        if (CS) __stcs(y + row * G + l, o4);
        else y[row * G + l] = o4;
    }
}

struct Bufs {
    void *x, *w, *y;
};

int main(int argc, char **argv) {
    const int samples = argc > 1 ? atoi(argv[1]) : 400;
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    const size_t flush_bytes = 256ul << 20;
    void *flush;
    int *sink;
    CK(cudaMalloc(&flush, flush_bytes));
    CK(cudaMemset(flush, 0, flush_bytes));
    CK(cudaMalloc(&sink, 4));
    // two sets of buffers big enough for every shape below (x, y: 1 MiB; w: 64 KiB)
    Bufs b[2];
    for (auto &q : b) {
        CK(cudaMalloc(&q.x, 1 << 20));
        CK(cudaMalloc(&q.y, 1 << 20));
        CK(cudaMalloc(&q.w, 1 << 16));
        CK(cudaMemset(q.x, 0x3c, 1 << 20));  // 0x3c3c3c3c: ~0.0115 as float, finite as bf16 too
        CK(cudaMemset(q.w, 0x3c, 1 << 16));
    }
    cudaEvent_t e0[1024], e1[1024];
    for (int i = 0; i < 1024; ++i) {
        CK(cudaEventCreate(&e0[i]));
        CK(cudaEventCreate(&e1[i]));
    }

    auto time = [&](const char *name, const std::function<void(const Bufs &)> &run) {
        double med[2];
        for (int warm = 0; warm < 2; ++warm) {
            std::vector<float> ms;
            for (int done = 0; done < samples;) {
                const int n = std::min(samples - done, 1024);
                for (int i = 0; i < n; ++i) {
                    sweep<<<264, 1024, 0, st>>>((const int4 *)flush, (long)(flush_bytes / 16), sink);
                    if (warm) run(b[1]);
                    CK(cudaEventRecord(e0[i], st));
                    run(b[0]);
                    CK(cudaEventRecord(e1[i], st));
                }
                CK(cudaStreamSynchronize(st));
                for (int i = 0; i < n; ++i) {
                    float m;
                    CK(cudaEventElapsedTime(&m, e0[i], e1[i]));
                    ms.push_back(m * 1000.f);
                }
                done += n;
            }
            std::sort(ms.begin(), ms.end());
            med[warm] = ms[ms.size() / 2];
        }
        printf("%-44s cold %6.3f us  warm-code %6.3f us  cold-warm %+6.3f\n", name, med[0], med[1], med[0] - med[1]);
    };

    // 512 rows of 32 floats: G = 8 lanes a row, 256-thread CTAs, 16 CTAs
    const int rows = 512, G = 8;
    const float inv_n = 1.f / 32.f, eps = 1e-6f, a = 1.f, bz = 0.f;
    auto lean = [&](auto kern) {
        return [=](const Bufs &q) {
            kern<<<(rows * G + 255) / 256, 256, 0, st>>>((const float4 *)q.x, (const float4 *)q.w, (float4 *)q.y, rows, G,
                                                        inv_n, eps, a, bz);
        };
    };

    // the probes, by knob bits (probe_rms) and CTA size
    using ProbeFn = void (*)(const float4 *, const float4 *, float4 *, long, int, float, float);
    const struct {
        const char *name;
        ProbeFn fn;
        int threads;
    } probes[] = {
        {"probe 16x256 plain", probe_rms<0>, 256},          {"probe 64x64 plain", probe_rms<0>, 64},
        {"probe 16x256 CS", probe_rms<1>, 256},             {"probe 16x256 WFIRST", probe_rms<2>, 256},
        {"probe 16x256 LOOP", probe_rms<4>, 256},           {"probe 16x256 DIVN", probe_rms<8>, 256},
        {"probe 64x64 all (CS WFIRST LOOP DIVN)", probe_rms<15>, 64},
        {"probe 64x64 all but CS", probe_rms<14>, 64},      {"probe 64x64 all but WFIRST", probe_rms<13>, 64},
        {"probe 64x64 all but LOOP", probe_rms<11>, 64},    {"probe 16x256 all", probe_rms<15>, 256},
        {"probe 16x256 all but CS", probe_rms<14>, 256},
    };
    for (const auto &pr : probes)
        time(pr.name, [&](const Bufs &q) {
            pr.fn<<<(rows * G + pr.threads - 1) / pr.threads, pr.threads, 0, st>>>(
                (const float4 *)q.x, (const float4 *)q.w, (float4 *)q.y, (long)rows, G, inv_n, eps);
        });
    time("copy 64 KiB (cudaMemcpyAsync)", [&](const Bufs &q) { CK(cudaMemcpyAsync(q.y, q.x, 65536, cudaMemcpyDeviceToDevice, st)); });
    time("lean_rms f32 512x32", lean(lean_rms<false, 0, false>));
    time("lean_rms + 4 KiB smem", lean(lean_rms<true, 0, false>));
    time("lean_rms + 512 FMA looped", lean(lean_rms<false, 512, false>));
    time("lean_rms + 512 FMA unrolled (~8 KiB code)", lean(lean_rms<false, 512, true>));
    time("lean_rms + 2048 FMA looped", lean(lean_rms<false, 2048, false>));
    time("lean_rms + 2048 FMA unrolled (~32 KiB code)", lean(lean_rms<false, 2048, true>));

    // fusionbench's variants, as `run` calls them
    struct Shape {
        const char *variant;
        fb_dtype dt;
        int rank;
        long d[3];
        int n_in;
        bool w_row;  // input 1 is a [N] vector (w), else same shape as x
    };
    const Shape shapes[] = {
        {"rmsnorm.fused", FB_F32, 3, {4, 128, 32}, 2, true},
        {"rmsnorm.fused", FB_BF16, 3, {4, 128, 32}, 2, true},
        {"rmsnorm.fused", FB_F32, 3, {4, 128, 1024}, 2, true},
        {"softmax.fused", FB_F32, 2, {128, 128}, 1, false},
        {"layernorm.fused", FB_F32, 2, {128, 128}, 3, true},
        {"pointwise_chain.fused", FB_F32, 2, {128, 128}, 1, false},
    };
    for (const Shape &s : shapes) {
        const fb_variant *v = fb_variant_find(s.variant);
        if (!v) { printf("%s: not found\n", s.variant); continue; }
        auto make = [&](const Bufs &q, fb_tensor *in, fb_tensor *out) {
            fb_shape xs = {}, ws = {};
            xs.rank = s.rank;
            for (int i = 0; i < s.rank; ++i) xs.dim[i] = s.d[i];
            ws.rank = 1;
            ws.dim[0] = s.d[s.rank - 1];
            void *ins[3] = {q.x, q.w, (char *)q.w + 32768};
            for (int i = 0; i < s.n_in; ++i) in[i] = fb_tensor{ins[i], s.dt, i == 0 ? xs : ws};
            out[0] = fb_tensor{q.y, s.dt, xs};
        };
        fb_tensor in0[3], out0[1], in1[3], out1[1];
        make(b[0], in0, out0);
        make(b[1], in1, out1);
        fb_call c0 = {}, c1 = {};
        c0.in = in0, c0.n_in = s.n_in, c0.out = out0, c0.n_out = 1, c0.stream = st;
        c1 = c0;
        c1.in = in1, c1.out = out1;
        char why[256] = "";
        if (v->supports && v->supports(&c0, why, sizeof why) != 0) { printf("%s: unsupported: %s\n", s.variant, why); continue; }
        if (v->workspace && v->workspace(&c0) > 0) { printf("%s: needs workspace, skipped\n", s.variant); continue; }
        char name[96];
        snprintf(name, sizeof name, "%s %s [%ld..x%ld]", s.variant, s.dt == FB_F32 ? "f32" : "bf16", s.d[0],
                 s.d[s.rank - 1]);
        time(name, [&](const Bufs &q) {
            const int rc = v->run(&q == &b[0] ? &c0 : &c1);
            if (rc != 0) { printf("%s: run failed %d\n", s.variant, rc); exit(1); }
        });
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
