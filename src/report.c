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
 * checked. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

#define ENTRY_MAX 32 /* one formatted cell: "123456789.0%" fits easily */

int fb_show_from_name(const char *s, fb_show *out)
{
    static const struct { const char *name; fb_show show; } table[] = {
        {"speedup", FB_SHOW_SPEEDUP}, {"sol", FB_SHOW_SOL},
        {"time", FB_SHOW_TIME},       {"gbps", FB_SHOW_GBPS},
        {"kernels", FB_SHOW_KERNELS},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(s, table[i].name) == 0) {
            *out = table[i].show;
            return 0;
        }
    return -1;
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

/* Formats one cell of the grid into out[ENTRY_MAX]. */
static void format_cell(char *out, json_t *cell, const char *variant, const char *baseline,
                        fb_show show)
{
    json_t *vars = json_object_get(cell, "variants");
    json_t *v = json_object_get(vars, variant);
    const char *mark = cell ? status_marker(v, false) : "-";
    json_t *b = NULL;
    if (!mark && show == FB_SHOW_SPEEDUP) {
        b = json_object_get(vars, baseline);
        mark = status_marker(b, true);
    }
    if (mark) {
        snprintf(out, ENTRY_MAX, "%s", mark);
        return;
    }

    double t = median_ms(v), value = NAN;
    const char *fmt = "%.1f%%";
    switch (show) {
    case FB_SHOW_SPEEDUP:
        value = median_ms(b) / t * 100.0;
        break;
    case FB_SHOW_SOL: {
        /* The same ratio of medians as the speedup, against the cell's streaming
         * copy; the stored sol_pct is the fallback for a cell without sol times. */
        json_t *sol = json_object_get(cell, "sol");
        const char *sst = json_string_value(json_object_get(sol, "status"));
        if (sst && strcmp(sst, "ok") == 0) value = median_ms(sol) / t * 100.0;
        if (!isfinite(value)) value = fb_json_number(v, "sol_pct");
        break;
    }
    case FB_SHOW_TIME:
        value = t * 1000.0;
        fmt = "%.1f";
        break;
    case FB_SHOW_GBPS:
        value = fb_json_number(v, "gbps");
        if (!isfinite(value)) value = fb_json_number(cell, "ideal_bytes") / (t * 1e-3) / 1e9;
        fmt = "%.0f";
        break;
    case FB_SHOW_KERNELS: {
        /* measured (--timer cupti): the count, or "lo-hi" when runs differed; else
         * the count the variant declares, in parentheses */
        json_t *kl = json_object_get(v, "kernels_launched");
        double lo = fb_json_number(kl, "count_min"), hi = fb_json_number(kl, "count_max");
        if (kl && isfinite(lo) && isfinite(hi) && lo != hi) {
            snprintf(out, ENTRY_MAX, "%.0f-%.0f", lo, hi);
            return;
        }
        value = fb_json_number(kl, "count");
        fmt = "%.0f";
        if (!kl) {
            value = fb_json_number(v, "kernels");
            fmt = "(%.0f)";
        }
        break;
    }
    }
    if (isfinite(value) && value >= 0) snprintf(out, ENTRY_MAX, fmt, value);
    else snprintf(out, ENTRY_MAX, "-");
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

static void print_header(FILE *f, json_t *root, const char *case_name, const char *dtype,
                         const char *variant, const char *baseline, fb_show show)
{
    const char *dev = json_string_value(json_object_get(json_object_get(root, "device"), "name"));
    fprintf(f, "%s · %s · %s · ", case_name, dtype, dev ? dev : "unknown device");
    switch (show) {
    case FB_SHOW_SPEEDUP:
        fprintf(f, "%s vs %s (t_%s / t_%s)\n", variant, baseline, baseline, variant);
        break;
    case FB_SHOW_SOL:
        fprintf(f, "%s %% of speed of light (t_copy(ideal bytes) / t_%s)\n", variant, variant);
        break;
    case FB_SHOW_TIME:
        fprintf(f, "%s median time (us)\n", variant);
        break;
    case FB_SHOW_GBPS:
        fprintf(f, "%s GB/s of ideal bytes\n", variant);
        break;
    case FB_SHOW_KERNELS:
        fprintf(f, "%s kernels per run (measured by CUPTI; (N): declared, not measured)\n", variant);
        break;
    }
}

/* The column header of a 1-axis grid, where there are no column values. */
static const char *value_heading(fb_show show)
{
    switch (show) {
    case FB_SHOW_SPEEDUP: return "speedup";
    case FB_SHOW_SOL: return "% SOL";
    case FB_SHOW_TIME: return "us";
    case FB_SHOW_GBPS: return "GB/s";
    case FB_SHOW_KERNELS: return "kernels";
    }
    return "value";
}

/* Prints the table once every entry is formatted. heads[c] is the header of
 * column c; entries is rows x cols of ENTRY_MAX strings. */
static void print_table(FILE *f, const char *corner, char (*row_labels)[ENTRY_MAX], size_t nrows,
                        char (*heads)[ENTRY_MAX], size_t ncols, char (*entries)[ENTRY_MAX])
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
    fputc('\n', f);
    free(col_w);
}

/* Under a kernels grid: the kernels the variant launched in any cell of the
 * dtype, each once, in the order first seen (cells in file order), one a line. */
static void print_kernel_names(FILE *f, json_t *dt, const char *variant)
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
    if (show == FB_SHOW_SPEEDUP) {
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
        snprintf(heads[0], ENTRY_MAX, "%s", value_heading(show));
    for (size_t r = 0; r < nrows; r++) {
        json_t *rv = json_array_get(row_values, r);
        format_label(row_labels[r], rv);
        for (size_t c = 0; c < ncols; c++) {
            int64_t col = cols_name ? label_value(json_array_get(col_values, c)) : -1;
            json_t *cell = fb_result_cell(dt, label_value(rv), col);
            format_cell(entries[r * ncols + c], cell, variant, baseline, show);
        }
    }

    print_header(f, root, case_name, dtype, variant, baseline, show);
    print_table(f, corner, row_labels, nrows, heads, ncols, entries);
    if (show == FB_SHOW_KERNELS) print_kernel_names(f, dt, variant);
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
        if (show == FB_SHOW_SPEEDUP && baseline && strcmp(variants[v], baseline) == 0) {
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
