#!/usr/bin/env python3
"""side_by_side.py — fusionbench's fused variants beside PyTorch's over whole grids, one lane of
cases per GPU of a host, then scripts/peer_compare.py over all of it.

For each case and dtype, on one GPU (CUDA_VISIBLE_DEVICES), back to back so that both sides see
the same card in the same state:

    fusionbench run --case C --dtype D --flush F --timer T --variants <C's fused list> --baseline <its first>
                    --out DIR/fb-C-D.json                (--resume DIR/fb-C-D.json if it exists)
    torch_peer.py run --case C --dtype D --flush F --timer T --variants V --budget LEFT
                    --out DIR/peer-C-D.json              (--resume DIR/peer-C-D.json if it exists)

--timer cupti times both sides by their kernels' GPU durations instead of event pairs: at cells of
a few microseconds under the write flush an events median moves by up to 25% from one measurement
of the same kernel to the next, the durations by 2% (kernels/NOTES.md, "Stop 36").

With --rounds N each case and dtype runs N times a side, in ABBA order (fusionbench first in odd
rounds, torch_peer first in even ones; round r > 1 writes fb-C-D.rR.json and peer-C-D.rR.json),
and peer_compare times each side as the geometric mean of its rounds. A compute-bound cell's
power state drifts over a call: matmul_bias on one H100 read 0.989-1.007x depending on which runs
were paired, 0.998x over two rounds (results/h100/stop31).

Cases are dealt to the lanes (one per --gpus entry) most cells first, each to the lane with the
fewest cells so far; among cases of as many cells, those named first run first. With --budget S, no lane starts a step after S seconds, and torch_peer stops
starting cells then: run the same command again (same --dir) to go on; both tools skip the cells
their files already hold. The last step prints peer_compare.py's tables and targets over every
file in DIR and writes them to DIR/compare.txt. Each step's output goes to DIR/log-C-D-fb.txt or
-peer.txt, and DIR/lanes.txt says what ran where and how it ended.

Grid-axis options (--dim1 8192,16384,32768, --dim0 128:65536) go to both tools, to run part of a
grid on both sides: each case's commands get those that name one of its symbols. They are checked
here first (one that names no symbol of any case is a usage error), and the lanes are dealt by the
cells they leave.

stop 28 did this by hand on a two-GPU host: 11 cases x 100 cells, fused and torch.compile, in
about 19 minutes of wall time (results/h200/stop28/).

Exit status: 0 when every step ended well (peer_compare's own status: 1 when a target is missed,
is not this script's), 1 when a step failed or the budget left work undone, 2 on bad usage.

Environment: FUSIONBENCH (the binary, default build/fusionbench), TORCH_PEER (the peer script,
default scripts/torch_peer.py beside this one), FUSIONBENCH_CASES (the cases directory, as both
tools read it).
"""
import argparse
import heapq
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import torch_peer as tp  # noqa: E402  (the case reader and grids; no torch needed for those)

BUDGET_STOP = "stopped at the --budget"  # torch_peer's line when --budget ends a run early


def symbols(case):
    """The names a grid-axis option may give for this case: its axes and its fixed size symbols."""
    return {s for s, _ in case.axes} | set(case.fixed)


def cells(case, overrides=None):
    """Cells of the case's grid (every grid of its fixed symbols), one dtype, after the grid-axis
    options that name one of its symbols (--dim1 ...; the others are for other cases)."""
    own = {k: v for k, v in (overrides or {}).items() if k in symbols(case)}
    axes, fixed = tp.plan_axes(case, own, False)
    return sum(1 for _ in tp.grid_points(axes, fixed))


def parse_axes(axes):
    """[('dim1', '8192,16384'), ('dim0', '128:1024')] -> {'dim1': [...], 'dim0': [...]} with the
    tools' own list syntax and its errors (tp.UsageError); a symbol named twice is one too."""
    out = {}
    for name, text in axes:
        if name in out:
            raise tp.UsageError(f"--{name} given twice")
        out[name] = tp.parse_axis_list(f"--{name}", text)
    return out


def case_axes(case, axes):
    """The axis options for one case's two commands: those naming one of its symbols (both tools
    reject an option that is no axis of the case they run)."""
    own = symbols(case)
    return [f"--{name}={text}" for name, text in axes if name in own]


def deal(jobs, lanes):
    """jobs: [(name, cells)] -> one list of names per lane, the most cells first, each to the lane
    with the fewest cells so far (ties: the lower lane; cases of as many cells keep the order they
    were named in, so the ones named first run first)."""
    heap = [(0, k) for k in range(lanes)]
    out = [[] for _ in range(lanes)]
    for name, n in sorted(jobs, key=lambda j: -j[1]):
        load, k = heapq.heappop(heap)
        out[k].append(name)
        heapq.heappush(heap, (load + n, k))
    return out


