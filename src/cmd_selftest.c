/* cmd_selftest.c — `fusionbench selftest`: the GPU suite.
 *
 * Every bundled case, every dtype, the eager interpreter and every fused variant
 * that supports the dtype, on small and awkward shapes (1x1, odd widths that
 * break 16-byte alignment, a long row, many rows), each checked in full against
 * the float64 reference and run a second time, which must give the same bits
 * (determinism: cell.c's same_bits_again); the dropout kernel's mask against the CPU's bit for bit
 * on 10^7 elements; the row_simplex fill's rows; then the timer's own checks (a
 * spin kernel of known length, and the L2 flush making a cached working set
 * slower) and, where libcupti loads, the CUPTI timer's (the spin kernel again,
 * kernels and memsets counted, a cuBLAS call; timer_cupti_check.c), else a
 * skip with the reason; and the metrics pass (a copy of known bytes measured by
 * CUPTI's range profiler; SKIP, with the reason, where CUPTI or the permission
 * to read counters is missing). Exits 77 where there is no GPU, so meson
 * reports SKIP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "check.h"
#include "eager.h"
#include "fb_random.h"
#include "metrics.h"
#include "primitives.h"
#include "cell.h"
#include "commands.h"
#include "opts.h"
#include "result.h"
#include "run_common.h"
#include "timer_cupti.h"
#include "variant.h"

static const int64_t shapes2[][2] = {{1, 1}, {3, 61}, {7, 130}, {5, 1027}, {2, 65536}, {300, 4096}, {1, 262144}, {4099, 33}};
static const int64_t shapes1[] = {1, 61, 130, 1027, 65536, 1228800};
#define N2 (int)(sizeof shapes2 / sizeof shapes2[0])
#define N1 (int)(sizeof shapes1 / sizeof shapes1[0])
#define MAX_SELFTEST_VARIANTS 64

static void selftest_usage(FILE *f, const fb_opt *opts, int n)
{
    fprintf(f,
            "usage: fusionbench selftest [--case NAME|FILE ...] [--dtype T[,T...]] [--no-timer] [--no-metrics]\n"
            "\n"
            "Checks the eager interpreter and every fused variant of every case in\n"
            "%s (or $FUSIONBENCH_CASES; the case's list and every registered CASE.*\n"
            "strategy), in every dtype they support, on shapes 1x1, 3x61, 7x130, 5x1027,\n"
            "2x65536, 300x4096, 1x262144 and 4099x33 (a case of one grid axis: 1, 61, 130,\n"
            "1027, 65536 and 1228800 along it) against the float64 reference; the GPU\n"
            "dropout mask against the CPU's, bit for bit on 10^7 elements; the row_simplex\n"
            "fill; then the timer's self-checks (the CUPTI timer's where libcupti loads),\n"
            "and the metrics pass's (copies of 64 and 128 MiB measured by CUPTI: bytes\n"
            "within 3%%, instructions twice; skipped, with the reason, without CUPTI or\n"
            "the permission to profile). A cases directory that is unreadable or holds no\n"
            "case is an error, not an empty pass.\n"
            "\n",
            fb_cases_dir());
    fb_opts_help(f, opts, n, NULL);
    fprintf(f, "\nExit 0 when all pass, 1 when any fails, 2 usage, 3 bad input file, 77 without a GPU.\n");
}

/* Beyond these a generic shape is skipped: the float64 reference of 10 GFLOP
 * takes ~10 s on one core; 8 GB is a tenth of the device. */
#define SELFTEST_MAX_FLOPS 1e10
#define SELFTEST_MAX_BYTES 8e9

typedef struct tally {
    int ok, fail, skipped;
} tally;

