#!/usr/bin/env python3
"""Prints every table kernels/NOTES.md cites for stop 24 ("RMSNorm backward: long rows over clusters,
steps out of phase") from this directory's tarballs and result files. No GPU, no fusionbench
binary: it reads the result JSON. Run: python3 results/h100/stop24/tables.py"""
import json
import lzma
import math
import os
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ESZ = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2}


def tar_json(tarname, member):
    with tarfile.open(os.path.join(HERE, tarname), "r:xz") as t:
        return json.load(t.extractfile("r/" + member))


def xz_json(path):
    with lzma.open(path) as f:
        return json.load(f)


def fused(doc, variant="rmsnorm_backward.fused"):
    """(dtype, T, N) -> (median us, % of SOL, check passed) of one variant"""
    out = {}
    for c in doc["cases"]:
        for dt in c["dtypes"]:
            for cell in dt["cells"]:
                o = cell["variants"].get(variant)
                if o and o.get("status") == "ok" and "time_ms" in o:
                    out[(dt["dtype"], cell["row"], cell["col"])] = (
                        o["time_ms"]["median"] * 1e3, o.get("sol_pct"), o.get("check", {}).get("passed"))
    return out


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def ab(title, tarname, files, labels, variant="rmsnorm_backward.fused"):
    """files: {label: [runs]}; old/new = best of the runs' medians; % of SOL the best."""
    la, lb = labels
    A = [fused(tar_json(tarname, f), variant) for f in files[la]]
    B = [fused(tar_json(tarname, f), variant) for f in files[lb]]
    print(f"\n## {title} ({tarname}; {variant}; best of {len(A)} / {len(B)} runs; * = M*N >= 16M)")
    by_size = {}
    for k in sorted(set(A[0]).intersection(*B)):
        ta, tb = min(a[k][0] for a in A), min(b[k][0] for b in B)
        sa, sb = max(a[k][1] for a in A), max(b[k][1] for b in B)
        ok = all(b[k][2] for b in B)
        mib = 4 * k[1] * k[2] * ESZ[k[0]] / 2 ** 20
        by_size.setdefault((k[0] in ("float16", "bfloat16"), "< 8" if mib < 8 else "8-16" if mib < 16 else
                            "16-64" if mib < 64 else ">= 64"), []).append(ta / tb)
        print(f"  {k[0]:9s} T={k[1]:<5} N={k[2]:<6} {la} {ta:8.1f} us ({sa:5.1f}%)  {lb} {tb:8.1f} us ({sb:5.1f}%)"
              f"  {la}/{lb} {ta / tb:.3f}{' *' if 4 * k[1] * k[2] >= 16 * 2 ** 20 else ''}"
              f"{'' if ok else '  CHECK FAILED'}")
    for half in (False, True):
        rs = [r for (h, _), v in by_size.items() if h == half for r in v]
        if rs:
            print(f"  {'half types' if half else 'float32/64'}, every size: geomean {la}/{lb} {gmean(rs):.3f} over "
                  f"{len(rs)}")
    for (half, size), rs in sorted(by_size.items()):
        print(f"  {'half types' if half else 'float32/64'} x {size:>5} MiB: geomean {la}/{lb} {gmean(rs):.3f} over "
              f"{len(rs)} (min {min(rs):.3f}, max {max(rs):.3f})")


