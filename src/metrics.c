/* metrics.c — measured DRAM traffic and instruction counts per variant run
 * (`run --metrics dram,inst`), through CUPTI's range profiler (CUDA 13:
 * cupti_range_profiler.h on the target side, cupti_profiler_host.h for the
 * configuration image and the evaluation; both are the API's documentation).
 *
 * WHAT A NUMBER MEANS
 *   dram_read_bytes, dram_write_bytes  bytes that moved between the L2 and DRAM
 *       because of one run of the variant, starting from a flushed L2 and ending
 *       when every line the run dirtied has been written back
 *       (dram__bytes_read.sum, dram__bytes_write.sum). Beside the cell's ideal
 *       bytes: a fused kernel should move about them, eager about its
 *       intermediates' worth more.
 *   inst_executed  warp instructions its kernels executed (smsp__inst_executed.sum:
 *       a warp issuing one instruction counts 1, whatever its active threads).
 * The totals of the variant's run, however many kernels it launches (eager's
 * chain, cuBLAS, cuDNN): one user range holds the whole run.
 *
 * HOW (user range, user replay; every pass the same):
 *     flush L2                      the timer's flush (fb_timer_flush_l2: --flush write or
 *                                   clean; write under --flush none), outside any range
 *     range "fb_calibrate":  read sweep of buffer B
 *     flush L2
 *     range "fb_variant":    run the variant, then the read sweep of B
 *   The L2 is write-back: a store reaches DRAM when its line is evicted, so
 *   without the sweep up to an L2 of the variant's output (50 MB on the H100)
 *   would still be in the L2 when the range closes, and uncounted. B (the flush's
 *   size, twice the L2, never in the L2 after a flush) is read with ordinary
 *   loads: every line is evicted, the dirty ones written back inside the range
 *   (kernels/l2_sweep.cu). Its own DRAM reads (all of B) and instructions are the
 *   same in both ranges, and so is whatever the flush left dirty (a memset flush
 *   leaves an L2 of dirty lines, a clean one — the same sweep kernel over the
 *   timer's own buffer — none; both ranges start from that same state and end
 *   with all of it written back), so fb_variant - fb_calibrate is the variant's
 *   own traffic and work. The device is synchronised before each push and each
 *   pop, so nothing else is inside a range. A difference below zero (counter
 *   noise on a tiny variant) is stored as 0.
 *
 * NEVER IN A TIMED SAMPLE. cell.c measures a variant after its timing. The range
 * profiler object is enabled for one measurement only (cuptiRangeProfilerEnable
 * ... Disable), so no timed sample runs with it; cuptiProfilerInitialize is once
 * per run (fb_metrics_open) and undone by fb_metrics_close.
 *
 * AVAILABLE OR NOT, BEFORE ANY TIMING. fb_metrics_open does everything that can
 * fail for reasons of the machine: the library (dlopen: a build without CUPTI
 * still runs everything else), its version, the device's support, the chip's
 * configuration image, and one measurement of a probe copy — profiling may need
 * admin rights (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), and that shows only when
 * counters are read. Failing there is FB_E_UNSUPPORTED with a line that says what
 * to do; a run never fails halfway for it.
 *
 * THE LIBRARY. libcupti is found and version-checked by the shared loader
 * (cupti_loader.h: one search order for the cupti timer and this pass); here the
 * range profiler's entry points are looked up in it (fb_cupti_sym) and
 * libnvperf_host.so / libnvperf_target.so loaded from its directory
 * (fb_cupti_open_sibling). One rule is this pass's own: an AddressSanitizer
 * build refuses it (see FB_ASAN below). */
#include "metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cupti_loader.h"
#include "device.h"

/* ---- the metric table ------------------------------------------------------------ */

const fb_metric_info fb_metric_table[FB_NMETRICS] = {
    [FB_METRIC_DRAM_READ] = {"dram_read_bytes", "dram", "dram__bytes_read.sum", "bytes read from DRAM"},
    [FB_METRIC_DRAM_WRITE] = {"dram_write_bytes", "dram", "dram__bytes_write.sum", "bytes written to DRAM"},
    [FB_METRIC_INST] = {"inst_executed", "inst", "smsp__inst_executed.sum", "warp instructions executed"},
};

int fb_metric_from_key(const char *key)
{
    for (int i = 0; key && i < FB_NMETRICS; i++)
        if (strcmp(fb_metric_table[i].key, key) == 0) return i;
    return -1;
}

/* The distinct groups, in table order, then "all". */
static int group_names(const char **out)
{
    int n = 0;
    for (int i = 0; i < FB_NMETRICS; i++) {
        bool seen = false;
        for (int k = 0; k < n; k++) seen |= strcmp(out[k], fb_metric_table[i].group) == 0;
        if (!seen) out[n++] = fb_metric_table[i].group;
    }
    out[n++] = "all";
    return n;
}

