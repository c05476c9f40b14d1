/* result.h — the result file: one JSON document (jansson tree in memory),
 * written atomically (temp file + fsync + rename) when a run starts and when it
 * ends; the cells finished in between are appended to its journal, PATH.journal
 * (one fsync'ed line per cell, journal.h), so a killed run loses no finished
 * cell and a run's cost per cell stays constant. NaN and Inf are written as
 * null. A file read back (for --resume, merge) is validated as strictly as a
 * case file (result_check.c), and a resumed run only ever adds to it
 * (fb_result_begin_case and friends); merge joins files of one device
 * (fb_result_merge).
 *
 * Schema (version 1):
 * {
 *   "fusionbench": {"version": "0.1.0", "git": "abc1234", "schema": 1},
 *   "started": "2026-11-22T08:00:00Z", "finished": "...", "host": "name", "command": "fusionbench run ...",
 *   "resumed": [{"at": "...", "command": "..."}],   (one entry per --resume)
 *   "device": {"name", "cc", "sms", "l2_bytes", "mem_bytes", "sm_clock_mhz", "mem_clock_mhz",
 *              "bus_width_bits", "driver", "runtime", "cublas", "cudnn"},
 *   "settings": {"timer", "warmup_ms", "rep_ms", "max_noise_pct", "max_wall_s",
 *                "flush": "write" | "clean" | "none",  (absent in older files: they always wrote;
 *                                     any text is read: older torch-peer files hold a sentence)
 *                "flush_bytes", "seed",
 *                "metrics": {"dram_read_bytes": "dram__bytes_read.sum", ...}},  (run --metrics: what was
 *                                             collected, and the CUPTI metric it was measured with)
 *   "cases": [
 *     {"name": "softmax", "summary": "...", "file": "cases/softmax.json",
 *      "rows": "dim0", "cols": "dim1",            (cols absent for a 1-axis grid)
 *      "row_values": [...], "col_values": [...],  (unique integers; a resumed run adds its own)
 *      "fixed": {"K": [1024, 4096]},             (only for a case with fixed symbols: their
 *                                  values, unique integers; one grid per combination; every cell
 *                                  then has a "point" holding each, and a cell is (row, col and
 *                                  those values); absent in older files and 2-symbol cases)
 *      "variants": ["eager", "softmax.fused"], "baseline": "eager",
 *      "dtypes": [
 *        {"dtype": "float32",                      (canonical names, each once per case)
 *         "cells": [                               (one per (row, col))
 *           {"row": 128, "col": 256, "point": {"dim0": 128, "dim1": 256},
 *            "shapes": {"x": [128, 256]},          (SHAPES below)
 *            "ideal_bytes": 262144, "flops": 163840,
 *            "clocks": {"before": CLOCKS, "after": CLOCKS},  (absent without NVML; clocks.h)
 *            "wall_ms": {"inputs", "reference", "sol", "total"},  (host time of the cell's phases:
 *                                  allocating and filling the inputs, the float64 reference, the
 *                                  speed-of-light copy, and the whole cell; optional, additive)
 *            "sol": {"status": "ok", "time_ms": STATS, "gbps": 1234.5, "samples_us": SAMPLES,
 *                    "measured_in": "softmax, float32, dim0=128 dim1=256"},  (only when the
 *                                  copy of these bytes was timed in an earlier cell of the run
 *                                  and is shared: cell.c's fb_sol_cache)
 *            "variants": {
 *              "eager": {"status": "ok" | "oom" | "fail" | "error" | "skipped",
 *                        "reason": "...",                 (why, for anything but ok;
 *                                                          on ok, what prepare chose: a library fallback)
 *                        "time_ms": STATS, "gbps": .., "tflops": .., "sol_pct": ..,
 *                        "kernels": 5, "footprint_bytes": .., "peak_bytes": ..,
 *                        "prepare_ms": ..,  (host time of its prepare step: eager's
 *                                    kinds' plans, a variant's prepare(); the second of
 *                                    two, so a process's one-time library start-up is
 *                                    not in it; optional)
 *                        "wall_ms": {"prepare", "check", "time", "total"},  (host time of the
 *                                  variant's phases: both prepares, the checked run and its
 *                                  comparison, the timer's measurement, all; optional, additive)
 *                        "timer_timeouts": 1,  (batches whose blocking kernel timed out: the
 *                                  variant queued more than it declared, and those samples were
 *                                  taken again in smaller batches; or it synchronises inside run();
 *                                  bench.h; only when there were any)
 *                        "kernels_launched": KERNELS, "span_ms": STATS,   (--timer cupti only)
 *                        "check": {"mode": "full|sampled", "rows_checked", "rows_total",
 *                                  "elements", "max_abs", "max_rel", "worst_output",
 *                                  "worst_index", "got", "want", "bad", "passed", "why"}
 *                                 | {"mode": "none", "unchecked": "why"},
 *                                  (unchecked: status stays "ok", but nothing says it is right)
 *                        "metrics": {"dram_read_bytes": 268435456, "dram_write_bytes": 134217728,
 *                                    "inst_executed": 4194304},  (run --metrics: the counts of one
 *                                  run, metrics.c; only the collected ones; or "metrics_error": "why")
 *                        "samples_us": SAMPLES},
 *              "softmax.fused": {...}}}]}]}],
 *   "merged": [{"file", "started", "finished", "host", "command", "git", "settings"}]
 *                                              (written by merge: one entry per input)
 * }
 * STATS = {"min", "p20", "median", "p80", "max", "mean", "stdev", "n"}
 * SHAPES = {"x": [4, 128, 1027], "w": [1027]}: every program input's shape at the
 *   cell, in the case file's order of inputs (rmsnorm's x is [4, T, N]: the 4 is no
 *   grid axis, so "point" alone cannot say it); what the table form prints as a
 *   cell's shape (report_table.h). Optional and additive (files written before it
 *   have none; readers accept its absence); at most 4 sizes, each >= 0.
 * CLOCKS = {"sm_clock_mhz", "mem_clock_mhz", "temp_c", "power_w"}: read before and
 *   after the cell; a member NVML refused is absent. The cell is throttled when the
 *   SM clock fell by more than 10% (fb_clocks_throttled). Optional and additive. On a
 *   resume the cell keeps its first clocks unless a later run's are throttled.
 * KERNELS = {"count": 5, "names": ["amax_kernel<float>", ...]}: what CUPTI saw the
 *   variant launch (timer_cupti.c): kernels per run (the most frequent count over
 *   the runs) and the distinct kernels' names in first-launch order; optional
 *   "count_min" and "count_max" (only when runs differed), "memops" (memcpys +
 *   memsets per run, only when there were any) and "names_dropped" (distinct
 *   kernels past the 64 named). "kernels" beside it is the count the variant
 *   declares (eager: one per op); time_ms is then the per-run sum of the kernels'
 *   durations, span_ms first start to last end. Optional and additive (schema 1).
 * SAMPLES = [16.352, 16.38, ...]: every timing sample of that measurement, in
 *   microseconds rounded to 0.001 (1 ns), in the order they were taken (not
 *   sorted); as many as time_ms.n. Optional (files written before it have none;
 *   readers accept its absence) and additive, so the schema stays 1. Printed on
 *   one line, as every array of scalars is. "metrics" and settings.metrics are
 *   optional and additive in the same way.
 */
