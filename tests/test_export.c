/* test_export.c — `fusionbench export`'s printers (export.h): every format of
 * results/export/small.json against a golden file in golden/export/, the grids
 * against report.c's terminal grid on the same cells, the walk's choice of
 * grids, --case/--dtype/--variant refusals, and the shared writers.
 *
 * results/export/small.json is hand-made: softmax-like 'toy' on a 3x3 float32
 * grid whose cells cover ok, slower, a failed check, an unchecked variant, OOM,
 * error, a failed baseline, both OOM and a missing cell, a variant named
 * 'toy.<i>odd</i>&"name"' and a device 'Test GPU <rev "A"> & co' (escaping),
 * timing samples on one cell; run --metrics counts on a few variants (one with
 * instructions only, one with a metrics_error); a bfloat16 dtype with one cell;
 * and a one-axis case 'line'. Run from tests/ (meson's workdir).
 *
 * results/export/rmsnorm.json is hand-made too, for the benchmark table
 * (report_table.h, export --format md --table, run --table): rmsnorm and
 * rmsnorm_backward on a 2 x 2 T x N grid of x [4, T, N] with the cells' input
 * shapes, three variants (one skipped at an odd N, one failed, one unchecked,
 * eager out of memory at the largest), a throttled cell, a bfloat16 dtype.
 *
 * To regenerate the golden files after an intended change:
 *   FB_UPDATE_GOLDEN=1 ../build/tests/test_export   — then read the diff. */
#include <stdlib.h>
#include <unistd.h>

#include "export.h"
#include "report.h"
#include "report_table.h"
#include "result.h"
#include "resultset.h"
#include "testing.h"

#define SMALL "results/export/small.json"
#define SOFTMAX "../results/h100/softmax-f5148a1.json"
/* clocks around each cell (clocks.h): steady, throttled, throttled with a failed
 * check (a mark: no "!"), half its readings; settings.flush "clean" */
#define CLOCKS "results/export/clocks.json"
#define RMSNORM "results/export/rmsnorm.json"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) fwrite(chunk, 1, n, m);
    fclose(f);
    fclose(m);
    return buf;
}

static void check_golden(const char *got, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "golden/export/%s", name);
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
    if (want && strcmp(got, want) != 0) {
        /* the first differing line, not the whole file */
        const char *g = got, *w = want;
        int line = 1;
        while (*g && *g == *w) line += *g++ == '\n', w++;
        fprintf(stderr, "%s differs from the export at line %d\n", path, line);
    }
    if (want) CHECK(strcmp(got, want) == 0);
    free(want);
}

/* Runs one export into memory; the text (caller frees) and the status. */
static char *export_text(const fb_rs_doc *d, const char *format, fb_export_opts o, fb_status *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *st = fb_export_doc(f, d, &o, fb_printer_find(format));
    fclose(f);
    return buf;
}

static void test_golden(const fb_rs_doc *d)
{
    static const struct {
        const char *format, *file;
        fb_export_opts o;
    } cases[] = {
        {"csv", "small.csv", {FB_SHOW_SPEEDUP}},
        {"json", "small.json", {FB_SHOW_SPEEDUP}},
        {"md", "small.md", {FB_SHOW_SPEEDUP}},
        {"md", "small-sol.md", {FB_SHOW_SOL}},
        {"md", "small-time-line.md", {FB_SHOW_TIME, "line"}},
        {"svg", "small.svg", {FB_SHOW_SPEEDUP}},
        {"svg", "small-sol-toy-float32.svg", {FB_SHOW_SOL, "toy", "float32", "toy.fused"}},
        {"html", "small.html", {FB_SHOW_SPEEDUP}},
        /* run --metrics: measured DRAM bytes / ideal bytes, and instructions */
        {"md", "small-dram.md", {FB_SHOW_DRAM, "toy", "float32"}},
        {"md", "small-inst.md", {FB_SHOW_INST, "toy", "float32"}},
        {"svg", "small-dram-toy-float32.svg", {FB_SHOW_DRAM, "toy", "float32", "toy.fused"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fb_status st;
        char *got = export_text(d, cases[i].format, cases[i].o, &st);
        if (st != FB_OK) fprintf(stderr, "%s: %s\n", cases[i].file, fb_last_error());
        CHECK(st == FB_OK);
        check_golden(got, cases[i].file);
        free(got);
    }
}

/* ---- the grids agree with the terminal grid ------------------------------------- */

/* The cells of every "| a | b |" row but the heading and rule, as one
 * space-separated line per row, from markdown; the grids' tables only (not the
 * "#### ... kernels launched" tables after them). */
static void md_cells(const char *md, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    int row = 0;
    bool grid = true;
    for (const char *line = md; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "### ", 4) == 0) grid = true;
        if (strncmp(line, "#### ", 5) == 0) grid = false;
        if (line[0] != '|' || !grid) {
            row = 0;
            continue;
        }
        if (row++ < 2) continue; /* heading, rule */
        const char *end = strchr(line, '\n');
        for (const char *p = line; p < end;) {
            while (p < end && (*p == '|' || *p == ' ')) p++;
            const char *q = p;
            while (q < end && *q != '|') q++;
            const char *r = q;
            while (r > p && r[-1] == ' ') r--;
            if (r > p) used += (size_t)snprintf(out + used, used < n ? n - used : 0, "%.*s ", (int)(r - p), p);
            p = q;
        }
        used += (size_t)snprintf(out + used, used < n ? n - used : 0, "\n");
    }
}

