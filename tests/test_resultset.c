/* test_resultset.c — the typed read model (resultset.h): a published H100
 * result read field by field, a small synthetic document with timing samples,
 * a one-axis grid, lookups, and the refusals (a bad file, bad samples).
 *
 * Run from tests/ (meson's workdir): it reads ../results/h100/. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

#include "result.h"
#include "resultset.h"
#include "testing.h"

static void test_published_softmax(void)
{
    fb_rs_doc d;
    fb_status st = fb_rs_load("../results/h100/softmax-f5148a1.json", &d);
    if (st != FB_OK) fprintf(stderr, "load: %s\n", fb_last_error());
    CHECK(st == FB_OK);
    if (st != FB_OK) return;
    CHECK_STR(d.version, "0.1.0");
    CHECK_STR(d.git, "f5148a1e58");
    CHECK_STR(d.started, "2026-11-22T14:00:10Z");
    CHECK_STR(d.finished, "2026-11-22T14:00:39Z");
    CHECK_STR(d.host, "vm");
    CHECK_STR(d.device_name, "NVIDIA H100 80GB HBM3");
    CHECK_STR(d.cc, "9.0");
    CHECK_STR(d.driver, "13.0");
    CHECK_STR(d.cublas, "130100"); /* an integer in the file, text in the model */
    CHECK_STR(d.cudnn, "91400");
    CHECK(d.sms == 132);
    CHECK_NEAR(d.l2_bytes, 52428800, 0);
    CHECK_NEAR(d.mem_bytes, 85017493504.0, 0);
    CHECK_STR(d.timer, "events");
    CHECK_NEAR(d.warmup_ms, 25, 0);
    CHECK_NEAR(d.rep_ms, 100, 0);
    CHECK_NEAR(d.max_noise_pct, 0.5, 0);
    CHECK_NEAR(d.flush_bytes, 268435456, 0);
    CHECK(d.flush == NULL); /* written before --flush: no "flush" key */
    CHECK(d.seed == 1);
    CHECK(d.n_resumed == 0);
    CHECK(d.json != NULL);

    CHECK(d.n_cases == 1);
    const fb_rs_case *c = fb_rs_find_case(&d, "softmax");
    CHECK(c == &d.cases[0]);
    CHECK(fb_rs_find_case(&d, "layernorm") == NULL);
    CHECK_STR(c->rows, "dim0");
    CHECK_STR(c->cols, "dim1");
    CHECK_STR(c->baseline, "eager");
    CHECK(c->n_rows == 10 && c->n_cols == 10);
    CHECK(c->row_values[0] == 128 && c->row_values[9] == 65536);
    CHECK(c->col_values[0] == 128 && c->col_values[9] == 65536);
    CHECK(c->n_variants == 2);
    CHECK_STR(c->variants[0], "eager");
    CHECK_STR(c->variants[1], "softmax.fused");
    CHECK(fb_rs_case_variant_index(c, "softmax.fused") == 1);
    CHECK(fb_rs_case_variant_index(c, "nope") == -1);
    CHECK(c->n_dtypes == 1);
    const fb_rs_dtype *dt = fb_rs_find_dtype(c, "f32"); /* an alias */
    CHECK(dt == &c->dtypes[0]);
    CHECK(fb_rs_find_dtype(c, "bfloat16") == NULL);
    CHECK_STR(dt->dtype, "float32");
    CHECK(dt->n_cells == 100);

    /* every grid point is found, and is the cell at that point */
    int found = 0;
    for (int r = 0; r < c->n_rows; r++)
        for (int k = 0; k < c->n_cols; k++) {
            const fb_rs_cell *cell = fb_rs_find_cell(dt, c->row_values[r], c->col_values[k]);
            found += cell && cell->row == c->row_values[r] && cell->col == c->col_values[k];
        }
    CHECK(found == 100);
    CHECK(fb_rs_find_cell(dt, 128, 100) == NULL);

    const fb_rs_cell *cell = fb_rs_find_cell(dt, 128, 128);
    CHECK_NEAR(cell->ideal_bytes, 131072, 0);
    CHECK_NEAR(cell->flops, 81920, 0);
    CHECK(cell->has_sol);
    CHECK_STR(cell->sol.name, "sol");
    CHECK_STR(cell->sol.status, "ok");
    CHECK_NEAR(cell->sol.time_ms.median, 0.0045119999, 1e-12);
    CHECK(cell->sol.time_ms.n == 625);
    CHECK(cell->n_variants == 2);
    CHECK_STR(cell->variants[0].name, "eager");
    const fb_rs_variant *e = fb_rs_find_variant(cell, "eager");
    const fb_rs_variant *f = fb_rs_find_variant(cell, "softmax.fused");
    CHECK(e == &cell->variants[0] && f == &cell->variants[1]);
    CHECK(fb_rs_find_variant(cell, "sol") == NULL);
    CHECK_STR(e->status, "ok");
    CHECK(e->reason == NULL);
    CHECK(e->has_time);
    CHECK_NEAR(e->time_ms.min, 0.0158079993, 1e-12);
    CHECK_NEAR(e->time_ms.median, 0.0167679992, 1e-12);
    CHECK_NEAR(e->time_ms.stdev, 0.000312131288, 1e-12);
    CHECK(e->time_ms.n == 62);
    CHECK_NEAR(e->gbps, 7.81679429, 1e-9);
    CHECK_NEAR(e->tflops, 0.00488549643, 1e-12);
    CHECK_NEAR(e->sol_pct, 26.9083977, 1e-9);
    CHECK(e->kernels == 5);
    CHECK(f->kernels == 1);
    CHECK_NEAR(e->footprint_bytes, 262656, 0);
    CHECK_NEAR(e->peak_bytes, 262656, 0);
    CHECK_STR(e->check_mode, "full");
    CHECK(e->check_passed == 1);
    CHECK_NEAR(e->max_abs, 1.13139832e-08, 1e-17);
    CHECK_NEAR(e->max_rel, 4.08890177e-07, 1e-16);
    CHECK(e->unchecked == NULL);
    CHECK(e->rows_checked == -1);
    CHECK(e->samples_us == NULL && e->n_samples == 0); /* written before samples were kept */
    for (int i = 0; i < FB_NMETRICS; i++) CHECK(isnan(e->metrics[i])); /* and before metrics */
    CHECK(e->metrics_error == NULL);
    CHECK(isnan(cell->sol.sol_pct) && cell->sol.kernels == -1 && cell->sol.check_mode == NULL);
    CHECK(cell->sol.check_passed == -1);
    CHECK(!cell->has_clocks && !cell->throttled && isnan(cell->clock_after.sm_mhz)); /* written before clocks */
    CHECK_NEAR(fb_rs_speedup(f, e), 0.0167679992 / 0.00508800009, 1e-9);

    const fb_rs_cell *big = fb_rs_find_cell(dt, 65536, 65536);
    const fb_rs_variant *bf = fb_rs_find_variant(big, "softmax.fused");
    CHECK_STR(bf->check_mode, "sampled");
    CHECK(bf->rows_checked == 15 && bf->rows_total == 65536);
    CHECK_NEAR(bf->footprint_bytes, 34359738368.0, 0);
    fb_rs_free(&d);
    CHECK(d.json == NULL && d.cases == NULL);
    fb_rs_free(&d); /* twice is harmless */
}

