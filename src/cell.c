/* cell.c — one grid cell end to end.
 *
 * Order matters for honest numbers and for memory: inputs are allocated and
 * filled once (seeded, so every run sees the same data); the reference is built
 * from them before any variant runs; the speed-of-light copy of the cell's ideal
 * bytes is timed next, reusing the input and output buffers when they are large
 * enough; then each variant in turn sets up (eager plans its intermediates, a
 * fused variant gets its workspace), has its outputs poisoned, runs once to be
 * checked, is timed, and gives its memory back before the next one starts, so
 * one variant's footprint never crowds another into OOM. */
#include "cell.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clocks.h"
#include "eager.h"
#include "fb_random.h"
#include "metrics.h"
#include "primitives.h"
#include "result.h"
#include "variant.h"

typedef struct cell_state {
    const fb_cell_env *env;
    const fb_case *c;
    fb_dtype dt;
    fb_shape shapes[FB_MAX_VALUES];
    fb_costs costs;
    fb_tensor in[FB_MAX_VALUES], out[FB_MAX_VALUES];
    size_t base_bytes; /* device bytes in use before the cell (timer buffers) */
    double sol_ms;     /* NaN when unknown */
    fb_reference *ref;
} cell_state;

/* ---- runnables ------------------------------------------------------------ */
typedef struct eager_job {
    fb_eager *e;
    const fb_tensor *in;
    fb_tensor *out;
    cudaStream_t stream; /* the cell's, for the prepare step */
} eager_job;

static fb_status run_eager(void *self, cudaStream_t stream)
{
    eager_job *j = self;
    return fb_eager_run(j->e, j->in, j->out, stream);
}

/* fb_eager_prepare rebuilds every node's plan on each call */
static int eager_prepare_step(void *self)
{
    eager_job *j = self;
    return fb_eager_prepare(j->e, j->in, j->out, j->stream);
}

typedef struct fused_job {
    const fb_variant *v;
    fb_call call;
} fused_job;

static fb_status run_fused(void *self, cudaStream_t stream)
{
    fused_job *j = self;
    j->call.stream = stream;
    return (fb_status)j->v->run(&j->call);
}

static int sync_stream(void *stream)
{
    return fb_cuda_status(cudaStreamSynchronize((cudaStream_t)stream), "cudaStreamSynchronize (prepare)", __FILE__,
                          __LINE__);
}

typedef struct copy_job {
    void *dst;
    const void *src;
    size_t bytes;
} copy_job;

static fb_status run_copy(void *self, cudaStream_t stream)
{
    copy_job *j = self;
    FB_CUDA(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, stream));
    return FB_OK;
}

/* ---- helpers ----------------------------------------------------------------- */
static void set_status(json_t *vj, const char *status, const char *reason)
{
    json_object_set_new(vj, "status", json_string(status));
    if (reason && reason[0]) json_object_set_new(vj, "reason", json_string(reason));
}

/* The result's "wall_ms": where a cell's or variant's host time went, phase by
 * phase (seconds from fb_now_s, stored as ms), so a long run can be taken apart
 * from its result file. */
static void set_wall(json_t *wall, const char *phase, double t0, double t1)
{
    json_object_set_new(wall, phase, fb_json_real((t1 - t0) * 1e3));
}

/* An unchecked variant (mode none) has no "passed": it has "unchecked": why. */
static json_t *check_json(const fb_check_result *r)
{
    json_t *j = json_object();
    json_object_set_new(j, "mode", json_string(fb_check_mode_name(r->mode)));
    if (r->mode == FB_CHECK_NONE) {
        json_object_set_new(j, "unchecked", json_string(r->why[0] ? r->why : "no reference"));
        return j;
    }
    json_object_set_new(j, "passed", json_boolean(r->passed));
    if (r->mode == FB_CHECK_SAMPLED) {
        json_object_set_new(j, "rows_checked", json_integer(r->rows_checked));
        json_object_set_new(j, "rows_total", json_integer(r->rows_total));
    }
    if (r->mode != FB_CHECK_NONE) {
        json_object_set_new(j, "elements", json_integer(r->elements_checked));
        json_object_set_new(j, "max_abs", fb_json_real(r->max_abs));
        json_object_set_new(j, "max_rel", fb_json_real(r->max_rel));
        json_object_set_new(j, "bad", json_integer(r->n_bad));
        if (r->worst_index >= 0) {
            json_object_set_new(j, "worst_output", json_integer(r->worst_output));
            json_object_set_new(j, "worst_index", json_integer(r->worst_index));
            json_object_set_new(j, "got", fb_json_real(r->worst_got));
            json_object_set_new(j, "want", fb_json_real(r->worst_want));
        }
    }
    if (r->why[0]) json_object_set_new(j, "why", json_string(r->why));
    return j;
}

