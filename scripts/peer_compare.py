#!/usr/bin/env python3
"""peer_compare.py — fusionbench's grids beside PyTorch's, cell by cell, on the same GPU.

Reads fusionbench result files (`fusionbench run --out`) and torch peer result files
(`scripts/torch_peer.py run --out`; told apart by their "peer" key), in any number and order,
and for every case and dtype present in both prints:

  NAME.fused vs torch.compile   per-cell t_torch.compile / t_fused (> 100% = fused faster), the
                                geomean over the cells both measured, and the cells of >= 64 MiB
                                ideal traffic where the fused variant is slower than torch.compile
                                by more than 3%
  NAME.fused vs a library peer  the same grid and geomean against each other variant of the peer
                                file (torch_peer.py's library peers, e.g. torch.rms_norm and liger
                                for rmsnorm); a peer whose every cell was skipped (a dtype it does
                                not take) is named, not compared
  fusionbench eager vs torch eager
                                per-cell t_torch.eager / t_eager (100% = the same), and the cells
                                of >= 64 MiB outside +-15% (is fusionbench's eager a faithful
                                op-by-op eager?)
  the speed-of-light copies     how far the two tools' copies of the same bytes agree (the same
                                timer should give the same copy time)

A case with fixed size symbols (`"fixed": {"K": [1024, 4096]}`: matmul's K, one grid per value)
is matched cell by cell at the same fixed values (by symbol name and value, as `fusionbench compare`
does); its grids are printed one per combination, headed with it (K=1024), and its geomean comes
with one per grid. Files whose cells have other fixed symbols (a peer file from before `fixed`)
pair no cell, and say so.

Clocks: where both files carry each cell's SM clock after its last measurement ("clocks", as
fusionbench and torch_peer.py write it), a big slower cell is listed with both clocks, and the
cells whose two clocks are more than --clock-skew percent apart are counted with the geomean over
the rest: a GPU that throttled during one side's samples and not the other's changes the ratio of
a compute-bound cell by as much as its clocks differ (results/h100/stop30, matmul_bias: the same
cuBLASLt kernel on both sides, up to 12% apart). The targets are judged on every cell as before.

Rounds: a cell that a side's files hold more than once (side_by_side.py --rounds, which alternates
which side runs first; or runs given by hand) is timed on that side as the geometric mean of its
rounds' medians, and the grid says how many rounds each side had. Over a call the GPU's power state
drifts, and a compute-bound cell measured once per side can be up to 11% apart on the same kernel;
measured in ABBA order, matmul_bias read 0.998x (results/h100/stop31).

Only cells whose status is ok on both sides are compared (a fused cell that failed its check is
never a time); a >= 64 MiB cell where torch.compile ran and the fused variant did not counts as
slower. --md FILE writes the same as markdown (for results/h100/). With --targets the exit code
is 1 when a case and dtype misses one of the issue's targets: geomean >= 1.10x, no >= 64 MiB cell
slower than torch.compile by more than 3%, fusionbench eager within +-15% of torch eager on every
>= 64 MiB cell (the issue states them for float32: add --dtype float32), and, per --peer-target
NAME=X, geomean >= X against library peer NAME in every case and dtype where it ran (issue 9:
--peer-target liger=1.0). A target no cell could show (no eager on one side, no cell both timed)
reads NOT MEASURED, never PASS, and counts as missed for the exit code.

Usage: python3 scripts/peer_compare.py FB.json PEER.json [more files] [--dtype float32]
                                       [--case NAME] [--fused NAME] [--md FILE] [--targets]
                                       [--peer-target NAME=X ...]
Exit codes: 0 ok, 1 a target missed or not measured (--targets), 2 usage, 3 not a result file, 4 unreadable file.
"""
import argparse
import json
import lzma
import math
import sys

MIB = 1 << 20


class Problem(Exception):
    def __init__(self, msg, code):
        super().__init__(msg)
        self.code = code


# ---- reading -----------------------------------------------------------------------------------

def load(path):
    try:
        # results/ keeps its large files xz-compressed (results/README.md): read them as they are
        with (lzma.open(path, "rt") if str(path).endswith(".xz") else open(path)) as f:
            doc = json.load(f)
    except OSError as e:
        raise Problem(f"{path}: cannot read: {e.strerror or e}", 4) from None
    except (ValueError, EOFError, lzma.LZMAError) as e:
        raise Problem(f"{path}: not JSON: {e}", 3) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("fusionbench"), dict) \
            or not isinstance(doc.get("cases"), list):
        raise Problem(f"{path}: not a fusionbench result file", 3)
    return doc


