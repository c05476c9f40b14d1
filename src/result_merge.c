/* result_merge.c — joining result documents of one device (`fusionbench
 * merge`): shards of one grid, other dtypes, other cases.
 *
 * Joining is only honest when the inputs measure one thing on one machine, so
 * before anything is joined each pair of inputs is checked (fb_result_merge_check):
 *   - one device: the same name, compute capability, driver and runtime;
 *   - one program per case name: the same grid axes, and, wherever both hold a
 *     cell of a dtype, the same ideal bytes and FLOPs (fb_result_check_resume's
 *     rule), and the same values of the sizes that are not grid axes;
 *   - no cell measured twice with different numbers: a (case, dtype, cell,
 *     variant) both hold finished (anything but "error") must be identical, so
 *     merging a file with itself, or two copies of one shard, is fine.
 * The join itself (fb_result_merge_into) is a resume's: grid values and variant
 * lists widen, cells are added, a cell both hold keeps the first's finished
 * variants and takes the second's others (fb_result_store_cell). The speed-of-
 * light copy is a reference, not a variant: the first finished one stays. */
#include "result.h"

#include <stdlib.h>
#include <string.h>

#include "case.h"

/* ---- checks ------------------------------------------------------------------ */

static const char *str_at(const json_t *obj, const char *key) { return json_string_value(json_object_get(obj, key)); }

/* A value for a message: the string itself, or its JSON, or "none". */
static const char *show(const json_t *v, char *buf, size_t n)
{
    if (!v) return "none";
    if (json_is_string(v)) {
        char q[256];
        snprintf(buf, n, "'%s'", fb_clean(json_string_value(v), q, sizeof q));
        return buf;
    }
    char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(9));
    char q[256];
    snprintf(buf, n, "%s", t ? fb_clean(t, q, sizeof q) : "?");
    free(t);
    return buf;
}

static fb_status check_device(const json_t *a, const char *pa, const json_t *b, const char *pb)
{
    static const char *const keys[] = {"name", "cc", "driver", "runtime"};
    const json_t *da = json_object_get(a, "device"), *db = json_object_get(b, "device");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const json_t *x = json_object_get(da, keys[i]), *y = json_object_get(db, keys[i]);
        if ((!x && !y) || (x && y && json_equal(x, y))) continue;
        char s1[300], s2[300];
        fb_error("%s and %s are from different devices: device.%s %s vs %s", fb_qpath(pb), fb_qpath(pa), keys[i],
                 show(y, s1, sizeof s1), show(x, s2, sizeof s2));
        return FB_E_USAGE;
    }
    return FB_OK;
}

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static void grid_str(const json_t *cs, char *buf, size_t n)
{
    const char *rows = str_at(cs, "rows"), *cols = str_at(cs, "cols");
    char a[96], b[96];
    snprintf(buf, n, "%s%s%s", fb_clean(rows ? rows : "?", a, sizeof a), cols ? " x " : "",
             cols ? fb_clean(cols, b, sizeof b) : "");
}

/* "dim0=128 dim1=256" of a cell of case `cs`. */
static void cell_str(const json_t *cs, const json_t *cell, char *buf, size_t n)
{
    const char *rows = str_at(cs, "rows"), *cols = str_at(cs, "cols");
    char a[96], b[96];
    if (cols)
        snprintf(buf, n, "%s=%lld %s=%lld", fb_clean(rows, a, sizeof a),
                 (long long)json_integer_value(json_object_get(cell, "row")), fb_clean(cols, b, sizeof b),
                 (long long)json_integer_value(json_object_get(cell, "col")));
    else
        snprintf(buf, n, "%s=%lld", fb_clean(rows, a, sizeof a), (long long)json_integer_value(json_object_get(cell, "row")));
    size_t k = strlen(buf);
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(cs, "fixed"), key, v) /* "M=128 N=256 K=1024" */
        k += (size_t)snprintf(buf + k, n > k ? n - k : 0, " %s=%lld", fb_clean(key, a, sizeof a),
                              (long long)json_integer_value(json_object_get(json_object_get(cell, "point"), key)));
}

/* The cell of dtype_obj (of case_obj) at `cell`'s point: row, col and, for a
 * case with fixed symbols, their values (both files' cases fix the same ones). */
static json_t *same_cell(json_t *dtype_obj, const json_t *case_obj, const json_t *cell)
{
    return fb_result_cell_like(dtype_obj, case_obj, cell);
}

/* The names of a case's fixed symbols, ", "-joined ("none" without). */
static void fixed_names(const json_t *cs, char *buf, size_t n)
{
    size_t k = 0;
    const char *key;
    json_t *v;
    snprintf(buf, n, "none");
    json_object_foreach(json_object_get(cs, "fixed"), key, v) {
        char q[96];
        k += (size_t)snprintf(buf + k, n > k ? n - k : 0, "%s%s", k ? ", " : "", fb_clean(key, q, sizeof q));
    }
}