/* Two dtypes, every status, an unchecked cell, samples on a variant and the sol. */
static const char synthetic[] =
    "{\"fusionbench\": {\"version\": \"0.1.0\", \"git\": \"abc1234\", \"schema\": 1},\n"
    " \"command\": \"fusionbench run --case toy\",\n"
    " \"resumed\": [{\"at\": \"2026-01-01T00:00:00Z\", \"command\": \"fusionbench run --resume x\"}],\n"
    " \"device\": {\"name\": \"Toy <GPU> & \\\"co\\\"\", \"sms\": \"many\", \"cublas\": \"12.4\"},\n"
    " \"settings\": {\"timer\": \"graph\", \"flush\": \"clean\", \"seed\": 7},\n"
    " \"cases\": [{\"name\": \"toy\", \"summary\": \"a toy\", \"rows\": \"n\", \"cols\": \"m\",\n"
    "   \"row_values\": [256, 128], \"col_values\": [64],\n"
    "   \"variants\": [\"toy.fused\", \"eager\"], \"baseline\": \"eager\",\n"
    "   \"dtypes\": [{\"dtype\": \"float16\", \"cells\": [\n"
    "     {\"row\": 256, \"col\": 64, \"ideal_bytes\": 65536, \"flops\": null,\n"
    "      \"shapes\": {\"x\": [4, 256, 64], \"w\": [64], \"s\": []},\n"
    "      \"clocks\": {\"before\": {\"sm_clock_mhz\": 1980, \"mem_clock_mhz\": 2619, \"temp_c\": 45, \"power_w\": 310.5},\n"
    "                  \"after\": {\"sm_clock_mhz\": 1755, \"temp_c\": 80}},\n"
    "      \"sol\": {\"status\": \"ok\", \"time_ms\": {\"median\": 0.002, \"n\": 3}, \"samples_us\": [2.1, 2.0, 1.9]},\n"
    "      \"variants\": {\"eager\": {\"status\": \"ok\", \"time_ms\": {\"median\": 0.010, \"n\": 4},\n"
    "                               \"samples_us\": [10.5, 9.75, 10.0, 10.25],\n"
    "                               \"metrics\": {\"dram_read_bytes\": 196608, \"dram_write_bytes\": 98304, \"inst_executed\": 4096},\n"
    "                               \"check\": {\"mode\": \"none\", \"unchecked\": \"no reference for float16 dropout\"}},\n"
    "                    \"stray\": {\"status\": \"skipped\", \"reason\": \"not in the list\"},\n"
    "                    \"toy.fused\": {\"status\": \"fail\", \"reason\": \"max rel 0.5\", \"time_ms\": {\"median\": 0.004, \"n\": 2},\n"
    "                                   \"metrics\": {\"inst_executed\": 1024, \"l2_bytes\": 7}, \"metrics_error\": \"partly\",\n"
    "                                   \"check\": {\"mode\": \"full\", \"passed\": false, \"max_abs\": 1.5, \"max_rel\": 0.5}}}},\n"
    "     {\"row\": 128, \"col\": 64, \"variants\": {\"eager\": {\"status\": \"oom\", \"reason\": \"out of memory\"},\n"
    "                                             \"toy.fused\": {\"status\": \"error\", \"reason\": \"launch failed\"}}}]},\n"
    "    {\"dtype\": \"float32\", \"cells\": []}]},\n"
    "  {\"name\": \"line\", \"rows\": \"n\", \"row_values\": [8, 16], \"variants\": [\"eager\"], \"baseline\": \"eager\",\n"
    "   \"dtypes\": [{\"dtype\": \"float32\", \"cells\": [\n"
    "     {\"row\": 16, \"variants\": {\"eager\": {\"status\": \"ok\", \"time_ms\": {\"median\": 0.5, \"n\": 1}}}},\n"
    "     {\"row\": 8, \"variants\": {\"eager\": {\"status\": \"ok\", \"time_ms\": {\"median\": 0.25, \"n\": 1}}}}]}]}]}\n";

