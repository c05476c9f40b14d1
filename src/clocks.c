/* clocks.c — NVML loaded at run time, the readings as JSON, and the throttle
 * detector (clocks.h).
 *
 * NVML (the NVIDIA Management Library) ships with the driver as
 * libnvidia-ml.so.1; its header (nvml.h) is not part of the CUDA toolkit on the
 * build machine, so the few types, constants and entry points used here are
 * declared below from the NVML API reference, and the library is opened with
 * dlopen: a machine without it still runs, without clocks. */
#include "clocks.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"

/* ---- the NVML API (nvml.h), as much as is used ----------------------------------- */

typedef int nvmlReturn_t;                   /* enum nvmlReturn_t: NVML_SUCCESS = 0         */
typedef struct nvmlDevice_st *nvmlDevice_t; /* an opaque handle                            */
#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1          /* nvmlClockType_t: NVML_CLOCK_GRAPHICS 0, SM 1, MEM 2, VIDEO 3 */
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0   /* nvmlTemperatureSensors_t */

typedef nvmlReturn_t (*nvmlInit_v2_t)(void);
typedef nvmlReturn_t (*nvmlShutdown_t)(void);
typedef const char *(*nvmlErrorString_t)(nvmlReturn_t result);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByPciBusId_v2_t)(const char *pciBusId, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_t)(nvmlDevice_t device, int type, unsigned int *clock);
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_t)(nvmlDevice_t device, int sensorType, unsigned int *temp);
typedef nvmlReturn_t (*nvmlDeviceGetPowerUsage_t)(nvmlDevice_t device, unsigned int *milliwatts);
/* optional (a library without it records no reasons) */
typedef nvmlReturn_t (*nvmlDeviceGetCurrentClocksThrottleReasons_t)(nvmlDevice_t device, unsigned long long *reasons);

struct fb_nvml {
    void *lib;
    char library[512];
    nvmlDevice_t dev;
    nvmlShutdown_t shutdown;
    nvmlDeviceGetClockInfo_t clock_info;
    nvmlDeviceGetTemperature_t temperature;
    nvmlDeviceGetPowerUsage_t power_usage;
    nvmlDeviceGetCurrentClocksThrottleReasons_t reasons; /* NULL: not in this library */
};

/* ---- readings ------------------------------------------------------------------------ */

void fb_clock_reading_clear(fb_clock_reading *r)
{
    r->sm_mhz = r->mem_mhz = r->temp_c = r->power_w = NAN;
}

double fb_clocks_sm_drop(const fb_clock_reading *before, const fb_clock_reading *after)
{
    if (!before || !after) return NAN;
    double b = before->sm_mhz, a = after->sm_mhz;
    if (!(b > 0) || !(a > 0) || !isfinite(b) || !isfinite(a)) return NAN;
    return (b - a) / b;
}

bool fb_clocks_settled(double sm_mhz, double peak_mhz)
{
    if (!(sm_mhz > 0) || !(peak_mhz > 0)) return true;
    return sm_mhz >= (1.0 - FB_SETTLE_BAND) * peak_mhz;
}

bool fb_clocks_throttled(const fb_clock_reading *before, const fb_clock_reading *after)
{
    double drop = fb_clocks_sm_drop(before, after);
    return drop > FB_THROTTLE_DROP; /* NaN compares false: a missing reading never flags */
}

static void add_part(char *buf, size_t n, size_t *used, const char *fmt, double b, double a, const char *unit)
{
    if (!isfinite(b) && !isfinite(a)) return;
    if (*used >= n) return;
    char x[32] = "?", y[32] = "?";
    if (isfinite(b)) snprintf(x, sizeof x, "%.0f", b);
    if (isfinite(a)) snprintf(y, sizeof y, "%.0f", a);
    int w = snprintf(buf + *used, n - *used, "%s%s %s -> %s %s", *used ? ", " : "", fmt, x, y, unit);
    if (w > 0) *used = *used + (size_t)w < n ? *used + (size_t)w : n;
}

