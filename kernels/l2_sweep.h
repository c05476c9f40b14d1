/* l2_sweep.h — a read-only pass over a buffer (kernels/l2_sweep.cu), for the
 * metrics pass (src/metrics.c). */
#ifndef FB_L2_SWEEP_H
#define FB_L2_SWEEP_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Reads every byte of buf[0, bytes) once (bytes a multiple of 16, buf 16-byte
 * aligned) with ordinary loads and writes nothing (sink is written only if the
 * bytes XOR to a value that a zeroed buffer never does). Returns a cudaError_t. */
int fb_launch_read_sweep(const void *buf, size_t bytes, unsigned *sink, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
