/* bench.h — the timer. See bench.c's top comment for the sample procedure. */
#ifndef FB_BENCH_H
#define FB_BENCH_H

#include "device.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_timer_mode { FB_TIMER_EVENTS, FB_TIMER_GRAPH, FB_TIMER_CUPTI } fb_timer_mode;
const char *fb_timer_mode_name(fb_timer_mode m);
int fb_timer_mode_from_name(const char *s, fb_timer_mode *out);

/* How the L2 is flushed before each sample (never inside it). NONE is 0, so
 * `if (opts.flush)` still reads "flushes at all". */
typedef enum fb_flush_mode {
    FB_FLUSH_NONE = 0,  /* no flush: the sample sees what the previous one left in L2       */
    FB_FLUSH_WRITE = 1, /* the clean sweep, then cudaMemsetAsync over the flush buffer
                           (do_bench's): L2 left full of dirty lines the measured kernel
                           must write back                                                 */
    FB_FLUSH_CLEAN = 2, /* a read-only sweep over the same buffer: L2 left full of clean
                           lines (Nsight Compute's --cache-control all). The sweep also
                           evicts lines marked evict_last (kernels/l2_sweep.cu)            */
} fb_flush_mode;
const char *fb_flush_mode_name(fb_flush_mode m);                /* "none", "write", "clean" */
int fb_flush_mode_from_name(const char *s, fb_flush_mode *out); /* 0, or -1 when unknown   */
/* The flush of work that must start from a cold L2 whatever the timer's mode
 * (fb_timer_flush_l2: the metrics pass; env's copy bandwidth): `m` itself when
 * it flushes, FB_FLUSH_CLEAN (the default) for FB_FLUSH_NONE. */
fb_flush_mode fb_flush_mode_cold(fb_flush_mode m);

typedef struct fb_timer_opts {
    fb_timer_mode mode;
    double warmup_ms;     /* do_bench default 25  */
    double rep_ms;        /* do_bench default 100 */
    double max_noise_pct; /* stop early once the median's relative noise is below this (default 0.5) */
    double max_wall_s;    /* wall-time cap per measurement (default 5) */
    int min_samples;      /* default 10 */
    int max_samples;      /* default 2000 */
    fb_flush_mode flush;  /* how L2 is flushed before each sample (default FB_FLUSH_CLEAN) */
} fb_timer_opts;

void fb_timer_opts_default(fb_timer_opts *o);

/* What the timer runs: anything that enqueues work on a stream. */
typedef struct fb_runnable {
    fb_status (*run)(void *self, cudaStream_t stream);
    void *self;
    int launches; /* kernel launches per run (0 = 1): bounds how many samples are queued behind the blocking kernel */
} fb_runnable;

typedef struct fb_timer fb_timer;

fb_status fb_timer_create(const fb_device_info *dev, const fb_timer_opts *opts, cudaStream_t stream,
                          fb_timer **out);
void fb_timer_destroy(fb_timer *t);
size_t fb_timer_flush_bytes(const fb_timer *t);

/* Measure `r`: times in milliseconds. Warm-up and sample counts follow from the
 * options and a first estimate. `samples_out` (may be NULL) receives the raw
 * samples in the order they were taken (not sorted): the first
 * min(out->n, samples_cap) of them; with samples_cap >= fb_timer_sample_cap(t)
 * that is every one, so out->n of them. */
fb_status fb_timer_measure(fb_timer *t, const fb_runnable *r, fb_stats *out,
                           double *samples_out, int samples_cap);
/* The most samples one fb_timer_measure can take with t's options (a graph
 * replay may overshoot the sample count by up to one graph's worth). */
int fb_timer_sample_cap(const fb_timer *t);

/* One L2 flush as every timed sample starts with, enqueued on the timer's
 * stream: for work that must start from the L2 state a sample starts from, e.g.
 * the metrics pass (metrics.c). The kind is fb_flush_mode_cold(opts.flush): the
 * timer's own (write or clean), and under FB_FLUSH_NONE still a flush, a write
 * one (the default): the metrics pass needs an L2 that holds none of its buffers. */
fb_status fb_timer_flush_l2(fb_timer *t);

