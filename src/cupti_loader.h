/* cupti_loader.h — libcupti, loaded at run time (dlopen), never linked.
 *
 * CUPTI's headers come with the CUDA toolkit and are used at build time only;
 * the library itself is found when a command first needs it, so a machine
 * without it still runs everything but `--timer cupti` (and the metrics pass),
 * and says clearly what it searched. On the H100 host libcupti is not on the
 * library path: it comes with PyTorch's pip packages, hence the search list.
 *
 * Search order (the first that dlopen accepts and whose cuptiGetVersion is new
 * enough wins):
 *   1. $FB_CUPTI_LIB, a file path: when set, it is the only candidate, and a
 *      failure to load it is an error (no silent fallback to another CUPTI);
 *   2. "libcupti.so.13", "libcupti.so": the dynamic linker's own search
 *      (LD_LIBRARY_PATH, the ld cache);
 *   3. the toolkit the build used (FB_CUDA_ROOT, recorded by meson):
 *      ROOT/lib64, ROOT/lib, ROOT/extras/CUPTI/lib64;
 *   4. Python environments: nvidia/cu13/lib/libcupti.so.13 and
 *      nvidia/cuda_cupti/lib/libcupti.so.13 under lib/python3.* /site-packages
 *      (and dist-packages) of $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, /usr/local,
 *      /usr and /opt/conda.
 *
 * Thread-safe; loaded once per process, and a failure is remembered (the same
 * message every time). Nothing here touches the GPU: dlopen and cuptiGetVersion
 * work on a machine without one. */
#ifndef FB_CUPTI_LOADER_H
#define FB_CUPTI_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

#include "fb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The oldest CUPTI whose activity records this build reads: with CUDA 13's
 * headers, 13.0 (API version 130000): the kernel, memcpy and memset records
 * of those headers (CUpti_ActivityKernel10, Memcpy6, Memset4) are the ones
 * every 13.x writes; newer libraries only append fields, so newer ones are
 * accepted. With older headers, their own version. */
#if CUPTI_API_VERSION >= 130000
#define FB_CUPTI_MIN_API 130000u
#else
#define FB_CUPTI_MIN_API ((uint32_t)CUPTI_API_VERSION)
#endif

/* The functions the kernel timer (timer_cupti.c) uses. Anything else (the
 * range profiler of the metrics pass) is looked up with fb_cupti_sym. */
typedef struct fb_cupti_api {
    char path[4096];  /* the file that was loaded, as dlinfo reports it when it can */
    uint32_t version; /* cuptiGetVersion: e.g. 130001 */
    CUptiResult (*GetVersion)(uint32_t *version);
    CUptiResult (*GetResultString)(CUptiResult result, const char **str);
    CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc request,
                                             CUpti_BuffersCallbackCompleteFunc complete);
    CUptiResult (*ActivityEnable)(CUpti_ActivityKind kind);
    CUptiResult (*ActivityDisable)(CUpti_ActivityKind kind);
    CUptiResult (*ActivityFlushAll)(uint32_t flag);
    CUptiResult (*ActivityGetNextRecord)(uint8_t *buffer, size_t valid_bytes, CUpti_Activity **record);
    CUptiResult (*ActivityGetNumDroppedRecords)(CUcontext context, uint32_t stream_id, size_t *dropped);
    CUptiResult (*ActivityPushExternalCorrelationId)(CUpti_ExternalCorrelationKind kind, uint64_t id);
    CUptiResult (*ActivityPopExternalCorrelationId)(CUpti_ExternalCorrelationKind kind, uint64_t *last_id);
} fb_cupti_api;

/* Loads libcupti (once) and resolves the functions above. FB_E_UNSUPPORTED when
 * it is absent, unloadable, lacks a function or is older than FB_CUPTI_MIN_API:
 * the message says why and, when nothing was found, every place searched:
 *   "CUPTI not found (searched: libcupti.so.13, libcupti.so, /usr/local/cuda/lib64/libcupti.so.13, ...);
 *    set FB_CUPTI_LIB to its path" */
fb_status fb_cupti_load(const fb_cupti_api **out);

/* Any other libcupti function by name (after a successful fb_cupti_load), or
 * NULL: for the metrics pass (cuptiProfiler*, cuptiRangeProfiler*). */
void *fb_cupti_sym(const char *name);

/* A library that ships beside libcupti (libnvperf_host.so, libnvperf_target.so:
 * the metrics pass needs them), loaded from the directory the loaded libcupti
 * is in, else by name through the dynamic linker; RTLD_NOW | RTLD_GLOBAL, kept
 * open. NULL with FB_E_UNSUPPORTED's message set (fb_error: both places tried)
 * when neither loads or CUPTI itself is absent. */
void *fb_cupti_open_sibling(const char *name);

/* One line for `env`: "/path/libcupti.so.13 (CUPTI API 130001)" or
 * "absent (searched: ...)". Loads it if that was not tried yet. */
const char *fb_cupti_describe(char *buf, size_t n);

/* "CUPTI_ERROR_NOT_INITIALIZED" for a result code, through the loaded library
 * when there is one ("CUPTI error 15" otherwise). Into buf, which is returned. */
const char *fb_cupti_result_str(CUptiResult r, char *buf, size_t n);

/* ---- for the tests --------------------------------------------------------- */

/* The candidates of steps 2 to 4 above (not $FB_CUPTI_LIB), in search order,
 * with the Python globs expanded against the file system, into list[] (at most
 * cap); returns how many. Each is malloc'ed; free with fb_cupti_candidates_free.
 * `home`, `venv` and `conda` stand for $HOME, $VIRTUAL_ENV and $CONDA_PREFIX
 * (NULL or "" to leave one out); `root` for the toolkit root ("" for none). */
int fb_cupti_candidates(const char *root, const char *home, const char *venv, const char *conda, char **list,
                        int cap);
void fb_cupti_candidates_free(char **list, int n);
/* The message when no candidate loads: what was searched (toolkit `root`,
 * $VIRTUAL_ENV and $CONDA_PREFIX as set now) and, when one was there but
 * refused, why (`refused`, may be NULL). Into buf, which is returned. */
const char *fb_cupti_absent_message(const char *root, const char *refused, char *buf, size_t n);

/* Forget what was loaded so the next fb_cupti_load searches again,
 * e.g. after a test changed $FB_CUPTI_LIB. Not for use while CUPTI is active. */
void fb_cupti_unload_for_tests(void);
/* fb_cupti_load's search (steps 2 to 4) over `list` instead of the candidates
 * above, from a fresh start: the same rules, the same message. */
fb_status fb_cupti_load_list_for_tests(const char *const *list, int n, const fb_cupti_api **out);

#ifdef __cplusplus
}
#endif
#endif