fb_status fb_metrics_parse(const char *list, unsigned *mask)
{
    *mask = 0;
    const char *groups[FB_NMETRICS + 1];
    int ng = group_names(groups);
    char all_groups[256] = "";
    for (int k = 0; k < ng; k++) {
        size_t len = strlen(all_groups);
        snprintf(all_groups + len, sizeof all_groups - len, "%s%s", k ? ", " : "", groups[k]);
    }
    if (!list || !list[0]) {
        fb_error("--metrics: empty list; groups: %s", all_groups);
        return FB_E_USAGE;
    }
    int items = 0;
    bool all = false;
    for (const char *p = list;; p++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char word[64], q[96], sg[96];
        if (len == 0) {
            fb_error("--metrics: an empty item in '%s'", fb_clean(list, q, sizeof q));
            return FB_E_USAGE;
        }
        snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word ? len : sizeof word - 1), p);
        unsigned bits = 0;
        if (strcmp(word, "all") == 0) bits = FB_METRICS_ALL, all = true;
        for (int i = 0; i < FB_NMETRICS; i++)
            if (strcmp(word, fb_metric_table[i].group) == 0) bits |= FB_METRIC_BIT(i);
        if (!bits) {
            fb_error("--metrics: unknown group '%s'%s; groups: %s", fb_clean(word, q, sizeof q),
                     fb_suggest("", word, groups, ng, sg, sizeof sg), all_groups);
            return FB_E_USAGE;
        }
        if (*mask & bits && !all) {
            fb_error("--metrics: '%s' is given twice", word);
            return FB_E_USAGE;
        }
        *mask |= bits;
        items++;
        if (!end) break;
        p = end;
    }
    if (all && items > 1) {
        fb_error("--metrics: 'all' stands alone (got %d items)", items);
        *mask = 0;
        return FB_E_USAGE;
    }
    return FB_OK;
}

const char *fb_metrics_groups(unsigned mask, char *buf, size_t n)
{
    size_t used = 0;
    if (n) buf[0] = 0;
    const char *done[FB_NMETRICS];
    int nd = 0;
    for (int i = 0; i < FB_NMETRICS; i++) {
        if (!(mask & FB_METRIC_BIT(i))) continue;
        bool seen = false;
        for (int k = 0; k < nd; k++) seen |= strcmp(done[k], fb_metric_table[i].group) == 0;
        if (seen) continue;
        done[nd++] = fb_metric_table[i].group;
        int w = snprintf(buf + used, used < n ? n - used : 0, "%s%s", used ? "," : "", fb_metric_table[i].group);
        if (w > 0) used += (size_t)w;
    }
    return buf;
}

json_t *fb_metrics_json(unsigned mask, const double *values)
{
    json_t *j = NULL;
    for (int i = 0; i < FB_NMETRICS; i++) {
        if (!(mask & FB_METRIC_BIT(i)) || !isfinite(values[i])) continue;
        if (!j) j = json_object();
        double v = values[i] < 0 ? 0 : values[i];
        json_object_set_new(j, fb_metric_table[i].key, json_integer((json_int_t)llround(v)));
    }
    return j;
}

json_t *fb_metrics_settings_json(unsigned mask)
{
    json_t *j = json_object();
    for (int i = 0; i < FB_NMETRICS; i++)
        if (mask & FB_METRIC_BIT(i)) json_object_set_new(j, fb_metric_table[i].key, json_string(fb_metric_table[i].cupti));
    return j;
}

/* ---- libcupti ---------------------------------------------------------------------- */

/* AddressSanitizer aborts the process when a library is dlopen'ed with
 * RTLD_DEEPBIND, and libcupti opens libnvperf_host.so that way on its first
 * profiler call (github.com/google/sanitizers/issues/611): a sanitizer build
 * finds libcupti but does not use it for metrics. (The cupti timer's activity
 * API opens no such library: it runs under the sanitizer.) */
#if defined(__SANITIZE_ADDRESS__)
#define FB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FB_ASAN 1
#endif
#endif

#if FB_HAVE_CUPTI

#include <cuda.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include "cupti_host_api.h"
#include "l2_sweep.h"
#include "timing.h"

/* ---- the function table ------------------------------------------------------------------ */

/* The CUPTI entry points the metrics pass uses, looked up in the libcupti the
 * shared loader found (fb_cupti_sym). */
typedef struct cupti_api {
    CUptiResult (*GetVersion)(uint32_t *);
    CUptiResult (*GetResultString)(CUptiResult, const char **);
    CUptiResult (*ProfilerInitialize)(CUpti_Profiler_Initialize_Params *);
    CUptiResult (*ProfilerDeInitialize)(CUpti_Profiler_DeInitialize_Params *);
    CUptiResult (*ProfilerDeviceSupported)(CUpti_Profiler_DeviceSupported_Params *);
    CUptiResult (*ProfilerGetCounterAvailability)(CUpti_Profiler_GetCounterAvailability_Params *);
    CUptiResult (*DeviceGetChipName)(CUpti_Device_GetChipName_Params *);
    CUptiResult (*ProfilerHostInitialize)(fbc_host_initialize_params *);
    CUptiResult (*ProfilerHostDeinitialize)(fbc_host_deinitialize_params *);
    CUptiResult (*ProfilerHostConfigAddMetrics)(fbc_host_config_add_metrics_params *);
    CUptiResult (*ProfilerHostGetConfigImageSize)(fbc_host_get_config_image_size_params *);
    CUptiResult (*ProfilerHostGetConfigImage)(fbc_host_get_config_image_params *);
    CUptiResult (*ProfilerHostGetNumOfPasses)(fbc_host_get_num_of_passes_params *);
    CUptiResult (*ProfilerHostEvaluateToGpuValues)(fbc_host_evaluate_to_gpu_values_params *);
    CUptiResult (*RangeProfilerEnable)(CUpti_RangeProfiler_Enable_Params *);
    CUptiResult (*RangeProfilerDisable)(CUpti_RangeProfiler_Disable_Params *);
    CUptiResult (*RangeProfilerSetConfig)(CUpti_RangeProfiler_SetConfig_Params *);
    CUptiResult (*RangeProfilerStart)(CUpti_RangeProfiler_Start_Params *);
    CUptiResult (*RangeProfilerStop)(CUpti_RangeProfiler_Stop_Params *);
    CUptiResult (*RangeProfilerPushRange)(CUpti_RangeProfiler_PushRange_Params *);
    CUptiResult (*RangeProfilerPopRange)(CUpti_RangeProfiler_PopRange_Params *);
    CUptiResult (*RangeProfilerDecodeData)(CUpti_RangeProfiler_DecodeData_Params *);
    CUptiResult (*RangeProfilerGetCounterDataSize)(CUpti_RangeProfiler_GetCounterDataSize_Params *);
    CUptiResult (*RangeProfilerCounterDataImageInitialize)(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *);
    CUptiResult (*RangeProfilerGetCounterDataInfo)(CUpti_RangeProfiler_GetCounterDataInfo_Params *);
    CUptiResult (*RangeProfilerCounterDataGetRangeInfo)(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params *);
} cupti_api;

