/* report_table.c — the benchmark table (report_table.h): a case x dtype of the
 * typed result model laid out as rows of cells and columns of variants, then
 * written as aligned text (run --table) or markdown (export --format md --table).
 *
 * The table is built first as text (every entry, mark or number, formatted
 * once), then laid out, so both styles print the same entries and only the
 * framing differs. */
#include "report_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "export.h"

#define EAGER "eager" /* cell.h's FB_EAGER: the first variant column */
#define ENTRY_MAX 64  /* one entry: "65536 x 65536 x 4 x 4", "123456.0!" */
#define HEAD_MAX 512  /* a column heading: "VARIANT vs X", names escaped for markdown */

/* ---- marks -------------------------------------------------------------------------- */

enum { M_FAIL, M_BFAIL, M_OOM, M_ERR, M_UNCHK, M_SKIP, M_NONE, M_COUNT };

static const struct { const char *mark, *meaning; } marks[M_COUNT] = {
    [M_FAIL] = {"FAIL", "failed its check"},
    [M_BFAIL] = {"BFAIL", NULL}, /* "X, the speedups' reference, failed its check": names X */
    [M_OOM] = {"OOM", "out of device memory"},
    [M_ERR] = {"ERR", "runtime error"},
    [M_UNCHK] = {"UNCHK", "not checked against the reference"},
    [M_SKIP] = {"SKIP", "not run: unsupported here (the result file says why)"},
    [M_NONE] = {"-", "not measured"},
};

/* The mark for a measurement without a trustworthy number (an index into
 * marks), or -1 when it has one. `is_ref`: X in a speedup column. */
static int mark_of(const fb_rs_variant *v, bool is_ref)
{
    if (!v || !v->status) return M_NONE;
    if (strcmp(v->status, "ok") == 0) return v->unchecked ? M_UNCHK : v->has_time ? -1 : M_NONE;
    if (strcmp(v->status, "fail") == 0) return is_ref ? M_BFAIL : M_FAIL;
    if (strcmp(v->status, "oom") == 0) return M_OOM;
    if (strcmp(v->status, "error") == 0) return M_ERR;
    if (strcmp(v->status, "skipped") == 0) return M_SKIP;
    return M_NONE; /* a status this build does not know */
}

/* Two decimals everywhere, so a column's decimal points line up and 2 us
 * kernels keep 0.5% steps; above a millisecond the last digit is noise, but a
 * wider number is easier to read than a switch of precision mid-column. */
void fb_table_format_us(double us, char *buf, size_t n) { snprintf(buf, n, "%.2f", us); }

/* ---- the columns ---------------------------------------------------------------------- */

fb_status fb_table_check_vs(const char *case_name, const char *vs, const char *const *variants, int n_variants,
                            const char *whose)
{
    if (vs && strcmp(vs, FB_TABLE_SOL) == 0) return FB_OK;
    for (int i = 0; vs && i < n_variants; i++)
        if (strcmp(variants[i], vs) == 0) return FB_OK;
    const char **names = calloc((size_t)n_variants + 1, sizeof *names);
    if (!names) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    char have[1024] = "", sg[160], q[96], c[96], v[96];
    size_t used = 0;
    for (int i = 0; i <= n_variants; i++) {
        names[i] = i < n_variants ? variants[i] : FB_TABLE_SOL;
        int w = snprintf(have + used, sizeof have - used, "%s%s", i ? ", " : "", fb_clean(names[i], v, sizeof v));
        if (w > 0 && used + (size_t)w < sizeof have) used += (size_t)w;
    }
    fb_error("--speedup-vs: '%s' is not among %s variants of case '%s'%s; choose one of: %s",
             fb_clean(vs ? vs : "", q, sizeof q), whose, fb_clean(case_name, c, sizeof c),
             fb_suggest("", vs ? vs : "", names, n_variants + 1, sg, sizeof sg), have);
    free(names);
    return FB_E_USAGE;
}

