/* resultset.c — builds the typed read model (resultset.h) from a validated
 * result document.
 *
 * The document has been through fb_result_check, so every level the model reads
 * has the right type where it is present; what the check leaves open (device
 * and settings members, optional numbers) is read defensively: a member of the
 * wrong type reads as absent, never as a crash. The one member the check does
 * not know yet, `samples_us`, is checked here (an array of finite numbers >= 0),
 * with the place named the way result_check.c names it, since a printer or a
 * statistic must never see a NaN or a string there. */
#include "resultset.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "result.h"

/* ---- small readers ---------------------------------------------------------- */

static const char *str_at(const json_t *obj, const char *key) { return json_string_value(json_object_get(obj, key)); }

static double num_at(const json_t *obj, const char *key) { return fb_json_number(obj, key); }

static int64_t int_at(const json_t *obj, const char *key)
{
    const json_t *j = json_object_get(obj, key);
    return json_is_integer(j) ? (int64_t)json_integer_value(j) : -1;
}

/* A string the doc keeps (its path, numbers as text); NULL when out of memory. */
static const char *keep(fb_rs_doc *d, const char *s)
{
    char **more = realloc(d->owned, (size_t)(d->n_owned + 1) * sizeof *more);
    if (!more) return NULL;
    d->owned = more;
    char *copy = strdup(s);
    if (!copy) return NULL;
    d->owned[d->n_owned++] = copy;
    return copy;
}

/* A device fact as text: the file's string, or its number printed plainly
 * (cuBLAS and cuDNN versions are written as integers). NULL when absent. */
static const char *text_at(fb_rs_doc *d, const json_t *obj, const char *key, bool *oom)
{
    const json_t *j = json_object_get(obj, key);
    if (json_is_string(j)) return json_string_value(j);
    char buf[64];
    if (json_is_integer(j)) snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(j));
    else if (json_is_real(j)) snprintf(buf, sizeof buf, "%g", json_real_value(j));
    else return NULL;
    const char *s = keep(d, buf);
    if (!s) *oom = true;
    return s;
}

/* where.variants.eager, or where.variants["softmax.fused"] for a name that is
 * not an identifier: result_check.c's spelling, so messages read alike. */
static void variant_where(char *dst, size_t n, const char *where, const char *name)
{
    char q[96];
    fb_clean(name, q, sizeof q);
    if (fb_is_identifier(name)) snprintf(dst, n, "%s.variants.%s", where, q);
    else snprintf(dst, n, "%s.variants[\"%s\"]", where, q);
}

static fb_status no_memory(const char *path)
{
    fb_error("%s: out of host memory reading the result", fb_qpath(path));
    return FB_E_NOMEM;
}

/* ---- measurements --------------------------------------------------------------- */

/* `where` names the entry in messages: cases[0].dtypes[0].cells[3].variants["softmax.fused"] */
/* An array of finite non-negative numbers (`key` under `where`, for messages) into a malloc'ed
 * *out of *n; none when arr is NULL or empty. */
static fb_status read_reals(const char *path, const char *where, const char *key, const json_t *arr, double **out,
                            int *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!arr) return FB_OK;
    if (!json_is_array(arr)) {
        char d[96];
        fb_error("%s: %s.%s: expected an array, got %s", fb_qpath(path), where, key, fb_json_describe(arr, d, sizeof d));
        return FB_E_CASE;
    }
    size_t n = json_array_size(arr), i;
    if (n == 0) return FB_OK;
    if (n > (size_t)INT32_MAX) {
        fb_error("%s: %s.%s: too many samples (%zu)", fb_qpath(path), where, key, n);
        return FB_E_CASE;
    }
    double *x = malloc(n * sizeof *x);
    if (!x) return no_memory(path);
    json_t *it;
    json_array_foreach(arr, i, it) {
        double y = json_is_number(it) ? json_number_value(it) : NAN;
        if (!isfinite(y) || y < 0) {
            char d[96];
            fb_error("%s: %s.%s[%zu]: expected a finite number >= 0, got %s", fb_qpath(path), where, key, i,
                     fb_json_describe(it, d, sizeof d));
            free(x);
            return FB_E_CASE;
        }
        x[i] = y;
    }
    *out = x;
    *n_out = (int)n;
    return FB_OK;
}

