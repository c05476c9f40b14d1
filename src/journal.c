/* journal.c — a run's journal (format and rules in journal.h): appending a
 * line per finished cell, durably and at constant cost, and rebuilding the
 * document from the result file and its journal. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "case.h"
#include "result.h"

#define TRY(expr)                           \
    do {                                    \
        fb_status try_s_ = (expr);          \
        if (try_s_ != FB_OK) return try_s_; \
    } while (0)

#define LINE_LABEL_MAX (FB_QUOTE_PATH_MAX + 32)

char *fb_journal_path(const char *result_path)
{
    size_t n = strlen(result_path) + sizeof ".journal";
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s.journal", result_path);
    return p;
}

/* ---- reading ---------------------------------------------------------------- */

typedef struct replay {
    const char *path; /* the journal */
    json_t *doc;
    fb_journal_info *info;
    long line;
    char label[LINE_LABEL_MAX]; /* "PATH:LINE", the `path` of result_check's messages */
} replay;

static void set_label(replay *r)
{
    char q[FB_QUOTE_PATH_MAX];
    snprintf(r->label, sizeof r->label, "%s:%ld", fb_quote_path(r->path, q, sizeof q), r->line);
}

/* "PATH:LINE: message" (FB_E_CASE). */
static fb_status bad_line(replay *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static fb_status bad_line(replay *r, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fb_error("%s: %s", r->label, msg);
    return FB_E_CASE;
}

/* The document's top: every key but "cases" (shared, not copied). */
static json_t *head_of(const json_t *doc)
{
    json_t *head = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)doc, key, v) if (strcmp(key, "cases") != 0) json_object_set(head, key, v);
    return head;
}

