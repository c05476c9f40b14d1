/* test_tolerance.c — the check's tolerance without a GPU: the element rule, the
 * default's widening by the output's typical magnitude, and, on CPU emulations of
 * what eager computes, the cases that motivated it:
 *   - float32 sums over 65536 columns (blocked fp32 summation like eager's row
 *     kernel) against the float64 reference: the old fixed default fails the rows
 *     whose sum lands near zero; the widened default passes every row;
 *   - float16 and bfloat16 sums of products (each product stored rounded, as eager
 *     stores every intermediate): the same, at half precision;
 *   - matmul_matmul's stated float32 atol and default half tolerances on eager's
 *     sums over N = 16384 (test_matmul_matmul below says how they were chosen);
 *   - a real bug (a dropped chunk, zeros) still fails, and a normalised output
 *     (softmax over 65536 columns) stays as tightly checked as before, where a
 *     tolerance scaled by the row length alone would pass zeros for most elements. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "check.h"
#include "emulate.h"
#include "testing.h"

/* ---- deterministic N(0, 1) ------------------------------------------------------ */

static double gauss(void)
{
    static int have;
    static double spare;
    if (have) {
        have = 0;
        return spare;
    }
    double r = sqrt(-2 * log(t_rng_uniform01())), a = 6.283185307179586 * t_rng_uniform01();
    spare = r * sin(a);
    have = 1;
    return r * cos(a);
}

/* ---- eager's fp32 row sum ------------------------------------------------------------
 * rows_block_kernel for a long row: 512 threads, each over 16-byte chunks (4 floats)
 * strided by 512 chunks into four accumulators in turn, the four combined, then a
 * tree over the threads. The order, not the exact kernel, is what sets the error. */
static float eager_row_sum(const float *x, int64_t n)
{
    enum { T = 512 };
    float part[T];
    int64_t nv = n / 4;
    for (int t = 0; t < T; t++) {
        float a[4] = {0, 0, 0, 0};
        int u = 0;
        for (int64_t c = t; c < nv; c += T) {
            for (int j = 0; j < 4; j++) a[u] += x[4 * c + j];
            u = (u + 1) & 3;
        }
        part[t] = (a[0] + a[1]) + (a[2] + a[3]);
    }
    for (int w = T / 2; w > 0; w /= 2)
        for (int t = 0; t < w; t++) part[t] += part[t + w];
    return part[0];
}

/* How many of n elements fail under t. */
static int64_t n_failing(const double *got, const double *want, int64_t n, fb_tol t)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += !fb_within_tol(got[i], want[i], t);
    return bad;
}

/* A default as the loader fills it in when the case file is silent. */
static fb_tol default_for(fb_dtype d)
{
    static fb_case c;
    const char *text = "{\"name\": \"s\", \"summary\": \"s\", \"inputs\": {\"x\": {\"shape\": [\"n\"]}},"
                       " \"program\": [{\"op\": \"neg\", \"in\": [\"x\"], \"out\": \"y\"}], \"outputs\": [\"y\"],"
                       " \"dtypes\": [\"float32\", \"float16\", \"bfloat16\", \"float64\"], \"grid\": {\"n\": [4]}}";
    fb_status s = fb_case_parse(text, "t.json", &c);
    CHECK(s == FB_OK);
    CHECK(!c.tol[d].set);
    return c.tol[d];
}

static void test_rule(void)
{
    fb_tol t = {true, 1e-3, 1e-2};
    CHECK(fb_within_tol(1.0, 1.0, t));
    CHECK(fb_within_tol(1.011, 1.0, t));  /* 0.011 <= 1e-3 + 1e-2 */
    CHECK(!fb_within_tol(1.0111, 1.0, t));
    CHECK(!fb_within_tol(NAN, 1.0, t));
    CHECK(!fb_within_tol(1.0, NAN, t));
    CHECK(!fb_within_tol(NAN, NAN, t));
    CHECK(fb_within_tol(INFINITY, INFINITY, t));
    CHECK(fb_within_tol(-INFINITY, -INFINITY, t));
    CHECK(!fb_within_tol(-INFINITY, INFINITY, t));
    CHECK(!fb_within_tol(1e300, INFINITY, t)); /* a finite value is infinitely far from inf */
    CHECK(!fb_within_tol(1.0, INFINITY, (fb_tol){true, 0, 0}));
}