static void test_synthetic(void)
{
    json_t *root = NULL;
    fb_status st = fb_result_parse(synthetic, strlen(synthetic), "toy.json", &root);
    if (st != FB_OK) fprintf(stderr, "parse: %s\n", fb_last_error());
    CHECK(st == FB_OK);
    if (st != FB_OK) return;
    fb_rs_doc d;
    st = fb_rs_from_json(root, "toy.json", &d);
    if (st != FB_OK) fprintf(stderr, "build: %s\n", fb_last_error());
    CHECK(st == FB_OK);
    json_decref(root); /* the doc holds its own reference */
    if (st != FB_OK) return;
    CHECK_STR(d.path, "toy.json");
    CHECK_STR(d.device_name, "Toy <GPU> & \"co\"");
    CHECK(d.sms == -1); /* a string where a number belongs reads as absent */
    CHECK_STR(d.cublas, "12.4");
    CHECK(d.cudnn == NULL && d.cc == NULL && d.started == NULL && d.host == NULL);
    CHECK_STR(d.timer, "graph");
    CHECK_STR(d.flush, "clean");
    CHECK(d.seed == 7);
    CHECK(isnan(d.warmup_ms) && isnan(d.l2_bytes));
    CHECK(d.n_resumed == 1);
    CHECK(d.n_cases == 2);

    const fb_rs_case *c = &d.cases[0];
    CHECK_STR(c->summary, "a toy");
    CHECK(c->row_values[0] == 256 && c->row_values[1] == 128); /* the file's order */
    CHECK(c->n_dtypes == 2);
    const fb_rs_dtype *h = fb_rs_find_dtype(c, "half");
    CHECK_STR(h->dtype, "float16");
    CHECK(h->n_cells == 2);
    CHECK(fb_rs_find_dtype(c, "float32")->n_cells == 0);
    CHECK(fb_rs_find_cell(fb_rs_find_dtype(c, "float32"), 256, 64) == NULL);

    const fb_rs_cell *a = fb_rs_find_cell(h, 256, 64);
    CHECK(a == &h->cells[0]);
    CHECK(isnan(a->flops)); /* null */
    CHECK_NEAR(a->ideal_bytes, 65536, 0);
    /* the case's order (toy.fused, eager), then the one the list lacks */
    CHECK(a->n_variants == 3);
    CHECK_STR(a->variants[0].name, "toy.fused");
    CHECK_STR(a->variants[1].name, "eager");
    CHECK_STR(a->variants[2].name, "stray");
    CHECK_STR(a->variants[2].status, "skipped");
    CHECK_STR(a->variants[2].reason, "not in the list");
    CHECK(!a->variants[2].has_time && a->variants[2].time_ms.n == 0 && isnan(a->variants[2].time_ms.median));

    const fb_rs_variant *e = fb_rs_find_variant(a, "eager");
    CHECK(e->n_samples == 4);
    CHECK(e->samples_us && e->samples_us[0] == 10.5 && e->samples_us[1] == 9.75 && e->samples_us[3] == 10.25);
    CHECK_STR(e->check_mode, "none");
    CHECK_STR(e->unchecked, "no reference for float16 dropout");
    CHECK(e->check_passed == -1);
    CHECK(a->has_sol && a->sol.n_samples == 3 && a->sol.samples_us[2] == 1.9);
    /* run --metrics: the counts by fb_metric_id; absent ones NaN, unknown names ignored */
    CHECK(e->metrics[FB_METRIC_DRAM_READ] == 196608 && e->metrics[FB_METRIC_DRAM_WRITE] == 98304);
    CHECK(e->metrics[FB_METRIC_INST] == 4096 && e->metrics_error == NULL);
    CHECK(isnan(a->sol.metrics[FB_METRIC_DRAM_READ]) && isnan(a->sol.metrics[FB_METRIC_INST]));

    const fb_rs_variant *f = fb_rs_find_variant(a, "toy.fused");
    CHECK_STR(f->status, "fail");
    CHECK_STR(f->reason, "max rel 0.5");
    CHECK(f->has_time && f->check_passed == 0);
    CHECK_NEAR(f->max_rel, 0.5, 0);
    CHECK(f->samples_us == NULL && f->n_samples == 0);
    CHECK(isnan(f->metrics[FB_METRIC_DRAM_READ]) && isnan(f->metrics[FB_METRIC_DRAM_WRITE]));
    CHECK(f->metrics[FB_METRIC_INST] == 1024);
    CHECK_STR(f->metrics_error, "partly");
    CHECK(!fb_rs_is_timed(f) && fb_rs_is_timed(e));
    CHECK(isnan(fb_rs_speedup(f, e))); /* a failed check has no speedup */
    CHECK_NEAR(fb_rs_speedup(e, e), 1.0, 0);

    /* the clocks: read as written, and 1980 -> 1755 MHz (-11.4%) is throttled */
    CHECK(a->has_clocks && a->throttled);
    CHECK(a->clock_before.sm_mhz == 1980 && a->clock_before.mem_mhz == 2619 && a->clock_before.temp_c == 45);
    CHECK(a->clock_before.power_w == 310.5);
    CHECK(a->clock_after.sm_mhz == 1755 && a->clock_after.temp_c == 80);
    CHECK(isnan(a->clock_after.mem_mhz) && isnan(a->clock_after.power_w));

    const fb_rs_cell *b = fb_rs_find_cell(h, 128, 64);
    CHECK(!b->has_clocks && !b->throttled && isnan(b->clock_before.sm_mhz) && isnan(b->clock_after.temp_c));
    /* the inputs' shapes, in the file's order; none in a cell without them */
    CHECK(a->n_shapes == 3 && b->n_shapes == 0 && b->shapes == NULL);
    CHECK_STR(a->shapes[0].name, "x");
    CHECK(a->shapes[0].rank == 3 && a->shapes[0].dim[0] == 4 && a->shapes[0].dim[1] == 256 && a->shapes[0].dim[2] == 64);
    CHECK_STR(a->shapes[1].name, "w");
    CHECK(a->shapes[1].rank == 1 && a->shapes[1].dim[0] == 64);
    CHECK(a->shapes[2].rank == 0); /* a scalar input */
    CHECK(!b->has_sol && isnan(b->ideal_bytes));
    CHECK_STR(fb_rs_find_variant(b, "eager")->status, "oom");
    CHECK_STR(fb_rs_find_variant(b, "toy.fused")->reason, "launch failed");
    CHECK(isnan(fb_rs_speedup(fb_rs_find_variant(b, "toy.fused"), fb_rs_find_variant(b, "eager"))));

    /* one grid axis: no cols, cells at col -1 */
    const fb_rs_case *l = fb_rs_find_case(&d, "line");
    CHECK(l->cols == NULL && l->n_cols == 0 && l->col_values == NULL);
    CHECK(l->summary == NULL);
    const fb_rs_dtype *lf = &l->dtypes[0];
    CHECK(lf->cells[0].col == -1);
    const fb_rs_cell *l8 = fb_rs_find_cell(lf, 8, -1);
    CHECK(l8 == &lf->cells[1]);
    CHECK_NEAR(l8->variants[0].time_ms.median, 0.25, 0);
    CHECK(fb_rs_find_cell(lf, 8, 0) == NULL);
    fb_rs_free(&d);
}

