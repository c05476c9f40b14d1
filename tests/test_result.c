/* test_result.c — reading a result file back as strictly as a case file, the
 * checks `run` makes before the GPU (is the --resume file the same program, can
 * --out be written), and the resume merge: a resumed run only ever adds to a
 * valid file, never drops or overwrites what it holds.
 *
 * Run from tests/ (meson's workdir): it reads results/, golden/ and cases/. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "case.h"
#include "clocks.h"
#include "result.h"
#include "testing.h"

/* A small valid result: softmax on dim0 {128} x dim1 {128, 256}, float32. */
static const char base_text[] =
    "{\"fusionbench\": {\"version\": \"0.1.0\", \"git\": \"abc\", \"schema\": 1},\n"
    " \"device\": {\"name\": \"NVIDIA H100 80GB HBM3\"},\n"
    " \"cases\": [{\"name\": \"softmax\", \"rows\": \"dim0\", \"cols\": \"dim1\",\n"
    "   \"row_values\": [128], \"col_values\": [128, 256],\n"
    "   \"variants\": [\"eager\", \"softmax.fused\"], \"baseline\": \"eager\",\n"
    "   \"dtypes\": [{\"dtype\": \"float32\", \"cells\": [\n"
    "     {\"row\": 128, \"col\": 128, \"point\": {\"dim0\": 128, \"dim1\": 128},\n"
    "      \"ideal_bytes\": 131072, \"flops\": 81920,\n"
    "      \"sol\": {\"status\": \"ok\", \"time_ms\": {\"median\": 0.0045, \"n\": 500}},\n"
    "      \"variants\": {\"eager\": {\"status\": \"ok\", \"time_ms\": {\"median\": 0.0175, \"stdev\": null, \"n\": 62},\n"
    "                               \"check\": {\"mode\": \"full\", \"passed\": true, \"max_abs\": 1e-8}},\n"
    "                    \"softmax.fused\": {\"status\": \"ok\", \"time_ms\": {\"median\": 0.0052, \"n\": 375}}}},\n"
    "     {\"row\": 128, \"col\": 256, \"ideal_bytes\": 262144, \"flops\": 163840,\n"
    "      \"sol\": {\"status\": \"error\", \"reason\": \"cudaErrorLaunchFailure\"},\n"
    "      \"variants\": {\"eager\": {\"status\": \"ok\", \"time_ms\": {\"median\": 0.0181, \"n\": 62}},\n"
    "                    \"softmax.fused\": {\"status\": \"error\", \"reason\": \"cudaErrorLaunchFailure\"}}}]}]}]}\n";

static json_t *parse_base(void)
{
    json_t *root = NULL;
    fb_status st = fb_result_parse(base_text, strlen(base_text), "base.json", &root);
    if (st != FB_OK) fprintf(stderr, "base: %s\n", fb_last_error());
    CHECK(st == FB_OK);
    return root;
}

/* ---- validation ------------------------------------------------------------ */

/* A mutation of the base document and the one message it must produce. */
typedef struct bad_doc {
    const char *set;   /* a JSON-pointer-ish path of object keys and array indices, '/'-separated */
    const char *value; /* JSON text put there; NULL removes the key */
    const char *want;  /* the whole message, after "base.json: " */
} bad_doc;

/* Follows "cases/0/dtypes/0/cells" to the parent of the last step. */
static json_t *walk(json_t *j, const char *path, char *last, size_t n)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *slash = strrchr(buf, '/');
    snprintf(last, n, "%s", slash ? slash + 1 : buf);
    if (!slash) return j;
    *slash = 0;
    for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok && j; tok = strtok_r(NULL, "/", &save)) {
        if (json_is_array(j)) j = json_array_get(j, (size_t)atoi(tok));
        else j = json_object_get(j, tok);
    }
    return j;
}

static void apply(json_t *root, const bad_doc *b)
{
    char last[256];
    json_t *parent = walk(root, b->set, last, sizeof last);
    CHECK(parent != NULL);
    if (!parent) return;
    if (!b->value) {
        if (json_is_array(parent)) json_array_remove(parent, (size_t)atoi(last));
        else json_object_del(parent, last);
        return;
    }
    json_error_t je;
    json_t *v = json_loads(b->value, JSON_DECODE_ANY, &je);
    CHECK(v != NULL);
    if (json_is_array(parent)) {
        size_t i = (size_t)atoi(last);
        if (i < json_array_size(parent)) json_array_set_new(parent, i, v);
        else json_array_append_new(parent, v);
    } else {
        json_object_set_new(parent, last, v);
    }
}

