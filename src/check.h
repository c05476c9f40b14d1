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
    fb_tol tol;                       /* what was applied to the worst output (fb_tolerance); set
                                         says whether the case file stated it */
    double typical;                   /* that output's median |ref| (a default's scale) */
    char why[320];                    /* why NONE or SAMPLED, or what failed */
} fb_check_result;

/* `run` checks in full up to this many elements per tensor (selftest: more). */
#define FB_RUN_FULL_LIMIT ((int64_t)1 << 22)
/* A sampled check evaluates at most this many of the program's FLOPs (its cost
 * rule's count), at least the first and the last row: the element budget alone let
 * a GEMM's sample cost 169 rows x 2·K·N (45 GFLOP at K = 8192, N = 16384, 3 s on
 * the H100 host's 16 threads a cell); memory-bound programs never reach it. */
#define FB_CHECK_FLOP_LIMIT 8.0e9

/* How a cell is checked, decided from its shapes alone (no GPU): FULL when every
 * tensor holds at most `full_limit` elements (evaluated over rp's rows when the
 * program splits, else whole); else by the row plan: when some outputs are sums
 * over rows (rp.accumulates) every row is evaluated, those outputs are checked in
 * full and the others on `sample_rows` sampled rows (0: all of them, FULL); else
 * SAMPLED on `sample_rows` rows evaluated alone, as many as fit full_limit
 * elements and FB_CHECK_FLOP_LIMIT FLOPs; NONE when the program does not
 * split (rp.why says why). fb_reference_create follows it. */
typedef struct fb_check_plan {
    fb_check_mode mode;
    bool by_rows;        /* the reference is evaluated over rp's rows (rowref.c)  */
    int64_t sample_rows; /* rows of the non-sum outputs to sample; 0: every row   */
    int64_t biggest;     /* elements of the largest tensor                        */
    fb_rowplan rp;
} fb_check_plan;
fb_status fb_check_plan_cell(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], int64_t full_limit,
                             fb_check_plan *p);

/* The reference of one cell, computed once and reused for every variant. */
typedef struct fb_reference fb_reference;

/* Build the reference for these device inputs as fb_check_plan_cell says: full
 * when every tensor holds at most `full_limit` elements, else on a deterministic
 * sample of rows (always the first and the last) sized to about `full_limit`
 * elements, with outputs that are sums over rows in full, else none (unchecked).
 * Evaluating rows uses several threads (rowref.c); the result does not depend on
 * how many. */
fb_status fb_reference_create(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt,
                              const fb_tensor *inputs, int64_t full_limit, fb_reference **out);
void fb_reference_destroy(fb_reference *r);

/* When an intermediate the program computes (not an output; as far as the
 * reference evaluated it) is too large for the cell's dtype, why (written into
 * why[n]), else NULL. Eager stores every intermediate in the dtype, so it cannot
 * be right there: float16 double_softmax's second row sum is about dim1 and
 * overflows past 65519. A fused kernel keeping it in float32 can. */
const char *fb_reference_overflow(const fb_reference *r, char *why, size_t n);

/* Compare device outputs with the reference. `tol` is the case's entry for the
 * cell's dtype (c->tol[dt]); each output is checked under fb_tolerance(tol, its
 * median |ref|), so a default widens with the output's scale and a tolerance the
 * case file states is used as written. An unchecked reference
 * gives mode NONE, passed false and the reason in why. */
fb_status fb_check_outputs(const fb_reference *r, const fb_tensor *outputs, fb_tol tol,
                           fb_check_result *res);

/* ---- tolerance (pure functions, no GPU) ------------------------------------------
 * The element rule: |got - want| <= atol + rtol*|want|; NaN never passes, an
 * infinity passes only against the same infinity. */
bool fb_within_tol(double got, double want, fb_tol t);

/* The tolerance applied to one output. `declared` is the case's entry for the dtype:
 * used as written when the case file states it (declared.set), else it is a
 * default (case.c) widened by the output's typical magnitude:
 *     atol = declared.atol + declared.rtol * typical,   rtol = declared.rtol.
 * Why: float32 summation error grows ~ sqrt(n)*eps*|terms|, and so does a sum whose
 * terms cancel (its typical |value| ~ sqrt(n)*|terms|): the error is about eps
 * times the output's scale, and a fixed atol fails the few rows whose sum lands
 * near zero. Outputs normalised by a sum (softmax, mean) keep small relative
 * errors and a small scale, so their check stays as tight as before; a rule in
 * the shape alone (atol ~ sqrt(n)) would make theirs vacuous. README.md has the
 * numbers. */
fb_tol fb_tolerance(fb_tol declared, double typical);

/* The median |v| over the finite, nonzero elements of v, from at most 65536 of
 * them taken at an even stride (deterministic); 0 when there are none. Exact
 * zeros (relu's, dropout's) are left out: they say nothing of the scale of the
 * rounding in the other elements, and a relu output, half zeros, would
 * otherwise have a median of 0 and no widening at all. */
double fb_typical_magnitude(const double *v, int64_t n);

const char *fb_check_mode_name(fb_check_mode m);

#ifdef __cplusplus
}
#endif
#endif
