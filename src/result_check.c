/* result_check.c — a result document validated as strictly as a case file,
 * before `run --resume` (or any other reader) trusts it.
 *
 * A result file is written by fusionbench, but it is read back, merged into and
 * rewritten: a resumed run appends to its `cases`, `dtypes` and `cells` arrays,
 * reads every cell's `variants`, and the grids read the numbers. A hand-edited
 * or damaged file with the wrong shape at any of those levels must be refused,
 * with the place named, before anything runs — never half-merged (jansson frees
 * an item appended to a non-array, and the next write would lose the file's
 * measurements). So every level something reads is checked: types, required
 * keys, the words a status may be, and uniqueness wherever lookups go by key
 * (case names, dtypes, grid values, variant names, cell points).
 *
 * Unknown keys are kept, not refused (unlike case files): result files are
 * written by a program, fields are only ever added within a schema, and a
 * resumed run carries what it does not know through unchanged.
 *
 * Messages (status FB_E_CASE: exit 3, bad input file), in case.c's style:
 *   PATH: cases: expected an array, got an object
 *   PATH: cases[2].dtypes[0].cells[5].row: expected an integer, got the string '128'
 *   PATH: cases[0].dtypes[0].cells[7]: a second cell for row 128, col 256 (the first is cells[2])
 * The first problem in file order wins. */
#include "result.h"
#include "case.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHERE_MAX 512

#define TRY(expr)                        \
    do {                                 \
        fb_status try_s_ = (expr);       \
        if (try_s_ != FB_OK) return try_s_; \
    } while (0)

/* ---- messages ------------------------------------------------------------- */

