#!/usr/bin/env python3
"""spread.py — how much two result files of the same grid disagree, cell by cell.

For every case, dtype, cell and variant present in both files, prints the relative
spread of the medians |a - b| / min(a, b), and a summary over the cells whose
median is at least --min-us microseconds. Used to check repeatability (the same
grid run twice) and timer agreement (--timer events vs --timer graph).
Usage: python3 scripts/spread.py A.json B.json [--min-us 50] [--min-bytes 0] [--limit 3]
Exit 1 when a selected cell's spread exceeds --limit percent.
"""
import argparse
import json
import sys


def cells(doc):
    for case in doc["cases"]:
        for dt in case["dtypes"]:
            for cell in dt["cells"]:
                key = (case["name"], dt["dtype"], cell["row"], cell.get("col"))
                yield key, cell


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--min-us", type=float, default=50.0)
    p.add_argument("--min-bytes", type=float, default=0.0, help="only cells with at least this many ideal bytes")
    p.add_argument("--limit", type=float, default=3.0, help="percent")
    p.add_argument("--include-sol", action="store_true", help="also compare the speed-of-light copies")
    args = p.parse_args()
    a = dict(cells(json.load(open(args.a))))
    b = dict(cells(json.load(open(args.b))))
    worst, n, over = 0.0, 0, []
    per_variant = {}
    for key in sorted(set(a) & set(b), key=str):
        ca, cb = a[key], b[key]
        if ca.get("ideal_bytes", 0) < args.min_bytes:
            continue
        pairs = [(name, va, cb["variants"].get(name)) for name, va in ca["variants"].items()]
        if args.include_sol:
            pairs.append(("sol", ca.get("sol", {}), cb.get("sol", {})))
        for name, va, vb in pairs:
            if not vb or va.get("status") != "ok" or vb.get("status") != "ok":
                continue
            ma, mb = va["time_ms"]["median"], vb["time_ms"]["median"]
            if ma is None or mb is None or min(ma, mb) * 1e3 < args.min_us:
                continue
            s = abs(ma - mb) / min(ma, mb) * 100
            n += 1
            worst = max(worst, s)
            w, k = per_variant.get(name, (0.0, 0))
            per_variant[name] = (max(w, s), k + 1)
            if s > args.limit:
                over.append((key, name, ma, mb, s))
    print(f"{n} variant-cells compared (median >= {args.min_us} us, ideal bytes >= {args.min_bytes:.0f}); "
          f"worst spread {worst:.2f}%; {len(over)} over {args.limit}%")
    for name, (w, k) in sorted(per_variant.items()):
        print(f"  {name}: {k} cells, worst spread {w:.2f}%")
    for key, name, ma, mb, s in over:
        print(f"  {key} {name}: {ma * 1e3:.1f} us vs {mb * 1e3:.1f} us ({s:.2f}%)")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