def is_peer(doc):
    if "peer" in doc:
        return True
    return any(str(v).startswith("torch.") for c in doc["cases"] for v in c.get("variants", []))


def fixed_key(case, cell):
    """A cell's fixed values, ((symbol, value), ...) by symbol name: () for a case without fixed symbols.
    A cell is its row, column and these (fusionbench's compare matches cells so, by name and value)."""
    fixed = case.get("fixed") if isinstance(case.get("fixed"), dict) else {}
    point = cell.get("point") if isinstance(cell.get("point"), dict) else {}
    return tuple(sorted((s, point.get(s)) for s in fixed))


def fixed_label(g, fx):
    """'K=1024' (the case's order of fixed symbols, as fusionbench labels a grid); '' for none."""
    vals = dict(fx)
    order = [s for s in g.get("fixed", []) if s in vals] + sorted(s for s in vals if s not in g.get("fixed", []))
    return " ".join(f"{s}={vals[s]}" for s in order)


class Table:
    """Every (case, dtype) of one side: its cells by (row, col, fixed values), and what names its axes."""

    def __init__(self):
        self.groups = {}  # (case, dtype) -> {"cells": {(row, col, fixed): cell}, "rows", "cols", "fixed",
        #                                     "variants", "files"}
        self.devices = []
        self.flushes = {}  # settings.flush -> files
        self.timers = {}  # settings.timer -> files

    def add(self, doc, path):
        # a file from before --flush flushed with a memset: "write" (the torch peer's flush)
        # (older peer files hold a sentence there describing their zero_() flush: also "write")
        fl = str((doc.get("settings") or {}).get("flush") or "write")
        fl = fl if fl in ("write", "clean", "none") else "write"
        self.flushes.setdefault(fl, []).append(path)
        tm = str((doc.get("settings") or {}).get("timer") or "events")
        self.timers.setdefault(tm, []).append(path)
        dev = doc.get("device", {}).get("name")
        if dev and dev not in self.devices:
            self.devices.append(dev)
        for case in doc["cases"]:
            for dt in case.get("dtypes", []):
                g = self.groups.setdefault((case.get("name"), dt.get("dtype")),
                                           {"cells": {}, "rows": case.get("rows", "rows"), "cols": case.get("cols"),
                                            "fixed": [], "variants": [], "files": []})
                for sym in (case.get("fixed") or {}) if isinstance(case.get("fixed"), dict) else ():
                    if sym not in g["fixed"]:
                        g["fixed"].append(sym)
                g["files"].append(path)
                for v in case.get("variants", []):
                    if v not in g["variants"]:
                        g["variants"].append(v)
                for cell in dt.get("cells", []):
                    key = (cell.get("row"), cell.get("col"), fixed_key(case, cell))
                    g.setdefault("rounds", {}).setdefault(key, []).append(cell)
                    g["cells"][key] = combine_rounds(g["rounds"][key])


def _gm_entry(entries):
    """One variant's entries over rounds: an ok entry whose median is the geometric mean of the
    rounds' medians, or the first entry that is not ok (a round that failed is never a time)."""
    for e in entries:
        if entry_time(e) is None:
            return e
    return {"status": "ok", "rounds": len(entries),
            "time_ms": {"median": geomean([entry_time(e) for e in entries])}}


def combine_rounds(cells):
    """The cell a comparison reads for one side when its files hold the cell more than once (rounds:
    side_by_side.py --rounds, or runs given by hand): each variant's time and the copy's are the
    geometric mean of the rounds' medians, so a side measured early in one round and late in another
    (the GPU's power state drifts over a call: results/h100/stop31, matmul_bias) is judged on both.
    A variant missing from a round, or not ok in one, is taken from the first round that is not ok.
    The clocks are dropped (one reading per round says nothing of the mean)."""
    if len(cells) == 1:
        return cells[0]
    out = {k: v for k, v in cells[0].items() if k not in ("variants", "sol", "clocks")}
    names = list(dict.fromkeys(n for c in cells for n in (c.get("variants") or {})))
    out["variants"] = {n: _gm_entry([(c.get("variants") or {}).get(n) for c in cells]) for n in names}
    if any(isinstance(c.get("sol"), dict) for c in cells):
        out["sol"] = _gm_entry([c.get("sol") for c in cells])
    out["rounds"] = len(cells)
    return out


