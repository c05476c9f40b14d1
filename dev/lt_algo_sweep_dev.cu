// lt_algo_sweep_dev.cu — every cuBLASLt algorithm configuration for one row-major GEMM, timed
// with and without the full addend: does any configuration load D during its main loop?
//
// Question (issue 10, kernels/NOTES.md "Stop 41"): matmul_add.fused (beta = 1, C = D) costs
// 1.068x the plain GEMM in geomean on the H200 (1.110 on the H100, stop 31), where the floors
// say D's read could hide under the main loop. The fused variant tunes the heuristic's best 8,
// and cuBLASLt returns at most 8 whatever is asked. This tool goes past the heuristic: it
// enumerates algorithm ids (cublasLtMatmulAlgoGetIds) and, for each, every tile, stage count,
// custom option, CTA swizzle and cluster shape that cublasLtMatmulAlgoCheck accepts (split-K
// off), times each once from a cold L2, then re-times the fastest with more samples, for the
// plain GEMM (beta = 0) and the add (beta = 1, C = D) alike, so both sides get the same search.
//
//   out = A[M, K] · B[K, N] (+ D[M, N]), bfloat16 or float16, fp32 accumulation, row-major, as
//   src/lt_gemm.c plans it (cuBLASLt's A is our B, its m our N).
//
// Usage: lt_algo_sweep_dev M N K [bf16|f16] [budget_s] [add|bias|relu|relu_bias]
// The last argument picks the second side (default add): the full add, or one of cuBLASLt's
// epilogues (BIAS: + bias[N]; RELU; RELU_BIAS) with beta = 0, each searched as the plain side is.
// Then the plain side's fastest 24 configurations are checked and timed under the second side's
// descriptor as well: the same kernels with the epilogue attached.
// Prints the heuristic's candidates' times, then the fastest configurations of each side, and
// the ratio best(add) / best(plain).
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O2 -std=c++17 dev/lt_algo_sweep_dev.cu
//        -lcublasLt -o build/lt_algo_sweep_dev
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dev_check.h"

__global__ void fill_kernel(uint16_t *p, size_t n, uint32_t seed, bool bf16)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
        const float v = ((h & 0xffff) / 65536.0f - 0.5f);  // U(-0.5, 0.5)
        if (bf16) {
            __nv_bfloat16 b = __float2bfloat16(v);
            p[i] = *reinterpret_cast<uint16_t *>(&b);
        } else {
            __half b = __float2half(v);
            p[i] = *reinterpret_cast<uint16_t *>(&b);
        }
    }
}

// Read the sweep buffer (clean lines: nothing dirty is left for the GEMM to write back).
__global__ void sweep_kernel(const uint4 *p, size_t n, unsigned *sink)
{
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;  // never true on zeros: keeps the loads
}

struct Config {
    int id, tile, stages, custom, swizzle, cluster;
    cublasLtMatmulAlgo_t algo;
    size_t ws;
    float first_ms = -1, med_ms = -1;
    bool heuristic = false;
    int hrank = -1;
};

struct Gemm {
    cublasLtHandle_t h;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    bool add;     // beta = 1, C = D (the second side of an add sweep)
    bool add_second;  // the second side is the add
    bool second;  // desc2 in use
    cublasLtMatmulDesc_t desc2;  // the second side's descriptor (its epilogue, if any)
    const void *A, *B, *D;
    void *C, *ws;
    size_t ws_bytes;
    cudaStream_t st;
    cudaEvent_t e0, e1;
    const uint4 *sweep;
    size_t sweep_n;
    unsigned *sink;
};

static bool launch(Gemm &g, const cublasLtMatmulAlgo_t *algo)
{
    const float one = 1.f, zero = 0.f;
    // cuBLASLt's A = our B, its B = our A; its C = our D (add) or the output, its D = our output
    return cublasLtMatmul(g.h, g.second ? g.desc2 : g.desc, &one, g.B, g.la, g.A, g.lb, g.add ? &one : &zero, g.add ? g.D : g.C, g.lc, g.C,
                          g.lc, algo, g.ws, g.ws_bytes, g.st) == CUBLAS_STATUS_SUCCESS;
}

