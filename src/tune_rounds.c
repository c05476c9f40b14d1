/* tune_rounds.c — candidates timed cold, in rounds (tune_rounds.h).
 *
 * Numbers. Five rounds (TUNE_SAMPLES). What tuning costs is prepare's (the result's
 * prepare_ms), and at 85 ms a float32 8192 x 16384 x 8192 GEMM, eight candidates x six
 * launches were 4 s a prepare. So a candidate whose first sample is TUNE_CUTOFF x the best
 * first sample is not sampled further (it cannot win: launch noise on a cold L2 is a few
 * percent), and candidates of TUNE_LONG_MS or more get TUNE_SAMPLES_LONG rounds (their
 * medians are steady to well under 1%). The margin (tune_rounds.h) came from cuBLASLt:
 * at bfloat16 2048 x 8192 x 8192 the first two medians were 0.3402 and 0.3404 ms and a run
 * kept the second; a wider gap is a real one (the full add's 8192 x 8192 x 1024 kept
 * candidate 8 at 0.2148 against the first's 0.2189 ms, 1.9%, in both runs). Stop 43's call 2
 * showed why rounds: matmul_bias.fused at 2048 x 16384 x 1024 kept the heuristic's first in
 * one run (1.081x the plain GEMM in pairs) and its candidate 6 in the other (1.010x) when the
 * candidates were timed one after another. */
#include "tune_rounds.h"

#include <stdbool.h>
#include <stdlib.h>

#include "l2_sweep.h"

#define TUNE_SAMPLES 5
#define TUNE_SAMPLES_LONG 3
#define TUNE_LONG_MS 2.0
#define TUNE_CUTOFF 1.3

typedef struct scratch {
    cudaEvent_t e0, e1;
    void *sweep; /* zeros, 2 x L2 */
    size_t sweep_bytes;
    unsigned *sink;
} scratch;

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* One cold sample of candidate i in ms (timed = false: the warm-up launch, 0), or a negative
 * number when a launch fails. */
static float sample(fb_tune_launch_fn launch, void *arg, int i, const scratch *sc, cudaStream_t stream,
                    bool timed)
{
    float ms = 0;
    if (fb_launch_l2_sweep(sc->sweep, sc->sweep_bytes, sc->sink, stream) != cudaSuccess ||
        cudaEventRecord(sc->e0, stream) != cudaSuccess)
        return -1;
    if (launch(arg, i, stream) != 0) return -1;
    if (cudaEventRecord(sc->e1, stream) != cudaSuccess || cudaEventSynchronize(sc->e1) != cudaSuccess) return -1;
    if (timed && cudaEventElapsedTime(&ms, sc->e0, sc->e1) != cudaSuccess) return -1;
    return ms;
}

/* Every candidate's median over the rounds into med[i] (negative: failed or cut). */
static void time_rounds(fb_tune_launch_fn launch, void *arg, int n, const scratch *sc, cudaStream_t stream,
                        float (*ms)[TUNE_SAMPLES], bool *alive, double *med)
{
    for (int i = 0; i < n; i++) {
        alive[i] = sample(launch, arg, i, sc, stream, false) >= 0;
        if (!alive[i]) cudaGetLastError(); /* a candidate's launch failure is not sticky: pass it over */
        med[i] = -1;
    }
    int rounds = TUNE_SAMPLES;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            if (!alive[i]) continue;
            ms[i][r] = sample(launch, arg, i, sc, stream, true);
            if (ms[i][r] < 0) {
                cudaGetLastError();
                alive[i] = false;
            }
        }
        if (r > 0) continue;
        float best = -1;
        for (int i = 0; i < n; i++)
            if (alive[i] && (best < 0 || ms[i][0] < best)) best = ms[i][0];
        for (int i = 0; i < n; i++)
            if (alive[i] && ms[i][0] > TUNE_CUTOFF * best) alive[i] = false; /* clearly slower: out of the race */
        if (best >= TUNE_LONG_MS) rounds = TUNE_SAMPLES_LONG;
    }
    for (int i = 0; i < n; i++) {
        if (!alive[i]) continue;
        qsort(ms[i], (size_t)rounds, sizeof ms[i][0], cmp_float);
        med[i] = ms[i][rounds / 2];
    }
}

