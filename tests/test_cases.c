/* test_cases.c — the bundled cases of issue 6 and the ops they brought, on the CPU:
 *
 *   - every case file loads and names its inputs in the order the fused kernels
 *     and the torch peer rely on;
 *   - the float64 interpreter against each case's formula written out by hand
 *     (plain loops, no program) on small shapes, and the new ops (gelu, dropout,
 *     keepdim) against hand-computed numbers;
 *   - shapes, ideal bytes, FLOPs, eager kernels and eager bytes of each case,
 *     against formulas worked out per case;
 *   - the row plan: every case splits into dim0 rows at its largest grid point
 *     (65536 x 65536), and a row evaluated alone equals the same row of the whole
 *     (dropout included: its mask follows the row's offset);
 *   - rmsnorm and rmsnorm_backward ([4, T, N]) against their formulas, dw summed
 *     over the [4, T] rows (the plan accumulates it);
 *   - every default-grid cell of every case in cases/ gets a check (full, sampled
 *     rows, sums over rows in full), none is unchecked;
 *   - the dropout hash: known values (computed independently), the kept fraction
 *     within 0.5% of 1 - p on 10^7 elements, seeds that differ give masks that differ.
 * Runs from tests/ (meson's workdir). */
#include <stdlib.h>

#include "case.h"
#include "check.h"
#include "fb_random.h"
#include "ops/op_table.h"
#include "rowcheck.h"
#include "testing.h"

static fb_case g_c;

static const char *const CASES[] = {
    "softmax",   "pointwise_chain", "double_softmax", "softmax_backward", "layernorm",
    "norm_chain", "horizontal_reduction_pointwise", "horizontal_reduction_reduction",
    "bias_gelu", "bias_dropout_add", "bias_dropout_add_train",
};
#define N_CASES (int)(sizeof CASES / sizeof CASES[0])

static int value_index(const fb_case *c, const char *name)
{
    for (int v = 0; v < c->n_values; v++)
        if (!strcmp(c->values[v].name, name)) return v;
    return -1;
}

static fb_point point(const fb_case *c, int64_t dim0, int64_t dim1)
{
    fb_point p;
    memset(&p, 0, sizeof p);
    for (int a = 0; a < c->n_axes; a++) p.sym[c->axis[a].sym] = a == 0 ? dim0 : dim1;
    return p;
}

static bool load(const char *name)
{
    fb_status s = fb_case_find(name, &g_c);
    if (s != FB_OK) fprintf(stderr, "%s: %s\n", name, fb_last_error());
    CHECK(s == FB_OK);
    return s == FB_OK;
}

/* ---- the case files ------------------------------------------------------------ */

static void test_files(void)
{
    /* inputs in this order and with these inits: a contract with the fused kernels */
    static const struct { const char *name, *inputs[3], *inits[3]; int n_out; } want[] = {
        {"pointwise_chain", {"x"}, {"normal"}, 1},
        {"double_softmax", {"x"}, {"normal"}, 1},
        {"softmax_backward", {"y", "dy"}, {"row_simplex", "normal"}, 1},
        {"layernorm", {"x", "weight", "bias"}, {"normal", "normal", "normal"}, 1},
        {"norm_chain", {"x"}, {"row_simplex"}, 1},
        {"horizontal_reduction_pointwise", {"a"}, {"normal"}, 2},
        {"horizontal_reduction_reduction", {"a"}, {"normal"}, 2},
        {"bias_gelu", {"x", "bias"}, {"normal", "normal"}, 1},
        {"bias_dropout_add", {"x", "bias", "residual"}, {"normal", "normal", "normal"}, 1},
        {"bias_dropout_add_train", {"x", "bias", "residual"}, {"normal", "normal", "normal"}, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!load(want[i].name)) continue;
        const fb_case *c = &g_c;
        CHECK_STR(c->name, want[i].name);
        int n_in = 0;
        while (n_in < 3 && want[i].inputs[n_in]) n_in++;
        CHECK(c->n_inputs == n_in);
        for (int k = 0; k < n_in && k < c->n_inputs; k++) {
            CHECK_STR(c->values[k].name, want[i].inputs[k]);
            CHECK_STR(fb_init_name(c->values[k].init), want[i].inits[k]);
        }
        CHECK(c->n_outputs == want[i].n_out);
        CHECK(c->n_dtypes == 3 && c->dtypes[0] == FB_F32 && c->dtypes[1] == FB_F16 && c->dtypes[2] == FB_BF16);
        CHECK(c->n_axes == 2 && c->axis[0].n == 10 && c->axis[1].n == 10);
        CHECK(c->axis[0].v[0] == 128 && c->axis[0].v[9] == 65536 && c->axis[1].v[9] == 65536);
        CHECK_STR(c->sym[c->axis[0].sym], "dim0");
        CHECK_STR(c->sym[c->axis[1].sym], "dim1");
    }
    /* the training case's dropout: p 0.5, seed 1234, as its summary says */
    if (load("bias_dropout_add_train")) {
        const fb_node *d = &g_c.nodes[1];
        CHECK_STR(fb_node_op_name(d), "dropout");
        CHECK(fb_attr_real(&d->attrs, "p", -1) == 0.5);
        CHECK(fb_attr_int(&d->attrs, "seed", -1) == 1234);
        CHECK(strstr(g_c.summary, "1234") != NULL);
    }
    /* the summaries say what the issue asks them to */
    if (load("norm_chain")) CHECK(strstr(g_c.summary, "overflow") != NULL);
    if (load("bias_dropout_add")) CHECK(strstr(g_c.summary, "launches nothing") != NULL);
}