/* One line per variant of a checked cell. */
static void report_cell(const fb_case *c, fb_dtype dt, const char *shape, json_t *cell, tally *t)
{
    const char *name;
    json_t *vj;
    json_object_foreach(json_object_get(cell, "variants"), name, vj)
    {
        const char *st = json_string_value(json_object_get(vj, "status"));
        json_t *chk = json_object_get(vj, "check");
        const char *unchecked = fb_result_unchecked(vj);
        if (st && !strcmp(st, "ok") && unchecked) {
            /* selftest shapes are small enough to check in full: unchecked is a failure */
            t->fail++;
            printf("UNCHK %-10s %-9s %-12s %-26s %s\n", c->name, fb_dtype_name(dt), shape, name, unchecked);
        } else if (st && !strcmp(st, "ok")) {
            t->ok++;
            /* an ok reason is the path the variant's prepare chose (a library fallback) */
            const char *note = json_string_value(json_object_get(vj, "reason"));
            printf("ok    %-10s %-9s %-12s %-26s max_abs %.2e max_rel %.2e%s%s\n", c->name, fb_dtype_name(dt), shape,
                   name, fb_json_number(chk, "max_abs"), fb_json_number(chk, "max_rel"), note ? "  " : "",
                   note ? note : "");
        } else if (st && !strcmp(st, "skipped")) {
            t->skipped++;
            printf("skip  %-10s %-9s %-12s %-26s %s\n", c->name, fb_dtype_name(dt), shape, name,
                   json_string_value(json_object_get(vj, "reason")));
        } else {
            t->fail++;
            printf("FAIL  %-10s %-9s %-12s %-26s %s: %s\n", c->name, fb_dtype_name(dt), shape, name, st ? st : "?",
                   json_string_value(json_object_get(vj, "reason")));
        }
    }
}

static fb_status check_case(fb_run_env *env, const fb_case *c, unsigned dtypes, tally *t)
{
    /* full checks up to 2^28 elements per value: a matmul case's 1x262144 shape reads a
     * [1024, 262144] B whole, and a [1, N] output has no rows to sample */
    fb_cell_env cenv = {&env->ctx, env->timer, 1, (int64_t)1 << 28, false, NULL, true};
    int n = c->n_axes > 1 ? N2 : N1;
    for (int d = 0; d < FB_NDTYPES; d++) {
        fb_dtype dt = (fb_dtype)d;
        if (!(dtypes & FB_DTYPE_BIT(dt))) continue; /* --dtype */
        const char *variants[MAX_SELFTEST_VARIANTS];
        int nv = 0;
        variants[nv++] = FB_EAGER;
        for (int i = 0; i < c->n_fused; i++) {
            const fb_variant *v = fb_variant_find(c->fused[i]);
            if (v && (v->dtypes & FB_DTYPE_BIT(dt))) variants[nv++] = c->fused[i];
        }
        /* and every registered strategy of the case's family ("softmax.*"), listed or not */
        size_t len = strlen(c->name);
        for (int i = 0; i < fb_variant_count() && nv < MAX_SELFTEST_VARIANTS; i++) {
            const fb_variant *v = fb_variant_at(i);
            bool listed = false;
            for (int k = 0; k < nv; k++) listed |= !strcmp(variants[k], v->name);
            if (!listed && !strncmp(v->name, c->name, len) && v->name[len] == '.' && (v->dtypes & FB_DTYPE_BIT(dt)))
                variants[nv++] = v->name;
        }
        for (int k = 0; k < n; k++) {
            fb_point p = {0};
            char shape[64];
            /* a fixed symbol keeps its first value: the odd shapes are the displayed axes' */
            for (int f = 0; f < c->n_fixed; f++) p.sym[c->fixed[f].sym] = c->fixed[f].v[0];
            if (c->n_axes > 1) {
                p.sym[c->axis[0].sym] = shapes2[k][0];
                p.sym[c->axis[1].sym] = shapes2[k][1];
                snprintf(shape, sizeof shape, "%lldx%lld", (long long)shapes2[k][0], (long long)shapes2[k][1]);
            } else {
                p.sym[c->axis[0].sym] = shapes1[k];
                snprintf(shape, sizeof shape, "%lld", (long long)shapes1[k]);
            }
            /* the generic shapes on a compute-heavy program (a convolution whose
             * channel axis becomes 65536) are beyond a full float64 check: said and
             * skipped; such a case brings small shapes of its own (tests/cases/conv_odd.json) */
            fb_shape shp[FB_MAX_VALUES];
            fb_costs cost;
            if (fb_program_shapes(c, &p, shp) == FB_OK && fb_program_costs(c, shp, dt, &cost) == FB_OK &&
                (cost.flops > SELFTEST_MAX_FLOPS || cost.ideal_bytes > SELFTEST_MAX_BYTES)) {
                t->skipped++;
                printf("skip  %-10s %-9s %-12s %-26s too large for selftest's full check (%.3g GFLOP, %.3g GB)\n",
                       c->name, fb_dtype_name(dt), shape, "(all)", cost.flops / 1e9, cost.ideal_bytes / 1e9);
                continue;
            }
            json_t *cell = json_object();
            bool failed = false;
            fb_status s = fb_cell_run(&cenv, c, dt, &p, variants, nv, cell, &failed);
            report_cell(c, dt, shape, cell, t);
            json_decref(cell);
            if (s != FB_OK) return s;
        }
    }
    return FB_OK;
}

