#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 49") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Call 1: rmsnorm_backward.prefetch over a cluster of two CTAs (cf819eb) on float64 rows of 8192 units,
against .fused (then the pipelined kernel's cluster of four) and .pipelined; float32 rows of 2049..4096
units as a regression check of the one-CTA form; the half types' rows of 1024..2048 units on it.
Call 2: the dw kernel reading partial rows on ready flags (f425c5b, reverted) against the same binary
waiting on the grid (dev knob); float32 rows of 4097..8192 units on .fused (the cluster of two) and
.pipelined.
Call 3: call 1's binary (cf819eb) against call 2's (its grid-wait mode, and its flags) on one machine.
Call 4: the final tree's kernels (63d1c04): checks, the backward's cells in two rounds, every variant on
the half types' cells, issue 9's full seed table.
Call 5: the pipelined kernel's shape forced on the half types' cells (dev/rmsbwd_pipe_shape_knob.patch).
Call 6: the final tree (408029c: the dw kernel on common.cuh's pack<A, V>): checks and the backward's
cells in two rounds.
Calls 7-8: the row engine's cluster reductions pushed into ClusterSlots (f) against a cluster barrier a
reduction (e), alternating binaries on one machine (call 8 on call 7's warm machine, more cells).
Call 9: 76e3675 + dev/wide_row_clusters_knob.patch: checks in float16, racecheck; the wide-row clusters
forced (f) against the default plans (e) at W = 65536.
"""
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py
from tarballs import cells, geomean, print_checks, print_steps as steps, unpack  # noqa: E402

CALLS = [
    ("call1-rmsbwd-prefetch-cluster.tar.xz",
     "1. fb49a = cf819eb: rmsnorm_backward.prefetch over a cluster of two (PairExchange) against .fused and"
     " .pipelined, two rounds", ["memcheck", "racecheck"]),
    ("call2-rmsbwd-dw-flags.tar.xz",
     "2. fb49b = f425c5b + the grid-wait knob: the dw kernel on ready flags (flags) or on the grid's end"
     " (grid), alternating rounds; float32 rows of 4097..8192 units", ["st-rbwd", "memcheck", "racecheck"]),
    ("call3-flags-binary-ab.tar.xz",
     "3. fb49a (a) against fb49b in its grid-wait mode (b) and its flags, one machine, alternating rounds", []),
    ("call4-final-rmsbwd-table.tar.xz",
     "4. fb49c = 63d1c04 (the final tree's kernels): checks, the backward's cells (two rounds), every"
     " variant on the half types, issue 9's seed table (its racecheck step ran out of time after 2 of 4"
     " cells: racecheck.json holds those two)", ["st-rbwd", "memcheck"]),
    ("call5-pipe-shape-knobs.tar.xz",
     "5. fb49d = 63d1c04 + dev/rmsbwd_pipe_shape_knob.patch: the pipelined kernel's shape forced on the half"
     " types", ["racecheck"]),
    ("call6-final-pack.tar.xz",
     "6. fb49e = 875fc0d (the final tree: 408029c's dw kernel on pack<A, V>): checks, the backward's cells,"
     " two rounds", ["st-rbwd", "memcheck"]),
    ("call7-engine-cluster-slots.tar.xz",
     "7. fb49e = 875fc0d (e: a cluster barrier a reduction) against fb49f = 9a5bb9a + the ClusterSlots change"
     " (f, landed as 76e3675): selftest of the engine's cases (float32, bfloat16), memcheck", ["st-engine", "memcheck"]),
    ("call8-engine-cluster-slots-more.tar.xz",
     "8. the same two binaries, more cells, two alternating rounds each", []),
    ("call9-wide-clusters-knob.tar.xz",
     "9. fb49g = 76e3675 + dev/wide_row_clusters_knob.patch: selftest in float16, racecheck; the default plans"
     " (e) against wide-row clusters forced from 128 rows for every op (f)", ["st-f16", "racecheck"]),
]


def times(path, variants=None):
    """{(dtype, T, N, variant): (median us, min us, max us, % of SOL)}, every check asserted."""
    out = {}
    for _, d, c in cells(path):
        for n, v in c["variants"].items():
            if "time_ms" not in v or (variants and n not in variants):
                continue
            assert v["check"]["passed"], (path, d, c["row"], c["col"], n)
            t = v["time_ms"]
            out[(d, c["row"], c["col"], n)] = (t["median"] * 1e3, t["min"] * 1e3, t["max"] * 1e3, v.get("sol_pct") or 0)
    return out


def rounds_table(r, prefix, variants):
    """Each variant's % of SOL in rounds 1 and 2 (median us of round 1)."""
    t = [times(os.path.join(r, f"{prefix}-{i}.json"), variants) for i in (1, 2)]
    print(f"  [{prefix}] % of SOL rounds 1, 2 (median us, round 1); * marks 4TN >= 16M")
    for k in sorted({k[:3] for k in t[0]}):
        d, T, N = k
        big = "*" if 4 * T * N >= 16 * 2**20 else " "
        parts = []
        for n in variants:
            if k + (n,) in t[0]:
                a, b = t[0][k + (n,)], t[1][k + (n,)]
                parts.append(f"{n.split('.')[-1]} {a[3]:5.1f} {b[3]:5.1f} ({a[0]:7.1f})")
        print(f"    {d:<9} [4, {T:4d}, {N:5d}] {big} " + " | ".join(parts))


def ab(r, a, b, variant="rmsnorm_backward.fused", label=None):
    """t_b / t_a from each side's geometric mean of two rounds, per cell and in geomean."""
    ta = [times(os.path.join(r, f"{a}-{i}.json"), [variant]) for i in (1, 2)]
    tb = [times(os.path.join(r, f"{b}-{i}.json"), [variant]) for i in (1, 2)]
    print(f"  {label or ''}{variant}: % of SOL rounds 1, 2 and samples' min-max (us) of round 1, {a} | {b};"
          f" t_{b} / t_{a} (geometric means of the rounds)")
    rs, byd = [], {}
    for k in sorted(ta[0]):
        ga = math.sqrt(ta[0][k][0] * ta[1][k][0])
        gb = math.sqrt(tb[0][k][0] * tb[1][k][0])
        rs.append(gb / ga)
        byd.setdefault(k[0], []).append(gb / ga)
        big = "*" if 4 * k[1] * k[2] >= 16 * 2**20 else " "
        print(f"    {k[0]:<9} [4, {k[1]:4d}, {k[2]:5d}] {big} {ta[0][k][3]:5.1f} {ta[1][k][3]:5.1f} "
              f"({ta[0][k][1]:.0f}-{ta[0][k][2]:.0f}) | {tb[0][k][3]:5.1f} {tb[1][k][3]:5.1f} "
              f"({tb[0][k][1]:.0f}-{tb[0][k][2]:.0f}) | {gb / ga:.3f} ({gb - ga:+.2f} us)")
    print(f"    geomean t_{b} / t_{a} over {len(rs)} cells: {geomean(rs):.3f} ({min(rs):.3f}-{max(rs):.3f}); "
          + ", ".join(f"{d} {geomean(x):.3f}" for d, x in sorted(byd.items())))


def one_round(r, name, variants):
    t = times(os.path.join(r, name), variants)
    print(f"  [{name[:-5]}] one round: % of SOL (median us)")
    for k in sorted({k[:3] for k in t}):
        print(f"    {k[0]:<9} [4, {k[1]:4d}, {k[2]:5d}] " + " | ".join(
            f"{n.split('.')[-1]} {t[k + (n,)][3]:5.1f} ({t[k + (n,)][0]:.1f})" for n in variants if k + (n,) in t))


def ef_table(r, a, b, label_a, label_b):
    """Two binaries or modes in alternating rounds, files {a}-{1,2}.json and {b}-{1,2}.json: each
    variant's % of SOL per round (eager left out), t_a / t_b from the geometric means of the rounds."""
    t = {}
    for side, pre in (("a", a), ("b", b)):
        for i in (1, 2):
            p = os.path.join(r, f"{pre}-{i}.json")
            if os.path.exists(p):
                for (_, row, col, n), v in times(p).items():
                    if n != "eager":
                        t.setdefault((n, row, col), {}).setdefault(side, []).append(v)
    print(f"  [{a} | {b}] % of SOL rounds 1, 2: {label_a} | {label_b}; t_{label_a} / t_{label_b} (geometric means)")
    rs = []
    for k in sorted(t):
        ea, eb = t[k]["a"], t[k]["b"]
        ga = math.exp(sum(math.log(x[0]) for x in ea) / len(ea))
        gb = math.exp(sum(math.log(x[0]) for x in eb) / len(eb))
        rs.append(ga / gb)
        print(f"    {k[0]:<26} {k[1]:6d} x {k[2]:6d} | {' '.join(f'{x[3]:5.1f}' for x in ea)} ({ga:8.1f} us) | "
              f"{' '.join(f'{x[3]:5.1f}' for x in eb)} ({gb:8.1f} us) | {ga / gb:.3f}")
    print(f"    geomean {geomean(rs):.3f} over {len(rs)} cells ({min(rs):.3f}-{max(rs):.3f})")


def final_sol(r):
    t = [times(os.path.join(r, f"rb-final-{i}.json"), ["rmsnorm_backward.fused"]) for i in (1, 2)]
    print("  rmsnorm_backward.fused % of SOL, rounds 1 and 2, the cells of 4TN >= 16M (issue 9: >= 80%)")
    for k in sorted(t[0]):
        d, T, N, _ = k
        if 4 * T * N < 16 * 2**20:
            continue
        a, b = t[0][k][3], t[1][k][3]
        print(f"    {d:<9} [4, {T}, {N}] {a:5.1f} {b:5.1f}{'   under 80' if min(a, b) < 80 else ''}")


def main():
    F = ["rmsnorm_backward.fused"]
    FP = ["rmsnorm_backward.fused", "rmsnorm_backward.prefetch"]
    with tempfile.TemporaryDirectory() as tmp:
        for tar, title, names in CALLS:
            if not os.path.exists(os.path.join(HERE, tar)):
                continue
            print(f"== {title} ({tar})")
            r = unpack(tmp, os.path.join(HERE, tar))
            steps(r, [n for n in names if os.path.exists(os.path.join(r, n + ".txt"))])
            for f in ("check-c2.json", "memcheck.json", "racecheck.json", "st-g1.json"):
                if os.path.exists(os.path.join(r, f)):
                    print_checks(os.path.join(r, f))
            if tar.startswith("call1-"):
                rounds_table(r, "f64", FP + ["rmsnorm_backward.pipelined"])
                rounds_table(r, "reg", FP)
                rounds_table(r, "half", FP)
            if tar.startswith("call2-"):
                ab(r, "flags", "grid")
                rounds_table(r, "f32c2", ["rmsnorm_backward.fused", "rmsnorm_backward.pipelined"])
            if tar.startswith("call3-"):
                ab(r, "a64", "b64", "rmsnorm_backward.prefetch")
                ab(r, "a32", "b32", "rmsnorm_backward.prefetch")
                ab(r, "hold", "hgrid", label="a | b grid-wait: ")
                ab(r, "hold", "hflags", label="a | b flags: ")
            if tar.startswith("call6-"):
                final_sol(r)
            if tar.startswith(("call7-", "call8-")):
                for pre in ("sb", "sc", "ds", "nc"):
                    if os.path.exists(os.path.join(r, f"{pre}-e-1.json")):
                        ef_table(r, f"{pre}-e", f"{pre}-f", "barrier", "slots")
            if tar.startswith("call9-"):
                for c in ("ln", "double_softmax", "norm_chain"):
                    ef_table(r, f"{c}-base", f"{c}-wide", "default", "wide")
            if tar.startswith("call4-"):
                print("  table: " + [l for l in open(os.path.join(r, "table.txt")).read().splitlines()
                                     if "cells in" in l][0].strip())
                final_sol(r)
                one_round(r, "half-all-1.json", FP[:1] + ["rmsnorm_backward.persistent", "rmsnorm_backward.pipelined",
                                                          "rmsnorm_backward.prefetch"])
            if tar.startswith("call5-"):
                for f in ("g1", "oop0", "g1oop0", "s2"):
                    if os.path.exists(os.path.join(r, f"{f}-1.json")):
                        ab(r, "base", f)


if __name__ == "__main__":
    main()
