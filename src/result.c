/* result.c — the result file: atomic write, checked read, the small helpers
 * that move statistics between C and JSON and find a case / dtype / cell in a
 * result document (schema in result.h), and the merge a resumed run does.
 *
 * The file is replaced whole (at a run's start and end, and by merge), so the
 * write must never leave a half-written PATH behind: it goes to PATH.tmp.PID in
 * the same directory (rename is only atomic within one file system), is
 * fsync'ed, then renamed over PATH. The cells a run finishes in between go to
 * its journal (journal.h), not to PATH. NaN and Inf have no JSON spelling; they are written as null and read back
 * as NaN. A file read back is validated whole (result_check.c) before anything
 * uses it, and a resumed run only adds: a cell keeps its finished variants, a
 * case keeps the grid values and variants of earlier runs. */
#include "result.h"
#include "bench.h"
#include "clocks.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- writing ------------------------------------------------------------- */

/* Best effort: make the rename itself durable. A failure here cannot make the
 * file invalid, only possibly older after a crash, so it is not an error. */
void fb_result_sync_dir(const char *path)
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

/* Nine significant digits keep sub-nanosecond resolution on millisecond times
 * without printing binary noise (0.1 stays 0.1). */
#define DUMP_FLAGS (JSON_ENCODE_ANY | JSON_REAL_PRECISION(9))

/* An array of numbers, strings, booleans and nulls only: printed on one line. */
static bool is_flat_array(const json_t *v)
{
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x) if (json_is_object(x) || json_is_array(x)) return false;
    return true;
}

static void newline_indent(FILE *f, int depth)
{
    fputc('\n', f);
    for (int i = 0; i < depth; i++) fputc(' ', f);
}

/* jansson's JSON_INDENT(1) layout (key order as inserted, so the file reads in
 * schema order), except that an array of scalars stays on one line: the timing
 * samples are thousands of numbers per variant, and one line per number would
 * triple their size. Streamed, so a large document is never a second string in
 * memory. -1 on a write error. */
static int dump_value(FILE *f, const json_t *v, int depth)
{
    bool obj = json_is_object(v) && json_object_size(v) > 0;
    bool arr = json_is_array(v) && json_array_size(v) > 0 && !is_flat_array(v);
    if (!obj && !arr) return json_dumpf(v, f, DUMP_FLAGS);
    fputc(obj ? '{' : '[', f);
    bool first = true;
    if (obj) {
        const char *key;
        json_t *x;
        json_object_foreach((json_t *)v, key, x) {
            if (!first) fputc(',', f);
            first = false;
            newline_indent(f, depth + 1);
            json_t *k = json_string(key);
            int rc = k ? json_dumpf(k, f, DUMP_FLAGS) : -1;
            json_decref(k);
            if (rc != 0) return -1;
            fputs(": ", f);
            if (dump_value(f, x, depth + 1) != 0) return -1;
        }
    } else {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            if (!first) fputc(',', f);
            first = false;
            newline_indent(f, depth + 1);
            if (dump_value(f, x, depth + 1) != 0) return -1;
        }
    }
    newline_indent(f, depth);
    fputc(obj ? '}' : ']', f);
    return ferror(f) ? -1 : 0;
}

int fb_result_print(FILE *f, const json_t *root)
{
    if (dump_value(f, root, 0) != 0 || fputc('\n', f) == EOF || fflush(f) != 0) return errno ? errno : EIO;
    return 0;
}

/* Writes `root` to `tmp` and syncs it; on failure returns errno's value with
 * the temp file possibly left behind (the caller removes it). */
static int write_synced(const char *tmp, const json_t *root)
{
    FILE *f = fopen(tmp, "w");
    if (!f) return errno;
    errno = 0;
    int err = fb_result_print(f, root);
    if (!err && fsync(fileno(f)) != 0) err = errno;
    if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
    return err;
}

/* PATH.tmp.PID, in PATH's directory (rename is only atomic within one file
 * system); NULL when out of memory. */