static void free_tensors(fb_tensor *t, int n)
{
    for (int i = 0; i < n; i++) {
        fb_dfree(t[i].data);
        t[i].data = NULL;
    }
}

static fb_status alloc_tensor(fb_tensor *t, const fb_shape *shape, fb_dtype dt)
{
    t->dtype = dt;
    t->shape = *shape;
    size_t bytes = (size_t)fb_shape_numel(shape) * fb_dtype_size(dt);
    return fb_dmalloc(&t->data, bytes ? bytes : 1);
}

static size_t tensor_bytes(const fb_tensor *t)
{
    return (size_t)fb_shape_numel(&t->shape) * fb_dtype_size(t->dtype);
}

/* Per-input stream key: every seed, and every input of a case, its own stream (fb_random.h). */
static uint64_t input_seed(uint64_t seed, int i) { return fb_fill_key(seed, (uint64_t)i); }

/* Times `r` with the cell's timer into *t, and every sample it took (in the
 * order taken, µs) into *samples_us: the result's "samples_us", NULL when there
 * is none to keep; *step (may be NULL): how far the samples stepped within the
 * measurement (fb_samples_step: NaN when too few). */
static fb_status measure(const fb_cell_env *env, const fb_runnable *r, fb_stats *t, json_t **samples_us, double *step,
                         json_t **clock)
{
    fb_timer *timer = env->timer;
    *samples_us = NULL;
    if (step) *step = NAN;
    if (clock) *clock = NULL;
    if (env->before_timing) env->before_timing(env->before_timing_arg);
    int cap = fb_timer_sample_cap(timer);
    double *x = malloc(sizeof *x * (size_t)cap);
    if (!x) {
        fb_error("out of host memory for %d timing samples", cap);
        return FB_E_NOMEM;
    }
    if (clock && env->clocks) {
        fb_clock_watch_probe_reset(env->clocks);
        fb_timer_set_probe(timer, fb_clock_watch_probe, env->clocks);
    }
    fb_status s = fb_timer_measure(timer, r, t, x, cap);
    fb_timer_set_probe(timer, NULL, NULL);
    if (s == FB_OK && clock && env->clocks) *clock = fb_clock_watch_probe_json(env->clocks);
    if (s == FB_OK) *samples_us = fb_samples_to_json(x, t->n < cap ? t->n : cap);
    if (s == FB_OK && step) *step = fb_samples_step(x, t->n < cap ? t->n : cap);
    free(x);
    return s;
}

/* run --metrics: the variant once more, its traffic and instructions counted
 * (metrics.c), after its timing so no timed sample runs under the profiler. A
 * failure costs the variant its "metrics" only: it is said in "metrics_error". */
static void collect_metrics(fb_metrics *m, const fb_runnable *r, json_t *vj)
{
    double v[FB_NMETRICS];
    fb_status s = fb_metrics_measure(m, r, v);
    json_t *mj = s == FB_OK ? fb_metrics_json(fb_metrics_mask(m), v) : NULL;
    if (mj) json_object_set_new(vj, "metrics", mj);
    else json_object_set_new(vj, "metrics_error", json_string(s == FB_OK ? "no value measured" : fb_last_error()));
}

/* ---- the speed of light ------------------------------------------------------ */
typedef struct sol_entry {
    size_t bytes;   /* the copy's half: bytes read (= bytes written) */
    json_t *sol;    /* the cell's "sol" as measured                  */
    double ms;      /* its median                                    */
} sol_entry;

struct fb_sol_cache {
    sol_entry *e;
    int n, cap;
};

fb_sol_cache *fb_sol_cache_create(void) { return calloc(1, sizeof(fb_sol_cache)); }

void fb_sol_cache_destroy(fb_sol_cache *cache)
{
    if (!cache) return;
    for (int i = 0; i < cache->n; i++) json_decref(cache->e[i].sol);
    free(cache->e);
    free(cache);
}

