#!/usr/bin/env python3
"""Prints every table kernels/NOTES.md cites for stop 23 ("Small cells: parameters, tiny kernels;
issue 9 re-measured") from this directory's tarballs and result files. No GPU, no fusionbench
binary: it reads the result JSON. Run: python3 results/h100/stop23/tables.py"""
import io
import json
import lzma
import math
import os
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def tar_json(tarname, member):
    with tarfile.open(os.path.join(HERE, tarname), "r:xz") as t:
        return json.load(t.extractfile("r/" + member))


def tar_text(tarname, member):
    with tarfile.open(os.path.join(HERE, tarname), "r:xz") as t:
        return t.extractfile("r/" + member).read().decode()


def xz_json(path):
    with lzma.open(path) as f:
        return json.load(f)


def cells(doc, case=None):
    """(case, dtype, row, col) -> (variants {name: (median us, check passed, sol %)}, sol us)"""
    out = {}
    for c in doc["cases"]:
        if case and c["name"] != case:
            continue
        for dt in c["dtypes"]:
            for cell in dt["cells"]:
                v = {}
                for name, o in cell["variants"].items():
                    if o.get("status") == "ok" and "time_ms" in o:
                        v[name] = (o["time_ms"]["median"] * 1e3, o.get("check", {}).get("passed"), o.get("sol_pct"))
                s = cell.get("sol", {}).get("time_ms", {}).get("median")
                out[(c["name"], dt["dtype"], cell["row"], cell["col"])] = (v, s * 1e3 if s else None)
    return out


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def ab(title, tarname, files, variant, labels):
    """files: {label: [run1.json, run2.json]}; old/new = best of two medians."""
    print(f"\n## {title} ({tarname}; {variant}, median us of two runs each, old/new = min/min)")
    (la, fa), (lb, fb) = [(k, files[k]) for k in labels]
    A = [cells(tar_json(tarname, f)) for f in fa]
    B = [cells(tar_json(tarname, f)) for f in fb]
    by_dt = {}
    for k in sorted(A[0]):
        ta = [a[k][0][variant][0] for a in A]
        tb = [b[k][0][variant][0] for b in B]
        ok = all(b[k][0][variant][1] for b in B)
        r = min(ta) / min(tb)
        by_dt.setdefault(k[1], []).append(r)
        print(f"  {k[1]:9s} {k[2]:>6} x {k[3]:<6} {la} {ta[0]:8.2f} {ta[1]:8.2f}   {lb} {tb[0]:8.2f} {tb[1]:8.2f}"
              f"   {la}/{lb} {r:.3f}{'' if ok else '  CHECK FAILED'}")
    for dt, rs in by_dt.items():
        print(f"  {dt}: geomean {la}/{lb} {gmean(rs):.3f} over {len(rs)} cells")


