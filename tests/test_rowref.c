/* test_rowref.c — the reference evaluated over a row plan's rows (src/rowref.c)
 * and the check's plan for a cell (fb_check_plan_cell), on the CPU:
 *
 *   - rmsnorm_backward: dx is a row output, dw a sum over the [4, T] rows; under
 *     every chunking (one row, part of T, whole T blocks, everything) and thread
 *     count, dx equals the whole evaluation bit for bit and dw within rounding
 *     (the sum's order differs); one chunking gives the same bits on 1 and 5
 *     threads; the peaks match (a partial value's from its sum over all rows);
 *     kept rows land in order; inputs are fetched a chunk at a time;
 *   - rmsnorm (no sums over rows): every row or kept rows, evaluated alone;
 *   - a failing fetch stops every thread (no hang) and its message comes back;
 *   - the check's plan for rmsnorm_backward's cells: full, or dx sampled and dw
 *     full (accumulated) — never unchecked.
 *
 * `test_rowref --bench [THREADS [CHUNK_ELEMS]]` times the reference of
 * rmsnorm_backward's largest cell as check.c builds it (x, dy [4, 2048, 16384]
 * float32 on the host; the device's copy is replaced by the float -> double
 * conversion check.c does after it); `--bench-grid` every cell of rmsnorm and
 * rmsnorm_backward, one dtype's worth (`run` builds one reference per cell and
 * dtype); `--bench-case NAME [THREADS]` every cell of NAME's default grid. */
#include <stdlib.h>
#include <time.h>

#include "case.h"
#include "check.h"
#include "rowref.h"
#include "testing.h"

/* ---- host inputs ------------------------------------------------------------------ */

typedef struct host_src {
    const double *in[FB_MAX_VALUES];
    const float *in32[FB_MAX_VALUES]; /* the benchmark's: stored as float32 */
    int64_t calls;                    /* fetches made                      */
    int64_t fail_from;                /* > 0: offsets from here fail       */
} host_src;

static fb_status host_fetch(void *ctx, int input, int64_t offset, int64_t n, double *dst)
{
    host_src *h = ctx;
    __atomic_fetch_add(&h->calls, 1, __ATOMIC_RELAXED);
    if (h->fail_from > 0 && offset >= h->fail_from) {
        fb_error("test fetch: input %d at %lld refused", input, (long long)offset);
        return FB_E_IO;
    }
    if (h->in32[input])
        for (int64_t i = 0; i < n; i++) dst[i] = h->in32[input][offset + i];
    else
        memcpy(dst, h->in[input] + offset, (size_t)n * sizeof(double));
    return FB_OK;
}

static double wave(int64_t i, double seed) { return sin(seed + 0.61 * (double)i) * 1.7 + cos(0.013 * (double)i); }

static int value_index(const fb_case *c, const char *name)
{
    for (int v = 0; v < c->n_values; v++)
        if (!strcmp(c->values[v].name, name)) return v;
    return -1;
}

static bool load(const char *name, fb_case *c)
{
    fb_status s = fb_case_find(name, c);
    if (s != FB_OK) fprintf(stderr, "%s: %s\n", name, fb_last_error());
    CHECK(s == FB_OK);
    return s == FB_OK;
}

static fb_point at(const fb_case *c, int64_t t, int64_t n)
{
    fb_point p;
    memset(&p, 0, sizeof p);
    p.sym[c->axis[0].sym] = t;
    p.sym[c->axis[1].sym] = n;
    return p;
}

/* A cell's inputs, filled, and its whole evaluation (outputs and peaks). */
typedef struct cell {
    fb_shape s[FB_MAX_VALUES];
    fb_rowplan rp;
    double *in[FB_MAX_VALUES], *whole[FB_MAX_VALUES], peak[FB_MAX_VALUES];
} cell;