static fb_status fail(const char *path, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static fb_status fail(const char *path, const char *where, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (where && where[0]) fb_error("%s: %s: %s", fb_qpath(path), where, msg);
    else fb_error("%s: %s", fb_qpath(path), msg);
    return FB_E_CASE;
}

/* A JSON path into a WHERE_MAX buffer; deep paths are cut, never overflow. */
static void wfmt(char *dst, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void wfmt(char *dst, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, WHERE_MAX, fmt, ap);
    va_end(ap);
}


/* where.key, or where["softmax.fused"] for a key that is not an identifier. */
static void at_key(char *dst, const char *where, const char *key)
{
    char q[96];
    fb_clean(key, q, sizeof q);
    if (fb_is_identifier(key)) wfmt(dst, "%s%s%s", where, where[0] ? "." : "", q);
    else wfmt(dst, "%s[\"%s\"]", where, q);
}

static void at_index(char *dst, const char *where, size_t i) { wfmt(dst, "%s[%zu]", where, i); }

/* ---- typed members ---------------------------------------------------------- */

typedef enum kind { K_OBJECT, K_ARRAY, K_STRING, K_NAME, K_INTEGER, K_COUNT, K_NUMBER, K_BOOL } kind;

static const char *const kind_text[] = {
    [K_OBJECT] = "an object",           [K_ARRAY] = "an array",
    [K_STRING] = "a string",            [K_NAME] = "a non-empty string",
    [K_INTEGER] = "an integer",         [K_COUNT] = "a non-negative integer",
    [K_NUMBER] = "a number (or null)",  [K_BOOL] = "true or false",
};

static bool is_kind(const json_t *j, kind k)
{
    switch (k) {
    case K_OBJECT: return json_is_object(j);
    case K_ARRAY: return json_is_array(j);
    case K_STRING: return json_is_string(j);
    case K_NAME: return json_is_string(j) && json_string_value(j)[0];
    case K_INTEGER: return json_is_integer(j);
    case K_COUNT: return json_is_integer(j) && json_integer_value(j) >= 0;
    case K_NUMBER: return json_is_number(j) || json_is_null(j); /* NaN and Inf are written as null */
    case K_BOOL: return json_is_boolean(j);
    }
    return false;
}

static fb_status expect(const char *path, const char *where, const json_t *j, kind k)
{
    if (is_kind(j, k)) return FB_OK;
    char d[96];
    return fail(path, where, "expected %s, got %s", kind_text[k], fb_json_describe(j, d, sizeof d));
}

/* obj[key] of kind k; *out is NULL when it is absent (an error only when required). */
static fb_status field(const char *path, const json_t *obj, const char *where, const char *key, kind k,
                       bool required, json_t **out)
{
    json_t *j = json_object_get(obj, key);
    if (out) *out = j;
    if (!j) return required ? fail(path, where, "missing key '%s'", key) : FB_OK;
    char w[WHERE_MAX];
    at_key(w, where, key);
    return expect(path, w, j, k);
}

/* A grid value (a row or column, or an entry of row_values / col_values): an
 * integer, and positive like every size in a case's grid. */
static fb_status grid_value(const char *path, const char *where, const json_t *j)
{
    TRY(expect(path, where, j, K_INTEGER));
    if (json_integer_value(j) < 1) return fail(path, where, "must be positive, got %lld", (long long)json_integer_value(j));
    return FB_OK;
}

static fb_status grid_field(const char *path, const json_t *obj, const char *where, const char *key)
{
    json_t *j;
    TRY(field(path, obj, where, key, K_INTEGER, true, &j));
    char w[WHERE_MAX];
    at_key(w, where, key);
    return grid_value(path, w, j);
}

/* ---- repeats ------------------------------------------------------------------ */

/* Items looked up by key must be unique, or a lookup silently finds only the
 * first. Sorting keeps this n log n even for a hostile file with many cells. */
typedef struct item_key {
    const char *s; /* a name, or NULL for points */
    int64_t a, b;  /* a grid value, or a cell's row and col (col -1 when absent) */
    size_t i;      /* position in the array */
} item_key;

static int cmp_item_key(const void *pa, const void *pb)
{
    const item_key *x = pa, *y = pb;
    if (x->s && y->s) {
        int c = strcmp(x->s, y->s);
        if (c) return c;
    }
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static bool same_key(const item_key *x, const item_key *y)
{
    return (!x->s || !y->s || strcmp(x->s, y->s) == 0) && x->a == y->a && x->b == y->b;
}

/* The earliest item (in file order) that repeats an earlier one: *second, and
 * the one it repeats: *first. Sorts `k` in place. */
static bool first_repeat(item_key *k, size_t n, size_t *first, size_t *second)
{
    if (n < 2) return false;
    qsort(k, n, sizeof *k, cmp_item_key);
    bool found = false;
    size_t head = 0;
    for (size_t j = 1; j < n; j++) {
        if (!same_key(&k[j], &k[head])) {
            head = j;
            continue;
        }
        if (!found || k[j].i < *second) {
            *first = k[head].i;
            *second = k[j].i;
            found = true;
        }
    }
    return found;
}

static item_key *new_keys(size_t n, const char *path)
{
    item_key *k = calloc(n ? n : 1, sizeof *k);
    if (!k) fb_error("%s: out of host memory checking the file", fb_qpath(path));
    return k;
}

/* An array of unique names (kind K_NAME); `what` names one in a message. */
static fb_status check_name_list(const char *path, const char *where, const json_t *arr)
{
    size_t n = json_array_size(arr), i;
    json_t *it;
    char w[WHERE_MAX];
    json_array_foreach(arr, i, it) {
        at_index(w, where, i);
        TRY(expect(path, w, it, K_NAME));
    }
    item_key *k = new_keys(n, path);
    if (!k) return FB_E_NOMEM;
    json_array_foreach(arr, i, it) k[i] = (item_key){json_string_value(it), 0, 0, i};
    size_t first, second;
    fb_status s = FB_OK;
    if (first_repeat(k, n, &first, &second)) {
        char q[96];
        at_index(w, where, second);
        s = fail(path, w, "'%s' is already %s[%zu]", fb_clean(json_string_value(json_array_get(arr, second)), q, sizeof q),
                 where, first);
    }
    free(k);
    return s;
}

/* An array of unique integers (a grid axis's values). */
static fb_status check_value_list(const char *path, const char *where, const json_t *arr)
{
    size_t n = json_array_size(arr), i;
    json_t *it;
    char w[WHERE_MAX];
    json_array_foreach(arr, i, it) {
        at_index(w, where, i);
        TRY(grid_value(path, w, it));
    }
    item_key *k = new_keys(n, path);
    if (!k) return FB_E_NOMEM;
    json_array_foreach(arr, i, it) k[i] = (item_key){NULL, (int64_t)json_integer_value(it), 0, i};
    size_t first, second;
    fb_status s = FB_OK;
    if (first_repeat(k, n, &first, &second)) {
        at_index(w, where, second);
        s = fail(path, w, "%lld is already %s[%zu]", (long long)json_integer_value(json_array_get(arr, second)),
                 where, first);
    }
    free(k);
    return s;
}

/* ---- measurements -------------------------------------------------------------- */

static fb_status check_stats(const char *path, const json_t *obj, const char *where, const char *key)
{
    static const char *const reals[] = {"min", "p20", "median", "p80", "max", "mean", "stdev"};
    json_t *st;
    TRY(field(path, obj, where, key, K_OBJECT, false, &st));
    if (!st) return FB_OK;
    char w[WHERE_MAX];
    at_key(w, where, key);
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) TRY(field(path, st, w, reals[i], K_NUMBER, false, NULL));
    return field(path, st, w, "n", K_COUNT, false, NULL);
}

static fb_status check_check(const char *path, const json_t *obj, const char *where)
{
    static const char *const ints[] = {"rows_checked", "rows_total", "elements", "bad", "worst_output", "worst_index"};
    static const char *const reals[] = {"max_abs", "max_rel", "got", "want"};
    json_t *ck;
    TRY(field(path, obj, where, "check", K_OBJECT, false, &ck));
    if (!ck) return FB_OK;
    char w[WHERE_MAX];
    at_key(w, where, "check");
    TRY(field(path, ck, w, "mode", K_NAME, false, NULL));
    TRY(field(path, ck, w, "passed", K_BOOL, false, NULL));
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) TRY(field(path, ck, w, ints[i], K_INTEGER, false, NULL));
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) TRY(field(path, ck, w, reals[i], K_NUMBER, false, NULL));
    return field(path, ck, w, "why", K_STRING, false, NULL);
}

