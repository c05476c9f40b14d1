/* test_report.c — the result file (atomic write, read, NaN as null, lookups)
 * and the terminal grids, compared byte for byte with tests/golden/.
 *
 * golden/result_small.json is a hand-made result: softmax float32 on a 3x4
 * grid whose cells cover ok / oom / fail / error / skipped / missing, and a
 * 1-axis rowsum case. Run from tests/ (meson's workdir).
 *
 * To regenerate the golden grids after an intended layout change:
 *   FB_UPDATE_GOLDEN=1 ../build/tests/test_report   — then read the diff. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clocks.h"
#include "report.h"
#include "result.h"
#include "testing.h"

#define GOLDEN "golden/"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            buf = realloc(buf, cap);
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (!buf) buf = calloc(1, 1);
    else buf[len] = 0;
    return buf;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Compares `got` with the golden file, or rewrites it when asked to. */
static void check_golden(const char *got, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, GOLDEN "%s", name);
    if (getenv("FB_UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            fputs(got, f);
            fclose(f);
        }
        return;
    }
    char *want = read_text(path);
    CHECK(want != NULL);
    if (want && strcmp(got, want) != 0) fprintf(stderr, "%s differs; got:\n%s", path, got);
    if (want) CHECK_STR(got, want);
    free(want);
}

/* Runs one report into memory; returns the text (caller frees) and the status. */
static char *grid(json_t *root, const char *cs, const char *dt, const char *var, const char *base,
                  fb_show show, fb_status *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *st = fb_report_grid(f, root, cs, dt, var, base, show);
    fclose(f);
    return buf;
}

static json_t *load_small(void)
{
    json_t *root = NULL;
    fb_status st = fb_result_read(GOLDEN "result_small.json", &root);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    return root;
}

static void test_show_names(void)
{
    fb_show s = FB_SHOW_TIME;
    CHECK(fb_show_from_name("speedup", &s) == 0 && s == FB_SHOW_SPEEDUP);
    CHECK(fb_show_from_name("sol", &s) == 0 && s == FB_SHOW_SOL);
    CHECK(fb_show_from_name("time", &s) == 0 && s == FB_SHOW_TIME);
    CHECK(fb_show_from_name("gbps", &s) == 0 && s == FB_SHOW_GBPS);
    CHECK(fb_show_from_name("dram", &s) == 0 && s == FB_SHOW_DRAM);
    CHECK(fb_show_from_name("inst", &s) == 0 && s == FB_SHOW_INST);
    CHECK(fb_show_from_name("kernels", &s) == 0 && s == FB_SHOW_KERNELS);
    CHECK(fb_show_from_name("paired", &s) == 0 && s == FB_SHOW_PAIRED);
    CHECK(fb_show_from_name("fast", &s) == -1);
    /* the table and the option choices agree, entry for entry */
    for (int i = 0; i < FB_NSHOW; i++) {
        CHECK_STR(fb_show_choices[i].name, fb_show_modes[i].name);
        CHECK(fb_show_choices[i].value == i);
        CHECK(fb_show_modes[i].value && fb_show_modes[i].format && fb_show_modes[i].heading);
        /* a view's text is format(value), so the grid, md and svg agree; only the
         * grid's own modes may say more */
        if (i < FB_NSHOW_VIEWS) CHECK(!fb_show_modes[i].text && !fb_show_modes[i].footer);
    }
    CHECK(FB_SHOW_KERNELS >= FB_NSHOW_VIEWS); /* not offered by export --show */
    char buf[128];
    CHECK_STR(fb_show_describe(FB_SHOW_SPEEDUP, "v.f", "eager", buf, sizeof buf), "v.f vs eager (t_eager / t_v.f)");
    CHECK_STR(fb_show_describe(FB_SHOW_SOL, "v.f", "eager", buf, sizeof buf),
              "v.f % of speed of light (t_copy(ideal bytes) / t_v.f)");
    CHECK_STR(fb_show_describe(FB_SHOW_TIME, "v.f", "eager", buf, 8), "v.f med"); /* cut to fit */
}