/* ---- inputs and hand-written formulas -------------------------------------------- */

/* Deterministic inputs: N(0,1)-like values for normal, U(0.5,1.5)/dim1 rows for
 * row_simplex (what fb_fill draws on the GPU, up to the draw itself). */
static double unit(uint64_t k) { return (double)(fb_dropout_bits(99, k) >> 8) / (double)(1u << 24); }

static void fill_input(const fb_case *c, int v, const fb_shape *s, double *p, uint64_t salt)
{
    int64_t n = fb_shape_numel(s), last = s->dim[s->rank - 1];
    for (int64_t i = 0; i < n; i++) {
        double u = unit(salt * 1000003u + (uint64_t)i);
        if (c->values[v].init == FB_INIT_ROW_SIMPLEX) p[i] = (0.5 + u) / (double)last;
        else p[i] = 2.5 * sin(7.0 * u + (double)salt) + 0.3 * u; /* spread, both signs */
    }
}

static double gelu(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }

/* softmax over rows of n of src into dst */
static void softmax_rows(const double *src, double *dst, int64_t m, int64_t n)
{
    for (int64_t r = 0; r < m; r++) {
        const double *x = src + r * n;
        double mx = x[0], s = 0;
        for (int64_t j = 1; j < n; j++) mx = fmax(mx, x[j]);
        for (int64_t j = 0; j < n; j++) s += exp(x[j] - mx);
        for (int64_t j = 0; j < n; j++) dst[r * n + j] = exp(x[j] - mx) / s;
    }
}

/* The case's result computed straight from its definition. in[] in case order;
 * out[] in output order. */
static void by_hand(const char *name, const double *const *in, double **out, int64_t m, int64_t n)
{
    if (!strcmp(name, "softmax")) {
        softmax_rows(in[0], out[0], m, n);
    } else if (!strcmp(name, "pointwise_chain")) {
        for (int64_t i = 0; i < m * n; i++) {
            double x = in[0][i], y = cos(x);
            x = x * y;
            y = fmax(x, y);
            out[0][i] = x + y;
        }
    } else if (!strcmp(name, "double_softmax")) {
        double *t = malloc(sizeof(double) * (size_t)(m * n));
        softmax_rows(in[0], t, m, n);
        softmax_rows(t, out[0], m, n);
        free(t);
    } else if (!strcmp(name, "softmax_backward")) {
        for (int64_t r = 0; r < m; r++) {
            double s = 0;
            for (int64_t j = 0; j < n; j++) s += in[0][r * n + j] * in[1][r * n + j];
            for (int64_t j = 0; j < n; j++) out[0][r * n + j] = in[0][r * n + j] * (in[1][r * n + j] - s);
        }
    } else if (!strcmp(name, "layernorm")) {
        for (int64_t r = 0; r < m; r++) {
            const double *x = in[0] + r * n;
            double mu = 0, var = 0;
            for (int64_t j = 0; j < n; j++) mu += x[j];
            mu /= (double)n;
            for (int64_t j = 0; j < n; j++) var += (x[j] - mu) * (x[j] - mu);
            var /= (double)n; /* biased */
            for (int64_t j = 0; j < n; j++) out[0][r * n + j] = (x[j] - mu) / sqrt(var + 1e-5) * in[1][j] + in[2][j];
        }
    } else if (!strcmp(name, "norm_chain")) {
        for (int64_t r = 0; r < m; r++) {
            double *y = out[0] + r * n;
            memcpy(y, in[0] + r * n, sizeof(double) * (size_t)n);
            for (int k = 0; k < 3; k++) {
                double s = 0;
                for (int64_t j = 0; j < n; j++) s += y[j];
                for (int64_t j = 0; j < n; j++) y[j] *= s;
            }
        }
    } else if (!strcmp(name, "horizontal_reduction_pointwise") || !strcmp(name, "horizontal_reduction_reduction")) {
        bool pw = strstr(name, "pointwise") != NULL;
        for (int64_t r = 0; r < m; r++) {
            double s = 0, mx = -INFINITY;
            for (int64_t j = 0; j < n; j++) {
                double a = in[0][r * n + j];
                s += a;
                mx = fmax(mx, a);
                if (pw) out[1][r * n + j] = cos(a);
            }
            out[0][r] = s;
            if (!pw) out[1][r] = mx;
        }
    } else if (!strcmp(name, "bias_gelu")) {
        for (int64_t i = 0; i < m * n; i++) out[0][i] = gelu(in[0][i] + in[1][i % n]);
    } else if (!strcmp(name, "bias_dropout_add")) {
        for (int64_t i = 0; i < m * n; i++) out[0][i] = (in[0][i] + in[1][i % n]) + in[2][i];
    } else if (!strcmp(name, "bias_dropout_add_train")) {
        const uint32_t thr = fb_dropout_threshold(0.5);
        for (int64_t i = 0; i < m * n; i++) {
            double t = in[0][i] + in[1][i % n];
            out[0][i] = (fb_dropout_keep(1234, (uint64_t)i, thr) ? t / 0.5 : 0.0) + in[2][i];
        }
    }
}

