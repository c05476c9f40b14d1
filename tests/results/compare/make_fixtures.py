#!/usr/bin/env python3
"""make_fixtures.py — writes the synthetic result files test_compare.sh reads.

Run from anywhere: python3 tests/results/compare/make_fixtures.py. Deterministic (seeded),
so re-running it rewrites the same files. Every file is a valid schema-1 result file of a
two-cell softmax float32 grid (dim0 x dim1 = 128 x 256 and 1024 x 4096) with the variants
eager and softmax.fused, each variant and sol carrying `samples_us` (the timing samples in
microseconds, in the order taken, length time_ms.n) and time_ms computed from them.

  base.json      the baseline run: tight noise (0.5% sigma), 40 samples a measurement
  same.json      another run of the same code: other noise, same medians      -> SAME
  slower.json    softmax.fused 10% slower in both cells, tight noise           -> SLOWER
  noisy.json     softmax.fused 4% slower inside wide noise (15% sigma)         -> NOISY
  fail.json      same.json with softmax.fused failing its check at 128 x 256   -> a failure
  partial.json   same.json less the 1024 x 4096 cell, plus a float16 grid      -> only in ...
  h200.json      same.json measured on another device                          -> refused
  old.json       base.json as written before samples were kept (no samples_us) -> p20/p80 rule
  oom.json       same.json with softmax.fused out of memory at 1024 x 4096     -> not compared
  rows_a.json, rows_b.json  a one-axis grid (dim0 only: no cols, no col), softmax.fused 10%
                 slower in b                                                   -> SLOWER
  fixed_base.json  ../export/fixed.json (a matmul case with a fixed symbol, K in {1024,
                 4096}: one M x N grid per K; no samples) with n = 20 a measurement, so
                 that the p20/p80 rule gives an interval (fixed.json's 3 give none)
  fixed_slower.json  fixed_base.json with mm.fused 25% slower at K=4096 M=128 N=64 only,
                 and a cell M=256 N=128 at K=4096 (which fixed_base.json lacks)
                 -> SLOWER at K=4096 alone (the same M, N at K=1024 is SAME), only in NEW
  paired_base.json  base.json's cells with softmax.fused also timed in pairs with a plain op
                 (run's "paired": the pairs' ratios t_variant / t_floor around 1.01, 0.3% sigma)
  paired_slowcard.json  every time 12% slower (the card's power state) and the pairs' ratios
                 as before                       -> SLOWER by time, SAME with --paired
  paired_costlier.json  softmax.fused 7% slower and its pairs' ratios 7% higher (the fusion
                 no longer free)                 -> SLOWER both ways
  bad.json       not a result file (cases is an object)                        -> exit 3
"""
import copy
import json
import math
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
CELLS = [(128, 256), (1024, 4096)]
# median microseconds per cell: eager, softmax.fused, sol
BASE_US = {(128, 256): (20.0, 8.0, 6.0), (1024, 4096): (60.0, 25.0, 21.0)}
N = 40


def quantile(s, q):
    h = (len(s) - 1) * q
    lo = math.floor(h)
    if lo >= len(s) - 1:
        return s[-1]
    return s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def measurement(rng, median_us, rel, n=N):
    samples = [round(median_us * (1 + rel * rng.gauss(0, 1)), 3) for _ in range(n)]
    s = sorted(samples)
    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1))
    ms = lambda v: round(v / 1000.0, 9)
    stats = {"min": ms(s[0]), "p20": ms(quantile(s, 0.2)), "median": ms(quantile(s, 0.5)),
             "p80": ms(quantile(s, 0.8)), "max": ms(s[-1]), "mean": ms(mean), "stdev": ms(sd), "n": n}
    return stats, samples


