/* timer_cupti.c — `--timer cupti`: kernel durations from CUPTI's activity
 * records, the profiler's own clock, instead of CUDA events around the run.
 *
 * bench.c runs a CUPTI measurement exactly like an events one (the untimed run,
 * the estimate, the warm-up, batches of samples queued behind the blocking
 * kernel, the same stopping rules); only each sample's number comes from here:
 * the GPU durations of the kernels, memcpys and memsets the variant's run()
 * enqueued, summed. The L2 flush before each sample, the blocking kernel, the
 * event records and the warm-up runs are on the same stream but are not the
 * variant's, and must not be counted.
 *
 * How a record is tied to its sample: by the API call that enqueued it, not by
 * where it falls in time, nor by its name. Every CUDA runtime or driver call
 * gets a CUPTI correlation id, and the kernel, memcpy or memset record it
 * produces carries that id. While a sample's run() is on the host, the timer
 * has pushed an external correlation id of its own (one per sample,
 * cuptiActivityPushExternalCorrelationId, CUSTOM0), so CUPTI emits an
 * external-correlation record (external id -> correlation id) for every API
 * call run() makes, whichever library makes it: cuBLAS's and cuDNN's launches
 * are API calls on this thread like fusionbench's own, and are timed the same
 * way. A record whose correlation id no pushed region claims — the flush
 * memset, the blocking kernel, any flush kernel, the warm-up — is left out.
 * This needs no clock alignment, no marker kernels, no assumption that the
 * flush is a memset or that the variant launches no memset of its own, and it
 * holds when kernels of one sample overlap (several streams) or when records
 * arrive out of order. (Correlation ids by range would need "the last
 * correlation id", which CUPTI has no call for; names and time order would
 * break on a variant that itself uses memset or on a kernel-based flush.)
 * External-correlation records exist only for API calls CUPTI traces, so the
 * runtime and driver API kinds are enabled too, for the measurement only.
 *
 * Headline: the SUM of the durations, per sample. It is what Nsight Compute's
 * gpu__time_duration adds up over a variant's kernels, so cupti and ncu can
 * be compared one to one, and it contains neither the event pair's cost nor
 * launch gaps. SPAN (first start to last end) is kept beside it: for a
 * single-kernel variant the two agree; for an eager chain, span - sum is what
 * the gaps between its kernels cost on the GPU.
 *
 * Records reach buffer_completed from CUPTI (on the thread that flushes, or on
 * CUPTI's own when a buffer fills up during a batch), hence the lock; each
 * batch ends with cuptiActivityFlushAll(FORCED) after the stream is
 * synchronised, so every record of the batch is in before it is assigned.
 * Record structs: only fields that have kept their offsets across CUPTI
 * versions are read (kind, start, end, correlationId, name), through the
 * structs of the headers this was built with (CUDA 13; the offsets are
 * checked against CUDA 8's below); cupti_loader.c refuses a library older
 * than those headers. */
#include "timer_cupti.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_loader.h"
#include "cupti_records.h"

/* The record structs of the headers this is built with. The fields read here
 * have kept their offsets since CUDA 8's records (Kernel4, Memcpy, Memset):
 * checked below at compile time, so a library of another 13.x that appends
 * fields is read correctly, and the oldest structs serve older headers. */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_rec;
typedef CUpti_ActivityMemcpy6 memcpy_rec;
typedef CUpti_ActivityMemset4 memset_rec;
#else
typedef CUpti_ActivityKernel4 kernel_rec;
typedef CUpti_ActivityMemcpy memcpy_rec;
typedef CUpti_ActivityMemset memset_rec;
#endif
#define SAME_OFFSET(a, b, f) _Static_assert(offsetof(a, f) == offsetof(b, f), #a "." #f " moved since " #b)
SAME_OFFSET(kernel_rec, CUpti_ActivityKernel4, start);
SAME_OFFSET(kernel_rec, CUpti_ActivityKernel4, end);
SAME_OFFSET(kernel_rec, CUpti_ActivityKernel4, correlationId);
SAME_OFFSET(kernel_rec, CUpti_ActivityKernel4, name);
SAME_OFFSET(memcpy_rec, CUpti_ActivityMemcpy, start);
SAME_OFFSET(memcpy_rec, CUpti_ActivityMemcpy, end);
SAME_OFFSET(memcpy_rec, CUpti_ActivityMemcpy, correlationId);
SAME_OFFSET(memset_rec, CUpti_ActivityMemset, start);
SAME_OFFSET(memset_rec, CUpti_ActivityMemset, end);
SAME_OFFSET(memset_rec, CUpti_ActivityMemset, correlationId);