/* An array of every sample behind a stats object, when present: "samples_us" of time_ms (files
 * written before it have none), the paired timing's "ratio_samples" of ratio. So an array of
 * stats.n finite non-negative numbers (a JSON number is always finite; null, NaN's spelling, is
 * refused: a sample is never unknown). `what` names one sample in messages. */
static fb_status check_sample_array(const char *path, const json_t *m, const char *where, const char *key,
                                    const char *stats_key, const char *what)
{
    json_t *arr;
    TRY(field(path, m, where, key, K_ARRAY, false, &arr));
    if (!arr) return FB_OK;
    char w[WHERE_MAX], wi[WHERE_MAX], d[96];
    at_key(w, where, key);
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) {
        if (json_is_number(x) && json_number_value(x) >= 0) continue;
        at_index(wi, w, i);
        return fail(path, wi, "expected a non-negative number (%s), got %s", what, fb_json_describe(x, d, sizeof d));
    }
    size_t len = json_array_size(arr);
    json_t *n = json_object_get(json_object_get(m, stats_key), "n");
    if (!json_is_integer(n))
        return fail(path, w, "%zu sample%s, but no %s.n to hold %s against", len, len == 1 ? "" : "s", stats_key,
                    len == 1 ? "it" : "them");
    if ((json_int_t)len != json_integer_value(n))
        return fail(path, w, "%zu sample%s, but %s.n is %lld", len, len == 1 ? "" : "s", stats_key,
                    (long long)json_integer_value(n));
    return FB_OK;
}

static fb_status check_samples(const char *path, const json_t *m, const char *where)
{
    return check_sample_array(path, m, where, "samples_us", "time_ms", "a time in microseconds");
}

/* "metrics", when present (run --metrics; files without it stay valid): an
 * object of counts, each a non-negative number (integers as written; a real is
 * accepted, null is not: a metric that was not measured is left out). Names
 * this build does not know are kept, as every unknown key is. */
static fb_status check_metrics(const char *path, const json_t *m, const char *where)
{
    json_t *obj;
    TRY(field(path, m, where, "metrics", K_OBJECT, false, &obj));
    TRY(field(path, m, where, "metrics_error", K_STRING, false, NULL));
    if (!obj) return FB_OK;
    char w[WHERE_MAX], wk[WHERE_MAX], d[96];
    at_key(w, where, "metrics");
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (json_is_number(v) && json_number_value(v) >= 0) continue;
        at_key(wk, w, key);
        return fail(path, wk, "expected a non-negative number (a count), got %s", fb_json_describe(v, d, sizeof d));
    }
    return FB_OK;
}

/* "sm_clock_mhz", when present (run with NVML; clocks.h, fb_clock_watch_probe): the SM clock a
 * measurement's batches ran at, {"min", "max", "mean": MHz > 0, "n": readings >= 1}. */