def variant(rng, median_us, rel, kernels, ideal, passed=True):
    stats, samples = measurement(rng, median_us, rel)
    v = {"status": "ok" if passed else "fail",
         "check": {"mode": "full", "passed": passed, "elements": ideal // 8, "max_abs": 1e-8 if passed else 0.5,
                   "max_rel": 4e-7 if passed else 1.0, "bad": 0 if passed else 12},
         "kernels": kernels, "time_ms": stats,
         "gbps": round(ideal / (stats["median"] * 1e-3) / 1e9, 4),
         "footprint_bytes": ideal, "peak_bytes": ideal, "samples_us": samples}
    if not passed:
        v["reason"] = "12 of %d elements outside atol + rtol*|ref|" % (ideal // 8)
    return v


def run(seed, fused_scale=1.0, fused_rel=0.005, device="NVIDIA H100 80GB HBM3", fail_at=None,
        cells=CELLS, extra_dtype=False, oom_at=None, one_axis=False):
    rng = random.Random(seed)
    dtypes = []
    for dt in (["float32", "float16"] if extra_dtype else ["float32"]):
        out = []
        for (r, c) in cells:
            e_us, f_us, s_us = BASE_US[(r, c)]
            if dt == "float16":
                e_us, f_us, s_us = e_us / 2, f_us / 2, s_us / 2
            ideal = r * c * (8 if dt == "float32" else 4)
            sol_stats, sol_samples = measurement(rng, s_us, 0.005)
            cell = {
                "row": r, "col": c, "point": {"dim0": r, "dim1": c},
                "ideal_bytes": ideal, "flops": 5 * r * c,
                "sol": {"status": "ok", "time_ms": sol_stats, "samples_us": sol_samples,
                        "gbps": round(ideal / (sol_stats["median"] * 1e-3) / 1e9, 4)},
                "variants": {
                    "eager": variant(rng, e_us, 0.005, 5, ideal),
                    "softmax.fused": variant(rng, f_us * fused_scale, fused_rel, 1, ideal,
                                             passed=(r, c) != fail_at),
                }}
            if (r, c) == oom_at:
                cell["variants"]["softmax.fused"] = {"status": "oom", "reason": "out of device memory"}
            if one_axis:
                del cell["col"]
                cell["point"] = {"dim0": r}
            out.append(cell)
        dtypes.append({"dtype": dt, "cells": out})
    rows = sorted({r for r, _ in cells})
    cols = sorted({c for _, c in cells})
    doc = {
        "fusionbench": {"version": "0.1.0", "git": "%010x" % (0xabc0000000 + seed), "schema": 1},
        "started": "2026-12-01T08:00:00Z", "finished": "2026-12-01T08:01:00Z", "host": "gpu-node-1",
        "command": "fusionbench run --case softmax --dim0 128,1024 --dim1 256,4096",
        "device": {"name": device, "cc": "9.0", "sms": 132, "l2_bytes": 52428800, "mem_bytes": 85017493504,
                   "driver": "13.0", "runtime": "13.0", "cublas": 130100, "cudnn": 91400},
        "settings": {"timer": "events", "warmup_ms": 25.0, "rep_ms": 100.0, "max_noise_pct": 0.5,
                     "max_wall_s": 5.0, "flush_bytes": 268435456, "seed": 1},
        "cases": [{"name": "softmax", "summary": "softmax over the last dim of a dim0 x dim1 matrix",
                   "file": "cases/softmax.json", "rows": "dim0", "cols": "dim1",
                   "row_values": rows, "col_values": cols,
                   "variants": ["eager", "softmax.fused"], "baseline": "eager", "dtypes": dtypes}],
    }
    if one_axis:
        del doc["cases"][0]["cols"], doc["cases"][0]["col_values"]
    return doc


def strip_samples(node):
    if isinstance(node, dict):
        node.pop("samples_us", None)
        for v in node.values():
            strip_samples(v)
    elif isinstance(node, list):
        for v in node:
            strip_samples(v)


def fixed_base():
    with open(os.path.join(HERE, "..", "export", "fixed.json")) as f:
        doc = json.load(f)
    for cell in doc["cases"][0]["dtypes"][0]["cells"]:
        for v in list(cell["variants"].values()) + ([cell["sol"]] if "sol" in cell else []):
            if "time_ms" in v:
                v["time_ms"]["n"] = 20
    return doc


def fixed_slower():
    doc = fixed_base()
    cells = doc["cases"][0]["dtypes"][0]["cells"]
    for cell in cells:
        if cell["point"] == {"M": 128, "N": 64, "K": 4096}:
            t = cell["variants"]["mm.fused"]["time_ms"]
            for k in ("min", "p20", "median", "p80", "max", "mean", "stdev"):
                t[k] = round(t[k] * 1.25, 9)
    extra = copy.deepcopy(next(c for c in cells if c["point"] == {"M": 256, "N": 64, "K": 4096}))
    extra["col"] = 128
    extra["point"]["N"] = 128
    cells.append(extra)
    return doc


def with_pairs(doc, seed, ratio, time_scale=1.0, fused_scale=1.0, n=40):
    """doc with every time scaled by time_scale (softmax.fused's also by fused_scale) and
    softmax.fused carrying a paired timing whose pairs' ratios sit around `ratio`."""
    rng = random.Random(seed)
    for cell in doc["cases"][0]["dtypes"][0]["cells"]:
        for name, v in list(cell["variants"].items()) + [("sol", cell["sol"])]:
            k = time_scale * (fused_scale if name == "softmax.fused" else 1.0)
            v["samples_us"] = [round(x * k, 3) for x in v["samples_us"]]
            for key in ("min", "p20", "median", "p80", "max", "mean", "stdev"):
                v["time_ms"][key] = round(v["time_ms"][key] * k, 9)
        f = cell["variants"]["softmax.fused"]
        ratios = [round(ratio * (1 + 0.003 * rng.gauss(0, 1)), 5) for _ in range(n)]
        s = sorted(ratios)
        t_ms = f["time_ms"]["median"]
        f["paired"] = {"floor": "softmax.floor", "status": "ok", "n": n,
                       "ratio": {"min": s[0], "p20": quantile(s, 0.2), "median": quantile(s, 0.5),
                                 "p80": quantile(s, 0.8), "max": s[-1], "n": n},
                       "floor_ms": {"median": round(t_ms / ratio, 9), "n": n},
                       "time_ms": {"median": t_ms, "n": n},
                       "check": {"mode": "full", "passed": True}, "ratio_samples": ratios}
    return doc


def write(name, doc):
    text = json.dumps(doc, indent=1)
    # arrays of numbers (samples_us, grid values) on one line, as fusionbench writes them
    text = re.sub(r"\[\s+([-0-9.e+,\s]+?)\s+\]", lambda m: "[" + ", ".join(m.group(1).split(",\n")).replace(" ", "").replace(",", ", ") + "]", text)
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text + "\n")


