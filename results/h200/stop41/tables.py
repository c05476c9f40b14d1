#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 41") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Calls 1-2 are issue 10's full add: every cuBLASLt configuration of the plain GEMM and of the add
(dev/lt_algo_sweep_dev.cu). Call 3 is issue 9's unaligned short rows (N = 130) on scalar group
plans (dev/row_plan_knob.patch's FB_DEV_GROUP). Every fusionbench check the tables use passed
(asserted by tarballs.medians).
"""
import collections
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import geomean, medians, print_checks as checks, print_steps as steps, unpack  # noqa: E402


def sweep(r, name):
    """One lt_algo_sweep_dev run: per side, the configurations accepted and timed, each algorithm
    id's fastest first sample, the heuristic's best and the search's best."""
    side = None
    for line in open(os.path.join(r, name + ".txt")):
        line = line.rstrip()
        if line.startswith("NVIDIA") or line.startswith("RESULT"):
            print(f"    {line}")
        elif line.startswith("== "):
            side = line[3:].split(":")[0]
            print(f"    {line[3:]}")
        elif line.startswith("  id ") or line.startswith("timed ") or line.startswith("best of"):
            print(f"      {line.strip()}")
        elif side and re.match(r"\s+0\s+[0-9.]+ ms", line):
            print(f"      fastest: {line.strip()}")


def forced(r, prefix, variant):
    """Forced plans (the file's arm) against the engine's own ('base'): us per round, and t_base / t_arm."""
    res = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(os.listdir(r)):
        if not (f.startswith(prefix + "-") and f.endswith(".json")):
            continue
        dt, arm, rnd = re.match(rf"{prefix}-(\w+?)-(\w+)-(r\d)\.json", f).groups()
        t = medians([os.path.join(r, f)])[0]
        for k, vs in t.items():
            res[(dt, k[1], k[2])][arm].append(vs[variant][0])
    print(f"  {variant}, [4, T, N]: us in rounds 1 and 2 per plan; t_base / t_plan")
    for k in sorted(res):
        base = geomean(res[k]["base"])
        print(f"    {k[0]:8s} T {k[1]:5d} N {k[2]:4d}: " + "; ".join(
            f"{a} {'/'.join(f'{x:.2f}' for x in ts)} ({base / geomean(ts):.2f})" for a, ts in sorted(res[k].items())))


def main():
    tmp = tempfile.mkdtemp()
    r1 = unpack(tmp, os.path.join(HERE, "call1-lt-sweep-first.tar.xz"))
    print("# 1. call 1: every cuBLASLt configuration, plain (beta = 0) and add (beta = 1, C = D), bfloat16, "
          "cold L2, a time budget a side (ids in enumeration order: the budget ran out inside id 66)")
    steps(r1, [])
    for n in ("sweep-8192x16384x1024", "sweep-8192x8192x1024"):
        sweep(r1, n)

    r2 = unpack(tmp, os.path.join(HERE, "call2-lt-sweep-all-ids.tar.xz"))
    print("\n# 2. call 2: the same, algorithm ids sampled in turn (every id reached)")
    steps(r2, [])
    for n in ("sweep-8192x8192x1024", "sweep-2048x2048x1024", "sweep-128x8192x1024"):
        sweep(r2, n)

    r3 = unpack(tmp, os.path.join(HERE, "call3-rmsnorm-130-scalar-group.tar.xz"))
    print("\n# 3. call 3 (fb41k = ec46494 + dev/row_plan_knob.patch): rmsnorm N = 130 on scalar group plans "
          "(threads_units_lanes_early_vec), cupti, write flush, two rounds")
    forced(r3, "g", "rmsnorm.row_engine")
    forced(r3, "g", "rmsnorm.fused")


if __name__ == "__main__":
    main()
