#!/usr/bin/env python3
"""tables.py — the H100 tables kernels/NOTES.md ("Stop 30") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.
"""
import json
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import by_cell, cells, geomean, text, unpack  # noqa: E402


def ab(r, base, builds, runs=(1, 2)):
    """t_base / t_build per cell and run, and each build's geomean; base and builds name files
    ab-{name}-{run}.json."""
    B = {n: [by_cell(os.path.join(r, f"ab-{n}-{k}.json")) for k in runs] for n in [base] + builds}
    keys = sorted(B[base][0])
    print(f"   rows      W  {base} % of SOL (runs)  | per build: t_{base} / t_build (runs), % of SOL (run 1)")
    gm = {n: [] for n in builds}
    for key in keys:
        line = f"  {key[0]:5d} {key[1]:6d}  " + " ".join(f"{B[base][i][key][1]:5.1f}" for i in range(len(runs)))
        for n in builds:
            rs = [B[base][i][key][0] / B[n][i][key][0] for i in range(len(runs))]
            gm[n] += rs
            line += f" | {n} " + " ".join(f"{x:5.3f}" for x in rs) + f" ({B[n][0][key][1]:5.1f})"
        assert all(B[n][i][key][2] for n in B for i in range(len(runs))), "a failed check"
        print(line)
    print("  geomean: " + ", ".join(f"{n} {geomean(gm[n]):.3f} over {len(gm[n])}" for n in builds))


def grid_line(path):
    return ", ".join(f"{rows} x {w} {sol:.1f}%" for (rows, w), (_, sol, ok) in sorted(by_cell(path).items()))


def ncu(r, name):
    keep = ("Duration", "DRAM Throughput", "L1/TEX Hit Rate", "L2 Hit Rate", "Block Size", "Dynamic Shared Memory Per Block",
            "Registers Per Thread", "Achieved Occupancy")
    for ln in text(r, name).splitlines():
        s = " ".join(ln.split())
        if any(s.startswith(k) for k in keep):
            print("    " + s)


def upt_ab(r):
    for case in ("horizontal_reduction_pointwise", "horizontal_reduction_reduction"):
        A = [by_cell(os.path.join(r, f"ab-{case}-u4-{k}.json"), True) for k in (1, 2)]
        B = [by_cell(os.path.join(r, f"ab-{case}-u8-{k}.json"), True) for k in (1, 2)]
        print(f"  {case}: t_4units / t_8units (run 1, run 2), % of SOL 4 -> 8 units (run 1)")
        for dt in ("float32", "bfloat16"):
            rs_all = []
            for W in sorted({k[2] for k in A[0] if k[0] == dt}):
                line = f"    {dt:8s} W={W:4d}:"
                for rows in sorted({k[1] for k in A[0] if k[0] == dt}):
                    key = (dt, rows, W)
                    assert all(x[key][2] for x in A + B), "a failed check"
                    rs = [A[i][key][0] / B[i][key][0] for i in (0, 1)]
                    rs_all += rs
                    line += f" {rows:5d} {rs[0]:.3f} {rs[1]:.3f} ({A[0][key][1]:4.1f}>{B[0][key][1]:4.1f})"
                print(line)
            print(f"    {dt} geomean {geomean(rs_all):.3f} over {len(rs_all)}")


