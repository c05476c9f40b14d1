#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 48") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Call 1: rmsnorm_backward's pipelined kernel summing dw itself behind a grid barrier (3875b46, now
dev/rmsbwd_own_dw.patch) against the dw kernel (the knob FB_DEV_RMSBWD_DW_KERNEL=1 in the same
binary), two alternating rounds; matmul_add.fused with N = 8, 1, 2 cuDNN engine configs a graph
(dev/mm_cudnn_candidates_knob.patch).
"""
import math
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py
from tarballs import cells, geomean, pair_ratios, print_checks, print_steps as steps, unpack  # noqa: E402

CALLS = [
    ("call1-rmsbwd-own-dw-cudnn-candidates.tar.xz",
     "1. rmsnorm_backward: dw summed in the row kernel behind a grid barrier, against the dw kernel"
     " (fb48r = 3875b46 + dev/rmsbwd_dw_kernel_knob.patch); matmul_add.fused with N cuDNN configs a"
     " graph (fb48c = c14aeef + dev/mm_cudnn_candidates_knob.patch)",
     ["st-rbwd", "memcheck", "racecheck"]),
]


def fused_times(path, variant):
    """{(dtype, T, N): (median us, % of SOL)} of `variant` in a result file, every check asserted."""
    out = {}
    for _, d, c in cells(path):
        v = c["variants"][variant]
        assert v["check"]["passed"], (path, d, c["row"], c["col"])
        out[(d, c["row"], c["col"])] = (v["time_ms"]["median"] * 1e3, v["sol_pct"])
    return out


def ab_table(r, a, b, label_a, label_b, variant="rmsnorm_backward.fused"):
    """Two forms timed in alternating rounds (files {a,b}-{1,2}.json): % of SOL each round, and
    t_a / t_b from the geometric mean of each side's rounds."""
    ta = [fused_times(os.path.join(r, f"{a}-{i}.json"), variant) for i in (1, 2)]
    tb = [fused_times(os.path.join(r, f"{b}-{i}.json"), variant) for i in (1, 2)]
    print(f"  {variant}, events, clean flush; * marks 4TN >= 16M (issue 9's >= 80% cells)")
    print(f"  dtype       T      N   | {label_a}: % SOL r1 r2 | {label_b}: % SOL r1 r2 | t_{a} / t_{b}")
    ratios = []
    for k in sorted(ta[0]):
        d, T, N = k
        ga = math.sqrt(ta[0][k][0] * ta[1][k][0])
        gb = math.sqrt(tb[0][k][0] * tb[1][k][0])
        ratios.append(ga / gb)
        big = "*" if 4 * T * N >= 16 * 2**20 else " "
        print(f"  {d:<9} {T:5d} {N:6d} {big} | {ta[0][k][1]:5.1f} {ta[1][k][1]:5.1f} | "
              f"{tb[0][k][1]:5.1f} {tb[1][k][1]:5.1f} | {ga / gb:.3f}  ({ga:.1f} / {gb:.1f} us)")
    print(f"  geomean t_{a} / t_{b} over {len(ratios)} cells: {geomean(ratios):.3f} "
          f"({min(ratios):.3f}-{max(ratios):.3f})")


def candidates(r):
    """matmul_add.fused per N: the paired geomean over the cells, prepare wall time, what ran."""
    for n in (8, 1, 2):
        p = os.path.join(r, f"mm-n{n}.json")
        if not os.path.exists(p):
            continue
        pr = pair_ratios(p)
        wall = [c["variants"]["matmul_add.fused"]["wall_ms"]["prepare"] / 1e3 for _, _, c in cells(p)]
        warm = [c["variants"]["matmul_add.fused"]["prepare_ms"] for _, _, c in cells(p)]
        rs = [v["matmul_add.fused"][0] for v in pr.values()]
        print(f"  N = {n}: t / t(matmul.tuned) geomean {geomean(rs):.3f} over {len(rs)} cells; host time in "
              f"prepare (wall_ms.prepare) {min(wall):.2f}-{max(wall):.2f} s a cell, {sum(wall):.1f} s in all; "
              f"prepare_ms (the warm second) {min(warm):.0f}-{max(warm):.0f}")
        for (d, m, nn), v in sorted(pr.items()):
            ratio, note = v["matmul_add.fused"]
            ran = note.split(":")[0] if note.startswith("matmul_add.") else "cuBLASLt"
            print(f"    {d} {m:>5} x {nn:<5} {ratio:.3f}  ran: {ran}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for tar, title, names in CALLS:
            print(f"== {title} ({tar})")
            r = unpack(tmp, os.path.join(HERE, tar))
            steps(r, [n for n in names if os.path.exists(os.path.join(r, n + ".txt"))])
            for f in ("memcheck.json", "racecheck.json"):
                if os.path.exists(os.path.join(r, f)):
                    print_checks(os.path.join(r, f))
            if os.path.exists(os.path.join(r, "rb-new-1.json")):
                ab_table(r, "rb-old", "rb-new", "dw kernel", "own dw")
            candidates(r)
            print()


if __name__ == "__main__":
    main()
