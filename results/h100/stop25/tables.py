#!/usr/bin/env python3
"""tables.py — the tables kernels/NOTES.md ("Stop 25") cites, printed from this directory's device
outputs: `python3 tables.py [FUSIONBENCH]` (default ../../../build/fusionbench, used for
`export --format csv`; no GPU needed). Writes nothing; tables.txt is its output.
"""
import collections
import csv
import json
import io
import lzma
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


def cells(path):
    """(case, dtype, row, col, variant) -> median us, for the ok cells of a result file (the
    speed-of-light copy is the variant 'sol')."""
    out = subprocess.run([FB, "export", path, "--format", "csv"], capture_output=True, text=True, check=True).stdout
    d = {}
    for r in csv.DictReader(io.StringIO(out)):
        if r["status"] == "ok":
            d[(r["case"], r["dtype"], int(r["row"]), int(r["col"]), r["variant"])] = float(r["median_us"])
    return d


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def section_pipe(c1, c2):
    print("== 1. row_pipe_kernel (NAME.pipe) against NAME.fused (call 1, float32, clean flush; us, % of SOL)")
    for case in ("layernorm", "norm_chain", "double_softmax", "softmax_backward"):
        d = cells(os.path.join(c1, "ab-%s.json" % case))
        rat = []
        print("  %s" % case)
        for (cs, dt, row, col, v) in sorted(k for k in d if k[4] == case + ".fused"):
            f, p, s = d[(cs, dt, row, col, v)], d[(cs, dt, row, col, case + ".pipe")], d[(cs, dt, row, col, "sol")]
            rat.append(f / p)
            print("    %5d x %5d  fused %7.1f (%5.1f%%)  pipe %7.1f (%5.1f%%)  t_fused/t_pipe %.3f" %
                  (row, col, f, 100 * s / f, p, 100 * s / p, f / p))
        print("    geomean t_fused/t_pipe %.3f over %d cells (min %.3f, max %.3f)" % (geo(rat), len(rat), min(rat), max(rat)))
    print()
    print("== 2. stages in flight (call 2, FB_DEV_PIPE_S = 1..4; one run each; us)")
    runs = {S: cells(os.path.join(c2, "s%d.json" % S)) for S in (1, 2, 3, 4)}
    for case in ("norm_chain", "double_softmax"):
        for row in (512, 2048):
            for col in (8192, 16384):
                f = [runs[S][(case, "float32", row, col, case + ".fused")] for S in (1, 2, 3, 4)]
                p = [runs[S][(case, "float32", row, col, case + ".pipe")] for S in (1, 2, 3, 4)]
                print("  %-15s %5d x %5d  fused %s  pipe S=1..4 %s" % (case, row, col, "/".join("%.1f" % x for x in f),
                                                                     "/".join("%.1f" % x for x in p)))
    print()
    print("== 3. Nsight Compute, norm_chain 2048 x 16384 float32 (call 2)")
    for v in ("fused", "pipe"):
        with open(os.path.join(c2, "ncu-%s.txt" % v)) as fh:
            keep = [l.strip() for l in fh if any(k in l for k in ("DRAM Throughput", "Duration", "Grid Size", "Block Size",
                                                                  "Registers Per Thread", "Achieved Occupancy",
                                                                  "Dynamic Shared Memory Per Block"))]
        print("  %s: %s" % (v, "; ".join(" ".join(k.split()) for k in keep)))


def section_half(c3, c4):
    print("== 4. half types: NAME.row_smem (shared part by cp.async, call 3's binary) against NAME.fused (the")
    print("   plans before this stop: CTA rows or clusters); call 3, one run, clean flush; us, % of SOL")
    for case in ("layernorm", "norm_chain", "double_softmax", "softmax_backward"):
        d = cells(os.path.join(c3, "ab-%s.json" % case))
        print("  %s" % case)
        for (cs, dt, row, col, v) in sorted(k for k in d if k[4] == case + ".fused"):
            f, s = d[(cs, dt, row, col, v)], d[(cs, dt, row, col, "sol")]
            p = d.get((cs, dt, row, col, case + ".row_smem"))
            if p is None:
                print("    %-8s %5d x %5d  fused %7.1f (%5.1f%%)  row_smem declines" % (dt, row, col, f, 100 * s / f))
            else:
                print("    %-8s %5d x %5d  fused %7.1f (%5.1f%%)  row_smem %7.1f (%5.1f%%)  t_fused/t_row_smem %.3f" %
                      (dt, row, col, f, 100 * s / f, p, 100 * s / p, f / p))
    print()
    print("== 5. bfloat16 default grids, fused: d115d79 (old) / the half-type rule (new); call 4, one run each")
    new = cells(os.path.join(c4, "bf16-new.json"))
    for case in ("layernorm", "norm_chain", "double_softmax", "softmax_backward"):
        old = cells(os.path.join(c4, "bf16-old-%s.json" % case))
        rows = []
        for k, t in new.items():
            if k[0] == case and k[4] == case + ".fused" and k in old:
                rows.append((old[k] / t, k[2], k[3], old[k], t, 100 * new[k[:4] + ("sol",)] / t))
        rows.sort()
        print("  %-17s geomean %.3f over %d cells (min %.3f at %d x %d, max %.3f at %d x %d)" %
              (case, geo([r[0] for r in rows]), len(rows), rows[0][0], rows[0][1], rows[0][2], rows[-1][0], rows[-1][1],
               rows[-1][2]))
        for r in rows:
            if r[0] >= 1.06:
                print("      %5d x %5d  %7.1f -> %7.1f us  %.3fx  now %5.1f%% of SOL" % (r[1], r[2], r[3], r[4], r[0], r[5]))


