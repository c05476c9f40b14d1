/* test_journal.c — the run's journal (src/journal.h): lines appended as a run
 * appends them, a killed run's document rebuilt from the result file and its
 * journal (or from the journal alone), a torn last line ignored with a warning,
 * any other bad line refused with its line number, a journal of another run
 * refused, and a resume from a journal that keeps every finished cell and
 * measures only the rest. The run's loop is driven here as cmd_run drives it,
 * with cells made up on the CPU.
 *
 * Run from tests/ (meson's workdir): it reads ../cases/softmax.json. */
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case.h"
#include "journal.h"
#include "result.h"
#include "testing.h"

static char dir[] = "/tmp/fb_test_journal.XXXXXX";
static char path[512], jpath[600];

/* A document's head as a fresh run writes it. */
static json_t *new_doc(const char *started)
{
    return json_pack("{s:{s:s, s:s, s:i}, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s}, s:{s:s, s:f}, s:[]}",
                     "fusionbench", "version", "0.1.0", "git", "abc", "schema", 1, "started", started, "host", "h",
                     "command", "fusionbench run --case softmax", "device", "name", "NVIDIA H100 80GB HBM3", "cc",
                     "9.0", "driver", "13.0", "runtime", "13.0", "settings", "timer", "events", "rep_ms", 100.0,
                     "cases");
}

/* A measured cell as fb_cell_run makes it, its times a function of the point. */
static json_t *fresh_cell(int64_t row, int64_t col, const char *const *variants, int n)
{
    double ms = 1e-6 * (double)(row + col) + 0.001;
    json_t *cell = json_pack("{s:I, s:I, s:{s:I, s:I}, s:I, s:I, s:{}}", "row", (json_int_t)row, "col", (json_int_t)col,
                             "point", "dim0", (json_int_t)row, "dim1", (json_int_t)col, "ideal_bytes",
                             (json_int_t)(row * col * 8), "flops", (json_int_t)(row * col * 5), "variants");
    double samples[5];
    for (int i = 0; i < 5; i++) samples[i] = ms / 4 * (1 + 0.01 * (i % 3));
    json_t *sol = json_pack("{s:s, s:{s:f, s:i}}", "status", "ok", "time_ms", "median", ms / 4, "n", 5);
    json_object_set_new(sol, "samples_us", fb_samples_to_json(samples, 5));
    json_object_set_new(cell, "sol", sol);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 5; k++) samples[k] = ms * (i + 1) * (1 + 0.01 * (k % 3));
        json_t *v = json_pack("{s:s, s:{s:f, s:i}, s:f}", "status", "ok", "time_ms", "median", ms * (i + 1), "n", 5,
                              "gbps", 1000.0 / (i + 1));
        json_object_set_new(v, "samples_us", fb_samples_to_json(samples, 5));
        json_object_set_new(json_object_get(cell, "variants"), variants[i], v);
    }
    return cell;
}

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

/* The same document once printed: a rebuilt document holds the numbers as the
 * file prints them (9 significant digits), the run's held them in full. */
static bool same_doc(const json_t *a, const json_t *b)
{
    if (!a || !b) return false;
    char *x = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(9));
    char *y = json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(9));
    bool same = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

static const char *const variants[] = {"eager", "softmax.fused"};

/* cmd_run's loop over one case and dtype: every cell not yet finished, stopping
 * (as a kill would) after `stop_after` cells when it is >= 0. Returns the cells measured. */
static int run_grid(json_t *root, fb_journal *j, const fb_case *c, fb_dtype d, int stop_after)
{
    json_t *cs = fb_result_begin_case(root, c, variants, 2, "eager");
    CHECK(fb_journal_begin_case(j, cs) == FB_OK);
    json_t *dj = fb_result_begin_dtype(cs, d);
    int measured = 0;
    for (int r = 0; r < c->axis[0].n; r++)
        for (int q = 0; q < c->axis[1].n; q++) {
            if (stop_after >= 0 && measured == stop_after) return measured;
            json_t *old = fb_result_cell(dj, c->axis[0].v[r], c->axis[1].v[q]);
            const char *todo[2];
            int n = fb_result_cell_todo(old, variants, 2, todo);
            if (!n) continue;
            CHECK(fb_journal_store_cell(j, cs, dj, fresh_cell(c->axis[0].v[r], c->axis[1].v[q], todo, n)) == FB_OK);
            measured++;
        }
    return measured;
}