static void test_widening(void)
{
    /* stated in the case file: used as written, whatever the output's scale */
    fb_tol stated = {true, 1e-6, 1e-5};
    fb_tol t = fb_tolerance(stated, 1000);
    CHECK(t.set && t.atol == 1e-6 && t.rtol == 1e-5);
    /* a default grows with the output's scale, and only its atol */
    fb_tol def = default_for(FB_F32);
    CHECK(def.atol == 1e-6 && def.rtol == 1e-5);
    t = fb_tolerance(def, 178);
    CHECK(!t.set && t.rtol == 1e-5);
    CHECK_NEAR(t.atol, 1e-6 + 1e-5 * 178, 1e-15);
    /* nothing to scale by: the default itself, never looser */
    t = fb_tolerance(def, 0);
    CHECK(t.atol == def.atol && t.rtol == def.rtol);
    t = fb_tolerance(def, NAN);
    CHECK(t.atol == def.atol);
    t = fb_tolerance(def, INFINITY);
    CHECK(t.atol == def.atol);
    /* every dtype's default is widened the same way */
    for (int d = 0; d < FB_NDTYPES; d++) {
        fb_tol base = default_for((fb_dtype)d);
        t = fb_tolerance(base, 2.0);
        CHECK_NEAR(t.atol, base.atol + 2 * base.rtol, 1e-18);
    }

    /* the typical magnitude: the median |v| of the finite elements */
    double v[] = {-3, 1, NAN, 2, INFINITY, -10};
    CHECK(fb_typical_magnitude(v, 6) == 2.5); /* |.| of -3, 1, 2, -10 */
    CHECK(fb_typical_magnitude(v, 1) == 3);
    CHECK(fb_typical_magnitude(v + 2, 1) == 0); /* only NaN */
    CHECK(fb_typical_magnitude(v, 0) == 0);
    /* exact zeros are left out: a relu output keeps the scale of its positive half */
    double relu[] = {0, 0, 0, 4, 0, 6, 0, 5};
    CHECK(fb_typical_magnitude(relu, 8) == 5);
    CHECK(fb_typical_magnitude(relu, 3) == 0); /* only zeros: no widening */
    /* a large output is sampled at an even stride: deterministic, still the median */
    int64_t n = 1000003;
    double *big = malloc((size_t)n * sizeof *big);
    for (int64_t i = 0; i < n; i++) big[i] = (double)(i % 1000) * (i % 2 ? -1 : 1);
    double m = fb_typical_magnitude(big, n);
    CHECK(m >= 480 && m <= 520);
    CHECK(fb_typical_magnitude(big, n) == m);
    free(big);
}

/* float32: sums of N(0,1) over 65536 columns, as eager computes them. */
static void test_float32_long_rows(void)
{
    enum { ROWS = 512, R = 65536 };
    float *x = malloc(sizeof(float) * R);
    double *got = malloc(sizeof(double) * ROWS), *want = malloc(sizeof(double) * ROWS);
    double *dropped = malloc(sizeof(double) * ROWS), max_err = 0;
    t_rng_seed(12345);
    for (int r = 0; r < ROWS; r++) {
        for (int i = 0; i < R; i++) x[i] = (float)gauss();
        double ref = 0;
        for (int i = 0; i < R; i++) ref += x[i];
        want[r] = ref;
        got[r] = (double)eager_row_sum(x, R);
        dropped[r] = (double)eager_row_sum(x, R - 4); /* a kernel that misses the last chunk */
        if (fabs(got[r] - ref) > max_err) max_err = fabs(got[r] - ref);
    }
    /* eager's own error: tens of microunits, growing ~ sqrt(n) */
    CHECK(max_err > 1e-5 && max_err < 1e-3);
    fb_tol def = default_for(FB_F32);
    fb_tol t = fb_tolerance(def, fb_typical_magnitude(want, ROWS));
    int64_t old_bad = n_failing(got, want, ROWS, def), new_bad = n_failing(got, want, ROWS, t);
    printf("float32, %d columns: max error %.3g; fixed default fails %lld of %d rows, widened (atol %.3g) %lld\n", R,
           max_err, (long long)old_bad, ROWS, t.atol, (long long)new_bad);
    CHECK(old_bad > 0);  /* the bug: eager failing its own check */
    CHECK(new_bad == 0); /* the fix */
    CHECK(t.atol > 5 * max_err);
    /* a real bug is still caught on (nearly) every row */
    CHECK(n_failing(dropped, want, ROWS, t) > ROWS * 9 / 10);
    free(x);
    free(got);
    free(want);
    free(dropped);
}

