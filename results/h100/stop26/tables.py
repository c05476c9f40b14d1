#!/usr/bin/env python3
"""tables.py — the tables kernels/NOTES.md ("Stop 26") cites, printed from this directory's device
outputs: `python3 tables.py`. Reads the result files' wall_ms (host time by phase), statuses and
the runs' stderr; stop 25's call 12 (`../stop25/call12-run-all-float32.tar.xz`) is the before.
Writes nothing; tables.txt is its output. No GPU needed.
"""
import collections
import json
import math
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import text, unpack  # noqa: E402


def cells_of(path):
    """(case, cell) pairs of a result file, or of its journal when the run was killed."""
    if os.path.exists(path):
        d = json.load(open(path))
        if d.get("cases") and any(dt.get("cells") for c in d["cases"] for dt in c["dtypes"]):
            for c in d["cases"]:
                for dt in c["dtypes"]:
                    for cell in dt["cells"]:
                        yield c["name"], cell
            return
    for line in open(path + ".journal"):
        j = json.loads(line)
        if "case" in j:
            yield j["case"], j["cell"]


PHASES = ("inputs", "reference", "sol")
VPHASES = ("prepare", "check", "time")


def by_case(path):
    """case -> (cells, total s, {phase: s}) from wall_ms; phases summed over variants."""
    out = collections.OrderedDict()
    for name, cell in cells_of(path):
        n, tot, ph = out.get(name, (0, 0.0, collections.Counter()))
        w = cell.get("wall_ms", {})
        tot += w.get("total", 0) / 1e3
        for k in PHASES:
            ph[k] += w.get(k, 0) / 1e3
        for v in cell["variants"].values():
            for k in VPHASES:
                ph[k] += (v.get("wall_ms") or {}).get(k, 0) / 1e3
        out[name] = (n + 1, tot, ph)
    return out


def phase_table(title, path):
    print(f"## {title}\n")
    print("| case | cells | host s | " + " | ".join(PHASES + VPHASES) + " |")
    print("|---|---|---|" + "---|" * (len(PHASES) + len(VPHASES)))
    cum = 0.0
    for name, (n, tot, ph) in by_case(path).items():
        cum += tot
        print(f"| {name} | {n} | {tot:.1f} | " + " | ".join(f"{ph[k]:.1f}" for k in PHASES + VPHASES) + " |")
    print(f"\nsum of the cells' wall_ms totals: {cum:.1f} s\n")


def run_line(r, name):
    t = text(r, name)
    m = re.search(r"fusionbench: (\d+) cells in ([\d.]+) s", t)
    real = re.search(r"^real\s+(\S+)", t, re.M)
    stopped = re.search(r"stopped by SIGTERM after (\d+) of (\d+) cells", t)
    s = f"{m.group(1)} cells in {m.group(2)} s (real {real.group(1) if real else '?'})" if m else "no summary line"
    if stopped:
        s += f"; stopped by SIGTERM after {stopped.group(1)} of {stopped.group(2)} cells"
    return s


