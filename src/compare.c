/* compare.c — matching two result files (or two variants of one run) cell by cell and
 * holding each pair against each other (compare.h says what the gate means). */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRY(expr)                           \
    do {                                    \
        fb_status try_s_ = (expr);          \
        if (try_s_ != FB_OK) return try_s_; \
    } while (0)

/* ---- growing the report ---------------------------------------------------------- */

static fb_status no_memory(void)
{
    fb_error("out of host memory comparing results");
    return FB_E_NOMEM;
}

static fb_status push_item(fb_cmp_report *r, const fb_cmp_item *it)
{
    if ((r->n_items & (r->n_items - 1)) == 0) { /* 0, 1, 2, 4, ...: double */
        size_t cap = r->n_items ? 2 * (size_t)r->n_items : 16;
        fb_cmp_item *more = realloc(r->items, cap * sizeof *more);
        if (!more) return no_memory();
        r->items = more;
    }
    r->items[r->n_items++] = *it;
    return FB_OK;
}

static fb_status push_only(fb_cmp_report *r, const fb_cmp_only *o)
{
    if ((r->n_only & (r->n_only - 1)) == 0) {
        size_t cap = r->n_only ? 2 * (size_t)r->n_only : 16;
        fb_cmp_only *more = realloc(r->only, cap * sizeof *more);
        if (!more) return no_memory();
        r->only = more;
    }
    r->only[r->n_only++] = *o;
    if (o->side) r->n_only_new++;
    else r->n_only_base++;
    return FB_OK;
}

void fb_cmp_report_free(fb_cmp_report *r)
{
    free(r->items);
    free(r->only);
    memset(r, 0, sizeof *r);
}

/* ---- the filters -------------------------------------------------------------------- */

static int listed(const fb_strlist *l, const char *name)
{
    if (!l || !l->n) return 1;
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->item[i], name) == 0) return 1;
    return 0;
}

/* A dtype of the file (canonical name) against --dtype's items (aliases allowed). */
static int dtype_listed(const fb_strlist *l, const char *dtype)
{
    if (!l || !l->n) return 1;
    for (int i = 0; i < l->n; i++) {
        fb_dtype d;
        if (fb_dtype_from_name(l->item[i], &d) == 0 && strcmp(fb_dtype_name(d), dtype) == 0) return 1;
    }
    return 0;
}

/* Names for "did you mean", gathered over the docs' cases (the first MAX_NAMES distinct
 * ones: enough for a suggestion; whether a name exists is asked of the docs themselves).
 * what: 0 case names, 1 variant names. */
enum { MAX_NAMES = 256 };
static int gather(const fb_rs_doc *const *docs, int n_docs, int what, const char **names)
{
    int n = 0;
    for (int d = 0; d < n_docs; d++)
        for (int c = 0; c < docs[d]->n_cases; c++) {
            const fb_rs_case *k = &docs[d]->cases[c];
            int m = what == 0 ? 1 : k->n_variants;
            for (int v = 0; v < m; v++) {
                const char *s = what == 0 ? k->name : k->variants[v];
                int seen = 0;
                for (int i = 0; i < n && !seen; i++) seen = strcmp(names[i], s) == 0;
                if (!seen && n < MAX_NAMES) names[n++] = s;
            }
        }
    return n;
}

/* Does a doc have a case of this name (what 0), or a case listing this variant (what 1)? */
static int exists(const fb_rs_doc *const *docs, int n_docs, int what, const char *name)
{
    for (int d = 0; d < n_docs; d++)
        for (int c = 0; c < docs[d]->n_cases; c++) {
            const fb_rs_case *k = &docs[d]->cases[c];
            if (what == 0 ? strcmp(k->name, name) == 0 : fb_rs_case_variant_index(k, name) >= 0) return 1;
        }
    return 0;
}

/* "BASE or NEW", or "the run" */
static const char *sides_name(int n_docs) { return n_docs == 1 ? "the run" : "BASE or NEW"; }