/* float16 and bfloat16: sum(mul(a, b)) over 65536 columns. Eager stores each
 * product rounded to the storage type, accumulates in fp32 and rounds the sum;
 * the reference sums the exact products of the stored inputs. */
static void test_half_sums_of_products(void)
{
    enum { ROWS = 192, R = 65536 };
    float *t16 = malloc(sizeof(float) * R), *tbf = malloc(sizeof(float) * R);
    double *want16 = malloc(sizeof(double) * ROWS), *got16 = malloc(sizeof(double) * ROWS);
    double *wantbf = malloc(sizeof(double) * ROWS), *gotbf = malloc(sizeof(double) * ROWS);
    t_rng_seed(777);
    for (int r = 0; r < ROWS; r++) {
        double ref16 = 0, refbf = 0;
        for (int i = 0; i < R; i++) {
            double g1 = gauss(), g2 = gauss();
            double a16 = t_to_f16(g1), b16 = t_to_f16(g2), abf = t_to_bf16(g1), bbf = t_to_bf16(g2);
            ref16 += a16 * b16;
            refbf += abf * bbf;
            t16[i] = (float)t_to_f16((float)a16 * (float)b16);
            tbf[i] = (float)t_to_bf16((float)abf * (float)bbf);
        }
        want16[r] = ref16;
        wantbf[r] = refbf;
        got16[r] = t_to_f16(eager_row_sum(t16, R));
        gotbf[r] = t_to_bf16(eager_row_sum(tbf, R));
    }
    struct { const char *name; fb_dtype d; double *got, *want; } k[] = {
        {"float16", FB_F16, got16, want16},
        {"bfloat16", FB_BF16, gotbf, wantbf},
    };
    for (int i = 0; i < 2; i++) {
        fb_tol def = default_for(k[i].d);
        fb_tol t = fb_tolerance(def, fb_typical_magnitude(k[i].want, ROWS));
        int64_t old_bad = n_failing(k[i].got, k[i].want, ROWS, def);
        int64_t new_bad = n_failing(k[i].got, k[i].want, ROWS, t);
        double max_err = 0;
        for (int r = 0; r < ROWS; r++) max_err = fmax(max_err, fabs(k[i].got[r] - k[i].want[r]));
        printf("%s sum of products, %d columns: max error %.3g; fixed default fails %lld of %d rows, widened "
               "(atol %.3g) %lld\n",
               k[i].name, R, max_err, (long long)old_bad, ROWS, t.atol, (long long)new_bad);
        CHECK(t.atol > 2 * max_err);
        CHECK(old_bad > 0);
        CHECK(new_bad == 0);
        /* zeros, or every sum off by a few terms' worth, still fail */
        double *zero = calloc(ROWS, sizeof(double));
        CHECK(n_failing(zero, k[i].want, ROWS, t) > ROWS * 9 / 10);
        free(zero);
    }
    free(t16);
    free(tbf);
    free(want16);
    free(got16);
    free(wantbf);
    free(gotbf);
}

/* softmax over 65536 columns: outputs ~ 1/65536. Its default stays tight (zeros
 * fail almost everywhere); an atol grown with sqrt(row length), as a shape-only
 * rule would, lets zeros pass for nearly every element. */
