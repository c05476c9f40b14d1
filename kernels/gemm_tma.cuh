// gemm_tma.cuh — a persistent, warp-specialised sm_90a GEMM that can add a full [M, N] addend
// while its main loop runs: out = A[M, K] · B[K, N] (+ D[M, N]), 16-bit row-major operands,
// float32 accumulation, one rounding at the end (as cuBLASLt's beta = 1, C = D).
//
// Why it exists (issue 10, kernels/NOTES.md "Stop 41", "Stop 42", "Stop 46"): cuBLASLt reads D
// after its main loop, so the full add costs 1.19-1.20x the plain GEMM on the H200 at K = 1024,
// under every configuration it offers. The floors say D's read can hide: at 8192 x 8192 x 1024
// the GEMM is ~170 us of tensor-core time, D is 128 MB (~31 us of DRAM) and the operand and output
// traffic leave the memory system room. This kernel loads each tile's D into shared memory during
// the tile's main loop, so the epilogue reads D from shared memory.
//
// Shape of the kernel:
//   - one CTA per SM (persistent), 384 threads: warpgroup 0 is the producer (one thread issues
//     the operands' TMA copies), the store warp (warp 1: the output's TMA stores) and, with
//     d_async, up to three D loader warps; it gives its registers back. Warpgroups 1 and 2 are
//     consumers, 64 rows of the 128 x 256 output tile each (m64n256k16 wgmma, 128 float32
//     accumulators a thread), K in steps of KSTEP = 64 (or 32: A's rows 64-byte swizzled, twice
//     the stages in the same shared memory: with D 0.7-1.7% faster on three of four K = 1024
//     shapes, the plain GEMM unchanged, NOTES.md "Stop 47")
//     through STAGES shared-memory stages with full/empty mbarriers;
//   - tiles walk in groups of GROUP_M cluster rows along M (L2 reuse of B), the same order in every
//     CTA of a cluster;
//   - CLUSTER = 2: the two CTAs of a cluster take vertically adjacent tiles (same columns of B), and
//     each loads half of the B tile and multicasts it to both, so a CTA reads 32 KB per k-step
//     instead of 48. A stage is freed by a CTA-scope arrival on each CTA's empty barrier: a
//     .release.cluster arrival cost a third of the speed (NOTES.md, "Stop 46");
//   - the epilogue: the consumers wait for D's tile (ADD) in the output buffer, add it to the
//     accumulators (ldmatrix, four in flight), round, write the result over it in place
//     (stmatrix), and arrive at a named barrier; the store warp stores the buffer by TMA, waits
//     until the store has read it, and frees it (c_free), so no consumer waits on a store. D's
//     next tile is loaded into the freed buffer either by the producer's TMA, one 64-column box
//     a k-step from step 2 (d_async = 0), or by the loader warps' cp.async in the TMA's swizzled
//     layout (d_async = 1..3 warps), which keeps D's DRAM reads out of the TMA unit that feeds
//     the main loop.
// Measured on the H200 (dev/gemm_add_dev.cu; NOTES.md "Stop 46", "Stop 47"): the plain GEMM at
// parity with cuBLASLt at 8192^3, 1.07-1.10x its time at K = 1024 at free clocks but equal at
// Nsight Compute's locked 1.27 GHz (244 against 246 us at 8192^2 x 1024); neither more stages
// (KSTEP = 32), fewer DRAM bytes (an L2 evict_first output) nor a lower clock (it runs higher
// than cuBLASLt's) explains the free-clock gap. With D, 1.12-1.24x the plain cuBLASLt GEMM at
// K = 1024, about cuBLASLt's own full add (1.17-1.25x): faster on the smaller grids.
// Limits: 16-bit types, rows 16-byte aligned (N and K multiples of 8, bases 16-byte aligned);
// any M, N, K otherwise (TMA fills zeros past the edges and drops stores past them).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tensorcore.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace fb {
namespace gemm {

constexpr int BM = 128, BN = 256, BK = 64;
constexpr int CONSUMERS = 2;  // warpgroups of 64 rows
constexpr int THREADS = 128 * (1 + CONSUMERS);
constexpr int GROUP_M = 8;  // cluster rows per group of the tile order
constexpr uint32_t D_BYTES = BM * BN * 2;   // 64 KB: 4 boxes of 128 rows x 64 columns
constexpr uint32_t D_BOX_BYTES = BM * 128;  // one 64-column box of the output tile

// KSTEP: K a stage, BK (A's rows 128 bytes, 128-byte swizzled) or 32 (64 bytes, 64-byte swizzled:
// twice the stages in the same shared memory, so more of them in flight past the two a consumer
// warpgroup holds).
template <int STAGES, int KSTEP = BK> constexpr size_t smem_bytes() {
    return 1024 /* alignment slack */ + STAGES * (BM * KSTEP * 2 + KSTEP * BN * 2) + D_BYTES + (2 * STAGES + 2) * 8;
}

// The consumers and the store warp meet at this named barrier once a tile (bar.arrive / bar.sync).
constexpr int EPI_BARRIER = 1, EPI_THREADS = 128 * CONSUMERS + 32;

struct Args {
    CUtensorMap a, b, d, c;  // A [M, K], B [K, N], D [M, N], out [M, N]; boxes of 128 or 64 rows x 64 columns
    int M, N, K;
    int d_async;  // D's tile by cp.async from this many warps of the producer warpgroup (1-3), or 0: by TMA
    const void *d_ptr;  // D (for d_async)
#ifdef FB_GEMM_TRACE
    long long *trace;  // dev/gemm_add_dev.cu: clock64 stamps of the first consumer, TRACE_TILES tiles a CTA
#endif
};

#ifdef FB_GEMM_TRACE
constexpr int TRACE_TILES = 32, TRACE_EVENTS = 8;  // events 0-6 in clock64 cycles, 7 the tile's start in %globaltimer ns
#define FB_TRACE(i, v)                                                                                        \
    do {                                                                                                      \
        if (p.trace && cw == 0 && lane128 == 0 && count < TRACE_TILES)                                        \
            p.trace[((long)blockIdx.x * TRACE_TILES + count) * TRACE_EVENTS + (i)] = (v);                     \
    } while (0)
#else
#define FB_TRACE(i, v) \
    do {               \
    } while (0)
#endif

struct Tile {
    int m0, n0;
};

// Tile t of the order: GROUP_M cluster rows (CLUSTER x 128 rows each) walked down before moving
// right, so the CTAs that run at once share B's columns and A's rows in L2.
template <int CLUSTER> __device__ __forceinline__ Tile tile_of(int t, int m_groups, int n_blocks, uint32_t rank) {
    const int per_group = GROUP_M * n_blocks;
    const int g = t / per_group, first = g * GROUP_M;
    const int size = min(m_groups - first, GROUP_M);
    const int r = t - g * per_group;
    Tile tile;
    tile.m0 = ((first + r % size) * CLUSTER + (int)rank) * BM;
    tile.n0 = (r / size) * BN;
    return tile;
}

template <typename T> __device__ __forceinline__ uint32_t pack2(float x, float y);
template <> __device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float x, float y) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(x, y);
    return *reinterpret_cast<const uint32_t *>(&v);
}
template <> __device__ __forceinline__ uint32_t pack2<__half>(float x, float y) {
    const __half2 v = __floats2half2_rn(x, y);
    return *reinterpret_cast<const uint32_t *>(&v);
}
template <typename T> __device__ __forceinline__ float2 unpack2(uint32_t u);
template <> __device__ __forceinline__ float2 unpack2<__nv_bfloat16>(uint32_t u) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&u));
}
template <> __device__ __forceinline__ float2 unpack2<__half>(uint32_t u) {
    return __half22float2(*reinterpret_cast<const __half2 *>(&u));
}

