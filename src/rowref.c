/* rowref.c — the reference over a row plan's rows, in chunks, on several threads
 * (rowref.h says what it gives).
 *
 * A chunk is a *box* of rows: the split axes before some axis m fixed, axis m
 * over a range, the ones after it whole. Under the plan's rule (every value that
 * carries split axes leads with them, in plan order: rp->boxes) a box is one
 * contiguous slice of every value, so the interpreter runs on the box's shapes as
 * it would on the whole tensors: one fetch per input per chunk, one pass per node
 * over many rows, and a sum along a split axis inside the box gives the box's
 * part of a partial value. Without that order a chunk is one row. Rows per chunk
 * follow from a budget of doubles over all values, never from the thread count.
 * Sampled rows (no sums over rows) go as blocks of kept rows where the plan
 * allows (can_gather): fetched row by row into one box, evaluated at once, so
 * an op that reads a whole input per row (a GEMM's B) reads it once a block.
 *
 * Determinism: chunks are claimed in row order and each one's parts of the
 * partial values are added into the totals in chunk order (a turnstile: chunk i
 * waits until chunks 0..i-1 are in), so every total is the same sum in the same
 * order however many threads ran. Row outputs go straight to their places
 * (disjoint), peaks combine by max. Memory: each thread holds one chunk of every
 * value; partial values are held whole (they lack at least one split axis). */
#include "rowref.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_table.h"
#include "parallel.h"

#define DEFAULT_CHUNK_ELEMS ((int64_t)1 << 19) /* 4 MiB of doubles per thread */
#define MAX_THREADS 64

typedef struct engine {
    const fb_rowref_job *job;
    const fb_case *c;
    const fb_rowplan *rp;
    bool every_row;  /* evaluate every row (else only job->keep's)                */
    bool gather;     /* kept rows len at a time, as one block (can_gather)        */
    int m;           /* the split axis a chunk ranges over                         */
    int64_t len;     /* its range per chunk                                        */
    int64_t inner;   /* rows per index of axis m                                   */
    int64_t per_prefix; /* chunks per index of the axes before m                   */
    int64_t n_units;    /* chunks (every_row) or kept rows                         */
    bool carries[FB_MAX_VALUES];      /* has some split axis                        */
    int64_t buf_numel[FB_MAX_VALUES]; /* a chunk's largest slice of it              */
    double *shared[FB_MAX_VALUES];    /* inputs without split axes: fetched once    */
    double *total[FB_MAX_VALUES];     /* partial values: the sum of the chunks in so far */
    bool own_total[FB_MAX_VALUES];

    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t next;   /* the next unit to claim */
    int64_t merged; /* units whose parts are in the totals */
    bool failed;
    fb_status status;
    char msg[1024];
    char context[512]; /* the caller's fb_set_context, for the workers' messages */
    int child_budget;  /* threads each worker's ops may use (parallel.h)           */
} engine;

typedef struct worker {
    engine *e;
    double *buf[FB_MAX_VALUES];
    double peak[FB_MAX_VALUES];
} worker;

typedef struct box {
    int64_t r0, n_rows, lo, len;
    int64_t k0; /* gathered: the block's first row, as an index into job->keep */
} box;

/* ---- chunk geometry ------------------------------------------------------------ */

/* Sampled rows are evaluated len at a time as one block: each row's slices are
 * fetched into consecutive places, and the block is evaluated as a box of len
 * rows along the last split axis. Row by row, a GEMM's sampled rows each read
 * all of B (K x N doubles: 1 GiB at K = 8192, N = 16384) from memory; a block
 * reads it once. Each row's numbers are the same as alone when every value with
 * a split axis has the last one (its row slices then stack along it) and no
 * node's reference depends on where its rows are (fb_op_kind.positional). */
