/* compare_print.c — a compare report as a terminal table, a pull-request comment
 * (markdown), JSON, or github-action-benchmark's customSmallerIsBetter list.
 *
 * Every format says the same things in the same order: the regressions first (failed
 * checks, then SLOWER from the largest ratio down), a count per verdict, then the rest;
 * what was not compared and why (the speed-of-light copies, files without samples). */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "result.h"

/* ---- a table of strings ------------------------------------------------------------ */

enum { MAX_COLS = 12, MD_MAX_ROWS = 300 };

typedef struct table {
    int n_cols, n_rows, cap;
    char **cell; /* n_rows * n_cols, owned */
    int oom;
} table;

static void table_free(table *t)
{
    for (int i = 0; i < t->n_rows * t->n_cols; i++) free(t->cell[i]);
    free(t->cell);
    memset(t, 0, sizeof *t);
}

static void table_row(table *t, const char *const *vals)
{
    if (t->oom) return;
    if (t->n_rows == t->cap) {
        int cap = t->cap ? 2 * t->cap : 32;
        char **more = realloc(t->cell, (size_t)cap * (size_t)t->n_cols * sizeof *more);
        if (!more) {
            t->oom = 1;
            return;
        }
        t->cell = more;
        t->cap = cap;
    }
    for (int c = 0; c < t->n_cols; c++) {
        char *s = strdup(vals[c] ? vals[c] : "");
        if (!s) t->oom = 1;
        t->cell[t->n_rows * t->n_cols + c] = s;
    }
    t->n_rows++;
}

static const char *at(const table *t, int r, int c) { return t->cell[r * t->n_cols + c]; }

/* The display width of UTF-8 text: one column per character (the tables hold ASCII,
 * µ and the like). */
