#!/usr/bin/env python3
"""CPU tests of scripts/side_by_side.py: how it deals cases to GPU lanes, the commands each lane
runs (on its GPU, --out then --resume), what --budget does, and its exit statuses. fusionbench
and torch_peer.py are replaced by fakes (FUSIONBENCH, TORCH_PEER) that record their arguments."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SCRIPT = REPO / "scripts" / "side_by_side.py"
sys.path.insert(0, str(REPO / "scripts"))

import side_by_side as sbs  # noqa: E402

# A fake of either tool: appends {argv, gpu} to $FAKE_CALLS, writes the file named by --out or
# --resume, and (the peer, while $FAKE_PEER_CUT names an existing file) prints torch_peer's
# budget line once and removes that file.
FAKE = r'''#!/usr/bin/env python3
import json, os, sys
argv = sys.argv[1:]
with open(os.environ["FAKE_CALLS"], "a") as f:
    f.write(json.dumps({"tool": os.path.basename(sys.argv[0]), "argv": argv,
                        "gpu": os.environ.get("CUDA_VISIBLE_DEVICES")}) + "\n")
for flag in ("--out", "--resume"):
    if flag in argv:
        with open(argv[argv.index(flag) + 1], "w") as f:
            json.dump({"fake": True}, f)
cut = os.environ.get("FAKE_PEER_CUT")
if os.path.basename(sys.argv[0]) == "peer" and cut and os.path.exists(cut):
    os.remove(cut)
    print("torch_peer: stopped at the --budget of 5 s; continue with --resume x.json", file=sys.stderr)
sys.exit(int(os.environ.get("FAKE_RC", "0")))
'''


class Deal(unittest.TestCase):
    def test_most_cells_first_onto_the_lightest_lane(self):
        lanes = sbs.deal([("a", 100), ("b", 100), ("c", 50), ("d", 50), ("e", 10)], 2)
        self.assertEqual(lanes, [["a", "c", "e"], ["b", "d"]])

    def test_more_lanes_than_cases(self):
        self.assertEqual(sbs.deal([("a", 5)], 3), [["a"], [], []])
        # as many cells: the order named, not the alphabet
        self.assertEqual(sbs.deal([("z", 9), ("b", 9), ("m", 9)], 2), [["z", "m"], ["b"]])


class Run(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = Path(self.tmp.name)
        for name in ("fusionbench", "peer"):
            (t / name).write_text(FAKE)
            (t / name).chmod(0o755)
        self.calls = t / "calls.jsonl"
        self.dir = t / "out"
        self.env = dict(os.environ, FUSIONBENCH=str(t / "fusionbench"), TORCH_PEER=str(t / "peer"),
                        FAKE_CALLS=str(self.calls), FUSIONBENCH_CASES=str(REPO / "cases"))
        self.env.pop("FAKE_PEER_CUT", None)

    def tearDown(self):
        self.tmp.cleanup()

    def side(self, *args, env=None, cwd=REPO):
        return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                              env=env or self.env, cwd=cwd)

    def recorded(self):
        if not self.calls.exists():
            return []
        return [json.loads(line) for line in self.calls.read_text().splitlines()]

    def test_lanes_run_on_their_gpus_then_resume(self):
        r = self.side("--case", "softmax,layernorm,bias_gelu", "--gpus", "3,5", "--dir", str(self.dir))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        calls = self.recorded()
        self.assertEqual(len(calls), 6)  # two tools x three cases
        by_case = {}
        for c in calls:
            by_case.setdefault(c["argv"][c["argv"].index("--case") + 1], []).append(c)
        # 100 cells each: bias_gelu (first by name) to GPU 3, layernorm to 5, softmax to 3
        self.assertEqual({k: {c["gpu"] for c in v} for k, v in by_case.items()},
                         {"bias_gelu": {"3"}, "layernorm": {"5"}, "softmax": {"3"}})
        for case, cs in by_case.items():
            fb, peer = cs  # fusionbench first, then the peer, on one GPU
            self.assertEqual(fb["tool"], "fusionbench")
            self.assertEqual(fb["argv"][:1], ["run"])
            self.assertIn("--variants", fb["argv"])
            self.assertEqual(fb["argv"][fb["argv"].index("--variants") + 1], f"{case}.fused")
            self.assertEqual(fb["argv"][fb["argv"].index("--baseline") + 1], f"{case}.fused")
            self.assertEqual(fb["argv"][fb["argv"].index("--flush") + 1], "write")
            self.assertEqual(fb["argv"][fb["argv"].index("--timer") + 1], "events")
            self.assertEqual(peer["argv"][peer["argv"].index("--timer") + 1], "events")
            self.assertIn("--out", fb["argv"])
            self.assertEqual(peer["argv"][peer["argv"].index("--variants") + 1], "torch.compile")
            self.assertIn("--out", peer["argv"])
            self.assertNotIn("--budget", peer["argv"])
        self.assertTrue((self.dir / "compare.txt").exists())
        self.assertIn("gpu 5: layernorm float32 (100 cells)", (self.dir / "lanes.txt").read_text())
        # again, same --dir: both tools are asked to resume their files
        self.calls.unlink()
        r = self.side("--case", "softmax", "--dir", str(self.dir))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        fb, peer = self.recorded()
        self.assertIn("--resume", fb["argv"])
        self.assertIn("--resume", peer["argv"])
        self.assertEqual(fb["gpu"], "0")

    def test_a_peer_cut_by_the_budget_stops_its_lane_and_fails(self):
        marker = Path(self.tmp.name) / "cut-once"
        marker.write_text("")
        env = dict(self.env, FAKE_PEER_CUT=str(marker))
        r = self.side("--case", "softmax,layernorm", "--dir", str(self.dir), "--budget", "600", env=env)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        calls = self.recorded()
        # layernorm first (100 cells each; by name); its peer is cut; softmax does not start
        self.assertEqual([c["tool"] for c in calls], ["fusionbench", "peer"])
        self.assertIn("--budget", calls[1]["argv"])
        self.assertLessEqual(int(calls[1]["argv"][calls[1]["argv"].index("--budget") + 1]), 600)
        self.assertIn("stopped at the budget", (self.dir / "lanes.txt").read_text())
        # run again: layernorm resumes, softmax starts
        self.calls.unlink()
        r = self.side("--case", "softmax,layernorm", "--dir", str(self.dir), "--budget", "600", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        calls = self.recorded()
        self.assertEqual(len(calls), 4)
        self.assertIn("--resume", calls[1]["argv"])
        self.assertIn("--out", calls[3]["argv"])

    def test_rounds_alternate_which_side_runs_first(self):
        r = self.side("--case", "softmax", "--rounds", "3", "--dir", str(self.dir))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        calls = self.recorded()
        # ABBA...: fusionbench first in odd rounds, the peer first in even ones
        self.assertEqual([c["tool"] for c in calls], ["fusionbench", "peer", "peer", "fusionbench", "fusionbench", "peer"])
        outs = [c["argv"][c["argv"].index("--out") + 1] for c in calls]
        self.assertEqual([os.path.basename(o) for o in outs],
                         ["fb-softmax-float32.json", "peer-softmax-float32.json", "peer-softmax-float32.r2.json",
                          "fb-softmax-float32.r2.json", "fb-softmax-float32.r3.json", "peer-softmax-float32.r3.json"])
        self.assertIn("softmax float32 round 2 peer: rc 0", (self.dir / "lanes.txt").read_text())
        for bad in ("0", "10"):
            r = self.side("--case", "softmax", "--rounds", bad, "--dir", str(self.dir / "x"))
            self.assertEqual(r.returncode, 2)
            self.assertIn("from 1 to 9", r.stderr)

    def test_a_spent_budget_starts_nothing(self):
        r = self.side("--case", "softmax", "--dir", str(self.dir), "--budget", "0")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(self.recorded(), [])
        self.assertIn("not started (budget spent)", r.stdout)

    def test_a_failing_tool_fails_the_run_and_a_failed_check_does_not(self):
        r = self.side("--case", "softmax", "--dir", str(self.dir), env=dict(self.env, FAKE_RC="4"))
        self.assertEqual(r.returncode, 1)
        r = self.side("--case", "softmax", "--dir", str(self.dir / "b"), env=dict(self.env, FAKE_RC="1"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_bad_usage(self):
        r = self.side("--case", "softmx", "--dir", str(self.dir))
        self.assertEqual(r.returncode, 2)
        self.assertIn("did you mean", r.stderr)
        r = self.side("--case", "softmax", "--gpus", "0,0", "--dir", str(self.dir))
        self.assertEqual(r.returncode, 2)
        self.assertIn("twice", r.stderr)
        r = self.side("--case", "softmax", "--dtype", "float64", "--dir", str(self.dir))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no case takes", r.stderr)
        self.assertEqual(self.recorded(), [])
        self.assertFalse(self.dir.exists())

    def test_a_case_file_and_a_relative_dir_from_elsewhere(self):
        t = Path(self.tmp.name)
        case = str(REPO / "cases" / "softmax.json")
        r = self.side("--case", case, "--dir", "rel", cwd=t)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        fb, peer = self.recorded()
        for c in (fb, peer):  # the case as named, the files under the caller's directory
            self.assertEqual(c["argv"][c["argv"].index("--case") + 1], case)
        self.assertEqual(fb["argv"][fb["argv"].index("--out") + 1], str(t / "rel" / "fb-softmax-float32.json"))
        self.assertTrue((t / "rel" / "peer-softmax-float32.json").exists())

    def test_dtypes(self):
        r = self.side("--case", "softmax", "--dtype", "all", "--gpus", "0,1,2", "--dir", str(self.dir), "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        for dt in ("float32", "float16", "bfloat16"):
            self.assertIn(f"softmax {dt} (100 cells)", r.stdout)
        r = self.side("--case", "softmax", "--dtype", "float33", "--dir", str(self.dir))
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown dtype", r.stderr)

    def test_dry_run_writes_nothing(self):
        r = self.side("--case", "softmax", "--dir", str(self.dir), "--dry-run")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--variants softmax.fused", r.stdout)
        self.assertFalse(self.dir.exists())
        self.assertEqual(self.recorded(), [])

    def test_eager(self):
        """--eager: fusionbench runs eager beside the fused variants (eager the baseline) and the
        peer torch.eager beside torch.compile, once each, whatever --variants said."""
        for extra in ([], ["--variants", "torch.eager,torch.compile"]):
            r = self.side("--case", "softmax", "--eager", *extra, "--dir", str(self.dir), "--dry-run")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("--variants eager,softmax.fused", r.stdout)
            self.assertNotIn("--baseline", r.stdout)
            self.assertIn("--variants torch.eager,torch.compile", r.stdout)

    def test_timer_goes_to_both_tools(self):
        r = self.side("--case", "softmax", "--timer", "cupti", "--dir", str(self.dir), "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("  ")]
        self.assertEqual(len(lines), 2)
        for ln in lines:
            self.assertIn("--timer cupti", ln)
        r = self.side("--case", "softmax", "--timer", "ncu", "--dir", str(self.dir), "--dry-run")
        self.assertEqual(r.returncode, 2)

    def test_axes_go_to_both_tools(self):
        r = self.side("--case", "softmax", "--dim1", "32768,65536", "--dim0=128:1024", "--dir", str(self.dir), "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("  ")]
        self.assertEqual(len(lines), 2)
        for ln in lines:
            self.assertIn("--dim1=32768,65536 --dim0=128:1024", ln)
        self.assertIn("softmax float32 (8 cells)", r.stdout)  # 4 rows x 2 widths, dealt by those
        # a case gets only the options that name its symbols: matmul has M, N and K, not dim1
        r = self.side("--case", "softmax,matmul", "--dim1", "64", "--N", "256", "--dir", str(self.dir), "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        for ln in r.stdout.splitlines():
            if ln.startswith("  ") and "softmax" in ln:
                self.assertIn("--dim1=64", ln)
                self.assertNotIn("--N=", ln)
            elif ln.startswith("  "):
                self.assertIn("--N=256", ln)
                self.assertNotIn("--dim1", ln)
        for bad, why in ((["stray"], "unrecognized argument"), (["--dim1"], "needs a list"),
                         (["--out", "x.json"], "unrecognized argument"),
                         (["--resume=x.json"], "unrecognized argument"), (["--dim2", "64"], "--dim2 is no grid axis"),
                         (["--dim1", "0"], "positive integer"), (["--dim1", "64", "--dim1=128"], "given twice")):
            r = self.side("--case", "softmax", *bad, "--dir", str(self.dir), "--dry-run")
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn(why, r.stderr, bad)


if __name__ == "__main__":
    unittest.main()