static char *temp_name(const char *path)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (tmp) snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    return tmp;
}

fb_status fb_result_write(json_t *root, const char *path)
{
    char *tmp = temp_name(path);
    if (!tmp) {
        fb_error("%s: cannot write: out of host memory", fb_qpath(path));
        return FB_E_NOMEM;
    }

    errno = 0;
    int err = write_synced(tmp, root);
    if (!err && rename(tmp, path) != 0) err = errno;
    if (err) {
        remove(tmp); /* may not exist (fopen failed); either way nothing is left */
        free(tmp);
        fb_error("%s: cannot write: %s", fb_qpath(path), strerror(err));
        return FB_E_IO;
    }
    free(tmp);
    fb_result_sync_dir(path);
    return FB_OK;
}

/* Can PATH be replaced by fb_result_write? Checked before a run opens the GPU,
 * so that a typo in --out costs nothing; the probe is the write's own first step
 * (create PATH.tmp.PID), undone at once. */
fb_status fb_result_check_target(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fb_error("%s: cannot write: is a directory", fb_qpath(path));
            return FB_E_IO;
        }
        /* the file is replaced by a rename: that would put a regular file in place of a FIFO or device */
        if (!S_ISREG(st.st_mode)) {
            fb_error("%s: cannot write: not a regular file", fb_qpath(path));
            return FB_E_IO;
        }
    }
    char *tmp = temp_name(path);
    if (!tmp) {
        fb_error("%s: cannot write: out of host memory", fb_qpath(path));
        return FB_E_NOMEM;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0) {
        close(fd);
        remove(tmp);
    }
    free(tmp);
    if (err) {
        fb_error("%s: cannot write: %s", fb_qpath(path), strerror(err));
        return FB_E_IO;
    }
    return FB_OK;
}

/* ---- reading ------------------------------------------------------------- */

/* Far above any real result (a full --all run is a few MB); keeps a mistaken
 * --resume big.bin from building a tree of gigabytes. */
#define MAX_RESULT_BYTES ((size_t)1 << 30)

/* The whole file, NUL-terminated. Every failure is the input's: FB_E_CASE. */
static fb_status read_whole(const char *path, char **text, size_t *len)
{
    /* O_NONBLOCK: opening a FIFO that has no writer would block forever. The
     * type is then checked on the open descriptor, not the name, so nothing
     * can be swapped in between the check and the read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) fb_error("%s: no such file", fb_qpath(path));
        else fb_error("%s: cannot read: %s", fb_qpath(path), strerror(errno));
        return FB_E_CASE;
    }
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) != 0) fb_error("%s: cannot read: %s", fb_qpath(path), strerror(errno));
    else if (S_ISDIR(st.st_mode)) fb_error("%s: is a directory, not a result file", fb_qpath(path));
    else if (!S_ISREG(st.st_mode)) fb_error("%s: not a regular file", fb_qpath(path)); /* a FIFO or device: blocks or never ends */
    else if ((size_t)st.st_size > MAX_RESULT_BYTES)
        fb_error("%s: too large for a result file (%lld bytes; at most %zu)", fb_qpath(path), (long long)st.st_size,
                 MAX_RESULT_BYTES);
    else ok = true;
    if (!ok) {
        close(fd);
        return FB_E_CASE;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    int err = buf ? 0 : ENOMEM;
    while (!err) {
        if (n == cap) { /* the file grew since fstat */
            if (cap >= MAX_RESULT_BYTES) {
                err = EFBIG;
                break;
            }
            char *more = realloc(buf, 2 * cap + 1);
            if (!more) {
                err = ENOMEM;
                break;
            }
            buf = more;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) err = errno;
        else if (got == 0) break;
        else n += (size_t)got;
    }
    close(fd);
    if (err) {
        free(buf);
        if (err == ENOMEM) {
            fb_error("%s: out of host memory reading the file", fb_qpath(path));
            return FB_E_NOMEM;
        }
        fb_error("%s: cannot read: %s", fb_qpath(path), strerror(err));
        return FB_E_CASE;
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return FB_OK;
}

fb_status fb_result_parse(const char *text, size_t len, const char *path, json_t **root)
{
    *root = NULL;
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        fb_error("%s:%d:%d: %s", fb_qpath(path), je.line, je.column, je.text);
        return FB_E_CASE;
    }
    fb_status s = fb_result_check(doc, path);
    if (s != FB_OK) {
        json_decref(doc);
        return s;
    }
    *root = doc;
    return FB_OK;
}

fb_status fb_result_read(const char *path, json_t **root)
{
    *root = NULL;
    char *text;
    size_t len;
    fb_status s = read_whole(path, &text, &len);
    if (s != FB_OK) return s;
    s = fb_result_parse(text, len, path, root);
    free(text);
    return s;
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

/* x[i] * scale rounded to 1 / quanta, as a JSON array; NULL when there are none or one is not
 * finite and non-negative (the schema has no spelling for it: none kept). */
static json_t *reals_json(const double *x, int n, double scale, double quanta)
{
    if (!x || n <= 0) return NULL;
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]) || x[i] < 0) return NULL;
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_real(round(x[i] * scale * quanta) / quanta)) != 0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

