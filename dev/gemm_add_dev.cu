// gemm_add_dev.cu — kernels/gemm_tma.cuh (an own TMA + wgmma GEMM that loads the full addend D
// during its main loop) against cuBLASLt, plain and with the full add, on one shape.
//
// Question (issue 10; kernels/NOTES.md "Stop 46"): does loading D's tile during the main loop make
// the full add free, i.e. own(add) / cuBLASLt(plain) <= 1.03 where cuBLASLt(add) / cuBLASLt(plain)
// reads 1.19? And how far is the own plain GEMM from cuBLASLt's (the part of the gap that is the
// GEMM, not the add)?
//
// Each side is checked against a float64 CPU reference on 4096 sampled outputs first (max error
// over (|ref| + 1) must stay under 2^-7 for bfloat16, 2^-10 for float16, which is what one
// rounding of the output allows), then timed in turn: rounds of (read sweep of 2x L2, event,
// launch, event) for each side, 32 rounds a batch, no host gap. Prints each side's median, its
// TFLOP/s, and the median over rounds of its time / cuBLASLt plain's time of the same round.
// cuBLASLt's sides are its heuristic's best 8 candidates, each timed 5 times, fastest kept (as
// matmul.tuned does).
//
// Usage: gemm_add_dev M N K [bf16|f16] [rounds] [own forms, comma-separated]
// Environment: GEMM_D_ASYNC=n (D by n warps' cp.async), GEMM_GRID=n (cap the persistent grid),
// GEMM_ENERGY=n (time and energy a GEMM over n back-to-back runs of each side; see energy()).
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -DFB_BUILD_SM90A=1 -Ikernels
//        dev/gemm_add_dev.cu -lcublasLt -o gemm_add_dev
#include <cublasLt.h>
#include <dlfcn.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dev_check.h"
#include "gemm_tma.cuh"

static uint32_t hash32(uint64_t i, uint32_t seed) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed ^ (uint32_t)(i >> 32) * 40503u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    return h;
}

template <typename T> static void fill_host(std::vector<uint16_t> &v, uint32_t seed) {
    for (size_t i = 0; i < v.size(); i++) {
        const float x = (hash32(i, seed) & 0xffff) / 65536.0f - 0.5f;  // U(-0.5, 0.5)
        T t = T(x);
        memcpy(&v[i], &t, 2);
    }
}

template <typename T> static double as_double(uint16_t u) {
    T t;
    memcpy(&t, &u, 2);
    return (double)(float)t;
}

__global__ void sweep_kernel(const uint4 *p, size_t n, unsigned *sink) {
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;
}

struct Side {
    std::string name;
    std::function<bool(cudaStream_t)> launch;
    void *out;
    bool add;
};