static const sol_entry *sol_find(const fb_sol_cache *cache, size_t bytes)
{
    for (int i = 0; cache && i < cache->n; i++)
        if (cache->e[i].bytes == bytes) return &cache->e[i];
    return NULL;
}

/* Remembers a measured copy; without memory for it, the next cell measures its own. */
static void sol_keep(fb_sol_cache *cache, size_t bytes, const json_t *sol, double ms, const char *where)
{
    if (!cache) return;
    if (cache->n == cache->cap) {
        int cap = cache->cap ? 2 * cache->cap : 64;
        sol_entry *e = realloc(cache->e, sizeof *e * (size_t)cap);
        if (!e) return;
        cache->e = e;
        cache->cap = cap;
    }
    json_t *copy = json_deep_copy(sol);
    if (!copy) return;
    json_object_set_new(copy, "measured_in", json_string(where));
    cache->e[cache->n++] = (sol_entry){bytes, copy, ms};
}

static void measure_sol(cell_state *st, json_t *cell, const char *where)
{
    st->sol_ms = NAN;
    size_t half = (size_t)(st->costs.ideal_bytes / 2);
    half &= ~(size_t)15;
    const sol_entry *had = sol_find(st->env->sol_cache, half);
    if (had) {
        json_object_set_new(cell, "sol", json_deep_copy(had->sol));
        st->sol_ms = had->ms;
        return;
    }
    json_t *sj = json_object();
    json_object_set_new(cell, "sol", sj);
    if (half == 0) {
        set_status(sj, "skipped", "no bytes to copy");
        return;
    }
    copy_job job = {0};
    void *own_src = NULL, *own_dst = NULL;
    const fb_case *c = st->c;
    if (tensor_bytes(&st->in[0]) >= half) job.src = st->in[0].data;
    if (c->n_outputs > 0 && tensor_bytes(&st->out[0]) >= half) job.dst = st->out[0].data;
    fb_status s = FB_OK;
    if (!job.src) s = fb_dmalloc(&own_src, half), job.src = own_src;
    if (s == FB_OK && !job.dst) s = fb_dmalloc(&own_dst, half), job.dst = own_dst;
    if (s == FB_OK) {
        job.bytes = half;
        fb_runnable r = {run_copy, &job, 1};
        fb_stats stats;
        json_t *samples;
        /* the graph timer's copy would be a copy-engine node (bench.h): events there; under
         * cupti the copy's own memcpy duration, as the variants' are theirs (a copy timed with
         * events against kernels timed by CUPTI put 3 us of event cost in every small cell's
         * % of SOL: kernels/NOTES.md, "Stop 36") */
        fb_timer_mode mode = fb_timer_set_mode(st->env->timer, FB_TIMER_EVENTS);
        if (mode != FB_TIMER_GRAPH) fb_timer_set_mode(st->env->timer, mode);
        s = measure(st->env, &r, &stats, &samples, NULL, NULL);
        fb_timer_set_mode(st->env->timer, mode);
        if (s == FB_OK) {
            set_status(sj, "ok", NULL);
            json_object_set_new(sj, "time_ms", fb_stats_to_json(&stats));
            json_object_set_new(sj, "gbps", fb_json_real(2.0 * (double)half / (stats.median * 1e-3) / 1e9));
            if (samples) json_object_set_new(sj, "samples_us", samples);
            st->sol_ms = stats.median;
            sol_keep(st->env->sol_cache, half, sj, stats.median, where);
        }
    }
    if (s != FB_OK) set_status(sj, s == FB_E_OOM ? "oom" : "error", fb_last_error());
    fb_dfree(own_src);
    fb_dfree(own_dst);
}

/* ---- setting a variant up, and its checked run ------------------------------------ */
/* Eager's plans for program c on in/out, prepared twice, the second timed (variant.h's
 * fb_prepare_twice) into *prepare_ms. */
static fb_status eager_setup(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt, fb_context *ctx,
                             const fb_tensor *in, fb_tensor *out, eager_job *j, double *prepare_ms)
{
    FB_TRY(fb_eager_create(c, shapes, dt, ctx, &j->e));
    *j = (eager_job){j->e, in, out, ctx->stream};
    return (fb_status)fb_prepare_twice(eager_prepare_step, j, sync_stream, ctx->stream, prepare_ms);
}

