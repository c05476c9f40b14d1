/* test_stats.c — stats.c against values computed by hand (numpy's linear
 * quantiles, sample stdev, unscaled MAD, scipy's asymptotic Mann-Whitney U with
 * continuity and tie correction). Each expected value's derivation is beside it. */
#include <math.h>

#include "stats.h"
#include "testing.h"

static void test_quantiles(void)
{
    const double a[] = {1, 2, 3, 4};
    /* h = (n-1) q: q=.5 -> h=1.5 -> 2 + .5*(3-2); q=.2 -> h=.6 -> 1.6; q=.8 -> h=2.4 -> 3.4 */
    CHECK_NEAR(fb_quantile_sorted(a, 4, 0.5), 2.5, 1e-12);
    CHECK_NEAR(fb_quantile_sorted(a, 4, 0.2), 1.6, 1e-12);
    CHECK_NEAR(fb_quantile_sorted(a, 4, 0.8), 3.4, 1e-12);
    CHECK_NEAR(fb_quantile_sorted(a, 4, 0.0), 1.0, 0);
    CHECK_NEAR(fb_quantile_sorted(a, 4, 1.0), 4.0, 0);
    CHECK_NEAR(fb_quantile_sorted(a, 4, 1.0 / 3), 2.0, 1e-12); /* h = 1 exactly */
    const double one[] = {7};
    CHECK_NEAR(fb_quantile_sorted(one, 1, 0.3), 7.0, 0);
    CHECK(isnan(fb_quantile_sorted(a, 0, 0.5)));
}

static void test_stats_compute(void)
{
    double x[] = {7, 1, 3, 10, 5}; /* sorted: 1 3 5 7 10 */
    fb_stats s;
    fb_stats_compute(x, 5, &s);
    CHECK(s.n == 5);
    CHECK_NEAR(x[0], 1, 0); /* sorted in place */
    CHECK_NEAR(x[4], 10, 0);
    CHECK_NEAR(s.min, 1, 0);
    CHECK_NEAR(s.max, 10, 0);
    CHECK_NEAR(s.median, 5, 1e-12);
    CHECK_NEAR(s.p20, 2.6, 1e-12); /* h = .8 -> 1 + .8*(3-1) */
    CHECK_NEAR(s.p80, 7.6, 1e-12); /* h = 3.2 -> 7 + .2*(10-7) */
    CHECK_NEAR(s.mean, 5.2, 1e-12);
    /* squared deviations 17.64 + 4.84 + 0.04 + 3.24 + 23.04 = 48.8; / (n-1) = 12.2 */
    CHECK_NEAR(s.stdev, 3.492849839314596, 1e-12);

    /* MAD: |x - 5| = 4 2 0 2 5 -> median 2 */
    CHECK_NEAR(fb_mad_sorted(x, 5), 2.0, 1e-12);
    /* 1.4826 * 2 * 1.2533 / sqrt(5) / 5 */
    CHECK_NEAR(fb_median_rel_noise(x, 5), 0.3323946496613473, 1e-12);

    double even[] = {4, 1, 2, 10}; /* sorted 1 2 4 10, median 3; |x-3| = 2 1 1 7 -> MAD 1.5 */
    fb_stats_compute(even, 4, &s);
    CHECK_NEAR(s.median, 3, 1e-12);
    CHECK_NEAR(fb_mad_sorted(even, 4), 1.5, 1e-12);

    double single[] = {2.5};
    fb_stats_compute(single, 1, &s);
    CHECK(s.n == 1);
    CHECK_NEAR(s.median, 2.5, 0);
    CHECK_NEAR(s.p20, 2.5, 0);
    CHECK_NEAR(s.stdev, 0, 0);

    fb_stats_compute(NULL, 0, &s);
    CHECK(s.n == 0);
    CHECK(isnan(s.median) && isnan(s.min) && isnan(s.stdev));

    /* Noise: infinite with fewer than 3 samples or a zero median; zero for equal samples. */
    const double two[] = {1, 2};
    CHECK(isinf(fb_median_rel_noise(two, 2)));
    const double zeros[] = {0, 0, 0};
    CHECK(isinf(fb_median_rel_noise(zeros, 3)));
    const double flat[] = {3, 3, 3, 3};
    CHECK_NEAR(fb_median_rel_noise(flat, 4), 0, 0);
}

static void test_mann_whitney(void)
{
    /* Identical samples: U = mu, p = 1 (clamped, as scipy). */
    const double a[] = {1, 2, 3, 4, 5};
    CHECK_NEAR(fb_mann_whitney_p(a, 5, a, 5), 1.0, 1e-12);
    /* All values equal: zero variance, no evidence either way. */
    const double c[] = {2, 2, 2};
    CHECK_NEAR(fb_mann_whitney_p(c, 3, c, 3), 1.0, 0);

    /* [1..5] vs [6..10]: U = 25, mu = 12.5, var = 25/12 * 11; z = 12/sqrt(var);
     * p = erfc(z / sqrt 2) (scipy: 0.012185780355344813). Symmetric in a, b. */
    const double b[] = {6, 7, 8, 9, 10};
    CHECK_NEAR(fb_mann_whitney_p(a, 5, b, 5), 0.012185780355344818, 1e-12);
    CHECK_NEAR(fb_mann_whitney_p(b, 5, a, 5), 0.012185780355344818, 1e-12);

    /* Ties: a = 1 2 2 3, b = 2 3 4 5. Midranks: 1 -> 1, 2s -> 3, 3s -> 5.5, 4 -> 7, 5 -> 8.
     * R_a = 12.5, U1 = 2.5, U = 13.5, mu = 8; ties 3 and 2: sum(t^3 - t) = 30;
     * var = 16/12 * (9 - 30/56) = 11.2857142857; z = 5/sqrt(var) = 1.48835. */
    const double ta[] = {1, 2, 2, 3}, tb[] = {2, 3, 4, 5};
    CHECK_NEAR(fb_mann_whitney_p(ta, 4, tb, 4), 0.13665824773814753, 1e-12);

    /* Fully separated, 20 each: U = 400, mu = 200, var = 400/12 * 41; p = 6.7956e-8. */
    double lo[20], hi[20];
    for (int i = 0; i < 20; i++) {
        lo[i] = 1.0 + 0.01 * i;
        hi[i] = 2.0 + 0.01 * i;
    }
    double p = fb_mann_whitney_p(lo, 20, hi, 20);
    CHECK(p > 0 && p < 1e-6);
    CHECK_NEAR(p, 6.795615128173387e-08, 1e-15);

    CHECK(isnan(fb_mann_whitney_p(a, 0, b, 5)));
}

int main(void)
{
    test_quantiles();
    test_stats_compute();
    test_mann_whitney();
    return fb_t_report("test_stats");
}