static fb_status read_samples(const char *path, const char *where, const json_t *arr, fb_rs_variant *v)
{
    return read_reals(path, where, "samples_us", arr, &v->samples_us, &v->n_samples);
}

/* The strings of a JSON array joined with "; " into a new string (*out; NULL for an empty
 * array): kernel names and clock-limit reasons as one csv/json field. */
static fb_status join_strings(const char *path, const json_t *arr, const char **out)
{
    *out = NULL;
    size_t i, len = 1;
    const json_t *it;
    if (json_array_size(arr) == 0) return FB_OK;
    json_array_foreach(arr, i, it) len += strlen(json_string_value(it) ?: "") + 2;
    char *text = malloc(len);
    if (!text) return no_memory(path);
    size_t used = 0;
    text[0] = '\0';
    json_array_foreach(arr, i, it) used += (size_t)snprintf(text + used, len - used, "%s%s", i ? "; " : "",
                                                            json_string_value(it) ?: "");
    *out = text;
    return FB_OK;
}

/* "kernels_launched" and "span_ms" (--timer cupti), checked by fb_result_check. */
static fb_status read_kernels(const char *path, const json_t *m, fb_rs_variant *v)
{
    const json_t *span = json_object_get(m, "span_ms");
    fb_stats_from_json(span, &v->span_ms);
    v->has_span = json_is_object(span) && isfinite(v->span_ms.median);
    v->kernels_launched = v->kernels_launched_min = v->kernels_launched_max = -1;
    const json_t *kl = json_object_get(m, "kernels_launched");
    if (!json_is_object(kl)) return FB_OK;
    int64_t k = int_at(kl, "count"), lo = int_at(kl, "count_min"), hi = int_at(kl, "count_max");
    v->kernels_launched = k >= 0 && k <= INT32_MAX ? (int)k : -1;
    v->kernels_launched_min = lo >= 0 && lo <= INT32_MAX ? (int)lo : -1;
    v->kernels_launched_max = hi >= 0 && hi <= INT32_MAX ? (int)hi : -1;
    const json_t *names = json_object_get(kl, "names");
    size_t n = json_array_size(names), i;
    if (n == 0) return FB_OK;
    if (n > (size_t)INT32_MAX) return FB_OK; /* cannot be: a file that large is refused on read */
    v->kernel_names = malloc(n * sizeof *v->kernel_names);
    if (!v->kernel_names) return no_memory(path);
    json_t *it;
    json_array_foreach(names, i, it) v->kernel_names[i] = json_string_value(it);
    v->n_kernel_names = (int)n;
    return join_strings(path, names, &v->kernel_names_text);
}

/* "step_pct" and "sm_clock_mhz" (clocks.h), checked by fb_result_check. */
static fb_status read_clock(const char *path, const json_t *m, fb_rs_variant *v)
{
    v->step_pct = num_at(m, "step_pct");
    const json_t *ck = json_object_get(m, "sm_clock_mhz");
    v->sm_clock_min_mhz = num_at(ck, "min");
    v->sm_clock_mean_mhz = num_at(ck, "mean");
    v->power_limited = fb_clock_power_limited(ck);
    return join_strings(path, json_object_get(ck, "limited_by"), &v->limited_by_text);
}

/* "paired" (cell.c's paired timing), when its status is ok: the floor's name, the pairs' ratio
 * stats (and their median apart) and every pair's ratio. */