def main():
    base = run(1)
    write("base.json", base)
    write("same.json", run(2))
    write("slower.json", run(3, fused_scale=1.10))
    write("noisy.json", run(4, fused_scale=1.04, fused_rel=0.15))
    write("fail.json", run(2, fail_at=(128, 256)))
    write("partial.json", run(2, cells=CELLS[:1], extra_dtype=True))
    write("h200.json", run(2, device="NVIDIA H200"))
    old = copy.deepcopy(base)
    strip_samples(old)
    write("old.json", old)
    write("oom.json", run(2, oom_at=(1024, 4096)))
    rows = [(128, 256), (1024, 4096)]  # one axis: the col only picks the fake times
    write("rows_a.json", run(5, cells=rows, one_axis=True))
    write("rows_b.json", run(6, cells=rows, one_axis=True, fused_scale=1.10))
    write("fixed_base.json", fixed_base())
    write("fixed_slower.json", fixed_slower())
    write("paired_base.json", with_pairs(run(1), 7, 1.01))
    write("paired_slowcard.json", with_pairs(run(2), 8, 1.01, time_scale=1.12))
    write("paired_costlier.json", with_pairs(run(2), 9, 1.01 * 1.07, fused_scale=1.07))
    bad = run(1)
    bad["cases"] = {"softmax": bad["cases"][0]}
    write("bad.json", bad)


if __name__ == "__main__":
    main()
