/* test_merge.c — joining result files of one device (src/result_merge.c): the
 * shards of a grid, other dtypes and other cases join into one valid document;
 * another device, another program under one case name, and one measurement
 * that differs are refused with one line naming both files; an identical
 * duplicate is fine; a variant that ended in an error takes the other file's.
 *
 * Run from tests/ (meson's workdir): it reads results/merge/. */
#include <stdlib.h>

#include "result.h"
#include "testing.h"

#define M "results/merge/"

static json_t *load(const char *path)
{
    json_t *doc = NULL;
    fb_status s = fb_result_read(path, &doc);
    if (s != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(s == FB_OK);
    return doc;
}

static json_t *cell_of(json_t *doc, const char *cs, const char *dt, int64_t row, int64_t col)
{
    return fb_result_cell(fb_result_dtype(fb_result_case(doc, cs), dt), row, col);
}

static const char *status_of(json_t *cell, const char *variant)
{
    return json_string_value(json_object_get(json_object_get(json_object_get(cell, "variants"), variant), "status"));
}

static void test_shards_join(void)
{
    json_t *a = load(M "shard_a.json"), *b = load(M "shard_b.json"), *c = load(M "same_cell.json");
    if (!a || !b || !c) return;
    CHECK(fb_result_merge_check(a, M "shard_a.json", b, M "shard_b.json") == FB_OK);
    CHECK(fb_result_merge_check(a, M "shard_a.json", c, M "same_cell.json") == FB_OK);
    CHECK(fb_result_merge_check(b, M "shard_b.json", c, M "same_cell.json") == FB_OK);
    json_t *all = json_deep_copy(a);
    fb_result_merge_into(all, b);
    fb_result_merge_into(all, c);
    CHECK(fb_result_check(all, "all.json") == FB_OK);

    /* the head is the first file's */
    CHECK_STR(json_string_value(json_object_get(all, "started")), "2026-11-22T08:00:00Z");
    /* the grid widened to both shards', ascending; the variants to every file's */
    json_t *cs = fb_result_case(all, "softmax");
    json_t *want = json_pack("[i, i]", 128, 256);
    CHECK(json_equal(json_object_get(cs, "row_values"), want));
    CHECK(json_equal(json_object_get(cs, "col_values"), want));
    json_decref(want);
    want = json_pack("[s, s, s]", "eager", "softmax.fused", "softmax.row_smem");
    CHECK(json_equal(json_object_get(cs, "variants"), want));
    json_decref(want);
    /* every cell of every file, once: 4 float32 cells, B's bfloat16 one, B's other case */
    CHECK(json_array_size(json_object_get(fb_result_dtype(cs, "float32"), "cells")) == 4);
    CHECK(json_array_size(json_object_get(fb_result_dtype(cs, "bfloat16"), "cells")) == 1);
    CHECK(json_array_size(json_object_get(all, "cases")) == 2);
    CHECK(cell_of(all, "rowsum", "float32", 1024, -1) != NULL);
    /* B's cells exactly as B has them */
    CHECK(json_equal(cell_of(all, "softmax", "float32", 256, 256), cell_of(b, "softmax", "float32", 256, 256)));
    CHECK(json_equal(cell_of(all, "softmax", "bfloat16", 256, 128), cell_of(b, "softmax", "bfloat16", 256, 128)));
    /* the cell both A and C hold: A's measurements, C's new variant */
    json_t *both = cell_of(all, "softmax", "float32", 128, 128), *ac = cell_of(a, "softmax", "float32", 128, 128);
    json_t *vars = json_object_get(both, "variants");
    CHECK(json_equal(json_object_get(vars, "eager"), json_object_get(json_object_get(ac, "variants"), "eager")));
    CHECK(json_object_size(vars) == 3);
    CHECK_STR(status_of(both, "softmax.row_smem"), "ok");
    /* A's fused variant ended in an error at (128, 256): C's measurement takes its place */
    CHECK_STR(status_of(cell_of(all, "softmax", "float32", 128, 256), "softmax.fused"), "ok");
    CHECK(json_equal(json_object_get(json_object_get(cell_of(all, "softmax", "float32", 128, 256), "variants"),
                                     "softmax.fused"),
                     json_object_get(json_object_get(cell_of(c, "softmax", "float32", 128, 256), "variants"),
                                     "softmax.fused")));
    /* the speed-of-light copy of a cell both hold is the first file's */
    CHECK(json_equal(json_object_get(both, "sol"), json_object_get(ac, "sol")));

    /* in the other order: the same cells (C's row_smem then leads the variants, C's head the document) */
    json_t *rev = json_deep_copy(c);
    fb_result_merge_into(rev, b);
    fb_result_merge_into(rev, a);
    CHECK(fb_result_check(rev, "rev.json") == FB_OK);
    CHECK(json_array_size(json_object_get(fb_result_dtype(fb_result_case(rev, "softmax"), "float32"), "cells")) == 4);
    CHECK(json_equal(cell_of(rev, "softmax", "float32", 256, 128), cell_of(all, "softmax", "float32", 256, 128)));
    json_decref(rev);

    /* a file with itself: identical duplicates, nothing changes */
    CHECK(fb_result_merge_check(a, M "shard_a.json", a, M "shard_a.json") == FB_OK);
    json_t *twice = json_deep_copy(a);
    fb_result_merge_into(twice, a);
    CHECK(json_equal(twice, a));
    json_decref(twice);
    json_decref(all);
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

/* One refusal: the exact line, FB_E_USAGE. */
static void refused(const char *first, const char *second, const char *want)
{
    json_t *a = load(first), *b = load(second);
    if (!a || !b) return;
    fb_clear_error();
    fb_status s = fb_result_merge_check(a, first, b, second);
    if (s != FB_E_USAGE || strcmp(fb_last_error(), want) != 0)
        fprintf(stderr, "%s + %s: status %d\n  got:  %s\n  want: %s\n", first, second, (int)s, fb_last_error(), want);
    CHECK(s == FB_E_USAGE);
    CHECK_STR(fb_last_error(), want);
    json_decref(a);
    json_decref(b);
}

static void test_refused(void)
{
    refused(M "shard_a.json", M "other_device.json",
            M "other_device.json and " M "shard_a.json are from different devices: device.name 'NVIDIA H200' vs "
              "'NVIDIA H100 80GB HBM3'");
    refused(M "shard_b.json", M "other_cc.json",
            M "other_cc.json and " M "shard_b.json are from different devices: device.cc '9.0a' vs '9.0'");
    refused(M "shard_a.json", M "conflict.json",
            M "conflict.json and " M "shard_a.json both measured softmax float32 dim0=128 dim1=128 softmax.fused, "
              "with different results (time_ms.median 0.0061 vs 0.0052): merge keeps one measurement per variant; "
              "drop it from one file, or rename the case in one");
    refused(M "shard_a.json", M "other_program.json",
            M "other_program.json and " M "shard_a.json hold two programs under the case name 'softmax': float32 "
              "dim0=128 dim1=128 has ideal_bytes 1 in " M "other_program.json but 131072 in " M "shard_a.json");
    refused(M "shard_a.json", M "other_axes.json",
            M "other_axes.json and " M "shard_a.json hold two programs under the case name 'softmax': its grid is "
              "M x N in " M "other_axes.json but dim0 x dim1 in " M "shard_a.json");
    /* no cell in common: the sizes that are no grid axis tell the programs apart */
    refused(M "shard_b.json", M "other_constant.json",
            M "other_constant.json and " M "shard_b.json hold two programs under the case name 'rowsum': k is 128 in "
              M "other_constant.json but 64 in " M "shard_b.json");

    /* the inputs' shapes of a cell in common, where both have them */
    {
        json_t *a = load(M "shard_a.json");
        if (!a) return;
        json_t *b = json_deep_copy(a);
        json_object_set_new(cell_of(a, "softmax", "float32", 128, 128), "shapes", json_pack("{s:[i, i]}", "x", 128, 128));
        CHECK(fb_result_merge_check(a, "a.json", b, "b.json") == FB_OK); /* b has none */
        json_object_set_new(cell_of(b, "softmax", "float32", 128, 128), "shapes", json_pack("{s:[i, i, i]}", "x", 1, 128, 128));
        CHECK(fb_result_merge_check(a, "a.json", b, "b.json") == FB_E_USAGE);
        CHECK_STR(fb_last_error(), "b.json and a.json hold two programs under the case name 'softmax': float32 "
                                   "dim0=128 dim1=128 has the input shapes {\"x\":[1,128,128]} in b.json but "
                                   "{\"x\":[128,128]} in a.json");
        json_decref(a);
        json_decref(b);
    }

    /* a device key neither file has is no difference; one only one has is */
    json_t *a = load(M "shard_a.json");
    if (!a) return;
    json_t *b = json_deep_copy(a);
    json_object_del(json_object_get(a, "device"), "sms");
    CHECK(fb_result_merge_check(a, "a.json", b, "b.json") == FB_OK);
    json_object_del(json_object_get(b, "device"), "driver");
    CHECK(fb_result_merge_check(a, "a.json", b, "b.json") == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "b.json and a.json are from different devices: device.driver none vs '13.0'");
    /* an error entry is no measurement: it never conflicts */
    json_decref(b);
    b = json_deep_copy(a);
    json_t *fused = json_object_get(json_object_get(cell_of(b, "softmax", "float32", 128, 256), "variants"), "softmax.fused");
    json_object_set_new(fused, "reason", json_string("another error"));
    CHECK(fb_result_merge_check(a, "a.json", b, "b.json") == FB_OK);
    /* a status that differs is said first */
    json_t *eager = json_object_get(json_object_get(cell_of(b, "softmax", "float32", 128, 128), "variants"), "eager");
    json_object_set_new(eager, "status", json_string("fail"));
    CHECK(fb_result_merge_check(a, "a.json", b, "b.json") == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "softmax float32 dim0=128 dim1=128 eager, with different results (status 'fail' vs 'ok')") != NULL);
    /* the same median, another key: named */
    json_object_set_new(eager, "status", json_string("ok"));
    json_object_set_new(eager, "kernels", json_integer(7));
    CHECK(fb_result_merge_check(a, "a.json", b, "b.json") == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "with different results (kernels)") != NULL);
    json_decref(a);
    json_decref(b);
}

int main(void)
{
    test_shards_join();
    test_refused();
    return fb_t_report("test_merge");
}
