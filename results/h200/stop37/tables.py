#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 37") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Every time is the median of a measurement's samples under --timer cupti (the sum of the GPU
durations of the measured run's kernels), both for fusionbench and for torch_peer. Every
fusionbench check the tables use passed (asserted).
"""
import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, geomean, peer_compare, print_steps as steps, text, unpack  # noqa: E402

ROW_CASES = ("layernorm", "softmax_backward", "double_softmax", "norm_chain", "softmax", "rmsnorm")
FOUR = ("layernorm", "norm_chain", "double_softmax", "softmax_backward")


def fused(path):
    """{(dtype, W, rows): (median us, kernel name)} of each cell's own NAME.fused, check asserted;
    cells a knob made unsupported are left out."""
    out = {}
    for case, d, c in cells(path):
        v = c["variants"][case + ".fused"]
        if "time_ms" not in v:
            continue
        assert v["check"]["passed"], (path, case, d, c["row"], c["col"])
        name = v["kernels_launched"]["names"][0].split("<")[0].split("::")[-1].replace("_kernel", "")
        out[(d, c["col"], c["row"])] = (v["time_ms"]["median"] * 1e3, name)
    return out


def mean_of(paths):
    """{key: (mean over the files of the median us, kernel of the first)}."""
    runs = [fused(p) for p in paths]
    return {k: (sum(r[k][0] for r in runs) / len(runs), runs[0][k][1]) for k in runs[0]}


def checks(r, names):
    """Each result file's cells and failed checks of the case's own variant (a memcheck or
    racecheck run times nothing, but checks every cell)."""
    for n in names:
        tot = bad = 0
        for case, _, c in cells(os.path.join(r, n + ".json")):
            v = c["variants"][case + ".fused"] if case + ".fused" in c["variants"] else None
            if v is None:
                continue
            tot += 1
            bad += not v.get("check", {}).get("passed")
        print(f"  {n}: {tot} cells of the case's own fused variant, {bad} failed")


def knob_tables(r, threads):
    """Per case of FOUR, the mean of two rounds' us at each FB_DEV_CTA_THREADS value (t0: unset,
    the engine's plan) and the best against t0; a value the knob could not take is nan."""
    for case in FOUR:
        runs = {t: mean_of([os.path.join(r, f"r{i}-{case}-t{t}.json") for i in (1, 2)]) for t in threads}
        print(f"  == {case}: W rows plan  " + " ".join(f"t{t}" for t in threads) + "  best")
        for k in sorted(runs[0]):
            m = {t: runs[t][k][0] for t in runs if k in runs[t]}
            best = min(m, key=m.get)
            print(f"    {k[1]:5d} {k[2]:6d} {runs[0][k][1]:10s} " + " ".join(f"{m.get(t, float('nan')):7.2f}" for t in threads)
                  + f"   t{best} {m[0] / m[best]:.3f}")


def section(n, title):
    print(f"\n# {n}. {title}")


