/* rowcheck.h — tests' check of a row plan: every row evaluated alone (row shapes, inputs
 * sliced by fb_rowplan_offset) against the full evaluation `full` (one array per output).
 * Returns the number of mismatching elements (and rows whose evaluation failed). */
#ifndef FB_T_ROWCHECK_H
#define FB_T_ROWCHECK_H
#include "program.h"

int fb_t_rows_match_full(const fb_case *c, const fb_rowplan *rp, const double *const *in, double *const *full);

/* rowref.h's fetch over host arrays: ctx is `double *const *`, one dense array per input. */
fb_status fb_t_fetch_doubles(void *ctx, int input, int64_t offset, int64_t n, double *dst);

#endif
