#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 46") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Calls 1-12 build and measure an own GEMM for matmul_add (kernels/gemm_tma.cuh) with
dev/gemm_add_dev.cu: every side is checked against float64 on 4096 sampled outputs first (its
CHECK lines, asserted "passed" here), then timed in turn with cuBLASLt's plain GEMM (TIME lines:
median us, TFLOP/s, median over rounds of t / t(cuBLASLt plain) of the same round). TRACE lines
are clock64 stamps of the first consumer warp, per tile (cycles, median / p90). Call 1 also
validates stop 45's unrun commits (a9108e2, 075c8a1); call 12 runs matmul_add.own in fusionbench
(30b4c41 + the loader-warp fix).
"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py
from tarballs import geomean, pair_ratios, print_steps as steps, text, unpack  # noqa: E402

CALLS = [
    ("call1-gemm-tma-first-stop45-checks.tar.xz",
     "1. the first own GEMM (release.cluster arrivals), and stop 45's commits a9108e2 + 075c8a1",
     ["selftest", "st-odd", "memcheck"]),
    ("call2-gemm-tma-stages-epilogues-ncu.tar.xz",
     "2. 3 vs 4 stages, an epilogue from registers (d), Nsight Compute on the 3-stage kernel", ["memcheck"]),
    ("call3-gemm-tma-cluster-grid-ncu-vs-cublas.tar.xz",
     "3. the cluster form with fewer CTAs (GEMM_GRID); Nsight Compute on cuBLASLt's kernel and ours", []),
    ("call4-gemm-tma-release-cta.tar.xz", "4. stage releases at CTA scope (mbarrier.arrive.shared::cluster)", []),
    ("call5-gemm-tma-store-warp-stmatrix.tar.xz", "5. a store warp, stmatrix / ldmatrix epilogue", ["memcheck"]),
    ("call6-gemm-tma-store-warp-loads-d-ncu-source.tar.xz",
     "6. D loaded by the store warp; Nsight Compute's source-level stall sampling", ["memcheck"]),
    ("call7-gemm-tma-trace-l2-prefetch.tar.xz", "7. per-tile traces; next tile's operands prefetched into L2", []),
    ("call8-gemm-tma-batched-ldmatrix-d-spread.tar.xz",
     "8. four ldmatrix in flight; D's boxes one a k-step by the producer", ["memcheck"]),
    ("call9-gemm-tma-d-prefetch.tar.xz", "9. D one tile ahead into L2 (1: TMA prefetch, 2: prefetch.global.L2)",
     ["memcheck-d2"]),
    ("call10-gemm-tma-d-cp-async.tar.xz", "10. D by one warp's cp.async (a1) against the producer's TMA (a0)",
     ["memcheck-a1"]),
    ("call11-gemm-tma-d-three-loader-warps-bug.tar.xz",
     "11. D by three warps' cp.async: a bug (warp 0's idle lanes ran the loaders' branch), no timing", []),
    ("call12-matmul-add-own-fusionbench-loader-fix.tar.xz",
     "12. the fix; matmul_add.own in fusionbench: selftest, memcheck, the bfloat16 K = 1024 grid",
     ["memcheck-a3", "selftest", "st-odd", "memcheck"]),
    ("call13-matmul-add-fused-races-own.tar.xz",
     "13. matmul_add.fused racing cuBLASLt against matmul_add.own (b8e11d6's tree): selftest, both half types' grids,"
     " memcheck, racecheck of the own kernel", ["selftest", "memcheck", "racecheck-a3"]),
]


def dev_lines(r):
    """The CHECK (asserted passed unless the step failed), TIME and TRACE lines of every dev step."""
    out = []
    for name in sorted(os.listdir(r)):
        if not (name.startswith(("g-", "g", "trace", "grid")) and name.endswith(".txt")):
            continue
        t = text(r, name)
        if "lt_plain" not in t and "TRACE" not in t:
            continue
        for l in t.splitlines():
            if l.startswith("CHECK"):
                assert "passed" in l, (r, name, l)
            elif l.startswith(("TIME", "TRACE")):
                out.append(f"  [{name[:-4]}] {l}")
    return out


def own_grid(path, before=None):
    """matmul_add.fused and matmul_add.own over their paired plain GEMM, per cell, with geomeans;
    `before`: an earlier file whose matmul_add.fused (cuBLASLt alone) is shown beside."""
    now = pair_ratios(path)
    old = pair_ratios(before) if before else {}
    print("  t / t(matmul.tuned), the median of the pairs' ratios (1.000: the add is free)")
    hdr = "  dtype        M x N          " + ("fused (call 12: cuBLASLt only)  " if old else "") + "fused   own   fused ran"
    print(hdr)
    cols = {"fused": [], "own": [], "old": []}
    for k in sorted(now):
        f, note = now[k]["matmul_add.fused"]
        o = now[k]["matmul_add.own"][0]
        cols["fused"].append(f), cols["own"].append(o)
        prev = old.get(k, {}).get("matmul_add.fused")
        if prev:
            cols["old"].append(prev[0])
        ran = note.split(";")[0] if note.startswith("own") else "cuBLASLt"
        print(f"  {k[0]:<9} {k[1]:>6} x {k[2]:<6}  " + (f"{prev[0]:>12.3f}                    " if old else "")
              + f"{f:>6.3f} {o:>6.3f}   {ran}")
    for name, v in cols.items():
        if v:
            print(f"  geomean {name}: {geomean(v):.3f} over {len(v)} cells")


def main():
    call12 = None
    with tempfile.TemporaryDirectory() as tmp:
        for tar, title, names in CALLS:
            print(f"== {title} ({tar})")
            r = unpack(tmp, os.path.join(HERE, tar))
            steps(r, [n for n in names if os.path.exists(os.path.join(r, n + ".txt"))])
            for l in dev_lines(r):
                print(l)
            for n in ("ncu-lt", "ncu-c2", "ncu-c1", "ncu-s3"):
                if os.path.exists(os.path.join(r, n + ".txt")):
                    t = text(r, n + ".txt")
                    k = re.search(r"^\s+(\S.*?) \(\d+, \d+, \d+\)x\(\d+, 1, 1\)", t, re.M)
                    vals = {m: re.search(r"^\s+" + re.escape(m) + r"\s+\S+\s+([\d.,]+)\s*$", t, re.M)
                            for m in ("Duration", "L2 Cache Throughput", "DRAM Throughput", "Compute (SM) Throughput")}
                    print(f"  [{n}] {k.group(1)[:70] if k else '?'}: " +
                          ", ".join(f"{m} {v.group(1)}" for m, v in vals.items() if v))
            if os.path.exists(os.path.join(r, "mm-own.json")):
                own_grid(os.path.join(r, "mm-own.json"))
                call12 = os.path.join(r, "mm-own.json")
            for name in ("mm-bf16.json", "mm-f16.json"):
                if os.path.exists(os.path.join(r, name)):
                    own_grid(os.path.join(r, name), call12 if name == "mm-bf16.json" else None)
            print()


if __name__ == "__main__":
    main()