/* samples_us must be an array of finite numbers >= 0, named in the message. */
static void test_bad_samples(void)
{
    static const struct { const char *samples, *want; } cases[] = {
        {"\"1,2\"", "bad.json: cases[0].dtypes[0].cells[0].variants.eager.samples_us: expected an array, got the string '1,2'"},
        {"[1.0, -2.0]", "bad.json: cases[0].dtypes[0].cells[0].variants.eager.samples_us[1]: expected a finite number >= 0, got -2.0"},
        {"[1.0, null]", "bad.json: cases[0].dtypes[0].cells[0].variants.eager.samples_us[1]: expected a finite number >= 0, got null"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"fusionbench\": {\"schema\": 1}, \"cases\": [{\"name\": \"t\", \"rows\": \"n\", \"cols\": \"m\",\n"
                 " \"row_values\": [1], \"col_values\": [1], \"variants\": [\"eager\"], \"baseline\": \"eager\",\n"
                 " \"dtypes\": [{\"dtype\": \"float32\", \"cells\": [{\"row\": 1, \"col\": 1, \"variants\":\n"
                 "   {\"eager\": {\"status\": \"ok\", \"time_ms\": {\"median\": 1, \"n\": 2}, \"samples_us\": %s}}}]}]}]}",
                 cases[i].samples);
        json_t *root = NULL;
        fb_status st = fb_result_parse(text, strlen(text), "bad.json", &root);
        if (st != FB_OK) {
            /* result_check.c validates samples_us too (once the store's change is in): same refusal */
            CHECK(st == FB_E_CASE);
            continue;
        }
        fb_rs_doc d;
        st = fb_rs_from_json(root, "bad.json", &d);
        json_decref(root);
        CHECK(st == FB_E_CASE);
        CHECK_STR(fb_last_error(), cases[i].want);
        CHECK(d.json == NULL && d.cases == NULL); /* nothing left behind */
    }
}