template <typename T, int CLUSTER, bool ADD, int STAGES, int KSTEP = BK>
__global__ void __launch_bounds__(THREADS, 1) gemm_tma_kernel(const __grid_constant__ Args p) {
    static_assert(KSTEP == 64 || KSTEP == 32, "a stage is 64 or 32 of K");
    constexpr uint32_t A_STAGE = BM * KSTEP * 2, B_STAGE = KSTEP * BN * 2;
    extern __shared__ uint8_t smem_raw[];
    uint8_t *smem = reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
    uint8_t *sA = smem;
    uint8_t *sB = smem + STAGES * A_STAGE;
    uint8_t *sD = sB + STAGES * B_STAGE;  // D's tile, then the output tile in its place
    uint64_t *full = reinterpret_cast<uint64_t *>(sD + D_BYTES);
    uint64_t *empty = full + STAGES;
    uint64_t *d_full = empty + STAGES;  // D's tile has landed (ADD)
    uint64_t *c_free = d_full + 1;      // the previous output tile has left the buffer

    const int wg = threadIdx.x / 128, lane128 = threadIdx.x % 128;
    const uint32_t rank = CLUSTER > 1 ? tma::cluster_rank() : 0;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full + s, 1);
            mbar_init(empty + s, CONSUMERS * CLUSTER);  // every consumer of every CTA that reads the stage
        }
        mbar_init(d_full, p.d_async ? 32 * p.d_async : BN / 64);  // a loader lane, or a box of D
        mbar_init(c_free, 1);
        fence_mbar_init_cluster();
    }
    if (CLUSTER > 1)
        tma::cluster_sync();
    else
        __syncthreads();

    const int m_blocks = (p.M + BM - 1) / BM, n_blocks = (p.N + BN - 1) / BN;
    const int m_groups = (m_blocks + CLUSTER - 1) / CLUSTER;
    const int tiles = m_groups * n_blocks;
    const int cluster_id = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    const int k_steps = (p.K + KSTEP - 1) / KSTEP;

    if (wg == 0) {
        tma::regs_dealloc<40>();
        if (lane128 == 0) {  // the producer
            int s = 0;
            uint32_t phase = 0;
            int count = 0;
            for (int t = cluster_id; t < tiles; t += clusters, ++count) {
                const Tile tile = tile_of<CLUSTER>(t, m_groups, n_blocks, rank);
                for (int kb = 0; kb < k_steps; ++kb) {
                    mbar_wait(empty + s, phase ^ 1);
                    mbar_arrive_expect_tx(full + s, A_STAGE + B_STAGE);
                    tma::load(sA + s * A_STAGE, &p.a, kb * KSTEP, tile.m0, full + s);
                    if (CLUSTER == 1) {
                        for (int q = 0; q < BN / 64; ++q)
                            tma::load(sB + s * B_STAGE + q * (KSTEP * 128), &p.b, tile.n0 + q * 64, kb * KSTEP, full + s);
                    } else {
                        constexpr int per_cta = BN / 64 / CLUSTER;
                        for (int q = (int)rank * per_cta; q < ((int)rank + 1) * per_cta; ++q)
                            tma::load_multicast(sB + s * B_STAGE + q * (KSTEP * 128), &p.b, tile.n0 + q * 64, kb * KSTEP,
                                                full + s, (uint16_t)((1u << CLUSTER) - 1));
                    }
                    if (ADD && !p.d_async) {  // D's boxes, one a step from step 2, once the previous output has left
                        for (int q = 0; q < BN / 64; ++q) {
                            if (kb != min(q + 2, k_steps - 1)) continue;
                            if (q == 0) mbar_wait(c_free, (count & 1) ^ 1);
                            mbar_arrive_expect_tx(d_full, D_BOX_BYTES);
                            tma::load(sD + q * D_BOX_BYTES, &p.d, tile.n0 + q * 64, tile.m0, d_full);
                        }
                    }
                    if (++s == STAGES) s = 0, phase ^= 1;
                }
            }
        } else if (lane128 >= 32) {
            // Warp 1 stores each output tile by TMA and, once the store has read the buffer,
            // frees it (c_free). With d_async, warps 1 .. d_async load the next tile's D into the
            // buffer by cp.async, in the TMA's swizzled layout: through the LSU, not the TMA unit
            // that feeds the main loop. Their waits are off the MMA path.
            const int w = lane128 / 32, lane = lane128 % 32;
            const int loaders = ADD ? p.d_async : 0;
            auto load_d_async = [&](int t) {
                const Tile tl = tile_of<CLUSTER>(t, m_groups, n_blocks, rank);
                const T *D = static_cast<const T *>(p.d_ptr);
                for (int i = (w - 1) * 32 + lane; i < (BN / 64) * BM * 8; i += 32 * loaders) {
                    const int q = i / (BM * 8), r = (i / 8) % BM, u = i % 8;
                    const long gr = tl.m0 + r, gc = tl.n0 + q * 64 + u * 8;
                    const bool ok = gr < p.M && gc < p.N;
                    tc::cp_async16(sD + q * D_BOX_BYTES + wg::swizzle128(r, u), ok ? D + gr * p.N + gc : D, ok);
                }
                mbar_arrive_cp_async(d_full);
            };
            if (w <= loaders && cluster_id < tiles) load_d_async(cluster_id);
            int count = 0;
            for (int t = cluster_id; t < tiles; t += clusters, ++count) {
                if (w == 1) {
                    const Tile tile = tile_of<CLUSTER>(t, m_groups, n_blocks, rank);
                    tma::named_sync(EPI_BARRIER, EPI_THREADS);  // the consumers wrote the tile
                    if (lane == 0) {
                        for (int q = 0; q < BN / 64; ++q)
                            tma::store(&p.c, tile.n0 + q * 64, tile.m0, sD + q * D_BOX_BYTES);
                        tma::store_commit();
                        tma::store_wait_read();
                        mbar_arrive(c_free);
                    }
                    __syncwarp();
                } else if (w <= loaders) {
                    mbar_wait(c_free, count & 1);  // tile count's output has left the buffer
                }
                if (w <= loaders && t + clusters < tiles) load_d_async(t + clusters);
            }
            if (w == 1 && lane == 0) tma::store_wait();
        }
    } else {
        tma::regs_alloc<232>();
        const int cw = wg - 1;
        const int warp = lane128 / 32, lane = lane128 % 32;
        // a stage is free once every consumer of every CTA that received it is done with it
        auto release = [rank](uint64_t *bar) {
            if (CLUSTER == 1) {
                mbar_arrive(bar);
            } else {
                for (int c = 0; c < CLUSTER; ++c)
                    if (c == (int)rank)
                        mbar_arrive(bar);
                    else
                        tma::arrive_cluster(bar, (uint32_t)c);
            }
        };
        // this lane's row address in the epilogue's ldmatrix / stmatrix: matrix i = lane / 8 is
        // n-tile j + (i >> 1), rows (i & 1) * 8 .. + 7 of this warp's 16
        const int mat = lane / 8;
        const int row = cw * 64 + warp * 16 + (mat & 1) * 8 + (lane & 7);
        const uint32_t row_addr = tma::smem(sD) + row * 128;
        float acc[128];
        int s = 0;
        uint32_t phase = 0;
        int count = 0;
        for (int t = cluster_id; t < tiles; t += clusters, ++count) {
            int prev = 0;
            FB_TRACE(0, clock64());
#ifdef FB_GEMM_TRACE
            {  // the tile's start in ns as well: cycles over ns is the SM clock the tile ran at
                long long ns;
                asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
                FB_TRACE(7, ns);
            }
            long long waited = 0;
#endif
            for (int kb = 0; kb < k_steps; ++kb) {
#ifdef FB_GEMM_TRACE
                const long long w0 = clock64();
                mbar_wait(full + s, phase);
                const long long w1 = clock64();
                if (kb == 0) FB_TRACE(1, w1);
                if (kb == 1) FB_TRACE(2, w1);
                if (kb >= 2) waited += w1 - w0;
#else
                mbar_wait(full + s, phase);
#endif
                wg::fence();
                const uint32_t a0 = tma::smem(sA + s * A_STAGE + cw * 64 * (KSTEP * 2));  // this warpgroup's 64 rows
                const uint32_t b0 = tma::smem(sB + s * B_STAGE);
#pragma unroll
                for (int ks = 0; ks < KSTEP / 16; ++ks)
                    wg::Mma64<T, 256>::ss(acc,
                                          KSTEP == 64 ? wg::desc128(a0 + ks * 32, 16, 1024)
                                                      : wg::desc64(a0 + ks * 32, 16, 512),
                                          wg::desc128(b0 + ks * 2048, KSTEP * 128, 1024), kb > 0 || ks > 0);
                wg::commit();
                wg::wait<1>();  // the previous step's MMAs are done: its stage is free
                if (kb > 0 && lane128 == 0) release(empty + prev);
                prev = s;
                if (++s == STAGES) s = 0, phase ^= 1;
            }
            wg::wait<0>();
            if (lane128 == 0) release(empty + prev);
            FB_TRACE(3, clock64());
#ifdef FB_GEMM_TRACE
            FB_TRACE(6, waited);
#endif

            // epilogue: (D +) acc, rounded, into the buffer in place; the store warp stores it
            if (ADD)
                mbar_wait(d_full, count & 1);  // D landed (after the previous output had left)
            else
                mbar_wait(c_free, (count & 1) ^ 1);
            FB_TRACE(4, clock64());
            // four ldmatrix in flight before their sums are written back (a load, add, store
            // chain per pair of n-tiles would wait out the shared-memory latency 16 times)
#pragma unroll
            for (int j0 = 0; j0 < 32; j0 += 8) {
                uint32_t v[4][4];
                uint32_t addr[4];
#pragma unroll
                for (int u = 0; u < 4; ++u) {
                    const int jm = j0 + 2 * u + (mat >> 1);
                    addr[u] = row_addr + (jm >> 3) * D_BOX_BYTES + (((jm & 7) ^ (row & 7)) << 4);
                    if (ADD) tc::ldmatrix_x4(v[u], addr[u]);
                }
#pragma unroll
                for (int u = 0; u < 4; ++u) {
                    const int j = j0 + 2 * u;
#pragma unroll
                    for (int i = 0; i < 4; ++i) {  // matrix i: n-tile j + (i >> 1), row half i & 1
                        float x = acc[4 * (j + (i >> 1)) + 2 * (i & 1)], y = acc[4 * (j + (i >> 1)) + 2 * (i & 1) + 1];
                        if (ADD) {
                            const float2 d = unpack2<T>(v[u][i]);
                            x += d.x, y += d.y;
                        }
                        v[u][i] = pack2<T>(x, y);
                    }
                    wg::stmatrix_x4(addr[u], v[u]);
                }
            }
            wg::fence_proxy_async();  // the writes, visible to the TMA store
            tma::named_arrive(EPI_BARRIER, EPI_THREADS);
            FB_TRACE(5, clock64());
        }
    }
    if (CLUSTER > 1) tma::cluster_sync();  // no CTA leaves while its peer may still signal its barriers
}

