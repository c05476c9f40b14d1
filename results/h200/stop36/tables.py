#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 36") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

fusionbench and torch_peer figures are medians of a measurement's samples; where a table says
"cupti" they are the sums of the GPU durations of the measured run's kernels (--timer cupti),
else event pairs. Every fusionbench check the tables use passed (asserted).
"""
import math
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, geomean, last, print_steps as steps, text, unpack  # noqa: E402


def us(v):
    return v["time_ms"]["median"] * 1e3


def fused(path, variant=None):
    """{(dtype, rows, col): median us} of each cell's own NAME.fused (or `variant`), check asserted."""
    out = {}
    for case, d, c in cells(path):
        v = c["variants"].get(variant or case + ".fused")
        if v is None or "time_ms" not in v:
            continue
        assert v["check"]["passed"], (path, case, d, c["row"], c["col"])
        out[(case, d, c["row"], c["col"])] = us(v)
    return out


def sols(path):
    return {(case, d, c["row"], c["col"]): us(c["sol"]) for case, d, c in cells(path) if "time_ms" in c["sol"]}


def ab(r, old, new, runs=(1, 2), variant=None, sol_from=None):
    """t_old / t_new per cell and run, % of SOL old -> new (first run), geomean per (case, dtype)."""
    A = [fused(os.path.join(r, f"{old}{i}.json"), variant) for i in runs]
    B = [fused(os.path.join(r, f"{new}{i}.json"), variant) for i in runs]
    S = sols(os.path.join(r, f"{sol_from or old}{runs[0]}.json"))
    by = {}
    for k in sorted(B[0]):
        if k not in A[0]:
            continue
        q = [a[k] / b[k] for a, b in zip(A, B)]
        by.setdefault(k[:2], []).extend(q)
        print(f"    {k[0]:15s} {k[1]:9s} {k[2]:6d} x {k[3]:<6d} {A[0][k]:9.2f} -> {B[0][k]:9.2f}  "
              + " ".join(f"{x:.3f}" for x in q) + f"   SOL {100 * S[k] / A[0][k]:5.1f} -> {100 * S[k] / B[0][k]:5.1f}")
    for k, v in by.items():
        print(f"    geomean {k[0]} {k[1]}: {geomean(v):.3f} over {len(v)} cell-runs")


def section(n, title):
    print(f"\n# {n}. {title}")


def peer_pair(d):
    """(fusionbench {(rows, col): rmsnorm.fused us}, torch_peer {(rows, col): {variant: us}}, sols)."""
    fb = {(c["row"], c["col"]): c for _, _, c in cells(os.path.join(d, "fb-rmsnorm-float32.json"))}
    pe = {(c["row"], c["col"]): c for _, _, c in cells(os.path.join(d, "peer-rmsnorm-float32.json"))}
    return fb, pe


def summary_line(d):
    return [l for l in text(d, "compare.txt").splitlines() if l.startswith("rmsnorm ")][-1]