/* 1 ns steps: finer than any event timer resolves, and short to print */
json_t *fb_samples_to_json(const double *ms, int n) { return reals_json(ms, n, 1e3, 1e3); }

/* 1e-5: a hundred times finer than the pairs' ratios move (kernels/NOTES.md, stop 43) */
json_t *fb_ratios_to_json(const double *ratios, int n) { return reals_json(ratios, n, 1.0, 1e5); }

json_t *fb_kernels_launched_json(const fb_timer_kernels *k)
{
    json_t *j = json_object(), *names = json_array();
    json_object_set_new(j, "count", json_integer(k->count));
    for (int i = 0; i < k->n_names; i++) json_array_append_new(names, json_string(k->names[i]));
    json_object_set_new(j, "names", names);
    if (k->count_min != k->count_max) {
        json_object_set_new(j, "count_min", json_integer(k->count_min));
        json_object_set_new(j, "count_max", json_integer(k->count_max));
    }
    if (k->memops > 0) json_object_set_new(j, "memops", json_integer(k->memops));
    if (k->names_dropped > 0) json_object_set_new(j, "names_dropped", json_integer(k->names_dropped));
    return j;
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

json_t *fb_result_shapes_json(const fb_case *c, const fb_shape *shapes)
{
    json_t *o = json_object();
    for (int i = 0; i < c->n_inputs; i++) {
        json_t *dims = json_array();
        for (int d = 0; d < shapes[i].rank; d++) json_array_append_new(dims, json_integer((json_int_t)shapes[i].dim[d]));
        json_object_set_new(o, c->values[i].name, dims);
    }
    return o;
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
    return fb_result_cell_fixed(dtype_obj, row, col, NULL);
}

/* Does `cell` hold, in its "point", every symbol -> value of `fixed`? */
static bool fixed_match(const json_t *cell, const json_t *fixed)
{
    const json_t *pt = json_object_get(cell, "point");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)fixed, k, v) if (!json_equal(json_object_get(pt, k), v)) return false;
    return true;
}

json_t *fb_result_cell_fixed(json_t *dtype_obj, int64_t row, int64_t col, const json_t *fixed)
{
    size_t i;
    json_t *cell;
    json_array_foreach(json_object_get(dtype_obj, "cells"), i, cell) {
        if (!json_equals_int(json_object_get(cell, "row"), row)) continue;
        json_t *c = json_object_get(cell, "col");
        if (!(col == -1 ? (c == NULL || json_is_null(c)) : json_equals_int(c, col))) continue;
        if (!fixed || fixed_match(cell, fixed)) return cell;
    }
    return NULL;
}