/* The checker must be able to fail: poisoned outputs fail everywhere, and one
 * corrupted element of a correct eager result is found at its index. */
static fb_status checker_selfcheck(fb_run_env *env, const fb_case *c, tally *t)
{
    fb_point p = {0};
    for (int a = 0; a < c->n_axes; a++) p.sym[c->axis[a].sym] = a == 0 ? 3 : 61;
    for (int f = 0; f < c->n_fixed; f++) p.sym[c->fixed[f].sym] = c->fixed[f].v[0];
    fb_shape shapes[FB_MAX_VALUES];
    FB_TRY(fb_program_shapes(c, &p, shapes));
    cudaStream_t st = env->ctx.stream;
    fb_tensor in[FB_MAX_VALUES] = {0}, out[FB_MAX_VALUES] = {0};
    fb_reference *ref = NULL;
    fb_eager *e = NULL;
    fb_status s = FB_OK;
    for (int i = 0; i < c->n_inputs && s == FB_OK; i++) {
        in[i] = (fb_tensor){NULL, FB_F32, shapes[i]};
        s = fb_dmalloc(&in[i].data, (size_t)fb_shape_numel(&shapes[i]) * 4);
        if (s == FB_OK) s = fb_cuda_status(fb_fill(&in[i], c->values[i].init, fb_fill_key(7, (uint64_t)i), st), "fb_fill", __FILE__, __LINE__);
    }
    for (int k = 0; k < c->n_outputs && s == FB_OK; k++) {
        out[k] = (fb_tensor){NULL, FB_F32, shapes[c->outputs[k]]};
        s = fb_dmalloc(&out[k].data, (size_t)fb_shape_numel(&out[k].shape) * 4);
        if (s == FB_OK) s = fb_cuda_status(fb_poison(&out[k], st), "fb_poison", __FILE__, __LINE__);
    }
    if (s == FB_OK) s = fb_cuda_status(cudaStreamSynchronize(st), "cudaStreamSynchronize", __FILE__, __LINE__);
    if (s == FB_OK) s = fb_reference_create(c, shapes, FB_F32, in, 1 << 20, &ref);
    fb_check_result r1 = {0}, r2 = {0};
    if (s == FB_OK) s = fb_check_outputs(ref, out, c->tol[FB_F32], &r1);
    int64_t victim = fb_shape_numel(&out[0].shape) / 2 + 1;
    if (s == FB_OK) s = fb_eager_create(c, shapes, FB_F32, &env->ctx, &e);
    if (s == FB_OK) s = fb_eager_run(e, in, out, st);
    if (s == FB_OK) /* 0x3f3f3f3f = 0.747f: far outside any tolerance */
        s = fb_cuda_status(cudaMemsetAsync((float *)out[0].data + victim, 0x3f, 4, st), "cudaMemsetAsync", __FILE__, __LINE__);
    if (s == FB_OK) s = fb_cuda_status(cudaStreamSynchronize(st), "cudaStreamSynchronize", __FILE__, __LINE__);
    if (s == FB_OK) s = fb_check_outputs(ref, out, c->tol[FB_F32], &r2);
    if (s == FB_OK) {
        int64_t n = fb_shape_numel(&out[0].shape);
        bool ok1 = !r1.passed && r1.n_bad >= n;
        bool ok2 = !r2.passed && r2.n_bad == 1 && r2.worst_output == 0 && r2.worst_index == victim;
        printf("%s  checker: poisoned output fails (%lld of %lld bad)\n", ok1 ? "ok  " : "FAIL", (long long)r1.n_bad,
               (long long)n);
        printf("%s  checker: one corrupted element found at [%lld] (%lld bad, worst [%lld])\n", ok2 ? "ok  " : "FAIL",
               (long long)victim, (long long)r2.n_bad, (long long)r2.worst_index);
        t->ok += ok1 + ok2;
        t->fail += !ok1 + !ok2;
    }
    fb_eager_destroy(e);
    fb_reference_destroy(ref);
    for (int i = 0; i < c->n_inputs; i++) fb_dfree(in[i].data);
    for (int k = 0; k < c->n_outputs; k++) fb_dfree(out[k].data);
    return s;
}

/* ---- the dropout mask: GPU against CPU, bit for bit -------------------------------- */

