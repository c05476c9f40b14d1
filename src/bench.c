/* bench.c — the timer: how fusionbench turns "run this variant" into a time.
 *
 * One SAMPLE is, on the timer's stream:
 *     flush(flush buffer)       per opts.flush; the buffer is >= 2x L2 (256 MiB at
 *                               least), so every sample starts with a cold L2:
 *                               clean = a read-only sweep kernel over it (leaves
 *                               clean lines, as ncu's cache control), write = the
 *                               sweep, then cudaMemsetAsync over it (do_bench's;
 *                               leaves L2 full of dirty lines the sample then writes
 *                               back), none = nothing. The sweep marks its lines
 *                               evict_last and then demotes them, so lines an
 *                               earlier kernel marked evict_last (Inductor's
 *                               reductions do) are evicted too: a memset alone
 *                               leaves them, and the next sample reads them from L2
 *                               (kernels/l2_sweep.cu)
 *     record(start[i])
 *     run(self, stream)         the variant: one or many kernel launches
 *     record(end[i])
 * The flush is never between start and end, so it is never part of the time.
 *
 * EVENTS mode (default), per measurement:
 *  1. one untimed run (lazy module loading, library handles, first-touch);
 *  2. an estimate: one sample, and four more if it is short; median;
 *  3. warm-up: ceil(warmup_ms / estimate) runs without the flush (clock ramp,
 *     library heuristics caches), stopped early if the host is the bottleneck;
 *  4. samples, in batches: set the host-mapped flag to 0, launch the blocking
 *     kernel (one thread spinning on that flag), queue as many samples as fit in
 *     ~500 queued operations (launches per run + memset + 2 event records; the
 *     stream's queue must never fill up while the GPU is held, or the host would
 *     block in a launch and deadlock until the blocking kernel's timeout), then
 *     set the flag to 1. The GPU then runs the whole batch back to back: an eager
 *     chain of many small kernels is timed as the GPU runs it, not as fast as the
 *     CPU launches it (nvbench's blocking kernel). A batch also stays under
 *     ~25 ms of GPU time so the stopping rules are checked often.
 *  5. stop when n_rep = clamp(rep_ms / estimate, min_samples, max_samples)
 *     samples are taken; or earlier once n >= max(min_samples, 20) and the
 *     median's relative noise (robust standard error / median) is below
 *     max_noise_pct; or when the measurement's wall time passes max_wall_s (with
 *     at least 3 samples).
 *  The result is fb_stats over every sample (ms); the median is the headline.
 *  If the blocking kernel gives up (2 s timeout: the variant queued more than
 *  it declared and the stream's queue filled, or it synchronises inside run()),
 *  the batch's samples are taken again in smaller batches, the queue budget
 *  halved for the rest of the run (run_batch); a batch of one is kept as timed.
 *  The timer warns once on stderr, and counts such batches per measurement
 *  (fb_timer_last_timeouts: the result's "timer_timeouts").
 *
 * GRAPH mode: K samples (flush memset or sweep, external event record, run, external
 * event record) are captured into one CUDA graph, instantiated once and replayed
 * until the same stopping rules hold; each replay yields K samples. Unlike
 * do_bench_cudagraph, the flush is inside the graph, between samples, so replays
 * do not measure a warm L2. Launch latency is gone by construction, so no
 * blocking kernel. A variant that cannot be captured is an FB_E_CUDA error.
 *
 * CUPTI mode: events mode's procedure, sample for sample, but each sample's
 * number is the summed GPU duration of the kernels, memcpys and memsets the
 * variant's run enqueued, from CUPTI's activity records (timer_cupti.c says
 * how a record is tied to its sample, and why the sum is the headline); the
 * flush, the blocking kernel and the events are not in it. libcupti is loaded
 * at run time: without it this mode is FB_E_UNSUPPORTED, naming what was
 * searched. fb_timer_last_kernels has the kernels the variant launched.
 *
 * Self-check (fb_timer_selfcheck): a spin kernel's event-timed median must agree
 * with the kernel's own %globaltimer duration (2% + 5 us launch allowance), and
 * a 16 MiB working set must time slower with each flush (write, clean) than
 * without one, and a run of 24 kernels declared as one launch must time as it
 * does declared honestly (check_queue). */
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "l2_sweep.h"
#include "timer_cupti.h"
#include "timing.h"

#define EV_PAIRS 512                 /* event pairs: the largest batch or graph       */
#define QUEUE_BUDGET 500             /* queued operations behind the blocking kernel  */
#define QUEUE_BUDGET_MIN 32          /* ... never halved below this                   */
#define BATCH_GPU_MS 25.0            /* GPU time per batch: stopping-rule granularity */
#define GRAPH_K_MAX 64               /* samples per captured graph                    */
#define BLOCK_TIMEOUT_NS 2000000000ull
#define MIN_FLUSH_BYTES ((size_t)256 << 20)

struct fb_timer {
    fb_device_info dev;
    fb_timer_opts opts;
    cudaStream_t stream;
    void *flush_buf;   /* holds zeros only: the clean sweep relies on it */
    size_t flush_bytes;
    unsigned *sweep_sink; /* the clean sweep's never-written word */
    double flush_ms[3];   /* GPU time of one flush, by fb_flush_mode, to size batches */
    cudaEvent_t start[EV_PAIRS], end[EV_PAIRS];
    int n_events;
    volatile int32_t *h_sync; /* [0] release flag, [1] timed-out flag: pinned, host-mapped */
    int32_t *d_sync;
    bool warned_timeout;
    int queue_budget; /* queued operations per batch: QUEUE_BUDGET, halved on a timeout */
    int timeouts;     /* batches of the current measurement the blocking kernel gave up on */
    void (*probe)(void *arg); /* fb_timer_set_probe: called while a measured batch runs */
    void *probe_arg;
    bool probing;             /* the samples phase of a measurement (not its estimate or warm-up) */
    fb_cupti_timer *cupti;                /* CUPTI mode's records, made on first use */
    const fb_timer_kernels *last_kernels; /* what the last CUPTI measurement saw    */
};

/* ---- options ------------------------------------------------------------- */

const char *fb_timer_mode_name(fb_timer_mode m)
{
    switch (m) {
    case FB_TIMER_EVENTS: return "events";
    case FB_TIMER_GRAPH: return "graph";
    case FB_TIMER_CUPTI: return "cupti";
    }
    return "?";
}