/* |got - want| <= 1e-12 * max(1, |want|) everywhere; returns the bad count. */
static int64_t compare(const double *got, const double *want, int64_t n)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double tol = 1e-12 * fmax(1.0, fabs(want[i]));
        if (!(fabs(got[i] - want[i]) <= tol)) {
            if (bad < 3) fprintf(stderr, "  [%lld] got %.17g want %.17g\n", (long long)i, got[i], want[i]);
            bad++;
        }
    }
    return bad;
}

static void test_reference(void)
{
    static const int64_t shapes[][2] = {{3, 5}, {4, 16}, {2, 37}};
    for (int ci = 0; ci < N_CASES; ci++) {
        if (!load(CASES[ci])) continue;
        const fb_case *c = &g_c;
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            const int64_t m = shapes[si][0], n = shapes[si][1];
            fb_point p = point(c, m, n);
            fb_shape s[FB_MAX_VALUES];
            CHECK(fb_program_shapes(c, &p, s) == FB_OK);
            double *in[FB_MAX_VALUES] = {0}, *got[FB_MAX_VALUES] = {0}, *want[FB_MAX_VALUES] = {0};
            for (int v = 0; v < c->n_inputs; v++) {
                in[v] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[v]));
                fill_input(c, v, &s[v], in[v], (uint64_t)(v + 1));
            }
            for (int o = 0; o < c->n_outputs; o++) {
                size_t k = (size_t)fb_shape_numel(&s[c->outputs[o]]);
                got[o] = malloc(sizeof(double) * k);
                want[o] = malloc(sizeof(double) * k);
            }
            CHECK(fb_reference_eval(c, s, (const double *const *)in, got) == FB_OK);
            by_hand(c->name, (const double *const *)in, want, m, n);
            for (int o = 0; o < c->n_outputs; o++) {
                int64_t bad = compare(got[o], want[o], fb_shape_numel(&s[c->outputs[o]]));
                if (bad) fprintf(stderr, "%s %lldx%lld output %d: %lld bad\n", c->name, (long long)m, (long long)n, o,
                                 (long long)bad);
                CHECK(bad == 0);
            }
            /* the sampled check's view: each row alone gives the same numbers */
            fb_rowplan rp;
            CHECK(fb_program_rowplan(c, s, &rp) == FB_OK);
            CHECK(rp.separable && rp.n_rows == m);
            CHECK(fb_t_rows_match_full(c, &rp, (const double *const *)in, got) == 0);
            for (int v = 0; v < FB_MAX_VALUES; v++) {
                free(in[v]);
                free(got[v]);
                free(want[v]);
            }
        }
    }

    /* a few values of norm_chain and softmax_backward by hand, on one row */
    if (load("norm_chain")) {
        fb_point p = point(&g_c, 1, 2);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&g_c, &p, s) == FB_OK);
        const double x[2] = {0.25, 0.5}; /* s = 0.75 each time: y = x * 0.75^7 */
        double y[2];
        const double *in[1] = {x};
        double *out[1] = {y};
        CHECK(fb_reference_eval(&g_c, s, in, out) == FB_OK);
        CHECK_NEAR(y[0], 0.25 * pow(0.75, 7), 1e-16);
        CHECK_NEAR(y[1], 0.5 * pow(0.75, 7), 1e-16);
    }
    if (load("softmax_backward")) {
        fb_point p = point(&g_c, 1, 3);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&g_c, &p, s) == FB_OK);
        const double y[3] = {0.5, 0.25, 0.25}, dy[3] = {1, 2, -4}; /* sum(y * dy) = 0 */
        double dx[3];
        const double *in[2] = {y, dy};
        double *out[1] = {dx};
        CHECK(fb_reference_eval(&g_c, s, in, out) == FB_OK);
        CHECK(dx[0] == 0.5 && dx[1] == 0.5 && dx[2] == -1.0);
    }
}

