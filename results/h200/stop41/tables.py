#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 41") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Calls 1-2 are issue 10's full add: every cuBLASLt configuration of the plain GEMM and of the add
(dev/lt_algo_sweep_dev.cu). Calls 3, 4 and 6 are issue 9's unaligned short rows (N = 130, 61) on
forced plans (dev/row_plan_knob.patch's FB_DEV_GROUP, and knobs of the call's build: K_SMEM tiles
on 32 lanes, FB_DEV_TILE; scalar group rows with early parameters). Call 4 also reads layernorm
4096 x 2048 under Nsight Compute beside torch.compile's kernel, and call 5 times it beside
torch.compile under both flushes, with rmsnorm_backward's % of SOL in every dtype. Call 9 reads [4, 512, 130] under Nsight Compute
and finishes call 7's bfloat16 side-by-side run. Every fusionbench check the tables use passed
(asserted by tarballs.medians).
"""
import collections
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, geomean, medians, peer_compare, print_checks as checks, print_steps as steps, unpack  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "stop40"))
from tables import ncu, triton_launch  # noqa: E402  (stop 40's readers of the same files)


def sweep(r, name):
    """One lt_algo_sweep_dev run: per side, the configurations accepted and timed, each algorithm
    id's fastest first sample, the heuristic's best and the search's best."""
    side = None
    for line in open(os.path.join(r, name + ".txt")):
        line = line.rstrip()
        if line.startswith("NVIDIA") or line.startswith("RESULT"):
            print(f"    {line}")
        elif line.startswith("== "):
            side = line[3:].split(":")[0]
            print(f"    {line[3:]}")
        elif line.startswith("  id ") or line.startswith("timed ") or line.startswith("best of"):
            print(f"      {line.strip()}")
        elif side and re.match(r"\s+0\s+[0-9.]+ ms", line):
            print(f"      fastest: {line.strip()}")


def forced(r, prefix, variant):
    """Forced plans (the file's arm) against the engine's own ('base'): us per round, and t_base / t_arm."""
    res = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(os.listdir(r)):
        if not (f.startswith(prefix + "-") and f.endswith(".json")):
            continue
        dt, arm, rnd = re.match(rf"{prefix}-(\w+?)-(\w+)-(r\d)\.json", f).groups()
        t = medians([os.path.join(r, f)])[0]
        for k, vs in t.items():
            res[(dt, k[1], k[2])][arm].append(vs[variant][0])
    print(f"  {variant}, [4, T, N]: us in rounds 1 and 2 per plan; t_base / t_plan")
    for k in sorted(res):
        base = geomean(res[k]["base"])
        print(f"    {k[0]:8s} T {k[1]:5d} N {k[2]:4d}: " + "; ".join(
            f"{a} {'/'.join(f'{x:.2f}' for x in ts)} ({base / geomean(ts):.2f})" for a, ts in sorted(res[k].items())))


def rounds61(r, short=False):
    """[4, T, 61] per dtype and T: every variant's us in the call's two rounds (n61-r1, n61-r2)."""
    t = [medians([os.path.join(r, f"n61-r{n}.json")])[0] for n in (1, 2)]
    print("  [4, T, 61]: us in rounds 1 and 2")
    for k in sorted(t[0]):
        print(f"    {k[0]:8s} T {k[1]:5d}: " + "; ".join(
            f"{v.split('.')[1] if short else v} {'/'.join(f'{m[k][v][0]:.2f}' for m in t)}" for v in sorted(t[0][k])))