/* The same from report.c's grid: every line after the header and column line. */
static void grid_cells(const char *grid, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    int line_no = 0;
    for (const char *line = grid; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (line_no++ < 2 || *line == '\n') continue;
        const char *end = strchr(line, '\n');
        for (const char *p = line; p < end;) {
            while (p < end && *p == ' ') p++;
            const char *q = p;
            while (q < end && *q != ' ') q++;
            if (q > p) used += (size_t)snprintf(out + used, used < n ? n - used : 0, "%.*s ", (int)(q - p), p);
            p = q;
        }
        used += (size_t)snprintf(out + used, used < n ? n - used : 0, "\n");
    }
}

static void check_same_as_report(const char *path, const fb_rs_doc *d, const char *cs, const char *dt,
                                 const char *variant, fb_show show)
{
    json_t *root = NULL;
    CHECK(fb_result_read(path, &root) == FB_OK);
    char *term = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&term, &len);
    CHECK(fb_report_grid(f, root, cs, dt, variant, NULL, show) == FB_OK);
    fclose(f);
    fb_status st;
    char *md = export_text(d, "md", (fb_export_opts){show, cs, dt, variant}, &st);
    CHECK(st == FB_OK);
    static char a[1 << 16], b[1 << 16];
    grid_cells(term, a, sizeof a);
    md_cells(md, b, sizeof b);
    CHECK(strlen(a) > 10);
    if (strcmp(a, b) != 0) fprintf(stderr, "%s %s %s show %d: terminal\n%s\nmd\n%s\n", cs, dt, variant, show, a, b);
    CHECK_STR(a, b);
    free(term);
    free(md);
    json_decref(root);
}

static void test_same_as_report(const fb_rs_doc *small)
{
    fb_rs_doc soft;
    CHECK(fb_rs_load(SOFTMAX, &soft) == FB_OK);
    for (int s = 0; s < FB_NSHOW_VIEWS; s++) { /* the grid-only modes have no md view */
        check_same_as_report(SOFTMAX, &soft, "softmax", "float32", "softmax.fused", (fb_show)s);
        check_same_as_report(SMALL, small, "toy", "float32", "toy.fused", (fb_show)s);
        check_same_as_report(SMALL, small, "line", "float32", "line.fused", (fb_show)s);
    }
    check_same_as_report(SMALL, small, "toy", "float32", "eager", FB_SHOW_TIME);
    fb_rs_free(&soft);
}

/* ---- the walk ----------------------------------------------------------------------- */

typedef struct counter {
    int grids, cells, measured;
    char names[1024];
} counter;

static counter g_count;

static fb_status count_grid(fb_export *x, const fb_export_grid *g)
{
    g_count.grids++;
    size_t n = strlen(g_count.names);
    snprintf(g_count.names + n, sizeof g_count.names - n, "%s/%s/%s%s ", g->cs->name, g->dt->dtype, g->variant,
             g->show == FB_SHOW_SOL && x->opts->show != FB_SHOW_SOL ? "(sol)" : "");
    return FB_OK;
}

static fb_status count_cell(fb_export *x, const fb_export_grid *g, const fb_export_cell *c)
{
    g_count.cells++;
    g_count.measured += c->v != NULL;
    return FB_OK;
}

static const char *walk_names(const fb_rs_doc *d, fb_export_walk walk, fb_export_opts o)
{
    fb_printer p = {.name = "count", .walk = walk, .begin_grid = count_grid, .cell = count_cell};
    memset(&g_count, 0, sizeof g_count);
    FILE *f = fopen("/dev/null", "w");
    fb_status st = fb_export_doc(f, d, &o, &p);
    fclose(f);
    CHECK(st == FB_OK);
    return g_count.names;
}

static void test_walk(const fb_rs_doc *d)
{
    /* as run prints them: no baseline grid, no grid of a variant a dtype never ran */
    CHECK_STR(walk_names(d, FB_WALK_SHOWN, (fb_export_opts){FB_SHOW_SPEEDUP}),
              "toy/float32/toy.fused toy/float32/toy.<i>odd</i>&\"name\" toy/bfloat16/toy.fused line/float32/line.fused ");
    CHECK(g_count.cells == 9 + 9 + 9 + 2);
    CHECK_STR(walk_names(d, FB_WALK_SHOWN, (fb_export_opts){FB_SHOW_TIME, "line"}),
              "line/float32/eager line/float32/line.fused ");
    /* the baseline alone: its % of speed of light, as run shows it */
    CHECK_STR(walk_names(d, FB_WALK_SHOWN, (fb_export_opts){FB_SHOW_SPEEDUP, "toy", "bf16", "eager"}),
              "toy/bfloat16/eager(sol) ");
    CHECK_STR(walk_names(d, FB_WALK_VARIANTS, (fb_export_opts){FB_SHOW_SPEEDUP, "toy"}),
              "toy/float32/eager toy/float32/toy.fused toy/float32/toy.<i>odd</i>&\"name\" toy/bfloat16/eager "
              "toy/bfloat16/toy.fused ");
    CHECK_STR(walk_names(d, FB_WALK_MEASURED, (fb_export_opts){FB_SHOW_SPEEDUP, NULL, "float32"}),
              "toy/float32/eager toy/float32/toy.fused toy/float32/toy.<i>odd</i>&\"name\" toy/float32/sol "
              "line/float32/eager line/float32/line.fused line/float32/sol ");
    /* toy float32: 8 cells x (eager, fused) - 0 + odd 2 + sol 7; line: 2 x 3 */
    CHECK(g_count.measured == 8 + 8 + 2 + 7 + 6);
    CHECK_STR(walk_names(d, FB_WALK_MEASURED, (fb_export_opts){FB_SHOW_SPEEDUP, NULL, NULL, "sol"}),
              "toy/float32/sol toy/bfloat16/sol line/float32/sol ");
}

