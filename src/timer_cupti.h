/* timer_cupti.h — the CUPTI side of `--timer cupti` (bench.c drives it; the
 * top comment of timer_cupti.c says how samples are told apart). */
#ifndef FB_TIMER_CUPTI_H
#define FB_TIMER_CUPTI_H

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fb_cupti_timer fb_cupti_timer;

/* Loads libcupti (cupti_loader.h) and registers the activity buffer callbacks.
 * FB_E_UNSUPPORTED, with the loader's message, when CUPTI is absent. One per
 * process at a time (CUPTI's callbacks are global): a second is FB_E_USAGE. */
fb_status fb_cupti_timer_create(fb_cupti_timer **out);
void fb_cupti_timer_destroy(fb_cupti_timer *c);

/* A measurement: begin enables the activity kinds (kernels, memcpy, memset,
 * runtime and driver API calls, external correlation) and forgets the last
 * measurement's census; end disables them again, so nothing is traced while
 * another timer measures. Call end after a failed measurement too. */
fb_status fb_cupti_begin(fb_cupti_timer *c);
fb_status fb_cupti_end(fb_cupti_timer *c);

/* `r` wrapped so that each run inside a batch is tagged with its sample's
 * external correlation id (runs outside a batch, warm-up and the untimed run,
 * are not tagged, so not counted). The wrapper points at `r` and at `c`. */
fb_runnable fb_cupti_wrap(fb_cupti_timer *c, const fb_runnable *r);
/* The same for one side of a paired measurement (side 0 or 1), so that both sides' runs
 * are tagged in the order they are queued: a batch of n pairs is 2n samples, and
 * fb_cupti_batch_end returns them in that order. fb_cupti_wrap is side 0. */
fb_runnable fb_cupti_wrap_side(fb_cupti_timer *c, const fb_runnable *r, int side);

/* A batch of n samples is about to be queued (each run through the wrapper). */
void fb_cupti_batch_begin(fb_cupti_timer *c, int n);
/* After the stream is synchronised: flushes CUPTI's buffers, assigns the
 * records to the batch's samples and writes each sample's summed duration
 * (ms) to sum_ms[0..n); the spans and the census are kept for
 * fb_cupti_kernels. FB_E_UNSUPPORTED when a sample saw no GPU work at all (the
 * variant launched none, or CUPTI lost records: the message says which), or
 * FB_E_CUDA when CUPTI failed. */
fb_status fb_cupti_batch_end(fb_cupti_timer *c, int n, double *sum_ms);

/* The census of the measurement so far and the spans of its last n_last
 * samples (the timed ones: the estimate's batches come first). */
const fb_timer_kernels *fb_cupti_kernels(fb_cupti_timer *c, int n_last);

/* selftest's GPU checks of the CUPTI timer (timer_cupti_check.c): a spin
 * kernel of known length, a run of two kernels and a memset, a cuBLAS call. A
 * line per check into `report`; FB_E_CHECK when one fails, FB_E_UNSUPPORTED
 * (skipped, the report says why) when libcupti cannot be loaded. */
fb_status fb_timer_selfcheck_cupti(fb_timer *t, fb_context *ctx, char *report, size_t n);

#ifdef __cplusplus
}
#endif
#endif
