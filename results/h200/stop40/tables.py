#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 40") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Calls 1-2 are issue 10 on the H200 (the events timer and clean flush of results/h100/issue10 in
call 1; side_by_side.py's cupti timer and write flush in call 2). Calls 3-6 are issue 9's short
float32 rows: what torch.compile runs there, forced group plans, the engine's load policy, and the
plain-row rule that landed. Every fusionbench check the tables use passed (asserted by
tarballs.medians); check runs' counts are printed as they are.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, geomean, medians, peer_compare, print_checks as checks, print_steps as steps, unpack  # noqa: E402

BW = 4.1e12  # the H200's copy rate, bytes/s (NOTES.md, "Stop 33")


def gemm_rates(path):
    """TFLOP/s of every variant at M = N = K = 8192 in a result file."""
    for c in json.load(open(path))["cases"]:
        for dt in c["dtypes"]:
            for cell in dt["cells"]:
                p = cell["point"]
                if (p.get("M"), p.get("N"), p.get("K")) != (8192, 8192, 8192):
                    continue
                out = []
                for n, v in cell["variants"].items():
                    if "time_ms" in v:
                        assert v["check"]["passed"], (path, c["name"], n)
                        t = v["time_ms"]["median"]
                        out.append(f"{n} {t * 1e3:.1f} us = {2 * 8192 ** 3 / t / 1e9:.0f} TFLOP/s")
                print(f"    {c['name']:16s} {dt['dtype']:9s} " + "; ".join(out))


def matmul_matmul(path):
    """t_eager / t_fused per cell, with S's round trip (2 M N bytes of the dtype each way) at the copy
    rate as a share of eager's time: where fused loses, and how big S is there."""
    worst, rows = 9.0, []
    for c in json.load(open(path))["cases"]:
        for dt in c["dtypes"]:
            for cell in dt["cells"]:
                p = cell["point"]
                v = cell["variants"]
                for n in ("eager", "matmul_matmul.fused"):
                    assert v[n]["check"]["passed"], (p, n)
                te, tf = v["eager"]["time_ms"]["median"] * 1e3, v["matmul_matmul.fused"]["time_ms"]["median"] * 1e3
                share = 2 * p["M"] * p["N"] * 2 / BW * 1e6 / te  # S written once and read once, 2 bytes an element
                rows.append((dt["dtype"], p["K"], p["M"], p["N"], te, tf, share))
    for r in rows:
        if r[5] > r[4]:
            print(f"    slower: {r[0]} K {r[1]} M {r[2]} N {r[3]}: eager {r[4]:.1f} us, fused {r[5]:.1f} "
                  f"(t_eager / t_fused {r[4] / r[5]:.3f}); S's round trip {100 * r[6]:.1f}% of eager")
            worst = min(worst, r[4] / r[5])
    for th in (0.03, 0.05):
        big = [r for r in rows if r[6] >= th]
        print(f"    cells where S's round trip is >= {100 * th:.0f}% of eager's time: {len(big)} of {len(rows)}, fused "
              f"faster on {sum(r[5] < r[4] for r in big)}; t_eager / t_fused there {min(r[4] / r[5] for r in big):.3f}.."
              f"{max(r[4] / r[5] for r in big):.3f}")
    print(f"    lowest t_eager / t_fused anywhere: {worst:.3f}")


def ab(r, name, old, new, rounds=(1, 2), label=None):
    """t_old / t_new per cell over rounds (geometric mean of each side's rounds)."""
    a = [medians([os.path.join(r, f"{name}-{old}-r{n}.json")])[0] for n in rounds]
    b = [medians([os.path.join(r, f"{name}-{new}-r{n}.json")])[0] for n in rounds]
    for v in sorted(next(iter(a[0].values()))):
        rs = []
        print(f"  == {label or name} {v}: rows x W (rmsnorm: T x N), t_{old} rounds | t_{new} rounds | t_{old} / t_{new}")
        for k in sorted(a[0], key=lambda k: (k[2], k[1])):
            to, tn = [m[k][v][0] for m in a], [m[k][v][0] for m in b]
            rs.append(geomean(to) / geomean(tn))
            print(f"    {k[1]:6d} x {k[2]:5d} " + " ".join(f"{x:7.2f}" for x in to) + " | " +
                  " ".join(f"{x:7.2f}" for x in tn) + f" | {rs[-1]:.3f}")
        print(f"    geomean {geomean(rs):.3f} over {len(rs)} cells, {min(rs):.3f}..{max(rs):.3f}")


def forced_groups(r):
    """Call 4: rmsnorm.row_engine on forced group plans (threads_upt_g_early) against the engine's own."""
    res = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(os.listdir(r)):
        if not (f.startswith("g-") and f.endswith(".json")):
            continue
        arm = f[2:-5].rsplit("-r", 1)[0]
        t = medians([os.path.join(r, f)])[0]
        for k, vs in t.items():
            for v, ts in vs.items():
                if v == "rmsnorm.row_engine":
                    res[(k[1], k[2])][arm.split("-", 1)[1]].append(ts[0])
    print("  [4, T, N] float32: rmsnorm.row_engine us, rounds 1 and 2, per plan (threads_units_lanes_early; base: the engine's)")
    for k in sorted(res, key=lambda k: (k[1], k[0])):
        print(f"    T {k[0]:5d} N {k[1]:4d}: " + "; ".join(f"{a} {'/'.join(f'{x:.2f}' for x in ts)}"
                                                      for a, ts in sorted(res[k].items())))