static void test_selection(const fb_rs_doc *d)
{
    fb_status st;
    char *t = export_text(d, "md", (fb_export_opts){FB_SHOW_SPEEDUP, "toyy"}, &st);
    CHECK(st == FB_E_USAGE);
    CHECK_STR(fb_last_error(), SMALL ": no case 'toyy' in the result (have: toy, line)");
    free(t);
    t = export_text(d, "csv", (fb_export_opts){FB_SHOW_SPEEDUP, "line", "bf16"}, &st);
    CHECK(st == FB_E_USAGE);
    CHECK_STR(fb_last_error(), SMALL ": no dtype 'bf16' in the result for case line (have: float32)");
    free(t);
    t = export_text(d, "svg", (fb_export_opts){FB_SHOW_SPEEDUP, NULL, NULL, "sol"}, &st);
    CHECK(st == FB_E_USAGE); /* the sol copy is a csv/json row, not a grid */
    CHECK_STR(fb_last_error(), SMALL ": no variant 'sol' in the result (have: eager, toy.fused, toy.<i>odd</i>&\"name\", line.fused)");
    free(t);
    /* a selection that exists: nothing else printed */
    t = export_text(d, "csv", (fb_export_opts){FB_SHOW_SPEEDUP, "line", NULL, "line.fused"}, &st);
    CHECK(st == FB_OK);
    int lines = 0;
    for (const char *p = t; *p; p++) lines += *p == '\n';
    CHECK(lines == 3); /* the header and two cells */
    CHECK(strstr(t, "\nline,float32,n,1024,,,,line.fused,eager,ok,,2.5,") != NULL);
    free(t);
}

/* ---- the records -------------------------------------------------------------------- */

static void test_records(const fb_rs_doc *d)
{
    fb_status st;
    char *csv = export_text(d, "csv", (fb_export_opts){FB_SHOW_SPEEDUP, "toy", "float32"}, &st);
    CHECK(st == FB_OK);
    /* header, then 8 eager + 8 fused + 2 odd + 7 sol rows; the device is quoted (it holds a quote) */
    int lines = 0;
    for (const char *p = csv; *p; p++) lines += *p == '\n';
    CHECK(lines == 1 + 8 + 8 + 2 + 7);
    CHECK(strncmp(csv, "case,dtype,row_axis,row,col_axis,col,shape,variant,baseline,status,reason,median_us,", 84) == 0);
    /* a fast cell: 16 us / 5 us = 3.2; sol_pct 80 */
    CHECK(strstr(csv, "\ntoy,float32,dim0,128,dim1,64,,toy.fused,eager,ok,,5,4.9,4.95,5.05,5.2,5.01,0.05,4,3.2,80,") !=
          NULL);
    /* the failed check: its time kept, no speedup, the check columns say why */
    CHECK(strstr(csv, "toy.fused,eager,fail,17 of 32768 elements outside atol 1e-06 + rtol 1e-05,9,") != NULL);
    /* (no clocks in this file: the nine clock columns and the four of the measurement's clock empty;
     * no pairs: paired_floor and paired_ratio empty) */
    CHECK(strstr(csv, ",full,false,0.75,0.5,,,,,,,,,,,,,,,,,,,\"Test GPU <rev \"\"A\"\"> & co\",0123abcdef\n") != NULL);
    /* the unchecked variant: a number, and the reason it is not checked */
    CHECK(strstr(csv, ",none,,,,,,no float64 reference for this op,") != NULL);
    /* --timer cupti: kernels launched, their names and the span after the declared
     * kernels; run --metrics: the counts as integers after peak_bytes and
     * prepare_ms (empty: this file has none), empty where not measured */
    CHECK(strstr(csv, ",ok,,5,4.9,4.95,5.05,5.2,5.01,0.05,4,3.2,80,13.1072,0.0065536,65536,32768,1,"
                      "1,\"toy_fused_kernel<float, 4>\",5,65536,65536,,32768,33554,2048,full,true,") != NULL);
    CHECK(strstr(csv, ",toy.fused,eager,ok,,31,") && strstr(csv, ",131072,131072,,,,4096,full,true,"));
    /* the sol rows: speedup of the copy against the baseline (16 / 4) */
    CHECK(strstr(csv, "\ntoy,float32,dim0,128,dim1,64,,sol,eager,ok,,4,3.92,3.96,4.04,4.16,4.008,0.04,3,4,,") != NULL);
    free(csv);
}

