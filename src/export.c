/* export.c — the walk behind every export printer (export.h), the values and
 * texts of a grid cell, the long-form records of csv and json, and the small
 * writers the printers share.
 *
 * The values and marks follow report.c's terminal grid exactly (the same ratio
 * of medians, the same markers, the same formats), so an exported markdown grid
 * reads like the grid `run` printed; test_export checks the two against each
 * other on a published result. */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_table.h"

const fb_printer *fb_printer_find(const char *format)
{
    static const fb_printer *const all[] = {&fb_printer_csv, &fb_printer_md, &fb_printer_svg, &fb_printer_html,
                                            &fb_printer_json};
    for (size_t i = 0; format && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, format) == 0) return all[i];
    return NULL;
}

const char *fb_printer_names(void) { return "csv, md, svg, html, json"; }

/* ---- one cell -------------------------------------------------------------------- */

/* What stands in for a measurement's number (report.c's status_marker), or NULL;
 * a mode that needs a time has "-" for a measurement without one. */
static const char *marker(const fb_rs_variant *v, bool is_baseline, bool needs_time)
{
    if (!v || !v->status) return "-";
    if (strcmp(v->status, "ok") == 0) {
        if (v->unchecked) return "UNCHK";
        return v->has_time || !needs_time ? NULL : "-";
    }
    if (strcmp(v->status, "fail") == 0) return is_baseline ? "BFAIL" : "FAIL";
    if (strcmp(v->status, "oom") == 0) return "OOM";
    if (strcmp(v->status, "error") == 0) return "ERR";
    return "-";
}

static void fill_cell(const fb_export_grid *g, fb_export_cell *c)
{
    if (c->cell) {
        c->v = g->is_sol ? (c->cell->has_sol ? &c->cell->sol : NULL) : fb_rs_find_variant(c->cell, g->variant);
        c->base = fb_rs_find_variant(c->cell, g->baseline);
    }
    c->throttled = c->cell && c->cell->throttled;
    c->shape[0] = 0;
    if (c->cell && c->cell->n_shapes > 0) {
        const fb_rs_shape *sh = &c->cell->shapes[0];
        size_t used = 0;
        for (int d = 0; d < sh->rank && used < sizeof c->shape; d++) {
            int w = snprintf(c->shape + used, sizeof c->shape - used, "%s%lld", d ? "x" : "", (long long)sh->dim[d]);
            if (w > 0) used += (size_t)w;
        }
        if (sh->rank == 0) snprintf(c->shape, sizeof c->shape, "scalar");
    }
    fb_show_input in = {NAN, NAN, NAN, NAN, NAN, NAN, {0}, NAN, NAN, NAN, NAN, NAN};
    for (int i = 0; i < FB_NMETRICS; i++) in.metrics[i] = NAN;
    if (c->v) {
        const fb_rs_cell *cell = c->cell;
        const fb_rs_variant *v = c->v;
        in = (fb_show_input){.t_ms = v->time_ms.median, .base_ms = c->base ? c->base->time_ms.median : NAN,
                             .sol_ms = cell->has_sol && fb_rs_is_timed(&cell->sol) ? cell->sol.time_ms.median : NAN,
                             .sol_pct = v->sol_pct, .gbps = v->gbps, .ideal_bytes = cell->ideal_bytes,
                             .kernels = v->kernels >= 0 ? v->kernels : NAN,
                             .launched = v->kernels_launched >= 0 ? v->kernels_launched : NAN,
                             .launched_min = v->kernels_launched_min >= 0 ? v->kernels_launched_min : NAN,
                             .launched_max = v->kernels_launched_max >= 0 ? v->kernels_launched_max : NAN,
                             .paired_ratio = v->paired_ratio};
        memcpy(in.metrics, v->metrics, sizeof in.metrics);
    }
    for (int s = 0; s < FB_NSHOW; s++) {
        const fb_show_mode *mode = &fb_show_modes[s];
        const char *mark = marker(c->v, false, mode->needs_time);
        if (!mark && mode->needs_baseline) mark = marker(c->base, true, true);
        c->value[s] = mark ? NAN : fb_show_value((fb_show)s, &in);
        if (!mark && isnan(c->value[s])) mark = "-";
        c->mark[s] = mark;
        c->marked[s] = false;
        if (mark) snprintf(c->text[s], FB_EXPORT_TEXT, "%s", mark);
        else c->marked[s] = fb_show_text((fb_show)s, &in, c->throttled, c->text[s], FB_EXPORT_TEXT);
    }
}

