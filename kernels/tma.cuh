// tma.cuh — the Hopper tensor memory accelerator (TMA) and thread-block clusters, as the GEMM of
// kernels/gemm_tma.cuh uses them: a host helper that describes a row-major 16-bit matrix to the
// TMA unit (a CUtensorMap with 128-byte swizzled boxes, the layout wgmma.cuh's descriptors read),
// and device wrappers for the bulk tensor copies (global -> shared, multicast to a cluster;
// shared -> global), their mbarrier transaction counts, and the cluster's rank, barrier and
// remote mbarrier arrivals. In namespace fb::tma.
//
// Why a driver entry point: cuTensorMapEncodeTiled is a driver API call; fetching it through the
// runtime (cudaGetDriverEntryPointByVersion, as src/metrics.c does for cuCtxGetCurrent) keeps the
// binary free of a link-time libcuda dependency.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "wgmma.cuh"

namespace fb {
namespace tma {

typedef CUresult (*EncodeTiledFn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                  const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// Host: the driver's cuTensorMapEncodeTiled, or null where the driver has none.
inline EncodeTiledFn encoder() {
    static EncodeTiledFn fn = nullptr;
    static bool tried = false;
    if (!tried) {
        tried = true;
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = reinterpret_cast<EncodeTiledFn>(p);
        (void)cudaGetLastError();
    }
    return fn;
}

// Host: map a row-major [rows, cols] matrix of 16-bit elements (row stride ld elements) in boxes
// of box_rows x box_cols (64: 128-byte rows, 128-byte swizzled; 32: 64-byte rows, 64-byte
// swizzled): a box lands in shared memory as box_rows / 8 swizzle atoms, row r at r * 2 box_cols
// bytes (wgmma.cuh's layouts). Reads past the matrix fill zeros; writes past it are dropped.
// False where the TMA cannot take it (base not 16-byte aligned, a row stride not a multiple of
// 16 bytes, another box width, no driver entry point).
inline bool map_rows(CUtensorMap *map, CUtensorMapDataType type, const void *base, uint64_t rows, uint64_t cols,
                     uint64_t ld, uint32_t box_rows, uint32_t box_cols = 64) {
    EncodeTiledFn enc = encoder();
    if (!enc || (reinterpret_cast<uintptr_t>(base) & 15) || (ld * 2) % 16 || rows == 0 || cols == 0 ||
        (box_cols != 64 && box_cols != 32))
        return false;
    const cuuint64_t dims[2] = {cols, rows};
    const cuuint64_t strides[1] = {ld * 2};
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t elem_strides[2] = {1, 1};
    return enc(map, type, 2, const_cast<void *>(base), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
               box_cols == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

__device__ __forceinline__ uint32_t smem(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// Box (x = column, y = row of its top-left element) of `map` into this CTA's shared memory; the
// barrier counts its bytes.
__device__ __forceinline__ void load(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar) {
    FB_WGMMA_ASM(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
            smem(dst)),
        "l"(map), "r"(x), "r"(y), "r"(smem(bar))
        : "memory");
}

// The same box into the same offset of the shared memory of every CTA of the cluster in `mask`;
// each CTA's barrier at `bar`'s offset counts the bytes it received.
__device__ __forceinline__ void load_multicast(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar,
                                               uint16_t mask) {
    FB_WGMMA_ASM(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
        "%3}], [%4], %5;\n" ::"r"(smem(dst)),
        "l"(map), "r"(x), "r"(y), "r"(smem(bar)), "h"(mask)
        : "memory");
}

// Shared memory (written by this CTA's threads, then fence_proxy_async and a barrier) to a box.
__device__ __forceinline__ void store(const CUtensorMap *map, int x, int y, const void *src) {
    FB_WGMMA_ASM("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(map), "r"(x),
                 "r"(y), "r"(smem(src))
                 : "memory");
}
__device__ __forceinline__ void store_commit() { FB_WGMMA_ASM("cp.async.bulk.commit_group;\n" ::: "memory"); }
// This thread's committed stores have read their shared memory (it may be overwritten).
__device__ __forceinline__ void store_wait_read() { FB_WGMMA_ASM("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
// ... and have completed.
__device__ __forceinline__ void store_wait() { FB_WGMMA_ASM("cp.async.bulk.wait_group 0;\n" ::: "memory"); }


__device__ __forceinline__ uint32_t cluster_rank() {
    uint32_t r = 0;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
#endif
    return r;
}

// Every thread of every CTA of the cluster: common.cuh's two halves back to back (the wait
// acquires by default).
__device__ __forceinline__ void cluster_sync() {
    cluster_arrive_release();
    cluster_wait();
}

// Arrive on the mbarrier at `bar`'s offset in the shared memory of the cluster's CTA `rank`.
// Release at CTA scope (the default), as CUTLASS's ClusterBarrier does: the arrival only says
// "this stage's reads are done", and a .release.cluster arrival would first make every earlier
// memory access of the thread visible to the cluster (stop 46 measured the kernel without this
// change; see NOTES.md).
__device__ __forceinline__ void arrive_cluster(uint64_t *bar, uint32_t rank) {
    FB_WGMMA_ASM(
        "{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
        "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}\n" ::"r"(smem(bar)),
        "r"(rank)
        : "memory");
}

// Warpgroup register budgets (setmaxnreg): producers give registers back, consumers take them.
template <int N> __device__ __forceinline__ void regs_dealloc() {
    FB_WGMMA_ASM("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> __device__ __forceinline__ void regs_alloc() {
    FB_WGMMA_ASM("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

// A named barrier among `threads` threads (a multiple of 32), id 1..15 (0 is __syncthreads):
// named_sync waits for all of them; named_arrive counts this thread and goes on (a producer's
// side: its earlier shared-memory writes are ordered before the waiters' later reads).
__device__ __forceinline__ void named_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace tma
}  // namespace fb
