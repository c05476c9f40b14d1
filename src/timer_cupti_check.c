/* timer_cupti_check.c — selftest's checks of `--timer cupti` on the GPU, each
 * one able to fail:
 *   1. a spin kernel of known length: the CUPTI median within 1% + 3 us of the
 *      kernel's own %globaltimer duration (no event pair, no launch gap in it),
 *      and exactly one kernel per run, named spin_cycles_kernel, no memset: the
 *      L2 flush memset and the blocking kernel before every sample are not
 *      counted;
 *   2. a run of two spin kernels and a memset of its own: 2 kernels and 1
 *      memset per run, the sum within 1% + 8 us of twice the spin, and the
 *      span (first start to last end) no shorter than the sum;
 *   3. a cuBLAS SGEMM: at least one kernel per run, named, and timed no slower
 *      than the event timer times the same call (library kernels are kernels on
 *      the stream, tied to the sample by the API calls cuBLAS makes);
 *   4. paired timing under cupti: a spin against a spin of half its cycles, timed
 *      in turn (each side's runs tagged in queue order, ABBA): the pairs' median
 *      ratio within 0.01 of 0.5, which a swapped or shifted side would miss.
 * Where libcupti cannot be loaded the checks are skipped, with the reason. */
#include <cublas_v2.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_loader.h"
#include "timer_cupti.h"
#include "timing.h"

#define SPIN_MS 2.0
#define SPIN_LOG_CAP 8192
#define REL_TOL 0.01
#define ABS_TOL_MS 0.003      /* a kernel's launch and retirement around its own clock reads */
#define PAIR_ABS_TOL_MS 0.008 /* two kernels and a small memset */
#define GEMM_N 1024

typedef struct spin_job {
    long long cycles;
    unsigned long long *log;
    int launches;   /* spin kernels per run */
    void *scratch;  /* with a memset of its own when not NULL */
} spin_job;

static fb_status spin_run(void *self, cudaStream_t s)
{
    spin_job *j = self;
    for (int i = 0; i < j->launches; i++) FB_CUDA(fb_launch_spin_cycles_logged(j->cycles, j->log, SPIN_LOG_CAP, s));
    if (j->scratch) FB_CUDA(cudaMemsetAsync(j->scratch, 0, 64, s));
    return FB_OK;
}

typedef struct gemm_job {
    cublasHandle_t h;
    float *a, *b, *c;
} gemm_job;

static fb_status gemm_run(void *self, cudaStream_t s)
{
    gemm_job *j = self;
    const float one = 1, zero = 0;
    fb_status st = fb_cublas_status((int)cublasSetStream(j->h, s), "cublasSetStream", __FILE__, __LINE__);
    if (st == FB_OK)
        st = fb_cublas_status((int)cublasSgemm(j->h, CUBLAS_OP_N, CUBLAS_OP_N, GEMM_N, GEMM_N, GEMM_N, &one, j->a,
                                               GEMM_N, j->b, GEMM_N, &zero, j->c, GEMM_N),
                              "cublasSgemm", __FILE__, __LINE__);
    return st;
}