unsigned fb_export_views(const fb_rs_doc *doc, fb_show first)
{
    unsigned views = 1u << FB_SHOW_SPEEDUP | 1u << FB_SHOW_SOL | 1u << FB_SHOW_TIME | 1u << FB_SHOW_GBPS | 1u << first;
    bool dram = false, inst = false, paired = false;
    for (int i = 0; i < doc->n_cases && !(dram && inst && paired); i++)
        for (int d = 0; d < doc->cases[i].n_dtypes; d++)
            for (int k = 0; k < doc->cases[i].dtypes[d].n_cells; k++) {
                const fb_rs_cell *c = &doc->cases[i].dtypes[d].cells[k];
                for (int v = 0; v < c->n_variants; v++) {
                    const double *m = c->variants[v].metrics;
                    dram |= isfinite(m[FB_METRIC_DRAM_READ]) && isfinite(m[FB_METRIC_DRAM_WRITE]);
                    inst |= isfinite(m[FB_METRIC_INST]);
                    paired |= isfinite(c->variants[v].paired_ratio);
                }
            }
    return views | (dram ? 1u << FB_SHOW_DRAM : 0) | (inst ? 1u << FB_SHOW_INST : 0) |
           (paired ? 1u << FB_SHOW_PAIRED : 0);
}

/* ---- choosing what to walk --------------------------------------------------------- */

/* "a, b, c" for "(have: ...)" messages, cut to fit. */
typedef struct names_buf {
    char s[512];
    size_t used;
} names_buf;

static void names_add(names_buf *b, const char *name)
{
    if (b->used && strstr(b->s, name)) { /* each once (a dtype in many cases) */
        size_t len = strlen(name);
        for (const char *p = b->s; (p = strstr(p, name)); p += len)
            if ((p == b->s || p[-1] == ' ') && (p[len] == ',' || p[len] == 0)) return;
    }
    if (b->used >= sizeof b->s) return;
    int w = snprintf(b->s + b->used, sizeof b->s - b->used, "%s%s", b->used ? ", " : "", name);
    if (w > 0) b->used += (size_t)w;
    if (b->used >= sizeof b->s) b->used = sizeof b->s;
}

static const char *names_or_none(names_buf *b) { return b->used ? b->s : "none"; }

static bool case_selected(const fb_export_opts *o, const fb_rs_case *cs)
{
    return !o->case_name || strcmp(o->case_name, cs->name) == 0;
}

/* Does --case / --dtype / --variant / --speedup-vs name something the file has,
 * and do the options go together? */
static fb_status check_selection(const fb_rs_doc *doc, const fb_export_opts *o, const fb_printer *p)
{
    fb_export_walk walk = p->walk;
    char q[96];
    names_buf have = {0};
    if (o->table && strcmp(p->name, "md") != 0) {
        fb_error("--table is a form of the markdown export: use it with --format md (got --format %s)", p->name);
        return FB_E_USAGE;
    }
    if (o->table && o->variant) {
        fb_error("--table shows every variant of a case in one table: leave out --variant (or drop --table for "
                 "one variant's grids)");
        return FB_E_USAGE;
    }
    if (o->speedup_vs && !o->table) {
        fb_error("--speedup-vs picks the table's speedup reference: add --table (the grids' is --baseline of run)");
        return FB_E_USAGE;
    }
    if (o->case_name && !fb_rs_find_case(doc, o->case_name)) {
        for (int i = 0; i < doc->n_cases; i++) names_add(&have, doc->cases[i].name);
        fb_error("%s: no case '%s' in the result (have: %s)", fb_qpath(doc->path), fb_clean(o->case_name, q, sizeof q),
                 names_or_none(&have));
        return FB_E_USAGE;
    }
    if (o->dtype) {
        bool found = false;
        for (int i = 0; i < doc->n_cases; i++) {
            const fb_rs_case *cs = &doc->cases[i];
            if (!case_selected(o, cs)) continue;
            found |= fb_rs_find_dtype(cs, o->dtype) != NULL;
            for (int d = 0; d < cs->n_dtypes; d++) names_add(&have, cs->dtypes[d].dtype);
        }
        if (!found) {
            fb_error("%s: no dtype '%s' in the result%s%s (have: %s)", fb_qpath(doc->path),
                     fb_clean(o->dtype, q, sizeof q), o->case_name ? " for case " : "",
                     o->case_name ? o->case_name : "", names_or_none(&have));
            return FB_E_USAGE;
        }
    }
    for (int i = 0; o->speedup_vs && i < doc->n_cases; i++) {
        const fb_rs_case *cs = &doc->cases[i];
        if (!case_selected(o, cs) || (o->dtype && !fb_rs_find_dtype(cs, o->dtype))) continue;
        fb_status s = fb_table_check_vs(cs->name, o->speedup_vs, cs->variants, cs->n_variants, "the result's");
        if (s != FB_OK) return s;
    }
    if (o->variant) {
        bool found = walk == FB_WALK_MEASURED && strcmp(o->variant, "sol") == 0;
        memset(&have, 0, sizeof have);
        for (int i = 0; i < doc->n_cases; i++) {
            const fb_rs_case *cs = &doc->cases[i];
            if (!case_selected(o, cs)) continue;
            found |= fb_rs_case_variant_index(cs, o->variant) >= 0;
            for (int v = 0; v < cs->n_variants; v++) names_add(&have, cs->variants[v]);
        }
        if (walk == FB_WALK_MEASURED) names_add(&have, "sol");
        if (!found) {
            fb_error("%s: no variant '%s' in the result%s%s (have: %s)", fb_qpath(doc->path),
                     fb_clean(o->variant, q, sizeof q), o->case_name ? " for case " : "",
                     o->case_name ? o->case_name : "", names_or_none(&have));
            return FB_E_USAGE;
        }
    }
    return FB_OK;
}

