/* check.c — correctness: the float64 reference of a cell and the comparison of
 * a variant's device outputs against it.
 *
 * The reference is computed once per cell from the inputs as they are on the
 * device (already rounded to the storage dtype), so every variant is judged on
 * exactly the numbers it read. Small cells are checked in full. Large cells of
 * a program the row plan can split (program.h, rowplan.c) are checked on a
 * deterministic sample of rows — always the first and the last, the rest spread
 * by a fixed hash — sized so the check stays cheap. A cell too large to check in
 * full whose program cannot be split is *unchecked*: it never passes, and says
 * why. A cell passes when |got - want| <= atol + rtol*|want| for every checked
 * element; NaN never passes. */
#include "check.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "ops/op_table.h"

#define MAX_SAMPLED_ROWS 16384

struct fb_reference {
    const fb_case *c;
    fb_shape shapes[FB_MAX_VALUES];
    fb_dtype dtype;
    fb_check_mode mode;
    char why[320];
    fb_rowplan rp;            /* sampled mode */
    int64_t n_rows;           /* sampled: rows checked */
    int64_t *rows;            /* sampled: which rows, ascending */
    int64_t rows_total;
    double *want[FB_MAX_VALUES]; /* per output: full tensor, or n_rows * row numel */
    int64_t n_want[FB_MAX_VALUES];
    double typical[FB_MAX_VALUES]; /* per output: median |want|, the scale of a default tolerance */
    double peak[FB_MAX_VALUES];  /* largest finite |element| of each node output (checked rows) */
};

const char *fb_check_mode_name(fb_check_mode m)
{
    switch (m) {
    case FB_CHECK_FULL: return "full";
    case FB_CHECK_SAMPLED: return "sampled";
    case FB_CHECK_NONE: return "none";
    }
    return "?";
}

/* ---- storage dtype -> double on the host ----------------------------------- */
static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    double v;
    if (exp == 0) v = ldexp((double)man, -24);
    else if (exp == 31) v = man ? NAN : INFINITY;
    else v = ldexp((double)(man | 0x400), exp - 25);
    return sign ? -v : v;
}