def sol_cells(path):
    """(case, dtype, row, col, variant) -> (median us, % of SOL) from a result file."""
    out = subprocess.run([FB, "export", path, "--format", "csv"], capture_output=True, text=True, check=True).stdout
    d = {}
    for r in csv.DictReader(io.StringIO(out)):
        if r["status"] == "ok" and r["sol_pct"]:
            d[(r["case"], r["dtype"], int(r["row"]), int(r["col"]), r["variant"])] = (float(r["median_us"]), float(r["sol_pct"]))
    return d


def section_issue9(c7):
    print("== 6. issue 9's table on 99a3c43 (call 7: run --case rmsnorm,rmsnorm_backward --dtype all --table),")
    print("   against stop 24's (../rmsnorm.json.xz before this stop's commit, da18601); % of SOL on M*N >= 16M")
    new = sol_cells(os.path.join(c7, "rms-all.json"))
    tmp = tempfile.mkdtemp()
    old_path = os.path.join(tmp, "old.json")
    with open(old_path, "wb") as fh:
        fh.write(lzma.decompress(subprocess.run(["git", "-C", HERE, "show", "d115d79:results/h100/rmsnorm.json.xz"],
                                                capture_output=True, check=True).stdout))
    old = sol_cells(old_path)
    for case, floor in (("rmsnorm", 90), ("rmsnorm_backward", 80)):
        for dt in ("float32", "float64", "float16", "bfloat16"):
            v = case + ".fused"
            big = sorted((s[1], k) for k, s in new.items() if k[0] == case and k[1] == dt and k[4] == v
                         and 4 * k[2] * k[3] >= 16 * 1024 * 1024)
            ob = sorted(s[1] for k, s in old.items() if k[0] == case and k[1] == dt and k[4] == v
                        and 4 * k[2] * k[3] >= 16 * 1024 * 1024)
            miss = ["T=%d N=%d %.1f" % (k[2], k[3], s) for s, k in big if s < floor]
            print("  %-17s %-9s %d shapes: min %.1f median %.1f (stop 24: %.1f / %.1f); under %d: %s" %
                  (case, dt, len(big), big[0][0], big[len(big) // 2][0], ob[0], ob[len(ob) // 2], floor,
                   ", ".join(miss) or "none"))
    rs = {}
    for k, (t, _) in new.items():
        if k[0] == "rmsnorm_backward" and k[4] == "rmsnorm_backward.fused" and k in old:
            rs.setdefault(k[1], []).append(old[k][0] / t)
    for dt, r in rs.items():
        print("  rmsnorm_backward.fused %-9s t_stop24 / t_new geomean %.3f over %d shapes (min %.3f, max %.3f)" %
              (dt, geo(r), len(r), min(r), max(r)))
    modes = ("rmsnorm.multi_wave_cached", "rmsnorm.multi_wave_reload", "rmsnorm.static_persistent")
    for dt in ("float32", "float64", "float16", "bfloat16"):
        within, n, worst = 0, 0, (-1.0, None)
        for k, (t, _) in new.items():
            if k[0] != "rmsnorm" or k[1] != dt or k[4] != "rmsnorm.fused":
                continue
            best = min(new[k[:4] + (m,)][0] for m in modes if k[:4] + (m,) in new)
            r = t / best - 1
            n += 1
            within += r <= 0.03
            if r > worst[0]:
                worst = (r, k)
        print("  modes %-9s rmsnorm.fused within 3%% of the fastest mode on %d/%d shapes, worst +%.1f%% (T=%d N=%d)" %
              (dt, within, n, 100 * worst[0], worst[1][2], worst[1][3]))


def ncu_lines(path, keys):
    with open(path) as fh:
        return ["; ".join(" ".join(l.split()) for l in blk if any(k in l for k in keys))
                for blk in [fh.readlines()]][0]


def section_stage_index(c5, c6):
    print("== 7. rmsnorm_backward.pipelined: the stage index (calls 5-6)")
    keys = ("Duration", "Issued Warp Per Scheduler", "Executed Instructions  ", "DRAM Throughput")
    for d in ("bfloat16", "float16", "float32"):
        print("  call 5, ncu [4, 512, 8192] %-9s (row kernel, then dw kernel): %s" % (d, ncu_lines(os.path.join(c5, "ncu-%s.txt" % d), keys)))
    for b in ("base", "st"):
        print("  call 6, ncu [4, 512, 8192] bfloat16 %-4s: %s" % (b, ncu_lines(os.path.join(c6, "ncu-%s.txt" % b), keys)))
    runs = {b: [cells(os.path.join(c6, "ab-%s-%d.json" % (b, k))) for k in (1, 2)] for b in ("base", "st")}
    v = "rmsnorm_backward.fused"
    for dt in ("float32", "float64", "float16", "bfloat16"):
        rs, big = [], []
        for k in sorted(runs["base"][0]):
            if k[1] != dt or k[4] != v:
                continue
            tb = min(r[k] for r in runs["base"])
            ts = min(r[k] for r in runs["st"])
            sol = min(r[k[:4] + ("sol",)] for r in runs["base"] + runs["st"])
            rs.append(tb / ts)
            if 4 * k[2] * k[3] >= 16 * 1024 * 1024:
                big.append("T=%d N=%d %.1f -> %.1f%%" % (k[2], k[3], 100 * sol / tb, 100 * sol / ts))
        print("  call 6 %-9s t_base / t_st geomean %.3f over %d shapes (min %.3f, max %.3f); %% of SOL, M*N >= 16M: %s" %
              (dt, geo(rs), len(rs), min(rs), max(rs), ", ".join(big)))


def section_hrp(c8):
    print("== 8. horizontal_reduction_pointwise at 65536 x 61 / 130, float32, every variant, three runs (call 8); % of SOL")
    V = "horizontal_reduction_pointwise"
    for k in (1, 2, 3):
        d = cells(os.path.join(c8, "hrp-%d.json" % k))
        for w in (61, 130):
            s = d[(V, "float32", 65536, w, "sol")]
            print("  run %d W = %3d  %s" % (k, w, "  ".join(
                "%s %.1f" % (v, 100 * s / d[(V, "float32", 65536, w, V + "." + v)])
                for v in ("fused", "persistent", "group", "cta", "scalar"))))
    with open(os.path.join(c8, "racecheck-ln-bf16.txt")) as fh:
        print("  racecheck, layernorm bfloat16: " + "; ".join(l.strip() for l in fh if "RACECHECK SUMMARY" in l or "selftest:" in l))


def section_hrp_rule(c9, c10):
    V = "horizontal_reduction_pointwise"
    esz = {"float32": 4, "bfloat16": 2}
    print("== 9. horizontal_reduction_pointwise's short odd rows: .scalar / .persistent, best of three runs (call 9)")
    runs = [cells(os.path.join(c9, "odd-%d.json" % k)) for k in (1, 2, 3)]
    for k in sorted({k[:4] for k in runs[0]}):
        sc = min(r[k + (V + ".scalar",)] for r in runs)
        pe = min(r[k + (V + ".persistent",)] for r in runs)
        print("  %-8s %5d x %3d  scalar %6.2f  persistent %6.2f us  t_scalar / t_persistent %.3f" % (k[1], k[2], k[3], sc, pe, sc / pe))
    print("== 10. the rule (scalar only while x < 4 MB or rows of <= 128 bytes): .fused old / new, best of two runs (call 10)")
    o = [cells(os.path.join(c10, "ab-old-%d.json" % k)) for k in (1, 2)]
    n = [cells(os.path.join(c10, "ab-new-%d.json" % k)) for k in (1, 2)]
    rs = []
    for k in sorted(k for k in o[0] if k[4] == V + ".fused"):
        to, tn = min(x[k] for x in o), min(x[k] for x in n)
        sol = min(x[k[:4] + ("sol",)] for x in o + n)
        rb = k[3] * esz[k[1]]
        changed = rb <= 256 and k[3] % (16 // esz[k[1]]) and not (rb <= 128 or k[2] * rb < 4e6)
        rs.append(to / tn)
        print("  %-8s %5d x %3d  %6.2f -> %6.2f us  %.3f  %% of SOL %.1f -> %.1f%s" %
              (k[1], k[2], k[3], to, tn, to / tn, 100 * sol / to, 100 * sol / tn, "  (plan changed)" if changed else ""))
    print("  geomean %.3f over %d cells" % (geo(rs), len(rs)))


def section_scan(c11):
    print("== 11. Row::scan (read-only passes write nothing back; each() without the per-value compare; norm_chain")
    print("   read-only): fused old (1ad13f0) / new, best of two runs (call 11); % of SOL")
    for grp in ("f32", "mid", "bf16"):
        for c in ("layernorm", "norm_chain", "double_softmax", "softmax_backward"):
            o = [cells(os.path.join(c11, "%s-old-%d-%s.json" % (grp, k, c))) for k in (1, 2)]
            n = [cells(os.path.join(c11, "%s-new-%d-%s.json" % (grp, k, c))) for k in (1, 2)]
            rs, lines = [], []
            for k in sorted(k for k in o[0] if k[4] == c + ".fused"):
                to, tn = min(x[k] for x in o), min(x[k] for x in n)
                sol = min(x[k[:4] + ("sol",)] for x in o + n)
                rs.append(to / tn)
                lines.append("%dx%d %.3f (%.1f -> %.1f)" % (k[2], k[3], to / tn, 100 * sol / to, 100 * sol / tn))
            print("  %-4s %-17s geomean %.3f (min %.3f, max %.3f): %s" % (grp, c, geo(rs), min(rs), max(rs), ", ".join(lines)))


def section_run_all(c12, c13, c14):
    print("== 12. issue 6's time criterion: run --all --dtype float32 (call 12, killed at 585 s) and single cases (call 13)")
    with open(os.path.join(c12, "all-float32.txt")) as fh:
        print("  call 12: " + " ".join(l.strip() for l in fh if l.startswith("real") or "rc=" in l))
    cnt = collections.OrderedDict()
    with open(os.path.join(c12, "all-float32.json.journal")) as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if "case" in r:
                cnt[r["case"]] = cnt.get(r["case"], 0) + 1
    print("  cells journalled before the limit: %d, by case: %s" % (sum(cnt.values()), ", ".join("%s %d" % kv for kv in cnt.items())))
    def timed(path):
        """'N cells in T s', and `time`'s real and user, from a timed run's output."""
        with open(path) as fh:
            lines = fh.read().splitlines()
        cells_in = [l for l in lines if "cells in" in l][0].split(":", 1)[1].split(";")[0].strip()
        real = [l.split()[1] for l in lines if l.startswith("real")][0]
        user = [l.split()[1] for l in lines if l.startswith("user")][0]
        return "%s; real %s, user %s" % (cells_in, real, user)

    for c in ("matmul", "layernorm", "conv_relu", "matmul_matmul"):
        print("  call 13 %-14s %s" % (c, timed(os.path.join(c13, c + ".txt"))))
    for c in ("matmul", "matmul_add"):
        print("  call 14 (reference in blocks) %-10s %s" % (c, timed(os.path.join(c14, c + ".txt"))))
    d = json.load(open(os.path.join(c13, "matmul.json")))
    prep = {}
    for case in d["cases"]:
        for dt in case["dtypes"]:
            for cell in dt["cells"]:
                for v, o in cell["variants"].items():
                    t = o.get("time_ms", {})
                    p = prep.setdefault(v, [0.0, 0.0])
                    p[0] += 2 * (o.get("prepare_ms") or 0) / 1000
                    p[1] += t.get("n", 0) * t.get("mean", 0) / 1000
    print("  call 13 matmul by variant: " + ", ".join("%s prepare (twice) %.1f s, samples %.1f s" % (v, p[0], p[1]) for v, p in prep.items()))


def main():
    tmp = tempfile.mkdtemp()
    c1, c2 = unpack(tmp, "call1-pipe-ab"), unpack(tmp, "call2-pipe-stages-ncu")
    section_pipe(c1, c2)
    print()
    c3, c4 = unpack(tmp, "call3-half-row-smem-ab"), unpack(tmp, "call4-half-rule-grids")
    section_half(c3, c4)
    print()
    section_issue9(unpack(tmp, "call7-issue9-table"))
    print()
    section_stage_index(unpack(tmp, "call5-rmsnorm-bwd-ncu"), unpack(tmp, "call6-stage-index-ab"))
    print()
    section_hrp(unpack(tmp, "call8-hrp61-racecheck"))
    print()
    section_hrp_rule(unpack(tmp, "call9-hrp-short-odd"), unpack(tmp, "call10-hrp-rule-ab"))
    print()
    section_scan(unpack(tmp, "call11-scan-ab"))
    print()
    section_run_all(unpack(tmp, "call12-run-all-float32"), unpack(tmp, "call13-run-time-by-case"),
                    unpack(tmp, "call14-matmul-reference-blocks"))


if __name__ == "__main__":
    main()