def rounds_of(group):
    """How many times the side's files hold its cells: (fewest, most) over the cells."""
    n = [len(v) for v in (group.get("rounds") or {}).values()] or [1]
    return min(n), max(n)


def entry_time(entry):
    """The median in ms of an ok entry, else None."""
    if not isinstance(entry, dict) or entry.get("status") != "ok":
        return None
    t = (entry.get("time_ms") or {}).get("median")
    return t if isinstance(t, (int, float)) and t > 0 else None


def entry_mark(entry):
    if not isinstance(entry, dict):
        return "-"
    st = entry.get("status", "-")
    return {"ok": "-", "oom": "OOM", "fail": "FAIL", "error": "ERR", "skipped": "SKIP"}.get(st, st.upper())


# ---- comparing ---------------------------------------------------------------------------------

def end_sm_clock(cell):
    """The SM clock (MHz) read after the cell's last measurement, or None where the file has none."""
    v = ((cell.get("clocks") or {}).get("after") or {}).get("sm_clock_mhz")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def ratio_cell(num_entry, den_entry):
    """(ratio t_num / t_den or None, mark): the mark names whichever side did not run."""
    tn, td = entry_time(num_entry), entry_time(den_entry)
    if tn is not None and td is not None:
        return tn / td, None
    if td is None and isinstance(den_entry, dict) and den_entry.get("status") != "ok":
        return None, entry_mark(den_entry)
    if tn is None and isinstance(num_entry, dict) and num_entry.get("status") != "ok":
        return None, entry_mark(num_entry)
    return None, "-"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def cell_label(g, key):
    row, col, fx = key
    label = f"{g['rows']}={row}" + (f" {g['cols']}={col}" if col is not None else "")
    return label + (f" {fixed_label(g, fx)}" if fx else "")


def key_order(k):
    """Grid by grid (fixed values), then rows, then columns."""
    return (tuple((s, -1 if v is None else v) for s, v in k[2]), k[0], -1 if k[1] is None else k[1])


def pick_fused(case, fb_group, wanted):
    if wanted:
        return wanted if wanted in fb_group["variants"] else None
    if f"{case}.fused" in fb_group["variants"]:
        return f"{case}.fused"
    return next((v for v in fb_group["variants"] if v != "eager"), None)


OWN_VARIANTS = ("torch.eager", "torch.compile")  # the peer file's variants that are not library peers


def all_skipped(g, variant):
    """Every cell of a peer group has `variant` with status skipped (a dtype the library does not take):
    its first reason, else None."""
    entries = [c.get("variants", {}).get(variant) for c in g["cells"].values()]
    if entries and all(isinstance(e, dict) and e.get("status") == "skipped" for e in entries):
        return entries[0].get("reason") or "skipped"
    return None


def library_speed(keys, fb, peer, fused, variant):
    """t_variant / t_fused per cell, the geomean, the cells in it, and the skip reason if it never ran."""
    cells = {k: ratio_cell(peer["cells"][k].get("variants", {}).get(variant),
                           fb["cells"][k].get("variants", {}).get(fused)) for k in keys}
    rs = [r for r, _ in cells.values() if r is not None]
    return {"cells": cells, "geomean": geomean(rs), "n": len(rs), "skipped": all_skipped(peer, variant)}