/* Instruction counts in three significant digits. */
static void test_format_count(void)
{
    static const struct { double v; const char *want; } t[] = {
        {0, "0"}, {512, "512"}, {9999, "9999"}, {10000, "10k"}, {12345, "12.3k"}, {999499, "999k"},
        {999500, "1M"}, {1234567, "1.23M"}, {4.2e9, "4.2G"}, {1.5e12, "1.5T"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char buf[32];
        fb_format_count(t[i].v, buf, sizeof buf);
        if (strcmp(buf, t[i].want)) fprintf(stderr, "fb_format_count(%g)\n", t[i].v);
        CHECK_STR(buf, t[i].want);
    }
}

/* --show dram and inst: measured DRAM bytes over the cell's ideal bytes, and
 * instruction counts, for the variants run --metrics measured; "-" elsewhere. */
static void test_metrics_grids(json_t *root)
{
    json_t *doc = json_deep_copy(root);
    json_t *cell = fb_result_cell(fb_result_dtype(fb_result_case(doc, "softmax"), "float32"), 128, 128);
    json_t *vars = json_object_get(cell, "variants");
    CHECK(fb_json_number(cell, "ideal_bytes") == 131072);
    json_object_set_new(json_object_get(vars, "softmax.fused"), "metrics",
                        json_pack("{s:i, s:i, s:i}", "dram_read_bytes", 65536, "dram_write_bytes", 68157,
                                  "inst_executed", 123456));
    json_object_set_new(json_object_get(vars, "eager"), "metrics",
                        json_pack("{s:i, s:i, s:I}", "dram_read_bytes", 262144, "dram_write_bytes", 196608,
                                  "inst_executed", (json_int_t)1234567890));
    fb_status st;
    char *g = grid(doc, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_DRAM, &st);
    CHECK(st == FB_OK);
    CHECK(strstr(g, "softmax.fused DRAM bytes read + written / ideal bytes (measured, from a flushed L2)\n") != NULL);
    CHECK(strstr(g, "\n128         1.02x       -       -       -\n") != NULL); /* (65536 + 68157) / 131072 */
    CHECK(strstr(g, "BFAIL") == NULL);                /* the baseline does not matter here */
    free(g);
    g = grid(doc, "softmax", "float32", "eager", NULL, FB_SHOW_DRAM, &st);
    CHECK(st == FB_OK && strstr(g, "\n128         3.50x ") != NULL); /* (262144 + 196608) / 131072 */
    free(g);
    g = grid(doc, "softmax", "float32", "eager", NULL, FB_SHOW_INST, &st);
    CHECK(st == FB_OK && strstr(g, "eager warp instructions executed (measured)") && strstr(g, " 1.23G "));
    free(g);
    g = grid(doc, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_INST, &st);
    CHECK(st == FB_OK && strstr(g, " 123k ") != NULL);
    free(g);
    /* without metrics: dashes, and the marks as in every grid */
    g = grid(root, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_DRAM, &st);
    CHECK(st == FB_OK);
    check_golden(g, "grid_dram_unmeasured.txt");
    CHECK(strchr(strchr(g, '\n') + 1, 'x') == NULL); /* no ratio below the title */
    CHECK(strstr(g, "FAIL") != NULL && strstr(g, "OOM") != NULL);
    free(g);
    json_decref(doc);
}

/* --show kernels: what --timer cupti measured per cell ("1", "1-2" when runs
 * differed), the declared count in parentheses where it measured nothing, the
 * usual marks; then the kernels' names over the dtype's cells. */
static void test_kernels_grid(void)
{
    json_t *root = NULL;
    fb_status st = fb_result_read("results/export/small.json", &root);
    CHECK(st == FB_OK);
    if (st != FB_OK) return;
    char *g = grid(root, "toy", "float32", "toy.fused", NULL, FB_SHOW_KERNELS, &st);
    CHECK(st == FB_OK);
    check_golden(g, "grid_kernels.txt");
    CHECK(strstr(g, "toy.fused kernels per run (measured by CUPTI; (N): declared, not measured)\n") != NULL);
    CHECK(strstr(g, "128             1     1-2    FAIL\n") != NULL);
    CHECK(strstr(g, "     (1)") != NULL);
    CHECK(strstr(g, "toy.fused launched, in 2 cells:\n  toy_fused_kernel<float, 4>\n  toy_tail_kernel\n") != NULL);
    free(g);
    g = grid(root, "line", "float32", "line.fused", NULL, FB_SHOW_KERNELS, &st);
    CHECK(st == FB_OK);
    CHECK(strstr(g, "line.fused: kernels not measured (run with --timer cupti)") != NULL);
    free(g);
    json_decref(root);
}

/* The golden files hold what the user sees; the spot checks below tie a few of
 * their numbers to hand computation so a bad golden cannot pass unnoticed. */
static void test_grids(json_t *root)
{
    fb_status st;
    char *g = grid(root, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_OK);
    check_golden(g, "grid_speedup.txt");
    CHECK(strstr(g, "400.0%") != NULL); /* 2.0 ms / 0.5 ms */
    CHECK(strstr(g, "250.0%") != NULL); /* 0.010 / 0.004 */
    CHECK(strstr(g, "BFAIL") != NULL);
    CHECK(strstr(g, "(t_eager / t_softmax.fused)\ndim0\\dim1") != NULL);
    free(g);

    g = grid(root, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_SOL, &st);
    CHECK(st == FB_OK);
    check_golden(g, "grid_sol.txt");
    CHECK(strstr(g, "  75.0%") != NULL);  /* 0.003 / 0.004 */
    CHECK(strstr(g, "  66.7%") != NULL);  /* no sol times: the stored sol_pct */
    CHECK(strstr(g, "BFAIL") == NULL);    /* the baseline does not matter here */
    free(g);

    g = grid(root, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_TIME, &st);
    CHECK(st == FB_OK);
    check_golden(g, "grid_time.txt");
    CHECK(strstr(g, "   500.0") != NULL);     /* 0.5 ms */
    CHECK(strstr(g, " 123456.7") != NULL);    /* 123.4567 ms widens its column */
    free(g);

    g = grid(root, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_GBPS, &st);
    CHECK(st == FB_OK);
    check_golden(g, "grid_gbps.txt");
    CHECK(strstr(g, "     33") != NULL); /* no stored gbps: 131072 B / 4 us */
    CHECK(strstr(g, "   1234") != NULL); /* stored 1234.4 */
    free(g);

    g = grid(root, "rowsum", "bf16", "rowsum.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_OK);
    check_golden(g, "grid_1axis.txt");
    CHECK(strstr(g, "rowsum · bfloat16 · ") == g); /* the alias prints canonically */
    CHECK(strstr(g, "125.0%") != NULL);            /* 1.0 / 0.8 */
    free(g);

    /* An explicit baseline replaces the case's. */
    g = grid(root, "rowsum", "bfloat16", "rowsum.fused", "rowsum.cub", FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_OK);
    CHECK(strstr(g, "rowsum.fused vs rowsum.cub (t_rowsum.cub / t_rowsum.fused)") != NULL);
    CHECK(strstr(g, "200.0%") != NULL); /* 0.004 / 0.002 */
    free(g);
}

static void test_report_all(json_t *root)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(fb_report_all(f, root, NULL, FB_SHOW_SPEEDUP) == FB_OK);
    fclose(f);
    check_golden(buf, "grid_all_speedup.txt");
    /* softmax.fused, rowsum.fused, rowsum.cub; never eager against itself */
    int grids = 0;
    for (const char *p = buf; (p = strstr(p, " vs ")); p++) grids++;
    CHECK(grids == 3);
    CHECK(strstr(buf, "eager vs eager") == NULL);
    free(buf);

    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(fb_report_all(f, root, NULL, FB_SHOW_SOL) == FB_OK);
    fclose(f);
    grids = 0;
    for (const char *p = buf; (p = strstr(p, "% of speed of light")); p++) grids++;
    CHECK(grids == 5); /* the baseline has a speed-of-light grid too */
    free(buf);
}

/* A case with no fused variant (eager against the speed of light, the README's
 * first step for a new case) still shows a grid: eager's % of SOL, not nothing. */
static void test_baseline_only(json_t *root)
{
    json_t *doc = json_deep_copy(root);
    json_t *cs = fb_result_case(doc, "softmax");
    json_object_set_new(cs, "variants", json_pack("[s]", "eager"));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(fb_report_all(f, doc, NULL, FB_SHOW_SPEEDUP) == FB_OK);
    fclose(f);
    check_golden(buf, "grid_all_eager_only.txt");
    CHECK(strstr(buf, "softmax · float32 · NVIDIA H100 80GB HBM3 · eager % of speed of light") == buf);
    CHECK(strstr(buf, "eager vs eager") == NULL);
    CHECK(strstr(buf, "rowsum.fused vs eager") != NULL); /* the other case is as before */
    fb_status st;
    char *sol = grid(root, "softmax", "float32", "eager", NULL, FB_SHOW_SOL, &st);
    CHECK(st == FB_OK && strncmp(buf, sol, strlen(sol)) == 0);
    free(buf);
    json_decref(doc);

    /* run prints through fb_report_case with the variants it ran: eager alone
     * (a case without fused variants, or --variants eager) gets the same grid */
    static const char *const only_eager[] = {"eager"};
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(fb_report_case(f, root, "softmax", "float32", only_eager, 1, "eager", FB_SHOW_SPEEDUP) == FB_OK);
    fclose(f);
    CHECK_STR(buf, sol);
    free(buf);

    /* with a fused variant the baseline's speedup grid is still left out */
    static const char *const both[] = {"eager", "softmax.fused"};
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(fb_report_case(f, root, "softmax", "float32", both, 2, "eager", FB_SHOW_SPEEDUP) == FB_OK);
    fclose(f);
    char *fused = grid(root, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK_STR(buf, fused);
    free(buf);
    free(fused);
    free(sol);
}

static void test_grid_errors(json_t *root)
{
    fb_status st;
    char *g = grid(root, "sofmax", "float32", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "softmax, rowsum") != NULL);
    free(g);
    g = grid(root, "softmax", "float16", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "float16") && strstr(fb_last_error(), "have: float32"));
    free(g);
    g = grid(root, "softmax", "float32", "softmax.fast", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "have: eager, softmax.fused") != NULL);
    free(g);
    g = grid(root, "softmax", "float32", "softmax.fused", "torch", FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "torch") != NULL);
    free(g);
    /* nothing is printed for a bad request */
    g = grid(root, "softmax", "float32", "nope", NULL, FB_SHOW_TIME, &st);
    CHECK(g && g[0] == 0);
    free(g);
}