json_t *fb_result_cell_fixed_of(const json_t *case_obj, const json_t *cell)
{
    const json_t *fx = json_object_get(case_obj, "fixed");
    if (!json_is_object(fx)) return NULL;
    const json_t *pt = json_object_get(cell, "point");
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)fx, k, v) {
        json_t *pv = json_object_get(pt, k);
        json_object_set_new(out, k, pv ? json_incref(pv) : json_null());
    }
    return out;
}

json_t *fb_result_cell_like(json_t *dtype_obj, const json_t *case_obj, const json_t *cell)
{
    json_t *fx = fb_result_cell_fixed_of(case_obj, cell);
    const json_t *col = json_object_get(cell, "col");
    json_t *out = fb_result_cell_fixed(dtype_obj, json_integer_value(json_object_get(cell, "row")),
                                       json_is_integer(col) ? json_integer_value(col) : -1, fx);
    json_decref(fx);
    return out;
}

json_t *fb_result_cell_at(json_t *dtype_obj, const fb_case *c, const fb_point *p)
{
    json_t *fx = NULL;
    if (c->n_fixed) {
        fx = json_object();
        for (int f = 0; f < c->n_fixed; f++)
            json_object_set_new(fx, c->sym[c->fixed[f].sym], json_integer(p->sym[c->fixed[f].sym]));
    }
    json_t *out = fb_result_cell_fixed(dtype_obj, p->sym[c->axis[0].sym], c->n_axes > 1 ? p->sym[c->axis[1].sym] : -1, fx);
    json_decref(fx);
    return out;
}

size_t fb_result_n_grids(const json_t *case_obj)
{
    size_t n = 1;
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(case_obj, "fixed"), k, v) n *= json_array_size(v);
    return n;
}

json_t *fb_result_grid_fixed(const json_t *case_obj, size_t g)
{
    const json_t *fx = json_object_get(case_obj, "fixed");
    if (!json_is_object(fx) || json_object_size(fx) == 0) return NULL;
    size_t nf = json_object_size(fx), i = 0;
    const char *keys[FB_MAX_SYMS];
    json_t *vals[FB_MAX_SYMS];
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)fx, k, v) if (i < FB_MAX_SYMS) keys[i] = k, vals[i++] = v;
    if (i < nf) nf = i;
    /* the last symbol varies fastest: peel the index from the back */
    json_t *idx[FB_MAX_SYMS];
    for (size_t f = nf; f-- > 0;) {
        size_t n = json_array_size(vals[f]);
        idx[f] = n ? json_array_get(vals[f], g % n) : json_null();
        g = n ? g / n : g;
    }
    json_t *out = json_object();
    for (size_t f = 0; f < nf; f++) json_object_set(out, keys[f], idx[f]);
    return out;
}

const char *fb_result_fixed_label(const json_t *fixed, char *buf, size_t n)
{
    size_t used = 0;
    const char *k;
    json_t *v;
    if (n) buf[0] = 0;
    json_object_foreach((json_t *)fixed, k, v) {
        if (used >= n) break;
        int w = json_is_integer(v) ? snprintf(buf + used, n - used, "%s%s=%lld", used ? " " : "", k,
                                              (long long)json_integer_value(v))
                                   : snprintf(buf + used, n - used, "%s%s=?", used ? " " : "", k);
        if (w > 0) used += (size_t)w;
    }
    return buf;
}

/* ---- resuming ------------------------------------------------------------ */

static const char *axis_name(const fb_case *c, int a) { return a < c->n_axes ? c->sym[c->axis[a].sym] : NULL; }

