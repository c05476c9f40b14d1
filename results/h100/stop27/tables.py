#!/usr/bin/env python3
"""tables.py — the tables kernels/NOTES.md ("Stop 27") cites, printed from this directory's device
outputs: `python3 tables.py`. Stop 26's call 4 (`../stop26/call4-run-all-float32.tar.xz`) is the
before of the engine grids. Writes nothing; tables.txt is its output. No GPU needed.
"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, geomean, text, unpack  # noqa: E402

ENGINE = ("layernorm", "double_softmax", "softmax_backward", "norm_chain")
HR = ("horizontal_reduction_pointwise", "horizontal_reduction_reduction")


def medians(path, variant):
    """point tuple -> (median us, sol median us or None) of one variant."""
    out = {}
    for _, dt, cell in cells(path):
        if variant not in cell["variants"]:
            continue  # another case's cell
        v = cell["variants"][variant]
        sol = cell["sol"].get("time_ms")
        out[(dt,) + tuple(cell["point"].values())] = (v["time_ms"]["median"] * 1e3, sol and sol["median"] * 1e3)
    return out


def real(t):
    return re.search(r"real\s+(\S+)", t).group(1)


def racecheck(r, modes):
    for m in modes:
        t = text(r, f"racecheck-{m}.txt")
        summary = re.search(r"RACECHECK SUMMARY: (.*)", t)
        result = re.search(r"^(\w+): (.*(wrong|wrong sums))$", t, re.M)
        err = re.search(r"unspecified launch failure", t)
        print(f"  {m:14s} {summary.group(1) if summary else '-':55s} "
              f"{result.group(2) if result else ('launch failure' if err else '-')}")


def ab_table(r, binaries, ops, name_of, runs=(1, 2)):
    """Best median of each binary's runs, % of SOL and the ratios to the first binary, a row per
    cell; then, per op, each ratio's geomean and range."""
    first = binaries[0]
    for op in ops:
        R = {b: [medians(os.path.join(r, name_of(op, b, i)), op + ".fused") for i in runs] for b in binaries}
        print(f"  {op}")
        ratios = {b: [] for b in binaries[1:]}
        for k in sorted(R[first][0]):
            best = [min(R[b][i][k][0] for i in range(len(runs))) for b in binaries]
            sol = R[first][0][k][1]
            for b, t in zip(binaries[1:], best[1:]):
                ratios[b].append(best[0] / t)
            cols = "  ".join(f"{b} {t:8.1f} ({100 * sol / t:5.1f}%)" for b, t in zip(binaries, best))
            rs = "  ".join(f"{first}/{b} {best[0] / t:.3f}" for b, t in zip(binaries[1:], best[1:]))
            print(f"    {k[0]:8s} {k[1]:6d} x {k[2]:6d}  {cols}   {rs}")
        for b, xs in ratios.items():
            print(f"    {first}/{b}: geomean {geomean(xs):.3f} over {len(xs)} cells, range {min(xs):.3f}..{max(xs):.3f}")


