// common.cuh — what every kernel file shares: dtype traits (half types are stored
// as half and computed in fp32, as PyTorch does; float64 computes in double),
// 16-byte vector access, warp and block reductions, and dtype dispatch.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "../src/fb.h"

namespace fb {

// ---- dtype traits -----------------------------------------------------------
// acc_t<T>: the type arithmetic happens in. float for float/half/bfloat16,
// double for double.
template <typename T> struct traits;
template <> struct traits<float> {
    using acc = float;
    static constexpr fb_dtype dtype = FB_F32;
};
template <> struct traits<__half> {
    using acc = float;
    static constexpr fb_dtype dtype = FB_F16;
};
template <> struct traits<__nv_bfloat16> {
    using acc = float;
    static constexpr fb_dtype dtype = FB_BF16;
};
template <> struct traits<double> {
    using acc = double;
    static constexpr fb_dtype dtype = FB_F64;
};
template <typename T> using acc_t = typename traits<T>::acc;

__device__ __forceinline__ float to_acc(float x) { return x; }
__device__ __forceinline__ float to_acc(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_acc(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ double to_acc(double x) { return x; }

template <typename T> __device__ __forceinline__ T from_acc(acc_t<T> x);
template <> __device__ __forceinline__ float from_acc<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_acc<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_acc<__nv_bfloat16>(float x) {
    return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ double from_acc<double>(double x) { return x; }

// ---- 16-byte vectors --------------------------------------------------------
// One LDG.128 / STG.128 per thread is what saturates HBM; vec<T> is the unit.
template <typename T> struct alignas(16) vec {
    static constexpr int n = 16 / sizeof(T);
    T v[n];
};

template <typename T> __device__ __forceinline__ vec<T> load_vec(const T *p) {
    vec<T> r;
    *reinterpret_cast<int4 *>(&r) = *reinterpret_cast<const int4 *>(p);
    return r;
}
// Streaming load: read once, do not keep in L1 (ld.global.nc.L1::no_allocate).
template <typename T> __device__ __forceinline__ vec<T> load_vec_stream(const T *p) {
    vec<T> r;
    *reinterpret_cast<int4 *>(&r) = __ldcs(reinterpret_cast<const int4 *>(p));
    return r;
}
template <typename T> __device__ __forceinline__ void store_vec(T *p, const vec<T> &x) {
    *reinterpret_cast<int4 *>(p) = *reinterpret_cast<const int4 *>(&x);
}
// Streaming store: evict-first, the output is not read again by this kernel.
template <typename T> __device__ __forceinline__ void store_vec_stream(T *p, const vec<T> &x) {
    __stcs(reinterpret_cast<int4 *>(p), *reinterpret_cast<const int4 *>(&x));
}

__host__ __device__ __forceinline__ bool aligned16(const void *p) {
    return (reinterpret_cast<uintptr_t>(p) & 15u) == 0;
}

// pack<T, N>: what one access moves, N = 16 / sizeof(T) (a 16-byte vector) or N = 1 (one
// element, for tensors that are not 16-byte aligned). Kept raw (packed) from load to
// use, so U packs in flight cost U x 4 registers whatever the dtype.
template <typename T, int N> struct alignas(N * sizeof(T)) pack {
    static_assert(N == 1 || N * sizeof(T) == 16, "a pack is one element or 16 bytes");
    T v[N];
};
template <typename T, int N> __device__ __forceinline__ pack<T, N> load_pack_stream(const T *p) {
    pack<T, N> r;
    if constexpr (N == 1) r.v[0] = __ldcs(p);
    else *reinterpret_cast<int4 *>(&r) = __ldcs(reinterpret_cast<const int4 *>(p));
    return r;
}
// Makes a held pack opaque to the optimiser at this point (an empty asm volatile that "changes"
// its words): work on it cannot be hoisted out of the loop that calls this. For a pack held raw
// across a loop because it is the same every iteration (rmsnorm's w): without this the compiler
// widens it once before the loop, which doubles its registers (bfloat16 spilled 96 bytes and ran
// 10-25% slower, NOTES.md, issue 9).
template <typename T, int N> __device__ __forceinline__ void opaque(pack<T, N> &p) {
    if constexpr (sizeof(pack<T, N>) == 16) {
        int4 &w = *reinterpret_cast<int4 *>(&p);
        asm volatile("" : "+r"(w.x), "+r"(w.y), "+r"(w.z), "+r"(w.w));
    }
}
// Plain (cached, default-policy) pack access: what Triton/Inductor emit for elementwise loads and
// stores without an eviction hint.
template <typename T, int N> __device__ __forceinline__ pack<T, N> load_pack_plain(const T *p) {
    pack<T, N> r;
    if constexpr (N == 1) r.v[0] = *p;
    else *reinterpret_cast<int4 *>(&r) = *reinterpret_cast<const int4 *>(p);
    return r;
}
// 16-byte loads with an eviction priority in both L1 and L2 (an L2 access policy made by
// createpolicy), as Inductor's reductions emit them: evict_last for a first pass whose lines a
// second pass reads again, evict_first for that last read (it demotes the lines, so none
// outlives the kernel).
enum class Evict { Last, First };
template <Evict E> __device__ __forceinline__ int4 load16_evict(const void *p) {
    int4 r;
    if constexpr (E == Evict::Last)
        asm volatile("{\n .reg .b64 pol;\n createpolicy.fractional.L2::evict_last.b64 pol, 1.0;\n"
                     " ld.global.L1::evict_last.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%4], pol;\n}"
                     : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    else
        asm volatile("{\n .reg .b64 pol;\n createpolicy.fractional.L2::evict_first.b64 pol, 1.0;\n"
                     " ld.global.L1::evict_first.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%4], pol;\n}"
                     : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    return r;
}
template <Evict E, typename T, int N> __device__ __forceinline__ pack<T, N> load_pack_evict(const T *p) {
    static_assert(sizeof(pack<T, N>) == 16, "16-byte packs only");
    pack<T, N> r;
    *reinterpret_cast<int4 *>(&r) = load16_evict<E>(p);
    return r;
}
// Programmatic dependent launch (sm_90): a kernel that feeds a second one lets it be scheduled
// before this grid ends (allow_dependent_launch), and the second, launched by launch_dependent,
// waits in wait_prerequisite_grid until the first has finished and its stores are visible. Only
// the second's launch overlaps the first's tail. Both are no-ops for a kernel launched plainly.
__device__ __forceinline__ void allow_dependent_launch() { asm volatile("griddepcontrol.launch_dependents;"); }
__device__ __forceinline__ void wait_prerequisite_grid() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
inline cudaError_t launch_dependent(const void *fn, dim3 grid, dim3 block, size_t smem, void **args,
                                    cudaStream_t stream) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelExC(&cfg, fn, args);
}
template <typename T, int N> __device__ __forceinline__ void store_pack_plain(T *p, const pack<T, N> &x) {
    if constexpr (N == 1) *p = x.v[0];
    else *reinterpret_cast<int4 *>(p) = *reinterpret_cast<const int4 *>(&x);
}
template <typename T, int N> __device__ __forceinline__ void store_pack_stream(T *p, const pack<T, N> &x) {
    if constexpr (N == 1) __stcs(p, x.v[0]);
    else __stcs(reinterpret_cast<int4 *>(p), *reinterpret_cast<const int4 *>(&x));
}

// ---- shared-memory staging ----------------------------------------------------
// 16-byte cp.async (global -> shared, bypassing L1 and registers): what rowwise's smem_rows and
// row_smem and rowgroup's pipelined backward stage rows with. Groups are per thread; wait_group waits for this thread's copies.
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
    const unsigned sa = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }
// cp.async.wait_group takes an immediate: wait until at most n of this thread's groups pend.
__device__ __forceinline__ void cp_async_wait_pending(int n) {
    switch (n) {
#define FB_WAIT(k) case k: asm volatile("cp.async.wait_group " #k ";" ::: "memory"); break;
        FB_WAIT(1) FB_WAIT(2) FB_WAIT(3) FB_WAIT(4) FB_WAIT(5) FB_WAIT(6) FB_WAIT(7)
        FB_WAIT(8) FB_WAIT(9) FB_WAIT(10) FB_WAIT(11) FB_WAIT(12) FB_WAIT(13) FB_WAIT(14) FB_WAIT(15)
#undef FB_WAIT
    default: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    }
}

// ---- mbarriers: per-stage "full" (the copies landed) and "empty" (its readers are done) ----
// These are sm_80+ instructions (cp.async.mbarrier.arrive) and sm_90 forms; they let warps or
// warpgroups run out of phase instead of meeting at a CTA barrier every stage (the back-to-back
// GEMM's stages, rowgroup.cuh's split group sums).
__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(count)
                 : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"((uint32_t)__cvta_generic_to_shared(bar))
                 : "memory");
}
// The barrier counts one arrival for this thread when all its cp.async copies so far have landed.
__device__ __forceinline__ void mbar_arrive_cp_async(uint64_t *bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(
                     (uint32_t)__cvta_generic_to_shared(bar))
                 : "memory");
}
// Wait until the phase with this parity (0 for the first) has completed.
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity) {
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(bar);
    uint32_t done;
    do {
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(addr), "r"(parity)
            : "memory");
    } while (!done);
}

