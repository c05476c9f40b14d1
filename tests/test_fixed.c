/* test_fixed.c — grids with fixed size symbols (case "fixed"): the point walk
 * run takes (grid by grid, row by row, column by column), and the result file's
 * side: a case's "fixed" values, cells told apart by their fixed values (the
 * validator, lookups, a journal-style store, merge of cells that differ only in
 * a fixed symbol). Run from tests/ (meson's workdir): it reads
 * cases/batched_scale.json. */
#include <string.h>

#include "case.h"
#include "result.h"
#include "resultset.h"
#include "testing.h"

static fb_case g_c;

static void test_point_walk(void)
{
    CHECK(fb_case_load("cases/batched_scale.json", &g_c) == FB_OK);
    const fb_case *c = &g_c;
    CHECK(c->n_axes == 2 && c->n_fixed == 1);
    CHECK(fb_case_n_grids(c) == 2 && fb_case_n_points(c) == 2 * 3 * 2);
    /* B slowest, then M (rows), then N (columns) */
    static const int64_t want[12][3] = {{1, 64, 128},   {1, 64, 4096},   {1, 256, 128}, {1, 256, 4096},
                                        {1, 1024, 128}, {1, 1024, 4096}, {4, 64, 128},  {4, 64, 4096},
                                        {4, 256, 128},  {4, 256, 4096},  {4, 1024, 128}, {4, 1024, 4096}};
    int B = -1, M = -1, N = -1;
    for (int s = 0; s < c->n_syms; s++) {
        if (!strcmp(c->sym[s], "B")) B = s;
        if (!strcmp(c->sym[s], "M")) M = s;
        if (!strcmp(c->sym[s], "N")) N = s;
    }
    CHECK(B >= 0 && M >= 0 && N >= 0);
    for (int i = 0; i < 12; i++) {
        fb_point p;
        fb_case_point(c, i, &p);
        CHECK(p.sym[B] == want[i][0] && p.sym[M] == want[i][1] && p.sym[N] == want[i][2]);
    }
    fb_point p;
    fb_case_point(c, 7, &p);
    char buf[128];
    CHECK_STR(fb_point_str(c, &p, buf, sizeof buf), "M=64 N=4096 B=4");
    CHECK_STR(fb_grid_label(c, &p, buf, sizeof buf), "B=4");
    /* two fixed symbols: the first slowest */
    fb_case two = *c;
    two.n_fixed = 2;
    two.fixed[1] = two.fixed[0];
    two.fixed[0].sym = N, two.fixed[0].n = 2, two.fixed[0].v[0] = 8, two.fixed[0].v[1] = 16;
    two.n_axes = 1;
    CHECK(fb_case_n_grids(&two) == 4 && fb_case_n_points(&two) == 12);
    fb_case_point(&two, 4, &p); /* N=8, B=4, M=256 */
    CHECK(p.sym[N] == 8 && p.sym[B] == 4 && p.sym[M] == 256);
    CHECK_STR(fb_grid_label(&two, &p, buf, sizeof buf), "N=8 B=4");
}

/* A result document of batched_scale with `cells` (a JSON array's inside). */
static json_t *doc_with(const char *cells)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"fusionbench\": {\"schema\": 1}, \"device\": {\"name\": \"H100\"}, \"cases\": [{\"name\": "
             "\"batched_scale\", \"rows\": \"M\", \"cols\": \"N\", \"row_values\": [64], \"col_values\": [128], "
             "\"fixed\": {\"B\": [1, 4]}, \"variants\": [\"eager\"], \"baseline\": \"eager\", \"dtypes\": "
             "[{\"dtype\": \"float32\", \"cells\": [%s]}]}]}",
             cells);
    json_t *doc = NULL;
    fb_status s = fb_result_parse(text, strlen(text), "r.json", &doc);
    if (s != FB_OK) return NULL;
    return doc;
}

#define CELL(b, t)                                                                                                   \
    "{\"row\": 64, \"col\": 128, \"point\": {\"M\": 64, \"N\": 128, \"B\": " #b "}, \"variants\": {\"eager\": "     \
    "{\"status\": \"ok\", \"time_ms\": {\"median\": " #t "}}}}"

