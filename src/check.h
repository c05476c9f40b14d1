/* check.h — compare a variant's outputs (on the device) with the float64 reference. */
#ifndef FB_CHECK_H
#define FB_CHECK_H

#include "program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FULL: every element; SAMPLED: every element of sampled rows; NONE: unchecked
 * (too large for a full check and the program cannot be split into rows). */
typedef enum fb_check_mode { FB_CHECK_FULL, FB_CHECK_SAMPLED, FB_CHECK_NONE } fb_check_mode;

typedef struct fb_check_result {
    fb_check_mode mode;
    int64_t rows_checked, rows_total; /* sampled: rows; full: rows_total = rows_checked */
    int64_t elements_checked;
    double max_abs, max_rel;          /* over checked elements */
    int worst_output;                 /* output index of the worst element */
    int64_t worst_index;              /* flat index into that output */
    double worst_got, worst_want;
    int64_t n_bad;                    /* elements outside atol + rtol*|ref| (NaN counts) */
    bool passed;                      /* never for NONE: unchecked is not passed */
    char why[256];                    /* why NONE or SAMPLED, or what failed */
} fb_check_result;

/* The reference of one cell, computed once and reused for every variant. */
typedef struct fb_reference fb_reference;

/* Build the reference for these device inputs: full when every tensor holds at
 * most `full_limit` elements, else on a deterministic sample of rows (always the
 * first and the last) sized to about `full_limit` elements, else none (unchecked). */
fb_status fb_reference_create(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt,
                              const fb_tensor *inputs, int64_t full_limit, fb_reference **out);
void fb_reference_destroy(fb_reference *r);

/* When an intermediate the program computes (not an output; as far as the
 * reference evaluated it) is too large for the cell's dtype, why (written into
 * why[n]), else NULL. Eager stores every intermediate in the dtype, so it cannot
 * be right there: float16 double_softmax's second row sum is about dim1 and
 * overflows past 65519. A fused kernel keeping it in float32 can. */
const char *fb_reference_overflow(const fb_reference *r, char *why, size_t n);

/* Compare device outputs with the reference under tol. An unchecked reference
 * gives mode NONE, passed false and the reason in why. */
fb_status fb_check_outputs(const fb_reference *r, const fb_tensor *outputs, fb_tol tol,
                           fb_check_result *res);

const char *fb_check_mode_name(fb_check_mode m);

#ifdef __cplusplus
}
#endif
#endif
