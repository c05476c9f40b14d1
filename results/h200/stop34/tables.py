#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 34") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.
"""
import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, geomean, medians as times, peer_compare, print_steps as checks, run_summary, text, unpack  # noqa: E402

ROWS = (128, 256, 512, 1024, 2048, 4096, 8192, 16384)


def old_new(r, pattern, variant, dtypes, widths, arms=("old", "new"), runs=(1, 2)):
    """The same variant from two binaries, in turn twice: both runs' medians, best-of-two ratio."""
    paths = {a: [os.path.join(r, pattern.format(arm=a, k=k)) for k in runs] for a in arms}
    got = {a: times(p) for a, p in paths.items()}
    a, b = arms
    print(f"    {'dtype':9s} {'rows':>5s} x {'W':<6s} {'copy':>7s}   {a:>17s}   {b:>17s}   t_{a}/t_{b}   % of copy {a} -> {b}")
    for d in dtypes:
        for W in widths:
            for rows in ROWS:
                key = (d, rows, W)
                ta, tb = got[a][0][key][variant], got[b][0][key][variant]
                s = got[a][1][key]
                print(f"    {d:9s} {rows:5d} x {W:<6d} {s:7.1f}   {ta[0]:8.1f} {ta[1]:8.1f}   {tb[0]:8.1f} {tb[1]:8.1f}"
                      f"   {min(ta) / min(tb):6.3f}      {100 * s / min(ta):5.1f} -> {100 * s / min(tb):5.1f}")


def section1(r):
    print("# 1. call 1 (one H200; fb34a = 0be2f3d + the first staging form + softmax_backward.cluster; fb33f = stop 33's")
    print("#    last binary, the kernels of 0be2f3d): stop 33's unverified commits, softmax_backward's clusters, staging v1")
    checks(r, ("st-rms", "st-rms1027", "st-ln-sb", "mc-rms", "mc-ln", "mc-sb", "rc-ln"))
    print("\n  softmax_backward, write flush, t_fused / t_variant (fused: the plan of 0be2f3d, the same kernels), runs 1 and 2")
    for d, tag in (("float32", "f32"), ("bfloat16", "bf16")):
        t, s = times([os.path.join(r, f"sb-{tag}-{k}.json") for k in (1, 2)])
        for v in ("softmax_backward.row_smem", "softmax_backward.cluster"):
            print(f"    {d} {v}")
            print("      rows  " + "  ".join(f"W {W:>5d}     " for W in (16384, 32768, 65536)))
            for rows in ROWS:
                row = []
                for W in (16384, 32768, 65536):
                    f, x = t[(d, rows, W)]["softmax_backward.fused"], t[(d, rows, W)].get(v)
                    row.append(f"{f[0] / x[0]:.3f} {f[1] / x[1]:.3f}" if x else "    -      -")
                print(f"      {rows:5d}  " + "   ".join(row))
    t, s = times([os.path.join(r, f"sb-f32-{k}.json") for k in (1, 2)])
    tc, tcs = times([os.path.join(r, "tc-sb.json")])
    print("\n  softmax_backward float32 W = 32768 beside torch.compile (tc-sb.json, one run, its own copy)")
    print("     rows   copy   fused (2 runs)    cluster (2 runs)   torch.compile (copy)   tc/cluster  tc/fused  cluster % of copy")
    for rows in ROWS:
        k = ("float32", rows, 32768)
        f, c, x = t[k]["softmax_backward.fused"], t[k]["softmax_backward.cluster"], tc[k]["torch.compile"][0]
        print(f"    {rows:5d} {s[k]:7.1f}  {f[0]:7.1f} {f[1]:7.1f}   {c[0]:7.1f} {c[1]:7.1f}   {x:7.1f} ({tcs[k]:7.1f})"
              f"      {x / min(c):.3f}     {x / min(f):.3f}     {100 * s[k] / min(c):5.1f}")
    print("\n  layernorm.fused, staging v1 (every per-column input that fits, generic loads, any CTA size): old = fb33f, new = fb34a")
    old_new(r, "ln-f32-{arm}-{k}.json", "layernorm.fused", ("float32",), (16384, 32768, 65536))
    old_new(r, "ln-bf16-{arm}-{k}.json", "layernorm.fused", ("bfloat16",), (16384, 32768, 65536))