// Arrive once and add `bytes` to the transactions this phase waits for (st.async or bulk copies
// into this CTA count them down as they land).
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                     (uint32_t)__cvta_generic_to_shared(bar)),
                 "r"(bytes)
                 : "memory");
}
// After mbarrier.init: the barriers visible to the cluster's other CTAs (and async copies).
__device__ __forceinline__ void fence_mbar_init_cluster() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// ---- distributed shared memory (sm_90 clusters) ------------------------------------
// The shared::cluster address of `p` (this CTA's shared memory) in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t dsmem_addr(const void *p, uint32_t rank) {
    uint32_t out;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                 : "=r"(out)
                 : "r"((uint32_t)__cvta_generic_to_shared(p)), "r"(rank));
    return out;
}
// Two values into another CTA's shared memory (`dst`, 8- or 16-byte aligned), their bytes counted
// on that CTA's mbarrier `bar` (both shared::cluster addresses from dsmem_addr). No fence and no
// cluster barrier: the receiver's mbarrier wait is what orders the data.
__device__ __forceinline__ void st_async_pair(uint32_t dst, float a, float b, uint32_t bar) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];\n" ::"r"(dst),
                 "f"(a), "f"(b), "r"(bar)
                 : "memory");
}
__device__ __forceinline__ void st_async_pair(uint32_t dst, double a, double b, uint32_t bar) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f64 [%0], {%1, %2}, [%3];\n" ::"r"(dst),
                 "d"(a), "d"(b), "r"(bar)
                 : "memory");
}

