#!/usr/bin/env python3
"""CPU tests of the PyTorch peer: scripts/torch_peer.py's pure-Python parts (case files, the
generated torch program, shapes and costs, grids, the dropout hash, row sampling, statistics,
the result file) and scripts/peer_compare.py. No torch needed; the few tests that exercise the
torch code on the CPU run only where torch is installed."""
import contextlib
import copy
import io
import json
import lzma
import math
import os
import subprocess
import sys
import tempfile
import types
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "scripts"))

import peer_compare as pc  # noqa: E402
import torch_peer as tp  # noqa: E402

TORCH_LOADED_BY_IMPORT = "torch" in sys.modules
try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

SOFTMAX = str(REPO / "cases" / "softmax.json")
GOLDEN = REPO / "tests" / "golden" / "result_small.json"


def case_text(program, inputs=None, outputs=("y",), grid=None, extra=None):
    doc = {"name": "t", "summary": "a test case",
           "inputs": inputs or {"x": {"shape": ["dim0", "dim1"], "init": "normal"}},
           "program": program, "outputs": list(outputs), "dtypes": ["float32", "bfloat16"],
           "grid": grid if grid is not None else {"dim0": [4, 8], "dim1": [16, 32]}}
    doc.update(extra or {})
    return json.dumps(doc)


def case_error(text):
    try:
        tp.parse_case(text, "t.json")
    except tp.CaseError as e:
        return str(e)
    raise AssertionError("the case was accepted")


# ---- a stand-in for torch that records what the generated program calls -----------------------

class Sym:
    def __init__(self, name, rec):
        self.name, self.rec = name, rec

    def _op(self, op, other, swap=False):
        o = other.name if isinstance(other, Sym) else repr(other)
        a, b = (o, self.name) if swap else (self.name, o)
        return self.rec.emit(f"{op}({a}, {b})")

    def __getattr__(self, fn):  # a method: x.permute(0, 3, 1, 2), x.mT (a property: recorded as a call)
        if fn.startswith("__"):
            raise AttributeError(fn)

        def call(*args, **kw):
            parts = [a.name if isinstance(a, Sym) else repr(a) for a in args]
            parts += [f"{k}={v.name if isinstance(v, Sym) else repr(v)}" for k, v in sorted(kw.items())]
            return self.rec.emit(f"{self.name}.{fn}({', '.join(parts)})")
        return call

    def __add__(self, o): return self._op("add", o)
    def __radd__(self, o): return self._op("add", o, True)
    def __sub__(self, o): return self._op("sub", o)
    def __rsub__(self, o): return self._op("sub", o, True)
    def __mul__(self, o): return self._op("mul", o)
    def __rmul__(self, o): return self._op("mul", o, True)
    def __truediv__(self, o): return self._op("div", o)
    def __rtruediv__(self, o): return self._op("div", o, True)


class Recorder:
    """torch / F: every attribute is a function that logs its call and returns a new value."""

    def __init__(self, prefix, log):
        self._prefix, self._log = prefix, log  # underscored: torch.log is an op

    def emit(self, text):
        self._log.append(text)
        return Sym(f"r{len(self._log)}", self)

    def __getattr__(self, fn):
        def call(*args, **kw):
            parts = [a.name if isinstance(a, Sym) else repr(a) for a in args]
            parts += [f"{k}={v.name if isinstance(v, Sym) else repr(v)}" for k, v in sorted(kw.items())]
            return self.emit(f"{self._prefix}{fn}({', '.join(parts)})")
        return call


def trace(case, mode="torch"):
    log = []
    ns = {"torch": Recorder("torch.", log), "F": Recorder("F.", log),
          "_fb_dropout": lambda *a: log.append(f"_fb_dropout{tuple(x if not isinstance(x, Sym) else x.name for x in a)}")}
    fn = tp.build_function(tp.generate(case, mode), ns, "test")
    out = fn(*[Sym(f"in_{i.name}", Recorder("", log)) for i in case.inputs])
    return log, out


class TestImport(unittest.TestCase):
    def test_pure_parts_do_not_import_torch(self):
        self.assertFalse(TORCH_LOADED_BY_IMPORT, "importing torch_peer must not import torch")


class TestCaseFiles(unittest.TestCase):
    def test_softmax(self):
        c = tp.load_case(SOFTMAX)
        self.assertEqual(c.name, "softmax")
        self.assertEqual([i.name for i in c.inputs], ["x"])
        self.assertEqual([n.op.name for n in c.nodes], ["amax", "sub", "exp", "sum", "div"])
        self.assertEqual(c.nodes[0].attrs, {"dim": -1, "keepdim": True})
        self.assertEqual(c.outputs, ["y"])
        self.assertEqual(c.dtypes, ["float32", "float16", "bfloat16"])
        self.assertEqual([s for s, _ in c.axes], ["dim0", "dim1"])
        self.assertEqual(c.axes[1][1][0], 128)
        self.assertEqual(len(c.axes[0][1]), 10)
        self.assertEqual(c.tol["float16"], (1e-5, 1e-2, True))  # stated: used as written
        self.assertEqual(c.tol["float64"], tp.DEFAULT_TOL["float64"])

    def test_generated_softmax_is_one_torch_call_per_op(self):
        want = ("def program(v_x):\n"
                "    v_m = torch.amax(v_x, dim=-1, keepdim=True)  # program[0]: amax\n"
                "    v_t = (v_x - v_m)  # program[1]: sub\n"
                "    v_e = torch.exp(v_t)  # program[2]: exp\n"
                "    v_s = torch.sum(v_e, dim=-1, keepdim=True)  # program[3]: sum\n"
                "    v_y = (v_e / v_s)  # program[4]: div\n"
                "    return (v_y, )\n")
        self.assertEqual(tp.generate(tp.load_case(SOFTMAX)), want)

    def test_every_op_of_the_table_runs(self):
        """A program with every op: each template is valid Python and calls what it should."""
        prog, prev = [], "x"
        expect = []
        for k, (name, op) in enumerate(tp.OPS.items()):
            out = f"v{k}"
            if op.kind is tp.UNARY:
                prog.append({"op": name, "in": [prev], "out": out})
                fn = {"gelu": "F.gelu", "copy": "torch.clone"}.get(name, f"torch.{name}")
                expect.append(f"{fn}(r{len(expect)})")
            elif op.kind is tp.BINARY:
                prog.append({"op": name, "in": [prev, "x"], "out": out})
                fn = {"max": "torch.maximum", "min": "torch.minimum", "pow": "torch.pow"}.get(name, name)
                expect.append(f"{fn}(r{len(expect)}, in_x)")
            elif op.kind is tp.REDUCE:
                prog.append({"op": name, "in": [prev], "dim": -1, "out": out})
                expect.append(f"torch.{name}(r{len(expect)}, dim=-1, keepdim=True)")
            elif op.kind is tp.RANDOM:
                prog.append({"op": name, "in": [prev], "p": 0.25, "seed": 3, "out": out})
                expect.append(f"F.dropout(r{len(expect)}, p=0.25, training=True)")
            elif op.kind is tp.MATMUL:
                prog.append({"op": name, "in": [prev, "x"], "out": out})
                expect.append(f"torch.matmul(r{len(expect)}, in_x)")
            elif op.kind is tp.CONV2D:  # NHWC: two permuted views in, the result permuted back
                prog.append({"op": name, "in": [prev, "x"], "stride": 2, "out": out})
                r = len(expect)
                expect += [f"r{r}.permute(0, 3, 1, 2)", "in_x.permute(0, 3, 1, 2)",
                           f"F.conv2d(r{r + 1}, r{r + 2}, dilation=1, groups=1, padding=0, stride=2)",
                           f"r{r + 3}.permute(0, 2, 3, 1)"]
            elif op.kind is tp.BATCHNORM:
                prog.append({"op": name, "in": [prev, "x", "x", "x", "x"], "layout": "NCHW", "eps": 0.001, "out": out})
                expect.append(f"F.batch_norm(r{len(expect)}, in_x, in_x, in_x, in_x, eps=0.001, training=False)")
            else:
                self.fail(f"op kind {op.kind.name} has no test: add it here")
            prev = out
        case = tp.parse_case(case_text(prog, outputs=[prev]))
        log, out = trace(case)
        expect[0] = expect[0].replace("r0", "in_x")
        self.assertEqual(log, expect)
        self.assertEqual(out[0].name, f"r{len(expect)}")

    def test_matmul(self):
        """op_matmul.c's shapes, messages and FLOPs; transposes as .mT; rows through A."""
        prog = [{"op": "matmul", "in": ["a", "b"], "transpose_a": True, "transpose_b": True, "out": "c"},
                {"op": "add", "in": ["c", "bias"], "out": "y"}]
        inputs = {"a": {"shape": ["K", "dim0"]}, "b": {"shape": ["dim1", "K"]}, "bias": {"shape": ["dim1"]}}
        case = tp.parse_case(case_text(prog, inputs=inputs, grid={"dim0": [4, 8], "dim1": [16]}, extra={"fixed": {"K": 64}}))
        self.assertIn("v_c = torch.matmul(v_a.mT, v_b.mT)  # program[0]: matmul", tp.generate(case))
        shapes = tp.program_shapes(case, {"dim0": 4, "dim1": 16, "K": 64})
        self.assertEqual(shapes["c"], (4, 16))
        self.assertEqual(tp.program_costs(case, shapes, "float32")["flops"], 2 * 4 * 16 * 64 + 4 * 16)
        plan = tp.row_plan(case, shapes)  # a row of C is a row of A (stored transposed: A's dim 1) times all of B
        self.assertTrue(plan.separable, plan.why)
        self.assertEqual((plan.n_rows, plan.axis), (4, {"a": 1, "b": None, "bias": None, "c": 0, "y": 0}))
        self.assertEqual(plan.per_row, 64 + 16 + 16)
        self.assertEqual(tp.sum_plan(case, shapes).why, "program[0] (matmul) is no elementwise op or reduction; "
                                                        "the chunked reference splits rows only through those")
        kind = tp.MATMUL
        plain = {"transpose_a": False, "transpose_b": False}
        self.assertEqual(kind.shape([(6, 2, 3), (3, 5)], plain), (6, 2, 5))
        self.assertEqual(kind.shape([(6, 2, 3), (6, 3, 5)], plain), (6, 2, 5))
        self.assertEqual(kind.flops([(6, 2, 3), (6, 3, 5)], (6, 2, 5)), 2 * 6 * 2 * 5 * 3)
        self.assertEqual(kind.flops([(6, 2, 3), (5, 3)], (6, 2, 5)), 2 * 6 * 2 * 5 * 3)
        for ins, msg in [([(2, 3), (4, 5)], "K differs: operand 0 [2, 3] has K = 3, operand 1 [4, 5] has K = 4"),
                         ([(6, 2, 3), (5, 3, 5)], "batch dims differ"),
                         ([(3,), (3, 5)], "rank 2 or more, operand 0 is [3]")]:
            with self.assertRaises(ValueError) as e:
                kind.shape(ins, plain)
            self.assertIn(msg, str(e.exception))

    def test_literals_and_extrema(self):
        prog = [{"op": "max", "in": ["x", 0.5], "out": "a"}, {"op": "min", "in": [2, "a"], "out": "b"},
                {"op": "sub", "in": [1, "b"], "out": "c"}, {"op": "div", "in": ["c", 4], "out": "d"},
                {"op": "pow", "in": [2.0, "d"], "out": "y"}]
        log, _ = trace(tp.parse_case(case_text(prog)))
        self.assertEqual(log, ["torch.clamp_min(in_x, 0.5)", "torch.clamp_max(r1, 2.0)", "sub(1.0, r2)",
                               "div(r3, 4.0)", "torch.pow(2.0, r4)"])

    def test_dropout_forms(self):
        prog = [{"op": "dropout", "in": ["x"], "p": 0.5, "seed": 7, "out": "d"},
                {"op": "dropout", "in": ["d"], "p": 0.5, "training": False, "out": "y"}]
        case = tp.parse_case(case_text(prog))
        self.assertTrue(case.uses_dropout())
        log, _ = trace(case, "torch")
        self.assertEqual(log, ["F.dropout(in_x, p=0.5, training=True)", "F.dropout(r1, p=0.5, training=False)"])
        src = tp.generate(case, "hash", {"x": 0, "d": 0})
        self.assertIn("def program(v_x, _rows=None):", src)
        self.assertIn("v_d = _fb_dropout(v_x, 0.5, 7, _rows, 0)", src)
        self.assertIn("F.dropout(v_d, p=0.5, training=False)", src)
        self.assertEqual(case.nodes[1].attrs["seed"], 0)
        inference = tp.parse_case(case_text([{"op": "dropout", "in": ["x"], "p": 0.1, "training": False, "out": "y"}]))
        self.assertFalse(inference.uses_dropout())

    def test_attributes_in_an_attrs_object(self):
        case = tp.parse_case(case_text([{"op": "sum", "in": ["x"], "attrs": {"dim": 1, "keepdim": False}, "out": "y"}]))
        self.assertEqual(case.nodes[0].attrs, {"dim": 1, "keepdim": False})

    def test_errors_name_the_place(self):
        prog = [{"op": "amax", "in": ["x"], "dim": -1, "out": "m"}, {"op": "sub", "in": ["x", "m"], "out": "t"},
                {"op": "exx", "in": ["t"], "out": "y"}]
        self.assertEqual(case_error(case_text(prog)), "t.json: program[2].op: unknown op 'exx' (did you mean 'exp'?)")
        self.assertIn("unknown op 'zzzz'", case_error(case_text([{"op": "zzzz", "in": ["x"], "out": "y"}])))
        self.assertEqual(case_error(case_text([{"op": "exp", "in": [1.0], "out": "y"}])),
                         "t.json: program[0].in[0]: 'exp' takes a value, not a literal")
        self.assertIn("missing key 'dim'", case_error(case_text([{"op": "sum", "in": ["x"], "out": "y"}])))
        self.assertIn("'exp' takes no attributes", case_error(case_text([{"op": "exp", "in": ["x"], "dim": 1, "out": "y"}])))
        self.assertIn("program[0].p: expected a probability",
                      case_error(case_text([{"op": "dropout", "in": ["x"], "p": 1.0, "out": "y"}])))
        self.assertIn("unknown key 'sed' (did you mean 'seed'?)",
                      case_error(case_text([{"op": "dropout", "in": ["x"], "p": 0.5, "sed": 1, "out": "y"}])))
        self.assertIn("'add' takes 2 operands, got 1", case_error(case_text([{"op": "add", "in": ["x"], "out": "y"}])))
        self.assertIn("unknown value 'xx' (did you mean 'x'?)",
                      case_error(case_text([{"op": "exp", "in": ["xx"], "out": "y"}])))
        self.assertIn("needs at least one value operand",
                      case_error(case_text([{"op": "add", "in": [1, 2], "out": "y"}])))
        self.assertIn("outputs[0]: the string 'z' is not produced",
                      case_error(case_text([{"op": "exp", "in": ["x"], "out": "y"}], outputs=["z"])))
        self.assertIn("'y' is already defined", case_error(case_text(
            [{"op": "exp", "in": ["x"], "out": "y"}, {"op": "exp", "in": ["y"], "out": "y"}])))
        bad_init = case_text([{"op": "exp", "in": ["x"], "out": "y"}],
                             inputs={"x": {"shape": ["dim0", "dim1"], "init": "normall"}})
        self.assertIn("inputs.x.init: unknown init the string 'normall' (did you mean 'normal'?)", case_error(bad_init))
        self.assertIn("'dimm' is not a symbol of any input shape (did you mean 'dim1'?)", case_error(
            case_text([{"op": "exp", "in": ["x"], "out": "y"}], grid={"dim0": [4], "dimm": [8]})))
        self.assertIn("grid: symbol 'dim1' (used at inputs.x.shape[1]) has no axis; every shape symbol needs one "
                      "(or a value in 'fixed')",
                      case_error(case_text([{"op": "exp", "in": ["x"], "out": "y"}], grid={"dim0": [4]})))
        self.assertIn("grid.dim0[1]: expected a positive integer",
                      case_error(case_text([{"op": "exp", "in": ["x"], "out": "y"}], grid={"dim0": [4, 0], "dim1": [8]})))
        self.assertIn("duplicate key 'op'", case_error('{"program": [{"op": "exp", "op": "cos"}]}'))
        self.assertIn("t.json:1:", case_error('{"name": '))

    def test_row_simplex_and_fixed_symbols(self):
        text = case_text([{"op": "sum", "in": ["x"], "dim": -1, "out": "y"}],
                         inputs={"x": {"shape": ["b", "dim0", "dim1"], "init": "row_simplex"}},
                         grid={"dim0": [4, 8], "dim1": [16]}, extra={"fixed": {"b": 3}})
        c = tp.parse_case(text)
        self.assertEqual(c.inputs[0].init, "row_simplex")
        self.assertEqual(c.fixed, {"b": [3]})
        pts = list(tp.grid_points(*tp.plan_axes(c, {}, False)))
        self.assertEqual([p for _, _, p in pts], [{"b": 3, "dim0": 4, "dim1": 16}, {"b": 3, "dim0": 8, "dim1": 16}])

    def test_every_bundled_case_reads_and_sizes(self):
        """Each case file the project ships is one the peer can build: a new op or init a case
        starts using must be added to torch_peer.py's tables, and this test says which."""
        names = tp.case_names()
        self.assertIn("softmax", names)
        for name in names:
            with self.subTest(case=name):
                c = tp.find_case(name)
                for _, _, point in tp.grid_points(c.axes, c.fixed):
                    shapes = tp.program_shapes(c, point)
                    for d in c.dtypes:
                        costs = tp.program_costs(c, shapes, d)
                        self.assertGreater(costs["ideal_bytes"], 0)
                compile(tp.generate(c), "<test>", "exec")
                compile(tp.generate(c, "hash"), "<test>", "exec")