static void test_lookups(json_t *root)
{
    json_t *cs = fb_result_case(root, "softmax");
    CHECK(cs != NULL);
    CHECK(fb_result_case(root, "nope") == NULL);
    json_t *dt = fb_result_dtype(cs, "float32");
    CHECK(dt != NULL);
    CHECK(fb_result_dtype(cs, "fp32") == dt);
    CHECK(fb_result_dtype(cs, "float16") == NULL);
    json_t *cell = fb_result_cell(dt, 128, 256);
    CHECK(cell != NULL);
    CHECK(fb_json_number(cell, "ideal_bytes") == 262144.0);
    CHECK(fb_result_cell(dt, 1024, 1024) == NULL); /* the missing cell */
    CHECK(fb_result_cell(dt, 128, -1) == NULL);    /* 2-axis cells all have a col */

    json_t *dt1 = fb_result_dtype(fb_result_case(root, "rowsum"), "bfloat16");
    CHECK(fb_result_cell(dt1, 4096, -1) != NULL);
    CHECK(fb_result_cell(dt1, 4096, 4096) == NULL);
    CHECK(isnan(fb_json_number(cell, "nope")));
    CHECK(isnan(fb_json_number(cell, "variants"))); /* not a number */
    CHECK(isnan(fb_json_number(NULL, "x")));
}