// GEMM_ENERGY=n: each side n times back to back (no flush between), after n / 4 to warm: the time a
// GEMM, the energy a GEMM from NVML's total-energy counter (mJ, the board), the mean power, and the
// SM clock NVML reads at the end. A side that does the same work in more energy runs at a lower
// clock under the board's power cap (question of stop 47: the own GEMM matches cuBLASLt at ncu's
// locked clock, not at free clocks).
typedef int (*nvml_fn0)(void);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_energy_fn)(void *, unsigned long long *);
typedef int (*nvml_clock_fn)(void *, int, unsigned *);
template <typename Side> static void energy(std::vector<Side> &sides, cudaStream_t st, int n, double flop) {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) {
        printf("ENERGY: no NVML (%s)\n", dlerror());
        return;
    }
    auto init = (nvml_fn0)dlsym(lib, "nvmlInit_v2");
    auto handle = (nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    auto total = (nvml_energy_fn)dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
    auto clock = (nvml_clock_fn)dlsym(lib, "nvmlDeviceGetClockInfo");
    void *dev = nullptr;
    int ordinal = 0;
    CK(cudaGetDevice(&ordinal));
    if (!init || !handle || !total || !clock || init() != 0 || handle((unsigned)ordinal, &dev) != 0) {
        printf("ENERGY: NVML did not start\n");
        return;
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (auto &s : sides) {
        for (int i = 0; i < n / 4; i++) s.launch(st);
        CK(cudaStreamSynchronize(st));
        unsigned long long mj0 = 0, mj1 = 0;
        total(dev, &mj0);
        CK(cudaEventRecord(e0, st));
        for (int i = 0; i < n; i++) s.launch(st);
        CK(cudaEventRecord(e1, st));
        CK(cudaStreamSynchronize(st));
        total(dev, &mj1);
        unsigned mhz = 0;
        clock(dev, 1 /* NVML_CLOCK_SM */, &mhz);
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        const double us = ms * 1e3 / n, mj = (double)(mj1 - mj0) / n;
        printf("ENERGY %-13s %9.2f us a GEMM %6.1f TFLOP/s  %7.3f mJ a GEMM  %5.0f W  SM %u MHz at the end\n",
               s.name.c_str(), us, flop / us / 1e6, mj, mj / us * 1e3, mhz);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
}

template <typename T> static int run(long M, long N, long K, int rounds, const char *only) {
    const bool bf16 = std::is_same<T, __nv_bfloat16>::value;
    const cudaDataType_t dt = bf16 ? CUDA_R_16BF : CUDA_R_16F;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s · %s %ld x %ld x %ld (M x N x K), row-major; cold L2 each sample\n", prop.name,
           bf16 ? "bfloat16" : "float16", M, N, K);
    std::vector<uint16_t> hA(M * K), hB(K * N), hD(M * N);
    fill_host<T>(hA, 1), fill_host<T>(hB, 2), fill_host<T>(hD, 3);
    void *A, *B, *D;
    CK(cudaMalloc(&A, hA.size() * 2));
    CK(cudaMalloc(&B, hB.size() * 2));
    CK(cudaMalloc(&D, hD.size() * 2));
    CK(cudaMemcpy(A, hA.data(), hA.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, hB.data(), hB.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(D, hD.data(), hD.size() * 2, cudaMemcpyHostToDevice));
    const size_t sweep_n = 2 * (size_t)prop.l2CacheSize / 16;
    void *sw;
    unsigned *sink;
    CK(cudaMalloc(&sw, sweep_n * 16));
    CK(cudaMemset(sw, 0, sweep_n * 16));
    CK(cudaMalloc(&sink, 4));
    cudaStream_t st;
    CK(cudaStreamCreate(&st));

    // cuBLASLt, as src/lt_gemm.c plans a row-major GEMM (its A = our B, its m = our N)
    cublasLtHandle_t lt;
    LK(cublasLtCreate(&lt));
    cublasLtMatrixLayout_t la, lb, lc;
    LK(cublasLtMatrixLayoutCreate(&la, dt, N, K, N));
    LK(cublasLtMatrixLayoutCreate(&lb, dt, K, M, K));
    LK(cublasLtMatrixLayoutCreate(&lc, dt, N, M, N));
    cublasLtMatmulDesc_t desc;
    LK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtMatmulPreference_t pref;
    LK(cublasLtMatmulPreferenceCreate(&pref));
    const size_t ws_bytes = 32 << 20;
    void *ws;
    CK(cudaMalloc(&ws, ws_bytes));
    const uint64_t wsb = ws_bytes;
    LK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb));
    cublasLtMatmulHeuristicResult_t hr[8];
    int found = 0;
    LK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 8, hr, &found));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto time_once = [&](const std::function<bool(cudaStream_t)> &f) {
        sweep_kernel<<<264, 512, 0, st>>>((const uint4 *)sw, sweep_n, sink);
        CK(cudaEventRecord(e0, st));
        if (!f(st)) return -1.f;
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        return ms;
    };
    auto lt_call = [&](int algo, bool add, void *out) {
        return [&, algo, add, out](cudaStream_t s) {
            const float one = 1.f, zero = 0.f;
            return cublasLtMatmul(lt, desc, &one, B, la, A, lb, add ? &one : &zero, add ? D : out, lc, out, lc,
                                  &hr[algo].algo, ws, ws_bytes, s) == CUBLAS_STATUS_SUCCESS;
        };
    };
    std::vector<Side> sides;
    for (int add = 0; add < 2; add++) {
        void *out;
        CK(cudaMalloc(&out, M * N * 2));
        int best = -1;
        float best_ms = 1e30f;
        for (int i = 0; i < found; i++) {
            auto f = lt_call(i, add, out);
            float m = 1e30f;
            for (int r = 0; r < 5; r++) {
                const float t = time_once(f);
                if (t > 0) m = std::min(m, t);
            }
            if (m < best_ms) best_ms = m, best = i;
        }
        if (best < 0) {
            fprintf(stderr, "cuBLASLt: no candidate ran\n");
            return 1;
        }
        sides.push_back({add ? "lt_add" : "lt_plain", lt_call(best, add, out), out, add == 1});
    }

    // the own kernel, four forms
    struct OwnForm {
        const char *name;
        cudaError_t (*plan)(fb::gemm::Plan *, const void *, const void *, const void *, void *, int, int, int);
        bool add;
    };
    // own forms: c = cluster size
    const OwnForm forms[] = {
        {"own_add_c1", fb::gemm::plan_gemm<T, 1, true>, true},
        {"own_add_c2", fb::gemm::plan_gemm<T, 2, true>, true},
        {"own_plain_c1", fb::gemm::plan_gemm<T, 1, false>, false},
        {"own_plain_c2", fb::gemm::plan_gemm<T, 2, false>, false},
        // k32: stages of 32 along K, six of them in the same shared memory (NOTES.md "Stop 46", Next)
        {"own_add_c1_k32", fb::gemm::plan_gemm<T, 1, true, 6, 32>, true},
        {"own_add_c2_k32", fb::gemm::plan_gemm<T, 2, true, 6, 32>, true},
        {"own_plain_c1_k32", fb::gemm::plan_gemm<T, 1, false, 6, 32>, false},
        {"own_plain_c2_k32", fb::gemm::plan_gemm<T, 2, false, 6, 32>, false},
    };
    const int n_forms = (int)(sizeof forms / sizeof forms[0]);
    std::vector<fb::gemm::Plan> plans(n_forms);
    for (int i = 0; i < n_forms; i++) {
        if (only && !strstr(only, forms[i].name)) continue;
        void *out;
        CK(cudaMalloc(&out, M * N * 2));
        CK(cudaMemset(out, 0xff, M * N * 2));
        const cudaError_t e = forms[i].plan(&plans[i], A, B, D, out, (int)M, (int)N, (int)K);
        if (e != cudaSuccess) {
            printf("%s: declined (%s)\n", forms[i].name, cudaGetErrorString(e));
            continue;
        }
        if (getenv("GEMM_GRID")) {  // cap the persistent grid (whole clusters): a residency probe
            const int cap = atoi(getenv("GEMM_GRID")) / plans[i].cluster * plans[i].cluster;
            if (cap > 0 && cap < plans[i].grid) plans[i].grid = cap;
        }
        if (getenv("GEMM_D_ASYNC")) plans[i].args.d_async = atoi(getenv("GEMM_D_ASYNC"));
        printf("%s: grid %d, %zu B shared, D by cp.async from %d warps\n", forms[i].name, plans[i].grid,
               plans[i].smem, plans[i].args.d_async);
        fb::gemm::Plan *pl = &plans[i];
        sides.push_back({forms[i].name, [pl](cudaStream_t s) { return fb::gemm::run_gemm(*pl, s) == cudaSuccess; },
                         out, forms[i].add});
    }

    // correctness: each side once, 4096 sampled outputs against float64
    const double tol = bf16 ? 1.0 / 128 : 1.0 / 1024;
    int bad_sides = 0;
    std::vector<uint16_t> hO(M * N);
    for (auto &s : sides) {
        if (!s.launch(st)) {
            printf("%s: launch failed: %s\n", s.name.c_str(), cudaGetErrorString(cudaGetLastError()));
            return 1;
        }
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(hO.data(), s.out, hO.size() * 2, cudaMemcpyDeviceToHost));
        double worst = 0;
        long worst_i = 0;
        for (int k = 0; k < 4096; k++) {
            long i = (long)(hash32(k, 77) % (uint32_t)M), j = (long)(hash32(k, 78) % (uint32_t)N);
            if (k < 4) i = k % 2 ? M - 1 : 0, j = k / 2 ? N - 1 : 0;  // the corners
            double ref = 0;
            for (long kk = 0; kk < K; kk++) ref += as_double<T>(hA[i * K + kk]) * as_double<T>(hB[kk * N + j]);
            if (s.add) ref += as_double<T>(hD[i * N + j]);
            const double err = fabs(as_double<T>(hO[i * N + j]) - ref) / (fabs(ref) + 1);
            if (!(err <= worst)) worst = err, worst_i = i * N + j;
        }
        const bool ok = worst <= tol;
        bad_sides += !ok;
        printf("CHECK %-13s max err/(|ref|+1) %.2e at (%ld, %ld) %s\n", s.name.c_str(), worst, worst_i / N,
               worst_i % N, ok ? "passed" : "FAILED");
    }
    if (bad_sides) return 1;
