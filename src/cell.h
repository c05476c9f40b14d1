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

typedef struct fb_cell_env {
    fb_context *ctx;
    fb_timer *timer;
    uint64_t seed;
    int64_t full_limit; /* check in full up to this many elements per tensor, else sample rows */
    bool time;          /* false: check only (selftest) */
    struct fb_metrics *metrics; /* run --metrics: measured after each variant's timing; NULL: none */
    bool repeat;        /* selftest: run each checked variant a second time and require the same bits */
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