#define SYM(f) {"cupti" #f, offsetof(cupti_api, f)}
static const struct {
    const char *name;
    size_t offset;
} cupti_syms[] = {
    SYM(GetVersion), SYM(GetResultString), SYM(ProfilerInitialize), SYM(ProfilerDeInitialize),
    SYM(ProfilerDeviceSupported), SYM(ProfilerGetCounterAvailability), SYM(DeviceGetChipName),
    SYM(ProfilerHostInitialize), SYM(ProfilerHostDeinitialize), SYM(ProfilerHostConfigAddMetrics),
    SYM(ProfilerHostGetConfigImageSize), SYM(ProfilerHostGetConfigImage), SYM(ProfilerHostGetNumOfPasses),
    SYM(ProfilerHostEvaluateToGpuValues), SYM(RangeProfilerEnable), SYM(RangeProfilerDisable),
    SYM(RangeProfilerSetConfig), SYM(RangeProfilerStart), SYM(RangeProfilerStop), SYM(RangeProfilerPushRange),
    SYM(RangeProfilerPopRange), SYM(RangeProfilerDecodeData), SYM(RangeProfilerGetCounterDataSize),
    SYM(RangeProfilerCounterDataImageInitialize), SYM(RangeProfilerGetCounterDataInfo),
    SYM(RangeProfilerCounterDataGetRangeInfo),
};
#undef SYM

static cupti_api api;
static bool api_tried;
static fb_status api_status;
static char api_error[8192];
static const char *api_path;
static unsigned api_version;

/* libcupti from the shared loader (which passes over one older than CUDA 13's
 * for the next candidate), then: every range-profiler entry point; not under
 * AddressSanitizer; libnvperf_host.so and libnvperf_target.so from its directory
 * when they are there (pip wheels ship them beside it and libcupti looks them up
 * by name, finding these copies; where they are missing, libcupti's own search
 * decides, and a failure shows as its error when the profiler starts). Once:
 * later calls return the first outcome. */
static fb_status load_cupti(void)
{
    if (api_tried) {
        if (api_status != FB_OK) fb_error("%s", api_error);
        return api_status;
    }
    api_tried = true;
    api_status = FB_E_UNSUPPORTED;
    const fb_cupti_api *base = NULL;
    if (fb_cupti_load(&base) != FB_OK) {
        snprintf(api_error, sizeof api_error, "%s", fb_last_error());
        return api_status;
    }
    cupti_api a;
    for (size_t i = 0; i < sizeof cupti_syms / sizeof cupti_syms[0]; i++) {
        void *f = fb_cupti_sym(cupti_syms[i].name);
        if (!f) {
            snprintf(api_error, sizeof api_error, "%s: has no %s (a CUPTI without the range profiler)", base->path,
                     cupti_syms[i].name);
            fb_error("%s", api_error);
            return api_status;
        }
        memcpy((char *)&a + cupti_syms[i].offset, &f, sizeof f); /* POSIX: function pointers are data pointers */
    }
#ifdef FB_ASAN
    snprintf(api_error, sizeof api_error,
             "%s: not used in an AddressSanitizer build (libcupti opens libnvperf_host.so with RTLD_DEEPBIND, "
             "which the sanitizer aborts on): use a build without -Db_sanitize for metrics",
             base->path);
    fb_error("%s", api_error);
    return api_status;
#endif
    (void)fb_cupti_open_sibling("libnvperf_host.so");
    (void)fb_cupti_open_sibling("libnvperf_target.so");
    fb_clear_error();
    api = a;
    api_path = base->path;
    api_version = base->version;
    api_status = FB_OK;
    return FB_OK;
}

fb_status fb_metrics_load_cupti(const char **path, unsigned *version)
{
    fb_status s = load_cupti();
    if (path) *path = s == FB_OK ? api_path : NULL;
    if (version) *version = api_version;
    return s;
}

/* ---- CUPTI errors ------------------------------------------------------------------------ */