/* The grids of one case x dtype, in order, into g[] (room for n_variants + 1). */
static int plan_grids(const fb_export *x, fb_export_walk walk, const fb_rs_case *cs, const fb_rs_dtype *dt,
                      fb_export_grid *g)
{
    const fb_export_opts *o = x->opts;
    const char *names[64];
    int n_names = 0;
    /* the variants walked: the case's (at most 64 in practice; more are cut), then the sol copy */
    for (int v = 0; v < cs->n_variants && n_names < 63; v++)
        if (!o->variant || strcmp(o->variant, cs->variants[v]) == 0) names[n_names++] = cs->variants[v];
    bool sol_grid = walk == FB_WALK_MEASURED && (!o->variant || strcmp(o->variant, "sol") == 0);
    if (sol_grid) names[n_names++] = "sol";

    /* a variant no cell of this dtype has was not run for it: no grid of dashes */
    int kept = 0;
    for (int i = 0; i < n_names; i++) {
        bool measured = false;
        for (int k = 0; k < dt->n_cells && !measured; k++)
            measured = sol_grid && i == n_names - 1 ? dt->cells[k].has_sol
                                                   : fb_rs_find_variant(&dt->cells[k], names[i]) != NULL;
        if (measured) names[kept++] = names[i];
        else if (sol_grid && i == n_names - 1) sol_grid = false;
    }
    n_names = kept;

    bool only_baseline = true;
    for (int i = 0; i < n_names - sol_grid; i++) only_baseline &= strcmp(names[i], cs->baseline) == 0;
    int n = 0;
    for (int i = 0; i < n_names; i++) {
        bool is_base = strcmp(names[i], cs->baseline) == 0;
        bool is_sol = sol_grid && i == n_names - 1;
        fb_show show = o->show;
        if (fb_show_modes[show].needs_baseline && is_base) {
            if (walk == FB_WALK_SHOWN && !only_baseline) continue;
            if (only_baseline) show = FB_SHOW_SOL;
        }
        g[n++] = (fb_export_grid){.doc = x->doc, .cs = cs, .dt = dt, .variant = names[i], .baseline = cs->baseline,
                                  .show = show, .is_baseline = is_base, .is_sol = is_sol,
                                  .n_rows = cs->n_rows, .n_cols = cs->cols ? cs->n_cols : 1};
    }
    for (int i = 0; i < n; i++) g[i].others = n > 1;
    return n;
}

#define HOOK(p, name, ...) ((p)->name ? (p)->name(__VA_ARGS__) : FB_OK)
#define TRY(expr)                           \
    do {                                    \
        fb_status try_s_ = (expr);          \
        if (try_s_ != FB_OK) return try_s_; \
    } while (0)