static void cell_make(const fb_case *c, const fb_point *p, cell *k)
{
    memset(k, 0, sizeof *k);
    CHECK(fb_program_shapes(c, p, k->s) == FB_OK);
    CHECK(fb_program_rowplan(c, k->s, &k->rp) == FB_OK);
    for (int v = 0; v < c->n_inputs; v++) {
        int64_t n = fb_shape_numel(&k->s[v]);
        k->in[v] = malloc(sizeof(double) * (size_t)n);
        for (int64_t i = 0; i < n; i++) k->in[v][i] = wave(i, 1.3 * v);
    }
    for (int o = 0; o < c->n_outputs; o++)
        k->whole[o] = malloc(sizeof(double) * (size_t)fb_shape_numel(&k->s[c->outputs[o]]));
    CHECK(fb_reference_eval_at(c, k->s, NULL, (const double *const *)k->in, k->whole, k->peak) == FB_OK);
}

static void cell_free(cell *k)
{
    for (int v = 0; v < FB_MAX_VALUES; v++) {
        free(k->in[v]);
        free(k->whole[v]);
    }
}

/* fb_rowref_eval into freshly allocated outputs (whole, or n_keep rows each). */
static fb_status eval(const fb_case *c, const cell *k, const int64_t *keep, int64_t n_keep, int threads,
                      int64_t budget, host_src *src, double **out, double *peak)
{
    fb_rowref_job job = {.c = c, .shapes = k->s, .rp = &k->rp, .fetch = host_fetch, .fetch_ctx = src,
                         .keep = keep, .n_keep = n_keep, .peak = peak, .threads = threads, .chunk_elems = budget};
    for (int o = 0; o < c->n_outputs; o++) {
        int v = c->outputs[o];
        int64_t n = keep && !k->rp.partial[v] ? n_keep * fb_shape_numel(&k->rp.row_shape[v]) : fb_shape_numel(&k->s[v]);
        out[o] = job.out[o] = malloc(sizeof(double) * (size_t)n);
        for (int64_t i = 0; i < n; i++) out[o][i] = NAN; /* anything left unwritten shows */
    }
    if (peak) memset(peak, 0, sizeof(double) * FB_MAX_VALUES);
    return fb_rowref_eval(&job);
}

static int64_t count_unequal(const double *a, const double *b, int64_t n)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += !(a[i] == b[i]);
    return bad;
}

static int64_t count_far(const double *a, const double *b, int64_t n, double rel)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += !(fabs(a[i] - b[i]) <= rel * (1 + fabs(b[i])));
    return bad;
}

/* ---- rmsnorm_backward: dw accumulated over every row --------------------------------- */

