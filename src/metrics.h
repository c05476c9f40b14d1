/* metrics.h — measured traffic and work per variant run: `run --metrics dram,inst`
 * collects DRAM bytes read and written and warp instructions executed through
 * CUPTI's range profiler, in a pass of its own after a variant's timing
 * (metrics.c's top comment says how and what a number means).
 *
 * The metric table is the one place that names a metric: its key in the result
 * file (a variant's "metrics" object), the --metrics group that collects it, and
 * the Perfworks metric CUPTI evaluates. Adding a metric is one row here (and its
 * value in a --show mode or an export column if it should be printed). */
#ifndef FB_METRICS_H
#define FB_METRICS_H

#include <jansson.h>
#include <stddef.h>

#include "fb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_metric_id {
    FB_METRIC_DRAM_READ,  /* "dram_read_bytes"  dram__bytes_read.sum    */
    FB_METRIC_DRAM_WRITE, /* "dram_write_bytes" dram__bytes_write.sum   */
    FB_METRIC_INST,       /* "inst_executed"    smsp__inst_executed.sum */
    FB_NMETRICS
} fb_metric_id;
#define FB_METRIC_BIT(m) (1u << (unsigned)(m))
#define FB_METRICS_ALL ((1u << FB_NMETRICS) - 1u)

typedef struct fb_metric_info {
    const char *key;   /* in a variant's "metrics" object and the csv/json columns */
    const char *group; /* the --metrics word that collects it */
    const char *cupti; /* the Perfworks metric CUPTI evaluates (the name ncu uses) */
    const char *about; /* one line: what it counts, in what unit */
} fb_metric_info;

extern const fb_metric_info fb_metric_table[FB_NMETRICS];

/* The metric of a result-file key, or -1. */
int fb_metric_from_key(const char *key);

/* --metrics LIST: a comma list of groups (dram, inst) or 'all' alone, into a bit
 * set of fb_metric_id. FB_E_USAGE with one line ("--metrics: unknown group
 * 'dramm' (did you mean 'dram'?); groups: dram, inst, all"). */
fb_status fb_metrics_parse(const char *list, unsigned *mask);
/* The groups of a mask, "dram,inst" (into buf, returned). */
const char *fb_metrics_groups(unsigned mask, char *buf, size_t n);

/* A variant's "metrics" object: the metrics of `mask` whose value is a finite
 * number, as integers (counts of bytes and instructions); NULL when none is. */
json_t *fb_metrics_json(unsigned mask, const double *values);
/* settings.metrics of a run: {"dram_read_bytes": "dram__bytes_read.sum", ...}. */
json_t *fb_metrics_settings_json(unsigned mask);

/* ---- libcupti, loaded at run time ---------------------------------------------
 * Found by the shared loader (cupti_loader.h: its search order, $FB_CUPTI_LIB,
 * and its refusal of a CUPTI older than CUDA 13's, passed over for the next
 * candidate). libnvperf_host.so and libnvperf_target.so are loaded from the
 * directory libcupti was found in, when they are there (pip wheels ship them
 * beside it; libcupti looks them up by name). */

/* Loads libcupti once (later calls return the first outcome) and the range
 * profiler's entry points from it. FB_OK, or FB_E_UNSUPPORTED: the loader's
 * message (every place searched, or why $FB_CUPTI_LIB or a found one was
 * refused), an entry point missing, or an AddressSanitizer build (libcupti
 * dlopens libnvperf_host with RTLD_DEEPBIND, which ASan aborts on). *path (may be
 * NULL) is the file loaded, *version its cuptiGetVersion. */
fb_status fb_metrics_load_cupti(const char **path, unsigned *version);

/* Host side only, no GPU: the configuration image CUPTI builds for `chip`
 * ("GH100") and these Perfworks metric names, which proves the names valid for
 * that chip. *config_bytes: its size, *passes: how many replays collecting them
 * takes. FB_E_UNSUPPORTED without libcupti or for an unknown chip; FB_E_USAGE
 * for a name the chip has no such metric for. */
fb_status fb_metrics_host_config(const char *chip, const char *const *names, int n, size_t *config_bytes,
                                 size_t *passes);

/* ---- the session of a run ------------------------------------------------------ */
struct fb_context;
struct fb_timer;
struct fb_runnable;
typedef struct fb_metrics fb_metrics;

/* Everything that can fail for reasons of the machine, before any timing: the
 * library, its version, the device's support (vGPU, confidential computing, ...),
 * the chip's configuration image, a sweep buffer of the timer's flush size, and
 * one measurement of a probe copy (so missing profiling permission,
 * CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, shows here). FB_E_UNSUPPORTED with one
 * line saying what is missing and what to do; FB_E_OOM / FB_E_CUDA as usual.
 * `timer` provides the L2 flush (fb_timer_flush_l2) and stays the caller's. */
fb_status fb_metrics_open(const struct fb_context *ctx, struct fb_timer *timer, unsigned mask, fb_metrics **out);
unsigned fb_metrics_mask(const fb_metrics *m);
/* One run of r measured: values[FB_NMETRICS] (NaN where not collected). Runs r
 * once per profiler pass (one for these metrics), each from a flushed L2.
 * FB_E_CUDA (a CUPTI or CUDA error, named) or r's own status on failure. */
fb_status fb_metrics_measure(fb_metrics *m, const struct fb_runnable *r, double *values);
void fb_metrics_close(fb_metrics *m);

/* selftest: a copy kernel of 64 MiB and of 128 MiB must measure its bytes read
 * and written within 3%, and twice the instructions within 5%. One line per
 * check into report; FB_E_CHECK when one fails, FB_E_UNSUPPORTED (the reason in
 * fb_last_error) when metrics cannot be collected here. */
fb_status fb_metrics_selfcheck(const struct fb_context *ctx, struct fb_timer *timer, char *report, size_t n);

#ifdef __cplusplus
}
#endif
#endif