static const char *result_name(CUptiResult r)
{
    const char *s = NULL;
    if (api.GetResultString && api.GetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
    return "unknown CUPTI error";
}

/* A failed CUPTI call as fb_status: the machine cannot profile (permission,
 * vGPU, an unsupported device) is FB_E_UNSUPPORTED, anything else FB_E_CUDA. */
static fb_status cupti_fail(CUptiResult r, const char *call)
{
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        fb_error("%s: %s (%d): reading GPU performance counters needs permission: run as root, or load the "
                 "NVIDIA driver with NVreg_RestrictProfilingToAdminUsers=0 "
                 "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)",
                 call, result_name(r), (int)r);
        return FB_E_UNSUPPORTED;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_DEVICE:
        fb_error("%s: %s (%d): this device cannot be profiled", call, result_name(r), (int)r);
        return FB_E_UNSUPPORTED;
    default:
        fb_error("%s: %s (%d)%s%s", call, result_name(r), (int)r, fb_context_str()[0] ? " while " : "",
                 fb_context_str());
        return FB_E_CUDA;
    }
}

#define CUPTI_CALL(fn, params)                                             \
    do {                                                                   \
        CUptiResult r_ = api.fn(params);                                   \
        if (r_ != CUPTI_SUCCESS) return cupti_fail(r_, "cupti" #fn);       \
    } while (0)

/* ---- the host side: the configuration image ------------------------------------------------ */

typedef struct host_config {
    fbc_host_object *host;
    uint8_t *image;
    size_t image_bytes, passes;
} host_config;

static void host_config_free(host_config *c)
{
    if (c->host) {
        fbc_host_deinitialize_params p = {FBC_HOST_DEINITIALIZE_PARAMS_SIZE, NULL, c->host};
        api.ProfilerHostDeinitialize(&p);
    }
    free(c->image);
    memset(c, 0, sizeof *c);
}

/* The host object for `chip` (with the device's counter availability when there
 * is one) and the configuration image for the metrics `names`. */
static fb_status host_config_make(const char *chip, const uint8_t *availability, const char **names, int n,
                                  host_config *c)
{
    memset(c, 0, sizeof *c);
    fbc_host_initialize_params init = {FBC_HOST_INITIALIZE_PARAMS_SIZE, NULL, FBC_PROFILER_TYPE_RANGE_PROFILER, chip,
                                       availability, NULL};
    CUptiResult r = api.ProfilerHostInitialize(&init);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(r, "cuptiProfilerHostInitialize");
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", fb_last_error());
        fb_error("chip '%s': %s", chip, msg);
        return FB_E_UNSUPPORTED;
    }
    c->host = init.pHostObject;
    fbc_host_config_add_metrics_params add = {FBC_HOST_CONFIG_ADD_METRICS_PARAMS_SIZE, NULL, c->host, names,
                                              (size_t)n};
    r = api.ProfilerHostConfigAddMetrics(&add);
    if (r != CUPTI_SUCCESS) {
        /* say which name: add them one by one on a fresh object */
        const char *bad = NULL;
        for (int i = 0; i < n && !bad; i++) {
            fbc_host_initialize_params one = init;
            one.pHostObject = NULL;
            if (api.ProfilerHostInitialize(&one) != CUPTI_SUCCESS) break;
            fbc_host_config_add_metrics_params a1 = {FBC_HOST_CONFIG_ADD_METRICS_PARAMS_SIZE, NULL, one.pHostObject,
                                                     &names[i], 1};
            if (api.ProfilerHostConfigAddMetrics(&a1) != CUPTI_SUCCESS) bad = names[i];
            fbc_host_deinitialize_params d = {FBC_HOST_DEINITIALIZE_PARAMS_SIZE, NULL, one.pHostObject};
            api.ProfilerHostDeinitialize(&d);
        }
        host_config_free(c);
        fb_error("chip %s has no metric '%s' (cuptiProfilerHostConfigAddMetrics: %s)", chip, bad ? bad : "?",
                 result_name(r));
        return FB_E_USAGE;
    }
    fbc_host_get_config_image_size_params size = {FBC_HOST_GET_CONFIG_IMAGE_SIZE_PARAMS_SIZE, NULL, c->host, 0};
    fb_status s = FB_OK;
    r = api.ProfilerHostGetConfigImageSize(&size);
    if (r != CUPTI_SUCCESS) s = cupti_fail(r, "cuptiProfilerHostGetConfigImageSize");
    if (s == FB_OK && !(c->image = malloc(size.configImageSize ? size.configImageSize : 1))) {
        fb_error("out of host memory for a CUPTI configuration image of %zu bytes", size.configImageSize);
        s = FB_E_NOMEM;
    }
    if (s == FB_OK) {
        c->image_bytes = size.configImageSize;
        fbc_host_get_config_image_params img = {FBC_HOST_GET_CONFIG_IMAGE_PARAMS_SIZE, NULL, c->host, c->image_bytes,
                                                c->image};
        r = api.ProfilerHostGetConfigImage(&img);
        if (r != CUPTI_SUCCESS) s = cupti_fail(r, "cuptiProfilerHostGetConfigImage");
    }
    if (s == FB_OK) {
        fbc_host_get_num_of_passes_params np = {FBC_HOST_GET_NUM_OF_PASSES_PARAMS_SIZE, NULL, c->image_bytes,
                                                c->image, 0};
        r = api.ProfilerHostGetNumOfPasses(&np);
        if (r != CUPTI_SUCCESS) s = cupti_fail(r, "cuptiProfilerHostGetNumOfPasses");
        c->passes = np.numOfPasses;
    }
    if (s != FB_OK) host_config_free(c);
    return s;
}

