/* fb.h — the vocabulary every part of fusionbench shares: status codes, the error
 * buffer, dtypes, shapes and tensors. Plain C11, also included from CUDA files.
 *
 * Error policy: library functions return an fb_status and leave a human message
 * in a thread-local buffer (fb_error). Only main.c turns a status into an exit code. */
#ifndef FB_H
#define FB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FB_VERSION "0.1.0"

typedef enum fb_status {
    FB_OK = 0,
    FB_E_USAGE,       /* bad command line                                   -> exit 2  */
    FB_E_CASE,        /* bad input file (a case file or a --resume result file) -> exit 3 */
    FB_E_CHECK,       /* a result disagreed with the reference              -> exit 1  */
    FB_E_CUDA,        /* CUDA / cuBLAS / cuDNN error                        -> exit 4  */
    FB_E_OOM,         /* device memory exhausted: recorded per cell, not fatal         */
    FB_E_NO_GPU,      /* no usable GPU                                      -> exit 77 */
    FB_E_IO,          /* a file could not be read or written                -> exit 4  */
    FB_E_UNSUPPORTED, /* a variant cannot run this shape or dtype: cell skipped        */
    FB_E_NOMEM,       /* host allocation failed                             -> exit 4  */
    FB_E_REGRESSION,  /* compare found a regression                         -> exit 1  */
    FB_E_INTERRUPTED, /* stopped by SIGINT/SIGTERM, what was finished written -> exit 130 */
} fb_status;

const char *fb_status_name(fb_status s);

/* Set the thread's last error message (printf-style). Returns nothing; callers
 * return the status themselves: `fb_error("..."); return FB_E_CASE;`.
 * The message is kept whole however long (two PATH_MAX paths fit): short ones in
 * a thread-local buffer, longer ones on the heap. Its arguments may point into the
 * previous message (`fb_error("%s (at %s)", fb_last_error(), where)`).
 * fb_last_error() is valid until the thread's next fb_error or fb_clear_error. */
void fb_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
const char *fb_last_error(void);
/* Append printf-style text to the NUL-terminated report in buf[n], cut at the end of the
 * buffer; a full buffer (or none) takes nothing. For the self-check reports. */
void fb_appendf(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void fb_clear_error(void);

/* What is in flight ("softmax float32 dim0=128 dim1=256 softmax.fused"); CUDA
 * error messages append it so a failure names the cell that caused it. */
void fb_set_context(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
const char *fb_context_str(void);

/* ---- dtypes ------------------------------------------------------------ */
typedef enum fb_dtype { FB_F32 = 0, FB_F16, FB_BF16, FB_F64, FB_NDTYPES } fb_dtype;
#define FB_DTYPE_BIT(d) (1u << (unsigned)(d))
#define FB_DTYPES_HALF_AND_F32 (FB_DTYPE_BIT(FB_F32) | FB_DTYPE_BIT(FB_F16) | FB_DTYPE_BIT(FB_BF16))
#define FB_DTYPES_ALL (FB_DTYPES_HALF_AND_F32 | FB_DTYPE_BIT(FB_F64))

const char *fb_dtype_name(fb_dtype d);          /* "float32", "float16", "bfloat16", "float64" */
int fb_dtype_from_name(const char *s, fb_dtype *out); /* 0 ok, -1 unknown; accepts f32/fp32/half/bf16 aliases */
size_t fb_dtype_size(fb_dtype d);

/* ---- shapes and tensors -------------------------------------------------- */
#define FB_MAX_RANK 4
typedef struct fb_shape {
    int rank;                  /* 0..FB_MAX_RANK */
    int64_t dim[FB_MAX_RANK];  /* row-major, dim[rank-1] is contiguous */
} fb_shape;

int64_t fb_shape_numel(const fb_shape *s);
/* "[128, 4096]" into buf; returns buf. */
const char *fb_shape_str(const fb_shape *s, char *buf, size_t n);

/* A dense row-major tensor in device memory. */
typedef struct fb_tensor {
    void *data;
    fb_dtype dtype;
    fb_shape shape;
} fb_tensor;

/* ---- user text in messages ------------------------------------------------
 * Messages are one line on a terminal. A string from a file or the command line
 * may hold bytes that break that: newlines, escape sequences, invalid UTF-8.
 *
 * fb_quote_path: a path as it is when it is harmless (the usual case: no copy,
 * `path` itself is returned), else as a shell $'...' string with the bad bytes
 * escaped (\n, \t, \x1b, \u0085 for C1 controls, \xNN for bytes that are not
 * UTF-8; \\ and \' for the quoting itself), so the message stays one line
 * and the path can be pasted back into a shell. buf holds the quoted form; with
 * n >= FB_QUOTE_PATH_MAX any path up to PATH_MAX (4096) bytes fits whole; a longer
 * one is cut at a character boundary and ends in "...'".
 *   char q[FB_QUOTE_PATH_MAX];
 *   fb_error("%s: no such file", fb_quote_path(path, q, sizeof q));
 * fb_qpath: the same into one of FB_QPATH_SLOTS thread-local buffers used in
 * turn, for messages that name a path or two without a buffer of their own:
 *   fb_error("%s and %s both define case '%s'", fb_qpath(a), fb_qpath(b), name);
 *
 * fb_clean: a user string (a JSON key or value, a command-line word) for quoting
 * inside '...' in a message: control characters, DEL and C1 controls escaped as
 * above, and cut to fit buf (n bytes) at a character boundary, never inside a
 * UTF-8 sequence, the cut marked "...". Returns buf. */
#define FB_QUOTE_PATH_MAX (4 * 4096 + 8)
#define FB_QPATH_SLOTS 4
const char *fb_quote_path(const char *path, char *buf, size_t n);
const char *fb_qpath(const char *path);
const char *fb_clean(const char *s, char *buf, size_t n);

/* [A-Za-z_][A-Za-z0-9_]*: a name that case files, JSON paths in messages and symbol
 * lookups accept unquoted. */
bool fb_is_identifier(const char *s);

/* Seconds on the monotonic clock: for durations (timer wall caps, progress, a cell's
 * host time), never a date. */
double fb_now_s(void);

/* Edit distance based suggestion: the candidate closest to `word`, or NULL if none is close. */
const char *fb_nearest(const char *word, const char *const *candidates, int n);
/* " (did you mean 'PREFIXname'?)" for the nearest candidate, or "" when none is close;
 * written into buf, which is returned. */
const char *fb_suggest(const char *prefix, const char *word, const char *const *candidates, int n, char *buf,
                       size_t len);

#ifdef __cplusplus
}
#endif
#endif