// median of n cold samples (sweep, event, GEMM, event), after one warm-up; -1 on a failed launch
static float time_cfg(Gemm &g, const cublasLtMatmulAlgo_t *algo, int n)
{
    std::vector<float> ms;
    for (int i = -1; i < n; i++) {
        sweep_kernel<<<264, 512, 0, g.st>>>(g.sweep, g.sweep_n, g.sink);
        CK(cudaEventRecord(g.e0, g.st));
        if (!launch(g, algo)) {
            cudaGetLastError();
            cudaStreamSynchronize(g.st);
            return -1;
        }
        CK(cudaEventRecord(g.e1, g.st));
        if (cudaEventSynchronize(g.e1) != cudaSuccess) {
            fprintf(stderr, "a launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
            exit(1);
        }
        float t;
        CK(cudaEventElapsedTime(&t, g.e0, g.e1));
        if (i >= 0) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// The two sides' fastest configurations timed in turn under sustained load: PAIRS x (sweep, plain,
// sweep, second side), queued in batches of 32 pairs with no host gap, so both run under the same
// power controller state (bfloat16 GEMMs on the H200 run at the software power cap, which moves
// one kernel's time by up to 16% between measurements: kernels/NOTES.md, "Stop 42"). Prints each
// side's median and the median of the pairs' ratios.
static void paired(Gemm &g, const cublasLtMatmulAlgo_t *plain, const cublasLtMatmulAlgo_t *second, const char *name)
{
    constexpr int kBatch = 32, kPairs = 256;
    cudaEvent_t ev[4 * kBatch];
    for (auto &e : ev) CK(cudaEventCreate(&e));
    std::vector<float> tp, ts, ratio;
    for (int b = 0; b < kPairs / kBatch; b++) {
        for (int i = 0; i < kBatch; i++) {
            for (int side = 0; side < 2; side++) {
                sweep_kernel<<<264, 512, 0, g.st>>>(g.sweep, g.sweep_n, g.sink);
                g.second = side == 1;
                g.add = side == 1 && g.add_second;
                CK(cudaEventRecord(ev[4 * i + 2 * side], g.st));
                if (!launch(g, side ? second : plain)) {
                    fprintf(stderr, "paired: a launch failed\n");
                    exit(1);
                }
                CK(cudaEventRecord(ev[4 * i + 2 * side + 1], g.st));
            }
        }
        CK(cudaStreamSynchronize(g.st));
        for (int i = 0; i < kBatch; i++) {
            float a, c;
            CK(cudaEventElapsedTime(&a, ev[4 * i], ev[4 * i + 1]));
            CK(cudaEventElapsedTime(&c, ev[4 * i + 2], ev[4 * i + 3]));
            tp.push_back(a), ts.push_back(c), ratio.push_back(c / a);
        }
    }
    g.second = true;
    g.add = g.add_second;
    for (auto &e : ev) cudaEventDestroy(e);
    auto med = [](std::vector<float> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    auto quarter = [&](const std::vector<float> &v, bool last) {
        const size_t q = v.size() / 4;
        return med(std::vector<float>(last ? v.end() - q : v.begin(), last ? v.end() : v.begin() + q));
    };
    printf("PAIRED %d pairs under sustained load: plain %.4f ms, %s %.4f ms, median of the pairs' %s/plain %.3f "
           "(first quarter %.3f, last %.3f; plain's first and last quarter %.4f, %.4f ms)\n",
           kPairs, med(tp), name, med(ts), name, med(ratio), quarter(ratio, false), quarter(ratio, true),
           quarter(tp, false), quarter(tp, true));
}

static int cfg_attr(const cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoConfigAttributes_t at)
{
    size_t need = 0, w = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(a, at, nullptr, 0, &need) != CUBLAS_STATUS_SUCCESS || !need || need > 8)
        return -1;
    uint64_t v = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(a, at, &v, need, &w) != CUBLAS_STATUS_SUCCESS) return -1;
    return (int)v;
}

template <typename T> static std::vector<T> cap_array(const cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoCapAttributes_t at)
{
    size_t need = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(a, at, nullptr, 0, &need) != CUBLAS_STATUS_SUCCESS || need == 0) return {};
    std::vector<T> v(need / sizeof(T));
    size_t w = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(a, at, v.data(), need, &w) != CUBLAS_STATUS_SUCCESS) return {};
    return v;
}

