/* journal_writer.c — run's grid loop without a GPU, for test_journal_kill.sh:
 * the same calls cmd_run makes (fb_result_load for --resume, fb_journal_start,
 * fb_journal_begin_case, fb_journal_store_cell, fb_journal_finish), on the
 * bundled softmax case over a ROWS x COLS grid, with cells made up on the CPU
 * (their numbers a function of the point, so a check can tell a right cell).
 *
 *   journal_writer run OUT ROWS COLS [--resume] [--sleep-ms MS]
 *       measures every cell OUT (and its journal) does not hold yet; after each
 *       cell's line is written and fsync'ed, prints "ROW COL" on stdout (flushed):
 *       a cell printed is one a kill must not lose.
 *   journal_writer check OUT ROWS COLS
 *       loads OUT as --resume does and prints "ROW COL" for every cell it holds;
 *       exit 1 when a cell is not the one the run measured, or lies outside the grid.
 *
 * Run from tests/ (it reads ../cases/softmax.json). Exit 2 on bad arguments,
 * 3 or 4 for fusionbench's own failures. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "case.h"
#include "journal.h"
#include "result.h"

static const char *const variants[] = {"eager", "softmax.fused"};

static int64_t row_value(int r) { return 128 * (int64_t)(r + 1); }
static int64_t col_value(int q) { return 64 * (int64_t)(q + 1); }

static json_t *measured_cell(int64_t row, int64_t col, const char *const *todo, int n)
{
    json_t *cell = json_pack("{s:I, s:I, s:{s:I, s:I}, s:I, s:I, s:{}}", "row", (json_int_t)row, "col", (json_int_t)col,
                             "point", "dim0", (json_int_t)row, "dim1", (json_int_t)col, "ideal_bytes",
                             (json_int_t)(row * col * 8), "flops", (json_int_t)(row * col * 5), "variants");
    for (int i = 0; i < n; i++) {
        double samples[3];
        for (int k = 0; k < 3; k++) samples[k] = 1e-6 * (double)(row + col + k) * (i + 1);
        json_t *v = json_pack("{s:s, s:{s:f, s:i}}", "status", "ok", "time_ms", "median", samples[1], "n", 3);
        json_object_set_new(v, "samples_us", fb_samples_to_json(samples, 3));
        json_object_set_new(json_object_get(cell, "variants"), todo[i], v);
    }
    return cell;
}

static bool load_case(fb_case *c, int rows, int cols)
{
    if (fb_case_load("../cases/softmax.json", c) != FB_OK) return false;
    c->axis[0].n = rows;
    c->axis[1].n = cols;
    for (int r = 0; r < rows; r++) c->axis[0].v[r] = row_value(r);
    for (int q = 0; q < cols; q++) c->axis[1].v[q] = col_value(q);
    return true;
}

static json_t *new_doc(void)
{
    return json_pack("{s:{s:s, s:i}, s:s, s:{s:s}, s:[]}", "fusionbench", "version", "0.1.0", "schema", 1, "started",
                     "2026-05-05T00:00:00Z", "device", "name", "journal_writer", "cases");
}

static fb_status run(const char *out, fb_case *c, bool resume, long sleep_ms)
{
    json_t *root = NULL;
    if (resume) {
        fb_journal_info info;
        fb_status s = fb_result_load(out, &root, &info);
        if (s != FB_OK) return s;
        if (info.warning[0]) fprintf(stderr, "journal_writer: warning: %s\n", info.warning);
    } else {
        root = new_doc();
    }
    fb_journal *j = NULL;
    fb_status s = fb_journal_start(out, root, &j);
    if (s != FB_OK) {
        json_decref(root);
        return s;
    }
    json_t *cs = fb_result_begin_case(root, c, variants, 2, "eager");
    s = fb_journal_begin_case(j, cs);
    json_t *dj = fb_result_begin_dtype(cs, FB_F32);
    struct timespec pause = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
    for (int r = 0; r < c->axis[0].n && s == FB_OK; r++)
        for (int q = 0; q < c->axis[1].n && s == FB_OK; q++) {
            int64_t row = c->axis[0].v[r], col = c->axis[1].v[q];
            const char *todo[2];
            int n = fb_result_cell_todo(fb_result_cell(dj, row, col), variants, 2, todo);
            if (!n) continue;
            if (sleep_ms > 0) nanosleep(&pause, NULL); /* the measurement */
            s = fb_journal_store_cell(j, cs, dj, measured_cell(row, col, todo, n));
            if (s == FB_OK) {
                printf("%lld %lld\n", (long long)row, (long long)col);
                fflush(stdout);
            }
        }
    fb_status ws = fb_journal_finish(j, root);
    json_decref(root);
    return s != FB_OK ? s : ws;
}

static int check(const char *out, const fb_case *c)
{
    json_t *root = NULL;
    fb_journal_info info;
    if (fb_result_load(out, &root, &info) != FB_OK) {
        fprintf(stderr, "journal_writer: %s\n", fb_last_error());
        return 3;
    }
    int bad = 0;
    size_t i;
    json_t *cell;
    json_t *dj = fb_result_dtype(fb_result_case(root, "softmax"), "float32");
    json_array_foreach(json_object_get(dj, "cells"), i, cell) {
        int64_t row = json_integer_value(json_object_get(cell, "row")), col = json_integer_value(json_object_get(cell, "col"));
        bool in_grid = false;
        for (int r = 0; r < c->axis[0].n; r++)
            for (int q = 0; q < c->axis[1].n; q++) in_grid |= row == c->axis[0].v[r] && col == c->axis[1].v[q];
        json_t *want = measured_cell(row, col, variants, 2);
        char *a = json_dumps(cell, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(9));
        char *b = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(9));
        if (!in_grid || strcmp(a, b) != 0) {
            fprintf(stderr, "journal_writer: cell %lld %lld is not the one measured:\n  got:  %s\n  want: %s\n",
                    (long long)row, (long long)col, a, b);
            bad = 1;
        }
        free(a);
        free(b);
        json_decref(want);
        printf("%lld %lld\n", (long long)row, (long long)col);
    }
    fprintf(stderr, "journal_writer: %s: %zu cells, %d from the journal%s%s\n", out,
            json_array_size(json_object_get(dj, "cells")), info.cells, info.warning[0] ? "; " : "", info.warning);
    json_decref(root);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: journal_writer run|check OUT ROWS COLS [--resume] [--sleep-ms MS]\n");
        return 2;
    }
    int rows = atoi(argv[3]), cols = atoi(argv[4]);
    bool resume = false;
    long sleep_ms = 0;
    for (int i = 5; i < argc; i++) {
        if (!strcmp(argv[i], "--resume")) resume = true;
        else if (!strcmp(argv[i], "--sleep-ms") && i + 1 < argc) sleep_ms = atol(argv[++i]);
        else return 2;
    }
    static fb_case c;
    if (rows < 1 || cols < 1 || rows > FB_MAX_GRID || cols > FB_MAX_GRID || !load_case(&c, rows, cols)) {
        fprintf(stderr, "journal_writer: bad grid or case: %s\n", fb_last_error());
        return 2;
    }
    if (!strcmp(argv[1], "check")) return check(argv[2], &c);
    if (strcmp(argv[1], "run") != 0) return 2;
    fb_status s = run(argv[2], &c, resume, sleep_ms);
    if (s != FB_OK) fprintf(stderr, "journal_writer: %s\n", fb_last_error());
    return s == FB_OK ? 0 : s == FB_E_CASE ? 3 : 4;
}