static void test_normalised_output_stays_tight(void)
{
    enum { R = 65536 };
    double *x = malloc(sizeof(double) * R), *y = malloc(sizeof(double) * R), *zero = calloc(R, sizeof(double));
    t_rng_seed(99);
    double m = -INFINITY, s = 0;
    for (int i = 0; i < R; i++) {
        x[i] = (float)gauss();
        if (x[i] > m) m = x[i];
    }
    for (int i = 0; i < R; i++) s += exp(x[i] - m);
    for (int i = 0; i < R; i++) y[i] = exp(x[i] - m) / s;
    fb_tol def = default_for(FB_F32);
    fb_tol t = fb_tolerance(def, fb_typical_magnitude(y, R));
    CHECK(t.atol < 1.01e-6); /* the output's scale is ~1e-5: nearly no widening */
    int64_t bad = n_failing(zero, y, R, t);
    CHECK(bad > R * 9 / 10);
    fb_tol by_shape = {false, 8 * ldexp(1.0, -24) * sqrt((double)R), def.rtol};
    int64_t bad_by_shape = n_failing(zero, y, R, by_shape);
    printf("softmax, %d columns: zeros fail on %lld elements under the default, %lld under atol ~ sqrt(n) (%.3g)\n", R,
           (long long)bad, (long long)bad_by_shape, by_shape.atol);
    CHECK(bad_by_shape < R / 10);
    free(x);
    free(y);
    free(zero);
}

/* rmsnorm_backward's dw = sum over the [4, T] rows of dy * x * r, as eager
 * computes it at T = 2048 (8192 rows, the grid's largest sum), on 512 columns:
 * every intermediate stored in the dtype (x*x, mean, +1e-6, rsqrt, x*r, dy*xr,
 * the sum over dim 0 of 4, the sum over T), each op computed in fp32 and each
 * sum accumulated in fp32 — the sum over T as cols_kernel does it: 8 slices of
 * 256 rows each summed in order, then a tree. The reference sums the exact
 * terms of the stored inputs. The default tolerance, widened by dw's median
 * |value| (~0.67 sqrt(8192) = 61), must hold with room to spare; a dw that
 * misses one of the 4 leading rows' parts, or one slice of T, must fail. */
static double store(fb_dtype d, double v)
{
    return d == FB_F16 ? t_to_f16(v) : d == FB_BF16 ? t_to_bf16(v) : (double)(float)v;
}

static void test_rmsnorm_backward_dw(void)
{
    enum { A = 4, T = 2048, N = 512, SLICES = 8 };
    const fb_dtype dts[] = {FB_F32, FB_F16, FB_BF16};
    float *dw_t = malloc(sizeof(float) * T * N), *dw_t3 = malloc(sizeof(float) * T * N);
    double *want = malloc(sizeof(double) * N), *got = malloc(sizeof(double) * N);
    double *miss_a = malloc(sizeof(double) * N), *miss_t = malloc(sizeof(double) * N);
    double x[N], dy[N];
    for (int di = 0; di < 3; di++) {
        const fb_dtype d = dts[di];
        t_rng_seed(4242);
        memset(want, 0, sizeof(double) * N);
        memset(dw_t, 0, sizeof(float) * T * N);
        memset(dw_t3, 0, sizeof(float) * T * N);
        for (int a = 0; a < A; a++)
            for (int t = 0; t < T; t++) {
                double ms_exact = 0;
                float acc = 0;
                for (int j = 0; j < N; j++) {
                    x[j] = store(d, gauss());
                    dy[j] = store(d, gauss());
                    ms_exact += x[j] * x[j];
                    acc += (float)store(d, (float)x[j] * (float)x[j]); /* x2, summed in fp32 */
                }
                const double r_exact = 1.0 / sqrt(ms_exact / N + 1e-6);
                const float ms = (float)store(d, acc / (float)N);
                const float mse = (float)store(d, ms + (float)1e-6);
                const float r = (float)store(d, 1.0f / sqrtf(mse));
                for (int j = 0; j < N; j++) {
                    want[j] += dy[j] * x[j] * r_exact;
                    const float xr = (float)store(d, (float)x[j] * r);
                    const float dyxr = (float)store(d, (float)dy[j] * xr);
                    dw_t[t * N + j] += dyxr; /* the sum over dim 0, in order a = 0..3 */
                    if (a < A - 1) dw_t3[t * N + j] += dyxr;
                }
            }
        for (int i = 0; i < T * N; i++) {
            dw_t[i] = (float)store(d, dw_t[i]);
            dw_t3[i] = (float)store(d, dw_t3[i]);
        }
        for (int j = 0; j < N; j++) {
            float part[SLICES], part3[SLICES];
            for (int sl = 0; sl < SLICES; sl++) {
                part[sl] = part3[sl] = 0;
                for (int t = sl; t < T; t += SLICES) {
                    part[sl] += dw_t[t * N + j];
                    part3[sl] += dw_t3[t * N + j];
                }
            }
            const float dropped = part[SLICES - 1];
            for (int h = SLICES / 2; h > 0; h /= 2)
                for (int sl = 0; sl < h; sl++) part[sl] += part[sl + h], part3[sl] += part3[sl + h];
            got[j] = store(d, part[0]);
            miss_a[j] = store(d, part3[0]);
            miss_t[j] = store(d, part[0] - dropped);
        }
        fb_tol def = default_for(d);
        const double typical = fb_typical_magnitude(want, N);
        fb_tol t = fb_tolerance(def, typical);
        double worst = 0, max_err = 0;
        for (int j = 0; j < N; j++) {
            const double err = fabs(got[j] - want[j]);
            max_err = fmax(max_err, err);
            worst = fmax(worst, err / (t.atol + t.rtol * fabs(want[j])));
        }
        printf("rmsnorm_backward dw %s, %d rows: median |dw| %.3g, max error %.3g, atol %.3g: worst element at %.2f "
               "of its bound; missing a leading row's part fails %lld of %d, a slice of T %lld\n",
               fb_dtype_name(d), A * T, typical, max_err, t.atol, worst,
               (long long)n_failing(miss_a, want, N, t), N, (long long)n_failing(miss_t, want, N, t));
        CHECK(typical > 50 && typical < 75);
        CHECK(n_failing(got, want, N, t) == 0);
        CHECK(worst < 0.5); /* room for the grid's 16384 columns' worse tail and other orders */
        CHECK(n_failing(miss_a, want, N, t) > N * 9 / 10);
        CHECK(n_failing(miss_t, want, N, t) > N * 8 / 10);
    }
    free(dw_t);
    free(dw_t3);
    free(want);
    free(got);
    free(miss_a);
    free(miss_t);
}

