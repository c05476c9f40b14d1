/* compare.h — regression gating: two result files (BASE, NEW), or two variants of one
 * run (A as BASE, B as NEW), matched cell by cell and held against each other with
 * compare_stats.h's verdicts. Reads results only through resultset.h.
 *
 * Matching (two files): case name × dtype × (fixed values, row, col) × variant name: a
 * case with fixed size symbols (K ∈ {1024, 4096}) has one grid per combination, and a
 * cell matches only the cell of the other file at the same values of the same symbols
 * (by name and value, not by grid index: the two runs may list other values). What one side
 * has and the other lacks is listed as "only in BASE" / "only in NEW" at the coarsest
 * level that is missing (a whole case, a whole dtype, a whole cell, one variant); that
 * is information, not a failure. Two variants (A, B) of one run: every cell of the run
 * that holds either; a cell lacking one of them lists it as "only A" / "only B".
 *
 * A matched pair becomes an item of one of three kinds:
 *  - FAILED: NEW's variant failed its correctness check (status fail): a failure, whatever
 *    its time;
 *  - COMPARED: both are ok and timed: ratio, interval and verdict (compare_stats.h);
 *  - UNTIMED: anything else (an oom, error or skipped side, a BASE that failed): listed
 *    with both statuses, not compared, not a failure.
 * The speed-of-light copy of each cell (sol) is not compared: it times the device's
 * memory, not the code under test. Its median ratio over the matched cells is reported
 * (sol_ratio) as a hint that the two machines differed. */
#ifndef FB_COMPARE_H
#define FB_COMPARE_H

#include <stdio.h>

#include "compare_stats.h"
#include "opts.h"
#include "resultset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_cmp_kind { FB_CMP_COMPARED = 0, FB_CMP_FAILED, FB_CMP_UNTIMED } fb_cmp_kind;

typedef struct fb_cmp_item {
    const fb_rs_case *kase;    /* NEW's case (axis names: rows, cols) */
    const char *dtype;
    int64_t row, col;          /* col -1 for a one-axis grid */
    int grid;                  /* kase's grid of the cell (fb_rs_grid_label: "K=1024"); 0 without fixed symbols */
    const char *base_variant;  /* the variant in BASE, or A */
    const char *new_variant;   /* the variant in NEW, or B */
    const fb_rs_variant *base, *new_;
    fb_cmp_kind kind;
    fb_compare_result r;       /* COMPARED: everything; else ratio and medians (µs) where known */
    const char *note;          /* a static phrase, or NULL ("ideal bytes differ: the case changed") */
} fb_cmp_item;

/* A thing only one side has. Fields past the missing level are NULL / unset:
 * a whole case has dtype NULL; a whole dtype has has_cell 0; a whole cell variant NULL. */
typedef struct fb_cmp_only {
    int side;                  /* 0: only in BASE (or A), 1: only in NEW (or B) */
    const char *case_name;
    const fb_rs_case *kase;    /* the case of the side that has it */
    const char *rows, *cols;   /* the case's axis names, for printing the point */
    const char *dtype;
    int has_cell;
    int64_t row, col;
    int grid;                  /* with has_cell: kase's grid (-1: a value its list lacks) */
    const char *variant;
} fb_cmp_only;

typedef struct fb_cmp_filter {
    const fb_strlist *cases;    /* NULL or empty: all */
    const fb_strlist *dtypes;   /* NULL or empty: all (aliases accepted: bf16) */
    const fb_strlist *variants; /* two files: which variants; NULL or empty: all */
} fb_cmp_filter;

typedef struct fb_cmp_report {
    const fb_rs_doc *base, *new_; /* the same doc in two-variant mode */
    /* compare --paired: what is held against what is each variant's paired timing, the pairs'
     * ratios t_variant / t_floor (run's "paired": the variant timed in turn with its case's
     * plain op), not its time: the question "is the fusion still free" asked of two runs,
     * which the card's power state does not move as it moves times (kernels/NOTES.md, stop
     * 43). A variant without pairs on a side is UNTIMED. The medians are then ratios. */
    int paired;
    int variants_mode;
    const char *variant_a, *variant_b; /* two-variant mode */
    int device_mismatch;          /* the devices differ (allowed by the caller) */
    fb_compare_opts opts;
    fb_cmp_filter filter;         /* as given (its lists are the caller's and must outlive the report) */
    fb_cmp_item *items;           /* in the order of NEW's file */
    int n_items;
    fb_cmp_only *only;
    int n_only;
    /* counts */
    int verdicts[FB_NVERDICTS];   /* over COMPARED items */
    int n_failed, n_untimed, n_only_base, n_only_new;
    int n_quantile_rule;          /* COMPARED items that had no samples (the p20/p80 rule) */
    int n_no_interval;            /* COMPARED items with no interval at all (FB_CI_NONE) */
    double sol_ratio;             /* median over matched cells of NEW sol / BASE sol; NaN if none */
    int n_sol;
} fb_cmp_report;

/* NULL, or the one line refusing two devices (name and compute capability):
 * "BASE 'a.json' ran on NVIDIA H100 80GB HBM3 (cc 9.0), NEW 'b.json' on ..." as
 * fb_error's message, with status FB_E_USAGE. */
fb_status fb_compare_check_devices(const fb_rs_doc *base, const fb_rs_doc *new_);

/* Two files. FB_E_USAGE for a filter naming a case, dtype or variant neither file has.
 * `paired`: compare the pairs' ratios (fb_cmp_report.paired). */
fb_status fb_compare_files(const fb_rs_doc *base, const fb_rs_doc *new_, const fb_cmp_filter *f,
                           const fb_compare_opts *o, int paired, fb_cmp_report *out);
/* Variant b against variant a (the base) in every cell of one run; f->variants is
 * ignored. FB_E_USAGE when the run has no variant a or b (with a "did you mean"). */
fb_status fb_compare_variants(const fb_rs_doc *run, const char *a, const char *b, const fb_cmp_filter *f,
                              const fb_compare_opts *o, int paired, fb_cmp_report *out);
void fb_cmp_report_free(fb_cmp_report *r);

/* Does the report's selection hold this case, dtype and variant? (The filters, and in
 * two-variant mode only A and B.) */
int fb_cmp_selected(const fb_cmp_report *r, const char *case_name, const char *dtype, const char *variant);

/* SLOWER items or failed checks: the gate's answer. */
int fb_cmp_report_regressed(const fb_cmp_report *r);

/* The order reports print items in: failed checks, SLOWER (largest ratio first), NOISY,
 * FASTER, SAME, then the untimed; file order within each. A malloc'ed array of indices
 * into r->items (NULL when out of memory or n_items is 0). */
int *fb_cmp_report_order(const fb_cmp_report *r);

/* "FAIL", "UNTIMED" or the verdict's name. */
const char *fb_cmp_item_label(const fb_cmp_item *it);

/* ---- printers (compare_print.c) ---- */
typedef enum fb_cmp_format {
    FB_CMP_TABLE = 0, /* the terminal: regressions first, then a count per verdict */
    FB_CMP_MD,        /* a pull-request comment: regressions, counts, the full table collapsed */
    FB_CMP_JSON,      /* every comparison with its numbers and verdict, and a summary */
    FB_CMP_BENCH_JSON /* github-action-benchmark's customSmallerIsBetter list, NEW's times */
} fb_cmp_format;

/* FB_E_IO when writing fails, FB_E_NOMEM; the message names `what` (the file or "stdout"). */
fb_status fb_compare_print(FILE *f, const char *what, const fb_cmp_report *r, fb_cmp_format fmt);

#ifdef __cplusplus
}
#endif
#endif
