/* clocks.h — the GPU's clocks, temperature and power, read through NVML (loaded
 * at run time: the library ships with the driver, not the toolkit), recorded
 * before and after each cell of `run`, and the throttle detector that flags a
 * cell whose SM clock fell during it.
 *
 * A throttled cell's times were measured at a lower clock than its neighbours':
 * they are real, but not comparable. Such a cell keeps its numbers and gets a
 * mark ("!" after the number in the grids and exports) and the run ends with a
 * warning that counts them, as nvbench's throttle detection does.
 *
 * In the result file each cell may carry (absent where NVML was not available;
 * a reading NVML refused is left out of its object):
 *   "clocks": {"before": READING, "after": READING}
 *   READING = {"sm_clock_mhz": 1980, "mem_clock_mhz": 2619, "temp_c": 41, "power_w": 112.5}
 */
#ifndef FB_CLOCKS_H
#define FB_CLOCKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "fb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One reading; NaN where it was not (or could not be) read. */
typedef struct fb_clock_reading {
    double sm_mhz;  /* SM clock, MHz (NVML_CLOCK_SM, current)           */
    double mem_mhz; /* memory clock, MHz (NVML_CLOCK_MEM, current)      */
    double temp_c;  /* GPU die temperature, degrees C                   */
    double power_w; /* board power draw, W (NVML reports milliwatts)    */
} fb_clock_reading;

/* A cell is throttled when its SM clock fell by more than this fraction. */
#define FB_THROTTLE_DROP 0.10
/* Settled: the SM clock within this fraction of the highest the run has read (fb_clock_watch_settle). */
#define FB_SETTLE_BAND 0.05
#define FB_SETTLE_POLL_MS 5.0
/* What the mark means, under a grid (terminal, markdown) that shows one. */
#define FB_THROTTLE_MARK "!"
/* What the mark means (legends, notes). */
#define FB_THROTTLE_MEANING \
    "the SM clock fell more than 10% during the cell, or a variant's samples stepped more than 5% within its measurement"
#define FB_THROTTLE_NOTE "! throttled: " FB_THROTTLE_MEANING " (number kept, not comparable)"

/* Every field NaN. */
void fb_clock_reading_clear(fb_clock_reading *r);

/* ---- the detector: pure functions of two readings ---- */

/* How far the SM clock fell from `before` to `after`, as a fraction of before
 * (0.11 = fell 11%; negative when it rose); NaN when either reading lacks a
 * positive SM clock. */
double fb_clocks_sm_drop(const fb_clock_reading *before, const fb_clock_reading *after);
/* Throttled: the SM clock fell by more than FB_THROTTLE_DROP. A missing reading
 * is never throttled (nothing says it fell). */
bool fb_clocks_throttled(const fb_clock_reading *before, const fb_clock_reading *after);
/* Whether an SM clock of sm_mhz counts as settled against the highest read so far, peak_mhz: at
 * least (1 - FB_SETTLE_BAND) x peak, or either not a positive number (nothing to wait for). */
bool fb_clocks_settled(double sm_mhz, double peak_mhz);
/* "SM clock 1980 -> 1605 MHz (-18.9%), memory 2619 -> 2619 MHz, 45 -> 71 C, 310 -> 699 W":
 * the parts that were read, for warnings and tooltips. */
const char *fb_clocks_describe(const fb_clock_reading *before, const fb_clock_reading *after, char *buf, size_t n);

/* ---- the step detector: a clock change inside one measurement ----
 *
 * The before/after readings miss a clock that falls while a measurement runs and recovers
 * before the cell ends: on the H200, bfloat16 GEMMs of 45-400 us (matmul's K = 1024 cells) ran
 * their first 7-40 samples at one speed and the rest up to 16% slower (341 -> 394 us, the same
 * kernel), with 1935-1980 MHz read before and after the cell (kernels/NOTES.md, "Stop 42"). The
 * median then depends on where in the measurement the step fell, and two runs of one binary gave
 * matmul_relu.fused / matmul.tuned from 0.87 to 1.13. The samples show it: the median of the
 * last quarter (in the order taken) against the first quarter's. A variant whose measurement
 * stepped by more than FB_STEP_LIMIT marks its cell as a throttled one is marked (same "!",
 * same warning at the end): its numbers are real, but not comparable. Over 1,100 measurements of
 * memory-bound kernels in the same session none stepped by more than 5%. */