static const char *str_at(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* A string member of both, that differs (absent on either side: not compared). */
static bool differs(const json_t *a, const json_t *b, const char *key)
{
    const char *x = str_at(a, key), *y = str_at(b, key);
    return x && y && strcmp(x, y) != 0;
}

static fb_status apply_head(replay *r, const json_t *line)
{
    json_t *format = json_object_get(line, "fusionbench_journal");
    char d[96], q[128];
    if (!format) return bad_line(r, "not a fusionbench journal (no 'fusionbench_journal' key on its first line)");
    if (!json_is_integer(format) || json_integer_value(format) < 1)
        return bad_line(r, "fusionbench_journal: expected a positive integer, got %s", fb_json_describe(format, d, sizeof d));
    if (json_integer_value(format) > FB_JOURNAL_FORMAT)
        return bad_line(r, "journal format %lld is newer than this fusionbench understands (%d)",
                        (long long)json_integer_value(format), FB_JOURNAL_FORMAT);
    json_t *head = json_object_get(line, "head");
    if (!json_is_object(head)) return bad_line(r, "head: expected an object, got %s", fb_json_describe(head, d, sizeof d));
    if (!r->doc) {
        /* the document is rebuilt from the journal alone */
        r->doc = json_deep_copy(head);
        json_object_set_new(r->doc, "cases", json_array());
        return FB_OK;
    }
    /* one run keeps its start time through every resume: another one means the
     * journal and the document beside it are of two runs */
    if (differs(head, r->doc, "started") || differs(json_object_get(head, "device"), json_object_get(r->doc, "device"), "name")) {
        char q2[128];
        const json_t *dev = json_object_get(r->doc, "device"), *hdev = json_object_get(head, "device");
        if (differs(head, r->doc, "started"))
            return bad_line(r, "the journal of a run started %s, but the result file's run started %s; "
                               "move one of them away",
                            fb_clean(str_at(head, "started"), q, sizeof q), fb_clean(str_at(r->doc, "started"), q2, sizeof q2));
        return bad_line(r, "the journal of a run on '%s', but the result file's run is on '%s'; move one of them away",
                        fb_clean(str_at(hdev, "name"), q, sizeof q), fb_clean(str_at(dev, "name"), q2, sizeof q2));
    }
    return FB_OK;
}

static fb_status apply_begin_case(replay *r, json_t *cs)
{
    TRY(fb_result_check_case(cs, r->label, "begin_case"));
    const char *name = str_at(cs, "name");
    json_t *have = fb_result_case(r->doc, name);
    char q[128];
    if (!have) {
        json_t *copy = json_deep_copy(cs);
        json_object_set_new(copy, "dtypes", json_array()); /* cells come from cell lines only */
        json_array_append_new(json_object_get(r->doc, "cases"), copy);
        return FB_OK;
    }
    const char *rows = str_at(have, "rows"), *cols = str_at(have, "cols");
    const char *jrows = str_at(cs, "rows"), *jcols = str_at(cs, "cols");
    if (strcmp(rows, jrows) != 0 || (!cols) != (!jcols) || (cols && strcmp(cols, jcols) != 0)) {
        char a[96], b[96], c[96], e[96];
        return bad_line(r, "case '%s' has the grid %s%s%s here, but the result file has %s%s%s: another program "
                           "under the same name",
                        fb_clean(name, q, sizeof q), fb_clean(jrows, a, sizeof a), jcols ? " x " : "",
                        jcols ? fb_clean(jcols, b, sizeof b) : "", fb_clean(rows, c, sizeof c), cols ? " x " : "",
                        cols ? fb_clean(cols, e, sizeof e) : "");
    }
    /* what the run held from then on: a superset of the file's grid and variants */
    const char *key;
    json_t *v;
    json_object_foreach(cs, key, v) if (strcmp(key, "dtypes") != 0) json_object_set(have, key, v);
    return FB_OK;
}

static fb_status apply_cell(replay *r, const json_t *line)
{
    char d[96], q[128];
    const json_t *cname = json_object_get(line, "case"), *dname = json_object_get(line, "dtype");
    json_t *cell = json_object_get(line, "cell");
    if (!json_is_string(cname)) return bad_line(r, "case: expected a string, got %s", fb_json_describe(cname, d, sizeof d));
    if (!json_is_string(dname)) return bad_line(r, "dtype: expected a string, got %s", fb_json_describe(dname, d, sizeof d));
    fb_dtype dt;
    const char *ds = json_string_value(dname);
    if (fb_dtype_from_name(ds, &dt) != 0 || strcmp(ds, fb_dtype_name(dt)) != 0)
        return bad_line(r, "dtype: expected float32, float16, bfloat16 or float64, got '%s'", fb_clean(ds, q, sizeof q));
    json_t *cs = fb_result_case(r->doc, json_string_value(cname));
    if (!cs)
        return bad_line(r, "a cell of case '%s', which neither the result file nor a begin_case line before it has",
                        fb_clean(json_string_value(cname), q, sizeof q));
    TRY(fb_result_check_case_cell(cell, cs, r->label, "cell"));
    json_t *dj = fb_result_begin_dtype(cs, dt);
    json_t *old = fb_result_cell_like(dj, cs, cell);
    fb_result_store_cell(dj, old, json_incref(cell));
    r->info->cells++;
    return FB_OK;
}

/* One complete line (its '\n' removed). */
static fb_status apply_line(replay *r, json_t *line)
{
    char d[96];
    if (!json_is_object(line)) return bad_line(r, "expected a JSON object, got %s", fb_json_describe(line, d, sizeof d));
    if (r->line == 1) return apply_head(r, line);
    json_t *cs = json_object_get(line, "begin_case");
    if (cs) return apply_begin_case(r, cs);
    if (json_object_get(line, "cell")) return apply_cell(r, line);
    return bad_line(r, "neither a begin_case nor a cell line");
}

/* A torn last line: what a kill in the middle of its write leaves. */
static void torn(replay *r, const char *why)
{
    snprintf(r->info->warning, sizeof r->info->warning,
             "%.700s: the last line is incomplete (%.200s): the run was stopped while writing it; ignored", r->label,
             why);
}

static fb_status replay_lines(replay *r, FILE *f)
{
    char *cur = NULL, *next = NULL;
    size_t cap_cur = 0, cap_next = 0;
    fb_status s = FB_OK;
    ssize_t n = getline(&cur, &cap_cur, f);
    for (r->line = 1; n > 0 && s == FB_OK; r->line++) {
        ssize_t n_next = getline(&next, &cap_next, f);
        bool last = n_next <= 0, complete = cur[n - 1] == '\n';
        set_label(r);
        if (!complete) { /* only the last line can lack its newline */
            torn(r, "no newline");
            break;
        }
        json_error_t je;
        json_t *line = json_loadb(cur, (size_t)n - 1, JSON_REJECT_DUPLICATES, &je);
        if (!line) {
            if (last) torn(r, je.text);
            else s = bad_line(r, "%s (column %d)", je.text, je.column);
            break;
        }
        s = apply_line(r, line);
        json_decref(line);
        char *t = cur;
        cur = next, next = t;
        size_t c = cap_cur;
        cap_cur = cap_next, cap_next = c;
        n = n_next;
    }
    if (s == FB_OK && ferror(f)) {
        fb_error("%s: cannot read: %s", fb_qpath(r->path), strerror(errno ? errno : EIO));
        s = FB_E_CASE;
    }
    free(cur);
    free(next);
    return s;
}

fb_status fb_journal_replay(const char *jpath, json_t **doc, fb_journal_info *info)
{
    fb_journal_info scratch;
    if (!info) info = &scratch;
    memset(info, 0, sizeof *info);
    replay r = {.path = jpath, .doc = *doc, .info = info};
    /* as result files are read: a FIFO or device is refused before it can block */
    int fd = open(jpath, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    fb_status s = FB_OK;
    if (fd < 0) {
        if (errno == ENOENT) fb_error("%s: no such file", fb_qpath(jpath));
        else fb_error("%s: cannot read: %s", fb_qpath(jpath), strerror(errno));
        s = FB_E_CASE;
    } else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fb_error("%s: not a regular file", fb_qpath(jpath));
        s = FB_E_CASE;
    }
    FILE *f = s == FB_OK ? fdopen(fd, "r") : NULL;
    if (s == FB_OK && !f) {
        fb_error("%s: cannot read: %s", fb_qpath(jpath), strerror(errno));
        s = FB_E_CASE;
    }
    if (s == FB_OK) {
        info->found = true;
        s = replay_lines(&r, f);
    }
    if (f) fclose(f);
    else if (fd >= 0) close(fd);
    /* the whole rebuilt document, as strictly as a file read back */
    if (s == FB_OK && r.doc) s = fb_result_check(r.doc, jpath);
    if (s != FB_OK) {
        json_decref(r.doc);
        r.doc = NULL;
    }
    *doc = r.doc;
    return s;
}

fb_status fb_result_load(const char *path, json_t **root, fb_journal_info *info)
{
    fb_journal_info scratch;
    if (!info) info = &scratch;
    memset(info, 0, sizeof *info);
    *root = NULL;
    char *jpath = fb_journal_path(path);
    if (!jpath) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    struct stat st;
    bool has_doc = stat(path, &st) == 0 || errno != ENOENT; /* any other error: fb_result_read says it */
    bool has_journal = lstat(jpath, &st) == 0;
    fb_status s = FB_OK;
    json_t *doc = NULL;
    if (has_doc || !has_journal) s = fb_result_read(path, &doc);
    if (s == FB_OK && has_journal) {
        s = fb_journal_replay(jpath, &doc, info);
        if (s == FB_OK && !doc) {
            fb_error("%s: no such file, and %s holds no complete line", fb_qpath(path), fb_qpath(jpath));
            s = FB_E_CASE;
        }
    }
    free(jpath);
    if (s != FB_OK) {
        json_decref(doc);
        return s;
    }
    *root = doc;
    return FB_OK;
}

/* ---- writing ---------------------------------------------------------------- */

struct fb_journal {
    int fd;
    char *path;        /* PATH.journal */
    char *result_path; /* PATH */
    off_t size;        /* bytes of whole lines written */
    bool broken;       /* a write failed: no more lines */
};

static fb_status append(fb_journal *j, const json_t *line)
{
    if (j->broken) {
        fb_error("%s: cannot write: an earlier write to it failed", fb_qpath(j->path));
        return FB_E_IO;
    }
    char *text = json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(9));
    size_t len = text ? strlen(text) : 0;
    char *buf = text ? realloc(text, len + 2) : NULL;
    if (!buf) {
        free(text);
        fb_error("%s: cannot write: out of host memory", fb_qpath(j->path));
        return FB_E_NOMEM;
    }
    buf[len++] = '\n';
    /* one write(): on a regular file it writes the whole line unless the disk
     * is full or the process dies, and either leaves a torn last line that a
     * reader ignores */
    size_t done = 0;
    int err = 0;
    while (done < len && !err) {
        ssize_t w = write(j->fd, buf + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) err = errno;
        else done += (size_t)w;
    }
    free(buf);
    if (!err && fsync(j->fd) != 0) err = errno;
    if (err) {
        /* take the torn line back, so that the journal still reads; either way it takes no more */
        if (ftruncate(j->fd, j->size) == 0) (void)fsync(j->fd);
        j->broken = true;
        fb_error("%s: cannot write: %s", fb_qpath(j->path), strerror(err));
        return FB_E_IO;
    }
    j->size += (off_t)len;
    return FB_OK;
}

