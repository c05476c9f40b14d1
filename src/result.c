/* result.c — the result file: atomic write, checked read, and the small helpers
 * that move statistics between C and JSON and find a case / dtype / cell in a
 * result document (schema in result.h).
 *
 * The file is rewritten after every cell of a run, so the write must never leave
 * a half-written PATH behind: it goes to PATH.tmp.PID in the same directory
 * (rename is only atomic within one file system), is fsync'ed, then renamed over
 * PATH. NaN and Inf have no JSON spelling; they are written as null and read back
 * as NaN. */
#include "result.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- writing ------------------------------------------------------------- */

/* Best effort: make the rename itself durable. A failure here cannot make the
 * file invalid, only possibly older after a crash, so it is not an error. */
static void fsync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else if (slash == path) {
        snprintf(dir, sizeof dir, "/");
    } else {
        size_t n = (size_t)(slash - path);
        if (n >= sizeof dir) return;
        memcpy(dir, path, n);
        dir[n] = 0;
    }
    int fd = open(dir, O_RDONLY);
    if (fd < 0) return;
    (void)fsync(fd);
    close(fd);
}

/* Writes all of `text` to `tmp` and syncs it; on failure returns errno's value
 * with the temp file possibly left behind (the caller removes it). */
static int write_synced(const char *tmp, const char *text)
{
    FILE *f = fopen(tmp, "w");
    if (!f) return errno;
    size_t len = strlen(text);
    int err = 0;
    if (fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF || fflush(f) != 0)
        err = errno ? errno : EIO;
    else if (fsync(fileno(f)) != 0)
        err = errno;
    if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
    return err;
}

fb_status fb_result_write(json_t *root, const char *path)
{
    /* Nine significant digits keep sub-nanosecond resolution on millisecond
     * times without printing binary noise (0.1 stays 0.1). Key order is kept as
     * inserted, so the file reads in schema order. */
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    if (!text) {
        fb_error("%s: cannot write: the result document cannot be serialised", path);
        return FB_E_IO;
    }

    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        free(text);
        fb_error("%s: cannot write: out of host memory", path);
        return FB_E_NOMEM;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());

    errno = 0;
    int err = write_synced(tmp, text);
    free(text);
    if (!err && rename(tmp, path) != 0) err = errno;
    if (err) {
        remove(tmp); /* may not exist (fopen failed); either way nothing is left */
        free(tmp);
        fb_error("%s: cannot write: %s", path, strerror(err));
        return FB_E_IO;
    }
    free(tmp);
    fsync_parent_dir(path);
    return FB_OK;
}

/* ---- reading ------------------------------------------------------------- */

fb_status fb_result_read(const char *path, json_t **root)
{
    *root = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) fb_error("%s: no such file", path);
        else fb_error("%s: cannot read: %s", path, strerror(errno));
        return FB_E_IO;
    }
    json_error_t je;
    errno = 0;
    json_t *doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    int read_err = ferror(f) ? (errno ? errno : EIO) : 0; /* EISDIR for a directory */
    fclose(f);
    if (!doc) {
        if (read_err) fb_error("%s: cannot read: %s", path, strerror(read_err));
        else fb_error("%s:%d:%d: %s", path, je.line, je.column, je.text);
        return FB_E_IO;
    }

    json_t *tag = json_object_get(doc, "fusionbench");
    json_t *schema = json_object_get(tag, "schema");
    if (!json_is_object(doc) || !json_is_object(tag) || !json_is_integer(schema)) {
        json_decref(doc);
        fb_error("%s: not a fusionbench result file", path);
        return FB_E_CASE;
    }
    /* An older schema is read as is (fields are only ever added); a newer one
     * may mean something this build does not understand. */
    if (json_integer_value(schema) > FB_RESULT_SCHEMA) {
        fb_error("%s: result schema %lld is newer than this fusionbench understands (%d)", path,
                 (long long)json_integer_value(schema), FB_RESULT_SCHEMA);
        json_decref(doc);
        return FB_E_CASE;
    }
    *root = doc;
    return FB_OK;
}

/* ---- numbers and statistics --------------------------------------------- */

json_t *fb_json_real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

double fb_json_number(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

json_t *fb_stats_to_json(const fb_stats *s)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
                     "min", fb_json_real(s->min), "p20", fb_json_real(s->p20),
                     "median", fb_json_real(s->median), "p80", fb_json_real(s->p80),
                     "max", fb_json_real(s->max), "mean", fb_json_real(s->mean),
                     "stdev", fb_json_real(s->stdev), "n", s->n);
}

void fb_stats_from_json(const json_t *j, fb_stats *s)
{
    s->min = fb_json_number(j, "min");
    s->p20 = fb_json_number(j, "p20");
    s->median = fb_json_number(j, "median");
    s->p80 = fb_json_number(j, "p80");
    s->max = fb_json_number(j, "max");
    s->mean = fb_json_number(j, "mean");
    s->stdev = fb_json_number(j, "stdev");
    double n = fb_json_number(j, "n");
    s->n = isfinite(n) && n > 0 ? (int)n : 0;
}

/* ---- lookups ------------------------------------------------------------- */

/* The element of `array` whose string member `key` equals `want`. */
static json_t *find_by_name(json_t *array, const char *key, const char *want)
{
    size_t i;
    json_t *it;
    json_array_foreach(array, i, it) {
        const char *name = json_string_value(json_object_get(it, key));
        if (name && strcmp(name, want) == 0) return it;
    }
    return NULL;
}

const char *fb_result_unchecked(const json_t *variant_entry)
{
    json_t *chk = json_object_get(variant_entry, "check");
    const char *why = json_string_value(json_object_get(chk, "unchecked"));
    if (why) return why;
    const char *mode = json_string_value(json_object_get(chk, "mode"));
    if (mode && strcmp(mode, "none") == 0) {
        /* files written before "unchecked" existed said passed: true here */
        why = json_string_value(json_object_get(chk, "why"));
        return why ? why : "not checked";
    }
    return NULL;
}

json_t *fb_result_case(json_t *root, const char *case_name)
{
    return find_by_name(json_object_get(root, "cases"), "name", case_name);
}

json_t *fb_result_dtype(json_t *case_obj, const char *dtype)
{
    json_t *d = find_by_name(json_object_get(case_obj, "dtypes"), "dtype", dtype);
    fb_dtype canon;
    /* Accept the same aliases as the command line ("bf16" finds "bfloat16"). */
    if (!d && fb_dtype_from_name(dtype, &canon) == 0)
        d = find_by_name(json_object_get(case_obj, "dtypes"), "dtype", fb_dtype_name(canon));
    return d;
}

/* Grid values are integers; a real with an integral value (a hand-edited file)
 * still matches. */
static bool json_equals_int(const json_t *v, int64_t want)
{
    if (json_is_integer(v)) return json_integer_value(v) == want;
    if (json_is_real(v)) return json_real_value(v) == (double)want;
    return false;
}

json_t *fb_result_cell(json_t *dtype_obj, int64_t row, int64_t col)
{
    size_t i;
    json_t *cell;
    json_array_foreach(json_object_get(dtype_obj, "cells"), i, cell) {
        if (!json_equals_int(json_object_get(cell, "row"), row)) continue;
        json_t *c = json_object_get(cell, "col");
        if (col == -1 ? (c == NULL || json_is_null(c)) : json_equals_int(c, col)) return cell;
    }
    return NULL;
}
