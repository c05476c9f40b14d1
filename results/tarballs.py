"""tarballs.py — what every results/*/stop*/tables.py reads a device call's output with: a call's
tarball holds its output directory `r/`. Imported by those scripts (they put results/ on their
path); no GPU needed. As a command it splits a `run --all` result file into one file a case:

    python3 results/tarballs.py split TARBALL MEMBER OUT_DIR [--xz]

(MEMBER: the result file inside the tarball's r/, e.g. all-float32.json; --xz writes NAME.json.xz.)
"""
import collections
import copy
import json
import lzma
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


def last(r, name, word):
    """The last line of r/name that holds `word` (a step's summary: "selftest: ...", "ERROR
    SUMMARY: ..."), without compute-sanitizer's "=" frame."""
    return [l for l in text(r, name).splitlines() if word in l][-1].strip("= ")


def cells(path):
    """(case, dtype, cell) of a result file."""
    for c in json.load(open(path))["cases"]:
        for dt in c["dtypes"]:
            for cell in dt["cells"]:
                yield c["name"], dt["dtype"], cell


def medians(paths):
    """{(dtype, dim0, dim1): {variant: [median us, one per file]}} and {(dtype, dim0, dim1): copy
    us} (the first file's) over result files, every check asserted passed."""
    t = collections.defaultdict(lambda: collections.defaultdict(list))
    s = {}
    for p in paths:
        for _, d, c in cells(p):
            s.setdefault((d, c["row"], c["col"]), c["sol"]["time_ms"]["median"] * 1e3)
            for n, v in c["variants"].items():
                if "time_ms" not in v:
                    continue
                assert v["check"]["passed"], (p, d, c["row"], c["col"], n)
                t[(d, c["row"], c["col"])][n].append(v["time_ms"]["median"] * 1e3)
    return t, s


def print_checks(path, label=None):
    """Counts of a result file's checks by (case, variant, outcome, mode), printed under `label`
    (default: the file's name): what a memcheck or racecheck run, which times nothing, says."""
    n = collections.Counter()
    for case, _, c in cells(path):
        for v, res in c["variants"].items():
            ch = res.get("check", {})
            if res.get("status") in ("skipped", "unsupported") and not ch:  # not run (a dtype it lacks): no check
                n[(case, v, res["status"], None)] += 1
                continue
            n[(case, v, "passed" if ch.get("passed") else "FAILED", ch.get("mode"))] += 1
    print(f"  {label or os.path.basename(path)}: checks by (case, variant, outcome, mode):")
    for k, v in sorted(n.items()):
        print(f"    {' '.join(map(str, k))}: {v}")


def print_steps(r, names):
    """A call's steps.txt, then each named step's summary line (r/NAME.txt): "selftest: ..." for
    names starting "st" (or "selftest"), else compute-sanitizer's "... SUMMARY: ..."."""
    print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    for n in names:
        word = "selftest:" if n.startswith("st") or n == "selftest" else "SUMMARY"
        line = last(r, n + ".txt", word)
        print(f"  {line}" if line.startswith(n) else f"  {n}: {line}")


def assert_checked(path):
    """Every timed variant and every paired floor of a result file passed its check; returns how
    many timed variants there were."""
    n = 0
    for case, _, c in cells(path):
        for name, v in c["variants"].items():
            if "time_ms" in v:
                assert v["check"]["passed"], (path, case, name)
                n += 1
            p = v.get("paired") or {}
            if p.get("status") == "ok":
                assert p["check"]["passed"], (path, case, name, "floor")
    return n