/* One dropout launch on n elements of dtype dt (at an element offset `skew` into
 * the buffers, so the unaligned path runs too), compared with fb_random.h on the
 * host: every element zero exactly where the CPU mask drops it, and every kept one
 * nonzero (x is positive). Returns the mismatch count in *bad. */
static fb_status dropout_run(fb_run_env *env, fb_dtype dt, int64_t n, int skew, double p, uint64_t seed, int64_t *bad)
{
    cudaStream_t st = env->ctx.stream;
    size_t es = fb_dtype_size(dt);
    fb_tensor x = {NULL, dt, {1, {n}}}, y = {NULL, dt, {1, {n}}};
    void *xb = NULL, *yb = NULL;
    unsigned char *host = malloc((size_t)n * es);
    if (!host) {
        fb_error("out of host memory for the dropout check");
        return FB_E_NOMEM;
    }
    fb_status s = fb_dmalloc(&xb, (size_t)(n + skew) * es);
    if (s == FB_OK) s = fb_dmalloc(&yb, (size_t)(n + skew) * es);
    if (s == FB_OK) {
        x.data = (char *)xb + (size_t)skew * es;
        y.data = (char *)yb + (size_t)skew * es;
        s = fb_cuda_status(fb_fill(&x, FB_INIT_POSITIVE, fb_fill_key(11, 0), st), "fb_fill", __FILE__, __LINE__);
    }
    if (s == FB_OK) s = fb_cuda_status(fb_poison(&y, st), "fb_poison", __FILE__, __LINE__);
    if (s == FB_OK) s = fb_cuda_status(fb_prim_dropout(&x, p, seed, &y, st), "fb_prim_dropout", __FILE__, __LINE__);
    if (s == FB_OK) s = fb_cuda_status(cudaStreamSynchronize(st), "cudaStreamSynchronize", __FILE__, __LINE__);
    if (s == FB_OK)
        s = fb_cuda_status(cudaMemcpy(host, y.data, (size_t)n * es, cudaMemcpyDeviceToHost), "cudaMemcpy (dropout)",
                           __FILE__, __LINE__);
    if (s == FB_OK) {
        const uint32_t thr = fb_dropout_threshold(p);
        int64_t b = 0;
        for (int64_t i = 0; i < n; i++) {
            /* zero is all-zero bits in every dtype; the poison (0xFF..) is not */
            bool zero = true;
            for (size_t k = 0; k < es; k++) zero &= host[(size_t)i * es + k] == 0;
            bool nan_poison = true;
            for (size_t k = 0; k < es; k++) nan_poison &= host[(size_t)i * es + k] == 0xFF;
            b += zero == (bool)fb_dropout_keep(seed, (uint64_t)i, thr) || nan_poison;
        }
        *bad = b;
    }
    fb_dfree(xb);
    fb_dfree(yb);
    free(host);
    return s;
}

static fb_status dropout_selfcheck(fb_run_env *env, tally *t)
{
    static const struct { fb_dtype dt; int64_t n; int skew; double p; uint64_t seed; } runs[] = {
        {FB_F32, 10000000, 0, 0.5, 1234}, {FB_F32, 10000000, 0, 0.1, 42},
        {FB_F16, 10000003, 1, 0.5, 1234}, {FB_BF16, 4099 * 33, 3, 0.9, 7}, {FB_F64, 1027, 1, 0.5, 5},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        int64_t bad = -1;
        FB_TRY(dropout_run(env, runs[r].dt, runs[r].n, runs[r].skew, runs[r].p, runs[r].seed, &bad));
        printf("%s  dropout mask: GPU = CPU bit for bit, %s, %lld elements%s, p %g, seed %llu (%lld differ)\n",
               bad == 0 ? "ok  " : "FAIL", fb_dtype_name(runs[r].dt), (long long)runs[r].n,
               runs[r].skew ? " unaligned" : "", runs[r].p, (unsigned long long)runs[r].seed, (long long)bad);
        if (bad == 0) t->ok++;
        else t->fail++;
    }
    return FB_OK;
}

/* row_simplex: every row's sum 1 within float32's rounding of its values (2^-24 of the sum, plus
 * the sum's own), every value positive and within 3x of the row's smallest (U(0.5, 1.5) draws,
 * divided by their row's sum), a row of one value exactly 1; and no two rows alike. */
