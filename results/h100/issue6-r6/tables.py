#!/usr/bin/env python3
"""tables.py — the tables kernels/NOTES.md ("Issue 6, round 6") cites, printed from this directory's
device outputs: `python3 tables.py [FUSIONBENCH]` (default ../../../build/fusionbench, used for
`export --format csv`; no GPU needed). Writes nothing; tables.txt is its output.

  1. call 3: the row engine's load/store policies (dev builds), layernorm and norm_chain, write flush
  2. call 2 + 3: rowstream teams (FB_DEV_RS_PLAN, FB_DEV_RS_FLAGS) against torch.compile, write flush
  3. call 4: old (18e3301) / new, fused only, two runs each, both flushes, float32 and bfloat16
  4. call 4: the new binary beside torch.compile, write flush, both sides in one call
  5. call 5: the final binary: bfloat16 old / final, and float32 % of SOL on cells >= 64 MB
"""
import collections
import csv
import io
import math
import os
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FB = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../../build/fusionbench")


def unpack(tmp, name):
    d = os.path.join(tmp, name)
    with tarfile.open(os.path.join(HERE, name + ".tar.xz")) as t:
        t.extractall(d)
    return os.path.join(d, "r")


def cells(path, tag=None):
    """(case, row, col, variant) -> median us, for the ok cells of a result file."""
    out = subprocess.run([FB, "export", path, "--format", "csv"], capture_output=True, text=True, check=True).stdout
    d = {}
    for r in csv.DictReader(io.StringIO(out)):
        if r["status"] == "ok":
            d[(r["case"], r["dtype"], int(r["row"]), int(r["col"]), r["variant"])] = (
                float(r["median_us"]), float(r["sol_pct"]) if r["sol_pct"] else None, float(r["ideal_bytes"]))
    return d