static fb_status check_filter(const fb_cmp_filter *f, const fb_rs_doc *const *docs, int n_docs, int check_variants)
{
    const char *names[MAX_NAMES];
    char q[256], sg[160];
    if (f->cases) {
        for (int i = 0; i < f->cases->n; i++) {
            const char *want = f->cases->item[i];
            if (!exists(docs, n_docs, 0, want)) {
                int n = gather(docs, n_docs, 0, names);
                fb_error("--case: no case '%s' in %s%s", fb_opt_quote(want, q, sizeof q), sides_name(n_docs),
                         fb_suggest("", want, names, n, sg, sizeof sg));
                return FB_E_USAGE;
            }
        }
    }
    if (f->dtypes) {
        static const char *const dnames[] = {"float32", "float16", "bfloat16", "float64"};
        for (int i = 0; i < f->dtypes->n; i++) {
            const char *want = f->dtypes->item[i];
            fb_dtype d;
            if (fb_dtype_from_name(want, &d) != 0) {
                fb_error("--dtype: unknown dtype '%s'%s", fb_opt_quote(want, q, sizeof q),
                         fb_suggest("", want, dnames, 4, sg, sizeof sg));
                return FB_E_USAGE;
            }
            int found = 0;
            for (int k = 0; k < n_docs && !found; k++)
                for (int c = 0; c < docs[k]->n_cases && !found; c++)
                    if (listed(f->cases, docs[k]->cases[c].name))
                        found = fb_rs_find_dtype(&docs[k]->cases[c], fb_dtype_name(d)) != NULL;
            if (!found) {
                fb_error("--dtype: no %s results in %s%s", fb_dtype_name(d), sides_name(n_docs),
                         f->cases && f->cases->n ? " for the cases selected" : "");
                return FB_E_USAGE;
            }
        }
    }
    if (check_variants && f->variants) {
        for (int i = 0; i < f->variants->n; i++) {
            const char *want = f->variants->item[i];
            if (!exists(docs, n_docs, 1, want)) {
                int n = gather(docs, n_docs, 1, names);
                fb_error("--variants: no variant '%s' in %s%s", fb_opt_quote(want, q, sizeof q), sides_name(n_docs),
                         fb_suggest("", want, names, n, sg, sizeof sg));
                return FB_E_USAGE;
            }
        }
    }
    return FB_OK;
}

/* ---- devices ------------------------------------------------------------------------ */

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

fb_status fb_compare_check_devices(const fb_rs_doc *base, const fb_rs_doc *new_)
{
    if (same_text(base->device_name, new_->device_name) && same_text(base->cc, new_->cc)) return FB_OK;
    char a[160], b[160];
    fb_error("BASE %s ran on %s (cc %s), NEW %s on %s (cc %s): timings from different devices do not compare; "
             "--allow-device-mismatch compares them anyway",
             fb_qpath(base->path), fb_clean(base->device_name ? base->device_name : "an unknown device", a, sizeof a),
             base->cc ? base->cc : "?", fb_qpath(new_->path),
             fb_clean(new_->device_name ? new_->device_name : "an unknown device", b, sizeof b),
             new_->cc ? new_->cc : "?");
    return FB_E_USAGE;
}

/* ---- one pair ------------------------------------------------------------------------ */

static fb_stats stats_us(const fb_stats *ms)
{
    fb_stats s = *ms;
    s.min *= 1e3, s.p20 *= 1e3, s.median *= 1e3, s.p80 *= 1e3, s.max *= 1e3, s.mean *= 1e3, s.stdev *= 1e3;
    return s;
}

static int failed_check(const fb_rs_variant *v)
{
    return (v->status && strcmp(v->status, "fail") == 0) || v->check_passed == 0;
}

/* A compared item: the bootstrap over both sides' samples where both have them, else the p20/p80
 * rule on their recorded stats; counted in the report. */
static fb_status compare_measured(fb_cmp_report *r, fb_cmp_item *it, const double *base, int n_base,
                                  const double *new_, int n_new, const fb_stats *base_stats,
                                  const fb_stats *new_stats)
{
    fb_compare_result *c = &it->r;
    it->kind = FB_CMP_COMPARED;
    if (n_base > 0 && n_new > 0) TRY(fb_compare_samples(base, n_base, new_, n_new, &r->opts, c));
    else fb_compare_quantiles(base_stats, new_stats, r->opts.threshold, c);
    if (c->method == FB_CI_QUANTILES) r->n_quantile_rule++;
    if (c->method == FB_CI_NONE) r->n_no_interval++;
    r->verdicts[c->verdict]++;
    return FB_OK;
}

