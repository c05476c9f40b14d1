/* test_metrics.c — run --metrics without a GPU (src/metrics.c): the metric
 * table, --metrics parsing and its messages, the result-file objects, and, where
 * libcupti is installed (the toolkit's), CUPTI's host API building the
 * configuration image of the table's metrics for the H100 ("GH100"): that
 * proves the names are metrics the chip has, and a misspelt one is refused by name. (Where libcupti is looked
 * for, and which one is refused, is the shared loader's: test_cupti.c and
 * test_cli.sh.) Run from tests/. */
#include <stdlib.h>
#include <unistd.h>

#include "cupti_loader.h"
#include "metrics.h"
#include "result.h"
#include "resultset.h"
#include "testing.h"

static void test_table(void)
{
    for (int i = 0; i < FB_NMETRICS; i++) {
        const fb_metric_info *m = &fb_metric_table[i];
        CHECK(m->key && m->group && m->cupti && m->about);
        CHECK(fb_metric_from_key(m->key) == i);
        for (int k = 0; k < i; k++) {
            CHECK(strcmp(m->key, fb_metric_table[k].key) != 0);
            CHECK(strcmp(m->cupti, fb_metric_table[k].cupti) != 0);
        }
    }
    CHECK_STR(fb_metric_table[FB_METRIC_DRAM_READ].cupti, "dram__bytes_read.sum");
    CHECK_STR(fb_metric_table[FB_METRIC_DRAM_WRITE].cupti, "dram__bytes_write.sum");
    CHECK_STR(fb_metric_table[FB_METRIC_INST].cupti, "smsp__inst_executed.sum");
    CHECK(fb_metric_from_key("dram_bytes") == -1);
    CHECK(fb_metric_from_key(NULL) == -1);
}

