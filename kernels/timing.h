/* timing.h — kernels the timer needs (kernels/timing.cu). */
#ifndef FB_TIMING_KERNELS_H
#define FB_TIMING_KERNELS_H
#include <cuda_runtime_api.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* nvbench's blocking kernel: one thread spins until *flag (host-mapped) becomes
 * nonzero or timeout_ns of GPU time has passed; then writes 1 to *timed_out if
 * it gave up. Holds the stream while the host queues a batch of samples. */
int fb_launch_block_stream(volatile int32_t *flag, int32_t *timed_out, uint64_t timeout_ns,
                           cudaStream_t stream);

/* A single-thread kernel that spins for `cycles` SM clock cycles (clock64):
 * the timer's self-check measures it against cycles / clock rate. */
int fb_launch_spin_cycles(long long cycles, cudaStream_t stream);

/* The same spin kernel, logging each run so the self-check has an independent
 * clock: log[0] is a run counter (zero it first); run i (i < cap) writes
 * log[1 + 4i ..] = clock64 at start, clock64 at end, %globaltimer ns at start,
 * %globaltimer ns at end. (Added for the timer self-check.) */
int fb_launch_spin_cycles_logged(long long cycles, unsigned long long *log, int cap, cudaStream_t stream);

/* Streaming copy kernel: 16-byte loads/stores, grid-stride; dst and src must not overlap. */
int fb_launch_copy(void *dst, const void *src, size_t bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
