/* check.c — correctness: the float64 reference of a cell and the comparison of
 * a variant's device outputs against it.
 *
 * The reference is computed once per cell from the inputs as they are on the
 * device (already rounded to the storage dtype), so every variant is judged on
 * exactly the numbers it read. Small cells are checked in full. Large cells of
 * a program the row plan can split (program.h, rowplan.c) are checked on a
 * deterministic sample of rows — always the first and the last, the rest spread
 * by a fixed hash — sized so the check stays cheap. When some outputs are sums
 * over the rows (rmsnorm_backward's dw: the plan *accumulates*), every row is
 * evaluated (rowref.c: chunks, threads) and those outputs are checked in full,
 * the others on sampled rows as before. A cell too large to check in full whose
 * program cannot be split is *unchecked*: it never passes, and says why. A cell
 * passes when |got - want| <= atol + rtol*|want| for every checked element; NaN
 * never passes. */
#include "check.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "ops/op_table.h"
#include "parallel.h"
#include "rowref.h"

#define MAX_SAMPLED_ROWS 16384

struct fb_reference {
    const fb_case *c;
    fb_shape shapes[FB_MAX_VALUES];
    fb_dtype dtype;
    fb_check_mode mode;
    char why[320];
    fb_rowplan rp;            /* sampled mode, and full cells evaluated by rows */
    int64_t n_rows;           /* sampled: rows checked */
    int64_t *rows;            /* sampled: which rows, ascending */
    int64_t rows_total;
    bool whole[FB_MAX_VALUES];   /* per output: want holds the whole tensor (else n_rows sampled rows) */
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
/* A piece of a tensor: copied to the host in its dtype, then widened. */
static fb_status fetch_piece(const fb_tensor *t, int64_t offset, int64_t n, double *dst)
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

/* Large fetches go in pieces on the threads the budget allows (parallel.h): a
 * GEMM's B, read whole by every row (8192 x 16384 floats), fetched on one thread
 * (copy and widening) made most of the 1.79 s reference of matmul's 128 x 16384 x
 * 8192 cell on the H100's host; in pieces, 0.33 s (kernels/NOTES.md, stop 26). */
#define FETCH_PIECE ((int64_t)1 << 21)

typedef struct fetch_job {
    const fb_tensor *t;
    int64_t offset;
    double *dst;
    int device;
} fetch_job;

static fb_status fetch_pieces(void *ctx, int64_t lo, int64_t hi)
{
    const fetch_job *j = ctx;
    fb_status s = fb_cuda_status(cudaSetDevice(j->device), "cudaSetDevice (check)", __FILE__, __LINE__);
    return s == FB_OK ? fetch_piece(j->t, j->offset + lo, hi - lo, j->dst + lo) : s;
}

static fb_status fetch(const fb_tensor *t, int64_t offset, int64_t n, double *dst)
{
    if (n <= FETCH_PIECE) return fetch_piece(t, offset, n, dst);
    fetch_job j = {t, offset, dst, 0};
    FB_CUDA(cudaGetDevice(&j.device));
    return fb_parallel_for(n, FETCH_PIECE, fetch_pieces, &j);
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
        r->whole[k] = true;
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

/* The inputs as the row reference reads them: from the device, on its threads. */
typedef struct device_inputs {
    const fb_tensor *t;
    int device;
} device_inputs;

static fb_status fetch_input(void *ctx, int input, int64_t offset, int64_t n, double *dst)
{
    const device_inputs *d = ctx;
    fb_status s = fb_cuda_status(cudaSetDevice(d->device), "cudaSetDevice (check)", __FILE__, __LINE__);
    return s == FB_OK ? fetch(&d->t[input], offset, n, dst) : s;
}

/* Output names of one kind (partial or not), joined: "dx" or "dx, y". */
static void output_names(const fb_reference *r, bool partial, char *buf, size_t n)
{
    const fb_case *c = r->c;
    size_t k = 0;
    buf[0] = 0;
    for (int o = 0; o < c->n_outputs && k < n; o++)
        if (r->rp.partial[c->outputs[o]] == partial)
            k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "", c->values[c->outputs[o]].name);
}

/* The reference over the row plan's rows (rowref.c). keep_rows: how many rows of
 * the outputs that are not sums over rows to sample (pick_rows); 0: every row, and
 * want is whole. Partial outputs are always whole, summed over every row. */
static fb_status reference_rows(fb_reference *r, const fb_tensor *inputs, int64_t keep_rows)
{
    const fb_case *c = r->c;
    r->rows_total = r->rp.n_rows;
    const bool sample = keep_rows > 0;
    if (sample) {
        r->rows = malloc((size_t)(keep_rows < r->rp.n_rows ? keep_rows : r->rp.n_rows) * sizeof(int64_t));
        if (!r->rows) {
            fb_error("out of host memory for the row sample");
            return FB_E_NOMEM;
        }
        r->n_rows = pick_rows(r->rp.n_rows, keep_rows, r->rows);
    }
    device_inputs src = {inputs, 0};
    fb_status s = fb_cuda_status(cudaGetDevice(&src.device), "cudaGetDevice (check)", __FILE__, __LINE__);
    fb_rowref_job job = {.c = c, .shapes = r->shapes, .rp = &r->rp, .fetch = fetch_input, .fetch_ctx = &src,
                         .keep = sample ? r->rows : NULL, .n_keep = sample ? r->n_rows : 0, .peak = r->peak};
    for (int k = 0; k < c->n_outputs && s == FB_OK; k++) {
        const int v = c->outputs[k];
        r->whole[k] = !sample || r->rp.partial[v];
        int64_t n = r->whole[k] ? fb_shape_numel(&r->shapes[v]) : fb_shape_numel(&r->rp.row_shape[v]) * r->n_rows;
        r->n_want[k] = n;
        r->want[k] = job.out[k] = malloc((size_t)(n ? n : 1) * sizeof(double));
        if (!r->want[k]) {
            fb_error("out of host memory for the reference");
            s = FB_E_NOMEM;
        }
    }
    if (s == FB_OK) s = fb_rowref_eval(&job);
    return s;
}

/* True when value v carries none of the plan's split axes: every row reads it whole. */
static bool read_whole(const fb_rowplan *rp, int v)
{
    for (int s = 0; s < rp->n_split; s++)
        if (rp->stride[v][s] != 0) return false;
    return true;
}

/* Rows of the sampled check: about full_limit elements. Without sums over rows
 * only the sampled rows are evaluated, so every value's row counts, but for the
 * inputs every row reads whole (a weight, a matmul's B): rowref.c fetches those
 * once, not once per row, so they do not make the sample smaller (counted per
 * row, matmul_matmul's B and C at 16384 x 16384, 2^22 elements together, left
 * the sample its first and last rows alone). With sums over rows every row is evaluated
 * anyway, and the sample costs only the kept outputs. */
static int64_t sample_size(const fb_case *c, const fb_rowplan *rp, int64_t full_limit)
{
    int64_t row_elems = 0;
    if (rp->accumulates) {
        for (int k = 0; k < c->n_outputs; k++)
            if (!rp->partial[c->outputs[k]]) row_elems += fb_shape_numel(&rp->row_shape[c->outputs[k]]);
    } else {
        for (int v = 0; v < c->n_values; v++)
            if (v >= c->n_inputs || !read_whole(rp, v)) row_elems += fb_shape_numel(&rp->row_shape[v]);
    }
    int64_t want = row_elems ? full_limit / row_elems : 2;
    if (want < 2) want = 2;
    /* each sampled row costs a copy per output to compare (and, without sums over
     * rows, per input to evaluate): short rows (a rank-1 elementwise program's are
     * single elements) are capped by count */
    if (want > MAX_SAMPLED_ROWS) want = MAX_SAMPLED_ROWS;
    return want;
}

fb_status fb_check_plan_cell(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], int64_t full_limit,
                             fb_check_plan *p)
{
    memset(p, 0, sizeof *p);
    for (int v = 0; v < c->n_values; v++) {
        int64_t n = fb_shape_numel(&shapes[v]);
        if (n > p->biggest) p->biggest = n;
    }
    fb_status s = fb_program_rowplan(c, shapes, &p->rp);
    if (p->biggest <= full_limit) {
        /* by rows when the program splits: the same numbers, faster, and a chunk
         * of each intermediate held instead of all of it */
        p->mode = FB_CHECK_FULL;
        p->by_rows = s == FB_OK && p->rp.separable && p->rp.n_rows > 1;
        if (!p->by_rows) memset(&p->rp, 0, sizeof p->rp);
        return FB_OK;
    }
    if (s != FB_OK) return s;
    if (!p->rp.separable || p->rp.n_rows < 1) {
        p->mode = FB_CHECK_NONE;
        return FB_OK;
    }
    p->by_rows = true;
    p->sample_rows = sample_size(c, &p->rp, full_limit);
    if (!p->rp.accumulates) { /* rows evaluated alone: their work is the sample's cost */
        fb_costs costs;
        if (fb_program_costs(c, shapes, FB_F64, &costs) == FB_OK && costs.flops > 0) {
            const double per_row = costs.flops / (double)p->rp.n_rows;
            const double fit = floor(FB_CHECK_FLOP_LIMIT / per_row);
            if (fit < (double)p->sample_rows) p->sample_rows = fit > 2 ? (int64_t)fit : 2;
        }
        fb_clear_error();
    }
    bool row_outputs = false;
    for (int k = 0; k < c->n_outputs; k++) row_outputs |= !p->rp.partial[c->outputs[k]];
    /* with sums over rows every row is evaluated: when the row outputs can be
     * kept whole (or there are none) every element of every output is checked */
    if (p->rp.accumulates && (!row_outputs || p->sample_rows >= p->rp.n_rows)) p->sample_rows = 0;
    p->mode = p->sample_rows ? FB_CHECK_SAMPLED : FB_CHECK_FULL;
    return FB_OK;
}

