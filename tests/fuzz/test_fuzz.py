#!/usr/bin/env python3
"""test_fuzz.py -- the fuzz driver checked against programs that misbehave on purpose.

A fuzzer that cannot fail is worse than none: each oracle is shown to fire on a fake
fusionbench (a shell script) that crashes, hangs, exits 5, prints a sanitizer report or
rejects a file without naming it, and to stay quiet on one that behaves. Also: the same
seed gives the same inputs, and mutants of every kind can be written and read back.
Runs in a few seconds; needs no build. usage: test_fuzz.py [REPO_ROOT]
"""

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fuzz  # noqa: E402
import mutate  # noqa: E402
import oracle  # noqa: E402
import plans  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
SCRATCH = tempfile.mkdtemp(prefix="test_fuzz-")
atexit.register(shutil.rmtree, SCRATCH, True)

# A fusionbench that behaves: names every file argument it is given when it fails.
GOOD = r'''#!/bin/sh
for a in "$@"; do last=$a; done
case "$1" in
  validate|list) [ -f "$last" ] && grep -q '"name"' "$last" 2>/dev/null && exit 0
                 echo "fusionbench $1: $last: bad" | tr -d '\n\033' >&2; echo >&2; exit 3 ;;
  *) echo "fusionbench: no usable GPU" >&2; exit 77 ;;
esac
'''


def fake(body):
    fd, path = tempfile.mkstemp(prefix="fakefb-", dir=SCRATCH)
    with os.fdopen(fd, "w") as f:
        f.write(body)
    os.chmod(path, 0o755)
    return path


def run_fuzz(exe, *extra):
    out = tempfile.mkdtemp(prefix="fuzzout-", dir=SCRATCH)
    p = subprocess.run([sys.executable, os.path.join(HERE, "fuzz.py"), "--fusionbench", exe, "--root", ROOT,
                        "--out", out, "--jobs", "2"] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return p.returncode, p.stdout, out


class Oracles(unittest.TestCase):
    def setUp(self):
        self.plan = plans.Plan("case")
        self.plan.argv = ["validate", "{D}/input.json"]
        self.plan.subject = "{D}/input.json"

    def kind(self, rc, err, timed_out=False):
        f = oracle.classify(rc, err, timed_out, self.plan, "/tmp/x")
        return f and f[0]

    def test_each_kind(self):
        asan = ("==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6\n"
                "    #0 0x55 in __interceptor_free x\n    #1 0x56 in fb_cmd_run ../src/cmd_run.c:10\n")
        self.assertEqual(self.kind(1, asan), "asan")
        self.assertIn("heap-use-after-free in fb_cmd_run", oracle.classify(1, asan, False, self.plan, "/tmp/x")[1])
        self.assertEqual(self.kind(1, "../src/cmd_run.c:118:45: runtime error: signed integer overflow"), "ubsan")
        self.assertEqual(self.kind(1, "==2==ERROR: LeakSanitizer: detected memory leaks\n"
                                      "    #0 0x1 in __interceptor_strdup a\n    #1 0x2 in fb_cmd_run b\n"), "leak")
        self.assertEqual(self.kind(0, "", timed_out=True), "hang")
        self.assertEqual(self.kind(-11, "/tmp/x/input.json"), "crash")
        self.assertEqual(self.kind(5, "/tmp/x/input.json: bad"), "exit-code")
        self.assertEqual(self.kind(3, "fusionbench validate: bad file"), "unnamed-file")
        self.assertIsNone(self.kind(3, "/tmp/x/input.json: bad"))
        self.assertIsNone(self.kind(77, "no usable GPU"))
        # after a sanitizer report the exit status is the sanitizer's: only the message counts
        leak = "\n=================================================================\n==9==ERROR: LeakSanitizer: x\n"
        kinds = lambda err: [k for k, _ in oracle.classify_all(1, err, False, self.plan, "/tmp/x")]
        self.assertEqual(kinds("fusionbench run: no usable GPU" + leak), ["leak"])
        self.assertEqual(kinds("fusionbench run: /tmp/x/input.json: bad" + leak), ["leak"])
        self.assertEqual(kinds("fusionbench run: bad" + leak), ["leak", "unnamed-file"])
        self.plan.subject = None
        self.assertEqual(self.kind(2, ""), "silent-failure")
        self.plan.argv = ["validate", "{D}/a\nb.json"]
        self.assertEqual(self.kind(3, "/tmp/x/a\nb.json: no such file"), "raw-control-char")
        self.assertIsNone(self.kind(3, "/tmp/x/a?b.json: no such file"))


class Determinism(unittest.TestCase):
    def test_same_seed_same_plan(self):
        corpus = fuzz.load_corpus(ROOT, 64 * 1024)
        targets = list(plans.KINDS)
        for i in range(60):
            a = plans.make_plan(mutate.make_rng(7, i), corpus, targets).to_json()
            b = plans.make_plan(mutate.make_rng(7, i), corpus, targets).to_json()
            self.assertEqual(json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True))
        kinds = {plans.make_plan(mutate.make_rng(7, i), corpus, targets).target for i in range(60)}
        self.assertEqual(kinds, set(targets))

    def test_tree_round_trip(self):
        doc = b'{"a": [1, 4.0, -0, 1e999, "\\u00e9"], "a": {"b": null, "c": true}}'
        tree = mutate.parse(doc)
        self.assertEqual(mutate.emit(tree), b'{"a":[1,4.0,-0,1e999,"\xc3\xa9"],"a":{"b":null,"c":true}}')