static bool can_gather(const engine *e)
{
    const fb_rowplan *rp = e->rp;
    if (e->every_row || !rp->boxes || rp->accumulates) return false;
    const int last = rp->n_split - 1;
    for (int v = 0; v < e->c->n_values; v++)
        if (e->carries[v] && rp->stride[v][last] == 0) return false;
    for (int i = 0; i < e->c->n_nodes; i++) {
        const fb_op_kind *k = fb_node_kind(&e->c->nodes[i]);
        if (!k || k->positional) return false;
    }
    return true;
}

static void geometry(engine *e, const fb_shape *shapes, int64_t budget)
{
    const fb_case *c = e->c;
    const fb_rowplan *rp = e->rp;
    int64_t per_row = 0, fixed = 0;
    for (int v = 0; v < c->n_values; v++) {
        for (int s = 0; s < rp->n_split; s++) e->carries[v] |= rp->stride[v][s] != 0;
        if (e->carries[v]) per_row += fb_shape_numel(&rp->row_shape[v]);
        else if (v >= c->n_inputs) fixed += fb_shape_numel(&shapes[v]);
    }
    int64_t rows = per_row > 0 && budget > fixed ? (budget - fixed) / per_row : 1;
    if (rows < 1) rows = 1;
    const int last = rp->n_split - 1;
    e->m = last;
    e->inner = 1;
    e->len = 1;
    if (rp->boxes && e->every_row) {
        while (e->m > 0 && e->inner * rp->split_size[e->m] <= rows) e->inner *= rp->split_size[e->m--];
        e->len = rows / e->inner;
        if (e->len > rp->split_size[e->m]) e->len = rp->split_size[e->m];
    }
    e->per_prefix = (rp->split_size[e->m] + e->len - 1) / e->len;
    int64_t prefixes = 1;
    for (int s = 0; s < e->m; s++) prefixes *= rp->split_size[s];
    e->n_units = e->every_row ? prefixes * e->per_prefix : e->job->n_keep;
    e->gather = can_gather(e);
    if (e->gather) { /* blocks of kept rows, as many as the threads at least */
        const int64_t n_keep = e->job->n_keep;
        const int64_t threads = e->job->threads > 0 ? e->job->threads : fb_parallel_budget();
        const int64_t per_thread = (n_keep + threads - 1) / threads;
        e->len = rows < per_thread ? rows : per_thread;
        if (e->len < 1) e->len = 1;
        e->n_units = (n_keep + e->len - 1) / e->len;
    }
}

static box unit_box(const engine *e, int64_t i)
{
    box b;
    const int64_t size_m = e->rp->split_size[e->m];
    b.k0 = 0;
    if (e->gather) { /* kept rows k0 .. k0 + len - 1, one block */
        b.k0 = i * e->len;
        b.r0 = e->job->keep[b.k0];
        b.lo = b.r0 % size_m;
        b.len = b.n_rows = e->job->n_keep - b.k0 < e->len ? e->job->n_keep - b.k0 : e->len;
        return b;
    }
    if (!e->every_row) { /* a kept row alone */
        b.r0 = e->job->keep[i];
        b.lo = b.r0 % size_m;
        b.len = b.n_rows = 1;
        return b;
    }
    const int64_t p = i / e->per_prefix, q = i % e->per_prefix;
    b.lo = q * e->len;
    b.len = size_m - b.lo < e->len ? size_m - b.lo : e->len;
    b.r0 = (p * size_m + b.lo) * e->inner;
    b.n_rows = b.len * e->inner;
    return b;
}

/* Value v's slice of a box: split axes before m are 1, m is the range, the rest whole. */
static fb_shape box_shape(const engine *e, const fb_shape *full, int v, int64_t len)
{
    fb_shape s = *full;
    for (int j = 0; j < s.rank; j++) {
        int a = e->rp->split_dim[v][j];
        if (a < 0) continue;
        s.dim[j] = a < e->m ? 1 : a == e->m ? len : full->dim[j];
    }
    return s;
}