static void test_writers(void)
{
    char b[64];
    CHECK(fb_format_number(34359738368.0, b, sizeof b) && strcmp(b, "34359738368") == 0);
    CHECK(fb_format_number(16.767999199999998, b, sizeof b) && strcmp(b, "16.7679992") == 0);
    CHECK(fb_format_number(1.13139832e-08, b, sizeof b) && strcmp(b, "1.13139832e-08") == 0);
    CHECK(!fb_format_number(NAN, b, sizeof b) && b[0] == 0);
    CHECK(!fb_format_number(INFINITY, b, sizeof b));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fb_put_xml(f, "a<b>&\"c\"'d'\x01\ttab");
    fclose(f);
    CHECK_STR(buf, "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;\xEF\xBF\xBD\ttab");
    free(buf);
    CHECK(fb_printer_find("csv") == &fb_printer_csv);
    CHECK(fb_printer_find("html") == &fb_printer_html);
    CHECK(fb_printer_find("xlsx") == NULL);
}

/* A write error is an I/O error, not a silent truncation. */
static void test_write_error(const fb_rs_doc *d)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f) return; /* not on this system */
    setvbuf(f, NULL, _IONBF, 0);
    fb_export_opts o = {FB_SHOW_SPEEDUP};
    CHECK(fb_export_doc(f, d, &o, &fb_printer_csv) == FB_E_IO);
    fclose(f);
}

/* The clocks in every format: the throttled cell's number with "!", its legend,
 * the clock columns of the records, the html's SM clock column, the flush. */