static void test_stats_json(void)
{
    fb_stats s = {.n = 7, .min = 0.25, .p20 = 0.3, .median = 0.123456789, .p80 = 0.5,
                  .max = INFINITY, .mean = 0.4, .stdev = NAN};
    json_t *j = fb_stats_to_json(&s);
    CHECK(j != NULL);
    CHECK(json_is_null(json_object_get(j, "max")));
    CHECK(json_is_null(json_object_get(j, "stdev")));
    CHECK(json_integer_value(json_object_get(j, "n")) == 7);
    fb_stats r;
    fb_stats_from_json(j, &r);
    CHECK(r.n == 7 && r.min == 0.25 && r.p20 == 0.3 && r.median == 0.123456789);
    CHECK(r.p80 == 0.5 && r.mean == 0.4 && isnan(r.max) && isnan(r.stdev));
    json_decref(j);

    fb_stats_from_json(NULL, &r); /* absent: all NaN, n = 0 */
    CHECK(r.n == 0 && isnan(r.min) && isnan(r.median) && isnan(r.stdev));

    j = fb_json_real(NAN);
    CHECK(json_is_null(j));
    json_decref(j);
    j = fb_json_real(-INFINITY);
    CHECK(json_is_null(j));
    json_decref(j);
    j = fb_json_real(1.5);
    CHECK(json_is_real(j) && json_real_value(j) == 1.5);
    json_decref(j);
}

