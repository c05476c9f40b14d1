#!/usr/bin/env python3
"""tables.py — the H100 tables kernels/NOTES.md ("Stop 31") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.
"""
import contextlib
import io
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import by_cell, cells, geomean, peer_compare, text, unpack  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "scripts"))  # peer_compare.py's rounds
import peer_compare as pc  # noqa: E402


def medians(path, names=None):
    """{(K, M, N): {variant: (median us, reason)}} of a matmul result file (ok variants)."""
    out = {}
    for _, _, c in cells(path):
        p = c["point"]
        for n, v in c["variants"].items():
            if v.get("status") == "ok" and (names is None or n in names):
                out.setdefault((p.get("K"), p["M"], p["N"]), {})[n] = (v["time_ms"]["median"] * 1e3, v.get("reason", ""))
    return out


def tune_blocks(log):
    """The dev build's per-candidate tuning lines (FB_DEV_TUNE_LOG), one list per prepare."""
    blocks = []
    for line in log.splitlines():
        if not line.startswith("devtune"):
            continue
        if " cand 1/" in line:
            blocks.append([])
        blocks[-1].append(line)
    return blocks


def section1(r):
    print("# 1. call 1: matmul_bias bfloat16 N = K = 8192, tuned (.fused) and the heuristic's first (.heuristic)")
    print("#    three runs of one binary, then --timer cupti; torch.compile once (torch_peer); median us")
    for f in ("fb-1", "fb-2", "fb-3", "fb-cupti", "peer"):
        m = medians(os.path.join(r, f + ".json"))
        for key in sorted(m):
            for n, (t, why) in sorted(m[key].items()):
                algo = re.sub(r"^cuBLASLt algorithm: ", "", why)
                print(f"  {f:8s} M={key[1]:5d} {n:22s} {t:7.1f}  {algo}")
    print("  tuning's medians per candidate (ms; cold L2, 3-5 samples each), runs 1-3 and cupti:")
    for b in tune_blocks(text(r, "fb-1.txt")) + tune_blocks(text(r, "fb-2.txt")):
        print("   ", " ".join(re.search(r"ms ([\d.]+)", l).group(1) for l in b))