/* Has any cell of the dtype a measurement of `name` ("sol": the copy)? */
static bool measured(const fb_rs_dtype *dt, const char *name)
{
    bool sol = strcmp(name, FB_TABLE_SOL) == 0;
    for (int k = 0; k < dt->n_cells; k++)
        if (sol ? dt->cells[k].has_sol : fb_rs_find_variant(&dt->cells[k], name) != NULL) return true;
    return false;
}

typedef struct table {
    const char **vars; /* the variant columns, eager first; then sol when shown */
    int n_vars;
    bool sol;          /* a sol column after them */
    const char *x;     /* the speedups' reference: one of vars, or "sol" */
    const char **ups;  /* the variants with a speedup column */
    int n_ups;
    const char *shape_of; /* the input whose shape is shown, or NULL: no shape column */
    int n_axes;
    int n_cols, n_rows;
    char (*head)[HEAD_MAX];
    bool *left;
    char (*text)[ENTRY_MAX]; /* n_rows x n_cols */
    bool seen[M_COUNT];
    bool throttled;
} table;

static void table_free(table *t)
{
    free(t->vars);
    free(t->ups);
    free(t->head);
    free(t->left);
    free(t->text);
}

static fb_status no_memory(void)
{
    fb_error("out of host memory printing the table");
    return FB_E_NOMEM;
}

/* Which columns, in which order; the headings are made by layout. */
static fb_status plan_columns(table *t, const fb_rs_case *cs, const fb_rs_dtype *dt, const char *const *variants,
                              int n_variants, const char *vs)
{
    if (!variants) {
        variants = cs->variants;
        n_variants = cs->n_variants;
    }
    t->x = vs ? vs : cs->baseline;
    fb_status s = fb_table_check_vs(cs->name, t->x, variants, n_variants, "the table's");
    if (s != FB_OK) return s;
    t->vars = calloc((size_t)n_variants + 1, sizeof *t->vars);
    t->ups = calloc((size_t)n_variants + 1, sizeof *t->ups);
    if (!t->vars || !t->ups) return no_memory();
    /* eager first (the seed's "naive" column), then the rest as listed */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n_variants; i++) {
            bool eager = strcmp(variants[i], EAGER) == 0;
            if (eager != (pass == 0)) continue;
            bool dup = false;
            for (int k = 0; k < t->n_vars; k++) dup |= strcmp(t->vars[k], variants[i]) == 0;
            if (dup || (!measured(dt, variants[i]) && strcmp(variants[i], t->x) != 0)) continue;
            t->vars[t->n_vars++] = variants[i];
        }
    t->sol = measured(dt, FB_TABLE_SOL) || strcmp(t->x, FB_TABLE_SOL) == 0;
    for (int k = 0; k < t->n_vars; k++)
        if (strcmp(t->vars[k], t->x) != 0) t->ups[t->n_ups++] = t->vars[k];
    for (int k = 0; k < dt->n_cells && !t->shape_of; k++)
        if (dt->cells[k].n_shapes > 0) t->shape_of = dt->cells[k].shapes[0].name;
    t->n_axes = cs->cols ? 2 : 1;
    t->n_cols = (t->shape_of ? 1 : 0) + t->n_axes + t->n_vars + (t->sol ? 1 : 0) + t->n_ups;
    return FB_OK;
}

/* ---- the entries ------------------------------------------------------------------------ */

/* "4 x 128 x 1027": the cell's shape of input `name`, "?" when it has none. */
static void shape_text(const fb_rs_cell *c, const char *name, char *buf, size_t n)
{
    const fb_rs_shape *sh = NULL;
    for (int i = 0; i < c->n_shapes && !sh; i++)
        if (strcmp(c->shapes[i].name, name) == 0) sh = &c->shapes[i];
    if (!sh) {
        snprintf(buf, n, "?");
        return;
    }
    if (sh->rank == 0) {
        snprintf(buf, n, "scalar");
        return;
    }
    size_t used = 0;
    buf[0] = 0;
    for (int d = 0; d < sh->rank && used < n; d++) {
        int w = snprintf(buf + used, n - used, "%s%lld", d ? " x " : "", (long long)sh->dim[d]);
        if (w > 0) used += (size_t)w;
    }
}