class TestShapesAndCosts(unittest.TestCase):
    def test_softmax_costs_match_fusionbench(self):
        """ideal_bytes and flops of the golden result file (fusionbench's conventions)."""
        c = tp.load_case(SOFTMAX)
        gold = json.loads(GOLDEN.read_text())
        cells = gold["cases"][0]["dtypes"][0]["cells"]
        self.assertGreater(len(cells), 5)
        for cell in cells:
            shapes = tp.program_shapes(c, cell["point"])
            costs = tp.program_costs(c, shapes, "float32")
            self.assertEqual(costs["ideal_bytes"], cell["ideal_bytes"], cell["point"])
            self.assertEqual(costs["flops"], cell["flops"], cell["point"])
        self.assertEqual(tp.sol_copy_bytes(262144), 131072)
        self.assertEqual(tp.sol_copy_bytes(2050), 1024)  # rounded down to 16, as cell.c does

    def test_broadcast_and_reductions(self):
        prog = [{"op": "add", "in": ["x", "bias"], "out": "t"},
                {"op": "sum", "in": ["t"], "dim": 1, "keepdim": False, "out": "s"},
                {"op": "amax", "in": ["t"], "dim": 0, "out": "m"},
                {"op": "mul", "in": ["t", "m"], "out": "y"}]
        c = tp.parse_case(case_text(prog, inputs={"x": {"shape": ["dim0", "dim1"]}, "bias": {"shape": ["dim1"]}},
                                    outputs=["y", "s"]))
        sh = tp.program_shapes(c, {"dim0": 4, "dim1": 16})
        self.assertEqual(sh, {"x": (4, 16), "bias": (16,), "t": (4, 16), "s": (4,), "m": (1, 16), "y": (4, 16)})
        costs = tp.program_costs(c, sh, "bfloat16")
        self.assertEqual(costs["ideal_bytes"], (64 + 16 + 64 + 4) * 2)
        self.assertEqual(costs["flops"], 64 + 64 + 64 + 64)
        self.assertEqual(tp.broadcast((3, 1), (4,)), (3, 4))
        with self.assertRaises(ValueError):
            tp.broadcast((3, 2), (4,))
        bad = tp.parse_case(case_text([{"op": "add", "in": ["x", "b"], "out": "y"}],
                                      inputs={"x": {"shape": ["dim0", "dim1"]}, "b": {"shape": [3]}}))
        with self.assertRaisesRegex(tp.CaseError, r"program\[0\]: shapes \[4, 16\] and \[3\] do not broadcast"):
            tp.program_shapes(bad, {"dim0": 4, "dim1": 16})


CONV_INPUTS = {"x": {"shape": ["N", "H", "W", "C"]}, "w": {"shape": ["K", 3, 3, "C"]}, "bias": {"shape": ["K"]}}


def conv_case(conv=None, inputs=None, program_tail=None, grid=None, fixed=None):
    """x [N, H, W, C] * w [K, 3, 3, C] (+ bias): a conv2d case, NHWC unless `conv` says otherwise."""
    node = {"op": "conv2d", "in": ["x", "w"], "out": "c"}
    node.update(conv or {})
    prog = [node] + (program_tail or [{"op": "add", "in": ["c", "bias"], "out": "y"}])
    return tp.parse_case(case_text(prog, inputs=inputs or CONV_INPUTS, grid=grid or {"N": [2, 8], "K": [16]},
                                   extra={"fixed": fixed or {"H": 9, "W": 9, "C": 8}}))


class TestConvAndBatchnorm(unittest.TestCase):
    """conv2d and batchnorm: the C kinds' attributes, shape rules and FLOPs, the torch they emit,
    and how a cell of them is checked by rows (images)."""

    def test_attributes_and_their_defaults(self):
        c = conv_case()
        self.assertEqual(c.nodes[0].attrs, {"layout": "NHWC", "stride": 1, "padding": 0, "dilation": 1, "groups": 1})
        c = conv_case({"layout": "NCHW", "stride": 2, "padding": 1, "dilation": 2, "groups": 4},
                      inputs={"x": {"shape": ["N", "C", "H", "W"]}, "w": {"shape": ["K", 2, 3, 3]},
                              "bias": {"shape": ["K", 1, 1]}})
        self.assertEqual(c.nodes[0].attrs, {"layout": "NCHW", "stride": 2, "padding": 1, "dilation": 2, "groups": 4})
        bn = tp.parse_case(case_text([{"op": "batchnorm", "in": ["x", "m", "v", "g", "b"], "out": "y"}],
                                     inputs={"x": {"shape": ["dim0", "dim1"]}, **{k: {"shape": ["dim1"]} for k in "mvgb"}}))
        self.assertEqual(bn.nodes[0].attrs, {"eps": 1e-5, "layout": "NHWC"})
        for attrs, msg in [({"layout": "NHCW"}, "program[0].layout: expected \"NHWC\" or \"NCHW\", got the string "
                                                "'NHCW' (did you mean 'NHWC'?)"),
                           ({"stride": 0}, "program[0].stride: stride 0 is less than 1 (the step between windows)"),
                           ({"padding": -1}, "program[0].padding: padding -1 is less than 0 (zeros added on each side)"),
                           ({"dilation": 1 << 21}, "program[0].dilation: dilation 2097152 is too large (at most 1048576)"),
                           ({"dilation": 1.5}, "program[0].dilation: expected an integer, got 1.5"),
                           ({"groups": True}, "program[0].groups: expected an integer, got true"),
                           ({"strides": 2}, "unknown key 'strides' (did you mean 'stride'?) ('conv2d' takes layout, "
                                            "stride, padding, dilation, groups)")]:
            with self.subTest(attrs=attrs):
                node = {"op": "conv2d", "in": ["x", "w"], "out": "y", **attrs}
                self.assertIn(msg, case_error(case_text([node], inputs=CONV_INPUTS,
                                                        grid={"N": [2], "K": [4]}, extra={"fixed": {"H": 9, "W": 9, "C": 8}})))
        bn_in = {"x": {"shape": ["dim0", "dim1"]}, "m": {"shape": ["dim1"]}}
        self.assertIn("'batchnorm' takes 5 operands, got 2", case_error(case_text(
            [{"op": "batchnorm", "in": ["x", "m"], "out": "y"}], inputs=bn_in)))
        self.assertIn("program[0].eps: eps -1 is not a finite number >= 0 (it keeps rsqrt(var + eps) finite)", case_error(case_text(
            [{"op": "batchnorm", "in": ["x", "m", "m", "m", "m"], "eps": -1, "out": "y"}], inputs=bn_in)))
        self.assertIn("'conv2d' takes a value, not a literal", case_error(case_text(
            [{"op": "conv2d", "in": ["x", 2.0], "out": "y"}], inputs=bn_in)))

    def test_conv2d_shapes(self):
        kind = tp.CONV2D

        def attrs(**kw):
            return {"layout": "NHWC", "stride": 1, "padding": 0, "dilation": 1, "groups": 1, **kw}
        self.assertEqual(kind.shape([(2, 9, 9, 8), (16, 3, 3, 8)], attrs()), (2, 7, 7, 16))
        self.assertEqual(kind.shape([(2, 9, 9, 8), (16, 3, 3, 8)], attrs(stride=2, padding=1)), (2, 5, 5, 16))
        self.assertEqual(kind.shape([(2, 9, 10, 8), (16, 3, 1, 8)], attrs(dilation=2)), (2, 5, 10, 16))
        self.assertEqual(kind.shape([(2, 9, 9, 8), (16, 3, 3, 2)], attrs(groups=4)), (2, 7, 7, 16))
        self.assertEqual(kind.shape([(2, 8, 9, 9), (16, 8, 3, 3)], attrs(layout="NCHW", padding=1)), (2, 16, 9, 9))
        self.assertEqual(kind.shape([(2, 8, 9, 9), (8, 1, 3, 3)], attrs(layout="NCHW", groups=8)), (2, 8, 7, 7))
        self.assertEqual(kind.shape([(1, 56, 56, 64), (256, 1, 1, 64)], attrs()), (1, 56, 56, 256))  # 1x1
        self.assertEqual(kind.shape([(1, 224, 224, 3), (64, 7, 7, 3)], attrs(stride=2, padding=3)), (1, 112, 112, 64))
        for ins, kw, msg in [
                ([(2, 9, 9), (16, 3, 3, 8)], {}, "conv2d needs operands of rank 4 (NHWC: x [N, H, W, C], w [K, R, S, "
                                                 "C/groups]), operand 0 is [2, 9, 9]"),
                ([(2, 9, 9, 8), (16, 3, 3, 4)], {}, "operand 1 [16, 3, 3, 4] has 4 channels per group (dim 3), operand 0 "
                                                    "[2, 9, 9, 8] has 8 / groups 1 = 8"),
                ([(2, 9, 9, 6), (16, 3, 3, 2)], {"groups": 4}, "groups 4 does not divide the 6 input channels"),
                ([(2, 9, 9, 8), (6, 3, 3, 2)], {"groups": 4}, "groups 4 does not divide the 6 output channels"),
                ([(2, 2, 9, 8), (16, 3, 3, 8)], {}, "the 3x3 filter (dilation 1) does not fit the 2x9 input with "
                                                    "padding 0: the output would be empty"),
                ([(2, 8, 9, 9), (16, 4, 3, 3)], {"layout": "NCHW"}, "operand 1 [16, 4, 3, 3] has 4 channels per group")]:
            with self.subTest(ins=ins):
                with self.assertRaises(ValueError) as e:
                    kind.shape(ins, attrs(**kw))
                self.assertIn(msg, str(e.exception))

    def test_conv2d_flops(self):
        """2·N·P·Q·K·(C/groups)·R·S, in either layout."""
        for x, w, kw, terms in [((2, 9, 9, 8), (16, 3, 3, 8), {}, 2 * 7 * 7 * 16 * 8 * 9),
                                ((2, 9, 9, 8), (16, 3, 3, 2), {"groups": 4}, 2 * 7 * 7 * 16 * 2 * 9),
                                ((2, 8, 9, 9), (16, 8, 3, 3), {"layout": "NCHW", "stride": 2}, 2 * 4 * 4 * 16 * 8 * 9),
                                ((32, 56, 56, 64), (64, 1, 1, 64), {}, 32 * 56 * 56 * 64 * 64)]:
            attrs = {"layout": "NHWC", "stride": 1, "padding": 0, "dilation": 1, "groups": 1, **kw}
            out = tp.CONV2D.shape([x, w], attrs)
            self.assertEqual(tp.CONV2D.flops([x, w], out), 2 * terms, (x, w, kw))
        c = conv_case()
        shapes = tp.program_shapes(c, {"N": 2, "K": 16, "H": 9, "W": 9, "C": 8})
        self.assertEqual(shapes["y"], (2, 7, 7, 16))
        costs = tp.program_costs(c, shapes, "float16")
        self.assertEqual(costs["flops"], 2 * 2 * 7 * 7 * 16 * 8 * 9 + 2 * 7 * 7 * 16)  # the conv, then the add
        self.assertEqual(costs["ideal_bytes"], 2 * (2 * 9 * 9 * 8 + 16 * 9 * 8 + 16 + 2 * 7 * 7 * 16))
        self.assertEqual(costs["kernels"], 2)

    def test_batchnorm_shapes_and_flops(self):
        kind, nhwc, nchw = tp.BATCHNORM, {"eps": 1e-5, "layout": "NHWC"}, {"eps": 1e-5, "layout": "NCHW"}
        self.assertEqual(kind.shape([(2, 5, 5, 8)] + [(8,)] * 4, nhwc), (2, 5, 5, 8))
        self.assertEqual(kind.shape([(2, 8, 5, 5)] + [(8,)] * 4, nchw), (2, 8, 5, 5))
        self.assertEqual(kind.shape([(4, 8)] + [(8,)] * 4, nchw), (4, 8))
        self.assertEqual(kind.flops([(2, 5, 5, 8)] + [(8,)] * 4, (2, 5, 5, 8)), tp.BATCHNORM_FLOPS_PER_ELEMENT * 400)
        for ins, attrs, msg in [([(2, 5, 5, 8)] + [(8,)] * 3 + [(5,)], nhwc,
                                 "operand 4 (beta) is [5], expected [8]: one value per channel of operand 0 "
                                 "[2, 5, 5, 8] (NHWC: channels on dim 3)"),
                                ([(2, 5, 5, 8)] + [(8,)] * 4, nchw, "operand 1 (mean) is [8], expected [5]"),
                                ([(2, 8, 5, 5), (1, 8, 1, 1)] + [(8,)] * 3, nchw, "operand 1 (mean) is [1, 8, 1, 1]"),
                                ([(8,)] * 5, nhwc, "batchnorm needs x of rank 2 or more, operand 0 is [8]")]:
            with self.subTest(msg=msg):
                with self.assertRaises(ValueError) as e:
                    kind.shape(ins, attrs)
                self.assertIn(msg, str(e.exception))

    def test_the_torch_they_emit(self):
        """NHWC: the permuted (channels_last) views F.conv2d takes, the result permuted back, no copy;
        NCHW: F.conv2d as is. batchnorm: F.batch_norm(training=False) with the channels in dim 1."""
        c = conv_case({"stride": 2, "padding": 1}, program_tail=[
            {"op": "batchnorm", "in": ["c", "m", "v", "g", "b"], "eps": 0.001, "out": "y"}],
            inputs={"x": CONV_INPUTS["x"], "w": CONV_INPUTS["w"], **{k: {"shape": ["K"]} for k in "mvgb"}})
        src = tp.generate(c)
        self.assertIn("    v_c = F.conv2d(v_x.permute(0, 3, 1, 2), v_w.permute(0, 3, 1, 2), stride=2, padding=1, "
                      "dilation=1, groups=1).permute(0, 2, 3, 1)  # program[0]: conv2d\n", src)
        self.assertIn("    v_y = F.batch_norm(v_c.movedim(-1, 1), v_m, v_v, v_g, v_b, training=False, eps=0.001)"
                      ".movedim(1, -1)  # program[1]: batchnorm\n", src)
        c = conv_case({"layout": "NCHW", "groups": 2}, program_tail=[
            {"op": "batchnorm", "in": ["c", "m", "v", "g", "b"], "layout": "NCHW", "out": "y"}],
            inputs={"x": {"shape": ["N", "C", "H", "W"]}, "w": {"shape": ["K", 4, 3, 3]},
                    **{k: {"shape": ["K"]} for k in "mvgb"}})
        src = tp.generate(c)
        self.assertIn("v_c = F.conv2d(v_x, v_w, stride=1, padding=0, dilation=1, groups=2)  # program[0]", src)
        self.assertIn("v_y = F.batch_norm(v_c, v_m, v_v, v_g, v_b, training=False, eps=1e-05)  # program[1]", src)

    def test_rows_are_images(self):
        """A conv2d keeps the batch axis: an output image needs its input image and all of w, so a cell
        is checked on sampled images; w, the bias and batchnorm's parameters are read whole."""
        c = conv_case(program_tail=[{"op": "add", "in": ["c", "bias"], "out": "t"},
                                    {"op": "batchnorm", "in": ["t", "m", "v", "g", "b"], "out": "y"}],
                      inputs={**CONV_INPUTS, **{k: {"shape": ["K"]} for k in "mvgb"}})
        shapes = tp.program_shapes(c, {"N": 8, "K": 16, "H": 9, "W": 9, "C": 8})
        plan = tp.row_plan(c, shapes)
        self.assertTrue(plan.separable, plan.why)
        self.assertEqual(plan.n_rows, 8)
        self.assertEqual(plan.axis, {"x": 0, "w": None, "bias": None, "m": None, "v": None, "g": None, "b": None,
                                     "c": 0, "t": 0, "y": 0})
        self.assertEqual(plan.per_row, 9 * 9 * 8 + 3 * 7 * 7 * 16)
        nchw = conv_case({"layout": "NCHW", "groups": 2, "stride": 2},
                         inputs={"x": {"shape": ["N", "C", "H", "W"]}, "w": {"shape": ["K", 4, 3, 3]},
                                 "bias": {"shape": ["K", 1, 1]}})
        plan = tp.row_plan(nchw, tp.program_shapes(nchw, {"N": 8, "K": 16, "H": 9, "W": 9, "C": 8}))
        self.assertTrue(plan.separable, plan.why)
        self.assertEqual((plan.axis["x"], plan.axis["w"], plan.axis["bias"], plan.axis["y"]), (0, None, None, 0))
        # no rows through a window: a column sum of the output mixes images
        mixed = conv_case(program_tail=[{"op": "sum", "in": ["c"], "dim": 1, "out": "s"},
                                        {"op": "sum", "in": ["s"], "dim": 0, "out": "y"}])
        plan = tp.row_plan(mixed, tp.program_shapes(mixed, {"N": 8, "K": 16, "H": 9, "W": 9, "C": 8}))
        self.assertTrue(plan.separable)  # y [1, 1, Q, K]: Q is a window's, K splits (an output channel
        self.assertEqual((plan.n_rows, plan.axis["w"], plan.axis["y"]), (16, 0, 3))  # is its own filter)
        self.assertEqual(tp.sum_plan(mixed, tp.program_shapes(mixed, {"N": 8, "K": 16, "H": 9, "W": 9, "C": 8})).why,
                         "program[0] (conv2d) is no elementwise op or reduction; the chunked reference splits "
                         "rows only through those")
        # a single image: the rows are w's output channels (an output channel is all of x convolved with
        # one filter), the per-channel parameters sampled with them; not with groups (a channel reads its group)
        one = tp.row_plan(c, tp.program_shapes(c, {"N": 1, "K": 16, "H": 9, "W": 9, "C": 8}))
        self.assertTrue(one.separable, one.why)
        self.assertEqual((one.n_rows, one.axis), (16, {"x": None, "w": 0, "bias": 0, "m": 0, "v": 0, "g": 0, "b": 0,
                                                       "c": 3, "t": 3, "y": 3}))
        grouped = conv_case({"groups": 2}, inputs={**CONV_INPUTS, "w": {"shape": ["K", 3, 3, 4]}})
        one = tp.row_plan(grouped, tp.program_shapes(grouped, {"N": 1, "K": 16, "H": 9, "W": 9, "C": 8}))
        self.assertEqual((one.separable, one.why),
                         (False, "program[0] (conv2d) combines along the rows (a window, the channels, or the "
                                 "channels of a group)"))

    def test_a_batch_of_one_is_checked_by_rows_of_m(self):
        """A [1, M, K] @ B [K, N]: the leading 1 broadcasts, the rows are M."""
        c = tp.parse_case(case_text([{"op": "matmul", "in": ["a", "b"], "out": "y"}],
                                    inputs={"a": {"shape": [1, "M", "K"]}, "b": {"shape": ["K", "N"]}},
                                    grid={"M": [8], "N": [4]}, extra={"fixed": {"K": 3}}))
        plan = tp.row_plan(c, tp.program_shapes(c, {"M": 8, "N": 4, "K": 3}))
        self.assertTrue(plan.separable, plan.why)
        self.assertEqual((plan.n_rows, plan.axis), (8, {"a": 1, "b": None, "y": 1}))

    def test_dynamic_rows_marks_only_the_inputs_that_lead_with_the_rows(self):
        """--dynamic rows marks dim 0 dynamic of the inputs whose dim 0 is the rows: a matmul's A, a
        convolution's x; B, w and the bias keep every dim static (as every input did before)."""
        c = tp.load_case(MATMUL_BIAS)
        shapes = tp.value_shapes(c, {"A": (256, 64), "B": (64, 128), "bias": (128,)})
        self.assertEqual(shapes["D"], (256, 128))
        self.assertEqual(tp.leading_row_inputs(c, shapes), ["A"])
        conv = conv_case()
        self.assertEqual(tp.leading_row_inputs(conv, tp.program_shapes(conv, {"N": 2, "K": 4, "H": 9, "W": 9, "C": 8})),
                         ["x"])
        rb = tp.find_case("rmsnorm_backward")
        self.assertEqual(tp.leading_row_inputs(rb, tp.program_shapes(rb, {"T": 8, "N": 16})), ["x", "dy"])

    def test_rows_through_matmuls(self):
        """A row of C = A @ B is a row of A times all of B, through a chain of matmuls too (E = (A B) C):
        A is sampled by rows, B and C read whole; a K that is a grid's row axis cannot split."""
        prog = [{"op": "matmul", "in": ["a", "b"], "out": "d"}, {"op": "matmul", "in": ["d", "c"], "out": "y"}]
        inputs = {"a": {"shape": ["M", "K"]}, "b": {"shape": ["K", "N"]}, "c": {"shape": ["N", "L"]}}
        case = tp.parse_case(case_text(prog, inputs=inputs, grid={"M": [8], "N": [16]}, extra={"fixed": {"K": 4, "L": 8}}))
        shapes = tp.program_shapes(case, {"M": 8, "N": 16, "K": 4, "L": 8})
        plan = tp.row_plan(case, shapes)
        self.assertTrue(plan.separable, plan.why)
        self.assertEqual((plan.n_rows, plan.axis), (8, {"a": 0, "b": None, "c": None, "d": 0, "y": 0}))
        batched = tp.parse_case(case_text([{"op": "matmul", "in": ["a", "b"], "transpose_b": True, "out": "y"}],
                                          inputs={"a": {"shape": [3, "M", "K"]}, "b": {"shape": [3, "N", "K"]}},
                                          grid={"M": [8], "N": [16]}, extra={"fixed": {"K": 4}}))
        plan = tp.row_plan(batched, tp.program_shapes(batched, {"M": 8, "N": 16, "K": 4}))
        self.assertEqual((plan.n_rows, plan.axis), (3, {"a": 0, "b": 0, "y": 0}))  # by batch entry: A's and B's
        outer = tp.parse_case(case_text([{"op": "matmul", "in": ["a", "b"], "transpose_a": True, "out": "y"}],
                                        inputs={"a": {"shape": ["K", "M"]}, "b": {"shape": ["K", "N"]}},
                                        grid={"K": [8], "M": [4]}, extra={"fixed": {"N": 2}}))
        plan = tp.row_plan(outer, tp.program_shapes(outer, {"K": 8, "M": 4, "N": 2}))
        self.assertEqual((plan.n_rows, plan.axis), (4, {"a": 1, "b": None, "y": 0}))  # y's rows: a's columns


