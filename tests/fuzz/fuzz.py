#!/usr/bin/env python3
"""fuzz.py -- fuzz fusionbench's inputs: case files, result files, cases directories, option lists.

Each execution mutates a seed from the repository (cases/*.json, tests/cases/*.json,
tests/golden/*.json, results/**/*.json up to --max-seed-bytes) or draws a command line from
every command's real options with good, bad, huge, empty and odd values (FIFOs, directories,
/dev/stdin on a silent pipe, paths past PATH_MAX, paths with newlines), runs fusionbench in a
private directory, and fails on a sanitizer report, a hang, an exit code outside
{0,1,2,3,4,77}, or a bad input file rejected without being named (oracle.py lists them all).
Run it against the sanitizer build (meson setup build-asan -Db_sanitize=address,undefined):
there, memory errors, undefined behaviour and leaks are failures too. Without a GPU, run,
selftest and env exit 77 after checking their input, which is what is fuzzed; the driver
hides any GPU (CUDA_VISIBLE_DEVICES=) so that it fuzzes the same way everywhere.

Deterministic: execution I of seed S is the same input whatever ran before it, so
`--seed S --start I --execs 1` replays it. Each failing execution is saved under --out with
the input files and a repro.sh; the summary groups failures by kind and signature.

usage: fuzz.py --fusionbench PATH [--seed N] [--execs N] [--time-budget S] [--timeout S]
               [--jobs N] [--out DIR] [--targets case,result,casesdir,argv] [--start I]
exit: 0 no failure, 1 failures found, 2 usage.
"""

import argparse
import collections
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402
import oracle  # noqa: E402
import plans  # noqa: E402

# Sanitizer settings for every execution (the user's own ASAN_OPTIONS etc. come after, and win).
# allocator_may_return_null: a huge malloc from hostile input returns NULL as it would without
# ASan, so the program's own out-of-memory path is what gets tested.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:allocator_may_return_null=1:hard_rss_limit_mb=3072:handle_abort=1",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    "LSAN_OPTIONS": "",
}
EXAMPLES_PER_SIGNATURE = 3
MAX_SAVED = 300


def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(prog="fuzz.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fusionbench", required=True, help="the binary to fuzz (the sanitizer build's)")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(here)), help="repository root (seeds)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="index of the first execution (to replay one)")
    ap.add_argument("--execs", type=int, default=1000, help="number of executions (default 1000)")
    ap.add_argument("--time-budget", type=float, default=0, help="stop starting executions after S seconds")
    ap.add_argument("--timeout", type=float, default=10, help="seconds before an execution is a hang")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default="fuzz-findings", help="where failing inputs are saved")
    ap.add_argument("--targets", default="case,result,casesdir,argv")
    ap.add_argument("--max-seed-bytes", type=int, default=64 * 1024)
    ap.add_argument("--workdir", default=None, help="where executions run (default: a temporary directory)")
    ap.add_argument("--verbose", action="store_true", help="one line per execution")
    a = ap.parse_args(argv)
    a.targets = [t for t in a.targets.split(",") if t]
    bad = [t for t in a.targets if t not in plans.KINDS]
    if bad or not a.targets:
        ap.error("--targets: unknown %s (case, result, casesdir, argv)" % ",".join(bad))
    if a.execs < 0 or a.jobs < 1 or a.timeout <= 0:
        ap.error("--execs, --jobs and --timeout must be positive")
    if not os.access(a.fusionbench, os.X_OK):
        ap.error("--fusionbench %s: not an executable" % a.fusionbench)
    a.fusionbench = os.path.abspath(a.fusionbench)
    return a


