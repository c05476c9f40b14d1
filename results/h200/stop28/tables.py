#!/usr/bin/env python3
"""tables.py — the tables kernels/NOTES.md ("Stop 28") cites, printed from this directory's device
outputs: `python3 tables.py`. Calls 1-3 are one run in three parts on one warm two-GPU H200 machine
(a later call's copy of a case's file, resumed, replaces the earlier one). Writes nothing;
tables.txt is its output. No GPU needed.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import unpack  # noqa: E402
COMPARE = os.path.join(HERE, "..", "..", "..", "scripts", "peer_compare.py")


def merged(tmp):
    """Every case's last fb-/peer- file of calls 1-3, in one directory."""
    out = os.path.join(tmp, "all")
    os.makedirs(out)
    for path in sorted(glob.glob(os.path.join(HERE, "call[123]-peers.tar.xz"))):
        for f in glob.glob(os.path.join(unpack(tmp, path), "*.json")):
            os.replace(f, os.path.join(out, os.path.basename(f)))
    return out


def sol_table(d, case, cols=(1024, 8192, 32768), rows=(1024, 8192, 65536)):
    """fused and torch.compile as % of the cell's copy (fusionbench's SOL), a few cells."""
    fb = json.load(open(os.path.join(d, f"fb-{case}.json")))
    pe = json.load(open(os.path.join(d, f"peer-{case}.json")))
    tc = {}
    for cell in pe["cases"][0]["dtypes"][0]["cells"]:
        v = cell["variants"].get("torch.compile", {})
        if v.get("time_ms"):
            tc[(cell["row"], cell["col"])] = v["time_ms"]["median"] * 1e3
    print(f"{case}: median us (% of SOL), fused | torch.compile | SOL copy")
    for cell in fb["cases"][0]["dtypes"][0]["cells"]:
        if cell["row"] not in rows or cell["col"] not in cols:
            continue
        t = cell["variants"][case + ".fused"]["time_ms"]["median"] * 1e3
        s = cell["sol"]["time_ms"]["median"] * 1e3
        c = tc[(cell["row"], cell["col"])]
        print(f"  {cell['row']:>6} x {cell['col']:<6} {t:9.1f} ({100 * s / t:4.0f}%) | {c:9.1f} ({100 * s / c:4.0f}%) | {s:9.1f}")


def layernorm_h100_h200(d, tmp):
    """layernorm.fused's % of SOL, both cards, both --flush write: the H100 from
    ../../h100/stop28/call4 (the same kernels: bias_gelu alone changed there)."""
    r = unpack(tmp, os.path.join(HERE, "..", "..", "h100", "stop28", "call4-bias-gelu-tile.tar.xz"))
    h100 = json.load(open(os.path.join(r, "fb-layernorm.json")))
    h200 = json.load(open(os.path.join(d, "fb-layernorm.json")))

    def sol(doc):
        return {(c["row"], c["col"]): c["variants"]["layernorm.fused"]["sol_pct"] for c in doc["cases"][0]["dtypes"][0]["cells"]}
    a, b = sol(h100), sol(h200)
    print("\n== layernorm.fused, % of each card's SOL, --flush write: H100 (stop 28 call 4) | H200 (this run)")
    for k in [(2048, 4096), (4096, 2048), (4096, 4096), (8192, 1024), (8192, 2048), (16384, 1024), (16384, 2048),
              (1024, 32768), (8192, 32768), (65536, 32768)]:
        print(f"  {k[0]:>6} x {k[1]:<6} {a[k]:5.1f} | {b[k]:5.1f}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        d = merged(tmp)
        files = sorted(glob.glob(os.path.join(d, "fb-*.json")) + glob.glob(os.path.join(d, "peer-*.json")))
        sys.stdout.flush()
        subprocess.run([sys.executable, COMPARE, *files, "--min-bytes", "64000000"], check=False)
        print("\n== fused and torch.compile against the copy (the long rows and the elementwise cases)")
        for case in ("norm_chain", "layernorm", "softmax_backward", "bias_gelu", "pointwise_chain"):
            sol_table(d, case)
        layernorm_h100_h200(d, tmp)


if __name__ == "__main__":
    main()