static void test_validation(void)
{
    static const bad_doc bad[] = {
        /* the levels a resumed run appends to: the use-after-free of issue 5 */
        {"cases", "{}", "cases: expected an array, got an object"},
        {"cases", NULL, "missing key 'cases'"},
        {"cases/0/dtypes", "null", "cases[0].dtypes: expected an array, got null"},
        {"cases/0/dtypes", NULL, "cases[0]: missing key 'dtypes'"},
        {"cases/0/dtypes/0/cells", "7", "cases[0].dtypes[0].cells: expected an array, got 7"},
        {"cases/0/dtypes/0/cells", NULL, "cases[0].dtypes[0]: missing key 'cells'"},
        {"cases/0/dtypes/0/cells/1/variants", "[]", "cases[0].dtypes[0].cells[1].variants: expected an object, got an array"},
        {"cases/0/dtypes/0/cells/1/variants", NULL, "cases[0].dtypes[0].cells[1]: missing key 'variants'"},
        /* the root and the tool tag */
        {"fusionbench", NULL, "not a fusionbench result file (no 'fusionbench' key)"},
        {"fusionbench", "1", "fusionbench: expected an object, got 1"},
        {"fusionbench/schema", NULL, "fusionbench: missing key 'schema'"},
        {"fusionbench/schema", "1.0", "fusionbench.schema: expected an integer, got 1.0"},
        {"fusionbench/schema", "0", "fusionbench.schema: expected a positive integer, got 0"},
        {"fusionbench/schema", "2", "result schema 2 is newer than this fusionbench understands (1)"},
        {"fusionbench/git", "[]", "fusionbench.git: expected a string, got an array"},
        {"started", "20261122", "started: expected a string, got 20261122"},
        {"device", "\"H100\"", "device: expected an object, got the string 'H100'"},
        {"device/name", "false", "device.name: expected a string, got false"},
        {"settings", "[]", "settings: expected an object, got an array"},
        {"settings", "{\"flush\": \"\"}", "settings.flush: expected a non-empty string, got the string ''"},
        {"settings", "{\"flush\": true}", "settings.flush: expected a non-empty string, got true"},
        {"resumed", "{}", "resumed: expected an array, got an object"},
        {"resumed", "[{\"at\": \"x\"}, 3]", "resumed[1]: expected an object, got 3"},
        /* a case */
        {"cases/1", "\"rowsum\"", "cases[1]: expected an object, got the string 'rowsum'"},
        {"cases/0/name", "\"\"", "cases[0].name: expected a non-empty string, got the string ''"},
        {"cases/0/name", NULL, "cases[0]: missing key 'name'"},
        {"cases/1", "{}", "cases[1]: missing key 'name'"},
        {"cases/0/summary", "1", "cases[0].summary: expected a string, got 1"},
        {"cases/0/rows", NULL, "cases[0]: missing key 'rows'"},
        {"cases/0/row_values", "128", "cases[0].row_values: expected an array, got 128"},
        {"cases/0/row_values/1", "\"256\"", "cases[0].row_values[1]: expected an integer, got the string '256'"},
        {"cases/0/row_values/1", "0", "cases[0].row_values[1]: must be positive, got 0"},
        {"cases/0/col_values/2", "128", "cases[0].col_values[2]: 128 is already cases[0].col_values[0]"},
        {"cases/0/col_values", NULL, "cases[0]: missing key 'col_values'"},
        {"cases/0/variants", "\"eager\"", "cases[0].variants: expected an array, got the string 'eager'"},
        {"cases/0/variants/2", "\"eager\"", "cases[0].variants[2]: 'eager' is already cases[0].variants[0]"},
        {"cases/0/variants/1", "null", "cases[0].variants[1]: expected a non-empty string, got null"},
        {"cases/0/baseline", NULL, "cases[0]: missing key 'baseline'"},
        {"cases/0/baseline", "\"torch\"", "cases[0].baseline: 'torch' is not one of the case's variants"},
        /* a dtype */
        {"cases/0/dtypes/0", "[]", "cases[0].dtypes[0]: expected an object, got an array"},
        {"cases/0/dtypes/0/dtype", NULL, "cases[0].dtypes[0]: missing key 'dtype'"},
        {"cases/0/dtypes/0/dtype", "\"bf16\"",
         "cases[0].dtypes[0].dtype: expected float32, float16, bfloat16 or float64, got 'bf16'"},
        {"cases/0/dtypes/0/dtype", "\"int8\"",
         "cases[0].dtypes[0].dtype: expected float32, float16, bfloat16 or float64, got 'int8'"},
        /* strings and numbers from the file shown as case.c shows them (fb_clean, fb_json_describe) */
        {"cases/0/dtypes/0/dtype", "\"f\\u001b[31m\\n32\"",
         "cases[0].dtypes[0].dtype: expected float32, float16, bfloat16 or float64, got 'f\\x1b[31m\\n32'"},
        {"cases/0/dtypes/0/cells/1/col", "256.12345678", "cases[0].dtypes[0].cells[1].col: expected an integer, got 256.12345678"},
        {"cases/0/dtypes/1", "{\"dtype\": \"float32\", \"cells\": []}",
         "cases[0].dtypes[1].dtype: 'float32' is already cases[0].dtypes[0]"},
        /* a cell */
        {"cases/0/dtypes/0/cells/2", "null", "cases[0].dtypes[0].cells[2]: expected an object, got null"},
        {"cases/0/dtypes/0/cells/1/row", "\"128\"", "cases[0].dtypes[0].cells[1].row: expected an integer, got the string '128'"},
        {"cases/0/dtypes/0/cells/1/row", "-128", "cases[0].dtypes[0].cells[1].row: must be positive, got -128"},
        {"cases/0/dtypes/0/cells/1/row", NULL, "cases[0].dtypes[0].cells[1]: missing key 'row'"},
        {"cases/0/dtypes/0/cells/1/col", "256.0", "cases[0].dtypes[0].cells[1].col: expected an integer, got 256.0"},
        {"cases/0/dtypes/0/cells/1/col", "128",
         "cases[0].dtypes[0].cells[1]: a second cell for row 128, col 128 (the first is cases[0].dtypes[0].cells[0])"},
        {"cases/0/dtypes/0/cells/0/point/dim1", "\"x\"", "cases[0].dtypes[0].cells[0].point.dim1: expected an integer, got the string 'x'"},
        {"cases/0/dtypes/0/cells/0/ideal_bytes", "\"big\"",
         "cases[0].dtypes[0].cells[0].ideal_bytes: expected a number (or null), got the string 'big'"},
        {"cases/0/dtypes/0/cells/0/sol/status", "\"fine\"",
         "cases[0].dtypes[0].cells[0].sol.status: unknown status 'fine' (expected ok, oom, fail, error or skipped)"},
        {"cases/0/dtypes/0/cells/0/sol/time_ms", "0.0045", "cases[0].dtypes[0].cells[0].sol.time_ms: expected an object, got 0.0045"},
        /* the clocks around a cell (optional, and each reading's members too) */
        {"cases/0/dtypes/0/cells/0/clocks", "[]", "cases[0].dtypes[0].cells[0].clocks: expected an object, got an array"},
        {"cases/0/dtypes/0/cells/0/clocks", "{\"before\": 1980}",
         "cases[0].dtypes[0].cells[0].clocks.before: expected an object, got 1980"},
        {"cases/0/dtypes/0/cells/1/clocks", "{\"before\": {\"sm_clock_mhz\": 1980}, \"after\": {\"sm_clock_mhz\": \"fast\"}}",
         "cases[0].dtypes[0].cells[1].clocks.after.sm_clock_mhz: expected a number (or null), got the string 'fast'"},
        {"cases/0/dtypes/0/cells/0/clocks", "{\"after\": {\"power_w\": true}}",
         "cases[0].dtypes[0].cells[0].clocks.after.power_w: expected a number (or null), got true"},
        /* where the host's time went (optional: a cell's and a variant's wall_ms, numbers by phase) */
        {"cases/0/dtypes/0/cells/0/wall_ms", "12.5", "cases[0].dtypes[0].cells[0].wall_ms: expected an object, got 12.5"},
        {"cases/0/dtypes/0/cells/0/wall_ms", "{\"reference\": \"slow\"}",
         "cases[0].dtypes[0].cells[0].wall_ms.reference: expected a number (or null), got the string 'slow'"},
        {"cases/0/dtypes/0/cells/0/variants/eager/wall_ms", "{\"prepare\": 1.5, \"time\": []}",
         "cases[0].dtypes[0].cells[0].variants.eager.wall_ms.time: expected a number (or null), got an array"},
        {"cases/0/dtypes/0/cells/0/variants/eager/timer_timeouts", "0.5",
         "cases[0].dtypes[0].cells[0].variants.eager.timer_timeouts: expected an integer, got 0.5"},
        /* the clock a measurement ran at, and how far its samples stepped (optional) */
        {"cases/0/dtypes/0/cells/0/variants/eager/step_pct", "\"big\"",
         "cases[0].dtypes[0].cells[0].variants.eager.step_pct: expected a number (or null), got the string 'big'"},
        {"cases/0/dtypes/0/cells/0/variants/eager/sm_clock_mhz", "1980",
         "cases[0].dtypes[0].cells[0].variants.eager.sm_clock_mhz: expected an object, got 1980"},
        {"cases/0/dtypes/0/cells/0/variants/eager/sm_clock_mhz", "{\"min\": 1605, \"max\": 1980, \"mean\": 0, \"n\": 4}",
         "cases[0].dtypes[0].cells[0].variants.eager.sm_clock_mhz.mean: expected a clock in MHz (a number > 0), got 0"},
        {"cases/0/dtypes/0/cells/0/variants/eager/sm_clock_mhz", "{\"min\": 1605, \"max\": 1980, \"mean\": 1800, \"n\": 0}",
         "cases[0].dtypes[0].cells[0].variants.eager.sm_clock_mhz.n: expected a count of readings (an integer >= 1), got 0"},
        /* a variant's paired measurement (cell.c's measure_paired) */
        {"cases/0/dtypes/0/cells/0/variants/softmax.fused/paired", "1",
         "cases[0].dtypes[0].cells[0].variants[\"softmax.fused\"].paired: expected an object, got 1"},
        {"cases/0/dtypes/0/cells/0/variants/softmax.fused/paired", "{\"status\": \"ok\"}",
         "cases[0].dtypes[0].cells[0].variants[\"softmax.fused\"].paired: missing key 'floor'"},
        {"cases/0/dtypes/0/cells/0/variants/softmax.fused/paired", "{\"floor\": \"matmul.tuned\", \"status\": \"ok\", \"n\": 3}",
         "cases[0].dtypes[0].cells[0].variants[\"softmax.fused\"].paired: missing key 'ratio'"},
        {"cases/0/dtypes/0/cells/0/variants/softmax.fused/paired",
         "{\"floor\": \"matmul.tuned\", \"status\": \"ok\", \"n\": 3, \"ratio\": {\"median\": \"1\"}, "
         "\"floor_ms\": {}, \"time_ms\": {}}",
         "cases[0].dtypes[0].cells[0].variants[\"softmax.fused\"].paired.ratio.median: expected a number (or null), got the string '1'"},
        {"cases/0/dtypes/0/cells/0/variants/softmax.fused/paired",
         "{\"floor\": \"m\", \"status\": \"ok\", \"n\": 3, \"ratio\": {\"median\": 1.0, \"n\": 3}, \"floor_ms\": {}, "
         "\"time_ms\": {}, \"ratio_samples\": [1.0, 1.01]}",
         "cases[0].dtypes[0].cells[0].variants[\"softmax.fused\"].paired.ratio_samples: 2 samples, but ratio.n is 3"},
        {"cases/0/dtypes/0/cells/0/variants/softmax.fused/paired",
         "{\"floor\": \"m\", \"status\": \"ok\", \"n\": 2, \"ratio\": {\"median\": 1.0, \"n\": 2}, \"floor_ms\": {}, "
         "\"time_ms\": {}, \"ratio_samples\": [1.0, -1]}",
         "cases[0].dtypes[0].cells[0].variants[\"softmax.fused\"].paired.ratio_samples[1]: expected a non-negative number (a "
         "ratio of two times), got -1"},
        /* the inputs' shapes at a cell (optional) */
        {"cases/0/dtypes/0/cells/0/shapes", "[128, 64]", "cases[0].dtypes[0].cells[0].shapes: expected an object, got an array"},
        {"cases/0/dtypes/0/cells/0/shapes", "{\"x\": 128}", "cases[0].dtypes[0].cells[0].shapes.x: expected an array, got 128"},
        {"cases/0/dtypes/0/cells/0/shapes", "{\"x\": [4, -1]}",
         "cases[0].dtypes[0].cells[0].shapes.x[1]: expected a non-negative integer, got -1"},
        {"cases/0/dtypes/0/cells/1/shapes", "{\"x\": [1, 2, 3, 4, 5]}",
         "cases[0].dtypes[0].cells[1].shapes.x: 5 sizes; a tensor has at most 4"},
        {"cases/0/dtypes/0/cells/0/shapes", "{\"\": [4]}", "cases[0].dtypes[0].cells[0].shapes: an input with an empty name"},
        /* a variant's measurement */
        {"cases/0/dtypes/0/cells/0/variants/eager", "\"ok\"", "cases[0].dtypes[0].cells[0].variants.eager: expected an object, got the string 'ok'"},
        {"cases/0/dtypes/0/cells/0/variants/eager/status", NULL, "cases[0].dtypes[0].cells[0].variants.eager: missing key 'status'"},
        {"cases/0/dtypes/0/cells/0/variants/eager/status", "\"OK\"",
         "cases[0].dtypes[0].cells[0].variants.eager.status: unknown status 'OK' (expected ok, oom, fail, error or skipped)"},
        {"cases/0/dtypes/0/cells/0/variants/eager/reason", "1", "cases[0].dtypes[0].cells[0].variants.eager.reason: expected a string, got 1"},
        {"cases/0/dtypes/0/cells/0/variants/eager/time_ms/median", "\"fast\"",
         "cases[0].dtypes[0].cells[0].variants.eager.time_ms.median: expected a number (or null), got the string 'fast'"},
        {"cases/0/dtypes/0/cells/0/variants/eager/time_ms/n", "-1",
         "cases[0].dtypes[0].cells[0].variants.eager.time_ms.n: expected a non-negative integer, got -1"},
        {"cases/0/dtypes/0/cells/0/variants/eager/gbps", "true", "cases[0].dtypes[0].cells[0].variants.eager.gbps: expected a number (or null), got true"},
        {"cases/0/dtypes/0/cells/0/variants/eager/kernels", "5.5", "cases[0].dtypes[0].cells[0].variants.eager.kernels: expected an integer, got 5.5"},
        {"cases/0/dtypes/0/cells/0/variants/eager/check/passed", "1",
         "cases[0].dtypes[0].cells[0].variants.eager.check.passed: expected true or false, got 1"},
        {"cases/0/dtypes/0/cells/0/variants/eager/check/max_abs", "\"1e-8\"",
         "cases[0].dtypes[0].cells[0].variants.eager.check.max_abs: expected a number (or null), got the string '1e-8'"},
        {"cases/0/dtypes/0/cells/0/variants/softmax.fused/time_ms", "[]",
         "cases[0].dtypes[0].cells[0].variants[\"softmax.fused\"].time_ms: expected an object, got an array"},
        {"cases/0/dtypes/0/cells/0/variants/", "{\"status\": \"ok\"}", "cases[0].dtypes[0].cells[0].variants: a variant with an empty name"},
        /* the timing samples (optional): every sample of time_ms, as times */
        {"cases/0/dtypes/0/cells/0/variants/eager/samples_us", "{}",
         "cases[0].dtypes[0].cells[0].variants.eager.samples_us: expected an array, got an object"},
        {"cases/0/dtypes/0/cells/0/variants/eager/samples_us", "[17.5, null]",
         "cases[0].dtypes[0].cells[0].variants.eager.samples_us[1]: expected a non-negative number (a time in microseconds), got null"},
        {"cases/0/dtypes/0/cells/0/variants/eager/samples_us", "[17.5, -1.25]",
         "cases[0].dtypes[0].cells[0].variants.eager.samples_us[1]: expected a non-negative number (a time in microseconds), got -1.25"},
        {"cases/0/dtypes/0/cells/0/variants/eager/samples_us", "[17.5, 18]",
         "cases[0].dtypes[0].cells[0].variants.eager.samples_us: 2 samples, but time_ms.n is 62"},
        {"cases/0/dtypes/0/cells/1/variants/softmax.fused/samples_us", "[5.5]",
         "cases[0].dtypes[0].cells[1].variants[\"softmax.fused\"].samples_us: 1 sample, but no time_ms.n to hold it against"},
        {"cases/0/dtypes/0/cells/0/sol/samples_us", "[\"4.5\"]",
         "cases[0].dtypes[0].cells[0].sol.samples_us[0]: expected a non-negative number (a time in microseconds), got the string '4.5'"},
        /* measured traffic and work (optional, run --metrics) */
        {"cases/0/dtypes/0/cells/0/variants/eager/metrics", "[1, 2]",
         "cases[0].dtypes[0].cells[0].variants.eager.metrics: expected an object, got an array"},
        {"cases/0/dtypes/0/cells/0/variants/eager/metrics", "{\"dram_read_bytes\": 131072, \"dram_write_bytes\": -5}",
         "cases[0].dtypes[0].cells[0].variants.eager.metrics.dram_write_bytes: expected a non-negative number (a count), got -5"},
        {"cases/0/dtypes/0/cells/0/variants/softmax.fused/metrics", "{\"inst_executed\": null}",
         "cases[0].dtypes[0].cells[0].variants[\"softmax.fused\"].metrics.inst_executed: expected a non-negative number (a count), got null"},
        {"cases/0/dtypes/0/cells/0/variants/eager/metrics", "{\"dram_read_bytes\": \"128 MB\"}",
         "cases[0].dtypes[0].cells[0].variants.eager.metrics.dram_read_bytes: expected a non-negative number (a count), got the string '128 MB'"},
        {"cases/0/dtypes/0/cells/0/variants/eager/metrics_error", "false",
         "cases[0].dtypes[0].cells[0].variants.eager.metrics_error: expected a string, got false"},
        {"settings", "{\"metrics\": [\"dram\"]}", "settings.metrics: expected an object, got an array"},
        {"settings", "{\"metrics\": {\"inst_executed\": 1}}", "settings.metrics.inst_executed: expected a string, got 1"},
        /* what --timer cupti saw launched (optional): {"count": N, "names": [...]} */
        {"cases/0/dtypes/0/cells/0/variants/eager/kernels_launched", "[]",
         "cases[0].dtypes[0].cells[0].variants.eager.kernels_launched: expected an object, got an array"},
        {"cases/0/dtypes/0/cells/0/variants/eager/kernels_launched", "{\"names\": []}",
         "cases[0].dtypes[0].cells[0].variants.eager.kernels_launched: missing key 'count'"},
        {"cases/0/dtypes/0/cells/0/variants/eager/kernels_launched", "{\"count\": -1, \"names\": []}",
         "cases[0].dtypes[0].cells[0].variants.eager.kernels_launched.count: expected a non-negative integer, got -1"},
        {"cases/0/dtypes/0/cells/0/variants/eager/kernels_launched", "{\"count\": 5}",
         "cases[0].dtypes[0].cells[0].variants.eager.kernels_launched: missing key 'names'"},
        {"cases/0/dtypes/0/cells/0/variants/eager/kernels_launched", "{\"count\": 5, \"names\": [\"amax\", \"\"]}",
         "cases[0].dtypes[0].cells[0].variants.eager.kernels_launched.names[1]: expected a non-empty string, got the string ''"},
        {"cases/0/dtypes/0/cells/0/variants/softmax.fused/kernels_launched", "{\"count\": 1, \"names\": [\"k\"], \"memops\": 1.5}",
         "cases[0].dtypes[0].cells[0].variants[\"softmax.fused\"].kernels_launched.memops: expected a non-negative integer, got 1.5"},
        {"cases/0/dtypes/0/cells/0/variants/eager/span_ms", "0.02",
         "cases[0].dtypes[0].cells[0].variants.eager.span_ms: expected an object, got 0.02"},
        {"cases/0/dtypes/0/cells/0/variants/eager/span_ms", "{\"median\": \"x\"}",
         "cases[0].dtypes[0].cells[0].variants.eager.span_ms.median: expected a number (or null), got the string 'x'"},
        /* the case list */
        {"cases/1", "{\"name\": \"softmax\", \"rows\": \"n\", \"row_values\": [1], \"variants\": [\"eager\"], \"baseline\": \"eager\", \"dtypes\": []}",
         "cases[1].name: case 'softmax' is already cases[0]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *root = parse_base();
        if (!root) return;
        apply(root, &bad[i]);
        fb_clear_error();
        fb_status st = fb_result_check(root, "base.json");
        char want[1024];
        snprintf(want, sizeof want, "base.json: %s", bad[i].want);
        if (st != FB_E_CASE || strcmp(fb_last_error(), want) != 0)
            fprintf(stderr, "bad[%zu] (%s = %s): status %d\n  got:  %s\n  want: %s\n", i, bad[i].set,
                    bad[i].value ? bad[i].value : "(removed)", (int)st, fb_last_error(), want);
        CHECK(st == FB_E_CASE);
        CHECK_STR(fb_last_error(), want);
        json_decref(root);
    }

    /* metrics as run --metrics writes them are valid, and so is an unknown metric */
    json_t *good = parse_base();
    if (good) {
        static const bad_doc ok[] = {
            {"settings", "{\"metrics\": {\"dram_read_bytes\": \"dram__bytes_read.sum\"}}", NULL},
            {"cases/0/dtypes/0/cells/0/variants/eager/metrics",
             "{\"dram_read_bytes\": 393216, \"dram_write_bytes\": 131072, \"inst_executed\": 52000, \"l2_bytes\": 1.5}",
             NULL},
            {"cases/0/dtypes/0/cells/0/variants/softmax.fused/metrics_error", "\"cuptiRangeProfilerStart: ...\"", NULL},
            {"cases/0/dtypes/0/cells/0/variants/softmax.fused/paired",
             "{\"floor\": \"matmul.tuned\", \"status\": \"ok\", \"n\": 3, \"ratio\": {\"median\": 1.01}, "
             "\"floor_ms\": {\"median\": 0.2}, \"time_ms\": {\"median\": 0.202}, \"check\": {\"mode\": \"sampled\", "
             "\"passed\": true}}", NULL},
            {"cases/0/dtypes/0/cells/0/variants/eager/paired", "{\"floor\": \"matmul.tuned\", \"status\": \"skipped\"}",
             NULL},
        };
        for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) apply(good, &ok[i]);
        fb_status st = fb_result_check(good, "base.json");
        if (st != FB_OK) fprintf(stderr, "metrics: %s\n", fb_last_error());
        CHECK(st == FB_OK);
        json_decref(good);
    }

    /* a 1-axis case: cells have no col, and there are no col_values */
    static const char one_axis[] =
        "{\"fusionbench\": {\"schema\": 1}, \"cases\": [{\"name\": \"rowsum\", \"rows\": \"n\", \"row_values\": [1024],"
        " \"variants\": [\"eager\"], \"baseline\": \"eager\", \"dtypes\": [{\"dtype\": \"float64\", \"cells\": ["
        "{\"row\": 1024, \"col\": null, \"variants\": {}}, {\"row\": 2048, \"variants\": {\"eager\": {\"status\": \"skipped\"}}}]}]}]}";
    json_t *root = NULL;
    CHECK(fb_result_parse(one_axis, strlen(one_axis), "one.json", &root) == FB_OK);
    json_decref(root);
    char text[1024];
    snprintf(text, sizeof text, "%s", one_axis);
    char *col = strstr(text, "\"col\": null");
    memcpy(col, "\"col\": 1024", 11);
    CHECK(fb_result_parse(text, strlen(text), "one.json", &root) == FB_E_CASE);
    CHECK_STR(fb_last_error(),
              "one.json: cases[0].dtypes[0].cells[0].col: the case has one grid axis (no 'cols'), so a cell has no col; got 1024");
    snprintf(text, sizeof text, "%s", one_axis);
    char *rv = strstr(text, "\"row_values\"");
    memcpy(rv, "\"col_values\"", 12);
    CHECK(fb_result_parse(text, strlen(text), "one.json", &root) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "one.json: cases[0]: missing key 'row_values'");

    /* a repeated 1-axis cell */
    snprintf(text, sizeof text, "%s", one_axis);
    memcpy(strstr(text, "\"row\": 2048"), "\"row\": 1024", 11);
    CHECK(fb_result_parse(text, strlen(text), "one.json", &root) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "one.json: cases[0].dtypes[0].cells[1]: a second cell for row 1024 (the first is cases[0].dtypes[0].cells[0])");

    /* not an object at all; syntax errors point at the place; duplicate keys */
    CHECK(fb_result_parse("[1, 2]", 6, "x.json", &root) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "x.json: not a fusionbench result file (expected a JSON object, got an array)");
    /* a path that would break the message's line is quoted, as case files' paths are */
    CHECK(fb_result_parse("[1, 2]", 6, "new\nline.json", &root) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "$'new\\nline.json': not a fusionbench result file (expected a JSON object, got an array)");
    CHECK(fb_result_parse("{\n,", 3, "new\nline.json", &root) == FB_E_CASE);
    CHECK(strncmp(fb_last_error(), "$'new\\nline.json':2:", 20) == 0);
    static const char syntax[] = "{\"fusionbench\": {\"schema\": 1},\n \"cases\": [,]}";
    CHECK(fb_result_parse(syntax, strlen(syntax), "x.json", &root) == FB_E_CASE);
    CHECK(strncmp(fb_last_error(), "x.json:2:", 9) == 0);
    static const char dup[] = "{\"fusionbench\": {\"schema\": 1}, \"cases\": [], \"cases\": []}";
    CHECK(fb_result_parse(dup, strlen(dup), "x.json", &root) == FB_E_CASE);
    CHECK(strstr(fb_last_error(), "duplicate object key") != NULL);
    CHECK(root == NULL);

    /* unknown keys are kept, not refused: fields are only ever added within a schema */
    static const char extra[] = "{\"fusionbench\": {\"schema\": 1, \"build\": \"asan\"}, \"note\": [1], \"cases\": []}";
    CHECK(fb_result_parse(extra, strlen(extra), "x.json", &root) == FB_OK);
    CHECK(json_is_array(json_object_get(root, "note")));
    json_decref(root);
}

