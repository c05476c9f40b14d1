#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 39") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Every time is the median of a measurement's samples under --timer cupti (the sum of the GPU
durations of the measured run's kernels), write flush, for fusionbench and torch_peer alike. Every
fusionbench check the tables use passed (asserted by tarballs.medians); the check runs' counts are
printed as they are.
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, geomean, medians, peer_compare, print_checks, print_steps as steps, unpack  # noqa: E402


def one(path):
    """{(dtype, dim0, dim1): (median us, copy us)} of a one-variant result file, checks asserted."""
    t, s = medians([path])
    return {k: (next(iter(v.values()))[0], s[k]) for k, v in t.items()}


def mean2(a, b):
    return {k: (a[k][0] + b[k][0]) / 2 for k in a}


def sweep(r, group, plans):
    """A forced-plan sweep (FB_DEV_PLAN=kind,threads,upt,c): the default's us and % of the copy in
    rounds 1 and 2, then t_default / t_plan for each plan in rounds 1 and 2."""
    d1, d2 = (one(os.path.join(r, f"r{n}-{group}-default.json")) for n in (1, 2))
    ps = {p: [one(os.path.join(r, f"r{n}-{group}-p{p}.json")) for n in (1, 2)] for p in plans}
    print(f"  == {group}: rows, default us (% of the copy) round 1, round 2 | t_default / t_plan, rounds 1 and 2")
    for k in sorted(d1, key=lambda k: k[1]):
        line = f"    {k[1]:6d} {d1[k][0]:9.2f} ({100 * d1[k][1] / d1[k][0]:3.0f}%) {d2[k][0]:9.2f} |"
        for p, (a, b) in ps.items():
            line += f" {p}: {d1[k][0] / a[k][0]:.3f} {d2[k][0] / b[k][0]:.3f} |"
        print(line)


def checks(r, name):
    print_checks(os.path.join(r, name + ".json"), name)


def before_after(old_pair, new_pair, label):
    old, new = mean2(*old_pair), mean2(*new_pair)
    print(f"  {label}: " + ", ".join(f"{k[1]} {old[k]:.2f} -> {new[k]:.2f} ({old[k] / new[k]:.3f})"
                                     for k in sorted(old, key=lambda k: k[1])))


def modes(r, runs, variants, base="rmsnorm.fused"):
    """rmsnorm's variants in one run each: t_base us per run, then t_base / t_X per run."""
    ms = [medians([os.path.join(r, n + ".json")])[0] for n in runs]
    for dt in sorted({k[0] for k in ms[0]}):
        print(f"  == rmsnorm {dt}: [4, T, N]: t_fused us per run | t_fused / t_X per run for X = {', '.join(variants)}")
        g = {v: [] for v in variants}
        for k in sorted(k for k in ms[0] if k[0] == dt):
            line = f"    T {k[1]:5d} N {k[2]:6d} " + " ".join(f"{m[k][base][0]:8.2f}" for m in ms) + " |"
            for v in variants:
                rs = [m[k][base][0] / m[k][v][0] for m in ms]
                g[v].append(geomean(rs))
                line += " " + " ".join(f"{x:.3f}" for x in rs) + " |"
            print(line)
        print("    geomean " + ", ".join(f"t_fused / t_{v}: {geomean(x):.3f}" for v, x in g.items()))