int fb_timer_mode_from_name(const char *s, fb_timer_mode *out)
{
    static const fb_timer_mode modes[] = {FB_TIMER_EVENTS, FB_TIMER_GRAPH, FB_TIMER_CUPTI};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (s && strcmp(s, fb_timer_mode_name(modes[i])) == 0) {
            *out = modes[i];
            return 0;
        }
    return -1;
}

const char *fb_flush_mode_name(fb_flush_mode m)
{
    switch (m) {
    case FB_FLUSH_NONE: return "none";
    case FB_FLUSH_WRITE: return "write";
    case FB_FLUSH_CLEAN: return "clean";
    }
    return "?";
}

int fb_flush_mode_from_name(const char *s, fb_flush_mode *out)
{
    static const fb_flush_mode modes[] = {FB_FLUSH_NONE, FB_FLUSH_WRITE, FB_FLUSH_CLEAN};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (s && strcmp(s, fb_flush_mode_name(modes[i])) == 0) {
            *out = modes[i];
            return 0;
        }
    return -1;
}

/* Work that needs a cold L2 gets one under --flush none too: with the timer's
 * own kind where it has one, so it starts from the L2 state a sample starts from. */
fb_flush_mode fb_flush_mode_cold(fb_flush_mode m) { return m != FB_FLUSH_NONE ? m : FB_FLUSH_CLEAN; }

void fb_timer_opts_default(fb_timer_opts *o)
{
    o->mode = FB_TIMER_EVENTS;
    o->warmup_ms = 25;
    o->rep_ms = 100;
    o->max_noise_pct = 0.5;
    o->max_wall_s = 5;
    o->min_samples = 10;
    o->max_samples = 2000;
    /* clean, not do_bench's memset: the memset's dirty lines cost the next kernel 12-36% on
     * 2-128 MB copies and 8-24% on softmax cells of 4-128 MB (README's timer section, measured
     * on the H100), time that is neither the kernel nor the memory it needs. */
    o->flush = FB_FLUSH_CLEAN;
}

static fb_status check_opts(const fb_timer_opts *o)
{
    if (!(o->rep_ms > 0) || !(o->warmup_ms >= 0) || !(o->max_wall_s > 0) || !(o->max_noise_pct >= 0) ||
        o->min_samples < 1 || o->max_samples < o->min_samples ||
        (o->flush != FB_FLUSH_NONE && o->flush != FB_FLUSH_WRITE && o->flush != FB_FLUSH_CLEAN)) {
        fb_error("timer: invalid options (rep %g ms, warm-up %g ms, max wall %g s, max noise %g%%, samples %d..%d, "
                 "flush %d)",
                 o->rep_ms, o->warmup_ms, o->max_wall_s, o->max_noise_pct, o->min_samples, o->max_samples,
                 (int)o->flush);
        return FB_E_USAGE;
    }
    return FB_OK;
}

/* ---- create / destroy ---------------------------------------------------- */

/* One flush of L2, as `mode` does it (nothing for FB_FLUSH_NONE). */
static fb_status enqueue_flush(fb_timer *t, fb_flush_mode mode)
{
    /* Both start with the sweep: it also evicts lines marked evict_last, which a memset
     * leaves in place (kernels/l2_sweep.cu). write then dirties the L2 as do_bench does. */
    if (mode == FB_FLUSH_WRITE || mode == FB_FLUSH_CLEAN)
        FB_CUDA(fb_launch_l2_sweep(t->flush_buf, t->flush_bytes, t->sweep_sink, t->stream));
    if (mode == FB_FLUSH_WRITE) FB_CUDA(cudaMemsetAsync(t->flush_buf, 0, t->flush_bytes, t->stream));
    return FB_OK;
}

static fb_status timer_init(fb_timer *t)
{
    size_t fb = 2 * t->dev.l2_bytes;
    t->flush_bytes = (fb > MIN_FLUSH_BYTES ? fb : MIN_FLUSH_BYTES) & ~(size_t)(FB_L2_SWEEP_LINE - 1);
    FB_TRY(fb_dmalloc(&t->flush_buf, t->flush_bytes));
    FB_TRY(fb_dmalloc((void **)&t->sweep_sink, 16));
    for (; t->n_events < EV_PAIRS; t->n_events++) {
        FB_CUDA(cudaEventCreate(&t->start[t->n_events]));
        fb_status s = fb_cuda_status(cudaEventCreate(&t->end[t->n_events]), "cudaEventCreate(&t->end[i])",
                                     __FILE__, __LINE__);
        if (s != FB_OK) {
            cudaEventDestroy(t->start[t->n_events]);
            return s;
        }
    }
    void *h = NULL;
    FB_CUDA(cudaHostAlloc(&h, 64, cudaHostAllocMapped));
    t->h_sync = (volatile int32_t *)h;
    t->h_sync[0] = 1;
    t->h_sync[1] = 0;
    void *d = NULL;
    FB_CUDA(cudaHostGetDevicePointer(&d, h, 0));
    t->d_sync = (int32_t *)d;

    /* The first memset also zeroes the buffer, which the clean sweep relies on.
     * Time one flush of each kind (after an untimed one) so batches can be sized
     * by the GPU time they will really take, whichever mode a measurement uses. */
    FB_CUDA(cudaMemsetAsync(t->flush_buf, 0, t->flush_bytes, t->stream));
    for (fb_flush_mode m = FB_FLUSH_WRITE; m <= FB_FLUSH_CLEAN; m++) {
        FB_TRY(enqueue_flush(t, m));
        FB_CUDA(cudaEventRecord(t->start[0], t->stream));
        FB_TRY(enqueue_flush(t, m));
        FB_CUDA(cudaEventRecord(t->end[0], t->stream));
        FB_CUDA(cudaEventSynchronize(t->end[0]));
        float ms = 0;
        FB_CUDA(cudaEventElapsedTime(&ms, t->start[0], t->end[0]));
        t->flush_ms[m] = ms;
    }
    return FB_OK;
}