fb_status fb_metrics_host_config(const char *chip, const char *const *names, int n, size_t *config_bytes,
                                 size_t *passes)
{
    FB_TRY(load_cupti());
    host_config c;
    FB_TRY(host_config_make(chip, NULL, (const char **)names, n, &c));
    if (config_bytes) *config_bytes = c.image_bytes;
    if (passes) *passes = c.passes;
    host_config_free(&c);
    return FB_OK;
}

/* ---- the session ---------------------------------------------------------------------------- */

#define N_RANGES 2  /* fb_calibrate, fb_variant */
#define MAX_PASSES 64
static const char *const range_names[N_RANGES] = {"fb_calibrate", "fb_variant"};

struct fb_metrics {
    unsigned mask;
    const char *names[FB_NMETRICS]; /* the CUPTI names collected, in table order */
    int index[FB_NMETRICS];         /* metric id -> position in names, or -1 */
    int n;
    CUcontext cu;
    cudaStream_t stream;
    fb_timer *timer;
    host_config cfg;
    uint8_t *counter_data;
    size_t counter_bytes;
    void *sweep;        /* buffer B: zeroed, the flush's size */
    size_t sweep_bytes;
    unsigned *sink;     /* never written (l2_sweep.h) */
    bool initialized;   /* cuptiProfilerInitialize done */
};

unsigned fb_metrics_mask(const fb_metrics *m) { return m ? m->mask : 0; }

static fb_status current_context(CUcontext *out)
{
    /* the runtime's primary context, without linking libcuda: the runtime hands out
     * driver entry points */
    CUresult (*get)(CUcontext *) = NULL;
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q;
    FB_CUDA(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q));
    if (!fn || q != cudaDriverEntryPointSuccess) {
        fb_error("the CUDA driver has no cuCtxGetCurrent (entry point query result %d)", (int)q);
        return FB_E_CUDA;
    }
    memcpy(&get, &fn, sizeof fn);
    CUresult r = get(out);
    if (r != CUDA_SUCCESS || !*out) {
        fb_error("cuCtxGetCurrent: error %d, or no current CUDA context", (int)r);
        return FB_E_CUDA;
    }
    return FB_OK;
}

static fb_status device_supported(int ordinal)
{
    CUpti_Profiler_DeviceSupported_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    p.cuDevice = ordinal;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    CUPTI_CALL(ProfilerDeviceSupported, &p);
    if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return FB_OK;
    static const char *const level[] = {"unknown", "unsupported", "disabled", "supported"};
    const struct { const char *what; CUpti_Profiler_Support_Level l; } parts[] = {
        {"architecture", p.architecture}, {"SLI", p.sli}, {"vGPU", p.vGpu},
        {"confidential computing", p.confidentialCompute}, {"CMP", p.cmp}, {"WSL", p.wsl},
    };
    char why[256] = "";
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].l != CUPTI_PROFILER_CONFIGURATION_SUPPORTED && (unsigned)parts[i].l < 4)
            fb_appendf(why, sizeof why, "%s%s: %s", why[0] ? ", " : "", parts[i].what, level[parts[i].l]);
    fb_error("device %d cannot be profiled by CUPTI's range profiler (%s)", ordinal, why[0] ? why : "no reason given");
    return FB_E_UNSUPPORTED;
}

static fb_status counter_availability(CUcontext cu, uint8_t **out)
{
    *out = NULL;
    CUpti_Profiler_GetCounterAvailability_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    p.ctx = cu;
    CUPTI_CALL(ProfilerGetCounterAvailability, &p);
    if (!(*out = malloc(p.counterAvailabilityImageSize ? p.counterAvailabilityImageSize : 1))) {
        fb_error("out of host memory for CUPTI's counter availability image");
        return FB_E_NOMEM;
    }
    p.pCounterAvailabilityImage = *out;
    CUPTI_CALL(ProfilerGetCounterAvailability, &p);
    return FB_OK;
}

static fb_status sync_device(const char *what)
{
    return fb_cuda_status(cudaDeviceSynchronize(), what, __FILE__, __LINE__);
}

static fb_status sweep(fb_metrics *m)
{
    return fb_cuda_status(fb_launch_l2_sweep(m->sweep, m->sweep_bytes, m->sink, m->stream), "fb_launch_l2_sweep",
                          __FILE__, __LINE__);
}

/* A pass's state, for the cleanup of a failure halfway: a pushed range is popped,
 * a started pass stopped, so the profiler object can be disabled. */
typedef struct pass_state {
    CUpti_RangeProfiler_Object *obj;
    bool started, pushed;
} pass_state;

static fb_status push(fb_metrics *m, pass_state *ps, const char *name)
{
    CUpti_RangeProfiler_PushRange_Params p = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE, NULL, ps->obj, name};
    CUPTI_CALL(RangeProfilerPushRange, &p);
    ps->pushed = true;
    return FB_OK;
}

