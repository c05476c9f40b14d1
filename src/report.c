/* report.c — the terminal grid: one table per case x dtype x variant, printed
 * from a result document so that a live run and a later `export` print the same.
 *
 *   softmax · float32 · NVIDIA H100 80GB HBM3 · softmax.fused vs eager (t_eager / t_softmax.fused)
 *   dim0\dim1     128     256     512    1024
 *   128        312.5%  298.1%  305.0%  290.2%
 *   65536      251.0%     OOM    FAIL       -
 *
 * Layout rule: the row-label column is as wide as the widest of the corner label
 * and the row values, left-aligned; every value column is right-aligned in
 * max(7, widest entry of that column, header included) + 1 characters, the +1
 * being the gap. No line has trailing blanks.
 *
 * Cell markers, first match wins: the variant's own status (FAIL, OOM, ERR,
 * "-" when skipped or not measured, UNCHK when it ran but was not checked against
 * the reference), then — for the speedup only — the baseline's (BFAIL when it
 * failed its check, OOM, ERR, "-", UNCHK). A failed check outranks everything: a
 * fast wrong kernel must never read as a number, and neither may one nobody
 * checked.
 *
 * The --show modes (speedup, sol, time, gbps, dram, inst, kernels) are one
 * table, fb_show_modes below: what each computes, how it is written, titled and
 * coloured (and, for kernels, what follows its grid: the kernels' names). This
 * file and every export read it; none switches on a mode.
 *
 * A number measured in a throttled cell (its SM clock fell more than 10% while
 * it ran, clocks.h) is kept, with "!" after it ("312.5%!"), and a line under the
 * grid says what the mark means: the number is real, but not comparable. The
 * mark is added where every mode's text is made (fb_show_text), so it holds for
 * every mode and every export alike. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "result.h"

#define ENTRY_MAX 32 /* one formatted cell: "123456789.0%" fits easily */

/* ---- the --show modes --------------------------------------------------------- */

static double v_speedup(const fb_show_input *in) { return in->base_ms / in->t_ms; }

/* The same ratio of medians as the speedup, against the cell's streaming copy;
 * the stored sol_pct for a cell without sol times. */
static double v_sol(const fb_show_input *in)
{
    double x = in->sol_ms / in->t_ms * 100.0;
    return isfinite(x) ? x : in->sol_pct;
}

static double v_time(const fb_show_input *in) { return in->t_ms * 1000.0; }

static double v_gbps(const fb_show_input *in)
{
    return isfinite(in->gbps) ? in->gbps : in->ideal_bytes / (in->t_ms * 1e-3) / 1e9;
}

/* Every byte the run moved to and from DRAM over the bytes it had to. */
static double v_dram(const fb_show_input *in)
{
    return (in->metrics[FB_METRIC_DRAM_READ] + in->metrics[FB_METRIC_DRAM_WRITE]) / in->ideal_bytes;
}

static double v_inst(const fb_show_input *in) { return in->metrics[FB_METRIC_INST]; }

/* Kernels per run as --timer cupti measured them: the count, or "lo-hi" when
 * runs differed; else the count the variant declares, in parentheses. */
static double v_kernels(const fb_show_input *in) { return in->launched; }
/* as speedup reads: 100% the floor's time, less slower than it */
static double v_paired(const fb_show_input *in) { return 1.0 / in->paired_ratio; }

static void t_kernels(const fb_show_input *in, char *buf, size_t n)
{
    if (isfinite(in->launched_min) && isfinite(in->launched_max) && in->launched_min != in->launched_max)
        snprintf(buf, n, "%.0f-%.0f", in->launched_min, in->launched_max);
    else if (isfinite(in->launched) && in->launched >= 0)
        snprintf(buf, n, "%.0f", in->launched);
    else if (isfinite(in->kernels) && in->kernels >= 0)
        snprintf(buf, n, "(%.0f)", in->kernels);
    else
        snprintf(buf, n, "-");
}

/* Under a kernels grid: the kernels the variant launched in any cell of the
 * dtype, each once, in the order first seen (cells in file order), one a line. */
