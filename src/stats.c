/* stats.c — order statistics of timing samples and the Mann-Whitney U test.
 *
 * Conventions (so numbers agree with the Python side of the world):
 *  - quantiles interpolate linearly between order statistics, numpy's default
 *    ("linear", h = (n-1) q);
 *  - stdev is the sample standard deviation (n-1), as torch.std;
 *  - MAD is unscaled (median of |x - median|); fb_median_rel_noise scales it;
 *  - Mann-Whitney is scipy.stats.mannwhitneyu(alternative="two-sided",
 *    method="asymptotic", use_continuity=True): midranks for ties, the tie-
 *    corrected variance, a 0.5 continuity correction. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double fb_quantile_sorted(const double *sorted, int n, double q)
{
    if (n <= 0) return NAN;
    if (q <= 0) return sorted[0];
    if (q >= 1) return sorted[n - 1];
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    if (lo >= n - 1) return sorted[n - 1];
    double f = h - lo;
    return sorted[lo] + f * (sorted[lo + 1] - sorted[lo]);
}

void fb_stats_compute(double *x, int n, fb_stats *out)
{
    out->n = n > 0 ? n : 0;
    if (n <= 0) {
        out->min = out->p20 = out->median = out->p80 = out->max = out->mean = out->stdev = NAN;
        return;
    }
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    out->min = x[0];
    out->max = x[n - 1];
    out->p20 = fb_quantile_sorted(x, n, 0.2);
    out->median = fb_quantile_sorted(x, n, 0.5);
    out->p80 = fb_quantile_sorted(x, n, 0.8);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    double mean = sum / n;
    /* Two passes: timing samples are close together, and the one-pass formula
     * would cancel catastrophically. */
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    out->mean = mean;
    out->stdev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
}

double fb_mad_sorted(const double *sorted, int n)
{
    if (n <= 0) return NAN;
    double med = fb_quantile_sorted(sorted, n, 0.5);
    double *d = malloc((size_t)n * sizeof *d);
    if (!d) return NAN;
    for (int i = 0; i < n; i++) d[i] = fabs(sorted[i] - med);
    qsort(d, (size_t)n, sizeof *d, cmp_double);
    double mad = fb_quantile_sorted(d, n, 0.5);
    free(d);
    return mad;
}

double fb_median_rel_noise(const double *sorted, int n)
{
    if (n < 3) return INFINITY;
    double med = fb_quantile_sorted(sorted, n, 0.5);
    if (!(med > 0)) return INFINITY;
    /* 1.4826 * MAD estimates sigma for normal data; the median's standard error
     * is sqrt(pi/2) = 1.2533 times the mean's, sigma / sqrt(n). */
    return 1.4826 * fb_mad_sorted(sorted, n) * 1.2533 / sqrt((double)n) / med;
}

typedef struct tagged {
    double v;
    int from_a;
} tagged;

static int cmp_tagged(const void *a, const void *b)
{
    return cmp_double(&((const tagged *)a)->v, &((const tagged *)b)->v);
}

double fb_mann_whitney_p(const double *a, int na, const double *b, int nb)
{
    if (na <= 0 || nb <= 0) return NAN;
    int N = na + nb;
    tagged *t = malloc((size_t)N * sizeof *t);
    if (!t) return NAN;
    for (int i = 0; i < na; i++) t[i] = (tagged){a[i], 1};
    for (int i = 0; i < nb; i++) t[na + i] = (tagged){b[i], 0};
    qsort(t, (size_t)N, sizeof *t, cmp_tagged);

    /* Midranks (1-based) over runs of ties; sum the ranks of a's values and the
     * tie term sum(t^3 - t) for the variance. */
    double rank_sum_a = 0, ties = 0;
    for (int i = 0; i < N;) {
        int j = i;
        while (j + 1 < N && t[j + 1].v == t[i].v) j++;
        double midrank = (i + j) / 2.0 + 1.0;
        for (int k = i; k <= j; k++)
            if (t[k].from_a) rank_sum_a += midrank;
        double tc = j - i + 1;
        ties += tc * tc * tc - tc;
        i = j + 1;
    }
    free(t);

    double u1 = rank_sum_a - na * (na + 1) / 2.0;
    double u2 = (double)na * nb - u1;
    double u = u1 > u2 ? u1 : u2;
    double mu = (double)na * nb / 2.0;
    double var = (double)na * nb / 12.0 * ((N + 1) - ties / ((double)N * (N - 1)));
    if (!(var > 0)) return 1.0; /* every value equal: no evidence of a difference */
    double z = (u - mu - 0.5) / sqrt(var);
    double p = erfc(z / sqrt(2.0)); /* 2 * P(Z > z) */
    return p > 1.0 ? 1.0 : p;
}
