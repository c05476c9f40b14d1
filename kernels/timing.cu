// timing.cu — the kernels the timer needs (see src/bench.c):
//  - block_stream: nvbench's blocking kernel. One thread spins on a host-mapped
//    flag so the host can queue a whole batch of samples behind it; releasing
//    the flag lets the GPU run them back to back, so a chain of small kernels is
//    timed as the GPU runs it, not as fast as the CPU launches it. It gives up
//    after a timeout (measured with %globaltimer, which unlike clock64 counts
//    nanoseconds whatever the SM clock) so a host that never releases it — e.g.
//    a variant that synchronises inside run() — cannot hang the GPU.
//  - spin_cycles: a known amount of SM-clock work for the self-check.
//  - copy16: a streaming copy with 16-byte accesses (the speed-of-light copy).
//  (The `--flush clean` flush is kernels/l2_sweep.cu, shared with the metrics pass.)
#include "timing.h"

#include <cuda_runtime.h>

static __device__ __forceinline__ unsigned long long globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __global__ void block_stream_kernel(volatile int32_t *flag, int32_t *timed_out, unsigned long long timeout_ns)
{
    const unsigned long long t0 = globaltimer_ns();
    while (*flag == 0) {
        if (globaltimer_ns() - t0 > timeout_ns) {
            *timed_out = 1;
            break;
        }
    }
}

static __global__ void spin_cycles_kernel(long long cycles, unsigned long long *log, int cap)
{
    const unsigned long long g0 = globaltimer_ns();
    const long long c0 = clock64();
    long long c1 = c0;
    while (c1 - c0 < cycles) c1 = clock64();
    const unsigned long long g1 = globaltimer_ns();
    if (log) {
        unsigned long long i = atomicAdd(log, 1ull);
        if (i < (unsigned long long)cap) {
            unsigned long long *r = log + 1 + 4 * i;
            r[0] = (unsigned long long)c0;
            r[1] = (unsigned long long)c1;
            r[2] = g0;
            r[3] = g1;
        }
    }
}

// 16-byte vectors for the aligned bulk; the ragged tail (and misaligned
// buffers) byte by byte. Grid-stride so the grid can be sized to the machine.
static __global__ void copy16_kernel(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n16)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += stride) dst[i] = src[i];
}

static __global__ void copy1_kernel(unsigned char *__restrict__ dst, const unsigned char *__restrict__ src, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

extern "C" int fb_launch_block_stream(volatile int32_t *flag, int32_t *timed_out, uint64_t timeout_ns,
                                      cudaStream_t stream)
{
    block_stream_kernel<<<1, 1, 0, stream>>>(flag, timed_out, (unsigned long long)timeout_ns);
    return (int)cudaGetLastError();
}

extern "C" int fb_launch_spin_cycles_logged(long long cycles, unsigned long long *log, int cap, cudaStream_t stream)
{
    spin_cycles_kernel<<<1, 1, 0, stream>>>(cycles, log, cap);
    return (int)cudaGetLastError();
}

extern "C" int fb_launch_spin_cycles(long long cycles, cudaStream_t stream)
{
    return fb_launch_spin_cycles_logged(cycles, nullptr, 0, stream);
}

// Enough resident blocks to keep every SM's memory pipeline busy; more only
// adds scheduling overhead to a grid-stride loop.
static int copy_grid(size_t items, int threads)
{
    static int sms = 0;
    if (sms == 0) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
            sms = 132;
    }
    size_t want = (items + threads - 1) / threads;
    size_t cap = (size_t)sms * 8;
    if (want > cap) want = cap;
    return want ? (int)want : 1;
}

extern "C" int fb_launch_copy(void *dst, const void *src, size_t bytes, cudaStream_t stream)
{
    if (bytes == 0) return (int)cudaSuccess;
    const int threads = 256;
    const bool aligned = ((uintptr_t)dst % 16 == 0) && ((uintptr_t)src % 16 == 0);
    size_t done = 0;
    if (aligned) {
        const size_t n16 = bytes / 16;
        if (n16) {
            copy16_kernel<<<copy_grid(n16, threads), threads, 0, stream>>>((uint4 *)dst, (const uint4 *)src, n16);
            cudaError_t e = cudaGetLastError();
            if (e != cudaSuccess) return (int)e;
        }
        done = n16 * 16;
    }
    if (done < bytes) {
        const size_t rest = bytes - done;
        copy1_kernel<<<copy_grid(rest, threads), threads, 0, stream>>>((unsigned char *)dst + done,
                                                                       (const unsigned char *)src + done, rest);
    }
    return (int)cudaGetLastError();
}
