// l2_sweep.cu — a read-only sweep over a zeroed buffer: every line of it goes
// through the L2, and nothing is written. One kernel, two users:
//
//  - `--flush clean` (src/bench.c): the flush before each timed sample, over the
//    timer's flush buffer (>= 2x L2). It evicts every line the measured kernel
//    left in the L2 as a memset flush does, but what replaces them is clean: the
//    next sample pays no write-back of the flush's own lines, unlike `--flush
//    write`, whose memset leaves the L2 full of dirty lines (+8-26% on 16-256 MB
//    of work, measured on the H100). This is what Nsight Compute's cache control
//    does.
//  - the metrics pass (src/metrics.c): the end of every profiled range, over a
//    buffer of its own of the flush's size. The L2 is write-back: a line a
//    kernel stores to reaches DRAM only when it is evicted, so without the sweep
//    up to an L2's worth of a variant's output (50 MB on the H100) would still
//    sit in the L2 when the range closes and never be counted as DRAM writes.
//    Its own DRAM reads and instructions are the same every time (the buffer is
//    never in the L2 when it starts: a flush of twice the L2 came before), so
//    the metrics pass subtracts them with a calibration range that holds the
//    sweep alone.
//
// The loads carry an L2 evict_last policy (createpolicy + L2::cache_hint), and a
// second kernel then demotes every line of the buffer to evict_normal
// (applypriority). Lines a kernel loaded with evict_last (Inductor's looped
// reductions do, for their first pass) outlive a sweep of ordinary loads and a
// memset: the next sample then reads part of its input from L2 (32 MB read:
// 17.3 us after a memset against 20.0 us cold, dev/evict_last_dev.cu, H100).
// evict_last sweep lines displace them (LRU within the priority), and the
// demotion leaves the L2 as an ordinary sweep would: all lines normal, and the
// same time for an unmarked read (15.2 us both ways). A streaming (evict-first)
// load would let the sweep's lines replace each other and leave the previous
// lines — the variant's dirty ones — in place. Four independent loads per thread
// per step keep enough requests in flight to run at memory bandwidth. The loads
// are folded into one word that is stored only if it equals SWEEP_KEY, which the
// fold of a zeroed buffer (0) never does; the compiler cannot know that, so it
// keeps every load. The grid is fixed for a device (8 blocks per SM, fewer for a
// small buffer), so the instruction count depends on the byte count alone.
// `--flush write` runs this sweep and then its memset (src/bench.c): a kernel
// storing the zeros with the same marking left the next sample 5-6 us more
// write-back than cudaMemsetAsync does, at every size (H100, rmsnorm and copy
// cells, issue 9 round 2), so the memset stays the write flush's second half.
#include "l2_sweep.h"

#include <cuda_runtime.h>
#include <stdint.h>

#define SWEEP_KEY 0x9e3779b9u /* nonzero: never the fold of a zeroed buffer */

static __device__ __forceinline__ uint64_t evict_last_policy()
{
    uint64_t pol;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
static __device__ __forceinline__ uint4 load_marked(const uint4 *p, uint64_t pol)
{
    uint4 v;
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(pol));
    return v;
}
static __global__ void l2_sweep_kernel(const uint4 *__restrict__ p, size_t n, unsigned *sink)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t pol = evict_last_policy();
    unsigned acc = 0;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const uint4 a = load_marked(p + i, pol), b = load_marked(p + i + stride, pol),
                    c = load_marked(p + i + 2 * stride, pol), d = load_marked(p + i + 3 * stride, pol);
        acc ^= (a.x ^ a.y ^ a.z ^ a.w) ^ (b.x ^ b.y ^ b.z ^ b.w) ^ (c.x ^ c.y ^ c.z ^ c.w) ^ (d.x ^ d.y ^ d.z ^ d.w);
    }
    for (; i < n; i += stride) {
        const uint4 a = load_marked(p + i, pol);
        acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
    if (acc == SWEEP_KEY) *sink = acc;
}

/* One thread per 128-byte line of the buffer (FB_L2_SWEEP_LINE): back to evict_normal. */
static __global__ void l2_demote_kernel(const char *__restrict__ p, size_t bytes)
{
    const size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * FB_L2_SWEEP_LINE;
    if (i < bytes) asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(p + i) : "memory");
}

extern "C" int fb_launch_l2_sweep(const void *buf, size_t bytes, unsigned *sink, cudaStream_t stream)
{
    const size_t n = bytes / 16;
    if (n == 0 || bytes % FB_L2_SWEEP_LINE != 0 || (uintptr_t)buf % FB_L2_SWEEP_LINE != 0)
        return (int)cudaErrorInvalidValue;
    static int sms = 0;
    if (sms == 0) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
            sms = 132;
    }
    const int threads = 256;
    size_t blocks = (n + threads - 1) / threads;
    if (blocks > (size_t)sms * 8) blocks = (size_t)sms * 8;
    l2_sweep_kernel<<<(unsigned)blocks, threads, 0, stream>>>((const uint4 *)buf, n, sink);
    const size_t lines = bytes / FB_L2_SWEEP_LINE;
    l2_demote_kernel<<<(unsigned)((lines + threads - 1) / threads), threads, 0, stream>>>((const char *)buf, bytes);
    return (int)cudaGetLastError();
}