static bool dir_has_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d) return false;
    bool found = false;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) found = true;
    closedir(d);
    return found;
}

static void test_write_read(void)
{
    char dir[] = "/tmp/fb_test_report.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/r.json", dir);

    fb_stats s = {.n = 3, .min = 0.001, .p20 = 0.0011, .median = 0.00123456789, .p80 = 0.0013,
                  .max = 0.0014, .mean = 0.0012, .stdev = NAN};
    json_t *root = json_pack("{s:{s:s, s:s, s:i}, s:s, s:[]}", "fusionbench", "version", FB_VERSION,
                             "git", "abc", "schema", FB_RESULT_SCHEMA, "host", "höst", "cases");
    json_object_set_new(root, "time_ms", fb_stats_to_json(&s));
    json_object_set_new(root, "gbps", fb_json_real(NAN));
    CHECK(fb_result_write(root, path) == FB_OK);
    CHECK(!dir_has_prefix(dir, "r.json.tmp")); /* the temp file is gone */

    char *text = read_text(path);
    CHECK(text && strstr(text, "\"gbps\": null") != NULL);
    CHECK(text && strstr(text, "höst") != NULL); /* UTF-8 kept, not \u-escaped */
    CHECK(text && strstr(text, "0.00123456789") != NULL); /* 9 significant digits */
    free(text);

    json_t *back = NULL;
    CHECK(fb_result_read(path, &back) == FB_OK);
    fb_stats r;
    fb_stats_from_json(json_object_get(back, "time_ms"), &r);
    CHECK(r.n == 3 && r.median == 0.00123456789 && r.min == 0.001 && isnan(r.stdev));
    CHECK(isnan(fb_json_number(back, "gbps")));
    CHECK_STR(json_string_value(json_object_get(back, "host")), "höst");
    json_decref(back);

    /* Rewriting replaces the file whole. */
    json_object_set_new(root, "host", json_string("other"));
    CHECK(fb_result_write(root, path) == FB_OK);
    CHECK(fb_result_read(path, &back) == FB_OK);
    CHECK_STR(json_string_value(json_object_get(back, "host")), "other");
    json_decref(back);

    /* A directory that does not exist: FB_E_IO naming the path, nothing left behind. */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/missing/r.json", dir);
    CHECK(fb_result_write(root, bad) == FB_E_IO);
    CHECK(strstr(fb_last_error(), bad) != NULL);
    CHECK(strstr(fb_last_error(), "cannot write") != NULL);
    CHECK(!exists(bad));

    /* A target that cannot be replaced (a directory): the temp is removed. */
    char sub[300];
    snprintf(sub, sizeof sub, "%s/adir", dir);
    CHECK(mkdir(sub, 0700) == 0);
    CHECK(fb_result_write(root, sub) == FB_E_IO);
    CHECK(!dir_has_prefix(dir, "adir.tmp"));
    rmdir(sub);

    /* Reading: missing, syntax error, JSON but not a result, newer schema: all
     * bad input (FB_E_CASE, exit 3); test_result.c checks the rest. */
    json_t *doc = (json_t *)1;
    CHECK(fb_result_read(bad, &doc) == FB_E_CASE);
    CHECK(doc == NULL);
    CHECK(strstr(fb_last_error(), "no such file") != NULL);

    char other[300];
    snprintf(other, sizeof other, "%s/other.json", dir);
    FILE *f = fopen(other, "w");
    fputs("{\"name\": \"softmax\",\n \"x\": [1, 2,]}\n", f);
    fclose(f);
    CHECK(fb_result_read(other, &doc) == FB_E_CASE);
    char want[400];
    snprintf(want, sizeof want, "%s:2:", other);
    CHECK(strncmp(fb_last_error(), want, strlen(want)) == 0);

    f = fopen(other, "w");
    fputs("{\"name\": \"softmax\", \"program\": []}\n", f);
    fclose(f);
    CHECK(fb_result_read(other, &doc) == FB_E_CASE);
    CHECK(strstr(fb_last_error(), "not a fusionbench result file") != NULL);

    f = fopen(other, "w");
    fputs("[1, 2]\n", f);
    fclose(f);
    CHECK(fb_result_read(other, &doc) == FB_E_CASE);

    f = fopen(other, "w");
    fputs("{\"fusionbench\": {\"version\": \"9.0.0\", \"schema\": 99}}\n", f);
    fclose(f);
    CHECK(fb_result_read(other, &doc) == FB_E_CASE);
    CHECK(strstr(fb_last_error(), "newer") != NULL);

    remove(other);
    remove(path);
    CHECK(rmdir(dir) == 0); /* empty: nothing stray was written */
    json_decref(root);
}