MATMUL_BIAS = str(REPO / "tests" / "cases" / "matmul_bias.json")
BATCHED = str(REPO / "tests" / "cases" / "batched_scale.json")


def mm_case(fixed):
    return tp.parse_case(case_text([{"op": "matmul", "in": ["a", "b"], "out": "y"}],
                                   inputs={"a": {"shape": ["B", "M", "K"]}, "b": {"shape": ["B", "K", "N"]}},
                                   grid={"M": [8, 16], "N": [4]}, extra={"fixed": fixed}), "t.json")


class TestFixedGrids(unittest.TestCase):
    """"fixed": {"K": [64, 128]}: src/case.c's format and messages, one grid per combination of the
    fixed values (the first symbol slowest), --K 64,128 overrides, and the result file's "fixed"."""

    def test_the_messages_are_fusionbench_s(self):
        """The grid and fixed cases among tests/cases/bad_*.json: the peer says what fusionbench says."""
        checked = 0
        for path in sorted((REPO / "tests" / "cases").glob("bad_*.json")):
            if not path.name.startswith(("bad_fixed_", "bad_grid_")):
                continue
            with self.subTest(case=path.name):
                rel = f"cases/{path.name}"
                want = (path.with_suffix(".expected")).read_text().splitlines()[0]
                with self.assertRaises(tp.CaseError) as e:
                    tp.parse_case(path.read_text(), rel)
                self.assertEqual(str(e.exception), want)
                checked += 1
        self.assertGreaterEqual(checked, 8)
        for grid, fixed, msg in [
                ({"M": [8], "N": [4], "K": [2]}, None, "grid: 3 axes; a grid has 1 (rows) or 2 (rows, columns); give "
                                                        "the other symbols under 'fixed'"),
                ({"M": [8], "N": 4}, {"K": 2, "B": 1}, "grid.N: expected an array, got 4"),
                ({}, None, "grid: no axes; give 1 (rows) or 2 (rows, columns)"),
                ({"M": [8], "N": [4]}, {}, "fixed: no symbols; leave 'fixed' out when every symbol is a grid axis"),
                ({"M": [8], "N": [4]}, [2], "fixed: expected an object of symbol -> value or list of values, got an array"),
                ({"M": [8], "N": [4]}, {"K": 0, "B": 1}, "fixed.K: expected a positive integer, got 0"),
                ({"M": [8], "N": [4]}, {"K": [], "B": 1}, "fixed.K: must not be empty"),
                ({"M": [8], "N": [4]}, {"K": list(range(1, 10)), "B": list(range(1, 9))},
                 "fixed: 72 combinations of values, so as many grids; at most 64"),
                ({"M": [8], "N": [4]}, {"K": [2], "BB": 1}, "fixed: 'BB' is not a symbol of any input shape (did you "
                                                            "mean 'B'?)")]:
            with self.subTest(grid=grid, fixed=fixed):
                extra = {} if fixed is None else {"fixed": fixed}
                text = case_text([{"op": "matmul", "in": ["a", "b"], "out": "y"}],
                                 inputs={"a": {"shape": ["B", "M", "K"]}, "b": {"shape": ["B", "K", "N"]}},
                                 grid=grid, extra=extra)
                self.assertEqual(case_error(text), f"t.json: {msg}")

    def test_one_grid_per_combination(self):
        c = mm_case({"K": [64, 128], "B": 2})
        self.assertEqual(c.fixed, {"K": [64, 128], "B": [2]})
        axes, fixed = tp.plan_axes(c, {}, False)
        pts = [(r, col, p) for r, col, p in tp.grid_points(axes, fixed)]
        self.assertEqual([(p["K"], r, col) for r, col, p in pts],
                         [(64, 8, 4), (64, 16, 4), (128, 8, 4), (128, 16, 4)])  # grid by grid, then rows, columns
        self.assertTrue(all(p["B"] == 2 for _, _, p in pts))
        two = mm_case({"K": [1, 2], "B": [3, 4]})
        order = [(p["K"], p["B"]) for _, _, p in tp.grid_points(*tp.plan_axes(two, {}, False))][::2]
        self.assertEqual(order, [(1, 3), (1, 4), (2, 3), (2, 4)])  # the first fixed symbol slowest, as fb_case_point
        self.assertEqual(tp.point_str(axes, pts[2][2], fixed), "M=8 N=4 K=128 B=2")  # fb_point_str
        self.assertEqual(tp.fixed_label(fixed, pts[2][2]), "K=128 B=2")  # fb_grid_label
        self.assertEqual(tp.fixed_label({}, pts[2][2]), "")

    def test_overrides_and_quick(self):
        c = mm_case({"K": [64, 128, 256, 512, 1024], "B": 2})
        _, fixed = tp.plan_axes(c, {"K": [32, 96]}, False)  # --K 32,96: two grids, as fusionbench run --K
        self.assertEqual(fixed, {"K": [32, 96], "B": [2]})
        _, fixed = tp.plan_axes(c, {"B": [1, 4]}, False)
        self.assertEqual(fixed["B"], [1, 4])
        _, fixed = tp.plan_axes(c, {}, True)  # --quick thins the fixed lists as it thins the axes
        self.assertEqual(fixed, {"K": [64, 256, 1024], "B": [2]})
        with self.assertRaisesRegex(tp.UsageError, r"t: the fixed symbols' values make 65 grids; at most 64"):
            tp.plan_axes(c, {"K": list(range(1, 14)), "B": [1, 2, 3, 4, 5]}, False)
        with self.assertRaisesRegex(tp.UsageError, r"unknown option '--KK' \(did you mean '--K'\?\)"):
            tp.plan_axes(c, {"KK": [1]}, False)
        self.assertEqual(tp.split_overrides(["--K", "64,128"]), {"K": [64, 128]})

    def test_bundled_test_cases(self):
        c = tp.load_case(MATMUL_BIAS)
        self.assertEqual((c.axes[0][0], c.axes[1][0], c.fixed), ("M", "N", {"K": [64]}))
        self.assertEqual(len(list(tp.grid_points(c.axes, c.fixed))), 9)
        b = tp.load_case(BATCHED)
        self.assertEqual(list(b.fixed), ["B"])
        n = len(list(tp.grid_points(b.axes, b.fixed)))
        self.assertEqual(n, len(b.fixed["B"]) * len(b.axes[0][1]) * (len(b.axes[1][1]) if len(b.axes) > 1 else 1))

    def test_result_file_holds_each_grid(self):
        """The case's "fixed" (as fusionbench writes it, beside row_values), every cell's point holding
        each fixed symbol, and a cell found by its row, column and fixed values."""
        c = mm_case({"K": [64, 128], "B": 2})
        axes, fixed = tp.plan_axes(c, {}, False)
        doc = {"cases": []}
        ce = tp.case_entry(doc, c, axes, list(tp.VARIANTS), fixed)
        self.assertEqual(ce["fixed"], {"K": [64, 128], "B": [2]})
        gold = json.loads((REPO / "tests" / "results" / "export" / "fixed.json").read_text())["cases"][0]
        self.assertEqual([k for k in ce if k in gold], [k for k in gold if k in ce])  # fusionbench's key order
        de = tp.dtype_entry(ce, "float32")
        for row, col, point in tp.grid_points(axes, fixed):
            shapes = tp.program_shapes(c, point)
            cell = tp.new_cell(row, col, {s: point[s] for s in c.symbols}, tp.program_costs(c, shapes, "float32"))
            de["cells"].append(cell)
        self.assertEqual(list(de["cells"][0]["point"]), ["B", "M", "K", "N"])  # every symbol, in the case's order
        self.assertEqual(tp.find_cell(de, 8, 4, {"K": 128, "B": 2})["point"]["K"], 128)
        self.assertEqual(tp.find_cell(de, 8, 4, {"K": 64, "B": 2})["point"]["K"], 64)
        self.assertIsNone(tp.find_cell(de, 8, 4, {"K": 256, "B": 2}))
        self.assertIs(tp.find_cell(de, 8, 4), de["cells"][0])  # without fixed values: the first
        # a resumed run at other K values widens the list (ascending), as fusionbench's merged_values
        again = tp.case_entry(doc, c, axes, ["torch.eager"], {"K": [32], "B": [2]})
        self.assertIs(again, ce)
        self.assertEqual(ce["fixed"], {"K": [32, 64, 128], "B": [2]})
        self.assertEqual(tp.merged_values([1, 2], [2, 1]), [2, 1])  # nothing new: this run's order
        self.assertEqual(tp.merged_values(None, [4, 3]), [4, 3])

    def test_resume_refuses_another_case_under_the_name(self):
        c = mm_case({"K": [64], "B": 2})
        plan = tp.Plan(c, ["float32"], *tp.plan_axes(c, {}, False), list(tp.VARIANTS))
        doc = {"cases": [{"name": "t", "rows": "M", "cols": "N", "fixed": {"K": [64], "B": [2]}}]}
        tp.check_resume(doc, "p.json", [plan])
        doc["cases"][0]["fixed"] = {"K": [64]}
        with self.assertRaisesRegex(tp.UsageError, r"p.json: its case 't' fixes the symbols K, but t.json fixes K, B: "
                                                    r"another case under the same name"):
            tp.check_resume(doc, "p.json", [plan])
        doc["cases"][0].update({"fixed": {"K": [64], "B": [2]}, "cols": "K"})
        with self.assertRaisesRegex(tp.UsageError, r"its case 't' has the grid M x K, but t.json has M x N"):
            tp.check_resume(doc, "p.json", [plan])