// Host: a prepared launch (tensor maps built once, outside any timed region).
struct Plan {
    Args args;
    int grid = 0;
    size_t smem = 0;
    void (*kernel)(Args) = nullptr;
    int cluster = 1;
};

template <typename T> constexpr CUtensorMapDataType tma_type();
template <> constexpr CUtensorMapDataType tma_type<__nv_bfloat16>() { return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; }
template <> constexpr CUtensorMapDataType tma_type<__half>() { return CU_TENSOR_MAP_DATA_TYPE_FLOAT16; }

// Builds the plan; cudaErrorNotSupported where the shape or the device cannot take it (not an
// sm_90a build on a 9.0 GPU, rows not 16-byte aligned), another error where CUDA fails.
template <typename T, int CLUSTER, bool ADD, int STAGES = 3, int KSTEP = BK>
cudaError_t plan_gemm(Plan *plan, const void *A, const void *B, const void *D, void *out, int M, int N, int K) {
    if (!wg::available() || M <= 0 || N <= 0 || K <= 0) return cudaErrorNotSupported;
    const CUtensorMapDataType ty = tma_type<T>();
    Args &a = plan->args;
    a = Args{};  // d_async 0: D by TMA unless the caller sets it
    a.M = M, a.N = N, a.K = K;
    a.d_ptr = D;
    if (!tma::map_rows(&a.a, ty, A, M, K, K, BM, KSTEP) || !tma::map_rows(&a.b, ty, B, K, N, N, KSTEP) ||
        !tma::map_rows(&a.c, ty, out, M, N, N, BM) || (ADD && !tma::map_rows(&a.d, ty, D, M, N, N, BM)))
        return cudaErrorNotSupported;
    plan->kernel = gemm_tma_kernel<T, CLUSTER, ADD, STAGES, KSTEP>;
    plan->smem = smem_bytes<STAGES, KSTEP>();
    plan->cluster = CLUSTER;
    const cudaError_t e =
        cudaFuncSetAttribute(plan->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)plan->smem);
    if (e != cudaSuccess) return e;
    const int tiles = ((M + BM - 1) / BM + CLUSTER - 1) / CLUSTER * ((N + BN - 1) / BN);
    // what fits at once (common.cuh's launch sizing, as the row kernels size theirs): clusters of
    // two must fit one GPC, so the cluster form asks the cluster occupancy calculator
    const void *fn = reinterpret_cast<const void *>(plan->kernel);
    const int resident = CLUSTER > 1 ? resident_clusters(fn, THREADS, plan->smem, CLUSTER)
                                     : resident_ctas(fn, THREADS, plan->smem) * sm_count();
    if (resident <= 0) return cudaErrorNotSupported;
    plan->grid = CLUSTER * (tiles < resident ? tiles : resident);
    return cudaSuccess;
}

inline cudaError_t run_gemm(const Plan &plan, cudaStream_t stream) {
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = cluster_config((unsigned)plan.grid, THREADS, plan.smem, stream, plan.cluster, attr);
    return cudaLaunchKernelEx(&cfg, plan.kernel, plan.args);
}

}  // namespace gemm
}  // namespace fb