/* ---- gelu, dropout, keepdim by hand ----------------------------------------------- */

static void test_new_ops(void)
{
    static const char GELU[] =
        "{\"name\": \"g\", \"summary\": \"gelu\", \"inputs\": {\"x\": {\"shape\": [\"n\"]}},"
        " \"program\": [{\"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}],"
        " \"outputs\": [\"y\"], \"dtypes\": [\"float32\"], \"grid\": {\"n\": [6]}}";
    CHECK(fb_case_parse(GELU, "gelu.json", &g_c) == FB_OK);
    {
        /* torch.nn.functional.gelu (exact): 0.5 x (1 + erf(x / sqrt 2)) */
        const double x[6] = {0, 1, -1, 0.5, -3, 2};
        const double want[6] = {0, 0.8413447460685429, -0.15865525393145707, 0.34573123063700656,
                                -0.00404969409489031, 1.9544997361036416};
        double y[6];
        fb_point p = point(&g_c, 6, 0);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&g_c, &p, s) == FB_OK);
        const double *in[1] = {x};
        double *out[1] = {y};
        CHECK(fb_reference_eval(&g_c, s, in, out) == FB_OK);
        for (int i = 0; i < 6; i++) CHECK_NEAR(y[i], want[i], 1e-15);
    }

    static const char DROP[] =
        "{\"name\": \"d\", \"summary\": \"dropout\", \"inputs\": {\"x\": {\"shape\": [\"r\", \"n\"]}},"
        " \"program\": [{\"op\": \"dropout\", \"in\": [\"x\"], \"p\": 0.5, \"seed\": 1234, \"out\": \"y\"}],"
        " \"outputs\": [\"y\"], \"dtypes\": [\"float32\"], \"grid\": {\"r\": [2], \"n\": [4]}}";
    CHECK(fb_case_parse(DROP, "dropout.json", &g_c) == FB_OK);
    {
        /* bits(1234, i) for i = 0..7, from an independent splitmix64 (Python):
         * 0x74907d91 0x53989668 ... vs the threshold 2^31 for p = 0.5 */
        const double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        double y[8];
        fb_point p = point(&g_c, 2, 4);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&g_c, &p, s) == FB_OK);
        const double *in[1] = {x};
        double *out[1] = {y};
        CHECK(fb_reference_eval(&g_c, s, in, out) == FB_OK);
        for (int i = 0; i < 8; i++) {
            bool keep = fb_dropout_bits(1234, (uint64_t)i) >= 0x80000000u;
            CHECK(y[i] == (keep ? 2.0 * x[i] : 0.0));
        }
        CHECK(y[0] == 0.0 && y[1] == 0.0); /* 0x74907d91, 0x53989668 < 2^31: dropped */
        CHECK(y[7] == 0.0);                /* 0x78b10501 */
        /* a row evaluated alone at its offset draws the same mask as the whole */
        fb_rowplan rp;
        CHECK(fb_program_rowplan(&g_c, s, &rp) == FB_OK);
        CHECK(rp.separable && rp.n_rows == 2);
        int64_t base[FB_MAX_VALUES] = {0};
        base[0] = base[1] = 4;
        double row[4];
        const double *rin[1] = {x + 4};
        double *rout[1] = {row};
        CHECK(fb_reference_eval_at(&g_c, rp.row_shape, base, rin, rout, NULL) == FB_OK);
        CHECK(memcmp(row, y + 4, sizeof row) == 0);
        /* without the offset, the row would draw row 0's mask: the base matters */
        CHECK(fb_reference_eval(&g_c, rp.row_shape, rin, rout) == FB_OK);
        bool differs = false;
        for (int i = 0; i < 4; i++) differs |= row[i] != y[4 + i];
        CHECK(differs);
    }

    /* costs of the new kinds: one FLOP per element, eager reads and writes once */
    {
        fb_point p = point(&g_c, 2, 4);
        fb_shape s[FB_MAX_VALUES];
        fb_costs k;
        CHECK(fb_program_shapes(&g_c, &p, s) == FB_OK);
        CHECK(fb_program_costs(&g_c, s, FB_F16, &k) == FB_OK);
        CHECK(k.flops == 8 && k.eager_kernels == 1 && k.eager_bytes == 32 && k.ideal_bytes == 32);
    }
}

/* ---- the dropout hash ---------------------------------------------------------------- */