static void test_backward_chunks(void)
{
    fb_case c;
    if (!load("rmsnorm_backward", &c)) return;
    const int64_t T = 7, N = 9, R = 4 * T;
    fb_point p = at(&c, T, N);
    cell k;
    cell_make(&c, &p, &k);
    const int dx = value_index(&c, "dx"), dw = value_index(&c, "dw"), dw_t = value_index(&c, "dw_t");
    CHECK(c.outputs[0] == dx && c.outputs[1] == dw);
    CHECK(k.rp.separable && k.rp.accumulates && k.rp.boxes && k.rp.n_split == 2 && k.rp.n_rows == R);
    CHECK(k.rp.split_size[0] == 4 && k.rp.split_size[1] == T);
    CHECK(k.rp.partial[dw] && k.rp.partial[dw_t] && !k.rp.partial[dx] && !k.rp.partial[value_index(&c, "dyxr")]);

    /* rows per chunk for budgets of 1, 2, 3, 7, 14, 21 and 28 rows' worth, and all */
    int64_t per_row = 0, fixed = 0;
    for (int v = 0; v < c.n_values; v++) {
        bool carries = k.rp.stride[v][0] || k.rp.stride[v][1];
        if (carries) per_row += fb_shape_numel(&k.rp.row_shape[v]);
        else if (v >= c.n_inputs) fixed += fb_shape_numel(&k.s[v]);
    }
    static const struct { int64_t rows, want_rows, want_chunks; } chunkings[] = {
        {1, 1, 28}, {2, 2, 16}, {3, 3, 12}, {7, 7, 4}, {10, 7, 4}, {14, 14, 2}, {21, 21, 2}, {28, 28, 1}, {1000, 28, 1},
    };
    for (size_t i = 0; i < sizeof chunkings / sizeof chunkings[0]; i++) {
        const int64_t budget = fixed + per_row * chunkings[i].rows;
        int64_t rows_per_chunk, chunks;
        fb_rowref_chunking(&c, k.s, &k.rp, budget, &rows_per_chunk, &chunks);
        if (rows_per_chunk != chunkings[i].want_rows || chunks != chunkings[i].want_chunks)
            fprintf(stderr, "budget of %lld rows: %lld rows per chunk, %lld chunks\n", (long long)chunkings[i].rows,
                    (long long)rows_per_chunk, (long long)chunks);
        CHECK(rows_per_chunk == chunkings[i].want_rows && chunks == chunkings[i].want_chunks);

        double *one[FB_MAX_VALUES] = {0}, *five[FB_MAX_VALUES] = {0}, peak1[FB_MAX_VALUES], peak5[FB_MAX_VALUES];
        host_src src = {.calls = 0};
        memcpy(src.in, k.in, sizeof src.in);
        CHECK(eval(&c, &k, NULL, 0, 1, budget, &src, one, peak1) == FB_OK);
        /* a fetch per input that carries rows per chunk; w, read whole, once */
        CHECK(src.calls == 2 * chunks + 1);
        CHECK(eval(&c, &k, NULL, 0, 5, budget, &src, five, peak5) == FB_OK);
        /* dx: the rows' own numbers, bit for bit; dw: the same sum in another order */
        CHECK(count_unequal(one[0], k.whole[0], R * N) == 0);
        CHECK(count_far(one[1], k.whole[1], N, 1e-13) == 0);
        /* the thread count changes nothing */
        CHECK(count_unequal(five[0], one[0], R * N) == 0);
        CHECK(count_unequal(five[1], one[1], N) == 0);
        /* peaks: a row value's over every row; dw_t's from its sum over the 4 rows
         * of each T index, which is what eager stores */
        for (int v = c.n_inputs; v < c.n_values; v++) {
            CHECK(peak1[v] == peak5[v]);
            if (k.rp.partial[v]) CHECK_NEAR(peak1[v], k.peak[v], 1e-13 * k.peak[v]);
            else CHECK(peak1[v] == k.peak[v]);
        }
        for (int o = 0; o < 2; o++) {
            free(one[o]);
            free(five[o]);
        }
    }
    /* dw_t's peak is not a row's: |sum of 4| differs from the largest |term| */
    CHECK(k.peak[dw_t] != k.peak[value_index(&c, "dyxr")]);

    /* kept rows: their dx in order, dw over every row all the same */
    const int64_t keep[] = {0, 5, 13, 27};
    double *out[FB_MAX_VALUES] = {0};
    host_src src = {.calls = 0};
    memcpy(src.in, k.in, sizeof src.in);
    CHECK(eval(&c, &k, keep, 4, 3, 0, &src, out, NULL) == FB_OK);
    for (int j = 0; j < 4; j++) CHECK(count_unequal(out[0] + j * N, k.whole[0] + keep[j] * N, N) == 0);
    CHECK(count_far(out[1], k.whole[1], N, 1e-13) == 0);
    CHECK(src.calls == 3); /* the default budget holds all 28 rows: one chunk */
    free(out[0]);
    free(out[1]);
    cell_free(&k);
}

