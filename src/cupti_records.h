/* cupti_records.h — the bookkeeping of the CUPTI kernel timer, as pure
 * functions (no CUPTI, no GPU) so the tests can feed it synthetic records.
 *
 * The timer (timer_cupti.c) turns CUPTI's activity records into these plain
 * structs: one fb_act per kernel, memcpy or memset the GPU ran, and one
 * fb_act_corr per external-correlation record (an API call made while the
 * timer had pushed a sample's id). fb_act_samples assigns each activity to
 * the sample whose API calls enqueued it and sums them up; what no sample
 * claims (the L2 flush, the blocking kernel, anything of another thread) is
 * not the variant's and is left out. */
#ifndef FB_CUPTI_RECORDS_H
#define FB_CUPTI_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_act_kind { FB_ACT_KERNEL, FB_ACT_MEMCPY, FB_ACT_MEMSET } fb_act_kind;

typedef struct fb_act {
    uint64_t start, end; /* GPU timestamps, ns */
    uint32_t corr;       /* CUPTI correlation id: that of the API call that enqueued it */
    int kind;            /* fb_act_kind */
    int name;            /* kernels: index into the timer's name table; -1 otherwise */
} fb_act;

typedef struct fb_act_corr {
    uint32_t corr; /* an API call's correlation id ...            */
    uint64_t ext;  /* ... made while external id `ext` was pushed */
} fb_act_corr;

typedef struct fb_act_sample {
    double sum_ms;  /* the activities' durations added up: the GPU time of the variant's own work */
    double span_ms; /* first start to last end: also counts the gaps between them */
    int kernels;    /* kernels in this sample */
    int memops;     /* memcpys and memsets in this sample */
} fb_act_sample;

/* Samples n of a batch whose sample i ran with external id ext_base + i:
 * out[i] gets sample i's sums. An activity belongs to sample i when its
 * correlation id was mapped to ext_base + i; sample_of[k] (may be NULL) gets
 * activity k's sample, or -1 when none claims it. A sample with no activity
 * has sum_ms = span_ms = NaN and zero counts. `map` is sorted in place (by
 * correlation id). Returns how many activities were assigned, -1 when out of
 * host memory. */
int fb_act_samples(const fb_act *acts, int n_acts, fb_act_corr *map, int n_map, uint64_t ext_base, int n,
                   fb_act_sample *out, int *sample_of);

/* ---- what the variant launched ---------------------------------------------- */

#define FB_CENSUS_NAMES 64  /* distinct kernel names kept; more are counted, not named */
#define FB_CENSUS_COUNTS 16 /* distinct per-run counts tracked for the mode */

typedef struct fb_kernel_census {
    int samples;                 /* runs seen */
    int count;                   /* kernels per run: the most frequent count (the larger on a tie) */
    int count_min, count_max;    /* over the runs: they differ when runs launched different numbers */
    int memops;                  /* memcpys + memsets per run: the most frequent */
    int names[FB_CENSUS_NAMES];  /* name-table indices of the distinct kernels, in first-launch order */
    int n_names;
    int names_dropped;           /* distinct names past FB_CENSUS_NAMES */
    int hist_count[FB_CENSUS_COUNTS], hist_runs[FB_CENSUS_COUNTS], n_hist;     /* private */
    int hist_memops[FB_CENSUS_COUNTS], hist_mruns[FB_CENSUS_COUNTS], n_mhist; /* private */
} fb_kernel_census;

void fb_census_init(fb_kernel_census *c);
/* Adds a batch's n samples (fb_act_samples' out and sample_of for the same
 * acts): per-run counts, and kernel names in the order they started. A sample
 * with no activity at all is not a run the census saw (it adds nothing). */
void fb_census_add(fb_kernel_census *c, const fb_act *acts, int n_acts, const int *sample_of,
                   const fb_act_sample *samples, int n);

/* ---- kernel names ---------------------------------------------------------------- */

/* A kernel's name as people read it: demangled when the C++ runtime's
 * __cxa_demangle is in the process (else the mangled name, unchanged), without
 * the return type, the parameter list and the namespaces a translation unit
 * gives its static kernels ("(anonymous namespace)::", nvcc's "_INTERNAL_...::"):
 *   _Z18spin_cycles_kernelxPyi                     -> spin_cycles_kernel
 *   _ZN43_GLOBAL__N__59ca5632_10_softmax_cu_15f0848a23softmax_two_pass_kernelI13__nv_bfloat16Lb0EEEvPKT_PS2_l
 *                                                  -> softmax_two_pass_kernel<__nv_bfloat16, false>
 * Cut to n - 1 bytes. Returns buf. */
const char *fb_kernel_display_name(const char *mangled, char *buf, size_t n);
/* The text part alone, on a name already demangled (or never mangled). */
void fb_kernel_name_tidy(char *s);

#ifdef __cplusplus
}
#endif
#endif
