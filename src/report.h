/* report.h — the terminal grid (the seed study's relative-performance table),
 * printed from a result document, so a run and a later export print the same. */
#ifndef FB_REPORT_H
#define FB_REPORT_H

#include <stdio.h>
#include <jansson.h>
#include "fb.h"
#include "metrics.h"
#include "opts.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_show {
    FB_SHOW_SPEEDUP, /* t_baseline / t_variant, percent (default)           */
    FB_SHOW_SOL,     /* % of speed of light of the variant                  */
    FB_SHOW_TIME,    /* median time, microseconds                           */
    FB_SHOW_GBPS,    /* achieved GB/s of ideal bytes                        */
    FB_SHOW_DRAM,    /* measured DRAM bytes / ideal bytes (run --metrics)   */
    FB_SHOW_INST,    /* warp instructions executed (run --metrics)          */
    FB_SHOW_PAIRED,  /* t_floor / t_variant, timed in pairs with the case's plain op, percent */
    /* The modes above are views: what export --show, the heatmaps and the html
     * switch offer. Those from here on are the terminal grid's only (run --show). */
    FB_NSHOW_VIEWS,
    FB_SHOW_KERNELS = FB_NSHOW_VIEWS, /* kernels per run and their names (--timer cupti) */
    FB_NSHOW
} fb_show;

/* ---- the --show modes: one table, the only place that knows them ----------------
 * The terminal grid (report.c), every export (export.c, heatmap.c, export_html.c)
 * and the option parsers of run and export take what a mode shows, how it is
 * written and how it is coloured from here; adding a mode is a row of the table. */

/* What a grid value is made of, from a cell and its variant (and baseline); NaN
 * where the file has nothing. */
typedef struct fb_show_input {
    double t_ms;        /* the variant's median time */
    double base_ms;     /* the baseline's median time */
    double sol_ms;      /* the median of the cell's speed-of-light copy, when it is ok */
    double sol_pct;     /* the variant's stored sol_pct */
    double gbps;        /* the variant's stored gbps */
    double ideal_bytes; /* the cell's */
    double metrics[FB_NMETRICS]; /* the variant's run --metrics counts (metrics.h) */
    double kernels;     /* the kernel count the variant declares */
    double launched, launched_min, launched_max; /* --timer cupti's kernels per run: the most
                                                  * frequent count, the fewest, the most */
    double paired_ratio; /* the median of t_variant / t_floor over the pairs (cell.c's "paired") */
} fb_show_input;

/* How a heatmap colours a mode (heatmap.c). */
typedef enum fb_show_scale {
    FB_SCALE_SPEEDUP,   /* diverging around 1.0x on a log2 scale */
    FB_SCALE_PERCENT,   /* 0..100% */
    FB_SCALE_LOG,       /* the panel's range, log scale */
    FB_SCALE_FROM_ZERO, /* 0..the panel's highest value */
} fb_show_scale;

typedef struct fb_show_mode {
    const char *name;     /* the --show word */
    const char *heading;  /* a one-axis grid's column heading ("speedup", "% SOL", ...) */
    const char *view;     /* the html page's switch */
    const char *describe; /* a grid's title after "case · dtype · device · ": %1 the variant, %2 the baseline */
    const char *legend;   /* a heatmap's colour-bar title */
    fb_show_scale scale;
    bool needs_time;      /* only a variant with a time has a value */
    bool needs_baseline;  /* the baseline's marks (BFAIL, OOM, ...) apply */
    double (*value)(const fb_show_input *in);             /* NaN: no value */
    void (*format)(double value, char *buf, size_t n);   /* a value as the grid prints it */
    /* May be NULL. The terminal grid's text for a cell the marks left alone, in
     * place of format(value) or "-", for what one number does not say (kernels:
     * "3-5" when runs differed, "(4)" declared but not measured). */
    void (*text)(const fb_show_input *in, char *buf, size_t n);
    /* May be NULL. What the terminal grid prints under its table, from the
     * dtype's object of the result (kernels: the names of those launched). */
    void (*footer)(FILE *f, json_t *dtype, const char *variant);
} fb_show_mode;

extern const fb_show_mode fb_show_modes[FB_NSHOW];
/* {name, fb_show} of every mode, for FB_OPT_ENUM: run --show takes all
 * FB_NSHOW, export --show the first FB_NSHOW_VIEWS (the views). */
extern const fb_opt_choice fb_show_choices[FB_NSHOW];
int fb_show_from_name(const char *s, fb_show *out);
/* The mode's value for `in`: a finite number >= 0, or NaN. */
double fb_show_value(fb_show show, const fb_show_input *in);
/* A cell's text in this mode, as the terminal grid and every export write it:
 * the mode's text hook where it has one, else format(value), or "-" when there is
 * no value; then, when `throttled` (the cell's SM clock fell, clocks.h) and the
 * text is not "-", the throttle mark after it ("312.5%!"). One place for every
 * mode, so none can miss the mark. Returns whether the mark was added. */
bool fb_show_text(fb_show show, const fb_show_input *in, bool throttled, char *buf, size_t n);
/* A grid's title for a variant (and baseline) in this mode, into buf (returned). */
const char *fb_show_describe(fb_show show, const char *variant, const char *baseline, char *buf, size_t n);
/* "1.23G", "45.6M", "789k", "512": a count in three significant digits. */
void fb_format_count(double value, char *buf, size_t n);

/* Print one grid: case x dtype x variant. Cells:
 *   "312.5%"  ok;  "OOM" variant or baseline out of memory;  "FAIL" failed its check;
 *   "ERR" runtime error;  "-" skipped or not measured;  "312.5%!" measured in a
 *   throttled cell (clocks.h), with a line under the grid saying so.
 * Header line: "softmax · float32 · <device> · softmax.fused vs eager (t_eager / t_softmax.fused)".
 * A case with fixed size symbols prints one such grid per combination of their
 * values (the first slowest), each of its own cells and headed with it after
 * the dtype: "mm · float32 · K=1024 · <device> · ..."; a mode's footer (the
 * kernels' names) once, after the last. */
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
