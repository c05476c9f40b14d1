#!/usr/bin/env python3
"""tables.py — the H100 tables kernels/NOTES.md ("Stop 29") cites, from calls 3 and 7:
`python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed (torch neither:
scripts/peer_compare.py reads the result files).
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, peer_compare, text, times_by_rows as times, unpack  # noqa: E402


def pairs_ab(r):
    print("# 2. W = 32768 float32, --flush write: the plan past 528 rows, one 1024-thread CTA an SM (pairs0)")
    print("#    against two 512-thread CTAs an SM (pairs1), one binary (FB_DEV_PAIRS), each run once;")
    print("#    norm_chain and layernorm a second time after the looped table's rerun (-b)")
    print("#    At 133..528 rows every op runs pairs in both columns (the same plan: the run's noise).")
    for case in ("norm_chain", "layernorm", "double_softmax", "softmax_backward"):
        runs = [("", times(os.path.join(r, f"{case}-pairs0.json")), times(os.path.join(r, f"{case}-pairs1.json")))]
        if os.path.exists(os.path.join(r, f"{case}-pairs0-b.json")):
            runs.append(("-b", times(os.path.join(r, f"{case}-pairs0-b.json")), times(os.path.join(r, f"{case}-pairs1-b.json"))))
        print(f"{case}: rows  one CTA us (% of SOL)   pairs us (% of SOL)   t_pairs / t_one")
        for tag, a, b in runs:
            for rows in sorted(a):
                ta, sa, ca = a[rows]
                tb, sb, cb = b[rows]
                assert ca and cb, "a failed check"
                print(f"  {rows:6d}{tag:<3} {ta:9.1f} ({100 * sa / ta:5.1f})   {tb:9.1f} ({100 * sb / tb:5.1f})   {tb / ta:.3f}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r3 = unpack(tmp, os.path.join(HERE, "call3-pairs-ab.tar.xz"))
        print(text(r3, "gpus.txt").strip())
        print("# 1. dev/looped_rows_dev.cu (norm_chain's math at W = 32768: held in a 1024-thread CTA against")
        print("#    looped forms re-reading the row from L2), --flush write, two runs")
        print(text(r3, "looped-write.txt").strip())
        print(text(r3, "looped-write2.txt").strip().split("\n", 3)[3])
        pairs_ab(r3)
        r7 = unpack(tmp, os.path.join(HERE, "call7-norm-chain-peer.tar.xz"))
        print("# 3. call 7, fb30 (norm_chain without pairs): selftest --case norm_chain, memcheck")
        print("  " + [ln for ln in text(r7, "selftest-norm_chain.txt").splitlines() if ln.startswith("selftest:")][-1])
        print("  " + [ln for ln in text(r7, "memcheck-norm_chain.txt").splitlines() if "ERROR SUMMARY" in ln][-1].strip("= "))
        print("# 4. beside torch.compile (--flush write both sides, a compile per cell): norm_chain's full")
        print("#    float32 grid, bias_gelu's W = 8192..65536 columns")
        peer_compare(os.path.join(r7, "sbs"), "--targets")
        fb = os.path.join(r7, "sbs", "fb-norm_chain-float32.json")
        big = [(c["row"], c["col"], c["variants"]["norm_chain.fused"]) for _, _, c in cells(fb) if c["ideal_bytes"] >= 64e6]
        low = [f"{r} x {w} {v['sol_pct']:.1f}%" for r, w, v in big if v["sol_pct"] < 90]
        modes = sorted({v["check"]["mode"] for _, _, c in cells(fb) for v in c["variants"].values()})
        print(f"norm_chain.fused (call 7, write flush): {len(big)} cells of >= 64 MB, under 90% of SOL: {len(low)} "
              f"({', '.join(low) or 'none'}); every check passed: "
              f"{all(v['check']['passed'] for _, _, c in cells(fb) for v in c['variants'].values())} ({', '.join(modes)})")
        r8 = unpack(tmp, os.path.join(HERE, "call8-long-rows-peer.tar.xz"))
        print("\n# 5. call 8: fb30 beside torch.compile where the H200 lost (--flush write, a compile per cell):")
        print("#    layernorm and softmax_backward at W = 16384..65536, horizontal_reduction_pointwise at")
        print("#    16384..65536 rows; the call's budget stopped softmax_backward at 22 cells, HRP at 26")
        print(text(r8, "sbs/lanes.txt").strip())
        peer_compare(os.path.join(r8, "sbs"))


if __name__ == "__main__":
    main()
