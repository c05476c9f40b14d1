/* export_md.c — `export --format md`: the grids as markdown tables, one per
 * case x dtype x variant (the grids `run` prints for --show), in the seed
 * study's layout: the terminal grid's header line as the heading, rows dim0,
 * columns dim1, cells like "251.0%" and the same marks (OOM, FAIL, BFAIL, ERR,
 * UNCHK, -; "!" after a number measured in a throttled cell), with a line saying
 * what the marks in that table mean.
 *
 *   ### softmax · float32 · NVIDIA H100 80GB HBM3 · softmax.fused vs eager (t_eager / t_softmax.fused)
 *
 *   | dim0\dim1 |    128 |    256 |
 *   |:----------|-------:|-------:|
 *   | 128       | 329.6% | 325.3% |
 *
 * After a case x dtype's grids, a result measured with --timer cupti gets a
 * table of what each variant launched (kernels per run and the kernels' names).
 *
 * With --table (fb_export_opts.table), each case x dtype is instead the
 * benchmark table of report_table.h (the one `run --table` prints, as
 * markdown): a row per cell, a column per variant's median time, the sol copy
 * and the speedups against --speedup-vs; the kernels table still follows.
 *
 * Columns are padded so the source reads as a grid too. Names from the file
 * are escaped (| \ ` * [ ] as \X, < > & as entities): a table cell or heading
 * cannot be broken, nor raw HTML injected, by a case or variant name. */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include "report_table.h"

#define NAME_MAX_MD 512

typedef struct md_state {
    char (*text)[FB_EXPORT_TEXT]; /* the grid's cells, rows x cols */
    size_t cap;
    bool seen[6]; /* the marks present in this grid, in mark_legend's order */
    bool throttled; /* a number in this grid carries the throttle mark */
} md_state;

static const struct { const char *mark, *meaning; } mark_legend[] = {
    {"FAIL", "failed its check"}, {"BFAIL", "the baseline failed its check"}, {"OOM", "out of device memory"},
    {"ERR", "runtime error"},     {"UNCHK", "not checked against the reference"}, {"-", "not measured"},
};

static fb_status begin_doc(fb_export *x)
{
    if (!(x->state = calloc(1, sizeof(md_state)))) {
        fb_error("out of host memory writing the md export");
        return FB_E_NOMEM;
    }
    const fb_rs_doc *d = x->doc;
    char a[NAME_MAX_MD], b[NAME_MAX_MD], c[NAME_MAX_MD], t[NAME_MAX_MD];
    fprintf(x->out, "fusionbench %s (%s) · %s · timer %s", fb_md_escape(d->version ? d->version : "?", a, sizeof a),
            fb_md_escape(d->git ? d->git : "unknown commit", b, sizeof b),
            fb_md_escape(d->device_name ? d->device_name : "unknown device", c, sizeof c),
            fb_md_escape(d->timer ? d->timer : "unknown", t, sizeof t));
    if (d->flush) fprintf(x->out, " · flush %s", fb_md_escape(d->flush, a, sizeof a));
    if (d->started) fprintf(x->out, " · %s", fb_md_escape(d->started, a, sizeof a));
    fputs("\n\n", x->out);
    return FB_OK;
}

static fb_status begin_grid(fb_export *x, const fb_export_grid *g)
{
    if (x->opts->table) return FB_OK; /* the table replaces the grids */
    md_state *st = x->state;
    size_t need = (size_t)g->n_rows * (size_t)g->n_cols;
    if (need > st->cap) {
        void *more = realloc(st->text, (need ? need : 1) * sizeof *st->text);
        if (!more) {
            fb_error("out of host memory writing the md export");
            return FB_E_NOMEM;
        }
        st->text = more;
        st->cap = need;
    }
    memset(st->seen, 0, sizeof st->seen);
    st->throttled = false;
    return FB_OK;
}

static fb_status cell(fb_export *x, const fb_export_grid *g, const fb_export_cell *c)
{
    if (x->opts->table) return FB_OK;
    md_state *st = x->state;
    const char *t = c->text[g->show];
    snprintf(st->text[(size_t)c->r * (size_t)g->n_cols + (size_t)c->c], FB_EXPORT_TEXT, "%s", t);
    for (size_t i = 0; c->mark[g->show] && i < sizeof mark_legend / sizeof mark_legend[0]; i++)
        if (strcmp(c->mark[g->show], mark_legend[i].mark) == 0) st->seen[i] = true;
    if (c->marked[g->show]) st->throttled = true;
    return FB_OK;
}

static int max_i(int a, int b) { return a > b ? a : b; }