static fb_status check_sm_clock(const char *path, const json_t *m, const char *where)
{
    static const char *const mhz[] = {"min", "max", "mean"};
    json_t *obj;
    TRY(field(path, m, where, "sm_clock_mhz", K_OBJECT, false, &obj));
    if (!obj) return FB_OK;
    char w[WHERE_MAX], wk[WHERE_MAX], d[96];
    at_key(w, where, "sm_clock_mhz");
    for (size_t i = 0; i < sizeof mhz / sizeof mhz[0]; i++) {
        const json_t *v = json_object_get(obj, mhz[i]);
        if (json_is_number(v) && json_number_value(v) > 0) continue;
        at_key(wk, w, mhz[i]);
        return fail(path, wk, "expected a clock in MHz (a number > 0), got %s", fb_json_describe(v, d, sizeof d));
    }
    const json_t *n = json_object_get(obj, "n");
    if (!json_is_integer(n) || json_integer_value(n) < 1) {
        at_key(wk, w, "n");
        return fail(path, wk, "expected a count of readings (an integer >= 1), got %s", fb_json_describe(n, d, sizeof d));
    }
    const json_t *lb = json_object_get(obj, "limited_by");
    size_t i;
    const json_t *e;
    if (lb && !json_is_array(lb)) {
        at_key(wk, w, "limited_by");
        return fail(path, wk, "expected an array of reasons, got %s", fb_json_describe(lb, d, sizeof d));
    }
    json_array_foreach(lb, i, e) if (!json_is_string(e)) {
        at_key(wk, w, "limited_by");
        return fail(path, wk, "expected an array of reasons (strings); item %zu is %s", i, fb_json_describe(e, d, sizeof d));
    }
    return FB_OK;
}

/* "kernels_launched", when present (--timer cupti; result.h's KERNELS): what
 * CUPTI saw the variant launch. */
static fb_status check_kernels_launched(const char *path, const json_t *m, const char *where)
{
    static const char *const counts[] = {"count_min", "count_max", "memops", "names_dropped"};
    json_t *kl, *names;
    TRY(field(path, m, where, "kernels_launched", K_OBJECT, false, &kl));
    if (!kl) return FB_OK;
    char w[WHERE_MAX], wn[WHERE_MAX], wi[WHERE_MAX];
    at_key(w, where, "kernels_launched");
    TRY(field(path, kl, w, "count", K_COUNT, true, NULL));
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) TRY(field(path, kl, w, counts[i], K_COUNT, false, NULL));
    TRY(field(path, kl, w, "names", K_ARRAY, true, &names));
    at_key(wn, w, "names");
    size_t i;
    json_t *it;
    json_array_foreach(names, i, it) {
        at_index(wi, wn, i);
        TRY(expect(path, wi, it, K_NAME));
    }
    return FB_OK;
}

/* "wall_ms" of a cell or a variant (cell.c), when present: phases' host times,
 * each a number; which phases is the writer's business, so none is required. */
static fb_status check_wall(const char *path, const json_t *obj, const char *where)
{
    json_t *wall;
    TRY(field(path, obj, where, "wall_ms", K_OBJECT, false, &wall));
    if (!wall) return FB_OK;
    char w[WHERE_MAX], wk[WHERE_MAX];
    at_key(w, where, "wall_ms");
    const char *key;
    json_t *v;
    json_object_foreach(wall, key, v) {
        at_key(wk, w, key);
        TRY(expect(path, wk, v, K_NUMBER));
    }
    return FB_OK;
}

/* "paired", when present (run on a case that names its plain op: cell.c's measure_paired): the
 * floor variant's name, a status as a variant's, the floor's check, and when ok the pairs'
 * count, their ratios (t_variant / t_floor) and each side's times as stats. */
static fb_status check_paired(const char *path, const json_t *m, const char *where)
{
    static const char *const stats[] = {"ratio", "floor_ms", "time_ms"};
    json_t *pj, *st;
    TRY(field(path, m, where, "paired", K_OBJECT, false, &pj));
    if (!pj) return FB_OK;
    char w[WHERE_MAX];
    at_key(w, where, "paired");
    TRY(field(path, pj, w, "floor", K_NAME, true, NULL));
    TRY(field(path, pj, w, "status", K_NAME, true, &st));
    TRY(field(path, pj, w, "reason", K_STRING, false, NULL));
    const bool ok = strcmp(json_string_value(st), "ok") == 0;
    TRY(field(path, pj, w, "n", K_COUNT, ok, NULL));
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
        TRY(field(path, pj, w, stats[i], K_OBJECT, ok, NULL));
        TRY(check_stats(path, pj, w, stats[i]));
    }
    TRY(check_sample_array(path, pj, w, "ratio_samples", "ratio", "a ratio of two times"));
    TRY(field(path, pj, w, "ratio_step_pct", K_NUMBER, false, NULL));
    TRY(field(path, pj, w, "prepare_ms", K_NUMBER, false, NULL));
    TRY(check_wall(path, pj, w));
    return check_check(path, pj, w);
}