/* ---- one chunk ----------------------------------------------------------------------- */

static int64_t lower_bound(const int64_t *a, int64_t n, int64_t x)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Row r0's index along split axis s. */
static int64_t index_along(const fb_rowplan *rp, int64_t r, int s)
{
    for (int t = rp->n_split - 1; t > s; t--) r /= rp->split_size[t];
    return r % rp->split_size[s];
}

static fb_status run_unit(engine *e, worker *w, const box *b, fb_shape *cs, int64_t *base)
{
    const fb_rowref_job *job = e->job;
    const fb_case *c = e->c;
    const fb_rowplan *rp = e->rp;
    double *vals[FB_MAX_VALUES] = {0};
    fb_status s = FB_OK;
    for (int v = 0; v < c->n_values; v++) {
        cs[v] = box_shape(e, &job->shapes[v], v, b->len);
        base[v] = fb_rowplan_offset(rp, v, b->r0);
        vals[v] = e->shared[v] ? e->shared[v] : w->buf[v];
    }
    for (int v = 0; v < c->n_inputs && s == FB_OK; v++) {
        if (e->shared[v]) continue;
        if (!e->gather) {
            s = job->fetch(job->fetch_ctx, v, base[v], fb_shape_numel(&cs[v]), vals[v]);
            continue;
        }
        const int64_t n = fb_shape_numel(&rp->row_shape[v]); /* one row's slice, row after row */
        for (int64_t g = 0; g < b->n_rows && s == FB_OK; g++)
            s = job->fetch(job->fetch_ctx, v, fb_rowplan_offset(rp, v, job->keep[b->k0 + g]), n, vals[v] + g * n);
    }
    if (s == FB_OK) s = fb_reference_eval_values(c, cs, base, vals, w->peak);
    if (s != FB_OK) return s;

    for (int k = 0; k < c->n_outputs; k++) {
        const int v = c->outputs[k];
        if (rp->partial[v]) continue;
        if (e->gather) { /* the block's rows are kept rows k0.., in order */
            const int64_t n = fb_shape_numel(&rp->row_shape[v]);
            memcpy(job->out[k] + b->k0 * n, vals[v], (size_t)(b->n_rows * n) * sizeof(double));
        } else if (job->keep) {
            const int64_t n = fb_shape_numel(&rp->row_shape[v]);
            for (int64_t j = lower_bound(job->keep, job->n_keep, b->r0);
                 j < job->n_keep && job->keep[j] < b->r0 + b->n_rows; j++)
                memcpy(job->out[k] + j * n, vals[v] + (fb_rowplan_offset(rp, v, job->keep[j]) - base[v]),
                       (size_t)n * sizeof(double));
        } else {
            /* rows that differ only along axes v lacks share its slice: the chunk
             * whose first row is 0 along all of them writes it, once */
            bool owner = true;
            for (int a = 0; a < rp->n_split; a++)
                if (rp->stride[v][a] == 0 && index_along(rp, b->r0, a) != 0) owner = false;
            if (owner) memcpy(job->out[k] + base[v], vals[v], (size_t)fb_shape_numel(&cs[v]) * sizeof(double));
        }
    }
    return FB_OK;
}

static void merge(engine *e, worker *w, const fb_shape *cs, const int64_t *base)
{
    for (int v = 0; v < e->c->n_values; v++) {
        if (!e->rp->partial[v]) continue;
        const double *src = e->shared[v] ? e->shared[v] : w->buf[v];
        double *dst = e->total[v] + base[v];
        const int64_t n = fb_shape_numel(&cs[v]);
        for (int64_t i = 0; i < n; i++) dst[i] += src[i];
    }
}