#ifdef FB_GEMM_TRACE
    // per-tile stamps of each own form's first consumer (one warm run, then a cold traced one)
    for (int i = 0; i < n_forms; i++) {
        if (!plans[i].kernel) continue;
        long long *tr;
        const size_t n_tr = (size_t)plans[i].grid * fb::gemm::TRACE_TILES * fb::gemm::TRACE_EVENTS;
        CK(cudaMalloc(&tr, n_tr * 8));
        CK(cudaMemset(tr, 0, n_tr * 8));
        plans[i].args.trace = tr;
        sweep_kernel<<<264, 512, 0, st>>>((const uint4 *)sw, sweep_n, sink);
        CK(fb::gemm::run_gemm(plans[i], st));
        CK(cudaStreamSynchronize(st));
        plans[i].args.trace = nullptr;
        std::vector<long long> h(n_tr);
        CK(cudaMemcpy(h.data(), tr, n_tr * 8, cudaMemcpyDeviceToHost));
        cudaFree(tr);
        // per tile (cycles): to kb0 data, kb0->kb1 data, kb1->mainloop end, waits for data at kb>=2,
        // mainloop end -> epilogue buffer ready, epilogue, epilogue end -> next tile start
        const char *names[] = {"start->kb0", "kb0->kb1", "kb1->mloop end", "data waits kb>=2", "end->buffer", "epilogue", "tile total"};
        std::vector<std::vector<double>> v(7);
        for (int c = 0; c < plans[i].grid; c++)
            for (int t = 0; t + 1 < fb::gemm::TRACE_TILES; t++) {
                const long long *e = &h[((size_t)c * fb::gemm::TRACE_TILES + t) * fb::gemm::TRACE_EVENTS];
                const long long *nx = e + fb::gemm::TRACE_EVENTS;
                if (!e[0] || !e[5] || !nx[0]) continue;
                const double d[7] = {(double)(e[1] - e[0]), (double)(e[2] - e[1]), (double)(e[3] - e[2]), (double)e[6],
                                     (double)(e[4] - e[3]), (double)(e[5] - e[4]), (double)(nx[0] - e[0])};
                for (int k = 0; k < 7; k++) v[k].push_back(d[k]);
            }
        printf("TRACE %s (%zu tiles; cycles, median / p90):", forms[i].name, v[0].size());
        for (int k = 0; k < 7 && !v[0].empty(); k++) {
            std::sort(v[k].begin(), v[k].end());
            printf("  %s %.0f / %.0f", names[k], v[k][v[k].size() / 2], v[k][v[k].size() * 9 / 10]);
        }
        printf("\n");
        // the SM clock the kernel ran at: each CTA's cycles from its first traced tile's start to
        // its last's over the %globaltimer ns between them (the median over CTAs, and its range)
        std::vector<double> mhz;
        for (int c = 0; c < plans[i].grid; c++) {
            const long long *first = &h[(size_t)c * fb::gemm::TRACE_TILES * fb::gemm::TRACE_EVENTS];
            int last = 0;
            for (int t = 1; t < fb::gemm::TRACE_TILES; t++)
                if (first[t * fb::gemm::TRACE_EVENTS]) last = t;
            const long long *l = first + last * fb::gemm::TRACE_EVENTS;
            if (last > 0 && l[7] > first[7]) mhz.push_back((double)(l[0] - first[0]) * 1e3 / (double)(l[7] - first[7]));
        }
        if (!mhz.empty()) {
            std::sort(mhz.begin(), mhz.end());
            printf("CLOCK %s: SM clock over each CTA's traced tiles, median %.0f MHz (%.0f-%.0f over %zu CTAs)\n",
                   forms[i].name, mhz[mhz.size() / 2], mhz.front(), mhz.back(), mhz.size());
        }
    }