static void journal_free(fb_journal *j)
{
    if (!j) return;
    if (j->fd >= 0) close(j->fd);
    free(j->path);
    free(j->result_path);
    free(j);
}

fb_status fb_journal_start(const char *result_path, json_t *doc, fb_journal **out)
{
    *out = NULL;
    fb_journal *j = calloc(1, sizeof *j);
    if (j) {
        j->fd = -1;
        j->path = fb_journal_path(result_path);
        j->result_path = strdup(result_path);
    }
    if (!j || !j->path || !j->result_path) {
        journal_free(j);
        fb_error("%s: cannot write: out of host memory", fb_qpath(result_path));
        return FB_E_NOMEM;
    }
    /* the document first: it must hold a replaced journal's cells before that journal is truncated */
    fb_status s = fb_result_write(doc, result_path);
    if (s == FB_OK) {
        j->fd = open(j->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (j->fd < 0) {
            fb_error("%s: cannot write: %s", fb_qpath(j->path), strerror(errno));
            s = FB_E_IO;
        }
    }
    if (s == FB_OK) {
        json_t *line = json_pack("{s:i, s:o}", "fusionbench_journal", FB_JOURNAL_FORMAT, "head", head_of(doc));
        s = line ? append(j, line) : FB_E_NOMEM;
        if (!line) fb_error("%s: cannot write: out of host memory", fb_qpath(j->path));
        json_decref(line);
        fb_result_sync_dir(j->path); /* the journal's name, durable like its lines */
    }
    if (s != FB_OK) {
        journal_free(j);
        return s;
    }
    *out = j;
    return FB_OK;
}

fb_status fb_journal_begin_case(fb_journal *j, const json_t *case_obj)
{
    json_t *cs = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)case_obj, key, v) {
        if (strcmp(key, "dtypes") == 0) json_object_set_new(cs, key, json_array());
        else json_object_set(cs, key, v);
    }
    json_t *line = json_pack("{s:o}", "begin_case", cs);
    fb_status s = line ? append(j, line) : FB_E_NOMEM;
    if (!line) fb_error("%s: cannot write: out of host memory", fb_qpath(j->path));
    json_decref(line);
    return s;
}

