#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 45") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Call 1: stop 44's unrun commits on a GPU (eager conv's grown workspace, paired timing under cupti,
fb_tune_load). Calls 2, 3, 5: three forms of layernorm at float32 W = 65536 (persistent clusters;
parameters a unit ahead of the stores; a ring of them, with a smaller register part), none landed.
Call 4: conv_add and conv.tuned on engine 4 (the split stop 44 planned); Nsight Compute on the small
GEMM and on row_smem (layernorm beside norm_chain). Call 6: conv_add's graph in five shapes.
Call 7: conv_add.fused with two graphs raced (3c54508). Call 8: matmul_add.cudnn. Call 9:
`run --all --dtype float32` on the final binary (issue 6's ten minutes). Every check the tables use
passed (asserted).
"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py
from tarballs import assert_checked, cells, geomean, last, print_steps as steps, unpack  # noqa: E402


def variant_by_cell(path, variant):
    """{point tuple: variant result} of a result file, every check asserted passed."""
    assert_checked(path)
    out = {}
    for _, d, c in cells(path):
        v = c["variants"].get(variant)
        if v is not None:
            out[(d, *c["point"].values())] = v
    return out


def us(v):
    return v["time_ms"]["median"] * 1e3


def pair_ratio(v):
    p = v.get("paired") or {}
    return p["ratio"]["median"] if p.get("status") == "ok" else None


def sol_grid(path, variant):
    """{(rows, W): % of SOL} of a result file."""
    return {(k[1], k[2]): v["sol_pct"] for k, v in variant_by_cell(path, variant).items()}


def ncu_metrics(r, name, keys):
    out = {}
    with open(os.path.join(r, name)) as f:
        txt = f.read()
    for k in keys:
        m = re.search(r"^\s+" + re.escape(k) + r"\s+\S+\s+([\d.]+)\s*$", txt, re.M)
        out[k] = float(m.group(1)) if m else None
    m = re.search(r"([\d.]+)% of the total average of ([\d.]+) cycles", txt)
    out["L1TEX scoreboard share"] = float(m.group(1)) if m else None
    return out


def main():
    tmp = tempfile.mkdtemp()
    r = {i: unpack(tmp, os.path.join(HERE, n)) for i, n in enumerate([
        "call1-validate.tar.xz", "call2-layernorm-persist.tar.xz", "call3-params-one-ahead.tar.xz",
        "call4-engine4-ncu.tar.xz", "call5-params-ring.tar.xz", "call6-conv-add-forms.tar.xz",
        "call7-conv-add-two-graphs.tar.xz", "call8-matmul-add-cudnn.tar.xz", "call9-run-all-f32.tar.xz"], 1)}

    print("== 1. call 1: stop 44's HEAD (94251ee) on a GPU")
    steps(r[1], ["selftest", "st-odd", "memcheck", "st-timer"])
    for l in open(os.path.join(r[1], "st-timer.txt")):
        if "paired" in l:
            print("  " + l.strip())
    print("  small GEMMs paired with matmul.tuned, t_fused / t_floor: events | cupti (bfloat16, K 1024)")
    ev = variant_by_cell(os.path.join(r[1], "pair-events.json"), "matmul_bias.fused")
    ev.update(variant_by_cell(os.path.join(r[1], "pair-events.json"), "matmul_relu.fused"))
    for case in ("matmul_bias", "matmul_relu"):
        e = variant_by_cell(os.path.join(r[1], "pair-events.json"), case + ".fused")
        c = variant_by_cell(os.path.join(r[1], "pair-cupti.json"), case + ".fused")
        for k in sorted(e):
            print(f"    {case:12s} M={k[1]:5d} N={k[3]:5d}  {pair_ratio(e[k]):.3f} | {pair_ratio(c[k]):.3f}")
    print("  float32 conv: t_eager / t_conv.tuned (eager's workspace grown after prepare, 5d127db)")
    e = variant_by_cell(os.path.join(r[1], "f32.json"), "eager")
    t = variant_by_cell(os.path.join(r[1], "f32.json"), "conv.tuned")
    for k in sorted(e):
        print(f"    {k}  eager {us(e[k]):8.1f} us  conv.tuned {us(t[k]):8.1f} us  {us(e[k]) / us(t[k]):.3f}")

    print("\n== 2. call 2: layernorm.persist (dev/layernorm_persist.patch), float32, % of SOL")
    steps(r[2], ["selftest", "memcheck", "racecheck"])
    for f in ("long-f32.json", "long-bf16.json"):
        print(f"  {f}: {assert_checked(os.path.join(r[2], f))} timed variants, every check passed")
    fused = sol_grid(os.path.join(r[2], "sweep-256.json"), "layernorm.fused")
    cols = [("256,8", "sweep-256"), ("256,8 again", "sweep-256r"), ("512,4", "sweep-512"), ("512,8", "sweep-512c8"),
            ("128,8", "sweep-128c8")]
    grids = {n: sol_grid(os.path.join(r[2], f + ".json"), "layernorm.persist") for n, f in cols}
    print("    rows x W       fused(row_smem/staged) | persist at threads,cluster: " + "  ".join(n for n, _ in cols))
    for k in sorted(fused):
        print(f"    {k[0]:5d} x {k[1]:5d}  {fused[k]:6.1f} | " +
              "  ".join(f"{grids[n].get(k, float('nan')):6.1f}" for n, _ in cols))

    print("\n== 3. call 3: row_smem's parameters one unit ahead of the stores, t_before / t_ahead")
    steps(r[3], ["selftest", "memcheck"])
    for var in ("layernorm.fused", "layernorm.row_smem"):
        a = [variant_by_cell(os.path.join(r[3], f"f32-ahead-{i}.json"), var) for i in (1, 2)]
        b = [variant_by_cell(os.path.join(r[3], f"f32-before-{i}.json"), var) for i in (1, 2)]
        print(f"  float32 {var}: rows x W  round 1, round 2 (% of SOL ahead | before)")
        for k in sorted(a[0]):
            print(f"    {k[1]:5d} x {k[2]:5d}  {us(b[0][k]) / us(a[0][k]):.3f} {us(b[1][k]) / us(a[1][k]):.3f}"
                  f"  ({a[0][k]['sol_pct']:.1f} | {b[0][k]['sol_pct']:.1f})")
    for var in ("layernorm.fused", "layernorm.row_smem"):
        a = variant_by_cell(os.path.join(r[3], "bf16-ahead.json"), var)
        b = variant_by_cell(os.path.join(r[3], "bf16-before.json"), var)
        print(f"  bfloat16 {var}: t_before / t_ahead geomean {geomean([us(b[k]) / us(a[k]) for k in a]):.3f} "
              f"({min(us(b[k]) / us(a[k]) for k in a):.3f}-{max(us(b[k]) / us(a[k]) for k in a):.3f}), {len(a)} cells")

    print("\n== 4. call 4: conv_add on engine 4 (dev/cudnn_engine_knob.patch); Nsight Compute")
    steps(r[4], [])
    e4 = variant_by_cell(os.path.join(r[4], "add-e4.json"), "conv_add.fused")
    fr = variant_by_cell(os.path.join(r[4], "add-free.json"), "conv_add.fused")
    print("  bfloat16 H 56: t_fused / t_floor, FB_DEV_CUDNN_ENGINE=4 | free; the floor's path under the knob")
    for k in sorted(e4):
        print(f"    N={k[1]:2d} C={k[3]:3d}  {pair_ratio(e4[k]):.3f} | {pair_ratio(fr[k]):.3f}   "
              f"{e4[k]['paired']['floor_note'][:62]}")
    keys = ["Duration", "DRAM Throughput", "L2 Cache Throughput", "L1/TEX Cache Throughput", "L2 Hit Rate",
            "Registers Per Thread", "Achieved Occupancy", "Warp Cycles Per Issued Instruction"]
    print("  row_smem_kernel at float32 W = 65536, under Nsight Compute (its clocks):")
    for c in ("layernorm", "norm_chain"):
        for rows in (2048, 8192):
            m = ncu_metrics(r[4], f"ncu-{c}-{rows}.txt", keys)
            print(f"    {c:10s} {rows:5d} rows: " + ", ".join(f"{k} {v}" for k, v in m.items()))
    with open(os.path.join(r[4], "ncu-bias.txt")) as f:
        names = sorted({l.split('"')[1] for l in f if l.startswith("==PROF== Profiling")})
    m = ncu_metrics(r[4], "ncu-bias.txt", ["Duration", "DRAM Throughput", "Registers Per Thread", "Grid Size"])
    print(f"  matmul_bias.fused 128 x 8192 x 1024 bfloat16: {names}, last launch: {m}")

    print("\n== 5. call 5: a ring of DEPTH units' parameters, register part 8 or 4 (dev/smem_params_ahead_knob.patch)")
    steps(r[5], ["st-42", "memcheck-42"])
    confs = [("80", "as committed"), ("42", "4 + ring 2"), ("41", "4 + 1 ahead"), ("44", "4 + ring 4"),
             ("40", "4, none ahead"), ("82", "8 + ring 2"), ("81", "8 + 1 ahead")]
    print("  layernorm.fused float32 W = 65536, % of SOL, round 1 / round 2: " + ", ".join(f"{c} = {d}" for c, d in confs))
    g = {(c, i): sol_grid(os.path.join(r[5], f"r{i}-{c}.json"), "layernorm.fused") for c, _ in confs for i in (1, 2)}
    for k in sorted(g[("80", 1)]):
        print(f"    {k[0]:5d} rows  " + "  ".join(f"{c}: {g[(c, 1)][k]:5.1f}/{g[(c, 2)][k]:5.1f}" for c, _ in confs))

    print("\n== 6. call 6: conv_add's graph in five shapes (dev/conv_add_form_knob.patch), bfloat16 H 56")
    steps(r[6], [])
    forms = {0: "conv -> +D", 1: "conv -> +D -> +0", 2: "conv -> +0 -> +D", 3: "conv -> +D -> identity",
             4: "conv -> +D -> +0 -> identity"}
    for f, name in forms.items():
        v = variant_by_cell(os.path.join(r[6], f"form{f}.json"), "conv_add.fused")
        ratios = [pair_ratio(x) for x in v.values()]
        eng = sorted({re.search(r"engine (\d+)", x["reason"]).group(1) for x in v.values()})
        print(f"  form {f} ({name}): engines kept {eng}; t_fused / t_floor geomean {geomean(ratios):.3f}, "
              f"{min(ratios):.3f}-{max(ratios):.3f}")
        for k in sorted(v):
            print(f"    N={k[1]:2d} C={k[3]:3d}  {us(v[k]):7.1f} us  {pair_ratio(v[k]):.3f}")

    print("\n== 7. call 7: conv_add.fused, two graphs raced (3c54508), paired with conv.tuned")
    steps(r[7], ["selftest", "st-odd", "memcheck"])
    for f in ("bf16", "f16", "f32"):
        v = variant_by_cell(os.path.join(r[7], f + ".json"), "conv_add.fused")
        for H in sorted({k[2] for k in v}, reverse=True):
            rs = [pair_ratio(x) for k, x in v.items() if k[2] == H]
            kept = sum(1 for k, x in v.items() if k[2] == H and x["reason"].startswith("conv -> + D -> + 0"))
            print(f"  {f:4s} H={H:2d}: geomean {geomean(rs):.3f}, within 3%: {sum(1 for x in rs if x <= 1.03)} of {len(rs)}, "
                  f"worst {max(rs):.3f}; the zero-bias graph kept on {kept} of {len(rs)}")
        for k in sorted(v):
            print(f"    {k}  {us(v[k]):8.1f} us  {pair_ratio(v[k]):.3f}  {v[k]['reason'][:90]}")

    print("\n== 8. call 8: matmul_add.cudnn beside matmul_add.fused, paired with matmul.tuned")
    steps(r[8], ["memcheck"])
    print(f"  odd shapes (M 1, 130 x N 8, 136 x K 64, 72): {assert_checked(os.path.join(r[8], 'odd.json'))} timed "
          f"variants, every check passed")
    for f in ("bf16", "f16", "f32"):
        a = variant_by_cell(os.path.join(r[8], f + ".json"), "matmul_add.fused")
        c = variant_by_cell(os.path.join(r[8], f + ".json"), "matmul_add.cudnn")
        for k in sorted(a):
            if "time_ms" not in c[k]:
                print(f"    {f} {k}: cudnn {c[k]['status']}: {c[k]['reason'][:110]}")
                continue
            print(f"    {f:4s} M={k[1]:5d} N={k[3]:5d}  fused {us(a[k]):6.1f} us ({pair_ratio(a[k]):.3f})  cudnn "
                  f"{us(c[k]):6.1f} us ({pair_ratio(c[k]):.3f})  t_fused / t_cudnn {us(a[k]) / us(c[k]):.3f}  "
                  f"{c[k]['reason'][:48]}")

    print("\n== 9. call 9: `run --all --dtype float32` on the final binary (75e22f7)")
    steps(r[9], [])
    print("  " + last(r[9], "all.txt", "cells in"))
    path = os.path.join(r[9], "all-float32.json")
    n = assert_checked(path)
    status = {}
    for case, _, c in cells(path):
        for v in c["variants"].values():
            if v.get("status") != "ok":
                status[(case, v.get("status"))] = status.get((case, v.get("status")), 0) + 1
    print(f"  {n} timed variants, every check passed; not ok: {status}")
    wide = {}
    for case, _, c in cells(path):
        f = c["variants"].get(case + ".fused")
        if c.get("col") == 65536 and c["ideal_bytes"] >= 64 * 2**20 and f and f.get("sol_pct") is not None:
            wide.setdefault(case, []).append(f["sol_pct"])
    print("  fused % of SOL on the >= 64 MB cells of W = 65536: " +
          ", ".join(f"{k} {min(v):.1f}-{max(v):.1f}" for k, v in sorted(wide.items())))
    old = unpack(tmp, os.path.join(HERE, "..", "stop44", "call4-run-all-f32.tar.xz"))
    a = variant_by_cell(os.path.join(old, "all-float32.json"), "conv_add.fused")
    b = {k: v for k, v in variant_by_cell(path, "conv_add.fused").items()}
    both = [k for k in b if "time_ms" in a.get(k, {})]
    print(f"  float32 conv_add.fused: {len(b)} cells ran ({len(b) - len(both)} skipped in stop 44's call 4); "
          f"t_stop44 / t_now geomean {geomean([us(a[k]) / us(b[k]) for k in both]):.3f} over {len(both)} "
          f"({min(us(a[k]) / us(b[k]) for k in both):.3f}-{max(us(a[k]) / us(b[k]) for k in both):.3f}); paths now: "
          f"{sorted({v['reason'][:36] for v in b.values()})}")


if __name__ == "__main__":
    main()