static bool same_name(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

/* The number at key, and whether it is one (null and absent are not compared). */
static bool number_at(const json_t *obj, const char *key, double *v)
{
    const json_t *j = json_object_get(obj, key);
    if (!json_is_number(j)) return false;
    *v = json_number_value(j);
    return true;
}

fb_status fb_result_check_resume(json_t *root, const char *path, const fb_case *c)
{
    json_t *cs = fb_result_case(root, c->name);
    if (!cs) return FB_OK;
    const char *rows = json_string_value(json_object_get(cs, "rows"));
    const char *cols = json_string_value(json_object_get(cs, "cols"));
    if (!same_name(rows, axis_name(c, 0)) || !same_name(cols, axis_name(c, 1))) {
        char there[2 * FB_NAME_MAX + 8], here[2 * FB_NAME_MAX + 8];
        snprintf(there, sizeof there, "%s%s%s", rows ? rows : "?", cols ? " x " : "", cols ? cols : "");
        snprintf(here, sizeof here, "%s%s%s", axis_name(c, 0), c->n_axes > 1 ? " x " : "",
                 c->n_axes > 1 ? axis_name(c, 1) : "");
        fb_error("%s: its case '%s' has the grid %s, but %s has %s: another case under the same name; "
                 "resume into another result file, or rename the case",
                 fb_qpath(path), c->name, there, fb_qpath(c->path), here);
        return FB_E_USAGE;
    }
    /* the same symbols fixed (their values may differ: a resumed run adds grids) */
    const json_t *fx = json_object_get(cs, "fixed");
    bool same_fixed = (int)json_object_size(fx) == c->n_fixed;
    for (int f = 0; f < c->n_fixed && same_fixed; f++) same_fixed = json_object_get(fx, c->sym[c->fixed[f].sym]) != NULL;
    if (!same_fixed) {
        char there[FB_MAX_SYMS * (FB_NAME_MAX + 2) + 8] = "none", here[sizeof there] = "none";
        size_t k = 0;
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)fx, key, v) k += (size_t)snprintf(there + k, sizeof there - k, "%s%s", k ? ", " : "", key);
        k = 0;
        for (int f = 0; f < c->n_fixed; f++)
            k += (size_t)snprintf(here + k, sizeof here - k, "%s%s", k ? ", " : "", c->sym[c->fixed[f].sym]);
        fb_error("%s: its case '%s' fixes the symbols %s, but %s fixes %s: another case under the same name; "
                 "resume into another result file, or rename the case",
                 fb_qpath(path), c->name, there, fb_qpath(c->path), here);
        return FB_E_USAGE;
    }
    /* Every cell the file holds for this case must describe this program. Bytes
     * and FLOPs are derived from it, so a program that reads or computes
     * anything differently is caught (one with the same counts is not). */
    size_t i, j;
    json_t *dt, *cell;
    json_array_foreach(json_object_get(cs, "dtypes"), i, dt) {
        fb_dtype d;
        if (fb_dtype_from_name(json_string_value(json_object_get(dt, "dtype")), &d) != 0) continue;
        json_array_foreach(json_object_get(dt, "cells"), j, cell) {
            fb_point pt = {0};
            pt.sym[c->axis[0].sym] = (int64_t)json_integer_value(json_object_get(cell, "row"));
            if (c->n_axes > 1) pt.sym[c->axis[1].sym] = (int64_t)json_integer_value(json_object_get(cell, "col"));
            const json_t *cpt = json_object_get(cell, "point"); /* the validator made sure it has them */
            for (int f = 0; f < c->n_fixed; f++)
                pt.sym[c->fixed[f].sym] = (int64_t)json_integer_value(json_object_get(cpt, c->sym[c->fixed[f].sym]));
            char pts[FB_MAX_SYMS * (FB_NAME_MAX + 24)];
            fb_point_str(c, &pt, pts, sizeof pts);
            fb_shape shapes[FB_MAX_VALUES];
            fb_costs costs;
            fb_status s = fb_program_shapes(c, &pt, shapes);
            if (s == FB_OK) s = fb_program_costs(c, shapes, d, &costs);
            if (s != FB_OK) {
                char why[1024];
                snprintf(why, sizeof why, "%s", fb_last_error());
                fb_error("%s: case '%s' %s %s: the file's cell does not fit %s (%s): the program changed since; "
                         "resume into another result file",
                         fb_qpath(path), c->name, fb_dtype_name(d), pts, fb_qpath(c->path), why);
                return FB_E_USAGE;
            }
            /* the inputs' shapes say what the bytes may not (x [4, T, N] against [T, 4, N]) */
            const json_t *had_shapes = json_object_get(cell, "shapes");
            json_t *now_shapes = had_shapes ? fb_result_shapes_json(c, shapes) : NULL;
            if (now_shapes && !json_equal(had_shapes, now_shapes)) {
                char *a = json_dumps(had_shapes, JSON_COMPACT), *b = json_dumps(now_shapes, JSON_COMPACT);
                char qa[256], qb[256];
                fb_error("%s: case '%s' %s %s: the file's cell has the input shapes %s, but %s gives %s: the program "
                         "changed since; resume into another result file",
                         fb_qpath(path), c->name, fb_dtype_name(d), pts, fb_clean(a ? a : "?", qa, sizeof qa),
                         fb_qpath(c->path), fb_clean(b ? b : "?", qb, sizeof qb));
                free(a);
                free(b);
                json_decref(now_shapes);
                return FB_E_USAGE;
            }
            json_decref(now_shapes);
            static const char *const keys[] = {"ideal_bytes", "flops"};
            const double now[] = {(double)(json_int_t)costs.ideal_bytes, (double)(json_int_t)costs.flops};
            for (int k = 0; k < 2; k++) {
                double had;
                if (!number_at(cell, keys[k], &had) || had == now[k]) continue;
                fb_error("%s: case '%s' %s %s: the file's cell has %s %.0f, but %s gives %.0f: the program "
                         "changed since; resume into another result file",
                         fb_qpath(path), c->name, fb_dtype_name(d), pts, keys[k], had, fb_qpath(c->path), now[k]);
                return FB_E_USAGE;
            }
        }
    }
    return FB_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* This run's values of an axis in its order; when the file had values this run
 * does not, the union, ascending (the cells measured there stay in the grid). */
