/* test_compare.c — compare_stats.c on synthetic sample sets: the verdicts the gate must
 * give (identical -> SAME, +10% in tight noise -> SLOWER, -10% -> FASTER, a +4% shift in
 * wide noise -> never SLOWER), that the bootstrap is deterministic, that its resampler
 * draws medians with the right probabilities, and the no-samples rule. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "compare_stats.h"
#include "testing.h"

/* Deterministic noise for the synthetic runs: splitmix64, then Box-Muller. */
static uint64_t rng_state;
static double uniform01(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static double normal(void)
{
    double u = uniform01(), v = uniform01();
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* n timing samples around `median` us with a relative spread `rel` (sigma), plus a
 * few slow outliers as real runs have (every 25th sample 30% slow). */
static void fake_run(double *x, int n, double median, double rel, uint64_t seed)
{
    rng_state = seed;
    for (int i = 0; i < n; i++) {
        x[i] = median * (1.0 + rel * normal());
        if (i % 25 == 24) x[i] *= 1.3;
    }
}

enum { N = 200 };

static fb_compare_result cmp(const double *b, int nb, const double *n, int nn)
{
    fb_compare_opts o = fb_compare_defaults();
    fb_compare_result r;
    fb_status s = fb_compare_samples(b, nb, n, nn, &o, &r);
    CHECK(s == FB_OK);
    return r;
}

static void test_verdicts(void)
{
    double base[N], same[N], slow[N], fast[N];
    fake_run(base, N, 100.0, 0.01, 1);

    /* identical: ratio exactly 1, a tight interval around it */
    fb_compare_result r = cmp(base, N, base, N);
    CHECK(r.verdict == FB_VERDICT_SAME);
    CHECK(r.method == FB_CI_BOOTSTRAP);
    CHECK_NEAR(r.ratio, 1.0, 0);
    CHECK(r.lo <= 1.0 && r.hi >= 1.0);
    CHECK(r.lo > 0.99 && r.hi < 1.01);
    CHECK(r.n_base == N && r.n_new == N);
    CHECK(r.p > 0.9);
    CHECK(r.why == NULL);

    /* another run of the same code (other noise): SAME */
    fake_run(same, N, 100.0, 0.01, 2);
    r = cmp(base, N, same, N);
    CHECK(r.verdict == FB_VERDICT_SAME);

    /* +10% with tight noise: SLOWER, the interval around 1.10 */
    fake_run(slow, N, 110.0, 0.01, 3);
    r = cmp(base, N, slow, N);
    CHECK(r.verdict == FB_VERDICT_SLOWER);
    CHECK(r.lo > 1.05 && r.lo < 1.10 && r.hi > 1.10 && r.hi < 1.12);
    CHECK_NEAR(r.ratio, 1.10, 0.01);
    CHECK(r.p < 1e-10);

    /* -10%: FASTER; and the mirror: BASE against SLOW is FASTER */
    fake_run(fast, N, 90.0, 0.01, 4);
    r = cmp(base, N, fast, N);
    CHECK(r.verdict == FB_VERDICT_FASTER);
    CHECK(r.hi < 1.0 / 1.05);
    r = cmp(slow, N, base, N);
    CHECK(r.verdict == FB_VERDICT_FASTER);

    /* +4% inside wide noise (20% sigma, 60 samples): the interval straddles 1.05 -> NOISY
     * (never SLOWER: a 4% change is under the 5% threshold) */
    double wb[60], wn[60];
    fake_run(wb, 60, 100.0, 0.20, 5);
    fake_run(wn, 60, 104.0, 0.20, 6);
    r = cmp(wb, 60, wn, 60);
    CHECK(r.verdict != FB_VERDICT_SLOWER);
    CHECK(r.verdict == FB_VERDICT_NOISY);
    CHECK(r.lo < 1.0 / 1.05 || r.hi > 1.05);

    /* +4% in tight noise: a real difference, but under the threshold -> SAME */
    double tn[N];
    fake_run(tn, N, 104.0, 0.002, 7);
    double tb[N];
    fake_run(tb, N, 100.0, 0.002, 8);
    r = cmp(tb, N, tn, N);
    CHECK(r.verdict == FB_VERDICT_SAME);
    CHECK(r.lo > 1.02); /* it is different, and the interval says so */

    /* +7% with the whole interval beyond 5%, against a threshold of 10%: SAME; of 5%: SLOWER */
    double s7[N];
    fake_run(s7, N, 107.0, 0.002, 9);
    fb_compare_opts o = fb_compare_defaults();
    o.threshold = 0.10;
    CHECK(fb_compare_samples(tb, N, s7, N, &o, &r) == FB_OK);
    CHECK(r.verdict == FB_VERDICT_SAME);
    o.threshold = 0.05;
    CHECK(fb_compare_samples(tb, N, s7, N, &o, &r) == FB_OK);
    CHECK(r.verdict == FB_VERDICT_SLOWER);

    /* sets of different sizes */
    r = cmp(base, N, slow, 37);
    CHECK(r.verdict == FB_VERDICT_SLOWER);
    CHECK(r.n_new == 37);
}

static void test_too_few_and_bad(void)
{
    double a[4] = {1, 2, 3, 4}, b[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    fb_compare_result r = cmp(a, 4, b, 10);
    CHECK(r.verdict == FB_VERDICT_NOISY);
    CHECK(r.method == FB_CI_NONE);
    CHECK(r.why != NULL);
    CHECK(isnan(r.lo) && isnan(r.hi));

    double z[6] = {0, 0, 0, 0, 1, 1};
    r = cmp(z, 6, b, 10);
    CHECK(r.verdict == FB_VERDICT_NOISY);
    CHECK(r.method == FB_CI_NONE);

    double nan6[6] = {1, 1, NAN, 1, 1, 1};
    r = cmp(nan6, 6, b, 10);
    CHECK(r.method == FB_CI_NONE);

    /* every sample equal on both sides: a point interval, SAME (or SLOWER when apart) */
    double c[8] = {5, 5, 5, 5, 5, 5, 5, 5}, d[8] = {6, 6, 6, 6, 6, 6, 6, 6};
    r = cmp(c, 8, c, 8);
    CHECK(r.verdict == FB_VERDICT_SAME);
    CHECK_NEAR(r.lo, 1.0, 0);
    CHECK_NEAR(r.hi, 1.0, 0);
    r = cmp(c, 8, d, 8);
    CHECK(r.verdict == FB_VERDICT_SLOWER);
    CHECK_NEAR(r.lo, 1.2, 1e-15);
}

static void test_deterministic(void)
{
    double b[N], n[N];
    fake_run(b, N, 100.0, 0.05, 11);
    fake_run(n, N, 103.0, 0.05, 12);
    fb_compare_opts o = fb_compare_defaults();
    double *d1 = malloc(sizeof(double) * (size_t)o.resamples), *d2 = malloc(sizeof(double) * (size_t)o.resamples);
    CHECK(fb_compare_bootstrap_draws(b, N, n, N, &o, d1) == FB_OK);
    CHECK(fb_compare_bootstrap_draws(b, N, n, N, &o, d2) == FB_OK);
    CHECK(memcmp(d1, d2, sizeof(double) * (size_t)o.resamples) == 0);
    /* the input order does not matter (the sets are sorted first) */
    double rev[N];
    for (int i = 0; i < N; i++) rev[i] = n[N - 1 - i];
    CHECK(fb_compare_bootstrap_draws(b, N, rev, N, &o, d2) == FB_OK);
    CHECK(memcmp(d1, d2, sizeof(double) * (size_t)o.resamples) == 0);
    /* another seed: other draws, nearly the same interval */
    fb_compare_result r1, r2;
    CHECK(fb_compare_samples(b, N, n, N, &o, &r1) == FB_OK);
    o.seed = 2;
    CHECK(fb_compare_bootstrap_draws(b, N, n, N, &o, d2) == FB_OK);
    CHECK(memcmp(d1, d2, sizeof(double) * (size_t)o.resamples) != 0);
    CHECK(fb_compare_samples(b, N, n, N, &o, &r2) == FB_OK);
    CHECK_NEAR(r1.lo, r2.lo, 0.005);
    CHECK_NEAR(r1.hi, r2.hi, 0.005);
    /* the same call twice: bit for bit */
    o.seed = 1;
    CHECK(fb_compare_samples(b, N, n, N, &o, &r2) == FB_OK);
    CHECK(r1.lo == r2.lo && r1.hi == r2.hi && r1.ratio == r2.ratio);
    free(d1);
    free(d2);
}

/* The resampler draws each order statistic as often as the bootstrap should. Against a
 * constant base of ones, each draw is the median of a resample of {1,2,3,4,5}:
 * P(median = x_(j)) = P(Bin(5, j/5) >= 3) - P(Bin(5, (j-1)/5) >= 3):
 * x_1: 0.05792, x_2: 0.31744 - 0.05792 = 0.25952, x_3: 0.68256 - 0.31744 = 0.36512. */
static void test_resampler_distribution(void)
{
    double ones[5] = {1, 1, 1, 1, 1}, five[5] = {1, 2, 3, 4, 5};
    fb_compare_opts o = fb_compare_defaults();
    o.resamples = 20000;
    double *d = malloc(sizeof(double) * (size_t)o.resamples);
    CHECK(fb_compare_bootstrap_draws(ones, 5, five, 5, &o, d) == FB_OK);
    int count[6] = {0};
    int outside = 0;
    for (int r = 0; r < o.resamples; r++) {
        int v = (int)d[r];
        if (d[r] != v || v < 1 || v > 5) outside++;
        else count[v]++;
    }
    CHECK(outside == 0);
    /* sd of a frequency over 20000 draws is <= 0.0035: 0.012 is over 3 sd */
    CHECK_NEAR(count[1] / 20000.0, 0.05792, 0.012);
    CHECK_NEAR(count[2] / 20000.0, 0.25952, 0.012);
    CHECK_NEAR(count[3] / 20000.0, 0.36512, 0.012);
    CHECK_NEAR(count[4] / 20000.0, 0.25952, 0.012);
    CHECK_NEAR(count[5] / 20000.0, 0.05792, 0.012);

    /* even n: resamples of n - 1 draws (compare_stats.c says why), so each draw is one of
     * the values, x_(j) with P(median <= x_(j)) = P(Bin(3, j/4) >= 2):
     * 0.15625, 0.5, 0.84375, 1 -> 0.15625, 0.34375, 0.34375, 0.15625 */
    double four[4] = {1, 2, 4, 8}, ones4[4] = {1, 1, 1, 1};
    CHECK(fb_compare_bootstrap_draws(ones4, 4, four, 4, &o, d) == FB_OK);
    int c4[9] = {0}, bad = 0;
    for (int r = 0; r < o.resamples; r++) {
        int v = (int)d[r];
        if (d[r] != v || (v != 1 && v != 2 && v != 4 && v != 8)) bad++;
        else c4[v]++;
    }
    CHECK(bad == 0);
    CHECK_NEAR(c4[1] / 20000.0, 0.15625, 0.012);
    CHECK_NEAR(c4[2] / 20000.0, 0.34375, 0.012);
    CHECK_NEAR(c4[4] / 20000.0, 0.34375, 0.012);
    CHECK_NEAR(c4[8] / 20000.0, 0.15625, 0.012);
    free(d);
}

/* The exact sampler against the bootstrap done the slow way: n indices drawn with
 * replacement, the median of what they pick. Over 101 skewed samples, the two
 * distributions of resample medians must agree (Kolmogorov-Smirnov distance of two
 * samples of 20000 and 4000: 0.035 is beyond the 0.1% level). */
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_against_naive_bootstrap(void)
{
    enum { n = 101, FAST = 20000, SLOW = 4000 };
    double x[n], ones[n], pick[n];
    rng_state = 99;
    for (int i = 0; i < n; i++) {
        x[i] = 10.0 + (i % 7 == 0 ? 4.0 : 0.0) + uniform01() * uniform01() * 3.0; /* skewed, bimodal */
        ones[i] = 1.0;
    }
    fb_compare_opts o = fb_compare_defaults();
    o.resamples = FAST;
    double *fast = malloc(sizeof(double) * FAST), *slow = malloc(sizeof(double) * SLOW);
    CHECK(fb_compare_bootstrap_draws(ones, n, x, n, &o, fast) == FB_OK);
    for (int r = 0; r < SLOW; r++) {
        for (int i = 0; i < n; i++) pick[i] = x[(int)(uniform01() * n)];
        qsort(pick, n, sizeof *pick, cmp_dbl);
        slow[r] = pick[n / 2];
    }
    qsort(fast, FAST, sizeof *fast, cmp_dbl);
    qsort(slow, SLOW, sizeof *slow, cmp_dbl);
    double ks = 0;
    for (int i = 0, j = 0; i < FAST || j < SLOW;) {
        double v = i < FAST && (j >= SLOW || fast[i] <= slow[j]) ? fast[i] : slow[j];
        while (i < FAST && fast[i] <= v) i++;
        while (j < SLOW && slow[j] <= v) j++;
        double dd = fabs((double)i / FAST - (double)j / SLOW);
        if (dd > ks) ks = dd;
    }
    CHECK(ks < 0.035);
    free(fast);
    free(slow);
}

/* Large sets stay fast: 10000 resamples of 5000 and 4000 samples. */
static void test_large(void)
{
    enum { NB = 5000, NN = 4000 };
    double *b = malloc(sizeof(double) * NB), *n = malloc(sizeof(double) * NN);
    fake_run(b, NB, 100.0, 0.01, 21);
    fake_run(n, NN, 100.5, 0.01, 22);
    fb_compare_result r = cmp(b, NB, n, NN);
    CHECK(r.verdict == FB_VERDICT_SAME);
    CHECK(r.lo > 1.0 && r.hi < 1.01); /* 0.5% is seen with this many samples */
    free(b);
    free(n);
}

static void test_verdict_of(void)
{
    CHECK(fb_verdict_of(1.06, 1.2, 0.05) == FB_VERDICT_SLOWER);
    CHECK(fb_verdict_of(1.05, 1.2, 0.05) == FB_VERDICT_NOISY); /* on the bound: not beyond it */
    CHECK(fb_verdict_of(0.9, 0.95, 0.05) == FB_VERDICT_FASTER); /* 0.95 < 1/1.05 = 0.952 */
    CHECK(fb_verdict_of(0.9, 0.96, 0.05) == FB_VERDICT_NOISY);
    CHECK(fb_verdict_of(0.96, 1.04, 0.05) == FB_VERDICT_SAME);
    CHECK(fb_verdict_of(1.0 / 1.05, 1.05, 0.05) == FB_VERDICT_SAME);
    CHECK(fb_verdict_of(0.5, 2.0, 0.05) == FB_VERDICT_NOISY);
    CHECK(fb_verdict_of(NAN, 1.0, 0.05) == FB_VERDICT_NOISY);
    CHECK(fb_verdict_of(1.0, 1.0, 0.0) == FB_VERDICT_SAME);
    CHECK(fb_verdict_of(1.001, 1.002, 0.0) == FB_VERDICT_SLOWER);
    CHECK_STR(fb_verdict_name(FB_VERDICT_SLOWER), "SLOWER");
    CHECK_STR(fb_verdict_name(FB_VERDICT_SAME), "SAME");
    CHECK_STR(fb_verdict_name(FB_VERDICT_FASTER), "FASTER");
    CHECK_STR(fb_verdict_name(FB_VERDICT_NOISY), "NOISY");
    CHECK_STR(fb_ci_method_name(FB_CI_QUANTILES), "quantiles");
}

static fb_stats st(double median, double p20, double p80, int n)
{
    return (fb_stats){.n = n, .min = p20, .p20 = p20, .median = median, .p80 = p80, .max = p80, .mean = median};
}

static void test_quantile_rule(void)
{
    fb_compare_result r;
    fb_stats b = st(100, 99, 101, 50);
    /* +10%, tight: 109/101 = 1.079 > 1.05 -> SLOWER */
    fb_stats n = st(110, 109, 111, 50);
    fb_compare_quantiles(&b, &n, 0.05, &r);
    CHECK(r.method == FB_CI_QUANTILES);
    CHECK(r.verdict == FB_VERDICT_SLOWER);
    CHECK_NEAR(r.ratio, 1.1, 1e-12);
    CHECK_NEAR(r.lo, 109.0 / 101, 1e-12);
    CHECK_NEAR(r.hi, 111.0 / 99, 1e-12);
    CHECK(isnan(r.p));
    /* the same numbers: [99/101, 101/99] = [0.980, 1.020] -> SAME */
    fb_compare_quantiles(&b, &b, 0.05, &r);
    CHECK(r.verdict == FB_VERDICT_SAME);
    /* +10% median, but wide ranges that overlap: NOISY (the rule errs this way) */
    n = st(110, 95, 125, 50);
    fb_compare_quantiles(&b, &n, 0.05, &r);
    CHECK(r.verdict == FB_VERDICT_NOISY);
    /* -10% tight: FASTER */
    n = st(90, 89, 91, 50);
    fb_compare_quantiles(&b, &n, 0.05, &r);
    CHECK(r.verdict == FB_VERDICT_FASTER);
    /* n = 1: no spread was measured -> no interval */
    n = st(110, 110, 110, 1);
    fb_compare_quantiles(&b, &n, 0.05, &r);
    CHECK(r.method == FB_CI_NONE);
    CHECK(r.verdict == FB_VERDICT_NOISY);
    CHECK_NEAR(r.ratio, 1.1, 1e-12);
    CHECK(r.why != NULL);
    /* a missing median */
    n = st(NAN, NAN, NAN, 0);
    fb_compare_quantiles(&b, &n, 0.05, &r);
    CHECK(r.method == FB_CI_NONE);
    CHECK(isnan(r.ratio));
}

int main(void)
{
    test_verdicts();
    test_too_few_and_bad();
    test_deterministic();
    test_resampler_distribution();
    test_against_naive_bootstrap();
    test_large();
    test_verdict_of();
    test_quantile_rule();
    return fb_t_report("test_compare");
}
