#!/usr/bin/env python3
"""epilogue_table.py — is the epilogue free? Issue 10's figure, from fusionbench result files.

For every epilogue case (matmul_add, matmul_bias, matmul_relu, matmul_add_relu; conv_relu,
conv_add, conv_bn) and dtype, each cell's fused time over the plain op's time at the same cell
(the plain op: the `matmul` case's matmul.tuned, planned as the fused variants are, and its eager;
the `conv` case's eager), and eager's extra cost beside it (t_eager(case) / t_eager(plain case)).
Cells marked throttled (the SM clock fell more than 10% across the cell, or a variant's
samples stepped more than 5% within its measurement: fusionbench's "!", clocks.h) are counted
apart: the last columns give the geomean and the count within 3% over the pairs where neither
side's cell is marked. On the H200 a GEMM's clock steps inside one measurement (kernels/NOTES.md,
"Stop 42"), so a marked pair's ratio says little.

A run of fusionbench since stop 43 also times each variant of these cases in pairs with the
case's plain op (the case file's "paired": matmul.tuned, or the conv's eager), sample by sample,
so both sides see one power state; the first table gives those ratios (t_variant / t_floor, the
median of the pairs) per case, dtype, variant and fixed size. It is the one to read on a
power-capped card; the second (separately timed cells) is kept for result files without pairs.

usage: epilogue_table.py RESULT.json [RESULT.json ...]
"""
import json
import math
import sys

FAMILIES = {
    "matmul": (["matmul_add", "matmul_bias", "matmul_relu", "matmul_add_relu"], ["matmul.tuned", "eager"]),
    "conv": (["conv_relu", "conv_add", "conv_bn"], ["eager"]),
}


def marked(cell):
    """fusionbench's throttle mark (clocks.h: fb_cell_json_throttled)."""
    clk = cell.get("clocks") or {}
    b, a = (clk.get("before") or {}).get("sm_clock_mhz"), (clk.get("after") or {}).get("sm_clock_mhz")
    if b and a and b > 0 and a > 0 and (b - a) / b > 0.10:
        return True
    return any(abs(v.get("step_pct", 0.0)) > 5.0 for v in cell["variants"].values())


def load(paths):
    times, throttled = {}, set()
    for path in paths:
        doc = json.load(open(path))
        for case in doc["cases"]:
            for dt in case["dtypes"]:
                for cell in dt["cells"]:
                    key = (dt["dtype"], tuple(sorted(cell["point"].items())))
                    if marked(cell):
                        throttled.add((case["name"],) + key)
                    for name, v in cell["variants"].items():
                        if v.get("status") == "ok" and "time_ms" in v:
                            times[(case["name"], name) + key] = v["time_ms"]["median"]
    return times, throttled


def load_paired(paths):
    """{(case, dtype, variant, fixed): [(ratio, point)]} from each variant's "paired" (status ok)."""
    out = {}
    for path in paths:
        doc = json.load(open(path))
        for case in doc["cases"]:
            axes = {case.get("rows"), case.get("cols")}
            for dt in case["dtypes"]:
                for cell in dt["cells"]:
                    fixed = tuple(sorted((k, v) for k, v in cell["point"].items() if k not in axes))
                    for name, v in cell["variants"].items():
                        p = v.get("paired") or {}
                        if p.get("status") == "ok":
                            out.setdefault((case["name"], dt["dtype"], name, fixed), []).append(
                                (p["ratio"]["median"], cell["point"]))
    return out


def print_paired(paired):
    print("timed in pairs with the plain op: t_variant / t_floor, the median of each cell's pairs")
    print("case             dtype     variant                  fixed    cells  geomean  within 3%  > 10%  best   worst (cell)")
    for (case, dtype, name, fixed), xs in sorted(paired.items()):
        ratios = [x for x, _ in xs]
        worst = max(xs, key=lambda t: t[0])
        cell = "x".join(str(worst[1][k]) for k in sorted(worst[1]) if (k, worst[1][k]) not in fixed)
        fx = ",".join(f"{k}={v}" for k, v in fixed)
        print(f"{case:16s} {dtype:9s} {name:24s} {fx:8s} {len(ratios):5d}  {geomean(ratios):7.3f}  "
              f"{sum(x <= 1.03 for x in ratios):9d}  {sum(x > 1.10 for x in ratios):5d}  {min(ratios):.3f}  "
              f"{worst[0]:.3f} ({cell})")
    print()


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    paired = load_paired(argv[1:])
    if paired:
        print_paired(paired)
    times, throttled = load(argv[1:])
    print("case             dtype     vs plain       cells  fused/plain geomean  within 3%  > 10%  worst (cell)"
          "                 eager/plain-eager geomean  max   unmarked: cells geomean within 3%")
    for plain_case, (cases, refs) in FAMILIES.items():
        for case in cases:
            for dtype in sorted({k[2] for k in times if k[0] == case}):
                for ref in refs:
                    ratio, extra, worst, clean = [], [], (0, None), []
                    for k, t in times.items():
                        if k[0] != case or k[2] != dtype or k[1] != case + ".fused":
                            continue
                        base = times.get((plain_case, ref) + k[2:])
                        if base is None:
                            continue
                        x = t / base
                        ratio.append(x)
                        if (case,) + k[2:] not in throttled and (plain_case,) + k[2:] not in throttled:
                            clean.append(x)
                        if x > worst[0]:
                            worst = (x, dict(k[3]), (case,) + k[2:] in throttled)
                        e, pe = times.get((case, "eager") + k[2:]), times.get((plain_case, "eager") + k[2:])
                        if e and pe:
                            extra.append(e / pe)
                    if not ratio:
                        continue
                    w = ", ".join(f"{a}={b}" for a, b in worst[1].items()) + (" throttled" if worst[2] else "")
                    print(f"{case:16s} {dtype:9s} {plain_case + '/' + ref:14s} {len(ratio):5d}  {geomean(ratio):19.3f}"
                          f"  {sum(x <= 1.03 for x in ratio):9d}  {sum(x > 1.10 for x in ratio):5d}  {worst[0]:.3f} ({w})"
                          f"  {geomean(extra):.3f}  {max(extra) if extra else float('nan'):.2f}"
                          f"  {len(clean):5d} {geomean(clean):7.3f} {sum(x <= 1.03 for x in clean):5d}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