#ifndef FB_RESULT_H
#define FB_RESULT_H

#include <jansson.h>
#include <stdio.h>

#include "fb.h"
#include "program.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FB_RESULT_SCHEMA 1

/* Write atomically: PATH.tmp.PID, fsync, rename. FB_E_IO with message on failure
 * (the previous file, if any, is left intact). */
fb_status fb_result_write(json_t *root, const char *path);
/* The document as fb_result_write lays it out (indented one space per level,
 * arrays of scalars on one line, reals to 9 significant digits, a final
 * newline) to an open stream: 0, or an errno value. */
int fb_result_print(FILE *f, const json_t *root);
/* Can PATH be written the way fb_result_write writes it? Creates and removes
 * PATH.tmp.PID (so it proves the directory is writable and leaves nothing
 * behind) and refuses a PATH that is a directory or not a regular file. For
 * run, before the GPU is opened: FB_E_IO ("PATH: cannot write: ...") or FB_OK. */
fb_status fb_result_check_target(const char *path);

/* Read and validate a result file. Every problem with the file is FB_E_CASE
 * (exit 3, bad input file), in case.c's style:
 *   "PATH: no such file", "PATH: cannot read: <strerror>", "PATH: not a regular file"
 *   (a FIFO or device is refused before it is read, so it cannot block),
 *   "PATH:LINE:COL: <syntax>", "PATH: cases[2].dtypes[0].cells[5].row: expected an integer, got ..." */