def own(d):
    """Only each case's own fused variant (a run may name the others' too)."""
    return {k: v for k, v in d.items() if k[4] == k[0] + ".fused"}


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    tmp = tempfile.mkdtemp()
    c2, c3, c4, c5 = (unpack(tmp, n) for n in ("call2-inductor", "call3-load-store-policy", "call4-ab", "call5-final"))

    print("== 1. row engine load/store policy (call 3, H100, float32, write flush; us, runs 1 and 2)")
    print("   dev: 18e3301's policy (plain loads, evict-first stores); st: plain stores; el: evict_last")
    print("   loads; stel: both")
    res = collections.defaultdict(dict)
    for f in sorted(os.listdir(c3)):
        if f.endswith(".json") and (f.startswith("layernorm-") or f.startswith("norm_chain-")):
            b, rep = f[:-5].split("-")[1:]
            for k, v in own(cells(os.path.join(c3, f))).items():
                res[k[:4]].setdefault(b, []).append(v[0])
    for k in sorted(res):
        print(f"   {k[0]:10s} {k[2]:6d} x {k[3]:6d}  " +
              "  ".join(f"{b} {'/'.join('%.1f' % t for t in res[k][b])}" for b in ("dev", "st", "el", "stel")))

    print("\n== 2. rowstream teams (H100, float32, write flush, us): flags 0 persistent evict-first,")
    print("   1 one-shot evict-first, 3 one-shot plain; 'default' = 18e3301's plan with its own flags")
    res = collections.defaultdict(dict)
    for dirn in (c2, c3):
        for f in sorted(os.listdir(dirn)):
            if f.endswith(".json") and f[:3] in ("hrr", "hrp"):
                parts = f[:-5].split("-")
                label = parts[1] if len(parts) == 2 else parts[2] + "/f" + parts[1][1:]
                for k, v in own(cells(os.path.join(dirn, f))).items():
                    res[k[:4]][label] = v[0]
    peer = cells(os.path.join(c2, "peer.json"))
    for k in sorted(res):
        tc = peer.get(k + ("torch.compile",))
        row = "  ".join(f"{l} {t:.1f}" for l, t in sorted(res[k].items()))
        print(f"   {k[0][:32]:32s} {k[2]:6d} x {k[3]:6d}  {row}  | torch.compile {tc[0] if tc else float('nan'):.1f}")

    print("\n== 3. old (18e3301) / new (e6f2102's kernels), fused only, H100 (call 4: float32 both flushes,")
    print("   two runs a binary, the better of each; bfloat16 one run)")
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(os.listdir(c4)):
        if not (f.startswith("ab-") and f.endswith(".json")):
            continue
        p = f[:-5].split("-")
        flush, b = (p[1], p[2]) if p[1] != "bf16" else ("bf16", p[2])
        for k, v in own(cells(os.path.join(c4, f))).items():
            runs[(k[0], flush)][(k[2], k[3], b)].append(v[0])
    for (case, flush), d in sorted(runs.items()):
        r = []
        worst = []
        for (R, W, b), ts in d.items():
            if b == "old" and (R, W, "new") in d:
                x = min(ts) / min(d[(R, W, "new")])
                r.append(x)
                worst.append((x, R, W, min(ts), min(d[(R, W, "new")])))
        worst.sort()
        lo, hi = worst[0], worst[-1]
        print(f"   {case[:30]:30s} {flush:5s} geomean {geo(r):.3f} over {len(r)}  lowest {lo[0]:.3f} ({lo[1]} x {lo[2]}: "
              f"{lo[3]:.1f} -> {lo[4]:.1f} us)  highest {hi[0]:.3f} ({hi[1]} x {hi[2]}: {hi[3]:.1f} -> {hi[4]:.1f} us)")

    print("\n== 4. new beside torch.compile (call 4, H100, float32, write flush, us; t_compile / t_fused)")
    new = {}
    for f in ("ab-write-new-1.json", "ab-write-new-2.json"):
        for k, v in own(cells(os.path.join(c4, f))).items():
            new[k[:4]] = min(new.get(k[:4], v[0]), v[0])
    pc = cells(os.path.join(c4, "peer-write.json"))
    ratios = collections.defaultdict(list)
    for k in sorted(pc):
        if k[4] != "torch.compile" or k[:4] not in new:
            continue
        big = " (>= 64 MB)" if pc[k][2] >= 64e6 else ""
        ratios[k[0]].append(pc[k][0] / new[k[:4]])
        print(f"   {k[0][:32]:32s} {k[2]:6d} x {k[3]:6d}  fused {new[k[:4]]:9.1f}  torch.compile {pc[k][0]:9.1f}  "
              f"{pc[k][0] / new[k[:4]]:.3f}{big}")
    for case, r in sorted(ratios.items()):
        print(f"   {case:32s} geomean t_compile / t_fused {geo(r):.3f} over {len(r)} cells")

    print("\n== 5. the final binary (call 5, H100)")
    bf = collections.defaultdict(dict)
    for f in sorted(os.listdir(c5)):
        if f.startswith("bf16-"):
            b = f.split("-")[1]
            for k, v in own(cells(os.path.join(c5, f))).items():
                bf[k[0]].setdefault(k[2:4], {})[b] = v[0]
    for case, d in sorted(bf.items()):
        r = [v["old"] / v["final"] for v in d.values() if len(v) == 2]
        print(f"   bfloat16 {case:32s} old / final geomean {geo(r):.3f} (min {min(r):.3f}, max {max(r):.3f}, {len(r)} cells)")
    g = cells(os.path.join(c5, "grid-final.json"))
    for case in sorted({k[0] for k in g}):
        v = sorted((s, R, W) for (c, dt, R, W, var), (t, s, b) in own(g).items() if c == case and b >= 64e6 and s is not None)
        print(f"   float32 {case:32s} % of SOL on {len(v)} cells >= 64 MB: min {v[0][0]:.1f} ({v[0][1]} x {v[0][2]}), "
              f"median {v[len(v) // 2][0]:.1f}, under 90: {sum(1 for x in v if x[0] < 90)}")


if __name__ == "__main__":
    main()