static fb_status read_paired(const char *path, const char *where, const json_t *m, fb_rs_variant *v)
{
    const json_t *pj = json_object_get(m, "paired");
    const char *st = json_string_value(json_object_get(pj, "status"));
    const bool ok = st && strcmp(st, "ok") == 0;
    fb_stats_from_json(ok ? json_object_get(pj, "ratio") : NULL, &v->paired_stats);
    v->paired_floor = ok ? json_string_value(json_object_get(pj, "floor")) : NULL;
    v->paired_ratio = ok ? v->paired_stats.median : NAN;
    if (!ok) return FB_OK;
    char w[512];
    snprintf(w, sizeof w, "%s.paired", where);
    return read_reals(path, w, "ratio_samples", json_object_get(pj, "ratio_samples"), &v->paired_samples,
                      &v->n_paired_samples);
}

static fb_status read_measurement(const char *path, const char *where, const char *name, const json_t *m,
                                  fb_rs_variant *v)
{
    memset(v, 0, sizeof *v);
    v->name = name;
    v->status = str_at(m, "status");
    v->reason = str_at(m, "reason");
    const json_t *t = json_object_get(m, "time_ms");
    fb_stats_from_json(t, &v->time_ms);
    v->has_time = json_is_object(t) && isfinite(v->time_ms.median);
    v->gbps = num_at(m, "gbps");
    v->tflops = num_at(m, "tflops");
    v->sol_pct = num_at(m, "sol_pct");
    int64_t k = int_at(m, "kernels");
    v->kernels = k >= 0 && k <= INT32_MAX ? (int)k : -1;
    v->footprint_bytes = num_at(m, "footprint_bytes");
    v->peak_bytes = num_at(m, "peak_bytes");
    v->prepare_ms = num_at(m, "prepare_ms");
    const json_t *ck = json_object_get(m, "check");
    v->check_mode = str_at(ck, "mode");
    const json_t *passed = json_object_get(ck, "passed");
    v->check_passed = json_is_boolean(passed) ? json_is_true(passed) : -1;
    v->max_abs = num_at(ck, "max_abs");
    v->max_rel = num_at(ck, "max_rel");
    v->rows_checked = int_at(ck, "rows_checked");
    v->rows_total = int_at(ck, "rows_total");
    v->unchecked = fb_result_unchecked(m);
    const json_t *mj = json_object_get(m, "metrics");
    for (int i = 0; i < FB_NMETRICS; i++) v->metrics[i] = num_at(mj, fb_metric_table[i].key);
    v->metrics_error = str_at(m, "metrics_error");
    fb_status s = read_paired(path, where, m, v);
    if (s == FB_OK) s = read_kernels(path, m, v);
    if (s == FB_OK) s = read_clock(path, m, v);
    if (s != FB_OK) return s;
    return read_samples(path, where, json_object_get(m, "samples_us"), v);
}

static void free_measurement(fb_rs_variant *v)
{
    free(v->samples_us);
    free(v->paired_samples);
    free(v->kernel_names);
    free((char *)v->kernel_names_text);
    free((char *)v->limited_by_text);
}

/* ---- cells ------------------------------------------------------------------------ */

