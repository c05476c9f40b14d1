#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 43") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Call 1: the first paired-timing binary (every floor was skipped: its output was allocated after
supports() read its shape); the 200 us probe poll on softmax and layernorm's grids against stop
42's calls 6-7; rmsnorm_backward.pipelined's half-type rows of 8192 on one or two 512-thread CTAs
an SM (stop 42's next-pipe-knob-2cta.patch). Call 2: paired timing as fixed (a9d5a19): memcheck,
issue 10's four large K = 1024 cells twice, odd shapes, the bfloat16 and float16 matmul grids and
the bfloat16 conv grids. Call 3: cuBLASLt's tuning in rounds (e798695): selftest, the four cells
three times, the bfloat16 matmul grid. Call 4: the same binary on the float16 matmul and conv
grids and the float32 matmul --quick grid. Every check the tables use passed (asserted here).
"""
import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py
from tarballs import assert_checked, cells, print_paired_table, print_steps as steps, text, unpack  # noqa: E402

def paired_cells(path, case, variant):
    """{(M, N): (ratio, floor us, time us, floor's algorithm, the variant's)} of a result file."""
    res = {}
    for c, _, cell in cells(path):
        if c != case:
            continue
        v = cell["variants"][variant]
        p = v.get("paired") or {}
        if p.get("status") == "ok":
            res[(cell["point"]["M"], cell["point"]["N"])] = (
                p["ratio"]["median"], p["floor_ms"]["median"] * 1e3, p["time_ms"]["median"] * 1e3,
                p.get("floor_note", "")[len("cuBLASLt algorithm: "):][:40], v.get("reason", "")[len("cuBLASLt algorithm: "):][:40])
    return res


def wall(path):
    """Seconds in each phase of a run, summed over cells (wall_ms) and over variants."""
    ph, vp, samples, reads = collections.Counter(), collections.Counter(), 0, 0
    for _, _, c in cells(path):
        for k, x in c.get("wall_ms", {}).items():
            ph[k] += x / 1e3
        for v in c["variants"].values():
            for k, x in v.get("wall_ms", {}).items():
                vp["variant " + k] += x / 1e3
            samples += v.get("time_ms", {}).get("n", 0)
            reads += (v.get("sm_clock_mhz") or {}).get("n", 0)
    return ph, vp, samples, reads


def main():
    tmp = tempfile.mkdtemp()
    r1 = unpack(tmp, os.path.join(HERE, "call1-paired-first-probe-2cta.tar.xz"))
    r2 = unpack(tmp, os.path.join(HERE, "call2-paired-grids.tar.xz"))
    r3 = unpack(tmp, os.path.join(HERE, "call3-tuning-rounds.tar.xz"))
    r4 = unpack(tmp, os.path.join(HERE, "call4-f16-f32-conv.tar.xz"))
    s42 = os.path.join(HERE, "..", "stop42")
    c6 = unpack(tmp, os.path.join(s42, "call6-clock-probe.tar.xz"))
    c7 = unpack(tmp, os.path.join(s42, "call7-clock-reasons.tar.xz"))

    print("== 1. call 1: the first paired binary; the probe's poll; rmsnorm_backward on two CTAs an SM")
    print("  " + text(r1, "gpus.txt").strip().replace("\n", "\n  "))
    steps(r1, ["st-2cta"])
    reasons = collections.Counter()
    for _, _, c in cells(os.path.join(r1, "pair-r1.json")):
        for v in c["variants"].values():
            p = v.get("paired")
            if p:
                reasons[(p["status"], p.get("reason", ""))] += 1
    print("  pair-r1's paired measurements by (status, reason):", dict(reasons))
    print("  softmax + layernorm default float32 grids, 200 cells: wall seconds by phase (cells; variants),"
          " samples taken, SM clock readings")
    for label, r in (("stop 42 call 6 (a reading a batch)", c6), ("stop 42 call 7 (every 2 ms, 2 ms sleeps)", c7),
                     ("stop 43 call 1 (every 2 ms, 200 us polls)", r1)):
        ph, vp, n, reads = wall(os.path.join(r, "mem.json"))
        print(f"    {label:44s} {' '.join(f'{k} {v:.1f}' for k, v in ph.items())}; "
              f"{' '.join(f'{k} {v:.1f}' for k, v in vp.items())}; samples {n}, readings {reads}, "
              f"time per sample {vp['variant time'] / n * 1e3:.3f} ms")
    print("  rmsnorm_backward.pipelined, half types, N = 8192: % of SOL (us), two rounds in opposite orders;"
          " base = as committed, t512 = at most 512 threads, t512m100 = that and a 100 KB smem budget (two CTAs an SM)")
    res = collections.defaultdict(dict)
    for f in sorted(os.listdir(r1)):
        if f.startswith("k-") and f.endswith(".json"):
            assert_checked(os.path.join(r1, f))
            for _, d, c in cells(os.path.join(r1, f)):
                v = c["variants"]["rmsnorm_backward.pipelined"]
                res[(d, c["point"]["T"])][f[2:-5]] = (v["sol_pct"], v["time_ms"]["median"] * 1e3)
    for k, arms in sorted(res.items()):
        print(f"    {k[0]:9s} [4, {k[1]}, 8192]  " + "  ".join(f"{a} {x[0]:.1f}% ({x[1]:.1f})" for a, x in sorted(arms.items())))

    print("\n== 2. call 2: paired timing (a9d5a19), candidates tuned one after another")
    steps(r2, ["memcheck", "memcheck-conv"])
    for f in ("pair-r1", "pair-r2"):
        print(f"  {f}: bfloat16, M 2048, 8192 x N 8192, 16384 x K 1024")
        print_paired_table(os.path.join(r2, f + ".json"))
    print("  matmul_bias.fused's pairs and the algorithms each side kept:")
    for f in ("pair-r1", "pair-r2"):
        for k, x in sorted(paired_cells(os.path.join(r2, f + ".json"), "matmul_bias", "matmul_bias.fused").items()):
            print(f"    {f} {k[0]:5d} x {k[1]:5d}: {x[0]:.3f}  floor {x[1]:.1f} us, fused {x[2]:.1f} us;  floor: {x[3]} | fused: {x[4]}")
    print("  odd shapes (float32, float16)")
    print_paired_table(os.path.join(r2, "pair-odd.json"))
    print("  issue 10's grids, default, --max-time 2: bfloat16 and float16 matmul, bfloat16 conv")
    print_paired_table(os.path.join(r2, "grid-bf16.json"), os.path.join(r2, "grid-f16.json"), os.path.join(r2, "conv-bf16.json"))

    print("\n== 3. call 3: cuBLASLt tuning in rounds (e798695)")
    steps(r3, ["selftest"])
    for f in ("pair-r1", "pair-r2", "pair-r3"):
        print(f"  {f}")
        print_paired_table(os.path.join(r3, f + ".json"))
    print("  the bfloat16 matmul grid")
    print_paired_table(os.path.join(r3, "grid-bf16.json"))
    print("  matmul_bias.fused's cells over 3% (bfloat16 grid)")
    for case, _, c in cells(os.path.join(r3, "grid-bf16.json")):
        if case != "matmul_bias":
            continue
        p = c["variants"]["matmul_bias.fused"]["paired"]
        if p["ratio"]["median"] > 1.03:
            pt = c["point"]
            print(f"    {pt['M']:5d} x {pt['N']:5d} x {pt['K']}: {p['ratio']['median']:.3f}  floor "
                  f"{p['floor_ms']['median'] * 1e3:.1f} us, fused {p['time_ms']['median'] * 1e3:.1f} us")


    print("  by the floor's time: cells within 3% / cells, floor < 30 us and >= 30 us (bfloat16 grid, call 3;"
          " float16 grid, call 4)")
    for label, path in (("bfloat16", os.path.join(r3, "grid-bf16.json")), ("float16", os.path.join(r4, "grid-f16.json"))):
        split = collections.defaultdict(lambda: [0, 0, 0, 0])
        for case, _, c in cells(path):
            for name, v in c["variants"].items():
                p = v.get("paired") or {}
                if name == "eager" or p.get("status") != "ok":
                    continue
                big = p["floor_ms"]["median"] * 1e3 >= 30
                x = split[name]
                x[2 * big] += p["ratio"]["median"] <= 1.03
                x[2 * big + 1] += 1
        for name, x in sorted(split.items()):
            print(f"    {label:9s} {name:24s} < 30 us: {x[0]:2d} / {x[1]:2d}   >= 30 us: {x[2]:2d} / {x[3]:2d}")

    print("\n== 4. call 4: tuning in rounds (e798695): float16 matmul and conv grids, float32 matmul --quick")
    steps(r4, [])
    print_paired_table(os.path.join(r4, "grid-f16.json"), os.path.join(r4, "conv-f16.json"), os.path.join(r4, "grid-f32.json"))


if __name__ == "__main__":
    main()
