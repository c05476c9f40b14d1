/* export.h — `fusionbench export`: a result file (read into the typed model,
 * resultset.h) printed as CSV, markdown, SVG heatmaps, a self-contained HTML
 * page or JSON records, by printers behind one interface (nvbench's
 * printer_base is the model).
 *
 * One walk (fb_export_doc) visits the document in a fixed order and calls a
 * printer's hooks; a printer only formats:
 *
 *   begin_doc
 *     begin_case                       for each case (file order; --case picks one)
 *       begin_dtype                    for each dtype (--dtype picks one)
 *         begin_grid                   for each grid: a case x dtype x variant
 *           cell                       for each grid point: rows (dim0) x cols (dim1)
 *         end_grid
 *       end_dtype
 *     end_case
 *   end_doc
 *
 * Which grids a printer sees is its `walk`:
 *   FB_WALK_SHOWN     the grids `run` prints for --show (report.c's fb_report_case
 *                     rule): for the speedup every variant but the baseline (against
 *                     itself it is 100% everywhere), unless the baseline is all there
 *                     is (then its % of speed of light); every variant otherwise
 *   FB_WALK_VARIANTS  every variant, the baseline included (html: it switches views)
 *   FB_WALK_MEASURED  every variant and the cell's speed-of-light copy, as a variant
 *                     named "sol" (csv, json: every measurement is a row)
 * --variant V keeps V's grid only (the baseline is still read for the speedup).
 * With `table` (md only) the md printer writes report_table.h's table at each
 * end_dtype instead of the grids, the speedups against `speedup_vs`.
 *
 * Every cell comes with the value of every --show mode and the grid's text for
 * each, computed here once from report.h's table of modes, so the markdown
 * table, the SVG labels and the terminal grid agree:
 *   speedup  t_baseline_median / t_variant_median (a ratio; text "329.6%")
 *   sol      t_copy / t_variant (ratio of medians), or the stored sol_pct
 *   time     the median in microseconds
 *   gbps     achieved GB/s of the cell's ideal bytes
 *   dram     measured DRAM bytes read + written / ideal bytes (run --metrics; "1.02x")
 *   inst     warp instructions executed (run --metrics; "4.19M")
 *   kernels  kernels per run measured by --timer cupti (the terminal grid's only:
 *            not a view, so no export --show, heatmap or html switch offers it;
 *            csv/json carry it as columns, md and html list what was launched)
 * A value that is not a number has a mark instead (report.c's markers, first match
 * wins): the variant's own FAIL, OOM, ERR, UNCHK (ran, not checked against the
 * reference), "-" (skipped, not measured); then, for the speedup only, the
 * baseline's BFAIL, OOM, ERR, UNCHK, "-". A failed or unchecked kernel never
 * reads as a number in a grid (csv and json carry the raw measurements, with the
 * status and check columns beside them). A number measured in a throttled cell
 * (its SM clock fell more than 10%, clocks.h) keeps its value, and its text ends
 * in "!" ("312.5%!"), as in report.c's grid. */
#ifndef FB_EXPORT_H
#define FB_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "fb.h"
#include "report.h"
#include "resultset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FB_EXPORT_TEXT 32   /* one cell's text: "123456789.0%" fits */

typedef struct fb_export_opts {
    fb_show show;          /* md, svg: the value shown; html: the first view (csv, json: all) */
    const char *case_name; /* NULL: every case */
    const char *dtype;     /* NULL: every dtype; aliases accepted */
    const char *variant;   /* NULL: every variant the walk shows */
    bool table;            /* md only: the benchmark table of each case x dtype (report_table.h)
                              in place of the grids; no --variant with it */
    const char *speedup_vs; /* the table's speedup reference (a variant, or "sol"); NULL: each
                               case's baseline; only with table */
} fb_export_opts;

typedef enum fb_export_walk { FB_WALK_SHOWN, FB_WALK_VARIANTS, FB_WALK_MEASURED } fb_export_walk;