static void test_clocks(void)
{
    fb_rs_doc d;
    fb_status st = fb_rs_load(CLOCKS, &d);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    if (st != FB_OK) return;
    static const struct {
        const char *format, *file;
    } goldens[] = {{"md", "clocks.md"}, {"csv", "clocks.csv"}, {"json", "clocks.json"}, {"svg", "clocks.svg"},
                   {"html", "clocks.html"}};
    char *text[5];
    for (size_t i = 0; i < 5; i++) {
        text[i] = export_text(&d, goldens[i].format, (fb_export_opts){FB_SHOW_SPEEDUP}, &st);
        CHECK(st == FB_OK);
        check_golden(text[i], goldens[i].file);
    }
    const char *md = text[0], *csv = text[1], *json = text[2], *svg = text[3], *html = text[4];
    CHECK(strstr(md, " · timer events · flush clean · ") != NULL);
    CHECK(strstr(md, "| 250.0%! |") != NULL);  /* 128 x 128: 1980 -> 1650 MHz */
    CHECK(strstr(md, "| 320.0% |") != NULL);   /* 128 x 64: steady */
    CHECK(strstr(md, "FAIL!") == NULL);        /* a mark is not a number */
    CHECK(strstr(md, "|  250.0% |") != NULL);  /* 256 x 128: no after reading of the SM clock: not flagged */
    CHECK(strstr(md, "!: throttled (the SM clock fell more than 10%") != NULL);
    {
        /* the paired view: toy.fused's pairs at 128 x 64 (t_floor / t_variant = 1 / 1.02), "-" where
         * no pairs were timed, and no throttle mark or its note, though 128 x 128 is throttled */
        fb_status pst;
        char *pmd = export_text(&d, "md", (fb_export_opts){FB_SHOW_PAIRED}, &pst);
        CHECK(pst == FB_OK && pmd);
        CHECK(pmd && strstr(pmd, "toy.fused vs the plain op, timed in pairs with it") != NULL);
        CHECK(pmd && strstr(pmd, "| 98.0% |") != NULL);
        CHECK(pmd && strstr(pmd, "!") == NULL);
        free(pmd);
    }
    CHECK(strstr(csv, ",unchecked,sm_clock_before_mhz,sm_clock_after_mhz,mem_clock_before_mhz,mem_clock_after_mhz,"
                      "temp_before_c,temp_after_c,power_before_w,power_after_w,throttled,step_pct,sm_clock_min_mhz,"
                      "sm_clock_mean_mhz,limited_by,paired_floor,paired_ratio,device,commit\n") != NULL);
    CHECK(strstr(csv, ",1980,1650,2619,2619,50,86,420,700,true,,,,,,,Test GPU,") != NULL);
    /* the steady cell's eager: its own step (under 5%: not a mark) and the clock read while it ran */
    CHECK(strstr(csv, ",eager,eager,ok,,16,") != NULL &&
          strstr(csv, ",1980,1980,2619,2619,45,60,310.5,650.25,false,1.25,1965,1972.5,sw_power_cap,,,Test GPU,") != NULL);
    /* the same cell's toy.fused, timed in pairs with its plain op: the floor and the pairs' median ratio */
    CHECK(strstr(csv, ",1980,1980,2619,2619,45,60,310.5,650.25,false,,,,,toy.floor,1.02,Test GPU,") != NULL);
    CHECK(strstr(json, "\"paired_floor\":\"toy.floor\",\"paired_ratio\":1.02,") != NULL);
    CHECK(strstr(csv, ",1980,,,,48,70,,,false,,,,,,,Test GPU,") != NULL);
    CHECK(strstr(json, "\"step_pct\":1.25,\"sm_clock_min_mhz\":1965,\"sm_clock_mean_mhz\":1972.5,\"limited_by\":\"sw_power_cap\"") != NULL);
    CHECK(strstr(json, "\"sm_clock_after_mhz\":1650,") != NULL && strstr(json, "\"throttled\":true") != NULL);
    CHECK(strstr(svg, ">250.0%!</text>") != NULL && strstr(svg, "! throttled: SM clock fell &gt; 10%") != NULL);
    CHECK(strstr(svg, " · throttled: SM clock 1980 -&gt; 1650 MHz (-16.7%), ") != NULL);
    CHECK(strstr(html, "<th>SM MHz</th>") != NULL && strstr(html, "flush clean · L2 flush 8 MiB") != NULL);
    CHECK(strstr(html, "<td data-v=\"1650\" class=\"warn\">1980 → 1650!</td>") != NULL);
    CHECK(strstr(html, "<td data-v=\"\">1980 → ?</td>") != NULL);
    for (size_t i = 0; i < 5; i++) free(text[i]);

    /* the mark in the metrics views as well: the throttled cell's toy.fused given
     * metrics (128 x 128; 128 x 64, steady, too), its md grids and svg labels */
    json_t *doc = NULL;
    CHECK(fb_result_read(CLOCKS, &doc) == FB_OK);
    json_t *dt = fb_result_dtype(fb_result_case(doc, "toy"), "float32");
    const int64_t cols[] = {128, 64};
    for (int k = 0; k < 2; k++) {
        json_t *cell = fb_result_cell(dt, 128, cols[k]);
        json_t *v = json_object_get(json_object_get(cell, "variants"), "toy.fused");
        CHECK(v != NULL);
        double ideal = fb_json_number(cell, "ideal_bytes");
        json_object_set_new(v, "metrics", json_pack("{s:f, s:f, s:i}", "dram_read_bytes", ideal, "dram_write_bytes",
                                                    k ? 0.0 : ideal, "inst_executed", k ? 4096 : 2048));
    }
    char tmp[] = "/tmp/fb_test_export_XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    CHECK(json_dump_file(doc, tmp, 0) == 0);
    json_decref(doc);
    fb_rs_doc dm;
    CHECK(fb_rs_load(tmp, &dm) == FB_OK);
    char *dram = export_text(&dm, "md", (fb_export_opts){FB_SHOW_DRAM, .variant = "toy.fused"}, &st);
    CHECK(st == FB_OK && strstr(dram, "| 1.00x | 2.00x! |") != NULL);
    CHECK(strstr(dram, "!: throttled (the SM clock fell more than 10%") != NULL);
    char *inst = export_text(&dm, "md", (fb_export_opts){FB_SHOW_INST, .variant = "toy.fused"}, &st);
    CHECK(st == FB_OK && strstr(inst, "| 4096 | 2048! |") != NULL);
    char *dsvg = export_text(&dm, "svg", (fb_export_opts){FB_SHOW_DRAM, .variant = "toy.fused"}, &st);
    CHECK(st == FB_OK && strstr(dsvg, ">2.00x!</text>") != NULL && strstr(dsvg, ">1.00x</text>") != NULL);
    free(dram);
    free(inst);
    free(dsvg);
    fb_rs_free(&dm);
    unlink(tmp);

    /* the same marks as the terminal grid */
    json_t *root = NULL;
    CHECK(fb_result_read(CLOCKS, &root) == FB_OK);
    char *grid = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&grid, &len);
    CHECK(fb_report_grid(f, root, "toy", "float32", "toy.fused", NULL, FB_SHOW_SPEEDUP) == FB_OK);
    fclose(f);
    CHECK(strstr(grid, " 250.0%!") != NULL && strstr(grid, FB_THROTTLE_NOTE) != NULL);
    free(grid);
    json_decref(root);
    fb_rs_free(&d);
}

/* ---- the benchmark table ------------------------------------------------------------ */

/* Every case x dtype of d as run --table prints it (text), into one string. */
static char *table_text(const fb_rs_doc *d, const char *const *variants, int n, const char *vs, fb_status *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *st = FB_OK;
    for (int i = 0; i < d->n_cases && *st == FB_OK; i++)
        for (int k = 0; k < d->cases[i].n_dtypes && *st == FB_OK; k++)
            *st = fb_table_print(f, d, &d->cases[i], &d->cases[i].dtypes[k], variants, n, vs, FB_TABLE_TEXT);
    fclose(f);
    return buf;
}

/* The entries of every table (not its heading, column line or legend), one
 * line per row, each entry followed by ';': from markdown (the "| a | b |"
 * lines of a table but its first two, the column line and the rule; not the
 * kernels tables under a "####" heading) and from
 * text (a table is a block of lines between blank ones: heading, column line,
 * rows, then legend lines, which hold ": " as no row does). */