/* compare --paired: the pairs' ratios t_variant / t_floor of each side, as compare_pair holds
 * times (the bootstrap over every pair's ratio, the p20/p80 rule without them). */
static fb_status compare_paired(fb_cmp_report *r, fb_cmp_item *it)
{
    const fb_rs_variant *b = it->base, *n = it->new_;
    fb_compare_result *c = &it->r;
    c->base_median = b->paired_ratio, c->n_base = b->paired_stats.n;
    c->new_median = n->paired_ratio, c->n_new = n->paired_stats.n;
    c->ratio = c->base_median > 0 && c->new_median > 0 ? c->new_median / c->base_median : NAN;
    if (!b->paired_floor || !n->paired_floor) {
        it->kind = FB_CMP_UNTIMED;
        it->note = "not timed in pairs on both sides";
        r->n_untimed++;
        return FB_OK;
    }
    if (strcmp(b->paired_floor, n->paired_floor) != 0) it->note = "the two sides were paired with different floors";
    return compare_measured(r, it, b->paired_samples, b->n_paired_samples, n->paired_samples, n->n_paired_samples,
                            &b->paired_stats, &n->paired_stats);
}

static fb_status compare_pair(fb_cmp_report *r, fb_cmp_item *it)
{
    const fb_rs_variant *b = it->base, *n = it->new_;
    fb_compare_result *c = &it->r;
    *c = (fb_compare_result){.ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .base_median = NAN, .new_median = NAN,
                             .method = FB_CI_NONE, .verdict = FB_VERDICT_NOISY};
    if (b->has_time) c->base_median = b->time_ms.median * 1e3, c->n_base = b->time_ms.n;
    if (n->has_time) c->new_median = n->time_ms.median * 1e3, c->n_new = n->time_ms.n;
    if (c->base_median > 0 && c->new_median > 0) c->ratio = c->new_median / c->base_median;

    if (failed_check(n)) {
        it->kind = FB_CMP_FAILED;
        r->n_failed++;
        return FB_OK;
    }
    if (r->paired) return compare_paired(r, it);
    if (!fb_rs_is_timed(b) || !fb_rs_is_timed(n)) {
        it->kind = FB_CMP_UNTIMED;
        r->n_untimed++;
        return FB_OK;
    }
    const fb_stats sb = stats_us(&b->time_ms), sn = stats_us(&n->time_ms);
    return compare_measured(r, it, b->samples_us, b->n_samples, n->samples_us, n->n_samples, &sb, &sn);
}

static void item_at(fb_cmp_item *it, const fb_rs_case *k, const fb_rs_dtype *d, const fb_rs_cell *cell)
{
    memset(it, 0, sizeof *it);
    it->kase = k;
    it->dtype = d->dtype;
    it->row = cell->row;
    it->col = cell->col;
    it->grid = cell->grid;
}