def main():
    tmp = tempfile.mkdtemp()
    R = {n: unpack(tmp, os.path.join(HERE, f)) for n, f in [
        (1, "call1-ln2048-timers.tar.xz"), (2, "call2-reread-dev.tar.xz"), (4, "call4-row-smem-cluster-ahead.tar.xz"),
        (5, "call5-smem-offsets-timer-repeat.tar.xz"), (6, "call6-rmsnorm-peers-cupti-events.tar.xz"),
        (7, "call7-rmsnorm-modes-cupti-tc-launch.tar.xz"), (8, "call8-ncu-rmsnorm-small-vs-triton.tar.xz"),
        (9, "call9-rmsnorm-fixed-g.tar.xz"), (10, "call10-rmsnorm-gcap.tar.xz"),
        (11, "call11-verify-rmsnorm-cupti-peer.tar.xz")]}

    section(1, "call 1 (fb36a = 9eb3c05): layernorm float32 W = 2048, staged vs fused, clean flush, twice; "
               "the two timers on one copy at small cells")
    r = R[1]
    steps(r, [])
    print("  t_layernorm.fused / t_layernorm.staged (two runs), % of SOL fused -> staged")
    A = [fused(os.path.join(r, f"ln2048-{i}.json"), "layernorm.fused") for i in (1, 2)]
    B = [fused(os.path.join(r, f"ln2048-{i}.json"), "layernorm.staged") for i in (1, 2)]
    S = sols(os.path.join(r, "ln2048-1.json"))
    for k in sorted(A[0]):
        print(f"    {k[2]:6d} x {k[3]}  fused {A[0][k]:7.2f}  staged {B[0][k]:7.2f}  "
              + " ".join(f"{a[k] / b[k]:.3f}" for a, b in zip(A, B))
              + f"   SOL {100 * S[k] / A[0][k]:5.1f} -> {100 * S[k] / B[0][k]:5.1f}")
    print("  rmsnorm float32 [4, 128, N]: the speed-of-light copy (one cudaMemcpyAsync) timed by fusionbench and by "
          "torch_peer, events, us; and two variants that run one kernel (multi_wave_cached = fused's pick here)")
    for fb, pt, how in [("fbw1", "ptw1", "write, fb first"), ("fbw2", "ptw2", "write, torch first"),
                        ("fbc1", "ptc1", "clean")]:
        a = {(c["row"], c["col"]): c for _, _, c in cells(os.path.join(r, fb + ".json"))}
        b = {(c["row"], c["col"]): c for _, _, c in cells(os.path.join(r, pt + ".json"))}
        rs, same = [], []
        for k in sorted(a):
            rs.append(us(a[k]["sol"]) / us(b[k]["sol"]))
            if k[1] < 16384:  # fused takes the row engine there: not the same kernel
                same.append(us(a[k]["variants"]["rmsnorm.fused"]) / us(a[k]["variants"]["rmsnorm.multi_wave_cached"]))
        print(f"    {how:18s} sol fb/torch geomean {geomean(rs):.3f} range {min(rs):.3f}..{max(rs):.3f}; "
              f"fused/cached (one kernel) range {min(same):.3f}..{max(same):.3f}")

    section(2, "call 2: dev/reread_rows_dev.cu, layernorm float32 W = 65536, the engine's row_smem against rows "
               "read twice (us (% of the copy) median/p20)")
    for n in ("clean", "write"):
        print("    " + text(R[2], n + ".txt").replace("\n", "\n    ").rstrip())

    section(4, "call 4 (fb36c: dev knobs FB_DEV_SMEM2, a cluster of two 512-thread CTAs a row in row_smem; "
               "FB_DEV_AHEAD, parameters one unit ahead): t_off / t_on, two runs")
    r = R[4]
    steps(r, ["st", "mc", "rc"])
    print("  ahead-st: " + last(r, "ahead-st.txt", "selftest:"))
    print("  (the rc=1 steps ran every case with all three cases' variants: a case's check fails on another case's\n"
          "   variant by design; each case's own variant passed every check, asserted below)")
    print("  FB_DEV_SMEM2=1, float32 W = 65536")
    ab(r, "f32-off", "f32-s2")
    print("  FB_DEV_SMEM2=1, half types W = 65536")
    ab(r, "h-off", "h-s2")
    print("  FB_DEV_AHEAD=1, layernorm float32 W = 65536")
    ab(r, "f32-off", "ln32-ah", variant="layernorm.fused")
    print("  FB_DEV_AHEAD=1, layernorm half types W = 65536")
    ab(r, "h-off", "lnh-ah", variant="layernorm.fused")

    section(5, "call 5 (fb36d: dev knob FB_DEV_SMEM_OFF, row_smem's shared part that many bytes further in): us, "
               "min of two runs, and t_off0 / t_off (mean of two); then one small cell in separate processes")
    r = R[5]
    offs = [0, 16, 48, 112, 240, 496]
    res = {}
    for off in offs:
        for c in ("layernorm", "norm_chain", "double_softmax", "lnbf16"):
            for i in (1, 2):
                for k, t in fused(os.path.join(r, f"o{off}-{c}-{i}.json")).items():
                    res.setdefault(k, {}).setdefault(off, []).append(t)
    print("    " + " " * 37 + " ".join(f"{'+%d (%d)' % (o, (0x210 + o) % 128):>15s}" for o in offs))
    for k in sorted(res):
        base = sum(res[k][0]) / 2
        print(f"    {k[0]:15s} {k[1]:9s} {k[2]:5d} x {k[3]} "
              + " ".join(f"{min(res[k][o]):8.1f} {base / (sum(res[k][o]) / 2):.3f}" for o in offs))
    print("  rmsnorm float32 [4, 128, 61], one process a run: median us (p20..p80)")
    for pre, how in [("tw", "events, write"), ("tc", "cupti, write"), ("cl", "events, clean")]:
        for i in range(1, 6):
            p = os.path.join(r, f"{pre}{i}.json")
            if not os.path.exists(p):
                continue
            for _, _, c in cells(p):
                v = c["variants"]
                print(f"    {how:14s} run {i}: sol {us(c['sol']):5.2f}  " + "  ".join(
                    f"{n.split('.')[-1]} {us(x):5.2f} ({x['time_ms']['p20'] * 1e3:.2f}..{x['time_ms']['p80'] * 1e3:.2f})"
                    for n, x in v.items()))

    section(6, "call 6 (fb36e = 9eb3c05's kernels, c3b6960's tools): rmsnorm float32 beside torch.compile, write "
               "flush, both sides --timer cupti, then both sides events")
    for d, how in [("cw", "cupti"), ("ew", "events")]:
        print(f"  {how}: " + summary_line(os.path.join(R[6], d)))

    section(7, "call 7 (fb36f = 356cc85): every rmsnorm mode --timer cupti (kernel durations, us), write flush; "
               "torch.compile's launches at small shapes")
    r = R[7]
    for l in text(r, "tc.txt").splitlines():
        if l.startswith("[4,"):
            print("    " + l)
    t7 = fused(os.path.join(r, "modes.json"), "rmsnorm.fused")
    fb6, pe6 = peer_pair(os.path.join(R[6], "cw"))
    print("  float32 small cells: rmsnorm.fused (call 7) against torch.compile (call 6), both cupti, us")
    for k in sorted(fb6):
        if k[0] * 4 * k[1] * 4 <= (4 << 20):
            f = t7[("rmsnorm", "float32", k[0], k[1])]
            tc = us(pe6[k]["variants"]["torch.compile"])
            print(f"    [4, {k[0]:4d}, {k[1]:5d}]  fused {f:5.2f}  torch.compile {tc:5.2f}  t_tc/t_fused {tc / f:.2f}")

    section(8, "call 8: Nsight Compute (--set full), one launch each, float32")
    r = R[8]
    keys = ["Duration", "Elapsed Cycles", "SM Active Cycles", "Executed Instructions", "Warp Cycles Per Issued Instruction",
            "Registers Per Thread", "Block Size", "Grid Size", "Static Shared Memory Per Block"]
    for shape in ("128x128", "512x130"):
        for who in ("fb", "tc"):
            lines = text(r, f"ncu-{who}-{shape}.txt").splitlines()
            name = next((l for l in lines if "Context" in l), "").strip()[:70]
            if not name:  # rmsnorm.fused ran the row engine there: no kernel matched -k regex:rmsnorm
                print(f"    [4, {shape.replace('x', ', ')}] {who}: no kernel profiled ("
                      + "; ".join(l.strip() for l in lines if l.startswith("==WARNING==")) + ")")
                continue
            got = []
            for k in keys:
                l = next((x for x in lines if x.strip().startswith(k + " ")), None)
                got.append(f"{k.split()[0]} {l.split()[-1]}" if l else f"{k} ?")
            print(f"    [4, {shape.replace('x', ', ')}] {name}\n      " + "; ".join(got))

    section(9, "call 9 (fb36g: fixed G for one-unit rows, row_sum's one sum; FB_DEV_NOFIXG=1 runs G at run time): "
               "t_runtimeG / t_fixedG, cupti, two runs; beside torch.compile (cupti)")
    r = R[9]
    steps(r, ["st", "mc"])
    A = [fused(os.path.join(r, f"old{i}.json"), "rmsnorm.fused") for i in (1, 2)]
    B = [fused(os.path.join(r, f"new{i}.json"), "rmsnorm.fused") for i in (1, 2)]
    by = {}
    for k in sorted(B[0]):
        q = [a[k] / b[k] for a, b in zip(A, B)]
        by.setdefault(k[1], []).append(math.sqrt(q[0] * q[1]))
        if max(abs(x - 1) for x in q) > 0.03:
            print(f"    {k[1]:9s} [4, {k[2]}, {k[3]}]  {A[0][k]:6.2f} -> {B[0][k]:6.2f}  "
                  + " ".join(f"{x:.3f}" for x in q))
    for d, v in by.items():
        print(f"    geomean {d}: {geomean(v):.3f} over {len(v)} shapes")
    print("  " + summary_line(os.path.join(r, "cw")))

    section(10, "call 10 (fb36h: FB_DEV_GCAP32=1, rows of 33..256 units a warp each): t_off / t_on, cupti, two runs")
    r = R[10]
    steps(r, ["st", "st-cap", "mc-cap"])
    ab(r, "off", "on", variant="rmsnorm.fused")

    section(11, "call 11 (fb36i = 8594bc3, built from its tree before the commit: '356cc8556a-dirty'): checks; "
                "rmsnorm under --timer cupti; beside torch.compile (cupti)")
    r = R[11]
    steps(r, ["st", "mc"])
    print("  " + last(r, "grid.txt", "cells in"))
    print("  " + summary_line(os.path.join(r, "cw")))
    P = {}
    for n, d in [(6, R[6]), (9, R[9]), (11, R[11])]:
        _, pe = peer_pair(os.path.join(d, "cw"))
        P[n] = {k: us(c["variants"]["torch.compile"]) for k, c in pe.items()}
    fb11, _ = peer_pair(os.path.join(r, "cw"))
    F = {k: us(c["variants"]["rmsnorm.fused"]) for k, c in fb11.items()}
    for n in (6, 9, 11):
        print(f"    torch.compile of call {n:2d} / rmsnorm.fused of call 11, geomean {geomean([P[n][k] / F[k] for k in F]):.3f}")
    spread = {k: max(P[n][k] for n in P) / min(P[n][k] for n in P) for k in F}
    wide = sorted((k, s) for k, s in spread.items() if s > 1.10)
    print(f"    torch.compile's time moved > 10% across calls 6, 9, 11 on {len(wide)} of {len(F)} cells: "
          + ", ".join(f"[4, {k[0]}, {k[1]}] {s:.2f}x" for k, s in wide))


if __name__ == "__main__":
    main()