/* The timing samples: kept in the order taken, in microseconds to 1 ns, and
 * printed on one line; a document with them reads back the same. */
static void test_samples(const char *dir)
{
    const double ms[] = {0.0163524, 0.01638, 0.0152, 0.0163526, 1234.5678901};
    json_t *a = fb_samples_to_json(ms, 5);
    char *text = json_dumps(a, JSON_COMPACT | JSON_REAL_PRECISION(9));
    CHECK_STR(text, "[16.352,16.38,15.2,16.353,1234567.89]"); /* not sorted; rounded to 0.001 us */
    free(text);
    json_decref(a);
    const double nan_ms[] = {0.01, NAN}, neg_ms[] = {0.01, -0.001};
    CHECK(fb_samples_to_json(nan_ms, 2) == NULL);
    CHECK(fb_samples_to_json(neg_ms, 2) == NULL);
    CHECK(fb_samples_to_json(ms, 0) == NULL);

    /* as many as time_ms.n: valid, on a variant and on the speed-of-light copy */
    json_t *root = parse_base();
    if (!root) return;
    json_t *cell = fb_result_cell(fb_result_dtype(fb_result_case(root, "softmax"), "float32"), 128, 128);
    double eager_ms[62], sol_ms[500];
    for (int i = 0; i < 62; i++) eager_ms[i] = 0.0175 + 1e-6 * (i % 7);
    for (int i = 0; i < 500; i++) sol_ms[i] = 0.0045 + 1e-6 * (i % 3);
    json_t *eager = json_object_get(json_object_get(cell, "variants"), "eager");
    json_object_set_new(eager, "samples_us", fb_samples_to_json(eager_ms, 62));
    json_object_set_new(json_object_get(cell, "sol"), "samples_us", fb_samples_to_json(sol_ms, 500));
    CHECK(fb_result_check(root, "s.json") == FB_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/samples.json", dir);
    CHECK(fb_result_write(root, path) == FB_OK);
    json_t *back = NULL;
    CHECK(fb_result_read(path, &back) == FB_OK);
    CHECK(back && json_equal(root, back));
    /* the 62 samples are one line of the file */
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    int lines_with_samples = 0;
    while (f && getline(&line, &cap, f) > 0)
        if (strstr(line, "\"samples_us\": [17.5, 17.501, ") && strstr(line, "17.505]")) lines_with_samples++;
    CHECK(lines_with_samples == 1);
    free(line);
    if (f) fclose(f);
    remove(path);
    json_decref(back);
    json_decref(root);

    /* the layout: jansson's one-space indent, arrays of scalars on one line */
    json_error_t je;
    json_t *doc = json_loads("{\"a\": [1, 2.5, \"x\"], \"b\": {\"c\": [{\"d\": null}], \"e\": {}}, \"f\": [], "
                             "\"g\": [[1]], \"h\\n\": true}", 0, &je);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK(fb_result_print(m, doc) == 0);
    fclose(m);
    CHECK_STR(buf, "{\n \"a\": [1, 2.5, \"x\"],\n \"b\": {\n  \"c\": [\n   {\n    \"d\": null\n   }\n  ],\n  \"e\": {}\n },\n"
                   " \"f\": [],\n \"g\": [\n  [1]\n ],\n \"h\\n\": true\n}\n");
    free(buf);
    json_decref(doc);
}

/* Every result this project has published, and the test fixtures, are valid. */
static void test_real_files_valid(void)
{
    static const char *const files[] = {
        "golden/result_small.json",
        "results/softmax_partial.json",
        "results/other_softmax_axes.json",
        "results/other_softmax_bytes.json",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        json_t *root = NULL;
        fb_status st = fb_result_read(files[i], &root);
        if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
        CHECK(st == FB_OK);
        json_decref(root);
    }
    int n = 0;
    DIR *d = opendir("../results/h100");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        char path[512];
        snprintf(path, sizeof path, "../results/h100/%s", e->d_name);
        json_t *root = NULL;
        fb_status st = fb_result_read(path, &root);
        if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
        CHECK(st == FB_OK);
        json_decref(root);
        n++;
    }
    if (d) closedir(d);
    CHECK(n >= 1);
}