static json_t *merged_values(const json_t *had, const fb_axis *ax)
{
    size_t n_had = json_array_size(had), extra = 0, i;
    json_t *v;
    json_array_foreach(had, i, v) {
        bool in_run = false;
        for (int k = 0; k < ax->n; k++) in_run |= json_integer_value(v) == ax->v[k];
        extra += !in_run;
    }
    json_t *out = json_array();
    if (!extra) {
        for (int k = 0; k < ax->n; k++) json_array_append_new(out, json_integer(ax->v[k]));
        return out;
    }
    int64_t *all = malloc(sizeof *all * (n_had + (size_t)ax->n));
    if (!all) { /* keep the file's list: losing this run's extra values only hides them */
        json_decref(out);
        return json_deep_copy(had);
    }
    size_t n = 0;
    json_array_foreach(had, i, v) all[n++] = (int64_t)json_integer_value(v);
    for (int k = 0; k < ax->n; k++) all[n++] = ax->v[k];
    qsort(all, n, sizeof *all, cmp_i64);
    for (size_t k = 0; k < n; k++)
        if (k == 0 || all[k] != all[k - 1]) json_array_append_new(out, json_integer(all[k]));
    free(all);
    return out;
}

static bool array_has(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (json_is_string(v) && strcmp(json_string_value(v), s) == 0) return true;
    return false;
}