def main():
    tmp = tempfile.mkdtemp()
    r1 = unpack(tmp, os.path.join(HERE, "call1-lt-sweep-first.tar.xz"))
    print("# 1. call 1: every cuBLASLt configuration, plain (beta = 0) and add (beta = 1, C = D), bfloat16, "
          "cold L2, a time budget a side (ids in enumeration order: the budget ran out inside id 66)")
    steps(r1, [])
    for n in ("sweep-8192x16384x1024", "sweep-8192x8192x1024"):
        sweep(r1, n)

    r2 = unpack(tmp, os.path.join(HERE, "call2-lt-sweep-all-ids.tar.xz"))
    print("\n# 2. call 2: the same, algorithm ids sampled in turn (every id reached)")
    steps(r2, [])
    for n in ("sweep-8192x8192x1024", "sweep-2048x2048x1024", "sweep-128x8192x1024"):
        sweep(r2, n)

    r3 = unpack(tmp, os.path.join(HERE, "call3-rmsnorm-130-scalar-group.tar.xz"))
    print("\n# 3. call 3 (fb41k = ec46494 + dev/row_plan_knob.patch): rmsnorm N = 130 on scalar group plans "
          "(threads_units_lanes_early_vec), cupti, write flush, two rounds")
    forced(r3, "g", "rmsnorm.row_engine")
    forced(r3, "g", "rmsnorm.fused")

    r4 = unpack(tmp, os.path.join(HERE, "call4-rmsnorm-130-tiles-layernorm-ncu.tar.xz"))
    print("\n# 4. call 4 (fb41t = fb41k + K_SMEM tiles on 32 lanes, FB_DEV_TILE=rows,lanes): rmsnorm N = 130 "
          "on tiles; layernorm float32 4096 x 2048 under Nsight Compute")
    steps(r4, [])
    forced(r4, "t", "rmsnorm.row_engine")
    forced(r4, "t", "rmsnorm.fused")
    ncu(r4, ["ncu-fb", "ncu-tc"])
    print("    Inductor at 4096 x 2048:")
    triton_launch(r4, "code-tc")

    r5 = unpack(tmp, os.path.join(HERE, "call5-rmsnorm-backward-sol-layernorm-flushes.tar.xz"))
    print("\n# 5. call 5 (fb41t): rmsnorm_backward % of SOL (events, clean flush); layernorm beside "
          "torch.compile under each flush (cupti, two rounds)")
    steps(r5, [])  # (the ncu-rmsb steps profiled the flush kernels, not the backward: a launch-skip too small; unused)
    checks(os.path.join(r5, "rmsb.json"))
    for _, dt, c in cells(os.path.join(r5, "rmsb.json")):
        p = c["point"]
        if 4 * p["T"] * p["N"] < 16 * 2 ** 20:
            continue
        t = c["variants"]["rmsnorm_backward.fused"]["time_ms"]["median"] * 1e3
        sol = c["sol"]["time_ms"]["median"] * 1e3
        print(f"    {dt:8s} [4, {p['T']:4d}, {p['N']:5d}]: fused {t:8.2f} us, copy {sol:8.2f}: {100 * sol / t:5.1f}% of SOL")
    for fl in ("clean", "write"):
        print(f"  == layernorm float32 beside torch.compile, {fl} flush")
        peer_compare(os.path.join(r5, f"sbs-ln-{fl}"))

    r6 = unpack(tmp, os.path.join(HERE, "call6-rmsnorm-scalar-early-groups.tar.xz"))
    print("\n# 6. call 6 (fb41e = fb41k + scalar group rows with early parameters): rmsnorm N = 130 and 61")
    for w in ("e130", "e61"):
        forced(r6, w, "rmsnorm.row_engine")
        forced(r6, w, "rmsnorm.fused")

    r7 = unpack(tmp, os.path.join(HERE, "call7-scalar-early-landed-checks-peers.tar.xz"))
    print("\n# 7. call 7 (fb41f = the tree with plan_scalar_early): checks; rmsnorm N = 61 as landed; rmsnorm "
          "beside torch.compile (cupti, write flush, one round; bfloat16 cut at the budget)")
    steps(r7, ["st-rms-ln", "memcheck-rms", "memcheck-ln"])
    checks(os.path.join(r7, "memcheck-rms.json"))
    checks(os.path.join(r7, "memcheck-ln.json"))
    rounds61(r7)
    peer_compare(os.path.join(r7, "sbs"))

    r8 = unpack(tmp, os.path.join(HERE, "call8-rmsnorm-half-61-landed.tar.xz"))
    print("\n# 8. call 8 (fb41g = the tree: rmsnorm.fused takes the engine on the half types' unaligned rows "
          "of 33..64): checks; [4, T, 61] every variant, every dtype the engine runs, two rounds")
    steps(r8, ["st-rms", "memcheck-rms"])
    checks(os.path.join(r8, "memcheck-rms.json"))
    rounds61(r8, short=True)

    r9 = unpack(tmp, os.path.join(HERE, "call9-rmsnorm-130-ncu-bf16-peers.tar.xz"))
    print("\n# 9. call 9 (fb41h = the tree at 6eefd56's kernels): rmsnorm [4, 512, 130] float32 under Nsight "
          "Compute, ours and Inductor's; call 7's bfloat16 side-by-side run on to the end (the fusionbench file "
          "is call 7's, whole; torch.compile's last 14 shapes are this call's)")
    steps(r9, [])
    ncu(r9, ["ncu-ours", "ncu-triton"])
    peer_compare(os.path.join(r9, "sbs"))


if __name__ == "__main__":
    main()