/* An unchecked variant (status ok, check.unchecked) reads UNCHK, never a number;
 * so does one from an older file whose mode-none check claimed passed. */
static void test_unchecked(json_t *root)
{
    json_t *r = json_deep_copy(root);
    json_t *dt = fb_result_dtype(fb_result_case(r, "softmax"), "float32");
    json_t *cell = fb_result_cell(dt, 128, 256); /* both variants ok: 400.0% in the golden grid */
    json_t *vars = json_object_get(cell, "variants");
    json_t *fused = json_object_get(vars, "softmax.fused"), *eager = json_object_get(vars, "eager");
    CHECK(fused && eager);
    if (!fused || !eager) {
        json_decref(r);
        return;
    }
    CHECK(fb_result_unchecked(fused) == NULL);
    json_t *chk = json_object();
    json_object_set_new(chk, "mode", json_string("none"));
    json_object_set_new(chk, "unchecked", json_string("too large to check in full"));
    json_object_set(fused, "check", chk);
    CHECK_STR(fb_result_unchecked(fused), "too large to check in full");

    fb_status st;
    char *g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_OK);
    CHECK(strstr(g, "UNCHK") != NULL);
    CHECK(strstr(g, "400.0%") == NULL);
    free(g);
    g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_TIME, &st);
    CHECK(strstr(g, "UNCHK") != NULL);
    free(g);

    /* the baseline unchecked: the speedup is not a number either */
    json_object_set_new(fused, "check", json_object()); /* _new: the set keeps the only reference */
    json_object_set(eager, "check", chk);
    CHECK(fb_result_unchecked(fused) == NULL);
    g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(strstr(g, "UNCHK") != NULL && strstr(g, "400.0%") == NULL);
    free(g);

    /* an old file: mode none, passed true */
    json_t *old = json_pack("{s:s, s:b, s:s}", "mode", "none", "passed", 1, "why", "not row-separable");
    json_object_set_new(eager, "check", old);
    CHECK_STR(fb_result_unchecked(eager), "not row-separable");
    g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(strstr(g, "UNCHK") != NULL);
    free(g);
    json_decref(chk);
    json_decref(r);
}

/* A throttled cell keeps its number, with "!" after it, and the grid says what
 * the mark means; a cell whose clock fell 9% is a plain number; a mark (FAIL)
 * is not a number, so it gets no "!". */