static int width(const char *s)
{
    int w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* Aligned columns, two spaces apart; numbers (columns flagged in `right`) right-aligned.
 * A column empty in every row is left out; a row ends at its last non-empty cell. */
static void table_print(FILE *f, const table *t, unsigned right)
{
    int w[MAX_COLS] = {0};
    for (int r = 0; r < t->n_rows; r++)
        for (int c = 0; c < t->n_cols; c++) {
            int k = width(at(t, r, c));
            if (k > w[c]) w[c] = k;
        }
    for (int r = 0; r < t->n_rows; r++) {
        int last = t->n_cols - 1;
        while (last > 0 && !at(t, r, last)[0]) last--;
        int first = 1;
        for (int c = 0; c <= last; c++) {
            if (!w[c]) continue;
            const char *s = at(t, r, c);
            int pad = w[c] - width(s);
            if (!first) fputs("  ", f);
            first = 0;
            if ((right >> c) & 1) fprintf(f, "%*s%s", pad, "", s);
            else fprintf(f, "%s%*s", s, c == last ? 0 : pad, "");
        }
        fputc('\n', f);
    }
}

/* A markdown cell: '|' escaped, newlines flattened. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n' || *s == '\r') fputc(' ', f);
        else fputc(*s, f);
    }
}

static void md_table(FILE *f, const table *t, unsigned right)
{
    int used[MAX_COLS] = {0};
    for (int r = 1; r < t->n_rows; r++)
        for (int c = 0; c < t->n_cols; c++) used[c] |= at(t, r, c)[0] != 0;
    for (int r = 0; r < t->n_rows; r++) {
        fputc('|', f);
        for (int c = 0; c < t->n_cols; c++) {
            if (!used[c]) continue;
            fputc(' ', f);
            md_cell(f, at(t, r, c));
            fputs(" |", f);
        }
        fputc('\n', f);
        if (r == 0) {
            fputc('|', f);
            for (int c = 0; c < t->n_cols; c++)
                if (used[c]) fputs((right >> c) & 1 ? "---:|" : "---|", f);
            fputc('\n', f);
        }
    }
}

/* ---- words and numbers ------------------------------------------------------------------ */

static const char *fmt(char *buf, size_t n, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static const char *fmt(char *buf, size_t n, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, n, f, ap);
    va_end(ap);
    return buf;
}

static const char *num(char *buf, size_t n, const char *f, double v)
{
    if (!isfinite(v)) return "-";
    return fmt(buf, n, f, v);
}

/* "dim0=128 dim1=256", or "dim0=128" for one axis */
static const char *point(char *buf, size_t n, const char *rows, const char *cols, int64_t row, int64_t col)
{
    if (cols && col >= 0) return fmt(buf, n, "%s=%lld %s=%lld", rows, (long long)row, cols, (long long)col);
    return fmt(buf, n, "%s=%lld", rows ? rows : "row", (long long)row);
}

static const char *side_name(const fb_cmp_report *r, int side)
{
    if (r->variants_mode) return side ? "B" : "A";
    return side ? "NEW" : "BASE";
}

/* Why an item reads as it does, for the note column ("" when nothing to say). */
static const char *item_note(char *buf, size_t n, const fb_cmp_report *r, const fb_cmp_item *it)
{
    char why[320] = "";
    switch (it->kind) {
    case FB_CMP_FAILED:
        if (it->new_->reason) {
            char q[256];
            fmt(why, sizeof why, "check failed in %s: %s", side_name(r, 1), fb_clean(it->new_->reason, q, sizeof q));
        } else fmt(why, sizeof why, "check failed in %s", side_name(r, 1));
        break;
    case FB_CMP_UNTIMED:
        fmt(why, sizeof why, "not compared: %s %s, %s %s", side_name(r, 0),
            fb_rs_is_timed(it->base) ? "ok" : it->base->status ? it->base->status : "no time", side_name(r, 1),
            fb_rs_is_timed(it->new_) ? "ok" : it->new_->status ? it->new_->status : "no time");
        break;
    case FB_CMP_COMPARED:
        if (it->r.method == FB_CI_QUANTILES) fmt(why, sizeof why, "no samples: p20/p80 rule");
        else if (it->r.method == FB_CI_NONE) fmt(why, sizeof why, "no interval: %s", it->r.why ? it->r.why : "?");
        break;
    }
    if (it->note) return fmt(buf, n, "%s%s%s", why, why[0] ? "; " : "", it->note);
    return fmt(buf, n, "%s", why);
}

/* A case with fixed size symbols: the cell's grid ("K=1024"), into buf; "" otherwise. */
static const char *grid_text(char *buf, size_t n, const fb_rs_case *k, int grid)
{
    if (n) buf[0] = 0;
    if (!k || !k->n_fixed) return buf;
    if (grid < 0) return fmt(buf, n, "%s", "(a value its list lacks)");
    return fb_rs_grid_label(k, grid, buf, n);
}

static int any_fixed(const fb_cmp_report *r)
{
    for (int i = 0; i < r->n_items; i++)
        if (r->items[i].kase->n_fixed) return 1;
    return 0;
}

/* The "fixed" column says which grid of a case with fixed size symbols an item is in
 * (the items sort by verdict, not by grid, so a label per row rather than a heading per
 * grid); a report without such cases has the column empty, and the printers leave it out. */
enum { C_VERDICT, C_CASE, C_DTYPE, C_FIXED, C_POINT, C_VARIANT, C_BASE, C_NEW, C_RATIO, C_CI, C_NOTE, N_COLS };
#define RIGHT_COLS ((1u << C_BASE) | (1u << C_NEW) | (1u << C_RATIO))

static void items_table(table *t, const fb_cmp_report *r, const int *order, int from, int to, int md)
{
    t->n_cols = N_COLS;
    char ci_head[32], base_head[24], new_head[24];
    {
        /* --paired: the medians are the pairs' ratios t_variant / t_floor */
        const char *us = r->paired ? "t/floor" : md ? "µs" : "us";
        const char *h[N_COLS] = {"verdict", "case", "dtype", any_fixed(r) ? "fixed" : "", "point", r->variants_mode ? "" : "variant",
                                 fmt(base_head, sizeof base_head, "%s %s", side_name(r, 0), us),
                                 fmt(new_head, sizeof new_head, "%s %s", side_name(r, 1), us), "ratio",
                                 fmt(ci_head, sizeof ci_head, "%g%% interval", 100 * r->opts.confidence), "note"};
        table_row(t, h);
    }
    for (int i = from; i < to; i++) {
        const fb_cmp_item *it = &r->items[order[i]];
        char pt[160], b[32], n[32], ratio[32], ci[64], note[600], grid[160];
        if (isfinite(it->r.lo)) fmt(ci, sizeof ci, "[%.3f, %.3f]", it->r.lo, it->r.hi);
        else snprintf(ci, sizeof ci, "-");
        const char *row[N_COLS] = {fb_cmp_item_label(it), it->kase->name, it->dtype,
                                   grid_text(grid, sizeof grid, it->kase, it->grid),
                                   point(pt, sizeof pt, it->kase->rows, it->kase->cols, it->row, it->col),
                                   r->variants_mode ? "" : it->new_variant,
                                   num(b, sizeof b, r->paired ? "%.4f" : "%.2f", it->r.base_median),
                                   num(n, sizeof n, r->paired ? "%.4f" : "%.2f", it->r.new_median),
                                   num(ratio, sizeof ratio, "%.3f", it->r.ratio),
                                   ci, item_note(note, sizeof note, r, it)};
        table_row(t, row);
    }
}

/* The items that lead: failed checks and SLOWER ones (they sort first). */
static int n_regressions(const fb_cmp_report *r) { return r->n_failed + r->verdicts[FB_VERDICT_SLOWER]; }

static const char *only_text(char *buf, size_t n, const fb_cmp_only *o)
{
    char pt[160], grid[160];
    if (!o->dtype) return fmt(buf, n, "%s (the whole case)", o->case_name);
    if (!o->has_cell) return fmt(buf, n, "%s %s (the whole dtype)", o->case_name, o->dtype);
    point(pt, sizeof pt, o->rows, o->cols, o->row, o->col);
    grid_text(grid, sizeof grid, o->kase, o->grid);
    if (!o->variant)
        return fmt(buf, n, "%s %s %s%s%s (the whole cell)", o->case_name, o->dtype, grid, grid[0] ? " " : "", pt);
    return fmt(buf, n, "%s %s %s%s%s %s", o->case_name, o->dtype, grid, grid[0] ? " " : "", pt, o->variant);
}

static void doc_line(char *buf, size_t n, const fb_rs_doc *d)
{
    char dev[160];
    fb_clean(d->device_name ? d->device_name : "unknown device", dev, sizeof dev);
    fmt(buf, n, "%s (cc %s), git %s", dev, d->cc ? d->cc : "?", d->git ? d->git : "?");
}

/* The sentence that defines the numbers. */
static void legend(FILE *f, const fb_cmp_report *r, int md)
{
    double t = r->opts.threshold;
    if (r->paired)
        fprintf(f, "paired: each variant's pairs' ratio t_variant / t_floor (run timed it in turn with its case's "
                   "plain op) is held against the other side's, not its time.%s",
                md ? " " : "\n");
    fprintf(f,
            "ratio = %s median / %s median, with a %g%% bootstrap interval (%d resamples, seed %llu);%s"
            "%s when the whole interval is above %.3f, %s below %.3f, SAME inside [%.3f, %.3f] "
            "(threshold %g%%), NOISY otherwise.\n",
            side_name(r, 1), side_name(r, 0), 100 * r->opts.confidence, r->opts.resamples,
            (unsigned long long)r->opts.seed, md ? " " : "\n", md ? "**SLOWER**" : "SLOWER", 1 + t, md ? "**FASTER**" : "FASTER",
            1 / (1 + t), 1 / (1 + t), 1 + t, 100 * t);
}

/* "2 SLOWER, 0 NOISY, 0 FASTER, 2 SAME" etc, one line */
static void counts_line(FILE *f, const fb_cmp_report *r)
{
    int compared = r->n_items - r->n_failed - r->n_untimed;
    fprintf(f, "%d compared: %d SLOWER, %d NOISY, %d FASTER, %d SAME; %d check %s in %s; %d not compared (untimed); "
               "only in %s: %d, only in %s: %d\n",
            compared, r->verdicts[FB_VERDICT_SLOWER], r->verdicts[FB_VERDICT_NOISY], r->verdicts[FB_VERDICT_FASTER],
            r->verdicts[FB_VERDICT_SAME], r->n_failed, r->n_failed == 1 ? "failure" : "failures", side_name(r, 1),
            r->n_untimed, side_name(r, 0), r->n_only_base, side_name(r, 1), r->n_only_new);
}

/* The caveats: what was not compared, and how the intervals were had. */
static void notes(FILE *f, const fb_cmp_report *r, const char *bullet)
{
    if (!r->variants_mode) {
        if (r->n_sol)
            fprintf(f, "%sthe speed-of-light copies are not compared (they time the device, not the code); "
                       "NEW/BASE median ratio of theirs %.3f over %d %s%s\n",
                    bullet, r->sol_ratio, r->n_sol, r->n_sol == 1 ? "cell" : "cells",
                    fabs(r->sol_ratio - 1) > r->opts.threshold ? " -- the two machines differ" : "");
        else fprintf(f, "%sthe speed-of-light copies are not compared (they time the device, not the code)\n", bullet);
    }
    if (r->n_quantile_rule)
        fprintf(f, "%s%d comparisons had no %s on a side (a file written before %s): "
                   "their interval is [p20 NEW / p80 BASE, p80 NEW / p20 BASE], wider than a bootstrap interval, "
                   "so they err toward NOISY\n",
                bullet, r->n_quantile_rule, r->paired ? "per-pair ratios" : "timing samples",
                r->paired ? "run kept them, ratio_samples" : "samples were kept");
    if (r->n_no_interval)
        fprintf(f, "%s%d comparisons had no interval at all (too few samples): NOISY\n", bullet, r->n_no_interval);
    if (r->device_mismatch) {
        char a[160], b[160];
        fprintf(f, "%sthe devices differ (%s vs %s), compared as asked (--allow-device-mismatch)\n", bullet,
                fb_clean(r->base->device_name ? r->base->device_name : "?", a, sizeof a),
                fb_clean(r->new_->device_name ? r->new_->device_name : "?", b, sizeof b));
    }
}

static void gate_line(FILE *f, const fb_cmp_report *r, int md)
{
    if (fb_cmp_report_regressed(r))
        fprintf(f, "%s: %d SLOWER, %d check %s in %s\n", md ? "**REGRESSION**" : "REGRESSION",
                r->verdicts[FB_VERDICT_SLOWER], r->n_failed, r->n_failed == 1 ? "failure" : "failures", side_name(r, 1));
    else fprintf(f, "%s: nothing SLOWER, no check failed in %s\n", md ? "**ok**" : "ok", side_name(r, 1));
}

static void header(FILE *f, const fb_cmp_report *r, int md)
{
    char line[512], q[160], q2[160];
    const char *tick = md ? "`" : "", *bullet = md ? "- " : "";
    if (r->variants_mode) {
        doc_line(line, sizeof line, r->base);
        fprintf(f, "%sRUN %s%s%s: %s\n", bullet, tick, fb_qpath(r->base->path), tick, line);
        fprintf(f, "%sA = %s%s%s (the base), B = %s%s%s: B held against A in every cell\n", bullet, tick,
                fb_clean(r->variant_a, q2, sizeof q2), tick, tick, fb_clean(r->variant_b, q, sizeof q), tick);
    } else {
        doc_line(line, sizeof line, r->base);
        fprintf(f, "%sBASE %s%s%s: %s\n", bullet, tick, fb_qpath(r->base->path), tick, line);
        doc_line(line, sizeof line, r->new_);
        fprintf(f, "%sNEW%s %s%s%s: %s\n", bullet, md ? "" : " ", tick, fb_qpath(r->new_->path), tick, line);
    }
    if (md) fputc('\n', f);
    legend(f, r, md);
}

/* ---- table ---------------------------------------------------------------------------- */

static fb_status print_table(FILE *f, const fb_cmp_report *r, const int *order)
{
    header(f, r, 0);
    fputc('\n', f);
    table t = {0};
    items_table(&t, r, order, 0, r->n_items, 0);
    if (t.oom) {
        table_free(&t);
        fb_error("out of host memory printing the comparison");
        return FB_E_NOMEM;
    }
    table_print(f, &t, RIGHT_COLS);
    table_free(&t);
    for (int i = 0; i < r->n_only; i++) {
        char buf[512];
        if (i == 0) fputc('\n', f);
        fprintf(f, "only in %s: %s\n", side_name(r, r->only[i].side), only_text(buf, sizeof buf, &r->only[i]));
    }
    fputc('\n', f);
    counts_line(f, r);
    notes(f, r, "note: ");
    gate_line(f, r, 0);
    return FB_OK;
}

/* ---- markdown ---------------------------------------------------------------------------- */

static fb_status print_md(FILE *f, const fb_cmp_report *r, const int *order)
{
    int nreg = n_regressions(r);
    if (fb_cmp_report_regressed(r))
        fprintf(f, "### fusionbench compare: REGRESSION (%d SLOWER, %d check %s)\n\n", r->verdicts[FB_VERDICT_SLOWER],
                r->n_failed, r->n_failed == 1 ? "failure" : "failures");
    else fprintf(f, "### fusionbench compare: no regression\n\n");
    header(f, r, 1);
    fputc('\n', f);

    table t = {0};
    if (nreg) {
        fprintf(f, "**Regressions**\n\n");
        items_table(&t, r, order, 0, nreg, 1);
        if (!t.oom) md_table(f, &t, RIGHT_COLS);
        table_free(&t);
        fputc('\n', f);
    } else fprintf(f, "**Regressions**: none.\n\n");

    fprintf(f, "| verdict | count |\n|---|---:|\n");
    fprintf(f, "| FAIL (check failed in %s) | %d |\n", side_name(r, 1), r->n_failed);
    for (int v = 0; v < FB_NVERDICTS; v++) fprintf(f, "| %s | %d |\n", fb_verdict_name((fb_verdict)v), r->verdicts[v]);
    fprintf(f, "| not compared (untimed) | %d |\n| only in %s | %d |\n| only in %s | %d |\n\n", r->n_untimed,
            side_name(r, 0), r->n_only_base, side_name(r, 1), r->n_only_new);
    notes(f, r, "- ");
    if (!r->variants_mode || r->n_quantile_rule || r->n_no_interval || r->device_mismatch) fputc('\n', f);

    /* GitHub refuses a comment over 65536 characters: the collapsed table stops after
     * MD_MAX_ROWS rows (they sort regressions, NOISY and FASTER first, so what is cut is
     * SAME or untimed); --format json or the terminal table has every row. */
    int shown = r->n_items < MD_MAX_ROWS ? r->n_items : MD_MAX_ROWS;
    if (shown < r->n_items)
        fprintf(f, "<details><summary>The first %d of %d comparisons</summary>\n\n", shown, r->n_items);
    else fprintf(f, "<details><summary>All %d comparisons</summary>\n\n", r->n_items);
    items_table(&t, r, order, 0, shown, 1);
    int oom = t.oom;
    if (!oom) md_table(f, &t, RIGHT_COLS);
    table_free(&t);
    if (shown < r->n_items)
        fprintf(f, "\n%d more rows are left out here (a comment holds at most 65536 characters); "
                   "`--format json` lists every one.\n",
                r->n_items - shown);
    int shown_only = r->n_only < MD_MAX_ROWS ? r->n_only : MD_MAX_ROWS;
    for (int i = 0; i < shown_only; i++) {
        char buf[512];
        if (i == 0) fputc('\n', f);
        fprintf(f, "- only in %s: ", side_name(r, r->only[i].side));
        md_cell(f, only_text(buf, sizeof buf, &r->only[i]));
        fputc('\n', f);
    }
    if (shown_only < r->n_only) fprintf(f, "- ... and %d more\n", r->n_only - shown_only);
    fprintf(f, "\n</details>\n");
    if (oom) {
        fb_error("out of host memory printing the comparison");
        return FB_E_NOMEM;
    }
    return FB_OK;
}

/* ---- json ----------------------------------------------------------------------------------- */

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *doc_json(const fb_rs_doc *d)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "file", str_or_null(d->path), "device", str_or_null(d->device_name),
                     "cc", str_or_null(d->cc), "git", str_or_null(d->git), "started", str_or_null(d->started));
}