/* One grid: a case x dtype x variant. */
typedef struct fb_export_grid {
    const fb_rs_doc *doc;
    const fb_rs_case *cs;
    const fb_rs_dtype *dt;
    const char *variant;  /* the variant's name, or "sol" for the speed-of-light copy */
    const char *baseline; /* the case's baseline */
    fb_show show;         /* what a one-value printer shows here (sol for a lone baseline) */
    bool is_baseline, is_sol;
    bool others;          /* the grid's case x dtype has grids of other variants too */
    int index;            /* 0, 1, ... over the whole export: unique ids */
    int n_rows, n_cols;   /* n_cols is 1 for a one-axis grid */
    /* a case with fixed size symbols has one grid per combination of their values
     * (fb_rs_case's n_grids) for each variant: which, and its label "K=1024" ("" for
     * a case without fixed symbols, whose single grid is 0) */
    int grid;
    char label[128];
} fb_export_grid;

/* One grid point of a grid. */
typedef struct fb_export_cell {
    int r, c;                  /* indices into the case's row_values / col_values */
    int64_t row, col;          /* the values; col -1 for a one-axis grid */
    const fb_rs_cell *cell;    /* NULL when the file has no cell here */
    const fb_rs_variant *v;    /* the grid's variant here, or NULL when not measured */
    const fb_rs_variant *base; /* the baseline here, or NULL */
    double value[FB_NSHOW];    /* by fb_show; NaN where mark is set */
    const char *mark[FB_NSHOW];
    char text[FB_NSHOW][FB_EXPORT_TEXT]; /* the mark, or the value as the grid prints it
                                            (with FB_THROTTLE_MARK after it when throttled) */
    bool throttled;            /* the cell's SM clock fell more than 10% while it ran */
    bool marked[FB_NSHOW];     /* text[s] carries the throttle mark (fb_show_text: never the paired view's) */
    char shape[64];            /* the case's first input's shape here, "4x128x1027"; "" when the
                                  file has no shapes (result.h's SHAPES) */
} fb_export_cell;

/* The walk's context, handed to every hook. */
typedef struct fb_export {
    FILE *out;
    const fb_rs_doc *doc;
    const fb_export_opts *opts;
    void *state; /* the printer's own, made in begin_doc, released by release */
} fb_export;

/* A printer: hooks that may be NULL (nothing to do there). A hook's failure
 * stops the walk; release runs whatever happened. */
typedef struct fb_printer {
    const char *name; /* the --format word */
    fb_export_walk walk;
    /* Shows each grid of a case with fixed symbols apart (its label); a printer
     * without it is refused such a case (exit 2) rather than mixing grids. */
    bool splits_grids;
    fb_status (*begin_doc)(fb_export *x);
    fb_status (*begin_case)(fb_export *x, const fb_rs_case *cs);
    fb_status (*begin_dtype)(fb_export *x, const fb_rs_case *cs, const fb_rs_dtype *dt);
    fb_status (*begin_grid)(fb_export *x, const fb_export_grid *g);
    fb_status (*cell)(fb_export *x, const fb_export_grid *g, const fb_export_cell *c);
    fb_status (*end_grid)(fb_export *x, const fb_export_grid *g);
    fb_status (*end_dtype)(fb_export *x, const fb_rs_case *cs, const fb_rs_dtype *dt);
    fb_status (*end_case)(fb_export *x, const fb_rs_case *cs);
    fb_status (*end_doc)(fb_export *x);
    void (*release)(fb_export *x);
} fb_printer;

extern const fb_printer fb_printer_csv;  /* export_csv.c  */
extern const fb_printer fb_printer_json; /* export_json.c */
extern const fb_printer fb_printer_md;   /* export_md.c   */
extern const fb_printer fb_printer_svg;  /* heatmap.c     */
extern const fb_printer fb_printer_html; /* export_html.c */

/* The printer for a --format word, or NULL. */
const fb_printer *fb_printer_find(const char *format);
/* "csv, md, svg, html, json" */
const char *fb_printer_names(void);