#define BUF_BYTES ((size_t)8 << 20) /* one activity buffer: ~40k kernel records */
#define BUF_ALIGN 8                 /* CUPTI wants 8-byte aligned buffers */
#define MAX_NAMES 4096              /* distinct kernels interned per process */
#define NAME_MAX_LEN 1024

typedef struct name_entry {
    char *raw;     /* as CUPTI gives it (mangled) */
    char *display; /* fb_kernel_display_name */
} name_entry;

struct fb_cupti_timer {
    const fb_cupti_api *api;
    /* filled by buffer_completed, under `lock` */
    fb_act *acts;
    int n_acts, cap_acts;
    fb_act_corr *map;
    int n_map, cap_map;
    size_t dropped;
    bool lost; /* a buffer could not be allocated, or a record not stored */
    /* the batch in flight */
    uint64_t next_ext, batch_base;
    int batch_n, batch_i;
    bool in_batch, enabled;
    /* what the wrappers run: side 0 (fb_cupti_wrap), and a paired measurement's other side */
    struct wrap_side {
        fb_cupti_timer *c;
        const fb_runnable *inner;
    } side[2];
    /* the measurement */
    fb_kernel_census census;
    double *spans;
    int n_spans, cap_spans;
    double *scratch;
    const char *names[FB_CENSUS_NAMES];
    fb_timer_kernels result;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fb_cupti_timer *instance; /* the one timer, for the callbacks */
static const fb_cupti_api *cb_api;
static bool callbacks_registered;
static name_entry name_table[MAX_NAMES]; /* process-wide: kernels keep their names across measurements */
static int n_names;

/* The kinds a measurement enables, in this order (and disables in reverse). */
static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,    CUPTI_ACTIVITY_KIND_MEMCPY,  CUPTI_ACTIVITY_KIND_MEMSET,
};
#define N_KINDS (int)(sizeof kinds / sizeof kinds[0])

static const char *kind_name(CUpti_ActivityKind k)
{
    switch (k) {
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return "EXTERNAL_CORRELATION";
    case CUPTI_ACTIVITY_KIND_RUNTIME: return "RUNTIME";
    case CUPTI_ACTIVITY_KIND_DRIVER: return "DRIVER";
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return "CONCURRENT_KERNEL";
    case CUPTI_ACTIVITY_KIND_MEMCPY: return "MEMCPY";
    case CUPTI_ACTIVITY_KIND_MEMSET: return "MEMSET";
    default: return "?";
    }
}

static fb_status cupti_fail(const char *call, CUptiResult r)
{
    char rs[128];
    const char *ctx = fb_context_str();
    fb_error("timer cupti: %s: %s%s%s", call, fb_cupti_result_str(r, rs, sizeof rs), ctx[0] ? " while " : "", ctx);
    return FB_E_CUDA;
}

/* ---- the buffer callbacks (any thread) ---------------------------------------------- */

/* Under `lock`. The name's index in the table, added when new; -1 when full. */
static int intern(const char *raw)
{
    if (!raw) return -1;
    for (int i = 0; i < n_names; i++)
        if (strcmp(name_table[i].raw, raw) == 0) return i;
    if (n_names == MAX_NAMES) return -1;
    char buf[NAME_MAX_LEN];
    fb_kernel_display_name(raw, buf, sizeof buf);
    char *r = strdup(raw), *d = strdup(buf);
    if (!r || !d) {
        free(r);
        free(d);
        return -1;
    }
    name_table[n_names] = (name_entry){r, d};
    return n_names++;
}