static void table_rows(const char *s, bool md, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    int line_no = 0;     /* within the markdown table, or the text block */
    bool kernels = false; /* markdown: under a "#### ... kernels launched" heading */
    for (const char *line = s; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *end = strchr(line, '\n');
        if (!end) break;
        bool row;
        if (md) {
            if (line[0] == '#') kernels = strncmp(line, "#### ", 5) == 0;
            line_no = line[0] == '|' ? line_no + 1 : 0;
            row = line_no > 2 && !kernels;
        } else {
            line_no = line == end ? 0 : line_no + 1;
            const char *colon = strstr(line, ": ");
            row = line_no > 2 && !(colon && colon < end);
        }
        if (!row) continue;
        for (const char *p = line; p < end;) {
            while (p < end && (*p == ' ' || (md && *p == '|'))) p++;
            const char *q = p;
            /* a text entry ends at two blanks (the shape "4 x 128 x 1027" holds single ones) */
            while (q < end && (md ? *q != '|' : !(q[0] == ' ' && (q + 1 >= end || q[1] == ' ')))) q++;
            const char *r = q;
            while (r > p && r[-1] == ' ') r--;
            if (r > p) used += (size_t)snprintf(out + used, used < n ? n - used : 0, "%.*s;", (int)(r - p), p);
            p = q;
        }
        used += (size_t)snprintf(out + used, used < n ? n - used : 0, "\n");
    }
}

static void test_table(const fb_rs_doc *small)
{
    fb_rs_doc rms;
    fb_status st = fb_rs_load(RMSNORM, &rms);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    if (st != FB_OK) return;

    /* markdown, as export --format md --table writes it */
    static const struct {
        const char *file;
        bool rms;
        fb_export_opts o;
    } md[] = {
        {"rmsnorm-table.md", true, {.table = true}},
        {"rmsnorm-table-vs-fused.md", true, {.case_name = "rmsnorm", .dtype = "float32", .table = true,
                                             .speedup_vs = "rmsnorm.fused"}},
        {"rmsnorm-table-vs-sol.md", true, {.case_name = "rmsnorm_backward", .table = true, .speedup_vs = "sol"}},
        /* a file without shapes (no shape column), every mark, odd names */
        {"small-table.md", false, {.table = true}},
    };
    char *rms_md = NULL, *small_md = NULL;
    for (size_t i = 0; i < sizeof md / sizeof md[0]; i++) {
        char *got = export_text(md[i].rms ? &rms : small, "md", md[i].o, &st);
        if (st != FB_OK) fprintf(stderr, "%s: %s\n", md[i].file, fb_last_error());
        CHECK(st == FB_OK);
        check_golden(got, md[i].file);
        if (i == 0) rms_md = got;
        else if (i == 3) small_md = got;
        else free(got);
    }

    /* text, as run --table prints it: the same printer, so the same entries */
    char *rms_text = table_text(&rms, NULL, 0, NULL, &st);
    CHECK(st == FB_OK);
    check_golden(rms_text, "rmsnorm-table.txt");
    static char a[1 << 14], b[1 << 14];
    table_rows(rms_md, true, a, sizeof a);
    table_rows(rms_text, false, b, sizeof b);
    CHECK(strlen(a) > 100);
    if (strcmp(a, b) != 0) fprintf(stderr, "table rows: md\n%s\ntext\n%s\n", a, b);
    CHECK_STR(a, b);
    /* the shape with its constant 4, the axes, the marks, the throttled cell */
    CHECK(strstr(a, "4 x 128 x 1027;128;1027;18.43;SKIP;5.02;4.10;SKIP;3.67x;\n") != NULL);
    CHECK(strstr(a, "4 x 2048 x 1027;2048;1027;181.50!;41.87!;FAIL;39.60!;4.33x!;FAIL;\n") != NULL);
    CHECK(strstr(a, "4 x 2048 x 4096;2048;4096;OOM;1632.40;UNCHK;1588.90;OOM;UNCHK;\n") != NULL);
    CHECK(strstr(rms_text, "\n" FB_THROTTLE_NOTE "\n") != NULL);
    free(rms_md);
    free(rms_text);

    /* run's columns: its variants only (a resumed file may hold more), eager
     * first whatever the order given; X's failed check is BFAIL */
    static const char *const two[] = {"rmsnorm.alt", "eager"};
    const fb_rs_case *fwd = fb_rs_find_case(&rms, "rmsnorm");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(fb_table_print(f, &rms, fwd, fb_rs_find_dtype(fwd, "float32"), two, 2, "rmsnorm.alt", FB_TABLE_TEXT) ==
          FB_OK);
    fclose(f);
    check_golden(buf, "rmsnorm-table-two.txt");
    CHECK(strstr(buf, "rmsnorm.fused") == NULL);
    CHECK(strstr(buf, "\nshape (x)           T     N    eager  rmsnorm.alt      sol  speedup vs rmsnorm.alt\n") != NULL);
    CHECK(strstr(buf, "BFAIL: rmsnorm.alt, the speedups' reference, failed its check") != NULL);
    free(buf);

    /* small.json: every mark, no shapes; a skipped variant reads SKIP, an absent one "-" */
    char *small_text = table_text(small, NULL, 0, NULL, &st);
    CHECK(st == FB_OK);
    check_golden(small_text, "small-table.txt");
    CHECK(strstr(small_text, "shape") == NULL);
    table_rows(small_md, true, a, sizeof a);
    table_rows(small_text, false, b, sizeof b);
    CHECK_STR(a, b);
    CHECK(strstr(a, "256;256;80.00;ERR;SKIP;20.00;ERR;SKIP;\n512;64;FAIL;12.00;-;10.00;BFAIL;-;\n") != NULL);
    free(small_text);
    free(small_md);

    /* the reference must be a column or sol */
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(fb_table_print(f, &rms, fwd, &fwd->dtypes[0], two, 2, "rmsnorm.fused", FB_TABLE_TEXT) == FB_E_USAGE);
    fclose(f);
    CHECK(buf[0] == 0);
    free(buf);
    CHECK_STR(fb_last_error(), "--speedup-vs: 'rmsnorm.fused' is not among the table's variants of case 'rmsnorm'; "
                               "choose one of: rmsnorm.alt, eager, sol");

    /* export's refusals, before anything is written */
    char *t = export_text(&rms, "md", (fb_export_opts){.table = true, .speedup_vs = "eagr"}, &st);
    CHECK(st == FB_E_USAGE && t[0] == 0);
    CHECK_STR(fb_last_error(), "--speedup-vs: 'eagr' is not among the result's variants of case 'rmsnorm' (did you "
                               "mean 'eager'?); choose one of: eager, rmsnorm.fused, rmsnorm.alt, sol");
    free(t);
    /* a variant of one case only: refused for the other, fine once --case picks it */
    t = export_text(&rms, "md", (fb_export_opts){.table = true, .speedup_vs = "rmsnorm.alt"}, &st);
    CHECK(st == FB_E_USAGE && strstr(fb_last_error(), "case 'rmsnorm_backward'") != NULL);
    free(t);
    t = export_text(&rms, "md", (fb_export_opts){.case_name = "rmsnorm", .table = true, .speedup_vs = "rmsnorm.alt"},
                    &st);
    CHECK(st == FB_OK && strstr(t, "| rmsnorm.fused vs rmsnorm.alt |") != NULL);
    free(t);
    t = export_text(&rms, "csv", (fb_export_opts){.table = true}, &st);
    CHECK(st == FB_E_USAGE && strstr(fb_last_error(), "--table is a form of the markdown export") != NULL);
    free(t);
    t = export_text(&rms, "md", (fb_export_opts){.speedup_vs = "eager"}, &st);
    CHECK(st == FB_E_USAGE && strstr(fb_last_error(), "--speedup-vs picks the table's speedup reference") != NULL);
    free(t);
    t = export_text(&rms, "md", (fb_export_opts){.table = true, .variant = "eager"}, &st);
    CHECK(st == FB_E_USAGE && strstr(fb_last_error(), "leave out --variant") != NULL);
    free(t);

    /* csv and json records carry the shape too */
    t = export_text(&rms, "csv", (fb_export_opts){.case_name = "rmsnorm_backward"}, &st);
    CHECK(st == FB_OK && strstr(t, "\nrmsnorm_backward,float32,T,2048,N,4096,4x2048x4096,rmsnorm_backward.fused,eager,ok,,"));
    free(t);
    t = export_text(&rms, "json", (fb_export_opts){.case_name = "rmsnorm", .dtype = "bf16"}, &st);
    CHECK(st == FB_OK && strstr(t, "\"col\":1027,\"shape\":\"4x128x1027\",\"variant\":\"eager\""));
    free(t);

    char us[32];
    fb_table_format_us(4.6149, us, sizeof us);
    CHECK_STR(us, "4.61");
    fb_table_format_us(12043.456, us, sizeof us);
    CHECK_STR(us, "12043.46");
    fb_rs_free(&rms);
}