/* Registered variant `name` set up on `call`: where it cannot run here (unknown, not this dtype,
 * not this shape) vj's status says so and *ready stays false; else its workspace (into
 * *workspace, the caller's to free) and its prepare step, twice, the second timed as eager's
 * (fb_variant_prepare). From *ready on, j->call.state is the caller's to release. */
static fb_status fused_setup(const char *name, fb_dtype dt, fb_call call, fused_job *j, void **workspace, json_t *vj,
                             double *prepare_ms, bool *ready)
{
    *ready = false;
    const fb_variant *v = fb_variant_find(name);
    if (!v) {
        set_status(vj, "skipped", "no such variant");
        return FB_OK;
    }
    if (!(v->dtypes & FB_DTYPE_BIT(dt))) {
        char why[128];
        snprintf(why, sizeof why, "%s does not support %s", name, fb_dtype_name(dt));
        set_status(vj, "skipped", why);
        return FB_OK;
    }
    j->v = v;
    j->call = call;
    char why[256] = "";
    if (v->supports && v->supports(&j->call, why, sizeof why) != 0) {
        set_status(vj, "skipped", why[0] ? why : "shape not supported");
        return FB_OK;
    }
    *ready = true;
    size_t ws = v->workspace ? v->workspace(&j->call) : 0;
    fb_status s = ws ? fb_dmalloc(workspace, ws) : FB_OK;
    j->call.workspace = *workspace;
    j->call.workspace_bytes = ws;
    if (s == FB_OK) s = (fb_status)fb_variant_prepare(v, &j->call, sync_stream, call.stream, prepare_ms);
    return s;
}

/* The checked run: outputs poisoned first, so anything left unwritten fails. */
static fb_status checked_run(const fb_runnable *r, fb_tensor *out, int n_out, cudaStream_t stream)
{
    for (int k = 0; k < n_out; k++) FB_CUDA(fb_poison(&out[k], stream));
    FB_TRY(r->run(r->self, stream));
    return fb_cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize (checked run)", __FILE__, __LINE__);
}

/* --tf32: float32 products carry TF32's 10-bit mantissa, float16's, so float32 is held to the
 * case's float16 tolerance (which also covers storing in half) */
static fb_tol check_tol(const cell_state *st)
{
    return st->dt == FB_F32 && st->env->ctx->tf32 ? st->c->tol[FB_F16] : st->c->tol[st->dt];
}

/* ---- the paired measurement ------------------------------------------------------ */
/* The case's plain op (fb_case_floor: its first op alone, run by the case's "paired" variant, or
 * eager, on that op's inputs and a scratch output) timed in turn with a fused variant, sample by sample
 * (bench.h's fb_timer_measure_paired), into the variant's "paired": the floor's check against
 * its own float64 reference (a floor that fails it times nothing, and fails the run as a
 * variant would), the pairs' ratios (t_variant / t_floor) and each side's times. Costs the
 * variant only its "paired": what the variant measured alone stays. */
typedef struct floor_run {
    fb_case c;
    int in_of[FB_MAX_OPERANDS];
    fb_shape shapes[FB_MAX_VALUES];
    fb_tensor in[FB_MAX_OPERANDS]; /* the cell's own input tensors (not owned) */
    fb_tensor out;
    fb_reference *ref;
    void *workspace;
    fused_job job;     /* a registered variant as the floor ...                  */
    eager_job ej;      /* ... or "eager": the first op's own kernel (conv's cuDNN call) */
    fb_runnable floor; /* whichever it is */
} floor_run;

/* The floor's variant, or eager, set up and prepared into f->floor; FB_OK with *go false and pj's
 * status said when it cannot run here. */
static fb_status floor_prepare(cell_state *st, floor_run *f, json_t *pj, bool *go)
{
    const fb_cell_env *env = st->env;
    double prepare_ms = NAN;
    if (strcmp(st->c->paired, FB_EAGER) == 0) {
        FB_TRY(eager_setup(&f->c, f->shapes, st->dt, env->ctx, f->in, &f->out, &f->ej, &prepare_ms));
        f->floor = (fb_runnable){run_eager, &f->ej, fb_eager_launches(f->ej.e)};
    } else {
        const fb_call call = {f->in, f->c.n_inputs, &f->out, 1, NULL, 0, env->ctx->stream, env->ctx, &f->c};
        bool ready;
        fb_status s = fused_setup(st->c->paired, st->dt, call, &f->job, &f->workspace, pj, &prepare_ms, &ready);
        if (!ready) return s;
        FB_TRY(s);
        f->floor = (fb_runnable){run_fused, &f->job, f->job.v->launches};
        const char *note = f->job.v->note && f->job.call.state ? f->job.v->note(f->job.call.state) : NULL;
        if (note) json_object_set_new(pj, "floor_note", json_string(note));
    }
    if (isfinite(prepare_ms)) json_object_set_new(pj, "prepare_ms", fb_json_real(prepare_ms));
    *go = true;
    return FB_OK;
}