static void test_dropout_hash(void)
{
    /* values of fb_random.h's hash computed independently (Python, splitmix64) */
    CHECK(fb_dropout_bits(0, 0) == 0u);
    CHECK(fb_dropout_bits(0, 1) == 0x5692161du);
    CHECK(fb_dropout_bits(1234, 0) == 0x74907d91u);
    CHECK(fb_dropout_bits(1234, 1) == 0x53989668u);
    CHECK(fb_dropout_bits(1234, 7) == 0x78b10501u);
    CHECK(fb_dropout_bits(1234, 4294967295u) == 0xe2b77047u); /* the last element of 65536 x 65536 */
    CHECK(fb_dropout_bits(7, 3) == 0x2298eb42u);
    CHECK(fb_dropout_threshold(0.0) == 0u);
    CHECK(fb_dropout_threshold(0.5) == 0x80000000u);
    CHECK(fb_dropout_threshold(0.1) == 429496729u);
    CHECK(fb_dropout_threshold(0.9999999999999999) == 0xffffffffu);

    /* the kept fraction within 0.5% of 1 - p on 10^7 elements */
    const int64_t n = 10000000;
    static const struct { double p; uint64_t seed; } runs[] = {{0.5, 1234}, {0.1, 42}, {0.9, 7}, {0.5, 0}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        const uint32_t thr = fb_dropout_threshold(runs[r].p);
        int64_t kept = 0;
        for (int64_t i = 0; i < n; i++) kept += fb_dropout_keep(runs[r].seed, (uint64_t)i, thr);
        double frac = (double)kept / (double)n, want = 1.0 - runs[r].p;
        if (!(fabs(frac - want) <= 0.005 * want))
            fprintf(stderr, "dropout p=%g seed=%llu: kept %.6f, want %.6f\n", runs[r].p,
                    (unsigned long long)runs[r].seed, frac, want);
        CHECK(fabs(frac - want) <= 0.005 * want);
    }
    /* p = 0 keeps everything */
    int64_t dropped = 0;
    for (int64_t i = 0; i < 1000000; i++) dropped += !fb_dropout_keep(5, (uint64_t)i, fb_dropout_threshold(0.0));
    CHECK(dropped == 0);
    /* other seeds, other masks: two p = 0.5 masks agree on about half the elements,
     * and neighbouring elements are not correlated */
    int64_t same = 0, runs_same = 0;
    const uint32_t half = fb_dropout_threshold(0.5);
    for (int64_t i = 0; i < 1000000; i++) {
        same += fb_dropout_keep(1234, (uint64_t)i, half) == fb_dropout_keep(1235, (uint64_t)i, half);
        runs_same += fb_dropout_keep(1234, (uint64_t)i, half) == fb_dropout_keep(1234, (uint64_t)i + 1, half);
    }
    CHECK(fabs((double)same / 1e6 - 0.5) < 0.005);
    CHECK(fabs((double)runs_same / 1e6 - 0.5) < 0.005);
}

/* ---- costs ------------------------------------------------------------------------------ */

