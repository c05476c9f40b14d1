#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 38") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Every time in sections 2-5 is the median of a measurement's samples under --timer cupti (the sum
of the GPU durations of the measured run's kernels), for fusionbench and for torch_peer alike;
section 1's are Nsight Compute's (its own clock control and cache flush). Every fusionbench check
the tables use passed (asserted by tarballs.medians).
"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import geomean, medians, peer_compare, print_steps as steps, text, unpack  # noqa: E402

NCU_SHAPES = ("128x1024", "512x1024", "256x512", "1024x256")
NCU_METRICS = ("Duration", "Elapsed Cycles", "Executed Instructions", "Block Size", "Grid Size",
               "Registers Per Thread", "Average SM Active Cycles")


def ncu_metric(r, name, metric):
    for line in text(r, name).splitlines():
        m = re.match(r"\s+" + re.escape(metric) + r"(\s+[a-z/]+)?\s+([\d,.]+)\s*$", line)
        if m:
            return float(m.group(2).replace(",", ""))
    return float("nan")


def one(path):
    """{(dtype, rows, W): median us} of a one-variant result file, checks asserted."""
    t, _ = medians([path])
    return {k: next(iter(v.values()))[0] for k, v in t.items()}


def ratios(r, base, others, moved_only=False):
    """Per dtype: t_base us and t_base / t_X for each X, every cell (or those that moved > 2%),
    then the geomeans."""
    o = one(os.path.join(r, base + ".json"))
    ns = {n: one(os.path.join(r, n + ".json")) for n in others}
    for dt in sorted({k[0] for k in o}):
        ks = sorted((k for k in o if k[0] == dt), key=lambda k: (k[2], k[1]))
        print(f"  == {dt}: t_{base} (us), then t_{base} / t_X for X = {', '.join(others)}")
        for k in ks:
            rs = [o[k] / n[k] for n in ns.values() if k in n]
            if moved_only and all(abs(x - 1) <= 0.02 for x in rs):
                continue
            print(f"    W {k[2]:5d} rows {k[1]:5d} {o[k]:8.2f} " + " ".join(f"{x:6.3f}" for x in rs))
        for n, m in ns.items():
            kk = [k for k in ks if k in m]
            print(f"    geomean t_{base} / t_{n}: {geomean([o[k] / m[k] for k in kk]):.4f} over {len(kk)} cells,"
                  f" lowest {min(o[k] / m[k] for k in kk):.3f}")