static json_t *item_json(const fb_cmp_report *r, const fb_cmp_item *it)
{
    char note[600];
    item_note(note, sizeof note, r, it);
    json_t *o = json_object();
    if (!o) return NULL;
    const char *kind = it->kind == FB_CMP_COMPARED ? "compared" : it->kind == FB_CMP_FAILED ? "failed" : "untimed";
    int bad = 0;
    bad |= json_object_set_new(o, "verdict", json_string(fb_cmp_item_label(it)));
    bad |= json_object_set_new(o, "kind", json_string(kind));
    bad |= json_object_set_new(o, "case", json_string(it->kase->name));
    bad |= json_object_set_new(o, "dtype", json_string(it->dtype));
    bad |= json_object_set_new(o, "rows", str_or_null(it->kase->rows));
    bad |= json_object_set_new(o, "cols", str_or_null(it->kase->cols));
    bad |= json_object_set_new(o, "row", json_integer((json_int_t)it->row));
    bad |= json_object_set_new(o, "col", it->col >= 0 ? json_integer((json_int_t)it->col) : json_null());
    if (it->kase->n_fixed) { /* only for a case with fixed symbols: other reports keep their keys */
        char grid[160];
        bad |= json_object_set_new(o, "fixed", json_string(grid_text(grid, sizeof grid, it->kase, it->grid)));
    }
    bad |= json_object_set_new(o, "base_variant", json_string(it->base_variant));
    bad |= json_object_set_new(o, "new_variant", json_string(it->new_variant));
    bad |= json_object_set_new(o, "ratio", fb_json_real(it->r.ratio));
    bad |= json_object_set_new(o, "lo", fb_json_real(it->r.lo));
    bad |= json_object_set_new(o, "hi", fb_json_real(it->r.hi));
    bad |= json_object_set_new(o, "method", json_string(fb_ci_method_name(it->r.method)));
    bad |= json_object_set_new(o, "p", fb_json_real(it->r.p));
    /* --paired: the medians are the pairs' ratios, not times */
    bad |= json_object_set_new(o, r->paired ? "base_paired_ratio" : "base_median_us", fb_json_real(it->r.base_median));
    bad |= json_object_set_new(o, r->paired ? "new_paired_ratio" : "new_median_us", fb_json_real(it->r.new_median));
    bad |= json_object_set_new(o, "n_base", json_integer(it->r.n_base));
    bad |= json_object_set_new(o, "n_new", json_integer(it->r.n_new));
    bad |= json_object_set_new(o, "base_status", str_or_null(it->base->status));
    bad |= json_object_set_new(o, "new_status", str_or_null(it->new_->status));
    bad |= json_object_set_new(o, "note", note[0] ? json_string(note) : json_null());
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *only_json(const fb_cmp_report *r, const fb_cmp_only *o)
{
    json_t *j = json_pack("{s:s, s:s, s:o}", "in", side_name(r, o->side), "case", o->case_name, "dtype",
                          str_or_null(o->dtype));
    if (!j) return NULL;
    if (o->has_cell) {
        json_object_set_new(j, "row", json_integer((json_int_t)o->row));
        if (o->cols && o->col >= 0) json_object_set_new(j, "col", json_integer((json_int_t)o->col));
        if (o->kase && o->kase->n_fixed) {
            char grid[160];
            json_object_set_new(j, "fixed", json_string(grid_text(grid, sizeof grid, o->kase, o->grid)));
        }
    }
    json_object_set_new(j, "variant", str_or_null(o->variant));
    return j;
}

static fb_status dump(FILE *f, json_t *root)
{
    if (!root) {
        fb_error("out of host memory printing the comparison");
        return FB_E_NOMEM;
    }
    int rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    json_decref(root);
    fputc('\n', f);
    if (rc != 0) {
        fb_error("cannot write the comparison");
        return FB_E_IO;
    }
    return FB_OK;
}

static fb_status print_json(FILE *f, const fb_cmp_report *r, const int *order)
{
    json_t *root = json_object(), *items = json_array(), *only = json_array();
    int ok = root && items && only;
    for (int i = 0; ok && i < r->n_items; i++) ok = json_array_append_new(items, item_json(r, &r->items[order[i]])) == 0;
    for (int i = 0; ok && i < r->n_only; i++) ok = json_array_append_new(only, only_json(r, &r->only[i])) == 0;
    if (ok) {
        json_object_set_new(root, "mode", json_string(r->variants_mode ? "variants" : "files"));
        json_object_set_new(root, "measure", json_string(r->paired ? "paired_ratio" : "time"));
        if (r->variants_mode) {
            json_object_set_new(root, "run", doc_json(r->base));
            json_object_set_new(root, "variant_a", json_string(r->variant_a));
            json_object_set_new(root, "variant_b", json_string(r->variant_b));
        } else {
            json_object_set_new(root, "base", doc_json(r->base));
            json_object_set_new(root, "new", doc_json(r->new_));
            json_object_set_new(root, "device_mismatch", json_boolean(r->device_mismatch));
        }
        json_object_set_new(root, "statistic",
                            json_pack("{s:s, s:f, s:f, s:i, s:I, s:f, s:f}", "interval",
                                      "bootstrap of the ratio of medians (p20/p80 rule without samples)",
                                      "threshold", r->opts.threshold, "confidence", r->opts.confidence, "resamples",
                                      r->opts.resamples, "seed", (json_int_t)r->opts.seed, "slower_above",
                                      1 + r->opts.threshold, "faster_below", 1 / (1 + r->opts.threshold)));
        json_object_set_new(root, "comparisons", items);
        json_object_set_new(root, "only", only);
        items = only = NULL;
        json_t *sum = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:s}", "comparisons",
                                r->n_items, "SLOWER", r->verdicts[FB_VERDICT_SLOWER], "NOISY",
                                r->verdicts[FB_VERDICT_NOISY], "FASTER", r->verdicts[FB_VERDICT_FASTER], "SAME",
                                r->verdicts[FB_VERDICT_SAME], "FAIL", r->n_failed, "UNTIMED", r->n_untimed,
                                "only_in_base", r->n_only_base, "only_in_new", r->n_only_new, "quantile_rule",
                                r->n_quantile_rule, "no_interval", r->n_no_interval, "regression",
                                fb_cmp_report_regressed(r), "sol", "the speed-of-light copies are not compared");
        if (sum && !r->variants_mode) {
            json_object_set_new(sum, "sol_ratio", fb_json_real(r->sol_ratio));
            json_object_set_new(sum, "sol_cells", json_integer(r->n_sol));
        }
        json_object_set_new(root, "summary", sum);
    }
    json_decref(items);
    json_decref(only);
    if (!ok) {
        json_decref(root);
        root = NULL;
    }
    return dump(f, root);
}

