/* tune_rounds.h — a library path's autotuning, shared: time each candidate (a cuBLASLt
 * algorithm, a cuDNN execution plan) on the real operands, cold, round by round, and keep
 * the fastest median. Paid once in a variant's prepare, outside the timed region.
 *
 * Each sample starts from an L2 swept clean (kernels/l2_sweep.cu over a buffer of twice the
 * L2), as the timer's default flush does, so candidates are ranked on cold operands, not on
 * back-to-back launches that find them in the L2. One warm-up launch each, then rounds of one
 * sample of every candidate still in the race: round by round, because on a power-capped
 * card the clock falls over the first hundreds of ms of sustained load, and candidates timed
 * one after another were ranked by when they ran (kernels/NOTES.md, stops 42-43).
 *
 * The caller's launch function runs candidate i once on `stream` and returns 0, or nonzero
 * when it could not (that candidate is passed over; a sticky CUDA error is not cleared). */
#ifndef FB_TUNE_ROUNDS_H
#define FB_TUNE_ROUNDS_H

#include <cuda_runtime_api.h>

#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*fb_tune_launch_fn)(void *arg, int candidate, cudaStream_t stream);

/* Time candidates 0..n-1 and set *best to the one to keep (fb_tune_pick on their medians:
 * the fastest, unless the library heuristic's first is within FB_TUNE_MARGIN of it). A
 * candidate that fails to launch, or whose first sample is over TUNE_CUTOFF x the best
 * first sample, is out of the race. FB_E_UNSUPPORTED when no candidate ran; CUDA errors as
 * fb_status. `what` prefixes messages. */
fb_status fb_tune_rounds(fb_context *ctx, cudaStream_t stream, int n, fb_tune_launch_fn launch, void *arg,
                         int *best, const char *what);

/* A variant's first prepare (fb_call.first_prepare), whose choice is thrown away: each
 * candidate launched once, untimed (its kernels loaded), then the stream synchronised;
 * *first is the lowest candidate that launched. FB_E_UNSUPPORTED when none did. */
fb_status fb_tune_load(int n, fb_tune_launch_fn launch, void *arg, cudaStream_t stream, int *first,
                       const char *what);

/* fb_tune_rounds' choice from the medians (negative: not timed): the fastest, unless
 * candidate 0's is within FB_TUNE_MARGIN of it, then 0; -1 when none was timed. */
int fb_tune_pick(const double *med, int n);

/* The margin a candidate must beat the heuristic's first by to be kept instead (1%):
 * candidates that share a kernel time within noise of each other, and ranking on noise kept
 * different algorithms run to run (stop 31). */
#define FB_TUNE_MARGIN 0.01

#ifdef __cplusplus
}
#endif
#endif
