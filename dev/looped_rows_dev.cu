// looped_rows_dev.cu — long rows held on chip against Inductor's looped reduction (dev experiment,
// stop 28, issue 6).
//
// The question. On the H200 (results/h200/stop28/), norm_chain.fused ran 88-90% of the copy on
// float32 rows of 32768 at 1024-65536 rows, where torch.compile ran 101%; on the H100 the same
// kernel runs 96-98% there. The engine (K_ROW_SMEM) holds a row of 32768 in one 1024-thread
// CTA's registers (layernorm, double_softmax: 8 float4 a thread), or, for norm_chain (kPairRows),
// in two 512-thread CTAs an SM with half of each row in shared memory; either way a CTA loads its
// row, runs the sums (three CTA-wide ones for norm_chain), stores, and its SM's next row starts
// only when it retires. Inductor holds nothing: a CTA re-reads
// its row once per reduction (the first read evict_last, so the re-reads hit L2), and several
// small CTAs an SM are in different passes at once. Reading (NOTES.md, stop 28): the sums' time is
// fixed and the H200's load phase is 1.4x shorter, so only the held form loses there.
// Prediction: looped >= held on the H200 (to ~100% of the copy) and within a few % of it on the
// H100; if the re-reads miss L2 (rows in flight x 128 KB beyond what L2 keeps), looped loses.
// Outcome (stop 29, results/h100/stop29/ and results/h200/stop29/): refuted. held ran 95-101% of
// the copy on both cards from 1024 rows, the best looped form 86-94%, the small looped CTAs
// 42-68% (their re-reads missed L2). The engine's norm_chain had run pairs there, not this
// plan; it now runs this plan (kernels/NOTES.md, "Stop 29").
//
// Kernels, norm_chain's math in float32: three times s = sum(x); x = x * s; then y = x.
//   held        layernorm's plan at W = 32768 from 529 rows: one CTA of 1024 threads a row, the row in
//               registers (evict_last loads, as the engine's float32 loads), three CTA sums.
//   looped<T,B,ILP> one CTA of T threads a row, B CTAs an SM (__launch_bounds__(T, B): registers
//               decide it; the table prints the occupancy), ILP float4 loads a thread in flight:
//               pass 1 sums x (evict_last), pass 2 sums x * s1 and pass 3 x * s1 * s2 (plain
//               loads, from L2 if the lines stayed), pass 4 reads x (evict_first) and writes
//               y = x * s1 * s2 * s3 (evict-first stores). Nothing is kept between passes but s.
//   copy        cudaMemcpyAsync of the ideal bytes (read x + write y): fusionbench's SOL.
// x holds positive rows summing to ~1 (as norm_chain's row_simplex input), so y ~ x; every kernel
// is checked against a float64 evaluation of 8 rows (max relative error).
//
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 dev/looped_rows_dev.cu -o /tmp/looped_rows_dev
// Run:   /tmp/looped_rows_dev [write]   (write: dirty the L2 after the sweep, as --flush write)
// Each sample: a read-only sweep of 256 MB (optionally then a memset of it), then events around
// the kernel; median of 30 samples after 3 discarded.
#include <math.h>
#include <string.h>

#include "long_rows_dev.cuh"

constexpr int W = 32768;     // float32 elements a row
constexpr int W4 = W / 4;    // float4 units a row
constexpr int HELD_U = 8;    // float4 units a thread in `held` (1024 x 8 x 4 = W)

__global__ void __launch_bounds__(1024, 1) held(const float4 *__restrict__ x, float4 *__restrict__ y) {
    __shared__ float sm[32];
    const long base = (long)blockIdx.x * W4;
    float4 v[HELD_U];
#pragma unroll
    for (int u = 0; u < HELD_U; ++u) v[u] = ld_last(x + base + threadIdx.x + u * 1024);
    for (int r = 0; r < 3; ++r) {
        float a = 0.f;
#pragma unroll
        for (int u = 0; u < HELD_U; ++u) a += hsum(v[u]);
        const float s = cta_sum(a, sm);
#pragma unroll
        for (int u = 0; u < HELD_U; ++u) v[u] = make_float4(v[u].x * s, v[u].y * s, v[u].z * s, v[u].w * s);
    }
#pragma unroll
    for (int u = 0; u < HELD_U; ++u) __stcs(y + base + threadIdx.x + u * 1024, v[u]);
}

// One pass over the row: ILP float4 loads a thread in flight, then their sum scaled by `scale`.
template <int T, int ILP, bool LAST>
__device__ __forceinline__ float pass_sum(const float4 *__restrict__ row, float scale) {
    static_assert(W4 % (T * ILP) == 0, "whole steps only");
    float a = 0.f;
    const float4 *p = row + threadIdx.x;
#pragma unroll 1
    for (int it = 0; it < W4 / (T * ILP); ++it, p += T * ILP) {
        float4 v[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k) v[k] = LAST ? ld_last(p + k * T) : p[k * T];
#pragma unroll
        for (int k = 0; k < ILP; ++k) a += hsum(v[k]) * scale;
    }
    return a;
}