#endif
    if (rounds <= 0) return 0;

    // timed in turn
    const int n = (int)sides.size();
    constexpr int kBatch = 16;
    std::vector<cudaEvent_t> ev(2 * n * kBatch);
    for (auto &e : ev) CK(cudaEventCreate(&e));
    std::vector<std::vector<float>> ms(n), ratio(n);
    for (int b = 0; b < (rounds + kBatch - 1) / kBatch; b++) {
        for (int i = 0; i < kBatch; i++)
            for (int s = 0; s < n; s++) {
                sweep_kernel<<<264, 512, 0, st>>>((const uint4 *)sw, sweep_n, sink);
                CK(cudaEventRecord(ev[2 * (i * n + s)], st));
                sides[s].launch(st);
                CK(cudaEventRecord(ev[2 * (i * n + s) + 1], st));
            }
        CK(cudaStreamSynchronize(st));
        for (int i = 0; i < kBatch; i++) {
            float t0 = 0;
            for (int s = 0; s < n; s++) {
                float t;
                CK(cudaEventElapsedTime(&t, ev[2 * (i * n + s)], ev[2 * (i * n + s) + 1]));
                if (s == 0) t0 = t;
                ms[s].push_back(t);
                ratio[s].push_back(t / t0);
            }
        }
    }
    auto med = [](std::vector<float> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const double flop = 2.0 * M * N * K;
    for (int s = 0; s < n; s++) {
        const float m = med(ms[s]);
        printf("TIME %ld %ld %ld %s %-13s %9.2f us %6.1f TFLOP/s  / lt_plain %.3f\n", M, N, K, bf16 ? "bf16" : "f16",
               sides[s].name.c_str(), m * 1e3, flop / m / 1e9, med(ratio[s]));
    }
    if (getenv("GEMM_ENERGY")) energy(sides, st, atoi(getenv("GEMM_ENERGY")), flop);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s M N K [bf16|f16] [rounds]\n", argv[0]);
        return 2;
    }
    const long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);
    const bool f16 = argc > 4 && strcmp(argv[4], "f16") == 0;
    const int rounds = argc > 5 ? atoi(argv[5]) : 64;
    const char *only = argc > 6 ? argv[6] : nullptr;  // a comma-separated list of own forms
    return f16 ? run<__half>(M, N, K, rounds, only) : run<__nv_bfloat16>(M, N, K, rounds, only);
}