/* rmsnorm forward: no sums over rows; kept rows are evaluated alone, fetched alone */
static void test_forward_rows(void)
{
    fb_case c;
    if (!load("rmsnorm", &c)) return;
    const int64_t T = 5, N = 33, R = 4 * T;
    fb_point p = at(&c, T, N);
    cell k;
    cell_make(&c, &p, &k);
    CHECK(k.rp.separable && !k.rp.accumulates && k.rp.n_rows == R);
    double *out[FB_MAX_VALUES] = {0};
    host_src src = {.calls = 0};
    memcpy(src.in, k.in, sizeof src.in);
    const int64_t keep[] = {1, 2, 19};
    CHECK(eval(&c, &k, keep, 3, 2, 0, &src, out, NULL) == FB_OK);
    CHECK(src.calls == 3 + 1);
    for (int j = 0; j < 3; j++) CHECK(count_unequal(out[0] + j * N, k.whole[0] + keep[j] * N, N) == 0);
    free(out[0]);
    /* no row kept: nothing evaluated (w, read whole, is still fetched) */
    src.calls = 0;
    CHECK(eval(&c, &k, keep, 0, 2, 0, &src, out, NULL) == FB_OK);
    CHECK(src.calls == 1);
    free(out[0]);
    /* every row, in chunks of 3 rows: the whole tensor */
    for (int threads = 1; threads <= 4; threads += 3) {
        int64_t per_row = 0;
        for (int v = 0; v < c.n_values; v++) per_row += k.rp.stride[v][0] ? fb_shape_numel(&k.rp.row_shape[v]) : 0;
        double peak[FB_MAX_VALUES];
        CHECK(eval(&c, &k, NULL, 0, threads, 3 * per_row + 1, &src, out, peak) == FB_OK);
        CHECK(count_unequal(out[0], k.whole[0], R * N) == 0);
        for (int v = c.n_inputs; v < c.n_values; v++) CHECK(peak[v] == k.peak[v]);
        free(out[0]);
    }
    cell_free(&k);
}

/* a fetch that fails part way: every thread stops, the message comes back */
static void test_fetch_fails(void)
{
    fb_case c;
    if (!load("rmsnorm_backward", &c)) return;
    fb_point p = at(&c, 64, 8);
    cell k;
    cell_make(&c, &p, &k);
    double *out[FB_MAX_VALUES] = {0};
    host_src src = {.fail_from = 100 * 8};
    memcpy(src.in, k.in, sizeof src.in);
    fb_clear_error();
    CHECK(eval(&c, &k, NULL, 0, 4, 1, &src, out, NULL) == FB_E_IO);
    CHECK(strstr(fb_last_error(), "test fetch: input") != NULL);
    CHECK(src.calls < 2 * 256); /* stopped early, not after every row */
    free(out[0]);
    free(out[1]);
    cell_free(&k);
}

/* ---- the check's plan ---------------------------------------------------------------------- */

