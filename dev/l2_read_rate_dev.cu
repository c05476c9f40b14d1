// l2_read_rate_dev.cu — how fast do the SMs pull bytes out of L2? (dev experiment, issue 10)
//
// The question (kernels/NOTES.md, "Stop 41", section 1): a GEMM of our own that hides
// matmul_add's D under its main loop must run within 3% of cuBLAS's 807 TFLOP/s. A CTA tile of
// 128 x 256 x 64 reads 48 KB of A and B from L2 per 4.2 MFLOP, so at that rate the 132 SMs pull
// ~9 TB/s from L2, unless a cluster shares one operand's tile by TMA multicast. Whether 9 TB/s is
// there is this tool's answer, before any GEMM is written.
//
// Each kernel reads a buffer of B bytes P times over (grid-stride, every SM), summing what it reads
// so that nothing is optimised away; the rate is B * P / time. A buffer well under the L2 (60 MiB
// on the H200, split in two partitions) stays resident after the first pass, so the rate is L2's;
// one of 1 GiB is DRAM's.
//   ldg      16-byte ld.global by every thread (1024-thread CTAs, two an SM, 8 loads in flight a
//            thread): what cp.async or plain loads of a GEMM's operands can reach.
//   bulk     cp.async.bulk (the TMA engine's 1-D copy) of 8 KB chunks into shared memory, four in
//            flight a CTA, completion on an mbarrier: what a TMA producer warp can reach.
// Usage: l2_read_rate_dev [passes]
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 dev/l2_read_rate_dev.cu -o build/l2_read_rate_dev
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "dev_check.h"

__global__ void __launch_bounds__(1024, 2) ldg_kernel(const uint4 *p, size_t n, int passes, unsigned *sink)
{
    unsigned acc = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (int q = 0; q < passes; ++q) {
        size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
        for (; i + 7 * stride < n; i += 8 * stride) {  // eight 16-byte loads in flight a thread
            uint4 v[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) v[k] = __ldcg(p + i + k * stride);
#pragma unroll
            for (int k = 0; k < 8; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
        }
        for (; i < n; i += stride) {
            const uint4 v = __ldcg(p + i);
            acc ^= v.x ^ v.y ^ v.z ^ v.w;
        }
    }
    if (acc == 0x9e3779b9u) *sink = acc;  // never on zeros
}

constexpr int kChunk = 8 * 1024, kInFlight = 4;  // 32 KB of static shared memory a CTA

__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// One thread of each CTA issues the copies; all wait on the chunk's mbarrier, then fold its first
// word in (the data must have landed; reading all of it would measure shared memory instead).
__global__ void __launch_bounds__(128) bulk_kernel(const uint8_t *p, size_t bytes, int passes, unsigned *sink)
{
    __shared__ alignas(128) uint8_t buf[kInFlight][kChunk];
    __shared__ alignas(8) uint64_t bar[kInFlight];
    if (threadIdx.x == 0)
        for (int s = 0; s < kInFlight; ++s)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    const size_t chunks = bytes / kChunk;
    // this CTA's chunks: blockIdx.x, + gridDim.x, ..., over every pass
    const size_t mine_per_pass = chunks / gridDim.x + (blockIdx.x < chunks % gridDim.x ? 1 : 0);
    const size_t total = mine_per_pass * (size_t)passes;
    auto src = [&](size_t k) { return p + ((blockIdx.x + (k % mine_per_pass) * gridDim.x) % chunks) * kChunk; };
    auto issue = [&](size_t k) {
        const int s = (int)(k % kInFlight);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(&bar[s])), "r"(kChunk)
                     : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         smem_u32(buf[s])),
                     "l"(src(k)), "r"(kChunk), "r"(smem_u32(&bar[s]))
                     : "memory");
    };
    unsigned acc = 0;
    if (threadIdx.x == 0)
        for (size_t k = 0; k < total && k < kInFlight; ++k) issue(k);
    for (size_t k = 0; k < total; ++k) {
        const int s = (int)(k % kInFlight);
        const uint32_t parity = (uint32_t)((k / kInFlight) & 1);
        uint32_t done = 0;
        while (!done)
            asm volatile(
                "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                : "=r"(done)
                : "r"(smem_u32(&bar[s])), "r"(parity)
                : "memory");
        acc ^= reinterpret_cast<const unsigned *>(buf[s])[threadIdx.x];
        __syncthreads();  // every thread has read slot s before it is refilled
        if (threadIdx.x == 0 && k + kInFlight < total) issue(k + kInFlight);
    }
    if (acc == 0x9e3779b9u) *sink = acc;
}

int main(int argc, char **argv)
{
    const int passes = argc > 1 ? atoi(argv[1]) : 20;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const size_t big = (size_t)1 << 30;
    uint8_t *buf;
    unsigned *sink;
    CK(cudaMalloc(&buf, big));
    CK(cudaMemset(buf, 0, big));
    CK(cudaMalloc(&sink, 4));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    printf("%s: %d SMs, L2 %d MiB; %d passes over each buffer; GB/s = bytes x passes / time\n", prop.name,
           prop.multiProcessorCount, prop.l2CacheSize >> 20, passes);
    printf("%10s %12s %12s\n", "MiB", "ldg GB/s", "bulk GB/s");
    const size_t sizes_mib[] = {4, 8, 16, 24, 32, 48, 1024};
    for (size_t mib : sizes_mib) {
        const size_t bytes = mib << 20;
        const int reps = mib >= 1024 ? 2 : passes;
        float ms[2];
        for (int kind = 0; kind < 2; ++kind) {
            for (int t = 0; t < 2; ++t) {  // a warm-up launch (fills L2), then the timed one
                CK(cudaEventRecord(e0));
                if (kind == 0)
                    ldg_kernel<<<2 * prop.multiProcessorCount, 1024>>>(reinterpret_cast<const uint4 *>(buf),
                                                                       bytes / 16, reps, sink);
                else
                    bulk_kernel<<<4 * prop.multiProcessorCount, 128>>>(buf, bytes, reps, sink);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                CK(cudaGetLastError());
            }
            CK(cudaEventElapsedTime(&ms[kind], e0, e1));
        }
        printf("%10zu %12.0f %12.0f\n", mib, (double)bytes * reps / ms[0] / 1e6, (double)bytes * reps / ms[1] / 1e6);
    }
    return 0;
}