def main():
    tmp = tempfile.mkdtemp()
    r1 = unpack(tmp, os.path.join(HERE, "call1-plans-long-rows.tar.xz"))
    print("# 1. call 1 (fb39a = 76be4e1 + FB_DEV_PLAN): 6fa886a's checks; forced plans at W = 16384..65536")
    steps(r1, ["st-nc", "memcheck", "racecheck"])
    checks(r1, "check-16384")
    nc = one(os.path.join(r1, "nc-16384.json"))
    print("  norm_chain float32 W = 16384 (K_CTA since 6fa886a): " +
          ", ".join(f"{k[1]} {v[0]:.2f} us ({100 * v[1] / v[0]:.0f}%)" for k, v in sorted(nc.items(), key=lambda kv: kv[0][1])))
    long_plans = {65536: ["1-512-4-8", "1-1024-4-4", "1-256-8-8", "1-1024-2-8"],
                  32768: ["1-512-4-4", "1-256-8-4", "1-1024-4-2", "1-512-2-8"]}
    for W, plans in long_plans.items():
        for c in ("layernorm", "norm_chain", "double_softmax"):
            sweep(r1, f"{c}-{W}", plans)
    sweep(r1, "ds-16384", ["1-512-8-1", "1-1024-4-1"])
    sweep(r1, "sb-32768", ["1-512-4-4", "1-256-4-8", "1-1024-2-4"])

    r2 = unpack(tmp, os.path.join(HERE, "call2-plans-few-rows.tar.xz"))
    print("\n# 2. call 2 (fb39a): forced plans at few rows of W = 4096, 8192; W = 65536 and 32768 clusters; layernorm W = 2048")
    steps(r2, [])
    sweep(r2, "softmax_backward-32768", ["1-256-4-8"])
    for c in ("double_softmax", "norm_chain", "layernorm"):
        sweep(r2, f"{c}-65536", ["1-256-8-8"])
    sweep(r2, "softmax_backward-16384", ["1-1024-4-1", "1-512-4-2", "1-256-4-4"])
    for c in ("double_softmax", "norm_chain"):
        sweep(r2, f"{c}-8192", ["1-256-8-1", "1-512-4-1", "1-1024-2-1", "1-256-4-2", "1-128-4-4"])
        sweep(r2, f"{c}-4096", ["1-256-4-1", "1-512-2-1", "1-1024-1-1", "1-128-4-2", "1-64-4-4"])
    sweep(r2, "softmax_backward-8192", ["1-512-4-1", "1-1024-2-1", "1-256-4-2", "1-64-4-8"])
    sweep(r2, "softmax_backward-4096", ["1-256-4-1", "1-512-2-1", "1-1024-1-1", "1-64-4-4"])
    sweep(r2, "layernorm-2048", ["1-256-2-1", "1-512-1-1", "1-64-8-1"])

    r3 = unpack(tmp, os.path.join(HERE, "call3-checks-committed-plans-rmsnorm-modes.tar.xz"))
    print("\n# 3. call 3 (fb39b = the stop's plan rules + FB_DEV_PLAN): checks; the rules as committed, t_old (call 2 or 1) / t_new, two rounds each")
    steps(r3, ["st", "memcheck", "racecheck-wide", "racecheck-sb", "racecheck-few"])
    checks(r3, "check-odd")
    checks(r3, "memcheck")
    ld = lambda r, n: one(os.path.join(r, n + ".json"))  # noqa: E731
    for c in ("double_softmax", "norm_chain", "softmax_backward"):
        new = [ld(r3, f"r{n}-{c}-few") for n in (1, 2)]
        for W in (4096, 8192):
            nw = [{k: v for k, v in m.items() if k[2] == W} for m in new]
            before_after([ld(r2, f"r{n}-{c}-{W}-default") for n in (1, 2)], nw, f"{c} W = {W}")
    before_after([ld(r2, f"r{n}-softmax_backward-32768-default") for n in (1, 2)],
                 [ld(r3, f"r{n}-sb-32768") for n in (1, 2)], "softmax_backward W = 32768")
    for c in ("double_softmax", "norm_chain"):
        before_after([ld(r2, f"r{n}-{c}-65536-default") for n in (1, 2)],
                     [ld(r3, f"r{n}-{c}-65536") for n in (1, 2)], f"{c} W = 65536")
    new = [ld(r3, f"r{n}-ds-16384") for n in (1, 2)]
    old = [ld(r1, f"r{n}-ds-16384-default") for n in (1, 2)]
    before_after(old, [{k: v for k, v in m.items() if k in old[0]} for m in new], "double_softmax W = 16384 (old: call 1)")
    print("  double_softmax W = 16384, % of the copy (round 1): " +
          ", ".join(f"{k[1]} {100 * v[1] / v[0]:.0f}%" for k, v in sorted(new[0].items(), key=lambda kv: kv[0][1])))
    modes(r3, ["r1-rms", "r2-rms"], ["rmsnorm.row_engine", "rmsnorm.multi_wave_cached", "rmsnorm.static_persistent"])

    r4 = unpack(tmp, os.path.join(HERE, "call4-rmsnorm-vs-tc-liger.tar.xz"))
    print("\n# 4. call 4 (fb39c = 1a5e8ce, nvidia-h200-x4): rmsnorm checks; float16's modes; rmsnorm and rmsnorm_backward beside torch.compile and Liger")
    steps(r4, ["st-rms", "memcheck-rms", "memcheck-rms-long"])
    modes(r4, ["f16-rms"], ["rmsnorm.row_engine", "rmsnorm.multi_wave_cached", "rmsnorm.static_persistent"])
    peer_compare(os.path.join(r4, "sbs"))

    r5 = unpack(tmp, os.path.join(HERE, "call5-row-cases-vs-tc.tar.xz"))
    print("\n# 5. call 5 (fb39c = 1a5e8ce, nvidia-h200-x4): the four row-engine cases beside torch.compile, float32, whole grids")
    steps(r5, [])
    peer_compare(os.path.join(r5, "sbs"))
    under = {}
    for f in sorted(os.listdir(os.path.join(r5, "sbs"))):
        if f.startswith("fb-") and f.endswith(".json"):
            for case, _, c in cells(os.path.join(r5, "sbs", f)):
                (v,) = c["variants"].values()
                nb = c["row"] * c["col"] * 4 * (3 if case == "softmax_backward" else 2)
                sol = c["sol"]["time_ms"]["median"] / v["time_ms"]["median"]
                if nb >= 64e6 and sol < 0.9:
                    under.setdefault(case, []).append(f"{c['row']}x{c['col']} {100 * sol:.0f}%")
    print("  fusionbench cells of >= 64 MB under 90% of the copy (t_copy / t_fused):")
    for case, v in sorted(under.items()):
        print(f"    {case} ({len(v)}): {', '.join(v)}")

    r6 = unpack(tmp, os.path.join(HERE, "call6-selftest-softmax-engine.tar.xz"))
    print("\n# 6. call 6 (fb39c = 1a5e8ce): the full selftest; softmax.engine on the new plans' shapes")
    steps(r6, ["selftest", "memcheck-softmax-engine"])
    checks(r6, "check-softmax-engine")

    r7 = unpack(tmp, os.path.join(HERE, "call7-rmsnorm-staged.tar.xz"))
    print("\n# 7. call 7 (fb39d = 7407223 + RmsNorm::kStagedParams + FB_DEV_NOSTAGE): checks; t_nostage / t_staged, two rounds")
    steps(r7, ["memcheck", "racecheck"])
    checks(r7, "check")
    ms = [medians([os.path.join(r7, n + ".json")])[0] for n in ("r1-old", "r1-new", "r2-old", "r2-new")]
    print("  [4, T, N]: per variant t_old, t_new (us, round 1), t_old / t_new rounds 1 and 2")
    for k in sorted(ms[0]):
        line = f"    {k[0]:9s} T {k[1]:5d} N {k[2]:6d}"
        for v in ("rmsnorm.fused", "rmsnorm.row_engine"):
            o1, n1, o2, n2 = (m[k][v][0] for m in ms)
            line += f" | {v.split('.')[1]} {o1:7.2f} {n1:7.2f} {o1 / n1:.3f} {o2 / n2:.3f}"
        print(line)

    r8 = unpack(tmp, os.path.join(HERE, "call8-final-selftest.tar.xz"))
    print("\n# 8. call 8 (fb39e = d70afe2, the stop's final kernels): the full selftest; rmsnorm float32 as committed")
    steps(r8, ["selftest"])
    t8 = one(os.path.join(r8, "rms-f32.json"))
    print("  rmsnorm.fused float32 [4, T, N], us (% of the copy): " +
          ", ".join(f"[4, {k[1]}, {k[2]}] {v[0]:.2f} ({100 * v[1] / v[0]:.0f}%)" for k, v in sorted(t8.items()) if k[2] >= 4096))


if __name__ == "__main__":
    main()