def main():
    tmp = tempfile.mkdtemp()
    r = {i: unpack(tmp, os.path.join(HERE, f)) for i, f in (
        (1, "call1-group-lanes-checks-new.tar.xz"), (2, "call2-group-lanes-old.tar.xz"),
        (3, "call3-row-cases-vs-tc-cupti.tar.xz"), (4, "call4-cta-threads-knob.tar.xz"),
        (5, "call5-mid-rows-checks-ab-vs-tc.tar.xz"), (6, "call6-selftest-small-rows-cta-knob.tar.xz"),
        (7, "call7-verify-mid-rows.tar.xz"), (8, "call8-mid-rows-vs-tc.tar.xz"))}

    section(1, "the group kernel's straight-line lanes (calls 1-2): checks, then t_old / t_new, "
               "dim0 128..8192 x dim1 61..2048, clean flush")
    steps(r[1], ["st", "mc", "mc-rms", "rc-rms"])
    print("  (mc rc=1: the five cases' variants also ran on each other's programs, whose checks fail, and\n"
          "   softmax_backward's eager failed its check at 37 x 1 in float16 and bfloat16: 1 of 37 elements)")
    checks(r[1], ["mc", "mc-rms", "rc-rms"])
    for case in ROW_CASES:
        new, old = fused(os.path.join(r[1], f"new-{case}.json")), fused(os.path.join(r[2], f"old-{case}.json"))
        for d in ("float32", "bfloat16"):
            q = {k: old[k][0] / new[k][0] for k in new if k[0] == d}
            off = sorted((k, v) for k, v in q.items() if abs(v - 1) > 0.04)
            print(f"  {case:17s} {d:9s} geomean {geomean(list(q.values())):.3f}  range {min(q.values()):.3f}"
                  f"..{max(q.values()):.3f}  ({len(q)} cells)")
            for k, v in off:
                print(f"      W {k[1]:5d} rows {k[2]:5d}  {old[k][0]:6.2f} -> {new[k][0]:6.2f} us  {v:.3f}  {new[k][1]}")

    section(2, "the row cases beside torch.compile, float32, both sides cupti, write flush (call 3: bd38c82)")
    peer_compare(os.path.join(r[3], "sbs"))

    section(3, "float32 W = 1024, 2048 at 1024..65536 rows on a CTA of T threads (call 4, "
               "FB_DEV_CTA_THREADS; t0 = the engine's plan), mean of two rounds, us")
    knob_tables(r[4], (0, 64, 128, 256, 512))

    section(4, "plan_mid_rows (call 5): checks; t_before / t_after (FB_DEV_NOMID=1 / unset), two rounds, "
               "W = 1024, 1536, 2048 at 1024..65536 rows")
    steps(r[5], ["st", "mc-layernorm", "mc-norm_chain", "mc-double_softmax", "mc-softmax_backward"])
    for case in FOUR:
        new = [fused(os.path.join(r[5], f"r{i}-{case}-new.json")) for i in (1, 2)]
        old = [fused(os.path.join(r[5], f"r{i}-{case}-old.json")) for i in (1, 2)]
        q = []
        print(f"  == {case}: W rows  before -> after plan  us  t_before/t_after  (round 1 / round 2 of after)")
        for k in sorted(new[0]):
            o, n = sum(x[k][0] for x in old) / 2, sum(x[k][0] for x in new) / 2
            q.append(o / n)
            print(f"    {k[1]:5d} {k[2]:6d}  {old[0][k][1]:10s} -> {new[0][k][1]:10s} {o:8.2f} -> {n:8.2f}  {o / n:.3f}"
                  f"  ({new[0][k][0] / new[1][k][0]:.3f})")
        print(f"    geomean {geomean(q):.3f}")
    print("\n  beside torch.compile after plan_mid_rows (same call, GPUs 1-3; norm_chain on GPU 0, cut by its budget)")
    peer_compare(os.path.join(r[5], "sbs"))
    peer_compare(os.path.join(r[5], "sbs0"))

    section(5, "few rows (call 6: 51627b3 + FB_DEV_CTA_THREADS for W = 256..2048): the full selftest, "
               "racecheck; rows 128..512 on a CTA of T threads, mean of two rounds, us")
    steps(r[6], ["selftest", "rc-layernorm", "rc-softmax_backward"])
    knob_tables(r[6], (0, 32, 64, 128, 256))

    section(6, "3e91d13 as committed (call 7): checks; its times against call 6's engine plans (t0)")
    steps(r[7], ["st"] + [f"{k}-{c}" for c in FOUR for k in ("mc", "rc")])
    checks(r[7], [f"{k}-{c}" for c in FOUR for k in ("mc", "rc")])
    for case in FOUR:
        new = fused(os.path.join(r[7], f"t-{case}.json"))
        old = mean_of([os.path.join(r[6], f"r{i}-{case}-t0.json") for i in (1, 2)])
        q = [old[k][0] / new[k][0] for k in new if k in old]
        for k in sorted(new):
            if k in old:
                print(f"    {case:17s} W {k[1]:5d} rows {k[2]:5d}  {old[k][1]:10s} -> {new[k][1]:10s} {old[k][0]:6.2f} -> {new[k][0]:6.2f}  {old[k][0] / new[k][0]:.3f}")
        print(f"    {case} geomean {geomean(q):.3f}")

    section(7, "3e91d13 beside torch.compile on the cells it moved at few rows (call 8, one GPU, cupti, write flush)")
    d = os.path.join(tmp, "c8")
    os.makedirs(d)
    for f in os.listdir(r[8]):
        if f.endswith(".json"):
            os.symlink(os.path.join(r[8], f), os.path.join(d, f))
    peer_compare(d)


if __name__ == "__main__":
    main()