template <int T, int B, int ILP>
__global__ void __launch_bounds__(T, B) looped(const float4 *__restrict__ x, float4 *__restrict__ y) {
    __shared__ float sm[32];
    const float4 *row = x + (long)blockIdx.x * W4;
    float4 *out = y + (long)blockIdx.x * W4;
    // The sums as the program writes them: s2 = sum(x * s1), s3 = sum(x * s1 * s2).
    const float s1 = cta_sum(pass_sum<T, ILP, true>(row, 1.f), sm);
    const float s2 = cta_sum(pass_sum<T, ILP, false>(row, s1), sm);
    const float s3 = cta_sum(pass_sum<T, ILP, false>(row, s1 * s2), sm);
    const float4 *p = row + threadIdx.x;
    float4 *q = out + threadIdx.x;
#pragma unroll 1
    for (int it = 0; it < W4 / (T * ILP); ++it, p += T * ILP, q += T * ILP) {
        float4 v[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k) v[k] = ld_first(p + k * T);
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            // ((x * s1) * s2) * s3, the order the program's in-place updates round in
            float4 t = v[k];
            t = make_float4(t.x * s1, t.y * s1, t.z * s1, t.w * s1);
            t = make_float4(t.x * s2, t.y * s2, t.z * s2, t.w * s2);
            t = make_float4(t.x * s3, t.y * s3, t.z * s3, t.w * s3);
            __stcs(q + k * T, t);
        }
    }
}

// max |got - want| / |want| over the first `rows` rows, want in float64
static double check(const std::vector<float> &hx, const float *dy, int rows) {
    std::vector<float> got((size_t)rows * W);
    CK(cudaMemcpy(got.data(), dy, got.size() * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int r = 0; r < rows; ++r) {
        std::vector<double> v(hx.begin() + (size_t)r * W, hx.begin() + (size_t)(r + 1) * W);
        for (int k = 0; k < 3; ++k) {
            double s = 0;
            for (double e : v) s += e;
            for (double &e : v) e *= s;
        }
        for (int c = 0; c < W; ++c) worst = std::max(worst, fabs(got[(size_t)r * W + c] - v[c]) / fabs(v[c]));
    }
    return worst;
}

int main(int argc, char **argv) {
    const bool write_flush = argc > 1 && !strcmp(argv[1], "write");
    const long maxrows = 8192;
    const size_t maxbytes = (size_t)maxrows * W * 4;
    float4 *x, *y;
    CK(cudaMalloc(&x, maxbytes));
    CK(cudaMalloc(&y, maxbytes));
    {  // positive rows summing to ~1: u in [0.5, 1.5) / W, a fixed LCG
        std::vector<float> hx((size_t)maxrows * W);
        uint32_t s = 12345u;
        for (float &e : hx) {
            s = s * 1664525u + 1013904223u;
            e = (0.5f + (s >> 8) * (1.f / 16777216.f)) / W;
        }
        CK(cudaMemcpy(x, hx.data(), maxbytes, cudaMemcpyHostToDevice));
    }
    std::vector<float> hx8((size_t)8 * W);
    CK(cudaMemcpy(hx8.data(), x, hx8.size() * 4, cudaMemcpyDeviceToHost));

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int smem_sm = (int)prop.sharedMemPerMultiprocessor;
    FlushedTimer timer(write_flush, prop.multiProcessorCount);
    auto timeit = [&](auto launch) { return timer.time(launch).first; };  // the median

    struct Looped {
        const char *name;  // threads x CTAs an SM asked, ILP
        int threads;
        void (*kernel)(const float4 *, float4 *);
    };
    const Looped looped_forms[] = {
        {"l256x8i2", 256, looped<256, 8, 2>},  {"l512x4i2", 512, looped<512, 4, 2>},   {"l512x2i4", 512, looped<512, 2, 4>},
        {"l1024x2i2", 1024, looped<1024, 2, 2>}, {"l1024x1i4", 1024, looped<1024, 1, 4>},
    };

    printf("%s, %d SMs, %d KB shared memory an SM; W = %d float32; flush: %s; median us of 30 (%% of the copy)\n", prop.name,
           prop.multiProcessorCount, smem_sm / 1024, W, write_flush ? "write" : "clean");
    printf("check (max relative error over 8 rows against float64):");
    held<<<8, 1024>>>(x, y);
    CK(cudaGetLastError());
    printf(" held %.2e", check(hx8, (float *)y, 8));
    for (const Looped &l : looped_forms) {
        CK(cudaMemset(y, 0, (size_t)8 * W * 4));
        l.kernel<<<8, l.threads>>>(x, y);
        CK(cudaGetLastError());
        printf(" %s %.2e", l.name, check(hx8, (float *)y, 8));
    }
    printf("\nCTAs an SM (occupancy calculator): held 1");
    for (const Looped &l : looped_forms) {
        int n = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, l.kernel, l.threads, 0));
        printf(", %s %d", l.name, n);
    }
    printf("\n%6s %8s %9s %16s", "rows", "MB", "copy", "held");
    for (const Looped &l : looped_forms) printf(" %16s", l.name);
    printf("\n");
    for (long rows : {128L, 256L, 512L, 1024L, 2048L, 4096L, 8192L}) {
        const size_t bytes = (size_t)rows * W * 4;
        const float tc = timeit([&] { CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice)); });
        const float th = timeit([&] { held<<<rows, 1024>>>(x, y); });
        printf("%6ld %8.1f %9.1f %9.1f (%4.1f)", rows, 2.0 * bytes / 1e6, tc, th, 100 * tc / th);
        for (const Looped &l : looped_forms) {
            const float t = timeit([&] { l.kernel<<<rows, l.threads>>>(x, y); });
            printf(" %9.1f (%4.1f)", t, 100 * tc / t);
        }
        printf("\n");
        CK(cudaGetLastError());
    }
    return 0;
}