static fb_status read_cell(const char *path, const char *where, const fb_rs_case *cs, const json_t *j, fb_rs_cell *c)
{
    c->row = int_at(j, "row");
    c->col = cs->cols ? int_at(j, "col") : -1;
    if (cs->n_fixed) { /* its fixed values, and the grid they make (first symbol slowest) */
        c->fixed = calloc((size_t)cs->n_fixed, sizeof *c->fixed);
        if (!c->fixed) return no_memory(path);
        const json_t *pt = json_object_get(j, "point");
        for (int f = 0; f < cs->n_fixed && c->grid >= 0; f++) {
            const fb_rs_fixed *fx = &cs->fixed[f];
            c->fixed[f] = int_at(pt, fx->name);
            int k = 0;
            while (k < fx->n_values && fx->values[k] != c->fixed[f]) k++;
            c->grid = k < fx->n_values ? c->grid * fx->n_values + k : -1;
        }
    }
    c->ideal_bytes = num_at(j, "ideal_bytes");
    c->flops = num_at(j, "flops");
    const json_t *clocks = json_object_get(j, "clocks");
    c->has_clocks = json_is_object(clocks);
    fb_clocks_from_json(clocks, &c->clock_before, &c->clock_after);
    c->throttled = fb_cell_json_throttled(j); /* its clocks fell, or a variant's samples stepped */
    const json_t *shapes = json_object_get(j, "shapes");
    if (json_object_size(shapes)) {
        c->shapes = calloc(json_object_size(shapes), sizeof *c->shapes);
        if (!c->shapes) return no_memory(path);
        const char *name;
        json_t *dims;
        json_object_foreach((json_t *)shapes, name, dims) {
            fb_rs_shape *sh = &c->shapes[c->n_shapes++];
            sh->name = name;
            size_t i;
            json_t *d;
            json_array_foreach(dims, i, d) if (i < FB_MAX_RANK) sh->dim[sh->rank++] = (int64_t)json_integer_value(d);
        }
    }
    char w[512];
    const json_t *sol = json_object_get(j, "sol");
    if (sol) {
        snprintf(w, sizeof w, "%s.sol", where);
        fb_status s = read_measurement(path, w, "sol", sol, &c->sol);
        c->has_sol = 1; /* also when it failed: free_cell releases what it read */
        if (s != FB_OK) return s;
    }
    json_t *vars = json_object_get(j, "variants");
    size_t n = json_object_size(vars);
    c->variants = calloc(n ? n : 1, sizeof *c->variants);
    if (!c->variants) return no_memory(path);
    /* The case's order first, so every cell lists its variants alike; then any
     * the list lacks (a hand-merged file), in the file's order. */
    for (int pass = 0; pass < 2; pass++) {
        const char *name;
        json_t *m;
        if (pass == 0) {
            for (int i = 0; i < cs->n_variants; i++) {
                name = cs->variants[i];
                m = json_object_get(vars, name);
                if (!m) continue;
                variant_where(w, sizeof w, where, name);
                fb_status s = read_measurement(path, w, name, m, &c->variants[c->n_variants++]);
                if (s != FB_OK) return s;
            }
            continue;
        }
        json_object_foreach(vars, name, m) {
            if (fb_rs_case_variant_index(cs, name) >= 0) continue;
            variant_where(w, sizeof w, where, name);
            fb_status s = read_measurement(path, w, name, m, &c->variants[c->n_variants++]);
            if (s != FB_OK) return s;
        }
    }
    return FB_OK;
}

static void free_cell(fb_rs_cell *c)
{
    if (c->has_sol) free_measurement(&c->sol);
    for (int i = 0; i < c->n_variants; i++) free_measurement(&c->variants[i]);
    free(c->variants);
    free(c->shapes);
    free(c->fixed);
}

/* For the sort of by_point: qsort has no context argument in C11. */
static const fb_rs_cell *sort_cells;

static int cmp_point(int ag, int64_t ar, int64_t ac, int bg, int64_t br, int64_t bc)
{
    if (ag != bg) return ag < bg ? -1 : 1;
    if (ar != br) return ar < br ? -1 : 1;
    if (ac != bc) return ac < bc ? -1 : 1;
    return 0;
}

static int cmp_by_point(const void *a, const void *b)
{
    const fb_rs_cell *x = &sort_cells[*(const int *)a], *y = &sort_cells[*(const int *)b];
    return cmp_point(x->grid, x->row, x->col, y->grid, y->row, y->col);
}

