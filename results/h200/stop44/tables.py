#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 44") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Call 1: stop 43's HEAD on a GPU for the first time (selftest; the four large matmul cells paired;
an Nsight Compute step whose launch filter caught the timer's flush kernels, not the GEMMs).
Call 2: conv.tuned and cuDNN engine tuning (b1764df): selftest of the conv and two matmul cases,
the odd conv cases, memcheck, the bfloat16 and float16 conv grids paired with conv.tuned, the four
large cells of matmul_bias and matmul_add (the shared tuner). Call 3: mode B's engines added:
selftest, memcheck, conv_add's grids, float32 conv cells. Call 4: `run --all --dtype float32`
(issue 6's ten minutes). Calls 5-6: float32 conv variants given the legacy call's workspace
(conv_add and conv_bn, then every conv variant). Every check the tables use passed (asserted).
"""
import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py
from tarballs import assert_checked, cells, last, print_paired_table, print_steps as steps, unpack  # noqa: E402

def conv_cells(path, case, variant):
    """One line a cell: the pairs' ratio, both sides' medians and the engine each side kept."""
    for c, d, cell in cells(path):
        if c != case:
            continue
        v = cell["variants"][variant]
        p = v.get("paired") or {}
        pt = cell["point"]
        if p.get("status") != "ok":
            print(f"    {d:9s} H={pt['H']:2d} N={pt['N']:2d} C={pt['C']:3d}  {v.get('status')}: {v.get('reason', '')[:120]}")
            continue
        print(f"    {d:9s} H={pt['H']:2d} N={pt['N']:2d} C={pt['C']:3d}  {p['ratio']['median']:.3f}  floor "
              f"{p['floor_ms']['median'] * 1e3:7.1f} us, fused {p['time_ms']['median'] * 1e3:7.1f} us | floor: "
              f"{p.get('floor_note', '')[:75]} | fused: {v.get('reason', '')[:75]}")


def engines(path, case, variant):
    """How often each kept engine's note opens (the variant's path and engine), over a file's cells."""
    n = collections.Counter()
    for c, _, cell in cells(path):
        if c == case and variant in cell["variants"]:
            n[cell["variants"][variant].get("reason", "")[:16]] += 1
    return dict(n)