/* A variant's entry in a cell, or the cell's "sol" (the speed-of-light copy). */
static fb_status check_measurement(const char *path, const char *where, const json_t *m)
{
    static const char *const statuses[] = {"ok", "oom", "fail", "error", "skipped"};
    static const char *const reals[] = {"gbps", "tflops", "sol_pct", "prepare_ms", "step_pct"};
    static const char *const ints[] = {"kernels", "footprint_bytes", "peak_bytes", "timer_timeouts"};
    TRY(expect(path, where, m, K_OBJECT));
    json_t *st;
    TRY(field(path, m, where, "status", K_NAME, true, &st));
    bool known = false;
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) known |= strcmp(json_string_value(st), statuses[i]) == 0;
    if (!known) {
        char w[WHERE_MAX], q[96];
        at_key(w, where, "status");
        return fail(path, w, "unknown status '%s' (expected ok, oom, fail, error or skipped)",
                    fb_clean(json_string_value(st), q, sizeof q));
    }
    TRY(field(path, m, where, "reason", K_STRING, false, NULL));
    TRY(check_stats(path, m, where, "time_ms"));
    TRY(check_samples(path, m, where));
    TRY(check_stats(path, m, where, "span_ms"));
    TRY(check_kernels_launched(path, m, where));
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) TRY(field(path, m, where, reals[i], K_NUMBER, false, NULL));
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) TRY(field(path, m, where, ints[i], K_INTEGER, false, NULL));
    TRY(check_metrics(path, m, where));
    TRY(check_sm_clock(path, m, where));
    TRY(check_wall(path, m, where));
    TRY(check_paired(path, m, where));
    return check_check(path, m, where);
}

/* A cell's "clocks" (clocks.h), when present: {"before": READING, "after": READING},
 * each reading's members numbers; a reading NVML refused is simply absent. */
static fb_status check_clocks(const char *path, const json_t *cell, const char *where)
{
    static const char *const readings[] = {"before", "after"};
    static const char *const members[] = {"sm_clock_mhz", "mem_clock_mhz", "temp_c", "power_w"};
    json_t *clk;
    TRY(field(path, cell, where, "clocks", K_OBJECT, false, &clk));
    if (!clk) return FB_OK;
    char w[WHERE_MAX], wr[WHERE_MAX];
    at_key(w, where, "clocks");
    for (size_t r = 0; r < sizeof readings / sizeof readings[0]; r++) {
        json_t *rd;
        TRY(field(path, clk, w, readings[r], K_OBJECT, false, &rd));
        if (!rd) continue;
        at_key(wr, w, readings[r]);
        for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
            TRY(field(path, rd, wr, members[i], K_NUMBER, false, NULL));
    }
    return FB_OK;
}

/* A cell's "shapes" (result.h's SHAPES), when present: {"x": [4, 128, 1027], ...},
 * each input's sizes non-negative integers, at most FB_MAX_RANK of them. */
static fb_status check_shapes(const char *path, const json_t *cell, const char *where)
{
    json_t *shapes;
    TRY(field(path, cell, where, "shapes", K_OBJECT, false, &shapes));
    if (!shapes) return FB_OK;
    char w[WHERE_MAX], wi[WHERE_MAX], wd[WHERE_MAX];
    at_key(w, where, "shapes");
    const char *name;
    json_t *dims;
    json_object_foreach(shapes, name, dims) {
        if (!name[0]) return fail(path, w, "an input with an empty name");
        at_key(wi, w, name);
        TRY(expect(path, wi, dims, K_ARRAY));
        if (json_array_size(dims) > FB_MAX_RANK)
            return fail(path, wi, "%zu sizes; a tensor has at most %d", json_array_size(dims), FB_MAX_RANK);
        size_t i;
        json_t *d;
        json_array_foreach(dims, i, d) {
            at_index(wd, wi, i);
            TRY(expect(path, wd, d, K_COUNT));
        }
    }
    return FB_OK;
}

/* ---- cells ---------------------------------------------------------------------- */