static char *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = 0;
    fclose(f);
    if (len) *len = got;
    return buf;
}

static void spit(const char *p, const char *text, size_t len)
{
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(text, 1, len, f);
    fclose(f);
}

static int count_lines(const char *p)
{
    char *t = slurp(p, NULL);
    int n = 0;
    for (char *s = t; s && *s; s++) n += *s == '\n';
    free(t);
    return n;
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* ---- a killed run, rebuilt ----------------------------------------------------- */

static void test_killed_run(void)
{
    static fb_case c;
    const int64_t rows[] = {128, 256}, cols[] = {128, 256, 512};
    if (!softmax_on(&c, rows, 2, cols, 3)) return;
    json_t *root = new_doc("2026-01-01T00:00:00Z");
    fb_journal *j = NULL;
    CHECK(fb_journal_start(path, root, &j) == FB_OK);
    if (!j) return;
    /* the document exists from the start; the journal holds its head */
    json_t *on_disk = NULL;
    CHECK(fb_result_read(path, &on_disk) == FB_OK);
    CHECK(on_disk && same_doc(on_disk, root));
    json_decref(on_disk);
    CHECK(count_lines(jpath) == 1);

    CHECK(run_grid(root, j, &c, FB_F32, 4) == 4);
    fb_journal_abandon(j); /* SIGKILL: the document on disk still has no cell */
    CHECK(count_lines(jpath) == 1 + 1 + 4);
    CHECK(fb_result_read(path, &on_disk) == FB_OK);
    CHECK(json_array_size(json_object_get(on_disk, "cases")) == 0);
    json_decref(on_disk);

    /* rebuilt: exactly the document the run held in memory */
    json_t *back = NULL;
    fb_journal_info info;
    CHECK(fb_result_load(path, &back, &info) == FB_OK);
    CHECK(info.found && info.cells == 4 && info.warning[0] == 0);
    CHECK(same_doc(back, root));
    json_decref(back);

    /* from the journal alone (the document lost): the same */
    char *doc_text = slurp(path, NULL);
    CHECK(remove(path) == 0);
    CHECK(fb_result_load(path, &back, &info) == FB_OK);
    CHECK(same_doc(back, root));
    json_decref(back);
    /* replayed twice: nothing changes (a crash between the final write and the journal's removal) */
    back = json_deep_copy(root);
    CHECK(fb_journal_replay(jpath, &back, &info) == FB_OK && info.cells == 4);
    CHECK(same_doc(back, root));
    json_decref(back);
    spit(path, doc_text, strlen(doc_text));
    free(doc_text);

    /* a torn last line: ignored, with a warning that names the line; never fatal */
    size_t len;
    char *jtext = slurp(jpath, &len);
    char *last = jtext + len - 1;
    while (last > jtext && last[-1] != '\n') last--; /* the start of the last line */
    size_t keep = (size_t)(last - jtext) + (size_t)(jtext + len - last) / 2;
    spit(jpath, jtext, keep); /* cut in the middle of the last cell's line */
    CHECK(fb_result_load(path, &back, &info) == FB_OK);
    CHECK(info.cells == 3);
    char want[1200];
    snprintf(want, sizeof want, "%s:6: the last line is incomplete (no newline)", jpath);
    CHECK(strncmp(info.warning, want, strlen(want)) == 0);
    if (strncmp(info.warning, want, strlen(want)) != 0) fprintf(stderr, "warning: %s\n", info.warning);
    CHECK(back && fb_result_cell(fb_result_dtype(fb_result_case(back, "softmax"), "float32"), 128, 512) != NULL);
    CHECK(back && fb_result_cell(fb_result_dtype(fb_result_case(back, "softmax"), "float32"), 256, 128) == NULL);
    json_decref(back);
    /* a zero-filled tail (a crash of the machine after the size grew): the same */
    char *zeros = malloc(len + 64);
    memcpy(zeros, jtext, len);
    memset(zeros + len, 0, 64);
    spit(jpath, zeros, len + 64);
    free(zeros);
    CHECK(fb_result_load(path, &back, &info) == FB_OK && info.cells == 4 && info.warning[0]);
    json_decref(back);
    /* a last line with its newline that does not parse: the same */
    char *garbage = malloc(len + 16);
    memcpy(garbage, jtext, len);
    memcpy(garbage + len, "{\"case\": \n", 10);
    spit(jpath, garbage, len + 10);
    CHECK(fb_result_load(path, &back, &info) == FB_OK && info.cells == 4);
    snprintf(want, sizeof want, "%s:7: the last line is incomplete (", jpath);
    CHECK(strncmp(info.warning, want, strlen(want)) == 0);
    json_decref(back);
    /* ... but a bad line before the last is a bad file: its cells after it would be lost */
    memcpy(garbage + len, "{\"case\": \n", 10);
    memcpy(garbage + len + 10, last, 2); /* and one more line after it */
    spit(jpath, garbage, len + 10 + 2);
    back = (json_t *)1;
    CHECK(fb_result_load(path, &back, &info) == FB_E_CASE && back == NULL);
    snprintf(want, sizeof want, "%s:7: ", jpath);
    CHECK(strncmp(fb_last_error(), want, strlen(want)) == 0);
    free(garbage);
    spit(jpath, jtext, len);
    free(jtext);
    json_decref(root);
}

/* ---- resume: every finished cell kept, the rest measured ----------------------- */

static void test_resume(void)
{
    static fb_case c;
    const int64_t rows[] = {128, 256}, cols[] = {128, 256, 512};
    if (!softmax_on(&c, rows, 2, cols, 3)) return;
    /* the journal test_killed_run left: 4 of 6 cells */
    json_t *root = NULL;
    fb_journal_info info;
    CHECK(fb_result_load(path, &root, &info) == FB_OK && info.cells == 4);
    if (!root) return;
    json_t *before = json_deep_copy(root);
    json_object_set_new(root, "resumed", json_pack("[{s:s}]", "at", "2026-01-01T01:00:00Z"));

    /* the resumed run's start: the document takes the journal's cells, then the journal starts over */
    fb_journal *j = NULL;
    CHECK(fb_journal_start(path, root, &j) == FB_OK);
    if (!j) return;
    CHECK(count_lines(jpath) == 1);
    json_t *on_disk = NULL;
    CHECK(fb_result_read(path, &on_disk) == FB_OK);
    CHECK(on_disk && same_doc(on_disk, root));
    json_decref(on_disk);

    /* only the two cells the killed run had not finished are measured */
    CHECK(run_grid(root, j, &c, FB_F32, -1) == 2);
    /* another dtype, killed after one cell, resumed again */
    CHECK(run_grid(root, j, &c, FB_BF16, 1) == 1);
    fb_journal_abandon(j);
    json_decref(root);
    CHECK(fb_result_load(path, &root, &info) == FB_OK && info.cells == 3);
    if (!root) return;
    CHECK(fb_journal_start(path, root, &j) == FB_OK);
    if (!j) return;
    CHECK(run_grid(root, j, &c, FB_F32, -1) == 0);
    CHECK(run_grid(root, j, &c, FB_BF16, -1) == 5);
    json_object_set_new(root, "finished", json_string("2026-01-01T02:00:00Z"));
    CHECK(fb_journal_finish(j, root) == FB_OK);
    CHECK(!exists(jpath)); /* removed once the document holds everything */

    json_t *back = NULL;
    CHECK(fb_result_load(path, &back, &info) == FB_OK && !info.found);
    CHECK(same_doc(back, root));
    /* every cell once, each finished cell of the killed run exactly as it was */
    json_t *cs = fb_result_case(back, "softmax");
    CHECK(json_array_size(json_object_get(fb_result_dtype(cs, "float32"), "cells")) == 6);
    CHECK(json_array_size(json_object_get(fb_result_dtype(cs, "bfloat16"), "cells")) == 6);
    size_t i;
    json_t *cell;
    json_t *had = fb_result_dtype(fb_result_case(before, "softmax"), "float32");
    json_array_foreach(json_object_get(had, "cells"), i, cell) {
        json_t *now = fb_result_cell(fb_result_dtype(cs, "float32"), json_integer_value(json_object_get(cell, "row")),
                                     json_integer_value(json_object_get(cell, "col")));
        CHECK(same_doc(now, cell));
    }
    CHECK(json_array_size(json_object_get(back, "resumed")) == 1);
    json_decref(back);
    json_decref(before);
    json_decref(root);
    remove(path);
}

/* ---- refused journals ------------------------------------------------------------ */

/* The journal's text with line `n` (1-based) replaced by `with` (NULL: the lines after it cut). */
static void write_journal(const char *const *lines, int n)
{
    FILE *f = fopen(jpath, "w");
    for (int i = 0; i < n; i++) fprintf(f, "%s\n", lines[i]);
    fclose(f);
}

static void expect_refused(const char *const *lines, int n, const char *want_after_path)
{
    write_journal(lines, n);
    json_t *doc = NULL;
    fb_clear_error();
    fb_status st = fb_result_load(path, &doc, NULL);
    char want[1200];
    snprintf(want, sizeof want, "%s%s", jpath, want_after_path);
    if (st != FB_E_CASE || strcmp(fb_last_error(), want) != 0)
        fprintf(stderr, "refused: status %d\n  got:  %s\n  want: %s\n", (int)st, fb_last_error(), want);
    CHECK(st == FB_E_CASE);
    CHECK_STR(fb_last_error(), want);
    CHECK(doc == NULL);
}

static void test_refused(void)
{
    json_t *root = new_doc("2026-02-02T00:00:00Z");
    CHECK(fb_result_write(root, path) == FB_OK);
    static const char head[] =
        "{\"fusionbench_journal\": 1, \"head\": {\"fusionbench\": {\"schema\": 1}, \"started\": \"2026-02-02T00:00:00Z\", "
        "\"device\": {\"name\": \"NVIDIA H100 80GB HBM3\"}}}";
    static const char begin[] =
        "{\"begin_case\": {\"name\": \"softmax\", \"rows\": \"dim0\", \"cols\": \"dim1\", \"row_values\": [128], "
        "\"col_values\": [128], \"variants\": [\"eager\"], \"baseline\": \"eager\", \"dtypes\": []}}";
    static const char cell[] =
        "{\"case\": \"softmax\", \"dtype\": \"float32\", \"cell\": {\"row\": 128, \"col\": 128, \"variants\": "
        "{\"eager\": {\"status\": \"ok\", \"time_ms\": {\"median\": 0.01, \"n\": 2}, \"samples_us\": [10, 10.5]}}}}";

    /* the three kinds of line: accepted */
    const char *good[] = {head, begin, cell};
    write_journal(good, 3);
    json_t *doc = NULL;
    fb_journal_info info;
    CHECK(fb_result_load(path, &doc, &info) == FB_OK && info.cells == 1 && !info.warning[0]);
    json_decref(doc);

    const char *other_run[] = {"{\"fusionbench_journal\": 1, \"head\": {\"fusionbench\": {\"schema\": 1}, "
                               "\"started\": \"2026-03-03T00:00:00Z\"}}", begin, cell};
    expect_refused(other_run, 3, ":1: the journal of a run started 2026-03-03T00:00:00Z, but the result file's run "
                                 "started 2026-02-02T00:00:00Z; move one of them away");
    const char *other_gpu[] = {"{\"fusionbench_journal\": 1, \"head\": {\"device\": {\"name\": \"NVIDIA H200\"}}}", begin};
    expect_refused(other_gpu, 2, ":1: the journal of a run on 'NVIDIA H200', but the result file's run is on "
                                 "'NVIDIA H100 80GB HBM3'; move one of them away");
    const char *not_journal[] = {"{\"fusionbench\": {\"schema\": 1}, \"cases\": []}", begin};
    expect_refused(not_journal, 2, ":1: not a fusionbench journal (no 'fusionbench_journal' key on its first line)");
    const char *newer[] = {"{\"fusionbench_journal\": 2, \"head\": {}}", begin};
    expect_refused(newer, 2, ":1: journal format 2 is newer than this fusionbench understands (1)");
    const char *no_head[] = {"{\"fusionbench_journal\": 1, \"head\": []}", begin};
    expect_refused(no_head, 2, ":1: head: expected an object, got an array");
    const char *unknown_case[] = {head, cell, begin};
    expect_refused(unknown_case, 3, ":2: a cell of case 'softmax', which neither the result file nor a begin_case "
                                    "line before it has");
    const char *bad_cell[] = {head, begin,
                              "{\"case\": \"softmax\", \"dtype\": \"float32\", \"cell\": {\"row\": 128, \"col\": 128, "
                              "\"variants\": {\"eager\": {\"time_ms\": {}}}}}",
                              cell};
    expect_refused(bad_cell, 4, ":3: cell.variants.eager: missing key 'status'");
    const char *bad_dtype[] = {head, begin, "{\"case\": \"softmax\", \"dtype\": \"bf16\", \"cell\": {}}", cell};
    expect_refused(bad_dtype, 4, ":3: dtype: expected float32, float16, bfloat16 or float64, got 'bf16'");
    const char *bad_case[] = {head, "{\"begin_case\": {\"name\": \"softmax\", \"rows\": \"dim0\"}}", cell};
    expect_refused(bad_case, 3, ":2: begin_case: missing key 'row_values'");
    const char *unknown_line[] = {head, "{\"note\": 1}", cell};
    expect_refused(unknown_line, 3, ":2: neither a begin_case nor a cell line");
    const char *not_object[] = {head, "[1]", cell};
    expect_refused(not_object, 3, ":2: expected a JSON object, got an array");
    const char *other_axes[] = {head, begin,
                                "{\"begin_case\": {\"name\": \"softmax\", \"rows\": \"M\", \"cols\": \"N\", "
                                "\"row_values\": [1], \"col_values\": [1], \"variants\": [\"eager\"], "
                                "\"baseline\": \"eager\", \"dtypes\": []}}",
                                cell};
    expect_refused(other_axes, 4, ":3: case 'softmax' has the grid M x N here, but the result file has dim0 x dim1: "
                                  "another program under the same name");
    /* the samples of a journal line are checked like a file's */
    const char *bad_samples[] = {head, begin,
                                 "{\"case\": \"softmax\", \"dtype\": \"float32\", \"cell\": {\"row\": 128, \"col\": 128, "
                                 "\"variants\": {\"eager\": {\"status\": \"ok\", \"time_ms\": {\"n\": 3}, "
                                 "\"samples_us\": [1, 2]}}}}",
                                 cell};
    expect_refused(bad_samples, 4, ":3: cell.variants.eager.samples_us: 2 samples, but time_ms.n is 3");

    /* a journal whose only line is torn: nothing to apply (a run killed as it started) */
    FILE *f = fopen(jpath, "w");
    fputs("{\"fusionbench_journal\": 1, \"he", f);
    fclose(f);
    CHECK(fb_result_load(path, &doc, &info) == FB_OK && info.found && info.cells == 0 && info.warning[0]);
    CHECK(same_doc(doc, root));
    json_decref(doc);
    /* ... and without the document there is nothing at all */
    remove(path);
    CHECK(fb_result_load(path, &doc, &info) == FB_E_CASE && doc == NULL);
    char want[1400];
    snprintf(want, sizeof want, "%s: no such file, and %s holds no complete line", path, jpath);
    CHECK_STR(fb_last_error(), want);
    remove(jpath);
    /* neither file: the result file's own message */
    CHECK(fb_result_load(path, &doc, &info) == FB_E_CASE);
    snprintf(want, sizeof want, "%s: no such file", path);
    CHECK_STR(fb_last_error(), want);
    /* a journal that is a FIFO is refused before it can block */
    CHECK(fb_result_write(root, path) == FB_OK);
    CHECK(mkfifo(jpath, 0600) == 0);
    CHECK(fb_result_load(path, &doc, &info) == FB_E_CASE);
    snprintf(want, sizeof want, "%s: not a regular file", jpath);
    CHECK_STR(fb_last_error(), want);
    remove(jpath);
    remove(path);
    json_decref(root);
}

/* ---- a write that fails (a full disk): the torn line is taken back --------------- */

static void test_write_failure(void)
{
    static fb_case c;
    const int64_t rows[] = {128}, cols[] = {128, 256, 512};
    if (!softmax_on(&c, rows, 1, cols, 3)) return;
    json_t *root = new_doc("2026-04-04T00:00:00Z");
    fb_journal *j = NULL;
    CHECK(fb_journal_start(path, root, &j) == FB_OK);
    if (!j) return;
    CHECK(run_grid(root, j, &c, FB_F32, 1) == 1);
    struct stat st;
    CHECK(stat(jpath, &st) == 0);

    /* the file may grow by 100 bytes more: the next cell's line is cut there (EFBIG) */
    struct rlimit old, small;
    getrlimit(RLIMIT_FSIZE, &old);
    small = old;
    small.rlim_cur = (rlim_t)st.st_size + 100;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    json_t *cs = fb_result_case(root, "softmax"), *dj = fb_result_dtype(cs, "float32");
    const char *todo[] = {"eager", "softmax.fused"};
    fb_status s1 = fb_journal_store_cell(j, cs, dj, fresh_cell(128, 256, todo, 2));
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    CHECK(s1 == FB_E_IO);
    char want[1200];
    snprintf(want, sizeof want, "%s: cannot write: File too large", jpath);
    CHECK_STR(fb_last_error(), want);
    /* the cell is in memory all the same, and the journal takes no more lines */
    CHECK(fb_result_cell(dj, 128, 256) != NULL);
    CHECK(fb_journal_store_cell(j, cs, dj, fresh_cell(128, 512, todo, 2)) == FB_E_IO);
    fb_journal_abandon(j);
    /* the journal still reads (no torn line left), with the cells written before */
    CHECK(stat(jpath, &st) == 0);
    json_t *back = NULL;
    fb_journal_info info;
    CHECK(fb_result_load(path, &back, &info) == FB_OK && info.cells == 1 && !info.warning[0]);
    json_decref(back);

    /* the end: the document gets every cell held in memory, and the journal goes */
    CHECK(fb_journal_start(path, root, &j) == FB_OK);
    CHECK(fb_journal_finish(j, root) == FB_OK);
    CHECK(!exists(jpath));
    CHECK(fb_result_load(path, &back, &info) == FB_OK);
    CHECK(json_array_size(json_object_get(fb_result_dtype(fb_result_case(back, "softmax"), "float32"), "cells")) == 3);
    json_decref(back);
    remove(path);
    json_decref(root);
}

/* ---- the path ------------------------------------------------------------------ */

static void test_path(void)
{
    char *p = fb_journal_path("results/r.json");
    CHECK_STR(p, "results/r.json.journal");
    free(p);
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/r.json", dir);
    snprintf(jpath, sizeof jpath, "%s.journal", path);
    test_path();
    test_killed_run();
    test_resume();
    test_refused();
    test_write_failure();
    remove(jpath);
    remove(path);
    CHECK(rmdir(dir) == 0); /* nothing stray was left */
    return fb_t_report("test_journal");
}