def section2(r):
    print("\n# 2. call 2 A: matmul_add.fused over matmul.tuned, bfloat16 K = 1024, runs in turn twice")
    print("#    (mm, add with 8 candidates, add with 32 asked, twice); t = mean of the two runs' medians")
    mm = [medians(os.path.join(r, f"mm-{i}.json")) for i in (1, 2)]
    a8 = [medians(os.path.join(r, f"add8-{i}.json")) for i in (1, 2)]
    a32 = [medians(os.path.join(r, f"add32-{i}.json")) for i in (1, 2)]
    one = lambda d, k: next(iter(d[k].values()))[0]
    r8, r32 = [], []
    print("      M      N   plain  add(8)  add(32)  add8/plain add32/plain")
    for k in sorted(mm[0]):
        p = sum(one(d, k) for d in mm) / 2
        x8 = sum(one(d, k) for d in a8) / 2
        x32 = sum(one(d, k) for d in a32) / 2
        r8.append(x8 / p)
        r32.append(x32 / p)
        print(f"  {k[1]:5d} {k[2]:6d} {p:7.1f} {x8:7.1f} {x32:8.1f}  {x8 / p:9.3f} {x32 / p:10.3f}")
    print(f"  geomean add(8)/plain {geomean(r8):.3f}, add(32)/plain {geomean(r32):.3f}; within 3%: "
          f"{sum(x <= 1.03 for x in r8)} and {sum(x <= 1.03 for x in r32)} of {len(r8)}")
    per = tune_blocks(text(r, "add32-1.txt"))
    print(f"  candidates cuBLASLt returned with 32 asked, per cell: {sorted(set(len(b) for b in per))}")
    print("\n# 3. call 2 B: matmul_bias bfloat16, default grid, fusionbench and torch.compile in ABBA order")
    fb = [medians(os.path.join(r, f), {"matmul_bias.fused"}) for f in ("fb-a.json", "fb-b.json")]
    pe = [medians(os.path.join(r, f), {"torch.compile"}) for f in ("peer-a.json", "peer-b.json")]
    keys = sorted(set(fb[0]) & set(fb[1]) & set(pe[0]) & set(pe[1]))
    t = lambda d, k: next(iter(d[k].values()))[0]
    g = lambda ks, i, j: geomean([t(pe[i], k) / t(fb[j], k) for k in ks])
    both = lambda k: (t(pe[0], k) * t(pe[1], k)) ** 0.5 / (t(fb[0], k) * t(fb[1], k)) ** 0.5
    print(f"  {len(keys)} cells; t_torch / t_fb geomean: a/a {g(keys, 0, 0):.3f}, b/b {g(keys, 1, 1):.3f}, "
          f"a/b {g(keys, 0, 1):.3f}, b/a {g(keys, 1, 0):.3f}")
    print(f"  run to run: fb b/a {geomean([t(fb[1], k) / t(fb[0], k) for k in keys]):.3f}, "
          f"torch b/a {geomean([t(pe[1], k) / t(pe[0], k) for k in keys]):.3f}")
    print(f"  both rounds a side (geometric mean of a and b): {geomean([both(k) for k in keys]):.3f}; "
          + ", ".join(f"K={K} {geomean([both(k) for k in keys if k[0] == K]):.3f}" for K in (1024, 8192)))
    for k in keys:
        if both(k) < 0.97:
            print(f"    K={k[0]} M={k[1]} N={k[2]}: fb {t(fb[0], k):.1f} {t(fb[1], k):.1f}, "
                  f"torch {t(pe[0], k):.1f} {t(pe[1], k):.1f} us ({both(k):.3f})")
    print("  the same from scripts/peer_compare.py, which combines each side's rounds (summary line):")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        pc.main([os.path.join(r, f) for f in ("fb-a.json", "fb-b.json", "peer-a.json", "peer-b.json")]
                + ["--min-bytes", "64000000"])
    print("   ", [ln for ln in out.getvalue().splitlines() if ln.startswith("rounds:")][0])
    print("   ", [ln for ln in out.getvalue().splitlines() if ln.startswith("matmul_bias ")][0])
    for name, path in (("fb-a", "fb-a.json"), ("fb-b", "fb-b.json")):
        for _, _, c in cells(os.path.join(r, path)):
            p = c["point"]
            if (p["K"], p["M"], p["N"]) == (8192, 2048, 8192):
                s = c["variants"]["matmul_bias.fused"]["samples_us"]
                print(f"  {name} 2048 x 8192 x 8192 samples in order (us): " + " ".join(f"{x:.0f}" for x in s[:36]))


def section4(r):
    print("\n# 4. call 3: Nsight Compute (its base clock, caches flushed), fusionbench's kernel beside torch.compile's")
    keys = ["Duration", "DRAM Throughput", "Registers Per Thread", "Block Size", "Grid Size",
            "Achieved Occupancy", "Executed Instructions", "Warp Cycles Per Issued Instruction",
            "Eligible Warps Per Scheduler", "L1/TEX Hit Rate", "L2 Hit Rate"]
    runs = ["fb-hrp-65536x128", "tc-hrp-65536x128", "fb-hrp-32768x256", "tc-hrp-32768x256", "fb-ln", "tc-ln"]
    vals, names = {}, {}
    for n in runs:
        t = text(r, f"ncu-{n}.txt")
        d = {}
        for m, u, v in re.findall(r"^\s+(\S.*?)\s{2,}(?:(\S+)\s+)?([\d.,]+)\s*$", t, re.M):
            d.setdefault(m.strip(), v + ("" if u in ("", "inst", "warp", "cycle") else " " + u))
        vals[n] = d
        k = re.search(r"^\s+(\S.*?)\s\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", t, re.M)
        names[n] = k.group(1)[:60] if k else "?"
    for n in runs:
        print(f"  {n:18s} {names[n]}")
    print("  " + " " * 36 + "".join(f"{n:>19s}" for n in runs))
    for key in keys:
        row = [next((v for m, v in vals[n].items() if m.startswith(key)), "-") for n in runs]
        print(f"  {key:36s}" + "".join(f"{x:>19s}" for x in row))