fb_status fb_result_read(const char *path, json_t **root);
/* The same from text in memory (tests); `path` names it in messages. */
fb_status fb_result_parse(const char *text, size_t len, const char *path, json_t **root);
/* The validation alone (result_check.c): FB_OK or FB_E_CASE with the message. */
fb_status fb_result_check(const json_t *doc, const char *path);
/* Its checks of one case object (dtypes and cells included) and of one cell (of
 * a case with two grid axes or one), for objects that arrive outside a document
 * (journal lines): messages read "PATH: WHERE.key: ...". */
fb_status fb_result_check_case(const json_t *case_obj, const char *path, const char *where);
fb_status fb_result_check_cell(const json_t *cell, bool two_axes, const char *path, const char *where);
/* The same for a cell of the (checked) case object `case_obj`: its axes, and, for a
 * case with "fixed" symbols, a "point" holding each of them. */
fb_status fb_result_check_case_cell(const json_t *cell, const json_t *case_obj, const char *path, const char *where);
/* Best effort: makes a rename or a new file in PATH's directory durable (fsync
 * of the directory). */
void fb_result_sync_dir(const char *path);

/* The "samples_us" array of `n` samples in milliseconds (in the order taken):
 * microseconds rounded to 1 ns. NULL when there are none, or when one is not a
 * finite non-negative time (the schema has no spelling for it). */
json_t *fb_samples_to_json(const double *ms, int n);
/* The paired timing's "ratio_samples" (t_variant / t_floor pair by pair, in the order taken),
 * rounded to 1e-5; NULL as fb_samples_to_json. */
json_t *fb_ratios_to_json(const double *ratios, int n);
/* The "kernels_launched" object of a CUPTI measurement (KERNELS above). */
struct fb_timer_kernels;
json_t *fb_kernels_launched_json(const struct fb_timer_kernels *k);
/* Stats <-> JSON (NaN/Inf become null and read back as NaN). */
json_t *fb_stats_to_json(const fb_stats *s);
void fb_stats_from_json(const json_t *j, fb_stats *s);
/* A real number, or null when not finite. */
json_t *fb_json_real(double v);
/* Number at key (int or real), NaN when absent or null. */
double fb_json_number(const json_t *obj, const char *key);

/* Why a variant's entry in a cell was not checked against the reference (its
 * check.unchecked, or a mode "none" check), or NULL when it was checked. */
const char *fb_result_unchecked(const json_t *variant_entry);

/* A cell's "shapes" (SHAPES above): the inputs of `c`, shapes[i] for input i. */
json_t *fb_result_shapes_json(const fb_case *c, const fb_shape *shapes);

/* Lookups used by report/resume: NULL when absent. */
json_t *fb_result_case(json_t *root, const char *case_name);
json_t *fb_result_dtype(json_t *case_obj, const char *dtype);
/* fb_result_cell: the first cell at (row, col) (col -1 for a one-axis case);
 * enough for a case without fixed symbols. With them a cell is (row, col and
 * every fixed symbol's value in its "point"): fb_result_cell_fixed takes those
 * as an object {"K": 1024} (NULL: any), fb_result_cell_like finds the cell at
 * the point of another (of the case `case_obj`, from another file or the
 * journal), fb_result_cell_at the cell at a point of a run of `c`.
 * fb_result_cell_fixed_of: a cell's {"K": 1024} under case_obj's "fixed" (a new
 * reference), NULL when the case has none. */