static fb_status walk_grid(fb_export *x, const fb_printer *p, const fb_export_grid *g)
{
    TRY(HOOK(p, begin_grid, x, g));
    const fb_rs_case *cs = g->cs;
    for (int r = 0; r < g->n_rows; r++)
        for (int c = 0; c < g->n_cols; c++) {
            fb_export_cell cell = {.r = r, .c = c, .row = cs->row_values[r], .col = cs->cols ? cs->col_values[c] : -1};
            cell.cell = fb_rs_find_cell_in(g->dt, g->grid, cell.row, cell.col);
            fill_cell(g, &cell);
            TRY(HOOK(p, cell, x, g, &cell));
        }
    return HOOK(p, end_grid, x, g);
}

static fb_status walk(fb_export *x, const fb_printer *p)
{
    const fb_export_opts *o = x->opts;
    int index = 0;
    TRY(HOOK(p, begin_doc, x));
    for (int i = 0; i < x->doc->n_cases; i++) {
        const fb_rs_case *cs = &x->doc->cases[i];
        if (!case_selected(o, cs)) continue;
        const fb_rs_dtype *only = o->dtype ? fb_rs_find_dtype(cs, o->dtype) : NULL;
        if (o->dtype && !only) continue;
        if (o->variant && fb_rs_case_variant_index(cs, o->variant) < 0 &&
            !(p->walk == FB_WALK_MEASURED && strcmp(o->variant, "sol") == 0))
            continue;
        TRY(HOOK(p, begin_case, x, cs));
        fb_export_grid *grids = calloc((size_t)cs->n_variants + 2, sizeof *grids);
        if (!grids) {
            fb_error("out of host memory exporting %s", cs->name);
            return FB_E_NOMEM;
        }
        fb_status s = FB_OK;
        for (int d = 0; d < cs->n_dtypes && s == FB_OK; d++) {
            const fb_rs_dtype *dt = &cs->dtypes[d];
            if (only && dt != only) continue;
            s = HOOK(p, begin_dtype, x, cs, dt);
            int n = s == FB_OK ? plan_grids(x, p->walk, cs, dt, grids) : 0;
            /* each variant's grids: one per combination of the fixed values */
            for (int k = 0; k < n && s == FB_OK; k++)
                for (int gi = 0; gi < cs->n_grids && s == FB_OK; gi++) {
                    fb_export_grid one = grids[k];
                    one.grid = gi;
                    fb_rs_grid_label(cs, gi, one.label, sizeof one.label);
                    one.index = index++;
                    s = walk_grid(x, p, &one);
                }
            if (s == FB_OK) s = HOOK(p, end_dtype, x, cs, dt);
        }
        free(grids);
        TRY(s);
        TRY(HOOK(p, end_case, x, cs));
    }
    return HOOK(p, end_doc, x);
}

bool fb_export_has_fixed(const fb_export *x)
{
    for (int i = 0; i < x->doc->n_cases; i++)
        if (x->doc->cases[i].n_fixed && case_selected(x->opts, &x->doc->cases[i])) return true;
    return false;
}

fb_status fb_export_doc(FILE *out, const fb_rs_doc *doc, const fb_export_opts *o, const fb_printer *p)
{
    TRY(check_selection(doc, o, p));
    /* a printer that does not tell a case's grids apart (by its fixed values) is refused
     * such a case rather than mixing them; every printer here does (md --table through
     * fb_table_print: one table per grid) */
    if (!p->splits_grids) {
        char what[64];
        snprintf(what, sizeof what, "export --format %s", p->name);
        TRY(fb_rs_refuse_fixed(doc, o->case_name, what));
    }
    fb_export x = {.out = out, .doc = doc, .opts = o};
    fb_status s = walk(&x, p);
    if (p->release) p->release(&x);
    if (s == FB_OK && (fflush(out) != 0 || ferror(out))) {
        fb_error("cannot write the %s export: output error", p->name);
        s = FB_E_IO;
    }
    return s;
}

/* ---- texts the printers share ----------------------------------------------------------- */

const char *fb_export_describe(const fb_export_grid *g, fb_show show, char *buf, size_t n)
{
    return fb_show_describe(show, g->variant, g->baseline, buf, n);
}

const char *fb_export_value_heading(fb_show show) { return fb_show_modes[show].heading; }

const char *fb_export_corner(const fb_export_grid *g, char *buf, size_t n)
{
    if (g->cs->cols) snprintf(buf, n, "%s\\%s", g->cs->rows, g->cs->cols);
    else snprintf(buf, n, "%s", g->cs->rows);
    return buf;
}