static fb_status pop(fb_metrics *m, pass_state *ps)
{
    CUpti_RangeProfiler_PopRange_Params p = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, NULL, ps->obj};
    ps->pushed = false;
    CUPTI_CALL(RangeProfilerPopRange, &p);
    return FB_OK;
}

/* One range: flush (outside), push, [the variant], the sweep, drain, pop. */
static fb_status one_range(fb_metrics *m, pass_state *ps, const char *name, const fb_runnable *r)
{
    FB_TRY(fb_timer_flush_l2(m->timer));
    FB_TRY(sync_device("cudaDeviceSynchronize (before a profiled range)"));
    FB_TRY(push(m, ps, name));
    if (r) FB_TRY(r->run(r->self, m->stream));
    FB_TRY(sweep(m));
    FB_TRY(sync_device("cudaDeviceSynchronize (end of a profiled range)"));
    return pop(m, ps);
}

/* Every pass of one measurement; *obj is enabled and configured. */
static fb_status run_passes(fb_metrics *m, pass_state *ps, const fb_runnable *r)
{
    bool all = false;
    for (int pass = 0; pass < MAX_PASSES && !all; pass++) {
        CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL, ps->obj};
        CUPTI_CALL(RangeProfilerStart, &st);
        ps->started = true;
        FB_TRY(one_range(m, ps, range_names[0], NULL));
        FB_TRY(one_range(m, ps, range_names[1], r));
        CUpti_RangeProfiler_Stop_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = ps->obj;
        ps->started = false;
        CUPTI_CALL(RangeProfilerStop, &sp);
        all = sp.isAllPassSubmitted != 0;
    }
    if (!all) {
        fb_error("CUPTI range profiler: not done after %d passes", MAX_PASSES);
        return FB_E_CUDA;
    }
    return FB_OK;
}

/* The counter data image, decoded: values[range][metric] of the collected names. */
static fb_status evaluate(fb_metrics *m, pass_state *ps, double values[N_RANGES][FB_NMETRICS])
{
    CUpti_RangeProfiler_DecodeData_Params dec = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, NULL, ps->obj, 0};
    CUPTI_CALL(RangeProfilerDecodeData, &dec);
    if (dec.numOfRangeDropped) {
        fb_error("CUPTI range profiler dropped %zu range%s", dec.numOfRangeDropped,
                 dec.numOfRangeDropped > 1 ? "s" : "");
        return FB_E_CUDA;
    }
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE, NULL, m->counter_data, m->counter_bytes, 0};
    CUPTI_CALL(RangeProfilerGetCounterDataInfo, &info);
    if (info.numTotalRanges != N_RANGES) {
        fb_error("CUPTI range profiler: %zu ranges in the counter data, expected %d", info.numTotalRanges, N_RANGES);
        return FB_E_CUDA;
    }
    for (size_t i = 0; i < N_RANGES; i++) {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE, NULL, m->counter_data, m->counter_bytes,
            i, "/", NULL};
        CUPTI_CALL(RangeProfilerCounterDataGetRangeInfo, &ri);
        /* ranges come back in the order they were pushed; the name (which may carry
         * its nesting path) is only a cross-check */
        if (ri.rangeName && !strstr(ri.rangeName, range_names[i])) {
            fb_error("CUPTI range profiler: range %zu is '%s', expected '%s'", i, ri.rangeName ? ri.rangeName : "?",
                     range_names[i]);
            return FB_E_CUDA;
        }
        fbc_host_evaluate_to_gpu_values_params ev = {FBC_HOST_EVALUATE_TO_GPU_VALUES_PARAMS_SIZE, NULL, m->cfg.host,
                                                     m->counter_data, m->counter_bytes, i, m->names, (size_t)m->n,
                                                     values[i]};
        CUPTI_CALL(ProfilerHostEvaluateToGpuValues, &ev);
    }
    return FB_OK;
}

/* Enable, size and initialise the counter data image, set the configuration. */
static fb_status configure(fb_metrics *m, pass_state *ps)
{
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, NULL, m->cu, NULL};
    CUPTI_CALL(RangeProfilerEnable, &en);
    ps->obj = en.pRangeProfilerObject;
    /* Every range profiler object is told its metrics by GetCounterDataSize: the image
     * initialisation below reads them from the object, so a second object that skipped this
     * call crashed inside libcupti (H100, CUPTI 13.0.1). The image is reused when it fits. */
    {
        CUpti_RangeProfiler_GetCounterDataSize_Params sz;
        memset(&sz, 0, sizeof sz);
        sz.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
        sz.pRangeProfilerObject = ps->obj;
        sz.pMetricNames = m->names;
        sz.numMetrics = (size_t)m->n;
        sz.maxNumOfRanges = N_RANGES;
        sz.maxNumRangeTreeNodes = N_RANGES;
        CUPTI_CALL(RangeProfilerGetCounterDataSize, &sz);
        if (!m->counter_data || m->counter_bytes != sz.counterDataSize) {
            free(m->counter_data);
            m->counter_bytes = 0;
            if (!(m->counter_data = malloc(sz.counterDataSize ? sz.counterDataSize : 1))) {
                fb_error("out of host memory for a CUPTI counter data image of %zu bytes", sz.counterDataSize);
                return FB_E_NOMEM;
            }
            m->counter_bytes = sz.counterDataSize;
        }
    }
    memset(m->counter_data, 0, m->counter_bytes);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE, NULL, ps->obj, m->counter_bytes,
        m->counter_data};
    CUPTI_CALL(RangeProfilerCounterDataImageInitialize, &ci);
    CUpti_RangeProfiler_SetConfig_Params sc;
    memset(&sc, 0, sizeof sc);
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = ps->obj;
    sc.configSize = m->cfg.image_bytes;
    sc.pConfig = m->cfg.image;
    sc.counterDataImageSize = m->counter_bytes;
    sc.pCounterDataImage = m->counter_data;
    sc.range = CUPTI_UserRange;
    sc.replayMode = CUPTI_UserReplay;
    sc.maxRangesPerPass = N_RANGES;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CUPTI_CALL(RangeProfilerSetConfig, &sc);
    return FB_OK;
}