class TestTf32(unittest.TestCase):
    """--tf32 sets both switches (cuBLAS and cuDNN) and is recorded in settings; without it both are
    IEEE float32 (torch's own default lets cuDNN use TF32)."""

    def test_switches(self):
        """The allow_tf32 flags (consistent in every torch; fp32_precision="ieee" leaves torch 2.15's
        own getters raising), with fp32_precision recorded where torch has it."""
        ns = types.SimpleNamespace
        saved = tp.torch
        try:
            for new_api in (True, False):
                for on in (True, False):
                    b = ns(cuda=ns(matmul=ns(allow_tf32=not on)), cudnn=ns(allow_tf32=True))
                    if new_api:
                        b.cuda.matmul.fp32_precision = "ieee"
                        b.cudnn.conv = ns(fp32_precision="none")
                        b.cuda.matmul.allow_fp16_reduced_precision_reduction = True  # recorded, left alone
                    tp.torch = ns(backends=b)
                    got = tp.set_tf32(on)
                    self.assertEqual((b.cuda.matmul.allow_tf32, b.cudnn.allow_tf32), (on, on))
                    want = {"cuda.matmul.allow_tf32": on, "cudnn.allow_tf32": on}
                    if new_api:
                        want.update({"cuda.matmul.fp32_precision": "ieee", "cudnn.conv.fp32_precision": "none",
                                     "cuda.matmul.allow_fp16_reduced_precision_reduction": True})
                    self.assertEqual(got, want)

            class Stuck:  # a torch that ignores the flag
                allow_tf32 = property(lambda self: True, lambda self, v: None)
            tp.torch = ns(backends=ns(cuda=ns(matmul=Stuck()), cudnn=ns(allow_tf32=False)))
            with self.assertRaisesRegex(tp.PeerError, "torch did not take --tf32 off"):
                tp.set_tf32(False)
        finally:
            tp.torch = saved

    def test_resume_with_the_file_s_setting(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "peer.json")
            doc = {"fusionbench": {"schema": 1}, "peer": {}, "settings": {"timer": "events", "tf32": True}, "cases": []}
            Path(path).write_text(json.dumps(doc))
            env = {k: v for k, v in os.environ.items() if k != "FUSIONBENCH_CASES"}
            r = subprocess.run([sys.executable, str(REPO / "scripts" / "torch_peer.py"), "run", "--case", "softmax",
                                "--resume", path], capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("measured with --tf32; resume it with --tf32, or write another file", r.stderr)
            self.assertIn("--tf32", subprocess.run([sys.executable, str(REPO / "scripts" / "torch_peer.py"), "run",
                                                    "--help"], capture_output=True, text=True, timeout=60).stdout)

    def resume_refused(self, settings, said, option, bad):
        """torch_peer refuses to resume a file of other `settings` with the default option (exit 2,
        `said`), and refuses `option bad` as a choice."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "peer.json")
            doc = {"fusionbench": {"schema": 1}, "peer": {}, "settings": settings, "cases": []}
            Path(path).write_text(json.dumps(doc))
            env = {k: v for k, v in os.environ.items() if k != "FUSIONBENCH_CASES"}
            tool = [sys.executable, str(REPO / "scripts" / "torch_peer.py"), "run", "--case", "softmax"]
            r = subprocess.run(tool + ["--resume", path], capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(said, r.stderr)
            r = subprocess.run(tool + [option, bad], capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(f"invalid choice: '{bad}'", r.stderr)

    def test_resume_with_the_file_s_timer(self):
        self.resume_refused({"timer": "cupti", "flush": "write"},
                            "was measured with --timer cupti, this run would use --timer events: a result file holds "
                            "one timer", "--timer", "ncu")

    def test_resume_with_the_file_s_flush(self):
        self.resume_refused({"timer": "events", "flush": "clean"},
                            "was measured with --flush clean, this run would use --flush write: a result file holds "
                            "one flush", "--flush", "dirty")


class TestCuptiSamples(unittest.TestCase):
    """torch_peer's --timer cupti: a batch's device activities (name, start ns, end ns) to per-sample sums."""
    M = "void at::cuda::(anonymous namespace)::spin_kernel(long)"

    def batch(self, runs, hold=True, flush=True):
        """Activities of a batch as the timer enqueues it, one stream: [hold] then per sample [flush]
        marker, the run's activities (durations in `runs[i]`), marker; 100 ns gaps."""
        acts, t = [], 0

        def put(name, d):
            nonlocal t
            acts.append((name, t, t + d))
            t += d + 100

        if hold:
            put(self.M, 50000)
        for r in runs:
            if flush:
                put("triton_sweep", 9000)
                put("Memset (Device)", 7000)
            put(self.M, 700)
            for k, d in enumerate(r):
                put(f"kernel{k}" if k % 2 == 0 else "Memcpy DtoD (Device -> Device)", d)
            put(self.M, 700)
        return acts

    def test_sums_per_sample(self):
        runs = [[2000], [2100, 300, 40], [1999]]
        acts = self.batch(runs)
        self.assertEqual(tp.cupti_sample_sums(acts, 3, hold=True), [2000, 2440, 1999])
        shuffled = list(reversed(acts))  # the profiler's order is not the stream's
        self.assertEqual(tp.cupti_sample_sums(shuffled, 3, hold=True), [2000, 2440, 1999])
        self.assertEqual(tp.cupti_sample_sums(self.batch(runs, hold=False, flush=False), 3), [2000, 2440, 1999])

    def test_what_is_not_one_sample_s_run_fails(self):
        acts = self.batch([[2000], [2000]])
        with self.assertRaisesRegex(tp.PeerError, "4 marker kernels recorded for 2 samples \\(want 5\\)"):
            tp.cupti_sample_sums([a for a in acts if a != acts[-1]], 2, hold=True)  # the last marker lost
        with self.assertRaisesRegex(tp.PeerError, "5 marker kernels recorded for 2 samples \\(want 4\\)"):
            tp.cupti_sample_sums(acts, 2)  # a marker the parser was not told of
        with self.assertRaisesRegex(tp.PeerError, "sample 1 of 2 recorded no GPU activity"):
            tp.cupti_sample_sums(self.batch([[2000], []]), 2, hold=True)
        acts = self.batch([[2000]], hold=False, flush=False)
        over = acts + [("other_stream", acts[0][1] + 100, acts[1][1] + 50)]  # across the first marker
        with self.assertRaisesRegex(tp.PeerError, "overlaps a sample's marker"):
            tp.cupti_sample_sums(over, 1)
        over = acts + [("other_stream", acts[1][1] + 50, acts[2][1] + 50)]  # across the second
        with self.assertRaisesRegex(tp.PeerError, "overlaps a sample's marker"):
            tp.cupti_sample_sums(over, 1)

    def test_a_dependent_launch_counts_from_the_marker_s_end(self):
        # with streams: a kernel launched as a programmatic dependent of the marker starts while it
        # runs (cuDNN's workspace init, results/h200/stop40); on the markers' stream it is the run's,
        # from the marker's end; on another stream it is still an error
        acts = [a + (7,) for a in self.batch([[2000]], hold=False, flush=False)]
        m0 = acts[0]
        pdl = ("init_device_workspace_kernel", m0[2] - 300, m0[2] + 400, 7)
        self.assertEqual(tp.cupti_sample_sums(acts + [pdl], 1), [2400])
        with self.assertRaisesRegex(tp.PeerError, "overlaps a sample's marker"):
            tp.cupti_sample_sums(acts + [pdl[:3] + (9,)], 1)
        with self.assertRaisesRegex(tp.PeerError, "overlaps a sample's marker"):  # no stream: as before
            tp.cupti_sample_sums(acts + [pdl[:3]], 1)


class TestGrid(unittest.TestCase):
    def test_axis_lists(self):
        self.assertEqual(tp.parse_axis_list("--dim0", "128,256"), [128, 256])
        self.assertEqual(tp.parse_axis_list("--dim0", "128:1024"), [128, 256, 512, 1024])
        self.assertEqual(tp.parse_axis_list("--dim1", "61,130,128:512"), [61, 130, 128, 256, 512])
        self.assertEqual(tp.parse_axis_list("--dim1", "128:65536")[-1], 65536)
        for bad in ("", "0", "12:x", "a", "1:2:3", "-4"):
            with self.assertRaises(tp.UsageError, msg=bad):
                tp.parse_axis_list("--dim0", bad)

    def test_overrides_and_quick(self):
        c = tp.load_case(SOFTMAX)
        axes, _ = tp.plan_axes(c, {"dim1": [61, 130]}, False)
        self.assertEqual(axes[1], ("dim1", [61, 130]))
        axes, _ = tp.plan_axes(c, {}, True)
        self.assertEqual(axes, [("dim0", [128, 4096, 65536]), ("dim1", [128, 4096, 65536])])
        with self.assertRaisesRegex(tp.UsageError, r"unknown option '--dim2' \(did you mean '--dim1'\?\)"):
            tp.plan_axes(c, {"dim2": [1]}, False)
        pts = [(r, k) for r, k, _ in tp.grid_points([("dim0", [1, 2]), ("dim1", [3, 4])], {})]
        self.assertEqual(pts, [(1, 3), (1, 4), (2, 3), (2, 4)])
        self.assertEqual(tp.split_overrides(["--dim0", "128,256", "--dim1=61"]), {"dim0": [128, 256], "dim1": [61]})
        with self.assertRaises(tp.UsageError):
            tp.split_overrides(["stray"])
        with self.assertRaises(tp.UsageError):
            tp.split_overrides(["--dim0"])

    def test_dtype_and_variant_selection(self):
        c = tp.load_case(SOFTMAX)
        self.assertEqual(tp.select_dtypes(c, None), ["float32"])
        self.assertEqual(tp.select_dtypes(c, "all"), ["float32", "float16", "bfloat16"])
        self.assertEqual(tp.select_dtypes(c, "bf16,float32"), ["bfloat16", "float32"])
        with self.assertRaisesRegex(tp.UsageError, "does not list float64"):
            tp.select_dtypes(c, "float64")
        with self.assertRaisesRegex(tp.UsageError, "did you mean 'float32'"):
            tp.select_dtypes(c, "flaot32")
        self.assertEqual(tp.select_variants("torch.compile"), ["torch.compile"])
        with self.assertRaisesRegex(tp.UsageError, "did you mean 'torch.eager'"):
            tp.select_variants("torch.eagr")


RMSNORM_CASES = ("rmsnorm", "rmsnorm_backward")


def plan_args(case=None, all_=False, variants=None, dtype=None):
    import argparse
    return argparse.Namespace(case=case, all=all_, variants=variants, dtype=dtype, quick=True)


class TestLibraryPeers(unittest.TestCase):
    def test_table_matches_the_case_files(self):
        """Each peer reads inputs its case has and returns the case's outputs in order; its name
        is its own (not torch_peer's, not fusionbench's eager or CASE.*)."""
        self.assertEqual(set(tp.PEERS), set(RMSNORM_CASES))
        for name, peers in tp.PEERS.items():
            with self.subTest(case=name):
                c = tp.find_case(name)
                names = [p.name for p in peers]
                self.assertEqual(len(names), len(set(names)))
                for p in peers:
                    self.assertNotIn(p.name, tp.VARIANTS)
                    self.assertNotEqual(p.name, "eager")
                    self.assertFalse(p.name.startswith(name + "."))
                    self.assertNotIn(p.name, c.fused)
                    self.assertEqual(list(p.outputs), c.outputs)
                    self.assertLessEqual(set(p.inputs), {i.name for i in c.inputs})
                    self.assertLessEqual(set(p.dtypes), set(tp.ALL_DTYPES))
                    self.assertTrue(callable(p.prepare))
                self.assertEqual([p.name for p in peers], ["torch.rms_norm", "liger"])

    def test_the_peers_eps_is_the_cases(self):
        for name in RMSNORM_CASES:
            c = tp.find_case(name)
            eps = [a for n in c.nodes if n.op.name == "add" for a in n.ins if isinstance(a, float)]
            self.assertEqual(eps, [tp.RMS_EPS], name)
            self.assertIn(f"eps={tp.RMS_EPS!r}", tp.find_peer(name, "liger").code)

    def test_liger_math_and_dtypes(self):
        self.assertEqual(tp.LIGER_ARGS, (0.0, "gemma", True))  # offset, casting mode, in place
        liger = tp.find_peer("rmsnorm", "liger")
        self.assertIsNone(liger.unsupported("bfloat16"))
        self.assertIsNone(liger.unsupported("float32"))
        why = liger.unsupported("float64")
        self.assertTrue(why.startswith("unsupported: liger takes float32, float16, bfloat16 ("), why)
        self.assertIsNone(tp.find_peer("rmsnorm_backward", "torch.rms_norm").unsupported("float64"))
        self.assertEqual(liger.module, "liger_kernel.ops.rms_norm")
        self.assertIsNone(tp.find_peer("rmsnorm", "torch.rms_norm").module)
        self.assertIsNone(tp.find_peer("softmax", "liger"))
        self.assertEqual(tp.case_peers("softmax"), ())

    def test_variants_per_case(self):
        plans = tp.make_plans(plan_args(case=["rmsnorm,softmax"]), {})
        self.assertEqual([p.variants for p in plans],
                         [["torch.eager", "torch.compile", "torch.rms_norm", "liger"], ["torch.eager", "torch.compile"]])
        plans = tp.make_plans(plan_args(all_=True, variants="liger,torch.compile"), {})
        by_case = {p.case.name: p.variants for p in plans}
        self.assertEqual(by_case["rmsnorm"], ["liger", "torch.compile"])
        self.assertEqual(by_case["softmax"], ["torch.compile"])
        plans = tp.make_plans(plan_args(all_=True, variants="liger"), {})
        self.assertEqual(sorted(p.case.name for p in plans), list(RMSNORM_CASES))  # the cases that have it
        with self.assertRaisesRegex(tp.UsageError, r"softmax has no variant 'liger' \(a library peer of "
                                                   r"rmsnorm, rmsnorm_backward\)"):
            tp.make_plans(plan_args(case=["softmax"], variants="liger"), {})
        with self.assertRaisesRegex(tp.UsageError, "no variant 'ligr' \\(did you mean 'liger'\\?\\)"):
            tp.make_plans(plan_args(case=["rmsnorm"], variants="ligr"), {})

    def test_a_library_that_does_not_import_is_skipped_once(self):
        plans = tp.make_plans(plan_args(case=["rmsnorm,rmsnorm_backward,softmax"]), {})
        plans.append(tp.make_plans(plan_args(case=["rmsnorm"], variants="liger"), {})[0])
        tried, err = [], io.StringIO()

        def importer(name):
            tried.append(name)
            raise ImportError("No module named 'liger_kernel'")

        skipped = tp.drop_missing_peers(plans, importer, err)
        self.assertEqual(tried, ["liger_kernel.ops.rms_norm"])
        self.assertEqual(skipped, {"liger": "cannot import liger_kernel.ops.rms_norm: No module named 'liger_kernel'"})
        self.assertEqual(err.getvalue().count("\n"), 1)
        self.assertIn("torch_peer: skipping liger: cannot import liger_kernel.ops.rms_norm: No module named "
                      "'liger_kernel'", err.getvalue())
        self.assertEqual([(p.case.name, p.variants) for p in plans],  # the liger-only plan is dropped
                         [("rmsnorm", ["torch.eager", "torch.compile", "torch.rms_norm"]),
                          ("rmsnorm_backward", ["torch.eager", "torch.compile", "torch.rms_norm"]),
                          ("softmax", ["torch.eager", "torch.compile"])])

        plans = tp.make_plans(plan_args(case=["rmsnorm"]), {})
        err = io.StringIO()
        self.assertEqual(tp.drop_missing_peers(plans, lambda name: None, err), {})
        self.assertEqual(plans[0].variants, ["torch.eager", "torch.compile", "torch.rms_norm", "liger"])
        self.assertEqual(err.getvalue(), "")

        def broken(name):
            raise AttributeError("module 'triton' has no attribute 'jit'")
        plans = tp.make_plans(plan_args(case=["rmsnorm"]), {})
        self.assertIn("no attribute 'jit'", tp.drop_missing_peers(plans, broken, io.StringIO())["liger"])

    def test_peer_json_names_what_ran(self):
        saved = tp.torch
        tp.torch = types.SimpleNamespace(__version__="2.11.0", version=types.SimpleNamespace(cuda="13.0"))
        try:
            plans = tp.make_plans(plan_args(case=["rmsnorm_backward,softmax"]), {})
            args = types.SimpleNamespace(compile_mode=None, dropout="torch", dynamic="none")
            doc = tp.peer_json(args, plans, {"x": "why"})
        finally:
            tp.torch = saved
        self.assertEqual(list(doc["library_peers"]), ["rmsnorm_backward"])
        self.assertIn("torch.autograd.grad(y, (x, w), dy, retain_graph=True)",
                      doc["library_peers"]["rmsnorm_backward"]["torch.rms_norm"])
        self.assertIn("casting_mode='gemma'", doc["library_peers"]["rmsnorm_backward"]["liger"])
        self.assertIn("liger_kernel", doc["libraries"])
        self.assertEqual(doc["skipped"], {"x": "why"})
        self.assertEqual(doc["torch"], "2.11.0")
        old = {"torch": "2.10.0", "library_peers": {"rmsnorm": {"liger": "L"}}, "skipped": {"liger": "no"}}
        tp.merge_peer_json(old, doc)  # a resumed run adds what it ran
        self.assertEqual(old["torch"], "2.10.0")
        self.assertEqual(set(old["library_peers"]), {"rmsnorm", "rmsnorm_backward"})
        self.assertEqual(old["library_peers"]["rmsnorm"], {"liger": "L"})
        self.assertEqual(old["skipped"], {"liger": "no", "x": "why"})

    def test_a_resumed_case_keeps_earlier_variants(self):
        c = tp.find_case("rmsnorm")
        doc = {"cases": []}
        tp.case_entry(doc, c, c.axes, ["torch.eager", "liger"])
        entry = tp.case_entry(doc, c, c.axes, ["torch.eager", "torch.rms_norm"])
        self.assertEqual(entry["variants"], ["torch.eager", "liger", "torch.rms_norm"])
        self.assertEqual(entry["baseline"], "torch.eager")


class I64:
    """An integer with torch's int64 semantics: + and * wrap; >>, &, ^ as two's complement."""

    def __init__(self, v):
        self.v = tp.as_int64(v)

    def __add__(self, o): return I64(self.v + (o.v if isinstance(o, I64) else o))
    def __mul__(self, o): return I64(self.v * (o.v if isinstance(o, I64) else o))
    def __rshift__(self, k): return I64(self.v >> k)
    def __and__(self, o): return I64(self.v & (o.v if isinstance(o, I64) else o))
    def __xor__(self, o): return I64(self.v ^ (o.v if isinstance(o, I64) else o))


class TestDropoutHash(unittest.TestCase):
    # fb_dropout_bits(seed, i) from src/fb_random.h, compiled with gcc
    C_VECTORS = [(0, 0, 0), (0, 1, 1452414493), (0, 2, 3687987351), (0, 1000, 3247662658),
                 (0, 4294967295, 2335360008), (0, 123456789012, 4125487776),
                 (1, 0, 3793791033), (1, 1, 2433363436), (1, 1000, 1008646795),
                 (7, 0, 746756798), (7, 123456789012, 42451732),
                 (12345, 2, 3625345873), (12345, 4294967295, 164548868),
                 (18446744073709551615, 0, 862258118), (18446744073709551615, 1000, 2116153747),
                 (18446744073709551615, 123456789012, 1034133692)]

    def test_int64_form_matches_fb_random_h(self):
        for seed, i, want in self.C_VECTORS:
            got = tp.dropout_bits(I64(i) + tp.dropout_counter_base(seed)).v
            self.assertEqual(got, want, (seed, i))

    def test_threshold(self):
        self.assertEqual(tp.dropout_threshold(0.5), 2147483648)
        self.assertEqual(tp.dropout_threshold(0.1), 429496729)
        self.assertEqual(tp.dropout_threshold(0.0), 0)
        self.assertEqual(tp.dropout_threshold(0.999999999999), 4294967295)

    def test_kept_fraction(self):
        n, t = 200000, tp.dropout_threshold(0.5)
        base = tp.dropout_counter_base(11)
        kept = sum(tp.dropout_bits(I64(i) + base).v >= t for i in range(n))
        self.assertLess(abs(kept / n - 0.5), 0.005)


class TestRows(unittest.TestCase):
    def test_softmax_is_row_separable(self):
        c = tp.load_case(SOFTMAX)
        plan = tp.row_plan(c, tp.program_shapes(c, {"dim0": 65536, "dim1": 1024}))
        self.assertTrue(plan.separable)
        self.assertEqual(plan.n_rows, 65536)
        self.assertEqual(set(plan.axis.values()), {0})
        self.assertEqual(plan.per_row, 4 * 1024 + 2)  # x, t, e, y and the two row scalars

    def test_broadcast_operands_and_column_reductions(self):
        inputs = {"x": {"shape": ["dim0", "dim1"]}, "bias": {"shape": ["dim1"]}}
        ok = tp.parse_case(case_text([{"op": "add", "in": ["x", "bias"], "out": "t"},
                                      {"op": "sum", "in": ["t"], "dim": 1, "out": "y"}], inputs=inputs))
        plan = tp.row_plan(ok, tp.program_shapes(ok, {"dim0": 8, "dim1": 16}))
        self.assertTrue(plan.separable)
        self.assertEqual(plan.axis, {"x": 0, "bias": None, "t": 0, "y": 0})
        cols = tp.parse_case(case_text([{"op": "sum", "in": ["x"], "dim": 0, "out": "s"},
                                        {"op": "sub", "in": ["x", "s"], "out": "y"}]))
        plan = tp.row_plan(cols, tp.program_shapes(cols, {"dim0": 8, "dim1": 16}))
        self.assertTrue(plan.separable)  # dim 0 is summed along: the columns split (the next axis)
        self.assertEqual((plan.n_rows, plan.axis), (16, {"x": 1, "s": 1, "y": 1}))
        one = tp.row_plan(cols, tp.program_shapes(cols, {"dim0": 1, "dim1": 16}))
        self.assertTrue(one.separable)  # a single row: the columns split
        self.assertEqual((one.n_rows, one.axis), (16, {"x": 1, "s": 1, "y": 1}))
        both = tp.parse_case(case_text([{"op": "sum", "in": ["x"], "dim": 0, "out": "s"},
                                        {"op": "sub", "in": ["x", "s"], "out": "t"},
                                        {"op": "amax", "in": ["t"], "dim": 1, "out": "y"}]))
        plan = tp.row_plan(both, tp.program_shapes(both, {"dim0": 8, "dim1": 16}))
        self.assertFalse(plan.separable)  # every axis combined along: the first one's reason
        self.assertEqual(plan.why, "program[0] (sum) reduces over the rows")
        scalar = tp.parse_case(case_text([{"op": "sum", "in": ["x"], "dim": 1, "out": "y"}]))
        plan = tp.row_plan(scalar, tp.program_shapes(scalar, {"dim0": 1, "dim1": 16}))
        self.assertEqual((plan.separable, plan.why), (False, "program[0] (sum) reduces over the rows"))
        plan = tp.row_plan(scalar, tp.program_shapes(scalar, {"dim0": 1, "dim1": 1}))
        self.assertEqual((plan.separable, plan.why), (False, "a single row"))

    def test_pick_rows(self):
        self.assertEqual(tp.pick_rows(5, 10), [0, 1, 2, 3, 4])
        rows = tp.pick_rows(65536, 64)
        self.assertEqual(rows, sorted(set(rows)))
        self.assertEqual(rows[0], 0)
        self.assertEqual(rows[-1], 65535)
        self.assertLessEqual(len(rows), 64)
        self.assertGreater(len(rows), 60)
        self.assertEqual(rows, tp.pick_rows(65536, 64))


RMS_BACK = str(REPO / "cases" / "rmsnorm_backward.json")


class TestSumsOverRows(unittest.TestCase):
    """sum_plan: cells whose outputs include sums over the rows (rmsnorm_backward's dw), evaluated over
    every row in chunks (row_chunks), the row outputs compared on sum_rows' sample."""

    def plan(self, program, outputs=("y",), inputs=None, point=None):
        inputs = inputs or {"x": {"shape": [4, "T", "N"]}, "w": {"shape": ["N"]}}
        c = tp.parse_case(case_text(program, inputs=inputs, outputs=outputs, grid={"T": [8], "N": [16]}))
        return c, tp.sum_plan(c, tp.program_shapes(c, point or {"T": 8, "N": 16}))

    def test_rmsnorm_backward(self):
        c = tp.load_case(RMS_BACK)
        shapes = tp.program_shapes(c, {"T": 2048, "N": 16384})
        self.assertFalse(tp.row_plan(c, shapes).separable)  # the axis-0 plan is as it was
        p = tp.sum_plan(c, shapes)
        self.assertTrue(p.ok, p.why)
        self.assertEqual((p.sizes, p.n_rows), ((4, 2048), 8192))
        self.assertEqual((p.row_outputs, p.sum_outputs), (("dx",), ("dw",)))
        self.assertEqual(p.partial, {"dw_t", "dw"})
        self.assertEqual((p.axes["x"], p.axes["w"], p.axes["r"], p.axes["dw_t"], p.axes["dw"]),
                         ((0, 1, None), (None,), (0, 1, None), (1, None), (None,)))
        # per row: the 11 values of N elements (x, dy, x2, g, gx, gr, xk, dx, xr, dyxr, dw_t) and 7 row scalars
        self.assertEqual(p.per_row, 11 * 16384 + 7)
        rows = tp.sum_rows(p, shapes)
        self.assertEqual(rows, tp.pick_rows(8192, (1 << 24) // 16384))  # only dx's rows cost a sample
        self.assertEqual(tp.sums_why(p, len(rows)), f"dx: {len(rows)} of 8192 rows sampled (first, last and "
                                                    f"{len(rows) - 2} hashed); dw: full, accumulated over all 8192 rows")
        small = tp.program_shapes(c, {"T": 512, "N": 8192})  # 2048 rows of dx fit the sample: all of them
        ps = tp.sum_plan(c, small)
        self.assertEqual(tp.sum_rows(ps, small), list(range(2048)))
        self.assertEqual(tp.sums_why(ps, 2048), "dx: full; dw: full, accumulated over all 2048 rows")

    def test_no_bundled_cell_is_unchecked(self):
        """Every cell too large to check in full is checked by rows: sampled, or summed in chunks."""
        for name in tp.case_names():
            c = tp.find_case(name)
            for _, _, point in tp.grid_points(c.axes, c.fixed):
                shapes = tp.program_shapes(c, point)
                if max(tp.numel(s) for s in shapes.values()) <= tp.FULL_LIMIT or tp.row_plan(c, shapes).separable:
                    continue
                with self.subTest(case=name, point=point):
                    p = tp.sum_plan(c, shapes)
                    self.assertTrue(p.ok, p.why)

    def test_what_does_not_sum(self):
        sum0 = {"op": "sum", "in": ["x"], "dim": 0, "keepdim": False, "out": "s"}
        _, p = self.plan([{"op": "amax", "in": ["x"], "dim": 0, "out": "y"}])
        self.assertEqual((p.ok, p.why), (False, "program[0] (amax) reduces over the rows"))
        _, p = self.plan([{"op": "mean", "in": ["x"], "dim": 0, "out": "y"}])
        self.assertEqual(p.why, "program[0] (mean) reduces over the rows")  # a mean is no plain sum
        _, p = self.plan([{"op": "mean", "in": ["x"], "dim": 1, "out": "y"}])
        self.assertEqual((p.ok, p.sizes), (True, (4,)))  # over T: rows on dim 0 alone
        _, p = self.plan([sum0, {"op": "sum", "in": ["s"], "dim": 0, "out": "t"},
                          {"op": "mul", "in": ["t", 2.0], "out": "y"}])
        self.assertEqual(p.why, "program[2] (mul) reads the sum over the rows of program[0] other than by summing it")
        _, p = self.plan([sum0, {"op": "amax", "in": ["s"], "dim": -1, "out": "y"}])
        self.assertEqual(p.why, "program[1] (amax) reads the sum over the rows of program[0] other than by summing it")
        _, p = self.plan([{"op": "dropout", "in": ["x"], "p": 0.5, "out": "d"},
                          {"op": "sum", "in": ["d"], "dim": 0, "out": "y"}])
        self.assertFalse(p.ok)
        self.assertIn("program[0] (dropout) draws its mask by element index", p.why)
        _, p = self.plan([{"op": "sum", "in": ["x"], "dim": 0, "out": "y"}],
                         inputs={"x": {"shape": [1, "T", "N"]}})
        self.assertEqual(p.why, "a single row")

    def test_fewer_row_axes_when_a_sum_keeps_some(self):
        """An output summed over dim 0 only keeps the T axis: split on dim 0 alone (4 rows)."""
        _, p = self.plan([{"op": "sum", "in": ["x"], "dim": 0, "keepdim": False, "out": "y"}])
        self.assertTrue(p.ok, p.why)
        self.assertEqual((p.sizes, p.sum_outputs, p.row_outputs), ((4,), ("y",), ()))
        self.assertEqual(tp.sum_rows(p, {}), [])
        self.assertEqual(tp.sums_why(p, 0), "y: full, accumulated over all 4 rows")
        # a [T, N] operand meets the T axis: T cannot split, dim 0 can
        _, p = self.plan([{"op": "mul", "in": ["x", "b"], "out": "t"},
                          {"op": "sum", "in": ["t"], "dim": 0, "keepdim": False, "out": "y"}],
                         inputs={"x": {"shape": [4, "T", "N"]}, "b": {"shape": ["T", "N"]}})
        self.assertTrue(p.ok, p.why)
        self.assertEqual((p.sizes, p.axes["b"], p.axes["t"]), ((4,), (None, None), (0, None, None)))

    def test_outputs_must_lead_with_the_rows(self):
        _, p = self.plan([{"op": "sum", "in": ["x"], "dim": 1, "keepdim": False, "out": "s"},
                          {"op": "sum", "in": ["s"], "dim": 0, "keepdim": False, "out": "y"},
                          {"op": "exp", "in": ["x"], "out": "e"}], outputs=("e", "y"))
        self.assertTrue(p.ok, p.why)
        self.assertEqual((p.sizes, p.row_outputs, p.sum_outputs), ((4, 8), ("e",), ("y",)))
        self.assertEqual(p.per_row, 16 + 16 + 16)  # x, e, and s ([4, N]: a row of N per (i, t))
        _, p = self.plan([{"op": "sum", "in": ["x"], "dim": -1, "keepdim": False, "out": "s"},
                          {"op": "mul", "in": ["s", "c"], "out": "y"}],
                         inputs={"x": {"shape": [4, "T", "N"]}, "c": {"shape": [4, 1]}})
        self.assertEqual(p.why, "program[1] (mul) mixes row axes")  # c, not of full rank, has no rows: as row_plan

    def test_row_chunks_cover_every_row_once_in_order(self):
        for sizes in [(4, 64), (3, 5, 7), (8,), (1, 6), (5, 1, 3)]:
            for limit in (1, 2, 3, 7, 35, 36, 1000):
                with self.subTest(sizes=sizes, limit=limit):
                    seen = []
                    for r0, n, box in tp.row_chunks(sizes, limit):
                        self.assertEqual(len(box), len(sizes))
                        self.assertLessEqual(n, max(limit, 1))
                        rows = [r for r in range(tp.numel(sizes))  # the rows the box's slices select
                                if all(s.start is None or s.start <= c < s.stop
                                       for s, c in zip(box, self.coords(r, sizes)))]
                        self.assertEqual(rows, list(range(r0, r0 + n)))
                        seen += rows
                    self.assertEqual(seen, list(range(tp.numel(sizes))))

    @staticmethod
    def coords(r, sizes):
        out = []
        for n in reversed(sizes):
            out.append(r % n)
            r //= n
        return out[::-1]

    def test_chunks_of_rmsnorm_backward_stay_small(self):
        c = tp.load_case(RMS_BACK)
        p = tp.sum_plan(c, tp.program_shapes(c, {"T": 2048, "N": 16384}))
        per_chunk = tp.CHUNK_LIMIT // p.per_row
        chunks = list(tp.row_chunks(p.sizes, per_chunk))
        self.assertTrue(all(n * p.per_row <= tp.CHUNK_LIMIT for _, n, _ in chunks))
        self.assertEqual(sum(n for _, n, _ in chunks), 8192)
        self.assertEqual(chunks[0][2], (slice(0, 1), slice(0, per_chunk)))


class TestStats(unittest.TestCase):
    def test_quantiles_and_moments(self):
        st = tp.stats([float(x) for x in range(10, 0, -1)])
        self.assertEqual((st["min"], st["max"], st["n"]), (1.0, 10.0, 10))
        self.assertAlmostEqual(st["p20"], 2.8)
        self.assertAlmostEqual(st["median"], 5.5)
        self.assertAlmostEqual(st["p80"], 8.2)
        self.assertAlmostEqual(st["mean"], 5.5)
        self.assertAlmostEqual(st["stdev"], math.sqrt(sum((x - 5.5) ** 2 for x in range(1, 11)) / 9))
        self.assertEqual(tp.stats([])["n"], 0)
        self.assertEqual(tp.stats([2.0])["stdev"], 0.0)

    def test_median_noise(self):
        self.assertEqual(tp.median_rel_noise([1.0, 2.0]), math.inf)
        xs = sorted([1.0, 1.0, 2.0, 3.0, 3.0])  # median 2, MAD 1
        self.assertAlmostEqual(tp.median_rel_noise(xs), 1.4826 * 1.2533 / math.sqrt(5) / 2)


class TestResultFile(unittest.TestCase):
    def make_doc(self):
        c = tp.load_case(SOFTMAX)
        axes, fixed = tp.plan_axes(c, {"dim0": [128, 65536], "dim1": [128, 256]}, False)
        doc = tp.new_result("torch_peer.py run --case softmax",
                            {"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "sms": 132, "l2_bytes": 52428800,
                             "mem_bytes": 85045379072},
                            {"timer": "events", "warmup_ms": 25.0, "rep_ms": 100.0, "max_noise_pct": 0.5,
                             "max_wall_s": 5.0, "flush_bytes": 104857600, "seed": 1},
                            {"tool": tp.TOOL, "torch": "2.11.0"})
        ce = tp.case_entry(doc, c, axes, list(tp.VARIANTS))
        de = tp.dtype_entry(ce, "float32")
        for row, col, point in tp.grid_points(axes, fixed):
            shapes = tp.program_shapes(c, point)
            costs = tp.program_costs(c, shapes, "float32")
            cell = tp.new_cell(row, col, point, costs, {i.name: shapes[i.name] for i in c.inputs})
            cell["sol"] = tp.sol_entry([0.01, 0.011, 0.012], tp.sol_copy_bytes(costs["ideal_bytes"]))
            for k, v in enumerate(tp.VARIANTS):
                e = {"status": "ok", "check": {"mode": "full", "passed": True, "max_abs": float("nan")}}
                cell["variants"][v] = tp.timed_entry(e, [0.02 * (k + 1), 0.021 * (k + 1)], costs["ideal_bytes"],
                                                     costs["flops"], 0.011)
            de["cells"].append(cell)
        doc["finished"] = tp.iso_now()
        return doc

    def test_shape_matches_fusionbench_golden(self):
        gold = json.loads(GOLDEN.read_text())
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "peer.json")
            tp.write_atomic(self.make_doc(), path)
            self.assertEqual(os.listdir(d), ["peer.json"])  # no temp file left behind
            doc = json.loads(Path(path).read_text())
        self.assertEqual(doc["fusionbench"]["schema"], gold["fusionbench"]["schema"])
        self.assertEqual(doc["fusionbench"]["version"], tp.project_version())
        self.assertLessEqual(set(gold) - {"device"}, set(doc))
        self.assertLessEqual(set(gold["settings"]), set(doc["settings"]))
        gc, pc_ = gold["cases"][0], doc["cases"][0]
        self.assertLessEqual(set(gc), set(pc_))
        self.assertEqual(pc_["variants"], ["torch.eager", "torch.compile"])
        self.assertEqual(pc_["baseline"], "torch.eager")
        self.assertEqual((pc_["rows"], pc_["cols"], pc_["row_values"], pc_["col_values"]),
                         ("dim0", "dim1", [128, 65536], [128, 256]))
        gcell, cell = gc["dtypes"][0]["cells"][0], pc_["dtypes"][0]["cells"][0]
        # row, col, point, ideal_bytes, flops, sol (the golden is older than the cells' shapes)
        self.assertEqual([k for k in cell if k != "shapes"][:6], [k for k in gcell if k != "shapes"][:6])
        self.assertEqual(cell["shapes"], {"x": [128, 128]})  # the input's shape, as fusionbench writes it
        self.assertEqual((cell["ideal_bytes"], cell["flops"]), (gcell["ideal_bytes"], gcell["flops"]))
        self.assertEqual(set(cell["sol"]), set(gcell["sol"]))
        self.assertEqual(set(cell["sol"]["time_ms"]), set(gcell["sol"]["time_ms"]))
        ev = cell["variants"]["torch.eager"]
        self.assertEqual(list(ev)[0], "status")
        self.assertEqual(set(ev["time_ms"]), set(gcell["variants"]["eager"]["time_ms"]))
        self.assertIsNone(ev["check"]["max_abs"])  # NaN is written as null
        self.assertAlmostEqual(ev["sol_pct"], 0.011 / 0.0205 * 100)
        self.assertAlmostEqual(ev["gbps"], cell["ideal_bytes"] / 0.0205e-3 / 1e9)

    def test_resume_bookkeeping(self):
        doc = self.make_doc()
        de = doc["cases"][0]["dtypes"][0]
        cell = tp.find_cell(de, 65536, 256)
        self.assertIsNotNone(cell)
        self.assertIsNone(tp.find_cell(de, 65536, 512))
        self.assertTrue(tp.cell_done(cell, list(tp.VARIANTS)))
        cell["variants"]["torch.compile"]["status"] = "error"
        self.assertFalse(tp.cell_done(cell, list(tp.VARIANTS)))
        self.assertTrue(tp.cell_done(cell, ["torch.eager"]))
        self.assertFalse(tp.cell_done(None, ["torch.eager"]))
        c = tp.load_case(SOFTMAX)
        again = tp.case_entry(doc, c, [("dim0", [128])], ["torch.eager"])
        self.assertIs(again, doc["cases"][0])
        self.assertIs(tp.dtype_entry(again, "float32"), de)

    def test_unwritable_path(self):
        with self.assertRaisesRegex(tp.PeerError, "cannot write the result file"):
            tp.write_atomic({}, "/nonexistent-dir/x.json")


# ---- peer_compare.py -------------------------------------------------------------------------------

class TestClocks(unittest.TestCase):
    """torch_peer's NVML reader: the bus id it asks for, and no clocks (not an error) without NVML."""

    def test_bus_id_from_torch_properties(self):
        class Props:
            pci_domain_id, pci_bus_id, pci_device_id = 0, 0x1b, 0x06
        self.assertEqual(tp.pci_bus_id(Props()), "0000:1b:06.0")
        self.assertIsNone(tp.pci_bus_id(object()))  # a torch without the fields: no clocks

    def test_no_nvml_no_clocks(self):
        self.assertIsNone(tp.Nvml.open("0000:00:06.0", libname="libnvidia-ml-not-here.so.1"))

    def nvml_reading(self, clocks):
        n = tp.Nvml(None, None)
        seq = iter(clocks)

        def read():
            r = {"sm_clock_mhz": next(seq)}
            n.peak = max(n.peak, r["sm_clock_mhz"])
            return r
        n.read = read
        return n

    def test_settle_waits_for_the_clock_as_fusionbench(self):
        # the run's highest clock first, then a measurement after slowing work: waits until the clock
        # is back within 5% (1881 of 1980), polling every 5 ms; what it waited is the cell's
        n = self.nvml_reading([1980, 1440, 1500, 1880, 1881, 1000])
        self.assertLess(n.settle(1000), 1)
        waited = n.settle(1000)
        self.assertGreaterEqual(waited, 3 * 5 * 0.9)
        self.assertLess(waited, 500)
        self.assertAlmostEqual(n.settled_ms, waited, delta=1)

    def test_settle_gives_up_at_its_bound(self):
        n = self.nvml_reading([1980] + [1000] * 1000)
        n.settle(1000)
        self.assertGreaterEqual(n.settle(20), 20)

    def test_settle_bounds_are_checked_before_torch(self):
        for bad in ("-1", "nan", "10001"):
            r = subprocess.run([sys.executable, str(REPO / "scripts" / "torch_peer.py"), "run", "--case", "softmax",
                                "--settle", bad], capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("--settle: expected a number from 0 to 10000", r.stderr)


def result(kind, cells, variants=None):
    """A small result file: cells = {(row, col): (ideal_bytes, {variant: median ms or status})}."""
    variants = variants or (["eager", "t.fused"] if kind == "fb" else ["torch.eager", "torch.compile"])
    doc = {"fusionbench": {"version": "0.1.0", "git": "x", "schema": 1}, "device": {"name": "GPU"},
           "cases": [{"name": "t", "rows": "dim0", "cols": "dim1", "variants": variants, "baseline": variants[0],
                      "dtypes": [{"dtype": "float32", "cells": []}]}]}
    if kind == "peer":
        doc["peer"] = {"tool": "torch_peer.py", "torch": "2.11.0", "triton": "3.6", "compile_mode": "default"}
    for (row, col), (ideal, times) in cells.items():
        cell = {"row": row, "col": col, "point": {"dim0": row, "dim1": col}, "ideal_bytes": ideal, "flops": 1,
                "sol": {"status": "ok", "time_ms": {"median": ideal / 3e9}}, "variants": {}}
        for v, t in times.items():
            cell["variants"][v] = {"status": t} if isinstance(t, str) else {"status": "ok", "time_ms": {"median": t}}
        doc["cases"][0]["dtypes"][0]["cells"].append(cell)
    return doc


BIG = 128 << 20


class TestPeerCompare(unittest.TestCase):
    def run_compare(self, fb, peer, *flags):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, doc in (("fb.json", fb), ("peer.json", peer)):
                paths.append(os.path.join(d, name))
                Path(paths[-1]).write_text(json.dumps(doc))
            md = os.path.join(d, "out.md")
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = pc.main(paths + ["--md", md] + list(flags))
            text = Path(md).read_text() if os.path.exists(md) else ""
        return rc, out.getvalue(), err.getvalue(), text

    def fb_peer(self, fused_big=0.040, eager_big=0.100):
        fb = result("fb", {(128, 128): (1 << 20, {"eager": 0.010, "t.fused": 0.004}),
                           (128, 256): (2 << 20, {"eager": 0.012, "t.fused": 0.005}),
                           (65536, 128): (BIG, {"eager": eager_big, "t.fused": fused_big}),
                           (65536, 256): (2 * BIG, {"eager": "oom", "t.fused": 0.080})})
        peer = result("peer", {(128, 128): (1 << 20, {"torch.eager": 0.011, "torch.compile": 0.005}),
                               (128, 256): (2 << 20, {"torch.eager": 0.013, "torch.compile": 0.006}),
                               (65536, 128): (BIG, {"torch.eager": 0.100, "torch.compile": 0.050}),
                               (65536, 256): (2 * BIG, {"torch.eager": "oom", "torch.compile": 0.090})})
        return fb, peer

    def test_targets_met(self):
        fb, peer = self.fb_peer()
        rc, out, err, md = self.run_compare(fb, peer, "--targets")
        self.assertEqual(rc, 0, out + err)
        gm = (0.005 / 0.004 * 0.006 / 0.005 * 0.050 / 0.040 * 0.090 / 0.080) ** 0.25
        self.assertIn(f"geomean {gm:.3f}x over 4 cells", out)
        self.assertIn("125.0%", out)  # 128 x 128: t_compile / t_fused
        self.assertIn("OOM", out)  # the eager grid marks the cell neither eager ran
        self.assertIn("slower than torch.compile by > 3%: none", out)
        self.assertIn("| t | float32 | " + f"{gm:.3f}x | 0 of 2 | 0 of 1 | met |", md)
        self.assertIn("| **65536** |", md)

    def test_clocks_set_beside_slow_cells_and_counted(self):
        # the same kernel timed at two clocks reads slower by the clocks' ratio (stop 30, matmul_bias):
        # where both files carry each cell's clocks, a slow cell is listed with them and the cells
        # whose clocks differ by > 5% are counted, with the geomean over the rest
        fb, peer = self.fb_peer(fused_big=0.060)

        def clock(doc, key, mhz):
            for c in doc["cases"][0]["dtypes"][0]["cells"]:
                if (c["row"], c["col"]) == key:
                    c["clocks"] = {"before": {"sm_clock_mhz": 1980}, "after": {"sm_clock_mhz": mhz}}
        for key, a, b in (((128, 128), 1980, 1965), ((128, 256), 1980, 1980), ((65536, 128), 1500, 1965),
                          ((65536, 256), 1800, 1980)):
            clock(fb, key, a)
            clock(peer, key, b)
        rc, out, err, md = self.run_compare(fb, peer)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("(+20.0%) [SM clock at the end: fusionbench 1500 MHz, torch 1965 MHz]", out)
        gm_same = (0.005 / 0.004 * 0.006 / 0.005) ** 0.5  # 1965 vs 1980 is within 5%; 1800 vs 1980 is not
        self.assertIn(f"cells whose two sides ended at SM clocks > 5% apart: 2 of 4 with clocks on both sides; "
                      f"geomean over the other 2: {gm_same:.3f}x", out)
        self.assertIn("Cells whose two sides ended at SM clocks > 5% apart: 2 of 4", md)
        self.assertIn("slower by > 3%: FAIL (1 of 2 cells)", out)  # the targets still judge every cell
        rc, out, _, _ = self.run_compare(fb, peer, "--clock-skew", "10")
        self.assertIn("> 10% apart: 1 of 4 with clocks on both sides", out)

    def test_no_clock_line_without_clocks_on_both_sides(self):
        fb, peer = self.fb_peer()
        for c in fb["cases"][0]["dtypes"][0]["cells"]:
            c["clocks"] = {"before": {"sm_clock_mhz": 1980}, "after": {"sm_clock_mhz": 1500}}
        rc, out, err, _ = self.run_compare(fb, peer)
        self.assertEqual(rc, 0, out + err)
        self.assertNotIn("SM clock", out)

    def test_rounds_take_the_geometric_mean_of_each_side(self):
        # side_by_side.py --rounds: a side's files hold a cell more than once; its time is the
        # geometric mean of the rounds' medians, a round that failed is never a time, and the
        # grid says how many rounds each side had
        fb1, peer = self.fb_peer()
        fb2, _ = self.fb_peer(fused_big=0.050)
        for c in fb2["cases"][0]["dtypes"][0]["cells"]:
            if (c["row"], c["col"]) == (128, 256):
                c["variants"]["t.fused"] = {"status": "fail"}
            c["clocks"] = {"after": {"sm_clock_mhz": 1500}}
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, doc in (("fb.json", fb1), ("fb.r2.json", fb2), ("peer.json", peer)):
                paths.append(os.path.join(d, name))
                Path(paths[-1]).write_text(json.dumps(doc))
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = pc.main(paths + ["--md", os.path.join(d, "out.md")])
            md = Path(d, "out.md").read_text()
        out = out.getvalue()
        self.assertEqual(rc, 0, out + err.getvalue())
        self.assertIn("rounds: fusionbench 2, torch 1 a cell; each side's time is the geometric mean", out)
        self.assertIn("Rounds: fusionbench 2, torch 1 a cell", md)
        big = 0.050 / (0.040 * 0.050) ** 0.5
        self.assertIn(f"{100 * big:.1f}%", out)  # 65536 x 128: t_compile / geomean(0.040, 0.050)
        self.assertIn("FAIL", out)  # 128 x 256 failed in round 2: not compared
        gm = (0.005 / 0.004 * big * 0.090 / 0.080) ** (1 / 3)
        self.assertIn(f"geomean {gm:.3f}x over 3 cells", out)
        self.assertNotIn("SM clock", out)  # one round's clock says nothing of the mean
        self.assertNotIn("repeats", err.getvalue())

    def test_xz_compressed_files_read_as_plain(self):
        # results/ keeps its large files as NAME.json.xz: the same comparison from those
        fb, peer = self.fb_peer()
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, doc in (("fb.json.xz", fb), ("peer.json.xz", peer)):
                paths.append(os.path.join(d, name))
                with lzma.open(paths[-1], "wt") as f:
                    f.write(json.dumps(doc))
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = pc.main(paths + ["--targets"])
        self.assertEqual(rc, 0, out.getvalue() + err.getvalue())
        self.assertIn("over 4 cells", out.getvalue())

    def test_a_corrupt_xz_file_is_an_error_not_a_crash(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json.xz")
            Path(bad).write_bytes(b"not xz at all")
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                rc = pc.main([bad, bad])
        self.assertEqual(rc, 3)
        self.assertIn("bad.json.xz: not JSON", err.getvalue())

    def test_different_flushes_warn(self):
        fb, peer = self.fb_peer()
        _, _, err, _ = self.run_compare(fb, peer)
        self.assertNotIn("different L2 flushes", err)  # neither says: both count as write
        peer["settings"] = {"flush": "zero_() of a uint8 buffer before every sample"}  # an older peer file
        fb["settings"] = {"flush": "write"}
        _, _, err, _ = self.run_compare(fb, peer)
        self.assertNotIn("different L2 flushes", err)
        fb["settings"] = {"flush": "clean"}
        _, _, err, _ = self.run_compare(fb, peer)
        self.assertIn("different L2 flushes (fusionbench: clean; peer: write)", err)

    def test_different_timers_warn(self):
        fb, peer = self.fb_peer()
        fb["settings"] = {"timer": "events", "flush": "write"}
        peer["settings"] = {"flush": "write"}  # a file from before --timer: events
        _, _, err, _ = self.run_compare(fb, peer)
        self.assertNotIn("different timers", err)
        peer["settings"] = {"timer": "cupti", "flush": "write"}
        _, _, err, _ = self.run_compare(fb, peer)
        self.assertIn("different timers (fusionbench: events; peer: cupti)", err)

    def test_different_devices_warn(self):
        fb, peer = self.fb_peer()
        _, out, err, _ = self.run_compare(fb, peer)
        self.assertNotIn("different GPUs", err)
        peer["device"] = {"name": "NVIDIA H200"}
        fb["device"] = {"name": "NVIDIA H100 80GB HBM3"}
        rc, out, err, _ = self.run_compare(fb, peer)
        self.assertEqual(rc, 0)
        self.assertIn("different GPUs (fusionbench: NVIDIA H100 80GB HBM3; peer: NVIDIA H200)", err)
        self.assertIn("(torch ran on NVIDIA H200)", out)

    def test_a_slow_big_cell_misses(self):
        fb, peer = self.fb_peer(fused_big=0.052)  # 4% slower than torch.compile's 0.050
        rc, out, err, md = self.run_compare(fb, peer, "--targets")
        self.assertEqual(rc, 1)
        self.assertIn("dim0=65536 dim1=128: t.fused 52.0 us vs torch.compile 50.0 us (+4.0%)", out)
        self.assertIn("targets missed or not measured by 1 of 1", err)
        rc, *_ = self.run_compare(fb, peer)  # without --targets: a report, exit 0
        self.assertEqual(rc, 0)
        rc, *_ = self.run_compare(fb, peer, "--targets", "--max-slower", "5")
        self.assertEqual(rc, 0)

    def test_a_failed_fused_cell_counts_as_slower(self):
        fb, peer = self.fb_peer()
        fb["cases"][0]["dtypes"][0]["cells"][3]["variants"]["t.fused"] = {"status": "fail", "time_ms": {"median": 0.001}}
        rc, out, _, _ = self.run_compare(fb, peer, "--targets")
        self.assertEqual(rc, 1)
        self.assertIn("dim0=65536 dim1=256: t.fused FAIL, torch.compile 90.0 us", out)

    def test_eager_outside_the_band(self):
        fb, peer = self.fb_peer(eager_big=0.120)  # +20% against torch eager's 0.100
        rc, out, _, _ = self.run_compare(fb, peer, "--targets")
        self.assertEqual(rc, 1)
        self.assertIn("dim0=65536 dim1=128: eager 120.0 us vs torch.eager 100.0 us (+20.0%)", out)

    def test_eager_not_run_is_not_measured_never_pass(self):
        """Files with no eager on one side: the faithfulness target reads NOT MEASURED, not
        PASS, and --targets exits 1 for it (stop 29 printed 'PASS (0 of 0 cells outside)')."""
        fb, peer = self.fb_peer()
        for cell in peer["cases"][0]["dtypes"][0]["cells"]:
            del cell["variants"]["torch.eager"]
        rc, out, err, md = self.run_compare(fb, peer, "--targets")
        self.assertEqual(rc, 1)
        self.assertIn("MiB: NOT MEASURED (no cell with eager on both sides)", out)
        self.assertNotIn("0 of 0 cells outside", out)
        self.assertIn("NOT MEASURED: eager within", out)  # the summary line
        self.assertNotIn("MISSED", out)
        self.assertIn("targets missed or not measured by 1 of 1", err)
        self.assertIn("not measured: eager within", md)
        rc, *_ = self.run_compare(fb, peer)  # a report without --targets
        self.assertEqual(rc, 0)

    def test_low_geomean(self):
        fb, peer = self.fb_peer()
        rc, out, _, _ = self.run_compare(fb, peer, "--targets", "--min-geomean", "1.5")
        self.assertEqual(rc, 1)
        self.assertIn("geomean >= 1.50x: FAIL", out)

    def test_bad_inputs(self):
        fb, peer = self.fb_peer()
        rc, _, err, _ = self.run_compare(fb, copy.deepcopy(fb))
        self.assertEqual(rc, 2)
        self.assertIn("no torch peer result file", err)
        rc, _, err, _ = self.run_compare(fb, {"not": "a result"})
        self.assertEqual(rc, 3)
        rc, _, err, _ = self.run_compare(fb, peer, "--dtype", "bfloat16")
        self.assertEqual(rc, 2)
        self.assertIn("no case and dtype in both", err)


class TestPeerCompareFixed(unittest.TestCase):
    """A case with fixed size symbols (matmul's K): cells paired by their fixed values as well as row
    and column, one grid per value, headed with it, a geomean per grid beside the case's."""
    run_compare = TestPeerCompare.run_compare

    @staticmethod
    def files(peer_fixed=True):
        def doc(kind, times):
            variants = ["eager", "t.fused"] if kind == "fb" else ["torch.eager", "torch.compile"]
            d = result(kind, {}, variants)
            case = d["cases"][0]
            case.update({"rows": "M", "cols": "N"})
            if kind == "fb" or peer_fixed:
                case["fixed"] = {"K": [64, 128]}
            for (m, n, k), ts in times.items():
                cell = {"row": m, "col": n, "point": {"M": m, "N": n, "K": k}, "ideal_bytes": 1 << 20, "flops": 1,
                        "variants": {v: {"status": "ok", "time_ms": {"median": t}} for v, t in zip(variants, ts)}}
                case["dtypes"][0]["cells"].append(cell)
            return d
        # the same (M, N) at two K: a pairing that ignored K would mix 0.010 with 0.040
        fb = doc("fb", {(128, 128, 64): (0.010, 0.010), (128, 128, 128): (0.040, 0.040),
                        (256, 128, 64): (0.020, 0.020), (256, 128, 128): (0.080, 0.080)})
        peer = doc("peer", {(128, 128, 128): (0.040, 0.044), (128, 128, 64): (0.010, 0.012),
                            (256, 128, 64): (0.020, 0.024), (256, 128, 128): (0.080, 0.088)})
        return fb, peer

    def test_paired_by_k(self):
        fb, peer = self.files()
        rc, out, err, md = self.run_compare(fb, peer)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("K=64:\nM\\N              128\n128           120.0%\n256           120.0%\n"
                      "K=128:\nM\\N              128\n128           110.0%\n256           110.0%\n", out)
        g = (1.2 * 1.2 * 1.1 * 1.1) ** 0.25
        self.assertIn(f"geomean {g:.3f}x over 4 cells (lowest 1.100x at M=", out)
        self.assertIn(" N=128 K=128, highest 1.200x at M=", out)  # cells are named with their K
        self.assertIn(" N=128 K=64); per grid: K=64 1.200x, K=128 1.100x\n", out)
        self.assertIn("*K=64*\n\n| M \\ N | 128 |", md)
        self.assertIn("\n*K=128*\n\n| M \\ N | 128 |", md)
        self.assertEqual(err, "")

    def test_other_fixed_symbols_pair_nothing(self):
        fb, peer = self.files(peer_fixed=False)  # a peer file from before "fixed": no K in its cells' keys
        rc, out, err, _ = self.run_compare(fb, peer)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("peer_compare: t float32: no cell in both files (fixed symbols: fusionbench K, torch none)", err)
        self.assertIn("no cell measured by both", out)


class TestPeerCompareLibrary(unittest.TestCase):
    """t.fused against the peer file's library peers (torch_peer.py's PEERS: liger, torch.rms_norm)."""
    PEERS = ["torch.eager", "torch.compile", "torch.rms_norm", "liger"]
    run_compare = TestPeerCompare.run_compare

    def files(self, liger="ok"):
        fb = result("fb", {(128, 128): (1 << 20, {"eager": 0.010, "t.fused": 0.004}),
                           (128, 256): (2 << 20, {"eager": 0.012, "t.fused": 0.005}),
                           (65536, 128): (BIG, {"eager": 0.100, "t.fused": 0.040})})
        times = [(0.005, 0.006, 0.004), (0.006, 0.010, 0.006), (0.050, 0.080, 0.040)]
        cells = {}
        for (key, ideal), (tc, tr, tl) in zip([((128, 128), 1 << 20), ((128, 256), 2 << 20), ((65536, 128), BIG)], times):
            cells[key] = (ideal, {"torch.eager": 0.1, "torch.compile": tc, "torch.rms_norm": tr,
                                  "liger": tl if liger == "ok" else "skipped"})
        peer = result("peer", cells, self.PEERS)
        if liger != "ok":
            for c in peer["cases"][0]["dtypes"][0]["cells"]:
                c["variants"]["liger"]["reason"] = liger
        return fb, peer

    def test_geomean_against_each_library_peer(self):
        fb, peer = self.files()
        rc, out, err, md = self.run_compare(fb, peer, "--targets", "--peer-target", "liger=1.0")
        self.assertEqual(rc, 0, out + err)
        g_rms = (0.006 / 0.004 * 0.010 / 0.005 * 0.080 / 0.040) ** (1 / 3)
        g_lig = (0.004 / 0.004 * 0.006 / 0.005 * 0.040 / 0.040) ** (1 / 3)
        self.assertIn("t.fused vs torch.rms_norm (t_torch.rms_norm / t_t.fused; > 100% = fused faster)", out)
        self.assertIn(f"geomean {g_rms:.3f}x over 3 cells (lowest 1.500x at dim0=128 dim1=128", out)
        self.assertIn("t.fused vs liger (t_liger / t_t.fused; > 100% = fused faster)", out)
        self.assertIn(f"geomean {g_lig:.3f}x over 3 cells", out)
        self.assertIn("120.0%", out)  # liger at 128 x 256
        self.assertIn(f"geomean vs liger >= 1.00x: PASS ({g_lig:.3f}x over 3 cells)", out)
        self.assertIn(f"ok  vs torch.rms_norm {g_rms:.3f}x, liger {g_lig:.3f}x", out)  # the summary line
        self.assertIn(f"| met | torch.rms_norm {g_rms:.3f}x, liger {g_lig:.3f}x |", md)
        self.assertIn(f"**t.fused vs liger** (t_liger / t_t.fused) — geomean {g_lig:.3f}x", md)
        rc, out, err, _ = self.run_compare(fb, peer, "--targets", "--peer-target", "liger=1.1")
        self.assertEqual(rc, 1)
        self.assertIn("geomean vs liger >= 1.10x: FAIL", out)

    def test_a_peer_skipped_in_every_cell_is_named_not_compared(self):
        fb, peer = self.files(liger="unsupported: liger takes float32, float16, bfloat16")
        rc, out, err, md = self.run_compare(fb, peer, "--targets", "--peer-target", "liger=1.0")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("t.fused vs liger: not compared, every cell skipped (unsupported: liger takes", out)
        self.assertNotIn("geomean vs liger", out)
        self.assertIn("liger skipped |", md)

    def test_peer_target_errors(self):
        fb, peer = self.files()
        rc, _, err, _ = self.run_compare(fb, peer, "--peer-target", "quack=1.0")
        self.assertEqual(rc, 2)
        self.assertIn("no compared case has a library peer 'quack' in the peer files (have: liger, torch.rms_norm", err)
        for bad in ("liger", "liger=x", "=1.0", "liger=0"):
            rc, _, err, _ = self.run_compare(fb, peer, "--peer-target", bad)
            self.assertEqual(rc, 2, bad)
            self.assertIn("expected NAME=X", err)


# ---- the command line, without torch ----------------------------------------------------------------

class TestCommandLine(unittest.TestCase):
    def run_peer(self, *args):
        env = {k: v for k, v in os.environ.items() if k != "FUSIONBENCH_CASES"}
        return subprocess.run([sys.executable, str(REPO / "scripts" / "torch_peer.py"), *args],
                              capture_output=True, text=True, env=env, timeout=60)

    def test_code(self):
        r = self.run_peer("code", "--case", "softmax")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("v_m = torch.amax(v_x, dim=-1, keepdim=True)", r.stdout)
        self.assertNotIn("library peers", r.stdout)

    def test_code_names_the_library_peers(self):
        r = self.run_peer("code", "--case", "rmsnorm,rmsnorm_backward")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("# library peers of rmsnorm (variants beside torch.eager and torch.compile):\n"
                      "#   torch.rms_norm: y = F.rms_norm(x, (x.shape[-1],), w, eps=1e-06)\n"
                      "#   liger: liger_kernel.ops.rms_norm: y = LigerRMSNormFunction.apply(x, w, eps=1e-06, "
                      "offset=0.0, casting_mode='gemma', in_place=True) [float32, float16, bfloat16 only]\n", r.stdout)
        back = r.stdout[r.stdout.index("# library peers of rmsnorm_backward"):]
        self.assertIn("dx, dw = torch.autograd.grad(y, (x, w), dy, retain_graph=True)", back)
        self.assertIn("g = dy copied in, untimed, before every call", back)
        self.assertEqual(back.count("\n#   "), 2)

    def test_variants_are_checked_before_torch(self):
        r = self.run_peer("run", "--case", "softmax", "--variants", "liger")
        self.assertEqual(r.returncode, 2)
        self.assertIn("softmax has no variant 'liger'", r.stderr)
        r = self.run_peer("run", "--case", "rmsnorm", "--variants", "torch.rms_norn")
        self.assertEqual(r.returncode, 2)
        self.assertIn("did you mean 'torch.rms_norm'", r.stderr)
        r = self.run_peer("run", "--help")
        self.assertIn("torch.rms_norm, liger", r.stdout)

    def test_usage_and_case_errors_before_torch(self):
        r = self.run_peer("run", "--case", "sofmax")
        self.assertEqual((r.returncode, r.stderr.strip()), (3, "torch_peer: unknown case 'sofmax' (did you mean 'softmax'?)"))
        r = self.run_peer("run", "--case", "softmax", "--dim1", "12:x")
        self.assertEqual(r.returncode, 2)
        r = self.run_peer("run", "--case", "softmax", "--all")
        self.assertEqual(r.returncode, 2)
        r = self.run_peer("run", "--case", "softmax", "--rep", "0")
        self.assertEqual(r.returncode, 2)
        r = self.run_peer("run", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--AXIS LIST", r.stdout)

    @unittest.skipIf(HAVE_TORCH, "torch is installed here")
    def test_no_torch_is_77(self):
        r = self.run_peer("run", "--case", "softmax", "--quick")
        self.assertEqual(r.returncode, 77)
        self.assertIn("torch is not installed", r.stderr)


# ---- the torch code on the CPU (only where torch is installed) --------------------------------------

@unittest.skipUnless(HAVE_TORCH, "torch is not installed")
class TestTorchOnCpu(unittest.TestCase):
    def setUp(self):
        import torch as t
        self.t = t
        tp.torch, self.device = t, tp.DEVICE
        tp.DEVICE = "cpu"

    def tearDown(self):
        tp.DEVICE = self.device

    def test_typical_magnitude_leaves_out_zeros(self):
        """check.c's scale of a default tolerance: the median |want| of the finite, nonzero elements
        (a relu output keeps the scale of its positive half); only zeros: 0, no widening."""
        t = self.t
        self.assertEqual(tp.typical_magnitude(t.tensor([0.0, 0, 0, 4, 0, 6, 0, 5], dtype=t.float64)), 5.0)
        self.assertEqual(tp.typical_magnitude(t.zeros(3, dtype=t.float64)), 0.0)

    def conv_loop(self, x, w, stride, padding, dilation, groups):
        """A direct convolution, NHWC in and out, from the definition: out[n, p, q, k] = sum over the
        window and the group's channels of x[n, p·stride − padding + r·dilation, ...] · w[k, r, s, c]."""
        n_, h, wd, c = x.shape
        k_, r_, s_, cg = w.shape
        kg = k_ // groups
        p_ = (h + 2 * padding - dilation * (r_ - 1) - 1) // stride + 1
        q_ = (wd + 2 * padding - dilation * (s_ - 1) - 1) // stride + 1
        xl, wl = x.tolist(), w.tolist()
        out = [[[[0.0] * k_ for _ in range(q_)] for _ in range(p_)] for _ in range(n_)]
        for n in range(n_):
            for p in range(p_):
                for q in range(q_):
                    for k in range(k_):
                        g, acc = k // kg, 0.0
                        for r in range(r_):
                            i = p * stride - padding + r * dilation
                            for s in range(s_):
                                j = q * stride - padding + s * dilation
                                if 0 <= i < h and 0 <= j < wd:
                                    for ci in range(cg):
                                        acc += xl[n][i][j][g * cg + ci] * wl[k][r][s][ci]
                        out[n][p][q][k] = acc
        return self.t.tensor(out, dtype=self.t.float64)

    def test_conv2d_against_a_direct_loop(self):
        """The emitted F.conv2d, NHWC through permuted views and NCHW as is, equals the definition on
        small and odd shapes (stride 2, padding, dilation, groups, 1x1), and the NHWC result is the
        contiguous [N, P, Q, K] tensor (channels_last all the way: no copy)."""
        t = self.t
        g = t.Generator().manual_seed(7)
        for (n, h, wd, c, k, r, s), kw in [((2, 7, 6, 3, 4, 3, 3), {}),
                                           ((1, 9, 8, 4, 6, 3, 2), {"stride": 2, "padding": 1}),
                                           ((2, 7, 7, 4, 4, 3, 3), {"dilation": 2, "padding": 2, "groups": 2}),
                                           ((1, 5, 5, 6, 6, 1, 1), {"groups": 6}),
                                           ((2, 5, 4, 3, 5, 1, 1), {"stride": 2})]:
            attrs = {"stride": 1, "padding": 0, "dilation": 1, "groups": 1, **kw}
            x = t.randn(n, h, wd, c, generator=g, dtype=t.float64)
            w = t.randn(k, r, s, c // attrs["groups"], generator=g, dtype=t.float64)
            want = self.conv_loop(x, w, **attrs)
            for layout in ("NHWC", "NCHW"):
                with self.subTest(shape=(n, h, wd, c, k, r, s), attrs=kw, layout=layout):
                    xs, ws = (x, w) if layout == "NHWC" else (x.permute(0, 3, 1, 2).contiguous(),
                                                              w.permute(0, 3, 1, 2).contiguous())
                    node = tp.Node(0, tp.OPS["conv2d"], ["x", "w"], "y", {"layout": layout, **attrs})
                    case = tp.Case("t", "", "t.json", [tp.Input("x", list(xs.shape), "normal"),
                                                       tp.Input("w", list(ws.shape), "normal")],
                                   [node], ["y"], [], ["float64"], [("d", [1])], {}, dict(tp.DEFAULT_TOL))
                    fn = tp.build_function(tp.generate(case), tp.program_namespace(), "conv")
                    (y,) = fn(xs, ws)
                    self.assertEqual(tuple(y.shape), tp.program_shapes(case, {})["y"])
                    got = y if layout == "NHWC" else y.permute(0, 2, 3, 1)
                    self.assertTrue(t.allclose(got, want, rtol=1e-12, atol=1e-12), (got - want).abs().max())
                    if layout == "NHWC":
                        self.assertTrue(y.is_contiguous())

    def test_batchnorm_against_its_formula(self):
        t = self.t
        g = t.Generator().manual_seed(3)
        x = t.randn(2, 3, 4, 5, generator=g, dtype=t.float64)
        mean, gamma, beta = (t.randn(5, generator=g, dtype=t.float64) for _ in range(3))
        var = t.rand(5, generator=g, dtype=t.float64) + 0.5
        want = (x - mean) / t.sqrt(var + 1e-3) * gamma + beta  # NHWC: channels last
        for layout in ("NHWC", "NCHW"):
            xs = x if layout == "NHWC" else x.permute(0, 3, 1, 2).contiguous()
            node = tp.Node(0, tp.OPS["batchnorm"], ["x", "m", "v", "g", "b"], "y", {"eps": 1e-3, "layout": layout})
            case = tp.Case("t", "", "t.json", [tp.Input(n, list(v.shape), "normal") for n, v in
                                               [("x", xs), ("m", mean), ("v", var), ("g", gamma), ("b", beta)]],
                           [node], ["y"], [], ["float64"], [("d", [1])], {}, dict(tp.DEFAULT_TOL))
            (y,) = tp.build_function(tp.generate(case), tp.program_namespace(), "bn")(xs, mean, var, gamma, beta)
            got = y if layout == "NHWC" else y.permute(0, 2, 3, 1)
            self.assertTrue(t.allclose(got, want, rtol=1e-12, atol=1e-12), layout)

    def test_reference_sampled_on_output_channels(self):
        """A single image: the rows are its output channels (w's dim 0, the output's dim 3), sampled;
        a wrong element on a sampled channel is found at its full index."""
        t = self.t
        c = conv_case({"padding": 1})
        point = {"N": 1, "K": 40, "H": 6, "W": 5, "C": 3}
        shapes = tp.program_shapes(c, point)
        g = t.Generator().manual_seed(2)
        inputs = [t.randn(*shapes[i.name], generator=g) for i in c.inputs]
        whole = tp.Reference(c, shapes, inputs)
        old = tp.FULL_LIMIT, tp.SAMPLE_LIMIT
        tp.FULL_LIMIT, tp.SAMPLE_LIMIT = 10, 8 * tp.row_plan(c, shapes).per_row
        try:
            ref = tp.Reference(c, shapes, inputs)
        finally:
            tp.FULL_LIMIT, tp.SAMPLE_LIMIT = old
        self.assertEqual((ref.mode, ref.n_rows, ref.plan.axis["y"], ref.plan.axis["w"]), ("sampled", 40, 3, 0))
        rows = t.tensor(ref.rows)
        self.assertTrue(t.allclose(ref.want[0], whole.want[0].index_select(3, rows), rtol=1e-12, atol=1e-12))
        outs = [w.float() for w in whole.want]
        self.assertTrue(ref.check(outs, c.tol["float32"])["passed"])
        bad = outs[0].clone()
        k = ref.rows[len(ref.rows) // 2]
        bad[0, 2, 4, k] += 1.0
        res = ref.check([bad], c.tol["float32"])
        self.assertEqual((res["passed"], res["worst_index"]), (False, ((0 * 6 + 2) * 5 + 4) * 40 + k))

    def test_the_reference_runs_without_cudnn(self):
        """The float64 reference evaluates with cuDNN off (PyTorch's own convolution kernels) and
        gives the switch back as it found it, also when the evaluation fails."""
        t = self.t
        seen = []

        class Probe(tp.Reference):
            def evaluate(self, *a):
                seen.append(t.backends.cudnn.enabled)
                if len(seen) == 2:
                    raise RuntimeError("boom")
                return super().evaluate(*a)
        c = conv_case()
        shapes = tp.program_shapes(c, {"N": 2, "K": 4, "H": 9, "W": 9, "C": 8})
        inputs = [t.randn(*shapes[i.name]) for i in c.inputs]
        self.assertTrue(t.backends.cudnn.enabled)
        self.assertEqual(Probe(c, shapes, inputs).mode, "full")
        with self.assertRaisesRegex(RuntimeError, "boom"):
            Probe(c, shapes, inputs)
        self.assertEqual(seen, [False, False])
        self.assertTrue(t.backends.cudnn.enabled)

    def test_reference_sampled_through_matmul_and_conv(self):
        """With the limits shrunk, a matmul cell is checked on sampled rows of A (all of B) and a conv
        cell on sampled images (all of w): the sample equals those rows of the whole evaluation, and a
        wrong element on a sampled row is found at its full index."""
        t = self.t
        mm = tp.parse_case(case_text([{"op": "matmul", "in": ["a", "b"], "transpose_b": True, "out": "c"},
                                      {"op": "add", "in": ["c", "bias"], "out": "y"}],
                                     inputs={"a": {"shape": ["M", "K"]}, "b": {"shape": ["N", "K"]},
                                             "bias": {"shape": ["N"]}},
                                     grid={"M": [64], "N": [12]}, extra={"fixed": {"K": 5}}))
        conv = conv_case({"stride": 2, "padding": 1})
        g = t.Generator().manual_seed(11)
        for case, point in ((mm, {"M": 64, "N": 12, "K": 5}), (conv, {"N": 40, "K": 6, "H": 7, "W": 7, "C": 3})):
            with self.subTest(case=case.nodes[0].op.name):
                shapes = tp.program_shapes(case, point)
                inputs = [t.randn(*shapes[i.name], generator=g) for i in case.inputs]
                whole = tp.Reference(case, shapes, inputs)
                self.assertEqual(whole.mode, "full")
                old = tp.FULL_LIMIT, tp.SAMPLE_LIMIT
                tp.FULL_LIMIT, tp.SAMPLE_LIMIT = 10, 10 * tp.row_plan(case, shapes).per_row
                try:
                    ref = tp.Reference(case, shapes, inputs)
                finally:
                    tp.FULL_LIMIT, tp.SAMPLE_LIMIT = old
                self.assertEqual(ref.mode, "sampled")
                self.assertEqual((ref.rows[0], ref.rows[-1], ref.n_rows), (0, shapes["y"][0] - 1, shapes["y"][0]))
                self.assertLess(len(ref.rows), ref.n_rows)
                self.assertTrue(t.allclose(ref.want[0], whole.want[0][ref.rows], rtol=1e-12, atol=1e-12))
                outs = tp.build_function(tp.generate(case), tp.program_namespace(), "f32")(*inputs)
                res = ref.check(outs, case.tol["float32"])
                self.assertTrue(res["passed"], res)
                self.assertEqual((res["rows_checked"], res["rows_total"]), (len(ref.rows), ref.n_rows))
                bad = outs[0].clone()
                row = ref.rows[len(ref.rows) // 2]
                bad[row].view(-1)[3] += 1.0
                res = ref.check([bad], case.tol["float32"])
                per = tp.numel(shapes["y"]) // shapes["y"][0]
                self.assertEqual((res["passed"], res["bad"], res["worst_index"]), (False, 1, row * per + 3))

    def test_dropout_tensor_matches_python(self):
        t = self.t
        idx = t.tensor([i for _, i, _ in TestDropoutHash.C_VECTORS], dtype=t.int64)
        for seed in {s for s, _, _ in TestDropoutHash.C_VECTORS}:
            got = tp.dropout_bits(idx + tp.dropout_counter_base(seed)).tolist()
            want = [tp.dropout_bits(I64(i) + tp.dropout_counter_base(seed)).v for i in idx.tolist()]
            self.assertEqual(got, want)
        x = t.ones(64, 100, dtype=t.float64)
        y = tp._fb_dropout(x, 0.5, 3)
        flat = y.reshape(-1).tolist()
        base = tp.dropout_counter_base(3)
        for i in (0, 1, 99, 100, 6399):
            kept = tp.dropout_bits(I64(i) + base).v >= tp.dropout_threshold(0.5)
            self.assertEqual(flat[i], 2.0 if kept else 0.0, i)
        rows = t.tensor([0, 7, 63])
        self.assertTrue(t.equal(tp._fb_dropout(x[rows], 0.5, 3, (rows, 64), 0), y[rows]))

    def test_reference_full_and_sampled(self):
        t = self.t
        c = tp.parse_case(case_text([{"op": "add", "in": ["x", "bias"], "out": "t"},
                                     {"op": "dropout", "in": ["t"], "p": 0.5, "seed": 5, "out": "d"},
                                     {"op": "amax", "in": ["d"], "dim": -1, "out": "y"}],
                                    inputs={"x": {"shape": ["dim0", "dim1"]}, "bias": {"shape": ["dim1"]}}))
        shapes = tp.program_shapes(c, {"dim0": 64, "dim1": 32})
        g = t.Generator().manual_seed(1)
        inputs = [t.randn(64, 32, generator=g), t.randn(32, generator=g)]
        hash_fn = tp.build_function(tp.generate(c, "hash"), tp.program_namespace(), "test")
        for full_limit in (1 << 24, 100):
            old = tp.FULL_LIMIT, tp.SAMPLE_LIMIT
            tp.FULL_LIMIT, tp.SAMPLE_LIMIT = full_limit, 200
            try:
                ref = tp.Reference(c, shapes, inputs)
                outs = hash_fn(*inputs)
                res = ref.check(outs, c.tol["float32"])
                self.assertTrue(res["passed"], res)
                self.assertEqual(res["mode"], "full" if full_limit > 100 else "sampled")
                bad = outs[0].clone()
                bad[63, 0] += 1.0
                res = ref.check([bad], c.tol["float32"])
                self.assertFalse(res["passed"])
                self.assertEqual((res["bad"], res["worst_index"]), (1, 63))
                twin = tp.build_function(tp.generate(c, "hash", ref.plan.axis if ref.plan else None),
                                         tp.program_namespace(), "twin")
                self.assertTrue(ref.check(ref.run_hash(twin, inputs), c.tol["float32"], presampled=True)["passed"])
            finally:
                tp.FULL_LIMIT, tp.SAMPLE_LIMIT = old

    def test_reference_summed_over_rows_in_chunks(self):
        """rmsnorm_backward with the limits shrunk: the chunked reference equals the whole one (dw
        summed in a different order: to rounding), passes what the whole program computes, and
        finds a wrong dw element and a wrong dx element on a sampled row at their full indices."""
        t = self.t
        c = tp.find_case("rmsnorm_backward")
        shapes = tp.program_shapes(c, {"T": 8, "N": 61})  # 32 rows of 61
        g = t.Generator().manual_seed(5)
        inputs = [t.randn(*shapes[i.name], generator=g) for i in c.inputs]
        whole = tp.Reference(c, shapes, inputs)
        self.assertEqual(whole.mode, "full")
        old = tp.FULL_LIMIT, tp.SAMPLE_LIMIT, tp.CHUNK_LIMIT
        for sample, chunk, mode in ((10 * 61, 3000, "sampled"), (1 << 24, 100000, "full")):
            tp.FULL_LIMIT, tp.SAMPLE_LIMIT, tp.CHUNK_LIMIT = 1000, sample, chunk
            try:
                ref = tp.Reference(c, shapes, inputs)
            finally:
                tp.FULL_LIMIT, tp.SAMPLE_LIMIT, tp.CHUNK_LIMIT = old
            with self.subTest(mode=mode):
                self.assertEqual((ref.mode, ref.sums.sizes), (mode, (4, 8)))
                rows = ref.rows
                self.assertEqual(len(rows) < 32, mode == "sampled")
                self.assertTrue(t.equal(ref.want[0], whole.want[0].reshape(32, 61)[rows]))  # dx: row by row, the same
                self.assertTrue(t.allclose(ref.want[1], whole.want[1], rtol=1e-12, atol=1e-12))
                outs = [w.float() for w in whole.want]
                res = ref.check(outs, c.tol["float32"])
                self.assertTrue(res["passed"], res)
                self.assertEqual(res["elements"], len(rows) * 61 + 61)
                self.assertEqual(res["why"], tp.sums_why(ref.sums, len(rows)))
                self.assertEqual("rows_checked" in res, mode == "sampled")
                call = tp.find_peer("rmsnorm_backward", "torch.rms_norm").prepare(
                    {i.name: x for i, x in zip(c.inputs, inputs)})
                self.assertTrue(ref.check(call.fn(), c.tol["float32"])["passed"])  # a library peer's dx, dw
                bad = [o.clone() for o in outs]
                bad[1][7] += 1.0
                res = ref.check(bad, c.tol["float32"])
                self.assertEqual((res["passed"], res["bad"], res["worst_output"], res["worst_index"]), (False, 1, 1, 7))
                bad = [o.clone() for o in outs]
                row = rows[len(rows) // 2]
                bad[0][row // 8, row % 8, 5] += 10.0
                res = ref.check(bad, c.tol["float32"])
                self.assertEqual((res["passed"], res["worst_output"], res["worst_index"]), (False, 0, row * 61 + 5))
                res = ref.check([outs[0][:, :4], outs[1]], c.tol["float32"])
                self.assertFalse(res["passed"])
                self.assertIn("output dx has shape [4, 4, 61], want [4, 8, 61]", res["why"])

    def cell(self, name, seed=3):
        t = self.t
        c = tp.find_case(name)
        shapes = tp.program_shapes(c, {"T": 8, "N": 61})
        g = t.Generator().manual_seed(seed)
        named = {i.name: t.randn(*shapes[i.name], generator=g) for i in c.inputs}
        return c, named, tp.Reference(c, shapes, list(named.values()))

    def test_torch_rms_norm_peers_pass_the_reference(self):
        for name in RMSNORM_CASES:
            c, named, ref = self.cell(name)
            call = tp.find_peer(name, "torch.rms_norm").prepare(named)
            self.assertIsNone(call.before)
            for _ in range(2):  # retain_graph: the backward runs again, the same
                res = ref.check(call.fn(), c.tol["float32"])
                self.assertTrue(res["passed"], (name, res))

    def test_an_in_place_backward_gets_its_dy_back_every_call(self):
        """Liger's backward writes dx over the gradient it is handed (in_place=True); the peer hands it
        a copy of dy that `before` restores. A stand-in with that habit, in torch on the CPU."""
        t = self.t

        class InPlace(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                ctx.save_for_backward(x, w)
                return tp._f_rms_norm(x, w)

            @staticmethod
            def backward(ctx, dy):
                x, w = ctx.saved_tensors
                with t.enable_grad():
                    xd, wd = x.detach().requires_grad_(), w.detach().requires_grad_()
                    dx, dw = t.autograd.grad(tp._f_rms_norm(xd, wd), (xd, wd), dy)
                dy.copy_(dx)
                return dy, dw

        saved = tp._liger_rms_norm
        tp._liger_rms_norm = InPlace.apply
        try:
            c, named, ref = self.cell("rmsnorm_backward")
            dy0 = named["dy"].clone()
            call = tp._prepare_liger_backward(named)
            for _ in range(3):
                call.before()
                res = ref.check(call.fn(), c.tol["float32"])
                self.assertTrue(res["passed"], res)
            self.assertTrue(t.equal(named["dy"], dy0))  # the cell's dy, intact for the variants after
        finally:
            tp._liger_rms_norm = saved


if __name__ == "__main__":
    unittest.main(verbosity=1)