static void kernel_names(FILE *f, json_t *dt, const char *variant)
{
    size_t i, j, cap = 0, n = 0;
    const char **seen = NULL;
    json_t *cell, *name;
    int cells = 0;
    json_array_foreach(json_object_get(dt, "cells"), i, cell) {
        json_t *kl = json_object_get(json_object_get(json_object_get(cell, "variants"), variant), "kernels_launched");
        if (!kl) continue;
        cells++;
        json_array_foreach(json_object_get(kl, "names"), j, name) {
            const char *s = json_string_value(name);
            bool dup = !s;
            for (size_t k = 0; k < n && !dup; k++) dup = strcmp(seen[k], s) == 0;
            if (dup) continue;
            if (n == cap) {
                const char **more = realloc(seen, (cap = cap ? 2 * cap : 16) * sizeof *seen);
                if (!more) break;
                seen = more;
            }
            seen[n++] = s;
        }
    }
    if (!cells) fprintf(f, "%s: kernels not measured (run with --timer cupti)\n", variant);
    else fprintf(f, "%s launched, in %d cell%s:\n", variant, cells, cells > 1 ? "s" : "");
    for (size_t k = 0; k < n; k++) fprintf(f, "  %s\n", seen[k]);
    fputc('\n', f);
    free(seen);
}

static void f_percent_of_ratio(double v, char *buf, size_t n) { snprintf(buf, n, "%.1f%%", v * 100.0); }
static void f_percent(double v, char *buf, size_t n) { snprintf(buf, n, "%.1f%%", v); }
static void f_tenths(double v, char *buf, size_t n) { snprintf(buf, n, "%.1f", v); }
static void f_whole(double v, char *buf, size_t n) { snprintf(buf, n, "%.0f", v); }
static void f_times(double v, char *buf, size_t n) { snprintf(buf, n, "%.2fx", v); }

void fb_format_count(double v, char *buf, size_t n)
{
    static const char suffix[] = " kMGTPE";
    int k = 0;
    /* up to 9999 plainly; then three significant digits, the suffix moving on
     * before a value would print as 1000 */
    if (v < 9999.5) {
        snprintf(buf, n, "%.0f", v);
        return;
    }
    while (k < 6 && v >= 999.5) v /= 1000.0, k++;
    snprintf(buf, n, "%.3g%c", v, suffix[k]);
}

const fb_show_mode fb_show_modes[FB_NSHOW] = {
    [FB_SHOW_SPEEDUP] = {"speedup", "speedup", "speedup", "%1 vs %2 (t_%2 / t_%1)",
                         "speedup, log scale: blue faster than the baseline, red slower, 100% the same",
                         FB_SCALE_SPEEDUP, true, true, v_speedup, f_percent_of_ratio},
    [FB_SHOW_SOL] = {"sol", "% SOL", "% of SOL", "%1 % of speed of light (t_copy(ideal bytes) / t_%1)",
                     "% of speed of light (a streaming copy of the ideal bytes)", FB_SCALE_PERCENT, true, false, v_sol,
                     f_percent},
    [FB_SHOW_TIME] = {"time", "us", "time (us)", "%1 median time (us)", "median time (us), log scale", FB_SCALE_LOG,
                      true, false, v_time, f_tenths},
    [FB_SHOW_GBPS] = {"gbps", "GB/s", "GB/s", "%1 GB/s of ideal bytes", "GB/s of ideal bytes", FB_SCALE_FROM_ZERO, true,
                      false, v_gbps, f_whole},
    [FB_SHOW_DRAM] = {"dram", "DRAM/ideal", "DRAM / ideal",
                      "%1 DRAM bytes read + written / ideal bytes (measured, from a flushed L2)",
                      "DRAM bytes / ideal bytes, log scale (1.00x: each input read once, each output written once)",
                      FB_SCALE_LOG, false, false, v_dram, f_times},
    [FB_SHOW_INST] = {"inst", "inst", "instructions", "%1 warp instructions executed (measured)",
                      "warp instructions executed, log scale", FB_SCALE_LOG, false, false, v_inst, fb_format_count},
    [FB_SHOW_PAIRED] = {"paired", "vs floor", "vs floor",
                        "%1 vs the plain op, timed in pairs with it (t_floor / t_%1, median of the pairs; 100%: "
                        "the fusion is free)",
                        "t_floor / t_variant, timed in pairs", FB_SCALE_SPEEDUP, false, false, v_paired,
                        f_percent_of_ratio},
    [FB_SHOW_KERNELS] = {"kernels", "kernels", "kernels", "%1 kernels per run (measured by CUPTI; (N): declared, not measured)",
                         "kernels per run (measured by CUPTI)", FB_SCALE_FROM_ZERO, false, false, v_kernels, f_whole,
                         t_kernels, kernel_names},
};