static const fb_rs_variant *lookup(const fb_rs_cell *c, const char *name)
{
    if (strcmp(name, FB_TABLE_SOL) == 0) return c->has_sol ? &c->sol : NULL;
    return fb_rs_find_variant(c, name);
}

/* A mark into buf, remembered for the legend. */
static void put_mark(table *t, int m, char *buf)
{
    t->seen[m] = true;
    snprintf(buf, ENTRY_MAX, "%s", marks[m].mark);
}

/* A number of a throttled cell keeps its value and gets the mark after it. */
static void put_throttle(table *t, const fb_rs_cell *c, char *buf)
{
    if (!c->throttled) return;
    t->throttled = true;
    size_t len = strlen(buf);
    snprintf(buf + len, ENTRY_MAX - len, "%s", FB_THROTTLE_MARK);
}

static void fill_row(table *t, const fb_rs_case *cs, const fb_rs_cell *c, char (*row)[ENTRY_MAX])
{
    int k = 0;
    if (t->shape_of) shape_text(c, t->shape_of, row[k++], ENTRY_MAX);
    snprintf(row[k++], ENTRY_MAX, "%lld", (long long)c->row);
    if (cs->cols) snprintf(row[k++], ENTRY_MAX, "%lld", (long long)c->col);
    for (int i = 0; i < t->n_vars + (t->sol ? 1 : 0); i++, k++) {
        const fb_rs_variant *v = lookup(c, i < t->n_vars ? t->vars[i] : FB_TABLE_SOL);
        int m = mark_of(v, false);
        if (m >= 0) {
            put_mark(t, m, row[k]);
            continue;
        }
        fb_table_format_us(v->time_ms.median * 1000.0, row[k], ENTRY_MAX);
        put_throttle(t, c, row[k]);
    }
    const fb_rs_variant *x = lookup(c, t->x);
    for (int i = 0; i < t->n_ups; i++, k++) {
        const fb_rs_variant *v = lookup(c, t->ups[i]);
        int m = mark_of(v, false);
        if (m < 0) m = mark_of(x, true);
        double ratio = m < 0 ? x->time_ms.median / v->time_ms.median : NAN;
        if (m < 0 && !(isfinite(ratio) && ratio >= 0)) m = M_NONE;
        if (m >= 0) {
            put_mark(t, m, row[k]);
            continue;
        }
        snprintf(row[k], ENTRY_MAX, "%.2fx", ratio);
        put_throttle(t, c, row[k]);
    }
}