const char *fb_clocks_describe(const fb_clock_reading *before, const fb_clock_reading *after, char *buf, size_t n)
{
    if (!n) return buf;
    buf[0] = 0;
    size_t used = 0;
    add_part(buf, n, &used, "SM clock", before->sm_mhz, after->sm_mhz, "MHz");
    double drop = fb_clocks_sm_drop(before, after);
    if (isfinite(drop) && used < n) {
        int w = snprintf(buf + used, n - used, " (%+.1f%%)", -drop * 100.0);
        if (w > 0) used = used + (size_t)w < n ? used + (size_t)w : n;
    }
    add_part(buf, n, &used, "memory", before->mem_mhz, after->mem_mhz, "MHz");
    add_part(buf, n, &used, "temperature", before->temp_c, after->temp_c, "C");
    add_part(buf, n, &used, "power", before->power_w, after->power_w, "W");
    if (!buf[0]) snprintf(buf, n, "no clock readings");
    return buf;
}

/* ---- JSON ------------------------------------------------------------------------------ */

static const char *const reading_keys[4] = {"sm_clock_mhz", "mem_clock_mhz", "temp_c", "power_w"};

static double *reading_field(fb_clock_reading *r, int i)
{
    double *f[4] = {&r->sm_mhz, &r->mem_mhz, &r->temp_c, &r->power_w};
    return f[i];
}

json_t *fb_clock_reading_to_json(const fb_clock_reading *r)
{
    json_t *j = json_object();
    fb_clock_reading c = *r;
    for (int i = 0; i < 4; i++) {
        double v = *reading_field(&c, i);
        if (!isfinite(v)) continue;
        /* whole numbers as integers (NVML's MHz and degrees are), watts to the milliwatt */
        if (v == floor(v) && fabs(v) < 1e15) json_object_set_new(j, reading_keys[i], json_integer((json_int_t)v));
        else json_object_set_new(j, reading_keys[i], json_real(round(v * 1000.0) / 1000.0));
    }
    return j;
}

void fb_clock_reading_from_json(const json_t *j, fb_clock_reading *r)
{
    fb_clock_reading_clear(r);
    for (int i = 0; i < 4; i++) {
        const json_t *v = json_object_get(j, reading_keys[i]);
        if (json_is_number(v)) *reading_field(r, i) = json_number_value(v);
    }
}

static bool reading_empty(const fb_clock_reading *r)
{
    return !isfinite(r->sm_mhz) && !isfinite(r->mem_mhz) && !isfinite(r->temp_c) && !isfinite(r->power_w);
}

json_t *fb_clocks_to_json(const fb_clock_reading *before, const fb_clock_reading *after)
{
    if (reading_empty(before) && reading_empty(after)) return NULL;
    json_t *j = json_object();
    json_object_set_new(j, "before", fb_clock_reading_to_json(before));
    json_object_set_new(j, "after", fb_clock_reading_to_json(after));
    return j;
}

void fb_clocks_from_json(const json_t *clocks, fb_clock_reading *before, fb_clock_reading *after)
{
    fb_clock_reading_from_json(json_object_get(clocks, "before"), before);
    fb_clock_reading_from_json(json_object_get(clocks, "after"), after);
}

bool fb_clocks_json_throttled(const json_t *clocks)
{
    if (!clocks) return false;
    fb_clock_reading b, a;
    fb_clocks_from_json(clocks, &b, &a);
    return fb_clocks_throttled(&b, &a);
}

bool fb_cell_json_throttled(const json_t *cell)
{
    if (fb_clocks_json_throttled(json_object_get(cell, "clocks"))) return true;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(cell, "variants"), k, v) if (fb_variant_json_stepped(v, NULL)) return true;
    return false;
}