static bool grow(void **p, int *cap, int need, size_t size)
{
    if (need <= *cap) return true;
    int c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

static void add_act(fb_cupti_timer *c, uint64_t start, uint64_t end, uint32_t corr, int kind, int name)
{
    if (!grow((void **)&c->acts, &c->cap_acts, c->n_acts + 1, sizeof *c->acts)) {
        c->lost = true;
        return;
    }
    c->acts[c->n_acts++] = (fb_act){start, end, corr, kind, name};
}

/* Under `lock`: one record into c. */
static void take(fb_cupti_timer *c, const CUpti_Activity *rec)
{
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const kernel_rec *k = (const kernel_rec *)rec;
        add_act(c, k->start, k->end, k->correlationId, FB_ACT_KERNEL, intern(k->name));
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const memcpy_rec *m = (const memcpy_rec *)rec;
        add_act(c, m->start, m->end, m->correlationId, FB_ACT_MEMCPY, -1);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const memset_rec *m = (const memset_rec *)rec;
        add_act(c, m->start, m->end, m->correlationId, FB_ACT_MEMSET, -1);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *x = (const CUpti_ActivityExternalCorrelation *)rec;
        if (x->externalKind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) break;
        if (!grow((void **)&c->map, &c->cap_map, c->n_map + 1, sizeof *c->map)) {
            c->lost = true;
            break;
        }
        c->map[c->n_map++] = (fb_act_corr){x->correlationId, x->externalId};
        break;
    }
    default: break; /* API records: only needed for CUPTI to emit the external correlation */
    }
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;
    *buffer = aligned_alloc(BUF_ALIGN, BUF_BYTES);
    *size = *buffer ? BUF_BYTES : 0;
    if (!*buffer) {
        pthread_mutex_lock(&lock);
        if (instance) instance->lost = true;
        pthread_mutex_unlock(&lock);
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size, size_t valid)
{
    (void)size;
    pthread_mutex_lock(&lock);
    fb_cupti_timer *c = instance && instance->enabled ? instance : NULL;
    if (buffer && valid > 0 && cb_api) {
        CUpti_Activity *rec = NULL;
        while (cb_api->ActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
            if (c) take(c, rec);
    }
    size_t dropped = 0;
    if (c && cb_api && cb_api->ActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS)
        c->dropped += dropped;
    pthread_mutex_unlock(&lock);
    free(buffer);
}

/* ---- create / destroy ------------------------------------------------------------- */

fb_status fb_cupti_timer_create(fb_cupti_timer **out)
{
    *out = NULL;
    const fb_cupti_api *api = NULL;
    FB_TRY(fb_cupti_load(&api));
    pthread_mutex_lock(&lock);
    if (instance) {
        pthread_mutex_unlock(&lock);
        fb_error("timer cupti: a CUPTI timer exists already (CUPTI's callbacks are per process)");
        return FB_E_USAGE;
    }
    fb_cupti_timer *c = calloc(1, sizeof *c);
    if (!c) {
        pthread_mutex_unlock(&lock);
        fb_error("timer cupti: out of host memory");
        return FB_E_NOMEM;
    }
    c->api = api;
    c->next_ext = 1;
    fb_census_init(&c->census);
    cb_api = api;
    CUptiResult r = CUPTI_SUCCESS;
    if (!callbacks_registered) r = api->ActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r == CUPTI_SUCCESS) {
        callbacks_registered = true;
        instance = c;
    }
    pthread_mutex_unlock(&lock);
    if (r != CUPTI_SUCCESS) {
        free(c);
        return cupti_fail("cuptiActivityRegisterCallbacks", r);
    }
    *out = c;
    return FB_OK;
}

void fb_cupti_timer_destroy(fb_cupti_timer *c)
{
    if (!c) return;
    if (c->enabled) (void)fb_cupti_end(c);
    pthread_mutex_lock(&lock);
    if (instance == c) instance = NULL;
    pthread_mutex_unlock(&lock);
    free(c->acts);
    free(c->map);
    free(c->spans);
    free(c->scratch);
    free(c);
}

/* ---- a measurement --------------------------------------------------------------- */

static void clear_records(fb_cupti_timer *c)
{
    pthread_mutex_lock(&lock);
    c->n_acts = 0;
    c->n_map = 0;
    c->dropped = 0;
    c->lost = false;
    pthread_mutex_unlock(&lock);
}