fb_status fb_reference_create(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt,
                              const fb_tensor *inputs, int64_t full_limit, fb_reference **out)
{
    *out = NULL;
    fb_reference *r = calloc(1, sizeof *r);
    fb_check_plan *plan = malloc(sizeof *plan);
    if (!r || !plan) {
        free(r);
        free(plan);
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    r->c = c;
    r->dtype = dt;
    memcpy(r->shapes, shapes, sizeof r->shapes);

    fb_status s = fb_check_plan_cell(c, shapes, full_limit, plan);
    if (s == FB_OK) {
        r->mode = plan->mode;
        r->rp = plan->rp;
        if (r->mode == FB_CHECK_NONE)
            snprintf(r->why, sizeof r->why, "too large to check in full (%lld elements) and %s",
                     (long long)plan->biggest, r->rp.why[0] ? r->rp.why : "not row-separable");
        else if (plan->by_rows)
            s = reference_rows(r, inputs, plan->sample_rows);
        else
            s = reference_full(r, inputs);
    }
    /* a cell too large to evaluate at once whose outputs include sums over rows:
     * say which outputs were checked how */
    if (s == FB_OK && r->mode != FB_CHECK_NONE && plan->biggest > full_limit && r->rp.accumulates) {
        char rows_n[FB_MAX_VALUES * 8], sums_n[FB_MAX_VALUES * 8], sampled[160] = "";
        output_names(r, false, rows_n, sizeof rows_n);
        output_names(r, true, sums_n, sizeof sums_n);
        if (r->mode == FB_CHECK_SAMPLED)
            snprintf(sampled, sizeof sampled, "%s: %lld of %lld rows sampled (first, last and %lld hashed); ", rows_n,
                     (long long)r->n_rows, (long long)r->rows_total, (long long)(r->n_rows > 2 ? r->n_rows - 2 : 0));
        else if (rows_n[0])
            snprintf(sampled, sizeof sampled, "%s: full; ", rows_n);
        snprintf(r->why, sizeof r->why, "%s%s: full, accumulated over all %lld rows", sampled, sums_n,
                 (long long)r->rows_total);
    }
    free(plan);
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
        if (isfinite(v[i]) && v[i] != 0) a[m++] = fabs(v[i]);
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
        if (r->whole[k]) {
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
    if (r->why[0]) /* sums over rows: what was checked how */
        snprintf(res->why, sizeof res->why, "%s", r->why);
    else if (r->mode == FB_CHECK_SAMPLED)
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
