/* fb.c — status names, the thread-local error and context buffers, dtypes,
 * shapes, and the nearest-name suggestion used by every "did you mean". */
#include "fb.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static _Thread_local char g_error[2048];
static _Thread_local char g_context[512];

const char *fb_status_name(fb_status s)
{
    switch (s) {
    case FB_OK: return "ok";
    case FB_E_USAGE: return "usage error";
    case FB_E_CASE: return "bad case file";
    case FB_E_CHECK: return "correctness failure";
    case FB_E_CUDA: return "CUDA error";
    case FB_E_OOM: return "out of device memory";
    case FB_E_NO_GPU: return "no usable GPU";
    case FB_E_IO: return "I/O error";
    case FB_E_UNSUPPORTED: return "unsupported";
    case FB_E_NOMEM: return "out of host memory";
    case FB_E_REGRESSION: return "regression";
    }
    return "unknown status";
}

void fb_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_error, sizeof g_error, fmt, ap);
    va_end(ap);
}

const char *fb_last_error(void) { return g_error; }
void fb_clear_error(void) { g_error[0] = 0; }

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
