/* fb.c — status names, the thread-local error and context buffers, dtypes,
 * shapes, the nearest-name suggestion used by every "did you mean", and the
 * monotonic clock. */
#include "fb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The last error: in g_error_small when it fits (every usual message), else in
 * g_error_big on the heap, so a message naming a long path is never cut. */
static _Thread_local char g_error_small[8192];
static _Thread_local char *g_error_big;
static _Thread_local char g_context[512];

const char *fb_status_name(fb_status s)
{
    switch (s) {
    case FB_OK: return "ok";
    case FB_E_USAGE: return "usage error";
    case FB_E_CASE: return "bad input file";
    case FB_E_CHECK: return "correctness failure";
    case FB_E_CUDA: return "CUDA error";
    case FB_E_OOM: return "out of device memory";
    case FB_E_NO_GPU: return "no usable GPU";
    case FB_E_IO: return "I/O error";
    case FB_E_UNSUPPORTED: return "unsupported";
    case FB_E_NOMEM: return "out of host memory";
    case FB_E_REGRESSION: return "regression";
    case FB_E_INTERRUPTED: return "interrupted";
    }
    return "unknown status";
}

void fb_error(const char *fmt, ...)
{
    /* Format into a fresh place before touching the old message: the arguments
     * may point into it. */
    char tmp[sizeof g_error_small];
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    char *big = NULL;
    if (n >= (int)sizeof tmp && (big = malloc((size_t)n + 1)) != NULL) vsnprintf(big, (size_t)n + 1, fmt, again);
    va_end(again);
    if (n < 0) snprintf(tmp, sizeof tmp, "(unprintable error message)");
    if (!big) memcpy(g_error_small, tmp, sizeof tmp); /* out of memory: the first 8 KB */
    free(g_error_big);
    g_error_big = big;
}

const char *fb_last_error(void) { return g_error_big ? g_error_big : g_error_small; }
void fb_clear_error(void)
{
    free(g_error_big);
    g_error_big = NULL;
    g_error_small[0] = 0;
}

void fb_appendf(char *buf, size_t n, const char *fmt, ...)
{
    if (!buf || n == 0) return;
    size_t len = strnlen(buf, n);
    if (len >= n - 1) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

void fb_set_context(const char *fmt, ...)
{
    if (!fmt) {
        g_context[0] = 0;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_context, sizeof g_context, fmt, ap);
    va_end(ap);
}

const char *fb_context_str(void) { return g_context; }

static const char *const dtype_names[FB_NDTYPES] = {"float32", "float16", "bfloat16", "float64"};
static const size_t dtype_sizes[FB_NDTYPES] = {4, 2, 2, 8};

const char *fb_dtype_name(fb_dtype d) { return (unsigned)d < FB_NDTYPES ? dtype_names[d] : "?"; }
size_t fb_dtype_size(fb_dtype d) { return (unsigned)d < FB_NDTYPES ? dtype_sizes[d] : 0; }

int fb_dtype_from_name(const char *s, fb_dtype *out)
{
    static const struct { const char *alias; fb_dtype d; } table[] = {
        {"float32", FB_F32}, {"f32", FB_F32}, {"fp32", FB_F32},
        {"float16", FB_F16}, {"f16", FB_F16}, {"fp16", FB_F16}, {"half", FB_F16},
        {"bfloat16", FB_BF16}, {"bf16", FB_BF16},
        {"float64", FB_F64}, {"f64", FB_F64}, {"fp64", FB_F64}, {"double", FB_F64},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(s, table[i].alias) == 0) {
            *out = table[i].d;
            return 0;
        }
    return -1;
}

int64_t fb_shape_numel(const fb_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++) n *= s->dim[i];
    return n;
}

const char *fb_shape_str(const fb_shape *s, char *buf, size_t n)
{
    size_t k = 0;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (int i = 0; i < s->rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)s->dim[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}

/* ---- user text in messages ----------------------------------------------- */

/* The length of the well-formed UTF-8 sequence at p (1-4), or 0 when p does not
 * start one (a stray continuation byte, an overlong form, a surrogate, a cut). */
static int utf8_len(const unsigned char *p, unsigned *cp)
{
    unsigned b = p[0];
    int len;
    unsigned lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
    if (b < 0x80) {
        *cp = b;
        return 1;
    } else if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
        *cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        *cp = b & 0x0F;
        if (b == 0xE0) lo = 0xA0;      /* overlong */
        else if (b == 0xED) hi = 0x9F; /* surrogates */
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        *cp = b & 0x07;
        if (b == 0xF0) lo = 0x90;      /* overlong */
        else if (b == 0xF4) hi = 0x8F; /* above U+10FFFF */
    } else {
        return 0;
    }
    for (int i = 1; i < len; i++) {
        unsigned c = p[i];
        if (c < (i == 1 ? lo : 0x80) || c > (i == 1 ? hi : 0xBF)) return 0;
        *cp = (*cp << 6) | (c & 0x3F);
    }
    return len;
}