def print_paired_table(*paths, both=False):
    """scripts/epilogue_table.py's paired table over result files (both: and the separately timed
    one after it), indented, every check asserted first."""
    for p in paths:
        assert_checked(p)
    out = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "epilogue_table.py"), *paths],
                         capture_output=True, text=True, check=True).stdout
    parts = out.split("\n\n")
    print("  " + "\n\n".join(parts[:2] if both else parts[:1]).strip().replace("\n", "\n  "))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def pair_ratios(path):
    """{(dtype, M, N): {variant: (median of the pairs' t / t(floor), the variant's prepare note)}}
    of a matmul-shaped result file (point M, N), every check asserted first."""
    assert_checked(path)
    out = {}
    for _, d, c in cells(path):
        p = c["point"]
        out[(d, p["M"], p["N"])] = {
            v: (x["paired"]["ratio"]["median"], x.get("reason", "")) for v, x in c["variants"].items() if x.get("paired")
        }
    return out


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


def split_cases(doc, out_dir, suffix=".json"):
    """Writes out_dir/NAME<suffix>, one fusionbench result file per case of the result document
    `doc` (a `run --all` file): the run's own fields with one case each, each measurement's
    `samples_us` left out (the median, quantiles, n and every other field stay; the call's tarball
    keeps the samples). suffix ".json.xz" writes them xz-compressed (peer_compare.py reads both).
    Returns [(name, cells)]."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for case in doc["cases"]:
        one = copy.deepcopy(case)
        for dt in one["dtypes"]:
            for cell in dt["cells"]:
                for m in [*cell["variants"].values(), cell.get("sol") or {}]:
                    m.pop("samples_us", None)
        part = {k: v for k, v in doc.items() if k != "cases"}
        part["cases"] = [one]
        path = os.path.join(out_dir, case["name"] + suffix)
        with (lzma.open(path, "wt") if suffix.endswith(".xz") else open(path, "w")) as f:
            json.dump(part, f, separators=(",", ":"))
            f.write("\n")
        written.append((case["name"], sum(len(dt["cells"]) for dt in one["dtypes"])))
    return written


MEMORY_BOUND = ("bias_dropout_add", "bias_dropout_add_train", "bias_gelu", "double_softmax",
                "horizontal_reduction_pointwise", "horizontal_reduction_reduction", "layernorm", "norm_chain",
                "pointwise_chain", "rmsnorm", "rmsnorm_backward", "softmax", "softmax_backward")


def run_summary(path):
    """{case: dict} of a `run --all` file: cells, variant checks, and the memory-bound cases' fused
    % of SOL on cells of >= 64 MB ideal traffic (the issue's bar: 90%)."""
    out = {}
    for name, dt, c in cells(path):
        s = out.setdefault(name, {"cells": 0, "ok": 0, "unchecked": 0, "failed": 0, "other": 0, "big": [], "wide": []})
        s["cells"] += 1
        for v in c["variants"].values():
            if v.get("status") != "ok":
                s["other"] += 1
            elif v["check"]["mode"] == "none":
                s["unchecked"] += 1
            elif v["check"]["passed"]:
                s["ok"] += 1
            else:
                s["failed"] += 1
        f = c["variants"].get(name + ".fused")
        if name in MEMORY_BOUND and f and f.get("sol_pct") is not None:
            if c["ideal_bytes"] >= 64 * 2**20:
                s["big"].append((f["sol_pct"], "x".join(str(x) for x in c["point"].values())))
    return out


def main(argv):
    import argparse
    import tempfile
    ap = argparse.ArgumentParser(prog="tarballs.py", description="split a run --all result file, one file a case")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("split")
    sp.add_argument("tarball")
    sp.add_argument("member", help="the result file inside the tarball's r/")
    sp.add_argument("out_dir")
    sp.add_argument("--xz", action="store_true", help="write NAME.json.xz")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(unpack(tmp, a.tarball), a.member)) as f:
            doc = json.load(f)
    suffix = ".json.xz" if a.xz else ".json"
    for name, n in split_cases(doc, a.out_dir, suffix):
        print(f"{os.path.join(a.out_dir, name + suffix)}: {n} cells")


if __name__ == "__main__":
    main(sys.argv[1:])