fb_status fb_metrics_measure(fb_metrics *m, const fb_runnable *r, double *values)
{
    for (int i = 0; i < FB_NMETRICS; i++) values[i] = NAN;
    pass_state ps = {0};
    double v[N_RANGES][FB_NMETRICS];
    fb_status s = configure(m, &ps);
    if (s == FB_OK) s = run_passes(m, &ps, r);
    if (s == FB_OK) s = evaluate(m, &ps, v);
    /* whatever happened, the profiler is left off: no timed sample runs with it */
    if (s != FB_OK) (void)cudaDeviceSynchronize();
    if (ps.pushed) {
        CUpti_RangeProfiler_PopRange_Params p = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, NULL, ps.obj};
        api.RangeProfilerPopRange(&p);
    }
    if (ps.started) {
        CUpti_RangeProfiler_Stop_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = ps.obj;
        api.RangeProfilerStop(&p);
    }
    if (ps.obj) {
        CUpti_RangeProfiler_Disable_Params d = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, ps.obj};
        CUptiResult rd = api.RangeProfilerDisable(&d);
        if (s == FB_OK && rd != CUPTI_SUCCESS) s = cupti_fail(rd, "cuptiRangeProfilerDisable");
    }
    if (s != FB_OK) return s;
    for (int i = 0; i < FB_NMETRICS; i++)
        if (m->index[i] >= 0) {
            double d = v[1][m->index[i]] - v[0][m->index[i]];
            values[i] = isnan(d) ? NAN : d > 0 ? d : 0;
        }
    return FB_OK;
}

void fb_metrics_close(fb_metrics *m)
{
    if (!m) return;
    host_config_free(&m->cfg);
    free(m->counter_data);
    fb_dfree(m->sweep);
    fb_dfree(m->sink);
    if (m->initialized) {
        CUpti_Profiler_DeInitialize_Params p = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL};
        api.ProfilerDeInitialize(&p);
    }
    free(m);
}

typedef struct copy_probe {
    void *dst;
    const void *src;
    size_t bytes;
} copy_probe;

static fb_status copy_probe_run(void *self, cudaStream_t stream)
{
    copy_probe *c = self;
    FB_CUDA(fb_launch_copy(c->dst, c->src, c->bytes, stream));
    return FB_OK;
}

/* The steps of open that may fail for reasons of the machine. */
static fb_status open_steps(fb_metrics *m, const fb_context *ctx)
{
    FB_TRY(load_cupti());
    FB_TRY(current_context(&m->cu));
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    CUPTI_CALL(ProfilerInitialize, &init);
    m->initialized = true;
    FB_TRY(device_supported(ctx->dev.ordinal));
    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL,
                                            (size_t)ctx->dev.ordinal, NULL};
    CUPTI_CALL(DeviceGetChipName, &chip);
    uint8_t *avail = NULL;
    fb_status s = counter_availability(m->cu, &avail);
    if (s == FB_OK) s = host_config_make(chip.pChipName, avail, m->names, m->n, &m->cfg);
    free(avail);
    FB_TRY(s);
    m->sweep_bytes = fb_timer_flush_bytes(m->timer) & ~(size_t)(FB_L2_SWEEP_LINE - 1);
    FB_TRY(fb_dmalloc(&m->sweep, m->sweep_bytes));
    FB_TRY(fb_dmalloc((void **)&m->sink, sizeof *m->sink));
    FB_CUDA(cudaMemsetAsync(m->sweep, 0, m->sweep_bytes, m->stream));
    /* the probe: counters read once, so a missing permission shows now */
    const size_t probe_bytes = (size_t)1 << 20;
    copy_probe c = {NULL, NULL, probe_bytes};
    s = fb_dmalloc(&c.dst, probe_bytes);
    if (s == FB_OK) s = fb_dmalloc((void **)&c.src, probe_bytes);
    if (s == FB_OK) s = fb_cuda_status(cudaMemsetAsync((void *)c.src, 0, probe_bytes, m->stream), "cudaMemsetAsync",
                                       __FILE__, __LINE__);
    double v[FB_NMETRICS];
    fb_runnable r = {copy_probe_run, &c, 1};
    if (s == FB_OK) s = fb_metrics_measure(m, &r, v);
    for (int i = 0; i < FB_NMETRICS && s == FB_OK; i++)
        if (m->index[i] >= 0 && !isfinite(v[i])) {
            fb_error("CUPTI gave no value for %s on a probe copy", fb_metric_table[i].cupti);
            s = FB_E_UNSUPPORTED;
        }
    fb_dfree(c.dst);
    fb_dfree((void *)c.src);
    return s;
}