static void test_costs(void)
{
    /* per case at dim0 = M, dim1 = N in float32: ideal bytes, FLOPs, eager kernels and
     * eager bytes (each node reads its value operands and writes its output) as
     * worked out from the program, in elements (x4 for bytes) */
    const double M = 128, N = 256, MN = M * N;
    static const char *const names[] = {"softmax", "pointwise_chain", "double_softmax", "softmax_backward",
                                        "layernorm", "norm_chain", "horizontal_reduction_pointwise",
                                        "horizontal_reduction_reduction", "bias_gelu", "bias_dropout_add",
                                        "bias_dropout_add_train"};
    const struct { double in, out, flops; int kernels; double eager; } want[] = {
        /* softmax: amax (MN+M), sub (2MN+M), exp 2MN, sum (MN+M), div (2MN+M) */
        {MN, MN, 5 * MN, 5, 8 * MN + 4 * M},
        /* cos 2MN, mul 3MN, max 3MN, add 3MN */
        {MN, MN, 4 * MN, 4, 11 * MN},
        /* two softmaxes */
        {MN, MN, 10 * MN, 10, 2 * (8 * MN + 4 * M)},
        /* mul 3MN, sum MN+M, sub 2MN+M, mul 3MN */
        {2 * MN, MN, 4 * MN, 4, 9 * MN + 2 * M},
        /* mean MN+M, sub 2MN+M, mul(d,d) 3MN, mean MN+M, add 2M, rsqrt 2M, mul 2MN+M,
         * mul w 2MN+N, add b 2MN+N; FLOPs: 7 ops over MN, add and rsqrt over M */
        {MN + 2 * N, MN, 7 * MN + 2 * M, 9, 13 * MN + 8 * M + 2 * N},
        /* three (sum MN+M, mul 2MN+M) */
        {MN, MN, 6 * MN, 6, 9 * MN + 6 * M},
        /* sum MN+M, cos 2MN */
        {MN, M + MN, 2 * MN, 2, 3 * MN + M},
        /* sum MN+M, amax MN+M */
        {MN, 2 * M, 2 * MN, 2, 2 * MN + 2 * M},
        /* add 2MN+N, gelu 2MN */
        {MN + N, MN, 2 * MN, 2, 4 * MN + N},
        /* add 2MN+N, add 3MN */
        {2 * MN + N, MN, 2 * MN, 2, 5 * MN + N},
        /* add 2MN+N, dropout 2MN, add 3MN */
        {2 * MN + N, MN, 3 * MN, 3, 7 * MN + N},
    };
    for (int i = 0; i < N_CASES; i++) {
        if (!load(names[i])) continue;
        fb_point p = point(&g_c, (int64_t)M, (int64_t)N);
        fb_shape s[FB_MAX_VALUES];
        fb_costs k;
        CHECK(fb_program_shapes(&g_c, &p, s) == FB_OK);
        CHECK(fb_program_costs(&g_c, s, FB_F32, &k) == FB_OK);
        bool ok = k.in_bytes == 4 * want[i].in && k.out_bytes == 4 * want[i].out &&
                  k.ideal_bytes == 4 * (want[i].in + want[i].out) && k.flops == want[i].flops &&
                  k.eager_kernels == want[i].kernels && k.eager_bytes == 4 * want[i].eager;
        if (!ok)
            fprintf(stderr, "%s: in %g out %g flops %g kernels %d eager %g\n", names[i], k.in_bytes, k.out_bytes,
                    k.flops, k.eager_kernels, k.eager_bytes);
        CHECK(ok);
        /* the half types move half the bytes and do the same work */
        fb_costs h;
        CHECK(fb_program_costs(&g_c, s, FB_BF16, &h) == FB_OK);
        CHECK(h.ideal_bytes == k.ideal_bytes / 2 && h.eager_bytes == k.eager_bytes / 2 && h.flops == k.flops);
        /* shapes: every output is [M, N] or a row reduction [M, 1] */
        for (int o = 0; o < g_c.n_outputs; o++) {
            const fb_shape *os = &s[g_c.outputs[o]];
            CHECK(os->rank == 2 && os->dim[0] == (int64_t)M && (os->dim[1] == (int64_t)N || os->dim[1] == 1));
        }
    }
    if (load("layernorm")) {
        fb_point p = point(&g_c, 4, 8);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&g_c, &p, s) == FB_OK);
        CHECK(s[value_index(&g_c, "weight")].rank == 1 && s[value_index(&g_c, "weight")].dim[0] == 8);
        CHECK(s[value_index(&g_c, "var")].dim[0] == 4 && s[value_index(&g_c, "var")].dim[1] == 1);
    }
}

/* ---- the largest grid point: every case is checked, on sampled rows ------------------- */

static void test_largest_point(void)
{
    for (int ci = 0; ci < N_CASES; ci++) {
        if (!load(CASES[ci])) continue;
        const fb_case *c = &g_c;
        fb_point p = point(c, c->axis[0].v[c->axis[0].n - 1], c->axis[1].v[c->axis[1].n - 1]);
        const int64_t R = p.sym[c->axis[0].sym], W = p.sym[c->axis[1].sym];
        CHECK(R == 65536 && W == 65536);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(c, &p, s) == FB_OK);
        fb_rowplan rp;
        CHECK(fb_program_rowplan(c, s, &rp) == FB_OK);
        if (!rp.separable) fprintf(stderr, "%s: not separable: %s\n", c->name, rp.why);
        CHECK(rp.separable && rp.n_rows == R && rp.n_split == 1);
        int64_t row_elems = 0;
        for (int v = 0; v < c->n_values; v++) {
            const fb_shape *full = &s[v], *row = &rp.row_shape[v];
            row_elems += fb_shape_numel(row);
            /* [R, W] and [R, 1] values are split into rows, [W] ones read whole */
            if (full->rank == 2) {
                CHECK(row->dim[0] == 1 && row->dim[1] == full->dim[1]);
                CHECK(fb_rowplan_offset(&rp, v, R - 1) == (R - 1) * full->dim[1]);
            } else {
                CHECK(fb_shape_numel(row) == fb_shape_numel(full));
                CHECK(fb_rowplan_offset(&rp, v, R - 1) == 0);
            }
        }
        /* a sampled row is cheap: at most a few MB of doubles per row */
        CHECK(row_elems <= 16 * W);
    }
}

/* ---- rmsnorm and rmsnorm_backward: x [4, T, N], dw a sum over the [4, T] rows --------- */