static fb_status read_dtype(const char *path, const char *where, const fb_rs_case *cs, const json_t *j,
                            fb_rs_dtype *d)
{
    d->dtype = str_at(j, "dtype");
    json_t *cells = json_object_get(j, "cells");
    size_t n = json_array_size(cells), i;
    d->cells = calloc(n ? n : 1, sizeof *d->cells);
    d->by_point = calloc(n ? n : 1, sizeof *d->by_point);
    if (!d->cells || !d->by_point) return no_memory(path);
    json_t *it;
    char w[512];
    json_array_foreach(cells, i, it) {
        snprintf(w, sizeof w, "%s.cells[%zu]", where, i);
        d->n_cells++; /* counted first, so that a failure frees what this cell allocated */
        fb_status s = read_cell(path, w, cs, it, &d->cells[i]);
        if (s != FB_OK) return s;
        d->by_point[i] = (int)i;
    }
    sort_cells = d->cells;
    qsort(d->by_point, (size_t)d->n_cells, sizeof *d->by_point, cmp_by_point);
    sort_cells = NULL;
    return FB_OK;
}

static void free_dtype(fb_rs_dtype *d)
{
    for (int i = 0; i < d->n_cells; i++) free_cell(&d->cells[i]);
    free(d->cells);
    free(d->by_point);
}

/* ---- cases -------------------------------------------------------------------------- */

static fb_status read_values(const char *path, const json_t *arr, int64_t **out, int *n)
{
    size_t len = json_array_size(arr), i;
    *out = calloc(len ? len : 1, sizeof **out);
    if (!*out) return no_memory(path);
    json_t *it;
    json_array_foreach(arr, i, it) (*out)[i] = (int64_t)json_integer_value(it);
    *n = (int)len;
    return FB_OK;
}

static fb_status read_case(const char *path, size_t index, const json_t *j, fb_rs_case *c)
{
    c->n_grids = 1;
    const json_t *fixed = json_object_get(j, "fixed");
    if (json_object_size(fixed)) {
        c->fixed = calloc(json_object_size(fixed), sizeof *c->fixed);
        if (!c->fixed) return no_memory(path);
        const char *key;
        json_t *vals;
        json_object_foreach((json_t *)fixed, key, vals) {
            fb_rs_fixed *fx = &c->fixed[c->n_fixed++];
            fx->name = key;
            fb_status s = read_values(path, vals, &fx->values, &fx->n_values);
            if (s != FB_OK) return s;
            c->n_grids *= fx->n_values;
        }
    }
    c->name = str_at(j, "name");
    c->summary = str_at(j, "summary");
    c->file = str_at(j, "file");
    c->rows = str_at(j, "rows");
    c->cols = str_at(j, "cols");
    c->baseline = str_at(j, "baseline");
    fb_status s = read_values(path, json_object_get(j, "row_values"), &c->row_values, &c->n_rows);
    if (s != FB_OK) return s;
    if (c->cols) {
        s = read_values(path, json_object_get(j, "col_values"), &c->col_values, &c->n_cols);
        if (s != FB_OK) return s;
    }
    json_t *vars = json_object_get(j, "variants");
    size_t nv = json_array_size(vars), i;
    c->variants = calloc(nv ? nv : 1, sizeof *c->variants);
    if (!c->variants) return no_memory(path);
    json_t *it;
    json_array_foreach(vars, i, it) c->variants[i] = json_string_value(it);
    c->n_variants = (int)nv;

    json_t *dtypes = json_object_get(j, "dtypes");
    size_t nd = json_array_size(dtypes);
    c->dtypes = calloc(nd ? nd : 1, sizeof *c->dtypes);
    if (!c->dtypes) return no_memory(path);
    char w[512];
    json_array_foreach(dtypes, i, it) {
        snprintf(w, sizeof w, "cases[%zu].dtypes[%zu]", index, i);
        c->n_dtypes++;
        s = read_dtype(path, w, c, it, &c->dtypes[i]);
        if (s != FB_OK) return s;
    }
    return FB_OK;
}

static void free_case(fb_rs_case *c)
{
    for (int i = 0; i < c->n_dtypes; i++) free_dtype(&c->dtypes[i]);
    free(c->dtypes);
    free(c->variants);
    free(c->row_values);
    free(c->col_values);
    for (int f = 0; f < c->n_fixed; f++) free(c->fixed[f].values);
    free(c->fixed);
}