def statuses(path):
    st = collections.Counter()
    for name, cell in cells_of(path):
        for v in cell["variants"].values():
            st[v["status"]] += 1
            if v["status"] == "fail":
                st["FAILED CHECK: " + name] += 1
            if (v.get("check") or {}).get("mode") == "none":
                st["unchecked"] += 1
    return dict(st)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        old12 = unpack(tmp, os.path.join(HERE, "../stop25/call12-run-all-float32.tar.xz"))
        r1 = unpack(tmp, os.path.join(HERE, "call1-host-time.tar.xz"))
        r2 = unpack(tmp, os.path.join(HERE, "call2-after.tar.xz"))
        r3 = unpack(tmp, os.path.join(HERE, "call3-run-all-float32.tar.xz"))
        r4 = unpack(tmp, os.path.join(HERE, "call4-run-all-float32.tar.xz"))
        r5 = unpack(tmp, os.path.join(HERE, "call5-selftest.tar.xz"))
        r6 = unpack(tmp, os.path.join(HERE, "call6-layernorm-params-ab.tar.xz"))
        r7 = unpack(tmp, os.path.join(HERE, "call7-retake-cupti.tar.xz"))

        print("# 1. Call 1 (0ebae7b, wall_ms added): where the host time goes\n")
        for c in ("conv_relu", "matmul", "softmax"):
            print(f"- {c}: {run_line(r1, c + '.txt')}")
        print()
        phase_table("call 1, by phase (s)", os.path.join(r1, "conv_relu.json"))
        for c in ("matmul", "softmax"):
            for name, (n, tot, ph) in by_case(os.path.join(r1, c + ".json")).items():
                print(f"- {name}: {n} cells, {tot:.1f} s: " + ", ".join(f"{k} {ph[k]:.1f}" for k in PHASES + VPHASES))
        print()
        print("conv_relu.fused and eager under --timer cupti (kernels a run, as CUPTI saw them):\n")
        d = json.load(open(os.path.join(r1, "conv-cupti.json")))
        for cell in d["cases"][0]["dtypes"][0]["cells"]:
            for vn, v in cell["variants"].items():
                kl = v.get("kernels_launched") or {}
                print(f"- {cell['point']} {vn}: declares {v.get('kernels')}, launched {kl.get('count')}; "
                      f"timing phase {v['wall_ms']['time']:.0f} ms")
        print()
        slow = [(cell["point"], cell["variants"]["conv_relu.fused"]["wall_ms"]["time"])
                for _, cell in cells_of(os.path.join(r1, "conv_relu.json"))]
        hit = [p for p, t in slow if t > 1900]
        print(f"conv_relu.fused cells whose timing phase took > 1.9 s (a 2 s blocking-kernel timeout): "
              f"{len(hit)} of {len(slow)}\n")

        print("# 2. Call 2: after the timer retake, references on every CPU, gathered rows, cut tuning\n")
        for line in text(r2, "selftest.txt").splitlines():
            if line.startswith("timer:") or line.startswith("selftest:"):
                print("    " + line)
        print()
        for c in ("conv_relu", "matmul", "matmul_add"):
            print(f"- {c}: {run_line(r2, c + '.txt')}")
            for name, (n, tot, ph) in by_case(os.path.join(r2, c + ".json")).items():
                print(f"  {n} cells, {tot:.1f} s: " + ", ".join(f"{k} {ph[k]:.1f}" for k in PHASES + VPHASES))
        print()

        print("# 3. run --all --dtype float32\n")
        n12 = sum(1 for _ in cells_of(os.path.join(old12, "all-float32.json")))
        real12 = re.search(r"^real\s+(\S+)", text(old12, "all-float32.txt"), re.M).group(1)
        print(f"- stop 25 call 12 (db54eb3): killed by `timeout 585` (real {real12}) with {n12} cells in its journal")
        print(f"- call 3 (a087cd5): {run_line(r3, 'all-float32.txt')}")
        print(f"- call 4 (c8d774c): {run_line(r4, 'all-float32.txt')}")
        print(f"- call 4 statuses: {statuses(os.path.join(r4, 'all-float32.json'))}\n")
        phase_table("call 3 (a087cd5), killed at 590 s", os.path.join(r3, "all-float32.json"))
        phase_table("call 4 (c8d774c), the whole run", os.path.join(r4, "all-float32.json"))
        shared = sum(1 for _, cell in cells_of(os.path.join(r4, "all-float32.json")) if "measured_in" in cell.get("sol", {}))
        total = sum(1 for _ in cells_of(os.path.join(r4, "all-float32.json")))
        print(f"call 4: cells whose speed-of-light copy was shared (measured_in): {shared} of {total}\n")
        print("call 4: each of issue 6's memory-bound cases' .fused on the float32 cells of >= 64 MB ideal traffic, "
              "cells under 90% of SOL (median)\n")
        issue6 = {"pointwise_chain", "double_softmax", "softmax", "softmax_backward", "layernorm", "norm_chain",
                  "horizontal_reduction_pointwise", "horizontal_reduction_reduction", "bias_gelu",
                  "bias_dropout_add", "bias_dropout_add_train"}
        under = collections.OrderedDict()
        for name, cell in cells_of(os.path.join(r4, "all-float32.json")):
            if name not in issue6:
                continue
            v = cell["variants"].get(name + ".fused")
            if not v or v.get("status") != "ok" or cell["ideal_bytes"] < 64 << 20 or v.get("sol_pct") is None:
                continue
            n, lst = under.get(name, (0, []))
            if v["sol_pct"] < 90:
                lst.append(f"{cell['row']}x{cell['col']} {v['sol_pct']:.1f}")
            under[name] = (n + 1, lst)
        for name, (n, lst) in under.items():
            print(f"  {name}: {len(lst)} of {n}" + (": " + ", ".join(lst) if lst else ""))
        print()
        for tag, r in (("call 3", r3), ("call 4", r4)):
            for name, cell in cells_of(os.path.join(r, "all-float32.json")):
                p = cell["point"]
                if name == "matmul" and (p["M"], p["N"], p["K"]) == (128, 16384, 8192):
                    print(f"{tag}: matmul 128 x 16384 x 8192 reference {cell['wall_ms']['reference'] / 1e3:.2f} s, "
                          f"{cell['variants']['eager']['check'].get('rows_checked')} rows")
        print()
        print("call 4, layernorm.fused float32 at W = 32768 (>= 4096 rows): % of SOL by the median, and by the")
        print("minimum sample (t_sol median / t_fused min)\n")
        for name, cell in cells_of(os.path.join(r4, "all-float32.json")):
            if name != "layernorm" or cell.get("col") != 32768 or cell["row"] < 4096:
                continue
            t = cell["variants"]["layernorm.fused"]["time_ms"]
            sol = cell["sol"]["time_ms"]["median"]
            print(f"  {cell['row']:6d} x 32768: median {t['median'] * 1e3:8.1f} us ({sol / t['median'] * 100:.1f}%), "
                  f"min {t['min'] * 1e3:8.1f} us ({sol / t['min'] * 100:.1f}%)")
        print()

        print("# 4. Call 5 (61362cb): the full selftest, and the copy's OOM message\n")
        for line in text(r5, "selftest.txt").splitlines():
            if line.startswith("timer:") or line.startswith("selftest:") or line.startswith("real"):
                print("    " + line)
        d = json.load(open(os.path.join(r5, "oom.json")))
        print("\n    sol at bias_dropout_add 65536 x 65536: " + json.dumps(d["cases"][0]["dtypes"][0]["cells"][0]["sol"]))

        print("\n# 5. Call 6: layernorm.fused float32, its parameters plain (old) or evict_last (new); us\n")
        print("median of each run (old 1, old 2 | new 1, new 2), and the runs' minimum samples\n")

        def grab(path):
            d = json.load(open(path))
            out = {}
            for cell in d["cases"][0]["dtypes"][0]["cells"]:
                t = cell["variants"]["layernorm.fused"]["time_ms"]
                out[(cell["row"], cell["col"])] = (t["median"] * 1e3, t["min"] * 1e3)
            return out

        runs = {(b, i): grab(os.path.join(r6, f"ab-{b}-{i}.json")) for b in ("fb_old", "fb_new") for i in (1, 2)}
        logs = []
        for k in sorted(runs[("fb_old", 1)]):
            o = [runs[("fb_old", i)][k] for i in (1, 2)]
            n = [runs[("fb_new", i)][k] for i in (1, 2)]
            logs.append(math.log(min(x[0] for x in o) / min(x[0] for x in n)))
            print(f"  {k[0]:6d} x {k[1]:5d}  medians {o[0][0]:8.1f} {o[1][0]:8.1f} | {n[0][0]:8.1f} {n[1][0]:8.1f}"
                  f"   minima {min(x[1] for x in o):8.1f} | {min(x[1] for x in n):8.1f}")
        print(f"\n  geomean t_old / t_new (best median of two runs): {math.exp(sum(logs) / len(logs)):.3f}")
        for line in text(r6, "memcheck.txt").splitlines():
            if "ERROR SUMMARY" in line or line.startswith("selftest:"):
                print("  memcheck: " + line)

        print("\n# 6. Call 7: the retake under --timer events and --timer cupti, conv_relu float32, C = 64\n")
        for i in (1, 2):
            for t in ("events", "cupti"):
                d = json.load(open(os.path.join(r7, f"{t}-{i}.json")))
                for cell in d["cases"][0]["dtypes"][0]["cells"]:
                    for vn, v in cell["variants"].items():
                        kl = v.get("kernels_launched") or {}
                        print(f"  {t:6s} run {i} N = {cell['point']['N']} {vn:16s} median {v['time_ms']['median'] * 1e3:6.2f} us"
                              f"  n {v['time_ms']['n']:3d}  timer_timeouts {v.get('timer_timeouts', 0)}"
                              f"  kernels declared {v.get('kernels')}, launched {kl.get('count', '-')}")


if __name__ == "__main__":
    main()