static void test_check_plan(void)
{
    fb_case c;
    if (!load("rmsnorm_backward", &c)) return;
    static const struct { int64_t t, n; fb_check_mode mode; int64_t sample; } want[] = {
        {128, 32, FB_CHECK_FULL, 0},          /* 16K elements: whole, by rows */
        {128, 8192, FB_CHECK_FULL, 0},        /* x is exactly 2^22 elements */
        {128, 16384, FB_CHECK_SAMPLED, 256},  /* 4M / 16384 elements of dx per row */
        {2048, 1024, FB_CHECK_SAMPLED, 4096},
        {2048, 16384, FB_CHECK_SAMPLED, 256}, /* the largest: 134M elements */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        fb_point p = at(&c, want[i].t, want[i].n);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
        fb_check_plan *plan = malloc(sizeof *plan);
        CHECK(fb_check_plan_cell(&c, s, FB_RUN_FULL_LIMIT, plan) == FB_OK);
        CHECK(plan->mode == want[i].mode && plan->sample_rows == want[i].sample && plan->by_rows);
        CHECK(plan->rp.accumulates && plan->rp.partial[value_index(&c, "dw")]);
        CHECK(plan->rp.n_rows == 4 * want[i].t);
        free(plan);
    }
    /* a limit below dx's size: sampled rows of dx, sized by dx's rows alone */
    fb_point p = at(&c, 16, 64);
    fb_shape s[FB_MAX_VALUES];
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    fb_check_plan *plan = malloc(sizeof *plan);
    CHECK(fb_check_plan_cell(&c, s, 64 * 10, plan) == FB_OK);
    CHECK(plan->mode == FB_CHECK_SAMPLED && plan->sample_rows == 10);

    /* a column sum alone: too large to evaluate at once, but every element of its
     * only output is checked: full, by rows of its input */
    static const char colsum[] = "{\"name\": \"colsum\", \"summary\": \"column %ss\","
                                 " \"inputs\": {\"x\": {\"shape\": [\"R\", \"W\"]}},"
                                 " \"program\": [{\"op\": \"%s\", \"in\": [\"x\"], \"dim\": 0,"
                                 " \"keepdim\": false, \"out\": \"cs\"}],"
                                 " \"outputs\": [\"cs\"], \"dtypes\": [\"float32\"], \"grid\": {\"R\": [8], \"W\": [4]}}";
    char text[sizeof colsum + 16];
    fb_case cs;
    snprintf(text, sizeof text, colsum, "sum", "sum");
    fb_status st = fb_case_parse(text, "colsum.json", &cs);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    p = at(&cs, 1 << 16, 1024);
    CHECK(fb_program_shapes(&cs, &p, s) == FB_OK);
    CHECK(fb_check_plan_cell(&cs, s, FB_RUN_FULL_LIMIT, plan) == FB_OK);
    CHECK(plan->mode == FB_CHECK_FULL && plan->by_rows && plan->sample_rows == 0 && plan->rp.accumulates);
    CHECK(plan->rp.n_rows == 1 << 16);
    /* amax instead: unchecked, and why */
    snprintf(text, sizeof text, colsum, "amax", "amax");
    st = fb_case_parse(text, "amax.json", &cs);
    CHECK(st == FB_OK);
    CHECK(fb_program_shapes(&cs, &p, s) == FB_OK);
    CHECK(fb_check_plan_cell(&cs, s, FB_RUN_FULL_LIMIT, plan) == FB_OK);
    CHECK(plan->mode == FB_CHECK_NONE && !plan->rp.separable);
    CHECK_STR(plan->rp.why, "'x' does not lead with dim 0 of output 'cs', so a row of it is not one contiguous slice");
    free(plan);
}

/* ---- the benchmark --------------------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Inputs for the benchmark: float32 near N(0, 1) (a sum of four uniforms), n of them. */
static float *bench_input(int64_t n, uint64_t seed)
{
    float *p = malloc(sizeof(float) * (size_t)n);
    if (!p) return NULL;
    uint64_t z = 0x9e3779b97f4a7c15ull * seed;
    for (int64_t i = 0; i < n; i++) {
        double a = 0;
        for (int u = 0; u < 4; u++) {
            z = z * 6364136223846793005ull + 1442695040888963407ull;
            a += (double)(z >> 11) / 9007199254740992.0;
        }
        p[i] = (float)((a - 2.0) * 1.7320508);
    }
    return p;
}

/* The reference of one cell as check.c builds it (fb_check_plan_cell, then by
 * rows or whole), its inputs read from float32 host arrays; seconds. */
