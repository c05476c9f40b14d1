#!/usr/bin/env python3
"""timer_table.py — one table of what each timer reports for the same cells: fusionbench's
events, graph and cupti timers (result files of one grid run each) beside Nsight Compute's
gpu__time_duration (one `ncu --csv --page raw --print-units base` log per cell).

    python3 scripts/timer_table.py --events E.json --graph G.json --cupti C.json \
        --ncu DIR [--variants softmax.fused,eager] [--md]

DIR holds one ncu log per cell, named R_C.csv (dim0_dim1) or R_C.csv.xz. A variant's ncu time is the sum over
its kernels of each kernel's median duration times its launches per run (a run's launches are
counted from the least frequent kernel name). Kernels are told apart by name: the fused
variant's are the ones whose name starts with the case name (softmax_*), eager's the others.
The speed-of-light copy (cudaMemcpyAsync) is not a kernel: ncu has no time for it. Standard
library only."""
import argparse
import csv
import lzma
import json
import os
import statistics
import sys


def cells_of(path, case):
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for c in doc["cases"]:
        if c["name"] != case:
            continue
        for dt in c["dtypes"]:
            for cell in dt["cells"]:
                key = (cell["row"], cell["col"])
                row = {}
                for name, v in cell["variants"].items():
                    if v.get("status") == "ok":
                        row[name] = v["time_ms"]["median"] * 1e3
                sol = cell.get("sol", {})
                if sol.get("status") == "ok":
                    row["sol"] = sol["time_ms"]["median"] * 1e3
                row["_ideal"] = cell.get("ideal_bytes", 0)
                out[key] = row
    return out, doc.get("settings", {})


def ncu_times(path, case):
    """{"fused": us, "eager": us} from one ncu raw csv log."""
    rows = []
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    rd = csv.reader(lines)
    head = next(rd, None)
    if not head:
        return {}
    kn, tm = head.index("Kernel Name"), head.index("gpu__time_duration.sum")
    for r in rd:
        try:
            rows.append((r[kn], float(r[tm].replace(",", "")) / 1e3))  # ns -> us
        except (ValueError, IndexError):
            continue  # the units row
    def base(n):  # "void <unnamed>::softmax_cta_kernel<float, ...>(...)" -> "softmax_cta_kernel"
        n = n.split("(")[0].split("<")[0] if not n.startswith("void <") else n[len("void "):]
        n = n.split("(")[0]
        if "::" in n:
            n = n.split("::")[-1]
        return n.split("<")[0].strip()

    fused = lambda n: base(n).startswith(case + "_")
    out = {}
    for side, pick in (("fused", fused), ("eager", lambda n: not fused(n))):
        by = {}
        for n, t in rows:
            if pick(n):
                by.setdefault(n, []).append(t)
        if not by:
            continue
        runs = min(len(v) for v in by.values())
        out[side] = sum(statistics.median(v) * round(len(v) / runs) for v in by.values())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", required=True)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--cupti", required=True)
    ap.add_argument("--ncu", required=True, help="directory of R_C.csv ncu logs")
    ap.add_argument("--case", default="softmax")
    ap.add_argument("--variants", default="softmax.fused,eager")
    a = ap.parse_args()
    ev, s_ev = cells_of(a.events, a.case)
    gr, _ = cells_of(a.graph, a.case)
    cu, _ = cells_of(a.cupti, a.case)
    print(f"Timers on the same cells ({a.case}; flush: {s_ev.get('flush', 'write')} for fusionbench's timers, "
          "ncu --cache-control all). Times in us (medians).\n")
    print("| cell | ideal bytes | variant | events | graph | cupti | ncu | cupti / ncu |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    worst = 0.0
    for key in sorted(ev, key=lambda k: k[0] * k[1]):
        path = os.path.join(a.ncu, f"{key[0]}_{key[1]}.csv")
        if not os.path.exists(path) and os.path.exists(path + ".xz"):
            path += ".xz"  # stored compressed (results/h100/issue8/ncu since stop 38)
        nc = ncu_times(path, a.case) if os.path.exists(path) else {}
        ib = ev[key].get("_ideal", 0)
        for v in a.variants.split(",") + ["sol"]:
            e, g, c = ev[key].get(v), gr.get(key, {}).get(v), cu.get(key, {}).get(v)
            n = nc.get("fused" if v.endswith(".fused") else "eager") if v != "sol" else None
            fmt = lambda x: f"{x:.2f}" if x is not None else "-"
            ratio = f"{c / n:.3f}" if c is not None and n else "-"
            if v.endswith(".fused") and c is not None and n and n >= 10:
                worst = max(worst, abs(c / n - 1))
            print(f"| {key[0]}x{key[1]} | {ib} | {v} | {fmt(e)} | {fmt(g)} | {fmt(c)} | {fmt(n)} | {ratio} |")
    print(f"\nLargest |cupti / ncu - 1| over single-kernel cells of >= 10 us: {worst * 100:.1f}%")


if __name__ == "__main__":
    sys.exit(main())