fb_status fb_cupti_begin(fb_cupti_timer *c)
{
    fb_census_init(&c->census);
    c->n_spans = 0;
    c->in_batch = false;
    /* records of an earlier measurement still in CUPTI's buffers are dropped by clear_records */
    (void)c->api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    clear_records(c);
    for (int i = 0; i < N_KINDS; i++) {
        CUptiResult r = c->api->ActivityEnable(kinds[i]);
        if (r != CUPTI_SUCCESS) {
            char call[96];
            snprintf(call, sizeof call, "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_%s)", kind_name(kinds[i]));
            while (i-- > 0) (void)c->api->ActivityDisable(kinds[i]);
            return cupti_fail(call, r);
        }
    }
    pthread_mutex_lock(&lock);
    c->enabled = true;
    pthread_mutex_unlock(&lock);
    return FB_OK;
}

fb_status fb_cupti_end(fb_cupti_timer *c)
{
    CUptiResult first = CUPTI_SUCCESS;
    for (int i = N_KINDS; i-- > 0;) {
        CUptiResult r = c->api->ActivityDisable(kinds[i]);
        if (r != CUPTI_SUCCESS && first == CUPTI_SUCCESS) first = r;
    }
    (void)c->api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&lock);
    c->enabled = false;
    c->in_batch = false;
    pthread_mutex_unlock(&lock);
    clear_records(c);
    return first == CUPTI_SUCCESS ? FB_OK : cupti_fail("cuptiActivityDisable", first);
}

static fb_status wrapped_run(void *self, cudaStream_t stream)
{
    const struct wrap_side *w = self;
    fb_cupti_timer *c = w->c;
    const fb_runnable *r = w->inner;
    if (!c->in_batch || c->batch_i >= c->batch_n) return r->run(r->self, stream);
    uint64_t id = c->batch_base + (uint64_t)c->batch_i++;
    CUptiResult pr = c->api->ActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
    if (pr != CUPTI_SUCCESS) return cupti_fail("cuptiActivityPushExternalCorrelationId", pr);
    fb_status s = r->run(r->self, stream);
    uint64_t popped = 0;
    pr = c->api->ActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped);
    if (s == FB_OK && pr != CUPTI_SUCCESS) return cupti_fail("cuptiActivityPopExternalCorrelationId", pr);
    if (s == FB_OK && popped != id) {
        fb_error("timer cupti: the variant left an external correlation id pushed (%llu, expected %llu)",
                 (unsigned long long)popped, (unsigned long long)id);
        return FB_E_CUDA;
    }
    return s;
}

fb_runnable fb_cupti_wrap_side(fb_cupti_timer *c, const fb_runnable *r, int side)
{
    struct wrap_side *w = &c->side[side ? 1 : 0];
    w->c = c;
    w->inner = r;
    return (fb_runnable){wrapped_run, w, r->launches};
}

fb_runnable fb_cupti_wrap(fb_cupti_timer *c, const fb_runnable *r) { return fb_cupti_wrap_side(c, r, 0); }

void fb_cupti_batch_begin(fb_cupti_timer *c, int n)
{
    c->batch_base = c->next_ext;
    c->next_ext += (uint64_t)(n > 0 ? n : 0);
    c->batch_n = n;
    c->batch_i = 0;
    c->in_batch = true;
}

static bool push_span(fb_cupti_timer *c, double v)
{
    if (!grow((void **)&c->spans, &c->cap_spans, c->n_spans + 1, sizeof *c->spans)) return false;
    c->spans[c->n_spans++] = v;
    return true;
}