static fb_cmp_only only_at(int side, const fb_rs_case *k, const fb_rs_dtype *d, const fb_rs_cell *cell,
                           const char *variant)
{
    fb_cmp_only o = {.side = side, .case_name = k->name, .kase = k, .rows = k->rows, .cols = k->cols};
    if (d) o.dtype = d->dtype;
    if (cell) o.has_cell = 1, o.row = cell->row, o.col = cell->col, o.grid = cell->grid;
    o.variant = variant;
    return o;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- two files ------------------------------------------------------------------------ */

/* The cell of `dto` (case `ko` of the other file) at `cell`'s point: the same row and
 * col, and for a case with fixed size symbols the same value of each symbol, found by
 * name and value (the other run may list other values, or in another order, so its grid
 * indices need not be ours). NULL when the other case lacks a symbol or value, or has
 * symbols this one lacks: such cells are only on one side. */
static const fb_rs_cell *matching_cell(const fb_rs_case *k, const fb_rs_cell *cell, const fb_rs_case *ko,
                                       const fb_rs_dtype *dto)
{
    if (!k->n_fixed && !ko->n_fixed) return fb_rs_find_cell(dto, cell->row, cell->col);
    if (k->n_fixed != ko->n_fixed || !cell->fixed) return NULL;
    int g = 0;
    for (int f = 0; f < ko->n_fixed; f++) {
        int fk = -1, vi = -1;
        for (int j = 0; j < k->n_fixed && fk < 0; j++)
            if (strcmp(k->fixed[j].name, ko->fixed[f].name) == 0) fk = j;
        if (fk < 0) return NULL;
        for (int j = 0; j < ko->fixed[f].n_values && vi < 0; j++)
            if (ko->fixed[f].values[j] == cell->fixed[fk]) vi = j;
        if (vi < 0) return NULL;
        g = g * ko->fixed[f].n_values + vi; /* grid order: the first symbol slowest */
    }
    return fb_rs_find_cell_in(dto, g, cell->row, cell->col);
}

/* What `have` holds and `other` lacks, as "only in" entries of `side` (the variant
 * filter applies; cells whose selected variants all exist on both sides add nothing). */
static fb_status only_side(fb_cmp_report *r, const fb_rs_doc *have, const fb_rs_doc *other, int side,
                           const fb_cmp_filter *f)
{
    for (int c = 0; c < have->n_cases; c++) {
        const fb_rs_case *k = &have->cases[c];
        if (!listed(f->cases, k->name)) continue;
        const fb_rs_case *ko = fb_rs_find_case(other, k->name);
        if (!ko) { /* the whole case, when it holds a dtype selected */
            int any = 0;
            for (int d = 0; d < k->n_dtypes; d++) any |= dtype_listed(f->dtypes, k->dtypes[d].dtype);
            fb_cmp_only o = only_at(side, k, NULL, NULL, NULL);
            if (any) TRY(push_only(r, &o));
            continue;
        }
        for (int d = 0; d < k->n_dtypes; d++) {
            const fb_rs_dtype *dt = &k->dtypes[d];
            if (!dtype_listed(f->dtypes, dt->dtype)) continue;
            const fb_rs_dtype *dto = fb_rs_find_dtype(ko, dt->dtype);
            if (!dto) {
                fb_cmp_only o = only_at(side, k, dt, NULL, NULL);
                TRY(push_only(r, &o));
                continue;
            }
            for (int i = 0; i < dt->n_cells; i++) {
                const fb_rs_cell *cell = &dt->cells[i];
                const fb_rs_cell *co = matching_cell(k, cell, ko, dto);
                if (!co) {
                    fb_cmp_only o = only_at(side, k, dt, cell, NULL);
                    TRY(push_only(r, &o));
                    continue;
                }
                for (int v = 0; v < cell->n_variants; v++) {
                    const char *name = cell->variants[v].name;
                    if (!listed(f->variants, name) || fb_rs_find_variant(co, name)) continue;
                    fb_cmp_only o = only_at(side, k, dt, cell, name);
                    TRY(push_only(r, &o));
                }
            }
        }
    }
    return FB_OK;
}

static void report_init(fb_cmp_report *out, const fb_rs_doc *base, const fb_rs_doc *new_, const fb_compare_opts *o,
                        int paired)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->new_ = new_;
    out->opts = *o;
    out->paired = paired;
    out->sol_ratio = NAN;
}

int fb_cmp_selected(const fb_cmp_report *r, const char *case_name, const char *dtype, const char *variant)
{
    if (!listed(r->filter.cases, case_name) || !dtype_listed(r->filter.dtypes, dtype)) return 0;
    if (r->variants_mode) return strcmp(variant, r->variant_a) == 0 || strcmp(variant, r->variant_b) == 0;
    return listed(r->filter.variants, variant);
}