def main():
    tmp = tempfile.mkdtemp()
    r1 = unpack(tmp, os.path.join(HERE, "call1-validate.tar.xz"))
    r2 = unpack(tmp, os.path.join(HERE, "call2-conv-tuned.tar.xz"))
    r3 = unpack(tmp, os.path.join(HERE, "call3-mode-b.tar.xz"))
    r4 = unpack(tmp, os.path.join(HERE, "call4-run-all-f32.tar.xz"))
    r5 = unpack(tmp, os.path.join(HERE, "call5-f32-workspace.tar.xz"))
    r6 = unpack(tmp, os.path.join(HERE, "call6-f32-workspace-all.tar.xz"))

    print("== 1. call 1: stop 43's HEAD (d2c76a6) on a GPU")
    steps(r1, [])
    print("  " + last(r1, "selftest.txt", "selftest:"))
    print("  the four large cells (bfloat16, M 2048, 8192 x N 8192, 16384 x K 1024), paired")
    print_paired_table(os.path.join(r1, "pair.json"))
    with open(os.path.join(r1, "ncu-bias.txt")) as f:
        profiled = sorted({l.split('"')[1] for l in f if l.startswith("==PROF== Profiling")})
    print(f"  Nsight Compute step (--launch-skip 20 --launch-count 4, no kernel filter) profiled: {profiled}")

    print("\n== 2. call 2: conv.tuned and cuDNN engine tuning (b1764df)")
    steps(r2, [])
    for f in ("selftest.txt", "st-conv_relu_odd.txt", "st-conv_add_odd.txt", "st-conv_bn_odd.txt"):
        print(f"  {f}: " + last(r2, f, "selftest:"))
    print("  memcheck (conv_add, conv_relu float16, N 1, 8, C 64, H 14, paired): " + last(r2, "memcheck.txt", "ERROR SUMMARY"))
    print("  the conv grids, paired with conv.tuned, --max-time 2; the shared tuner on matmul_bias, matmul_add")
    print_paired_table(os.path.join(r2, "conv-bf16.json"), os.path.join(r2, "conv-f16.json"), os.path.join(r2, "pair.json"),
                 both=True)
    print("  conv_relu.fused's and conv_bn.fused's kept engines (bfloat16 grid):",
          engines(os.path.join(r2, "conv-bf16.json"), "conv_relu", "conv_relu.fused"),
          engines(os.path.join(r2, "conv-bf16.json"), "conv_bn", "conv_bn.fused"))
    print("  conv_add.fused cell by cell (bfloat16)")
    conv_cells(os.path.join(r2, "conv-bf16.json"), "conv_add", "conv_add.fused")

    print("\n== 3. call 3: up to 4 configs of other engines from heuristics mode B")
    steps(r3, [])
    print("  " + last(r3, "selftest.txt", "selftest:"))
    print("  memcheck (conv_add bfloat16, N 1, C 64, 128, H 14, paired): " + last(r3, "memcheck.txt", "ERROR SUMMARY"))
    print_paired_table(os.path.join(r3, "add-bf16.json"), os.path.join(r3, "add-f16.json"), os.path.join(r3, "f32.json"))
    print("  conv_add.fused cell by cell (bfloat16, float16; the floor's and the fused graph's engines)")
    conv_cells(os.path.join(r3, "add-bf16.json"), "conv_add", "conv_add.fused")
    conv_cells(os.path.join(r3, "add-f16.json"), "conv_add", "conv_add.fused")

    print("\n== 4. call 4: run --all --dtype float32 (issue 6: <= 10 minutes)")
    steps(r4, [])
    path = os.path.join(r4, "all-float32.json")
    print("  " + last(r4, "all.txt", "cells in"))
    print(f"  timed variants, every check passed: {assert_checked(path)}")
    wall = collections.Counter()
    skipped = collections.Counter()
    for case, _, c in cells(path):
        wall[case] += sum(c.get("wall_ms", {}).values()) / 1e3
        for name, v in c["variants"].items():
            if v.get("status") == "skipped":
                skipped[(case, name, v.get("reason", "")[:60])] += 1
    print("  host seconds by case (cells' wall_ms): " + ", ".join(f"{k} {v:.1f}" for k, v in wall.most_common()))
    for k, n in sorted(skipped.items()):
        print(f"  skipped: {k[0]} {k[1]} x {n}: {k[2]}...")
    for case, _, c in cells(path):
        v = c["variants"].get("conv_add.fused", {})
        if v.get("status") == "skipped":
            print(f"    {c['point']}: ...{v['reason'][v['reason'].find('legacy'):][:110]}")

    print("\n== 5. call 5: conv_add and conv_bn float32 ask for the legacy call's workspace")
    steps(r5, [])
    print("  " + last(r5, "selftest.txt", "selftest:"))
    print("  memcheck: " + last(r5, "memcheck.txt", "ERROR SUMMARY"))
    assert_checked(os.path.join(r5, "f32.json"))
    for f, lab in ((os.path.join(r4, "all-float32.json"), "call 4"), (os.path.join(r5, "f32.json"), "call 5")):
        for case, _, c in cells(f):
            pt = c["point"]
            if case not in ("conv_add", "conv_bn") or pt["H"] != 56 or pt["N"] != 32 or pt["C"] != 128:
                continue
            for name, v in c["variants"].items():
                t = v.get("time_ms", {}).get("median")
                print(f"    {lab} {case:8s} N 32 C 128 H 56 {name:15s} "
                      f"{t * 1e3 if t else 0:7.1f} us  {v.get('status')}  {v.get('reason', '')[:70]}")

    print("\n== 6. call 6: every float32 conv variant (conv.tuned included) asks that workspace")
    steps(r6, [])
    print("  " + last(r6, "selftest.txt", "selftest:"))
    print_paired_table(os.path.join(r6, "f32.json"), both=True)
    print("  the conv case: eager (64 MB) against conv.tuned (the larger workspace), us")
    for case, _, c in cells(os.path.join(r6, "f32.json")):
        if case != "conv":
            continue
        pt, v = c["point"], c["variants"]
        print(f"    H={pt['H']:2d} N={pt['N']:2d} C={pt['C']:3d}  eager {v['eager']['time_ms']['median'] * 1e3:8.1f}  "
              f"conv.tuned {v['conv.tuned']['time_ms']['median'] * 1e3:8.1f}  {v['conv.tuned'].get('reason', '')[:60]}")


if __name__ == "__main__":
    main()