static std::string describe(const Config &c)
{
    char b[160];
    snprintf(b, sizeof b, "id %3d tile %3d stages %3d custom %2d swz %d cluster %2d%s", c.id, c.tile, c.stages,
             c.custom, c.swizzle, c.cluster, c.heuristic ? " (heuristic)" : "");
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s M N K [bf16|f16] [budget_s]\n", argv[0]);
        return 2;
    }
    const long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);
    const bool bf16 = argc < 5 || strcmp(argv[4], "f16") != 0;
    const double budget_s = argc > 5 ? atof(argv[5]) : 60;
    const char *second = argc > 6 ? argv[6] : "add";
    const bool second_add = strcmp(second, "add") == 0;
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_DEFAULT;
    if (strcmp(second, "bias") == 0) epi = CUBLASLT_EPILOGUE_BIAS;
    else if (strcmp(second, "relu") == 0) epi = CUBLASLT_EPILOGUE_RELU;
    else if (strcmp(second, "relu_bias") == 0) epi = CUBLASLT_EPILOGUE_RELU_BIAS;
    else if (!second_add) {
        fprintf(stderr, "the second side is add, bias, relu or relu_bias, not %s\n", second);
        return 2;
    }
    const cudaDataType_t t = bf16 ? CUDA_R_16BF : CUDA_R_16F;

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    Gemm g{};
    g.add_second = second_add;
    LK(cublasLtCreate(&g.h));
    CK(cudaStreamCreate(&g.st));
    CK(cudaEventCreate(&g.e0));
    CK(cudaEventCreate(&g.e1));
    uint16_t *A, *B, *D, *C;
    CK(cudaMalloc(&A, M * K * 2));
    CK(cudaMalloc(&B, K * N * 2));
    CK(cudaMalloc(&D, M * N * 2));
    CK(cudaMalloc(&C, M * N * 2));
    fill_kernel<<<1024, 256>>>(A, M * K, 1, bf16);
    fill_kernel<<<1024, 256>>>(B, K * N, 2, bf16);
    fill_kernel<<<1024, 256>>>(D, M * N, 3, bf16);
    g.ws_bytes = 32 << 20;
    CK(cudaMalloc(&g.ws, g.ws_bytes));
    g.sweep_n = 2 * (size_t)prop.l2CacheSize / 16;
    void *sw;
    CK(cudaMalloc(&sw, g.sweep_n * 16));
    CK(cudaMemset(sw, 0, g.sweep_n * 16));
    g.sweep = (const uint4 *)sw;
    CK(cudaMalloc(&g.sink, 4));
    CK(cudaDeviceSynchronize());
    g.A = A, g.B = B, g.D = D, g.C = C;

    // row-major out[M, N] = A[M, K] B[K, N]: column-major out^T[N, M] = B^T[N, K] A^T[K, M]
    LK(cublasLtMatrixLayoutCreate(&g.la, t, N, K, N));
    LK(cublasLtMatrixLayoutCreate(&g.lb, t, K, M, K));
    LK(cublasLtMatrixLayoutCreate(&g.lc, t, N, M, N));
    LK(cublasLtMatmulDescCreate(&g.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    LK(cublasLtMatmulDescCreate(&g.desc2, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    if (!second_add) {
        LK(cublasLtMatmulDescSetAttribute(g.desc2, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
        if (epi != CUBLASLT_EPILOGUE_RELU) {  // the bias: the first N elements of D
            const void *bias = D;
            LK(cublasLtMatmulDescSetAttribute(g.desc2, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
            const cudaDataType_t bt = t;
            LK(cublasLtMatmulDescSetAttribute(g.desc2, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt));
        }
    }
    cublasLtMatmulPreference_t pref;
    LK(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = g.ws_bytes;
    LK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));

    printf("%s · %s %ld x %ld x %ld (M x N x K), row-major; cold L2 (read sweep of %zu MB) each sample\n", prop.name,
           bf16 ? "bfloat16" : "float16", M, N, K, g.sweep_n * 16 >> 20);
    const double flop = 2.0 * M * N * K;

    int ids[512], n_ids = 0;
    LK(cublasLtMatmulAlgoGetIds(g.h, CUBLAS_COMPUTE_32F, CUDA_R_32F, t, t, t, t, 512, ids, &n_ids));
    printf("algorithm ids: %d\n", n_ids);

    float best_side[2] = {0, 0};
    std::vector<Config> plain_best;  // the plain side's fastest, re-checked under the second side
    for (int side = 0; side < 2; side++) {
        g.second = side == 1;
        g.add = side == 1 && second_add;
        const cublasLtMatmulDesc_t dsc = g.second ? g.desc2 : g.desc;
        const char *name = side == 0 ? "plain (beta = 0)" : second_add ? "add (beta = 1, C = D)" : second;
        auto t0 = std::chrono::steady_clock::now();
        // the heuristic's candidates first, marked
        cublasLtMatmulHeuristicResult_t hr[32];
        int found = 0;
        LK(cublasLtMatmulAlgoGetHeuristic(g.h, dsc, g.la, g.lb, g.lc, g.lc, pref, 32, hr, &found));
        std::vector<Config> cfgs;
        for (int i = 0; i < found; i++) {
            Config c{};
            c.algo = hr[i].algo;
            c.id = cfg_attr(&c.algo, CUBLASLT_ALGO_CONFIG_ID);
            c.tile = cfg_attr(&c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
            c.stages = cfg_attr(&c.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
            c.custom = cfg_attr(&c.algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
            c.swizzle = cfg_attr(&c.algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
            c.cluster = cfg_attr(&c.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
            c.heuristic = true;
            c.hrank = i;
            c.ws = hr[i].workspaceSize;
            cfgs.push_back(c);
        }
        const size_t n_heur = cfgs.size();
        // every id x tile x stages x custom x swizzle x cluster that the check accepts, split-K off
        static const int clusters[] = {CUBLASLT_CLUSTER_SHAPE_AUTO, CUBLASLT_CLUSTER_SHAPE_1x1x1,
                                       CUBLASLT_CLUSTER_SHAPE_2x1x1, CUBLASLT_CLUSTER_SHAPE_1x2x1,
                                       CUBLASLT_CLUSTER_SHAPE_4x1x1, CUBLASLT_CLUSTER_SHAPE_1x4x1,
                                       CUBLASLT_CLUSTER_SHAPE_2x2x1};
        long checked = 0;
        for (int k = 0; k < n_ids; k++) {
            cublasLtMatmulAlgo_t base;
            if (cublasLtMatmulAlgoInit(g.h, CUBLAS_COMPUTE_32F, CUDA_R_32F, t, t, t, t, ids[k], &base) !=
                CUBLAS_STATUS_SUCCESS)
                continue;
            auto tiles = cap_array<uint32_t>(&base, CUBLASLT_ALGO_CAP_TILE_IDS);
            auto stages = cap_array<uint32_t>(&base, CUBLASLT_ALGO_CAP_STAGES_IDS);
            int32_t custom_max = 0, swz = 0;
            size_t w;
            cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, &custom_max,
                                              sizeof custom_max, &w);
            cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, &swz, sizeof swz, &w);
            if (tiles.empty()) tiles.push_back(CUBLASLT_MATMUL_TILE_UNDEFINED);
            if (stages.empty()) stages.push_back(CUBLASLT_MATMUL_STAGES_UNDEFINED);
            for (uint32_t tile : tiles)
                for (uint32_t stg : stages)
                    for (int32_t cu = 0; cu <= custom_max; cu++)
                        for (int32_t sz = 0; sz <= (swz ? 1 : 0); sz++)
                            for (int cl : clusters) {
                                cublasLtMatmulAlgo_t a = base;
                                const int32_t splitk = 1;
                                const uint16_t cl16 = (uint16_t)cl;
                                cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                                                     sizeof tile);
                                cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stg,
                                                                     sizeof stg);
                                cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &cu,
                                                                     sizeof cu);
                                cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &sz,
                                                                     sizeof sz);
                                cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk,
                                                                     sizeof splitk);
                                if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
                                                                         &cl16, sizeof cl16) != CUBLAS_STATUS_SUCCESS &&
                                    cl != CUBLASLT_CLUSTER_SHAPE_AUTO)
                                    continue;
                                checked++;
                                cublasLtMatmulHeuristicResult_t r{};
                                if (cublasLtMatmulAlgoCheck(g.h, dsc, g.la, g.lb, g.lc, g.lc, &a, &r) !=
                                    CUBLAS_STATUS_SUCCESS)
                                    continue;
                                if (r.workspaceSize > g.ws_bytes) continue;
                                Config c{};
                                c.algo = a;
                                c.id = ids[k], c.tile = (int)tile, c.stages = (int)stg, c.custom = cu, c.swizzle = sz,
                                c.cluster = cl, c.ws = r.workspaceSize;
                                cfgs.push_back(c);
                            }
        }
        printf("\n== %s: %zu heuristic candidates, %ld configurations checked, %zu accepted\n", name, n_heur, checked,
               cfgs.size() - n_heur);
        // pass 1: one cold sample each (after a warm-up), within the budget: the heuristic's first,
        // then the algorithm ids in turn (one configuration of each id per round), so that a
        // budget that runs out leaves every id sampled alike
        size_t timed = 0;
        for (size_t i = 0; i < n_heur; i++, timed++) cfgs[i].first_ms = time_cfg(g, &cfgs[i].algo, 1);
        std::vector<std::vector<Config *>> by_id;
        std::vector<int> id_of;
        for (size_t i = n_heur; i < cfgs.size(); i++) {
            size_t k = 0;
            while (k < id_of.size() && id_of[k] != cfgs[i].id) k++;
            if (k == id_of.size()) id_of.push_back(cfgs[i].id), by_id.emplace_back();
            by_id[k].push_back(&cfgs[i]);
        }
        bool out_of_time = false;
        for (size_t round = 0; !out_of_time; round++) {
            bool any = false;
            for (auto &v : by_id) {
                if (round >= v.size()) continue;
                any = true;
                if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > budget_s) {
                    out_of_time = true;
                    break;
                }
                v[round]->first_ms = time_cfg(g, &v[round]->algo, 1);
                timed++;
            }
            if (!any) break;
        }
        printf("per algorithm id: accepted, sampled, fastest first sample (ms)\n");
        for (size_t k = 0; k < by_id.size(); k++) {
            int sampled = 0;
            float best = -1;
            for (auto *c : by_id[k])
                if (c->first_ms > 0) {
                    sampled++;
                    if (best < 0 || c->first_ms < best) best = c->first_ms;
                }
            printf("  id %3d: %5zu %5d %9.4f\n", id_of[k], by_id[k].size(), sampled, best);
        }
        // pass 2: the 24 fastest and every heuristic candidate, 7 samples each
        std::vector<Config *> order;
        for (auto &c : cfgs)
            if (c.first_ms > 0) order.push_back(&c);
        std::sort(order.begin(), order.end(), [](Config *a, Config *b) { return a->first_ms < b->first_ms; });
        for (size_t i = 0; i < order.size(); i++)
            if (i < 24 || order[i]->heuristic) order[i]->med_ms = time_cfg(g, &order[i]->algo, 7);
        std::vector<Config *> fin;
        for (auto *c : order)
            if (c->med_ms > 0) fin.push_back(c);
        std::sort(fin.begin(), fin.end(), [](Config *a, Config *b) { return a->med_ms < b->med_ms; });
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        printf("timed %zu of %zu in %.1f s (%zu launched)\n", timed, cfgs.size(), el, order.size());
        printf("heuristic candidates (rank: median ms, TFLOP/s):\n");
        for (auto &c : cfgs)
            if (c.heuristic && c.med_ms > 0)
                printf("  h%-2d %9.4f ms %6.1f  %s\n", c.hrank, c.med_ms, flop / c.med_ms / 1e9, describe(c).c_str());
        printf("fastest 12:\n");
        for (size_t i = 0; i < fin.size() && i < 12; i++)
            printf("  %2zu %9.4f ms %6.1f  %s\n", i, fin[i]->med_ms, flop / fin[i]->med_ms / 1e9,
                   describe(*fin[i]).c_str());
        float hbest = -1;
        for (auto &c : cfgs)
            if (c.heuristic && c.med_ms > 0 && (hbest < 0 || c.med_ms < hbest)) hbest = c.med_ms;
        best_side[side] = fin.empty() ? -1 : fin[0]->med_ms;
        if (side == 0) {
            plain_best.clear();
            for (size_t i = 0; i < fin.size() && i < 24; i++) plain_best.push_back(*fin[i]);
        } else {
            // the plain side's fastest configurations with the second side's descriptor
            printf("the plain side's fastest %zu under the %s descriptor (plain ms -> %s ms):\n", plain_best.size(), name, name);
            float cross = -1;
            for (auto &c : plain_best) {
                cublasLtMatmulHeuristicResult_t r{};
                if (cublasLtMatmulAlgoCheck(g.h, dsc, g.la, g.lb, g.lc, g.lc, &c.algo, &r) != CUBLAS_STATUS_SUCCESS ||
                    r.workspaceSize > g.ws_bytes) {
                    printf("  %9.4f -> refused   %s\n", c.med_ms, describe(c).c_str());
                    continue;
                }
                const float ms = time_cfg(g, &c.algo, 7);
                printf("  %9.4f -> %9.4f  %s\n", c.med_ms, ms, describe(c).c_str());
                if (ms > 0 && (cross < 0 || ms < cross)) cross = ms;
            }
            printf("CROSS best plain config under %s: %.4f ms (%.3f of the best plain)\n", name, cross,
                   cross / best_side[0]);
            if (!fin.empty() && !plain_best.empty()) paired(g, &plain_best[0].algo, &fin[0]->algo, name);
        }
        printf("best of the heuristic's %.4f ms, of all %.4f ms\n", hbest, best_side[side]);
    }
    printf("\nRESULT %ld %ld %ld %s plain %.4f %s %.4f %s/plain %.3f\n", M, N, K, bf16 ? "bf16" : "f16",
           best_side[0], second, best_side[1], second, best_side[1] / best_side[0]);
    return 0;
}