const fb_opt_choice fb_show_choices[FB_NSHOW] = {
    {"speedup", FB_SHOW_SPEEDUP}, {"sol", FB_SHOW_SOL}, {"time", FB_SHOW_TIME},
    {"gbps", FB_SHOW_GBPS},       {"dram", FB_SHOW_DRAM}, {"inst", FB_SHOW_INST},
    {"paired", FB_SHOW_PAIRED},   {"kernels", FB_SHOW_KERNELS},
};

int fb_show_from_name(const char *s, fb_show *out)
{
    for (int i = 0; s && i < FB_NSHOW; i++)
        if (strcmp(s, fb_show_modes[i].name) == 0) {
            *out = (fb_show)i;
            return 0;
        }
    return -1;
}

double fb_show_value(fb_show show, const fb_show_input *in)
{
    double x = fb_show_modes[show].value(in);
    return isfinite(x) && x >= 0 ? x : NAN;
}

bool fb_show_text(fb_show show, const fb_show_input *in, bool throttled, char *buf, size_t n)
{
    const fb_show_mode *mode = &fb_show_modes[show];
    double value = fb_show_value(show, in);
    if (mode->text) mode->text(in, buf, n);
    else if (isfinite(value)) mode->format(value, buf, n);
    else snprintf(buf, n, "-");
    size_t len = strlen(buf);
    /* a paired ratio holds still while the clock moves (bench.h): the cell's mark is not its */
    if (show == FB_SHOW_PAIRED) throttled = false;
    if (!throttled || strcmp(buf, "-") == 0 || len + sizeof FB_THROTTLE_MARK > n) return false;
    memcpy(buf + len, FB_THROTTLE_MARK, sizeof FB_THROTTLE_MARK);
    return true;
}

const char *fb_show_describe(fb_show show, const char *variant, const char *baseline, char *buf, size_t n)
{
    size_t used = 0;
    if (!n) return buf;
    buf[0] = 0;
    for (const char *p = fb_show_modes[show].describe; *p && used + 1 < n; p++) {
        int w;
        if (p[0] == '%' && (p[1] == '1' || p[1] == '2')) {
            const char *name = *++p == '1' ? variant : baseline;
            w = snprintf(buf + used, n - used, "%s", name ? name : "?");
        } else {
            w = snprintf(buf + used, n - used, "%c", *p);
        }
        used = w > 0 && used + (size_t)w < n ? used + (size_t)w : n - 1;
    }
    return buf;
}

/* ---- looking things up with messages -------------------------------------- */

/* "a, b, c" of the string members `key` of `array` (or of the strings
 * themselves when key is NULL), for "... (have: a, b)" messages. */
static void list_names(json_t *array, const char *key, char *buf, size_t n)
{
    size_t i, used = 0;
    json_t *it;
    buf[0] = 0;
    json_array_foreach(array, i, it) {
        const char *s = json_string_value(key ? json_object_get(it, key) : it);
        if (!s || used >= n) continue;
        int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", s);
        if (w > 0) used += (size_t)w;
    }
    if (!buf[0]) snprintf(buf, n, "none");
}

static bool array_has_string(json_t *array, const char *want)
{
    size_t i;
    json_t *it;
    json_array_foreach(array, i, it) {
        const char *s = json_string_value(it);
        if (s && strcmp(s, want) == 0) return true;
    }
    return false;
}

/* ---- one cell ------------------------------------------------------------- */

/* The marker for a measurement that did not produce a number, or NULL when it
 * is ok. `entry` is a variant's (or the baseline's) object within a cell. */
