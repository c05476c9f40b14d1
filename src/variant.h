/* variant.h — the fused-variant interface and the registry (registry.c).
 * A variant runs only on call->stream, allocates nothing (it asks for workspace),
 * and returns an fb_status instead of exiting. */
#ifndef FB_VARIANT_H
#define FB_VARIANT_H

#include "device.h"

struct fb_case;
struct fb_attrs;

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fb_call {
    const fb_tensor *in;  int n_in;   /* the program's inputs, in case-file order */
    fb_tensor       *out; int n_out;  /* the program's outputs                    */
    void *workspace; size_t workspace_bytes;
    cudaStream_t stream;
    fb_context *ctx;
    /* The program these tensors belong to (may be NULL in unit tests): a variant reads
     * its ops' attributes from here (dropout's p and seed) instead of hard-coding them. */
    const struct fb_case *program;
    /* What the variant's prepare() built (descriptors, plans, folded weights), or NULL. */
    void *state;
    /* True inside the first of fb_variant_prepare's two prepares, whose product is
     * thrown away: it exists to pay one-time costs (library handles, loading the
     * kernels the second will launch), so a prepare may skip work whose only
     * product is a choice (timing cuBLASLt's candidates) if it still launches what
     * it would choose from. */
    bool first_prepare;
} fb_call;

/* A variant declining a call: the printf-style reason into why (which may be NULL; cut to n
 * bytes), and FB_E_UNSUPPORTED to return. For supports() and prepare(). */
int fb_decline(char *why, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The attribute bag of the program's first node whose op is `op` ("dropout"), or NULL
 * when the call has no program or the program has no such op. */
const struct fb_attrs *fb_call_op_attrs(const fb_call *call, const char *op);

typedef struct fb_variant {
    const char *name;   /* "softmax.fused"      */
    const char *about;  /* one line for `list`  */
    unsigned dtypes;    /* FB_DTYPE_BIT set      */
    /* 0 if it can run this call; else FB_E_UNSUPPORTED with the reason in why. May be NULL. */
    int (*supports)(const fb_call *call, char *why, size_t n);
    size_t (*workspace)(const fb_call *call); /* may be NULL */
    int (*run)(const fb_call *call);          /* FB_OK or an fb_status */
    int launches;       /* kernel launches per run (timer batching); 0 means 1 */
    /* Outside the timed region, once per cell, after the workspace is allocated and
     * before the checked run: build what run() needs (library descriptors and
     * algorithm choice, cuDNN plans, weights folded into a new buffer) into *state,
     * which run() finds in call->state and release() frees. Its wall time is
     * recorded as the variant's prepare_ms (the library path's "compile time").
     * Both may be NULL. */
    int (*prepare)(const fb_call *call, void **state);
    void (*release)(void *state);
    /* What prepare() chose that the result should say (a library's fallback path), or
     * NULL; the cell writes it as an ok status's reason. May be NULL. */
    const char *(*note)(const void *state);
} fb_variant;

/* A prepare step as a cell runs it: step(arg) twice, the second timed with
 * `sync(sync_arg)` (the wait for the GPU work the step queued) inside it; the
 * first pays a process's one-time costs (library handles, kernel loading), which
 * are no property of the cell. step rebuilds what it built before. *ms is the
 * second's wall time in ms (NaN when the first fails). Returns the first failing
 * status. eager's plans and fb_variant_prepare both go through it. */
int fb_prepare_twice(int (*step)(void *arg), void *arg, int (*sync)(void *sync_arg), void *sync_arg, double *ms);
/* A variant's prepare step through fb_prepare_twice: prepare(), release() what it
 * built, prepare() again, timed. *ms is NaN for a variant without prepare (FB_OK,
 * nothing done). On failure call->state holds whatever fb_variant_release must
 * still free. */
int fb_variant_prepare(const fb_variant *v, fb_call *call, int (*sync)(void *arg), void *arg, double *ms);
/* release(call->state) when there is one and the variant has release; clears it. */
void fb_variant_release(const fb_variant *v, fb_call *call);

const fb_variant *fb_variant_find(const char *name);
int fb_variant_count(void);
const fb_variant *fb_variant_at(int i);
/* All registered names, for "did you mean". Returns count. */
int fb_variant_names(const char **names, int max);

#ifdef __cplusplus
}
#endif
#endif
