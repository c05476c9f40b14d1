#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 47") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Call 1 validates and times stop 46's unrun work (dev/matmul_add_race_cudnn.patch on e4f1fc1, the
KSTEP = 32 forms, layernorm's parameter window); calls 2-6 ask why the own GEMM
(kernels/gemm_tma.cuh) trails cuBLASLt at K = 1024 with dev/gemm_add_dev.cu (CHECK lines asserted
"passed" unless the step was a known failure; TIME lines: median us, TFLOP/s, median over rounds of
t / t(cuBLASLt plain) of the same round; ENERGY lines: n back-to-back runs a side, NVML's board
energy counter); calls 7-8 run matmul_add.own's eight forms (177871c) in fusionbench.
"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py
from tarballs import cells, geomean, pair_ratios, print_steps as steps, text, unpack  # noqa: E402

CALLS = [
    ("call1-race-cudnn-k32-layernorm-window.tar.xz",
     "1. matmul_add.fused racing matmul_add.cudnn too (fb47r = e4f1fc1 + the patch); KSTEP = 32 (a bug);"
     " layernorm W = 65536 with its parameters L1-resident (fb46w), rowcopy_wide",
     ["selftest", "st-odd", "st-conv", "memcheck"]),
    ("call2-gemm-k32-fixed.tar.xz", "2. KSTEP = 32 with the second warpgroup's A rows fixed (0da1c56)",
     ["g-memcheck", "g-racecheck"]),
    ("call3-gemm-ncu-k1024-vs-cublaslt.tar.xz",
     "3. Nsight Compute (locked clock) at 8192 x 8192 x 1024: cuBLASLt, own one CTA, own cluster of 2; traces", []),
    ("call4-gemm-evict-first-cp-async-illegal.tar.xz",
     "4. dev/gemm_evict_first.patch, first form: the hinted cp.async raised an illegal instruction", []),
    ("call5-gemm-evict-first-timed.tar.xz",
     "5. dev/gemm_evict_first.patch: ncu and timings, evict_first 0/1 (a3: D by cp.async, a0: by TMA)", []),
    ("call6-gemm-energy.tar.xz", "6. time and energy a GEMM back to back (GEMM_ENERGY)", []),
    ("call7-matmul-add-own-eight-forms.tar.xz",
     "7. matmul_add.own racing eight forms (fb47k = 177871c): selftest, memcheck, both half types' grids",
     ["selftest", "memcheck"]),
    ("call8-matmul-add-odd-and-bf16-again.tar.xz", "8. fb47k: the odd shapes in full, the bfloat16 grid again",
     ["st-odd"]),
]
# steps whose CHECK lines fail by design or by the bug the call found
KNOWN_FAILING = {("call1-race-cudnn-k32-layernorm-window.tar.xz", n) for n in
                 ("g-odd", "g-tiny", "g-memcheck", "g-racecheck", "trace", "g-8k", "g-16k2k", "g-2k", "g-8k8k")}


def dev_lines(tar, r):
    """CHECK (asserted passed unless known to fail), TIME, TRACE and ENERGY lines of every dev step."""
    out = []
    for name in sorted(os.listdir(r)):
        if not name.endswith(".txt") or name.startswith(("ncu", "steps", "gpus", "ln", "nc-", "mm", "st", "selftest",
                                                          "memcheck", "version", "rowcopy")):
            continue
        known = (tar, name[:-4]) in KNOWN_FAILING or "-ev1-a3-" in name or name in ("ev-odd.txt", "ev-odd3.txt",
                                                                                   "ev-tiny3.txt", "f16-ev1.txt")
        for l in text(r, name).splitlines():
            if l.startswith("CHECK"):
                assert "passed" in l or known, (tar, name, l)
                if "FAILED" in l:
                    out.append(f"  [{name[:-4]}] {l}")
            elif l.startswith(("TIME", "TRACE", "ENERGY")) or "illegal instruction" in l:
                out.append(f"  [{name[:-4]}] {l}")
    return out


def ncu_lines(r):
    out = []
    for name in sorted(os.listdir(r)):
        if not (name.startswith("ncu") and name.endswith(".txt")):
            continue
        t = text(r, name)
        k = re.search(r"^\s+(\S.*?) \(\d+, \d+, \d+\)x\(\d+, 1, 1\)", t, re.M)
        vals = {m: re.search(r"^\s+" + re.escape(m) + r"\s+\S+\s+([\d.,]+)\s*$", t, re.M)
                for m in ("SM Frequency", "Duration", "DRAM Throughput", "L2 Cache Throughput", "L2 Hit Rate",
                          "Compute (SM) Throughput")}
        failed = "LaunchFailed" in t
        out.append(f"  [{name[:-4]}] {k.group(1)[:60] if k else '?'}: " +
                   ("launch failed (the hinted cp.async)" if failed else
                    ", ".join(f"{m} {v.group(1)}" for m, v in vals.items() if v)))
    return out


def matmul_grid(path):
    """Each paired variant's median t / t(matmul.tuned) per cell, what matmul_add.fused and
    matmul_add.own kept (their prepare notes), geomeans."""
    cols = {}
    for (d, m, n), vs in sorted(pair_ratios(path).items()):
        row = []
        for v, (r, _) in vs.items():
            cols.setdefault(v, []).append(r)
            row.append(f"{v.split('.')[-1]} {r:.3f}")
        kept = vs.get("matmul_add.fused", (0, ""))[1]
        kept = kept.split(":")[0] if kept.startswith("matmul_add.") else "cuBLASLt"
        own = re.search(r"own TMA GEMM, (.*?) \(fastest", vs.get("matmul_add.own", (0, ""))[1])
        print(f"  {d:<9} {m:>6} x {n:<6} " + "  ".join(row) + f"   fused ran: {kept}" +
              (f"; own kept: {own.group(1)}" if own else ""))
    for v, xs in cols.items():
        print(f"  geomean {v}: {geomean(xs):.3f} over {len(xs)} cells")


def layernorm_window(r):
    """Call 1's layernorm W = 65536 % of SOL: as committed, with the parameter window (fails its
    check by design: timed anyway), norm_chain; two rounds."""
    def sol(name, variant):
        return [round(c["variants"][variant]["sol_pct"], 1) for _, _, c in cells(os.path.join(r, name))]
    print("  float32, W = 65536, dim0 128, 512, 2048, 8192, 32768: fused % of SOL")
    for rnd in (1, 2):
        print(f"    round {rnd}: layernorm {sol(f'ln-{rnd}.json', 'layernorm.fused')}; "
              f"window {sol(f'ln-window-{rnd}.json', 'layernorm.fused')}; "
              f"norm_chain {sol(f'nc-{rnd}.json', 'norm_chain.fused')}")
    print("  rowcopy_wide (a copy in row_smem's shape; % of memcpy):")
    print("    " + text(r, "rowcopy.txt").rstrip().replace("\n", "\n    "))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for tar, title, names in CALLS:
            print(f"== {title} ({tar})")
            r = unpack(tmp, os.path.join(HERE, tar))
            steps(r, [n for n in names if os.path.exists(os.path.join(r, n + ".txt"))])
            for l in dev_lines(tar, r) + ncu_lines(r):
                print(l)
            for name in ("mm-bf16.json", "mm-f16.json", "mm-f32.json"):
                if os.path.exists(os.path.join(r, name)):
                    print(f"  {name}: t / t(matmul.tuned), the median of the pairs' ratios (1.000: the add is free)")
                    matmul_grid(os.path.join(r, name))
            if os.path.exists(os.path.join(r, "ln-1.json")):
                layernorm_window(r)
            print()


if __name__ == "__main__":
    main()