/* `fixed`: the case's "fixed" object ({"K": [1024, 4096]}), or NULL. */
static fb_status check_cell(const char *path, const char *where, const json_t *cell, bool two_axes, const json_t *fixed)
{
    TRY(expect(path, where, cell, K_OBJECT));
    TRY(grid_field(path, cell, where, "row"));
    char w[WHERE_MAX];
    if (two_axes) {
        TRY(grid_field(path, cell, where, "col"));
    } else {
        json_t *col = json_object_get(cell, "col");
        if (col && !json_is_null(col)) {
            char d[96];
            at_key(w, where, "col");
            return fail(path, w, "the case has one grid axis (no 'cols'), so a cell has no col; got %s",
                        fb_json_describe(col, d, sizeof d));
        }
    }
    json_t *point;
    TRY(field(path, cell, where, "point", K_OBJECT, false, &point));
    if (point) {
        const char *key;
        json_t *v;
        char wp[WHERE_MAX];
        at_key(wp, where, "point");
        json_object_foreach(point, key, v) {
            at_key(w, wp, key);
            TRY(expect(path, w, v, K_INTEGER));
        }
    }
    if (fixed) { /* a cell is (row, col, the fixed symbols' values): its point must say them */
        if (!point) {
            at_key(w, where, "point");
            return fail(path, w, "missing; the case has fixed symbols, so a cell's point names their values");
        }
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)fixed, key, v) {
            if (json_object_get(point, key)) continue;
            char q[96];
            at_key(w, where, "point");
            return fail(path, w, "no value for the fixed symbol '%s'", fb_clean(key, q, sizeof q));
        }
    }
    TRY(check_shapes(path, cell, where));
    TRY(field(path, cell, where, "ideal_bytes", K_NUMBER, false, NULL));
    TRY(field(path, cell, where, "flops", K_NUMBER, false, NULL));
    TRY(check_clocks(path, cell, where));
    TRY(check_wall(path, cell, where));
    json_t *sol;
    TRY(field(path, cell, where, "sol", K_OBJECT, false, &sol));
    if (sol) {
        at_key(w, where, "sol");
        TRY(check_measurement(path, w, sol));
    }
    json_t *vars;
    TRY(field(path, cell, where, "variants", K_OBJECT, true, &vars));
    char wv[WHERE_MAX];
    at_key(wv, where, "variants");
    const char *name;
    json_t *m;
    json_object_foreach(vars, name, m) {
        if (!name[0]) return fail(path, wv, "a variant with an empty name");
        at_key(w, wv, name);
        TRY(check_measurement(path, w, m));
    }
    return FB_OK;
}

/* "K=1024 B=2": a cell's fixed symbols' values (malloc'ed), "" without fixed symbols */
static char *fixed_text(const json_t *cell, const json_t *fixed)
{
    size_t cap = 1 + json_object_size(fixed) * (FB_NAME_MAX + 24), k = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    t[0] = 0;
    const char *key;
    json_t *v;
    const json_t *pt = json_object_get(cell, "point");
    json_object_foreach((json_t *)fixed, key, v) k += (size_t)snprintf(
        t + k, cap - k, "%s%.*s=%lld", k ? " " : "", FB_NAME_MAX - 1, key,
        (long long)json_integer_value(json_object_get(pt, key)));
    return t;
}

static fb_status check_cells(const char *path, const char *where, const json_t *cells, bool two_axes,
                             const json_t *fixed)
{
    size_t n = json_array_size(cells), i;
    json_t *cell;
    char w[WHERE_MAX];
    json_array_foreach(cells, i, cell) {
        at_index(w, where, i);
        TRY(check_cell(path, w, cell, two_axes, fixed));
    }
    item_key *k = new_keys(n, path);
    if (!k) return FB_E_NOMEM;
    char **texts = fixed ? calloc(n ? n : 1, sizeof *texts) : NULL;
    if (fixed && !texts) {
        free(k);
        fb_error("%s: out of host memory checking the file", fb_qpath(path));
        return FB_E_NOMEM;
    }
    fb_status s = FB_OK;
    json_array_foreach(cells, i, cell) {
        json_t *col = json_object_get(cell, "col");
        if (fixed && !(texts[i] = fixed_text(cell, fixed))) s = FB_E_NOMEM;
        k[i] = (item_key){fixed ? (texts[i] ? texts[i] : "") : NULL, (int64_t)json_integer_value(json_object_get(cell, "row")),
                          json_is_integer(col) ? (int64_t)json_integer_value(col) : -1, i};
    }
    size_t first, second;
    if (s) fb_error("%s: out of host memory checking the file", fb_qpath(path));
    else if (first_repeat(k, n, &first, &second)) {
        json_t *c = json_array_get(cells, second);
        at_index(w, where, second);
        if (fixed)
            s = fail(path, w, "a second cell for row %lld, col %lld, %s (the first is %s[%zu])",
                     (long long)json_integer_value(json_object_get(c, "row")),
                     (long long)json_integer_value(json_object_get(c, "col")), texts[second], where, first);
        else if (two_axes)
            s = fail(path, w, "a second cell for row %lld, col %lld (the first is %s[%zu])",
                     (long long)json_integer_value(json_object_get(c, "row")),
                     (long long)json_integer_value(json_object_get(c, "col")), where, first);
        else
            s = fail(path, w, "a second cell for row %lld (the first is %s[%zu])",
                     (long long)json_integer_value(json_object_get(c, "row")), where, first);
    }
    if (texts)
        for (size_t t = 0; t < n; t++) free(texts[t]);
    free(texts);
    free(k);
    return s;
}