static const char *status_marker(json_t *entry, bool is_baseline)
{
    const char *st = json_string_value(json_object_get(entry, "status"));
    if (!st) return "-";
    if (strcmp(st, "ok") == 0) return fb_result_unchecked(entry) ? "UNCHK" : NULL;
    if (strcmp(st, "fail") == 0) return is_baseline ? "BFAIL" : "FAIL";
    if (strcmp(st, "oom") == 0) return "OOM";
    if (strcmp(st, "error") == 0) return "ERR";
    return "-"; /* skipped, or a status this build does not know */
}

static double median_ms(json_t *entry)
{
    fb_stats s;
    fb_stats_from_json(json_object_get(entry, "time_ms"), &s);
    return s.median;
}

/* Formats one cell of the grid into out[ENTRY_MAX]; *throttled is set when it is
 * a number with the throttle mark. */
static void format_cell(char *out, json_t *cell, const char *variant, const char *baseline,
                        fb_show show, bool *throttled)
{
    *throttled = false;
    const fb_show_mode *mode = &fb_show_modes[show];
    json_t *vars = json_object_get(cell, "variants");
    json_t *v = json_object_get(vars, variant);
    const char *mark = cell ? status_marker(v, false) : "-";
    json_t *b = NULL;
    if (!mark && mode->needs_baseline) {
        b = json_object_get(vars, baseline);
        mark = status_marker(b, true);
    }
    if (mark) {
        snprintf(out, ENTRY_MAX, "%s", mark);
        return;
    }

    json_t *sol = json_object_get(cell, "sol");
    const char *sst = json_string_value(json_object_get(sol, "status"));
    json_t *metrics = json_object_get(v, "metrics");
    fb_show_input in = {.t_ms = median_ms(v), .base_ms = b ? median_ms(b) : NAN,
                        .sol_ms = sst && strcmp(sst, "ok") == 0 ? median_ms(sol) : NAN,
                        .sol_pct = fb_json_number(v, "sol_pct"), .gbps = fb_json_number(v, "gbps"),
                        .ideal_bytes = fb_json_number(cell, "ideal_bytes")};
    for (int i = 0; i < FB_NMETRICS; i++) in.metrics[i] = fb_json_number(metrics, fb_metric_table[i].key);
    json_t *kl = json_object_get(v, "kernels_launched");
    in.kernels = fb_json_number(v, "kernels");
    in.launched = fb_json_number(kl, "count");
    in.launched_min = fb_json_number(kl, "count_min");
    in.launched_max = fb_json_number(kl, "count_max");
    json_t *pj = json_object_get(v, "paired");
    const char *pst = json_string_value(json_object_get(pj, "status"));
    in.paired_ratio = pst && strcmp(pst, "ok") == 0 ? fb_json_number(json_object_get(pj, "ratio"), "median") : NAN;
    *throttled = fb_show_text(show, &in, fb_cell_json_throttled(cell), out, ENTRY_MAX);
}

/* ---- the grid ------------------------------------------------------------- */

/* A grid value as printed in labels: integers plainly, anything else as %g. */
static void format_label(char *out, json_t *v)
{
    if (json_is_integer(v)) snprintf(out, ENTRY_MAX, "%lld", (long long)json_integer_value(v));
    else if (json_is_number(v)) snprintf(out, ENTRY_MAX, "%g", json_number_value(v));
    else snprintf(out, ENTRY_MAX, "?");
}

/* A grid value as the int64 the cells are keyed on. */
static int64_t label_value(json_t *v)
{
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : (int64_t)json_number_value(v);
}

/* `label`: the grid's fixed values ("K=1024"), after the dtype; "" for a case
 * without fixed symbols, whose header is as it always was. */
static void print_header(FILE *f, json_t *root, const char *case_name, const char *dtype, const char *label,
                         const char *variant, const char *baseline, fb_show show)
{
    const char *dev = json_string_value(json_object_get(json_object_get(root, "device"), "name"));
    char desc[1024];
    fprintf(f, "%s · %s%s%s · %s · %s\n", case_name, dtype, label[0] ? " · " : "", label,
            dev ? dev : "unknown device", fb_show_describe(show, variant, baseline, desc, sizeof desc));
}

/* Prints the table once every entry is formatted. heads[c] is the header of
 * column c; entries is rows x cols of ENTRY_MAX strings. */