static fb_status row_simplex_selfcheck(fb_run_env *env, tally *t)
{
    static const int64_t shapes[][2] = {{7, 1027}, {3, 65536}, {4099, 33}, {37, 1}};
    cudaStream_t st = env->ctx.stream;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const int64_t rows = shapes[k][0], n = shapes[k][1];
        fb_tensor x = {NULL, FB_F32, {2, {rows, n}}};
        float *host = malloc((size_t)(rows * n) * sizeof(float));
        if (!host) {
            fb_error("out of host memory for the row_simplex check");
            return FB_E_NOMEM;
        }
        fb_status s = fb_dmalloc(&x.data, (size_t)(rows * n) * sizeof(float));
        if (s == FB_OK) s = fb_cuda_status(fb_fill(&x, FB_INIT_ROW_SIMPLEX, fb_fill_key(3, 0), st), "fb_fill", __FILE__, __LINE__);
        if (s == FB_OK) s = fb_cuda_status(cudaStreamSynchronize(st), "cudaStreamSynchronize", __FILE__, __LINE__);
        if (s == FB_OK)
            s = fb_cuda_status(cudaMemcpy(host, x.data, (size_t)(rows * n) * sizeof(float), cudaMemcpyDeviceToHost),
                               "cudaMemcpy (row_simplex)", __FILE__, __LINE__);
        fb_dfree(x.data);
        if (s != FB_OK) {
            free(host);
            return s;
        }
        int64_t bad_values = 0, bad_rows = 0, same_rows = 0;
        double worst = 0;
        const double sum_tol = 0x1p-24 + (double)n * 0x1p-52;
        for (int64_t r = 0; r < rows; r++) {
            double sum = 0, lo = INFINITY, hi = 0;
            for (int64_t j = 0; j < n; j++) {
                const double v = host[r * n + j];
                bad_values += !(v > 0 && isfinite(v));
                lo = fmin(lo, v);
                hi = fmax(hi, v);
                sum += v;
            }
            bad_values += n > 0 && !(hi <= 3.0 * lo * (1 + 1e-6));
            if (fabs(sum - 1.0) > worst) worst = fabs(sum - 1.0);
            bad_rows += !(fabs(sum - 1.0) <= sum_tol) || (n == 1 && host[r] != 1.0f);
            same_rows += n > 1 && r > 0 && memcmp(host + r * n, host + (r - 1) * n, (size_t)n * sizeof(float)) == 0;
        }
        free(host);
        bool ok = bad_values == 0 && bad_rows == 0 && same_rows == 0;
        printf("%s  row_simplex fill %lldx%lld: row sums 1 +- %.2g (at most %.2g), %lld values out of range, "
               "%lld rows like the previous\n",
               ok ? "ok  " : "FAIL", (long long)rows, (long long)n, worst, sum_tol, (long long)bad_values,
               (long long)same_rows);
        if (ok) t->ok++;
        else t->fail++;
    }
    return FB_OK;
}

/* Every case to check, loaded (and so validated) before the GPU is touched. */
static fb_status load_cases(const fb_strlist *only, fb_case **out, int *n_out)
{
    *out = NULL;
    *n_out = 0;
    fb_case_dir d = {0};
    if (!only->n) FB_TRY(fb_case_list_every(&d, "", "test"));
    int n = only->n ? only->n : d.n;
    fb_case *cases = calloc((size_t)n, sizeof *cases); /* fb_case is large: tens of KiB each */
    fb_status s = cases ? FB_OK : FB_E_NOMEM;
    if (!cases) fb_error("out of host memory loading %d cases", n);
    for (int i = 0; i < n && s == FB_OK; i++)
        s = only->n ? fb_case_find(only->item[i], &cases[i]) : fb_case_load(d.path[i], &cases[i]);
    fb_case_dir_free(&d);
    if (s != FB_OK) {
        free(cases);
        return s;
    }
    *out = cases;
    *n_out = n;
    return FB_OK;
}