/* ---- files ------------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void test_files(const char *dir)
{
    char path[512], want[600];
    json_t *root = (json_t *)1;

    /* a FIFO nobody writes to: refused at once (it used to block forever) */
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0);
    double t0 = now_s();
    CHECK(fb_result_read(path, &root) == FB_E_CASE);
    CHECK(now_s() - t0 < 5.0);
    CHECK(root == NULL);
    snprintf(want, sizeof want, "%s: not a regular file", path);
    CHECK_STR(fb_last_error(), want);
    /* ... and as a target: the rename would put a regular file in its place */
    CHECK(fb_result_check_target(path) == FB_E_IO);
    snprintf(want, sizeof want, "%s: cannot write: not a regular file", path);
    CHECK_STR(fb_last_error(), want);
    remove(path);

    /* missing and directories: bad input, each its own message */
    snprintf(path, sizeof path, "%s/none.json", dir);
    CHECK(fb_result_read(path, &root) == FB_E_CASE);
    snprintf(want, sizeof want, "%s: no such file", path);
    CHECK_STR(fb_last_error(), want);
    CHECK(fb_result_read(dir, &root) == FB_E_CASE);
    snprintf(want, sizeof want, "%s: is a directory, not a result file", dir);
    CHECK_STR(fb_last_error(), want);

    /* the write target: a new file in a writable directory passes and leaves nothing */
    CHECK(fb_result_check_target(path) == FB_OK);
    CHECK(count_entries(dir) == 0);
    CHECK(fb_result_check_target(dir) == FB_E_IO);
    snprintf(want, sizeof want, "%s: cannot write: is a directory", dir);
    CHECK_STR(fb_last_error(), want);
    snprintf(path, sizeof path, "%s/no/r.json", dir);
    CHECK(fb_result_check_target(path) == FB_E_IO);
    snprintf(want, sizeof want, "%s: cannot write: No such file or directory", path);
    CHECK_STR(fb_last_error(), want);
    /* an existing result is replaceable, and is left as it was by the probe */
    snprintf(path, sizeof path, "%s/r.json", dir);
    FILE *f = fopen(path, "w");
    fputs(base_text, f);
    fclose(f);
    CHECK(fb_result_check_target(path) == FB_OK);
    CHECK(count_entries(dir) == 1);
    CHECK(fb_result_read(path, &root) == FB_OK);
    json_decref(root);
    remove(path);
    CHECK(count_entries(dir) == 0);
}