static void print_table(FILE *f, const char *corner, char (*row_labels)[ENTRY_MAX], size_t nrows,
                        char (*heads)[ENTRY_MAX], size_t ncols, char (*entries)[ENTRY_MAX], const char *note)
{
    int label_w = (int)strlen(corner);
    for (size_t r = 0; r < nrows; r++)
        if ((int)strlen(row_labels[r]) > label_w) label_w = (int)strlen(row_labels[r]);

    int *col_w = calloc(ncols ? ncols : 1, sizeof *col_w);
    if (!col_w) return;
    for (size_t c = 0; c < ncols; c++) {
        int w = 7;
        if ((int)strlen(heads[c]) > w) w = (int)strlen(heads[c]);
        for (size_t r = 0; r < nrows; r++)
            if ((int)strlen(entries[r * ncols + c]) > w) w = (int)strlen(entries[r * ncols + c]);
        col_w[c] = w + 1;
    }

    fprintf(f, "%-*s", label_w, corner);
    for (size_t c = 0; c < ncols; c++) fprintf(f, "%*s", col_w[c], heads[c]);
    fputc('\n', f);
    for (size_t r = 0; r < nrows; r++) {
        fprintf(f, "%-*s", label_w, row_labels[r]);
        for (size_t c = 0; c < ncols; c++) fprintf(f, "%*s", col_w[c], entries[r * ncols + c]);
        fputc('\n', f);
    }
    if (note) fprintf(f, "%s\n", note);
    fputc('\n', f);
    free(col_w);
}

/* Validates the names, then formats and prints. */
fb_status fb_report_grid(FILE *f, json_t *root, const char *case_name, const char *dtype,
                         const char *variant, const char *baseline, fb_show show)
{
    char have[1024];
    json_t *cs = fb_result_case(root, case_name);
    if (!cs) {
        list_names(json_object_get(root, "cases"), "name", have, sizeof have);
        fb_error("no case '%s' in the result (have: %s)", case_name, have);
        return FB_E_USAGE;
    }
    json_t *dt = fb_result_dtype(cs, dtype);
    if (!dt) {
        list_names(json_object_get(cs, "dtypes"), "dtype", have, sizeof have);
        fb_error("%s: no dtype '%s' in the result (have: %s)", case_name, dtype, have);
        return FB_E_USAGE;
    }
    dtype = json_string_value(json_object_get(dt, "dtype")); /* canonical, if an alias was given */
    json_t *variants = json_object_get(cs, "variants");
    list_names(variants, NULL, have, sizeof have);
    if (!array_has_string(variants, variant)) {
        fb_error("%s: no variant '%s' in the result (have: %s)", case_name, variant, have);
        return FB_E_USAGE;
    }
    if (fb_show_modes[show].needs_baseline) {
        if (!baseline) baseline = json_string_value(json_object_get(cs, "baseline"));
        if (!baseline) {
            fb_error("%s: the result names no baseline; choose one of: %s", case_name, have);
            return FB_E_USAGE;
        }
        if (!array_has_string(variants, baseline)) {
            fb_error("%s: no baseline variant '%s' in the result (have: %s)", case_name, baseline,
                     have);
            return FB_E_USAGE;
        }
    }

    const char *rows_name = json_string_value(json_object_get(cs, "rows"));
    const char *cols_name = json_string_value(json_object_get(cs, "cols"));
    json_t *row_values = json_object_get(cs, "row_values");
    json_t *col_values = cols_name ? json_object_get(cs, "col_values") : NULL;
    size_t nrows = json_array_size(row_values);
    size_t ncols = cols_name ? json_array_size(col_values) : 1;

    char corner[256];
    if (cols_name) snprintf(corner, sizeof corner, "%s\\%s", rows_name ? rows_name : "rows", cols_name);
    else snprintf(corner, sizeof corner, "%s", rows_name ? rows_name : "rows");

    char(*row_labels)[ENTRY_MAX] = calloc(nrows ? nrows : 1, sizeof *row_labels);
    char(*heads)[ENTRY_MAX] = calloc(ncols ? ncols : 1, sizeof *heads);
    char(*entries)[ENTRY_MAX] = calloc(nrows && ncols ? nrows * ncols : 1, sizeof *entries);
    if (!row_labels || !heads || !entries) {
        free(row_labels);
        free(heads);
        free(entries);
        fb_error("out of host memory printing %s %s %s", case_name, dtype, variant);
        return FB_E_NOMEM;
    }

    if (cols_name)
        for (size_t c = 0; c < ncols; c++) format_label(heads[c], json_array_get(col_values, c));
    else
        snprintf(heads[0], ENTRY_MAX, "%s", fb_show_modes[show].heading);
    /* one grid per combination of the fixed symbols' values, each of its own
     * cells (a cell is its row, column and fixed values); one grid without them */
    size_t n_grids = fb_result_n_grids(cs);
    for (size_t g = 0; g < n_grids; g++) {
        json_t *fixed = fb_result_grid_fixed(cs, g);
        char label[256];
        fb_result_fixed_label(fixed, label, sizeof label);
        int throttled = 0;
        for (size_t r = 0; r < nrows; r++) {
            json_t *rv = json_array_get(row_values, r);
            format_label(row_labels[r], rv);
            for (size_t c = 0; c < ncols; c++) {
                int64_t col = cols_name ? label_value(json_array_get(col_values, c)) : -1;
                json_t *cell = fb_result_cell_fixed(dt, label_value(rv), col, fixed);
                bool thr;
                format_cell(entries[r * ncols + c], cell, variant, baseline, show, &thr);
                throttled += thr;
            }
        }
        json_decref(fixed);

        print_header(f, root, case_name, dtype, label, variant, baseline, show);
        print_table(f, corner, row_labels, nrows, heads, ncols, entries,
                    throttled ? FB_THROTTLE_NOTE : NULL);
    }
    /* the footer (the kernels' names) is of the dtype's every cell: once */
    if (fb_show_modes[show].footer) fb_show_modes[show].footer(f, dt, variant);
    free(row_labels);
    free(heads);
    free(entries);
    return ferror(f) ? (fb_error("cannot write the report: output error"), FB_E_IO) : FB_OK;
}

