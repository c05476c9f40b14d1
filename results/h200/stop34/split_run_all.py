#!/usr/bin/env python3
"""split_run_all.py — writes results/h200/NAME.json.xz, one fusionbench result file per case (every
case of cases/, float32, default grids and flush), from call 4's `run --all --dtype float32` on an
H200 (call4-run-all-float32.tar.xz, r/all-float32.json, 1619 cells in 479.7 s, binary fb34d =
056134d): the run's own document with one case each, `samples_us` left out (the tarball keeps
them), xz-compressed (the device tool carries the tracked tree in every call, 64 MiB in all).
`fusionbench compare` and `export` read them after `xz -dk`; scripts/peer_compare.py reads them as
they are. No GPU needed: `python3 results/h200/stop34/split_run_all.py`.
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import split_cases, unpack  # noqa: E402


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r = unpack(tmp, os.path.join(HERE, "call4-run-all-float32.tar.xz"))
        with open(os.path.join(r, "all-float32.json")) as f:
            doc = json.load(f)
    for name, n in split_cases(doc, os.path.join(HERE, ".."), ".json.xz"):
        print(f"results/h200/{name}.json.xz: {n} cells")


if __name__ == "__main__":
    main()