static void test_throttled(json_t *root)
{
    json_t *r = json_deep_copy(root);
    json_t *dt = fb_result_dtype(fb_result_case(r, "softmax"), "float32");
    json_t *hot = fb_result_cell(dt, 128, 256), *mild = fb_result_cell(dt, 128, 128);
    json_t *failed = fb_result_cell(dt, 1024, 256);
    CHECK(hot && mild && failed);
    if (!hot || !mild || !failed) {
        json_decref(r);
        return;
    }
    json_object_set_new(hot, "clocks", json_pack("{s:{s:i, s:i}, s:{s:i, s:i}}", "before", "sm_clock_mhz", 1980,
                                                 "temp_c", 50, "after", "sm_clock_mhz", 1700, "temp_c", 85));
    json_object_set_new(mild, "clocks", json_pack("{s:{s:i}, s:{s:i}}", "before", "sm_clock_mhz", 1980, "after",
                                                  "sm_clock_mhz", 1802)); /* -9% */
    json_object_set_new(failed, "clocks", json_object_get(hot, "clocks"));
    json_incref(json_object_get(hot, "clocks"));
    fb_status st;
    char *g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_OK);
    check_golden(g, "grid_throttled.txt");
    CHECK(strstr(g, " 400.0%!") != NULL);
    CHECK(strstr(g, " 250.0% ") != NULL && strstr(g, "250.0%!") == NULL);
    CHECK(strstr(g, "FAIL!") == NULL);
    CHECK(strstr(g, "\n" FB_THROTTLE_NOTE "\n\n") != NULL);
    free(g);
    g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_TIME, &st);
    CHECK(strstr(g, " 500.0!") != NULL && strstr(g, FB_THROTTLE_NOTE) != NULL);
    free(g);
    /* every mode, the metrics and kernels views included (the mark is added where
     * every mode's text is made): nothing measured, "-" and no mark, no note */
    static const fb_show views[] = {FB_SHOW_DRAM, FB_SHOW_INST, FB_SHOW_KERNELS};
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        g = grid(r, "softmax", "float32", "softmax.fused", NULL, views[i], &st);
        CHECK(st == FB_OK && strstr(g, "!") == NULL && strstr(g, "throttled") == NULL);
        free(g);
    }
    json_t *hv = json_object_get(json_object_get(hot, "variants"), "softmax.fused");
    json_t *mv = json_object_get(json_object_get(mild, "variants"), "softmax.fused");
    double ideal = fb_json_number(hot, "ideal_bytes");
    CHECK(hv && mv && ideal > 0);
    json_object_set_new(hv, "metrics", json_pack("{s:f, s:f, s:i}", "dram_read_bytes", ideal, "dram_write_bytes",
                                                 ideal, "inst_executed", 123456));
    double mild_ideal = fb_json_number(mild, "ideal_bytes");
    json_object_set_new(mv, "metrics", json_pack("{s:f, s:f, s:i}", "dram_read_bytes", mild_ideal, "dram_write_bytes",
                                                 0.0, "inst_executed", 654321));
    json_object_set_new(hv, "kernels_launched", json_pack("{s:i, s:i, s:i, s:[s]}", "count", 1, "count_min", 1,
                                                          "count_max", 2, "names", "k"));
    json_object_set_new(mv, "kernels_launched", json_pack("{s:i, s:[s]}", "count", 1, "names", "k"));
    g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_DRAM, &st);
    CHECK(st == FB_OK && strstr(g, "\n128         1.00x  2.00x!       -       -\n") != NULL); /* -9%: not throttled */
    CHECK(strstr(g, "\n" FB_THROTTLE_NOTE "\n") != NULL);
    free(g);
    g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_INST, &st);
    CHECK(st == FB_OK && strstr(g, " 123k!") != NULL && strstr(g, " 654k ") != NULL);
    CHECK(strstr(g, FB_THROTTLE_NOTE) != NULL);
    free(g);
    g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_KERNELS, &st);
    CHECK(st == FB_OK && strstr(g, " 1-2!") != NULL && strstr(g, FB_THROTTLE_NOTE) != NULL);
    CHECK(strstr(g, "FAIL!") == NULL && strstr(g, "(1)!") == NULL);
    free(g);
    /* no throttled cell, no note (the golden grids above have none) */
    g = grid(root, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(strstr(g, "!") == NULL && strstr(g, "throttled") == NULL);
    free(g);
    json_decref(r);
}

/* The paired grid (run's paired timing, cell.c): t_floor / t_variant from the variant's
 * "paired" ratio median, "-" where the pairing did not run or its floor failed, and no
 * throttle mark (a pair's ratio holds while the clock moves). */