static int cmp_u64(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

/* The median %globaltimer duration (ms) of the spin kernels logged so far, and reset the log. */
static fb_status spin_truth(unsigned long long *log, cudaStream_t s, double *ms)
{
    size_t bytes = (1 + 4 * (size_t)SPIN_LOG_CAP) * sizeof(unsigned long long);
    unsigned long long *h = malloc(bytes), *dur = malloc(SPIN_LOG_CAP * sizeof *dur);
    fb_status st = h && dur ? FB_OK : FB_E_NOMEM;
    if (st != FB_OK) fb_error("timer cupti self-check: out of host memory");
    if (st == FB_OK) st = fb_cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize", __FILE__, __LINE__);
    if (st == FB_OK) st = fb_cuda_status(cudaMemcpy(h, log, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(log)", __FILE__, __LINE__);
    if (st == FB_OK) {
        int runs = h[0] < SPIN_LOG_CAP ? (int)h[0] : SPIN_LOG_CAP;
        for (int i = 0; i < runs; i++) dur[i] = h[1 + 4 * i + 3] - h[1 + 4 * i + 2];
        qsort(dur, (size_t)runs, sizeof *dur, cmp_u64);
        *ms = runs ? (double)dur[runs / 2] / 1e6 : NAN;
        st = fb_cuda_status(cudaMemsetAsync(log, 0, bytes, s), "cudaMemsetAsync(log)", __FILE__, __LINE__);
    }
    free(h);
    free(dur);
    return st;
}

/* Measures r in `mode`; the timer's own mode is restored. */
static fb_status measure_in(fb_timer *t, fb_timer_mode mode, const fb_runnable *r, fb_stats *st)
{
    fb_timer_mode old = fb_timer_set_mode(t, mode);
    fb_status s = fb_timer_measure(t, r, st, NULL, 0);
    fb_timer_set_mode(t, old);
    return s;
}

static bool names_contain(const fb_timer_kernels *k, const char *what)
{
    for (int i = 0; i < k->n_names; i++)
        if (strstr(k->names[i], what)) return true;
    return false;
}

static fb_status check_spins(fb_timer *t, const fb_device_info *dev, cudaStream_t s, char *report, size_t n, int *failed)
{
    double mhz = dev->sm_clock_mhz > 0 ? dev->sm_clock_mhz : 1500;
    size_t log_bytes = (1 + 4 * (size_t)SPIN_LOG_CAP) * sizeof(unsigned long long);
    spin_job j = {(long long)(SPIN_MS * 1e-3 * mhz * 1e6), NULL, 1, NULL};
    FB_TRY(fb_dmalloc((void **)&j.log, log_bytes));
    fb_status st = fb_dmalloc(&j.scratch, 64);
    void *scratch = j.scratch;
    j.scratch = NULL;
    if (st == FB_OK) st = fb_cuda_status(cudaMemsetAsync(j.log, 0, log_bytes, s), "cudaMemsetAsync(log)", __FILE__, __LINE__);
    fb_runnable r = {spin_run, &j, 1};
    fb_stats one, two;
    double truth = NAN;
    if (st == FB_OK) st = measure_in(t, FB_TIMER_CUPTI, &r, &one);
    const fb_timer_kernels *k = st == FB_OK ? fb_timer_last_kernels(t) : NULL;
    if (st == FB_OK) st = spin_truth(j.log, s, &truth);
    if (st == FB_OK && k) {
        bool time_ok = fabs(one.median - truth) <= REL_TOL * truth + ABS_TOL_MS;
        bool census_ok = k->count == 1 && k->count_min == 1 && k->count_max == 1 && k->memops == 0 && k->n_names == 1 &&
                         names_contain(k, "spin_cycles_kernel");
        fb_appendf(report, n, "timer cupti: spin %.4f ms, its own clock %.4f ms (n=%d): %s\n", one.median, truth, one.n,
            time_ok ? "ok" : "FAIL (beyond 1% + 3 us)");
        fb_appendf(report, n, "timer cupti: %d kernel per run, %d memset, named %s: %s\n", k->count, k->memops,
            k->n_names ? k->names[0] : "(none)",
            census_ok ? "ok (flush and blocking kernel left out)" : "FAIL (want 1 spin_cycles_kernel, no memset)");
        *failed += !time_ok + !census_ok;
    } else if (st == FB_OK) {
        fb_appendf(report, n, "timer cupti: FAIL (no kernel census after a CUPTI measurement)\n");
        (*failed)++;
    }

    /* two kernels and a memset of the run's own */
    j.cycles /= 4;
    j.launches = 2;
    j.scratch = scratch;
    r.launches = 3;
    if (st == FB_OK) st = measure_in(t, FB_TIMER_CUPTI, &r, &two);
    k = st == FB_OK ? fb_timer_last_kernels(t) : NULL;
    if (st == FB_OK) st = spin_truth(j.log, s, &truth);
    if (st == FB_OK && k) {
        double want = 2 * truth;
        bool ok = k->count == 2 && k->memops == 1 && fabs(two.median - want) <= REL_TOL * want + PAIR_ABS_TOL_MS &&
                  k->span.median >= two.median * (1 - 1e-3);
        fb_appendf(report, n, "timer cupti: 2 spins + a memset per run: %d kernels, %d memset, sum %.4f ms (2 x %.4f), "
                       "span %.4f ms: %s\n",
            k->count, k->memops, two.median, truth, k->span.median, ok ? "ok" : "FAIL");
        *failed += !ok;
    }
    fb_dfree(scratch);
    fb_dfree(j.log);
    return st;
}

static fb_status check_paired(fb_timer *t, const fb_device_info *dev, cudaStream_t s, char *report, size_t n,
                              int *failed)
{
    const double mhz = dev->sm_clock_mhz > 0 ? dev->sm_clock_mhz : 1500;
    const size_t log_bytes = (1 + 4 * (size_t)SPIN_LOG_CAP) * sizeof(unsigned long long);
    spin_job full = {(long long)(SPIN_MS / 2 * 1e-3 * mhz * 1e6), NULL, 1, NULL};
    FB_TRY(fb_dmalloc((void **)&full.log, log_bytes));
    spin_job half = full;
    half.cycles /= 2;
    fb_status st = fb_cuda_status(cudaMemsetAsync(full.log, 0, log_bytes, s), "cudaMemsetAsync(log)", __FILE__, __LINE__);
    const fb_runnable floor = {spin_run, &full, 1}, r = {spin_run, &half, 1};
    fb_paired p;
    fb_timer_mode old = fb_timer_set_mode(t, FB_TIMER_CUPTI);
    if (st == FB_OK) st = fb_timer_measure_paired(t, &floor, &r, &p, NULL, 0);
    fb_timer_set_mode(t, old);
    if (st == FB_OK) {
        const bool ok = p.n > 0 && fabs(p.ratio.median - 0.5) <= 0.01;
        fb_appendf(report, n,
                   "timer cupti: paired, a spin against one of half its cycles: ratio %.4f (floor %.4f ms, %.4f ms, "
                   "n=%d): %s\n",
                   p.ratio.median, p.floor.median, p.time.median, p.n, ok ? "ok" : "FAIL (want 0.5 +- 0.01)");
        *failed += !ok;
    }
    fb_dfree(full.log);
    return st;
}

static fb_status check_gemm(fb_timer *t, fb_context *ctx, char *report, size_t n, int *failed)
{
    if (!ctx->cublas) {
        cublasHandle_t h = NULL;
        FB_TRY(fb_cublas_status((int)cublasCreate(&h), "cublasCreate", __FILE__, __LINE__));
        ctx->cublas = h; /* fb_context_destroy releases it */
    }
    size_t bytes = (size_t)GEMM_N * GEMM_N * sizeof(float);
    gemm_job j = {(cublasHandle_t)ctx->cublas, NULL, NULL, NULL};
    fb_status st = fb_dmalloc((void **)&j.a, bytes);
    if (st == FB_OK) st = fb_dmalloc((void **)&j.b, bytes);
    if (st == FB_OK) st = fb_dmalloc((void **)&j.c, bytes);
    if (st == FB_OK) st = fb_cuda_status(cudaMemsetAsync(j.a, 0, bytes, ctx->stream), "cudaMemsetAsync", __FILE__, __LINE__);
    if (st == FB_OK) st = fb_cuda_status(cudaMemsetAsync(j.b, 0, bytes, ctx->stream), "cudaMemsetAsync", __FILE__, __LINE__);
    fb_runnable r = {gemm_run, &j, 2};
    fb_stats ev, cu;
    if (st == FB_OK) st = measure_in(t, FB_TIMER_EVENTS, &r, &ev);
    if (st == FB_OK) st = measure_in(t, FB_TIMER_CUPTI, &r, &cu);
    const fb_timer_kernels *k = st == FB_OK ? fb_timer_last_kernels(t) : NULL;
    if (st == FB_OK && k) {
        bool ok = k->count >= 1 && k->n_names >= 1 && cu.median <= ev.median * 1.02 && cu.median >= ev.median * 0.5;
        fb_appendf(report, n, "timer cupti: cuBLAS SGEMM %d^3: %d kernel%s per run (%s%s), %.4f ms (events %.4f ms): %s\n",
            GEMM_N, k->count, k->count == 1 ? "" : "s", k->n_names ? k->names[0] : "unnamed", k->n_names > 1 ? ", ..." : "",
            cu.median, ev.median, ok ? "ok" : "FAIL (want >= 1 named kernel, timed within events')");
        *failed += !ok;
    }
    fb_dfree(j.a);
    fb_dfree(j.b);
    fb_dfree(j.c);
    return st;
}

fb_status fb_timer_selfcheck_cupti(fb_timer *t, fb_context *ctx, char *report, size_t n)
{
    if (report && n) report[0] = 0;
    if (fb_cupti_load(NULL) != FB_OK) {
        char why[2048];
        snprintf(why, sizeof why, "%s", fb_last_error());
        fb_appendf(report, n, "timer cupti: skipped: %s\n", why);
        fb_error("timer cupti self-check skipped: %s", why);
        return FB_E_UNSUPPORTED;
    }
    int failed = 0;
    fb_set_context("selftest: timer cupti");
    fb_status st = check_spins(t, &ctx->dev, ctx->stream, report, n, &failed);
    if (st == FB_OK) st = check_gemm(t, ctx, report, n, &failed);
    if (st == FB_OK) st = check_paired(t, &ctx->dev, ctx->stream, report, n, &failed);
    fb_set_context(NULL);
    if (st == FB_E_UNSUPPORTED) { /* CUPTI loaded, yet a measurement saw no work: a failure, not a skip */
        fb_appendf(report, n, "timer cupti: FAIL: %s\n", fb_last_error());
        failed++;
        st = FB_OK;
    }
    if (st != FB_OK) return st;
    if (failed) {
        fb_error("timer cupti self-check: %d check%s failed", failed, failed > 1 ? "s" : "");
        return FB_E_CHECK;
    }
    return FB_OK;
}