def round_suffix(rnd):
    """Round 1's files keep the names they had before rounds; round r > 1 adds .rR."""
    return "" if rnd == 1 else f".r{rnd}"


def steps_for(case, spec, dtype, args, d, rnd=1):
    """The two commands of one case (named `spec` on the command line: a name or a case file's
    path) and dtype, in round `rnd`, in the order they run: fusionbench first in odd rounds,
    torch_peer first in even ones (ABBA: each side is measured early and late alike)."""
    fused = case.fused or []
    fb_file = d / f"fb-{case.name}-{dtype}{round_suffix(rnd)}.json"
    peer_file = d / f"peer-{case.name}-{dtype}{round_suffix(rnd)}.json"
    axes = case_axes(case, args.axes)
    fb = [args.fusionbench, "run", "--case", spec, "--dtype", dtype, "--flush", args.flush, "--timer", args.timer, *axes]
    if args.eager:  # the case's eager form beside its fused ones: the grid's default baseline
        fb += ["--variants", ",".join(["eager", *fused])]
    elif fused:
        fb += ["--variants", ",".join(fused), "--baseline", fused[0]]
    fb += ["--resume" if fb_file.exists() else "--out", str(fb_file)]
    peer = [sys.executable, args.torch_peer, "run", "--case", spec, "--dtype", dtype,
            "--flush", args.flush, "--timer", args.timer, "--variants", args.variants, *axes]
    peer += ["--resume" if peer_file.exists() else "--out", str(peer_file)]
    return [("fb", fb), ("peer", peer)] if rnd % 2 else [("peer", peer), ("fb", fb)]