/* ---- resuming ------------------------------------------------------------------ */

static bool load_case(const char *text, fb_case *c)
{
    fb_status st = fb_case_parse(text, "cases/test.json", c);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    return st == FB_OK;
}

/* The bundled softmax case on a given grid, as run's --dim0/--dim1 make it. */
static bool softmax_on(fb_case *c, const int64_t *rows, int nr, const int64_t *cols, int nc)
{
    fb_status st = fb_case_load("../cases/softmax.json", c);
    if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(st == FB_OK);
    if (st != FB_OK) return false;
    c->axis[0].n = nr;
    memcpy(c->axis[0].v, rows, sizeof *rows * (size_t)nr);
    c->axis[1].n = nc;
    memcpy(c->axis[1].v, cols, sizeof *cols * (size_t)nc);
    return true;
}

static void test_check_resume(void)
{
    json_t *root = parse_base();
    static fb_case c;
    const int64_t rows[] = {256}, cols[] = {128};
    if (!root || !softmax_on(&c, rows, 1, cols, 1)) return;
    /* the same program on another grid: fine, the merge keeps both */
    CHECK(fb_result_check_resume(root, "base.json", &c) == FB_OK);

    /* a case the file does not have: nothing to compare */
    static const char other[] =
        "{\"name\": \"rowsum\", \"summary\": \"row sums\", \"inputs\": {\"x\": {\"shape\": [\"n\", 64]}},"
        " \"program\": [{\"op\": \"sum\", \"in\": [\"x\"], \"dim\": -1, \"out\": \"y\"}], \"outputs\": [\"y\"],"
        " \"dtypes\": [\"float32\"], \"grid\": {\"n\": [1024]}}";
    static fb_case r;
    if (!load_case(other, &r)) return;
    CHECK(fb_result_check_resume(root, "base.json", &r) == FB_OK);

    /* another program under the name softmax: a 1-axis grid */
    snprintf(r.name, sizeof r.name, "softmax");
    CHECK(fb_result_check_resume(root, "base.json", &r) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "base.json: its case 'softmax' has the grid dim0 x dim1, but cases/test.json has n: "
                               "another case under the same name; resume into another result file, or rename the case");

    /* same axes, different bytes: the program changed since the file was written */
    json_t *cell = fb_result_cell(fb_result_dtype(fb_result_case(root, "softmax"), "float32"), 128, 256);
    json_object_set_new(cell, "flops", json_integer(1));
    CHECK(fb_result_check_resume(root, "base.json", &c) == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "base.json: case 'softmax' float32 dim0=128 dim1=256: the file's cell has flops 1, but "
                                  "../cases/softmax.json gives 163840: the program changed since") == fb_last_error());
    /* the inputs' shapes, where the cell has them: the right ones pass, others do not */
    json_object_set_new(cell, "flops", json_integer(163840));
    json_object_set_new(cell, "shapes", json_pack("{s:[i, i]}", "x", 128, 256));
    CHECK(fb_result_check_resume(root, "base.json", &c) == FB_OK);
    json_object_set_new(cell, "shapes", json_pack("{s:[i, i]}", "x", 256, 128));
    CHECK(fb_result_check_resume(root, "base.json", &c) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "base.json: case 'softmax' float32 dim0=128 dim1=256: the file's cell has the input "
                               "shapes {\"x\":[256,128]}, but ../cases/softmax.json gives {\"x\":[128,256]}: the program "
                               "changed since; resume into another result file");
    json_decref(root);
}