fb_status fb_report_case(FILE *f, json_t *root, const char *case_name, const char *dtype,
                         const char *const *variants, int n_variants, const char *baseline, fb_show show)
{
    bool only_baseline = true;
    for (int v = 0; v < n_variants; v++) only_baseline &= baseline && strcmp(variants[v], baseline) == 0;
    for (int v = 0; v < n_variants; v++) {
        fb_show sv = show;
        if (fb_show_modes[show].needs_baseline && baseline && strcmp(variants[v], baseline) == 0) {
            if (!only_baseline) continue;
            sv = FB_SHOW_SOL;
        }
        fb_status st = fb_report_grid(f, root, case_name, dtype, variants[v], baseline, sv);
        if (st != FB_OK) return st;
    }
    return FB_OK;
}

fb_status fb_report_all(FILE *f, json_t *root, const char *baseline, fb_show show)
{
    size_t i, j, k;
    json_t *cs, *dt, *var;
    json_array_foreach(json_object_get(root, "cases"), i, cs) {
        const char *case_name = json_string_value(json_object_get(cs, "name"));
        const char *base = baseline ? baseline : json_string_value(json_object_get(cs, "baseline"));
        if (!case_name) continue;
        json_t *vars = json_object_get(cs, "variants");
        size_t n = json_array_size(vars);
        const char **names = calloc(n ? n : 1, sizeof *names);
        if (!names) {
            fb_error("out of host memory printing %s", case_name);
            return FB_E_NOMEM;
        }
        int n_names = 0;
        json_array_foreach(vars, k, var)
            if (json_string_value(var)) names[n_names++] = json_string_value(var);
        fb_status st = FB_OK;
        json_array_foreach(json_object_get(cs, "dtypes"), j, dt) {
            const char *dtype = json_string_value(json_object_get(dt, "dtype"));
            if (!dtype) continue;
            st = fb_report_case(f, root, case_name, dtype, names, n_names, base, show);
            if (st != FB_OK) break;
        }
        free(names);
        if (st != FB_OK) return st;
    }
    return FB_OK;
}
