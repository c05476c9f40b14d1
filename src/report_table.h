/* report_table.h — the seed study's benchmark table: one table per case x
 * dtype, one row per measured cell, one column per variant (median times in
 * microseconds), the speed-of-light copy, and the speedups against one of them.
 * `run --table` prints it as text, `export --format md --table` as markdown; both
 * call fb_table_print, so the two cannot drift apart.
 *
 *   rmsnorm · float32 · Test GPU · median time (us); speedup vs eager = t_eager / t_variant
 *   shape (x)           T     N    eager  rmsnorm.fused      sol  speedup vs eager
 *   4 x 128 x 1027    128  1027    18.43           SKIP     4.10              SKIP
 *   4 x 128 x 4096    128  4096    31.20           8.91     8.40             3.50x
 *   4 x 2048 x 1027  2048  1027  181.50!         41.87!   39.60!            4.33x!
 *   4 x 2048 x 4096  2048  4096      OOM        1632.40  1588.90               OOM
 *   OOM: out of device memory · SKIP: not run: unsupported here (the result file says why)
 *   ! throttled: the SM clock fell more than 10% during the cell (number kept, not comparable)
 *
 * Columns, left to right:
 *   shape (x)  the first program input's full shape at the cell ("4 x 128 x 1027",
 *              from the cell's "shapes" in the result file: rmsnorm's leading 4 is
 *              no grid axis); left out for files written before cells had shapes
 *   the axes   the grid values of the cell (T, N; dim0, dim1; n)
 *   variants   eager first, then the others in the case's order: median time (us)
 *   sol        the cell's speed-of-light copy of its ideal bytes: median time (us)
 *   speedups   t_X / t_variant for every variant column but X itself, where X is
 *              the reference (--speedup-vs X: a variant, or sol; default the run's
 *              baseline). One such column reads "speedup vs X" (the seed's single
 *              "speedup vs triton" column); with several, each is headed
 *              "VARIANT vs X". The sol column gets none: t_X / t_sol is only X's
 *              distance from the speed of light, which --speedup-vs sol shows the
 *              other way round (t_sol / t_variant: 1.00x is the speed of light).
 *
 * A measurement without a trustworthy number never shows one, in its time
 * column and in every speedup it takes part in (first match wins; the
 * variant's own before X's): FAIL (failed its check), OOM, ERR (runtime
 * error), UNCHK (ran, not checked against the reference), SKIP (not run:
 * unsupported shape or dtype; the result file says why), "-" (not measured);
 * in a speedup column, X's failed check is BFAIL, like the grid's baseline.
 * A number measured in a throttled cell carries "!" (clocks.h). A line under
 * the table says what the marks in it mean.
 *
 * Times: microseconds with two decimals ("17.32", "1204.35"), so a column's
 * decimal points line up; speedups with two decimals and an "x" ("3.76x"). */
#ifndef FB_REPORT_TABLE_H
#define FB_REPORT_TABLE_H

#include <stdio.h>

#include "fb.h"
#include "resultset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_table_style {
    FB_TABLE_TEXT, /* the terminal's: blank-separated, aligned columns (run --table) */
    FB_TABLE_MD,   /* a markdown table under a "###" heading (export --format md --table) */
} fb_table_style;

/* The name --speedup-vs takes besides the variants: the speed-of-light copy. */
#define FB_TABLE_SOL "sol"

/* Is `vs` one of `variants` (the run's, or the case's in a result file) or
 * "sol"? FB_E_USAGE otherwise, `whose` saying whose variants they are:
 * "--speedup-vs: 'eagr' is not among this run's variants of case 'rmsnorm'
 * (did you mean 'eager'?); choose one of: eager, rmsnorm.fused, sol". */
fb_status fb_table_check_vs(const char *case_name, const char *vs, const char *const *variants, int n_variants,
                            const char *whose);

/* One case x dtype as a table into f: for a case with fixed size symbols, one
 * table per combination of their values (a grid), its heading naming it
 * ("mm · float32 · K=1024 · <device> · ..."), in the case's grid order; a grid
 * without cells prints nothing. `variants` (n_variants) are the columns to
 * show, in any order (eager is put first); NULL for the case's whole list. A
 * variant that no cell of the dtype measured is left out, unless it is X; a
 * dtype without cells prints nothing.
 * `vs` is X; NULL for the case's baseline. FB_E_USAGE when vs is not among the
 * columns nor "sol" (fb_table_check_vs's message); FB_E_NOMEM; FB_E_IO when
 * writing failed. */
fb_status fb_table_print(FILE *f, const fb_rs_doc *doc, const fb_rs_case *cs, const fb_rs_dtype *dt,
                         const char *const *variants, int n_variants, const char *vs, fb_table_style style);

/* "17.32", "1204.35": a median time in microseconds as the table writes it. */
void fb_table_format_us(double us, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
