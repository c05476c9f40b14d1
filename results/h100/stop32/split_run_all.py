#!/usr/bin/env python3
"""split_run_all.py — writes run-all/NAME.json.xz, one fusionbench result file per case, from call 3's
`run --all --dtype float32` (call3-run-all-float32.tar.xz, r/all-float32.json): the run's own
document with one case each, and each measurement's `samples_us` left out (the median, quantiles,
n and every other field stay; the tarball keeps the samples). Why: a result file per case is what
`fusionbench export`, `compare` and peer_compare read, and the whole file with its samples is 9.9
MB, which the device tool would carry in every call's working tree (64 MiB in all). xz since stop
34, when the H200's per-case files (results/h200/NAME.json) took the room: `xz -dk` before
`fusionbench export` or `compare` (scripts/peer_compare.py reads them as they are). No GPU needed:
`python3 split_run_all.py`.
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
        r = unpack(tmp, os.path.join(HERE, "call3-run-all-float32.tar.xz"))
        with open(os.path.join(r, "all-float32.json")) as f:
            doc = json.load(f)
    for name, n in split_cases(doc, os.path.join(HERE, "run-all"), ".json.xz"):
        print(f"run-all/{name}.json.xz: {n} cells")


if __name__ == "__main__":
    main()
