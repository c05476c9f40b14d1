#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 33") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.
"""
import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, geomean, last, peer_compare, text, unpack  # noqa: E402

RMS_MODES = ("rmsnorm.static_persistent", "rmsnorm.multi_wave_reload", "rmsnorm.multi_wave_cached")


def times(paths):
    """{(dtype, dim0, dim1): {variant: [median us, one per file]}}, every check asserted passed."""
    t = collections.defaultdict(lambda: collections.defaultdict(list))
    for p in paths:
        for _, d, c in cells(p):
            for n, v in c["variants"].items():
                if "time_ms" not in v:
                    continue
                assert v["check"]["passed"], (p, d, c["row"], c["col"], n)
                t[(d, c["row"], c["col"])][n].append(v["time_ms"]["median"] * 1e3)
    return t


def sol(path):
    return {(d, c["row"], c["col"]): c["sol"]["time_ms"]["median"] * 1e3 for _, d, c in cells(path)}


def summary_of(compare_txt):
    lines = compare_txt.splitlines()
    i = lines.index("== summary")
    return "\n".join("  " + l for l in lines[i + 1:] if l.strip())


def section1(r):
    print("# 1. call 1 (four H200s; fb33 = a1ddf2c): the three commits no GPU had run, and issue 6's row cases")
    print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    print("  " + last(r, "selftest.txt", "selftest:"))
    for m in ("memcheck-hrp.txt", "memcheck-mm.txt"):
        print(f"  {m[:-4]}: " + last(r, m, "ERROR SUMMARY"))
    print("\n  side_by_side.py, float32, write flush, beside torch.compile (GPUs 1-3, --budget 440: six cases reached)")
    print(summary_of(text(r, "sbs/compare.txt")))
    print("\n  layernorm W = 32768 float32, write flush: the dev kernel's forms (ln-dev-1.txt, % of the copy)")
    for l in text(r, "ln-dev-1.txt").splitlines()[2:]:
        print("  " + l)
    t = times([os.path.join(r, f"ln-fb-{k}.json") for k in (1, 2)])
    s = sol(os.path.join(r, "ln-fb-1.json"))
    print("\n  layernorm.fused and .row_smem in the same call (runs 1, 2; the copy from run 1)")
    for key in sorted(t):
        f, rs = t[key]["layernorm.fused"], t[key]["layernorm.row_smem"]
        print(f"  {key[1]:5d} x {key[2]}  copy {s[key]:6.1f}  fused {f[0]:6.1f} {f[1]:6.1f} ({100 * s[key] / f[0]:.1f}%)"
              f"  row_smem {rs[0]:6.1f} {rs[1]:6.1f}")


def ratio_grid(t, a, b, dtype):
    """t_a / t_b (geomean over runs) as a dim0 x dim1 grid; returns the ratios."""
    keys = sorted(k for k in t if k[0] == dtype and a in t[k] and b in t[k])
    cols = sorted({k[2] for k in keys})
    rows = sorted({k[1] for k in keys})
    print(f"  {dtype}: t_{a} / t_{b}")
    print("  " + "dim0\\dim1".ljust(10) + "".join(f"{c:>8d}" for c in cols))
    out = []
    for rw in rows:
        line = f"  {rw:<10d}"
        for c in cols:
            k = (dtype, rw, c)
            if k in keys:
                x = geomean(t[k][a]) / geomean(t[k][b])
                out.append(x)
                line += f"{x:8.3f}"
            else:
                line += "       -"
        print(line)
    print(f"  geomean {geomean(out):.3f} over {len(out)} cells")
    return out


def section2(r):
    print("\n# 2. call 2 (one H200; fb33b = a1ddf2c + hold-smem-call2.patch): layernorm.hold_smem, a persistent")
    print("#    team of C CTAs a row with weight and bias in shared memory and the next row loading")
    print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    print("  " + last(r, "selftest.txt", "selftest:"))
    print("  memcheck: " + last(r, "memcheck.txt", "ERROR SUMMARY"))
    print("  racecheck: " + last(r, "racecheck.txt", "RACECHECK SUMMARY"))
    t = times([os.path.join(r, f"t-{d}-{k}.json") for d in ("f32", "bf16") for k in (1, 2)])
    for d in ("float32", "bfloat16"):
        ratio_grid(t, "layernorm.fused", "layernorm.hold_smem", d)
    s = sol(os.path.join(r, "t-f32-1.json"))
    s.update(sol(os.path.join(r, "t-bf16-1.json")))
    print("  W = 32768, % of the copy (run 1): fused / hold_smem")
    for key in sorted(k for k in t if k[2] == 32768):
        print(f"  {key[0]:9s} {key[1]:5d}  {100 * s[key] / t[key]['layernorm.fused'][0]:5.1f} / "
              f"{100 * s[key] / t[key]['layernorm.hold_smem'][0]:5.1f}")


def section3(r):
    print("\n# 3. call 3 (two H200s; fb33c = a1ddf2c + hold-bound-devknobs-call3.patch): RMSNorm beside torch.compile and")
    print("#    Liger-Kernel 0.8.5 before this stop's change; layernorm's hold plan as in the tree, off, and to 8M units")
    print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    print(summary_of(text(r, "rms/compare.txt")))
    print(summary_of(text(r, "rmsb/compare.txt")))
    arms = ("tree", "off", "8m")
    t = collections.defaultdict(dict)
    for a in arms:
        for key, v in times([os.path.join(r, f"hold-{a}-{k}.json") for k in (1, 2)]).items():
            t[key][a] = geomean(v["layernorm.fused"])
    print("  layernorm float32, write flush, geomean of two runs (us): tree / off / 8M units; tree/off, tree/8M")
    for key in sorted(t):
        m = t[key]
        print(f"  {key[1]:6d} x {key[2]}  {m['tree']:7.1f} {m['off']:7.1f} {m['8m']:7.1f}   "
              f"{m['tree'] / m['off']:.3f} {m['tree'] / m['8m']:.3f}")


def section4(r, r3):
    print("\n# 4. call 4 (one H200; fb33d = be5ca8d's bound + rmsnorm.row_engine, uncommitted): every RMSNorm")
    print("#    variant on the seed grid, write flush, twice; layernorm's new bound")
    print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    print("  " + last(r, "selftest.txt", "selftest:"))
    print("  memcheck (rmsnorm.row_engine, odd cells): " + last(r, "memcheck.txt", "ERROR SUMMARY"))
    t = times([os.path.join(r, f"rms-{k}.json") for k in (1, 2)])
    for d in ("float32", "bfloat16", "float16"):
        ratio_grid(t, "rmsnorm.fused", "rmsnorm.row_engine", d)
        xs = [geomean(t[k]["rmsnorm.fused"]) / geomean(t[k]["rmsnorm.row_engine"]) for k in t
              if k[0] == d and k[2] in (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)]
        print(f"  {d} 16-byte rows of 32..8192: {len(xs)} cells, fused / engine {min(xs):.3f}-{max(xs):.3f},"
              f" geomean {geomean(xs):.3f}")
    print("  float32, fused / straight_reread where it applies:")
    for key in sorted(k for k in t if k[0] == "float32" and "rmsnorm.straight_reread" in t[k]):
        print(f"  {key[1]:5d} x {key[2]:5d}  {geomean(t[key]['rmsnorm.fused']) / geomean(t[key]['rmsnorm.straight_reread']):.3f}")
    old = times([os.path.join(r3, f"hold-tree-{k}.json") for k in (1, 2)])
    new = times([os.path.join(r, f"ln-{k}.json") for k in (1, 2)])
    print("  layernorm float32, the new bound (this call, runs 1, 2) against call 3's tree (us)")
    for key in sorted(new):
        o = old.get(key, {}).get("layernorm.fused")
        n = new[key]["layernorm.fused"]
        print(f"  {key[1]:6d} x {key[2]}  new {n[0]:7.1f} {n[1]:7.1f}   call 3 " + (f"{o[0]:7.1f} {o[1]:7.1f}" if o else "-"))


def peers(r, d):
    print(summary_of(text(r, f"{d}/compare.txt")))
    for l in text(r, f"{d}/compare.txt").splitlines():
        if l.startswith("  T=") and "torch.compile" in l:
            print("  " + l.strip())


def section5(r):
    print("\n# 5. call 5 (two H200s; fb33e = 8c3f233's rmsnorm.fused taking the row engine)")
    print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    print("  " + last(r, "selftest.txt", "selftest:"))
    print("  memcheck (rmsnorm.fused, odd cells): " + last(r, "memcheck.txt", "ERROR SUMMARY"))
    t = times([os.path.join(r, "long.json")])
    s = sol(os.path.join(r, "long.json"))
    print("  float32 long rows, write flush, us: fused, the three modes, row_engine (copy)")
    for key in sorted(t):
        m = t[key]
        print(f"  {key[1]:5d} x {key[2]:5d}  fused {m['rmsnorm.fused'][0]:7.1f}  " +
              "  ".join(f"{n[8:]} {m[n][0]:7.1f}" for n in RMS_MODES if n in m) +
              f"  row_engine {m['rmsnorm.row_engine'][0]:7.1f}  (copy {s[key]:.1f})")
    peers(r, "f32")
    peers(r, "bf16")


def section6(r):
    print("\n# 6. call 6 (one H200; fb33f = 8c3f233 + straight_reread on float32 from 32 MB, as a77164b)")
    print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    print("  " + last(r, "selftest.txt", "selftest:"))
    t = times([os.path.join(r, "rms.json")])
    print("  float32 cells of >= 32 MB or N = 16384 (one run), us")
    for key in sorted(t):
        if key[1] * 4 * key[2] * 4 >= 32 << 20 or key[2] >= 16384:
            print(f"  {key[1]:5d} x {key[2]:5d}  " + "  ".join(f"{n[8:]} {v[0]:.1f}" for n, v in sorted(t[key].items())))
    peers(r, "f32")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r = {k: unpack(tmp, os.path.join(HERE, f)) for k, f in (
            (1, "call1-verify-peers-layernorm-dev.tar.xz"), (2, "call2-hold-smem.tar.xz"),
            (3, "call3-rmsnorm-peers-hold-bound.tar.xz"), (4, "call4-rmsnorm-engine-hold-bound.tar.xz"),
            (5, "call5-rmsnorm-fused-engine-peers.tar.xz"), (6, "call6-rmsnorm-straight-f32-peers.tar.xz"))}
        print("Every call asked for an H200 kind and got H200s (r/gpus.txt): NVIDIA H200, 132 SMs, 1980 MHz, 60 MiB of L2.\n")
        section1(r[1])
        section2(r[2])
        section3(r[3])
        section4(r[4], r[3])
        section5(r[5])
        section6(r[6])


if __name__ == "__main__":
    main()