bool fb_variant_json_stepped(const json_t *variant, double *pct)
{
    const json_t *st = json_object_get(variant, "step_pct");
    if (!json_is_number(st) || !fb_step_flagged(json_number_value(st) / 100.0)) return false;
    if (pct) *pct = json_number_value(st);
    return true;
}

/* ---- the step detector ----------------------------------------------------------------- */

/* the median of n values, from a copy (stats.c's order statistics sort in place) */
static double median_of(const double *x, int n)
{
    double stack[64], *c = n <= 64 ? stack : malloc(sizeof *c * (size_t)n);
    if (!c) return NAN;
    memcpy(c, x, sizeof *c * (size_t)n);
    fb_stats st;
    fb_stats_compute(c, n, &st);
    if (c != stack) free(c);
    return st.median;
}

double fb_samples_step(const double *x, int n)
{
    if (!x || n < FB_STEP_MIN_SAMPLES) return NAN;
    const int q = n / 4;
    const double first = median_of(x, q), last = median_of(x + n - q, q);
    if (!(first > 0) || !(last > 0)) return NAN;
    return last / first - 1.0;
}

bool fb_step_flagged(double step) { return isfinite(step) && fabs(step) > FB_STEP_LIMIT; }

/* ---- NVML ------------------------------------------------------------------------------- */

static void *sym(fb_nvml *n, const char *name, char *missing, size_t len)
{
    void *p = dlsym(n->lib, name);
    if (!p && !missing[0]) snprintf(missing, len, "%s", name);
    return p;
}

fb_status fb_nvml_open(const char *pci_bus_id, fb_nvml **out)
{
    *out = NULL;
    fb_nvml *n = calloc(1, sizeof *n);
    if (!n) {
        fb_error("NVML: out of host memory");
        return FB_E_NOMEM;
    }
    const char *env = getenv("FB_NVML_LIB");
    const char *name = env && env[0] ? env : "libnvidia-ml.so.1";
    snprintf(n->library, sizeof n->library, "%s", name);
    n->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *why = dlerror();
        fb_error("NVML not found: dlopen(\"%s\")%s: %s", name, env && env[0] ? " ($FB_NVML_LIB)" : "",
                 why ? why : "failed");
        free(n);
        return FB_E_UNSUPPORTED;
    }
    char missing[96] = "";
    nvmlInit_v2_t init = (nvmlInit_v2_t)sym(n, "nvmlInit_v2", missing, sizeof missing);
    nvmlErrorString_t errstr = (nvmlErrorString_t)sym(n, "nvmlErrorString", missing, sizeof missing);
    nvmlDeviceGetHandleByPciBusId_v2_t by_bus =
        (nvmlDeviceGetHandleByPciBusId_v2_t)sym(n, "nvmlDeviceGetHandleByPciBusId_v2", missing, sizeof missing);
    n->shutdown = (nvmlShutdown_t)sym(n, "nvmlShutdown", missing, sizeof missing);
    n->clock_info = (nvmlDeviceGetClockInfo_t)sym(n, "nvmlDeviceGetClockInfo", missing, sizeof missing);
    n->temperature = (nvmlDeviceGetTemperature_t)sym(n, "nvmlDeviceGetTemperature", missing, sizeof missing);
    n->power_usage = (nvmlDeviceGetPowerUsage_t)sym(n, "nvmlDeviceGetPowerUsage", missing, sizeof missing);
    n->reasons = (nvmlDeviceGetCurrentClocksThrottleReasons_t)dlsym(n->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (missing[0]) {
        fb_error("NVML: %s has no %s", name, missing);
        dlclose(n->lib);
        free(n);
        return FB_E_UNSUPPORTED;
    }
    nvmlReturn_t r = init();
    if (r != NVML_SUCCESS) {
        const char *why = errstr(r);
        fb_error("NVML: nvmlInit_v2 failed (%s) in %s", why ? why : "unknown error", name);
        dlclose(n->lib);
        free(n);
        return FB_E_UNSUPPORTED;
    }
    r = by_bus(pci_bus_id, &n->dev);
    if (r != NVML_SUCCESS) {
        const char *why = errstr(r);
        fb_error("NVML: no device at PCI bus id %s (%s)", pci_bus_id, why ? why : "unknown error");
        n->shutdown();
        dlclose(n->lib);
        free(n);
        return FB_E_UNSUPPORTED;
    }
    *out = n;
    return FB_OK;
}