/* matmul_matmul's tolerances (cases/matmul_matmul.json), at its largest sums: N = 16384,
 * K = 128, on rows of E = (A B) C as eager computes them. Each GEMM accumulates in fp32 in k
 * order, one FMA per term (a SIMT float32 GEMM's thread, and the order with the largest error:
 * no split of the sum); half types store S rounded to the dtype (so does the fused kernel,
 * whose mma takes S in the dtype) and E rounded. The reference sums the exact terms of the
 * stored inputs in double.
 *   - float32: eager's error over 16384 terms of ~11 (|S| ~ sqrt(K)) is ~3e-3 rms with a long
 *     tail (the partial sums it rounds vary a lot from column to column): 2.6-3.6e-5 of the
 *     median |E| at its worst, more than the default's rtol 1e-5 can widen to. The case states
 *     atol 0.1: ~3x the worst error of 5 x 256 rows emulated so (0.035), 1e-4 of the median
 *     |E| (~1000) at this cell, 1.7e-3 at the smallest (N = 128, K = 64, median ~60);
 *   - float16 and bfloat16: S's rounding dominates, ~2^-11 and ~2^-8 relative per term, and
 *     the widened defaults hold it with room (worst element at 0.09 and 0.13 of its bound);
 *   - a kernel that loses a quarter of N (one of 4 splits' partials, the plan's split at
 *     M = 8192) fails on 88% (bfloat16) to 100% of the elements; one that drops one
 *     32-column chunk does in float32, but in the half types only where the missing terms
 *     outweigh S's own rounding (float16 ~3/4 of the elements, bfloat16 ~1/6): at N = 16384
 *     that bug is near the half types' own noise, and selftest's small N (33 to 4096
 *     columns, where a chunk is 1-100% of the sum) is what catches it. */