json_t *fb_result_begin_case(json_t *root, const fb_case *c, const char *const *variants, int n_variants,
                             const char *baseline)
{
    json_t *cs = fb_result_case(root, c->name);
    bool fresh = cs == NULL;
    if (fresh) {
        cs = json_object();
        json_object_set_new(cs, "name", json_string(c->name));
        json_object_set_new(cs, "summary", json_string(c->summary));
        json_object_set_new(cs, "file", json_string(c->path));
    }
    /* fb_result_check_resume made sure a resumed case has these same axes */
    json_object_set_new(cs, "rows", json_string(axis_name(c, 0)));
    if (c->n_axes > 1) json_object_set_new(cs, "cols", json_string(axis_name(c, 1)));
    json_object_set_new(cs, "row_values", merged_values(json_object_get(cs, "row_values"), &c->axis[0]));
    if (c->n_axes > 1)
        json_object_set_new(cs, "col_values", merged_values(json_object_get(cs, "col_values"), &c->axis[1]));
    if (c->n_fixed) { /* {"K": [1024, 4096]}: one grid per combination; widened as the axes are */
        json_t *had = json_object_get(cs, "fixed"), *fx = json_object();
        for (int f = 0; f < c->n_fixed; f++) {
            const char *sym = c->sym[c->fixed[f].sym];
            json_object_set_new(fx, sym, merged_values(json_object_get(had, sym), &c->fixed[f]));
        }
        json_object_set_new(cs, "fixed", fx);
    }

    /* the variants measured before stay listed: their numbers are still in the cells */
    json_t *vars = json_object_get(cs, "variants");
    if (!json_is_array(vars)) {
        vars = json_array();
        json_object_set_new(cs, "variants", vars);
    }
    for (int i = 0; i < n_variants; i++)
        if (!array_has(vars, variants[i])) json_array_append_new(vars, json_string(variants[i]));
    json_object_set_new(cs, "baseline", json_string(baseline));
    if (!json_is_array(json_object_get(cs, "dtypes"))) json_object_set_new(cs, "dtypes", json_array());
    if (fresh) json_array_append_new(json_object_get(root, "cases"), cs);
    return cs;
}

json_t *fb_result_begin_dtype(json_t *case_obj, fb_dtype d)
{
    json_t *dj = fb_result_dtype(case_obj, fb_dtype_name(d));
    if (!dj) {
        dj = json_object();
        json_object_set_new(dj, "dtype", json_string(fb_dtype_name(d)));
        json_object_set_new(dj, "cells", json_array());
        json_array_append_new(json_object_get(case_obj, "dtypes"), dj);
    }
    return dj;
}

/* ok, oom, fail and skipped are final; an error (a CUDA failure that stopped
 * the run) is worth another try. */
static bool finished(const json_t *entry)
{
    const char *st = json_string_value(json_object_get(entry, "status"));
    return st && strcmp(st, "error") != 0;
}

int fb_result_cell_todo(const json_t *cell, const char *const *variants, int n_variants, const char **todo)
{
    const json_t *vars = json_object_get(cell, "variants");
    int n = 0;
    for (int i = 0; i < n_variants; i++)
        if (!finished(json_object_get(vars, variants[i]))) todo[n++] = variants[i];
    return n;
}

void fb_result_store_cell(json_t *dtype_obj, json_t *old, json_t *fresh)
{
    if (!old) {
        json_array_append_new(json_object_get(dtype_obj, "cells"), fresh);
        return;
    }
    /* fresh should hold only the variants that were still to do; a finished one
     * is kept even if it does not */
    const char *key;
    json_t *v;
    json_t *old_vars = json_object_get(old, "variants");
    json_object_foreach(json_object_get(fresh, "variants"), key, v)
        if (!finished(json_object_get(old_vars, key))) json_object_set(old_vars, key, v);
    /* the copy the finished variants were measured against stays, unless it never finished */
    json_t *old_sol = json_object_get(old, "sol");
    json_t *new_sol = json_object_get(fresh, "sol");
    if (new_sol && !(old_sol && strcmp(json_string_value(json_object_get(old_sol, "status")) ?: "", "ok") == 0))
        json_object_set(old, "sol", new_sol);
    /* one "clocks" per cell: the old one stays, unless the fresh one is throttled
     * (a throttled cell stays marked, whichever of its runs it was) */
    json_t *new_clocks = json_object_get(fresh, "clocks");
    if (new_clocks && fb_clocks_json_throttled(new_clocks) && !fb_clocks_json_throttled(json_object_get(old, "clocks")))
        json_object_set(old, "clocks", new_clocks);
    json_object_foreach(fresh, key, v)
        if (!json_object_get(old, key)) json_object_set(old, key, v);
    json_decref(fresh);
}