/* Walks `doc` through printer `p` into `out`. FB_E_USAGE when --case, --dtype
 * or --variant names nothing in the file (the message lists what it has), when
 * --speedup-vs names no variant of a selected case, or when table, speedup_vs
 * and variant are combined as they cannot be (table with another format than md
 * or with a variant, speedup_vs without table);
 * FB_E_IO when writing fails; a printer's own status otherwise. */
fb_status fb_export_doc(FILE *out, const fb_rs_doc *doc, const fb_export_opts *o, const fb_printer *p);

/* ---- what the printers share ------------------------------------------------ */

/* "softmax.fused vs eager (t_eager / t_softmax.fused)", "eager % of speed of light
 * (t_copy(ideal bytes) / t_eager)", "softmax.fused median time (us)", "... GB/s of
 * ideal bytes": report.c's header, after "case · dtype · device · ". */
const char *fb_export_describe(const fb_export_grid *g, fb_show show, char *buf, size_t n);
/* "speedup", "% SOL", "us", "GB/s", ...: the column heading of a one-axis grid. */
const char *fb_export_value_heading(fb_show show);
/* The views a page of the doc offers (a bit per fb_show): the four of every
 * run, and dram and inst when some variant has those metrics; `first` always. */
unsigned fb_export_views(const fb_rs_doc *doc, fb_show first);
/* A grid's corner label: "dim0\dim1" (or "dim0" for one axis). */
const char *fb_export_corner(const fb_export_grid *g, char *buf, size_t n);
/* A column heading: the column's value, or the value heading for one axis. */
const char *fb_export_col_label(const fb_export_grid *g, int c, fb_show show, char *buf, size_t n);

/* What a variant launched over the cells of one dtype (measured by --timer
 * cupti, "kernels_launched"): in how many cells it was measured, the fewest and
 * most kernels per run, and the distinct kernel names in the order first seen
 * (cells in file order). cells == 0 when it was measured in none. */
typedef struct fb_export_kernels {
    int cells, lo, hi;
    const char **names; /* point into the doc */
    int n_names;
} fb_export_kernels;
fb_status fb_export_kernels_of(const fb_rs_dtype *dt, const char *variant, fb_export_kernels *out);
void fb_export_kernels_free(fb_export_kernels *k);

/* The tidy long-form records of csv and json: one per measurement. */
typedef enum fb_field_kind { FB_FIELD_TEXT, FB_FIELD_NUMBER, FB_FIELD_BOOL } fb_field_kind;
typedef struct fb_field {
    fb_field_kind kind;
    const char *text; /* FB_FIELD_TEXT: NULL when absent */
    double number;    /* FB_FIELD_NUMBER: NaN when absent */
    int boolean;      /* FB_FIELD_BOOL: 1, 0, or -1 when absent */
} fb_field;
#define FB_N_FIELDS 59
extern const char *const fb_field_names[FB_N_FIELDS];
/* The record of a measured cell (c->v != NULL) into f[FB_N_FIELDS]; strings point
 * into the doc. */
void fb_export_record(const fb_export_grid *g, const fb_export_cell *c, fb_field *f);
/* Does the export walk a case with fixed size symbols? Then csv and json records
 * carry one more field, FB_FIELD_FIXED ("K=1024", the grid's label; empty/null for
 * a case without), after the others: files of cases without keep their columns. */
bool fb_export_has_fixed(const fb_export *x);
#define FB_FIELD_FIXED "fixed"

/* Writing, with FB_E_IO reported once at the end: escapes for HTML/SVG text and
 * attributes (& < > " ' and C0 controls, which XML cannot hold even escaped). */
void fb_put_xml(FILE *f, const char *s);
/* A markdown-safe copy of s into buf (cut to fit, never mid-escape): | \ ` * [ ]
 * as \X, < > & as entities, line breaks and tabs as blanks; returns buf. */
const char *fb_md_escape(const char *s, char *buf, size_t n);
/* A number for machine-read output: an integral value below 2^53 plainly
 * ("34359738368"), anything else with 9 significant digits; false when NaN/Inf. */
bool fb_format_number(double x, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