/* ---- cases -------------------------------------------------------------------------- */

static fb_status check_dtypes(const char *path, const char *where, const json_t *dtypes, bool two_axes,
                              const json_t *fixed)
{
    size_t i;
    json_t *dt;
    char w[WHERE_MAX], wk[WHERE_MAX];
    bool seen[FB_NDTYPES] = {false};
    size_t seen_at[FB_NDTYPES] = {0};
    json_array_foreach(dtypes, i, dt) {
        at_index(w, where, i);
        TRY(expect(path, w, dt, K_OBJECT));
        json_t *name;
        TRY(field(path, dt, w, "dtype", K_NAME, true, &name));
        at_key(wk, w, "dtype");
        /* the canonical name only: lookups by an alias would miss it and add a twin */
        fb_dtype d;
        const char *s = json_string_value(name);
        if (fb_dtype_from_name(s, &d) != 0 || strcmp(s, fb_dtype_name(d)) != 0) {
            char q[96];
            return fail(path, wk, "expected float32, float16, bfloat16 or float64, got '%s'", fb_clean(s, q, sizeof q));
        }
        if (seen[d]) return fail(path, wk, "'%s' is already %s[%zu]", s, where, seen_at[d]);
        seen[d] = true;
        seen_at[d] = i;
        json_t *cells;
        TRY(field(path, dt, w, "cells", K_ARRAY, true, &cells));
        at_key(wk, w, "cells");
        TRY(check_cells(path, wk, cells, two_axes, fixed));
    }
    return FB_OK;
}

static fb_status check_case(const char *path, const char *where, const json_t *cs)
{
    char w[WHERE_MAX];
    TRY(expect(path, where, cs, K_OBJECT));
    TRY(field(path, cs, where, "name", K_NAME, true, NULL));
    TRY(field(path, cs, where, "summary", K_STRING, false, NULL));
    TRY(field(path, cs, where, "file", K_STRING, false, NULL));

    json_t *rows, *cols, *rv, *cv;
    TRY(field(path, cs, where, "rows", K_NAME, true, &rows));
    TRY(field(path, cs, where, "cols", K_NAME, false, &cols));
    TRY(field(path, cs, where, "row_values", K_ARRAY, true, &rv));
    at_key(w, where, "row_values");
    TRY(check_value_list(path, w, rv));
    if (cols) {
        TRY(field(path, cs, where, "col_values", K_ARRAY, true, &cv));
        at_key(w, where, "col_values");
        TRY(check_value_list(path, w, cv));
    } else if (json_object_get(cs, "col_values")) {
        at_key(w, where, "col_values");
        return fail(path, w, "present, but the case has no 'cols'");
    }

    /* "fixed": {"K": [1024, 4096]}: symbols beside rows and cols, each with its values */
    json_t *fixed;
    TRY(field(path, cs, where, "fixed", K_OBJECT, false, &fixed));
    if (fixed) {
        char wf[WHERE_MAX];
        at_key(w, where, "fixed");
        if (json_object_size(fixed) == 0) return fail(path, w, "no symbols; a case without fixed symbols has no 'fixed'");
        const char *key;
        json_t *fv;
        json_object_foreach(fixed, key, fv) {
            char q[96];
            if (!key[0]) return fail(path, w, "a symbol with an empty name");
            at_key(wf, w, key);
            if (!strcmp(key, json_string_value(rows)) || (cols && !strcmp(key, json_string_value(cols))))
                return fail(path, wf, "'%s' is a grid axis too", fb_clean(key, q, sizeof q));
            TRY(expect(path, wf, fv, K_ARRAY));
            TRY(check_value_list(path, wf, fv));
        }
    }

    json_t *vars, *base;
    TRY(field(path, cs, where, "variants", K_ARRAY, true, &vars));
    at_key(w, where, "variants");
    TRY(check_name_list(path, w, vars));
    TRY(field(path, cs, where, "baseline", K_NAME, true, &base));
    bool listed = false;
    size_t i;
    json_t *v;
    json_array_foreach(vars, i, v) listed |= strcmp(json_string_value(v), json_string_value(base)) == 0;
    if (!listed) {
        char q[96];
        at_key(w, where, "baseline");
        return fail(path, w, "'%s' is not one of the case's variants", fb_clean(json_string_value(base), q, sizeof q));
    }

    json_t *dtypes;
    TRY(field(path, cs, where, "dtypes", K_ARRAY, true, &dtypes));
    at_key(w, where, "dtypes");
    return check_dtypes(path, w, dtypes, cols != NULL, fixed);
}

