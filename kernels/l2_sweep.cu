// l2_sweep.cu — a read-only sweep over a buffer: every line of it goes through
// the L2, and nothing is written.
//
// The metrics pass (src/metrics.c) ends each profiled range with one over a
// buffer twice the L2's size. The L2 is write-back: a line a kernel stores to
// reaches DRAM only when it is evicted, so without the sweep up to an L2's worth
// of a variant's output (50 MB on the H100) would still sit in the L2 when the
// range closes and never be counted as DRAM writes. Reading a buffer that is
// not in the L2 evicts every line there — dirty ones are written back inside
// the range — and leaves only clean lines. Its own DRAM reads and instructions
// are the same every time (the buffer is never in the L2 when it starts: a
// flush of twice the L2 came before), so the metrics pass subtracts them with a
// calibration range that holds the sweep alone.
//
// The loads are ordinary (evict-normal) 16-byte loads: a streaming (evict-first)
// load would let the sweep's lines replace each other and leave the variant's
// dirty lines in place. Fixed grid and block, so the instruction count depends
// on the byte count alone.
#include "l2_sweep.h"

#include <cuda_runtime.h>
#include <stdint.h>

static __global__ void read_sweep_kernel(const uint4 *__restrict__ p, size_t n, unsigned *sink)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned acc = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    // Never true for the zeroed buffer the metrics pass sweeps, but the compiler
    // cannot know that, so it keeps every load.
    if (acc == 0x9e3779b9u) *sink = acc;
}

extern "C" int fb_launch_read_sweep(const void *buf, size_t bytes, unsigned *sink, cudaStream_t stream)
{
    const size_t n = bytes / 16;
    if (n == 0) return (int)cudaSuccess;
    read_sweep_kernel<<<1024, 256, 0, stream>>>((const uint4 *)buf, n, sink);
    return (int)cudaGetLastError();
}