def compare_group(case, dtype, fb, peer, args):
    """Everything one case and dtype says: grids, lists, and the targets."""
    fused = pick_fused(case, fb, args.fused)
    keys = sorted(set(fb["cells"]) & set(peer["cells"]), key=key_order)
    if not keys and fb["cells"] and peer["cells"]:
        fs = ", ".join(fb["fixed"]) or "none"
        ps = ", ".join(peer["fixed"]) or "none"
        print(f"peer_compare: {case} {dtype}: no cell in both files" + (
            f" (fixed symbols: fusionbench {fs}, torch {ps})" if fs != ps else ""), file=sys.stderr)
    res = {"case": case, "dtype": dtype, "fused": fused, "rows": fb["rows"], "cols": fb["cols"],
           "rounds": (rounds_of(fb), rounds_of(peer)),
           "fixed": fb["fixed"] or peer["fixed"], "keys": keys,
           "speed": {}, "eager": {}, "slow": [], "eager_out": [], "sol": [], "big": 0, "library": {},
           "clocks": {}, "skewed": set()}
    band = args.eager_band / 100.0
    for key in keys:
        a, b = fb["cells"][key], peer["cells"][key]
        ideal = a.get("ideal_bytes", b.get("ideal_bytes", 0)) or 0
        big = ideal >= args.min_bytes
        res["big"] += big
        av, bv = a.get("variants", {}), b.get("variants", {})
        ca, cb = end_sm_clock(a), end_sm_clock(b)
        if ca is not None and cb is not None:
            res["clocks"][key] = (ca, cb)
            if abs(ca / cb - 1.0) > args.clock_skew / 100.0:
                res["skewed"].add(key)
        if fused:
            r, mark = ratio_cell(bv.get("torch.compile"), av.get(fused))  # t_compile / t_fused
            res["speed"][key] = (r, mark)
            if big:
                if r is not None and r < 1.0 / (1.0 + args.max_slower / 100.0):
                    res["slow"].append((key, entry_time(av.get(fused)), entry_time(bv.get("torch.compile")), r))
                elif r is None and entry_time(bv.get("torch.compile")) is not None:
                    res["slow"].append((key, None, entry_time(bv.get("torch.compile")), entry_mark(av.get(fused))))
        r, mark = ratio_cell(bv.get("torch.eager"), av.get("eager"))  # t_torch_eager / t_eager
        res["eager"][key] = (r, mark)
        if big and r is not None and abs(1.0 / r - 1.0) > band:
            res["eager_out"].append((key, entry_time(av.get("eager")), entry_time(bv.get("torch.eager")), r))
        ts, tp = entry_time(a.get("sol")), entry_time(b.get("sol"))
        if big and ts is not None and tp is not None:
            res["sol"].append(ts / tp)
    speeds = [r for r, _ in res["speed"].values() if r is not None]
    res["geomean"] = geomean(speeds)
    res["n_speed"] = len(speeds)
    big_eager = [r for k, (r, _) in res["eager"].items() if r is not None
                 and (fb["cells"][k].get("ideal_bytes", 0) or 0) >= args.min_bytes]
    res["n_big_eager"] = len(big_eager)
    res["targets"] = [
        (f"geomean >= {args.min_geomean:.2f}x",
         None if res["geomean"] is None else res["geomean"] >= args.min_geomean,
         "no cell compared" if res["geomean"] is None else f"{res['geomean']:.3f}x over {len(speeds)} cells"),
        (f"no >= {args.min_bytes / MIB:g} MiB cell slower by > {args.max_slower:g}%",
         fused is not None and not res["slow"],
         "no fused variant" if fused is None else f"{len(res['slow'])} of {res['big']} cells"),
        (f"eager within +-{args.eager_band:g}% on >= {args.min_bytes / MIB:g} MiB",
         None if not big_eager else not res["eager_out"],
         "no cell with eager on both sides" if not big_eager else f"{len(res['eager_out'])} of {len(big_eager)} cells outside"),
    ]
    if fused:
        for v in peer["variants"]:
            if v not in OWN_VARIANTS:
                res["library"][v] = library_speed(keys, fb, peer, fused, v)
    for v, x in args.peer_targets.items():
        lib = res["library"].get(v)
        if lib is None or lib["skipped"]:
            continue  # not a peer of this case, or none of this dtype's cells ran: no target here
        res["targets"].append(
            (f"geomean vs {v} >= {x:.2f}x", None if lib["geomean"] is None else lib["geomean"] >= x,
             "no cell compared" if lib["geomean"] is None else f"{lib['geomean']:.3f}x over {lib['n']} cells"))
    return res


# ---- printing ----------------------------------------------------------------------------------

def grids(res):
    """The fixed-value combinations of the compared cells, in order: one grid each ([()] without)."""
    return list(dict.fromkeys(k[2] for k in res["keys"])) or [()]


def grid_rows(res, which, fx=()):
    keys = [k for k in res["keys"] if k[2] == fx]
    rows = sorted({k[0] for k in keys})
    cols = sorted({k[1] for k in keys}, key=lambda c: -1 if c is None else c)
    cells = res[which] if isinstance(which, str) else which  # a key of res, or the cells themselves
    out = []
    for r in rows:
        line = []
        for c in cols:
            v = cells.get((r, c, fx))
            if v is None:
                line.append("")
            else:
                ratio, mark = v
                line.append(f"{ratio * 100:.1f}%" if ratio is not None else mark)
        out.append((r, line))
    return cols, out


