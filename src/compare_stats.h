/* compare_stats.h — is NEW slower than BASE? The statistics behind `fusionbench compare`,
 * on plain arrays (no result files): the ratio of medians new/base, a confidence interval
 * for it, and a verdict against a threshold.
 *
 * The interval (see compare_stats.c for why this one):
 *  - with samples in both: a seeded percentile bootstrap of the ratio of medians, each
 *    sample set resampled on its own (10000 resamples by default, 95%); deterministic: the
 *    same inputs give the same interval on every run;
 *  - without (result files written before samples were kept): the ratio of the two runs'
 *    central ranges, [p20_new / p80_base, p80_new / p20_base] — wider than a confidence
 *    interval of the median, so it errs toward NOISY, never toward a false SLOWER.
 *
 * The verdict for a threshold T (0.05 = 5%), on the interval [lo, hi]:
 *    SLOWER  lo > 1 + T                  (all of the interval is more than T slower)
 *    FASTER  hi < 1 / (1 + T)            (the mirror image of SLOWER on a log scale)
 *    SAME    1/(1+T) <= lo, hi <= 1 + T  (any difference is smaller than T)
 *    NOISY   otherwise: the interval straddles a bound, or there is no interval
 * FASTER's bound is 1/(1+T), not 1-T, so that comparing A with B and B with A give mirror
 * verdicts: A is SLOWER than B exactly when B is FASTER than A. */
#ifndef FB_COMPARE_STATS_H
#define FB_COMPARE_STATS_H

#include <stdint.h>

#include "fb.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_verdict {
    FB_VERDICT_SLOWER = 0, /* listed first: regressions lead every report */
    FB_VERDICT_NOISY,
    FB_VERDICT_FASTER,
    FB_VERDICT_SAME,
    FB_NVERDICTS
} fb_verdict;

/* "SLOWER", "NOISY", "FASTER", "SAME" */
const char *fb_verdict_name(fb_verdict v);

typedef enum fb_ci_method {
    FB_CI_BOOTSTRAP = 0, /* both sides had samples                                  */
    FB_CI_QUANTILES,     /* a side had none: the p20/p80 rule                        */
    FB_CI_NONE,          /* nothing to build an interval from (too few samples, no spread) */
} fb_ci_method;

/* "bootstrap", "quantiles", "none" */
const char *fb_ci_method_name(fb_ci_method m);

/* Fewer samples than this on a side give no interval (verdict NOISY): the bootstrap
 * distribution of a median of 4 values has too few distinct points to mean anything. */
#define FB_COMPARE_MIN_SAMPLES 5

typedef struct fb_compare_opts {
    double threshold;  /* T: 0.05 for 5%                     */
    double confidence; /* of the interval: 0.95              */
    int resamples;     /* bootstrap resamples: 10000         */
    uint64_t seed;     /* of the bootstrap's counter-based RNG */
} fb_compare_opts;

/* threshold 5%, 95%, 10000 resamples, seed 1 */
fb_compare_opts fb_compare_defaults(void);

typedef struct fb_compare_result {
    double ratio;          /* median(new) / median(base); NaN when a median is missing or <= 0 */
    double lo, hi;         /* the interval for ratio; NaN when method is FB_CI_NONE */
    double p;              /* Mann-Whitney two-sided p (information only); NaN without samples */
    double base_median, new_median; /* in the unit of the inputs */
    int n_base, n_new;     /* samples (or the recorded n, for the quantile rule) */
    fb_ci_method method;
    fb_verdict verdict;
    const char *why;       /* for FB_CI_NONE: a static phrase ("fewer than 5 samples"); else NULL */
} fb_compare_result;

/* The verdict for an interval (NaN bounds give NOISY). */
fb_verdict fb_verdict_of(double lo, double hi, double threshold);

/* Bootstrap comparison of two sample sets (any order; not modified). FB_E_NOMEM with
 * a message when scratch memory cannot be had; otherwise FB_OK with `out` filled. */
fb_status fb_compare_samples(const double *base, int n_base, const double *new_, int n_new,
                             const fb_compare_opts *o, fb_compare_result *out);

/* The no-samples rule on recorded statistics (median, p20, p80, n). */
void fb_compare_quantiles(const fb_stats *base, const fb_stats *new_, double threshold, fb_compare_result *out);

/* The bootstrap distribution's draws, for tests: ratios[resamples], in draw order. */
fb_status fb_compare_bootstrap_draws(const double *base, int n_base, const double *new_, int n_new,
                                     const fb_compare_opts *o, double *ratios);

#ifdef __cplusplus
}
#endif
#endif