def section5(r):
    print("\n# 5. call 4: issue 6's cells behind torch.compile, both sides under each flush (median us)")
    print("   " + text(r, "selftest.txt").strip().splitlines()[-1])

    def load(f):
        out = {}
        for _, _, c in cells(os.path.join(r, f + ".json")):
            d = out.setdefault((c["row"], c["col"]), {})
            for n, v in c["variants"].items():
                if v.get("status") == "ok":
                    d[n.split(".")[-1]] = (v["time_ms"]["median"] * 1e3, v.get("check", {}).get("passed", True))
            d["sol"] = (c["sol"]["time_ms"]["median"] * 1e3, True)
        return out

    for case, name in (("hrp", "horizontal_reduction_pointwise"), ("ln", "layernorm")):
        print(f"  {name}")
        for f in ("write", "clean"):
            fb, pe = load(f"fb-{case}-{f}"), load(f"peer-{case}-{f}")
            ratios = []
            for k in sorted(fb):
                a, b = fb[k], pe[k]
                assert all(ok for _, ok in a.values()) and all(ok for _, ok in b.values())
                ratios.append(b["compile"][0] / a["fused"][0])
                extra = f" persistent {a['persistent'][0]:6.1f}" if "persistent" in a else ""
                print(f"    {f:5s} {k[0]:5d} x {k[1]:5d}: fused {a['fused'][0]:6.1f}{extra}  copy {a['sol'][0]:6.1f} | "
                      f"torch.compile {b['compile'][0]:6.1f}  copy {b['sol'][0]:6.1f} | t_torch / t_fused {ratios[-1]:.3f}")
            print(f"    {f:5s} geomean t_torch / t_fused {geomean(ratios):.3f}")


def section6(r):
    print("\n# 6. call 5: rowstream's short rows, t_base / t_arm per cell (runs 1, 2), write flush")
    print("#    base = the group team (8 lanes x 64 bytes at W = 128 float32); short32 / short8 = short_kernel")
    print("#    with at most 32 / 8 lanes a row; tpr32 = the group team forced to 32 lanes; upt1 = 1 unit a lane")
    arms = ["base", "short32", "short8", "tpr32", "upt1"]
    for c, name in (("p", "horizontal_reduction_pointwise"), ("r", "horizontal_reduction_reduction")):
        for d in ("float32", "bfloat16"):
            R = {a: [by_cell(os.path.join(r, f"{a}-{c}-{d}-{k}.json")) for k in (1, 2)] for a in arms}
            print(f"  {name} {d}")
            g = {a: [] for a in arms[1:]}
            for key in sorted(R["base"][0]):
                line = f"    {key[0]:5d} x {key[1]:3d} base {R['base'][0][key][0]:5.1f} us ({R['base'][0][key][1]:4.1f}%)"
                for a in arms[1:]:
                    rs = [R["base"][i][key][0] / R[a][i][key][0] for i in (0, 1)]
                    assert all(R[a][i][key][2] for i in (0, 1))
                    g[a] += rs
                    line += f" | {a} {rs[0]:.3f} {rs[1]:.3f}"
                print(line)
            print("    geomean " + ", ".join(f"{a} {geomean(g[a]):.3f}" for a in arms[1:]))
    pe = by_cell(os.path.join(r, "peer-hrp.json"))
    for a in ("base", "short32"):
        runs = [by_cell(os.path.join(r, f"{a}-p-float32-{k}.json")) for k in (1, 2)]
        q = [pe[k][0] / (runs[0][k][0] * runs[1][k][0]) ** 0.5 for k in sorted(pe)]
        print(f"  horizontal_reduction_pointwise float32, t_torch.compile / t_{a} (two runs' geometric mean): "
              f"geomean {geomean(q):.3f}")
    for f in ("odd-short32-p", "odd-short32-r", "odd-short8-p", "odd-short8-r"):
        n = sum(1 for _, _, c in cells(os.path.join(r, f + ".json")) for v in c["variants"].values()
                if v.get("status") == "ok" and v["check"]["passed"])
        print(f"  {f}: {n} cells ok and checked (every dtype, 1-4097 rows x 4-512)")
    print("  " + text(r, "selftest.txt").strip().splitlines()[-1])
    for c in "pr":
        print(f"  memcheck-{c}: " + [l for l in text(r, f"memcheck-{c}.txt").splitlines() if "ERROR SUMMARY" in l][0])


