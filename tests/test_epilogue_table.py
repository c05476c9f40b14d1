#!/usr/bin/env python3
"""test_epilogue_table.py — scripts/epilogue_table.py's paired table on a small hand-made result
file: per case, dtype, variant and fixed size, the cells timed in pairs with their plain op (the
pairs' median ratio t_variant / t_floor), the geomean, how many are within 3% and past 10%, the
best and the worst cell; variants without pairs, or whose pairing did not end ok, are left out.
No GPU, no torch."""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "scripts", "epilogue_table.py")


def cell(m, n, k, fused_ratio, status="ok"):
    """A matmul_bias cell at M x N x K: eager unpaired, the fused variant paired at fused_ratio."""
    paired = {"floor": "matmul.tuned", "status": status}
    if status == "ok":
        paired.update({"n": 40, "ratio": {"median": fused_ratio, "n": 40}, "floor_ms": {"median": 0.1, "n": 40},
                       "time_ms": {"median": 0.1 * fused_ratio, "n": 40}})
    else:
        paired["reason"] = "the floor failed its check"
    return {"row": m, "col": n, "point": {"M": m, "N": n, "K": k},
            "variants": {"eager": {"status": "ok", "time_ms": {"median": 0.15}},
                         "matmul_bias.fused": {"status": "ok", "time_ms": {"median": 0.1 * fused_ratio},
                                               "paired": paired}}}


DOC = {"cases": [{"name": "matmul_bias", "rows": "M", "cols": "N", "dtypes": [{"dtype": "bfloat16", "cells": [
    cell(128, 128, 1024, 1.05), cell(128, 8192, 1024, 1.12), cell(8192, 8192, 1024, 1.00),
    cell(8192, 128, 1024, 1.02, status="fail"),  # not ok: left out
    cell(128, 128, 8192, 1.01)]}]}]}


class PairedTable(unittest.TestCase):
    def test_rows(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            with open(path, "w") as f:
                json.dump(DOC, f)
            out = subprocess.run([sys.executable, SCRIPT, path], capture_output=True, text=True, check=True).stdout
        lines = out.split("\n\n")[0].splitlines()
        self.assertTrue(lines[0].startswith("timed in pairs with the plain op"), lines[0])
        rows = [l.split() for l in lines[2:]]
        self.assertEqual(len(rows), 2, lines)  # one row per fixed K; eager has no pairs
        k1024 = next(r for r in rows if r[3] == "K=1024")
        self.assertEqual(k1024[:4], ["matmul_bias", "bfloat16", "matmul_bias.fused", "K=1024"])
        self.assertEqual(int(k1024[4]), 3)  # the failed floor's cell is not counted
        self.assertAlmostEqual(float(k1024[5]), math.exp((math.log(1.05) + math.log(1.12)) / 3), places=3)
        self.assertEqual((int(k1024[6]), int(k1024[7])), (1, 1))  # within 3%: 1.00; past 10%: 1.12
        self.assertEqual((k1024[8], k1024[9], k1024[10]), ("1.000", "1.120", "(128x8192)"))
        k8192 = next(r for r in rows if r[3] == "K=8192")
        self.assertEqual((int(k8192[4]), k8192[5]), (1, "1.010"))


if __name__ == "__main__":
    unittest.main()
