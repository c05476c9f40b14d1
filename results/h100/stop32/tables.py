#!/usr/bin/env python3
"""tables.py — the H100 tables kernels/NOTES.md ("Stop 32") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import by_cell, cells, geomean, peer_compare, run_summary, text, unpack  # noqa: E402


def ratios(r, dtypes, base, arms, runs=(1, 2)):
    """t_base / t_arm per cell (BASE-D-k.json against ARM-D-k.json), run by run, and the geomean."""
    for d in dtypes:
        for a in arms:
            xs = []
            for k in runs:
                b, n = by_cell(os.path.join(r, f"{base}-{d}-{k}.json")), by_cell(os.path.join(r, f"{a}-{d}-{k}.json"))
                for key in sorted(n):
                    xs.append(b[key][0] / n[key][0])
                    print(f"  {d:9s} {a} run {k} {key[0]:6d} x {key[1]:5d}  {base} {b[key][0]:8.1f} us ({b[key][1]:5.1f}%)"
                          f"  {a} {n[key][0]:8.1f} us ({n[key][1]:5.1f}%)  {base}/{a} {b[key][0] / n[key][0]:.3f}"
                          f"{'' if n[key][2] and b[key][2] else '  CHECK FAILED'}")
            print(f"  {d} {a}: geomean {base}/{a} {geomean(xs):.3f} over {len(xs)} cells x runs")


def checks(r, files=("odd",), steps=True):
    """A call's step times, selftest's and memcheck's last words, and how many cells of each named
    result file passed their check."""
    if steps:
        print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    print("  " + [l for l in text(r, "selftest.txt").splitlines() if l.startswith("selftest:")][-1])
    print("  memcheck: " + [l for l in text(r, "memcheck.txt").splitlines() if "ERROR SUMMARY" in l][0].strip("= "))
    for f in files:
        c = by_cell(os.path.join(r, f + ".json"), with_dtype=True)
        print(f"  {f}: {len(c)} cells, {sum(1 for v in c.values() if v[2])} checked ok")


def section1(r):
    print("# 1. call 1 A: horizontal_reduction_pointwise.fused, the short team on half-type rows of 1024..8192")
    print("#    (fb46 = 92f512c + short-long-rows-landing.patch) against fb45 (92f512c), write flush, in turn twice")
    checks(r)
    ratios(r, ("bfloat16", "float16"), "old", ("new",))


def section2(r):
    print("\n# 2. call 1 B: dev/layernorm_params_dev.cu with the write flush, twice; layernorm.fused beside it")
    for k in (1, 2):
        print(text(r, f"lpd{k}.txt").rstrip())
    for k in (1, 2):
        for key, (t, sol, ok) in sorted(by_cell(os.path.join(r, f"ln{k}.json")).items()):
            print(f"  layernorm.fused run {k} {key[0]:5d} x {key[1]}: {t:7.1f} us ({sol:.1f}% of SOL){'' if ok else ' CHECK FAILED'}")


def section3(r):
    print("\n# 3. call 1 C: horizontal_reduction_pointwise bfloat16 beside torch.compile, 16384-65536 rows,"
          " two rounds ABBA (side_by_side.py)")
    peer_compare(os.path.join(r, "bf16"))


def section4(r):
    print("\n# 4. call 2 A: fb47 (the short team as landed, b26f5b1's tree): selftest, huge rows, odd shapes, memcheck")
    checks(r, ("huge", "odd"))
    for key, (t, sol, ok) in sorted(by_cell(os.path.join(r, "huge.json"), with_dtype=True).items()):
        print(f"    huge {key[0]:9s} {key[1]} x {key[2]}: {t:8.1f} us ({sol:.1f}% of SOL)")
    print("\n# 5. call 2 B: fb48 (fb47 + dev knobs): half-type rows of 16384..65536 on the short team")
    print("#    (FB_DEV_SHORT_WMAX=65536, J = 2 or 4 units a lane a step) against the old teams, in turn twice")
    ratios(r, ("bfloat16", "float16"), "base", ("j2", "j4"))
    print("\n# 6. call 2 C: horizontal_reduction_pointwise float16 beside torch.compile (fb47), 16384-65536 rows, one round")
    peer_compare(os.path.join(r, "f16"))


def section7(r, s26):
    print("\n# 7. call 3: `run --all --dtype float32` on fb49 (the tree as committed), default grids")
    checks(r)
    log = text(r, "all.txt").splitlines()
    print("  " + "\n  ".join(l for l in log if "cells in" in l or "out of device memory" in l or "warning" in l))
    now, before = run_summary(os.path.join(r, "all-float32.json")), run_summary(os.path.join(s26, "all-float32.json"))
    print("  case                            cells  variants ok/unchecked/failed/not run   fused >= 64 MB: under 90% of SOL (stop 26 -> now), lowest")
    for name in sorted(now):
        s, b = now[name], before.get(name, {"big": []})
        under = lambda xs: sum(1 for p, _ in xs if p < 90)
        low = min(s["big"]) if s["big"] else None
        big = f"{under(b['big']):3d} -> {under(s['big']):3d} of {len(s['big']):3d}, lowest {low[0]:5.1f}% at {low[1]}" if low else "-"
        print(f"  {name:31s} {s['cells']:5d}  {s['ok']:5d} / {s['unchecked']} / {s['failed']} / {s['other']:<3d}              {big}")


def section8(r):
    print("\n# 8. call 4: fb49 (5250c90): the full selftest; horizontal_reduction_pointwise bfloat16 beside"
          " torch.compile, 16384-65536 rows, two rounds ABBA")
    print("  " + text(r, "steps.txt").replace("\n", "\n  ").rstrip())
    print("  " + [l for l in text(r, "selftest.txt").splitlines() if l.startswith("selftest:")][-1])
    peer_compare(os.path.join(r, "bf16"))


def rows16384(r, arms, runs=(1, 2)):
    for k in runs:
        for a in arms:
            c = by_cell(os.path.join(r, f"{a}-bfloat16-{k}.json"))
            cols = "  ".join(f"W {W}: {c[(16384, W)][0]:7.1f} us ({c[(16384, W)][1]:.1f}%)" for W in (16384, 32768, 65536))
            bad = [key for key, v in c.items() if not v[2]]
            print(f"  run {k} {a:5s} {cols}{'  CHECK FAILED ' + str(bad) if bad else ''}")


def section9(r5, r6):
    print("\n# 9. calls 5-6: bfloat16 16384 x 16384..65536, in turn twice on one card (call 4's card ran the tree's")
    print("#    kernel there at 415-1680 us). call 5, fb50 = 5250c90 + short-knobs-call5.patch: new = the tree (J = 2);")
    print("#    old = WMAX 512 (the old teams); j4 = J = 4; grid = the tree over call 4's 10-cell row of 16384")
    print("  " + text(r5, "gpus.txt").strip().splitlines()[-1])
    rows16384(r5, ("new", "old", "j4", "grid"))
    print("  call 6, fb51 = the tree as committed (J = 4 from 16384 elements): selftest, memcheck, odd shapes, the cells twice")
    print("  " + text(r6, "gpus.txt").strip().splitlines()[-1])
    checks(r6, ("memcheck", "odd"), steps=False)
    rows16384(r6, ("new",))


def section10(r):
    print("\n# 10. call 7: fb52 = fb87de6 + short-lanes-call7.patch: at most G lanes a row on rows of 128..512,")
    print("#     G = 32 (the tree), 16, 8; t_base / t_arm, in turn twice")
    print("  " + text(r, "gpus.txt").strip().splitlines()[-1])
    for g in (16, 8):
        c = by_cell(os.path.join(r, f"odd-g{g}.json"), with_dtype=True)
        print(f"  odd cells at G = {g}: {len(c)}, {sum(1 for v in c.values() if v[2])} checked ok")
    ratios(r, ("float32", "bfloat16"), "base", ("g16", "g8"))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r1 = unpack(tmp, os.path.join(HERE, "call1-short-long-rows-layernorm-twopass.tar.xz"))
        section1(r1)
        section2(r1)
        section3(r1)
        r2 = unpack(tmp, os.path.join(HERE, "call2-short-wmax-f16-peer.tar.xz"))
        section4(r2)
        r3 = unpack(tmp, os.path.join(HERE, "call3-run-all-float32.tar.xz"))
        s26 = unpack(tmp, os.path.join(HERE, "..", "stop26", "call4-run-all-float32.tar.xz"))
        section7(r3, s26)
        section8(unpack(tmp, os.path.join(HERE, "call4-selftest-hrp-bf16-peer.tar.xz")))
        section9(unpack(tmp, os.path.join(HERE, "call5-short-16384-rows.tar.xz")),
                 unpack(tmp, os.path.join(HERE, "call6-j4-landed.tar.xz")))
        section10(unpack(tmp, os.path.join(HERE, "call7-short-lanes.tar.xz")))


if __name__ == "__main__":
    main()