def section2(r):
    print("\n# 2. call 2 (one H200; fb34b = 0be2f3d + staging v2: 1024-thread CTAs only, the unstaged input one unit")
    print("#    ahead, shared loads; + softmax_backward's two-CTA rule): old = fb33f, new = fb34b, in turn twice")
    checks(r, ("st", "mc-ln", "mc-sb", "mc-rms", "rc-ln"))
    print("  layernorm.fused")
    old_new(r, "ln-f32-{arm}-{k}.json", "layernorm.fused", ("float32",), (16384, 32768, 65536))
    old_new(r, "ln-bf16-{arm}-{k}.json", "layernorm.fused", ("bfloat16",), (16384, 32768, 65536))
    print("  softmax_backward.fused (the two-CTA rule; no per-column inputs, so no staging)")
    old_new(r, "sb-{arm}-{k}.json", "softmax_backward.fused", ("float32",), (32768,))
    print("  rmsnorm.fused float32, [4, T, N] (rows = 4T; N = 32768: the weight staged)")
    paths = {a: [os.path.join(r, f"rms-{a}-{k}.json") for k in (1, 2)] for a in ("old", "new")}
    got = {a: times(p) for a, p in paths.items()}
    for key in sorted(got["old"][0]):
        o, n = got["old"][0][key]["rmsnorm.fused"], got["new"][0][key]["rmsnorm.fused"]
        print(f"    T {key[1]:5d} N {key[2]:6d}  copy {got['old'][1][key]:7.1f}  old {o[0]:7.1f} {o[1]:7.1f}  new {n[0]:7.1f} {n[1]:7.1f}"
              f"  t_old/t_new {min(o) / min(n):.3f}")


def section3(r):
    print("\n# 3. call 3 (one H200; fb34c = fb34b with the row's loads streaming, as row_smem with a shared part):")
    print("#    layernorm W = 32768, old = fb33f, new = fb34c, in turn twice")
    checks(r, ("st",))
    old_new(r, "ln-{arm}-{k}.json", "layernorm.fused", ("float32", "bfloat16"), (32768,), arms=("fb33f", "fb34c"))


def section4(r):
    print("\n# 4. call 4 (one H200; fb34d = 056134d's kernels, built before its commit: its files say 0be2f3dc98-dirty):")
    print("#    `run --all --dtype float32`, default grids, default clean flush")
    log = text(r, "run-all.txt").splitlines()
    print("  " + "\n  ".join(l for l in log if "cells in" in l or "out of device memory" in l or "warning" in l))
    now = run_summary(os.path.join(r, "all-float32.json"))
    print("  case                            cells  variants ok/unchecked/failed/not run   fused >= 64 MB: under 90% of SOL, lowest")
    for name in sorted(now):
        s = now[name]
        low = min(s["big"]) if s["big"] else None
        under = sum(1 for p, _ in s["big"] if p < 90)
        big = f"{under:3d} of {len(s['big']):3d}, lowest {low[0]:5.1f}% at {low[1]}" if low else "-"
        print(f"  {name:31s} {s['cells']:5d}  {s['ok']:5d} / {s['unchecked']} / {s['failed']} / {s['other']:<3d}              {big}")


def section5(r):
    print("\n# 5. call 5 (one H200; fb34d): the full selftest, memcheck and racecheck of the two-CTA clusters,")
    print("#    softmax_backward float32 beside torch.compile (side_by_side.py, write flush, whole grid);")
    print("#    the machine was call 4's, still warm: its r/ (and steps.txt) also holds call 4's files")
    checks(r, ("selftest", "mc-sb", "rc-sb"))
    peer_compare(os.path.join(r, "sbs"))


NCU = ("Duration", "DRAM Throughput", "L2 Hit Rate", "Executed Instructions", "Registers Per Thread",
       "Dynamic Shared Memory Per Block", "Shared Memory Configuration Size", "Achieved Occupancy",
       "Warp Cycles Per Issued Instruction", "Issue Slots Busy")