const char *fb_export_col_label(const fb_export_grid *g, int c, fb_show show, char *buf, size_t n)
{
    if (g->cs->cols) snprintf(buf, n, "%lld", (long long)g->cs->col_values[c]);
    else snprintf(buf, n, "%s", fb_export_value_heading(show));
    return buf;
}

/* ---- what a variant launched ------------------------------------------------------------- */

fb_status fb_export_kernels_of(const fb_rs_dtype *dt, const char *variant, fb_export_kernels *out)
{
    memset(out, 0, sizeof *out);
    out->lo = out->hi = -1;
    int cap = 0;
    for (int i = 0; i < dt->n_cells; i++) {
        const fb_rs_variant *v = fb_rs_find_variant(&dt->cells[i], variant);
        if (!v || v->kernels_launched < 0) continue;
        out->cells++;
        int lo = v->kernels_launched_min >= 0 ? v->kernels_launched_min : v->kernels_launched;
        int hi = v->kernels_launched_max >= 0 ? v->kernels_launched_max : v->kernels_launched;
        if (out->lo < 0 || lo < out->lo) out->lo = lo;
        if (hi > out->hi) out->hi = hi;
        for (int k = 0; k < v->n_kernel_names; k++) {
            bool dup = false;
            for (int j = 0; j < out->n_names && !dup; j++) dup = strcmp(out->names[j], v->kernel_names[k]) == 0;
            if (dup) continue;
            if (out->n_names == cap) {
                const char **more = realloc(out->names, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *more);
                if (!more) {
                    fb_export_kernels_free(out);
                    fb_error("out of host memory listing kernels");
                    return FB_E_NOMEM;
                }
                out->names = more;
            }
            out->names[out->n_names++] = v->kernel_names[k];
        }
    }
    return FB_OK;
}

void fb_export_kernels_free(fb_export_kernels *k)
{
    free(k->names);
    k->names = NULL;
    k->n_names = 0;
}

/* ---- the long-form records ----------------------------------------------------------------- */

const char *const fb_field_names[FB_N_FIELDS] = {
    "case", "dtype", "row_axis", "row", "col_axis", "col", "shape", "variant", "baseline", "status", "reason",
    "median_us", "min_us", "p20_us", "p80_us", "max_us", "mean_us", "stdev_us", "n",
    "speedup", "sol_pct", "gbps", "tflops",
    "ideal_bytes", "flops", "kernels", "kernels_launched", "kernel_names", "span_us", "footprint_bytes", "peak_bytes",
    "prepare_ms", "dram_read_bytes", "dram_write_bytes", "inst_executed",
    "check_mode", "check_passed", "max_abs", "max_rel", "rows_checked", "rows_total", "unchecked",
    "sm_clock_before_mhz", "sm_clock_after_mhz", "mem_clock_before_mhz", "mem_clock_after_mhz",
    "temp_before_c", "temp_after_c", "power_before_w", "power_after_w", "throttled",
    "step_pct", "sm_clock_min_mhz", "sm_clock_mean_mhz", "limited_by",
    "paired_floor", "paired_ratio",
    "device", "commit",
};

static fb_field text(const char *s) { return (fb_field){.kind = FB_FIELD_TEXT, .text = s}; }
static fb_field number(double x) { return (fb_field){.kind = FB_FIELD_NUMBER, .number = isfinite(x) ? x : NAN}; }
static fb_field count(int64_t x) { return number(x >= 0 ? (double)x : NAN); }

