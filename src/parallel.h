/* parallel.h — a parallel for over [0, n) for the host's float64 work (the
 * references of conv2d and matmul, rowref.c's chunks), inside a thread budget.
 *
 * The budget is per thread: the main thread may use every online CPU; a worker
 * started by fb_parallel_for, or by rowref.c for its chunks, gets its share of
 * its parent's, so a reference evaluated on 16 row chunks at once runs each
 * chunk's ops on one thread, and the one image of an N = 1 convolution runs its
 * output rows on all 16. The result never depends on the thread count: bodies
 * write disjoint outputs, and anything summed is summed inside one body. */
#ifndef FB_PARALLEL_H
#define FB_PARALLEL_H

#include <stdint.h>

#include "fb.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FB_PARALLEL_MAX_THREADS 64

/* Work on items [lo, hi); FB_OK or an error (with fb_error's message). */
typedef fb_status (*fb_parallel_body)(void *ctx, int64_t lo, int64_t hi);

/* Runs body over [0, n) in pieces of `grain` items (the last may be shorter),
 * claimed in order by up to fb_parallel_budget() threads, the caller among them.
 * The first error stops the claiming and is returned, its message with it;
 * pieces already running finish. A thread that cannot be started means fewer
 * threads, never a different result. */
fb_status fb_parallel_for(int64_t n, int64_t grain, fb_parallel_body body, void *ctx);

/* Threads the calling thread may use (itself included): its budget, or the
 * online CPUs (at most FB_PARALLEL_MAX_THREADS) when none was set. */
int fb_parallel_budget(void);
/* Sets the calling thread's budget; 0 restores the default. */
void fb_parallel_set_budget(int threads);
/* Each of `threads` workers' budget when the calling thread starts them: its
 * budget split evenly, at least 1 (fb_parallel_for's workers, rowref.c's). */
int fb_parallel_share(int threads);

#ifdef __cplusplus
}
#endif
#endif