// ---- math in the accumulation type ----------------------------------------------
// Precise libdevice functions (cosf, not __cosf): results are checked against float64
// (float32 with rtol ~1e-5). math::cos(x) picks cosf or cos by the type of x.
namespace math {
__device__ __forceinline__ float cos(float x) { return ::cosf(x); }
__device__ __forceinline__ double cos(double x) { return ::cos(x); }
__device__ __forceinline__ float erf(float x) { return ::erff(x); }
__device__ __forceinline__ double erf(double x) { return ::erf(x); }
}  // namespace math

// ---- reductions ---------------------------------------------------------------
// NaN-propagating max, as torch.amax: fmaxf would drop a NaN.
template <typename A> __device__ __forceinline__ A nan_max(A a, A b) {
    return (a != a || a > b) ? a : b;
}

template <typename A> __device__ __forceinline__ A warp_sum(A x) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}
template <typename A> __device__ __forceinline__ A warp_max(A x) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x = nan_max(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}

// Block-wide reductions over blockDim.x threads (a multiple of 32, at most 1024).
// `scratch` holds at least 32 values; the result is returned to every thread.
// The leading __syncthreads lets a caller reuse the same scratch back to back.
template <typename A> __device__ __forceinline__ A block_sum(A x, A *scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    x = warp_sum(x);
    __syncthreads();
    if (lane == 0) scratch[warp] = x;
    __syncthreads();
    x = lane < nwarps ? scratch[lane] : A(0);
    return warp_sum(x);
}
template <typename A> __device__ __forceinline__ A block_max(A x, A *scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    x = warp_max(x);
    __syncthreads();
    if (lane == 0) scratch[warp] = x;
    __syncthreads();
    x = lane < nwarps ? scratch[lane] : A(-INFINITY);
    return warp_max(x);
}