def section7(r):
    print("\n# 7. call 6: the short team as landed (fb42) against the stop's start (fb40), in turn twice")
    print("   " + text(r, "selftest.txt").strip().splitlines()[-1] + "; memcheck: "
          + [l for l in text(r, "memcheck.txt").splitlines() if "ERROR SUMMARY" in l][0].strip("= "))
    for d in ("float32", "bfloat16", "float16"):
        o = [by_cell(os.path.join(r, f"old-{d}-{k}.json")) for k in (1, 2)]
        n = [by_cell(os.path.join(r, f"new-{d}-{k}.json")) for k in (1, 2)]
        rs = []
        print(f"  {d}: rows x W  t_old / t_new (runs 1, 2)  % of SOL old -> new (run 1)")
        for k in sorted(o[0]):
            assert all(n[i][k][2] and o[i][k][2] for i in (0, 1))
            x = [o[i][k][0] / n[i][k][0] for i in (0, 1)]
            rs += x
            print(f"    {k[0]:5d} x {k[1]:3d}  {x[0]:.3f} {x[1]:.3f}  {o[0][k][1]:5.1f} -> {n[0][k][1]:5.1f}")
        print(f"    geomean {geomean(rs):.3f}")
        if os.path.exists(os.path.join(r, f"peer-{d}.json")):
            pe = by_cell(os.path.join(r, f"peer-{d}.json"))
            for nm, X in (("old", o), ("new", n)):
                q = [pe[k][0] / (X[0][k][0] * X[1][k][0]) ** 0.5 for k in sorted(pe)]
                print(f"    t_torch.compile / t_{nm}: geomean {geomean(q):.3f} (" + " ".join(f"{x:.3f}" for x in q) + ")")


def section8(r):
    print("\n# 8. call 7: horizontal_reduction_pointwise.fused (7a0be56) beside torch.compile, float32 whole grid and")
    print("#    bfloat16 16384-65536 rows (side_by_side.py, write flush both sides); peer_compare over each")
    print("   " + text(r, "selftest.txt").strip().splitlines()[-1])
    for d in ("f32", "bf16"):
        peer_compare(os.path.join(r, d))


def section9(r):
    print("\n# 9. call 8: the short team looping over longer rows (horizontal_reduction_pointwise, write flush)")
    print("#    t_base / t_arm (runs 1, 2) and % of SOL (run 1); jJ = short_kernel, J units a lane a step")
    for f in ("odd-j1", "odd-j4"):
        n = sum(1 for _, _, c in cells(os.path.join(r, f + ".json")) for v in c["variants"].values()
                if v.get("status") == "ok" and v["check"]["passed"])
        print(f"  {f}: {n} cells ok and checked (every dtype, 1, 3, 4097 rows x 1024, 1032, 4096, 40000)")
    for d, arms in (("bf16", ["j1", "j2", "j4"]), ("f32", ["j1", "j2"])):
        base = [by_cell(os.path.join(r, f"base-{d}-{k}.json")) for k in (1, 2)]
        A = {a: [by_cell(os.path.join(r, f"{a}-{d}-{k}.json")) for k in (1, 2)] for a in arms}
        print(f"  {d}")
        g = {a: [] for a in arms}
        for key in sorted(base[0]):
            line = f"    {key[0]:5d} x {key[1]:5d} base {base[0][key][0]:6.1f} us ({base[0][key][1]:4.1f}%)"
            for a in arms:
                assert all(A[a][i][key][2] for i in (0, 1))
                rs = [base[i][key][0] / A[a][i][key][0] for i in (0, 1)]
                g[a] += rs
                line += f" | {a} {rs[0]:.3f} {rs[1]:.3f} ({A[a][0][key][1]:4.1f}%)"
            print(line)
        print("    geomean " + ", ".join(f"{a} {geomean(g[a]):.3f}" for a in arms))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        section1(unpack(tmp, os.path.join(HERE, "call1-tuning-log.tar.xz")))
        section2(unpack(tmp, os.path.join(HERE, "call2-add-candidates-bias-abba.tar.xz")))
        section4(unpack(tmp, os.path.join(HERE, "call3-ncu-hrp-layernorm.tar.xz")))
        section5(unpack(tmp, os.path.join(HERE, "call4-flush-peers-selftest.tar.xz")))
        section6(unpack(tmp, os.path.join(HERE, "call5-short-rows-ab.tar.xz")))
        section7(unpack(tmp, os.path.join(HERE, "call6-short-rows-landed.tar.xz")))
        section8(unpack(tmp, os.path.join(HERE, "call7-hrp-peer-full-grid.tar.xz")))
        section9(unpack(tmp, os.path.join(HERE, "call8-short-long-rows.tar.xz")))


if __name__ == "__main__":
    main()
