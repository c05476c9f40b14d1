#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 48") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Call 1: rmsnorm_backward's pipelined kernel summing dw itself behind a grid barrier (3875b46, now
dev/rmsbwd_own_dw.patch) against the dw kernel (the knob FB_DEV_RMSBWD_DW_KERNEL=1 in the same
binary), two alternating rounds; matmul_add.fused with N = 8, 1, 2 cuDNN engine configs a graph
(dev/mm_cudnn_candidates_knob.patch).
Call 2: what the dw kernel costs (FB_DEV_RMSBWD_SKIP_DW: the row kernel alone; its dw check fails
by design), both kernels under Nsight Compute; matmul_add's K = 1024 bfloat16 grid on one cuDNN
config a graph; the own GEMM's SM clock per CTA (the trace build's CLOCK lines).
Call 3: the wide dw kernel (7282402) against the one before (alternating rounds, and the row
kernel alone); Nsight Compute's SM frequency for cuBLASLt's eight candidates and the own GEMM.
Call 4: the own dw sum with batched loads (890a38d), cooperative and not, against the dw kernel.
Call 5: the tree at 2b2a6e5: rmsnorm_backward checked and its cells of 4TN >= 16M, two rounds.
Call 6: rmsnorm_backward.prefetch (21095be) against .fused (the pipelined kernel), two rounds.
Call 7: ab64560 (.fused takes the prefetched kernel where call 6's prefetch_wins said).
Call 8: 12271ec (the prefetched kernel's thread count a compile-time constant) with and without its
WSM form (dev knob), two rounds; racecheck of the WSM form (its hazards: a real missing commit).
Call 9: the final tree's kernels (89a556d: .fused on the prefetched kernel for every float32/float64
row of 2049..4096 units).
Call 10: the pipelined kernel's compile-time 1024-thread instance (bf73ba9, reverted) against the
run-time one (dev knob FB_DEV_PIPE_GC0), two rounds.
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
    ("call2-rmsbwd-dw-cost-ncu-mm-grid-gemm-clock.tar.xz",
     "2. fb48s = ad3408b + dev/rmsbwd_skip_dw_knob.patch: matmul_add checked and its K = 1024 bfloat16"
     " grid; the dw kernel's cost; both kernels under ncu; the own GEMM's clock (gemm_add_dev of ad3408b)",
     ["selftest"]),
    ("call3-rmsbwd-dw-kernel-wide-gemm-ncu-clock.tar.xz",
     "3. fb48d = 7282402 + dev/rmsbwd_skip_dw_knob.patch (the wide dw kernel) against fb48s (the one"
     " before); Nsight Compute's SM frequency, cuBLASLt's candidates and the own GEMM",
     ["st-rbwd", "memcheck"]),
    ("call4-rmsbwd-own-dw-batched.tar.xz",
     "4. fb48o = 890a38d + its knobs: the own dw sum with batched loads, cooperative (own) and not"
     " (nocoop), against the dw kernel of 7282402 (kernel)",
     ["st-rbwd", "memcheck", "racecheck"]),
    ("call5-final-rmsbwd.tar.xz", "5. fb48f = 2b2a6e5: rmsnorm_backward's >= 16M cells, two rounds",
     ["st-rbwd"]),
    ("call6-rmsbwd-prefetch.tar.xz", "6. fb48p = 21095be: rmsnorm_backward.prefetch against .fused, two rounds",
     ["st-rbwd", "memcheck", "racecheck"]),
    ("call7-final-rmsbwd-prefetch-rule.tar.xz",
     "7. fb48q = ab64560 (the final tree's kernels): rmsnorm_backward's >= 16M cells and N = 12288, two rounds;"
     " the half types' prefetch at two units a thread beside .fused, one round",
     ["st-rbwd", "memcheck"]),
    ("call8-rmsbwd-prefetch-wsm.tar.xz",
     "8. fb48w = 12271ec + its WSM knob: .fused and .prefetch, base form (rb-base) and WSM form (rb-wsm)",
     ["st-wsm", "memcheck-wsm"]),
    ("call9-final-rmsbwd.tar.xz",
     "9. fb48z = 89a556d (the final tree's kernels): rmsnorm_backward's >= 16M cells and N = 12288, two rounds",
     ["st-rbwd", "memcheck", "racecheck"]),
    ("call10-rmsbwd-pipe-gc.tar.xz",
     "10. fb48g = bf73ba9 + dev/rmsbwd_pipe_gc0_knob.patch: the pipelined kernel's widths as constants (rb-gc)"
     " or read at run time (rb-gc0), two rounds",
     ["st-rbwd"]),
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


def fused_times_any(path, variant="rmsnorm_backward.fused"):
    """As fused_times, the checks not asserted (a knob that leaves dw wrong by design)."""
    out = {}
    for _, d, c in cells(path):
        v = c["variants"][variant]
        out[(d, c["row"], c["col"])] = (v["time_ms"]["median"] * 1e3, v["sol_pct"], v["check"]["passed"])
    return out


def forms_table(r, forms, base, checked):
    """Forms timed in rounds 1 and 2 (files {form}-{1,2}.json): % of SOL each round, t_base /
    t_form from each side's geometric mean; `checked`: forms whose checks must all pass."""
    t = {}
    for f in forms:
        t[f] = [fused_times(os.path.join(r, f"{f}-{i}.json"), "rmsnorm_backward.fused") if f in checked else
                fused_times_any(os.path.join(r, f"{f}-{i}.json")) for i in (1, 2)]
    print("  rmsnorm_backward.fused, events, clean flush, % of SOL in rounds 1 and 2; "
          f"t_{base} / t_form (geometric mean of the rounds); * marks 4TN >= 16M")
    ratios = {f: [] for f in forms if f != base}
    for k in sorted(t[base][0]):
        d, T, N = k
        g = {f: math.sqrt(t[f][0][k][0] * t[f][1][k][0]) for f in forms}
        big = "*" if 4 * T * N >= 16 * 2**20 else " "
        cols = "  ".join(f"{f} {t[f][0][k][1]:5.1f} {t[f][1][k][1]:5.1f}" for f in forms)
        rat = "  ".join(f"{g[base] / g[f]:.3f}" for f in forms if f != base)
        for f in ratios:
            ratios[f].append(g[base] / g[f])
        print(f"  {d:<9} {T:5d} {N:6d} {big} | {cols} | {rat}")
    for f, xs in ratios.items():
        print(f"  geomean t_{base} / t_{f}: {geomean(xs):.3f} over {len(xs)} cells ({min(xs):.3f}-{max(xs):.3f})")


def dw_cost(r, with_dw, without, label):
    """us the dw kernel adds: the geometric means of two rounds with it and without it."""
    a = [fused_times(os.path.join(r, f"{with_dw}-{i}.json"), "rmsnorm_backward.fused") for i in (1, 2)]
    b = [fused_times_any(os.path.join(r, f"{without}-{i}.json")) for i in (1, 2)]
    print(f"  {label}: us the dw kernel adds (t with - t without, geometric means of two rounds)")
    for k in sorted(a[0]):
        ga = math.sqrt(a[0][k][0] * a[1][k][0])
        gb = math.sqrt(b[0][k][0] * b[1][k][0])
        print(f"    {k[0]:<9} {k[1]:5d} x {k[2]:<6} {ga - gb:5.2f} us ({ga:.1f} against {gb:.1f}; % of SOL "
              f"{a[0][k][1]:.1f}/{a[1][k][1]:.1f} against {b[0][k][1]:.1f}/{b[1][k][1]:.1f})")


NCU_KERNEL = re.compile(r"^\s+(\S.*?) \(\d+, \d+, \d+\)x\(\d+, 1, 1\), Context", re.M)


def ncu_kernels(r, prefix):
    """Per kernel name in ncu-{prefix}*.txt: the median of its launches' duration, SM frequency and
    elapsed cycles (free clocks, caches flushed before each)."""
    for name in sorted(os.listdir(r)):
        if not (name.startswith("ncu-" + prefix) and name.endswith(".txt")):
            continue
        t = open(os.path.join(r, name)).read()
        rows = {}
        for block in re.split(r"\n(?=  \S)", t):
            k = NCU_KERNEL.search(block)
            if not k:
                continue
            kn = re.sub(r"\(.*", "", k.group(1)).replace("void ", "")
            vals = {}
            for m, key in (("gpu__time_duration.sum", "t"), ("sm__cycles_elapsed.avg.per_second", "f"),
                           ("sm__cycles_elapsed.max", "c"), ("dram__bytes_read.sum", "rd")):
                mm = re.search(re.escape(m) + r"\s+(\S+)\s+([\d.,]+)", block)
                if mm:
                    v = float(mm.group(2).replace(",", ""))
                    if key == "t" and mm.group(1) == "ms":
                        v *= 1e3
                    vals[key] = v
            rows.setdefault(kn, []).append(vals)
        print(f"  [{name[:-4]}] median over launches: kernel, duration us, SM GHz, max cycles")
        for kn, vs in rows.items():
            med = lambda key: sorted(v[key] for v in vs if key in v)[len(vs) // 2] if any(key in v for v in vs) else float("nan")
            print(f"    {kn[:64]:<64} n={len(vs)}  {med('t'):8.2f} us  {med('f'):.2f} GHz  {med('c'):10,.0f} cycles")


def gemm_lines(r):
    for name in sorted(os.listdir(r)):
        if name.startswith(("clock", "g-")) and name.endswith(".txt"):
            for l in open(os.path.join(r, name)).read().splitlines():
                if l.startswith("CHECK"):
                    assert "passed" in l, (name, l)
                elif l.startswith(("TIME", "TRACE", "CLOCK")):
                    print(f"  [{name[:-4]}] {l}")


def mm_grid(r):
    p = os.path.join(r, "mm-k1024.json")
    if not os.path.exists(p):
        return
    pr = pair_ratios(p)
    wall = [c["variants"]["matmul_add.fused"]["wall_ms"]["prepare"] / 1e3 for _, _, c in cells(p)]
    rs = [v["matmul_add.fused"][0] for v in pr.values()]
    print(f"  matmul_add bfloat16 K = 1024, default grid: {len(rs)} cells; matmul_add.fused / matmul.tuned geomean "
          f"{geomean(rs):.3f}, {sum(x <= 1.03 for x in rs)} within 3%; prepare {min(wall):.2f}-{max(wall):.2f} s a "
          f"cell, {sum(wall):.1f} s in all; " + [l for l in open(os.path.join(r, "mm-k1024.txt")).read().splitlines()
                                                if "cells in" in l][0].strip())


def final_sol(r):
    """% of SOL in two rounds on the cells of 4TN >= 16M; those under issue 9's 80% in both marked."""
    t = [fused_times(os.path.join(r, f"rb-final-{i}.json"), "rmsnorm_backward.fused") for i in (1, 2)]
    print("  rmsnorm_backward.fused % of SOL, rounds 1 and 2, cells of 4TN >= 16M (issue 9: >= 80%;"
          " N = 12288 is not in the case's grid)")
    for k in sorted(t[0]):
        d, T, N = k
        if 4 * T * N < 16 * 2**20:
            continue
        a, b = t[0][k][1], t[1][k][1]
        print(f"    {d:<9} [4, {T}, {N}] {a:5.1f} {b:5.1f}{'   under 80' if max(a, b) < 80 else ''}")


def prefetch_table(r):
    """.fused (the pipelined kernel there) and .prefetch timed in one run, twice (the variants'
    order reversed the second time): % of SOL each round, t_fused / t_prefetch."""
    t = []
    for i in (1, 2):
        out = {}
        for _, d, c in cells(os.path.join(r, f"rb-{i}.json")):
            for n in ("rmsnorm_backward.fused", "rmsnorm_backward.prefetch"):
                v = c["variants"].get(n, {})
                if "time_ms" not in v:
                    continue
                assert v["check"]["passed"], (d, c["row"], c["col"], n)
                out[(d, c["row"], c["col"], n)] = (v["time_ms"]["median"] * 1e3, v["sol_pct"])
        t.append(out)
    print("  % of SOL rounds 1 and 2: fused | prefetch | t_fused / t_prefetch (geometric means of the rounds)")
    for k in sorted({k[:3] for k in t[0]}):
        f = [x.get(k + ("rmsnorm_backward.fused",)) for x in t]
        q = [x.get(k + ("rmsnorm_backward.prefetch",)) for x in t]
        if None in q:
            print(f"    {k[0]:<9} [4, {k[1]}, {k[2]}] fused {f[0][1]:.1f} {f[1][1]:.1f} | prefetch declines (> 4096 units)")
            continue
        gf = math.sqrt(f[0][0] * f[1][0])
        gq = math.sqrt(q[0][0] * q[1][0])
        print(f"    {k[0]:<9} [4, {k[1]}, {k[2]}] fused {f[0][1]:.1f} {f[1][1]:.1f} | prefetch {q[0][1]:.1f} {q[1][1]:.1f}"
              f" | {gf / gq:.3f}")


def half_prefetch(r):
    """One run of .fused and .prefetch on the half types (prefetch at two units a thread)."""
    print("  half types, one round: % of SOL fused | prefetch")
    for _, d, c in cells(os.path.join(r, "rb-half.json")):
        f, q = c["variants"]["rmsnorm_backward.fused"], c["variants"]["rmsnorm_backward.prefetch"]
        assert f["check"]["passed"] and q["check"]["passed"]
        print(f"    {d:<9} [4, {c['row']}, {c['col']}] {f['sol_pct']:.1f} | {q['sol_pct']:.1f}")


def wsm_table(r):
    """.fused and .prefetch, base and WSM forms, two rounds each: % of SOL."""
    def load(name):
        out = {}
        for _, d, c in cells(os.path.join(r, name)):
            for n in ("rmsnorm_backward.fused", "rmsnorm_backward.prefetch"):
                v = c["variants"].get(n, {})
                if "time_ms" in v:
                    assert v["check"]["passed"], (name, d, n)
                    out[(d, c["row"], c["col"], n)] = v["sol_pct"]
        return out
    b = [load(f"rb-base-{i}.json") for i in (1, 2)]
    w = [load(f"rb-wsm-{i}.json") for i in (1, 2)]
    print("  % of SOL, rounds 1 and 2: base form | WSM form (.fused is the pipelined kernel except where"
          " 90698ba's prefetch_wins picked the prefetched one: float32 N = 12288, float64 N = 8192)")
    for k in sorted({k[:3] for k in b[0]}):
        parts = []
        for n in ("rmsnorm_backward.fused", "rmsnorm_backward.prefetch"):
            kk = k + (n,)
            if kk in b[0]:
                parts.append(f"{n.split('.')[1]} {b[0][kk]:.1f} {b[1][kk]:.1f} | {w[0][kk]:.1f} {w[1][kk]:.1f}")
            else:
                parts.append(f"{n.split('.')[1]} declines")
        print(f"    {k[0]:<8} [4, {k[1]}, {k[2]}]  " + ";  ".join(parts))


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
            if not os.path.exists(os.path.join(HERE, tar)):
                continue
            print(f"== {title} ({tar})")
            r = unpack(tmp, os.path.join(HERE, tar))
            steps(r, [n for n in names if os.path.exists(os.path.join(r, n + ".txt"))])
            for f in ("memcheck.json", "racecheck.json"):
                if os.path.exists(os.path.join(r, f)):
                    print_checks(os.path.join(r, f))
            if tar.startswith("call1-"):
                ab_table(r, "rb-old", "rb-new", "dw kernel", "own dw")
            if tar.startswith("call2-"):
                dw_cost(r, "rb-dw", "rb-nodw", "the dw kernel of ad3408b")
                ncu_kernels(r, "float")
                ncu_kernels(r, "bfloat")
                mm_grid(r)
                gemm_lines(r)
            if tar.startswith("call3-"):
                forms_table(r, ["rb-old", "rb-new", "rb-nodw"], "rb-old", {"rb-old", "rb-new"})
                ncu_kernels(r, "clock")
            if tar.startswith("call4-"):
                forms_table(r, ["rb-kernel", "rb-own", "rb-nocoop"], "rb-kernel", {"rb-kernel", "rb-own", "rb-nocoop"})
            if tar.startswith("call8-"):
                print("  racecheck-wsm: " + [l for l in open(os.path.join(r, "racecheck-wsm.txt")).read().splitlines()
                                             if "RACECHECK SUMMARY" in l][0].strip("= ")
                      + " (cp.async writes against widen's reads of w in shared memory: the w copies were never"
                      " committed before cp.async.wait_group 0)")
                wsm_table(r)
            if tar.startswith("call10-"):
                forms_table(r, ["rb-gc0", "rb-gc"], "rb-gc0", {"rb-gc0", "rb-gc"})
            if tar.startswith(("call5-", "call7-", "call9-")):
                final_sol(r)
            if tar.startswith("call6-"):
                prefetch_table(r)
            if tar.startswith("call7-"):
                half_prefetch(r)
            candidates(r)
            print()


if __name__ == "__main__":
    main()