/* A case with a fixed symbol (results/export/fixed.json: K in {1024, 4096}, the
 * cell M=256 N=128 measured at K=1024 only): the typed model tells its grids
 * apart; md prints one grid per K headed with it, csv and json add a "fixed"
 * field ("K=1024"); md --table, svg and html split by K too, and files without
 * fixed symbols keep their columns (the goldens above). */
static void test_fixed(void)
{
    fb_rs_doc d;
    fb_status st = fb_rs_load("results/export/fixed.json", &d);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    if (st != FB_OK) return;
    const fb_rs_case *cs = fb_rs_find_case(&d, "mm");
    CHECK(cs && cs->n_fixed == 1 && cs->n_grids == 2 && strcmp(cs->fixed[0].name, "K") == 0);
    char label[64];
    CHECK_STR(fb_rs_grid_label(cs, 1, label, sizeof label), "K=4096");
    CHECK(fb_rs_grid_value(cs, 0, 0) == 1024);
    const fb_rs_dtype *dt = fb_rs_find_dtype(cs, "float32");
    const fb_rs_cell *a = fb_rs_find_cell_in(dt, 0, 256, 128), *b = fb_rs_find_cell_in(dt, 1, 256, 128);
    const fb_rs_cell *c = fb_rs_find_cell_in(dt, 1, 128, 64);
    CHECK(a && a->grid == 0 && a->fixed && a->fixed[0] == 1024);
    CHECK(b == NULL); /* not measured at K=4096 */
    CHECK(c && c->grid == 1 && c->fixed[0] == 4096 && c != fb_rs_find_cell(dt, 128, 64));
    CHECK(fb_rs_refuse_fixed(&d, NULL, "compare") == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "results/export/fixed.json: cases[0] ('mm') has fixed size symbols (one grid per value); "
                               "compare does not read such cases yet");
    CHECK(fb_rs_refuse_fixed(&d, "other", "compare") == FB_OK);

    static const struct {
        const char *format, *file;
    } goldens[] = {{"md", "fixed.md"}, {"csv", "fixed.csv"}, {"json", "fixed.json"}};
    char *text[3];
    for (size_t i = 0; i < 3; i++) {
        text[i] = export_text(&d, goldens[i].format, (fb_export_opts){FB_SHOW_SPEEDUP}, &st);
        CHECK(st == FB_OK);
        check_golden(text[i], goldens[i].file);
    }
    const char *md = text[0], *csv = text[1], *json = text[2];
    const char *k1 = strstr(md, "### mm · float32 · K=1024 · "), *k4 = strstr(md, "### mm · float32 · K=4096 · ");
    CHECK(k1 && k4 && k1 < k4);
    /* eager / fused: 0.016 / 0.005 at K=1024, 0.064 / 0.040 at K=4096 */
    CHECK(k1 && k4 && strstr(k1, "| 256 | 320.0% | 320.0% |") != NULL && strstr(k1, "| 256 | 320.0% | 320.0% |") < k4);
    CHECK(k4 && strstr(k4, "| 256 | 160.0% |      - |") != NULL);
    CHECK(strstr(csv, ",device,commit,fixed\n") != NULL);
    CHECK(strstr(csv, "\nmm,float32,M,256,N,128,,mm.fused,eager,ok,") != NULL);
    CHECK(strstr(csv, ",K=4096\n") != NULL && strstr(csv, ",K=1024\n") != NULL);
    CHECK(strstr(json, "\"fixed\":\"K=4096\"") != NULL);
    for (size_t i = 0; i < 3; i++) free(text[i]);

    /* svg: a panel per K and variant, its title naming K */
    char *svg = export_text(&d, "svg", (fb_export_opts){FB_SHOW_SPEEDUP}, &st);
    CHECK(st == FB_OK);
    check_golden(svg, "fixed.svg");
    const char *s1 = svg ? strstr(svg, "mm · float32 · K=1024 · mm.fused</text>") : NULL;
    const char *s4 = svg ? strstr(svg, "mm · float32 · K=4096 · mm.fused</text>") : NULL;
    CHECK(s1 && s4 && s1 < s4);
    free(svg);
    /* html: a figure per K (data-grid ends with it), a fixed column in the cells */
    char *html = export_text(&d, "html", (fb_export_opts){FB_SHOW_SPEEDUP}, &st);
    CHECK(st == FB_OK);
    check_golden(html, "fixed.html");
    CHECK(html && strstr(html, "data-grid=\"mm|float32|mm.fused|K=1024\"") != NULL);
    CHECK(html && strstr(html, "data-grid=\"mm|float32|mm.fused|K=4096\"") != NULL);
    CHECK(html && strstr(html, "<th class=\"t\">fixed</th>") != NULL);
    free(html);
    /* md --table: one benchmark table per K, headed with it; the cell M=256 N=128
     * measured at K=1024 only is a row of K=1024's table alone */
    char *t = export_text(&d, "md", (fb_export_opts){FB_SHOW_SPEEDUP, .table = true}, &st);
    CHECK(st == FB_OK);
    check_golden(t, "fixed_table.md");
    const char *t1 = t ? strstr(t, "### mm · float32 · K=1024 · ") : NULL;
    const char *t4 = t ? strstr(t, "### mm · float32 · K=4096 · ") : NULL;
    CHECK(t1 && t4 && t1 < t4);
    if (t1 && t4) {
        const char *row = strstr(t1, "| 256 | 128 |");
        CHECK(row && row < t4 && strstr(t4, "| 256 | 128 |") == NULL);
        CHECK(strstr(t4, "| 128 |  64 |  64.00 |    40.00 |") != NULL);
    }
    free(t);
    /* run --table's text style: the same split, the label in each heading */
    char *txt = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&txt, &n);
    CHECK(f != NULL);
    if (f) {
        const fb_rs_case *cs2 = fb_rs_find_case(&d, "mm");
        CHECK(fb_table_print(f, &d, cs2, &cs2->dtypes[0], NULL, 0, NULL, FB_TABLE_TEXT) == FB_OK);
        fclose(f);
        const char *x1 = strstr(txt, "mm · float32 · K=1024 · Test GPU"), *x4 = strstr(txt, "mm · float32 · K=4096 · Test GPU");
        CHECK(x1 && x4 && x1 < x4);
        if (x4) CHECK(strstr(x4, "  256  128  ") == NULL);
        free(txt);
    }
    fb_rs_free(&d);
}

int main(void)
{
    fb_rs_doc small;
    fb_status st = fb_rs_load(SMALL, &small);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    if (st != FB_OK) return fb_t_report("export");
    test_golden(&small);
    test_clocks();
    test_fixed();
    test_same_as_report(&small);
    test_walk(&small);
    test_selection(&small);
    test_records(&small);
    test_writers();
    test_write_error(&small);
    test_table(&small);
    fb_rs_free(&small);
    return fb_t_report("export");
}