fb_status fb_timer_create(const fb_device_info *dev, const fb_timer_opts *opts, cudaStream_t stream,
                          fb_timer **out)
{
    *out = NULL;
    fb_timer *t = calloc(1, sizeof *t);
    if (!t) {
        fb_error("timer: out of host memory");
        return FB_E_NOMEM;
    }
    t->dev = *dev;
    if (opts) t->opts = *opts;
    else fb_timer_opts_default(&t->opts);
    t->stream = stream;
    t->queue_budget = QUEUE_BUDGET;
    fb_status s = check_opts(&t->opts);
    if (s == FB_OK) s = timer_init(t);
    /* CUPTI mode: load libcupti and register its callbacks now, so a missing or
     * broken CUPTI stops the run before the first cell, not in it */
    if (s == FB_OK && t->opts.mode == FB_TIMER_CUPTI) s = fb_cupti_timer_create(&t->cupti);
    if (s != FB_OK) {
        fb_timer_destroy(t);
        return s;
    }
    *out = t;
    return FB_OK;
}

void fb_timer_destroy(fb_timer *t)
{
    if (!t) return;
    for (int i = 0; i < t->n_events; i++) {
        cudaEventDestroy(t->start[i]);
        cudaEventDestroy(t->end[i]);
    }
    if (t->h_sync) cudaFreeHost((void *)t->h_sync);
    fb_cupti_timer_destroy(t->cupti);
    fb_dfree(t->flush_buf);
    fb_dfree(t->sweep_sink);
    free(t);
}

size_t fb_timer_flush_bytes(const fb_timer *t) { return t ? t->flush_bytes : 0; }

fb_status fb_timer_flush_l2(fb_timer *t) { return enqueue_flush(t, fb_flush_mode_cold(t->opts.flush)); }

/* ---- one sample ------------------------------------------------------------ */

static fb_status enqueue_sample(fb_timer *t, const fb_runnable *r, int i, bool capturing)
{
    FB_TRY(enqueue_flush(t, t->opts.flush));
    if (capturing) FB_CUDA(cudaEventRecordWithFlags(t->start[i], t->stream, cudaEventRecordExternal));
    else FB_CUDA(cudaEventRecord(t->start[i], t->stream));
    FB_TRY(r->run(r->self, t->stream));
    if (capturing) FB_CUDA(cudaEventRecordWithFlags(t->end[i], t->stream, cudaEventRecordExternal));
    else FB_CUDA(cudaEventRecord(t->end[i], t->stream));
    return FB_OK;
}

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

static fb_status read_pairs(fb_timer *t, int n, double *out)
{
    for (int i = 0; i < n; i++) {
        float ms = 0;
        FB_CUDA(cudaEventElapsedTime(&ms, t->start[i], t->end[i]));
        out[i] = ms;
    }
    return FB_OK;
}

static void release_flag(fb_timer *t) { __atomic_store_n((int32_t *)&t->h_sync[0], 1, __ATOMIC_SEQ_CST); }

/* Operations one sample queues: the variant's declared launches, the flush, two events. */
static int ops_per_sample(const fb_timer *t, const fb_runnable *r)
{
    int launches = r->launches > 0 ? r->launches : 1;
    return launches + (t->opts.flush ? 1 : 0) + 2;
}

/* While the stream's queued work runs (a batch or a replay of the measurement's samples): the
 * probe, at once and then every PROBE_EVERY_MS until the stream is idle, at most PROBE_MAX_READS
 * times (a batch is ~BATCH_GPU_MS of GPU time). The host only waits here otherwise; the
 * samples are timed on the GPU, so the probe's calls are not in them. The stream is asked every
 * POLL_US, so the wait ends at most that long after the batch does: stop 42's call 7, which
 * slept the whole 2 ms between readings, ran softmax and layernorm's grids in 48 s against
 * call 6's 42 (kernels/NOTES.md). */
#define PROBE_EVERY_MS 2.0
#define PROBE_MAX_READS 32
#define POLL_US 200
static void probe_while_running(fb_timer *t)
{
    if (!t->probing || !t->probe) return;
    double next = 0;
    for (int reads = 0; reads < PROBE_MAX_READS;) {
        const double now = fb_now_s();
        if (now >= next) {
            t->probe(t->probe_arg);
            reads++;
            next = now + PROBE_EVERY_MS / 1e3;
        }
        if (cudaStreamQuery(t->stream) != cudaErrorNotReady) break;
        struct timespec ts = {0, POLL_US * 1000L};
        nanosleep(&ts, NULL);
    }
}

/* The blocking kernel on the stream, its flags reset: what is queued behind it waits until
 * release_and_wait. */
static fb_status hold_stream(fb_timer *t)
{
    __atomic_store_n((int32_t *)&t->h_sync[1], 0, __ATOMIC_SEQ_CST);
    __atomic_store_n((int32_t *)&t->h_sync[0], 0, __ATOMIC_SEQ_CST);
    fb_status s = fb_cuda_status(fb_launch_block_stream(t->d_sync, t->d_sync + 1, BLOCK_TIMEOUT_NS, t->stream),
                                 "fb_launch_block_stream", __FILE__, __LINE__);
    if (s != FB_OK) release_flag(t);
    return s;
}

/* Releases what hold_stream held, always, also after a failed enqueue (`queued`: the GPU must
 * never be left spinning), then waits for it with the probe reading the clock meanwhile (the
 * batch is running: what the probe reads is the samples' clock). A failed enqueue is drained and
 * returned (the first error is the one to report). *timed_out: the blocking kernel gave up. */
static fb_status release_and_wait(fb_timer *t, fb_status queued, bool *timed_out)
{
    release_flag(t);
    *timed_out = false;
    if (queued != FB_OK) {
        (void)cudaStreamSynchronize(t->stream);
        return queued;
    }
    probe_while_running(t);
    FB_CUDA(cudaStreamSynchronize(t->stream));
    *timed_out = __atomic_load_n((int32_t *)&t->h_sync[1], __ATOMIC_SEQ_CST) != 0;
    return FB_OK;
}

/* Events mode: n samples queued behind the blocking kernel, then released.
 *
 * A variant that enqueues more than it declares (a library call that launches
 * several kernels: cuDNN's fused convolutions transpose around the GEMM at small
 * channel counts, five kernels where one is declared) can fill the stream's queue
 * while the GPU is held: the host then blocks in a launch until the blocking
 * kernel gives up (2 s), and the batch's samples may hold launch gaps. Such a
 * batch is not kept: the timer halves its queue budget (for the rest of the run:
 * the next cells' variants are likely the same kind) and takes those samples
 * again in smaller batches. A batch of one sample is kept as it is (a variant
 * that synchronises inside run() times out whatever the batch), with the warning. */
