/* cell.h — one cell of a grid: one case, dtype and shape point, every variant
 * set up, checked against the reference, timed, and recorded as a JSON object
 * (the "cells" entries of result.h's schema). */
#ifndef FB_CELL_H
#define FB_CELL_H

#include <jansson.h>

#include "bench.h"
#include "program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The speed-of-light copies a run has measured, by byte count: a copy of the same
 * bytes on the same device under the same timer is one measurement, so cells of
 * equal ideal bytes (softmax, double_softmax, pointwise_chain and norm_chain at
 * one shape; half of `run --all`'s float32 cells) share it instead of each
 * timing it again; the cell's "sol" then names the cell it was measured in. */
typedef struct fb_sol_cache fb_sol_cache;
fb_sol_cache *fb_sol_cache_create(void); /* NULL: out of memory (then nothing is shared) */
void fb_sol_cache_destroy(fb_sol_cache *cache);

typedef struct fb_cell_env {
    fb_context *ctx;
    fb_timer *timer;
    uint64_t seed;
    int64_t full_limit; /* check in full up to this many elements per tensor, else sample rows */
    bool time;          /* false: check only (selftest) */
    struct fb_metrics *metrics; /* run --metrics: measured after each variant's timing; NULL: none */
    bool repeat;        /* selftest: run each checked variant a second time and require the same bits */
    fb_sol_cache *sol_cache; /* NULL: every cell times its own copy */
    /* called right before each timed measurement (run: waits for a slowed SM clock,
     * fb_clock_watch_settle); NULL: none */
    void (*before_timing)(void *arg);
    void *before_timing_arg;
    /* run: the clock watch, whose probe reads the SM clock while each measurement's batches run
     * (the variant's "sm_clock_mhz"); NULL: none */
    struct fb_clock_watch *clocks;
    /* run: time each fused variant also in pairs with the case's "paired" plain op (the cell's
     * variant "paired" object; bench.h's fb_timer_measure_paired; events or cupti timer) */
    bool paired;
} fb_cell_env;

#define FB_EAGER "eager"

/* Run `variants` ("eager" or registered fused names) on one point. Everything
 * measured goes into `cell` (a fresh JSON object). Statuses per variant: ok, oom,
 * fail (checked and wrong; times kept), error, skipped. *failed is set when a
 * check failed. Returns FB_OK unless a CUDA error makes going on unsafe; then
 * `cell` still holds what was measured and the variant's "error". */
fb_status fb_cell_run(const fb_cell_env *env, const fb_case *c, fb_dtype dt, const fb_point *p,
                      const char *const *variants, int n_variants, json_t *cell, bool *failed);

#ifdef __cplusplus
}
#endif
#endif