json_t *fb_result_cell(json_t *dtype_obj, int64_t row, int64_t col);
json_t *fb_result_cell_fixed(json_t *dtype_obj, int64_t row, int64_t col, const json_t *fixed);
json_t *fb_result_cell_like(json_t *dtype_obj, const json_t *case_obj, const json_t *cell);
json_t *fb_result_cell_at(json_t *dtype_obj, const fb_case *c, const fb_point *p);
json_t *fb_result_cell_fixed_of(const json_t *case_obj, const json_t *cell);

/* The grids of a case object: one per combination of its "fixed" values (the
 * first fixed symbol slowest, as a run walks them), 1 when it has none.
 * fb_result_grid_fixed: grid g's {"K": 1024} (a new reference, for
 * fb_result_cell_fixed), NULL for a case without fixed symbols.
 * fb_result_fixed_label: "K=1024 B=2" of such an object ("" for NULL), as
 * fb_grid_label writes a run's; returns buf. */
size_t fb_result_n_grids(const json_t *case_obj);
json_t *fb_result_grid_fixed(const json_t *case_obj, size_t g);
const char *fb_result_fixed_label(const json_t *fixed, char *buf, size_t n);

/* ---- resuming: a resumed run only ever adds to the file ---- */

/* Before the GPU: may this run of case `c` write into the (validated) document
 * `root` read from `path`? If the document has a case of that name, its grid
 * axes and, at every cell it holds, the ideal bytes and FLOPs (and the inputs'
 * shapes, where the cell has them) must be this case's: otherwise it is another program under the same name, and merging would
 * mix the two. FB_E_USAGE with a message naming the file, case and difference. */
fb_status fb_result_check_resume(json_t *root, const char *path, const fb_case *c);

/* The case object for a run of `c` with `variants` against `baseline`: created,
 * or (resumed) kept with its dtypes and cells, its grid values and variant list
 * widened to cover this run's too, its baseline set to this run's. */
json_t *fb_result_begin_case(json_t *root, const fb_case *c, const char *const *variants, int n_variants,
                             const char *baseline);
/* The dtype object of a case object, created when absent. */
json_t *fb_result_begin_dtype(json_t *case_obj, fb_dtype d);
/* Which of `variants` a cell still needs (absent from it, or ended in "error"),
 * into todo[] (room for n_variants); returns how many. A NULL cell needs all. */
int fb_result_cell_todo(const json_t *cell, const char *const *variants, int n_variants, const char **todo);
/* Files a freshly measured cell (steals `fresh`): appended when `old` is NULL;
 * else merged into `old`, which keeps every finished variant and an "ok" speed-
 * of-light copy, and takes the variants measured now and anything it lacked. */
void fb_result_store_cell(json_t *dtype_obj, json_t *old, json_t *fresh);

/* ---- merging: result files of one device joined (fusionbench merge) ---- */

/* May `b` (read from b_path) be joined with `a` (from a_path)? FB_E_USAGE with
 * one line naming both files when they are from different devices (name,
 * compute capability, driver, runtime), hold two programs under one case name
 * (other grid axes; at a cell both hold, other ideal bytes or FLOPs; another
 * value of a size that is no grid axis), or both hold one finished (case, dtype,
 * cell, variant) with different numbers. Identical duplicates are fine. */
fb_status fb_result_merge_check(const json_t *a, const char *a_path, const json_t *b, const char *b_path);
/* Joins `from` into `into` (checked first with fb_result_merge_check): cases,
 * dtypes and cells added, grid values and variant lists widened, a cell both
 * hold merged as a resume merges it (fb_result_store_cell). `into` keeps its
 * head, baseline and speed-of-light copies. */
void fb_result_merge_into(json_t *into, const json_t *from);

#ifdef __cplusplus
}
#endif
#endif