def text_grid(res, which, f):
    """One grid per fixed-value combination, headed with it (K=1024), as fusionbench prints them."""
    for fx in grids(res):
        cols, rows = grid_rows(res, which, fx)
        if fx:
            f.write(f"{fixed_label(res, fx)}:\n")
        corner = f"{res['rows']}\\{res['cols']}" if res["cols"] else res["rows"]
        w = max(8, max((len(x) for _, line in rows for x in line), default=0) + 1)
        f.write(f"{corner:<12}" + "".join(f"{'' if c is None else c:>{w}}" for c in cols) + "\n")
        for r, line in rows:
            f.write(f"{r:<12}" + "".join(f"{x:>{w}}" for x in line) + "\n")


def md_grid(res, which, f):
    for k, fx in enumerate(grids(res)):
        cols, rows = grid_rows(res, which, fx)
        if fx:
            f.write(("\n" if k else "") + f"*{fixed_label(res, fx)}*\n\n")
        corner = f"{res['rows']} \\ {res['cols']}" if res["cols"] else res["rows"]
        f.write("| " + corner + " | " + " | ".join("" if c is None else str(c) for c in cols) + " |\n")
        f.write("|---:|" + "---:|" * len(cols) + "\n")
        for r, line in rows:
            f.write(f"| **{r}** | " + " | ".join(line) + " |\n")


def us(t):
    return "-" if t is None else f"{t * 1e3:.1f} us"


def clock_note(res, key):
    c = res["clocks"].get(key)
    return "" if c is None else f" [SM clock at the end: fusionbench {c[0]:.0f} MHz, torch {c[1]:.0f} MHz]"


def slow_lines(res):
    out = []
    for key, tf, tc, r in res["slow"]:
        if isinstance(r, str):
            out.append(f"{cell_label(res, key)}: {res['fused']} {r}, torch.compile {us(tc)}")
        else:
            out.append(f"{cell_label(res, key)}: {res['fused']} {us(tf)} vs torch.compile {us(tc)} "
                       f"({(1.0 / r - 1.0) * 100:+.1f}%){clock_note(res, key)}")
    return out


def clock_line(res, skew):
    """How many compared cells ended at SM clocks more than skew% apart, and the geomean over the
    others; None where no compared cell has a clock on both sides."""
    both = [k for k, (r, _) in res["speed"].items() if r is not None and k in res["clocks"]]
    if not both:
        return None
    same = [res["speed"][k][0] for k in both if k not in res["skewed"]]
    n_skew = len(both) - len(same)
    text = (f"cells whose two sides ended at SM clocks > {skew:g}% apart: {n_skew} of {len(both)} "
            "with clocks on both sides")
    if n_skew and same:
        text += f"; geomean over the other {len(same)}: {geomean(same):.3f}x"
    return text


def eager_lines(res):
    return [f"{cell_label(res, key)}: eager {us(te)} vs torch.eager {us(tt)} ({(1.0 / r - 1.0) * 100:+.1f}%)"
            for key, te, tt, r in res["eager_out"]]


def sol_line(res, min_mib):
    s = sorted(res["sol"])
    if not s:
        return f"speed-of-light copies: no >= {min_mib:g} MiB cell timed by both"
    med = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
    return (f"speed-of-light copies (t_sol fusionbench / t_sol torch, >= {min_mib:g} MiB, {len(s)} cells): "
            f"median {med:.3f}, range {s[0]:.3f}..{s[-1]:.3f}")


def speed_summary(res, cells=None):
    cells = res["speed"] if cells is None else cells
    sp = [(r, k) for k, (r, _) in cells.items() if r is not None]
    if not sp:
        return "no cell measured by both"
    lo, hi = min(sp, key=lambda x: (x[0], key_order(x[1]))), max(sp, key=lambda x: (x[0], key_order(x[1])))
    text = (f"geomean {geomean([r for r, _ in sp]):.3f}x over {len(sp)} cells (lowest {lo[0]:.3f}x at "
            f"{cell_label(res, lo[1])}, highest {hi[0]:.3f}x at {cell_label(res, hi[1])})")
    if len(grids(res)) > 1:  # and per grid (K=1024 1.020x, K=4096 1.080x)
        per = []
        for fx in grids(res):
            rs = [r for r, k in sp if k[2] == fx]
            per.append(f"{fixed_label(res, fx)} {geomean(rs):.3f}x" if rs else f"{fixed_label(res, fx)} -")
        text += "; per grid: " + ", ".join(per)
    return text


def library_line(res):
    """'liger 1.050x, torch.rms_norm 1.300x' (geomean of t_peer / t_fused), or '-'."""
    parts = []
    for v, lib in res["library"].items():
        parts.append(f"{v} {'skipped' if lib['skipped'] else '-' if lib['geomean'] is None else format(lib['geomean'], '.3f') + 'x'}")
    return ", ".join(parts) or "-"