static double bench_cell(const fb_case *c, const fb_shape *s, float *const *in32, int threads, int64_t budget,
                         bool verbose)
{
    fb_check_plan *plan = malloc(sizeof *plan);
    if (fb_check_plan_cell(c, s, FB_RUN_FULL_LIMIT, plan) != FB_OK) {
        fprintf(stderr, "%s\n", fb_last_error());
        exit(1);
    }
    host_src src = {.calls = 0};
    for (int v = 0; v < c->n_inputs; v++) src.in32[v] = in32[v];
    double *out[FB_MAX_VALUES] = {0}, peak[FB_MAX_VALUES] = {0};
    int64_t *keep = NULL;
    if (plan->sample_rows) {
        keep = malloc(sizeof(int64_t) * (size_t)plan->sample_rows);
        for (int64_t j = 0; j < plan->sample_rows; j++) keep[j] = j * (plan->rp.n_rows / plan->sample_rows);
    }
    for (int o = 0; o < c->n_outputs; o++) {
        const int v = c->outputs[o];
        int64_t n = keep && !plan->rp.partial[v] ? plan->sample_rows * fb_shape_numel(&plan->rp.row_shape[v])
                                                 : fb_shape_numel(&s[v]);
        out[o] = malloc(sizeof(double) * (size_t)n);
    }
    const double t0 = now();
    fb_status st = FB_OK;
    if (plan->by_rows) {
        fb_rowref_job job = {.c = c, .shapes = s, .rp = &plan->rp, .fetch = host_fetch, .fetch_ctx = &src,
                             .keep = keep, .n_keep = keep ? plan->sample_rows : 0, .peak = peak, .threads = threads,
                             .chunk_elems = budget};
        memcpy(job.out, out, sizeof job.out);
        st = fb_rowref_eval(&job);
    } else { /* whole, as reference_full: every input converted, then one evaluation */
        double *in[FB_MAX_VALUES] = {0};
        for (int v = 0; v < c->n_inputs && st == FB_OK; v++) {
            in[v] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[v]));
            st = host_fetch(&src, v, 0, fb_shape_numel(&s[v]), in[v]);
        }
        if (st == FB_OK) st = fb_reference_eval_at(c, s, NULL, (const double *const *)in, out, peak);
        for (int v = 0; v < c->n_inputs; v++) free(in[v]);
    }
    const double dt = now() - t0;
    if (st != FB_OK) {
        fprintf(stderr, "%s\n", fb_last_error());
        exit(1);
    }
    if (verbose) {
        int64_t rows_per_chunk = 0, chunks = 0;
        if (plan->by_rows) fb_rowref_chunking(c, s, &plan->rp, budget, &rows_per_chunk, &chunks);
        printf("%s x %lld elements: %s, %lld rows in %lld chunks of %lld rows: %.2f s\n", c->name,
               (long long)fb_shape_numel(&s[0]), fb_check_mode_name(plan->mode), (long long)plan->rp.n_rows,
               (long long)chunks, (long long)rows_per_chunk, dt);
    }
    for (int o = 0; o < c->n_outputs; o++) free(out[o]);
    free(keep);
    free(plan);
    return dt;
}

/* --bench: rmsnorm_backward's largest cell; --bench-grid: every cell of rmsnorm
 * and rmsnorm_backward (the inputs of the largest reused, a prefix per cell). */
static int bench(bool grid, int threads, int64_t budget)
{
    const int64_t most = 4LL * 2048 * 16384;
    float *in32[3] = {bench_input(most, 1), bench_input(16384, 2), bench_input(most, 3)};
    if (!in32[0] || !in32[1] || !in32[2]) return 1;
    double total = 0;
    for (int backward = grid ? 0 : 1; backward < 2; backward++) {
        fb_case c;
        if (fb_case_find(backward ? "rmsnorm_backward" : "rmsnorm", &c) != FB_OK) {
            fprintf(stderr, "%s\n", fb_last_error());
            return 1;
        }
        double sum = 0;
        for (int a = grid ? 0 : c.axis[0].n - 1; a < c.axis[0].n; a++)
            for (int b = grid ? 0 : c.axis[1].n - 1; b < c.axis[1].n; b++) {
                fb_point p = at(&c, c.axis[0].v[a], c.axis[1].v[b]);
                fb_shape s[FB_MAX_VALUES];
                if (fb_program_shapes(&c, &p, s) != FB_OK) return 1;
                sum += bench_cell(&c, s, in32, threads, budget, !grid);
            }
        if (grid) printf("%s: every cell's reference (%d cells): %.2f s\n", c.name, c.axis[0].n * c.axis[1].n, sum);
        total += sum;
    }
    printf("%d thread(s) asked (0: one per CPU), chunk budget %lld doubles (0: the default): %.2f s\n", threads,
           (long long)budget, total);
    for (int v = 0; v < 3; v++) free(in32[v]);
    return 0;
}

