#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 29") cites, from calls 2, 4 and 6:
`python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed (torch neither:
scripts/peer_compare.py reads the result files). Each call compares programs on one card in one
sitting; none of it replaces an H100 figure.
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, peer_compare, text, times_by_rows as times, unpack  # noqa: E402


def main():
    print("# 1. call 2: dev/looped_rows_dev.cu, --flush write (two H200s; GPU 0)")
    print(open(os.path.join(HERE, "call2-looped-write.txt")).read().strip())
    with tempfile.TemporaryDirectory() as tmp:
        r4 = unpack(tmp, os.path.join(HERE, "call4-norm-chain-bias-gelu.tar.xz"))
        print("# 2. call 4: norm_chain.fused at W = 32768, float32, --flush write, GPU 0: fb29 (pairs past")
        print("#    528 rows) against fb30 (one 1024-thread CTA an SM), alternated, two runs each (a, b)")
        print(text(r4, "gpus.txt").strip())
        runs = {k: times(os.path.join(r4, f"nc-{k}.json")) for k in ("fb29-a", "fb30-a", "fb29-b", "fb30-b")}
        print("    rows " + "".join(f"{k:>20}" for k in runs) + "   t_fb29 / t_fb30 (a, b)")
        for rows in sorted(runs["fb29-a"]):
            assert all(runs[k][rows][2] for k in runs), "a failed check"
            cols = "".join(f"{runs[k][rows][0]:10.1f} ({100 * runs[k][rows][1] / runs[k][rows][0]:5.1f}%)" for k in runs)
            print(f"  {rows:6d} {cols}   {runs['fb29-a'][rows][0] / runs['fb30-a'][rows][0]:.3f}, "
                  f"{runs['fb29-b'][rows][0] / runs['fb30-b'][rows][0]:.3f}")
        print("# 3. call 4: fb30 beside torch.compile, full float32 grids (norm_chain on GPU 0, bias_gelu on GPU 1)")
        peer_compare(os.path.join(r4, "sbs"))
        r6 = unpack(tmp, os.path.join(HERE, "call6-eight-cases-eager.tar.xz"))
        print("\n# 4. call 6 (four H200s): fb30 eager + fused beside torch.eager + torch.compile, float32, a lane")
        print("#    of cases per GPU; the call's budget stopped four peers part-way (softmax, double_softmax,")
        print("#    bias_gelu, horizontal_reduction_reduction: 49-67 cells); three cases never started")
        print(text(r6, "sbs/lanes.txt").strip())
        peer_compare(os.path.join(r6, "sbs"))
        print("\n# 5. call 6: layernorm at W = 32768, the samples' spread (us): fused falls in two modes from")
        print("#    1024 rows (median far above p20 or p80 far above the median), torch.compile does not")
        fb, peer = (os.path.join(r6, "sbs", f"{s}-layernorm-float32.json") for s in ("fb", "peer"))
        tc = {c["row"]: c["variants"]["torch.compile"]["time_ms"] for _, _, c in cells(peer) if c["col"] == 32768}
        for _, _, c in cells(fb):
            if c["col"] != 32768:
                continue
            parts = []
            for name, t in (("fused", c["variants"]["layernorm.fused"]["time_ms"]), ("torch.compile", tc[c["row"]])):
                parts.append(f"{name} " + " ".join(f"{k} {t[k] * 1e3:7.1f}" for k in ("min", "p20", "median", "p80")) + f" n {t['n']}")
            print(f"  {c['row']:6d}  " + " | ".join(parts))


if __name__ == "__main__":
    main()