fb_status fb_journal_store_cell(fb_journal *j, json_t *case_obj, json_t *dtype_obj, json_t *fresh)
{
    json_t *line = json_pack("{s:s?, s:s?, s:O}", "case", json_string_value(json_object_get(case_obj, "name")),
                             "dtype", json_string_value(json_object_get(dtype_obj, "dtype")), "cell", fresh);
    fb_status s = line ? append(j, line) : FB_E_NOMEM;
    if (!line) fb_error("%s: cannot write: out of host memory", fb_qpath(j->path));
    json_decref(line);
    /* in memory either way: the document written at the end has it even when its line is missing */
    json_t *old = fb_result_cell_like(dtype_obj, case_obj, fresh);
    fb_result_store_cell(dtype_obj, old, fresh);
    return s;
}

fb_status fb_journal_finish(fb_journal *j, json_t *doc)
{
    fb_status s = fb_result_write(doc, j->result_path);
    if (s == FB_OK) {
        close(j->fd);
        j->fd = -1;
        /* only now: the document holds every line's cell */
        if (unlink(j->path) == 0) fb_result_sync_dir(j->path);
    } else {
        char msg[2048];
        snprintf(msg, sizeof msg, "%s", fb_last_error());
        fb_error("%s; the finished cells are in %s (--resume %s reads it)", msg, fb_qpath(j->path),
                 fb_qpath(j->result_path));
    }
    journal_free(j);
    return s;
}

void fb_journal_abandon(fb_journal *j) { journal_free(j); }