/* ---- the document ----------------------------------------------------------------------- */

static fb_status build(const char *path, fb_rs_doc *d)
{
    const json_t *root = d->json;
    bool oom = false;
    d->path = keep(d, path);
    oom |= !d->path;
    const json_t *tag = json_object_get(root, "fusionbench");
    d->version = str_at(tag, "version");
    d->git = str_at(tag, "git");
    d->started = str_at(root, "started");
    d->finished = str_at(root, "finished");
    d->host = str_at(root, "host");
    d->command = str_at(root, "command");
    d->n_resumed = (int)json_array_size(json_object_get(root, "resumed"));

    const json_t *dev = json_object_get(root, "device");
    d->device_name = str_at(dev, "name");
    d->cc = text_at(d, dev, "cc", &oom);
    d->driver = text_at(d, dev, "driver", &oom);
    d->runtime = text_at(d, dev, "runtime", &oom);
    d->cublas = text_at(d, dev, "cublas", &oom);
    d->cudnn = text_at(d, dev, "cudnn", &oom);
    int64_t sms = int_at(dev, "sms");
    d->sms = sms >= 0 && sms <= INT32_MAX ? (int)sms : -1;
    d->l2_bytes = num_at(dev, "l2_bytes");
    d->mem_bytes = num_at(dev, "mem_bytes");
    d->sm_clock_mhz = num_at(dev, "sm_clock_mhz");
    d->mem_clock_mhz = num_at(dev, "mem_clock_mhz");
    d->bus_width_bits = num_at(dev, "bus_width_bits");

    const json_t *set = json_object_get(root, "settings");
    d->timer = str_at(set, "timer");
    d->warmup_ms = num_at(set, "warmup_ms");
    d->rep_ms = num_at(set, "rep_ms");
    d->max_noise_pct = num_at(set, "max_noise_pct");
    d->max_wall_s = num_at(set, "max_wall_s");
    d->flush_bytes = num_at(set, "flush_bytes");
    d->flush = str_at(set, "flush");
    d->tf32 = json_is_true(json_object_get(set, "tf32"));
    int64_t seed = int_at(set, "seed");
    d->seed = seed >= 0 && seed <= (int64_t)0x7fffffffL ? (long)seed : -1;
    if (oom) return no_memory(path);

    json_t *cases = json_object_get(root, "cases");
    size_t n = json_array_size(cases), i;
    d->cases = calloc(n ? n : 1, sizeof *d->cases);
    if (!d->cases) return no_memory(path);
    json_t *it;
    json_array_foreach(cases, i, it) {
        d->n_cases++;
        fb_status s = read_case(path, i, it, &d->cases[i]);
        if (s != FB_OK) return s;
    }
    return FB_OK;
}

fb_status fb_rs_from_json(json_t *doc, const char *path, fb_rs_doc *out)
{
    memset(out, 0, sizeof *out);
    fb_status s = fb_result_check(doc, path);
    if (s != FB_OK) return s;
    out->json = json_incref(doc);
    s = build(path, out);
    if (s != FB_OK) fb_rs_free(out);
    return s;
}

fb_status fb_rs_load(const char *path, fb_rs_doc *out)
{
    memset(out, 0, sizeof *out);
    json_t *root;
    fb_status s = fb_result_read(path, &root);
    if (s != FB_OK) return s;
    out->json = root; /* the reference fb_result_read gave us */
    s = build(path, out);
    if (s != FB_OK) fb_rs_free(out);
    return s;
}

void fb_rs_free(fb_rs_doc *d)
{
    for (int i = 0; i < d->n_cases; i++) free_case(&d->cases[i]);
    free(d->cases);
    for (int i = 0; i < d->n_owned; i++) free(d->owned[i]);
    free(d->owned);
    json_decref(d->json);
    memset(d, 0, sizeof *d);
}