/* --bench-case NAME [THREADS]: every cell of NAME's default grid (its fixed
 * symbols' grids included), each cell's reference timed as --bench does, with
 * inputs near N(0, 1) of the largest cell's size, a prefix per input. */
static int bench_case(const char *name, int threads)
{
    fb_case c;
    if (fb_case_find(name, &c) != FB_OK) {
        fprintf(stderr, "%s\n", fb_last_error());
        return 1;
    }
    int64_t most[FB_MAX_VALUES] = {0};
    const int n = fb_case_n_points(&c);
    for (int i = 0; i < n; i++) {
        fb_point p;
        fb_shape s[FB_MAX_VALUES];
        fb_case_point(&c, i, &p);
        if (fb_program_shapes(&c, &p, s) != FB_OK) return 1;
        for (int v = 0; v < c.n_inputs; v++)
            if (fb_shape_numel(&s[v]) > most[v]) most[v] = fb_shape_numel(&s[v]);
    }
    float *in32[FB_MAX_VALUES] = {0};
    for (int v = 0; v < c.n_inputs; v++)
        if (!(in32[v] = bench_input(most[v] ? most[v] : 1, (uint64_t)v + 1))) return 1;
    double total = 0;
    for (int i = 0; i < n; i++) {
        fb_point p;
        fb_shape s[FB_MAX_VALUES];
        char pt[128];
        fb_case_point(&c, i, &p);
        if (fb_program_shapes(&c, &p, s) != FB_OK) return 1;
        printf("%-28s ", fb_point_str(&c, &p, pt, sizeof pt));
        total += bench_cell(&c, s, in32, threads, 0, true);
    }
    printf("%s: every cell's reference (%d cells), %d thread(s) asked: %.2f s\n", name, n, threads, total);
    for (int v = 0; v < c.n_inputs; v++) free(in32[v]);
    return 0;
}

/* Kept rows go as blocks when the plan allows (rmsnorm above: the same bits as
 * alone); a dropout's mask depends on each element's index, so its rows must be
 * evaluated where they are: kept rows of bias_dropout_add_train equal the whole
 * evaluation (gathered into a block they would draw the block's mask). */
static void test_positional_rows(void)
{
    fb_case c;
    if (!load("bias_dropout_add_train", &c)) return;
    fb_point p = at(&c, 40, 24);
    cell k;
    cell_make(&c, &p, &k);
    CHECK(k.rp.separable && !k.rp.accumulates);
    const int64_t per_row = fb_shape_numel(&k.rp.row_shape[c.outputs[0]]);
    int64_t keep[8];
    for (int j = 0; j < 8; j++) keep[j] = j * (k.rp.n_rows / 8) + (j % 3);
    double *out[FB_MAX_VALUES] = {0};
    host_src src = {.calls = 0};
    memcpy(src.in, k.in, sizeof src.in);
    CHECK(eval(&c, &k, keep, 8, 2, 0, &src, out, NULL) == FB_OK);
    int64_t bad = 0;
    for (int j = 0; j < 8; j++) bad += count_unequal(out[0] + j * per_row, k.whole[0] + keep[j] * per_row, per_row);
    CHECK(bad == 0);
    free(out[0]);
    cell_free(&k);
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "--bench-case")) return bench_case(argv[2], argc > 3 ? atoi(argv[3]) : 0);
    if (argc > 1 && (!strcmp(argv[1], "--bench") || !strcmp(argv[1], "--bench-grid")))
        return bench(!strcmp(argv[1], "--bench-grid"), argc > 2 ? atoi(argv[2]) : 0, argc > 3 ? atoll(argv[3]) : 0);
    test_backward_chunks();
    test_forward_rows();
    test_positional_rows();
    test_fetch_fails();
    test_check_plan();
    return fb_t_report("test_rowref");
}