static void test_result_cells(void)
{
    json_t *doc = doc_with(CELL(1, 0.5) ", " CELL(4, 2.0));
    CHECK(doc != NULL);
    if (!doc) return;
    json_t *cs = fb_result_case(doc, "batched_scale"), *dt = fb_result_dtype(cs, "float32");
    /* the cell at B=4 is not the one at B=1 */
    fb_point p;
    fb_case_point(&g_c, 6, &p); /* B=4, M=64, N=128 */
    json_t *c4 = fb_result_cell_at(dt, &g_c, &p);
    CHECK(c4 && json_integer_value(json_object_get(json_object_get(c4, "point"), "B")) == 4);
    fb_case_point(&g_c, 0, &p); /* B=1 */
    json_t *c1 = fb_result_cell_at(dt, &g_c, &p);
    CHECK(c1 && c1 != c4);
    CHECK(fb_result_cell_like(dt, cs, c4) == c4);
    json_decref(doc);

    /* the validator: a repeat is a repeat only with the same fixed values */
    json_t *bad = NULL;
    fb_clear_error();
    CHECK(doc_with(CELL(4, 0.5) ", " CELL(4, 0.5)) == NULL);
    CHECK_STR(fb_last_error(),
              "r.json: cases[0].dtypes[0].cells[1]: a second cell for row 64, col 128, B=4 (the first is "
              "cases[0].dtypes[0].cells[0])");
    fb_clear_error();
    CHECK((bad = doc_with("{\"row\": 64, \"col\": 128, \"point\": {\"M\": 64, \"N\": 128}, \"variants\": {}}")) == NULL);
    CHECK_STR(fb_last_error(), "r.json: cases[0].dtypes[0].cells[0].point: no value for the fixed symbol 'B'");
    fb_clear_error();
    CHECK(doc_with("{\"row\": 64, \"col\": 128, \"variants\": {}}") == NULL);
    CHECK_STR(fb_last_error(),
              "r.json: cases[0].dtypes[0].cells[0].point: missing; the case has fixed symbols, so a cell's point "
              "names their values");
}

static void test_merge_fixed(void)
{
    json_t *a = doc_with(CELL(1, 0.5)), *b = doc_with(CELL(4, 2.0)), *b2 = doc_with(CELL(1, 0.7));
    CHECK(a && b && b2);
    if (!a || !b || !b2) return;
    /* cells that differ only in B are two cells: no conflict, both kept */
    CHECK(fb_result_merge_check(a, "a.json", b, "b.json") == FB_OK);
    fb_result_merge_into(a, b);
    json_t *dt = fb_result_dtype(fb_result_case(a, "batched_scale"), "float32");
    CHECK(json_array_size(json_object_get(dt, "cells")) == 2);
    CHECK(fb_result_check(a, "merged.json") == FB_OK);
    /* the same cell (B=1) with another time is a conflict */
    CHECK(fb_result_merge_check(a, "a.json", b2, "b2.json") == FB_E_USAGE);
    CHECK(strstr(fb_last_error(), "M=64 N=128 B=1") != NULL);
    /* the typed model tells the merged cells apart by their grid (B=1, B=4);
     * fb_rs_refuse_fixed (the guard for a printer that does not split grids) names it */
    fb_rs_doc rs = {0};
    CHECK(fb_rs_from_json(a, "merged.json", &rs) == FB_OK);
    const fb_rs_case *cs = fb_rs_find_case(&rs, "batched_scale");
    CHECK(cs && cs->n_grids == 2 && cs->n_dtypes == 1);
    if (cs && cs->n_dtypes == 1) {
        const fb_rs_cell *c1 = fb_rs_find_cell_in(&cs->dtypes[0], 0, 64, 128);
        const fb_rs_cell *c4 = fb_rs_find_cell_in(&cs->dtypes[0], 1, 64, 128);
        CHECK(c1 && c4 && c1 != c4 && c1->fixed[0] == 1 && c4->fixed[0] == 4);
    }
    CHECK(fb_rs_refuse_fixed(&rs, NULL, "compare") == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "merged.json: cases[0] ('batched_scale') has fixed size symbols (one grid per value); "
                               "compare does not read such cases yet");
    fb_rs_free(&rs);
    json_decref(a);
    json_decref(b);
    json_decref(b2);
}

int main(void)
{
    test_point_walk();
    test_result_cells();
    test_merge_fixed();
    return fb_t_report("test_fixed");
}