def load_corpus(root, max_bytes):
    def files(*globs):
        out = []
        for g in globs:
            for p in sorted(glob.glob(os.path.join(root, g), recursive=True)):
                if os.path.isfile(p) and os.path.getsize(p) <= max_bytes:
                    with open(p, "rb") as f:
                        out.append((os.path.basename(p), f.read()))
        return out

    bundled = files("cases/*.json")
    cases = bundled + files("tests/cases/*.json")
    results = files("tests/golden/*.json", "tests/results/*.json", "results/**/*.json")
    if not bundled or not results:
        sys.exit("fuzz.py: no seeds under %s (want cases/*.json and tests/golden/*.json)" % root)
    return plans.Corpus(cases, results, bundled)


def learn_names(exe, root, env):
    """Case names, variants and grid axes from `fusionbench list --json` over the seeds'
    cases directory, so that options name real things (the defaults stay on failure)."""
    env = dict(env, FUSIONBENCH_CASES=os.path.join(root, "cases"), ASAN_OPTIONS="detect_leaks=0")
    try:
        p = subprocess.run([exe, "list", "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           timeout=60)
        cases = json.loads(p.stdout)
        plans.learn([c["name"] for c in cases],
                    [f["name"] if isinstance(f, dict) else f for c in cases for f in c.get("fused", [])],
                    [a["symbol"] for c in cases for a in c.get("grid", []) if isinstance(a, dict)],
                    {c["name"]: [a["symbol"] for a in c.get("grid", []) if isinstance(a, dict)] for c in cases})
    except (OSError, ValueError, KeyError, TypeError, subprocess.TimeoutExpired) as e:
        print("fuzz: could not learn names from 'list --json' (%s); using defaults" % e, file=sys.stderr)


def prepare_out(out):
    """An empty --out: the previous run's findings go; a directory that holds anything else
    is refused rather than emptied."""
    if os.path.isdir(out) and os.listdir(out):
        ours = re.compile(r"^(%s)-[0-9a-f]{8}$|^summary\.txt$" % "|".join(oracle.KINDS))
        others = [e for e in os.listdir(out) if not ours.match(e)]
        if others or "summary.txt" not in os.listdir(out):
            sys.exit("fuzz.py: --out %s holds other files (%s); give an empty or new directory"
                     % (out, ", ".join(sorted(others)[:3]) or "no summary.txt"))
        for e in os.listdir(out):
            p = os.path.join(out, e)
            shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    os.makedirs(out, exist_ok=True)


# ---- one execution ------------------------------------------------------------------------

def _parent_fd(d, rel, create):
    """An fd of rel's directory (made one component at a time, so rel may exceed PATH_MAX)."""
    parts = rel.split("/")
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    for comp in parts[:-1]:
        if create:
            try:
                os.mkdir(comp, dir_fd=fd)
            except FileExistsError:
                pass
        nfd = os.open(comp, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    return fd, parts[-1]


def materialize(plan, d):
    for kind, rel, payload in plan.files:
        fd, base = _parent_fd(d, rel, True)
        try:
            if kind == "file":
                f = os.open(base, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=fd)
                with os.fdopen(f, "wb") as out:
                    out.write(payload)
            elif kind == "fifo":
                os.mkfifo(base, dir_fd=fd)
            elif kind == "dir":
                try:
                    os.mkdir(base, dir_fd=fd)
                except FileExistsError:
                    pass
            elif kind == "symlink":
                os.symlink(payload, base, dir_fd=fd)
            elif kind == "chmod":
                os.chmod(base, payload, dir_fd=fd)
        except FileExistsError:
            pass
        finally:
            os.close(fd)


def cleanup(plan, d):
    for kind, rel, _ in plan.files:
        if kind == "chmod":
            try:
                fd, base = _parent_fd(d, rel, False)
                os.chmod(base, 0o755, dir_fd=fd)
                os.close(fd)
            except OSError:
                pass
    shutil.rmtree(d, ignore_errors=True)


class Outcome:
    def __init__(self, index, plan, rc, out, err, timed_out, seconds, findings):
        self.index, self.plan, self.rc, self.out, self.err = index, plan, rc, out, err
        self.timed_out, self.seconds, self.findings = timed_out, seconds, findings


def execute(exe, plan, d, timeout, env):
    argv = [exe] + [a.replace("{D}", d) for a in plan.argv]
    env = dict(env)
    env.update({k: v.replace("{D}", d) for k, v in plan.env.items()})
    stdin, keep = subprocess.DEVNULL, None
    if plan.stdin == "idle":
        stdin, keep = os.pipe()
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=d, env=env, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    finally:
        if keep is not None:
            os.close(stdin)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
    finally:
        if keep is not None:
            os.close(keep)
    return proc.returncode, out, err.decode("utf-8", "replace"), timed_out, time.monotonic() - t0


def run_one(args, corpus, env, workroot, index):
    rng = mutate.make_rng(args.seed, index)
    plan = plans.make_plan(rng, corpus, args.targets)
    d = os.path.join(workroot, "e%d" % index)
    os.mkdir(d)
    try:
        materialize(plan, d)
        rc, out, err, timed_out, secs = execute(args.fusionbench, plan, d, args.timeout, env)
        findings = oracle.classify_all(rc, err, timed_out, plan, d)
        # messages name the private directory: make them comparable and replayable
        err = err.replace(d, "{D}")
    finally:
        cleanup(plan, d)
    return Outcome(index, plan, rc, out, err, timed_out, secs, findings)


# ---- findings -------------------------------------------------------------------------------

def _sh_word(s):
    """s as a shell word, "{D}" becoming the reproduction's directory."""
    parts = s.split("{D}")
    return '"$D"'.join(shlex.quote(p) if p else "" for p in parts) or "''"


def write_repro(dirpath, o, finding, args, env_extra):
    inputs = os.path.join(dirpath, "inputs")
    os.makedirs(inputs, exist_ok=True)
    kind, sig = finding
    lines = [
        "#!/usr/bin/env bash",
        "# fuzz finding: %s -- %s" % (kind, sig.replace("\n", " ")),
        "# execution %d of 'fuzz.py --seed %d' (%s plan; %s)" % (o.index, args.seed, o.plan.target,
                                                               o.plan.note.replace("\n", " ")[:300]),
        "# usage: bash repro.sh [PATH/TO/fusionbench]    (default: build-asan/fusionbench)",
        'FB=${1:-build-asan/fusionbench}',
        'FB=$(cd "$(dirname "$FB")" && pwd)/$(basename "$FB")',
        'HERE=$(cd "$(dirname "$0")" && pwd)',
        'D=$(mktemp -d)',
        '# mk KIND REL [ARG]: make $D/REL one component at a time (REL may exceed PATH_MAX)',
        'mk() {',
        '    local kind=$1 rel=$2 arg=${3-}',
        '    ( cd "$D" || exit 1',
        '      while [[ $rel == */* ]]; do mkdir -p -- "${rel%%/*}" && cd -- "${rel%%/*}" || exit 1; rel=${rel#*/}; done',
        '      case $kind in',
        '        file) cp -- "$arg" "./$rel" ;;  fifo) mkfifo -- "./$rel" ;;  dir) mkdir -p -- "./$rel" ;;',
        '        symlink) ln -s -- "$arg" "./$rel" ;;  chmod) chmod "$arg" -- "./$rel" ;;',
        '      esac )',
        '}',
    ]
    n = 0
    for k, rel, payload in o.plan.files:
        if k == "file":
            with open(os.path.join(inputs, str(n)), "wb") as f:
                f.write(payload)
            lines.append('mk file %s "$HERE/inputs/%d"' % (shlex.quote(rel), n))
            n += 1
        elif k in ("symlink",):
            lines.append("mk symlink %s %s" % (shlex.quote(rel), shlex.quote(payload)))
        elif k == "chmod":
            lines.append("mk chmod %s %o" % (shlex.quote(rel), payload))
        else:
            lines.append("mk %s %s" % (k, shlex.quote(rel)))
    envs = dict(env_extra)
    envs.update(o.plan.env)
    lines.append('cd "$D" || exit 1')
    cmd = "env " + " ".join("%s=%s" % (k, _sh_word(v)) for k, v in sorted(envs.items()))
    cmd += ' "$FB" ' + " ".join(_sh_word(a) for a in o.plan.argv)
    if o.plan.stdin == "idle":
        # stdin: a pipe that stays open and silent (a FIFO opened read-write never sees EOF)
        lines += ['mkfifo "$D/.idle-stdin" && exec 3<>"$D/.idle-stdin"']
        cmd += " <&3"
    else:
        cmd += " </dev/null"
    if kind == "hang":
        cmd = "timeout %d %s" % (max(1, int(args.timeout)), cmd)
    lines += [cmd, 'rc=$?', 'echo "exit $rc" >&2', 'chmod -R u+rwX "$D" 2>/dev/null; rm -rf "$D"', "exit $rc", ""]
    with open(os.path.join(dirpath, "repro.sh"), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(lines))
    with open(os.path.join(dirpath, "stderr.txt"), "w", encoding="utf-8", errors="replace") as f:
        f.write(o.err)
    with open(os.path.join(dirpath, "plan.json"), "w", encoding="utf-8", errors="surrogateescape") as f:
        info = o.plan.to_json()
        info.update(index=o.index, seed=args.seed, rc=o.rc, timed_out=o.timed_out, seconds=round(o.seconds, 3),
                    kind=kind, signature=sig, all_findings=o.findings)
        json.dump(info, f, indent=1, ensure_ascii=True)
        f.write("\n")


class Findings:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.by_sig = collections.OrderedDict()  # sid -> [kind, signature, count, [example dirs]]
        self.saved = 0
        self.failing = 0

    def add(self, o, args, env_extra):
        """Counts the execution once, and each of its findings under its signature.
        Returns the findings not seen before."""
        self.failing += 1
        new = []
        for kind, sig in o.findings:
            sid = oracle.signature_id(kind, sig)
            if sid not in self.by_sig:
                new.append((kind, sig))
            entry = self.by_sig.setdefault(sid, [kind, sig, 0, [], o.index])
            entry[2] += 1
            if len(entry[3]) < EXAMPLES_PER_SIGNATURE and self.saved < MAX_SAVED:
                path = os.path.join(self.out_dir, sid, str(o.index))
                os.makedirs(path, exist_ok=True)
                write_repro(path, o, (kind, sig), args, env_extra)
                entry[3].append(path)
                self.saved += 1
        return new


# ---- the run ----------------------------------------------------------------------------------

def _interrupt(signum, frame):
    raise KeyboardInterrupt

def main(argv):
    args = parse_args(argv)
    corpus = load_corpus(args.root, args.max_seed_bytes)
    with open(args.fusionbench, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    env = dict(os.environ)
    env.pop("FUSIONBENCH_CASES", None)
    env_extra = {"NO_COLOR": "1", "CUDA_VISIBLE_DEVICES": ""}
    for k, v in SANITIZER_ENV.items():
        user = os.environ.get(k, "")
        env_extra[k] = ":".join(x for x in (v, user) if x)
    env_extra = {k: v for k, v in env_extra.items() if v or k == "CUDA_VISIBLE_DEVICES"}
    env.update(env_extra)

    prepare_out(args.out)
    learn_names(args.fusionbench, args.root, env)
    workroot = tempfile.mkdtemp(prefix="fbfuzz-", dir=args.workdir)
    print("fuzz: %s%s; seed %d, executions %d..%d, %d jobs, %gs timeout%s; %d case and %d result seeds"
          % (args.fusionbench, "" if sanitized else " (NOT a sanitizer build: no memory/UB/leak checks)",
             args.seed, args.start, args.start + args.execs - 1, args.jobs, args.timeout,
             ", budget %gs" % args.time_budget if args.time_budget else "", len(corpus.cases),
             len(corpus.results)), flush=True)
    print("fuzz: cases %s; %d variants; axes %s" % (",".join(plans.CASE_NAMES), len(plans.VARIANTS),
                                                    ",".join(plans.AXES)), flush=True)

    findings = Findings(args.out)
    rcs = collections.Counter()
    targets = collections.Counter()
    failing_targets = collections.Counter()
    t0 = time.monotonic()
    last_note = t0
    done = 0
    interrupted = False
    # SIGTERM (a CI timeout, kill) ends the run like ^C: in-flight executions finish, the summary prints
    signal.signal(signal.SIGTERM, _interrupt)
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    pending = set()
    try:
        nxt = args.start
        end = args.start + args.execs
        while nxt < end or pending:
            while nxt < end and len(pending) < 2 * args.jobs and \
                    not (args.time_budget and time.monotonic() - t0 > args.time_budget):
                pending.add(pool.submit(run_one, args, corpus, env, workroot, nxt))
                nxt += 1
            if not pending:
                break
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                o = fut.result()
                done += 1
                rcs["timeout" if o.timed_out else o.rc] += 1
                targets[o.plan.target] += 1
                new = []
                if o.findings:
                    failing_targets[o.plan.target] += 1
                    new = findings.add(o, args, env_extra)
                if args.verbose or new:
                    print("  #%d %s rc=%s %.2fs %s%s" % (
                        o.index, o.plan.target, "T" if o.timed_out else o.rc, o.seconds,
                        " ".join(shlex.quote(a) for a in o.plan.argv)[:150],
                        "".join("\n     -> %s%s: %s" % ("new " if f in new else "", f[0], f[1])
                                for f in o.findings)), flush=True)
            now = time.monotonic()
            if now - last_note > 60:
                last_note = now
                print("fuzz: %d executions, %d failing, %d distinct findings, %.0f s"
                      % (done, findings.failing, len(findings.by_sig), now - t0), flush=True)
            if args.time_budget and now - t0 > args.time_budget and nxt < end:
                end = nxt  # budget spent: finish what runs, start nothing new
    except KeyboardInterrupt:
        interrupted = True
        print("fuzz: interrupted; finishing the executions in flight", flush=True)
        for fut in pending:
            fut.cancel()
    finally:
        pool.shutdown(wait=True)
        shutil.rmtree(workroot, ignore_errors=True)

    secs = time.monotonic() - t0
    lines = ["fuzz: %d executions in %.1f s (%.1f/s), seed %d, from %d%s: %d failing executions" % (
        done, secs, done / secs if secs else 0, args.seed, args.start, " (interrupted)" if interrupted else "",
        findings.failing)]
    lines.append("  by plan:   " + ", ".join("%s %d (%d failing)" % (t, targets[t], failing_targets[t])
                                             for t in sorted(targets)))
    lines.append("  exit codes: " + ", ".join("%s: %d" % (k, rcs[k]) for k in sorted(rcs, key=str)))
    kinds = collections.Counter()
    for kind, _, count, _, _ in findings.by_sig.values():
        kinds[kind] += count
    if findings.by_sig:
        lines.append("  findings by kind: " + ", ".join("%s %d" % (k, kinds[k]) for k in oracle.KINDS if kinds[k]))
        lines.append("  distinct findings (%d):" % len(findings.by_sig))
        for sid, (kind, sig, count, examples, first) in sorted(findings.by_sig.items(),
                                                               key=lambda kv: (oracle.KINDS.index(kv[1][0]), kv[1][4])):
            lines.append("    %-16s x%-5d %s" % (kind, count, sig.replace("\n", "\\n")[:200]))
            if examples:
                lines.append("    %16s        reproduce: bash %s/repro.sh %s" % ("", examples[0], args.fusionbench))
    summary = "\n".join(lines)
    print(summary, flush=True)
    with open(os.path.join(args.out, "summary.txt"), "w", encoding="utf-8", errors="replace") as f:
        f.write(summary + "\n")
    return 1 if findings.failing or interrupted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
