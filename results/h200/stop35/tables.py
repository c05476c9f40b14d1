#!/usr/bin/env python3
"""tables.py — the H200 tables kernels/NOTES.md ("Stop 35") cites, from this directory's call
tarballs: `python3 tables.py`. Writes nothing; tables.txt is its output. No GPU needed.

Every fusionbench figure is a median of a run's samples, every check passed (asserted below);
the dev harness's (dev/layernorm_params_dev.cu) are medians of 30 event-timed samples, each after
a flush, printed as "us (% of the copy) median/p20".
"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # results/: tarballs.py

from tarballs import cells, medians, print_steps as steps, run_summary, text, unpack  # noqa: E402


def times(path):
    """{(dtype, dim0, dim1): {variant: median us}}, {(dtype, dim0, dim1): copy us} of one result file."""
    t, s = medians([path])
    return {k: {n: v[0] for n, v in vs.items()} for k, vs in t.items()}, s


def staged_vs_fused(r, files, a="layernorm.fused", b="layernorm.staged"):
    """t_a / t_b per cell, one column per run file, with b's % of the copy in the first run."""
    runs = [times(os.path.join(r, f)) for f in files]
    keys = sorted(runs[0][0])
    print(f"    {'dtype':9s} {'rows':>6s} x {'W':<6s} {'copy':>7s} {a:>17s} {b:>17s}   t_a/t_b per run" + "   % of copy a -> b")
    for k in keys:
        ta = [t[k][a] for t, _ in runs]
        tb = [t[k][b] for t, _ in runs]
        s = runs[0][1][k]
        print(f"    {k[0]:9s} {k[1]:6d} x {k[2]:<6d} {s:7.1f} {ta[0]:17.1f} {tb[0]:17.1f}   "
              + " ".join(f"{x / y:6.3f}" for x, y in zip(ta, tb))
              + f"   {100 * s / ta[0]:5.1f} -> {100 * s / tb[0]:5.1f}")


def dev_table(r, name, forms):
    """The dev harness's table, the named forms only: us (% of the copy)."""
    lines = text(r, name).splitlines()
    head = next(i for i, l in enumerate(lines) if l.split()[:3] == ["rows", "MB", "copy"])
    cols = lines[head].split()[3:]
    print("    " + lines[0][:100])
    print(f"    {'rows':>6s} {'copy':>7s} " + " ".join(f"{f:>18s}" for f in forms))
    for l in lines[head + 1:]:
        f = l.split()
        if not f or not f[0].isdigit():
            continue
        vals = re.findall(r"([\d.]+) \(\s*([\d.]+)\) [\d.]+", l)
        got = dict(zip(cols, vals))
        print(f"    {f[0]:>6s} {f[2]:>7s} " + " ".join(f"{got[c][0]:>9s} ({got[c][1]:>5s})" for c in forms))