// ---- launch sizing (host) ---------------------------------------------------------
// The device's SM count, read once (132, an H100 SXM's, if it cannot be read): grids of
// persistent kernels are sized to it.
inline int sm_count() {
    static int sms = 0;
    if (sms == 0) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)
            sms = 132;
        (void)cudaGetLastError();
    }
    return sms;
}

// CTAs of `threads` threads (and `smem` dynamic shared bytes) of `kernel` that fit one SM at
// once, from the occupancy calculator; 1 if it cannot say. Callers cache it per kernel.
template <typename K> inline int resident_ctas(K kernel, int threads, size_t smem = 0) {
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem) != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        n = 1;
    }
    return n;
}

// ---- cluster barrier halves (device) ---------------------------------------------
// arrive.release + wait (acquire) publishes shared-memory writes to the peer CTAs; a second
// arrive after the last remote read, paired with a wait just before exit, keeps every CTA's
// shared memory alive while peers may still read it, without stalling the stores in between.
__device__ __forceinline__ void cluster_arrive_release() {
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
// An arrive with no release (no fence): for a barrier that only orders mbarrier initialisation
// (fence.mbarrier_init.release.cluster covers that) before the peers' first remote arrivals.
__device__ __forceinline__ void cluster_arrive_relaxed() {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

// ---- clusters (host) -------------------------------------------------------------
// A launch of `grid` CTAs in clusters of C along x (C = 1: no cluster attribute). `attr` is
// the caller's and must outlive the launch call.
inline cudaLaunchConfig_t cluster_config(unsigned grid, unsigned threads, size_t smem, cudaStream_t st, int C,
                                         cudaLaunchAttribute *attr) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)C;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = C > 1 ? 1 : 0;
    return cfg;
}
// The same launch of a kernel known by address, its arguments as an array (cudaLaunchKernel's).
inline cudaError_t launch_clusters_args(const void *fn, unsigned grid, unsigned threads, size_t smem,
                                        cudaStream_t st, int C, void **args) {
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = cluster_config(grid, threads, smem, st, C, attr);
    return cudaLaunchKernelExC(&cfg, fn, args);
}
// Clusters of C CTAs (of `threads` threads, `smem` dynamic bytes) of `fn` resident at once:
// whole clusters must fit one GPC, so they can leave SMs idle (H100, 1024-thread CTAs of ~200 KB:
// C = 4 fits 30, 120 of 132 SMs); 0 if refused. The occupancy calculator is a driver query and
// kernels plan on every launch, so each answer is kept (a handful of kernels and shapes per
// process).
inline int resident_clusters(const void *fn, int threads, size_t smem, int C) {
    struct Known {
        const void *fn;
        int threads, C;
        size_t smem;
        int clusters;
    };
    static Known known[32];
    static int n_known = 0;
    for (int i = 0; i < n_known; ++i)
        if (known[i].fn == fn && known[i].threads == threads && known[i].C == C && known[i].smem == smem)
            return known[i].clusters;
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = cluster_config((unsigned)C, (unsigned)threads, smem, 0, C, attr);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, fn, &cfg) != cudaSuccess || clusters <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    if (n_known < 32) known[n_known++] = Known{fn, threads, C, smem, clusters};
    return clusters;
}

}  // namespace fb

// ---- dtype dispatch -------------------------------------------------------------
// FB_DISPATCH(dt, T, body): runs body with T bound to the storage type of dt.
#define FB_DISPATCH(dt, T, ...)                                  \
    switch (dt) {                                                \
    case FB_F32: { using T = float; __VA_ARGS__; } break;        \
    case FB_F16: { using T = __half; __VA_ARGS__; } break;       \
    case FB_BF16: { using T = __nv_bfloat16; __VA_ARGS__; } break; \
    case FB_F64: { using T = double; __VA_ARGS__; } break;       \
    default: break;                                              \
    }
// Only the half types and float32 (fused kernels that do not do float64).
#define FB_DISPATCH_FLOAT(dt, T, ...)                            \
    switch (dt) {                                                \
    case FB_F32: { using T = float; __VA_ARGS__; } break;        \
    case FB_F16: { using T = __half; __VA_ARGS__; } break;       \
    case FB_BF16: { using T = __nv_bfloat16; __VA_ARGS__; } break; \
    default: break;                                              \
    }