static void test_refusals(void)
{
    fb_rs_doc d;
    CHECK(fb_rs_load("no/such/result.json", &d) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "no/such/result.json: no such file");
    CHECK(d.json == NULL && d.n_cases == 0);
    /* an invalid tree is refused by from_json as by a read */
    json_t *j = json_pack("{s:{s:i}, s:s}", "fusionbench", "schema", 1, "cases", "none");
    CHECK(fb_rs_from_json(j, "mem.json", &d) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "mem.json: cases: expected an array, got the string 'none'");
    json_decref(j);
}

/* --timer cupti's "kernels_launched" and "span_ms": written from what the timer
 * saw (fb_kernels_launched_json), through a result file, into the read model. */
static void test_kernels_launched_round_trip(void)
{
    static const char *const names[] = {"softmax_cta_kernel<float, false, 16, true>", "tail_kernel"};
    fb_timer_kernels k = {.count = 2, .count_min = 1, .count_max = 2, .memops = 1, .runs = 40,
                          .names = names, .n_names = 2};
    double span[] = {0.012, 0.011, 0.013};
    fb_stats_compute(span, 3, &k.span);
    json_t *kj = fb_kernels_launched_json(&k);
    CHECK(json_integer_value(json_object_get(kj, "count")) == 2);
    CHECK(json_integer_value(json_object_get(kj, "memops")) == 1);
    CHECK(json_object_get(kj, "names_dropped") == NULL); /* only when some were */

    json_t *root = json_pack("{s:{s:i}, s:[{s:s, s:s, s:s, s:[i], s:[i], s:[s], s:s, s:[{s:s, s:[]}]}]}",
                             "fusionbench", "schema", 1, "cases", "name", "t", "rows", "n", "cols", "m", "row_values",
                             64, "col_values", 8, "variants", "t.fused", "baseline", "t.fused", "dtypes", "dtype",
                             "float32", "cells");
    json_t *cell = json_pack("{s:i, s:i, s:{s:{s:s, s:i, s:o, s:o}}}", "row", 64, "col", 8, "variants", "t.fused",
                             "status", "ok", "kernels", 1, "kernels_launched", kj, "span_ms", fb_stats_to_json(&k.span));
    json_t *one = json_pack("{s:i, s:i, s:{s:{s:s, s:i}}}", "row", 32, "col", 8, "variants", "t.fused", "status", "ok",
                            "kernels", 1); /* measured with events: no field, still valid */
    json_t *cells = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(root, "cases"), 0), "dtypes"), 0), "cells");
    json_array_append_new(cells, cell);
    json_array_append_new(cells, one);
    char path[] = "/tmp/fb_test_kernels_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    CHECK(fb_result_write(root, path) == FB_OK);
    json_decref(root);

    fb_rs_doc d;
    fb_status st = fb_rs_load(path, &d);
    if (st != FB_OK) fprintf(stderr, "load: %s\n", fb_last_error());
    CHECK(st == FB_OK);
    remove(path);
    if (st != FB_OK) return;
    const fb_rs_dtype *dt = &d.cases[0].dtypes[0];
    const fb_rs_variant *v = fb_rs_find_variant(fb_rs_find_cell(dt, 64, 8), "t.fused");
    CHECK(v->kernels == 1 && v->kernels_launched == 2);
    CHECK(v->kernels_launched_min == 1 && v->kernels_launched_max == 2);
    CHECK(v->n_kernel_names == 2);
    CHECK_STR(v->kernel_names[0], names[0]);
    CHECK_STR(v->kernel_names[1], "tail_kernel");
    CHECK_STR(v->kernel_names_text, "softmax_cta_kernel<float, false, 16, true>; tail_kernel");
    CHECK(v->has_span && v->span_ms.n == 3);
    CHECK_NEAR(v->span_ms.median, 0.012, 1e-12);
    const fb_rs_variant *w = fb_rs_find_variant(fb_rs_find_cell(dt, 32, 8), "t.fused");
    CHECK(w->kernels_launched == -1 && w->kernel_names == NULL && w->kernel_names_text == NULL && !w->has_span);
    CHECK(w->kernels_launched_min == -1 && w->kernels_launched_max == -1);
    fb_rs_free(&d);
}

int main(void)
{
    test_published_softmax();
    test_kernels_launched_round_trip();
    test_synthetic();
    test_bad_samples();
    test_refusals();
    return fb_t_report("resultset");
}