static void test_paired_grid(json_t *root)
{
    json_t *r = json_deep_copy(root);
    json_t *dt = fb_result_dtype(fb_result_case(r, "softmax"), "float32");
    json_t *a = fb_result_cell(dt, 128, 256), *b = fb_result_cell(dt, 128, 128);
    CHECK(a && b);
    if (!a || !b) {
        json_decref(r);
        return;
    }
    json_t *va = json_object_get(json_object_get(a, "variants"), "softmax.fused");
    json_t *vb = json_object_get(json_object_get(b, "variants"), "softmax.fused");
    json_object_set_new(va, "paired", json_pack("{s:s, s:s, s:i, s:{s:f}}", "floor", "softmax.floor", "status", "ok",
                                                "n", 40, "ratio", "median", 1.25));
    json_object_set_new(vb, "paired", json_pack("{s:s, s:s, s:s, s:{s:f}}", "floor", "softmax.floor", "status",
                                                "fail", "reason", "floor wrong", "ratio", "median", 1.0));
    /* a throttled cell: the speedup grid marks it, the paired grid does not */
    json_object_set_new(a, "clocks", json_pack("{s:{s:i}, s:{s:i}}", "before", "sm_clock_mhz", 1980, "after",
                                               "sm_clock_mhz", 1500));
    fb_status st;
    char *g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_PAIRED, &st);
    CHECK(st == FB_OK);
    CHECK(g && strstr(g, "softmax.fused vs the plain op, timed in pairs with it (t_floor / t_softmax.fused") != NULL);
    CHECK(g && strstr(g, "\n128             -   80.0%") != NULL);
    CHECK(g && strstr(g, "!") == NULL && strstr(g, FB_THROTTLE_NOTE) == NULL);
    if (g && !strstr(g, "\n128             -   80.0%")) fprintf(stderr, "paired grid:\n%s", g);
    free(g);
    g = grid(r, "softmax", "float32", "softmax.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(g && strstr(g, "!") != NULL);
    free(g);
    json_decref(r);
}

/* A case with a fixed symbol (K in {1024, 4096}): one grid per K, headed by it,
 * each of its own cells; results/export/fixed.json is hand-made (K=4096 lacks
 * the cell M=256 N=128, and its mm.fused is half as fast against eager). */
static void test_fixed_grids(void)
{
    json_t *root = NULL;
    fb_status st = fb_result_read("results/export/fixed.json", &root);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    if (st != FB_OK) return;
    json_t *cs = fb_result_case(root, "mm");
    CHECK(fb_result_n_grids(cs) == 2);
    json_t *g1 = fb_result_grid_fixed(cs, 1);
    char label[64];
    CHECK_STR(fb_result_fixed_label(g1, label, sizeof label), "K=4096");
    json_decref(g1);
    json_t *small = load_small();
    CHECK(small && fb_result_grid_fixed(fb_result_case(small, "softmax"), 0) == NULL);
    CHECK(small && fb_result_n_grids(fb_result_case(small, "softmax")) == 1);
    json_decref(small);
    char *g = grid(root, "mm", "float32", "mm.fused", NULL, FB_SHOW_SPEEDUP, &st);
    CHECK(st == FB_OK);
    check_golden(g, "grid_fixed.txt");
    const char *k1 = strstr(g, "mm · float32 · K=1024 · ");
    const char *k4 = strstr(g, "mm · float32 · K=4096 · ");
    CHECK(k1 != NULL && k4 != NULL && k1 < k4);
    /* eager / fused: 0.016 / 0.005 at K=1024; at K=4096 0.064 / 0.040 */
    CHECK(k1 && k4 && strstr(k1, "\n128  320.0%  320.0%\n") != NULL && strstr(k1, "\n128  320.0%  320.0%\n") < k4);
    CHECK(k4 && strstr(k4, "\n128  160.0%  160.0%\n256  160.0%       -\n") != NULL);
    free(g);
    json_decref(root);
}

int main(void)
{
    test_show_names();
    test_format_count();
    test_kernels_grid();
    test_fixed_grids();
    test_stats_json();
    test_write_read();
    json_t *root = load_small();
    if (root) {
        test_lookups(root);
        test_grids(root);
        test_report_all(root);
        test_baseline_only(root);
        test_grid_errors(root);
        test_unchecked(root);
        test_throttled(root);
        test_paired_grid(root);
        test_metrics_grids(root);
        json_decref(root);
    }
    return fb_t_report("test_report");
}
