#!/usr/bin/env python3
"""flush_table.py — what each L2 flush costs, from result files of one grid run
once per `--flush` mode: one markdown table per case x dtype x variant (the
cell's speed-of-light copy included as variant "sol"), one row per grid cell,
the median time under each flush and the cost of the dirty lines a memset flush
leaves (write / clean - 1).

    fusionbench run --case copy --flush write --out copy-write.json
    fusionbench run --case copy --flush clean --out copy-clean.json
    fusionbench run --case copy --flush none  --out copy-none.json
    python3 scripts/flush_table.py copy-write.json copy-clean.json copy-none.json

Each file's flush is its settings.flush; a file written before fusionbench had
--flush (no such key) flushed with a memset: it counts as "write". Two files of
one flush, or a flush this script does not know, are refused (exit 2); any two
of the three modes make a table (a missing mode's column is left out).

Options: --case NAME, --dtype T, --variants A,B (default: every variant and sol);
--json prints the rows as JSON records instead of markdown. Standard library
only (the CPU tests run it: tests/test_flush_table.py)."""
import argparse
import json
import math
import sys

MODES = ("write", "clean", "none")


def fail(msg, code=2):
    print(f"flush_table: {msg}", file=sys.stderr)
    sys.exit(code)


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror}", 3)
    except ValueError as e:
        fail(f"{path}: not JSON ({e})", 3)
    if not isinstance(doc, dict) or "fusionbench" not in doc or not isinstance(doc.get("cases"), list):
        fail(f"{path}: not a fusionbench result file", 3)
    flush = (doc.get("settings") or {}).get("flush", "write")
    if flush not in MODES:
        fail(f"{path}: settings.flush is {flush!r}; expected one of {', '.join(MODES)}")
    return flush, doc


def median_us(m):
    """A measurement's median in microseconds; None unless its status is ok (an
    unchecked one is timed all the same: what a flush costs does not depend on it)."""
    if not isinstance(m, dict) or m.get("status") != "ok":
        return None
    t = (m.get("time_ms") or {}).get("median")
    return t * 1000.0 if isinstance(t, (int, float)) and math.isfinite(t) else None


def point_label(case, cell):
    pt = cell.get("point")
    if isinstance(pt, dict) and pt:
        return " ".join(f"{k}={v}" for k, v in pt.items())
    label = f"{case.get('rows')}={cell.get('row')}"
    if case.get("cols"):
        label += f" {case.get('cols')}={cell.get('col')}"
    return label


def mib(nbytes):
    if not isinstance(nbytes, (int, float)):
        return ""
    x = nbytes / 1048576.0
    return f"{x:.0f}" if x >= 10 or x == int(x) else f"{x:.3g}"


def collect(docs, want_case, want_dtype, want_variants):
    """{(case, dtype, variant): {cell key: {"label", "bytes", "order", mode: us}}}"""
    tables = {}
    for mode, doc in docs.items():
        for case in doc["cases"]:
            name = case.get("name")
            if want_case and name != want_case:
                continue
            variants = list(case.get("variants") or []) + ["sol"]
            for dt in case.get("dtypes") or []:
                dtype = dt.get("dtype")
                if want_dtype and dtype != want_dtype:
                    continue
                for order, cell in enumerate(dt.get("cells") or []):
                    key = (cell.get("row"), cell.get("col"))
                    for v in variants:
                        if want_variants and v not in want_variants:
                            continue
                        m = cell.get("sol") if v == "sol" else (cell.get("variants") or {}).get(v)
                        if m is None:
                            continue
                        rows = tables.setdefault((name, dtype, v), {})
                        r = rows.setdefault(key, {"label": point_label(case, cell), "order": key,
                                                  "bytes": cell.get("ideal_bytes")})
                        r[mode] = median_us(m)
    return tables


def ratio(a, b):
    return a / b if a is not None and b is not None and b > 0 else None


def fmt_us(x):
    return "–" if x is None else (f"{x:.1f}" if x < 1000 else f"{x:.0f}")


def fmt_pct(r):
    return "–" if r is None else f"{(r - 1) * 100:+.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", metavar="RESULT.json", help="one result file per --flush mode")
    ap.add_argument("--case")
    ap.add_argument("--dtype")
    ap.add_argument("--variants", help="comma list (sol is the cell's speed-of-light copy)")
    ap.add_argument("--json", action="store_true", help="JSON records instead of markdown")
    a = ap.parse_args()
    docs = {}
    for path in a.files:
        mode, doc = load(path)
        if mode in docs:
            fail(f"{path} and {docs[mode][0]} were both run with --flush {mode}")
        docs[mode] = (path, doc)
    if len(docs) < 2:
        fail("give result files of at least two --flush modes (write, clean, none)")
    modes = [m for m in MODES if m in docs]
    devices = {(d.get("device") or {}).get("name") for _, d in docs.values()}
    if len(devices) > 1:
        fail(f"the files are from different devices: {', '.join(sorted(str(x) for x in devices))}")
    wanted = set(a.variants.split(",")) if a.variants else None
    tables = collect({m: docs[m][1] for m in modes}, a.case, a.dtype, wanted)
    if not tables:
        fail("no measurements match (check --case, --dtype, --variants)")

    records = []
    out = []
    dev = devices.pop() or "unknown device"
    out.append(f"L2 flush before every sample: median us under --flush {', '.join(modes)} · {dev}\n")
    for (case, dtype, variant), rows in tables.items():
        head = ["cell", "ideal MiB"] + [f"{m} us" for m in modes]
        if "write" in docs and "clean" in docs:
            head.append("dirty lines (write / clean)")
        if "clean" in docs and "none" in docs:
            head.append("cold L2 (clean / none)")
        body = []
        for r in sorted(rows.values(), key=lambda r: tuple(x if isinstance(x, int) else -1 for x in r["order"])):
            line = [r["label"], mib(r["bytes"])] + [fmt_us(r.get(m)) for m in modes]
            rec = {"case": case, "dtype": dtype, "variant": variant, "cell": r["label"], "ideal_bytes": r["bytes"]}
            rec.update({f"{m}_us": r.get(m) for m in modes})
            if "write" in docs and "clean" in docs:
                x = ratio(r.get("write"), r.get("clean"))
                line.append(fmt_pct(x))
                rec["write_over_clean"] = x
            if "clean" in docs and "none" in docs:
                x = ratio(r.get("clean"), r.get("none"))
                line.append(fmt_pct(x))
                rec["clean_over_none"] = x
            body.append(line)
            records.append(rec)
        out.append(f"### {case} · {dtype} · {variant}\n")
        widths = [max(len(head[i]), *(len(b[i]) for b in body)) for i in range(len(head))]
        out.append("| " + " | ".join(h.ljust(widths[0]) if i == 0 else h.rjust(widths[i])
                                     for i, h in enumerate(head)) + " |")
        out.append("|" + "|".join(":" + "-" * (widths[0] + 1) if i == 0 else "-" * (widths[i] + 1) + ":"
                                  for i in range(len(head))) + "|")
        for b in body:
            out.append("| " + " | ".join(x.ljust(widths[0]) if i == 0 else x.rjust(widths[i])
                                         for i, x in enumerate(b)) + " |")
        out.append("")
    if a.json:
        print(json.dumps(records, indent=1))
    else:
        print("\n".join(out))


if __name__ == "__main__":
    main()
