"""tarballs.py — what every results/*/stop*/tables.py reads a device call's output with: a call's
tarball holds its output directory `r/`. Imported by those scripts (they put results/ on their
path); no GPU needed.
"""
import json
import math
import os
import subprocess
import sys
import tarfile

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def unpack(tmp, path):
    """Extracts the call tarball `path` under `tmp`; returns the path of its `r/`."""
    d = os.path.join(tmp, os.path.basename(path))
    with tarfile.open(path) as t:
        t.extractall(d)
    return os.path.join(d, "r")


def text(r, name):
    with open(os.path.join(r, name)) as f:
        return f.read()


def cells(path):
    """(case, dtype, cell) of a result file."""
    for c in json.load(open(path))["cases"]:
        for dt in c["dtypes"]:
            for cell in dt["cells"]:
                yield c["name"], dt["dtype"], cell


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def by_cell(path, with_dtype=False):
    """{(rows, W): (median us, % of SOL or None, check passed)} of a one-variant result file (a
    fusionbench variant's or a torch peer's); with_dtype: keyed (dtype, rows, W) (files of several
    dtypes)."""
    out = {}
    for _, dt, c in cells(path):
        (v,) = c["variants"].values()
        key = (dt, c["row"], c["col"]) if with_dtype else (c["row"], c["col"])
        out[key] = (v["time_ms"]["median"] * 1e3, v.get("sol_pct"), v["check"]["passed"])
    return out


def times_by_rows(path):
    """{dim0: (t us, t_sol us, check passed)} of a result file of one variant over one column."""
    out = {}
    for _, _, c in cells(path):
        (v,) = c["variants"].values()
        out[c["row"]] = (v["time_ms"]["median"] * 1e3, c["sol"]["time_ms"]["median"] * 1e3, v["check"]["passed"])
    return out


def peer_compare(d, *extra):
    """Prints scripts/peer_compare.py over every .json in directory d (>= 64 MB cells as the
    issue's big ones), with the extra arguments."""
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json"))
    out = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "peer_compare.py"), *files,
                          "--min-bytes", "64000000", *extra], capture_output=True, text=True)
    sys.stdout.write(out.stdout + out.stderr)