def section6(r):
    print("\n# 6. call 6 (one H200): Nsight Compute (--set full: clocks locked at base, caches flushed) on layernorm")
    print("#    128 x 32768 float32, one launch each: the engine without staging (fb33f), with staging v2 (fb34b),")
    print("#    and dev/layernorm_params_dev.cu's k_engine and k_w_smem (their first timed launch, 128 rows)")
    print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    forms = ("ncu-old", "ncu-new", "ncu-dev-engine", "ncu-dev-wsmem")
    got = {}
    for f in forms:
        for l in text(r, f + ".txt").splitlines():
            parts = l.split()
            for m in NCU:
                if l.strip().startswith(m + " ") and m not in got.setdefault(f, {}):
                    got[f][m] = " ".join(parts[len(m.split()):])
    print(f"  {'':36s}" + "".join(f"{f:>22s}" for f in forms))
    for m in NCU:
        print(f"  {m:36s}" + "".join(f"{got[f].get(m, '-'):>22s}" for f in forms))


MODES = ("rmsnorm.static_persistent", "rmsnorm.multi_wave_reload", "rmsnorm.multi_wave_cached")


def section7(r):
    print("\n# 7. call 7 (one H200; fb34e = 6a98017): issue 9's tables, `run --case rmsnorm,rmsnorm_backward --dtype all")
    print("#    --table` (clean flush; the printed tables are r/rmsnorm-all.txt)")
    log = text(r, "rmsnorm-all.txt").splitlines()
    print("  " + [l for l in log if "cells in" in l][-1])
    t = collections.defaultdict(dict)  # (case, dtype) -> {(T, N): {variant: us, "sol": us}}
    for case, d, c in cells(os.path.join(r, "rmsnorm-all.json")):
        T, N = c["point"]["T"], c["point"]["N"]
        v = {n: x["time_ms"]["median"] * 1e3 for n, x in c["variants"].items() if "time_ms" in x}
        assert all(x["check"]["passed"] for x in c["variants"].values() if "time_ms" in x), (case, d, T, N)
        v["sol"] = c["sol"]["time_ms"]["median"] * 1e3
        t[(case, d)][(T, N)] = v
    print("  case              dtype      fused % of SOL on 4TN >= 16M: min (T x N) / median   fused vs eager (geomean)"
          "   fused within 3% of the fastest mode / at most behind it")
    for (case, d), by in sorted(t.items()):
        big = sorted((100 * v["sol"] / v[case + ".fused"], k) for k, v in by.items() if 4 * k[0] * k[1] >= 16 * 2**20)
        med = big[len(big) // 2][0] if len(big) % 2 else (big[len(big) // 2 - 1][0] + big[len(big) // 2][0]) / 2
        ge = geomean([v["eager"] / v[case + ".fused"] for v in by.values() if "eager" in v])
        modes = ""
        if case == "rmsnorm":
            behind = [(v[case + ".fused"] / min(v[m] for m in MODES) - 1, k) for k, v in by.items()]
            within = sum(1 for b, _ in behind if b <= 0.03)
            worst = max(behind)
            modes = f"{within} of {len(behind)} / {100 * worst[0]:+.1f}% at {worst[1][0]} x {worst[1][1]}"
        print(f"  {case:17s} {d:9s}  {big[0][0]:5.1f}% ({big[0][1][0]} x {big[0][1][1]}) / {med:5.1f}%"
              f"                       {ge:5.2f}x                  {modes}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        u = lambda name: unpack(tmp, os.path.join(HERE, name))
        print("Every call asked for an H200 and got one (r/gpus.txt): NVIDIA H200, 1980 MHz, 143771 MiB.\n")
        section1(u("call1-verify-staging-v1-sb-cluster.tar.xz"))
        section2(u("call2-staging-ahead-sb-rule.tar.xz"))
        section3(u("call3-staging-streaming.tar.xz"))
        section4(u("call4-run-all-float32.tar.xz"))
        section5(u("call5-selftest-sb-peer.tar.xz"))
        section6(u("call6-ncu-staging-vs-dev.tar.xz"))
        section7(u("call7-rmsnorm-tables.tar.xz"))


if __name__ == "__main__":
    main()