fb_status fb_cupti_batch_end(fb_cupti_timer *c, int n, double *sum_ms)
{
    c->in_batch = false;
    CUptiResult fr = c->api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (fr != CUPTI_SUCCESS) return cupti_fail("cuptiActivityFlushAll", fr);

    /* the records are ours now: a late callback only appends to the emptied arrays */
    pthread_mutex_lock(&lock);
    fb_act *acts = c->acts;
    fb_act_corr *map = c->map;
    int n_acts = c->n_acts, n_map = c->n_map;
    size_t dropped = c->dropped;
    bool lost = c->lost;
    c->acts = NULL;
    c->map = NULL;
    c->n_acts = c->cap_acts = c->n_map = c->cap_map = 0;
    c->dropped = 0;
    c->lost = false;
    pthread_mutex_unlock(&lock);

    fb_status s = FB_OK;
    fb_act_sample *smp = calloc(n > 0 ? (size_t)n : 1, sizeof *smp);
    int *sample_of = malloc((n_acts > 0 ? (size_t)n_acts : 1) * sizeof *sample_of);
    int assigned = smp && sample_of ? fb_act_samples(acts, n_acts, map, n_map, c->batch_base, n, smp, sample_of) : -1;
    if (assigned < 0) {
        fb_error("timer cupti: out of host memory");
        s = FB_E_NOMEM;
    }
    const char *ctx = fb_context_str();
    if (s == FB_OK && (dropped || lost)) {
        fb_error("timer cupti: CUPTI %s %zu activity record%s%s%s", lost ? "lost" : "dropped", dropped,
                 dropped == 1 ? "" : "s", ctx[0] ? " while " : "", ctx);
        s = FB_E_CUDA;
    }
    /* a record the GPU has not finished cannot be in a synchronised batch */
    for (int k = 0; k < n_acts && s == FB_OK; k++)
        if (sample_of[k] >= 0 && (acts[k].start == 0 || acts[k].end < acts[k].start)) {
            fb_error("timer cupti: an incomplete activity record (start %llu, end %llu) in a finished sample%s%s",
                     (unsigned long long)acts[k].start, (unsigned long long)acts[k].end, ctx[0] ? " while " : "", ctx);
            s = FB_E_CUDA;
        }
    for (int i = 0; i < n && s == FB_OK; i++) {
        if (isnan(smp[i].sum_ms)) {
            int claimed = 0; /* API calls this batch made inside its samples */
            for (int k = 0; k < n_map; k++) claimed += map[k].ext >= c->batch_base && map[k].ext - c->batch_base < (uint64_t)n;
            if (claimed == 0)
                fb_error("timer cupti: CUPTI reported none of the variant's API calls (no external-correlation "
                         "records), so no kernel can be tied to a sample%s%s", ctx[0] ? " while " : "", ctx);
            else
                fb_error("timer cupti: a run of the variant put no kernel, memcpy or memset on the GPU that CUPTI "
                         "saw (%d API calls in the batch), so it has no kernel time%s%s", claimed,
                         ctx[0] ? " while " : "", ctx);
            s = FB_E_UNSUPPORTED;
            break;
        }
        sum_ms[i] = smp[i].sum_ms;
        if (!push_span(c, smp[i].span_ms)) {
            fb_error("timer cupti: out of host memory");
            s = FB_E_NOMEM;
        }
    }
    if (s == FB_OK) fb_census_add(&c->census, acts, n_acts, sample_of, smp, n);
    free(smp);
    free(sample_of);
    free(acts);
    free(map);
    return s;
}

const fb_timer_kernels *fb_cupti_kernels(fb_cupti_timer *c, int n_last)
{
    fb_timer_kernels *k = &c->result;
    memset(k, 0, sizeof *k);
    k->count = c->census.count;
    k->count_min = c->census.count_min;
    k->count_max = c->census.count_max;
    k->memops = c->census.memops;
    k->runs = c->census.samples;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < c->census.n_names; i++) {
        int idx = c->census.names[i];
        c->names[i] = idx >= 0 && idx < n_names ? name_table[idx].display : "?";
    }
    pthread_mutex_unlock(&lock);
    k->names = c->names;
    k->n_names = c->census.n_names;
    k->names_dropped = c->census.names_dropped;
    if (n_last > c->n_spans) n_last = c->n_spans;
    if (n_last < 0) n_last = 0;
    k->span_ms = c->spans ? c->spans + (c->n_spans - n_last) : NULL;
    k->n_span = n_last;
    double *sc = realloc(c->scratch, (n_last ? (size_t)n_last : 1) * sizeof *sc);
    if (sc) {
        c->scratch = sc;
        if (n_last) memcpy(sc, k->span_ms, (size_t)n_last * sizeof *sc);
        fb_stats_compute(sc, n_last, &k->span); /* sorts the copy */
    } else {
        fb_stats_compute(NULL, 0, &k->span);
    }
    return k;
}