fb_status fb_metrics_open(const fb_context *ctx, fb_timer *timer, unsigned mask, fb_metrics **out)
{
    *out = NULL;
    if (!(mask & FB_METRICS_ALL)) {
        fb_error("no metric to collect");
        return FB_E_USAGE;
    }
    fb_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    m->mask = mask & FB_METRICS_ALL;
    m->timer = timer;
    m->stream = ctx->stream;
    for (int i = 0; i < FB_NMETRICS; i++) {
        m->index[i] = -1;
        if (m->mask & FB_METRIC_BIT(i)) {
            m->index[i] = m->n;
            m->names[m->n++] = fb_metric_table[i].cupti;
        }
    }
    fb_status s = open_steps(m, ctx);
    if (s != FB_OK) {
        fb_metrics_close(m);
        if (s == FB_E_CUDA || s == FB_E_USAGE) s = FB_E_UNSUPPORTED; /* the machine cannot, whatever the cause */
        char msg[2048];
        snprintf(msg, sizeof msg, "%s", fb_last_error());
        fb_error("cannot collect GPU performance counters here: %s", msg);
        return s;
    }
    *out = m;
    return FB_OK;
}

/* ---- selftest ---------------------------------------------------------------------------------- */

fb_status fb_metrics_selfcheck(const fb_context *ctx, fb_timer *timer, char *report, size_t n)
{
    if (report && n) report[0] = 0;
    fb_metrics *m = NULL;
    FB_TRY(fb_metrics_open(ctx, timer, FB_METRICS_ALL, &m));
    const size_t big = (size_t)128 << 20;
    copy_probe c = {NULL, NULL, 0};
    fb_status s = fb_dmalloc(&c.dst, big);
    if (s == FB_OK) s = fb_dmalloc((void **)&c.src, big);
    if (s == FB_OK)
        s = fb_cuda_status(cudaMemsetAsync((void *)c.src, 1, big, ctx->stream), "cudaMemsetAsync", __FILE__, __LINE__);
    fb_runnable r = {copy_probe_run, &c, 1};
    double v[2][FB_NMETRICS];
    bool ok = true;
    for (int k = 0; k < 2 && s == FB_OK; k++) {
        c.bytes = big >> (1 - k); /* 64 MiB, then 128 MiB */
        s = fb_metrics_measure(m, &r, v[k]);
        if (s != FB_OK) break;
        double rd = v[k][FB_METRIC_DRAM_READ] / (double)c.bytes, wr = v[k][FB_METRIC_DRAM_WRITE] / (double)c.bytes;
        bool good = fabs(rd - 1) <= 0.03 && fabs(wr - 1) <= 0.03;
        ok &= good;
        if (report)
            fb_appendf(report, n, "metrics: copy %zu MiB: DRAM read %.4fx, written %.4fx of its bytes, %.0f instructions: %s\n",
                   c.bytes >> 20, rd, wr, v[k][FB_METRIC_INST], good ? "ok" : "FAIL (beyond 3%)");
    }
    if (s == FB_OK) {
        double ratio = v[1][FB_METRIC_INST] / v[0][FB_METRIC_INST];
        bool good = fabs(ratio - 2) <= 0.1;
        ok &= good;
        if (report)
            fb_appendf(report, n, "metrics: instructions of the 128 MiB copy / the 64 MiB copy = %.3f (2 expected): %s\n",
                   ratio, good ? "ok" : "FAIL (beyond 5%)");
    }
    fb_dfree(c.dst);
    fb_dfree((void *)c.src);
    fb_metrics_close(m);
    if (s != FB_OK) return s;
    if (!ok) {
        fb_error("metrics self-check failed: a copy's measured bytes or instructions are off");
        return FB_E_CHECK;
    }
    return FB_OK;
}

#else /* !FB_HAVE_CUPTI: the toolkit this was built with had no CUPTI headers */

#define NO_CUPTI "this fusionbench was built without CUPTI's headers (cupti_range_profiler.h): metrics need a build " \
                 "against a CUDA 13 toolkit that ships them"

fb_status fb_metrics_load_cupti(const char **path, unsigned *version)
{
    if (path) *path = NULL;
    if (version) *version = 0;
    fb_error(NO_CUPTI);
    return FB_E_UNSUPPORTED;
}

fb_status fb_metrics_host_config(const char *chip, const char *const *names, int n, size_t *config_bytes,
                                 size_t *passes)
{
    fb_error(NO_CUPTI);
    return FB_E_UNSUPPORTED;
}

fb_status fb_metrics_open(const struct fb_context *ctx, struct fb_timer *timer, unsigned mask, fb_metrics **out)
{
    *out = NULL;
    fb_error(NO_CUPTI);
    return FB_E_UNSUPPORTED;
}

unsigned fb_metrics_mask(const fb_metrics *m) { return 0; }

fb_status fb_metrics_measure(fb_metrics *m, const struct fb_runnable *r, double *values)
{
    fb_error(NO_CUPTI);
    return FB_E_UNSUPPORTED;
}

void fb_metrics_close(fb_metrics *m) {}

fb_status fb_metrics_selfcheck(const struct fb_context *ctx, struct fb_timer *timer, char *report, size_t n)
{
    fb_error(NO_CUPTI);
    return FB_E_UNSUPPORTED;
}

#endif
