/* l2_sweep.h — the read-only L2 sweep (kernels/l2_sweep.cu): the `--flush clean`
 * flush and the first half of `--flush write` (src/bench.c), and the end of
 * every range of the metrics pass (src/metrics.c). */
#ifndef FB_L2_SWEEP_H
#define FB_L2_SWEEP_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Reads every byte of buf[0, bytes) once (bytes a positive multiple of 128,
 * buf 128-byte aligned; else cudaErrorInvalidValue) with L2-allocating loads
 * marked evict_last, then demotes every line of buf to evict_normal (a second,
 * small kernel), and writes nothing to buf: the buffer must hold zeros (the
 * loads are folded into one word that is stored to *sink only if it equals a
 * nonzero constant, which a zeroed buffer's fold never does). Every line that
 * was in the L2 is evicted (dirty ones written back), lines another kernel
 * marked evict_last included, and only clean, evict_normal lines of buf are
 * left. The grid is fixed for a device (8 blocks of 256 threads per SM, fewer
 * for a small buffer), so its instruction count depends on `bytes` alone.
 * Returns a cudaError_t. */
int fb_launch_l2_sweep(const void *buf, size_t bytes, unsigned *sink, cudaStream_t stream);

/* The sweep's granularity: buffers passed to it are a multiple of this (it demotes whole L2
 * lines) and aligned to it (cudaMalloc gives 256). */
#define FB_L2_SWEEP_LINE 128

#ifdef __cplusplus
}
#endif
#endif