static void fail(engine *e, fb_status s)
{
    pthread_mutex_lock(&e->mu);
    if (!e->failed) {
        e->failed = true;
        e->status = s;
        snprintf(e->msg, sizeof e->msg, "%s", fb_last_error());
    }
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

static void *work(void *arg)
{
    worker *w = arg;
    engine *e = w->e;
    const fb_case *c = e->c;
    fb_set_context("%s", e->context);
    /* each chunk's ops get this thread's share of the CPUs (parallel.h) */
    fb_parallel_set_budget(e->child_budget);
    for (int v = 0; v < c->n_values; v++) {
        if (e->shared[v]) continue;
        w->buf[v] = malloc((size_t)(e->buf_numel[v] ? e->buf_numel[v] : 1) * sizeof(double));
        if (!w->buf[v]) {
            fb_error("out of host memory for the reference (a chunk of '%s')", c->values[v].name);
            fail(e, FB_E_NOMEM);
            return NULL;
        }
    }
    fb_shape cs[FB_MAX_VALUES];
    int64_t base[FB_MAX_VALUES];
    for (;;) {
        pthread_mutex_lock(&e->mu);
        const int64_t i = e->next;
        const bool stop = e->failed || i >= e->n_units;
        if (!stop) e->next++;
        pthread_mutex_unlock(&e->mu);
        if (stop) break;

        const box b = unit_box(e, i);
        fb_status s = run_unit(e, w, &b, cs, base);
        if (s != FB_OK) {
            fail(e, s);
            break;
        }
        if (!e->rp->accumulates) continue;
        /* the turnstile: chunk i's parts go in after chunk i - 1's */
        pthread_mutex_lock(&e->mu);
        while (!e->failed && e->merged != i) pthread_cond_wait(&e->cv, &e->mu);
        const bool go = !e->failed;
        pthread_mutex_unlock(&e->mu);
        if (!go) break;
        merge(e, w, cs, base);
        pthread_mutex_lock(&e->mu);
        e->merged = i + 1;
        pthread_cond_broadcast(&e->cv);
        pthread_mutex_unlock(&e->mu);
    }
    return NULL;
}

/* ---- the job ----------------------------------------------------------------------------- */

void fb_rowref_chunking(const fb_case *c, const fb_shape *shapes, const fb_rowplan *rp, int64_t chunk_elems,
                        int64_t *rows_per_chunk, int64_t *chunks)
{
    fb_rowref_job job = {.c = c, .shapes = shapes, .rp = rp};
    engine e = {.job = &job, .c = c, .rp = rp, .every_row = true};
    geometry(&e, shapes, chunk_elems > 0 ? chunk_elems : DEFAULT_CHUNK_ELEMS);
    *rows_per_chunk = e.len * e.inner;
    *chunks = e.n_units;
}

static int thread_count(int asked, int64_t units)
{
    long n = asked > 0 ? asked : fb_parallel_budget();
    if (n > MAX_THREADS) n = MAX_THREADS;
    if (n > units) n = (long)(units > 0 ? units : 1);
    return (int)n;
}

fb_status fb_rowref_eval(const fb_rowref_job *job)
{
    const fb_case *c = job->c;
    const fb_rowplan *rp = job->rp;
    if (!rp->separable || rp->n_split < 1 || (!job->keep && job->n_keep)) {
        fb_error("the row reference needs a separable row plan");
        return FB_E_CASE;
    }
    engine *e = calloc(1, sizeof *e);
    worker *w = calloc(MAX_THREADS, sizeof *w);
    if (!e || !w) {
        free(e);
        free(w);
        fb_error("out of host memory for the reference");
        return FB_E_NOMEM;
    }
    e->job = job;
    e->c = c;
    e->rp = rp;
    e->every_row = !job->keep || rp->accumulates;
    snprintf(e->context, sizeof e->context, "%s", fb_context_str());
    geometry(e, job->shapes, job->chunk_elems > 0 ? job->chunk_elems : DEFAULT_CHUNK_ELEMS);
    fb_status s = FB_OK;
    for (int v = 0; v < c->n_values; v++) { /* the largest box: a full range along m */
        fb_shape sh = box_shape(e, &job->shapes[v], v, e->len);
        e->buf_numel[v] = fb_shape_numel(&sh);
    }

    /* inputs no row splits are read whole, once */
    for (int v = 0; v < c->n_inputs && s == FB_OK; v++) {
        if (e->carries[v]) continue;
        int64_t n = fb_shape_numel(&job->shapes[v]);
        e->shared[v] = malloc((size_t)(n ? n : 1) * sizeof(double));
        if (!e->shared[v]) {
            fb_error("out of host memory for the reference (input '%s')", c->values[v].name);
            s = FB_E_NOMEM;
        } else {
            s = job->fetch(job->fetch_ctx, v, 0, n, e->shared[v]);
        }
    }
    /* the partial values' totals: an output's in its caller's buffer */
    for (int v = c->n_inputs; v < c->n_values && s == FB_OK; v++) {
        if (!rp->partial[v]) continue;
        const int64_t n = fb_shape_numel(&job->shapes[v]);
        for (int k = 0; k < c->n_outputs && !e->total[v]; k++)
            if (c->outputs[k] == v) e->total[v] = job->out[k];
        if (e->total[v]) {
            memset(e->total[v], 0, (size_t)n * sizeof(double));
        } else {
            e->total[v] = calloc((size_t)(n ? n : 1), sizeof(double));
            e->own_total[v] = true;
            if (!e->total[v]) {
                fb_error("out of host memory for the reference (the sum over rows '%s')", c->values[v].name);
                s = FB_E_NOMEM;
            }
        }
    }

    const int n_threads = thread_count(job->threads, e->n_units);
    const int parent_budget = fb_parallel_budget();
    e->child_budget = fb_parallel_share(n_threads);
    if (s == FB_OK) {
        pthread_mutex_init(&e->mu, NULL);
        pthread_cond_init(&e->cv, NULL);
        pthread_t tid[MAX_THREADS];
        int started = 0;
        for (int t = 0; t < n_threads; t++) w[t].e = e;
        for (int t = 1; t < n_threads; t++) {
            if (pthread_create(&tid[t], NULL, work, &w[t]) != 0) break; /* fewer threads: same result */
            started = t;
        }
        work(&w[0]);
        fb_parallel_set_budget(parent_budget); /* work() gave this thread the workers' share */
        for (int t = 1; t <= started; t++) pthread_join(tid[t], NULL);
        pthread_cond_destroy(&e->cv);
        pthread_mutex_destroy(&e->mu);
        if (e->failed) {
            s = e->status;
            fb_error("%s", e->msg);
        }
    }

    if (s == FB_OK) {
        for (int k = 0; k < c->n_outputs; k++) {
            const int v = c->outputs[k];
            if (rp->partial[v] && e->total[v] != job->out[k])
                memcpy(job->out[k], e->total[v], (size_t)fb_shape_numel(&job->shapes[v]) * sizeof(double));
        }
        if (job->peak)
            for (int v = c->n_inputs; v < c->n_values; v++) {
                double p = job->peak[v];
                if (rp->partial[v]) {
                    const int64_t n = fb_shape_numel(&job->shapes[v]);
                    for (int64_t i = 0; i < n; i++)
                        if (isfinite(e->total[v][i]) && fabs(e->total[v][i]) > p) p = fabs(e->total[v][i]);
                } else {
                    for (int t = 0; t < n_threads; t++)
                        if (w[t].peak[v] > p) p = w[t].peak[v];
                }
                job->peak[v] = p;
            }
    }
    for (int t = 0; t < MAX_THREADS; t++)
        for (int v = 0; v < FB_MAX_VALUES; v++) free(w[t].buf[v]);
    for (int v = 0; v < FB_MAX_VALUES; v++) {
        free(e->shared[v]);
        if (e->own_total[v]) free(e->total[v]);
    }
    free(w);
    free(e);
    return s;
}