/* The floor set up on the cell's inputs and checked against its own reference; *go is true when
 * it passed and can be timed. */
static fb_status floor_setup(cell_state *st, floor_run *f, json_t *pj, bool *failed, bool *go)
{
    const fb_cell_env *env = st->env;
    const fb_case *c = st->c;
    *go = false;
    FB_TRY(fb_case_floor(c, &f->c, f->in_of));
    for (int j = 0; j < f->c.n_inputs; j++) {
        f->shapes[j] = st->shapes[f->in_of[j]];
        f->in[j] = st->in[f->in_of[j]];
    }
    f->shapes[f->c.outputs[0]] = st->shapes[c->nodes[0].out];
    /* the output first: a variant's supports() reads its shape */
    FB_TRY(alloc_tensor(&f->out, &f->shapes[f->c.outputs[0]], st->dt));
    FB_TRY(floor_prepare(st, f, pj, go));
    if (!*go) return FB_OK;
    *go = false;
    FB_TRY(fb_reference_create(&f->c, f->shapes, st->dt, f->in, env->full_limit, &f->ref));
    FB_TRY(checked_run(&f->floor, &f->out, 1, env->ctx->stream)); /* as a variant's */
    fb_check_result chk;
    FB_TRY(fb_check_outputs(f->ref, &f->out, check_tol(st), &chk));
    json_object_set_new(pj, "check", check_json(&chk));
    if (chk.mode != FB_CHECK_NONE && !chk.passed) {
        *failed = true;
        set_status(pj, "fail", chk.why);
        return FB_OK;
    }
    *go = true;
    return FB_OK;
}

static fb_status measure_paired(cell_state *st, const fb_runnable *fused, json_t *vj, bool *failed)
{
    json_t *pj = json_object();
    json_object_set_new(vj, "paired", pj);
    json_object_set_new(pj, "floor", json_string(st->c->paired));
    floor_run *f = calloc(1, sizeof *f);
    if (!f) {
        set_status(pj, "oom", "out of host memory for the paired floor");
        return FB_OK;
    }
    bool go = false;
    const double t0 = fb_now_s();
    fb_status s = floor_setup(st, f, pj, failed, &go);
    if (s == FB_OK && go) {
        const int cap = fb_timer_sample_cap(st->env->timer);
        double *x = malloc(sizeof *x * (size_t)cap);
        fb_paired pr;
        if (!x) {
            fb_error("out of host memory for %d paired samples", cap);
            s = FB_E_NOMEM;
        }
        if (s == FB_OK) s = fb_timer_measure_paired(st->env->timer, &f->floor, fused, &pr, x, cap);
        if (s == FB_OK) {
            set_status(pj, "ok", NULL);
            json_object_set_new(pj, "n", json_integer(pr.n));
            /* the pairs' ratios: the headline, the median */
            json_object_set_new(pj, "ratio", fb_stats_to_json(&pr.ratio));
            const double step = fb_samples_step(x, pr.n < cap ? pr.n : cap);
            if (isfinite(step)) json_object_set_new(pj, "ratio_step_pct", fb_json_real(step * 100.0));
            json_object_set_new(pj, "floor_ms", fb_stats_to_json(&pr.floor));
            json_object_set_new(pj, "time_ms", fb_stats_to_json(&pr.time));
            /* every pair's ratio, for compare --paired's interval */
            json_t *rs = fb_ratios_to_json(x, pr.n < cap ? pr.n : cap);
            if (rs) json_object_set_new(pj, "ratio_samples", rs);
            const int timeouts = fb_timer_last_timeouts(st->env->timer);
            if (timeouts) json_object_set_new(pj, "timer_timeouts", json_integer(timeouts));
        }
        free(x);
    }
    if (s != FB_OK) {
        set_status(pj, s == FB_E_OOM ? "oom" : (s == FB_E_UNSUPPORTED ? "skipped" : "error"), fb_last_error());
        /* the variant's own numbers stand; a CUDA error is still the cell's to stop on */
        if (s == FB_E_OOM || s == FB_E_UNSUPPORTED || s == FB_E_NOMEM || s == FB_E_CASE) s = FB_OK;
    }
    json_t *wall = json_object();
    set_wall(wall, "total", t0, fb_now_s());
    json_object_set_new(pj, "wall_ms", wall);
    if (f->job.v) fb_variant_release(f->job.v, &f->job.call);
    if (f->ej.e) fb_eager_destroy(f->ej.e);
    fb_reference_destroy(f->ref);
    fb_dfree(f->workspace);
    free_tensors(&f->out, 1);
    free(f);
    return s;
}