static void test_rmsnorm(void)
{
    static const int64_t sizes[][2] = {{3, 5}, {2, 33}, {1, 1}};
    for (int backward = 0; backward < 2; backward++) {
        if (!load(backward ? "rmsnorm_backward" : "rmsnorm")) continue;
        const fb_case *c = &g_c;
        CHECK(!strcmp(c->sym[c->axis[0].sym], "T") && !strcmp(c->sym[c->axis[1].sym], "N"));
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const int64_t T = sizes[si][0], N = sizes[si][1], R = 4 * T;
            fb_point p = point(c, T, N);
            fb_shape s[FB_MAX_VALUES];
            CHECK(fb_program_shapes(c, &p, s) == FB_OK);
            double *in[FB_MAX_VALUES] = {0}, *got[FB_MAX_VALUES] = {0}, *want[FB_MAX_VALUES] = {0};
            for (int v = 0; v < c->n_inputs; v++) {
                in[v] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[v]));
                fill_input(c, v, &s[v], in[v], (uint64_t)(v + 3));
            }
            for (int o = 0; o < c->n_outputs; o++) {
                size_t k = (size_t)fb_shape_numel(&s[c->outputs[o]]);
                got[o] = malloc(sizeof(double) * k);
                want[o] = calloc(k, sizeof(double));
            }
            CHECK(fb_reference_eval(c, s, (const double *const *)in, got) == FB_OK);
            /* the formula, row by row: r = 1/sqrt(mean(x^2) + 1e-6); forward y = x r w;
             * backward dx = r dy w - x r^3 mean(dy w x), dw = sum over rows of dy x r */
            const double *x = in[0], *w = in[1], *dy = backward ? in[2] : NULL;
            for (int64_t row = 0; row < R; row++) {
                const int64_t b = row * N;
                double ms = 0, m = 0;
                for (int64_t j = 0; j < N; j++) ms += x[b + j] * x[b + j];
                const double r = 1.0 / sqrt(ms / (double)N + 1e-6);
                if (!backward) {
                    for (int64_t j = 0; j < N; j++) want[0][b + j] = x[b + j] * r * w[j];
                    continue;
                }
                for (int64_t j = 0; j < N; j++) m += dy[b + j] * w[j] * x[b + j];
                m /= (double)N;
                for (int64_t j = 0; j < N; j++) {
                    want[0][b + j] = r * dy[b + j] * w[j] - x[b + j] * r * r * r * m;
                    want[1][j] += dy[b + j] * x[b + j] * r;
                }
            }
            for (int o = 0; o < c->n_outputs; o++) {
                int64_t bad = compare(got[o], want[o], fb_shape_numel(&s[c->outputs[o]]));
                if (bad) fprintf(stderr, "%s T=%lld N=%lld output %d: %lld bad\n", c->name, (long long)T, (long long)N,
                                 o, (long long)bad);
                CHECK(bad == 0);
            }
            /* the row plan: [4, T] rows, and dw summed over all of them */
            fb_rowplan rp;
            CHECK(fb_program_rowplan(c, s, &rp) == FB_OK);
            CHECK(rp.separable && rp.n_rows == R && rp.accumulates == (backward == 1));
            if (backward) CHECK(rp.partial[c->outputs[1]] && !rp.partial[c->outputs[0]]);
            else CHECK(fb_t_rows_match_full(c, &rp, (const double *const *)in, got) == 0);
            for (int v = 0; v < FB_MAX_VALUES; v++) {
                free(in[v]);
                free(got[v]);
                free(want[v]);
            }
        }
    }

    /* one row by hand, N = 2: x = (3, 4), w = (1, 2), dy = (1, -1) in every row.
     * ms = 12.5, r = 1/sqrt(12.5 + 1e-6); m = (1*1*3 - 1*2*4)/2 = -2.5;
     * dx = r dy w - x r^3 m; dw = 4T rows of dy x r: (3r, -4r) * 4T */
    if (load("rmsnorm_backward")) {
        const int64_t T = 2, R = 8;
        fb_point p = point(&g_c, T, 2);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&g_c, &p, s) == FB_OK);
        double x[16], dy[16], dx[16], dw[2];
        const double w[2] = {1, 2};
        for (int i = 0; i < R; i++) x[2 * i] = 3, x[2 * i + 1] = 4, dy[2 * i] = 1, dy[2 * i + 1] = -1;
        const double *in[3] = {x, w, dy};
        double *out[2] = {dx, dw};
        CHECK(fb_reference_eval(&g_c, s, in, out) == FB_OK);
        const double r = 1.0 / sqrt(12.5 + 1e-6), r3 = r * r * r;
        CHECK_NEAR(dx[0], r * 1 - 3 * r3 * -2.5, 1e-15);
        CHECK_NEAR(dx[15], r * -2 - 4 * r3 * -2.5, 1e-15);
        CHECK_NEAR(dw[0], 8 * 3 * r, 1e-14);
        CHECK_NEAR(dw[1], 8 * -4 * r, 1e-14);
    }
}

/* ---- every cell of every case is checked ---------------------------------------------- *
 * fb_check_plan_cell decides from the shapes alone how `run` checks a cell (full,
 * sampled rows, sums over rows in full): no default-grid cell of any case in cases/
 * may come out unchecked. The decision reads no dtype, so it holds for float32 and
 * every dtype a case lists alike. */