#define FB_STEP_LIMIT 0.05
#define FB_STEP_MIN_SAMPLES 16 /* fewer: no quarter holds enough samples to have a median */

/* median(last quarter of x) / median(first quarter of x) - 1 (0.15: the end ran 15% slower than
 * the start); NaN with fewer than FB_STEP_MIN_SAMPLES samples or a median that is not positive.
 * x is not modified. */
double fb_samples_step(const double *x, int n);
/* |step| > FB_STEP_LIMIT (NaN: no). */
bool fb_step_flagged(double step);
/* Whether a variant's result object carries a "step_pct" past FB_STEP_LIMIT; then *pct (may be
 * NULL) is that percentage. */
bool fb_variant_json_stepped(const json_t *variant, double *pct);

/* ---- JSON ---- */

/* READING as above: only the finite fields. */
json_t *fb_clock_reading_to_json(const fb_clock_reading *r);
/* A missing member, or one that is not a number, reads as NaN. */
void fb_clock_reading_from_json(const json_t *j, fb_clock_reading *r);
/* {"before": .., "after": ..}; NULL when neither reading has anything. (The watch adds
 * "settle_ms", the time its measurements waited for the clock, when they waited.) */
json_t *fb_clocks_to_json(const fb_clock_reading *before, const fb_clock_reading *after);
/* A cell's "clocks" object read back (NULL: both readings NaN). */
void fb_clocks_from_json(const json_t *clocks, fb_clock_reading *before, fb_clock_reading *after);
/* Whether a cell's "clocks" object (may be NULL) says it was throttled. */
bool fb_clocks_json_throttled(const json_t *clocks);
/* Whether a cell's result object is marked throttled: its "clocks" say so, or one of its
 * variants' "step_pct" is past FB_STEP_LIMIT (as a percentage). */
bool fb_cell_json_throttled(const json_t *cell);

/* ---- NVML ---- */

typedef struct fb_nvml fb_nvml;

/* NVML for the device with this PCI bus id ("0000:3b:00.0", as
 * cudaDeviceGetPCIBusId writes it). The library is $FB_NVML_LIB when set (a
 * file path), else libnvidia-ml.so.1. FB_E_UNSUPPORTED with a message naming what
 * was tried when the library is absent, lacks a function, fails to initialise or
 * does not know the device. */
fb_status fb_nvml_open(const char *pci_bus_id, fb_nvml **out);
/* The same for CUDA device `ordinal` (its PCI bus id asked of the CUDA runtime,
 * so CUDA_VISIBLE_DEVICES is honoured). */
fb_status fb_nvml_open_cuda(int ordinal, fb_nvml **out);
/* A reading now; what NVML refuses stays NaN. */
void fb_nvml_read(fb_nvml *n, fb_clock_reading *r);
/* The library that was loaded (its dlopen name or $FB_NVML_LIB). */
const char *fb_nvml_library(const fb_nvml *n);
void fb_nvml_close(fb_nvml *n);

/* ---- watching the cells of a run ---- */

#define FB_THROTTLE_WARNINGS 5 /* cells named on stderr; past that, only the count at the end */