fb_status fb_result_check_case(const json_t *case_obj, const char *path, const char *where)
{
    return check_case(path, where, case_obj);
}

fb_status fb_result_check_cell(const json_t *cell, bool two_axes, const char *path, const char *where)
{
    return check_cell(path, where, cell, two_axes, NULL);
}

fb_status fb_result_check_case_cell(const json_t *cell, const json_t *case_obj, const char *path, const char *where)
{
    const json_t *fixed = json_object_get(case_obj, "fixed");
    return check_cell(path, where, cell, json_object_get(case_obj, "cols") != NULL, json_is_object(fixed) ? fixed : NULL);
}

fb_status fb_result_check(const json_t *doc, const char *path)
{
    char d[96], w[WHERE_MAX];
    if (!json_is_object(doc))
        return fail(path, NULL, "not a fusionbench result file (expected a JSON object, got %s)",
                    fb_json_describe(doc, d, sizeof d));
    json_t *tag = json_object_get(doc, "fusionbench");
    if (!tag) return fail(path, NULL, "not a fusionbench result file (no 'fusionbench' key)");
    TRY(expect(path, "fusionbench", tag, K_OBJECT));
    json_t *schema;
    TRY(field(path, tag, "fusionbench", "schema", K_INTEGER, true, &schema));
    if (json_integer_value(schema) < 1)
        return fail(path, "fusionbench.schema", "expected a positive integer, got %lld",
                    (long long)json_integer_value(schema));
    /* An older schema is read as is (fields are only ever added); a newer one
     * may mean something this build does not understand. */
    if (json_integer_value(schema) > FB_RESULT_SCHEMA)
        return fail(path, NULL, "result schema %lld is newer than this fusionbench understands (%d)",
                    (long long)json_integer_value(schema), FB_RESULT_SCHEMA);
    TRY(field(path, tag, "fusionbench", "version", K_STRING, false, NULL));
    TRY(field(path, tag, "fusionbench", "git", K_STRING, false, NULL));

    static const char *const strings[] = {"started", "finished", "host", "command"};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) TRY(field(path, doc, "", strings[i], K_STRING, false, NULL));
    json_t *dev, *resumed;
    TRY(field(path, doc, "", "device", K_OBJECT, false, &dev));
    if (dev) TRY(field(path, dev, "device", "name", K_STRING, false, NULL));
    json_t *settings, *metrics;
    TRY(field(path, doc, "", "settings", K_OBJECT, false, &settings));
    /* write, clean or none as run writes it; text, not a closed set: the torch
     * peer's files (scripts/torch_peer.py) described their flush in a sentence */
    if (settings) TRY(field(path, settings, "settings", "flush", K_NAME, false, NULL));
    TRY(field(path, settings, "settings", "tf32", K_BOOL, false, NULL));
    TRY(field(path, settings, "settings", "metrics", K_OBJECT, false, &metrics));
    const char *mk;
    json_t *mv;
    json_object_foreach(metrics, mk, mv) {
        char wm[WHERE_MAX];
        at_key(wm, "settings.metrics", mk);
        TRY(expect(path, wm, mv, K_STRING)); /* the CUPTI metric it was measured with */
    }
    TRY(field(path, doc, "", "resumed", K_ARRAY, false, &resumed));
    size_t i;
    json_t *it;
    json_array_foreach(resumed, i, it) {
        at_index(w, "resumed", i);
        TRY(expect(path, w, it, K_OBJECT));
    }

    json_t *cases;
    TRY(field(path, doc, "", "cases", K_ARRAY, true, &cases));
    json_array_foreach(cases, i, it) {
        at_index(w, "cases", i);
        TRY(check_case(path, w, it));
    }
    size_t n = json_array_size(cases);
    item_key *k = new_keys(n, path);
    if (!k) return FB_E_NOMEM;
    json_array_foreach(cases, i, it) k[i] = (item_key){json_string_value(json_object_get(it, "name")), 0, 0, i};
    size_t first, second;
    fb_status s = FB_OK;
    if (first_repeat(k, n, &first, &second)) {
        char q[96];
        wfmt(w, "cases[%zu].name", second);
        s = fail(path, w, "case '%s' is already cases[%zu]",
                 fb_clean(json_string_value(json_object_get(json_array_get(cases, second), "name")), q, sizeof q), first);
    }
    free(k);
    return s;
}