def verdict(ok):
    """A target's word: True PASS, False FAIL, None (no cell could show it) NOT MEASURED."""
    return "NOT MEASURED" if ok is None else "PASS" if ok else "FAIL"


def targets_word(res, met, missed, unmeasured):
    """'ok', or 'MISSED: a; b' and/or 'NOT MEASURED: c' (the words given)."""
    miss = [name for name, ok, _ in res["targets"] if ok is False]
    none = [name for name, ok, _ in res["targets"] if ok is None]
    parts = ([f"{missed}: " + "; ".join(miss)] if miss else []) + ([f"{unmeasured}: " + "; ".join(none)] if none else [])
    return ". ".join(parts) or met


def rounds_line(res):
    """Where a side's files hold its cells more than once, how its times were combined."""
    (f0, f1), (p0, p1) = res["rounds"]
    if f1 == 1 and p1 == 1:
        return None
    n = lambda lo, hi: str(lo) if lo == hi else f"{lo}-{hi}"
    return (f"rounds: fusionbench {n(f0, f1)}, torch {n(p0, p1)} a cell; each side's time is the geometric mean "
            "of its rounds' medians")


def print_text(results, args, devices, f):
    mib = args.min_bytes / MIB
    for res in results:
        f.write(f"\n== {res['case']} · {res['dtype']} · {devices}\n")
        rl = rounds_line(res)
        if rl:
            f.write(rl + "\n")
        if res["fused"]:
            f.write(f"{res['fused']} vs torch.compile (t_torch.compile / t_{res['fused']}; > 100% = fused faster)\n")
            text_grid(res, "speed", f)
            f.write(speed_summary(res) + "\n")
            sl = slow_lines(res)
            f.write(f"cells >= {mib:g} MiB where {res['fused']} is slower than torch.compile by > {args.max_slower:g}%: "
                    + ("none\n" if not sl else f"{len(sl)}\n" + "".join(f"  {x}\n" for x in sl)))
            cl = clock_line(res, args.clock_skew)
            if cl:
                f.write(cl + "\n")
            for v, lib in res["library"].items():
                if lib["skipped"]:
                    f.write(f"{res['fused']} vs {v}: not compared, every cell skipped ({lib['skipped']})\n")
                    continue
                f.write(f"{res['fused']} vs {v} (t_{v} / t_{res['fused']}; > 100% = fused faster)\n")
                text_grid(res, lib["cells"], f)
                f.write(speed_summary(res, lib["cells"]) + "\n")
        else:
            f.write("no fused variant in the fusionbench file for this case\n")
        f.write("fusionbench eager vs torch eager (t_torch.eager / t_eager; 100% = the same)\n")
        text_grid(res, "eager", f)
        el = eager_lines(res)
        f.write(f"cells >= {mib:g} MiB outside +-{args.eager_band:g}%: "
                + ("none" if not el else str(len(el))) + f" (of {res['n_big_eager']} compared)\n"
                + "".join(f"  {x}\n" for x in el))
        f.write(sol_line(res, mib) + "\n")
        f.write("targets: " + "; ".join(f"{name}: {verdict(ok)} ({why})"
                                        for name, ok, why in res["targets"]) + "\n")
    f.write("\n== summary\n")
    for res in results:
        g = "-" if res["geomean"] is None else f"{res['geomean']:.3f}x"
        lib = f"  vs {library_line(res)}" if res["library"] else ""
        f.write(f"{res['case']:<32} {res['dtype']:<9} geomean {g:>7}  slower cells {len(res['slow']):>3}  "
                f"eager outside {len(res['eager_out']):>3}  {targets_word(res, 'ok', 'MISSED', 'NOT MEASURED')}{lib}\n")