static void test_matmul_matmul(void)
{
    enum { ROWS = 16, N = 16384, K = 128, CHUNK = 32, SPLIT = N / 4 };
    static fb_case c;
    CHECK(fb_case_find("matmul_matmul", &c) == FB_OK);
    const fb_dtype dts[] = {FB_F32, FB_F16, FB_BF16};
    double *B = malloc(sizeof(double) * K * N), *C = malloc(sizeof(double) * N * K);
    double *want = malloc(sizeof(double) * ROWS * K), *got = malloc(sizeof(double) * ROWS * K);
    double *dropped = malloc(sizeof(double) * ROWS * K), *dropped_split = malloc(sizeof(double) * ROWS * K);
    double *Sx = malloc(sizeof(double) * N);
    float *Sf = malloc(sizeof(float) * N);
    double a[K];
    for (int di = 0; di < 3; di++) {
        const fb_dtype d = dts[di];
        t_rng_seed(2024 + (uint64_t)di);
        for (int i = 0; i < K * N; i++) B[i] = store(d, gauss()), C[i] = store(d, gauss());
        for (int r = 0; r < ROWS; r++) {
            for (int k = 0; k < K; k++) a[k] = store(d, gauss());
            for (int n = 0; n < N; n++) {
                double sx = 0;
                float sf = 0;
                for (int k = 0; k < K; k++) {
                    sx += a[k] * B[k * N + n];
                    sf = fmaf((float)a[k], (float)B[k * N + n], sf);
                }
                Sx[n] = sx;
                Sf[n] = (float)store(d, sf);
            }
            for (int k = 0; k < K; k++) {
                double ex = 0;
                float ef = 0, ef_drop = 0, ef_drop_split = 0;
                for (int n = 0; n < N; n++) {
                    ex += Sx[n] * C[n * K + k];
                    ef = fmaf(Sf[n], (float)C[n * K + k], ef);
                    if (n == N - CHUNK - 1) ef_drop = ef;
                    if (n == N - SPLIT - 1) ef_drop_split = ef;
                }
                want[r * K + k] = ex;
                got[r * K + k] = store(d, ef);
                dropped[r * K + k] = store(d, ef_drop);
                dropped_split[r * K + k] = store(d, ef_drop_split);
            }
        }
        const int64_t n = (int64_t)ROWS * K;
        const double typical = fb_typical_magnitude(want, n);
        const fb_tol t = fb_tolerance(c.tol[d], typical), def = fb_tolerance(default_for(d), typical);
        double worst = 0, worst_def = 0, max_err = 0;
        for (int64_t i = 0; i < n; i++) {
            const double err = fabs(got[i] - want[i]);
            max_err = fmax(max_err, err);
            worst = fmax(worst, err / (t.atol + t.rtol * fabs(want[i])));
            worst_def = fmax(worst_def, err / (def.atol + def.rtol * fabs(want[i])));
        }
        const int64_t bad_drop = n_failing(dropped, want, n, t), bad_split = n_failing(dropped_split, want, n, t);
        printf("matmul_matmul %s, N %d, K %d: median |E| %.4g, max error %.3g; %s atol %.3g rtol %.3g: worst element "
               "at %.2f of its bound (the default's: %.2f); without the last %d terms %lld of %lld fail, without the last %d "
               "%lld\n",
               fb_dtype_name(d), N, K, typical, max_err, c.tol[d].set ? "stated" : "default", t.atol, t.rtol, worst,
               worst_def, CHUNK, (long long)bad_drop, (long long)n, SPLIT, (long long)bad_split);
        CHECK(typical > 800 && typical < 1200); /* ~0.67 sqrt(N K) */
        CHECK(n_failing(got, want, n, t) == 0);
        CHECK(worst < 0.5);
        CHECK(bad_split > n * 8 / 10);
        if (d == FB_F32) {
            CHECK(bad_drop > n * 9 / 10);
            CHECK(c.tol[d].set);
            CHECK(worst_def > 0.5); /* the default would have no room at this cell */
            CHECK(t.atol < 2e-4 * typical); /* still tight against E's scale */
        } else {
            CHECK(!c.tol[d].set);
        }
    }
    free(B);
    free(C);
    free(want);
    free(got);
    free(dropped);
    free(dropped_split);
    free(Sx);
    free(Sf);
}

int main(void)
{
    test_rule();
    test_widening();
    test_float32_long_rows();
    test_half_sums_of_products();
    test_normalised_output_stays_tight();
    test_rmsnorm_backward_dw();
    test_matmul_matmul();
    return fb_t_report("test_tolerance");
}