static fb_status run_batch(fb_timer *t, const fb_runnable *r, int n, double *out)
{
    fb_status s = hold_stream(t);
    if (s != FB_OK) return s;
    if (t->opts.mode == FB_TIMER_CUPTI) fb_cupti_batch_begin(t->cupti, n);
    for (int i = 0; i < n && s == FB_OK; i++) s = enqueue_sample(t, r, i, false);
    bool timed_out;
    FB_TRY(release_and_wait(t, s, &timed_out));
    s = t->opts.mode == FB_TIMER_CUPTI ? fb_cupti_batch_end(t->cupti, n, out) : read_pairs(t, n, out);
    if (!timed_out || s != FB_OK) return s;
    t->timeouts++;
    const bool retake = n > 1 && t->queue_budget > QUEUE_BUDGET_MIN;
    if (!t->warned_timeout) {
        t->warned_timeout = true;
        fprintf(stderr,
                "fusionbench: warning: timer: the blocking kernel timed out after %.0f s while %d samples were queued "
                "(the variant enqueues more than the %d launches it declares, or synchronises inside run())%s%s%s\n",
                BLOCK_TIMEOUT_NS / 1e9, n, r->launches > 0 ? r->launches : 1,
                retake ? "; those samples are taken again in smaller batches" : "; launch gaps may be inside those samples",
                fb_context_str()[0] ? "; while " : "", fb_context_str());
    }
    if (!retake) return FB_OK;
    t->queue_budget = imax(QUEUE_BUDGET_MIN, t->queue_budget / 2);
    const int per = imax(1, imin(n - 1, t->queue_budget / ops_per_sample(t, r)));
    for (int i = 0; i < n && s == FB_OK; i += per) s = run_batch(t, r, imin(per, n - i), out + i);
    return s;
}

/* ---- shared stopping rules ------------------------------------------------- */

typedef struct sampling {
    double *x;       /* samples so far, measurement order */
    double *scratch; /* sorted copy for the noise rule   */
    int n, n_rep, cap;
    double t0;       /* wall start of the measurement    */
} sampling;

static int clamp_count(double want, int lo, int hi)
{
    if (!(want < 1e9)) want = 1e9;
    int n = (int)ceil(want);
    return n < lo ? lo : n > hi ? hi : n;
}

/* A measurement's sampling state: its start, and room for as many samples as t's options allow. */
static fb_status sampling_begin(const fb_timer *t, sampling *S)
{
    *S = (sampling){.t0 = fb_now_s(), .cap = fb_timer_sample_cap(t)};
    S->x = malloc((size_t)S->cap * sizeof *S->x);
    S->scratch = malloc((size_t)S->cap * sizeof *S->scratch);
    if (S->x && S->scratch) return FB_OK;
    free(S->x);
    free(S->scratch);
    S->x = S->scratch = NULL;
    fb_error("timer: out of host memory");
    return FB_E_NOMEM;
}

static void sampling_end(sampling *S)
{
    free(S->x);
    free(S->scratch);
}

static bool should_stop(const fb_timer *t, sampling *S)
{
    if (S->n >= S->n_rep) return true;
    if (S->n >= 3 && fb_now_s() - S->t0 > t->opts.max_wall_s) return true;
    if (S->n >= imax(t->opts.min_samples, 20)) {
        memcpy(S->scratch, S->x, (size_t)S->n * sizeof *S->x);
        fb_stats tmp;
        fb_stats_compute(S->scratch, S->n, &tmp); /* sorts scratch */
        if (fb_median_rel_noise(S->scratch, S->n) * 100.0 < t->opts.max_noise_pct) return true;
    }
    return false;
}

/* Units (a sample, or a pair of them) that fit in one batch: at most `most`, within the queue
 * budget at `ops` queued operations a unit and within BATCH_GPU_MS at `gpu_ms` a unit. */
static int batch_units(const fb_timer *t, int ops, double gpu_ms, int remaining, int most)
{
    int by_time = gpu_ms > 0 ? (int)(BATCH_GPU_MS / gpu_ms) : most;
    int b = imin(imin(remaining, most), imin(t->queue_budget / ops, by_time));
    return b < 1 ? 1 : b;
}

/* Samples that fit in one batch or graph. */
static int batch_size(const fb_timer *t, const fb_runnable *r, double est_ms, int remaining)
{
    return batch_units(t, ops_per_sample(t, r), est_ms + t->flush_ms[t->opts.flush], remaining, EV_PAIRS);
}

static double median_of(double *x, int n)
{
    fb_stats st;
    fb_stats_compute(x, n, &st);
    return st.median;
}

/* Warm-up without the flush; stops early when the host, not the GPU, is the
 * bottleneck (a long eager chain of tiny kernels), or the wall cap is near. */
static fb_status warm_up(fb_timer *t, const fb_runnable *r, double est_ms, double t0)
{
    int n_warm = clamp_count(t->opts.warmup_ms / est_ms, 1, 100000);
    double w0 = fb_now_s(), limit = 2 * t->opts.warmup_ms / 1e3 + 0.05;
    for (int i = 0; i < n_warm; i++) {
        FB_TRY(r->run(r->self, t->stream));
        if ((i & 31) == 31) {
            double now = fb_now_s();
            if (now - w0 > limit || now - t0 > t->opts.max_wall_s / 2) break;
        }
    }
    FB_CUDA(cudaStreamSynchronize(t->stream));
    return FB_OK;
}

/* ---- events mode ------------------------------------------------------------- */

static fb_status measure_events(fb_timer *t, const fb_runnable *r, sampling *S)
{
    double est[5];
    FB_TRY(run_batch(t, r, 1, est));
    int n_est = 1;
    if (est[0] * 4 < t->opts.rep_ms / 10) {
        FB_TRY(run_batch(t, r, 4, est + 1));
        n_est = 5;
    }
    double e = median_of(est, n_est);
    if (!(e > 1e-4)) e = 1e-4;
    FB_TRY(warm_up(t, r, e, S->t0));
    S->n_rep = clamp_count(t->opts.rep_ms / e, t->opts.min_samples, imin(t->opts.max_samples, S->cap));
    t->probing = true; /* fb_timer_measure ends it, on every path */
    while (!should_stop(t, S)) {
        int b = batch_size(t, r, e, S->n_rep - S->n);
        FB_TRY(run_batch(t, r, b, S->x + S->n));
        S->n += b;
    }
    return FB_OK;
}