/* A measured cell as fb_cell_run makes it, for the variants given. */
static json_t *fresh_cell(int64_t row, int64_t col, const char *const *variants, int n, double median)
{
    json_t *cell = json_pack("{s:I, s:I, s:{s:I, s:I}, s:{}, s:I, s:I, s:{s:s, s:{s:f, s:i}}}", "row", (json_int_t)row,
                             "col", (json_int_t)col, "point", "dim0", (json_int_t)row, "dim1", (json_int_t)col,
                             "variants", "ideal_bytes", (json_int_t)(row * col * 8), "flops", (json_int_t)(row * col * 5),
                             "sol", "status", "ok", "time_ms", "median", median / 4, "n", 100);
    json_t *vars = json_object_get(cell, "variants");
    for (int i = 0; i < n; i++)
        json_object_set_new(vars, variants[i], json_pack("{s:s, s:{s:f, s:i}}", "status", "ok", "time_ms", "median", median, "n", 50));
    return cell;
}

static void test_todo_and_store(void)
{
    json_t *root = parse_base();
    if (!root) return;
    json_t *dt = fb_result_dtype(fb_result_case(root, "softmax"), "float32");
    json_t *done = fb_result_cell(dt, 128, 128), *half = fb_result_cell(dt, 128, 256);
    static const char *const both[] = {"eager", "softmax.fused"};
    static const char *const three[] = {"eager", "softmax.fused", "softmax.row_smem"};
    const char *todo[3];

    CHECK(fb_result_cell_todo(done, both, 2, todo) == 0);
    CHECK(fb_result_cell_todo(half, both, 2, todo) == 1 && strcmp(todo[0], "softmax.fused") == 0); /* error: again */
    CHECK(fb_result_cell_todo(done, three, 3, todo) == 1 && strcmp(todo[0], "softmax.row_smem") == 0);
    CHECK(fb_result_cell_todo(NULL, three, 3, todo) == 3 && todo[0] == three[0] && todo[2] == three[2]);

    /* the finished cell gains a variant: everything it had stays as it was */
    json_t *before = json_deep_copy(done);
    CHECK(fb_result_cell_todo(done, three, 3, todo) == 1);
    fb_result_store_cell(dt, done, fresh_cell(128, 128, todo, 1, 0.009));
    CHECK(json_array_size(json_object_get(dt, "cells")) == 2);
    CHECK(fb_result_cell(dt, 128, 128) == done);
    json_t *vars = json_object_get(done, "variants");
    CHECK(json_equal(json_object_get(vars, "eager"), json_object_get(json_object_get(before, "variants"), "eager")));
    CHECK(json_equal(json_object_get(vars, "softmax.fused"),
                     json_object_get(json_object_get(before, "variants"), "softmax.fused")));
    CHECK(json_equal(json_object_get(done, "sol"), json_object_get(before, "sol"))); /* ok: kept */
    CHECK(json_equal(json_object_get(done, "point"), json_object_get(before, "point")));
    CHECK(json_is_object(json_object_get(vars, "softmax.row_smem")));
    json_decref(before);

    /* the half-done cell: its error is replaced, its finished eager kept, its failed sol replaced */
    before = json_deep_copy(half);
    CHECK(fb_result_cell_todo(half, both, 2, todo) == 1);
    fb_result_store_cell(dt, half, fresh_cell(128, 256, todo, 1, 0.006));
    vars = json_object_get(half, "variants");
    CHECK(json_equal(json_object_get(vars, "eager"), json_object_get(json_object_get(before, "variants"), "eager")));
    CHECK_STR(json_string_value(json_object_get(json_object_get(vars, "softmax.fused"), "status")), "ok");
    CHECK_STR(json_string_value(json_object_get(json_object_get(half, "sol"), "status")), "ok");
    CHECK(json_is_object(json_object_get(half, "point"))); /* what it lacked, added */
    CHECK(fb_result_cell_todo(half, both, 2, todo) == 0);
    json_decref(before);

    /* even a fresh cell that re-measured a finished variant does not replace it */
    before = json_deep_copy(done);
    fb_result_store_cell(dt, done, fresh_cell(128, 128, three, 3, 0.5));
    CHECK(json_equal(done, before));
    json_decref(before);

    /* one "clocks" per cell: kept from the first run, unless a later run's are throttled */
    static const char *const row_smem[] = {"softmax.row_smem"};
    json_t *cool = json_pack("{s:{s:i}, s:{s:i}}", "before", "sm_clock_mhz", 1980, "after", "sm_clock_mhz", 1980);
    json_t *hot = json_pack("{s:{s:i}, s:{s:i}}", "before", "sm_clock_mhz", 1980, "after", "sm_clock_mhz", 1500);
    json_object_set(half, "clocks", cool);
    json_t *fresh = fresh_cell(128, 256, row_smem, 1, 0.007);
    json_object_set_new(fresh, "clocks", json_pack("{s:{s:i}, s:{s:i}}", "before", "sm_clock_mhz", 1000, "after",
                                                   "sm_clock_mhz", 1000));
    fb_result_store_cell(dt, half, fresh); /* not throttled: the cell's own clocks stay */
    CHECK(json_object_get(half, "clocks") == cool);
    fresh = fresh_cell(128, 256, row_smem, 1, 0.007);
    json_object_set(fresh, "clocks", hot);
    fb_result_store_cell(dt, half, fresh); /* throttled: its clocks mark the cell */
    CHECK(json_equal(json_object_get(half, "clocks"), hot) && fb_clocks_json_throttled(json_object_get(half, "clocks")));
    fresh = fresh_cell(128, 256, row_smem, 1, 0.007);
    json_object_set(fresh, "clocks", cool);
    fb_result_store_cell(dt, half, fresh); /* and it stays marked */
    CHECK(json_equal(json_object_get(half, "clocks"), hot));
    json_decref(cool);
    json_decref(hot);
    CHECK(fb_result_check(root, "after.json") == FB_OK);

    /* a new point is appended */
    fb_result_store_cell(dt, NULL, fresh_cell(256, 128, both, 2, 0.02));
    CHECK(json_array_size(json_object_get(dt, "cells")) == 3);
    CHECK(fb_result_cell(dt, 256, 128) != NULL);
    CHECK(fb_result_check(root, "after.json") == FB_OK);
    json_decref(root);
}

