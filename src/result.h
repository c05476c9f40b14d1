/* result.h — the result file: one JSON document (jansson tree in memory),
 * rewritten atomically (temp file + fsync + rename) after every cell so that a
 * killed run leaves a valid file. NaN and Inf are written as null.
 *
 * Schema (version 1):
 * {
 *   "fusionbench": {"version": "0.1.0", "git": "abc1234", "schema": 1},
 *   "started": "2026-11-22T08:00:00Z", "finished": "...", "host": "name", "command": "fusionbench run ...",
 *   "device": {"name", "cc", "sms", "l2_bytes", "mem_bytes", "sm_clock_mhz", "mem_clock_mhz",
 *              "bus_width_bits", "driver", "runtime", "cublas", "cudnn"},
 *   "settings": {"timer", "warmup_ms", "rep_ms", "max_noise_pct", "max_wall_s", "flush_bytes", "seed"},
 *   "cases": [
 *     {"name": "softmax", "summary": "...", "file": "cases/softmax.json",
 *      "rows": "dim0", "cols": "dim1",            (cols absent for a 1-axis grid)
 *      "row_values": [...], "col_values": [...],
 *      "variants": ["eager", "softmax.fused"], "baseline": "eager",
 *      "dtypes": [
 *        {"dtype": "float32",
 *         "cells": [
 *           {"row": 128, "col": 256, "point": {"dim0": 128, "dim1": 256},
 *            "ideal_bytes": 262144, "flops": 163840,
 *            "sol": {"status": "ok", "time_ms": STATS, "gbps": 1234.5},
 *            "variants": {
 *              "eager": {"status": "ok" | "oom" | "fail" | "error" | "skipped",
 *                        "reason": "...",                 (for anything but ok)
 *                        "time_ms": STATS, "gbps": .., "tflops": .., "sol_pct": ..,
 *                        "kernels": 5, "footprint_bytes": .., "peak_bytes": ..,
 *                        "check": {"mode": "full|sampled", "rows_checked", "rows_total",
 *                                  "elements", "max_abs", "max_rel", "worst_output",
 *                                  "worst_index", "got", "want", "bad", "passed", "why"}
 *                                 | {"mode": "none", "unchecked": "why"}},
 *                                  (unchecked: status stays "ok", but nothing says it is right)
 *              "softmax.fused": {...}}}]}]}]
 * }
 * STATS = {"min", "p20", "median", "p80", "max", "mean", "stdev", "n"}
 */
#ifndef FB_RESULT_H
#define FB_RESULT_H

#include <jansson.h>
#include "fb.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FB_RESULT_SCHEMA 1

/* Write atomically: PATH.tmp.PID, fsync, rename. FB_E_IO with message on failure
 * (the previous file, if any, is left intact). */
fb_status fb_result_write(json_t *root, const char *path);
/* Read a result file; FB_E_IO / FB_E_CASE (not a result file) with a message. */
fb_status fb_result_read(const char *path, json_t **root);

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

/* Lookups used by report/resume: NULL when absent. */
json_t *fb_result_case(json_t *root, const char *case_name);
json_t *fb_result_dtype(json_t *case_obj, const char *dtype);
json_t *fb_result_cell(json_t *dtype_obj, int64_t row, int64_t col);

#ifdef __cplusplus
}
#endif
#endif