fb_status fb_nvml_open_cuda(int ordinal, fb_nvml **out)
{
    *out = NULL;
    char bus[64] = "";
    cudaError_t e = cudaDeviceGetPCIBusId(bus, (int)sizeof bus, ordinal);
    if (e != cudaSuccess) {
        fb_error("NVML: cudaDeviceGetPCIBusId(device %d): %s", ordinal, cudaGetErrorString(e));
        return FB_E_UNSUPPORTED;
    }
    return fb_nvml_open(bus, out);
}

void fb_nvml_read(fb_nvml *n, fb_clock_reading *r)
{
    fb_clock_reading_clear(r);
    if (!n) return;
    unsigned v = 0;
    if (n->clock_info(n->dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS) r->sm_mhz = v;
    if (n->clock_info(n->dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) r->mem_mhz = v;
    if (n->temperature(n->dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) r->temp_c = v;
    if (n->power_usage(n->dev, &v) == NVML_SUCCESS) r->power_w = v / 1000.0;
}

const char *fb_nvml_library(const fb_nvml *n) { return n ? n->library : NULL; }

void fb_nvml_close(fb_nvml *n)
{
    if (!n) return;
    n->shutdown();
    dlclose(n->lib);
    free(n);
}

/* ---- watching a run's cells ---------------------------------------------------------------- */

void fb_clock_watch_init(fb_clock_watch *w, fb_nvml *nvml)
{
    memset(w, 0, sizeof *w);
    w->nvml = nvml;
    fb_clock_reading_clear(&w->before);
}

void fb_clock_watch_open(fb_clock_watch *w, int ordinal, FILE *note)
{
    fb_nvml *n = NULL;
    if (fb_nvml_open_cuda(ordinal, &n) != FB_OK && note)
        fprintf(note, "fusionbench: note: clocks, temperature and power are not recorded: %s\n", fb_last_error());
    fb_clock_watch_init(w, n);
}

static void note_peak(fb_clock_watch *w, double sm)
{
    if (sm > w->peak_sm) w->peak_sm = sm;
}

void fb_clock_watch_probe_reset(fb_clock_watch *w)
{
    w->probe_min = w->probe_max = w->probe_sum = 0;
    w->probe_n = 0;
    w->probe_reasons = 0;
}

/* NVML's clock-limit reasons (nvmlClocksThrottleReason*), by bit */
static const char *const reason_names[] = {"gpu_idle",       "applications_clocks", "sw_power_cap",
                                           "hw_slowdown",    "sync_boost",          "sw_thermal_slowdown",
                                           "hw_thermal_slowdown", "hw_power_brake", "display_clock"};
#define N_REASONS ((int)(sizeof reason_names / sizeof reason_names[0]))

void fb_clock_watch_probe(void *watch)
{
    fb_clock_watch *w = watch;
    unsigned v = 0;
    if (!w->nvml) return;
    unsigned long long why = 0;
    if (w->nvml->reasons && w->nvml->reasons(w->nvml->dev, &why) == NVML_SUCCESS) w->probe_reasons |= why;
    /* the SM clock and the reasons only: the other readings cost NVML calls a batch does not need */
    if (w->nvml->clock_info(w->nvml->dev, NVML_CLOCK_SM, &v) != NVML_SUCCESS || v == 0) return;
    const double mhz = v;
    if (w->probe_n == 0 || mhz < w->probe_min) w->probe_min = mhz;
    if (w->probe_n == 0 || mhz > w->probe_max) w->probe_max = mhz;
    w->probe_sum += mhz;
    w->probe_n++;
}

json_t *fb_clock_watch_probe_json(const fb_clock_watch *w)
{
    if (w->probe_n == 0) return NULL;
    json_t *j = json_object();
    json_object_set_new(j, "min", json_real(w->probe_min));
    json_object_set_new(j, "max", json_real(w->probe_max));
    json_object_set_new(j, "mean", json_real(w->probe_sum / w->probe_n));
    json_object_set_new(j, "n", json_integer(w->probe_n));
    /* what NVML said limited the clock at any of the readings (none: the key is left out) */
    json_t *r = json_array();
    for (int b = 0; b < N_REASONS; b++)
        if (w->probe_reasons & (1ull << b)) json_array_append_new(r, json_string(reason_names[b]));
    if (w->probe_reasons >> N_REASONS) json_array_append_new(r, json_string("other"));
    if (json_array_size(r)) json_object_set_new(j, "limited_by", r);
    else json_decref(r);
    return j;
}

bool fb_clock_power_limited(const json_t *sm_clock)
{
    static const char *const power[] = {"sw_power_cap", "hw_slowdown", "hw_power_brake", "sw_thermal_slowdown",
                                        "hw_thermal_slowdown"};
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(sm_clock, "limited_by"), i, e) {
        const char *r = json_string_value(e);
        for (size_t k = 0; r && k < sizeof power / sizeof power[0]; k++)
            if (!strcmp(r, power[k])) return true;
    }
    return false;
}

void fb_clock_watch_before(fb_clock_watch *w)
{
    fb_nvml_read(w->nvml, &w->before);
    note_peak(w, w->before.sm_mhz);
    w->settled_ms = 0;
}

double fb_clock_watch_settle(fb_clock_watch *w)
{
    if (!w->nvml || !(w->settle_max_ms > 0)) return 0;
    const double t0 = fb_now_s();
    double waited = 0;
    for (;;) {
        fb_clock_reading r;
        fb_nvml_read(w->nvml, &r);
        note_peak(w, r.sm_mhz);
        waited = (fb_now_s() - t0) * 1e3;
        if (fb_clocks_settled(r.sm_mhz, w->peak_sm) || waited >= w->settle_max_ms) break;
        const struct timespec step = {0, (long)(FB_SETTLE_POLL_MS * 1e6)};
        nanosleep(&step, NULL);
    }
    w->settled_ms += waited;
    return waited;
}

json_t *fb_clock_watch_after(fb_clock_watch *w, bool *throttled, char *why, size_t n)
{
    *throttled = false;
    if (why && n) why[0] = 0;
    if (!w->nvml) return NULL;
    fb_clock_reading after;
    fb_nvml_read(w->nvml, &after);
    *throttled = fb_clocks_throttled(&w->before, &after);
    if (*throttled) {
        w->throttled++;
        if (why && n) fb_clocks_describe(&w->before, &after, why, n);
    }
    note_peak(w, after.sm_mhz);
    json_t *j = fb_clocks_to_json(&w->before, &after);
    /* whole milliseconds: a wait under 1 ms is the one reading that found the clock settled */
    if (j && w->settled_ms >= 1) json_object_set_new(j, "settle_ms", json_real(floor(w->settled_ms)));
    fb_clock_reading_clear(&w->before);
    w->settled_ms = 0;
    return j;
}

void fb_clock_watch_report(const fb_clock_watch *w, FILE *f)
{
    if (!w->throttled) return;
    fprintf(f,
            "fusionbench: warning: %d cell%s throttled: the SM clock fell more than %.0f%% while %s ran (marked ! in "
            "the grids); %s times are not comparable with the others\n",
            w->throttled, w->throttled > 1 ? "s" : "", FB_THROTTLE_DROP * 100, w->throttled > 1 ? "they" : "it",
            w->throttled > 1 ? "their" : "its");
}

void fb_clock_watch_close(fb_clock_watch *w)
{
    fb_nvml_close(w->nvml);
    w->nvml = NULL;
}