/* Headings (escaped for markdown when md) and alignment; then every row. */
static fb_status fill(table *t, const fb_rs_case *cs, const fb_rs_dtype *dt, int grid, fb_table_style style)
{
    t->head = calloc((size_t)t->n_cols, sizeof *t->head);
    t->left = calloc((size_t)t->n_cols, sizeof *t->left);
    if (!t->head || !t->left) return no_memory();
    bool md = style == FB_TABLE_MD;
    char raw[HEAD_MAX];
    int k = 0;
#define HEAD(...)                                                                       \
    do {                                                                                \
        snprintf(raw, sizeof raw, __VA_ARGS__);                                         \
        if (md) fb_md_escape(raw, t->head[k], HEAD_MAX);                                \
        else snprintf(t->head[k], HEAD_MAX, "%s", raw);                                 \
        k++;                                                                            \
    } while (0)
    if (t->shape_of) {
        t->left[k] = true;
        HEAD("shape (%s)", t->shape_of);
    }
    HEAD("%s", cs->rows);
    if (cs->cols) HEAD("%s", cs->cols);
    for (int i = 0; i < t->n_vars; i++) HEAD("%s", t->vars[i]);
    if (t->sol) HEAD("%s", FB_TABLE_SOL);
    for (int i = 0; i < t->n_ups; i++) {
        if (t->n_ups == 1) HEAD("speedup vs %s", t->x);
        else HEAD("%s vs %s", t->ups[i], t->x);
    }
#undef HEAD

    /* one row per cell the file has in this grid, in the grid's order */
    int n_points = cs->n_rows * (cs->cols ? cs->n_cols : 1);
    t->text = calloc((size_t)(n_points ? n_points : 1) * (size_t)t->n_cols, sizeof *t->text);
    if (!t->text) return no_memory();
    for (int r = 0; r < cs->n_rows; r++)
        for (int q = 0; q < (cs->cols ? cs->n_cols : 1); q++) {
            const fb_rs_cell *c = fb_rs_find_cell_in(dt, grid, cs->row_values[r], cs->cols ? cs->col_values[q] : -1);
            if (!c) continue;
            fill_row(t, cs, c, &t->text[(size_t)t->n_rows * (size_t)t->n_cols]);
            t->n_rows++;
        }
    return FB_OK;
}

/* ---- layout ------------------------------------------------------------------------------ */

static int max_i(int a, int b) { return a > b ? a : b; }

static void put_repeat(FILE *f, char c, int n)
{
    for (int i = 0; i < n; i++) fputc(c, f);
}

/* What the marks in the table mean, one line (none when it has none); the
 * throttle mark is said the way each style's grid says it. Whether it wrote. */
static bool legend(FILE *f, const table *t, fb_table_style style)
{
    bool md = style == FB_TABLE_MD, any = false;
    char esc[HEAD_MAX];
    for (int m = 0; m < M_COUNT; m++) {
        if (!t->seen[m]) continue;
        fputs(any ? " · " : "", f);
        fputs(md && m == M_NONE ? "\\-" : marks[m].mark, f);
        if (m == M_BFAIL) {
            fprintf(f, ": %s, the speedups' reference, failed its check",
                    md ? fb_md_escape(t->x, esc, sizeof esc) : t->x);
        } else {
            fprintf(f, ": %s", marks[m].meaning);
        }
        any = true;
    }
    if (t->throttled && md) {
        fprintf(f, "%s%s: throttled (%s; number kept, not comparable)",
                any ? " · " : "", FB_THROTTLE_MARK, FB_THROTTLE_MEANING);
        any = true;
    }
    if (any) fputc('\n', f);
    if (t->throttled && !md) fprintf(f, "%s\n", FB_THROTTLE_NOTE);
    return any || t->throttled;
}

static void print_text(FILE *f, const table *t, const int *w)
{
    for (int r = -1; r < t->n_rows; r++) {
        for (int k = 0; k < t->n_cols; k++) {
            const char *s = r < 0 ? t->head[k] : t->text[(size_t)r * (size_t)t->n_cols + (size_t)k];
            if (k) fputs("  ", f);
            if (t->left[k] && k + 1 < t->n_cols) fprintf(f, "%-*s", w[k], s);
            else if (t->left[k]) fputs(s, f); /* no trailing blanks */
            else fprintf(f, "%*s", w[k], s);
        }
        fputc('\n', f);
    }
}

static void print_md(FILE *f, const table *t, const int *w)
{
    for (int r = -1; r < t->n_rows; r++) {
        fputc('|', f);
        for (int k = 0; k < t->n_cols; k++) {
            const char *s = r < 0 ? t->head[k] : t->text[(size_t)r * (size_t)t->n_cols + (size_t)k];
            fprintf(f, t->left[k] ? " %-*s |" : " %*s |", w[k], s);
        }
        fputc('\n', f);
        if (r >= 0) continue;
        fputc('|', f);
        for (int k = 0; k < t->n_cols; k++) {
            if (t->left[k]) fputc(':', f);
            put_repeat(f, '-', w[k] + 1);
            fputs(t->left[k] ? "|" : ":|", f);
        }
        fputc('\n', f);
    }
}

