#!/usr/bin/env python3
"""tables.py — the H100 tables kernels/NOTES.md ("Stop 28") cites, from call 4's outputs:
`python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Call 4 ran out of the session's device time at 431 s, during its last step (torch.compile's
layernorm grid); the kill also lost the bias_gelu peer's file, which had finished (README.md).
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import geomean, unpack  # noqa: E402


def ab_bias_gelu(r):
    """t_one_shot / t_fused per cell (> 1: the tile launch faster), by size of x; the cells under
    8 MB run the same one-shot kernel in both variants, so their spread is the run's noise."""
    d = json.load(open(os.path.join(r, "ab-bias_gelu.json")))
    print("bias_gelu: t_one_shot / t_fused (.fused = tile from 8 MB of x, one-shot below), --flush write")
    for dt in d["cases"][0]["dtypes"]:
        size = 4 if dt["dtype"] == "float32" else 2
        groups = {"x < 8 MB (same kernel)": [], "8 MB <= x < 32 MB": [], "x >= 32 MB": []}
        big, checked = [], True
        for cell in dt["cells"]:
            v = cell["variants"]
            one, til = v["bias_gelu.one_shot"], v["bias_gelu.fused"]
            checked &= all(x.get("check", {}).get("passed", False) for x in (one, til))
            xb = cell["row"] * cell["col"] * size
            key = "x < 8 MB (same kernel)" if xb < 8 << 20 else "8 MB <= x < 32 MB" if xb < 32 << 20 else "x >= 32 MB"
            groups[key].append(one["time_ms"]["median"] / til["time_ms"]["median"])
            if 2 * xb >= 64e6:
                big.append((til["sol_pct"], one["sol_pct"]))
        for k, r_ in groups.items():
            print(f"  {dt['dtype']:<9} {k:<24} {len(r_):3d} cells  geomean {geomean(r_):.3f}  range {min(r_):.3f}-{max(r_):.3f}")
        f = sorted(b[0] for b in big)
        o = sorted(b[1] for b in big)
        print(f"  {dt['dtype']:<9} cells of >= 64 MB: {len(big)}; % of SOL min / median: .fused {f[0]:.1f} / {f[len(f) // 2]:.1f}, "
              f".one_shot {o[0]:.1f} / {o[len(o) // 2]:.1f}; under 90%: {sum(x < 90 for x in f)} / {sum(x < 90 for x in o)}; "
              f"every check passed: {checked}")


def layernorm_long_rows(r):
    d = json.load(open(os.path.join(r, "fb-layernorm.json")))
    print("layernorm.fused, float32, --flush write, % of SOL at W = 32768 (compare ../../h200/stop28)")
    cells = [c for c in d["cases"][0]["dtypes"][0]["cells"] if c["col"] == 32768]
    print("  " + "  ".join(f"{c['row']}:{c['variants']['layernorm.fused']['sol_pct']:.0f}" for c in cells))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r = unpack(tmp, os.path.join(HERE, "call4-bias-gelu-tile.tar.xz"))
        for line in open(os.path.join(r, "memcheck.txt")):
            if "ERROR SUMMARY" in line:
                print("memcheck of bias_gelu.fused (float32, bfloat16; 2048 and 4099 rows x 61, 1027, 4096):", line.strip("= \n"))
        ab_bias_gelu(r)
        layernorm_long_rows(r)


if __name__ == "__main__":
    main()