def under_90(path, cases=ENGINE, min_bytes=64 * 2**20):
    out = {}
    for name, dt, cell in cells(path):
        if (cases and name not in cases) or dt != "float32" or cell["ideal_bytes"] < min_bytes:
            continue
        v = cell["variants"].get(name + ".fused")
        if v is None or v.get("sol_pct") is None:
            continue
        n, u = out.get(name, (0, []))
        if v["sol_pct"] < 90:
            u = u + ["x".join(str(x) for x in cell["point"].values()) + f" {v['sol_pct']:.1f}"]
        out[name] = (n + 1, u)
    return out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        c1 = unpack(tmp, os.path.join(HERE, "call1-racecheck-pairs.tar.xz"))
        c2 = unpack(tmp, os.path.join(HERE, "call2-racecheck-groups-bwd.tar.xz"))
        c3 = unpack(tmp, os.path.join(HERE, "call3-pairs-quads.tar.xz"))
        c4 = unpack(tmp, os.path.join(HERE, "call4-final.tar.xz"))
        s26 = unpack(tmp, os.path.join(HERE, "..", "stop26", "call4-run-all-float32.tar.xz"))

        print("# 1. racecheck of dev/racecheck_mbarrier_dev.cu (summary; the kernel's own check)\n")
        print("call 1 (`groups` was then the library's stop-24 form: lane 0 arrives for its warp)")
        racecheck(c1, ("none", "syncthreads", "mbarrier", "groups"))
        print("call 2 (the library already had an arrival a thread; `groups` ran with a count of 2: the"
              " launch failed, so its line says nothing; groups_lane0 is the stop-24 form written out)")
        racecheck(c2, ("none", "syncthreads", "mbarrier", "groups", "groups_nowait", "groups_lane0", "groups_all"))
        print("call 4 (the library's form, with its count: fb_final)")
        racecheck(c4, ("groups",))

        t = text(c2, "racecheck-c-bf16.txt")
        print("\ncall 2: racecheck of fb_c (an arrival a thread) on `selftest --dtype bfloat16` of rows of 8192 "
              "(stop 24 call 8's command; stop 24: 12 reports at 1027 rows):")
        print(f"  lines naming a hazard: {len(re.findall('hazard', t, re.I))}; cells reached: "
              f"{len(re.findall(r'^ok ', t, re.M))}, last: {re.findall(r'^ok .*', t, re.M)[-1].split('max_abs')[0].strip()}")

        print("\n# 2. rmsnorm_backward.fused, half types, fb_a (HEAD bfbe30b) / fb_c (an arrival a thread), "
              "us, best of two runs (call 2)\n")
        ab_table(c2, ("fb_a", "fb_c"), ("rmsnorm_backward",), lambda op, b, i: f"bwd-{b}-{i}.json")
        for b in ("fb_a", "fb_c"):
            t = text(c3, f"selftest-{b}-bwd.txt")
            print(f"  call 3: {b} selftest of rmsnorm_backward and its rows8192 / rows16384 cases: "
                  f"{re.search('selftest: (.*)', t).group(1)}, {real(t)}")

        print("\n# 3. 512-thread pairs for more rows (call 1): fb_a / fb_b (kPairRows on layernorm and "
              "double_softmax), float32 W = 32768, us, best of two runs\n")
        ab_table(c1, ("fb_a", "fb_b"), ("layernorm", "double_softmax"), lambda op, b, i: f"{op}-{b}-{i}.json")

        print("\n# 4. call 3: fb_a / fb_c (pairs up to 4 x SMs rows) / fb_d (fb_c + 256-thread CTAs with a"
              " shared part for 265..528 rows), float32, us, best of two runs\n")
        ab_table(c3, ("fb_a", "fb_c", "fb_d"), ENGINE, lambda op, b, i: f"eng-{op}-{b}-{i}.json")
        print(f"\n  selftest fb_d (four ops, float32): {re.search('selftest: (.*)', text(c3, 'selftest-d.txt')).group(1)}")
        m = text(c3, "memcheck-d.txt")
        print(f"  memcheck fb_d (300 and 512 rows of 16384 and 32768): {re.search('ERROR SUMMARY: (.*)', m).group(1)}")

        print("\n# 5. call 4, fb_final (8a078c5)\n")
        print(f"  selftest --no-metrics: {re.search('selftest: (.*)', text(c4, 'selftest.txt')).group(1)}, "
              f"{real(text(c4, 'selftest.txt'))}")
        print(f"  memcheck, rmsnorm_backward 1024 rows of 8192, every dtype: "
              f"{re.search('ERROR SUMMARY: (.*)', text(c4, 'memcheck-bwd.txt')).group(1)}")
        print(f"  {re.search('fusionbench: (.*cells in [^;]*)', text(c4, 'engine-float32.txt')).group(1)} "
              "(the four engine ops' float32 default grids)")
        print("\n  float32 cells of >= 64 MB under 90% of SOL (median), stop 26's `run --all` (call 4) -> now:")
        before = under_90(os.path.join(s26, "all-float32.json"))
        after = under_90(os.path.join(c4, "engine-float32.json"))
        for name in ENGINE:
            nb, ub = before[name]
            na, ua = after[name]
            print(f"  {name}: {len(ub)} of {nb} -> {len(ua)} of {na}: {', '.join(ua)}")
        print("\n  layernorm.fused W = 32768 (% of SOL by the median): stop 26 call 4 -> now")
        pb = {k[1]: v for k, v in medians(os.path.join(c4, "engine-float32.json"), "layernorm.fused").items()
              if k[2] == 32768}
        for name, dt, cell in cells(os.path.join(s26, "all-float32.json")):
            if name == "layernorm" and cell["point"]["dim1"] == 32768:
                r0 = cell["point"]["dim0"]
                t_new, sol_new = pb[r0]
                print(f"    {r0:6d} rows  {cell['variants']['layernorm.fused']['sol_pct']:5.1f} -> "
                      f"{100 * sol_new / t_new:5.1f}")

        print("\n# 6. call 1: horizontal_reduction_pointwise.fused float32, % of SOL, two runs of fb_a"
              " (stop 26's misses: 4096 x 2048 87.0, 8192 x 2048 89.8)\n")
        runs = [medians(os.path.join(c1, f"hrp-{i}.json"), "horizontal_reduction_pointwise.fused") for i in (1, 2)]
        for k in sorted(runs[0]):
            print(f"    {k[1]:6d} x {k[2]:5d}  " + "  ".join(f"{100 * r[k][1] / r[k][0]:5.1f}" for r in runs))

        c5 = unpack(tmp, os.path.join(HERE, "call5-rowstream-issue6.tar.xz"))
        c6 = unpack(tmp, os.path.join(HERE, "call6-rowstream-check.tar.xz"))
        print("\n# 7. call 5: rowstream's long-row rule from `useful` >= 256 (8a078c5: W >= 4096 float32) down"
              " to 128 (W >= 2048) and 64 (W >= 1024), FB_DEV_LONG_UNITS on one binary, float32, us, best of"
              " two runs\n")
        ab_table(c5, ("u256", "u128", "u64"), HR, lambda op, b, i: f"hr-{op}-{b}-{i}.json")

        print("\n# 8. call 6: fb_final (8a078c5) / fb_new (b072d18: the rule from W >= 1024) on widths call 5"
              " did not cover, float32, us, best of two runs (W = 61 and 130 keep their plan: the two"
              " binaries' noise)\n")
        ab_table(c6, ("fb_final", "fb_new"), HR, lambda op, b, i: f"odd-{op}-{b}-{i}.json")
        print(f"\n  fb_new selftest of HRP and HRR, every dtype: {re.search('selftest: (.*)', text(c6, 'selftest-new.txt')).group(1)}")
        print(f"  memcheck fb_new (300 rows of 1024, 1027, 2048, 3000): "
              f"{re.search('ERROR SUMMARY: (.*)', text(c6, 'memcheck-new.txt')).group(1)}")

        print("\n# 9. issue 6's float32 grids now: call 5 (fb_final, 8a078c5: "
              f"{re.search('fusionbench: (.*cells in [^;]*)', text(c5, 'issue6-float32.txt')).group(1)}) for the eleven"
              " memory-bound cases, call 6 (fb_new, b072d18) for HRP and HRR; fused cells of >= 64 MB under 90%"
              " of SOL (median), stop 26's call 4 beside\n")
        before = under_90(os.path.join(s26, "all-float32.json"), None)
        now = under_90(os.path.join(c5, "issue6-float32.json"), None)
        hr = under_90(os.path.join(c6, "hr-float32.json"), None)
        total_b = total_n = 0
        for name in now:
            n, u = hr.get(name, now[name])
            total_b += len(before[name][1])
            total_n += len(u)
            src = "call 6" if name in hr else "call 5"
            print(f"  {name:32s} stop 26: {len(before[name][1]):2d}   now ({src}): {len(u):2d} of {n}: {', '.join(u)}")
        print(f"  in all: {total_b} -> {total_n}")

        c7 = unpack(tmp, os.path.join(HERE, "call7-layernorm-hold.tar.xz"))
        c8 = unpack(tmp, os.path.join(HERE, "call8-layernorm-hold-final.tar.xz"))
        print("\n# 10. call 7: layernorm.fused float32, its plans (off) against K_HOLD everywhere it fits (on:"
              " FB_DEV_HOLD=1, a dev knob), us, best of two runs\n")
        ab_table(c7, ("off", "on"), ("layernorm",), lambda op, b, i: f"hold-{b}-{i}.json")
        print(f"  memcheck with K_HOLD on (300, 1027 rows x 256, 1024, 4096): "
              f"{re.search('ERROR SUMMARY: (.*)', text(c7, 'memcheck-hold.txt')).group(1)}")

        print("\n# 11. call 8: fb_hold (e34855a, K_HOLD by plan_hold's rule): layernorm's float32 default grid"
              " against call 5's (8a078c5) at W = 1024 and 2048; the cells of >= 64 MB under 90%\n")
        before = medians(os.path.join(c5, "issue6-float32.json"), "layernorm.fused")
        now = medians(os.path.join(c8, "layernorm-float32.json"), "layernorm.fused")
        for k in sorted(now):
            if k[2] in (1024, 2048):
                a, sa = before[k]
                b, sb = now[k]
                print(f"    {k[1]:6d} x {k[2]:5d}  call 5 {a:7.1f} ({100 * sa / a:5.1f}%)  call 8 {b:7.1f} "
                      f"({100 * sb / b:5.1f}%)  ratio {a / b:.3f}")
        n, u = under_90(os.path.join(c8, "layernorm-float32.json"), ("layernorm",))["layernorm"]
        print(f"  layernorm under 90%: {len(u)} of {n}: {', '.join(u)}")
        print(f"  {re.search('fusionbench: (.*cells in [^;]*)', text(c8, 'layernorm-float32.txt')).group(1)}")
        for _, _, cell in cells(os.path.join(c8, "layernorm-odd.json")):
            v = cell["variants"]["layernorm.fused"]
            print(f"  odd widths {cell['point']}: {v['status']}, check {v['check']['mode']} "
                  f"{'passed' if v['check']['passed'] else 'FAILED'}")
        print(f"  memcheck (600, 4099 rows x 1028, 1100, 2044): "
              f"{re.search('ERROR SUMMARY: (.*)', text(c8, 'memcheck-hold.txt')).group(1)}")
        print(f"  selftest --case layernorm (every dtype): "
              f"{re.search('selftest: (.*)', text(c8, 'selftest-layernorm.txt')).group(1)}")

        c9 = unpack(tmp, os.path.join(HERE, "call9-selftest-head.tar.xz"))
        t = text(c9, "selftest.txt")
        print(f"\n# 12. call 9: 956768e's full `selftest --no-metrics`: {re.search('selftest: (.*)', t).group(1)}, {real(t)}")


if __name__ == "__main__":
    main()
