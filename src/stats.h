/* stats.h — order statistics for timing samples, and the tests compare will use. */
#ifndef FB_STATS_H
#define FB_STATS_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct fb_stats {
    int n;
    double min, p20, median, p80, max, mean, stdev;
} fb_stats;

/* Sorts `x` in place, then fills `out`. n == 0 gives all-NaN and n = 0.
 * Quantiles interpolate linearly between order statistics (numpy's default). */
void fb_stats_compute(double *x, int n, fb_stats *out);
double fb_quantile_sorted(const double *sorted, int n, double q);
/* Median absolute deviation (unscaled) of sorted data. */
double fb_mad_sorted(const double *sorted, int n);
/* Relative noise of the median: 1.4826 * MAD * 1.2533 / sqrt(n) / median
 * (the standard error of the median for normal data, made robust). Inf if n < 3. */
double fb_median_rel_noise(const double *sorted, int n);
/* Two-sided Mann-Whitney U test p-value (normal approximation with tie correction). */
double fb_mann_whitney_p(const double *a, int na, const double *b, int nb);

#ifdef __cplusplus
}
#endif
#endif