/* ---- one variant ----------------------------------------------------------------- */
/* Determinism (selftest): the outputs of a second run, from freshly poisoned buffers, must
 * be the same bits as the first's: a variant whose reductions depend on scheduling (atomics,
 * a split that varies) fails here even when both runs are within tolerance. */
static fb_status same_bits_again(cell_state *st, const fb_runnable *r, char *why, size_t n)
{
    const fb_case *c = st->c;
    cudaStream_t stream = st->env->ctx->stream;
    fb_status s = FB_OK;
    for (int k = 0; k < c->n_outputs && s == FB_OK && !why[0]; k++) {
        size_t bytes = (size_t)fb_shape_numel(&st->out[k].shape) * fb_dtype_size(st->out[k].dtype);
        unsigned char *a = malloc(bytes ? bytes : 1), *b = malloc(bytes ? bytes : 1);
        if (!a || !b) {
            fb_error("out of host memory for the determinism check");
            s = FB_E_NOMEM;
        }
        if (s == FB_OK)
            s = fb_cuda_status(cudaMemcpy(a, st->out[k].data, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (repeat)",
                               __FILE__, __LINE__);
        for (int j = 0; j < c->n_outputs && s == FB_OK; j++)
            s = fb_cuda_status(fb_poison(&st->out[j], stream), "fb_poison", __FILE__, __LINE__);
        if (s == FB_OK) s = r->run(r->self, stream);
        if (s == FB_OK) s = fb_cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize (repeat)",
                                           __FILE__, __LINE__);
        if (s == FB_OK)
            s = fb_cuda_status(cudaMemcpy(b, st->out[k].data, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (repeat)",
                               __FILE__, __LINE__);
        if (s == FB_OK && memcmp(a, b, bytes) != 0) {
            size_t diff = 0;
            for (size_t i = 0; i < bytes; i++) diff += a[i] != b[i];
            snprintf(why, n, "not deterministic: output %d ('%s') differs in %zu of %zu bytes between two runs", k,
                     c->values[c->outputs[k]].name, diff, bytes);
        }
        free(a);
        free(b);
    }
    return s;
}

static fb_status run_variant(cell_state *st, const char *name, json_t *vj, bool *failed)
{
    const fb_cell_env *env = st->env;
    const fb_case *c = st->c;
    cudaStream_t stream = env->ctx->stream;
    fb_dmem_reset_peak();

    eager_job ej = {0};
    fused_job fj = {0};
    fb_runnable r = {0};
    void *workspace = NULL;
    int kernels = 1;
    double prepare_ms = NAN;
    fb_status s = FB_OK;
    const double t_begin = fb_now_s();

    if (strcmp(name, FB_EAGER) == 0) {
        char why[256];
        if (fb_reference_overflow(st->ref, why, sizeof why)) {
            char reason[300];
            snprintf(reason, sizeof reason, "eager cannot store this in %s: %s", fb_dtype_name(st->dt), why);
            set_status(vj, "skipped", reason);
            return FB_OK;
        }
        s = eager_setup(c, st->shapes, st->dt, env->ctx, st->in, st->out, &ej, &prepare_ms);
        if (ej.e) {
            kernels = fb_eager_launches(ej.e);
            r = (fb_runnable){run_eager, &ej, kernels};
        }
    } else {
        const fb_call call = {st->in, c->n_inputs, st->out, c->n_outputs, NULL, 0, stream, env->ctx, c};
        bool ready;
        s = fused_setup(name, st->dt, call, &fj, &workspace, vj, &prepare_ms, &ready);
        if (!ready) return s;
        kernels = fj.v->launches > 0 ? fj.v->launches : 1;
        r = (fb_runnable){run_fused, &fj, kernels};
    }

    const double t_prepared = fb_now_s();
    if (s == FB_OK) s = checked_run(&r, st->out, c->n_outputs, stream);
    size_t footprint = fb_dmem_current() - st->base_bytes;
    fb_check_result chk;
    if (s == FB_OK) s = fb_check_outputs(st->ref, st->out, check_tol(st), &chk);
    char differs[160] = "";
    if (s == FB_OK && env->repeat && chk.passed) s = same_bits_again(st, &r, differs, sizeof differs);
    const double t_checked = fb_now_s();
    if (s == FB_OK) {
        json_object_set_new(vj, "check", check_json(&chk));
        /* unchecked stays "ok" (it ran), and check.unchecked says it is not known correct */
        bool wrong = (chk.mode != FB_CHECK_NONE && !chk.passed) || differs[0];
        if (wrong) *failed = true;
        const char *note = fj.v && fj.v->note && fj.call.state ? fj.v->note(fj.call.state) : NULL;
        set_status(vj, wrong ? "fail" : "ok", differs[0] ? differs : wrong ? chk.why : note);
        json_object_set_new(vj, "kernels", json_integer(kernels));
        if (isfinite(prepare_ms)) json_object_set_new(vj, "prepare_ms", fb_json_real(prepare_ms));
        json_t *samples = NULL;
        if (env->time) {
            fb_stats t;
            double step;
            json_t *clock;
            s = measure(env, &r, &t, &samples, &step, &clock);
            if (s == FB_OK) {
                double sec = t.median * 1e-3;
                /* the clock changed inside the measurement (clocks.h, "the step detector") */
                if (isfinite(step)) json_object_set_new(vj, "step_pct", fb_json_real(step * 100.0));
                /* the SM clock its batches ran at (clocks.h, fb_clock_watch_probe) */
                if (clock) json_object_set_new(vj, "sm_clock_mhz", clock);
                json_object_set_new(vj, "time_ms", fb_stats_to_json(&t));
                json_object_set_new(vj, "gbps", fb_json_real(st->costs.ideal_bytes / sec / 1e9));
                json_object_set_new(vj, "tflops", fb_json_real(st->costs.flops / sec / 1e12));
                json_object_set_new(vj, "sol_pct", fb_json_real(st->sol_ms / t.median * 100.0));
                /* --timer cupti: what the variant launched, measured, and the span beside the sum */
                const int timeouts = fb_timer_last_timeouts(env->timer);
                if (timeouts) json_object_set_new(vj, "timer_timeouts", json_integer(timeouts));
                const fb_timer_kernels *kl = fb_timer_last_kernels(env->timer);
                if (kl) {
                    json_object_set_new(vj, "kernels_launched", fb_kernels_launched_json(kl));
                    json_object_set_new(vj, "span_ms", fb_stats_to_json(&kl->span));
                }
                if (env->metrics) collect_metrics(env->metrics, &r, vj);
                /* the fused variants of a case that names its plain op, timed in pairs with it */
                if (env->paired && fb_case_pairs(c, name))
                    s = measure_paired(st, &r, vj, failed);
            }
        }
        const double t_end = fb_now_s();
        json_t *wall = json_object();
        set_wall(wall, "prepare", t_begin, t_prepared);
        set_wall(wall, "check", t_prepared, t_checked);
        if (env->time) set_wall(wall, "time", t_checked, t_end);
        set_wall(wall, "total", t_begin, t_end);
        json_object_set_new(vj, "wall_ms", wall);
        json_object_set_new(vj, "footprint_bytes", json_integer((json_int_t)footprint));
        json_object_set_new(vj, "peak_bytes", json_integer((json_int_t)(fb_dmem_peak() - st->base_bytes)));
        /* last: the one long line of the entry */
        if (samples) json_object_set_new(vj, "samples_us", samples);
    }
    if (s != FB_OK) {
        set_status(vj, s == FB_E_OOM ? "oom" : (s == FB_E_UNSUPPORTED ? "skipped" : "error"), fb_last_error());
        if (s == FB_E_OOM || s == FB_E_UNSUPPORTED) s = FB_OK;
    }
    if (ej.e) fb_eager_destroy(ej.e);
    if (fj.v) fb_variant_release(fj.v, &fj.call);
    fb_dfree(workspace);
    return s;
}

fb_status fb_cell_run(const fb_cell_env *env, const fb_case *c, fb_dtype dt, const fb_point *p,
                      const char *const *variants, int n_variants, json_t *cell, bool *failed)
{
    cell_state st = {.env = env, .c = c, .dt = dt, .sol_ms = NAN};
    cudaStream_t stream = env->ctx->stream;

    json_object_set_new(cell, "row", json_integer(p->sym[c->axis[0].sym]));
    if (c->n_axes > 1) json_object_set_new(cell, "col", json_integer(p->sym[c->axis[1].sym]));
    json_t *pj = json_object();
    for (int i = 0; i < c->n_syms; i++) json_object_set_new(pj, c->sym[i], json_integer(p->sym[i]));
    json_object_set_new(cell, "point", pj);
    json_t *vars = json_object();
    json_object_set_new(cell, "variants", vars);

    FB_TRY(fb_program_shapes(c, p, st.shapes));
    FB_TRY(fb_program_costs(c, st.shapes, dt, &st.costs));
    json_object_set_new(cell, "shapes", fb_result_shapes_json(c, st.shapes));
    /* integers: 9 significant digits of a real would round 34359738368 to 34359738400 */
    json_object_set_new(cell, "ideal_bytes", json_integer((json_int_t)st.costs.ideal_bytes));
    json_object_set_new(cell, "flops", json_integer((json_int_t)st.costs.flops));

    const double t_begin = fb_now_s();
    char pt[128]; /* "dim0=128 dim1=256": the cell in messages and in a shared copy's measured_in */
    fb_point_str(c, p, pt, sizeof pt);
    fb_set_context("case %s, %s, cell %s", c->name, fb_dtype_name(dt), pt);
    json_t *wall = json_object();
    json_object_set_new(cell, "wall_ms", wall);
    st.base_bytes = fb_dmem_current();
    fb_dmem_reset_peak();
    fb_status s = FB_OK;
    for (int i = 0; i < c->n_inputs && s == FB_OK; i++) s = alloc_tensor(&st.in[i], &st.shapes[i], dt);
    for (int k = 0; k < c->n_outputs && s == FB_OK; k++)
        s = alloc_tensor(&st.out[k], &st.shapes[c->outputs[k]], dt);
    for (int i = 0; i < c->n_inputs && s == FB_OK; i++)
        s = fb_cuda_status(fb_fill(&st.in[i], c->values[i].init, input_seed(env->seed, i), stream), "fb_fill",
                           __FILE__, __LINE__);
    if (s == FB_OK) s = fb_cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize (inputs)", __FILE__, __LINE__);
    const double t_inputs = fb_now_s();
    set_wall(wall, "inputs", t_begin, t_inputs);
    if (s == FB_OK) s = fb_reference_create(c, st.shapes, dt, st.in, env->full_limit, &st.ref);
    const double t_reference = fb_now_s();
    set_wall(wall, "reference", t_inputs, t_reference);

    if (s == FB_OK) {
        if (env->time) {
            char where[256];
            snprintf(where, sizeof where, "%s, %s, %s", c->name, fb_dtype_name(dt), pt);
            /* its messages name this cell, not the last variant's */
            fb_set_context("case %s, %s, cell %s, the speed-of-light copy", c->name, fb_dtype_name(dt), pt);
            measure_sol(&st, cell, where);
            set_wall(wall, "sol", t_reference, fb_now_s());
        }
        for (int v = 0; v < n_variants && s == FB_OK; v++) {
            json_t *vj = json_object();
            json_object_set_new(vars, variants[v], vj);
            fb_set_context("case %s, %s, cell %s, variant %s", c->name, fb_dtype_name(dt), pt, variants[v]);
            s = run_variant(&st, variants[v], vj, failed);
        }
    } else {
        /* the cell could not be set up: every variant shares its fate */
        const char *status = s == FB_E_OOM ? "oom" : "error";
        for (int v = 0; v < n_variants; v++) {
            json_t *vj = json_object();
            set_status(vj, status, fb_last_error());
            json_object_set_new(vars, variants[v], vj);
        }
        if (s == FB_E_OOM) s = FB_OK;
    }
    fb_reference_destroy(st.ref);
    free_tensors(st.in, c->n_inputs);
    free_tensors(st.out, c->n_outputs);
    set_wall(wall, "total", t_begin, fb_now_s());
    return s;
}