def ncu(r, names):
    keys = ("Duration", "Grid Size", "Block Size", "Registers Per Thread", "Executed Instructions",
            "Warp Cycles Per Issued Instruction", "Achieved Occupancy", "Memory Throughput")
    for n in names:
        got = {}
        for line in open(os.path.join(r, n + ".txt")):
            parts = line.split()
            for k in keys:
                kw = k.split()
                if parts[:len(kw)] == kw and k not in got and len(parts) > len(kw):
                    got[k] = " ".join(parts[len(kw):])
        print(f"    {n}: " + "; ".join(f"{k} {v}" for k, v in got.items()))


def triton_launch(r, name):
    src = open(os.path.join(r, name + ".txt")).read()
    tag = "[__output_code] "
    body = [l.split(tag, 1)[1] for l in src.splitlines() if tag in l]
    for l in body:
        s = l.strip()
        if s.startswith(("R0_BLOCK:", "tmp0 = tl.load", "tmp11 = tl.load")) or ".run(" in s:
            print(f"      {s}")


def main():
    tmp = tempfile.mkdtemp()
    r1 = unpack(tmp, os.path.join(HERE, "call1-issue10-h200.tar.xz"))
    print("# 1. call 1 (fb40a = 43e9ffe): issue 10 on the H200, events timer, clean flush")
    steps(r1, [])
    print("  GEMM throughput at M = N = K = 8192:")
    gemm_rates(os.path.join(r1, "mm8192.json"))
    gemm_rates(os.path.join(r1, "mm-bf16.json"))
    print("  matmul_matmul, bfloat16 and float16, default grids (K = 64, 128):")
    matmul_matmul(os.path.join(r1, "mm2.json"))
    print("  Is the epilogue free? scripts/epilogue_table.py over the bfloat16 grids:")
    out = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "epilogue_table.py"),
                          os.path.join(r1, "mm-bf16.json"), os.path.join(r1, "conv-bf16.json")],
                         capture_output=True, text=True)
    sys.stdout.write("    " + out.stdout.replace("\n", "\n    ").rstrip() + "\n" + out.stderr)
    for n in ("mm-bf16", "conv-bf16", "mm2"):
        checks(os.path.join(r1, n + ".json"))

    r2 = unpack(tmp, os.path.join(HERE, "call2-issue10-peers.tar.xz"))
    print("\n# 2. call 2 (fb40a): issue 10 beside torch.compile (bfloat16, cupti, write flush; issue 10's target: geomean >= 1.0x)")
    steps(r2, [])
    for d in ("mm", "mm2", "conv"):
        peer_compare(os.path.join(r2, d), "--min-geomean", "1.0")

    r3 = unpack(tmp, os.path.join(HERE, "call3-triton-ncu-peer-pdl.tar.xz"))
    print("\n# 3. call 3 (fb40a): torch.compile's rmsnorm kernel on short float32 rows; Nsight Compute; "
          "the peer's cupti timer on a dependent launch")
    steps(r3, [])
    for s in ("2048-512", "512-256", "2048-130", "512-128"):
        print(f"    Inductor at [4, {s.replace('-', ', ')}]:")
        triton_launch(r3, f"code-{s}")
    ncu(r3, ["ncu-triton-2048-512", "ncu-ours-2048-512", "ncu-triton-512-256", "ncu-ours-512-256"])
    # the cell call 2's peer could not time (a dependent launch across its marker), timed here
    late = {case: c["variants"]["torch.compile"]["time_ms"]["median"] * 1e3
            for case, _, c in cells(os.path.join(r3, "conv", "peer-conv-n32c512.json"))}
    for case, t_late in sorted(late.items()):
        fb = medians([os.path.join(r2, "conv", f"fb-{case}-bfloat16.json")])[0]
        pe = medians([os.path.join(r2, "conv", f"peer-{case}-bfloat16.json")])[0]
        rs = {k: pe[k]["torch.compile"][0] / fb[k][f"{case}.fused"][0] for k in fb if "torch.compile" in pe.get(k, {})}
        k = ("bfloat16", 32, 512)
        t_fb = fb[k][f"{case}.fused"][0]
        print(f"    {case} N = 32, C = 512, H = 14: torch.compile {t_late:.1f} us, fused (call 2) {t_fb:.1f} us: "
              f"{t_late / t_fb:.3f}x; geomean over call 2's {len(rs)} cells {geomean(list(rs.values())):.3f}x, "
              f"over the 9 {geomean(list(rs.values()) + [t_late / t_fb]):.3f}x")

    r4 = unpack(tmp, os.path.join(HERE, "call4-rmsnorm-group-plans.tar.xz"))
    print("\n# 4. call 4 (fb40b = 76e54b1 + FB_DEV_GROUP): rmsnorm's short float32 rows on forced group plans")
    forced_groups(r4)

    r5 = unpack(tmp, os.path.join(HERE, "call5-engine-load-policy.tar.xz"))
    print("\n# 5. call 5: the row engine's float32 row loads, evict_last (fb40b) / plain (fb40c), two rounds")
    for n in ("rms", "layernorm", "softmax_backward", "double_softmax", "norm_chain"):
        ab(r5, n, "fb40b", "fb40c")

    r6 = unpack(tmp, os.path.join(HERE, "call6-plain-rows-checks-rmsnorm-peers.tar.xz"))
    print("\n# 6. call 6: the plain-row rule at up to 2048 units an SM (fb40d) / before (fb40b); checks; rmsnorm beside the peers")
    steps(r6, ["st-rms-ln", "memcheck-rms", "memcheck-ln"])
    checks(os.path.join(r6, "memcheck-rms.json"))
    checks(os.path.join(r6, "memcheck-ln.json"))
    ab(r6, "rms", "fb40b", "fb40d", label="rmsnorm")
    ab(r6, "ln", "fb40b", "fb40d", label="layernorm")
    peer_compare(os.path.join(r6, "sbs"))


if __name__ == "__main__":
    main()