/* ---- github-action-benchmark ---------------------------------------------------------------- */

/* customSmallerIsBetter: [{"name", "unit", "value", "range", "extra"}], one per cell and
 * variant of NEW that is ok and timed (a failed or missing measurement has no value to
 * chart). The name is stable across runs, so each becomes one series:
 * "softmax/float32/dim0=128,dim1=256/softmax.fused"; a case with fixed size symbols adds
 * its grid to the point: "mm/float32/M=128,N=64,K=1024/eager". */
static fb_status print_bench(FILE *f, const fb_cmp_report *r)
{
    json_t *list = json_array();
    int ok = list != NULL, cursor = 0;
    const fb_rs_doc *d = r->new_;
    for (int c = 0; ok && c < d->n_cases; c++) {
        const fb_rs_case *k = &d->cases[c];
        for (int t = 0; ok && t < k->n_dtypes; t++) {
            const fb_rs_dtype *dt = &k->dtypes[t];
            for (int i = 0; ok && i < dt->n_cells; i++) {
                const fb_rs_cell *cell = &dt->cells[i];
                for (int v = 0; ok && v < cell->n_variants; v++) {
                    const fb_rs_variant *var = &cell->variants[v];
                    /* items are in this same order: the one for this variant, if any, is next */
                    const fb_cmp_item *it = NULL;
                    while (cursor < r->n_items && r->items[cursor].new_ == var) it = &r->items[cursor++];
                    if (!fb_cmp_selected(r, k->name, dt->dtype, var->name) || !fb_rs_is_timed(var)) continue;
                    char name[512], pt[160], range[64], extra[512], vs[200] = "";
                    if (k->cols && cell->col >= 0)
                        fmt(pt, sizeof pt, "%s=%lld,%s=%lld", k->rows, (long long)cell->row, k->cols,
                            (long long)cell->col);
                    else fmt(pt, sizeof pt, "%s=%lld", k->rows, (long long)cell->row);
                    if (k->n_fixed) { /* one series per grid: ",K=1024" */
                        char grid[160];
                        grid_text(grid, sizeof grid, k, cell->grid);
                        for (char *sp = grid; *sp; sp++)
                            if (*sp == ' ') *sp = ',';
                        size_t used = strlen(pt);
                        fmt(pt + used, sizeof pt - used, ",%s", grid);
                    }
                    fmt(name, sizeof name, "%s/%s/%s/%s", k->name, dt->dtype, pt, var->name);
                    const fb_stats *s = &var->time_ms;
                    fmt(range, sizeof range, "± %.3f", (s->p80 - s->p20) * 1e3 / 2);
                    if (it && it->kind == FB_CMP_COMPARED) {
                        if (isfinite(it->r.lo))
                            fmt(vs, sizeof vs, "; vs %s: %.3fx [%.3f, %.3f] %s", r->variants_mode ? r->variant_a : "BASE",
                                it->r.ratio, it->r.lo, it->r.hi, fb_cmp_item_label(it));
                        else
                            fmt(vs, sizeof vs, "; vs %s: %.3fx %s", r->variants_mode ? r->variant_a : "BASE", it->r.ratio,
                                fb_cmp_item_label(it));
                    }
                    fmt(extra, sizeof extra, "median of %d samples; p20 %.3f us, p80 %.3f us%s%s", s->n, s->p20 * 1e3,
                        s->p80 * 1e3, var->unchecked ? "; unchecked" : "", vs);
                    json_t *e = json_pack("{s:s, s:s, s:f, s:s, s:s}", "name", name, "unit", "us", "value",
                                          s->median * 1e3, "range", range, "extra", extra);
                    ok = json_array_append_new(list, e) == 0;
                }
            }
        }
    }
    if (!ok) {
        json_decref(list);
        list = NULL;
    }
    return dump(f, list);
}

fb_status fb_compare_print(FILE *f, const char *what, const fb_cmp_report *r, fb_cmp_format fmt_)
{
    int *order = fb_cmp_report_order(r);
    if (r->n_items && !order) {
        fb_error("out of host memory printing the comparison");
        return FB_E_NOMEM;
    }
    fb_status s = FB_OK;
    switch (fmt_) {
    case FB_CMP_TABLE: s = print_table(f, r, order); break;
    case FB_CMP_MD: s = print_md(f, r, order); break;
    case FB_CMP_JSON: s = print_json(f, r, order); break;
    case FB_CMP_BENCH_JSON: s = print_bench(f, r); break;
    }
    free(order);
    if (s == FB_OK && (fflush(f) != 0 || ferror(f))) {
        fb_error("cannot write %s", what);
        s = FB_E_IO;
    }
    return s;
}