int fb_tune_pick(const double *med, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (med[i] > 0 && (best < 0 || med[i] < med[best])) best = i;
    if (best > 0 && med[0] > 0 && med[0] <= med[best] * (1 + FB_TUNE_MARGIN)) best = 0;
    return best;
}

fb_status fb_tune_load(int n, fb_tune_launch_fn launch, void *arg, cudaStream_t stream, int *first,
                       const char *what)
{
    *first = -1;
    for (int i = 0; i < n; i++) {
        if (launch(arg, i, stream) != 0)
            cudaGetLastError(); /* a candidate's launch failure is not sticky: pass it over */
        else if (*first < 0)
            *first = i;
    }
    fb_status s = fb_cuda_status(cudaStreamSynchronize(stream), what, __FILE__, __LINE__);
    if (s == FB_OK && *first < 0) {
        fb_error("%s: none of the %d candidates ran", what, n);
        s = FB_E_UNSUPPORTED;
    }
    if (*first < 0) *first = 0;
    return s;
}

fb_status fb_tune_rounds(fb_context *ctx, cudaStream_t stream, int n, fb_tune_launch_fn launch, void *arg,
                         int *best_out, const char *what)
{
    *best_out = 0;
    /* scratch of prepare's own, allocated outside the tracked device memory: it is gone
     * before the variant runs, and no part of the variant's footprint */
    scratch sc = {0};
    const size_t l2 = ctx && ctx->dev.l2_bytes ? ctx->dev.l2_bytes : ((size_t)50 << 20);
    sc.sweep_bytes = (2 * l2 + FB_L2_SWEEP_LINE - 1) / FB_L2_SWEEP_LINE * FB_L2_SWEEP_LINE;
    float(*ms)[TUNE_SAMPLES] = malloc(sizeof *ms * (size_t)(n > 0 ? n : 1));
    bool *alive = malloc(sizeof *alive * (size_t)(n > 0 ? n : 1));
    double *med = malloc(sizeof *med * (size_t)(n > 0 ? n : 1));
    fb_status s = FB_OK;
    if (!ms || !alive || !med) {
        fb_error("%s: out of host memory for tuning", what);
        s = FB_E_NOMEM;
    }
    if (s == FB_OK) s = fb_cuda_status(cudaEventCreate(&sc.e0), what, __FILE__, __LINE__);
    if (s == FB_OK) s = fb_cuda_status(cudaEventCreate(&sc.e1), what, __FILE__, __LINE__);
    if (s == FB_OK) s = fb_cuda_status(cudaMalloc(&sc.sweep, sc.sweep_bytes), what, __FILE__, __LINE__);
    if (s == FB_OK) s = fb_cuda_status(cudaMalloc((void **)&sc.sink, sizeof *sc.sink), what, __FILE__, __LINE__);
    if (s == FB_OK) s = fb_cuda_status(cudaMemsetAsync(sc.sweep, 0, sc.sweep_bytes, stream), what, __FILE__, __LINE__);
    int pick = -1;
    if (s == FB_OK) {
        time_rounds(launch, arg, n, &sc, stream, ms, alive, med);
        pick = fb_tune_pick(med, n);
        if (pick >= 0) *best_out = pick;
    }
    if (sc.e0) cudaEventDestroy(sc.e0);
    if (sc.e1) cudaEventDestroy(sc.e1);
    if (sc.sweep || sc.sink) cudaStreamSynchronize(stream);
    if (sc.sweep) cudaFree(sc.sweep);
    if (sc.sink) cudaFree(sc.sink);
    free(ms);
    free(alive);
    free(med);
    if (s == FB_OK && pick < 0) {
        fb_error("%s: none of the %d candidates ran", what, n);
        s = FB_E_UNSUPPORTED;
    }
    return s;
}