def write_md(results, args, meta, path):
    mib = args.min_bytes / MIB
    with open(path, "w") as f:
        f.write("# fusionbench beside PyTorch (torch eager, torch.compile, library peers)\n\n")
        f.write(f"Device: {meta['devices']}. {meta['peer']}. Files: {', '.join(f'`{p}`' for p in meta['files'])}.\n\n")
        f.write("Speed: t_torch.compile / t_fused (> 100% = the fused kernel is faster); eager: t_torch.eager / "
                "t_eager (100% = the same). Only cells with status ok on both sides are compared; OOM, FAIL, "
                f"ERR, SKIP name the side that did not run. Big cells: >= {mib:g} MiB of ideal traffic.\n\n")
        f.write(f"| case | dtype | geomean vs torch.compile | big cells slower by > {args.max_slower:g}% | "
                f"eager outside +-{args.eager_band:g}% | targets | geomean vs library peers |\n"
                "|---|---|---:|---:|---:|---|---|\n")
        for res in results:
            g = "-" if res["geomean"] is None else f"{res['geomean']:.3f}x"
            f.write(f"| {res['case']} | {res['dtype']} | {g} | {len(res['slow'])} of {res['big']} | "
                    f"{len(res['eager_out'])} of {res['n_big_eager']} | "
                    f"{targets_word(res, 'met', 'missed', 'not measured')} | {library_line(res)} |\n")
        for res in results:
            f.write(f"\n## {res['case']} · {res['dtype']}\n\n")
            rl = rounds_line(res)
            if rl:
                f.write(rl[0].upper() + rl[1:] + ".\n\n")
            if res["fused"]:
                f.write(f"**{res['fused']} vs torch.compile** — {speed_summary(res)}.\n\n")
                md_grid(res, "speed", f)
                sl = slow_lines(res)
                f.write(f"\nBig cells where {res['fused']} is slower than torch.compile by > {args.max_slower:g}%: "
                        + ("none.\n" if not sl else "\n\n" + "".join(f"- {x}\n" for x in sl)))
                cl = clock_line(res, args.clock_skew)
                if cl:
                    f.write(f"\n{cl[0].upper() + cl[1:]}.\n")
                for v, lib in res["library"].items():
                    if lib["skipped"]:
                        f.write(f"\n**{res['fused']} vs {v}**: not compared, every cell skipped ({lib['skipped']}).\n")
                        continue
                    f.write(f"\n**{res['fused']} vs {v}** (t_{v} / t_{res['fused']}) — "
                            f"{speed_summary(res, lib['cells'])}.\n\n")
                    md_grid(res, lib["cells"], f)
            f.write("\n**fusionbench eager vs torch eager**\n\n")
            md_grid(res, "eager", f)
            el = eager_lines(res)
            f.write(f"\nBig cells outside +-{args.eager_band:g}%: " + ("none" if not el else str(len(el)))
                    + f" of {res['n_big_eager']}.\n" + ("\n" + "".join(f"- {x}\n" for x in el) if el else ""))
            f.write(f"\n{sol_line(res, mib)}.\n")


# ---- main --------------------------------------------------------------------------------------

