#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 42") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Call 1: the H200's L2 read rate (dev/l2_read_rate_dev.cu); stop 41's peeled-rows patch (CTAs of
fewer threads on small grids, FB_DEV_PEEL_FLOOR = 256 / 64 / 32) on rmsnorm N = 130, 1027; checks;
rmsnorm_backward's cells of 2048 and 8192 rows x 8192-16384, every variant, and its two kernels
under Nsight Compute. Call 2: rmsnorm_backward.pipelined on launch shapes forced by
call2-pipe-knob.patch. Call 3: cuBLASLt's heuristic candidates for the plain GEMM and for the
bias, relu and relu_bias epilogues, and the plain side's candidates under each epilogue
(dev/lt_algo_sweep_dev.cu, budget 0), plus every relu configuration at one cell. Call 4: the
matmul epilogue cells in fusionbench, four runs of one binary. Call 5: the step detector as
committed (0daa5a7): the same cells, and the memory-bound grids of four cases. Calls 6-7: the SM
clock read while each measurement's batches ran (once, then every 2 ms) and NVML's clock-limit
reasons. Call 8: issue 10's matmul grid with all of it. Call 9: the sweep tool's paired mode (the
plain GEMM and an epilogue timed in turn under sustained load). Every fusionbench
check the tables use passed (asserted by tarballs.medians, or counted by print_checks).
"""
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "scripts"))  # epilogue_table.py

from tarballs import cells, medians, print_checks as checks, print_steps as steps, text, unpack  # noqa: E402
from epilogue_table import marked  # noqa: E402


def arms(r, names, variant, prefix):
    """{cell: {arm: [us per round]}} over files PREFIX-ARM-rN.json."""
    res = {}
    for a in names:
        files = sorted(os.path.join(r, f) for f in os.listdir(r) if re.fullmatch(rf"{prefix}-{a}-r\d\.json", f))
        t, s = medians(files)
        for k, vs in t.items():
            if variant in vs:
                res.setdefault(k, {})[a] = vs[variant]
    return res, s


def gemm_cells(path):
    """(case, M, N, variant, median us, step_pct, tile) of a matmul result file, in run order."""
    out = []
    for case, _, c in cells(path):
        for n, v in c["variants"].items():
            if "time_ms" not in v:
                continue
            assert v["check"]["passed"], (path, case, n)
            m = re.search(r"tile (\d+)", v.get("reason", ""))
            out.append((case, c["point"]["M"], c["point"]["N"], n, v["time_ms"]["median"] * 1e3, v.get("step_pct"),
                        m.group(1) if m else "-", v["samples_us"], marked(c)))
    return out


def limits(path):
    """The timed measurements of a result file, and how many NVML said were limited by what
    (sm_clock_mhz.limited_by; '-': no reason)."""
    n, lim = 0, collections.Counter()
    for _, _, c in cells(path):
        for v in c["variants"].values():
            if "time_ms" in v:
                n += 1
                lim[",".join(v.get("sm_clock_mhz", {}).get("limited_by", [])) or "-"] += 1
    return n, dict(lim)


def quarter_step(s):
    q = len(s) // 4
    return statistics.median(s[-q:]) / statistics.median(s[:q]) - 1 if q >= 4 else float("nan")


def main():
    tmp = tempfile.mkdtemp()
    r = unpack(tmp, os.path.join(HERE, "call1-spread-l2rate-rmsb.tar.xz"))
    print("# 1. call 1 (fb42p = 20e129e + next-spread-peeled-rows.patch; l2_read_rate_dev): L2 read rate; peeled rows on small grids; rmsnorm_backward")
    steps(r, ["st"])
    checks(os.path.join(r, "memcheck-rms.json"))
    print("  " + text(r, "memcheck-rms.txt").strip().splitlines()[-1].strip("= "))
    print("  L2 read rate (l2_read_rate_dev 20):")
    for line in text(r, "l2rate.txt").splitlines():
        print("    " + line)
    for variant in ("rmsnorm.row_engine", "rmsnorm.fused"):
        res, _ = arms(r, ["256", "64", "32"], variant, "p")
        print(f"  {variant}, cupti, write flush, two rounds: us (best of the rounds) at CTA floors 256 (as committed) / 64 / 32; t_256 / t_32")
        for k in sorted(res):
            b = {a: min(v) for a, v in res[k].items()}
            print(f"    {k[0]:8s} [4, {k[1]:4d}, {k[2]:4d}]: {b['256']:6.2f} / {b['64']:6.2f} / {b['32']:6.2f}  ({b['256'] / b['32']:.3f})")
    print("  rmsnorm_backward, events, clean flush: us (% of SOL) per variant")
    for case, dt, c in cells(os.path.join(r, "rmsb.json")):
        vs = {n.split(".")[-1]: v for n, v in c["variants"].items() if "time_ms" in v}
        assert all(v["check"]["passed"] for v in vs.values())
        print(f"    {dt:8s} [4, {c['row']:4d}, {c['col']:5d}]: " + "  ".join(
            f"{n} {v['time_ms']['median'] * 1e3:7.2f} ({v['sol_pct']:.1f}%)" for n, v in vs.items() if n != "eager"))
    print("  Nsight Compute, rmsnorm_backward.fused (base clock, caches flushed): kernel, grid x block, cluster, duration, DRAM throughput")
    for f in sorted(x for x in os.listdir(r) if x.startswith("ncu-rmsb") and x.endswith(".txt")):
        kern = None
        for line in text(r, f).splitlines():
            m = re.match(r"\s+void <unnamed>::(\w+)<([^>]*)>.*\((\d+), 1, 1\)x\((\d+), 1, 1\)", line)
            if m:
                kern = f"{m.group(1)}<{m.group(2)}> {m.group(3)} x {m.group(4)}"
                vals = {}
            elif kern:
                for key in ("Cluster Size", "Duration", "DRAM Throughput", "Max Active Clusters"):
                    if line.strip().startswith(key):
                        vals[key] = line.split()[-1]
                if len(vals) == 4:
                    print(f"    {f[9:-4]:15s} {kern}: cluster {vals['Cluster Size']} (max active {vals['Max Active Clusters']}), "
                          f"{vals['Duration']} us, DRAM {vals['DRAM Throughput']}%")
                    kern = None

    r = unpack(tmp, os.path.join(HERE, "call2-rmsb-pipe-shapes.tar.xz"))
    print("\n# 2. call 2 (fb42k = 20e129e + call2-pipe-knob.patch): rmsnorm_backward.pipelined on forced launch shapes, events, clean flush, two rounds")
    names = ["base", "c2", "c4", "c8", "t512", "s6"]
    res, s = arms(r, names, "rmsnorm_backward.pipelined", "k")
    print("  % of SOL (best of the rounds); base = as committed; cN = clusters of at least N CTAs; t512 = at most 512 threads; s6 = up to 6 stages")
    print("    " + " " * 26 + "".join(f"{a:>8s}" for a in names))
    for k in sorted(res):
        print(f"    {k[0]:8s} [4, {k[1]:4d}, {k[2]:5d}]: " + "".join(
            f"{100 * s[k] / min(res[k][a]):7.1f}%" if a in res[k] else "       -" for a in names))
    print("  (t512m100 and t256m50, two CTAs an SM, were refused on every cell: the knob applied the smem budget before the thread cap)")

    r = unpack(tmp, os.path.join(HERE, "call3-lt-epilogue-heuristics.tar.xz"))
    print("\n# 3. call 3 (dev/lt_algo_sweep_dev.cu at 0daa5a7's source): cuBLASLt epilogues against the plain GEMM, bfloat16, cold L2, 7 samples a configuration")
    print("  budget 0: each side's 8 heuristic candidates; best epilogue / best plain, and the plain side's candidates under the epilogue")
    for f in sorted(x for x in os.listdir(r) if x.startswith("h-") and x.endswith(".txt")):
        t = text(r, f)
        res_l = [l for l in t.splitlines() if l.startswith("RESULT")][0].split()
        cross = [l for l in t.splitlines() if l.startswith("CROSS")][0]
        xr = re.search(r"\(([0-9.]+) of", cross).group(1)
        print(f"    {res_l[1]:>5s} x {res_l[2]:>5s} x {res_l[3]:>4s} {res_l[7]:9s}: plain {float(res_l[6]) * 1e3:6.1f} us, "
              f"{res_l[7]} {float(res_l[8]) * 1e3:6.1f} us: {res_l[10]}; plain's best under it {xr}")
    t = text(r, "sweep-8192x8192x1024-relu.txt")
    print("  every relu configuration, 8192 x 8192 x 1024 (25 s a side):")
    for l in t.splitlines():
        if l.startswith("timed") or l.startswith("best of") or l.startswith("RESULT") or l.startswith("CROSS"):
            print("    " + l)

    for call, tar, what in ((4, "call4-epilogue-cells.tar.xz", "fb42h = 20e129e"), (5, "call5-step-detector.tar.xz", "fb42s = 0daa5a7")):
        r = unpack(tmp, os.path.join(HERE, tar))
        print(f"\n# {call}. call {call} ({what}): the matmul epilogue cells, bfloat16, K = 1024; runs in the cases' two orders")
        if call == 5:
            steps(r, ["st"])
        runs = [f for f in ("ev-r1", "ev-r2", "cu-r1", "cu-r2") if os.path.exists(os.path.join(r, f + ".json"))]
        plain = {}
        for f in runs:
            for case, M, N, n, t, st, tile, smp, mk in gemm_cells(os.path.join(r, f + ".json")):
                if n == "matmul.tuned":
                    st = st if st is not None else 100 * quarter_step(smp)  # call 4's binary wrote no step_pct
                    plain.setdefault((M, N), []).append(f"{f} {t:6.1f} ({st:+.1f}%, tile {tile})")
        print("  matmul.tuned, the same binary's runs: us (step: last quarter / first quarter of the samples - 1; tile)")
        for k in sorted(plain):
            print(f"    {k[0]:5d} x {k[1]:5d}: " + "; ".join(plain[k]))
        print("  fused / matmul.tuned per run (marked: the cell's clocks fell > 10% or a variant stepped > 5%)")
        for f in runs:
            rows = gemm_cells(os.path.join(r, f + ".json"))
            p = {(M, N): t for case, M, N, n, t, *_ in rows if n == "matmul.tuned"}
            pm = {(M, N): mk for case, M, N, n, t, st, tile, smp, mk in rows if n == "matmul.tuned"}
            out = []
            for case, M, N, n, t, st, tile, smp, mk in rows:
                if n.endswith(".fused"):
                    flag = "!" if mk or pm[(M, N)] else ""
                    out.append(f"{case[7:]} {M}x{N} {t / p[(M, N)]:.3f}{flag}")
            print(f"    {f}: " + ", ".join(out))
    d = json.load(open(os.path.join(r, "mem.json")))
    n, big = 0, []
    for c in d["cases"]:
        for dt in c["dtypes"]:
            for cell in dt["cells"]:
                for k, v in cell["variants"].items():
                    if "step_pct" in v:
                        n += 1
                        if abs(v["step_pct"]) > 5:
                            big.append(f"{c['name']} {dt['dtype']} {cell['point']} {k} {v['step_pct']:+.1f}% ({v['time_ms']['median'] * 1e3:.2f} us)")
    checks(os.path.join(r, "mem.json"))
    print(f"  memory-bound grids (softmax, layernorm, rmsnorm, rmsnorm_backward; float32, default grids): {n} measurements with step_pct, {len(big)} past 5%:")
    for b in big:
        print("    " + b)

    for call, tar, what in ((6, "call6-clock-probe.tar.xz", "fb42c = 6ecd37e: the clock probe, one reading a batch"),
                            (7, "call7-clock-reasons.tar.xz", "fb42r = 065b5db: the probe every 2 ms and NVML clock-limit reasons")):
        r = unpack(tmp, os.path.join(HERE, tar))
        print(f"\n# {call}. call {call} ({what}): the matmul epilogue cells (events twice, cupti, graph), softmax and layernorm")
        steps(r, [])
        for f in ("ev-r1", "ev-r2", "cu-r1", "gr-r1"):
            print(f"  {f}: case M N variant: median us, step, SM clock read during the batches (min..max, readings), limited by")
            for case, _, c in cells(os.path.join(r, f + ".json")):
                for n, v in c["variants"].items():
                    if "time_ms" not in v:
                        continue
                    assert v["check"]["passed"]
                    ck = v.get("sm_clock_mhz", {})
                    print(f"    {case:16s} {c['point']['M']:5d} {c['point']['N']:5d} {n:22s} {v['time_ms']['median'] * 1e3:7.1f} us"
                          f" {v.get('step_pct', float('nan')):+5.1f}%  {ck.get('min', 0):4.0f}..{ck.get('max', 0):4.0f} MHz"
                          f" n {ck.get('n', 0):2d}  {','.join(ck.get('limited_by', [])) or '-'}")
        n, lim = limits(os.path.join(r, "mem.json"))
        print(f"  softmax, layernorm (float32, default grids): {n} measurements, limited by: {lim}")
        checks(os.path.join(r, "mem.json"))

    r = unpack(tmp, os.path.join(HERE, "call8-matmul-grid.tar.xz"))
    print("\n# 8. call 8 (fb42n = 9c9f71b: the end-of-run note): issue 10's matmul grid, bfloat16, default grids (events, clean flush)")
    steps(r, [])
    for line in text(r, "mm.txt").splitlines():
        if "note:" in line or "cells throttled" in line:
            print("  " + line.strip())
    checks(os.path.join(r, "mm-bf16.json"))
    n, lim = limits(os.path.join(r, "mm-bf16.json"))
    print(f"  {n} measurements, limited by: {lim}")
    print("  scripts/epilogue_table.py (the last three columns: the pairs neither of whose cells is marked):")
    out = subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "..", "scripts", "epilogue_table.py"),
                          os.path.join(r, "mm-bf16.json")], capture_output=True, text=True, check=True).stdout
    print("    " + out.rstrip().replace("\n", "\n    "))

    r = unpack(tmp, os.path.join(HERE, "call9-lt-paired.tar.xz"))
    print("\n# 9. call 9 (dev/lt_algo_sweep_dev.cu with its paired mode): each side's best heuristic candidate, then the two timed in turn,"
          " 256 pairs under sustained load (a cold-L2 sweep before each GEMM)")
    print("    M x N x K            second side: bursts (RESULT)  | paired: plain ms, second ms, median ratio (first quarter, last); plain's first / last quarter ms")
    for f in sorted(x for x in os.listdir(r) if x.startswith("p-") and x.endswith(".txt")):
        t = text(r, f)
        res_l = [l for l in t.splitlines() if l.startswith("RESULT")][0].split()
        m = re.search(r"plain ([0-9.]+) ms, .* ([0-9.]+) ms, median of the pairs' .*/plain ([0-9.]+) \(first quarter ([0-9.]+), "
                      r"last ([0-9.]+); plain's first and last quarter ([0-9.]+), ([0-9.]+) ms\)",
                      [l for l in t.splitlines() if l.startswith("PAIRED")][0])
        print(f"    {res_l[1]:>5s} x {res_l[2]:>5s} x {res_l[3]:>4s} {res_l[7]:9s}: {res_l[10]}  | {m.group(1)}, {m.group(2)}: "
              f"{m.group(3)} ({m.group(4)}, {m.group(5)}); {m.group(6)} / {m.group(7)}")


if __name__ == "__main__":
    main()