static void test_begin_case(void)
{
    json_t *root = parse_base();
    static fb_case c;
    const int64_t rows[] = {256, 64}, cols[] = {128};
    if (!root || !softmax_on(&c, rows, 2, cols, 1)) return;
    static const char *const eager[] = {"eager"};

    /* resumed on another grid with fewer variants: the file's grid values,
     * variants and cells all stay; the run's are added */
    json_t *cs = fb_result_begin_case(root, &c, eager, 1, "eager");
    CHECK(cs == fb_result_case(root, "softmax"));
    CHECK(json_array_size(json_object_get(root, "cases")) == 1);
    json_t *want = json_pack("[i, i, i]", 64, 128, 256); /* union, ascending */
    CHECK(json_equal(json_object_get(cs, "row_values"), want));
    json_decref(want);
    want = json_pack("[i, i]", 128, 256);
    CHECK(json_equal(json_object_get(cs, "col_values"), want));
    json_decref(want);
    want = json_pack("[s, s]", "eager", "softmax.fused");
    CHECK(json_equal(json_object_get(cs, "variants"), want));
    json_decref(want);
    json_t *dt = fb_result_begin_dtype(cs, FB_F32);
    CHECK(dt == fb_result_dtype(cs, "float32"));
    CHECK(json_array_size(json_object_get(dt, "cells")) == 2);
    json_t *dt16 = fb_result_begin_dtype(cs, FB_F16);
    CHECK(dt16 != dt && json_array_size(json_object_get(cs, "dtypes")) == 2);
    CHECK(fb_result_check(root, "after.json") == FB_OK);

    /* the same grid again: this run's values in this run's order */
    const int64_t rows2[] = {256, 128, 64}, cols2[] = {256, 128};
    softmax_on(&c, rows2, 3, cols2, 2);
    static const char *const more[] = {"eager", "softmax.row_smem"};
    cs = fb_result_begin_case(root, &c, more, 2, "softmax.row_smem");
    want = json_pack("[i, i, i]", 256, 128, 64);
    CHECK(json_equal(json_object_get(cs, "row_values"), want));
    json_decref(want);
    want = json_pack("[s, s, s]", "eager", "softmax.fused", "softmax.row_smem");
    CHECK(json_equal(json_object_get(cs, "variants"), want));
    json_decref(want);
    CHECK_STR(json_string_value(json_object_get(cs, "baseline")), "softmax.row_smem");
    CHECK(fb_result_check(root, "after.json") == FB_OK);

    /* a case new to the file: appended, in schema order, with no dtypes yet */
    static fb_case r;
    static const char rowsum[] =
        "{\"name\": \"rowsum\", \"summary\": \"row sums\", \"inputs\": {\"x\": {\"shape\": [\"n\", 64]}},"
        " \"program\": [{\"op\": \"sum\", \"in\": [\"x\"], \"dim\": -1, \"out\": \"y\"}], \"outputs\": [\"y\"],"
        " \"dtypes\": [\"float32\"], \"grid\": {\"n\": [1024, 4096]}}";
    if (!load_case(rowsum, &r)) return;
    json_t *rs = fb_result_begin_case(root, &r, eager, 1, "eager");
    CHECK(json_array_size(json_object_get(root, "cases")) == 2 && json_array_get(json_object_get(root, "cases"), 1) == rs);
    char *text = json_dumps(rs, JSON_COMPACT);
    CHECK_STR(text, "{\"name\":\"rowsum\",\"summary\":\"row sums\",\"file\":\"cases/test.json\",\"rows\":\"n\","
                    "\"row_values\":[1024,4096],\"variants\":[\"eager\"],\"baseline\":\"eager\",\"dtypes\":[]}");
    free(text);
    CHECK(fb_result_check(root, "after.json") == FB_OK);
    json_decref(root);
}

