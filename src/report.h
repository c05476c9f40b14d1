/* report.h — the terminal grid (the seed study's relative-performance table),
 * printed from a result document, so a run and a later export print the same. */
#ifndef FB_REPORT_H
#define FB_REPORT_H

#include <stdio.h>
#include <jansson.h>
#include "fb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_show {
    FB_SHOW_SPEEDUP, /* t_baseline / t_variant, percent (default) */
    FB_SHOW_SOL,     /* % of speed of light of the variant        */
    FB_SHOW_TIME,    /* median time, microseconds                 */
    FB_SHOW_GBPS,    /* achieved GB/s of ideal bytes              */
    FB_SHOW_KERNELS, /* kernels per run, and their names (run's grid only: not one of export's value views) */
} fb_show;
int fb_show_from_name(const char *s, fb_show *out);

/* Print one grid: case x dtype x variant. Cells:
 *   "312.5%"  ok;  "OOM" variant or baseline out of memory;  "FAIL" failed its check;
 *   "ERR" runtime error;  "-" skipped or not measured.
 * Header line: "softmax · float32 · <device> · softmax.fused vs eager (t_eager / t_softmax.fused)". */
fb_status fb_report_grid(FILE *f, json_t *root, const char *case_name, const char *dtype,
                         const char *variant, const char *baseline, fb_show show);

/* The grids of one case and dtype for `variants`, as run prints them: for the
 * speedup, every variant but the baseline (against itself it is 100% everywhere)
 * — unless the baseline is all there is (a case with no fused variant yet), then
 * the baseline's % of speed of light, so such a run still shows its numbers;
 * for sol, time, gbps and kernels, every variant (kernels: each grid is followed
 * by the names of the kernels the variant launched, measured with --timer cupti). */
fb_status fb_report_case(FILE *f, json_t *root, const char *case_name, const char *dtype,
                         const char *const *variants, int n_variants, const char *baseline, fb_show show);

/* Every grid of a result: fb_report_case for each case and dtype, with the
 * case's variants and (unless `baseline` is given) its baseline. */
fb_status fb_report_all(FILE *f, json_t *root, const char *baseline, fb_show show);

#ifdef __cplusplus
}
#endif
#endif