def main():
    # ---- tiny kernels (calls 2, 3) ----
    print("## dev/tiny_kernel_dev: clean sweep, events, median of 400 samples (us)")
    print(tar_text("call2-tiny-peers-bwd.tar.xz", "tiny1.txt"), end="")
    print("-- call 3 (three runs of the binary with probe_rms):")
    for i in (1, 2, 3):
        print(f"-- run {i}")
        print(tar_text("call3-tiny-probe.tar.xz", f"tiny{i}.txt"), end="")

    # ---- layernorm's parameters (calls 4-6, 9) ----
    two = lambda a, b: {a: [f"ab-{a}-1.json", f"ab-{a}-2.json"], b: [f"ab-{b}-1.json", f"ab-{b}-2.json"]}
    ab("call 4: prefetch per unit and thread, grids of <= a wave of threads (dropped)",
       "call4-prefetch-per-unit.tar.xz", two("head", "pf"), "layernorm.fused", ("head", "pf"))
    ab("call 5: one prefetch per parameter line per CTA, <= 2 CTAs per SM",
       "call5-prefetch-lines.tar.xz", two("head", "pf"), "layernorm.fused", ("head", "pf"))
    ab("call 6: ... and at most 32 KB of parameters a CTA (d0f4527)",
       "call6-prefetch-32k.tar.xz", two("head", "pf"), "layernorm.fused", ("head", "pf"))
    ab("call 7: rmsnorm's 1/N from the host (dropped)",
       "call7-rmsnorm-invn-layernorm-peer.tar.xz", two("pf", "new"), "rmsnorm.fused", ("pf", "new"))
    for cs in ("layernorm", "norm_chain", "double_softmax", "softmax_backward"):
        f = {b: [f"ab-{b}-{i}-{cs}.json" for i in (1, 2)] for b in ("pf", "lat")}
        ab(f"call 8: the latency plan for every engine op: {cs}", "call8-latency-plan-all.tar.xz", f,
           f"{cs}.fused", ("pf", "lat"))
    ab("call 9: the latency plan for ops with parameters (d309e6e)",
       "call9-latency-plan-layernorm.tar.xz", two("pf", "lat"), "layernorm.fused", ("pf", "lat"))

    print("\n## call 7: layernorm beside torch.compile, quick grid, write flush on both sides")
    print(tar_text("call7-rmsnorm-invn-layernorm-peer.tar.xz", "peer-compare-ln.txt").split("\n== summary")[0])

    # ---- the layernorm grids (call 9) against round 6's ----
    grid = xz_json(os.path.join(HERE, "layernorm-grid.json.xz"))
    new = cells(grid, "layernorm")
    ideal = {(c["name"], d["dtype"], cell["row"], cell["col"]): cell.get("ideal_bytes") or 0
             for c in grid["cases"] for d in c["dtypes"] for cell in d["cells"]}
    old = cells(xz_json(os.path.join(HERE, "..", "issue6-r6", "grid-final.json.xz")), "layernorm")
    rs = []
    for k, (v, _) in new.items():
        if k in old and "layernorm.fused" in old[k][0]:
            rs.append((old[k][0]["layernorm.fused"][0] / v["layernorm.fused"][0], k))
    rs.sort()
    print("\n## layernorm float32 grid, call 9 against issue6-r6/grid-final (t_old / t_new)")
    print(f"  geomean {gmean([r for r, _ in rs]):.3f} over {len(rs)} cells")
    print("  lowest: " + ", ".join(f"{k[2]}x{k[3]} {r:.3f}" for r, k in rs[:4]))
    print("  highest: " + ", ".join(f"{k[2]}x{k[3]} {r:.3f}" for r, k in rs[-6:]))
    for dt in ("float32", "bfloat16"):
        big = [(k, v["layernorm.fused"][2]) for k, (v, _) in new.items() if k[1] == dt and ideal[k] >= 64e6]
        miss = [f"{k[2]}x{k[3]} {s:.1f}" for k, s in big if s < 90]
        print(f"  {dt}: {len(big)} cells of >= 64 MB, {len(miss)} under 90% of SOL: {', '.join(miss)}")

    # ---- issue 9 (calls 1, 2) ----
    fb = cells(xz_json(os.path.join(HERE, "rmsnorm-all.json.xz")))
    print("\n## issue 9: rmsnorm / rmsnorm_backward, all dtypes, clean flush (call 1, 312 cells)")
    for case, floor in (("rmsnorm", 90), ("rmsnorm_backward", 80)):
        for dt in ("float32", "float64", "float16", "bfloat16"):
            big = [(k, v[0][case + ".fused"][2]) for k, v in fb.items()
                   if k[0] == case and k[1] == dt and 4 * k[2] * k[3] >= 16 * 1024 * 1024]
            sols = sorted(s for _, s in big)
            miss = [f"T={k[2]} N={k[3]} {s:.2f}" for k, s in big if s < floor]
            print(f"  {case:17s} {dt:9s} M*N >= 16M: {len(big)} shapes, % of SOL min {sols[0]:.1f} median "
                  f"{sols[len(sols) // 2]:.1f}; under {floor}: {', '.join(miss) or 'none'}")
    modes = ("rmsnorm.multi_wave_cached", "rmsnorm.multi_wave_reload", "rmsnorm.static_persistent")
    for dt in ("float32", "float64", "float16", "bfloat16"):
        within, n, worst = 0, 0, (-1.0, ("", "", 0, 0))
        for k, (v, _) in fb.items():
            if k[0] != "rmsnorm" or k[1] != dt:
                continue
            best = min(v[m][0] for m in modes if m in v)
            r = v["rmsnorm.fused"][0] / best - 1
            n += 1
            within += r <= 0.03
            worst = max(worst, (r, k), key=lambda w: w[0])
        print(f"  modes {dt}: rmsnorm.fused within 3% of the fastest mode on {within}/{n} shapes, "
              f"worst +{100 * worst[0]:.1f}% (T={worst[1][2]} N={worst[1][3]})")
    for case, tarname, member, fused in (
            ("rmsnorm", "call1-rmsnorm-table-peers-fwd.tar.xz", "peer-fwd.json", "rmsnorm.fused"),
            ("rmsnorm_backward", "call2-tiny-peers-bwd.tar.xz", "peer-bwd.json", "rmsnorm_backward.fused")):
        peer = cells(tar_json(tarname, member), case)
        for dt in ("float32", "bfloat16"):
            rc, rs_, rf, rl = [], [], [], []
            for k, (v, s) in peer.items():
                if k[1] != dt:
                    continue
                tc = v["torch.compile"][0]
                fv, fs = fb[k]
                rc.append(tc / fv[fused][0])
                rs_.append(tc / s)
                rf.append(fs / fv[fused][0])
                if "liger" in v:
                    rl.append(v["liger"][0] / fv[fused][0])
            print(f"  {case:17s} {dt:9s} geomean over {len(rc)}: t_compile/t_fused {gmean(rc):.3f}, "
                  f"t_liger/t_fused {gmean(rl):.3f}, t_compile/t_copy {gmean(rs_):.3f}, "
                  f"fused at {100 * gmean(rf):.1f}% of SOL")


if __name__ == "__main__":
    main()