fb_status fb_compare_files(const fb_rs_doc *base, const fb_rs_doc *new_, const fb_cmp_filter *f,
                           const fb_compare_opts *o, int paired, fb_cmp_report *out)
{
    report_init(out, base, new_, o, paired);
    out->filter = *f;
    const fb_rs_doc *docs[2] = {base, new_};
    TRY(check_filter(f, docs, 2, 1));
    out->device_mismatch = !same_text(base->device_name, new_->device_name) || !same_text(base->cc, new_->cc);

    double *sol = NULL;
    int n_sol = 0, cap_sol = 0;
    fb_status s = FB_OK;
    for (int c = 0; s == FB_OK && c < new_->n_cases; c++) {
        const fb_rs_case *k = &new_->cases[c];
        const fb_rs_case *kb = fb_rs_find_case(base, k->name);
        if (!listed(f->cases, k->name) || !kb) continue;
        for (int d = 0; s == FB_OK && d < k->n_dtypes; d++) {
            const fb_rs_dtype *dt = &k->dtypes[d];
            const fb_rs_dtype *dtb = fb_rs_find_dtype(kb, dt->dtype);
            if (!dtype_listed(f->dtypes, dt->dtype) || !dtb) continue;
            for (int i = 0; s == FB_OK && i < dt->n_cells; i++) {
                const fb_rs_cell *cell = &dt->cells[i];
                const fb_rs_cell *cb = matching_cell(k, cell, kb, dtb);
                if (!cb) continue;
                const char *note = NULL;
                if (isfinite(cell->ideal_bytes) && isfinite(cb->ideal_bytes) && cell->ideal_bytes != cb->ideal_bytes)
                    note = "the ideal bytes differ: the case's program changed";
                if (cell->has_sol && cb->has_sol && fb_rs_is_timed(&cell->sol) && fb_rs_is_timed(&cb->sol) &&
                    cb->sol.time_ms.median > 0) {
                    if (n_sol == cap_sol) {
                        cap_sol = cap_sol ? 2 * cap_sol : 64;
                        double *more = realloc(sol, (size_t)cap_sol * sizeof *more);
                        if (!more) {
                            s = no_memory();
                            break;
                        }
                        sol = more;
                    }
                    sol[n_sol++] = cell->sol.time_ms.median / cb->sol.time_ms.median;
                }
                for (int v = 0; s == FB_OK && v < cell->n_variants; v++) {
                    const fb_rs_variant *nv = &cell->variants[v];
                    const fb_rs_variant *bv = fb_rs_find_variant(cb, nv->name);
                    if (!listed(f->variants, nv->name) || !bv) continue;
                    fb_cmp_item it;
                    item_at(&it, k, dt, cell);
                    it.base_variant = it.new_variant = nv->name;
                    it.base = bv;
                    it.new_ = nv;
                    it.note = note;
                    s = compare_pair(out, &it);
                    if (s == FB_OK) s = push_item(out, &it);
                }
            }
        }
    }
    if (s == FB_OK && n_sol) {
        qsort(sol, (size_t)n_sol, sizeof *sol, cmp_double);
        out->sol_ratio = fb_quantile_sorted(sol, n_sol, 0.5);
        out->n_sol = n_sol;
    }
    free(sol);
    if (s == FB_OK) s = only_side(out, base, new_, 0, f);
    if (s == FB_OK) s = only_side(out, new_, base, 1, f);
    if (s != FB_OK) fb_cmp_report_free(out);
    return s;
}

/* ---- two variants of one run ------------------------------------------------------------ */

