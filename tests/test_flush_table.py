#!/usr/bin/env python3
"""test_flush_table.py — scripts/flush_table.py on small result files of one copy
grid run under --flush write, clean and none: the markdown table (exactly), the
JSON records, the filters, and the refusals (two files of one flush, one file
only, an unknown flush, two devices). No GPU, no torch."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "scripts", "flush_table.py")


def result(flush, times, device="Test GPU", with_flush_key=True):
    """A copy grid (mib 1, 16, 4096); times: {mib: (sol_us, eager_us)}."""
    cells = []
    for mib, (sol, eager) in times.items():
        if eager is None:
            v = {"eager": {"status": "oom", "reason": "out of memory"}}
        else:
            v = {"eager": {"status": "ok", "time_ms": {"median": eager / 1000, "n": 10}}}
        cells.append({"row": mib, "point": {"mib": mib}, "ideal_bytes": 2 * mib * 1048576, "flops": 0,
                      "sol": {"status": "ok", "time_ms": {"median": sol / 1000, "n": 10}}, "variants": v})
    settings = {"timer": "events", "flush_bytes": 268435456}
    if with_flush_key:
        settings["flush"] = flush
    return {"fusionbench": {"version": "0.1.0", "schema": 1}, "device": {"name": device}, "settings": settings,
            "cases": [{"name": "copy", "rows": "mib", "row_values": list(times), "variants": ["eager"],
                       "baseline": "eager", "dtypes": [{"dtype": "float32", "cells": cells}]}]}


WRITE = {1: (3.0, 3.5), 16: (9.9, 10.5), 4096: (2900.0, 2950.0)}
CLEAN = {1: (2.5, 3.0), 16: (8.5, 9.0), 4096: (2890.0, 2940.0)}
NONE = {1: (1.5, 2.0), 16: (6.0, 6.5), 4096: (2880.0, None)}

WANT = """L2 flush before every sample: median us under --flush write, clean, none · Test GPU

### copy · float32 · eager

| cell     | ideal MiB | write us | clean us | none us | dirty lines (write / clean) | cold L2 (clean / none) |
|:---------|----------:|---------:|---------:|--------:|----------------------------:|-----------------------:|
| mib=1    |         2 |      3.5 |      3.0 |     2.0 |                      +16.7% |                 +50.0% |
| mib=16   |        32 |     10.5 |      9.0 |     6.5 |                      +16.7% |                 +38.5% |
| mib=4096 |      8192 |     2950 |     2940 |       – |                       +0.3% |                      – |

### copy · float32 · sol

| cell     | ideal MiB | write us | clean us | none us | dirty lines (write / clean) | cold L2 (clean / none) |
|:---------|----------:|---------:|---------:|--------:|----------------------------:|-----------------------:|
| mib=1    |         2 |      3.0 |      2.5 |     1.5 |                      +20.0% |                 +66.7% |
| mib=16   |        32 |      9.9 |      8.5 |     6.0 |                      +16.5% |                 +41.7% |
| mib=4096 |      8192 |     2900 |     2890 |    2880 |                       +0.3% |                  +0.3% |

"""


class FlushTable(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, doc):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def three(self):
        return (self.write("w.json", result("write", WRITE)), self.write("c.json", result("clean", CLEAN)),
                self.write("n.json", result("none", NONE)))

    def test_markdown(self):
        w, c, n = self.three()
        p = self.run_script(n, w, c)  # any order: columns follow write, clean, none
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, WANT)

    def test_json_and_filters(self):
        w, c, n = self.three()
        p = self.run_script(w, c, n, "--variants", "sol", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        recs = json.loads(p.stdout)
        self.assertEqual([r["cell"] for r in recs], ["mib=1", "mib=16", "mib=4096"])
        self.assertEqual({r["variant"] for r in recs}, {"sol"})
        self.assertAlmostEqual(recs[0]["write_over_clean"], 3.0 / 2.5)
        self.assertAlmostEqual(recs[2]["clean_us"], 2890.0)
        self.assertEqual(recs[1]["ideal_bytes"], 32 * 1048576)
        p = self.run_script(w, c, n, "--case", "softmax")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no measurements match", p.stderr)

    def test_two_modes_and_old_files(self):
        # a file from before --flush has no settings.flush: it wrote (memset), so it is "write"
        old = self.write("old.json", result("write", WRITE, with_flush_key=False))
        c = self.write("c.json", result("clean", CLEAN))
        p = self.run_script(old, c)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| cell     | ideal MiB | write us | clean us | dirty lines (write / clean) |", p.stdout)
        self.assertNotIn("none us", p.stdout)
        self.assertIn("| mib=16   |        32 |     10.5 |      9.0 |                      +16.7% |", p.stdout)

    def test_refusals(self):
        w, c, n = self.three()
        w2 = self.write("w2.json", result("write", CLEAN))
        p = self.run_script(w, w2, c)
        self.assertEqual(p.returncode, 2)
        self.assertIn("were both run with --flush write", p.stderr)
        p = self.run_script(w)
        self.assertEqual(p.returncode, 2)
        self.assertIn("at least two --flush modes", p.stderr)
        odd = result("write", WRITE)
        odd["settings"]["flush"] = "zero_() of a uint8 buffer before every sample"
        p = self.run_script(self.write("odd.json", odd), c)
        self.assertEqual(p.returncode, 2)
        self.assertIn("settings.flush is 'zero_() of a uint8 buffer before every sample'", p.stderr)
        other = self.write("other.json", result("none", NONE, device="Other GPU"))
        p = self.run_script(w, c, other)
        self.assertEqual(p.returncode, 2)
        self.assertIn("different devices", p.stderr)
        p = self.run_script(w, os.path.join(self.tmp.name, "missing.json"))
        self.assertEqual(p.returncode, 3)
        bad = self.write("bad.json", {"cases": []})
        p = self.run_script(w, bad)
        self.assertEqual(p.returncode, 3)
        self.assertIn("not a fusionbench result file", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)