def main():
    two = lambda a, b: {a: [f"ab-{a}-1.json", f"ab-{a}-2.json"], b: [f"ab-{b}-1.json", f"ab-{b}-2.json"]}
    for c in (2, 4):
        ab(f"call 1: half types over clusters of {c} forced (pipelined, against call 1's unforced; call 1's old "
           "runs found no cases directory, call 2 has them)",
           "call1-cluster-ab.tar.xz", {"one": ["ab-new-1.json", "ab-new-2.json"], f"C{c}": [f"minc{c}.json"]},
           ("one", f"C{c}"), "rmsnorm_backward.pipelined")
    ab("call 2: d6ff62f (old) against clusters in phase (new)", "call2-cluster-ab-old.tar.xz", two("old", "new"),
       ("old", "new"))
    ab("call 3: clusters in phase (c2) against one step out of phase (new)", "call3-skew-ab.tar.xz",
       two("c2", "new"), ("c2", "new"))
    ab("call 3: clusters of 8 forced (minc8) against one step out of phase (new)", "call3-skew-ab.tar.xz",
       {"new": ["ab-new-1.json", "ab-new-2.json"], "minc8": ["minc8.json"]}, ("new", "minc8"))
    ab("call 4: one-CTA steps in phase (c3 = f00b3a2) against out of phase for groups of > 32 (new)",
       "call4-one-cta-out-of-phase-ab.tar.xz", two("c3", "new"), ("c3", "new"))
    ab("call 5: f00b3a2 (c3) against da18601 (final: out of phase for the half types from 16 MiB)",
       "call5-final-table.tar.xz", {"c3": ["ab-c3-1.json"], "final": ["ab-final-1.json"]}, ("c3", "final"))

    ab("call 8: b2d9467 (head) against __syncwarp before groups_publish's arrive (sw)",
       "call8-syncwarp-racecheck.tar.xz", {"head": ["ab-head-1.json"], "sw": ["ab-sw-1.json"]}, ("head", "sw"))
    for tarname, member in (("call7-selftest-racecheck.tar.xz", "selftest-head.txt"),
                            ("call7-selftest-racecheck.tar.xz", "racecheck-f64.txt"),
                            ("call7-selftest-racecheck.tar.xz", "racecheck-bf16.txt"),
                            ("call8-syncwarp-racecheck.tar.xz", "racecheck-bf16.txt")):
        with tarfile.open(os.path.join(HERE, tarname), "r:xz") as t:
            text = t.extractfile("r/" + member).read().decode()
        lines = text.splitlines()
        summary = [l for l in lines if l.startswith("selftest:")]
        print(f"\n## {tarname} {member}: {sum(l.startswith('ok ') for l in lines)} ok lines, "
              f"{sum(l.startswith('FAIL') for l in lines)} FAIL, {text.count('Race reported')} racecheck reports; "
              f"{summary[-1] if summary else 'no summary (the time limit ended it)'}")

    # ---- issue 9's table (call 5) ----
    doc = tar_json("call5-final-table.tar.xz", "rms-all.json")
    old = xz_json(os.path.join(HERE, "..", "stop23", "rmsnorm-all.json.xz"))
    print("\n## issue 9: rmsnorm / rmsnorm_backward, all dtypes, clean flush (call 5, da18601, 312 cells)")
    for case, floor in (("rmsnorm", 90), ("rmsnorm_backward", 80)):
        new_c, old_c = fused(doc, case + ".fused"), fused(old, case + ".fused")
        for dt in ("float32", "float64", "float16", "bfloat16"):
            big = [(k, v[1]) for k, v in new_c.items() if k[0] == dt and 4 * k[1] * k[2] >= 16 * 2 ** 20]
            sols = sorted(s for _, s in big)
            miss = [f"T={k[1]} N={k[2]} {s:.2f}" for k, s in sorted(big) if s < floor]
            was = sorted(old_c[k][1] for k, _ in big)
            print(f"  {case:17s} {dt:9s} M*N >= 16M: {len(big)} shapes, % of SOL min {sols[0]:.1f} median "
                  f"{sols[len(sols) // 2]:.1f} (stop 23: min {was[0]:.1f} median {was[len(was) // 2]:.1f}); "
                  f"under {floor}: {', '.join(miss) or 'none'}")
        rs = [old_c[k][0] / v[0] for k, v in new_c.items() if k in old_c]
        print(f"  {case:17s} t_stop23 / t_now geomean {gmean(rs):.3f} over {len(rs)} cells (two sessions"
              f"{': its kernels did not change, so this is the sessions spread' if case == 'rmsnorm' else ''})")
    bad = [k for k, v in fused(doc, "rmsnorm_backward.fused").items() if not v[2]]
    print(f"  cells whose check failed: {len(bad)}")

    # ---- the backward table twice more (call 6) ----
    for b in ("cache", "final"):
        c6 = fused(tar_json("call6-cluster-cache.tar.xz", f"bwd-{b}.json"))
        for dt in ("float32", "float64", "float16", "bfloat16"):
            big = sorted((k, v[1]) for k, v in c6.items() if k[0] == dt and 4 * k[1] * k[2] >= 16 * 2 ** 20)
            miss = [f"T={k[1]} N={k[2]} {s:.2f}" for k, s in big if s < 80]
            print(f"  call 6 {b:5s} rmsnorm_backward {dt:9s} min {min(s for _, s in big):.1f}; under 80: "
                  f"{', '.join(miss) or 'none'}")


if __name__ == "__main__":
    main()
