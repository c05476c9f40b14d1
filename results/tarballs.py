"""tarballs.py — what every results/*/stop*/tables.py reads a device call's output with: a call's
tarball holds its output directory `r/`. Imported by those scripts (they put results/ on their
path); no GPU needed.
"""
import json
import math
import os
import tarfile


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