class EndToEnd(unittest.TestCase):
    def test_quiet_on_good_program(self):
        rc, out, _ = run_fuzz(fake(GOOD), "--execs", "40", "--targets", "case")
        self.assertEqual(rc, 0, out)
        self.assertIn("40 executions", out)

    def test_out_holding_other_files_is_kept(self):
        out = tempfile.mkdtemp(prefix="fuzzout-", dir=SCRATCH)
        with open(os.path.join(out, "keep.txt"), "w") as f:
            f.write("not the fuzzer's")
        p = subprocess.run([sys.executable, os.path.join(HERE, "fuzz.py"), "--fusionbench", fake(GOOD),
                            "--root", ROOT, "--out", out, "--execs", "1"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("holds other files (keep.txt)", p.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "keep.txt")))

    def test_each_failure_is_found_and_saved(self):
        for body, kind in [
            ("#!/bin/sh\nexit 5\n", "exit-code"),
            ("#!/bin/sh\nsleep 30\n", "hang"),
            ("#!/bin/sh\nkill -SEGV $$\n", "crash"),
            ("#!/bin/sh\necho '==1==ERROR: LeakSanitizer: detected memory leaks' >&2; exit 1\n", "leak"),
            ("#!/bin/sh\necho 'fusionbench: bad input' >&2; exit 3\n", "unnamed-file"),
        ]:
            with self.subTest(kind=kind):
                exe = fake(body)
                rc, out, saved = run_fuzz(exe, "--execs", "4", "--timeout", "1", "--targets", "case")
                self.assertEqual(rc, 1, out)
                self.assertIn("by kind: %s 4" % kind, out)
                repro = [os.path.join(r, f) for r, _, fs in os.walk(saved) for f in fs if f == "repro.sh"]
                self.assertTrue(repro, out)
                # the saved script reproduces the failure: same exit status (a hang: timeout's 124)
                with open(os.path.join(os.path.dirname(repro[0]), "plan.json")) as f:
                    rc_seen = json.load(f)["rc"]
                want = 124 if kind == "hang" else 128 - rc_seen if rc_seen < 0 else rc_seen
                p = subprocess.run(["bash", repro[0], exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                self.assertEqual(p.returncode, want, p.stderr)
                # and with a program that behaves, the same input passes
                p = subprocess.run(["bash", repro[0], fake(GOOD)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                self.assertIn(p.returncode, (0, 3, 77), p.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        ROOT = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