/* The table of one grid: a case without fixed size symbols has one (grid 0); a
 * case with them one per combination, headed with it ("mm · float32 · K=1024 ·
 * ..."), as run's grids and export md's are. */
static fb_status print_grid(FILE *f, const fb_rs_doc *doc, const fb_rs_case *cs, const fb_rs_dtype *dt, int grid,
                            const char *const *variants, int n_variants, const char *vs, fb_table_style style)
{
    table t = {0};
    fb_status s = plan_columns(&t, cs, dt, variants, n_variants, vs);
    if (s == FB_OK) s = fill(&t, cs, dt, grid, style);
    int *w = s == FB_OK ? calloc((size_t)t.n_cols, sizeof *w) : NULL;
    if (s == FB_OK && !w) s = no_memory();
    if (s != FB_OK || t.n_rows == 0) { /* a dtype without cells has no table */
        free(w);
        table_free(&t);
        return s;
    }
    bool md = style == FB_TABLE_MD;
    for (int k = 0; k < t.n_cols; k++) {
        w[k] = max_i(md ? 3 : 1, (int)strlen(t.head[k]));
        for (int r = 0; r < t.n_rows; r++) w[k] = max_i(w[k], (int)strlen(t.text[(size_t)r * (size_t)t.n_cols + (size_t)k]));
    }

    /* the heading: the grid's "case · dtype · device · what" */
    const char *dev = doc->device_name ? doc->device_name : "unknown device";
    char what[HEAD_MAX];
    if (strcmp(t.x, FB_TABLE_SOL) == 0)
        snprintf(what, sizeof what, "median time (us); speedup vs sol = t_sol / t_variant (1.00x: the speed of light)");
    else
        snprintf(what, sizeof what, "median time (us); speedup vs %s = t_%s / t_variant", t.x, t.x);
    char label[HEAD_MAX] = "", sep[HEAD_MAX + 8] = "";
    if (cs->n_fixed) {
        fb_rs_grid_label(cs, grid, label, sizeof label);
        snprintf(sep, sizeof sep, "%s · ", label);
    }
    if (md) {
        char a[HEAD_MAX], b[HEAD_MAX], c[HEAD_MAX], e[HEAD_MAX], l[HEAD_MAX];
        fprintf(f, "### %s · %s · %s%s%s · %s\n\n", fb_md_escape(cs->name, a, sizeof a),
                fb_md_escape(dt->dtype, b, sizeof b), label[0] ? fb_md_escape(label, l, sizeof l) : "",
                label[0] ? " · " : "", fb_md_escape(dev, c, sizeof c), fb_md_escape(what, e, sizeof e));
        print_md(f, &t, w);
        fputc('\n', f);
        if (legend(f, &t, style)) fputc('\n', f);
    } else {
        fprintf(f, "%s · %s · %s%s · %s\n", cs->name, dt->dtype, sep, dev, what);
        print_text(f, &t, w);
        legend(f, &t, style);
        fputc('\n', f);
    }
    free(w);
    table_free(&t);
    return ferror(f) ? (fb_error("cannot write the table: output error"), FB_E_IO) : FB_OK;
}

fb_status fb_table_print(FILE *f, const fb_rs_doc *doc, const fb_rs_case *cs, const fb_rs_dtype *dt,
                         const char *const *variants, int n_variants, const char *vs, fb_table_style style)
{
    fb_status s = FB_OK;
    for (int g = 0; g < (cs->n_grids > 0 ? cs->n_grids : 1) && s == FB_OK; g++)
        s = print_grid(f, doc, cs, dt, g, variants, n_variants, vs, style);
    return s;
}