/* ---- graph mode ---------------------------------------------------------------- */

static fb_status capture(fb_timer *t, const fb_runnable *r, int k, cudaGraphExec_t *exec)
{
    *exec = NULL;
    FB_CUDA(cudaStreamBeginCapture(t->stream, cudaStreamCaptureModeThreadLocal));
    fb_status s = FB_OK;
    for (int i = 0; i < k && s == FB_OK; i++) s = enqueue_sample(t, r, i, true);
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(t->stream, &g);
    if (s != FB_OK || e != cudaSuccess) {
        char why[1024];
        if (s != FB_OK) snprintf(why, sizeof why, "%s", fb_last_error());
        else snprintf(why, sizeof why, "cudaStreamEndCapture: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
        if (g) cudaGraphDestroy(g);
        (void)cudaGetLastError(); /* capture errors are not sticky */
        const char *ctx = fb_context_str();
        fb_error("timer graph: the variant could not be captured as a CUDA graph: %s%s%s", why,
                 ctx[0] && !strstr(why, ctx) ? " while " : "", ctx[0] && !strstr(why, ctx) ? ctx : "");
        return FB_E_CUDA;
    }
    e = cudaGraphInstantiate(exec, g, 0);
    cudaGraphDestroy(g);
    FB_CUDA(e);
    return FB_OK;
}

static fb_status replay(fb_timer *t, cudaGraphExec_t exec, int k, double *out)
{
    FB_CUDA(cudaGraphLaunch(exec, t->stream));
    probe_while_running(t); /* the replay is running */
    FB_CUDA(cudaStreamSynchronize(t->stream));
    return read_pairs(t, k, out);
}

static fb_status measure_graph_with(fb_timer *t, const fb_runnable *r, sampling *S, cudaGraphExec_t *g1,
                                    cudaGraphExec_t *gk)
{
    /* Estimate from a one-sample graph: the first replay uploads the graph. */
    FB_TRY(capture(t, r, 1, g1));
    double est[3];
    for (int i = 0; i < 3; i++) FB_TRY(replay(t, *g1, 1, est + i));
    double e = median_of(est + 1, 2);
    if (!(e > 1e-4)) e = 1e-4;
    S->n_rep = clamp_count(t->opts.rep_ms / e, t->opts.min_samples, imin(t->opts.max_samples, S->cap));
    /* The queue budget of events mode does not apply to a graph (one launch);
     * the GPU time per replay is still bounded, for the stopping rules. */
    double gpu_ms = e + t->flush_ms[t->opts.flush];
    int by_time = gpu_ms > 0 ? (int)(BATCH_GPU_MS / gpu_ms) : GRAPH_K_MAX;
    int k = imax(1, imin(imin(S->n_rep, GRAPH_K_MAX), by_time));
    FB_TRY(capture(t, r, k, gk));

    int n_warm = clamp_count(t->opts.warmup_ms / (k * e), 1, 10000);
    double w0 = fb_now_s();
    for (int i = 0; i < n_warm; i++) {
        FB_CUDA(cudaGraphLaunch(*gk, t->stream));
        if ((i & 7) == 7) {
            FB_CUDA(cudaStreamSynchronize(t->stream));
            if (fb_now_s() - w0 > 2 * t->opts.warmup_ms / 1e3 + 0.05) break;
        }
    }
    FB_CUDA(cudaStreamSynchronize(t->stream));

    double buf[GRAPH_K_MAX];
    t->probing = true; /* fb_timer_measure ends it, on every path */
    while (!should_stop(t, S)) {
        FB_TRY(replay(t, *gk, k, buf));
        int take = imin(k, S->cap - S->n);
        memcpy(S->x + S->n, buf, (size_t)take * sizeof *buf);
        S->n += take;
        if (S->n >= S->cap) break;
    }
    return FB_OK;
}

static fb_status measure_graph(fb_timer *t, const fb_runnable *r, sampling *S)
{
    cudaGraphExec_t g1 = NULL, gk = NULL;
    fb_status s = measure_graph_with(t, r, S, &g1, &gk);
    if (g1) cudaGraphExecDestroy(g1);
    if (gk) cudaGraphExecDestroy(gk);
    return s;
}

/* ---- measure ------------------------------------------------------------------ */

int fb_timer_last_timeouts(const fb_timer *t) { return t->timeouts; }

void fb_timer_set_probe(fb_timer *t, void (*probe)(void *arg), void *arg)
{
    t->probe = probe;
    t->probe_arg = arg;
}

int fb_timer_sample_cap(const fb_timer *t)
{
    return t->opts.max_samples + GRAPH_K_MAX; /* a graph replay may overshoot n_rep */
}

fb_status fb_timer_measure(fb_timer *t, const fb_runnable *r, fb_stats *out, double *samples_out, int samples_cap)
{
    fb_stats_compute(NULL, 0, out);
    t->last_kernels = NULL;
    t->timeouts = 0;
    FB_TRY(check_opts(&t->opts));
    bool cupti = t->opts.mode == FB_TIMER_CUPTI;
    if (cupti && !t->cupti) FB_TRY(fb_cupti_timer_create(&t->cupti));
    sampling S;
    FB_TRY(sampling_begin(t, &S));

    /* CUPTI mode: the events procedure, each run tagged with its sample (timer_cupti.h) */
    fb_runnable tagged;
    fb_status s = FB_OK;
    if (cupti) {
        tagged = fb_cupti_wrap(t->cupti, r);
        r = &tagged;
        s = fb_cupti_begin(t->cupti);
    }

    /* The untimed run: lazy initialisation must not land in a sample (and, in
     * graph mode, must not happen inside a capture). */
    if (s == FB_OK) s = r->run(r->self, t->stream);
    if (s == FB_OK) s = fb_cuda_status(cudaStreamSynchronize(t->stream), "cudaStreamSynchronize(t->stream)",
                                       __FILE__, __LINE__);
    if (s == FB_OK) s = t->opts.mode == FB_TIMER_GRAPH ? measure_graph(t, r, &S) : measure_events(t, r, &S);
    t->probing = false;
    if (cupti) {
        if (s == FB_OK) t->last_kernels = fb_cupti_kernels(t->cupti, S.n);
        fb_status es = fb_cupti_end(t->cupti);
        if (s == FB_OK) s = es;
        if (s != FB_OK) t->last_kernels = NULL;
    }
    if (s == FB_OK) {
        /* copied before fb_stats_compute sorts S.x: the samples keep the order they were taken in */
        if (samples_out && samples_cap > 0)
            memcpy(samples_out, S.x, (size_t)imin(S.n, samples_cap) * sizeof *S.x);
        fb_stats_compute(S.x, S.n, out);
    }
    sampling_end(&S);
    return s;
}

/* ---- paired: two runnables timed in turn --------------------------------------------- */

/* One batch of n pairs behind the blocking kernel: pair i is a sample of `floor` and one of `r`,
 * in the order floor, r for even i and r, floor for odd i (ABBA), so a clock that drifts across
 * the batch slows both sides of a pair of pairs alike. Each sample has its own flush, as in
 * run_batch. A batch the blocking kernel timed out on is kept and counted (the pair's two
 * runnables declare their launches; a GEMM library call does). Under cupti both sides were
 * wrapped (fb_cupti_wrap_side) and the 2n samples' kernel sums come back in queue order. */
static fb_status run_pair_batch(fb_timer *t, const fb_runnable *floor, const fb_runnable *r, int n, double *xf,
                                double *xr)
{
    const bool cupti = t->opts.mode == FB_TIMER_CUPTI;
    fb_status s = hold_stream(t);
    if (s != FB_OK) return s;
    if (cupti) fb_cupti_batch_begin(t->cupti, 2 * n); /* both sides' runs tagged in queue order */
    for (int i = 0; i < n && s == FB_OK; i++) {
        const bool floor_first = (i & 1) == 0;
        s = enqueue_sample(t, floor_first ? floor : r, 2 * i, false);
        if (s == FB_OK) s = enqueue_sample(t, floor_first ? r : floor, 2 * i + 1, false);
    }
    bool timed_out;
    FB_TRY(release_and_wait(t, s, &timed_out));
    if (timed_out) t->timeouts++;
    double both[EV_PAIRS];
    FB_TRY(cupti ? fb_cupti_batch_end(t->cupti, 2 * n, both) : read_pairs(t, 2 * n, both));
    for (int i = 0; i < n; i++) {
        const bool floor_first = (i & 1) == 0;
        xf[i] = both[2 * i + (floor_first ? 0 : 1)];
        xr[i] = both[2 * i + (floor_first ? 1 : 0)];
    }
    return FB_OK;
}

static fb_status measure_paired_events(fb_timer *t, const fb_runnable *floor, const fb_runnable *r, sampling *S,
                                       double *xf, double *xr)
{
    /* the estimate: three pairs, the first's medians */
    double ef[3], er[3];
    FB_TRY(run_pair_batch(t, floor, r, 3, ef, er));
    double e = median_of(ef, 3) + median_of(er, 3);
    if (!(e > 1e-4)) e = 1e-4;
    /* warm-up: both, in turn, without the flush */
    const fb_runnable both[2] = {*floor, *r};
    int n_warm = clamp_count(t->opts.warmup_ms / e, 1, 100000);
    const double w0 = fb_now_s(), limit = 2 * t->opts.warmup_ms / 1e3 + 0.05;
    for (int i = 0; i < 2 * n_warm; i++) {
        FB_TRY(both[i & 1].run(both[i & 1].self, t->stream));
        if ((i & 31) == 31 && fb_now_s() - w0 > limit) break;
    }
    FB_CUDA(cudaStreamSynchronize(t->stream));
    S->n_rep = clamp_count(t->opts.rep_ms / e, t->opts.min_samples, imin(t->opts.max_samples, S->cap));
    const int ops = ops_per_sample(t, floor) + ops_per_sample(t, r);
    const double gpu_ms = e + 2 * t->flush_ms[t->opts.flush];
    t->probing = true; /* fb_timer_measure_paired ends it */
    while (!should_stop(t, S)) {
        const int b = batch_units(t, ops, gpu_ms, S->n_rep - S->n, EV_PAIRS / 2); /* two event pairs a pair */
        FB_TRY(run_pair_batch(t, floor, r, b, xf + S->n, xr + S->n));
        for (int i = S->n; i < S->n + b; i++) S->x[i] = xr[i] / xf[i];
        S->n += b;
    }
    return FB_OK;
}

fb_status fb_timer_measure_paired(fb_timer *t, const fb_runnable *floor, const fb_runnable *r, fb_paired *out,
                                  double *ratio_out, int ratio_cap)
{
    memset(out, 0, sizeof *out);
    fb_stats_compute(NULL, 0, &out->floor);
    fb_stats_compute(NULL, 0, &out->time);
    fb_stats_compute(NULL, 0, &out->ratio);
    t->last_kernels = NULL;
    t->timeouts = 0;
    FB_TRY(check_opts(&t->opts));
    if (t->opts.mode == FB_TIMER_GRAPH) {
        fb_error("paired timing runs under the events and cupti timers, not graph (a graph replays one side's "
                 "captured samples)");
        return FB_E_UNSUPPORTED;
    }
    const bool cupti = t->opts.mode == FB_TIMER_CUPTI;
    if (cupti && !t->cupti) FB_TRY(fb_cupti_timer_create(&t->cupti));
    sampling S;
    FB_TRY(sampling_begin(t, &S));
    double *xf = malloc((size_t)S.cap * sizeof *xf), *xr = malloc((size_t)S.cap * sizeof *xr);
    fb_status s = FB_OK;
    if (!xf || !xr) {
        fb_error("timer: out of host memory");
        s = FB_E_NOMEM;
    }
    /* CUPTI mode: each side's runs tagged with their samples (timer_cupti.h), pair by pair */
    fb_runnable tagged_floor, tagged_r;
    if (cupti && s == FB_OK) {
        tagged_floor = fb_cupti_wrap_side(t->cupti, floor, 0);
        tagged_r = fb_cupti_wrap_side(t->cupti, r, 1);
        floor = &tagged_floor;
        r = &tagged_r;
        s = fb_cupti_begin(t->cupti);
    }
    /* the untimed runs: lazy initialisation of either side must not land in a pair */
    if (s == FB_OK) s = floor->run(floor->self, t->stream);
    if (s == FB_OK) s = r->run(r->self, t->stream);
    if (s == FB_OK) s = fb_cuda_status(cudaStreamSynchronize(t->stream), "cudaStreamSynchronize(t->stream)",
                                       __FILE__, __LINE__);
    if (s == FB_OK) s = measure_paired_events(t, floor, r, &S, xf, xr);
    t->probing = false;
    if (cupti && xf && xr) {
        fb_status es = fb_cupti_end(t->cupti); /* after a failed measurement too */
        if (s == FB_OK) s = es;
    }
    if (s == FB_OK) {
        out->n = S.n;
        if (ratio_out && ratio_cap > 0) memcpy(ratio_out, S.x, (size_t)imin(S.n, ratio_cap) * sizeof *S.x);
        fb_stats_compute(S.x, S.n, &out->ratio);
        fb_stats_compute(xf, S.n, &out->floor);
        fb_stats_compute(xr, S.n, &out->time);
    }
    sampling_end(&S);
    free(xf);
    free(xr);
    return s;
}

/* ---- runnables of the self-check and the copy bandwidth ------------------------------ */

typedef struct spin_job {
    long long cycles;
    unsigned long long *log;
    int cap;
} spin_job;

static fb_status spin_run(void *self, cudaStream_t stream)
{
    spin_job *j = self;
    FB_CUDA(fb_launch_spin_cycles_logged(j->cycles, j->log, j->cap, stream));
    return FB_OK;
}

typedef struct copy_job {
    void *dst;
    const void *src;
    size_t bytes;
    bool memcpy_engine; /* cudaMemcpyAsync rather than the copy kernel */
} copy_job;

static fb_status copy_run(void *self, cudaStream_t stream)
{
    copy_job *j = self;
    if (j->memcpy_engine) FB_CUDA(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, stream));
    else FB_CUDA(fb_launch_copy(j->dst, j->src, j->bytes, stream));
    return FB_OK;
}