/* What the last fb_timer_measure saw of the variant's GPU work when it ran in
 * CUPTI mode (timer_cupti.c); NULL after a measurement in any other mode, or
 * one that failed. Valid until the next measurement or fb_timer_destroy.
 * The headline samples (fb_timer_measure's) are the summed durations of the
 * variant's kernels, memcpys and memsets per run; span_ms holds, per sample in
 * the same order, first start to last end (which also counts the gaps). */
typedef struct fb_timer_kernels {
    int count;                /* kernels per run: the most frequent count over the runs */
    int count_min, count_max; /* differ when runs launched different numbers of kernels */
    int memops;               /* memcpys + memsets per run (most frequent) */
    int runs;                 /* runs the census saw (timed samples and the estimate's) */
    const char *const *names; /* distinct kernels, in first-launch order, readable names */
    int n_names;
    int names_dropped;        /* distinct kernels past the ones named */
    const double *span_ms;    /* per sample, as fb_timer_measure's samples */
    int n_span;
    fb_stats span;            /* statistics of span_ms */
} fb_timer_kernels;
const fb_timer_kernels *fb_timer_last_kernels(const fb_timer *t);
/* Batches of the last measurement (events mode) whose blocking kernel timed out:
 * the variant queued more than it declared, or synchronised inside run(). Their
 * samples were taken again in smaller batches, except a batch of one (kept). */
int fb_timer_last_timeouts(const fb_timer *t);
/* A function the timer calls, with arg, each time a batch (events and cupti modes) or a replay
 * (graph mode) of a measurement's samples has been released to the GPU and runs while the host
 * waits for it; not during the estimate or the warm-up. clocks.c's fb_clock_watch_probe reads
 * the SM clock there, so a measurement records the clock its samples ran at. NULL: none. */
void fb_timer_set_probe(fb_timer *t, void (*probe)(void *arg), void *arg);

/* A paired measurement: `floor` (the plain op the fused variant is measured against) and `r`
 * timed in turn, sample by sample, in one sequence of batches (events mode's procedure: each
 * sample flushed, queued behind the blocking kernel; pairs alternate which side goes first), so
 * both sides of a pair run at one power state. On a power-capped card a GEMM's time moves 8-14%
 * under sustained load while the paired ratio moves under 1% (kernels/NOTES.md, "Stop 42",
 * section 6): separately timed cells cannot say "within 3%". The stopping rules are events
 * mode's, applied to the ratio. Events or cupti mode (cupti: each sample is its kernels'
 * summed durations, both sides' runs tagged in queue order, so the event pair's 2.5-4 us sits
 * on neither side); FB_E_UNSUPPORTED under graph. */
typedef struct fb_paired {
    int n;          /* pairs */
    fb_stats floor; /* the floor's samples, ms             */
    fb_stats time;  /* r's samples, ms                      */
    fb_stats ratio; /* r's sample / the floor's, pair by pair */
} fb_paired;
/* `ratio_out` (may be NULL) receives the first min(out->n, ratio_cap) ratios in the order taken. */
fb_status fb_timer_measure_paired(fb_timer *t, const fb_runnable *floor, const fb_runnable *r, fb_paired *out,
                                  double *ratio_out, int ratio_cap);

/* Switch the timer's mode; returns the previous one. The speed-of-light copy
 * is timed with events under the graph timer: inside a CUDA graph
 * cudaMemcpyAsync becomes a copy-engine node, measured 24% slower than the SM
 * copy it is outside one. (Under cupti it is timed by its memcpy record.) */
fb_timer_mode fb_timer_set_mode(fb_timer *t, fb_timer_mode mode);

/* Timer self-checks that can fail (selftest runs them):
 *  1. a spin kernel of a known cycle count measures within 2% of cycles / measured clock;
 *  2. a 16 MB working set is slower after each flush (write, then clean) than without one.
 * Writes a human report (one line per check) into `report`; FB_E_CHECK if one fails. */
fb_status fb_timer_selfcheck(fb_timer *t, char *report, size_t n);

/* Device-to-device copy bandwidth in GB/s (bytes read + written per second) of
 * `bytes` copied with cudaMemcpyAsync (use_kernel false) or with fusionbench's
 * own 16-byte streaming copy kernel (use_kernel true), measured with this timer. */
fb_status fb_timer_copy_bandwidth(fb_timer *t, size_t bytes, bool use_kernel, double *gbps, fb_stats *st);

#ifdef __cplusplus
}
#endif
#endif