def compare_lines(r, d):
    keep = ("== ", "geomean", "cells >=", "cells whose two sides", "  dim0=", "  M=", "targets")
    for ln in text(r, os.path.join(d, "compare.txt")).splitlines():
        if ln.startswith(keep):
            print("  " + ln)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r1 = unpack(tmp, os.path.join(HERE, "call1-params-dev-hrp-sass.tar.xz"))
        print(text(r1, "gpus.txt").strip())
        print("# 1. call 1: dev/layernorm_params_dev.cu write (W = 32768 float32, one 1024-thread CTA a row), twice")
        print(text(r1, "lpd-1.txt").strip())
        print(text(r1, "lpd-2.txt").strip().split("\n", 2)[2])
        for k in (1, 2):
            print(f"  layernorm.fused, same call, run {k} (% of SOL): {grid_line(os.path.join(r1, f'ln32k-{k}.json'))}")
        print("# 3. call 1: horizontal_reduction_pointwise's registered launches on short rows, float32, write flush")
        print("   " + "\n   ".join(text(r1, "hrp-short.txt").strip().splitlines()))

        r2 = unpack(tmp, os.path.join(HERE, "call2-staged-ab.tar.xz"))
        print("\n# 2. the weight staged in the engine (staged-weight-call2.patch), layernorm float32, write flush,")
        print("#    one binary, FB_DEV_STAGE m0 = the old plans, m1 = staged (pairs to 264 rows), m2 = staged, no pairs")
        ab(r2, "m0", ["m1", "m2"])
        for name in ("selftest-layernorm", "memcheck", "racecheck"):
            last = [ln for ln in text(r2, name + ".txt").splitlines() if ln.strip()][-1]
            print(f"  {name}: {last.strip('= ')}")

        r3 = unpack(tmp, os.path.join(HERE, "call3-staged-knobs-ncu.tar.xz"))
        print("\n#    call 3 (staged-weight-devknobs' first form): m3 x streaming, m5 cp.async after x, m7 both")
        ab(r3, "m0", ["m1", "m3", "m5", "m7"])
        for m in (0, 1):
            print(f"  Nsight Compute, 512 x 32768, m{m}:")
            ncu(r3, f"ncu-m{m}.txt")

        r4 = unpack(tmp, os.path.join(HERE, "call4-staged-stores-sass.tar.xz"))
        print("\n#    call 4: four builds, each against its own FB_DEV_STAGE=0: A both ahead, B w at use and b ahead,")
        print("#    C plain store_slice, D = B with x streaming (t_old / t_staged)")
        for b in "ABCD":
            print(f"  build {b}:")
            ab(r4, f"{b}0", [f"{b}1"])
        print("  the dev kernel again in call 4:")
        print(text(r4, "lpd.txt").strip().split("\n", 2)[2])

        r5 = unpack(tmp, os.path.join(HERE, "call5-rowstream-upt8-ab.tar.xz"))
        print("\n# 4. call 5: rowstream's group team with 8 units a lane on many short rows (rowstream-upt8-call5.patch),")
        print("#    against 4 (FB_DEV_UPT=4), one binary, write flush, twice")
        upt_ab(r5)
        for name in ("selftest", "memcheck-horizontal_reduction_pointwise", "memcheck-horizontal_reduction_reduction"):
            last = [ln for ln in text(r5, name + ".txt").splitlines() if ln.strip()][-1]
            print(f"  {name}: {last.strip('= ')}")

        r6 = unpack(tmp, os.path.join(HERE, "call6-peers-hrp-matmul-bias.tar.xz"))
        print("\n# 5. call 6: fb36 (dc304d9) beside torch.compile, write flush both sides, a compile per cell")
        print("#    horizontal_reduction_pointwise's short rows, two runs:")
        compare_lines(r6, "hrp1")
        compare_lines(r6, "hrp2")
        print("#    matmul_bias, the default grid (M x N x K = 5 x 5 x 2), bfloat16 and float16:")
        compare_lines(r6, "mm")

        r7 = unpack(tmp, os.path.join(HERE, "call7-matmul-bias-kernels.tar.xz"))
        print("\n# 6. call 7: the kernels behind matmul_bias, bfloat16 (dev/matmul_peer_probe.py; fusionbench --timer cupti)")
        for name in ("probe-8192", "probe-2048"):
            for ln in text(r7, name + ".txt").splitlines():
                if "Warning" in ln or "_warn_once" in ln:
                    continue
                print("  " + ln)
        for ln in text(r7, "fb-kernels.txt").splitlines() + text(r7, "fb-time.txt").splitlines():
            if ln.strip() and not ln.startswith("fusionbench: "):
                print("  " + ln)
        for name in ("fb-kernels.json", "fb-time.json"):
            for _, _, c in cells(os.path.join(r7, name)):
                v = c["variants"]["matmul_bias.fused"]
                t = v["time_ms"]
                print(f"  fusionbench {name[:-5]} ({'--timer cupti: kernel durations' if 'kernels' in name else 'events'}): "
                      f"{c['point']['M']} x {c['point']['N']} x {c['point']['K']} min {t['min'] * 1e3:.1f} us, median "
                      f"{t['median'] * 1e3:.1f} us; SM clock {c['clocks']['before']['sm_clock_mhz']} -> "
                      f"{c['clocks']['after']['sm_clock_mhz']} MHz")
        print("  fusionbench's libraries:")
        print("  " + text(r7, "fb-libs.txt").strip().replace("\n", "\n  "))

        for call, name in ((8, "call8-peer-clocks-first.tar.xz"), (9, "call9-peer-clocks.tar.xz")):
            r = unpack(tmp, os.path.join(HERE, name))
            print(f"\n# 7. call {call}: matmul_bias bfloat16 beside torch.compile with both sides' clocks"
                  + (" (torch's read after free_memory)" if call == 8 else " (torch's read after the last samples)"))
            compare_lines(r, "mm")
            peer = json.load(open(os.path.join(r, "mm", "peer-matmul_bias-bfloat16.json")))
            fbf = json.load(open(os.path.join(r, "mm", "fb-matmul_bias-bfloat16.json")))
            ends = {}
            for side, doc in (("fb", fbf), ("torch", peer)):
                for c in doc["cases"][0]["dtypes"][0]["cells"]:
                    p = c["point"]
                    ends.setdefault((p["M"], p["N"], p["K"]), {})[side] = c["clocks"]["after"]["sm_clock_mhz"]
            print("  SM clock at each cell's end (MHz), fusionbench / torch: "
                  + ", ".join(f"{m}x{n}x{k} {v['fb']}/{v['torch']}" for (m, n, k), v in sorted(ends.items())))
        print("  " + text(r7, "fb-libs.txt").strip().replace("\n", "\n  "))

        r10 = unpack(tmp, os.path.join(HERE, "call10-settle.tar.xz"))
        print("\n# 8. call 10: the same 12 cells, both sides waiting before each measurement for a settled clock")
        print("#    (fusionbench run --settle, torch_peer.py --settle; 1000 ms at most)")
        compare_lines(r10, "mm")
        print("  side, cell, SM clock at its start and end (MHz), the wait (ms; None: none):")
        for ln in text(r10, "settle.txt").splitlines():
            print("    " + ln)

        r11 = unpack(tmp, os.path.join(HERE, "call11-flush-timer.tar.xz"))
        print("\n# 9. call 11: matmul_bias bfloat16 at 2048 and 8192 x 8192 x 8192: fusionbench (fb37) events with")
        print("#    --flush write, clean, --timer cupti, write again; torch_peer torch.compile with write and clean")
        print("    file, M, median / min us, samples, SM clock at the cell's start and end (MHz):")
        for ln in text(r11, "summary.txt").splitlines():
            print("    " + ln)


if __name__ == "__main__":
    main()