/* Code points that would make a message lie about its own text on a terminal:
 * C1 controls, zero-width characters (a byte-order mark in the middle of a file
 * reads as ''), line and paragraph separators, bidirectional overrides. */
static bool invisible_control(unsigned cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x200B && cp <= 0x200F) || cp == 0x2028 || cp == 0x2029 ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

/* One character of s as it is written in a message: into out (at most 7 bytes
 * and a NUL). Returns how many bytes of s it took; *escaped says whether it had
 * to be escaped. In shell mode ' and \ are escaped too ($'...' quoting). */
static int render_char(const char *s, bool shell, char out[8], bool *escaped)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned cp;
    int len = utf8_len(p, &cp);
    *escaped = true;
    if (len == 0) {
        snprintf(out, 8, "\\x%02x", p[0]);
        return 1;
    }
    if (len == 1 && (cp < 0x20 || cp == 0x7F)) {
        if (cp == '\n') snprintf(out, 8, "\\n");
        else if (cp == '\t') snprintf(out, 8, "\\t");
        else if (cp == '\r') snprintf(out, 8, "\\r");
        else snprintf(out, 8, "\\x%02x", cp);
        return 1;
    }
    if (invisible_control(cp)) {
        snprintf(out, 8, "\\u%04x", cp);
        return len;
    }
    *escaped = false;
    if (shell && (cp == '\'' || cp == '\\')) {
        out[0] = '\\';
        out[1] = (char)cp;
        out[2] = 0;
        return 1;
    }
    memcpy(out, s, (size_t)len);
    out[len] = 0;
    return len;
}

/* s rendered into buf (n bytes) between `open` and `close`; when it does not
 * fit, cut after the last whole character that leaves room for "..." + close. */
static void render(const char *s, bool shell, const char *open, const char *close, char *buf, size_t n)
{
    if (n == 0) return;
    size_t k = 0, tail = 3 + strlen(close) + 1;
    k += (size_t)snprintf(buf, n, "%s", open);
    if (k >= n) {
        buf[n - 1] = 0;
        return;
    }
    size_t whole = 0; /* the rendered length of all of s */
    for (const char *p = s; *p;) {
        char piece[8];
        bool esc;
        p += render_char(p, shell, piece, &esc);
        whole += strlen(piece);
    }
    bool fits = k + whole + strlen(close) + 1 <= n;
    while (*s) {
        char piece[8];
        bool esc;
        int used = render_char(s, shell, piece, &esc);
        size_t pl = strlen(piece);
        if (!fits && k + pl + tail > n) {
            snprintf(buf + k, n - k, "...%s", close);
            return;
        }
        memcpy(buf + k, piece, pl);
        k += pl;
        s += used;
    }
    snprintf(buf + k, n - k, "%s", close);
}

const char *fb_quote_path(const char *path, char *buf, size_t n)
{
    bool any = false;
    for (const char *p = path; *p && !any;) {
        char piece[8];
        p += render_char(p, false, piece, &any);
    }
    if (!any) return path;
    render(path, true, "$'", "'", buf, n);
    return buf;
}

const char *fb_qpath(const char *path)
{
    static _Thread_local char slots[FB_QPATH_SLOTS][FB_QUOTE_PATH_MAX];
    static _Thread_local unsigned next;
    char *buf = slots[next++ % FB_QPATH_SLOTS];
    return fb_quote_path(path, buf, FB_QUOTE_PATH_MAX);
}

const char *fb_clean(const char *s, char *buf, size_t n)
{
    render(s, false, "", "", buf, n);
    return buf;
}

/* Damerau-free Levenshtein distance, case-insensitive, on short names. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 1 << 20;
    int prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            char ca = a[i - 1], cb = b[j - 1];
            if (ca >= 'A' && ca <= 'Z') ca = (char)(ca - 'A' + 'a');
            if (cb >= 'A' && cb <= 'Z') cb = (char)(cb - 'A' + 'a');
            int sub = prev[j - 1] + (ca != cb);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

const char *fb_nearest(const char *word, const char *const *candidates, int n)
{
    const char *best = NULL;
    int best_d = 1 << 20;
    for (int i = 0; i < n; i++) {
        int d = edit_distance(word, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    /* close enough: at most a third of the word's letters wrong (at least 1, at most 3) */
    int len = (int)strlen(word);
    int limit = len / 3;
    if (limit < 1) limit = 1;
    if (limit > 3) limit = 3;
    return best_d <= limit ? best : NULL;
}

const char *fb_suggest(const char *prefix, const char *word, const char *const *candidates, int n, char *buf,
                       size_t len)
{
    const char *near = fb_nearest(word, candidates, n);
    if (near) snprintf(buf, len, " (did you mean '%s%s'?)", prefix, near);
    else if (len) buf[0] = 0;
    return buf;
}

bool fb_is_identifier(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

double fb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