static void test_every_cell_checked(void)
{
    fb_case_dir d;
    CHECK(fb_case_list(&d) == FB_OK);
    int cells = 0, by_mode[3] = {0, 0, 0}, accumulated = 0;
    for (int i = 0; i < d.n; i++) {
        if (!load(d.name[i])) continue;
        const fb_case *c = &g_c;
        const int n0 = c->axis[0].n, n1 = c->n_axes > 1 ? c->axis[1].n : 1;
        /* every grid of the case: one per combination of its fixed symbols' values */
        for (int i_pt = 0, n_pts = fb_case_n_points(c); i_pt < n_pts; i_pt++) {
            fb_point p;
            fb_case_point(c, i_pt, &p);
            fb_shape s[FB_MAX_VALUES];
            fb_check_plan *plan = malloc(sizeof *plan);
            CHECK(fb_program_shapes(c, &p, s) == FB_OK);
            CHECK(fb_check_plan_cell(c, s, FB_RUN_FULL_LIMIT, plan) == FB_OK);
            if (plan->mode == FB_CHECK_NONE) {
                char at[128];
                fprintf(stderr, "%s %s: unchecked: %s\n", c->name, fb_point_str(c, &p, at, sizeof at), plan->rp.why);
            }
            CHECK(plan->mode != FB_CHECK_NONE);
            /* every bundled program's rows chunk into boxes (rowref.c): many rows per copy */
            if (plan->by_rows) CHECK(plan->rp.boxes);
            by_mode[plan->mode]++;
            accumulated += plan->rp.accumulates && plan->biggest > FB_RUN_FULL_LIMIT;
            cells++;
            free(plan);
        }
        if (!strcmp(c->name, "rmsnorm_backward")) CHECK(n0 * n1 == 39 && fb_case_n_points(c) == 39);
        if (!strcmp(c->name, "matmul_matmul")) CHECK(fb_case_n_points(c) == 2 * 25); /* K = 64 and 128 */
    }
    CHECK(d.n >= 14 && cells > 1000);
    fb_case_dir_free(&d);
    /* rmsnorm_backward's ten cells beyond 2^22 elements are the large ones whose dw is accumulated */
    CHECK(accumulated == 10);
    fprintf(stderr, "every cell: %d cells, %d full, %d sampled (%d with sums over rows in full)\n", cells,
            by_mode[FB_CHECK_FULL], by_mode[FB_CHECK_SAMPLED], accumulated);
}

/* ---- what a dtype can hold ----------------------------------------------------------- */

/* float16 double_softmax's second row sum is about dim1: past 65519 eager's
 * float16 intermediate is inf, which the reference's peaks reveal (cell.c then
 * skips eager there, saying why). */
static void test_range(void)
{
    CHECK(!fb_dtype_overflows(FB_F16, 65504.0) && !fb_dtype_overflows(FB_F16, 65519.99));
    CHECK(fb_dtype_overflows(FB_F16, 65520.0) && fb_dtype_overflows(FB_F16, -70000.0));
    CHECK(!fb_dtype_overflows(FB_F32, 3.4028234663852886e38) && fb_dtype_overflows(FB_F32, 3.4028236e38));
    CHECK(!fb_dtype_overflows(FB_BF16, 3.3895313892515355e38) && fb_dtype_overflows(FB_BF16, 3.3961776e38));
    CHECK(!fb_dtype_overflows(FB_F64, 1e308) && !fb_dtype_overflows(FB_F16, INFINITY));
    CHECK(!fb_dtype_overflows(FB_F16, NAN));

    if (!load("double_softmax")) return;
    const fb_case *c = &g_c;
    for (int k = 0; k < 2; k++) {
        const int64_t n = k == 0 ? 65536 : 70000;
        fb_point p = point(c, 1, n);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(c, &p, s) == FB_OK);
        double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
        fill_input(c, 0, &s[0], x, 5);
        double peak[FB_MAX_VALUES] = {0};
        const double *in[1] = {x};
        double *out[1] = {y};
        CHECK(fb_reference_eval_at(c, s, NULL, in, out, peak) == FB_OK);
        const double s2 = peak[value_index(c, "s2")];
        CHECK(s2 > 0.99 * (double)n && s2 <= (double)n); /* sum of exp(p - max p), p ~ 1/n */
        CHECK(fb_dtype_overflows(FB_F16, s2) == (n > 65519));
        CHECK(!fb_dtype_overflows(FB_BF16, s2));
        CHECK(peak[value_index(c, "e1")] <= 1.0 && peak[value_index(c, "y")] < 1.0);
        free(x);
        free(y);
    }
}

int main(void)
{
    test_files();
    test_reference();
    test_new_ops();
    test_dropout_hash();
    test_costs();
    test_largest_point();
    test_rmsnorm();
    test_every_cell_checked();
    test_range();
    return fb_t_report("test_cases");
}