/* ---- lookups ------------------------------------------------------------------------------ */

const fb_rs_variant *fb_rs_find_variant(const fb_rs_cell *c, const char *name)
{
    if (!c || !name) return NULL;
    for (int i = 0; i < c->n_variants; i++)
        if (strcmp(c->variants[i].name, name) == 0) return &c->variants[i];
    return NULL;
}

const fb_rs_cell *fb_rs_find_cell(const fb_rs_dtype *d, int64_t row, int64_t col)
{
    return fb_rs_find_cell_in(d, 0, row, col);
}

const fb_rs_cell *fb_rs_find_cell_in(const fb_rs_dtype *d, int grid, int64_t row, int64_t col)
{
    if (!d) return NULL;
    int lo = 0, hi = d->n_cells - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        const fb_rs_cell *c = &d->cells[d->by_point[mid]];
        int k = cmp_point(c->grid, c->row, c->col, grid, row, col);
        if (k == 0) return c;
        if (k < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

int64_t fb_rs_grid_value(const fb_rs_case *c, int grid, int f)
{
    for (int k = c->n_fixed - 1; k > f; k--) grid /= c->fixed[k].n_values;
    return c->fixed[f].values[grid % c->fixed[f].n_values];
}

const char *fb_rs_grid_label(const fb_rs_case *c, int grid, char *buf, size_t n)
{
    size_t used = 0;
    if (n) buf[0] = 0;
    for (int f = 0; f < c->n_fixed && used < n; f++) {
        int w = snprintf(buf + used, n - used, "%s%s=%lld", f ? " " : "", c->fixed[f].name,
                         (long long)fb_rs_grid_value(c, grid, f));
        if (w > 0) used += (size_t)w;
    }
    return buf;
}

fb_status fb_rs_refuse_fixed(const fb_rs_doc *doc, const char *only, const char *what)
{
    for (int i = 0; i < doc->n_cases; i++) {
        const fb_rs_case *c = &doc->cases[i];
        if (!c->n_fixed || (only && strcmp(only, c->name) != 0)) continue;
        char q[96];
        fb_error("%s: cases[%d] ('%s') has fixed size symbols (one grid per value); %s does not read such cases yet",
                 fb_qpath(doc->path), i, fb_clean(c->name, q, sizeof q), what);
        return FB_E_USAGE;
    }
    return FB_OK;
}

const fb_rs_case *fb_rs_find_case(const fb_rs_doc *doc, const char *name)
{
    if (!doc || !name) return NULL;
    for (int i = 0; i < doc->n_cases; i++)
        if (strcmp(doc->cases[i].name, name) == 0) return &doc->cases[i];
    return NULL;
}

const fb_rs_dtype *fb_rs_find_dtype(const fb_rs_case *c, const char *dtype)
{
    if (!c || !dtype) return NULL;
    fb_dtype canon;
    const char *want = fb_dtype_from_name(dtype, &canon) == 0 ? fb_dtype_name(canon) : dtype;
    for (int i = 0; i < c->n_dtypes; i++)
        if (strcmp(c->dtypes[i].dtype, want) == 0) return &c->dtypes[i];
    return NULL;
}

int fb_rs_case_variant_index(const fb_rs_case *c, const char *name)
{
    for (int i = 0; c && name && i < c->n_variants; i++)
        if (strcmp(c->variants[i], name) == 0) return i;
    return -1;
}

int fb_rs_is_timed(const fb_rs_variant *v)
{
    return v && v->status && strcmp(v->status, "ok") == 0 && v->has_time;
}

double fb_rs_speedup(const fb_rs_variant *variant, const fb_rs_variant *baseline)
{
    if (!fb_rs_is_timed(variant) || !fb_rs_is_timed(baseline) || !(variant->time_ms.median > 0)) return NAN;
    return baseline->time_ms.median / variant->time_ms.median;
}