def parse_peer_targets(specs):
    """['liger=1.0', ...] -> {'liger': 1.0}"""
    out = {}
    for spec in specs:
        name, _, x = spec.partition("=")
        try:
            val = float(x)
        except ValueError:
            val = math.nan
        if not name or not val > 0:
            raise Problem(f"--peer-target: expected NAME=X with X > 0, e.g. liger=1.0, got '{spec}'", 2)
        out[name] = val
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="peer_compare.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    p.add_argument("files", nargs="+", metavar="FILE", help="fusionbench and torch peer result files")
    p.add_argument("--case", action="append", metavar="NAME", help="only these cases (repeatable, or comma-separated)")
    p.add_argument("--dtype", metavar="T[,T]", help="only these dtypes, e.g. float32")
    p.add_argument("--fused", metavar="NAME", help="the fusionbench variant to hold against torch.compile "
                   "(default: CASE.fused, else the case's first non-eager variant)")
    p.add_argument("--min-bytes", type=float, default=64 * MIB, metavar="B",
                   help="big cells: at least B bytes of ideal traffic (default 64 MiB = 67108864)")
    p.add_argument("--min-geomean", type=float, default=1.10, metavar="X", help="target geomean (default 1.10)")
    p.add_argument("--max-slower", type=float, default=3.0, metavar="PCT",
                   help="target: no big cell slower than torch.compile by more than PCT (default 3)")
    p.add_argument("--eager-band", type=float, default=15.0, metavar="PCT",
                   help="target: fusionbench eager within +-PCT of torch eager on big cells (default 15)")
    p.add_argument("--peer-target", action="append", default=[], metavar="NAME=X",
                   help="target: geomean >= X against library peer NAME wherever it ran (repeatable; "
                        "issue 9: --peer-target liger=1.0)")
    p.add_argument("--clock-skew", type=float, default=5.0, metavar="PCT",
                   help="count the cells whose two sides' SM clocks at their end differ by more than PCT "
                        "(default 5), where both files record clocks")
    p.add_argument("--md", metavar="FILE", help="also write the comparison as markdown")
    p.add_argument("--targets", action="store_true", help="exit 1 when a case and dtype misses a target")
    args = p.parse_args(argv)
    try:
        args.peer_targets = parse_peer_targets(args.peer_target)
        fb, peer = Table(), Table()
        peer_info = []
        for path in args.files:
            doc = load(path)
            if is_peer(doc):
                peer.add(doc, path)
                info = doc.get("peer") or {}
                s = f"torch {info.get('torch', '?')}, triton {info.get('triton', '?')}, torch.compile mode " \
                    f"{info.get('compile_mode', '?')}"
                if s not in peer_info:
                    peer_info.append(s)
            else:
                fb.add(doc, path)
        if not fb.groups:
            raise Problem("no fusionbench result file among the files (give one from 'fusionbench run --out')", 2)
        if not peer.groups:
            raise Problem("no torch peer result file among the files (give one from 'torch_peer.py run --out')", 2)
        if set(fb.flushes) != set(peer.flushes) or len(fb.flushes) > 1:
            # the flush changes small and mid-size cells by 8-36% (README, the timer): say so
            print("peer_compare: warning: the files were timed with different L2 flushes (fusionbench: %s; peer: %s):"
                  " compare like with like (fusionbench run --flush write)"
                  % (", ".join(sorted(fb.flushes)), ", ".join(sorted(peer.flushes))), file=sys.stderr)
        if set(fb.timers) != set(peer.timers) or len(fb.timers) > 1:
            # events count the event pair and launch latency, cupti only the GPU's durations: at a
            # few microseconds that is a quarter of a cell (kernels/NOTES.md, "Stop 36")
            print("peer_compare: warning: the files were timed with different timers (fusionbench: %s; peer: %s):"
                  " compare like with like (side_by_side.py --timer)"
                  % (", ".join(sorted(fb.timers)), ", ".join(sorted(peer.timers))), file=sys.stderr)
        if len(set(fb.devices) | set(peer.devices)) > 1:
            # a ratio between two cards measures the cards (an H200 copies 1.42x an H100's bytes
            # a second: results/h200/stop28): say so, as for the flush
            print("peer_compare: warning: the files come from different GPUs (fusionbench: %s; peer: %s): time both"
                  " on one (scripts/side_by_side.py)"
                  % (" / ".join(fb.devices) or "unknown", " / ".join(peer.devices) or "unknown"), file=sys.stderr)
        cases = {c for s in (args.case or []) for c in s.split(",") if c}
        dtypes = {d for d in (args.dtype or "").split(",") if d}
        groups = [k for k in fb.groups if k in peer.groups
                  and (not cases or k[0] in cases) and (not dtypes or k[1] in dtypes)]
        if not groups:
            have_fb = sorted(f"{c}/{d}" for c, d in fb.groups)
            have_peer = sorted(f"{c}/{d}" for c, d in peer.groups)
            raise Problem(f"no case and dtype in both (fusionbench: {', '.join(have_fb)}; "
                          f"torch: {', '.join(have_peer)})", 2)
        results = [compare_group(c, d, fb.groups[(c, d)], peer.groups[(c, d)], args) for c, d in groups]
        for v in args.peer_targets:
            if not any(v in r["library"] for r in results):
                have = sorted({x for r in results for x in r["library"]})
                raise Problem(f"--peer-target {v}: no compared case has a library peer '{v}' in the peer files "
                              f"(have: {', '.join(have) or 'none'}; was it skipped when the peer ran?)", 2)
        devices = " / ".join(fb.devices) or "unknown device"
        if peer.devices and peer.devices != fb.devices:
            devices += f" (torch ran on {' / '.join(peer.devices)})"
        print_text(results, args, devices, sys.stdout)
        if args.md:
            try:
                write_md(results, args, {"devices": devices, "peer": "; ".join(peer_info) or "torch",
                                         "files": args.files}, args.md)
            except OSError as e:
                raise Problem(f"{args.md}: cannot write: {e.strerror}", 4) from None
        missed = [r for r in results if not all(ok is True for _, ok, _ in r["targets"])]
        if args.targets and missed:
            print(f"peer_compare: targets missed or not measured by {len(missed)} of {len(results)} case/dtype pairs: "
                  + ", ".join(f"{r['case']} {r['dtype']}" for r in missed), file=sys.stderr)
            return 1
        return 0
    except Problem as e:
        print(f"peer_compare: {e}", file=sys.stderr)
        return e.code


if __name__ == "__main__":
    sys.exit(main())