static fb_status end_grid(fb_export *x, const fb_export_grid *g)
{
    if (x->opts->table) return FB_OK;
    md_state *st = x->state;
    FILE *f = x->out;
    char a[NAME_MAX_MD], b[NAME_MAX_MD], c[NAME_MAX_MD], desc[3 * NAME_MAX_MD], esc[3 * NAME_MAX_MD];
    fb_export_describe(g, g->show, desc, sizeof desc);
    char lab[NAME_MAX_MD];
    /* a case with fixed symbols: the grid's values after the dtype, as run heads it */
    fprintf(f, "### %s · %s%s%s · %s · %s\n\n", fb_md_escape(g->cs->name, a, sizeof a), fb_md_escape(g->dt->dtype, b, sizeof b),
            g->label[0] ? " · " : "", fb_md_escape(g->label, lab, sizeof lab), fb_md_escape(g->doc->device_name ? g->doc->device_name : "unknown device", c, sizeof c),
            fb_md_escape(desc, esc, sizeof esc));

    /* widths: the label column left-aligned, value columns right-aligned, at least 3 dashes */
    /* "dim0\dim1": the names escaped, the backslash between them kept (GFM shows a
     * backslash before a letter as it is; axis names are identifiers) */
    char corner[2 * NAME_MAX_MD + 2], label[64];
    snprintf(corner, sizeof corner, "%s%s%s", fb_md_escape(g->cs->rows, a, sizeof a), g->cs->cols ? "\\" : "",
             g->cs->cols ? fb_md_escape(g->cs->cols, b, sizeof b) : "");
    int lw = max_i(3, (int)strlen(corner));
    for (int r = 0; r < g->n_rows; r++) {
        snprintf(label, sizeof label, "%lld", (long long)g->cs->row_values[r]);
        lw = max_i(lw, (int)strlen(label));
    }
    int *cw = calloc((size_t)g->n_cols + 1, sizeof *cw);
    if (!cw) {
        fb_error("out of host memory writing the md export");
        return FB_E_NOMEM;
    }
    for (int k = 0; k < g->n_cols; k++) {
        cw[k] = max_i(3, (int)strlen(fb_export_col_label(g, k, g->show, label, sizeof label)));
        for (int r = 0; r < g->n_rows; r++)
            cw[k] = max_i(cw[k], (int)strlen(st->text[(size_t)r * (size_t)g->n_cols + (size_t)k]));
    }

    fprintf(f, "| %-*s |", lw, corner);
    for (int k = 0; k < g->n_cols; k++)
        fprintf(f, " %*s |", cw[k], fb_md_escape(fb_export_col_label(g, k, g->show, label, sizeof label), a, sizeof a));
    fputs("\n|:", f);
    for (int i = 0; i < lw + 1; i++) fputc('-', f);
    fputc('|', f);
    for (int k = 0; k < g->n_cols; k++) {
        for (int i = 0; i < cw[k] + 1; i++) fputc('-', f);
        fputs(":|", f);
    }
    fputc('\n', f);
    for (int r = 0; r < g->n_rows; r++) {
        snprintf(label, sizeof label, "%lld", (long long)g->cs->row_values[r]);
        fprintf(f, "| %-*s |", lw, label);
        for (int k = 0; k < g->n_cols; k++)
            fprintf(f, " %*s |", cw[k], st->text[(size_t)r * (size_t)g->n_cols + (size_t)k]);
        fputc('\n', f);
    }
    free(cw);

    bool any = false;
    for (size_t i = 0; i < sizeof mark_legend / sizeof mark_legend[0]; i++) {
        if (!st->seen[i]) continue;
        fprintf(f, "%s%s: %s", any ? " · " : "\n", strcmp(mark_legend[i].mark, "-") ? mark_legend[i].mark : "\\-",
                mark_legend[i].meaning);
        any = true;
    }
    if (st->throttled) {
        fprintf(f, "%s%s: throttled (%s; number kept, not comparable)",
                any ? " · " : "\n", FB_THROTTLE_MARK, FB_THROTTLE_MEANING);
        any = true;
    }
    fputs(any ? "\n\n" : "\n", f);
    return FB_OK;
}

/* After a case x dtype's grids, when --timer cupti measured them: what each
 * variant launched (kernels per run, the cells measured, the kernels' names). */
static fb_status end_dtype(fb_export *x, const fb_rs_case *cs, const fb_rs_dtype *dt)
{
    FILE *f = x->out;
    if (x->opts->table) {
        fb_status s = fb_table_print(f, x->doc, cs, dt, NULL, 0, x->opts->speedup_vs, FB_TABLE_MD);
        if (s != FB_OK) return s;
    }
    bool header = false;
    char a[NAME_MAX_MD], b[NAME_MAX_MD];
    for (int i = 0; i < cs->n_variants; i++) {
        if (x->opts->variant && strcmp(x->opts->variant, cs->variants[i]) != 0) continue;
        fb_export_kernels k;
        fb_status s = fb_export_kernels_of(dt, cs->variants[i], &k);
        if (s != FB_OK) return s;
        if (k.cells > 0) {
            if (!header)
                fprintf(f, "#### %s · %s · kernels launched (CUPTI)\n\n| variant | kernels per run | cells | kernels |\n"
                           "|:--|--:|--:|:--|\n",
                        fb_md_escape(cs->name, a, sizeof a), fb_md_escape(dt->dtype, b, sizeof b));
            header = true;
            char count[32];
            if (k.lo == k.hi) snprintf(count, sizeof count, "%d", k.lo);
            else snprintf(count, sizeof count, "%d-%d", k.lo, k.hi);
            fprintf(f, "| %s | %s | %d | ", fb_md_escape(cs->variants[i], a, sizeof a), count, k.cells);
            for (int j = 0; j < k.n_names; j++) fprintf(f, "%s%s", j ? "; " : "", fb_md_escape(k.names[j], a, sizeof a));
            fputs(" |\n", f);
        }
        fb_export_kernels_free(&k);
    }
    if (header) fputc('\n', f);
    return FB_OK;
}

static void release(fb_export *x)
{
    md_state *st = x->state;
    if (st) free(st->text);
    free(st);
    x->state = NULL;
}

const fb_printer fb_printer_md = {
    .name = "md",
    .splits_grids = true,
    .walk = FB_WALK_SHOWN,
    .begin_doc = begin_doc,
    .begin_grid = begin_grid,
    .cell = cell,
    .end_grid = end_grid,
    .end_dtype = end_dtype,
    .release = release,
};