static bool same_fixed(const json_t *ca, const json_t *cb)
{
    const json_t *a = json_object_get(ca, "fixed"), *b = json_object_get(cb, "fixed");
    if (json_object_size(a) != json_object_size(b)) return false;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)b, key, v) if (!json_object_get(a, key)) return false;
    return true;
}

/* The first cell of any dtype that has a "point". */
static const json_t *some_point(const json_t *cs)
{
    size_t i, j;
    json_t *dt, *cell;
    json_array_foreach(json_object_get(cs, "dtypes"), i, dt) json_array_foreach(json_object_get(dt, "cells"), j, cell) {
        const json_t *p = json_object_get(cell, "point");
        if (json_is_object(p)) return p;
    }
    return NULL;
}

/* What differs between two entries of one variant, for the message. */
static void difference(const json_t *a, const json_t *b, char *buf, size_t n)
{
    char s1[300], s2[300];
    const json_t *sa = json_object_get(a, "status"), *sb = json_object_get(b, "status");
    if (!json_equal(sa, sb)) {
        snprintf(buf, n, "status %s vs %s", show(sa, s1, sizeof s1), show(sb, s2, sizeof s2));
        return;
    }
    const json_t *ma = json_object_get(json_object_get(a, "time_ms"), "median");
    const json_t *mb = json_object_get(json_object_get(b, "time_ms"), "median");
    if ((ma || mb) && !(ma && mb && json_equal(ma, mb))) {
        snprintf(buf, n, "time_ms.median %s vs %s", show(ma, s1, sizeof s1), show(mb, s2, sizeof s2));
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)a, key, v) if (!json_equal(v, json_object_get(b, key))) {
        snprintf(buf, n, "%s", key);
        return;
    }
    json_object_foreach((json_t *)b, key, v) if (!json_object_get(a, key)) {
        snprintf(buf, n, "%s", key);
        return;
    }
    snprintf(buf, n, "?");
}

static bool finished(const json_t *entry)
{
    const char *st = str_at(entry, "status");
    return st && strcmp(st, "error") != 0;
}

/* Case `cb` of file pb against the case of the same name `ca` of file pa. */
static fb_status check_case(const json_t *ca, const char *pa, const json_t *cb, const char *pb)
{
    char name[128], ga[256], gb[256], where[300];
    fb_clean(str_at(ca, "name"), name, sizeof name);
    if (!same_str(str_at(ca, "rows"), str_at(cb, "rows")) || !same_str(str_at(ca, "cols"), str_at(cb, "cols"))) {
        grid_str(ca, ga, sizeof ga);
        grid_str(cb, gb, sizeof gb);
        fb_error("%s and %s hold two programs under the case name '%s': its grid is %s in %s but %s in %s",
                 fb_qpath(pb), fb_qpath(pa), name, gb, fb_qpath(pb), ga, fb_qpath(pa));
        return FB_E_USAGE;
    }
    if (!same_fixed(ca, cb)) {
        fixed_names(ca, ga, sizeof ga);
        fixed_names(cb, gb, sizeof gb);
        fb_error("%s and %s hold two programs under the case name '%s': its fixed symbols are %s in %s but %s in %s",
                 fb_qpath(pb), fb_qpath(pa), name, gb, fb_qpath(pb), ga, fb_qpath(pa));
        return FB_E_USAGE;
    }
    /* the sizes that are not grid axes (nor fixed symbols) are the program's constants */
    const json_t *pta = some_point(ca), *ptb = some_point(cb);
    const char *key;
    json_t *v;
    const char *rows = str_at(ca, "rows"), *cols = str_at(ca, "cols");
    json_object_foreach((json_t *)ptb, key, v) {
        if (same_str(key, rows) || same_str(key, cols) || json_object_get(json_object_get(ca, "fixed"), key)) continue;
        const json_t *w = json_object_get(pta, key);
        if (!pta || (w && json_equal(v, w))) continue;
        char k[96];
        fb_error("%s and %s hold two programs under the case name '%s': %s is %lld in %s but %s in %s", fb_qpath(pb),
                 fb_qpath(pa), name, fb_clean(key, k, sizeof k), (long long)json_integer_value(v), fb_qpath(pb),
                 show(w, ga, sizeof ga), fb_qpath(pa));
        return FB_E_USAGE;
    }
    size_t i, j;
    json_t *dtb, *cell;
    json_array_foreach(json_object_get(cb, "dtypes"), i, dtb) {
        const char *dname = str_at(dtb, "dtype");
        json_t *dta = fb_result_dtype((json_t *)ca, dname);
        if (!dta) continue;
        json_array_foreach(json_object_get(dtb, "cells"), j, cell) {
            json_t *other = same_cell(dta, ca, cell);
            if (!other) continue;
            cell_str(cb, cell, where, sizeof where);
            static const char *const keys[] = {"ideal_bytes", "flops"};
            for (int k = 0; k < 2; k++) {
                const json_t *x = json_object_get(cell, keys[k]), *y = json_object_get(other, keys[k]);
                if (!json_is_number(x) || !json_is_number(y) || json_number_value(x) == json_number_value(y)) continue;
                fb_error("%s and %s hold two programs under the case name '%s': %s %s has %s %.0f in %s but %.0f in %s",
                         fb_qpath(pb), fb_qpath(pa), name, dname, where, keys[k], json_number_value(x), fb_qpath(pb),
                         json_number_value(y), fb_qpath(pa));
                return FB_E_USAGE;
            }
            /* the inputs' shapes, where both cells have them (files before them have none) */
            const json_t *sx = json_object_get(cell, "shapes"), *sy = json_object_get(other, "shapes");
            if (sx && sy && !json_equal(sx, sy)) {
                fb_error("%s and %s hold two programs under the case name '%s': %s %s has the input shapes %s in %s "
                         "but %s in %s",
                         fb_qpath(pb), fb_qpath(pa), name, dname, where, show(sx, ga, sizeof ga), fb_qpath(pb),
                         show(sy, gb, sizeof gb), fb_qpath(pa));
                return FB_E_USAGE;
            }
            const char *vname;
            json_t *mb;
            json_t *va = json_object_get(other, "variants");
            json_object_foreach(json_object_get(cell, "variants"), vname, mb) {
                json_t *ma = json_object_get(va, vname);
                if (!ma || !finished(ma) || !finished(mb) || json_equal(ma, mb)) continue;
                char why[700], vn[128];
                difference(mb, ma, why, sizeof why);
                fb_error("%s and %s both measured %s %s %s %s, with different results (%s): merge keeps one "
                         "measurement per variant; drop it from one file, or rename the case in one",
                         fb_qpath(pb), fb_qpath(pa), name, dname, where, fb_clean(vname, vn, sizeof vn), why);
                return FB_E_USAGE;
            }
        }
    }
    return FB_OK;
}