static void test_parse(void)
{
    unsigned m = 123;
    CHECK(fb_metrics_parse("dram", &m) == FB_OK && m == (FB_METRIC_BIT(FB_METRIC_DRAM_READ) | FB_METRIC_BIT(FB_METRIC_DRAM_WRITE)));
    CHECK(fb_metrics_parse("inst", &m) == FB_OK && m == FB_METRIC_BIT(FB_METRIC_INST));
    CHECK(fb_metrics_parse("dram,inst", &m) == FB_OK && m == FB_METRICS_ALL);
    CHECK(fb_metrics_parse("inst,dram", &m) == FB_OK && m == FB_METRICS_ALL);
    CHECK(fb_metrics_parse("all", &m) == FB_OK && m == FB_METRICS_ALL);

    CHECK(fb_metrics_parse("dramm", &m) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--metrics: unknown group 'dramm' (did you mean 'dram'?); groups: dram, inst, all");
    CHECK(fb_metrics_parse("bytes", &m) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--metrics: unknown group 'bytes'; groups: dram, inst, all");
    CHECK(fb_metrics_parse("dram,dram", &m) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--metrics: 'dram' is given twice");
    CHECK(fb_metrics_parse("all,inst", &m) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--metrics: 'all' stands alone (got 2 items)");
    CHECK(fb_metrics_parse("dram,", &m) == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "an empty item") != NULL);
    CHECK(fb_metrics_parse("", &m) == FB_E_USAGE);
    CHECK(fb_metrics_parse("in\x1b[2Jst", &m) == FB_E_USAGE);
    CHECK(strchr(fb_last_error(), '\x1b') == NULL); /* the terminal escape is quoted, not sent */

    char buf[64];
    CHECK_STR(fb_metrics_groups(FB_METRICS_ALL, buf, sizeof buf), "dram,inst");
    CHECK_STR(fb_metrics_groups(FB_METRIC_BIT(FB_METRIC_INST), buf, sizeof buf), "inst");
    CHECK_STR(fb_metrics_groups(0, buf, sizeof buf), "");
}

static void test_json(void)
{
    double v[FB_NMETRICS] = {[FB_METRIC_DRAM_READ] = 134217728.4, [FB_METRIC_DRAM_WRITE] = -3.0,
                             [FB_METRIC_INST] = 1e6};
    json_t *j = fb_metrics_json(FB_METRICS_ALL, v);
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    /* integers; a difference below zero (counter noise) is 0 */
    CHECK_STR(s, "{\"dram_read_bytes\":134217728,\"dram_write_bytes\":0,\"inst_executed\":1000000}");
    free(s);
    json_decref(j);

    v[FB_METRIC_DRAM_WRITE] = NAN;
    j = fb_metrics_json(FB_METRIC_BIT(FB_METRIC_DRAM_READ) | FB_METRIC_BIT(FB_METRIC_DRAM_WRITE), v);
    s = json_dumps(j, JSON_COMPACT);
    CHECK_STR(s, "{\"dram_read_bytes\":134217728}"); /* not collected, not measured: absent */
    free(s);
    json_decref(j);
    double none[FB_NMETRICS] = {NAN, NAN, NAN};
    CHECK(fb_metrics_json(FB_METRICS_ALL, none) == NULL);

    j = fb_metrics_settings_json(FB_METRIC_BIT(FB_METRIC_INST));
    s = json_dumps(j, JSON_COMPACT);
    CHECK_STR(s, "{\"inst_executed\":\"smsp__inst_executed.sum\"}");
    free(s);
    json_decref(j);
}

/* What cell.c stores is what a reader gets back: fb_metrics_json into a result
 * file, written, read and validated, into the typed model, byte counts exact up
 * to 2^53 (a 32 GB cell's traffic is 2^35). */
static void test_round_trip(void)
{
    double v[FB_NMETRICS] = {[FB_METRIC_DRAM_READ] = 34359738368.0, [FB_METRIC_DRAM_WRITE] = 34359742464.0,
                             [FB_METRIC_INST] = 2147483653.0};
    json_t *root = json_pack(
        "{s:{s:s, s:i}, s:{s:o}, s:[{s:s, s:s, s:s, s:[i], s:[i], s:[s, s], s:s, s:[{s:s, s:[{s:i, s:i, "
        "s:I, s:{s:{s:s, s:{s:f, s:i}, s:o}, s:{s:s, s:{s:f, s:i}}}}]}]}]}",
        "fusionbench", "version", FB_VERSION, "schema", FB_RESULT_SCHEMA, "settings", "metrics",
        fb_metrics_settings_json(FB_METRICS_ALL), "cases", "name", "softmax", "rows", "dim0", "cols", "dim1",
        "row_values", 65536, "col_values", 65536, "variants", "eager", "softmax.fused", "baseline", "eager", "dtypes",
        "dtype", "float32", "cells", "row", 65536, "col", 65536, "ideal_bytes", (json_int_t)34359738368, "variants", "softmax.fused",
        "status", "ok", "time_ms", "median", 351.79, "n", 10, "metrics", fb_metrics_json(FB_METRICS_ALL, v), "eager",
        "status", "ok", "time_ms", "median", 1400.0, "n", 10);
    CHECK(root != NULL);
    if (!root) return;
    char dir[] = "/tmp/fb_test_metrics_rt.XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/r.json", dir);
    CHECK(fb_result_write(root, path) == FB_OK);
    fb_rs_doc d;
    fb_status st = fb_rs_load(path, &d);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    if (st == FB_OK) {
        const fb_rs_cell *c = fb_rs_find_cell(&d.cases[0].dtypes[0], 65536, 65536);
        const fb_rs_variant *f = fb_rs_find_variant(c, "softmax.fused"), *e = fb_rs_find_variant(c, "eager");
        CHECK(f && e);
        if (f && e) {
            for (int i = 0; i < FB_NMETRICS; i++) CHECK(f->metrics[i] == v[i]);
            for (int i = 0; i < FB_NMETRICS; i++) CHECK(isnan(e->metrics[i])); /* not measured: absent */
        }
        CHECK_STR(json_string_value(json_object_get(json_object_get(json_object_get(d.json, "settings"), "metrics"),
                                                    "inst_executed")),
                  "smsp__inst_executed.sum");
        fb_rs_free(&d);
    }
    json_decref(root);
    remove(path);
    CHECK(rmdir(dir) == 0);
}

/* CUPTI's host API on the build machine: no GPU needed. */
static void test_host_config(void)
{
    const char *path = NULL;
    unsigned version = 0;
    if (fb_metrics_load_cupti(&path, &version) != FB_OK) {
        printf("SKIP host config: %s\n", fb_last_error());
        CHECK(path == NULL);
        return;
    }
    printf("libcupti: %s (CUPTI API %u)\n", path, version);
    CHECK(version >= FB_CUPTI_MIN_API);
    const char *names[FB_NMETRICS];
    for (int i = 0; i < FB_NMETRICS; i++) names[i] = fb_metric_table[i].cupti;
    size_t bytes = 0, passes = 0;
    fb_status s = fb_metrics_host_config("GH100", names, FB_NMETRICS, &bytes, &passes);
    if (s != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(s == FB_OK);
    CHECK(bytes > 0);
    CHECK(passes == 1); /* one replay of the variant collects all three */
    printf("GH100 config image: %zu bytes, %zu pass%s\n", bytes, passes, passes == 1 ? "" : "es");

    /* the check can fail: a name the chip has no metric for, named in the message */
    const char *bad[] = {"dram__bytes_read.sum", "dram__bytez_write.sum"};
    CHECK(fb_metrics_host_config("GH100", bad, 2, &bytes, &passes) == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "'dram__bytez_write.sum'") != NULL);
    CHECK(fb_metrics_host_config("XY999", names, FB_NMETRICS, &bytes, &passes) == FB_E_UNSUPPORTED);
    CHECK(strstr(fb_last_error(), "XY999") != NULL);
}

int main(void)
{
    test_table();
    test_parse();
    test_json();
    test_round_trip();
    test_host_config();
    return fb_t_report("metrics");
}