void fb_export_record(const fb_export_grid *g, const fb_export_cell *c, fb_field *f)
{
    const fb_rs_variant *v = c->v;
    const fb_stats *t = &v->time_ms;
    int i = 0;
    f[i++] = text(g->cs->name);
    f[i++] = text(g->dt->dtype);
    f[i++] = text(g->cs->rows);
    f[i++] = number((double)c->row);
    f[i++] = text(g->cs->cols);
    f[i++] = g->cs->cols ? number((double)c->col) : number(NAN);
    f[i++] = text(c->shape[0] ? c->shape : NULL);
    f[i++] = text(g->variant);
    f[i++] = text(g->baseline);
    f[i++] = text(v->status);
    f[i++] = text(v->reason);
    const double us[] = {t->median, t->min, t->p20, t->p80, t->max, t->mean, t->stdev};
    for (size_t k = 0; k < sizeof us / sizeof us[0]; k++) f[i++] = number(us[k] * 1000.0);
    f[i++] = count(t->n > 0 ? t->n : -1);
    f[i++] = number(fb_rs_speedup(v, c->base));
    f[i++] = number(v->sol_pct);
    f[i++] = number(v->gbps);
    f[i++] = number(v->tflops);
    f[i++] = number(c->cell->ideal_bytes);
    f[i++] = number(c->cell->flops);
    f[i++] = count(v->kernels);
    f[i++] = count(v->kernels_launched); /* --timer cupti: measured, and first start to last end */
    f[i++] = text(v->kernel_names_text);
    f[i++] = number(v->has_span ? v->span_ms.median * 1000.0 : NAN);
    f[i++] = number(v->footprint_bytes);
    f[i++] = number(v->peak_bytes);
    f[i++] = number(v->prepare_ms);
    f[i++] = number(v->metrics[FB_METRIC_DRAM_READ]);
    f[i++] = number(v->metrics[FB_METRIC_DRAM_WRITE]);
    f[i++] = number(v->metrics[FB_METRIC_INST]);
    f[i++] = text(v->check_mode);
    f[i++] = (fb_field){.kind = FB_FIELD_BOOL, .boolean = v->check_passed};
    f[i++] = number(v->max_abs);
    f[i++] = number(v->max_rel);
    f[i++] = count(v->rows_checked);
    f[i++] = count(v->rows_total);
    f[i++] = text(v->unchecked);
    /* the cell's clocks (every measurement of a cell shares them) */
    const fb_rs_cell *cell = c->cell;
    f[i++] = number(cell->clock_before.sm_mhz);
    f[i++] = number(cell->clock_after.sm_mhz);
    f[i++] = number(cell->clock_before.mem_mhz);
    f[i++] = number(cell->clock_after.mem_mhz);
    f[i++] = number(cell->clock_before.temp_c);
    f[i++] = number(cell->clock_after.temp_c);
    f[i++] = number(cell->clock_before.power_w);
    f[i++] = number(cell->clock_after.power_w);
    f[i++] = (fb_field){.kind = FB_FIELD_BOOL, .boolean = cell->has_clocks ? cell->throttled : -1};
    /* the measurement's own clock (clocks.h: the step detector and the probe) */
    f[i++] = number(v->step_pct);
    f[i++] = number(v->sm_clock_min_mhz);
    f[i++] = number(v->sm_clock_mean_mhz);
    f[i++] = text(v->limited_by_text);
    /* run's paired timing (cell.c): the plain op, and the median of t_variant / t_floor over the pairs */
    f[i++] = text(v->paired_floor);
    f[i++] = number(v->paired_ratio);
    f[i++] = text(g->doc->device_name);
    f[i++] = text(g->doc->git);
}

/* ---- writers ------------------------------------------------------------------------------ */

void fb_put_xml(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') fputs("\xEF\xBF\xBD", f); /* U+FFFD */
            else fputc(*p, f);
        }
    }
}

const char *fb_md_escape(const char *s, char *buf, size_t n)
{
    size_t used = 0;
    for (const char *p = s ? s : ""; *p; p++) {
        char tmp[8];
        if (strchr("|\\`*[]", *p)) snprintf(tmp, sizeof tmp, "\\%c", *p);
        else if (*p == '<') snprintf(tmp, sizeof tmp, "&lt;");
        else if (*p == '>') snprintf(tmp, sizeof tmp, "&gt;");
        else if (*p == '&') snprintf(tmp, sizeof tmp, "&amp;");
        else if (*p == '\n' || *p == '\r' || *p == '\t') snprintf(tmp, sizeof tmp, " ");
        else snprintf(tmp, sizeof tmp, "%c", *p);
        size_t len = strlen(tmp);
        if (used + len + 1 > n) break;
        memcpy(buf + used, tmp, len);
        used += len;
    }
    if (n) buf[used] = 0;
    return buf;
}

bool fb_format_number(double x, char *buf, size_t n)
{
    if (!isfinite(x)) {
        if (n) buf[0] = 0;
        return false;
    }
    if (x == floor(x) && fabs(x) < 9007199254740992.0) snprintf(buf, n, "%.0f", x);
    else snprintf(buf, n, "%.9g", x);
    return true;
}