fb_status fb_cmd_selftest(int argc, char **argv)
{
    fb_strlist only = {0}, dtype_list = {0};
    bool no_timer = false, no_metrics = false;
    const fb_opt opts[] = {
        {.name = "case", .kind = FB_OPT_LIST, .dst = &only, .arg = "NAME",
         .help = "only this case (a name or a path to a case file);\nrepeatable, or comma-separated"},
        {.name = "dtype", .kind = FB_OPT_LIST, .dst = &dtype_list, .arg = "T",
         .help = "only these dtypes of the cases (float32, float16,\nbfloat16, float64; default all)"},
        {.name = "no-timer", .kind = FB_OPT_FLAG, .dst = &no_timer, .help = "skip the timer's self-checks"},
        {.name = "no-metrics", .kind = FB_OPT_FLAG, .dst = &no_metrics,
         .help = "skip the metrics pass's self-check (CUPTI)"},
    };
    const int n_opts = (int)(sizeof opts / sizeof opts[0]);
    if (fb_wants_help(argc, argv)) {
        selftest_usage(stdout, opts, n_opts);
        return FB_OK;
    }
    fb_cmdline cl = {.cmd = "selftest", .opts = opts, .n_opts = n_opts};
    fb_case *cases = NULL;
    int n_cases = 0;
    unsigned dtypes = FB_DTYPES_ALL;
    fb_status s = fb_opts_parse(&cl, argc, argv);
    if (s == FB_OK) s = fb_opt_dtypes("--dtype", &dtype_list, &dtypes);
    if (s == FB_OK) s = load_cases(&only, &cases, &n_cases);
    if (s == FB_OK && dtypes != FB_DTYPES_ALL) {
        /* a filter that leaves nothing to check is a mistake, not an empty pass */
        bool any = false;
        for (int i = 0; i < n_cases; i++)
            for (int d = 0; d < cases[i].n_dtypes; d++) any |= (dtypes & FB_DTYPE_BIT(cases[i].dtypes[d])) != 0;
        if (!any) {
            char *want = fb_strlist_join(&dtype_list);
            fb_error("--dtype %s: no selected case lists %s", want ? want : "?",
                     dtype_list.n > 1 ? "any of them" : "it");
            free(want);
            s = FB_E_USAGE;
        }
    }
    fb_cmdline_free(&cl);
    fb_strlist_free(&only);
    fb_strlist_free(&dtype_list);
    if (s != FB_OK) {
        free(cases);
        return s;
    }
    /* a line at a time: selftest under a sanitizer runs for minutes, often into a file */
    setvbuf(stdout, NULL, _IOLBF, 0);

    fb_timer_opts opts_t;
    fb_timer_opts_default(&opts_t);
    fb_run_env env;
    s = fb_run_env_open(&env, &opts_t);
    if (s != FB_OK) {
        free(cases);
        return s;
    }
    printf("selftest on %s (sm_%d%d, %d SMs)\n", env.ctx.dev.name, env.ctx.dev.cc_major, env.ctx.dev.cc_minor,
           env.ctx.dev.sms);

    tally t = {0};
    for (int i = 0; i < n_cases && s == FB_OK; i++) s = check_case(&env, &cases[i], dtypes, &t);
    if (s == FB_OK && n_cases > 0) s = checker_selfcheck(&env, &cases[0], &t);
    if (s == FB_OK) s = dropout_selfcheck(&env, &t);
    if (s == FB_OK) s = row_simplex_selfcheck(&env, &t);

    if (s == FB_OK && !no_timer) {
        char report[2048] = "";
        fb_status ts = fb_timer_selfcheck(env.timer, report, sizeof report);
        fputs(report, stdout);
        if (ts == FB_OK) t.ok++;
        else if (ts == FB_E_CHECK) t.fail++;
        else s = ts;
    }
    if (s == FB_OK && !no_timer) { /* --timer cupti, where libcupti loads; else skipped with the reason */
        char report[4096] = "";
        fb_status cs = fb_timer_selfcheck_cupti(env.timer, &env.ctx, report, sizeof report);
        fputs(report, stdout);
        if (cs == FB_OK) t.ok++;
        else if (cs == FB_E_CHECK) t.fail++;
        else if (cs == FB_E_UNSUPPORTED) t.skipped++;
        else s = cs;
    }
    if (s == FB_OK && !no_metrics) {
        char report[1024] = "";
        fb_status ms = fb_metrics_selfcheck(&env.ctx, env.timer, report, sizeof report);
        fputs(report, stdout);
        if (ms == FB_OK) t.ok++;
        else if (ms == FB_E_CHECK) t.fail++;
        else if (ms == FB_E_UNSUPPORTED) {
            t.skipped++;
            printf("skip  metrics: %s\n", fb_last_error());
        } else s = ms;
    }
    fb_run_env_close(&env);
    free(cases);
    if (s != FB_OK) return s;
    printf("selftest: %d passed, %d failed, %d skipped\n", t.ok, t.fail, t.skipped);
    if (t.fail) {
        fb_error("%d check%s failed", t.fail, t.fail > 1 ? "s" : "");
        return FB_E_CHECK;
    }
    return FB_OK;
}