/* Measure with temporarily different options; the timer's own are restored. */
static fb_status measure_with(fb_timer *t, const fb_runnable *r, fb_flush_mode flush, double rep_ms, fb_stats *st)
{
    fb_timer_opts saved = t->opts;
    t->opts.flush = flush;
    if (rep_ms > 0) t->opts.rep_ms = rep_ms;
    if (t->opts.mode == FB_TIMER_CUPTI) t->opts.mode = FB_TIMER_EVENTS;
    fb_status s = fb_timer_measure(t, r, st, NULL, 0);
    t->opts = saved;
    return s;
}

static int cmp_u64(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

#define SPIN_LOG_CAP 4096
#define SPIN_TARGET_MS 2.0
#define SPIN_REL_TOL 0.02
#define SPIN_ABS_TOL_MS 0.005 /* event records around one launch add a few us */

/* Check 1: the event-timed spin kernel against the kernel's own %globaltimer. */
static fb_status check_spin(fb_timer *t, char *report, size_t n, bool *ok)
{
    double mhz_guess = t->dev.sm_clock_mhz > 0 ? t->dev.sm_clock_mhz : 1500;
    spin_job j = {(long long)(SPIN_TARGET_MS * 1e-3 * mhz_guess * 1e6), NULL, SPIN_LOG_CAP};
    size_t log_bytes = (1 + 4 * (size_t)SPIN_LOG_CAP) * sizeof(unsigned long long);
    FB_TRY(fb_dmalloc((void **)&j.log, log_bytes));
    unsigned long long *h = malloc(log_bytes);
    unsigned long long *dur = malloc(SPIN_LOG_CAP * sizeof *dur), *cyc = malloc(SPIN_LOG_CAP * sizeof *cyc);
    fb_status s = (h && dur && cyc) ? FB_OK : FB_E_NOMEM;
    if (s != FB_OK) fb_error("timer self-check: out of host memory");
    if (s == FB_OK)
        s = fb_cuda_status(cudaMemsetAsync(j.log, 0, log_bytes, t->stream), "cudaMemsetAsync(j.log)", __FILE__,
                           __LINE__);
    fb_stats st;
    fb_runnable r = {spin_run, &j, 1};
    if (s == FB_OK) s = measure_with(t, &r, FB_FLUSH_NONE, 0, &st);
    if (s == FB_OK)
        s = fb_cuda_status(cudaMemcpy(h, j.log, log_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(log)", __FILE__,
                           __LINE__);
    if (s == FB_OK) {
        int runs = h[0] < SPIN_LOG_CAP ? (int)h[0] : SPIN_LOG_CAP;
        for (int i = 0; i < runs; i++) {
            const unsigned long long *rec = h + 1 + 4 * i;
            cyc[i] = rec[1] - rec[0];
            dur[i] = rec[3] - rec[2];
        }
        qsort(dur, (size_t)runs, sizeof *dur, cmp_u64);
        qsort(cyc, (size_t)runs, sizeof *cyc, cmp_u64);
        double gt_ns = runs ? (double)dur[runs / 2] : NAN;
        double expected = gt_ns / 1e6;
        double mhz = runs ? (double)cyc[runs / 2] / gt_ns * 1e3 : NAN;
        double diff = fabs(st.median - expected);
        *ok = runs > 0 && diff <= SPIN_REL_TOL * expected + SPIN_ABS_TOL_MS;
        fb_appendf(report, n, "timer: spin %.3f ms expected %.3f ms (clock %.0f MHz, %lld cycles, n=%d): %s\n",
                st.median, expected, mhz, j.cycles, st.n, *ok ? "ok" : "FAIL (beyond 2% + 5 us)");
    }
    free(h);
    free(dur);
    free(cyc);
    fb_dfree(j.log);
    return s;
}

/* Check 2: each flush (write and clean) must make a working set that fits in L2
 * slower. The clean flush's time beside the write flush's says what the dirty
 * lines a memset leaves cost (reported, not judged: it is a measurement). */
static fb_status check_flush(fb_timer *t, char *report, size_t n, bool *ok)
{
    const size_t half = (size_t)8 << 20; /* 8 MiB read + 8 MiB written: 16 MiB in L2 */
    copy_job j = {NULL, NULL, half, false};
    FB_TRY(fb_dmalloc(&j.dst, half));
    fb_status s = fb_dmalloc((void **)&j.src, half);
    if (s == FB_OK)
        s = fb_cuda_status(cudaMemsetAsync((void *)j.src, 1, half, t->stream), "cudaMemsetAsync(src)", __FILE__,
                           __LINE__);
    fb_runnable r = {copy_run, &j, 1};
    static const fb_flush_mode modes[] = {FB_FLUSH_WRITE, FB_FLUSH_CLEAN};
    fb_stats cold[2], warm;
    if (s == FB_OK) s = measure_with(t, &r, FB_FLUSH_NONE, 50, &warm);
    for (int m = 0; m < 2 && s == FB_OK; m++) s = measure_with(t, &r, modes[m], 50, &cold[m]);
    *ok = s == FB_OK;
    for (int m = 0; m < 2 && s == FB_OK; m++) {
        bool slower = cold[m].median > warm.median;
        *ok &= slower;
        fb_appendf(report, n, "timer: flush %s: 16 MiB working set %.2f us flushed vs %.2f us unflushed (%.2fx): %s\n",
                fb_flush_mode_name(modes[m]), cold[m].median * 1e3, warm.median * 1e3, cold[m].median / warm.median,
                slower ? "ok" : "FAIL (the flush does not cool L2)");
    }
    if (s == FB_OK)
        fb_appendf(report, n, "timer: flush clean / write on that working set: %.3f (the write flush's dirty lines cost %+.1f%%)\n",
                cold[1].median / cold[0].median, (cold[0].median / cold[1].median - 1) * 100);
    fb_dfree((void *)j.src);
    fb_dfree(j.dst);
    return s;
}

/* Check 3: a variant that queues more than it declares. BURST_KERNELS spin
 * kernels a run, declared once as 1 launch and once honestly: the first fills
 * the stream's queue behind the blocking kernel (unless the driver's queue is
 * deeper than BURST_KERNELS x the budget's samples), so its batches time out
 * and are taken again in smaller ones (run_batch); both medians must agree. The
 * timer's warning and its halved budget are this check's own: restored after. */
#define BURST_KERNELS 24
#define BURST_SPIN_US 2.0
#define BURST_REL_TOL 0.05

typedef struct burst_job {
    long long cycles;
} burst_job;

static fb_status burst_run(void *self, cudaStream_t stream)
{
    const burst_job *j = self;
    for (int i = 0; i < BURST_KERNELS; i++) FB_CUDA(fb_launch_spin_cycles(j->cycles, stream));
    return FB_OK;
}

static fb_status check_queue(fb_timer *t, char *report, size_t n, bool *ok)
{
    double mhz_guess = t->dev.sm_clock_mhz > 0 ? t->dev.sm_clock_mhz : 1500;
    burst_job j = {(long long)(BURST_SPIN_US * mhz_guess)};
    const bool warned = t->warned_timeout;
    const int budget = t->queue_budget;
    t->warned_timeout = true;
    fb_stats lie, honest;
    fb_runnable r = {burst_run, &j, 1};
    fb_status s = measure_with(t, &r, FB_FLUSH_NONE, 50, &lie);
    const int timeouts = t->timeouts;
    t->queue_budget = budget;
    r.launches = BURST_KERNELS;
    if (s == FB_OK) s = measure_with(t, &r, FB_FLUSH_NONE, 50, &honest);
    const int honest_timeouts = t->timeouts;
    t->warned_timeout = warned;
    t->queue_budget = budget;
    if (s != FB_OK) return s;
    const double diff = fabs(lie.median - honest.median);
    *ok = honest_timeouts == 0 && diff <= BURST_REL_TOL * honest.median;
    fb_appendf(report, n,
               "timer: %d kernels a run declared as 1: %.2f us (%d batches timed out and were taken again) vs "
               "declared as %d: %.2f us (%d timed out): %s\n",
               BURST_KERNELS, lie.median * 1e3, timeouts, BURST_KERNELS, honest.median * 1e3, honest_timeouts,
               *ok ? "ok" : honest_timeouts ? "FAIL (an honest declaration timed out)" : "FAIL (beyond 5%)");
    return FB_OK;
}

fb_status fb_timer_selfcheck(fb_timer *t, char *report, size_t n)
{
    if (report && n) report[0] = 0;
    bool ok1 = false, ok2 = false, ok3 = false;
    FB_TRY(check_spin(t, report, n, &ok1));
    FB_TRY(check_flush(t, report, n, &ok2));
    FB_TRY(check_queue(t, report, n, &ok3));
    if (!ok1 || !ok2 || !ok3) {
        fb_error("timer self-check failed: %s", !ok1   ? "spin kernel time disagrees with %globaltimer"
                                                : !ok2 ? "the L2 flush does not slow an L2-resident working set"
                                                       : "a variant that queues more than it declares is mistimed");
        return FB_E_CHECK;
    }
    return FB_OK;
}

const fb_timer_kernels *fb_timer_last_kernels(const fb_timer *t) { return t ? t->last_kernels : NULL; }

fb_timer_mode fb_timer_set_mode(fb_timer *t, fb_timer_mode mode)
{
    fb_timer_mode old = t->opts.mode;
    t->opts.mode = mode;
    return old;
}

fb_status fb_timer_copy_bandwidth(fb_timer *t, size_t bytes, bool use_kernel, double *gbps, fb_stats *st)
{
    *gbps = NAN;
    fb_stats_compute(NULL, 0, st);
    if (bytes == 0) {
        fb_error("copy bandwidth: zero bytes");
        return FB_E_USAGE;
    }
    copy_job j = {NULL, NULL, bytes, !use_kernel};
    FB_TRY(fb_dmalloc((void **)&j.src, bytes));
    fb_status s = fb_dmalloc(&j.dst, bytes);
    if (s == FB_OK)
        s = fb_cuda_status(cudaMemsetAsync((void *)j.src, 1, bytes, t->stream), "cudaMemsetAsync(src)", __FILE__,
                           __LINE__);
    fb_runnable r = {copy_run, &j, 1};
    if (s == FB_OK) s = measure_with(t, &r, fb_flush_mode_cold(t->opts.flush), 0, st);
    if (s == FB_OK) *gbps = 2.0 * (double)bytes / (st->median * 1e-3) / 1e9;
    fb_dfree(j.dst);
    fb_dfree((void *)j.src);
    return s;
}