def section(n, title):
    print(f"\n# {n}. {title}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        R = {n: unpack(tmp, os.path.join(HERE, f)) for n, f in [
            (1, "call1-staged-v1.tar.xz"), (2, "call2-staged-after-barrier.tar.xz"), (3, "call3-staged-knobs.tar.xz"),
            (4, "call4-dev-engine-kernels.tar.xz"), (5, "call5-staged-ct-threads.tar.xz"),
            (6, "call6-staged-at-first-reduction.tar.xz"), (7, "call7-dev-bisect.tar.xz"),
            (8, "call8-dev-alignment.tar.xz"), (9, "call9-smem-align.tar.xz"), (10, "call10-verify-grid-peer.tar.xz"),
            (11, "call11-staged-widths-halves.tar.xz"), (12, "call12-verify-grid-peer.tar.xz")]}
        print("Every call asked for nvidia-h200 and got one H200 (r/gpus.txt):",
              text(R[1], "gpus.txt").splitlines()[1])

        section(1, "call 1 (fb35a: K_STAGED, weight copies at the kernel's top): staged vs fused, float32, write flush")
        steps(R[1], ["mc", "rc", "st-ln"])
        staged_vs_fused(R[1], ["ln-1.json", "ln-2.json"])
        print("  the dev harness (write flush), same call:")
        dev_table(R[1], "dev-1.txt", ["noparams", "engine", "ahead", "w_smem"])

        section(2, "call 2 (fb35b: copies after the first reduction's barrier)")
        staged_vs_fused(R[2], ["ln-1.json", "ln-2.json"])

        section(3, "call 3 (fb35c: x's load policy and the copies' place, FB_DEV_STAGED), t_fused / t_staged at W = 32768")
        for f in ("write", "clean"):
            for k in ("last", "stream", "plain", "last+early", "stream+early"):
                t, s = times(os.path.join(R[3], f"ln-{f}-{k}.json"))
                rs = [t[("float32", rows, 32768)]["layernorm.fused"] / t[("float32", rows, 32768)]["layernorm.staged"]
                      for rows in (128, 256, 512, 1024, 2048, 4096, 8192, 16384)]
                print(f"    flush {f:5s} {k:13s} " + " ".join(f"{x:6.3f}" for x in rs))
        print("    (rows 128 .. 16384; 'early' = the copies at the kernel's top, else after the first barrier)")

        section(4, "call 4: the dev harness with the engine's own kernels (fb_row_smem = layernorm.fused's plan,"
                   " fb_staged = copies at the top, fb_staged_late = after the first barrier)")
        for f in ("dev-write.txt", "dev-clean.txt"):
            dev_table(R[4], f, ["engine", "w_smem", "fb_row_smem", "fb_staged", "fb_staged_late"])

        section(5, "call 5 (fb35d: compile-time thread counts, copies at the top): staged vs fused; the dev harness")
        staged_vs_fused(R[5], ["ln-1.json", "ln-2.json"])
        dev_table(R[5], "dev-write.txt", ["w_smem", "fb_row_smem", "fb_staged"])

        section(6, "call 6 (fb35e: copies at the first reduction, once the partial is known): staged vs fused; dev")
        staged_vs_fused(R[6], ["ln-1.json", "ln-2.json"])
        dev_table(R[6], "dev-write.txt", ["w_smem", "fb_row_smem", "fb_staged"])

        section(7, "call 7: the dev harness, bisecting w_smem against fb_staged (engine arithmetic, four accumulators)")
        dev_table(R[7], "dev-write.txt", ["w_smem", "w_smem_serial", "fb_row_smem", "fb_staged", "fb_staged_early",
                                          "fb_staged_tree", "fb_staged_early_tree", "fb_row_smem_tree"])

        section(8, "call 8: shared-memory alignment (w_smem_shift16: the weight 16 bytes off 128; _al: the engine's"
                   " staged area rounded up to 128 bytes)")
        for f in ("dev-write.txt", "dev-clean.txt"):
            dev_table(R[8], f, ["w_smem", "w_smem_shift16", "fb_staged", "fb_staged_al", "fb_staged_early",
                                "fb_staged_early_al"])

        section(9, "call 9 (fb35f: the engine's dynamic shared memory 128-byte aligned; FB_DEV_SMEM_SHIFT=16 moves it"
                   " back): checks, row_smem A/B, staged (aligned) vs fused")
        steps(R[9], ["st", "mc-st", "rc-st", "mc-layernorm", "mc-double_softmax", "mc-softmax_backward",
                     "mc-norm_chain", "rc-ln"])
        for c in ("layernorm", "double_softmax", "softmax_backward", "norm_chain"):
            old = [times(os.path.join(R[9], f"al-{c}-16-{k}.json"))[0] for k in (1, 2)]
            new = [times(os.path.join(R[9], f"al-{c}-0-{k}.json"))[0] for k in (1, 2)]
            print(f"  {c}.fused, t_shift16 / t_aligned, runs 1 and 2:")
            for d in ("float32", "bfloat16"):
                row = []
                for key in sorted(k for k in old[0] if k[0] == d):
                    v = old[0][key][c + ".fused"]
                    rs = [o[key][c + ".fused"] / nn[key][c + ".fused"] for o, nn in zip(old, new)]
                    row.append(f"{key[1]}x{key[2]} {rs[0]:.3f}/{rs[1]:.3f}")
                for i in range(0, len(row), 5):
                    print(f"    {d:9s} " + " | ".join(row[i:i + 5]))
        staged_vs_fused(R[9], ["st-ln-1.json", "st-ln-2.json"])
        dev_table(R[9], "dev-write.txt", ["w_smem", "w_smem_shift16", "fb_row_smem", "fb_staged", "fb_staged_shift16"])

        section(10, "call 10 (fb35g = ac79f6f): checks; layernorm float32 beside torch.compile (write flush)")
        steps(R[10], ["st", "mc"])
        print("  " + [l for l in text(R[10], "sbs.txt").splitlines() if l.startswith("layernorm ")][-1])

        section(11, "call 11 (fb35h: layernorm.staged for 64..256-thread CTAs and the half types): checks, staged vs fused")
        steps(R[11], ["mc", "rc"])
        staged_vs_fused(R[11], ["f32-1.json", "f32-2.json"])
        staged_vs_fused(R[11], ["half-1.json", "half-2.json"])

        section(12, "call 12 (fb35i = 6828a10): checks; layernorm's grid in every dtype (results/h200/layernorm.json);"
                    " float32 beside torch.compile")
        steps(R[12], ["st", "mc"])
        s = run_summary(os.path.join(R[12], "layernorm-all.json"))["layernorm"]
        print(f"  grid: {s['cells']} cells, variant checks ok {s['ok']}, failed {s['failed']}, unchecked {s['unchecked']}")
        grid = os.path.join(R[12], "layernorm-all.json")
        t, sol = times(grid)
        ideal = {(d, c["row"], c["col"]): c["ideal_bytes"] for _, d, c in cells(grid)}
        for d in ("float32", "float16", "bfloat16"):
            big = sorted((100 * sol[k] / t[k]["layernorm.fused"], k[1], k[2]) for k in t
                         if k[0] == d and ideal[k] >= 64 * 2**20)
            under = [f"{r}x{w} {p:.1f}" for p, r, w in big if p < 90]
            print(f"  {d}: layernorm.fused on cells of >= 64 MB: {len(big)}, under 90% of the copy {len(under)}: "
                  + ", ".join(under))
        sbs = text(R[12], "sbs.txt").splitlines()
        print("  " + [l for l in sbs if l.startswith("layernorm ")][-1])
        for l in sbs:
            if "vs torch.compile" in l and "layernorm.fused" in l and "dim0=" in l:
                print("  " + l.strip())


if __name__ == "__main__":
    main()