def main():
    tmp = tempfile.mkdtemp()
    r1 = unpack(tmp, os.path.join(HERE, "call1-ncu-layernorm-few-rows-vs-triton.tar.xz"))
    print("# 1. Nsight Compute, layernorm float32 few-row cells: ours (103a3f1) beside torch.compile's Triton kernel (call 1)")
    steps(r1, [])
    for s in NCU_SHAPES:
        print(f"  == {s.replace('x', ' rows x W = ')}")
        for side in ("fb", "tc"):
            vals = {m: ncu_metric(r1, f"ncu-{side}-{s}.txt", m) for m in NCU_METRICS}
            warps = vals["Grid Size"] * vals["Block Size"] / 32
            print(f"    {side}: " + ", ".join(f"{m} {vals[m]:g}" for m in NCU_METRICS) +
                  f"; instructions a warp {vals['Executed Instructions'] / warps:.0f}")

    r2 = unpack(tmp, os.path.join(HERE, "call2-early-params-first-try.tar.xz"))
    print("\n# 2. early parameters, first form (widened at the load; FB_DEV_EARLY=off: the plans before), call 2")
    steps(r2, ["memcheck"])
    print("  two rounds each way; round 1 here, round 2 below")
    ratios(r2, "r1-f32-old", ["r1-f32-new", "r2-f32-new", "f32-k4096", "f32-t256", "f32-t512", "f32-t1024"])
    ratios(r2, "bf16-old", ["bf16-new"])

    r3 = unpack(tmp, os.path.join(HERE, "call3-early-params-raw-k-sweep.tar.xz"))
    print("\n# 3. early parameters held as stored (RawParams), units-an-SM bound K (default 4096), call 3")
    steps(r3, ["memcheck"])
    ratios(r3, "f32-old", ["f32-new", "f32-new2", "f32-k8192"])
    ratios(r3, "bf16-old", ["bf16-new", "bf16-k2048", "bf16-k1024"])

    r4 = unpack(tmp, os.path.join(HERE, "call4-early-params-checks-ab.tar.xz"))
    print("\n# 4. plan_params_early as committed (8c79f4b's kernels + FB_DEV_EARLY=off), call 4: checks, t_before / t_early")
    steps(r4, ["selftest", "memcheck", "racecheck"])
    ratios(r4, "f32-old", ["f32-new"], moved_only=True)
    ratios(r4, "half-old", ["half-new"], moved_only=True)

    r5 = unpack(tmp, os.path.join(HERE, "call5-row-cases-vs-tc-cupti.tar.xz"))
    print("\n# 5. the row cases beside torch.compile, float32, whole grids, both sides cupti, write flush (call 5: 8c79f4b)")
    steps(r5, [])
    peer_compare(os.path.join(r5, "sbs"))

    r6 = unpack(tmp, os.path.join(HERE, "call6-early-bound-sweep.tar.xz"))
    print("\n# 6. plan_params_early's bound on units an SM: 8192 (as committed) against 16384 and 32768 (FB_DEV_EARLY_K), call 6")
    steps(r6, [])
    print("  two rounds each; round 1 and 2 of each bound below (t_k8192 / t_X)")
    ratios(r6, "r1-k8192", ["r1-k16384", "r1-k32768", "r2-k8192", "r2-k16384", "r2-k32768"])

    r7 = unpack(tmp, os.path.join(HERE, "call7-row-simplex-selftest.tar.xz"))
    print("\n# 7. row_simplex rows divided by their sums (bbe938a's code), call 7: selftest, narrow rows, memcheck")
    steps(r7, ["selftest", "memcheck"])
    for line in text(r7, "selftest.txt").splitlines():
        if "row_simplex fill" in line:
            print("  " + line)
    import json
    bad = {}
    for c in json.load(open(os.path.join(r7, "narrow.json")))["cases"]:
        for d in c["dtypes"]:
            for cell in d["cells"]:
                for n, v in cell["variants"].items():
                    if not v.get("check", {}).get("passed", True):
                        bad.setdefault((c["name"], d["dtype"], n), []).append(f"{cell['row']} x {cell['col']}")
    print("  narrow rows (dim0 1, 37, 4099 x dim1 1, 2, 3, 61; softmax_backward and norm_chain, every dtype): failed checks")
    for k, v in sorted(bad.items()):
        print(f"    {k[0]} {k[1]} {k[2]}: {', '.join(v)}")

    r8 = unpack(tmp, os.path.join(HERE, "call8-norm-chain-16384-plans.tar.xz"))
    print("\n# 8. norm_chain float32 W = 16384 on six plans (FB_DEV_PLAN=kind,threads,upt,c; default: row_smem's 512 x 8), call 8")
    steps(r8, [])
    plans = ["default", "p1-1024-4-1", "p1-512-8-1", "p1-512-4-2", "p1-256-8-2", "p1-256-4-4"]
    for rnd in (1, 2):
        ts = {p: one(os.path.join(r8, f"r{rnd}-{p}.json")) for p in plans}
        _, sol = medians([os.path.join(r8, f"r{rnd}-default.json")])
        print(f"  round {rnd}: rows, us for " + ", ".join(plans) + ", the copy")
        for k in sorted(ts["default"], key=lambda k: k[1]):
            print(f"    {k[1]:5d} " + " ".join(f"{ts[p][k]:7.2f}" for p in plans) + f"   {sol[k]:7.2f}")


if __name__ == "__main__":
    main()