fb_status fb_result_merge_check(const json_t *a, const char *a_path, const json_t *b, const char *b_path)
{
    fb_status s = check_device(a, a_path, b, b_path);
    size_t i;
    json_t *cb;
    json_array_foreach(json_object_get(b, "cases"), i, cb) {
        if (s != FB_OK) break;
        const json_t *ca = fb_result_case((json_t *)a, str_at(cb, "name"));
        if (ca) s = check_case(ca, a_path, cb, b_path);
    }
    return s;
}

/* ---- the join ---------------------------------------------------------------- */

static int cmp_int(const void *x, const void *y)
{
    json_int_t a = json_integer_value(*(json_t *const *)x), b = json_integer_value(*(json_t *const *)y);
    return a < b ? -1 : a > b;
}

static bool has_value(const json_t *arr, const json_t *v)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) if (json_equal(x, v)) return true;
    return false;
}

/* into[key] widened by from[key]: unchanged when it holds all of them (its
 * order kept), else the union, ascending (as a resume widens a grid). */
static void widen_values(json_t *into, const json_t *from, const char *key)
{
    json_t *a = json_object_get(into, key);
    const json_t *b = json_object_get(from, key);
    if (!json_is_array(a) || !json_is_array(b)) return;
    size_t i;
    json_t *v;
    bool grows = false;
    json_array_foreach(b, i, v) if (!has_value(a, v)) {
        json_array_append(a, v);
        grows = true;
    }
    if (!grows) return;
    size_t n = json_array_size(a);
    json_t **items = malloc(sizeof *items * n);
    if (!items) return; /* unsorted, still every value */
    for (i = 0; i < n; i++) items[i] = json_incref(json_array_get(a, i));
    qsort(items, n, sizeof *items, cmp_int);
    json_array_clear(a);
    for (i = 0; i < n; i++) json_array_append_new(a, items[i]);
    free(items);
}

static void merge_case(json_t *ca, const json_t *cb)
{
    widen_values(ca, cb, "row_values");
    widen_values(ca, cb, "col_values");
    const char *key;
    json_t *fv;
    json_object_foreach(json_object_get(ca, "fixed"), key, fv) widen_values(json_object_get(ca, "fixed"), json_object_get(cb, "fixed"), key);
    json_t *vars = json_object_get(ca, "variants");
    size_t i, j;
    json_t *v, *dtb, *cell;
    json_array_foreach(json_object_get(cb, "variants"), i, v) if (!has_value(vars, v)) json_array_append(vars, v);
    json_array_foreach(json_object_get(cb, "dtypes"), i, dtb) {
        json_t *dta = fb_result_dtype(ca, str_at(dtb, "dtype"));
        if (!dta) {
            json_array_append_new(json_object_get(ca, "dtypes"), json_deep_copy(dtb));
            continue;
        }
        json_array_foreach(json_object_get(dtb, "cells"), j, cell)
            fb_result_store_cell(dta, same_cell(dta, ca, cell), json_deep_copy(cell));
    }
}

void fb_result_merge_into(json_t *into, const json_t *from)
{
    size_t i;
    json_t *cb;
    json_array_foreach(json_object_get(from, "cases"), i, cb) {
        json_t *ca = fb_result_case(into, str_at(cb, "name"));
        if (ca) merge_case(ca, cb);
        else json_array_append_new(json_object_get(into, "cases"), json_deep_copy(cb));
    }
}