class Lane(threading.Thread):
    def __init__(self, gpu, work, args, d, deadline, log):
        super().__init__()
        self.gpu, self.work, self.args, self.d, self.deadline, self.log = gpu, work, args, d, deadline, log
        self.ok = True

    def run(self):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(self.gpu))
        for case, spec, dtype, rnd in ((c, s, d, r) for c, s, d in self.work for r in range(1, self.args.rounds + 1)):
            what = f"{case.name} {dtype}" + (f" round {rnd}" if self.args.rounds > 1 else "")
            for side, cmd in steps_for(case, spec, dtype, self.args, self.d, rnd):
                left = None if self.deadline is None else int(self.deadline - time.time())
                if left is not None and left <= 0:
                    self.log(f"gpu {self.gpu} {what} {side}: not started (budget spent)")
                    self.ok = False
                    return
                if side == "peer" and left is not None:
                    cmd = cmd + ["--budget", str(left)]
                t0 = time.time()
                logf = self.d / f"log-{case.name}-{dtype}-{side}.txt"
                start = logf.stat().st_size if logf.exists() else 0
                with open(logf, "a") as f:
                    rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
                with open(logf, errors="replace") as f:
                    f.seek(start)
                    cut = BUDGET_STOP in f.read()
                self.log(f"gpu {self.gpu} {what} {side}: rc {rc} in {time.time() - t0:.0f} s"
                         + (" (stopped at the budget: run again to go on)" if cut else ""))
                # 1 is a failed check (both tools), which the result file records: the grid is whole
                if rc not in (0, 1) or cut:
                    self.ok = False
                if cut:
                    return


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 allow_abbrev=False)  # --d... is a grid axis, not --dir abbreviated
    ap.add_argument("--case", action="append", default=[], help="a bundled case or a case file; repeatable or comma-separated")
    ap.add_argument("--all", action="store_true", help="every bundled case")
    ap.add_argument("--dtype", default=None, help="dtypes, comma-separated, or 'all' (each case's own; default: each case's first)")
    ap.add_argument("--gpus", default="0", help="GPU indices, one lane each (default 0)")
    ap.add_argument("--dir", required=True, help="where the result files and logs go (created; reused to resume)")
    ap.add_argument("--flush", default="write", choices=("write", "clean"), help="both sides' flush (default write, the peer's)")
    ap.add_argument("--timer", default="events", choices=("events", "cupti"),
                    help="both sides' timer (default events; cupti: each sample's kernel durations summed)")
    ap.add_argument("--variants", default="torch.compile", help="torch_peer's variants (default torch.compile)")
    ap.add_argument("--eager", action="store_true",
                    help="fusionbench runs the eager form too, and torch_peer torch.eager beside --variants: "
                         "peer_compare's eager-faithfulness column")
    ap.add_argument("--rounds", type=int, default=1, metavar="N",
                    help="measure each case and dtype N times a side (1-9, default 1), fusionbench first in odd "
                         "rounds and torch first in even ones; peer_compare takes the geometric mean of each "
                         "side's rounds (a compute-bound cell's power state drifts over a call)")
    ap.add_argument("--budget", type=float, default=None, help="start no step after S seconds")
    ap.add_argument("--min-bytes", default="64000000", help="peer_compare.py's --min-bytes (default 64000000)")
    ap.add_argument("--dry-run", action="store_true", help="print the lanes and commands, run nothing")
    args, rest = ap.parse_known_args(argv)
    # --AXIS LIST options (--dim1 8192,16384, --dim0=128:65536): (symbol, list) pairs, checked with
    # the cases below (parse_axes) and given to each case's two commands (case_axes)
    args.axes = []
    while rest:
        opt = rest.pop(0)
        name, eq, text = opt[2:].partition("=")
        if not opt.startswith("--") or not name or name in ("out", "resume"):
            ap.error(f"unrecognized argument: {opt}")
        if not eq:
            if not rest or rest[0].startswith("--"):
                ap.error(f"{opt} needs a list of values (--AXIS LIST)")
            text = rest.pop(0)
        args.axes.append((name, text))
    if not 1 <= args.rounds <= 9:
        ap.error(f"--rounds {args.rounds}: from 1 to 9")
    if args.eager and "torch.eager" not in args.variants.split(","):
        args.variants = "torch.eager," + args.variants
    args.fusionbench = os.environ.get("FUSIONBENCH", str(REPO / "build" / "fusionbench"))
    args.torch_peer = os.environ.get("TORCH_PEER", str(HERE / "torch_peer.py"))

    names = [n for c in args.case for n in c.split(",") if n]
    if args.all:
        names = tp.case_names()
    if not names:
        ap.error("name cases with --case, or --all")
    try:
        gpus = [int(g) for g in args.gpus.split(",")]
        overrides = parse_axes(args.axes)
        jobs = {}
        for spec in names:
            case = tp.find_case(spec)
            if not args.dtype:
                dtypes = [case.dtypes[0]]
            elif args.dtype == "all":
                dtypes = list(case.dtypes)
            else:
                dtypes = [tp.canonical_dtype(x) for x in args.dtype.split(",")]
            for dt in dtypes:
                if dt in case.dtypes:
                    jobs[(case.name, dt)] = (case, spec, dt, cells(case, overrides))
        # as both tools: an axis option must be a symbol of some case named (checked here, before
        # any GPU time is spent)
        named = set().union(*(symbols(case) for case, *_ in jobs.values()))
        for name in overrides:
            if name not in named:
                raise tp.UsageError(f"--{name} is no grid axis or size symbol of the cases named")
    except (tp.CaseError, tp.UsageError, ValueError) as e:
        print(f"side_by_side: {e}", file=sys.stderr)
        return 2
    if not jobs:
        print("side_by_side: no case takes the dtypes asked", file=sys.stderr)
        return 2
    if len(set(gpus)) != len(gpus):
        print("side_by_side: --gpus names a GPU twice", file=sys.stderr)
        return 2
    lanes = deal([(k, v[3]) for k, v in jobs.items()], len(gpus))
    d = Path(args.dir).resolve()
    if not args.dry_run:
        d.mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()

    def log(line):
        with lock:
            print(line, flush=True)
            if not args.dry_run:
                with open(d / "lanes.txt", "a") as f:
                    f.write(line + "\n")

    for g, keys in zip(gpus, lanes):
        log(f"gpu {g}: " + (", ".join(f"{c} {dt} ({jobs[(c, dt)][3]} cells)" for c, dt in keys) or "nothing"))
        if args.dry_run:
            for k in keys:
                for rnd in range(1, args.rounds + 1):
                    for _, cmd in steps_for(*jobs[k][:3], args, d, rnd):
                        print("  " + " ".join(cmd))
    if args.dry_run:
        return 0
    deadline = None if args.budget is None else time.time() + args.budget
    threads = [Lane(g, [jobs[k][:3] for k in keys], args, d, deadline, log) for g, keys in zip(gpus, lanes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    files = sorted(str(p) for p in d.glob("fb-*.json")) + sorted(str(p) for p in d.glob("peer-*.json"))
    if files:
        cmp = subprocess.run([sys.executable, str(HERE / "peer_compare.py"), *files, "--min-bytes", args.min_bytes],
                             capture_output=True, text=True)
        (d / "compare.txt").write_text(cmp.stdout + cmp.stderr)
        sys.stdout.write(cmp.stdout + cmp.stderr)
    return 0 if all(t.ok for t in threads) else 1


if __name__ == "__main__":
    sys.exit(main())