/* A cell's "shapes": each input at the point, the constant sizes included
 * (rmsnorm's 4 is in no "point"), in the case file's order of inputs. */
static void test_shapes_json(void)
{
    static fb_case c;
    if (fb_case_load("../cases/rmsnorm_backward.json", &c) != FB_OK) {
        fprintf(stderr, "%s\n", fb_last_error());
        CHECK(0);
        return;
    }
    fb_point pt = {0};
    for (int i = 0; i < c.n_syms; i++) pt.sym[i] = strcmp(c.sym[i], "T") == 0 ? 128 : 1027;
    fb_shape shapes[FB_MAX_VALUES];
    CHECK(fb_program_shapes(&c, &pt, shapes) == FB_OK);
    json_t *j = fb_result_shapes_json(&c, shapes);
    char *text = json_dumps(j, JSON_COMPACT);
    CHECK_STR(text, "{\"x\":[4,128,1027],\"w\":[1027],\"dy\":[4,128,1027]}");
    free(text);
    /* and the validator takes what the writer writes */
    json_t *root = parse_base();
    if (root) {
        json_t *cell = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
                                          json_object_get(root, "cases"), 0), "dtypes"), 0), "cells"), 0);
        json_object_set(cell, "shapes", j);
        CHECK(fb_result_check(root, "shapes.json") == FB_OK);
        json_decref(root);
    }
    json_decref(j);
}

/* Every (case, dtype, cell, variant) measurement of `a` is in `b`, unchanged. */
static bool keeps_all(json_t *a, json_t *b)
{
    size_t i, j, k;
    json_t *cs, *dt, *cell;
    json_array_foreach(json_object_get(a, "cases"), i, cs) {
        json_t *cs2 = fb_result_case(b, json_string_value(json_object_get(cs, "name")));
        json_array_foreach(json_object_get(cs, "dtypes"), j, dt) {
            json_t *dt2 = fb_result_dtype(cs2, json_string_value(json_object_get(dt, "dtype")));
            json_array_foreach(json_object_get(dt, "cells"), k, cell) {
                json_t *col = json_object_get(cell, "col");
                json_t *cell2 = fb_result_cell(dt2, json_integer_value(json_object_get(cell, "row")),
                                               json_is_integer(col) ? json_integer_value(col) : -1);
                if (!cell2) return false;
                const char *name;
                json_t *m;
                json_object_foreach(json_object_get(cell, "variants"), name, m) {
                    const char *st = json_string_value(json_object_get(m, "status"));
                    if (strcmp(st, "error") != 0 && !json_equal(m, json_object_get(json_object_get(cell2, "variants"), name)))
                        return false;
                }
            }
            /* the grid still shows every value it showed */
            size_t v;
            json_t *x;
            json_array_foreach(json_object_get(cs, "row_values"), v, x) {
                bool found = false;
                size_t w;
                json_t *y;
                json_array_foreach(json_object_get(cs2, "row_values"), w, y) found |= json_equal(x, y);
                if (!found) return false;
            }
        }
    }
    return true;
}

/* The whole resume path as run drives it, on the published fixture: a run on
 * another grid, dtype set and variant list writes back a valid file that still
 * holds every finished measurement of the original. */
static void test_resume_round_trip(const char *dir)
{
    json_t *orig = NULL, *root = NULL;
    CHECK(fb_result_read("results/softmax_partial.json", &orig) == FB_OK);
    CHECK(fb_result_read("results/softmax_partial.json", &root) == FB_OK);
    static fb_case c;
    const int64_t rows[] = {64, 128}, cols[] = {256, 512};
    if (!orig || !root || !softmax_on(&c, rows, 2, cols, 2)) return;
    CHECK(fb_result_check_resume(root, "results/softmax_partial.json", &c) == FB_OK);
    static const char *const variants[] = {"eager", "softmax.row_smem"};
    const fb_dtype dtypes[] = {FB_F32, FB_BF16};
    int measured = 0;
    json_t *cs = fb_result_begin_case(root, &c, variants, 2, "eager");
    for (int d = 0; d < 2; d++) {
        json_t *dt = fb_result_begin_dtype(cs, dtypes[d]);
        for (int r = 0; r < 2; r++)
            for (int q = 0; q < 2; q++) {
                json_t *old = fb_result_cell(dt, rows[r], cols[q]);
                const char *todo[2];
                int n = fb_result_cell_todo(old, variants, 2, todo);
                if (!n) continue;
                measured += n;
                fb_result_store_cell(dt, old, fresh_cell(rows[r], cols[q], todo, n, 0.01));
            }
    }
    /* float32 128x256 had eager: only row_smem there; the other 7 cells need both */
    CHECK(measured == 1 + 7 * 2);
    char path[512];
    snprintf(path, sizeof path, "%s/resumed.json", dir);
    CHECK(fb_result_write(root, path) == FB_OK);
    json_t *back = NULL;
    CHECK(fb_result_read(path, &back) == FB_OK);
    CHECK(back && keeps_all(orig, back));
    json_t *dt = fb_result_dtype(fb_result_case(back, "softmax"), "float32");
    CHECK(json_array_size(json_object_get(dt, "cells")) == 2 + 3); /* 2 kept, 3 new points */
    /* the finished (128, 128) cell, outside this run's grid, is still in its grid */
    json_t *want = json_pack("[i, i, i]", 128, 256, 512);
    CHECK(json_equal(json_object_get(fb_result_case(back, "softmax"), "col_values"), want));
    json_decref(want);
    json_decref(back);
    remove(path);
    json_decref(root);
    json_decref(orig);
}

int main(void)
{
    char dir[] = "/tmp/fb_test_result.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    test_validation();
    test_real_files_valid();
    test_samples(dir);
    test_files(dir);
    test_check_resume();
    test_todo_and_store();
    test_begin_case();
    test_shapes_json();
    test_resume_round_trip(dir);
    CHECK(rmdir(dir) == 0); /* empty: nothing stray was left */
    return fb_t_report("test_result");
}