fb_status fb_compare_variants(const fb_rs_doc *run, const char *a, const char *b, const fb_cmp_filter *f,
                              const fb_compare_opts *o, int paired, fb_cmp_report *out)
{
    report_init(out, run, run, o, paired);
    out->variants_mode = 1;
    out->variant_a = a;
    out->variant_b = b;
    const fb_rs_doc *docs[1] = {run};
    fb_cmp_filter ff = *f;
    ff.variants = NULL;
    out->filter = ff;
    TRY(check_filter(&ff, docs, 1, 0));
    if (strcmp(a, b) == 0) {
        char q[256];
        fb_error("--variants: give two different variants, A,B (got '%s' twice)", fb_opt_quote(a, q, sizeof q));
        return FB_E_USAGE;
    }
    const char *ab[2] = {a, b};
    for (int i = 0; i < 2; i++)
        if (!exists(docs, 1, 1, ab[i])) {
            const char *names[MAX_NAMES];
            int n_names = gather(docs, 1, 1, names);
            char q[256], sg[160];
            fb_error("--variants: no variant '%s' in %s%s", fb_opt_quote(ab[i], q, sizeof q), fb_qpath(run->path),
                     fb_suggest("", ab[i], names, n_names, sg, sizeof sg));
            return FB_E_USAGE;
        }

    fb_status s = FB_OK;
    for (int c = 0; s == FB_OK && c < run->n_cases; c++) {
        const fb_rs_case *k = &run->cases[c];
        if (!listed(f->cases, k->name)) continue;
        int has_a = fb_rs_case_variant_index(k, a) >= 0, has_b = fb_rs_case_variant_index(k, b) >= 0;
        if (!has_a && !has_b) continue; /* another case: neither variant is its */
        if (!has_a || !has_b) {
            fb_cmp_only on = only_at(has_b, k, NULL, NULL, NULL);
            s = push_only(out, &on);
            continue;
        }
        for (int d = 0; s == FB_OK && d < k->n_dtypes; d++) {
            const fb_rs_dtype *dt = &k->dtypes[d];
            if (!dtype_listed(f->dtypes, dt->dtype)) continue;
            for (int i = 0; s == FB_OK && i < dt->n_cells; i++) {
                const fb_rs_cell *cell = &dt->cells[i];
                const fb_rs_variant *va = fb_rs_find_variant(cell, a), *vb = fb_rs_find_variant(cell, b);
                if (!va && !vb) continue;
                if (!va || !vb) {
                    fb_cmp_only on = only_at(vb != NULL, k, dt, cell, va ? a : b);
                    s = push_only(out, &on);
                    continue;
                }
                fb_cmp_item it;
                item_at(&it, k, dt, cell);
                it.base_variant = a;
                it.new_variant = b;
                it.base = va;
                it.new_ = vb;
                s = compare_pair(out, &it);
                if (s == FB_OK) s = push_item(out, &it);
            }
        }
    }
    if (s != FB_OK) fb_cmp_report_free(out);
    return s;
}

/* ---- reading the report ------------------------------------------------------------------ */

int fb_cmp_report_regressed(const fb_cmp_report *r) { return r->verdicts[FB_VERDICT_SLOWER] > 0 || r->n_failed > 0; }

const char *fb_cmp_item_label(const fb_cmp_item *it)
{
    if (it->kind == FB_CMP_FAILED) return "FAIL";
    if (it->kind == FB_CMP_UNTIMED) return "UNTIMED";
    return fb_verdict_name(it->r.verdict);
}

/* failed, SLOWER, NOISY, FASTER, SAME, untimed */
static int rank(const fb_cmp_item *it)
{
    if (it->kind == FB_CMP_FAILED) return 0;
    if (it->kind == FB_CMP_UNTIMED) return 1 + FB_NVERDICTS;
    return 1 + (int)it->r.verdict;
}

static const fb_cmp_report *g_sorting;

static int cmp_order(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    const fb_cmp_item *x = &g_sorting->items[a], *y = &g_sorting->items[b];
    int rx = rank(x), ry = rank(y);
    if (rx != ry) return rx - ry;
    if (x->kind == FB_CMP_COMPARED && x->r.verdict == FB_VERDICT_SLOWER && x->r.ratio != y->r.ratio)
        return x->r.ratio > y->r.ratio ? -1 : 1;
    return a - b;
}

int *fb_cmp_report_order(const fb_cmp_report *r)
{
    if (r->n_items <= 0) return NULL;
    int *idx = malloc((size_t)r->n_items * sizeof *idx);
    if (!idx) return NULL;
    for (int i = 0; i < r->n_items; i++) idx[i] = i;
    g_sorting = r; /* qsort has no context argument in C11; the driver is single-threaded */
    qsort(idx, (size_t)r->n_items, sizeof *idx, cmp_order);
    g_sorting = NULL;
    return idx;
}