typedef struct fb_clock_watch {
    fb_nvml *nvml;           /* NULL: clocks are not recorded */
    fb_clock_reading before; /* of the cell in flight */
    int throttled;           /* cells flagged so far */
    double peak_sm;          /* the highest SM clock read in the run (MHz; 0: none yet) */
    double settle_max_ms;    /* the longest one measurement waits for the clock (0: never waits) */
    double settled_ms;       /* what the cell in flight's measurements waited */
    /* the measurement in flight's SM clock, read by fb_clock_watch_probe while its batches ran */
    double probe_min, probe_max, probe_sum;
    int probe_n;
    unsigned long long probe_reasons; /* NVML's clock-limit reasons seen, OR'ed */
} fb_clock_watch;

/* Opens NVML for CUDA device `ordinal`; when it cannot, writes one note to
 * `note` (say why, and that clocks are not recorded) and watches nothing: never
 * an error. */
void fb_clock_watch_open(fb_clock_watch *w, int ordinal, FILE *note);
/* Watch with an NVML handle already open (or NULL); the watch owns it. */
void fb_clock_watch_init(fb_clock_watch *w, fb_nvml *nvml);
/* Before a cell: read the clocks. */
void fb_clock_watch_before(fb_clock_watch *w);
/* Before a timed measurement: while the SM clock is more than FB_SETTLE_BAND below the highest the
 * run has read, wait (polling every FB_SETTLE_POLL_MS), at most settle_max_ms; returns the ms
 * waited, also added to the cell's settled_ms. So no measurement starts on a clock that the work
 * before it slowed (the previous cell's GEMMs, a variant's tuning in prepare), which a peer timed
 * in another process, its cells separated by compiles, does not inherit: stop 30's matmul_bias
 * cells began at 1440-1635 MHz after their K = 8192 neighbours where torch_peer's began at
 * 1965-1980 (results/h100/stop30, call 9). Most had recovered by their first measurement; call 10
 * waited in 3 of 12 cells, 102-158 ms a cell. nvbench pauses for its throttle recovery in the same spirit. */
double fb_clock_watch_settle(fb_clock_watch *w);
/* After it: the cell's "clocks" object (NULL when nothing is watched) and
 * whether it was throttled (then counted, and `why` holds fb_clocks_describe's
 * text; the caller names the first FB_THROTTLE_WARNINGS such cells). */
json_t *fb_clock_watch_after(fb_clock_watch *w, bool *throttled, char *why, size_t n);
/* During a measurement (fb_timer_set_probe's function; `watch` is the fb_clock_watch): reads the
 * SM clock and adds it to the measurement's readings. Nothing without NVML. */
void fb_clock_watch_probe(void *watch);
/* Before a measurement: forget the last one's readings. */
void fb_clock_watch_probe_reset(fb_clock_watch *w);
/* After it: {"min": .., "max": .., "mean": .., "n": .., "limited_by": [..]} of the SM clock (MHz)
 * its batches ran at, the variant's "sm_clock_mhz"; "limited_by" names NVML's clock-limit reasons
 * seen at any reading ("sw_power_cap", "hw_slowdown", "hw_power_brake", "sw_thermal_slowdown",
 * ...; left out when none, or when the library lacks nvmlDeviceGetCurrentClocksThrottleReasons);
 * NULL when nothing was read. */
json_t *fb_clock_watch_probe_json(const fb_clock_watch *w);
/* Whether a variant's "sm_clock_mhz" (may be NULL) says a power or thermal limit held the clock
 * at some reading: sw_power_cap, hw_slowdown, hw_power_brake, sw_thermal_slowdown or
 * hw_thermal_slowdown in its "limited_by". run counts such measurements and says so at the end
 * (a note, not the throttle mark: on the H200 nearly every bfloat16 GEMM measurement ran at
 * the software power cap, 100 of 112 in stop 42's call 7, against 6 of 400 memory-bound ones). */
bool fb_clock_power_limited(const json_t *sm_clock);
/* The end-of-run line when any cell was throttled (nothing otherwise). */
void fb_clock_watch_report(const fb_clock_watch *w, FILE *f);
void fb_clock_watch_close(fb_clock_watch *w);

#ifdef __cplusplus
}
#endif
#endif