static double bf16_to_double(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void to_double(const void *src, fb_dtype dt, int64_t n, double *dst)
{
    switch (dt) {
    case FB_F32:
        for (int64_t i = 0; i < n; i++) dst[i] = ((const float *)src)[i];
        break;
    case FB_F16:
        for (int64_t i = 0; i < n; i++) dst[i] = half_to_double(((const uint16_t *)src)[i]);
        break;
    case FB_BF16:
        for (int64_t i = 0; i < n; i++) dst[i] = bf16_to_double(((const uint16_t *)src)[i]);
        break;
    case FB_F64: memcpy(dst, src, (size_t)n * sizeof(double)); break;
    default: break;
    }
}

/* Copy n elements starting at element `offset` of a device tensor into doubles. */
static fb_status fetch(const fb_tensor *t, int64_t offset, int64_t n, double *dst)
{
    size_t es = fb_dtype_size(t->dtype);
    void *tmp = malloc((size_t)n * es);
    if (!tmp) {
        fb_error("out of host memory fetching %lld elements for the check", (long long)n);
        return FB_E_NOMEM;
    }
    fb_status s = fb_cuda_status(cudaMemcpy(tmp, (const char *)t->data + (size_t)offset * es,
                                            (size_t)n * es, cudaMemcpyDeviceToHost),
                                 "cudaMemcpy (check)", __FILE__, __LINE__);
    if (s == FB_OK) to_double(tmp, t->dtype, n, dst);
    free(tmp);
    return s;
}

/* splitmix64: the row sample is a fixed function of the row count. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* First and last row, then hashed rows; sorted, unique. */
static int64_t pick_rows(int64_t n_rows, int64_t want, int64_t *rows)
{
    if (want >= n_rows) {
        for (int64_t r = 0; r < n_rows; r++) rows[r] = r;
        return n_rows;
    }
    int64_t k = 0;
    rows[k++] = 0;
    rows[k++] = n_rows - 1;
    for (uint64_t i = 1; k < want; i++) rows[k++] = (int64_t)(mix64(i) % (uint64_t)n_rows);
    qsort(rows, (size_t)k, sizeof *rows, cmp_i64);
    int64_t u = 0;
    for (int64_t i = 0; i < k; i++)
        if (u == 0 || rows[i] != rows[u - 1]) rows[u++] = rows[i];
    return u;
}

static void free_arrays(double **a, int n)
{
    for (int i = 0; i < n; i++) {
        free(a[i]);
        a[i] = NULL;
    }
}

static fb_status reference_full(fb_reference *r, const fb_tensor *inputs)
{
    const fb_case *c = r->c;
    double *in[FB_MAX_VALUES] = {0};
    fb_status s = FB_OK;
    for (int i = 0; i < c->n_inputs && s == FB_OK; i++) {
        int64_t n = fb_shape_numel(&r->shapes[i]);
        in[i] = malloc((size_t)(n ? n : 1) * sizeof(double));
        if (!in[i]) {
            fb_error("out of host memory for the reference");
            s = FB_E_NOMEM;
        } else {
            s = fetch(&inputs[i], 0, n, in[i]);
        }
    }
    for (int k = 0; k < c->n_outputs && s == FB_OK; k++) {
        int64_t n = fb_shape_numel(&r->shapes[c->outputs[k]]);
        r->n_want[k] = n;
        r->want[k] = malloc((size_t)(n ? n : 1) * sizeof(double));
        if (!r->want[k]) {
            fb_error("out of host memory for the reference");
            s = FB_E_NOMEM;
        }
    }
    if (s == FB_OK) s = fb_reference_eval_at(c, r->shapes, NULL, (const double *const *)in, r->want, r->peak);
    free_arrays(in, c->n_inputs);
    r->rows_total = 0;
    return s;
}

static fb_status reference_rows(fb_reference *r, const fb_tensor *inputs, int64_t full_limit)
{
    const fb_case *c = r->c;
    int64_t row_elems = 0; /* elements touched per row, inputs and outputs */
    for (int v = 0; v < c->n_values; v++) row_elems += fb_shape_numel(&r->rp.row_shape[v]);
    int64_t want = row_elems ? full_limit / row_elems : 2;
    if (want < 2) want = 2;
    /* each sampled row costs a copy per input and output: short rows (a rank-1
     * elementwise program's are single elements) are capped by count */
    if (want > MAX_SAMPLED_ROWS) want = MAX_SAMPLED_ROWS;
    r->rows = malloc((size_t)(want < r->rp.n_rows ? want : r->rp.n_rows) * sizeof(int64_t));
    if (!r->rows) {
        fb_error("out of host memory for the row sample");
        return FB_E_NOMEM;
    }
    r->n_rows = pick_rows(r->rp.n_rows, want, r->rows);
    r->rows_total = r->rp.n_rows;

    double *in[FB_MAX_VALUES] = {0}, *out_row[FB_MAX_VALUES] = {0};
    int64_t base[FB_MAX_VALUES] = {0};
    fb_status s = FB_OK;
    for (int i = 0; i < c->n_inputs && s == FB_OK; i++) {
        in[i] = malloc((size_t)fb_shape_numel(&r->rp.row_shape[i]) * sizeof(double));
        if (!in[i]) s = FB_E_NOMEM;
    }
    for (int k = 0; k < c->n_outputs && s == FB_OK; k++) {
        int64_t n = fb_shape_numel(&r->rp.row_shape[c->outputs[k]]);
        r->n_want[k] = n * r->n_rows;
        r->want[k] = malloc((size_t)(n * r->n_rows) * sizeof(double));
        if (!r->want[k]) s = FB_E_NOMEM;
    }
    if (s == FB_E_NOMEM) fb_error("out of host memory for the sampled reference");
    for (int64_t j = 0; j < r->n_rows && s == FB_OK; j++) {
        /* every value's slice offset: inputs are fetched from there, and ops that
         * depend on the element index (dropout) need their output's */
        for (int v = 0; v < c->n_values; v++) base[v] = fb_rowplan_offset(&r->rp, v, r->rows[j]);
        for (int i = 0; i < c->n_inputs && s == FB_OK; i++)
            s = fetch(&inputs[i], base[i], fb_shape_numel(&r->rp.row_shape[i]), in[i]);
        for (int k = 0; k < c->n_outputs; k++)
            out_row[k] = r->want[k] + j * fb_shape_numel(&r->rp.row_shape[c->outputs[k]]);
        if (s == FB_OK) s = fb_reference_eval_at(c, r->rp.row_shape, base, (const double *const *)in, out_row, r->peak);
    }
    free_arrays(in, c->n_inputs);
    return s;
}

fb_status fb_reference_create(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt,
                              const fb_tensor *inputs, int64_t full_limit, fb_reference **out)
{
    *out = NULL;
    fb_reference *r = calloc(1, sizeof *r);
    if (!r) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    r->c = c;
    r->dtype = dt;
    memcpy(r->shapes, shapes, sizeof r->shapes);

    int64_t biggest = 0;
    for (int v = 0; v < c->n_values; v++) {
        int64_t n = fb_shape_numel(&shapes[v]);
        if (n > biggest) biggest = n;
    }
    fb_status s;
    if (biggest <= full_limit) {
        r->mode = FB_CHECK_FULL;
        s = reference_full(r, inputs);
    } else {
        s = fb_program_rowplan(c, shapes, &r->rp);
        if (s == FB_OK && r->rp.separable && r->rp.n_rows > 0) {
            r->mode = FB_CHECK_SAMPLED;
            s = reference_rows(r, inputs, full_limit);
        } else if (s == FB_OK) {
            r->mode = FB_CHECK_NONE;
            snprintf(r->why, sizeof r->why, "too large to check in full (%lld elements) and %s",
                     (long long)biggest, r->rp.why[0] ? r->rp.why : "not row-separable");
        }
    }
    if (s == FB_OK && r->mode != FB_CHECK_NONE)
        for (int k = 0; k < c->n_outputs; k++) r->typical[k] = fb_typical_magnitude(r->want[k], r->n_want[k]);
    if (s != FB_OK) {
        fb_reference_destroy(r);
        return s;
    }
    *out = r;
    return FB_OK;
}

const char *fb_reference_overflow(const fb_reference *r, char *why, size_t n)
{
    const fb_case *c = r->c;
    for (int v = c->n_inputs; v < c->n_values; v++) {
        bool is_output = false;
        for (int o = 0; o < c->n_outputs; o++) is_output |= c->outputs[o] == v;
        if (is_output || !fb_dtype_overflows(r->dtype, r->peak[v])) continue;
        int i = c->values[v].producer;
        snprintf(why, n, "its intermediate '%s' (program[%d], %s) reaches %.3g, beyond %s's range", c->values[v].name,
                 i, i >= 0 ? fb_node_op_name(&c->nodes[i]) : "?", r->peak[v], fb_dtype_name(r->dtype));
        return why;
    }
    return NULL;
}

void fb_reference_destroy(fb_reference *r)
{
    if (!r) return;
    free_arrays(r->want, FB_MAX_VALUES);
    free(r->rows);
    free(r);
}

/* ---- tolerance --------------------------------------------------------------- */

bool fb_within_tol(double got, double want, fb_tol t)
{
    if (isnan(got) || isnan(want)) return false;
    /* Inf == Inf of the same sign is exact agreement, not an error of Inf - Inf;
     * against an infinity nothing finite is close (rtol*|Inf| would admit anything) */
    if (isinf(got) || isinf(want)) return got == want;
    return fabs(got - want) <= t.atol + t.rtol * fabs(want);
}

fb_tol fb_tolerance(fb_tol declared, double typical)
{
    if (declared.set || !(typical > 0) || !isfinite(typical)) return declared;
    declared.atol += declared.rtol * typical;
    return declared;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double fb_typical_magnitude(const double *v, int64_t n)
{
    enum { MAX_SAMPLE = 65536 };
    if (n <= 0) return 0;
    int64_t stride = n > MAX_SAMPLE ? (n + MAX_SAMPLE - 1) / MAX_SAMPLE : 1;
    double *a = malloc((size_t)((n + stride - 1) / stride) * sizeof(double));
    if (!a) return 0; /* no widening: the declared tolerance, never a looser one */
    int64_t m = 0;
    for (int64_t i = 0; i < n; i += stride)
        if (isfinite(v[i])) a[m++] = fabs(v[i]);
    double med = 0;
    if (m) {
        qsort(a, (size_t)m, sizeof *a, cmp_double);
        med = m % 2 ? a[m / 2] : 0.5 * (a[m / 2 - 1] + a[m / 2]);
    }
    free(a);
    return med;
}

/* ---- the comparison ------------------------------------------------------------ */

/* Compare n elements; `base` is the flat index of got[0] in the output tensor. */
static void compare(const double *got, const double *want, int64_t n, int64_t base, int output,
                    fb_tol tol, fb_check_result *res, double *worst_excess)
{
    for (int64_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        double err = fabs(g - w);
        double bound = tol.atol + tol.rtol * fabs(w);
        bool bad = !fb_within_tol(g, w, tol);
        if (isinf(g) && isinf(w) && !bad) err = 0;
        double rel = w != 0 ? err / fabs(w) : (err != 0 ? INFINITY : 0);
        if (isnan(err)) err = INFINITY, rel = INFINITY;
        if (err > res->max_abs) res->max_abs = err;
        if (rel > res->max_rel) res->max_rel = rel;
        double excess = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0);
        if (isnan(excess)) excess = INFINITY; /* Inf / Inf: a finite value against an infinite want */
        if (bad) res->n_bad++;
        if (excess > *worst_excess || (bad && res->n_bad == 1)) {
            *worst_excess = excess;
            res->worst_output = output;
            res->worst_index = base + i;
            res->worst_got = g;
            res->worst_want = w;
        }
    }
    res->elements_checked += n;
}

fb_status fb_check_outputs(const fb_reference *r, const fb_tensor *outputs, fb_tol tol,
                           fb_check_result *res)
{
    const fb_case *c = r->c;
    memset(res, 0, sizeof *res);
    res->mode = r->mode;
    res->worst_index = -1;
    res->worst_got = res->worst_want = NAN;
    double worst_excess = -1;
    if (r->mode == FB_CHECK_NONE) {
        res->tol = tol;
        res->passed = false; /* unchecked is not passed: the caller reports it as unchecked */
        snprintf(res->why, sizeof res->why, "%s", r->why);
        return FB_OK;
    }
    fb_status s = FB_OK;
    fb_tol declared = tol;
    res->tol = fb_tolerance(declared, r->typical[0]);
    res->typical = r->typical[0];
    for (int k = 0; k < c->n_outputs && s == FB_OK; k++) {
        const fb_shape *full = &r->shapes[c->outputs[k]];
        tol = fb_tolerance(declared, r->typical[k]);
        if (r->mode == FB_CHECK_FULL) {
            int64_t n = fb_shape_numel(full);
            double *got = malloc((size_t)(n ? n : 1) * sizeof(double));
            if (!got) {
                fb_error("out of host memory for the check");
                return FB_E_NOMEM;
            }
            s = fetch(&outputs[k], 0, n, got);
            if (s == FB_OK) compare(got, r->want[k], n, 0, k, tol, res, &worst_excess);
            free(got);
        } else {
            int64_t n = fb_shape_numel(&r->rp.row_shape[c->outputs[k]]);
            double *got = malloc((size_t)(n ? n : 1) * sizeof(double));
            if (!got) {
                fb_error("out of host memory for the check");
                return FB_E_NOMEM;
            }
            for (int64_t j = 0; j < r->n_rows && s == FB_OK; j++) {
                int64_t off = fb_rowplan_offset(&r->rp, c->outputs[k], r->rows[j]);
                s = fetch(&outputs[k], off, n, got);
                if (s == FB_OK) compare(got, r->want[k] + j * n, n, off, k, tol, res, &worst_excess);
            }
            free(got);
        }
    }
    if (s != FB_OK) return s;
    if (res->worst_index >= 0) {
        res->tol = fb_tolerance(declared, r->typical[res->worst_output]);
        res->typical = r->typical[res->worst_output];
    }
    res->rows_total = r->mode == FB_CHECK_SAMPLED ? r->rows_total : 0;
    res->rows_checked = r->mode == FB_CHECK_SAMPLED ? r->n_rows : 0;
    res->passed = res->n_bad == 0;
    if (r->mode == FB_CHECK_SAMPLED)
        snprintf(res->why, sizeof res->why, "%lld of %lld rows sampled (first, last and %lld hashed)",
                 (long long)r->n_rows, (long long)r->rows_total, (long long)(r->n_rows > 2 ? r->n_rows - 2 : 0));
    if (!res->passed) {
        char sh[64], how[96] = "";
        if (!res->tol.set)
            snprintf(how, sizeof how, " (default: atol %g + rtol x median |want| %g)", declared.atol, res->typical);
        snprintf(res->why, sizeof res->why,
                 "%lld of %lld checked elements outside atol %g + rtol %g%s; worst: output %d [%lld] of %s got %.9g "
                 "want %.9g",
                 (long long)res->n_bad, (long long)res->elements_checked, res->tol.atol, res->tol.rtol, how,
                 res->worst_output, (long long)res->worst_index,
                 fb_shape_str(&r->shapes[c->outputs[res->worst_output]], sh, sizeof sh), res->worst_got,
                 res->worst_want);
    }
    return FB_OK;
}
