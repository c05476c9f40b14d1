#!/usr/bin/env python3
"""torch_peer.py — PyTorch's numbers for fusionbench's cases, on the same GPU, in fusionbench's result format.

  run    reads case files (cases/NAME.json) and builds each case's program in PyTorch:
           torch.eager    the program op by op, one torch call per primitive op (torch.amax(x, -1,
                          keepdim=True), x - m, torch.exp(t), ...): every intermediate materialised,
                          what a framework user without a compiler runs
           torch.compile  torch.compile of that same function (default mode, or --compile-mode),
                          static shapes, compiled afresh for every cell
           sol            a device-to-device copy of the cell's ideal bytes, exactly what fusionbench
                          times as the cell's speed of light (src/cell.c: cudaMemcpyAsync of
                          ideal_bytes / 2 rounded down to 16, so read + write = ideal bytes)
         and, for the cases that have them (the PEERS table), library peers: a library's own
         kernel for the case's math (rmsnorm, rmsnorm_backward: torch.rms_norm, liger; below)
         checks each variant against a float64 torch evaluation of the same program on the same
         inputs, times each the way fusionbench does, and writes a fusionbench result file
         (schema of src/result.h) whose cells line up with fusionbench's grid cell by cell;
         scripts/peer_compare.py puts the two side by side.
  code   prints the PyTorch function generated for a case and what its library peers run
         (no torch needed)
  copy   device-to-device copy bandwidth of N bytes (read + write counted), the figure
         `fusionbench env` must agree with

Timing (the procedure of src/bench.c, events mode; --timer cupti below): per measurement one untimed run; an estimate
from 1 sample (5 if short); warm-up of --warmup ms without the flush; then samples in batches.
A sample is: flush a buffer of max(2 x L2, 256 MiB) as bench.c's --flush write does (a read of it
with an L2 evict_last policy and every line demoted, which also evicts lines a kernel marked
evict_last, then zero_() of it: every sample starts with a cold, dirty L2; --flush clean stops
after the sweep, as fusionbench's default: a cold L2 with no dirty lines), record the start
event, run, record the end event; the flush
is never inside a sample. While a batch is queued the stream is held by a spin kernel (torch.cuda._sleep,
sized from the measured host enqueue time) so a chain of small kernels is timed as the GPU runs it,
not as fast as Python launches it (bench.c's blocking kernel). Stop after --rep ms worth of
samples (10..2000), or earlier once the median's relative noise (1.4826 MAD x 1.2533 / sqrt n)
is under --max-noise percent with n >= 20, or after --max-time seconds. Statistics as
src/stats.c: min, p20, median, p80, max (numpy's linear quantiles), mean, stdev (n-1), n; the
median is the headline.
--timer cupti (fusionbench run --timer cupti's twin): the same procedure, but a sample is the sum of
the GPU durations of the kernels, memcpys and memsets it ran, from the profiler's activity records
(torch.profiler, CUPTI underneath), not an event pair: no event cost and no launch latency in it.
Each sample is bracketed by two one-cycle spin kernels (torch.cuda._sleep(1)), enqueued after the
flush and after the run; on the one stream the activities strictly between a pair are the
sample's (cupti_sample_sums). fusionbench ties records to samples by correlation id instead; both
count the same activities where a sample's work is on its stream, as every peer's here is. Why it
exists: at 4-6 us cells under the write flush an events median moves by up to 25% from one
measurement of a kernel to the next while its CUPTI durations stay within 2% (kernels/NOTES.md,
"Stop 36"), so small cells beside a peer compare best on durations.

torch.compile: dynamic=False and fullgraph=True, torch._dynamo.reset() before every cell, so each
cell gets kernels specialised to its shape (as the seed study ran it) and the recompile limit is
never hit (hitting it would silently fall back to eager). The first call (compile + run) is
timed and written as compile_s; it is never a sample.

Library peers (PEERS, keyed by case name; `code --case NAME` prints what each runs; checked against
the same float64 reference as the others, every output):
  rmsnorm           torch.rms_norm  F.rms_norm(x, (N,), w, eps=1e-6): on CUDA torch's fused kernel
                                    (aten _fused_rms_norm), which also writes rstd per row
                    liger           Liger-Kernel's LigerRMSNormFunction (liger_kernel.ops.rms_norm, its
                                    Triton kernel), offset 0 and casting_mode "gemma": float32 compute,
                                    one rounding to the dtype at the store, the case's own math (its
                                    default "llama" rounds x * rstd to a half type before the multiply
                                    by w); also writes rstd per row
  rmsnorm_backward  torch.rms_norm, liger: the backward of the same forward, as a user's
                    loss.backward() runs it. x and w are leaves that require grad, the forward runs once
                    outside the timed region, and what is timed is
                    torch.autograd.grad(y, (x, w), dy, retain_graph=True) -> (dx, dw): the library's
                    backward kernels and nothing else. That is the fair peer: no one calls a
                    library's backward on its own, and a backward that recomputed what its forward
                    saved would be a different kernel from the one users run. Its saved state
                    differs from the case's: the case (and fusionbench's kernels) read x, w, dy and
                    recompute rstd from x; both peers read x, w, dy and the float32 rstd their
                    forward saved (4 bytes a row more; the row's sum of squares not recomputed), and
                    reduce dw over the rows each its own way (Liger: a float32 row of N partial sums
                    per SM, added up by a torch kernel after). Liger's backward writes dx over the
                    gradient it is given (in_place=True, its default), so it is handed its own copy
                    of dy, restored before every call outside the sample and ahead of the flush.
Liger needs liger_kernel importable (README, Against PyTorch); where it is not, its variants are
skipped with one message and the run goes on. It takes float32, float16 and bfloat16: a float64
cell reads `skipped`, `unsupported: ...`. torch.rms_norm takes all four.

Dropout: the case's `dropout` op (attributes p, seed, training) is fusionbench's counter-based
mask (src/fb_random.h). torch.eager and torch.compile are TIMED with what a PyTorch user writes,
F.dropout(x, p, training=True) — torch's own Philox generator, one fused kernel in eager (which
also writes a byte mask) and RNG inlined into the Triton kernel under torch.compile. Timing the
hash instead would charge torch for ~15 int64 tensor ops per element that no PyTorch program
runs, so the Philox form is the fair peer. Its mask differs from fusionbench's, so those cells
cannot be compared element by element: their check reads `unchecked: torch RNG mask`, and beside
it the same program with fusionbench's mask (the splitmix64 hash in int64 tensor arithmetic) is
run op by op in the cell's dtype and checked against the float64 reference ("hash_twin"), so the
translation of the rest of the program is still verified; a twin that fails fails the cell.
--dropout hash times the hash form instead (then the cells are checked like any other).

Checks: inputs are seeded (any generator: the peer need not reproduce fusionbench's exact inputs);
the reference is the same program in float64 (the hash mask for dropout) on those inputs as
stored, so every variant is judged on exactly the numbers it read. Cells whose largest value has
at most 2^24 elements are checked in full; larger cells of a program that is separable along the
rows on a sample of rows (first, last, and rows picked by src/check.c's hash, about 2^24 elements
in all). The rows are traced through every op as src/rowplan.c does (row_plan: broadcasting
unites axes, a reduction, a matmul's K and a convolution's window and channels combine along
theirs): the first axis, of the outputs' dims then the inputs', that no op combines along (axis 0
of the first output, as a rule). So a matmul is checked on rows of A against all of B, a conv2d
on images against all of w (a single image: on output channels). Where the rows are only
combined by plain sums (src/rowplan.c's rule: a `sum` over row axes whose result reaches the
outputs only through further sums; rmsnorm_backward's dw, summed over dims 0 and 1), the rows
are the leading dims but the last ([4, T] there) and every row is evaluated in float64, in
chunks of rows (about 2^24 elements of all values a chunk at a time), the chunks' parts of the
summed outputs added in chunk order: those outputs are compared in full, the others (dx) on
sampled rows, or in full where the sample covers every row; the check's why says which, as
fusionbench's does ("dx: 962 of 8192 rows sampled (...); dw: full, accumulated over all 8192
rows"). Otherwise unchecked with the reason. A cell passes when |got - want| <= atol + rtol |want|
everywhere checked (the case's tolerances, fusionbench's defaults where the file is silent); NaN
never passes.

Matmul and convolution: matmul is torch.matmul (.mT for a transpose), conv2d is F.conv2d (NHWC
through permuted channels_last views, no copy; NCHW as is), batchnorm is F.batch_norm(training=
False). float32 is IEEE float32 (cuBLAS and cuDNN TF32 off, both set: torch's own default lets
cuDNN use TF32) unless --tf32, which allows both and is recorded as settings.tf32.

Grids: a case's "fixed" size symbols (matmul's K) give one grid per combination of their values,
the first symbol slowest, as fusionbench runs them; --K 64,128 overrides one. The result file
holds them as fusionbench's does ("fixed" beside row_values, each symbol in every cell's point).

Memory: inputs are allocated once per cell; each variant's outputs and intermediates are
torch's; an out-of-memory in a variant marks it `oom` and the run goes on. The result file is
rewritten atomically (temp file, fsync, rename) after every cell, so a killed run loses at most
the cell in flight; --resume FILE continues one (cells already complete are skipped); --budget S
stops cleanly before a cell that would start after S seconds.

Clocks: each cell records the GPU's SM and memory clocks, temperature and power before its
first measurement and after its last ("clocks": {"before", "after"}, as fusionbench's clocks.c
writes them), read through NVML (libnvidia-ml, the driver's) when it loads; absent otherwise.
peer_compare.py sets a cell's ratio beside the two sides' clocks: on compute-bound cells a GPU
that throttled during one side's samples and not the other's changes the ratio by as much as
the clocks differ (results/h100/stop30: matmul_bias, the same cuBLASLt kernel on both sides).
Before each measurement the peer waits, as `fusionbench run --settle` does, up to --settle ms
(default 1000) while the SM clock is more than 5% below the highest the run has read; a cell
that waited records it ("clocks": {"settle_ms"}).

Exit codes (fusionbench's): 0 ok, 1 a check failed, 2 usage, 3 bad case file, 4 CUDA/runtime/
I/O error, 77 no usable GPU or no torch.

Examples:
  python3 scripts/torch_peer.py run --case softmax --out results/h100/peer-softmax.json
  python3 scripts/torch_peer.py run --all --dtype float32 --quick --out /tmp/peer.json
  python3 scripts/torch_peer.py run --case softmax --dim0 65536 --dim1 61,130,1027 --out odd.json
  python3 scripts/torch_peer.py run --case tests/cases/matmul_bias.json --K 64,4096 --dtype bfloat16 --out peer-mm.json
  python3 scripts/torch_peer.py code --case softmax
  python3 scripts/torch_peer.py copy --bytes 2147483648
"""
import argparse
import bisect
import datetime
import difflib
import gc
import itertools
import json
import linecache
import math
import os
import re
import socket
import subprocess
import sys
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOL = "torch_peer.py"
SCHEMA = 1  # src/result.h FB_RESULT_SCHEMA

EXIT_OK, EXIT_CHECK, EXIT_USAGE, EXIT_CASE, EXIT_RUNTIME, EXIT_NO_GPU = 0, 1, 2, 3, 4, 77

VARIANTS = ("torch.eager", "torch.compile")

torch = None  # imported by load_torch(): everything above the torch section runs without it
DEVICE = "cuda"  # where tensors live (the CPU smoke test in tests/test_peer.py sets "cpu")


class PeerError(Exception):
    code = EXIT_RUNTIME


class UsageError(PeerError):
    code = EXIT_USAGE


class CaseError(PeerError):
    code = EXIT_CASE


class NoGpuError(PeerError):
    code = EXIT_NO_GPU


def suggest(word, candidates, prefix=""):
    """' (did you mean 'X'?)' for a near miss, else ''."""
    near = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean '{prefix}{near[0]}'?)" if near else ""


def describe(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return f"the string '{v}'"
    return "an array" if isinstance(v, list) else "an object"


def typical_magnitude(want):
    """median |want| over at most 65536 evenly spaced finite, nonzero elements: src/check.c's
    fb_typical_magnitude, the scale a default tolerance widens with (exact zeros, a relu's,
    say nothing of the rounding in the rest)."""
    flat = want.reshape(-1)
    step = max(1, -(-flat.numel() // 65536))  # ceil, as check.c
    v = flat[::step].abs()
    v = v[torch.isfinite(v) & (v != 0)]
    return float(v.median()) if v.numel() else 0.0


# ---- dtypes, tolerances, inits -------------------------------------------------------------

DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}
DTYPE_ALIASES = {"float32": "float32", "f32": "float32", "fp32": "float32",
                 "float16": "float16", "f16": "float16", "fp16": "float16", "half": "float16",
                 "bfloat16": "bfloat16", "bf16": "bfloat16",
                 "float64": "float64", "f64": "float64", "fp64": "float64", "double": "float64"}
# src/case.c's defaults when a case file is silent: (atol, rtol)
DEFAULT_TOL = {"float32": (1e-6, 1e-5), "float16": (1e-3, 1e-2), "bfloat16": (1e-2, 5e-2),
               "float64": (1e-12, 1e-10)}


def canonical_dtype(name):
    d = DTYPE_ALIASES.get(name) if isinstance(name, str) else None
    if d is None:
        raise ValueError(f"unknown dtype {describe(name)}{suggest(str(name), DTYPE_ALIASES)}")
    return d


@dataclass(frozen=True)
class Init:
    about: str
    build: object  # build(torch, shape, dtype, generator) -> a CUDA tensor


def _init_normal(t, shape, dtype, gen):
    return t.randn(shape, dtype=dtype, device=DEVICE, generator=gen)


def _init_uniform(t, shape, dtype, gen):
    return t.rand(shape, dtype=dtype, device=DEVICE, generator=gen).mul_(2).sub_(1)


def _init_positive(t, shape, dtype, gen):
    return t.rand(shape, dtype=dtype, device=DEVICE, generator=gen).add_(0.5)


def _init_row_simplex(t, shape, dtype, gen):
    return t.rand(shape, dtype=dtype, device=DEVICE, generator=gen).add_(0.5).div_(shape[-1])


# One table: the names a case file may use and how the peer draws them (any seeded generator
# will do: the peer is checked against its own float64 evaluation, not fusionbench's inputs).
INITS = {
    "normal": Init("N(0, 1)", _init_normal),
    "uniform": Init("U(-1, 1)", _init_uniform),
    "positive": Init("U(0.5, 1.5): safe for log, sqrt, div", _init_positive),
    "row_simplex": Init("U(0.5, 1.5) / last dim: rows summing to about 1, like a softmax output",
                        _init_row_simplex),
}


# ---- the op table ---------------------------------------------------------------------------
# One entry per op: its kind (arity, whether literals may be operands, its attributes, shape
# rule, FLOP rule) and how it is written in torch (a template over the operands and the
# attributes, or a function of them). Adding an op is one line here; a new kind is one OpKind.

@dataclass(frozen=True)
class Attr:
    required: bool
    default: object
    parse: object  # value -> value, raises ValueError with the reason


def _attr_int(v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"expected an integer, got {describe(v)}")
    return v


def _attr_bool(v):
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {describe(v)}")
    return v


def _attr_prob(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 <= v < 1):
        raise ValueError(f"expected a probability 0 <= p < 1, got {describe(v)}")
    return float(v)


def _attr_seed(v):
    if isinstance(v, bool) or not isinstance(v, int) or not (0 <= v < 1 << 64):
        raise ValueError(f"expected an integer seed 0 <= seed < 2^64, got {describe(v)}")
    return v


def _attr_layout(v):
    if v not in LAYOUTS:
        hint = suggest(v, LAYOUTS) if isinstance(v, str) else ""
        raise ValueError(f"expected \"NHWC\" or \"NCHW\", got {describe(v)}{hint}")
    return v


CONV_ATTR_MAX = 1 << 20  # op_conv2d.c's bound on stride, padding and dilation (groups: INT_MAX)


def _attr_size(key, lo, meaning, hi=CONV_ATTR_MAX):
    """A conv2d size attribute, as op_conv2d.c's read_size words its refusals."""
    def parse(v):
        v = _attr_int(v)
        if v < lo:
            raise ValueError(f"{key} {v} is less than {lo} ({meaning})")
        if v > hi:
            raise ValueError(f"{key} {v} is too large (at most {hi})")
        return v
    return parse


def _attr_eps(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"expected a number, got {describe(v)}")
    if not (v >= 0 and math.isfinite(v)):
        raise ValueError(f"eps {v:g} is not a finite number >= 0 (it keeps rsqrt(var + eps) finite)")
    return float(v)


LAYOUTS = ("NHWC", "NCHW")
MAX_GRID = 64   # values per grid axis or fixed symbol (src/program.h FB_MAX_GRID)
MAX_GRIDS = 64  # grids per case: combinations of the fixed symbols' values (FB_MAX_GRIDS)


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def broadcast(a, b):
    """numpy broadcasting of two shapes (right-aligned); ValueError when they do not."""
    r = max(len(a), len(b))
    a1, b1 = (1,) * (r - len(a)) + tuple(a), (1,) * (r - len(b)) + tuple(b)
    out = []
    for x, y in zip(a1, b1):
        if x != y and x != 1 and y != 1:
            raise ValueError(f"shapes {list(a)} and {list(b)} do not broadcast")
        out.append(y if x == 1 else x)
    return tuple(out)


def norm_dim(dim, rank):
    d = dim + rank if dim < 0 else dim
    if not 0 <= d < rank:
        raise ValueError(f"dim {dim} is out of range for rank {rank}")
    return d


def _shape_same(ins, attrs):
    return ins[0]


def _shape_broadcast(ins, attrs):
    return broadcast(ins[0], ins[1])


def _shape_reduce(ins, attrs):
    x = ins[0]
    d = norm_dim(attrs["dim"], len(x))
    if attrs["keepdim"]:
        return x[:d] + (1,) + x[d + 1:]
    return x[:d] + x[d + 1:]


def _shape_matmul(ins, attrs):
    """op_matmul.c's rule: A [..., M, K] @ B [..., K, N]; B has A's leading dims or is rank 2."""
    a, b = ins
    for k, s in enumerate(ins):
        if len(s) < 2:
            raise ValueError(f"matmul needs operands of rank 2 or more, operand {k} is {list(s)}")
    m, ka = (a[-1], a[-2]) if attrs["transpose_a"] else (a[-2], a[-1])
    kb, n = (b[-1], b[-2]) if attrs["transpose_b"] else (b[-2], b[-1])
    if ka != kb:
        raise ValueError(f"K differs: operand 0 {list(a)} has K = {ka}, operand 1 {list(b)} has K = {kb}")
    if len(b) != 2 and b[:-2] != a[:-2]:
        raise ValueError(f"batch dims differ: operand 0 {list(a)}, operand 1 {list(b)}")
    return a[:-2] + (m, n)


def _flops_matmul(ins, out):
    # 2·batch·M·N·K; K from B, whose numel is (its batch)·K·N whichever way it is stored
    k = numel(ins[1]) // (numel(ins[1][:-2]) * out[-1]) if out[-1] else 0
    return 2 * numel(out) * k


def conv_out(size, kernel, stride, padding, dilation):
    """Output length of a convolution along one spatial dim (PyTorch's, cuDNN's formula)."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def conv_dims(ins, attrs):
    """A conv2d's sizes at concrete shapes: (N, C, H, W, K, Cg, R, S, P, Q); ValueError with the
    reason when the operands do not fit. NHWC: x [N, H, W, C], w [K, R, S, C/groups]; NCHW:
    x [N, C, H, W], w [K, C/groups, R, S]."""
    x, w = ins
    nhwc = attrs["layout"] == "NHWC"
    for k, s in enumerate(ins):
        if len(s) != 4:
            what = "NHWC: x [N, H, W, C], w [K, R, S, C/groups]" if nhwc else "NCHW: x [N, C, H, W], w [K, C/groups, R, S]"
            raise ValueError(f"conv2d needs operands of rank 4 ({what}), operand {k} is {list(s)}")
    n, h, wd, c = (x[0], x[1], x[2], x[3]) if nhwc else (x[0], x[2], x[3], x[1])
    k, r, s_, cg = (w[0], w[1], w[2], w[3]) if nhwc else (w[0], w[2], w[3], w[1])
    g = attrs["groups"]
    if c % g:
        raise ValueError(f"groups {g} does not divide the {c} input channels of operand 0 {list(x)}")
    if k % g:
        raise ValueError(f"groups {g} does not divide the {k} output channels of operand 1 {list(w)}")
    if cg != c // g:
        raise ValueError(f"operand 1 {list(w)} has {cg} channels per group (dim {3 if nhwc else 1}), operand 0 "
                         f"{list(x)} has {c} / groups {g} = {c // g}")
    p = conv_out(h, r, attrs["stride"], attrs["padding"], attrs["dilation"])
    q = conv_out(wd, s_, attrs["stride"], attrs["padding"], attrs["dilation"])
    if p < 1 or q < 1:
        raise ValueError(f"the {r}x{s_} filter (dilation {attrs['dilation']}) does not fit the {h}x{wd} input "
                         f"with padding {attrs['padding']}: the output would be empty")
    return n, c, h, wd, k, cg, r, s_, p, q


def _shape_conv2d(ins, attrs):
    n, _, _, _, k, _, _, _, p, q = conv_dims(ins, attrs)
    return (n, p, q, k) if attrs["layout"] == "NHWC" else (n, k, p, q)


def _flops_conv2d(ins, out):
    # 2·N·P·Q·K·(C/groups)·R·S: a multiply and an add per term; the weight holds K·(C/groups)·R·S
    # in either layout, so each of the N·P·Q·K output elements has numel(w) / K terms
    w = ins[1]
    return 2 * numel(out) * (numel(w) // w[0])


def bn_channel_axis(rank, layout):
    return rank - 1 if layout == "NHWC" else 1


def _shape_batchnorm(ins, attrs):
    x = ins[0]
    if len(x) < 2:
        raise ValueError(f"batchnorm needs x of rank 2 or more, operand 0 is {list(x)}")
    c = x[bn_channel_axis(len(x), attrs["layout"])]
    for k, name in enumerate(("mean", "var", "gamma", "beta"), 1):
        if tuple(ins[k]) != (c,):
            raise ValueError(f"operand {k} ({name}) is {list(ins[k])}, expected [{c}]: one value per channel "
                             f"of operand 0 {list(x)} ({attrs['layout']}: channels on dim "
                             f"{bn_channel_axis(len(x), attrs['layout'])})")
    return tuple(x)


BATCHNORM_FLOPS_PER_ELEMENT = 2  # y = x·scale + shift, scale and shift per channel from mean, var, gamma, beta


def _flops_batchnorm(ins, out):
    return BATCHNORM_FLOPS_PER_ELEMENT * numel(out)


# ---- row rules: which operand axes an op's output axes are, and which it combines along --------
# src/rowplan.c's axis tracing in the peer's terms. Every axis of every input gets an id (a size-1
# axis none: it broadcasts and is never split); each op's row rule says which of its operands'
# axes its output's axes are (broadcasting unites two ids into one axis, union-find) and which
# axes it combines values along (a reduction's dim, a matmul's K, a convolution's window and
# channels). An axis nobody combines along can be split: an output element at index i along it
# depends only on index i (or on values that lack the axis, read whole) of everything upstream.

class AxisTracer:
    def __init__(self):
        self.parent, self.size, self.combiner = [], [], []

    def fresh(self, size):
        """A new axis of `size`; None for size 1 (it broadcasts: never split)."""
        if size == 1:
            return None
        self.parent.append(len(self.parent))
        self.size.append(size)
        self.combiner.append(None)
        return len(self.parent) - 1

    def find(self, i):
        while i is not None and self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def same(self, a, b):
        """One axis of a and b (either may be None: the other is the axis)."""
        a, b = self.find(a), self.find(b)
        if a is None or b is None or a == b:
            return b if a is None else a
        self.parent[b] = a
        ca, cb = self.combiner[a], self.combiner[b]
        self.combiner[a] = cb if ca is None else ca if cb is None else min(ca, cb)
        return a

    def combine(self, i, node):
        """Node `node` combines values along axis i (the first such node is the one named)."""
        r = self.find(i)
        if r is not None and (self.combiner[r] is None or node < self.combiner[r]):
            self.combiner[r] = node


def _rows_same(t, nd, ins, shapes, out):
    return ins[0]


def _rows_broadcast(t, nd, ins, shapes, out):
    r = len(out)
    ids = []
    for j in range(r):  # right-aligned: an operand's dim q lines up with output dim j
        u = None
        for a, s in zip(ins, shapes):
            q = j - (r - len(s))
            if q >= 0:
                u = t.same(u, a[q])
        ids.append(u)
    return tuple(ids)


def _rows_reduce(t, nd, ins, shapes, out):
    a = ins[0]
    d = norm_dim(nd.attrs["dim"], len(a))
    t.combine(a[d], nd.index)
    return a[:d] + ((None,) if nd.attrs["keepdim"] else ()) + a[d + 1:]


def _rows_matmul(t, nd, ins, shapes, out):
    """C's batch dims are A's (and B's, when B has them), its M is A's M, its N is B's N; the
    sum runs along K (A's and B's K, one axis): a row of C is a row of A times all of B."""
    a, b = ins
    ta, tb = nd.attrs["transpose_a"], nd.attrs["transpose_b"]
    m, ka = (a[-1], a[-2]) if ta else (a[-2], a[-1])
    kb, n = (b[-1], b[-2]) if tb else (b[-2], b[-1])
    t.combine(t.same(ka, kb), nd.index)
    batch = tuple(t.same(a[j], b[j]) if len(b) == len(a) else a[j] for j in range(len(a) - 2))
    return batch + (m, n)


def _rows_conv2d(t, nd, ins, shapes, out):
    """An output image is its input image (N) convolved with all of w: N splits; the input's
    spatial dims and channels and w's window and channels are combined (a pixel reads a window of
    every channel of its group), and so are the output's spatial dims (a window each)."""
    x, w = ins
    nhwc = nd.attrs["layout"] == "NHWC"
    for i in (x[1:] + w[1:]):
        t.combine(i, nd.index)
    p, q = (t.fresh(out[1]), t.fresh(out[2])) if nhwc else (t.fresh(out[2]), t.fresh(out[3]))
    t.combine(p, nd.index)
    t.combine(q, nd.index)
    k = w[0]
    if nd.attrs["groups"] > 1:
        t.combine(k, nd.index)  # an output channel reads its group's input channels
    return (x[0], p, q, k) if nhwc else (x[0], k, p, q)


def _rows_batchnorm(t, nd, ins, shapes, out):
    """Elementwise with the per-channel parameters lined up on the channel dim."""
    x = ins[0]
    ch = bn_channel_axis(len(x), nd.attrs["layout"])
    u = x[ch]
    for prm in ins[1:]:
        u = t.same(u, prm[0])
    return x[:ch] + (u,) + x[ch + 1:]


@dataclass(frozen=True)
class OpKind:
    name: str
    arity: int
    literals: bool  # may an operand be a number
    attrs: dict     # name -> Attr
    shape: object   # (operand shapes, attrs) -> output shape; literals have shape ()
    flops: object   # (operand shapes, output shape) -> FLOPs (src/program.c's convention)
    rows: object    # (AxisTracer, node, operand axis ids, operand shapes, output shape) -> output axis ids
    combines: str = ""  # what the row plan says of a node of this kind that combines along the rows
    plain: bool = True  # elementwise with numpy broadcasting, or a reduction over one dim: what sum_plan traces


UNARY = OpKind("unary", 1, False, {}, _shape_same, lambda ins, out: numel(out), _rows_same)
BINARY = OpKind("binary", 2, True, {}, _shape_broadcast, lambda ins, out: numel(out), _rows_broadcast)
REDUCE = OpKind("reduce", 1, False,
                {"dim": Attr(True, None, _attr_int), "keepdim": Attr(False, True, _attr_bool)},
                _shape_reduce, lambda ins, out: numel(ins[0]), _rows_reduce, "reduces over the rows")
RANDOM = OpKind("random", 1, False,
                {"p": Attr(True, None, _attr_prob), "seed": Attr(False, 0, _attr_seed),
                 "training": Attr(False, True, _attr_bool)},
                _shape_same, lambda ins, out: numel(out), _rows_same)
MATMUL = OpKind("matmul", 2, False,
                {"transpose_a": Attr(False, False, _attr_bool), "transpose_b": Attr(False, False, _attr_bool)},
                _shape_matmul, _flops_matmul, _rows_matmul, "sums along the rows (they are its K)", False)
CONV2D = OpKind("conv2d", 2, False,
                {"layout": Attr(False, "NHWC", _attr_layout),
                 "stride": Attr(False, 1, _attr_size("stride", 1, "the step between windows")),
                 "padding": Attr(False, 0, _attr_size("padding", 0, "zeros added on each side")),
                 "dilation": Attr(False, 1, _attr_size("dilation", 1, "the step between a window's taps")),
                 "groups": Attr(False, 1, _attr_size("groups", 1, "the channels split into groups", (1 << 31) - 1))},
                _shape_conv2d, _flops_conv2d, _rows_conv2d,
                "combines along the rows (a window, the channels, or the channels of a group)", False)
BATCHNORM = OpKind("batchnorm", 5, False,
                   {"eps": Attr(False, 1e-5, _attr_eps), "layout": Attr(False, "NHWC", _attr_layout)},
                   _shape_batchnorm, _flops_batchnorm, _rows_batchnorm, "", False)


@dataclass(frozen=True)
class Op:
    name: str
    kind: OpKind
    torch: object  # a format string over {0}, {1} (operands) and {attr}, or fn(args, attrs, ctx)
    plain_sum: bool = False  # adds its elements and nothing else: over rows in chunks, the sum of the chunks' sums


def _emit_max(args, attrs, ctx):
    return _emit_extremum("maximum", "clamp_min", args, ctx)


def _emit_min(args, attrs, ctx):
    return _emit_extremum("minimum", "clamp_max", args, ctx)


def _emit_extremum(both, clamp, args, ctx):
    # torch.maximum takes two tensors; against a number a user writes clamp_min / clamp_max
    a, b = args
    if ctx.literal[0]:
        return f"torch.{clamp}({b}, {a})"
    if ctx.literal[1]:
        return f"torch.{clamp}({a}, {b})"
    return f"torch.{both}({a}, {b})"


def _emit_matmul(args, attrs, ctx):
    a = f"{args[0]}.mT" if attrs["transpose_a"] else args[0]
    b = f"{args[1]}.mT" if attrs["transpose_b"] else args[1]
    return f"torch.matmul({a}, {b})"


def _emit_conv2d(args, attrs, ctx):
    """F.conv2d takes NCHW-shaped tensors. NHWC is what channels_last torch holds: x.permute(0, 3, 1, 2)
    of a contiguous [N, H, W, C] tensor is an [N, C, H, W] view with channels_last strides (and w's
    likewise), which cuDNN reads as NHWC, and the channels_last result permuted back is the
    contiguous [N, P, Q, K] tensor: no copy anywhere."""
    kw = ", ".join(f"{k}={attrs[k]}" for k in ("stride", "padding", "dilation", "groups"))
    if attrs["layout"] == "NCHW":
        return f"F.conv2d({args[0]}, {args[1]}, {kw})"
    return f"F.conv2d({args[0]}.permute(0, 3, 1, 2), {args[1]}.permute(0, 3, 1, 2), {kw}).permute(0, 2, 3, 1)"


def _emit_batchnorm(args, attrs, ctx):
    """Inference batch norm, F.batch_norm(training=False) on channels in dim 1: NHWC's channels
    moved there as a view (channels_last for rank 4, as the convolution's output is) and back."""
    rest = f"{', '.join(args[1:])}, training=False, eps={attrs['eps']!r}"
    if attrs["layout"] == "NCHW":
        return f"F.batch_norm({args[0]}, {rest})"
    return f"F.batch_norm({args[0]}.movedim(-1, 1), {rest}).movedim(1, -1)"


def _emit_dropout(args, attrs, ctx):
    if not attrs["training"]:
        return f"F.dropout({args[0]}, p={attrs['p']!r}, training=False)"
    if ctx.mode == "torch":
        return f"F.dropout({args[0]}, p={attrs['p']!r}, training=True)"
    return (f"_fb_dropout({args[0]}, {attrs['p']!r}, {attrs['seed']}, _rows, "
            f"{ctx.row_axis[0]!r})")


OPS = {op.name: op for op in [
    Op("neg", UNARY, "torch.neg({0})"),
    Op("abs", UNARY, "torch.abs({0})"),
    Op("exp", UNARY, "torch.exp({0})"),
    Op("log", UNARY, "torch.log({0})"),
    Op("cos", UNARY, "torch.cos({0})"),
    Op("sin", UNARY, "torch.sin({0})"),
    Op("tanh", UNARY, "torch.tanh({0})"),
    Op("sqrt", UNARY, "torch.sqrt({0})"),
    Op("rsqrt", UNARY, "torch.rsqrt({0})"),
    Op("relu", UNARY, "torch.relu({0})"),
    Op("sigmoid", UNARY, "torch.sigmoid({0})"),
    Op("erf", UNARY, "torch.erf({0})"),
    Op("reciprocal", UNARY, "torch.reciprocal({0})"),
    Op("square", UNARY, "torch.square({0})"),
    Op("gelu", UNARY, "F.gelu({0})"),  # the exact erf form (approximate='none')
    Op("copy", UNARY, "torch.clone({0})"),
    # Python's operators are torch.add/sub/mul/div and accept a number on either side
    Op("add", BINARY, "({0} + {1})"),
    Op("sub", BINARY, "({0} - {1})"),
    Op("mul", BINARY, "({0} * {1})"),
    Op("div", BINARY, "({0} / {1})"),
    Op("max", BINARY, _emit_max),
    Op("min", BINARY, _emit_min),
    Op("pow", BINARY, "torch.pow({0}, {1})"),
    Op("sum", REDUCE, "torch.sum({0}, dim={dim}, keepdim={keepdim})", plain_sum=True),
    Op("amax", REDUCE, "torch.amax({0}, dim={dim}, keepdim={keepdim})"),
    Op("amin", REDUCE, "torch.amin({0}, dim={dim}, keepdim={keepdim})"),
    Op("mean", REDUCE, "torch.mean({0}, dim={dim}, keepdim={keepdim})"),
    Op("dropout", RANDOM, _emit_dropout),
    Op("matmul", MATMUL, _emit_matmul),
    Op("conv2d", CONV2D, _emit_conv2d),
    Op("batchnorm", BATCHNORM, _emit_batchnorm),
]}


# ---- case files -------------------------------------------------------------------------------

@dataclass
class Input:
    name: str
    shape: list  # ints and symbol names
    init: str


@dataclass
class Node:
    index: int
    op: Op
    ins: list  # value names (str) and literals (float)
    out: str
    attrs: dict


@dataclass
class Case:
    name: str
    summary: str
    path: str
    inputs: list
    nodes: list
    outputs: list
    fused: list
    dtypes: list
    axes: list          # [(symbol, [values])]: rows, then columns if any
    fixed: dict         # symbol -> [values]: the size symbols that are not displayed axes, one grid
                        # per combination of their values (the first symbol varies slowest)
    tol: dict           # dtype -> (atol, rtol)
    symbols: list = field(default_factory=list)

    def uses_dropout(self, training_only=True):
        return any(n.op.kind is RANDOM and (n.attrs["training"] or not training_only) for n in self.nodes)


def cases_dir():
    env = os.environ.get("FUSIONBENCH_CASES")
    return Path(env) if env else REPO / "cases"


def case_names():
    d = cases_dir()
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []


def find_case(spec):
    """A bundled case name or a path, as `fusionbench run --case` takes them."""
    if "/" in spec or spec.endswith(".json"):
        return load_case(spec)
    names = case_names()
    if spec in names:
        path = cases_dir() / f"{spec}.json"
        try:  # as fusionbench names it in the result file: cases/NAME.json from the repository
            path = path.resolve().relative_to(Path.cwd().resolve())
        except ValueError:
            pass
        return load_case(str(path))
    near = suggest(spec, names)
    if near:
        raise CaseError(f"unknown case '{spec}'{near}")
    raise CaseError(f"unknown case '{spec}' (available: {', '.join(names) or 'none in ' + str(cases_dir())})")


def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"duplicate key '{k}'")
        seen[k] = v
    return seen


def load_case(path):
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        raise CaseError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CaseError(f"{path}: is a directory, not a case file") from None
    except OSError as e:
        raise CaseError(f"{path}: cannot read: {e.strerror}") from None
    return parse_case(text, path)


def parse_case(text, path="<string>"):
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise CaseError(f"{path}:{e.lineno}:{e.colno}: {e.msg}") from None
    except ValueError as e:
        raise CaseError(f"{path}: {e}") from None
    return CaseReader(path).read(doc)


class CaseReader:
    """The case format of src/case.c, read strictly where the peer depends on it (ops, operands,
    attributes, shapes, inits, grid) and leniently elsewhere (fusionbench validates the rest)."""

    def __init__(self, path):
        self.path = path

    def fail(self, where, msg):
        raise CaseError(f"{self.path}: {where}: {msg}" if where else f"{self.path}: {msg}")

    def need(self, obj, key, where, kind, test):
        if key not in obj:
            self.fail(where, f"missing key '{key}'")
        v = obj[key]
        if not test(v):
            self.fail(f"{where}.{key}" if where else key, f"expected {kind}, got {describe(v)}")
        return v

    def read(self, doc):
        if not isinstance(doc, dict):
            self.fail(None, f"top level must be a JSON object, got {describe(doc)}")
        name = self.need(doc, "name", None, "a string", lambda v: isinstance(v, str) and v)
        summary = doc.get("summary", "")
        inputs = self.read_inputs(self.need(doc, "inputs", None, "an object", lambda v: isinstance(v, dict) and v))
        values = {i.name for i in inputs}
        nodes = self.read_program(self.need(doc, "program", None, "a non-empty array",
                                            lambda v: isinstance(v, list) and v), values)
        outputs = self.need(doc, "outputs", None, "a non-empty array", lambda v: isinstance(v, list) and v)
        produced = [n.out for n in nodes]
        for k, o in enumerate(outputs):
            if o not in produced:
                self.fail(f"outputs[{k}]", f"{describe(o)} is not produced by the program"
                          f"{suggest(str(o), produced)}")
        dtypes = []
        for k, d in enumerate(self.need(doc, "dtypes", None, "a non-empty array", lambda v: isinstance(v, list) and v)):
            try:
                dtypes.append(canonical_dtype(d))
            except ValueError as e:
                self.fail(f"dtypes[{k}]", str(e))
        symbols, used_at = [], {}
        for i in inputs:
            for k, d in enumerate(i.shape):
                if isinstance(d, str) and d not in symbols:
                    symbols.append(d)
                    used_at[d] = f"inputs.{i.name}.shape[{k}]"
        grid = self.need(doc, "grid", None, "an object of 1 or 2 axes", lambda v: isinstance(v, dict))
        if not grid:
            self.fail("grid", "no axes; give 1 (rows) or 2 (rows, columns)")
        axes, fixed = self.read_grid(grid, doc.get("fixed"), symbols, used_at)
        tol = dict(DEFAULT_TOL)
        for d, t in (doc.get("tolerance") or {}).items():
            try:
                d = canonical_dtype(d)
            except ValueError as e:
                self.fail("tolerance", str(e))
            w = f"tolerance.{d}"
            if not isinstance(t, dict):
                self.fail(w, f"expected an object like {{\"atol\": 1e-6, \"rtol\": 1e-5}}, got {describe(t)}")
            a = self.need(t, "atol", w, "a non-negative number", _nonneg)
            r = self.need(t, "rtol", w, "a non-negative number", _nonneg)
            tol[d] = (float(a), float(r), True)  # stated: used as written
        return Case(name=name, summary=summary, path=str(self.path), inputs=inputs, nodes=nodes,
                    outputs=list(outputs), fused=list(doc.get("fused") or []), dtypes=dtypes,
                    axes=axes, fixed=fixed, tol=tol, symbols=symbols)

    def read_inputs(self, obj):
        out = []
        for name, spec in obj.items():
            w = f"inputs.{name}"
            if not isinstance(spec, dict):
                self.fail(w, f"expected an object like {{\"shape\": [...]}}, got {describe(spec)}")
            shape = self.need(spec, "shape", w, "an array of sizes and symbols",
                              lambda v: isinstance(v, list) and 1 <= len(v))
            for k, d in enumerate(shape):
                ok = isinstance(d, str) and d.isidentifier() or (isinstance(d, int) and not isinstance(d, bool) and d > 0)
                if not ok:
                    self.fail(f"{w}.shape[{k}]", f"expected a positive integer or a symbol name, got {describe(d)}")
            init = spec.get("init", "normal")
            if init not in INITS:
                hint = suggest(str(init), INITS) or f" (expected {', '.join(INITS)})"
                self.fail(f"{w}.init", f"unknown init {describe(init)}{hint}")
            out.append(Input(name, list(shape), init))
        return out

    def read_program(self, program, values):
        nodes = []
        defined = set(values)
        for i, spec in enumerate(program):
            w = f"program[{i}]"
            if not isinstance(spec, dict):
                self.fail(w, f"expected an object like {{\"op\": ..., \"in\": [...], \"out\": ...}}, got {describe(spec)}")
            opname = self.need(spec, "op", w, "an op name", lambda v: isinstance(v, str))
            op = OPS.get(opname)
            if op is None:
                self.fail(f"{w}.op", f"unknown op '{opname}'{suggest(opname, OPS)}")
            kind = op.kind
            ins = self.need(spec, "in", w, "an array of operands", lambda v: isinstance(v, list))
            if len(ins) != kind.arity:
                self.fail(f"{w}.in", f"'{op.name}' takes {kind.arity} operand{'s' if kind.arity > 1 else ''}, got {len(ins)}")
            operands = []
            for k, a in enumerate(ins):
                if isinstance(a, str):
                    if a not in defined:
                        self.fail(f"{w}.in[{k}]", f"unknown value '{a}'{suggest(a, defined)}")
                    operands.append(a)
                elif isinstance(a, (int, float)) and not isinstance(a, bool):
                    if not kind.literals:
                        self.fail(f"{w}.in[{k}]", f"'{op.name}' takes a value, not a literal")
                    operands.append(float(a))
                else:
                    self.fail(f"{w}.in[{k}]", f"expected a value name or a number, got {describe(a)}")
            if all(isinstance(a, float) for a in operands):
                self.fail(f"{w}.in", f"'{op.name}' needs at least one value operand, not only literals")
            attrs = self.read_attrs(spec, op, w)
            out = self.need(spec, "out", w, "a value name", lambda v: isinstance(v, str) and v.isidentifier())
            if out in defined:
                self.fail(f"{w}.out", f"'{out}' is already defined")
            defined.add(out)
            nodes.append(Node(i, op, operands, out, attrs))
        return nodes

    def read_attrs(self, spec, op, where):
        # attributes sit on the node beside op/in/out (as "dim" does), or in an "attrs" object
        given = {k: v for k, v in spec.items() if k not in ("op", "in", "out", "attrs")}
        if isinstance(spec.get("attrs"), dict):
            given.update(spec["attrs"])
        attrs = {}
        for key, v in given.items():
            if key not in op.kind.attrs:
                if not op.kind.attrs:
                    self.fail(f"{where}", f"unknown key '{key}' ('{op.name}' takes no attributes)")
                self.fail(f"{where}", f"unknown key '{key}'{suggest(key, op.kind.attrs)} "
                          f"('{op.name}' takes {', '.join(op.kind.attrs)})")
            try:
                attrs[key] = op.kind.attrs[key].parse(v)
            except ValueError as e:
                self.fail(f"{where}.{key}", str(e))
        for key, a in op.kind.attrs.items():
            if key not in attrs:
                if a.required:
                    self.fail(where, f"missing key '{key}' ('{op.name}' needs it)")
                attrs[key] = a.default
        return attrs

    def read_axis(self, section, sym, v, placed, symbols):
        """One symbol's values at SECTION.SYM (src/case.c's parse_axis): a list of distinct positive
        integers, at most MAX_GRID, or (under fixed only) one integer."""
        if sym not in symbols:
            waiting = [x for x in symbols if x not in placed]  # the likely typo: a symbol still without an axis
            self.fail(section, f"'{sym}' is not a symbol of any input shape{suggest(sym, waiting)}")
        w = f"{section}.{sym}"
        if sym in placed:
            self.fail(w, f"'{sym}' is already a grid axis (grid.{sym}); a symbol is either displayed or fixed")
        if section == "fixed" and isinstance(v, int) and not isinstance(v, bool):
            if v <= 0:
                self.fail(w, f"expected a positive integer, got {describe(v)}")
            return [v]
        if not isinstance(v, list):
            self.fail(w, f"expected an array, got {describe(v)}")
        if not v:
            self.fail(w, "must not be empty")
        if len(v) > MAX_GRID:
            self.fail(w, f"{len(v)} values; at most {MAX_GRID}")
        for k, x in enumerate(v):
            if isinstance(x, bool) or not isinstance(x, int) or x <= 0:
                self.fail(f"{w}[{k}]", f"expected a positive integer, got {describe(x)}")
            if x in v[:k]:
                self.fail(f"{w}[{k}]", f"{x} repeats {w}[{v.index(x)}]")
        return list(v)

    def read_grid(self, grid, fixed_spec, symbols, used_at):
        """grid: the displayed axes, 1 (rows) or 2 (rows, columns); fixed: the other size symbols,
        each with its values, one grid per combination of them (src/case.c's parse_grid, parse_fixed)."""
        if len(grid) > 2:
            self.fail("grid", f"{len(grid)} axes; a grid has 1 (rows) or 2 (rows, columns); "
                      "give the other symbols under 'fixed'")
        axes, fixed, placed = [], {}, set()
        for sym, v in grid.items():
            axes.append((sym, self.read_axis("grid", sym, v, placed, symbols)))
            placed.add(sym)
        if fixed_spec is not None:
            if not isinstance(fixed_spec, dict):
                self.fail("fixed", f"expected an object of symbol -> value or list of values, got {describe(fixed_spec)}")
            if not fixed_spec:
                self.fail("fixed", "no symbols; leave 'fixed' out when every symbol is a grid axis")
            for sym, v in fixed_spec.items():
                fixed[sym] = self.read_axis("fixed", sym, v, placed, symbols)
                placed.add(sym)
            n = numel([len(v) for v in fixed.values()])
            if n > MAX_GRIDS:
                self.fail("fixed", f"{n} combinations of values, so as many grids; at most {MAX_GRIDS}")
        for s in symbols:
            if s not in placed:
                self.fail("grid", f"symbol '{s}' (used at {used_at[s]}) has no axis; every shape symbol needs one "
                          "(or a value in 'fixed')")
        return axes, fixed


def _nonneg(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 and math.isfinite(v)


# ---- shapes, costs, grids ---------------------------------------------------------------------

def program_shapes(case, point):
    """Concrete shape of every value at a grid point: {name: tuple}."""
    return value_shapes(case, {i.name: tuple(point[d] if isinstance(d, str) else d for d in i.shape)
                               for i in case.inputs})


def value_shapes(case, input_shapes):
    """Every value's shape from the inputs' ({name: tuple}), by the kinds' shape rules."""
    shapes = dict(input_shapes)
    for n in case.nodes:
        ins = [() if isinstance(a, float) else shapes[a] for a in n.ins]
        try:
            shapes[n.out] = tuple(n.op.kind.shape(ins, n.attrs))
        except ValueError as e:
            raise CaseError(f"{case.path}: program[{n.index}]: {e}") from None
    return shapes


def program_costs(case, shapes, dtype):
    """fusionbench's ideal bytes (inputs read once + outputs written once) and FLOPs."""
    size = DTYPE_BYTES[dtype]
    in_bytes = sum(numel(shapes[i.name]) * size for i in case.inputs)
    out_bytes = sum(numel(shapes[o]) * size for o in case.outputs)
    flops = 0
    for n in case.nodes:
        ins = [() if isinstance(a, float) else shapes[a] for a in n.ins]
        flops += n.op.kind.flops(ins, shapes[n.out])
    return {"in_bytes": in_bytes, "out_bytes": out_bytes, "ideal_bytes": in_bytes + out_bytes,
            "flops": flops, "kernels": len(case.nodes)}


def parse_axis_list(opt, text):
    """fusionbench's axis syntax: "128,256", "128:65536" (every power of two, doubling), or a mix."""
    vals = []
    for tok in text.split(","):
        if not tok:
            continue
        parts = tok.split(":")
        if len(parts) > 2:
            raise UsageError(f"{opt}: expected N or A:B, got '{tok}'")
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            raise UsageError(f"{opt}: expected a positive integer, got '{tok}'") from None
        if any(x < 1 for x in nums):
            raise UsageError(f"{opt}: expected a positive integer, got '{tok}'")
        if len(nums) == 1:
            vals.append(nums[0])
        else:
            v = nums[0]
            while v <= nums[1]:
                vals.append(v)
                v *= 2
    if not vals:
        raise UsageError(f"{opt}: empty list")
    if len(vals) > 64:
        raise UsageError(f"{opt}: more than 64 values")
    return vals


def plan_axes(case, overrides, quick):
    """The case's axes and fixed symbols after --SYM overrides (a fixed symbol is overridden as an
    axis is: --K 64,128 gives one grid per value) and --quick (first, middle, last of each list),
    as src/cmd_run.c's plan_axes."""
    axes = [(s, list(v)) for s, v in case.axes]
    fixed = {s: list(v) for s, v in case.fixed.items()}
    for name, vals in overrides.items():
        hit = [k for k, (s, _) in enumerate(axes) if s == name]
        if hit:
            axes[hit[0]] = (name, list(vals))
        elif name in fixed:
            fixed[name] = list(vals)
        else:
            raise UsageError(f"unknown option '--{name}'"
                             f"{suggest(name, [s for s, _ in axes] + list(fixed), '--')}; see 'torch_peer.py run --help'")

    def thin(v):
        return v if len(v) <= 3 else [v[0], v[len(v) // 2], v[-1]]
    if quick:
        axes = [(s, thin(v)) for s, v in axes]
        fixed = {s: thin(v) for s, v in fixed.items()}
    grids = numel([len(v) for v in fixed.values()])
    if grids > MAX_GRIDS:
        raise UsageError(f"{case.name}: the fixed symbols' values make {grids} grids; at most {MAX_GRIDS}")
    return axes, fixed


def fixed_points(fixed):
    """Every combination of the fixed symbols' values, the first symbol slowest: one grid each."""
    names = list(fixed)
    for combo in itertools.product(*(fixed[n] for n in names)):
        yield dict(zip(names, combo))


def grid_points(axes, fixed):
    """(row, col or None, point) in fusionbench's order (src/program.c fb_case_point): grid by grid
    (the fixed symbols' combinations, the first slowest), rows, then columns."""
    rows_sym, rows = axes[0]
    cols_sym, cols = axes[1] if len(axes) > 1 else (None, [None])
    for fx in fixed_points(fixed):
        for r in rows:
            for c in cols:
                point = dict(fx)
                point[rows_sym] = r
                if cols_sym is not None:
                    point[cols_sym] = c
                yield r, c, point


def point_str(axes, point, fixed=()):
    """'dim0=128 dim1=256', then the fixed symbols' values ('M=128 N=256 K=1024'), as fb_point_str."""
    return " ".join([f"{s}={point[s]}" for s, _ in axes] + [f"{s}={point[s]}" for s in fixed])


def fixed_label(fixed, point):
    """'K=1024' (fb_grid_label): the grid a point belongs to; '' for a case without fixed symbols."""
    return " ".join(f"{s}={point[s]}" for s in fixed)


# ---- the generated program ----------------------------------------------------------------------

def pyname(value):
    return f"v_{value}"


@dataclass
class EmitCtx:
    mode: str       # "torch": dropout is F.dropout; "hash": fusionbench's mask
    literal: tuple  # per operand: is it a number
    row_axis: tuple  # per operand: the row axis (hash mode with sampled rows), else None


def generate(case, mode="torch", row_axes=None):
    """Python source of `program(<inputs>)`: one statement, one torch call, per op of the case.
    mode "hash" adds a `_rows` argument: (row indices, full row count) for a row-sampled
    reference, so the dropout mask is drawn at each element's index in the full tensor."""
    if mode not in ("torch", "hash"):
        raise ValueError(f"mode {mode!r}")
    row_axes = row_axes or {}
    params = [pyname(i.name) for i in case.inputs] + (["_rows=None"] if mode == "hash" else [])
    lines = [f"def program({', '.join(params)}):"]
    for n in case.nodes:
        args = [f"({a!r})" if isinstance(a, float) else pyname(a) for a in n.ins]
        ctx = EmitCtx(mode, tuple(isinstance(a, float) for a in n.ins),
                      tuple(None if isinstance(a, float) else row_axes.get(a) for a in n.ins))
        t = n.op.torch
        expr = t(args, n.attrs, ctx) if callable(t) else t.format(*args, **n.attrs)
        lines.append(f"    {pyname(n.out)} = {expr}  # program[{n.index}]: {n.op.name}")
    lines.append(f"    return ({''.join(pyname(o) + ', ' for o in case.outputs)})")
    return "\n".join(lines) + "\n"


def build_function(source, namespace, label):
    filename = f"<torch_peer {label}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # tracebacks
    ns = dict(namespace)
    exec(compile(source, filename, "exec"), ns)
    return ns["program"]


# ---- library peers ----------------------------------------------------------------------------------
# Beside torch.eager and torch.compile, which any case's program gives, a case may have library
# peers: a library's own kernel for the case's math, what a user calls who never writes the program
# out. One table, keyed by case name. Each entry names the case inputs it reads and the outputs it
# returns, in the case's order (tests/test_peer.py holds both against the case file), and how a cell
# sets it up; everything torch- or library-specific happens in `prepare`, on the GPU machine.

RMS_EPS = 1e-6  # cases/rmsnorm*.json: add(ms, 1e-6); tests/test_peer.py checks the files say so
ALL_DTYPES = ("float32", "float16", "bfloat16", "float64")
LIGER_MODULE = "liger_kernel.ops.rms_norm"  # the submodule: always Liger's Triton kernels, never a
                                            # backend that liger_kernel.ops may swap in
# LigerRMSNormFunction.apply(X, W, eps, offset, casting_mode, in_place): offset 0 (y = x r w, not
# x r (1 + w)); casting mode "gemma": x and w cast to float32, everything computed in float32, y
# rounded once to x's dtype when stored -- the case's math (half types computed in float32, stored
# as half). LigerRMSNorm's default "llama" rounds x r to the half type and multiplies by w in it
# (two roundings), and "none" computes in the half type; for float32 the three are the same. The
# modes read and write the same bytes, so the choice changes no time. in_place=True is Liger's
# default: its backward writes dx over the dy it is given.
LIGER_ARGS = (0.0, "gemma", True)
LIGER_DTYPES = ("float32", "float16", "bfloat16")
LIGER_DTYPES_WHY = ("Liger's Triton kernels take float32, float16 and bfloat16 "
                    "(liger_kernel.ops.utils.torch_to_triton_dtype) and compute in float32")


@dataclass(frozen=True)
class PeerCall:
    fn: object             # fn() -> the outputs, in the case's order
    launches: int          # about how many kernels a call launches (the timer's batch size)
    before: object = None  # runs untimed before every call of fn: gives back an input fn overwrites


@dataclass(frozen=True)
class LibraryPeer:
    name: str          # the variant's name in the result file (never one of fusionbench's: eager, CASE.*)
    inputs: tuple      # the case inputs it reads
    outputs: tuple     # what fn() returns: the case's outputs, in order
    module: object     # the module that must import for it; None: torch alone
    dtypes: tuple      # the dtypes it takes; a cell of another dtype is skipped as unsupported
    dtypes_why: str    # why only those
    code: str          # what it runs (the code subcommand, the result file)
    prepare: object    # prepare({input name: tensor}) -> PeerCall, outside the timed region

    def unsupported(self, dtype):
        """The reason a cell of this dtype is skipped, or None."""
        if dtype in self.dtypes:
            return None
        return f"unsupported: {self.name} takes {', '.join(self.dtypes)} ({self.dtypes_why})"


def _leaves(t):
    """x and w as a user's parameters and activations are: leaves that require grad."""
    return t["x"].detach().requires_grad_(), t["w"].detach().requires_grad_()


def _backward_of(forward, t, dy):
    """The backward of `forward` as a user's loss.backward() runs it: the forward once, here and
    untimed, then each call is torch.autograd.grad(y, (x, w), dy, retain_graph=True) -> (dx, dw),
    the backward kernels alone, reading what the forward saved."""
    x, w = _leaves(t)
    with torch.enable_grad():
        y = forward(x, w)
    return lambda: torch.autograd.grad(y, (x, w), dy, retain_graph=True)


def _f_rms_norm(x, w):
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), w, eps=RMS_EPS)


def _liger_rms_norm(x, w):
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    return LigerRMSNormFunction.apply(x, w, RMS_EPS, *LIGER_ARGS)


def _prepare_torch_rms_norm(t):
    x, w = t["x"], t["w"]
    return PeerCall(lambda: (_f_rms_norm(x, w),), 1)


def _prepare_torch_rms_norm_backward(t):
    return PeerCall(_backward_of(_f_rms_norm, t, t["dy"]), 3)


def _prepare_liger(t):
    x, w = t["x"], t["w"]
    return PeerCall(lambda: (_liger_rms_norm(x, w),), 1)


def _prepare_liger_backward(t):
    # in_place: Liger's backward writes dx over the gradient it is handed, so it gets its own
    # copy g of dy, restored before every call (outside the sample, ahead of the L2 flush): every
    # call reads the same dy, and the cell's dy stays intact for the variants after it
    dy = t["dy"]
    g = dy.clone()
    return PeerCall(_backward_of(_liger_rms_norm, t, g), 4, before=lambda: g.copy_(dy))


_F_RMS_NORM = f"F.rms_norm(x, (x.shape[-1],), w, eps={RMS_EPS!r})"
_LIGER_CALL = (f"LigerRMSNormFunction.apply(x, w, eps={RMS_EPS!r}, offset={LIGER_ARGS[0]!r}, "
               f"casting_mode={LIGER_ARGS[1]!r}, in_place={LIGER_ARGS[2]!r})")
_BACKWARD = ("x, w: leaves that require grad; y = {fwd} once, untimed; timed: "
             "dx, dw = torch.autograd.grad(y, (x, w), {dy}, retain_graph=True)")

PEERS = {
    "rmsnorm": (
        LibraryPeer("torch.rms_norm", ("x", "w"), ("y",), None, ALL_DTYPES, "",
                    f"y = {_F_RMS_NORM}", _prepare_torch_rms_norm),
        LibraryPeer("liger", ("x", "w"), ("y",), LIGER_MODULE, LIGER_DTYPES, LIGER_DTYPES_WHY,
                    f"{LIGER_MODULE}: y = {_LIGER_CALL}", _prepare_liger),
    ),
    "rmsnorm_backward": (
        LibraryPeer("torch.rms_norm", ("x", "w", "dy"), ("dx", "dw"), None, ALL_DTYPES, "",
                    _BACKWARD.format(fwd=_F_RMS_NORM, dy="dy"), _prepare_torch_rms_norm_backward),
        LibraryPeer("liger", ("x", "w", "dy"), ("dx", "dw"), LIGER_MODULE, LIGER_DTYPES, LIGER_DTYPES_WHY,
                    f"{LIGER_MODULE}: " + _BACKWARD.format(fwd=_LIGER_CALL, dy="g")
                    + "; g = dy copied in, untimed, before every call (in_place: Liger writes dx over g)",
                    _prepare_liger_backward),
    ),
}


def case_peers(case_name):
    return PEERS.get(case_name, ())


def find_peer(case_name, variant):
    return next((p for p in case_peers(case_name) if p.name == variant), None)


def peer_names():
    """Every library peer's name, over all cases, in table order."""
    return list(dict.fromkeys(p.name for peers in PEERS.values() for p in peers))


def drop_missing_peers(plans, importer=None, err=None):
    """Library peers whose module does not import are left out of every plan, with one message per
    module; returns {variant: why}. Plans left with no variant are dropped from the list."""
    import importlib
    importer = importer or importlib.import_module
    err = err or sys.stderr
    why = {}  # module -> None (imports) or the reason it does not
    skipped = {}
    for p in plans:
        keep = []
        for v in p.variants:
            peer = find_peer(p.case.name, v)
            if peer is not None and peer.module:
                if peer.module not in why:
                    try:
                        importer(peer.module)
                        why[peer.module] = None
                    except Exception as e:  # ImportError, or a package that breaks on import
                        why[peer.module] = f"cannot import {peer.module}: {first_line(e)}"
                        names = [q.name for ps in PEERS.values() for q in ps if q.module == peer.module]
                        print(f"torch_peer: skipping {', '.join(dict.fromkeys(names))}: {why[peer.module]} "
                              "(README, Against PyTorch, says how to install it)", file=err)
                if why[peer.module]:
                    skipped[v] = why[peer.module]
                    continue
            keep.append(v)
        p.variants = keep
    plans[:] = [p for p in plans if p.variants]
    return skipped


# ---- fusionbench's dropout mask (src/fb_random.h) ------------------------------------------------
# bits(seed, i) = top 32 bits of splitmix64_finalizer(seed * 0x9E3779B97F4A7C15 + i);
# keep(i) = bits >= floor(p * 2^32). In int64 tensor arithmetic: multiply and add wrap (two's
# complement), and >> is arithmetic, so a logical shift right by k is (z >> k) & (2^(64-k) - 1).

GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


def as_int64(v):
    """A 64-bit pattern as the signed value torch's int64 holds."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def dropout_counter_base(seed):
    return as_int64(seed * GOLDEN)


def dropout_bits(z):
    """Top 32 bits of splitmix64's finalizer of z (int64 semantics: an int64 tensor, or any
    object whose *, +, ^, & and >> behave as torch's int64 does); values in [0, 2^32)."""
    z = (z ^ ((z >> 30) & ((1 << 34) - 1))) * as_int64(MIX1)
    z = (z ^ ((z >> 27) & ((1 << 37) - 1))) * as_int64(MIX2)
    z = z ^ ((z >> 31) & ((1 << 33) - 1))
    return (z >> 32) & 0xFFFFFFFF


def dropout_threshold(p):
    t = p * 4294967296.0
    return 0 if t <= 0 else 4294967295 if t >= 4294967295.0 else int(t)


def _fb_dropout(x, p, seed, rows=None, row_axis=None):
    """fusionbench's dropout of x: the keep-mask at each element's row-major index in the full
    tensor (rows = (sampled row indices, full row count) when x holds only sampled rows)."""
    shape = list(x.shape)
    full = list(shape)
    if rows is not None and row_axis is not None:
        full[row_axis] = rows[1]
    idx = torch.zeros((), dtype=torch.int64, device=x.device)
    stride = 1
    for ax in reversed(range(len(shape))):
        if rows is not None and ax == row_axis:
            coord = rows[0].to(torch.int64)
        else:
            coord = torch.arange(shape[ax], dtype=torch.int64, device=x.device)
        view = [1] * len(shape)
        view[ax] = shape[ax]
        idx = idx + coord.view(view) * stride
        stride *= full[ax]
    keep = dropout_bits(idx + dropout_counter_base(seed)) >= dropout_threshold(p)
    return torch.where(keep, x * (1.0 / (1.0 - p)), 0.0)


# ---- row sampling for large cells ----------------------------------------------------------------

@dataclass
class RowPlan:
    separable: bool
    why: str
    n_rows: int
    axis: dict  # value -> its row axis, or None when it does not vary along the rows
    per_row: int  # elements of all row-carrying values per row


def row_plan(case, shapes):
    """How a cell too large to check in full is checked on a sample of rows. The rows are the
    first axis, in the order of the outputs' dims then the inputs' (axis 0 of the first output, as
    a rule), that no op combines values along, traced through every op (AxisTracer and the kinds'
    row rules). Then every value carries the rows on one axis or not at all (read whole: a
    matmul's B, a convolution's w, a broadcast weight), and a sample of rows can be evaluated
    alone: softmax by rows of x, a matmul by rows of A (a row of C needs one row of A and all of
    B), a conv2d by images (a single image: by output channels, where groups is 1). When every
    axis is combined, the reason given is the first one's. Pure bookkeeping on shapes."""
    t, ids, candidates = trace_axes(case, shapes)
    if not candidates:
        return RowPlan(False, "a single row", 1, {}, 0)
    first = None
    for root in candidates:
        n = t.size[root]
        if t.combiner[root] is not None:
            nd = case.nodes[t.combiner[root]]
            first = first or RowPlan(False, f"program[{nd.index}] ({nd.op.name}) {nd.op.kind.combines}", n, {}, 0)
            continue
        axis, mixed = {}, None
        for v, vid in ids.items():
            at = [j for j, x in enumerate(vid) if x is not None and t.find(x) == root]
            if len(at) > 1:
                where = next((f"program[{nd.index}] ({nd.op.name})" for nd in case.nodes if nd.out == v), f"input {v}")
                mixed = RowPlan(False, f"{where} mixes row axes: {v} carries the rows on dims {at}", n, {}, 0)
                break
            axis[v] = at[0] if at else None
        if mixed is not None:
            first = first or mixed
            continue
        per_row = sum(numel(shapes[v]) // shapes[v][a] for v, a in axis.items() if a is not None)
        return RowPlan(True, "", n, axis, per_row)
    return first


def trace_axes(case, shapes):
    """Every value's axis ids (AxisTracer, the kinds' row rules) and the candidates for the rows:
    every distinct axis of the outputs, then of the inputs, dim by dim (size-1 dims have none)."""
    t = AxisTracer()
    ids = {}
    for i in case.inputs:
        ids[i.name] = tuple(t.fresh(d) for d in shapes[i.name])
    for nd in case.nodes:
        ins = [() if isinstance(a, float) else ids[a] for a in nd.ins]
        in_shapes = [() if isinstance(a, float) else shapes[a] for a in nd.ins]
        ids[nd.out] = tuple(nd.op.kind.rows(t, nd, ins, in_shapes, shapes[nd.out]))
    candidates = []
    for v in list(case.outputs) + [i.name for i in case.inputs]:
        for x in ids[v]:
            r = t.find(x)
            if r is not None and r not in candidates:
                candidates.append(r)
    return t, ids, candidates


def leading_row_inputs(case, shapes):
    """The inputs whose dim 0 is the rows' axis (the anchor's, whether or not it splits): softmax's
    x, rmsnorm_backward's x and dy, a matmul's A but not its B, a convolution's x but not its w."""
    t, ids, candidates = trace_axes(case, shapes)
    root = candidates[0] if candidates else None  # the first output's first dim of size > 1
    return [i.name for i in case.inputs if ids[i.name] and ids[i.name][0] is not None and t.find(ids[i.name][0]) == root]


def _mix64(x):
    m = (1 << 64) - 1
    x = (x + GOLDEN) & m
    x = ((x ^ (x >> 30)) * MIX1) & m
    x = ((x ^ (x >> 27)) * MIX2) & m
    return x ^ (x >> 31)


def pick_rows(n_rows, want):
    """src/check.c's sample: the first and the last row, then rows hashed by splitmix64 of
    1, 2, ...; sorted, unique. Every row when want >= n_rows."""
    if want >= n_rows:
        return list(range(n_rows))
    rows = [0, n_rows - 1]
    i = 1
    while len(rows) < want:
        rows.append(_mix64(i) % n_rows)
        i += 1
    return sorted(set(rows))


FULL_LIMIT = 1 << 24    # elements of the largest value up to which a cell is checked in full
SAMPLE_LIMIT = 1 << 24  # elements of a row sample, all row-carrying values together


# ---- sums over the rows: every row, in chunks ---------------------------------------------------
# src/rowplan.c's generalisation, in the peer's terms. A plain `sum` along row axes does not stop a
# cell from being checked by rows when what it computes (a *partial* value: a chunk of rows gives
# its part, the value is the sum of every chunk's part) reaches the outputs only through further
# plain sums: rmsnorm_backward's dw, two sums over dims 0 and 1 of dy * x * r. Then every row is
# evaluated in float64, a chunk of rows at a time, the chunks' parts of those outputs added up in
# chunk order (dw compared in full), and the outputs that keep the rows (dx) kept on sampled rows.

CHUNK_LIMIT = 1 << 24  # elements of all row-carrying values of one chunk (128 MiB of doubles)


@dataclass
class SumPlan:
    ok: bool
    why: str                # when not ok: the reason
    sizes: tuple = ()       # the row axes: the anchor input's leading dims (all but its last)
    axes: dict = field(default_factory=dict)  # value -> per dim: the row axis it is (0, 1, ...) or None
    partial: set = field(default_factory=set)  # values a chunk gives only its part of
    per_row: int = 0        # elements of all row-carrying values per row: a chunk's memory
    row_outputs: tuple = ()  # outputs that lead with the row axes: checked on sampled rows
    sum_outputs: tuple = ()  # outputs summed over every row: checked in full

    @property
    def n_rows(self):
        return numel(self.sizes)


def sum_plan(case, shapes):
    """Rows are the leading dims, all but the last, of the first full-rank input (as many of them as
    split: the longest run that does, as rowplan.c). Pure bookkeeping on shapes."""
    rank = max(len(shapes[i.name]) for i in case.inputs)
    anchor = next(shapes[i.name] for i in case.inputs if len(shapes[i.name]) == rank)
    k = 0
    while k < max(rank - 1, 1) and k < rank and anchor[k] > 1:
        k += 1
    plan = SumPlan(False, "a single row")
    for n in range(k, 0, -1):  # the most row axes that split; the reason reported is one axis's
        plan = _trace_sums(case, shapes, tuple(anchor[:n]), rank)
        if plan.ok:
            return plan
    return plan


def _trace_sums(case, shapes, sizes, rank):
    k = len(sizes)
    axes, partial, origin = {}, set(), {}  # origin: partial value -> the sum over rows it comes from

    def fail(nd, what):
        return SumPlan(False, f"program[{nd.index}] ({nd.op.name}) {what}")

    for i in case.inputs:
        s = shapes[i.name]
        axes[i.name] = tuple(j if j < k and len(s) == rank and s[j] == sizes[j] else None for j in range(len(s)))
    for nd in case.nodes:
        vals = [a for a in nd.ins if not isinstance(a, float)]
        src = next((a for a in vals if a in partial), None)
        if not nd.op.kind.plain:  # a matmul, a convolution, a batch norm's per-channel operands
            return fail(nd, "is no elementwise op or reduction; the chunked reference splits rows only through those")
        if nd.op.kind is REDUCE:
            a = axes[nd.ins[0]]
            d = norm_dim(nd.attrs["dim"], len(a))
            if a[d] is not None and not nd.op.plain_sum:
                return fail(nd, "reduces over the rows")
            if src is not None and not nd.op.plain_sum:
                return fail(nd, f"reads the sum over the rows of program[{origin[src]}] other than by summing it")
            axes[nd.out] = a[:d] + ((None,) if nd.attrs["keepdim"] else ()) + a[d + 1:]
            if src is not None or a[d] is not None:
                partial.add(nd.out)
                origin[nd.out] = origin[src] if src is not None else nd.index
            continue
        if src is not None:
            return fail(nd, f"reads the sum over the rows of program[{origin[src]}] other than by summing it")
        if nd.op.kind is RANDOM and nd.attrs["training"]:
            return fail(nd, "draws its mask by element index, which the chunked reference does not follow")
        r = len(shapes[nd.out])
        out = []
        for j in range(r):  # broadcasting, right-aligned: a row axis meets itself or a size-1 dim
            dims = [(axes[a][q], shapes[a][q]) for a in vals for q in [j - (r - len(shapes[a]))] if q >= 0]
            rows = {s for s, _ in dims if s is not None}
            if len(rows) > 1 or (rows and any(s is None and n != 1 for s, n in dims)):
                return fail(nd, "mixes row axes")
            out.append(rows.pop() if rows else None)
        carried = [s for s in out if s is not None]
        if len(carried) != len(set(carried)):
            return fail(nd, "mixes row axes")
        axes[nd.out] = tuple(out)
    row_outputs, sum_outputs = [], []
    for o in case.outputs:
        a = axes[o]
        if o in partial:
            if any(s is not None for s in a):
                return SumPlan(False, f"output {o} sums over some of the rows and keeps others")
            sum_outputs.append(o)
        elif a[:k] == tuple(range(k)) and all(s is None for s in a[k:]):
            row_outputs.append(o)
        else:
            return SumPlan(False, f"output {o} does not lead with the rows")
    per_row = 0
    for v, a in axes.items():
        carried = [sizes[s] for s in a if s is not None]
        if carried:
            per_row += numel(shapes[v]) // numel(carried)
    return SumPlan(True, "", sizes, axes, partial, per_row, tuple(row_outputs), tuple(sum_outputs))


def row_chunks(sizes, rows_per_chunk):
    """The rows of row axes `sizes` in chunks of at most rows_per_chunk (at least one row), in row
    order: (first row, rows, one slice per row axis). A chunk is a box: the axes before some axis m
    fixed, axis m over a range, the axes after it whole; so it is one slice of every value, and its
    rows are consecutive in row-major order."""
    k = len(sizes)
    inner = [numel(sizes[j + 1:]) for j in range(k)]
    m = next(j for j in range(k) if inner[j] <= rows_per_chunk)  # inner[k - 1] is 1
    step = max(1, min(sizes[m], rows_per_chunk // inner[m]))
    for prefix in itertools.product(*(range(n) for n in sizes[:m])):
        base = 0
        for i, n in zip(prefix, sizes[:m]):
            base = base * n + i
        for lo in range(0, sizes[m], step):
            hi = min(lo + step, sizes[m])
            box = tuple(slice(i, i + 1) for i in prefix) + (slice(lo, hi),) + (slice(None),) * (k - m - 1)
            yield (base * sizes[m] + lo) * inner[m], (hi - lo) * inner[m], box


def sum_rows(plan, shapes):
    """The rows whose row outputs are kept and compared: about SAMPLE_LIMIT elements of the row
    outputs (every row is evaluated anyway), every row when that covers them; none without row outputs."""
    if not plan.row_outputs:
        return []
    per = sum(numel(shapes[o]) // plan.n_rows for o in plan.row_outputs)
    return pick_rows(plan.n_rows, max(2, SAMPLE_LIMIT // max(per, 1)))


def sums_why(plan, n_checked):
    """The check record's why, as src/check.c words it: which outputs were checked how."""
    n, parts = plan.n_rows, []
    if plan.row_outputs:
        rows = ", ".join(plan.row_outputs)
        parts.append(f"{rows}: {n_checked} of {n} rows sampled (first, last and {max(n_checked - 2, 0)} hashed)"
                     if n_checked < n else f"{rows}: full")
    if plan.sum_outputs:
        parts.append(f"{', '.join(plan.sum_outputs)}: full, accumulated over all {n} rows")
    return "; ".join(parts)


# ---- statistics (src/stats.c's conventions) --------------------------------------------------------

def quantile_sorted(xs, q):
    n = len(xs)
    if n == 0:
        return math.nan
    if q <= 0:
        return xs[0]
    if q >= 1:
        return xs[-1]
    h = (n - 1) * q
    lo = int(math.floor(h))
    if lo >= n - 1:
        return xs[-1]
    return xs[lo] + (h - lo) * (xs[lo + 1] - xs[lo])


def stats(samples):
    """min, p20, median, p80, max, mean, stdev (n - 1), n; numpy's linear quantiles."""
    xs = sorted(samples)
    n = len(xs)
    if n == 0:
        return {k: None for k in ("min", "p20", "median", "p80", "max", "mean", "stdev")} | {"n": 0}
    mean = sum(xs) / n
    ss = sum((x - mean) ** 2 for x in xs)
    return {"min": xs[0], "p20": quantile_sorted(xs, 0.2), "median": quantile_sorted(xs, 0.5),
            "p80": quantile_sorted(xs, 0.8), "max": xs[-1], "mean": mean,
            "stdev": math.sqrt(ss / (n - 1)) if n > 1 else 0.0, "n": n}


def median_rel_noise(xs_sorted):
    """The median's relative standard error: 1.4826 MAD x 1.2533 / sqrt(n) / median."""
    n = len(xs_sorted)
    if n < 3:
        return math.inf
    med = quantile_sorted(xs_sorted, 0.5)
    if not med > 0:
        return math.inf
    mad = quantile_sorted(sorted(abs(x - med) for x in xs_sorted), 0.5)
    return 1.4826 * mad * 1.2533 / math.sqrt(n) / med


# ---- the result file (src/result.h) ------------------------------------------------------------------

def finite_or_none(v):
    """NaN and Inf are written as null, as fusionbench does."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: finite_or_none(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [finite_or_none(x) for x in v]
    return v


def write_atomic(doc, path):
    """PATH.tmp.PID, fsync, rename: a reader (or a kill) never sees half a file."""
    path = str(path)
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w") as f:
            json.dump(finite_or_none(doc), f, indent=1, allow_nan=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise PeerError(f"{path}: cannot write the result file: {e.strerror or e}") from None


def iso_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def project_version():
    """fusionbench's version, from meson.build's project() call."""
    try:
        m = re.search(r"project\([^)]*?version:\s*'([^']+)'", (REPO / "meson.build").read_text(), re.S)
        return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"


def git_revision():
    try:
        r = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=10", "HEAD"],
                           capture_output=True, text=True, timeout=10)
        return r.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def new_result(command, device, settings, peer):
    return {"fusionbench": {"version": project_version(), "git": git_revision(), "schema": SCHEMA},
            "peer": peer, "started": iso_now(), "host": socket.gethostname(), "command": command,
            "device": device, "settings": settings, "cases": []}


def merged_values(had, run):
    """This run's values of an axis in its order; when the file had values this run does not, the
    union, ascending (the cells measured there stay in the grid): src/result.c's merged_values."""
    had = [v for v in (had or []) if isinstance(v, int)]
    if all(v in run for v in had):
        return list(run)
    return sorted(set(had) | set(run))


def case_entry(doc, case, axes, variants, fixed=None):
    """The case's object in the document (found or added), with this run's grid, fixed symbols
    ("fixed": {"K": [1024, 4096]}, as fusionbench writes it, only for a case that has them) and
    variants; a resumed file's values this run does not measure stay listed."""
    entry = next((c for c in doc["cases"] if c.get("name") == case.name), None)
    if entry is None:
        entry = {"name": case.name, "summary": case.summary, "file": case.path, "dtypes": []}
        doc["cases"].append(entry)
    entry["rows"] = axes[0][0]
    entry["row_values"] = merged_values(entry.get("row_values"), axes[0][1])
    if len(axes) > 1:
        entry["cols"] = axes[1][0]
        entry["col_values"] = merged_values(entry.get("col_values"), axes[1][1])
    if fixed:
        had = entry.get("fixed") if isinstance(entry.get("fixed"), dict) else {}
        entry["fixed"] = {sym: merged_values(had.get(sym), vals) for sym, vals in fixed.items()}
    # a resumed run may time fewer variants (a library that did not import): its cells still hold them
    entry["variants"] = list(dict.fromkeys(list(entry.get("variants") or []) + list(variants)))
    variants = entry["variants"]
    entry["baseline"] = "torch.eager" if "torch.eager" in variants else variants[0]
    for k in CASE_KEYS:  # fusionbench's order (src/result.c), the cells last
        if k in entry:
            entry[k] = entry.pop(k)
    return entry


CASE_KEYS = ("name", "summary", "file", "rows", "cols", "row_values", "col_values", "fixed", "variants", "baseline",
             "dtypes")


def check_resume(doc, path, plans):
    """Before torch: each case the file holds must have this run's axes and fixed symbols (their
    values may differ: a resumed run adds grids), else it is another case under the same name
    (src/result.c's fb_result_check_resume)."""
    for p in plans:
        entry = next((c for c in doc.get("cases", []) if c.get("name") == p.case.name), None)
        if entry is None:
            continue
        there = " x ".join(str(entry.get(k)) for k in ("rows", "cols") if entry.get(k) is not None)
        here = " x ".join(s for s, _ in p.axes)
        if there != here:
            raise UsageError(f"{path}: its case '{p.case.name}' has the grid {there}, but {p.case.path} has {here}: "
                             "another case under the same name; resume into another result file, or rename the case")
        had = list((entry.get("fixed") or {}) if isinstance(entry.get("fixed"), dict) else {})
        if sorted(had) != sorted(p.fixed):
            raise UsageError(f"{path}: its case '{p.case.name}' fixes the symbols {', '.join(had) or 'none'}, but "
                             f"{p.case.path} fixes {', '.join(p.fixed) or 'none'}: another case under the same name; "
                             "resume into another result file, or rename the case")


def dtype_entry(case_obj, dtype):
    d = next((x for x in case_obj["dtypes"] if x.get("dtype") == dtype), None)
    if d is None:
        d = {"dtype": dtype, "cells": []}
        case_obj["dtypes"].append(d)
    return d


def find_cell(dtype_obj, row, col, fixed=None):
    """The cell at (row, col) and, for a case with fixed symbols, those values in its "point"
    ({"K": 1024}): a cell is its row, column and fixed values, as fusionbench's resume matches it."""
    for c in dtype_obj["cells"]:
        if c.get("row") == row and c.get("col") == col and \
                all((c.get("point") or {}).get(s) == v for s, v in (fixed or {}).items()):
            return c
    return None


def cell_done(cell, variants):
    """A resumed cell is done when the copy and every variant of this run has a final status."""
    if not cell or "sol" not in cell:
        return False
    for v in variants:
        st = cell.get("variants", {}).get(v, {}).get("status")
        if not st or st == "error":
            return False
    return True


def new_cell(row, col, point, costs, input_shapes=None):
    """input_shapes: {input name: shape} in the case's order of inputs, the cell's "shapes"
    (fusionbench's export --table prints the first one whole: rmsnorm's x is [4, T, N])."""
    cell = {"row": row}
    if col is not None:
        cell["col"] = col
    cell["point"] = dict(point)
    if input_shapes is not None:
        cell["shapes"] = {name: [int(d) for d in shape] for name, shape in input_shapes.items()}
    cell.update({"ideal_bytes": int(costs["ideal_bytes"]), "flops": int(costs["flops"]),
                 "sol": {"status": "skipped", "reason": "not measured"}, "variants": {}})
    return cell


def timed_entry(entry, samples, ideal_bytes, flops, sol_ms):
    """Add time_ms (STATS), gbps, tflops and sol_pct to a variant's entry."""
    st = stats(samples)
    entry["time_ms"] = st
    med = st["median"]
    if med and med > 0:
        entry["gbps"] = ideal_bytes / (med * 1e-3) / 1e9
        entry["tflops"] = flops / (med * 1e-3) / 1e12
        if sol_ms:
            entry["sol_pct"] = sol_ms / med * 100.0
    return entry


def sol_entry(samples, copy_bytes):
    st = stats(samples)
    e = {"status": "ok", "time_ms": st}
    if st["median"]:
        e["gbps"] = 2.0 * copy_bytes / (st["median"] * 1e-3) / 1e9
    return e


def sol_copy_bytes(ideal_bytes):
    """What fusionbench's speed of light copies (src/cell.c): half the ideal bytes, rounded down
    to 16, read once and written once."""
    return (int(ideal_bytes) // 2) & ~15


# ---- torch: loading, device facts ------------------------------------------------------------------

def load_torch():
    global torch
    if torch is not None:
        return torch
    try:
        import torch as t
    except ImportError:
        raise NoGpuError("torch is not installed here; the peer runs where PyTorch and a GPU are") from None
    if not t.cuda.is_available():
        raise NoGpuError("no usable CUDA device (torch.cuda.is_available() is false)")
    torch = t
    return t


def nvidia_smi(fields):
    try:
        r = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits",
                            "-i", str(torch.cuda.current_device())], capture_output=True, text=True, timeout=20)
        vals = [v.strip() for v in r.stdout.strip().splitlines()[0].split(",")]
        return dict(zip(fields, vals)) if len(vals) == len(fields) else {}
    except (OSError, subprocess.SubprocessError, IndexError):
        return {}


class Nvml:
    """The GPU's clocks, temperature and power through NVML (the driver's libnvidia-ml, by ctypes:
    no pynvml needed), for the device of the given PCI bus id; open() is None where NVML is not
    there or knows no such device. read() is one reading in fusionbench's form (src/clocks.h):
    {"sm_clock_mhz", "mem_clock_mhz", "temp_c", "power_w"}, a value NVML refuses left out."""

    CLOCK_SM, CLOCK_MEM, TEMPERATURE_GPU = 1, 2, 0
    SETTLE_BAND, SETTLE_POLL_S = 0.05, 0.005  # fusionbench's FB_SETTLE_BAND, FB_SETTLE_POLL_MS

    def __init__(self, lib, handle):
        self.lib, self.handle = lib, handle
        self.peak = 0.0  # the highest SM clock read in the run (read() keeps it)
        self.settled_ms = 0.0  # what the cell in flight's measurements waited (the cell resets it)

    @classmethod
    def open(cls, pci_bus_id, libname="libnvidia-ml.so.1"):
        import ctypes
        try:
            lib = ctypes.CDLL(libname)
            if lib.nvmlInit_v2() != 0:
                return None
            handle = ctypes.c_void_p()
            if lib.nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id.encode(), ctypes.byref(handle)) != 0:
                return None
        except (OSError, AttributeError):
            return None
        return cls(lib, handle)

    def settle(self, max_ms):
        """fusionbench's fb_clock_watch_settle: before a measurement, wait (polling every 5 ms, at
        most max_ms) while the SM clock is more than 5% below the highest this run has read."""
        t0 = time.perf_counter()
        while True:
            sm = self.read().get("sm_clock_mhz")  # read() keeps self.peak
            waited = (time.perf_counter() - t0) * 1e3
            if not sm or sm >= (1 - self.SETTLE_BAND) * self.peak or waited >= max_ms:
                break
            time.sleep(self.SETTLE_POLL_S)
        self.settled_ms += waited
        return waited

    def read(self):
        import ctypes
        v = ctypes.c_uint()
        out = {}
        for key, call, arg, scale in (("sm_clock_mhz", "nvmlDeviceGetClockInfo", self.CLOCK_SM, 1),
                                      ("mem_clock_mhz", "nvmlDeviceGetClockInfo", self.CLOCK_MEM, 1),
                                      ("temp_c", "nvmlDeviceGetTemperature", self.TEMPERATURE_GPU, 1),
                                      ("power_w", "nvmlDeviceGetPowerUsage", None, 1e-3)):
            fn = getattr(self.lib, call)
            rc = fn(self.handle, arg, ctypes.byref(v)) if arg is not None else fn(self.handle, ctypes.byref(v))
            if rc == 0:
                out[key] = v.value * scale if scale != 1 else int(v.value)
        self.peak = max(self.peak, out.get("sm_clock_mhz", 0))
        return out


def pci_bus_id(props):
    """NVML's bus id ("0000:BB:DD.0") of a torch device, or None where torch does not say."""
    try:
        return f"{props.pci_domain_id:04x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
    except AttributeError:
        return None


def device_json():
    dev = torch.cuda.current_device()
    p = torch.cuda.get_device_properties(dev)
    smi = nvidia_smi(["driver_version", "clocks.max.sm", "clocks.max.mem"])

    def as_int(s):
        try:
            return int(float(s))
        except (TypeError, ValueError):
            return None

    d = {"name": p.name, "cc": f"{p.major}.{p.minor}", "sms": p.multi_processor_count,
         "l2_bytes": int(getattr(p, "L2_cache_size", 0)), "mem_bytes": int(p.total_memory),
         "sm_clock_mhz": as_int(smi.get("clocks.max.sm")), "mem_clock_mhz": as_int(smi.get("clocks.max.mem")),
         "driver": smi.get("driver_version"), "runtime": torch.version.cuda,
         "cudnn": _cudnn_version()}
    return {k: v for k, v in d.items() if v is not None}


def _cudnn_version():
    try:
        return torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    except Exception:  # a version query must never stop a run
        return None


def package_version(dist):
    try:
        from importlib import metadata
        return metadata.version(dist)
    except Exception:  # not installed, or no metadata (a --target install keeps it; a copy may not)
        return None


def set_tf32(on):
    """--tf32: float32 matmuls (cuBLAS) and convolutions (cuDNN) may round their inputs to TF32, in
    eager and torch.compile alike (inductor reads the same switches); without it both compute in
    IEEE float32, as fusionbench's eager does by default. PyTorch's own defaults differ (cuDNN may
    use TF32 unless told not to), so both are always set. Through the allow_tf32 flags: torch 2.9
    and later also have fp32_precision ("ieee" | "tf32", per backend and op) and call the flags
    legacy, but setting them keeps both views consistent, while setting fp32_precision to "ieee"
    leaves the legacy getters raising ("a mix of the legacy and new APIs"), and torch's own code
    still reads them (inductor's conv lowering, torch 2.15). Returns what was set, and the
    fp32_precision it reads as where torch has it (and the half GEMMs' reduced-precision reduction
    flags, left at torch's defaults), for the result file's peer.math."""
    import warnings
    b = torch.backends
    with warnings.catch_warnings():  # "old settings ... will be deprecated": they are what works
        warnings.simplefilter("ignore")
        b.cuda.matmul.allow_tf32 = bool(on)
        b.cudnn.allow_tf32 = bool(on)
        got = {"cuda.matmul.allow_tf32": bool(b.cuda.matmul.allow_tf32), "cudnn.allow_tf32": bool(b.cudnn.allow_tf32)}
        for name, obj in (("cuda.matmul", b.cuda.matmul), ("cudnn.conv", getattr(b.cudnn, "conv", None))):
            prec = getattr(obj, "fp32_precision", None)
            if isinstance(prec, str):
                got[f"{name}.fp32_precision"] = prec
        # left at torch's defaults (what a user runs), recorded: whether cuBLAS may reduce a half
        # GEMM's split-K partial sums in the half type
        for half in ("fp16", "bf16"):
            flag = getattr(b.cuda.matmul, f"allow_{half}_reduced_precision_reduction", None)
            if isinstance(flag, bool):
                got[f"cuda.matmul.allow_{half}_reduced_precision_reduction"] = flag
    if got["cuda.matmul.allow_tf32"] != bool(on) or got["cudnn.allow_tf32"] != bool(on):
        raise PeerError(f"torch did not take --tf32 {'on' if on else 'off'}: its switches read {got}")
    return got


def peer_json(args, plans=(), skipped=None, tf32=None):
    try:
        import triton
        tv = triton.__version__
    except ImportError:
        tv = None
    doc = {"tool": TOOL, "torch": torch.__version__, "triton": tv, "cuda": torch.version.cuda,
           "compile_mode": args.compile_mode or "default", "dropout": args.dropout,
           "dynamic": getattr(args, "dynamic", "none"),
           "variants": {"torch.eager": "the program op by op, one torch call per op",
                        "torch.compile": ("torch.compile(program, dynamic=False, fullgraph=True"
                                          if getattr(args, "dynamic", "none") == "none" else
                                          "torch.compile(program, dynamic=None, fullgraph=True) per case, dtype and "
                                          "width, the row dim marked dynamic (maybe_mark_dynamic)")
                                         + (f", mode='{args.compile_mode}'" if args.compile_mode else "") + ")",
                        "sol": "dst.copy_(src) of ideal_bytes / 2 (cudaMemcpyAsync), as fusionbench's sol"}}
    # what each library peer runs, per case (one name, e.g. liger, is a forward in one case and a
    # backward in another), and the version of each library it imports
    library = {}
    for p in plans:
        for v in p.variants:
            peer = find_peer(p.case.name, v)
            if peer is not None:
                library.setdefault(p.case.name, {})[v] = peer.code
                if peer.module:
                    top = peer.module.split(".")[0]
                    doc.setdefault("libraries", {})[top] = package_version(top) or "unknown"
    if library:
        doc["library_peers"] = library
    if skipped:
        doc["skipped"] = dict(skipped)
    if tf32 is not None:
        doc["math"] = dict(tf32)  # the switches as torch reads them (settings.tf32 says whether TF32 was allowed)
    return doc


def merge_peer_json(old, fresh):
    """A resumed run's library peers, libraries and skips added to the file's (the rest of `peer`
    describes the run that started the file)."""
    for c, peers in fresh.get("library_peers", {}).items():
        old.setdefault("library_peers", {}).setdefault(c, {}).update(peers)
    for key in ("libraries", "skipped"):
        if key in fresh:
            old.setdefault(key, {}).update(fresh[key])
    return old


def is_oom(e):
    oom = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError
    return isinstance(e, oom) or "out of memory" in str(e).lower()


def is_fatal_cuda(e):
    """A sticky CUDA error (illegal address, launch failure): every later call fails too."""
    s = str(e)
    return not is_oom(e) and ("CUDA error" in s or "cudaError" in s or "illegal memory access" in s)


def first_line(e, limit=400):
    s = str(e).strip().splitlines()
    s = s[0] if s else type(e).__name__
    return s[:limit]


def free_memory():
    gc.collect()
    torch.cuda.empty_cache()


# ---- the timer ---------------------------------------------------------------------------------------


class MarkedSweep:
    """The first half of the write flush, as fusionbench's (kernels/l2_sweep.cu): the flush buffer
    read with an L2 evict_last policy, then every 128-byte line of it demoted to evict_normal
    (applypriority); zero_() follows. zero_() alone leaves in L2 the lines a kernel loaded with
    evict_last (Inductor's looped reductions load their first pass that way): the next sample then
    reads part of its input from L2 and times faster than a cold read allows
    (dev/evict_last_dev.cu: a 32 MB read, 17.3 us after a memset against 20.0 us cold, H100).
    Triton kernels with inline PTX; None where Triton or the PTX is not available (the timer then
    only zeroes the buffer, and its settings say so).

    The loaded words are summed and the sum stored only if it equals SWEEP_KEY, which the sum of a
    zeroed buffer never does (l2_sweep.cu does the same). Without a use of the loads ptxas drops
    them, however the inline asm is marked: the first version of this sweep did, and so flushed
    nothing (dev/peer_flush_probe.py, H100: a 32 MiB copy timed 26.6 us after it, 26.4 us with no
    flush at all, 21.4 us after a read of the buffer by torch). make() checks that the sweep
    cools the L2 before the timer uses it."""
    CHUNK = 1 << 20  # the buffer is a whole number of these: no masked tail in either kernel
    BLOCK = 1024
    SWEEP_KEY = 0x9E3779B9

    @classmethod
    def make(cls, buf):
        try:
            import triton
            import triton.language as tl

            @triton.jit
            def _sweep(base, sink, KEY: tl.constexpr, BLOCK: tl.constexpr):
                addr = base + (tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)) * 8
                v = tl.inline_asm_elementwise(
                    "{ .reg .b64 pol; createpolicy.fractional.L2::evict_last.b64 pol, 1.0; "
                    "ld.global.L2::cache_hint.b64 $0, [$1], pol; }",
                    "=l,l", [addr], dtype=tl.int64, is_pure=False, pack=1)
                total = tl.sum(v, axis=0)
                tl.store(sink, total, mask=total == KEY)  # never true of zeros: keeps every load

            @triton.jit
            def _demote(base, BLOCK: tl.constexpr):
                addr = base + (tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)) * 128
                tl.inline_asm_elementwise(
                    "applypriority.global.L2::evict_normal [$1], 128; mov.u32 $0, 0;",
                    "=r,l", [addr], dtype=tl.int32, is_pure=False, pack=1)

            base, n = buf.data_ptr(), buf.numel()
            sink = torch.zeros(1, dtype=torch.int64, device=buf.device)
            sweep_grid, demote_grid = (n // 8 // cls.BLOCK,), (n // 128 // cls.BLOCK,)

            def run():
                _sweep[sweep_grid](base, sink, KEY=cls.SWEEP_KEY, BLOCK=cls.BLOCK)
                _demote[demote_grid](base, BLOCK=cls.BLOCK)

            run()
            torch.cuda.synchronize()
            cls.check_cools(run)
            return run
        except Exception as e:  # noqa: BLE001 - any failure falls back to zero_() alone, reported
            print(f"torch_peer: the evict_last sweep is unavailable ({e}); flushing with zero_() alone",
                  file=sys.stderr)
            return None

    @staticmethod
    def check_cools(run, n=16 << 20, reps=5):
        """A read of n bytes must time slower after the sweep than warm (bench.c's check_flush)."""
        src = torch.ones(n // 4, dtype=torch.float32, device=DEVICE)  # a float sum runs at memory speed
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def median(flush):
            xs = []
            for _ in range(reps):
                if flush:
                    run()
                else:
                    src.sum()
                if hasattr(torch.cuda, "_sleep"):  # the GPU busy while the host enqueues: no launch gap timed
                    torch.cuda._sleep(1_000_000)
                s.record()
                src.sum()
                e.record()
                e.synchronize()
                xs.append(s.elapsed_time(e))
            return sorted(xs)[reps // 2]
        warm, cold = median(False), median(True)
        if not cold > warm * 1.05:
            raise RuntimeError(f"the sweep does not cool the L2 (a {n >> 20} MiB read: {cold * 1e3:.1f} us after it, "
                               f"{warm * 1e3:.1f} us warm)")


class Timer:
    """src/bench.c's events mode in torch (see the top comment)."""
    EV_PAIRS = 512
    BATCH_GPU_MS = 25.0
    MIN_FLUSH = 256 << 20
    MAX_HOLD_MS = 200.0

    def __init__(self, warmup_ms=25.0, rep_ms=100.0, max_noise_pct=0.5, max_wall_s=5.0,
                 min_samples=10, max_samples=2000, flush="write"):
        self.warmup_ms, self.rep_ms = warmup_ms, rep_ms
        self.flush_kind = flush
        self.max_noise_pct, self.max_wall_s = max_noise_pct, max_wall_s
        self.min_samples, self.max_samples = min_samples, max_samples
        self.before_measure = None  # run: waits for a slowed SM clock (Nvml.settle), as fusionbench's cells do
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        self.flush_bytes = max(2 * int(getattr(props, "L2_cache_size", 0)), self.MIN_FLUSH)
        self.flush_bytes = -(-self.flush_bytes // MarkedSweep.CHUNK) * MarkedSweep.CHUNK
        self.flush_buf = torch.zeros(self.flush_bytes, dtype=torch.uint8, device=DEVICE)
        self.sweep = MarkedSweep.make(self.flush_buf)
        if flush == "clean" and not self.sweep:
            raise PeerError("--flush clean needs the evict_last sweep (Triton), which is unavailable here")
        self.start = [torch.cuda.Event(enable_timing=True) for _ in range(self.EV_PAIRS)]
        self.end = [torch.cuda.Event(enable_timing=True) for _ in range(self.EV_PAIRS)]
        s, e = self.start[0], self.end[0]
        self.flush()
        s.record()
        self.flush()
        e.record()
        e.synchronize()
        self.flush_ms = s.elapsed_time(e)
        # cycles of torch.cuda._sleep per ms, to hold the stream while a batch is queued
        self.cycles_per_ms = None
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(100000)
            s.record()
            torch.cuda._sleep(10_000_000)
            e.record()
            e.synchronize()
            ms = s.elapsed_time(e)
            self.cycles_per_ms = 1e7 / ms if ms > 0 else None
        self.host_ms = 0.05

    def settings(self):
        return {"timer": "events", "warmup_ms": self.warmup_ms, "rep_ms": self.rep_ms,
                "max_noise_pct": self.max_noise_pct, "max_wall_s": self.max_wall_s,
                "flush_bytes": self.flush_bytes, "flush": self.flush_kind,
                "flush_how": ("a read of the buffer with an L2 evict_last policy and every line demoted to "
                              "evict_normal, before every sample (fusionbench's --flush clean)"
                              if self.flush_kind == "clean" else
                              "a read of the buffer with an L2 evict_last policy, every line demoted to "
                              "evict_normal, then zero_() of it, before every sample (fusionbench's --flush write)"
                              if self.sweep else "zero_() of a uint8 buffer before every sample"),
                "hold": "torch.cuda._sleep while a batch is queued" if self.cycles_per_ms else "none"}

    def flush(self):
        if self.sweep:
            self.sweep()
        if self.flush_kind == "write":
            self.flush_buf.zero_()

    def _hold(self, n):
        """Holds the stream while n samples are queued (a spin sized from the host's enqueue time)."""
        if self.cycles_per_ms:
            hold = min(n * self.host_ms * 1.5 + 0.05, self.MAX_HOLD_MS)
            torch.cuda._sleep(int(hold * self.cycles_per_ms))

    def _enqueue(self, fn, n, flush, before, begin, end):
        """Queues n samples behind the hold: [before] [flush] begin(i), fn(), end(i) each; keeps the
        host's enqueue time a sample for the next hold."""
        self._hold(n)
        t0 = time.perf_counter()
        for i in range(n):
            if before is not None:
                before()
            if flush:
                self.flush()
            begin(i)
            fn()
            end(i)
        self.host_ms = (time.perf_counter() - t0) * 1e3 / n

    def batch(self, fn, n, flush=True, before=None):
        """n samples back to back; returns their times in ms. `before` (if any) runs ahead of
        every sample, outside it and ahead of the flush, so what it touches is not left in L2."""
        self._enqueue(fn, n, flush, before, lambda i: self.start[i].record(), lambda i: self.end[i].record())
        torch.cuda.synchronize()
        return [self.start[i].elapsed_time(self.end[i]) for i in range(n)]

    def _batch_size(self, launches, est_ms, remaining, flush, before=False):
        gpu_ms = est_ms + (self.flush_ms if flush else 0.0)
        by_time = int(self.BATCH_GPU_MS / gpu_ms) if gpu_ms > 0 else self.EV_PAIRS
        per_sample = max(launches, 1) + (1 if flush else 0) + (1 if before else 0) + 2
        return max(1, min(remaining, self.EV_PAIRS, 500 // per_sample, by_time))

    def _should_stop(self, xs, n_rep, t0):
        n = len(xs)
        if n >= n_rep:
            return True
        if n >= 3 and time.perf_counter() - t0 > self.max_wall_s:
            return True
        if n >= max(self.min_samples, 20) and median_rel_noise(sorted(xs)) * 100.0 < self.max_noise_pct:
            return True
        return False

    def _warm_up(self, fn, est_ms, t0, before=None):
        n_warm = min(max(math.ceil(self.warmup_ms / est_ms), 1), 100000)
        w0 = time.perf_counter()
        limit = 2 * self.warmup_ms / 1e3 + 0.05
        for i in range(n_warm):
            if before is not None:
                before()
            fn()
            if i & 31 == 31:
                now = time.perf_counter()
                if now - w0 > limit or now - t0 > self.max_wall_s / 2:
                    break
        torch.cuda.synchronize()

    def measure(self, fn, launches=1, flush=True, before=None):
        """Samples (ms) of fn, by bench.c's procedure. `before`, where given, runs untimed ahead of
        every call of fn (a library peer that overwrites an input gets it back)."""
        if self.before_measure is not None:
            self.before_measure()
        t0 = time.perf_counter()
        h0 = time.perf_counter()
        if before is not None:
            before()
        fn()  # untimed: lazy initialisation never lands in a sample
        self.host_ms = (time.perf_counter() - h0) * 1e3 + 0.01
        torch.cuda.synchronize()
        est = self.batch(fn, 1, flush, before)
        if est[0] * 4 < self.rep_ms / 10:
            est += self.batch(fn, 4, flush, before)
        e = max(quantile_sorted(sorted(est), 0.5), 1e-4)
        self._warm_up(fn, e, t0, before)
        n_rep = min(max(math.ceil(self.rep_ms / e), self.min_samples), self.max_samples)
        xs = []
        while not self._should_stop(xs, n_rep, t0):
            n = self._batch_size(launches, e, n_rep - len(xs), flush, before is not None)
            xs += self.batch(fn, n, flush, before)
        return xs


MARKER = "spin_kernel"  # torch.cuda._sleep's kernel: at::cuda::(anonymous namespace)::spin_kernel(long)


def cupti_sample_sums(acts, n, hold=False):
    """Per-sample GPU time (ns) of n samples from a batch's device activities: (name, start_ns,
    end_ns) tuples of every kernel, memcpy and memset the profiler saw on the device, in any order.
    Each sample was enqueued as [flush] marker, run, marker (MARKER kernels), after one more
    marker kernel where `hold` (the spin that holds the stream). A sample is the sum of the durations of the activities that
    start at or after its first marker's end and end at or before its second marker's start: on one
    stream exactly its run's. Raises PeerError where the markers do not pair up, where an activity
    overlaps a marker, or where a sample holds nothing (what was timed would not be the run).
    Activities may carry a fourth field, their stream: one on the first marker's own stream that
    starts while that marker runs is a programmatic dependent launch (cuDNN's
    init_device_workspace_kernel is one: results/h200/stop40), and counts from the marker's end;
    on another stream it is still an error."""
    acts = sorted(acts, key=lambda a: (a[1], a[2]))
    marks = [a for a in acts if MARKER in a[0]]
    want = 2 * n + (1 if hold else 0)
    if len(marks) != want:
        raise PeerError(f"--timer cupti: {len(marks)} marker kernels recorded for {n} samples (want {want}): "
                        "the profiler lost records, or the run launched one")
    marks = marks[len(marks) - 2 * n:]  # after the hold
    others = [a for a in acts if MARKER not in a[0]]
    sums, j = [], 0
    def stream(a):
        return a[3] if len(a) > 3 else None

    for i in range(n):
        lo, hi = marks[2 * i][2], marks[2 * i + 1][1]
        total, count = 0, 0
        while j < len(others) and others[j][1] < lo:
            a = others[j]
            if a[2] > marks[2 * i][1]:
                early = a[1] >= marks[2 * i][1] and a[2] <= hi
                if not (early and stream(a) is not None and stream(a) == stream(marks[2 * i])):
                    raise PeerError(f"--timer cupti: '{a[0]}' overlaps a sample's marker: not one stream")
                total += max(a[2] - lo, 0)  # a dependent launch: its time after the marker
                count += 1
            j += 1
        while j < len(others) and others[j][1] < hi:
            if others[j][2] > hi:
                raise PeerError(f"--timer cupti: '{others[j][0]}' overlaps a sample's marker: not one stream")
            total += others[j][2] - others[j][1]
            count += 1
            j += 1
        if count == 0:
            raise PeerError(f"--timer cupti: sample {i} of {n} recorded no GPU activity between its markers")
        sums.append(total)
    return sums


class CuptiTimer(Timer):
    """Timer with each sample's number from the profiler's activity records: the sum of its kernels',
    memcpys' and memsets' GPU durations (cupti_sample_sums), as fusionbench run --timer cupti."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        if not hasattr(torch.cuda, "_sleep"):
            raise PeerError("--timer cupti needs torch.cuda._sleep for its sample markers; this torch has none")
        from torch.profiler import ProfilerActivity, profile
        from torch.autograd import DeviceType
        self._profile, self._activity, self._cuda = profile, ProfilerActivity.CUDA, DeviceType.CUDA
        probe = torch.zeros(1024, device=DEVICE)
        self.batch(lambda: probe.add_(1.0), 2, flush=False)  # the profiler works and pairs the markers

    def settings(self):
        s = super().settings()
        s["timer"] = "cupti"
        s["timer_how"] = ("per sample, the sum of the GPU durations of the kernels, memcpys and memsets between two "
                          "marker kernels (torch.cuda._sleep(1)) enqueued after the flush and after the run, from "
                          "torch.profiler's activity records (CUPTI)")
        return s

    def _device_acts(self, prof):
        acts = []
        for e in prof.profiler.kineto_results.events():
            if e.device_type() != self._cuda:
                continue
            if hasattr(e, "start_ns"):
                t0, d = e.start_ns(), e.duration_ns()
            else:  # older torch: microseconds
                t0, d = e.start_us() * 1000, e.duration_us() * 1000
            # the stream, where this torch says (device_resource_id): cupti_sample_sums tells a
            # dependent launch on the markers' stream from another stream's work by it
            rid = e.device_resource_id() if hasattr(e, "device_resource_id") else None
            acts.append((e.name(), t0, t0 + d) if rid is None else (e.name(), t0, t0 + d, rid))
        return acts

    def batch(self, fn, n, flush=True, before=None):
        def mark(_):
            torch.cuda._sleep(1)

        with self._profile(activities=[self._activity]) as prof:
            self._enqueue(fn, n, flush, before, mark, mark)
            torch.cuda.synchronize()
        return [ns / 1e6 for ns in cupti_sample_sums(self._device_acts(prof), n, bool(self.cycles_per_ms))]


# ---- checks ---------------------------------------------------------------------------------------------

class Reference:
    """The float64 evaluation of the program (fusionbench's dropout mask) on the cell's inputs,
    in full, on a sample of rows, or over every row in chunks when some outputs are sums over the
    rows (SumPlan); `check` compares a variant's outputs against it."""

    def __init__(self, case, shapes, inputs):
        self.case, self.shapes = case, shapes
        self.mode, self.why, self.rows, self.rows_t, self.want = "none", "", None, None, None
        self.plan, self.n_rows, self.sums = None, 0, None
        # A convolution in float64 goes through PyTorch's own kernels (im2col and a GEMM), not cuDNN:
        # cuDNN is what the variants are timed with, it has few float64 algorithms (NHWC least: a cell
        # it refused would go unchecked), and a reference should not share the code it judges.
        cudnn = getattr(getattr(torch, "backends", None), "cudnn", None)
        was = getattr(cudnn, "enabled", None)
        if was is not None:
            cudnn.enabled = False
        try:
            self.evaluate(case, shapes, inputs)
        finally:
            if was is not None:
                cudnn.enabled = was

    def evaluate(self, case, shapes, inputs):
        biggest = max(numel(s) for s in shapes.values())
        if biggest <= FULL_LIMIT:
            fn = build_function(generate(case, "hash"), program_namespace(), f"{case.name} float64")
            self.want = [w.double() for w in fn(*[x.double() for x in inputs])]
            self.mode = "full"
            return
        plan = row_plan(case, shapes)
        if not plan.separable:
            sums = sum_plan(case, shapes)
            if sums.ok:
                self.summed(sums, inputs)
                return
            why = plan.why if sums.why == plan.why else f"{plan.why}; by chunks of rows: {sums.why}"
            self.why = f"unchecked: too large to check in full ({biggest} elements) and not row-separable: {why}"
            return
        self.plan = plan
        self.n_rows = plan.n_rows
        self.rows = pick_rows(plan.n_rows, max(2, SAMPLE_LIMIT // max(plan.per_row, 1)))
        self.rows_t = torch.tensor(self.rows, dtype=torch.int64, device=DEVICE)
        fn = build_function(generate(case, "hash", plan.axis), program_namespace(), f"{case.name} float64 rows")
        self.mode = "sampled"  # for sample_inputs; reset below if the sample does not line up
        sampled = [x.double() for x in self.sample_inputs(inputs)]
        self.want = [w.double() for w in fn(*sampled, _rows=(self.rows_t, plan.n_rows))]
        for o, w in zip(case.outputs, self.want):
            full = list(shapes[o])
            a = plan.axis[o]
            if a is not None:
                full[a] = len(self.rows)
            if list(w.shape) != full:
                self.mode, self.want = "none", None
                self.why = f"unchecked: the row sample of output {o} has shape {list(w.shape)}, expected {full}"
                return

    def summed(self, sums, inputs):
        """Every row in float64, a chunk of rows at a time (row_chunks, CHUNK_LIMIT): the chunks'
        parts of the sums over the rows added up in chunk order, the row outputs kept on the rows
        sum_rows picks. No dropout here (sum_plan refuses it)."""
        case = self.case
        self.sums, self.n_rows = sums, sums.n_rows
        self.rows = sum_rows(sums, self.shapes)
        self.rows_t = torch.tensor(self.rows, dtype=torch.int64, device=DEVICE)
        fn = build_function(generate(case, "hash"), program_namespace(), f"{case.name} float64 chunks")
        totals = {o: None for o in sums.sum_outputs}
        kept = {o: [] for o in sums.row_outputs}
        for r0, n, box in row_chunks(sums.sizes, max(1, CHUNK_LIMIT // max(sums.per_row, 1))):
            chunk = [x[tuple(slice(None) if a is None else box[a] for a in sums.axes[i.name])].double()
                     for i, x in zip(case.inputs, inputs)]
            outs = dict(zip(case.outputs, fn(*chunk)))
            for o in sums.sum_outputs:
                totals[o] = outs[o].double() if totals[o] is None else totals[o] + outs[o]
            lo, hi = bisect.bisect_left(self.rows, r0), bisect.bisect_left(self.rows, r0 + n)
            if lo < hi:  # the sampled rows in this chunk, as indices into it
                for o in sums.row_outputs:
                    kept[o].append(outs[o].reshape(n, -1).index_select(0, self.rows_t[lo:hi] - r0).double())
            del chunk, outs
        self.want = [totals[o] if o in totals else torch.cat(kept[o]) for o in case.outputs]
        self.mode = "sampled" if len(self.rows) < self.n_rows and sums.row_outputs else "full"
        for o, w in zip(case.outputs, self.want):
            full = list(self.shapes[o]) if o in totals else [len(self.rows), numel(self.shapes[o]) // self.n_rows]
            if list(w.shape) != full:
                self.mode, self.want = "none", None
                self.why = f"unchecked: the chunked reference of output {o} has shape {list(w.shape)}, expected {full}"
                return

    def sample_inputs(self, inputs):
        """The inputs as the reference reads them: whole, or only the sampled rows."""
        if self.mode != "sampled":
            return list(inputs)
        return [x if self.plan.axis[i.name] is None else x.index_select(self.plan.axis[i.name], self.rows_t)
                for i, x in zip(self.case.inputs, inputs)]

    def run_hash(self, fn, inputs):
        """Run a hash-mode program on the reference's inputs (whole or sampled rows) in their dtype."""
        if self.mode == "sampled":
            return fn(*self.sample_inputs(inputs), _rows=(self.rows_t, self.n_rows))
        return fn(*inputs)

    def check(self, outs, tol, presampled=False):  # noqa: C901
        """fusionbench's check record (src/cell.c check_json) for a variant's outputs (full
        tensors, or already the sampled rows when `presampled`)."""
        atol0, rtol = tol[0], tol[1]
        stated = len(tol) > 2 and tol[2]
        res = {"mode": self.mode}
        if self.mode == "none":
            res.update({"passed": False, "unchecked": True, "why": self.why})
            return res
        elements, n_bad, max_abs, max_rel = 0, 0, 0.0, 0.0
        worst = None  # ((any bad, excess), output, full index, got, want)
        for k, (o, out, want) in enumerate(zip(self.case.outputs, outs, self.want)):
            if self.sums is not None:  # a row output: its sampled rows, as [rows, elements of a row]
                rows = o in self.sums.row_outputs and tuple(out.shape) == tuple(self.shapes[o])
                got = (out.reshape(self.n_rows, -1).index_select(0, self.rows_t) if rows else out).double()
            else:
                a = self.plan.axis[o] if self.mode == "sampled" and not presampled else None
                got = (out if a is None else out.index_select(a, self.rows_t)).double()
            if tuple(got.shape) != tuple(want.shape):
                res.update({"passed": False, "bad": int(want.numel()),
                            "why": f"output {o} has shape {list(out.shape)}, want {list(self.shapes[o])}"})
                return res
            err = (got - want).abs()
            both_inf = torch.isinf(got) & torch.isinf(want) & (torch.sign(got) == torch.sign(want))
            err = torch.where(both_inf, torch.zeros_like(err), err)
            # fusionbench's rule (src/check.c fb_tolerance): a default tolerance widens with the
            # output's scale, atol + rtol * median |want|; a tolerance the case states is used as is.
            atol = atol0 if stated else atol0 + rtol * typical_magnitude(want)
            bound = atol + rtol * want.abs()
            bad = torch.isnan(got) | torch.isnan(want) | ~(err <= bound)
            err_inf = torch.where(torch.isnan(err), torch.full_like(err, math.inf), err)
            rel = torch.where(want != 0, err_inf / want.abs(),
                              torch.where(err_inf != 0, torch.full_like(err, math.inf), torch.zeros_like(err)))
            excess = torch.where(bound > 0, err_inf / bound,
                                 torch.where(err_inf > 0, torch.full_like(err, math.inf), torch.zeros_like(err)))
            nb = int(bad.sum())
            elements += got.numel()
            n_bad += nb
            if got.numel() == 0:
                continue
            max_abs = max(max_abs, float(err_inf.max()))
            max_rel = max(max_rel, float(rel.max()))
            # the worst element: the bad one furthest past its bound, else the closest to its bound
            score = torch.where(torch.isnan(excess), torch.full_like(excess, math.inf), excess)
            if nb:
                score = torch.where(bad, score, torch.full_like(score, -1.0))
            flat = int(torch.argmax(score.reshape(-1)))
            rank = (nb > 0, float(score.reshape(-1)[flat]))
            if worst is None or rank > worst[0]:
                worst = (rank, k, self._full_index(o, got.shape, flat),
                         float(got.reshape(-1)[flat]), float(want.reshape(-1)[flat]))
        res.update({"passed": n_bad == 0, "elements": elements, "max_abs": max_abs, "max_rel": max_rel, "bad": n_bad})
        if self.mode == "sampled":
            res["rows_checked"] = len(self.rows)
            res["rows_total"] = self.n_rows
        if worst is not None:
            res.update({"worst_output": worst[1], "worst_index": worst[2], "got": worst[3], "want": worst[4]})
        if n_bad:
            res["why"] = (f"{n_bad} of {elements} checked elements outside atol {atol:g} + rtol {rtol:g}; worst: "
                          f"output {worst[1]} [{worst[2]}] of {self.case.outputs[worst[1]]} got {worst[3]:.9g} "
                          f"want {worst[4]:.9g}")
        elif self.sums is not None:
            res["why"] = sums_why(self.sums, len(self.rows))
        elif self.mode == "sampled":
            res["why"] = (f"{len(self.rows)} of {self.n_rows} rows sampled (first, last and "
                          f"{max(len(self.rows) - 2, 0)} hashed)")
        return res

    def _full_index(self, output, sampled_shape, flat):
        """Row-major index in the full output of element `flat` of the checked tensor."""
        if self.sums is not None:  # a row output is checked as [sampled rows, elements of a row]
            if output not in self.sums.row_outputs:
                return flat
            per = sampled_shape[1]
            return self.rows[flat // per] * per + flat % per
        coords = []
        for d in reversed(sampled_shape):
            coords.append(flat % d)
            flat //= d
        coords.reverse()
        a = self.plan.axis[output] if self.mode == "sampled" else None
        if a is not None:
            coords[a] = self.rows[coords[a]]
        idx = 0
        for c, d in zip(coords, self.shapes[output]):
            idx = idx * d + c
        return idx


def program_namespace():
    return {"torch": torch, "F": torch.nn.functional, "_fb_dropout": _fb_dropout}


# ---- one cell ---------------------------------------------------------------------------------------------

TORCH_DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16", "float64": "float64"}


def input_seed(seed, i):
    return (seed * 0x9E3779B97F4A7C15 + i * 0x632BE59BD9B4E019 + 1) & ((1 << 63) - 1)


class CellRunner:
    def __init__(self, args, timer, nvml=None):
        self.args, self.timer, self.nvml = args, timer, nvml
        self.eager_fn = {}  # case name -> the op-by-op function (the timed form)

    def functions(self, case):
        if case.name not in self.eager_fn:
            src = generate(case, self.args.dropout)
            self.eager_fn[case.name] = build_function(src, program_namespace(), f"{case.name} {self.args.dropout}")
        return self.eager_fn[case.name]

    def run(self, case, dtype, point, shapes, costs, variants):
        """One cell: inputs, reference, the copy, then each variant. Returns (cell, failed)."""
        args = self.args
        cell = new_cell(point[case.axes[0][0]], point[case.axes[1][0]] if len(case.axes) > 1 else None,
                        {s: point[s] for s in case.symbols}, costs, {i.name: shapes[i.name] for i in case.inputs})
        clocks_before = self.nvml.read() if self.nvml else None
        clocks_after = None  # after the last variant's samples
        if self.nvml:
            self.nvml.settled_ms = 0.0
        tdt = getattr(torch, TORCH_DTYPES[dtype])
        # Memory is given back (free_memory) only after an except clause ends: until then the
        # exception's traceback holds the frames, and so the tensors, of the call that failed.
        inputs, ref, setup_error, ref_why = [], None, None, ""
        try:
            for k, i in enumerate(case.inputs):
                gen = torch.Generator(device=DEVICE)
                gen.manual_seed(input_seed(args.seed, k))
                inputs.append(INITS[i.init].build(torch, shapes[i.name], tdt, gen))
            torch.cuda.synchronize()
        except Exception as e:  # the cell cannot be set up: every variant shares its fate
            if is_fatal_cuda(e):
                raise
            setup_error = ("oom" if is_oom(e) else "error", f"inputs: {first_line(e)}")
        if setup_error:
            del inputs
            free_memory()
            status, reason = setup_error
            cell["sol"] = {"status": status, "reason": reason}
            for v in variants:
                cell["variants"][v] = {"status": status, "reason": reason}
            return cell, False
        try:
            ref = Reference(case, shapes, inputs)
        except Exception as e:
            if is_fatal_cuda(e):
                raise
            ref, ref_why = None, f"unchecked: the float64 reference failed: {first_line(e)}"
        free_memory()
        cell["sol"] = self.measure_sol(inputs, costs) if not args.no_time else {"status": "skipped", "reason": "--no-time"}

        twin = None
        if ref is not None and args.dropout == "torch" and case.uses_dropout():
            twin = self.hash_twin(case, inputs, ref, dtype)
        failed = False
        fn = self.functions(case)
        for v in variants:
            entry = {"status": "error", "reason": "did not finish"}  # status first, as fusionbench writes it
            cell["variants"][v] = entry
            try:
                self.run_variant(v, case, fn, inputs, ref, dtype, costs, cell, entry, twin)
                # read at once: the clocks climb back within milliseconds of the last sample, and
                # free_memory's collection takes longer (stop 30: 1980 MHz read after it where
                # fusionbench, which reads as its cell returns, saw 1395)
                clocks_after = self.nvml.read() if self.nvml else None
            except Exception as e:
                if is_fatal_cuda(e):
                    raise
                entry.clear()
                entry.update({"status": "oom" if is_oom(e) else "error", "reason": first_line(e)})
            free_memory()  # one variant's memory never crowds the next into OOM
            if ref is None and "check" not in entry and entry.get("status") == "ok":
                entry["check"] = {"mode": "none", "passed": False, "unchecked": True, "why": ref_why}
            failed |= entry.get("status") == "fail"
        del inputs, ref
        free_memory()
        if clocks_before is not None:
            cell["clocks"] = {"before": clocks_before, "after": clocks_after or self.nvml.read()}
            if self.nvml.settled_ms >= 1:  # whole ms, as fusionbench writes it
                cell["clocks"]["settle_ms"] = float(math.floor(self.nvml.settled_ms))
        return cell, failed

    def measure_sol(self, inputs, costs):
        half = sol_copy_bytes(costs["ideal_bytes"])
        if half == 0:
            return {"status": "skipped", "reason": "no bytes to copy"}
        src = dst = None
        try:
            x = inputs[0]
            if x.is_contiguous() and x.numel() * x.element_size() >= half:
                src = x.reshape(-1).view(torch.uint8)[:half]
            else:
                src = torch.ones(half, dtype=torch.uint8, device=DEVICE)
            dst = torch.empty(half, dtype=torch.uint8, device=DEVICE)
            xs = self.timer.measure(lambda: dst.copy_(src), launches=1)
            return sol_entry(xs, half)
        except Exception as e:
            if is_fatal_cuda(e):
                raise
            return {"status": "oom" if is_oom(e) else "error", "reason": first_line(e)}
        finally:
            del src, dst
            free_memory()

    def hash_twin(self, case, inputs, ref, dtype):
        """The program with fusionbench's dropout mask, op by op in the cell's dtype, on the rows the
        reference holds, checked against it."""
        if ref.mode == "none":
            return {"mode": "none", "passed": False, "unchecked": True, "why": ref.why}
        try:
            axes = ref.plan.axis if ref.mode == "sampled" else None
            fn = build_function(generate(case, "hash", axes), program_namespace(), f"{case.name} hash twin")
            outs = ref.run_hash(fn, inputs)
            torch.cuda.synchronize()
            res = ref.check(outs, case.tol[dtype], presampled=True)
            del outs
            return res
        except Exception as e:
            if is_fatal_cuda(e):
                raise
            why = f"the hash-mask twin could not run: {first_line(e)}"
        free_memory()
        return {"mode": "none", "passed": False, "unchecked": True, "why": why}

    def run_variant(self, name, case, fn, inputs, ref, dtype, costs, cell, entry, twin):
        args = self.args
        launches = len(case.nodes)
        peer = find_peer(case.name, name)
        before = None
        if peer is not None:
            why = peer.unsupported(dtype)
            if why:
                entry.clear()
                entry.update({"status": "skipped", "reason": why})
                return
            # set up outside the timed region (a backward's forward runs here); its memory is
            # allocated before `base`, so peak_bytes is what the timed call adds
            call = peer.prepare({i.name: x for i, x in zip(case.inputs, inputs)})
            run, launches, before = call.fn, call.launches, call.before
        elif name == "torch.compile":
            kernels0 = _inductor_kernel_count()
            if args.dynamic == "rows":
                fn = self.compiled_for_rows(case, fn, inputs, dtype)
            else:
                torch._dynamo.reset()
                fn = torch.compile(fn, mode=args.compile_mode, dynamic=False, fullgraph=True)
            launches = 4
        if peer is None:  # torch.eager, torch.compile: the case's program on the cell's inputs
            def run():
                return fn(*inputs)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        if before is not None:
            before()
        t0 = time.perf_counter()
        outs = run()
        torch.cuda.synchronize()
        first_s = time.perf_counter() - t0
        if name == "torch.compile":
            entry["compile_s"] = first_s
            k = _inductor_kernel_count()
            if k is not None and kernels0 is not None and k > kernels0:
                entry["kernels"] = k - kernels0
        elif peer is None:
            entry["kernels"] = len(case.nodes)
        if ref is None:
            check = None
        elif twin is not None:
            check = {"mode": "none", "passed": False, "unchecked": True,
                     "why": "unchecked: torch RNG mask (F.dropout draws torch's Philox mask, not fusionbench's hash); "
                            "the same program with fusionbench's mask, op by op in torch: "
                            + ("passed" if twin.get("passed") else "FAILED" if twin.get("mode") != "none" else "not run"),
                     "hash_twin": twin}
        else:
            check = ref.check(outs, case.tol[dtype])
        del outs
        status = "ok"
        if check is not None:
            entry["check"] = check
            bad = check.get("hash_twin", check)
            if bad.get("mode") != "none" and not bad.get("passed"):
                status = "fail"
        entry["status"] = status
        entry.pop("reason", None)
        if status == "fail":
            entry["reason"] = entry["check"].get("why") or entry["check"].get("hash_twin", {}).get("why", "check failed")
        if not args.no_time:
            xs = self.timer.measure(run, launches=launches, before=before)
            sol = cell.get("sol", {})
            sol_ms = sol.get("time_ms", {}).get("median") if sol.get("status") == "ok" else None
            timed_entry(entry, xs, costs["ideal_bytes"], costs["flops"], sol_ms)
        entry["peak_bytes"] = int(torch.cuda.max_memory_allocated() - base)
        if name == "torch.compile":
            del fn
            if args.dynamic != "rows":
                torch._dynamo.reset()

    def compiled_for_rows(self, case, fn, inputs, dtype):
        """--dynamic rows: one compiled function per case, dtype and every input shape but its leading
        (row) dim (of the inputs that lead with the rows: leading_row_inputs), with that dim marked
        dynamic: the reduced width and everything else stay static, as
        with dynamic=False, while a grid's ten row counts share one compile. A fresh code object per key
        keeps each its own dynamo cache, so a new width never turns the width dynamic."""
        rows = set(leading_row_inputs(case, value_shapes(case, {i.name: tuple(x.shape)
                                                                 for i, x in zip(case.inputs, inputs)})))
        marked = [i.name in rows and x.dim() >= 2 for i, x in zip(case.inputs, inputs)]
        key = (case.name, str(dtype), tuple(tuple(x.shape[1:]) if m else tuple(x.shape) for x, m in zip(inputs, marked)))
        if not hasattr(self, "_compiled"):
            self._compiled = {}
        for x, m in zip(inputs, marked):
            if m:  # a matmul's B and a convolution's w keep every dim static
                torch._dynamo.maybe_mark_dynamic(x, 0)
        if key not in self._compiled:
            fresh = types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
            self._compiled[key] = torch.compile(fresh, mode=self.args.compile_mode, dynamic=None, fullgraph=True)
        return self._compiled[key]


def _inductor_kernel_count():
    try:
        from torch._inductor import metrics
        return int(metrics.generated_kernel_count)
    except Exception:
        return None


# ---- subcommands --------------------------------------------------------------------------------------

def split_overrides(extra):
    """--AXIS LIST options (any grid symbol, as fusionbench takes them): {symbol: [values]}."""
    out, i = {}, 0
    while i < len(extra):
        a = extra[i]
        if not a.startswith("--") or len(a) < 3:
            raise UsageError(f"unexpected argument '{a}'; see 'torch_peer.py run --help'")
        if "=" in a:
            name, val = a[2:].split("=", 1)
        else:
            if i + 1 >= len(extra):
                raise UsageError(f"{a} needs a value; see 'torch_peer.py run --help'")
            name, val = a[2:], extra[i + 1]
            i += 1
        out[name] = parse_axis_list(f"--{name}", val)
        i += 1
    return out


def select_dtypes(case, spec):
    if not spec:
        return [case.dtypes[0]]
    if spec == "all":
        return list(case.dtypes)
    out = []
    for tok in spec.split(","):
        try:
            d = canonical_dtype(tok)
        except ValueError as e:
            raise UsageError(f"--dtype: {e}") from None
        if d not in case.dtypes:
            raise UsageError(f"--dtype: case '{case.name}' does not list {d}")
        if d not in out:
            out.append(d)
    return out


def case_variants(case_name):
    """What a case can run: torch.eager, torch.compile, then its library peers (PEERS)."""
    return list(VARIANTS) + [p.name for p in case_peers(case_name)]


def select_variants(spec, case_names=None):
    """--variants A,B: the names asked for, each known (a typo is a usage error). None: every
    variant of each case. A library peer runs only for the cases that have it (PEERS), but at
    least one of case_names must have every name asked for."""
    if not spec:
        return None
    known = list(VARIANTS) + peer_names()
    out = []
    for tok in spec.split(","):
        if tok not in known:
            raise UsageError(f"--variants: no variant '{tok}'{suggest(tok, known)} (have {', '.join(known)})")
        if case_names is not None and not any(tok in case_variants(c) for c in case_names):
            cases = sorted(c for c in PEERS if tok in case_variants(c))
            raise UsageError(f"--variants: {', '.join(case_names)} {'has' if len(case_names) == 1 else 'have'} "
                             f"no variant '{tok}' (a library peer of {', '.join(cases)})")
        if tok not in out:
            out.append(tok)
    return out


@dataclass
class Plan:
    case: Case
    dtypes: list
    axes: list
    fixed: dict
    variants: list  # in the order the result file lists them


def make_plans(args, overrides):
    if args.all and args.case:
        raise UsageError("--all and --case exclude each other")
    specs = [s for c in (args.case or []) for s in c.split(",") if s] if not args.all else case_names()
    if not specs:
        raise UsageError("which case? give --case NAME or --all")
    plans = []
    for spec in specs:
        case = find_case(spec)
        dtypes = select_dtypes(case, args.dtype)
        axes, fixed = plan_axes(case, overrides, args.quick)
        for r, c, point in grid_points(axes, fixed):  # overrides may make shapes that do not fit
            shapes = program_shapes(case, point)
            for d in dtypes:
                program_costs(case, shapes, d)
        plans.append(Plan(case, dtypes, axes, fixed, case_variants(case.name)))
    wanted = select_variants(getattr(args, "variants", None), [p.case.name for p in plans])
    if wanted is not None:
        for p in plans:
            p.variants = [v for v in wanted if v in p.variants]
        plans = [p for p in plans if p.variants]  # --variants liger --all: only the cases with it
    return plans


def fmt_us(entry):
    t = (entry or {}).get("time_ms", {}).get("median") if (entry or {}).get("status") == "ok" else None
    if t is None:
        return (entry or {}).get("status", "-").upper()
    return f"{t * 1e3:.1f} us"


def cmd_run(args, extra):
    overrides = split_overrides(extra)
    plans = make_plans(args, overrides)  # bad input costs nothing: before torch and the GPU
    out = args.out or args.resume or time.strftime("torch-peer-%Y%m%d-%H%M%S.json")
    doc = None
    if args.resume:
        try:
            doc = json.loads(Path(args.resume).read_text())
        except (OSError, ValueError) as e:
            raise PeerError(f"{args.resume}: cannot read the result file to resume: {e}") from None
        if not isinstance(doc, dict) or "peer" not in doc or not isinstance(doc.get("cases"), list):
            raise CaseError(f"{args.resume}: not a torch_peer result file")
        check_resume(doc, args.resume, plans)
        had_tf32 = bool((doc.get("settings") or {}).get("tf32", False))  # files from before --tf32: IEEE float32
        had_flush = str((doc.get("settings") or {}).get("flush") or "write")  # older files: write
        if had_flush not in ("write", "clean"):
            had_flush = "write"
        had_timer = str((doc.get("settings") or {}).get("timer") or "events")  # older files: events
        for opt, had, want in (("flush", had_flush, args.flush), ("timer", had_timer, args.timer)):
            if had != want:
                raise UsageError(f"{args.resume} was measured with --{opt} {had}, this run would use --{opt} "
                                 f"{want}: a result file holds one {opt}")
        if had_tf32 != args.tf32:
            raise UsageError(f"{args.resume}: measured {'with' if had_tf32 else 'without'} --tf32; resume it "
                             f"{'with' if had_tf32 else 'without'} --tf32, or write another file")
    if not (0 <= args.settle <= 10000):  # fusionbench run --settle's bounds (NaN fails too)
        raise UsageError(f"--settle: expected a number from 0 to 10000, got '{args.settle:g}'")
    load_torch()
    tf32 = set_tf32(args.tf32)
    skipped = drop_missing_peers(plans)  # one message per library that does not import; the run goes on
    if not plans:
        raise PeerError("no variant left to run: " + "; ".join(f"{v}: {w}" for v, w in skipped.items()))
    timer = (CuptiTimer if args.timer == "cupti" else Timer)(args.warmup, args.rep, args.max_noise, args.max_time,
                                                             flush=args.flush)
    command = " ".join([TOOL] + args.argv)
    if doc is None:
        settings = timer.settings() | {"seed": args.seed, "tf32": args.tf32, "settle_max_ms": args.settle}
        doc = new_result(command, device_json(), settings, peer_json(args, plans, skipped, tf32))
    else:
        doc.setdefault("resumed", []).append({"at": iso_now(), "command": command})
        merge_peer_json(doc.setdefault("peer", {}), peer_json(args, plans, skipped, tf32))
    write_atomic(doc, out)  # a file that cannot be written is found out now, not after an hour

    bus = pci_bus_id(torch.cuda.get_device_properties(torch.cuda.current_device()))
    nvml = Nvml.open(bus) if bus else None
    if nvml and args.settle > 0:
        timer.before_measure = lambda: nvml.settle(args.settle)
    runner = CellRunner(args, timer, nvml)
    total = sum(len(p.dtypes) * len(list(grid_points(p.axes, p.fixed))) for p in plans)
    t_start = time.perf_counter()
    done = failed_cells = oom_cells = 0
    stopped = False
    for p in plans:
        variants = p.variants
        ce = case_entry(doc, p.case, p.axes, variants, p.fixed)
        for dtype in p.dtypes:
            de = dtype_entry(ce, dtype)
            for row, col, point in grid_points(p.axes, p.fixed):
                done += 1
                fx = {sym: point[sym] for sym in p.fixed}
                old = find_cell(de, row, col, fx)
                if cell_done(old, variants):
                    continue
                if args.budget and time.perf_counter() - t_start > args.budget:
                    stopped = True
                    break
                shapes = program_shapes(p.case, point)
                costs = program_costs(p.case, shapes, dtype)
                t_cell = time.perf_counter()
                try:
                    cell, failed = runner.run(p.case, dtype, point, shapes, costs, variants)
                except Exception as e:  # a sticky CUDA error: nothing after it can be trusted
                    doc["finished"] = iso_now()
                    write_atomic(doc, out)
                    raise PeerError(f"{p.case.name} {dtype} {point_str(p.axes, point, p.fixed)}: {first_line(e)} "
                                    f"(the run cannot go on; what was measured before is in {out})") from e
                if old is not None:
                    for v, e in old.get("variants", {}).items():  # what an earlier run timed and this one does not
                        cell["variants"].setdefault(v, e)
                    de["cells"].remove(old)
                de["cells"].append(cell)
                failed_cells += failed
                oom_cells += any(v.get("status") == "oom" for v in cell["variants"].values())
                write_atomic(doc, out)
                el = int(time.perf_counter() - t_start)
                print(f"[{done}/{total}] {p.case.name} {dtype} {point_str(p.axes, point, p.fixed)}: sol {fmt_us(cell.get('sol'))}, "
                      + ", ".join(f"{v} {fmt_us(cell['variants'].get(v))}" for v in variants)
                      + f"  ({time.perf_counter() - t_cell:.1f} s; {el // 60}:{el % 60:02d} elapsed)",
                      file=sys.stderr, flush=True)
            if stopped:
                break
        if stopped:
            break
    doc["finished"] = iso_now()
    write_atomic(doc, out)
    print(f"torch_peer: {done} cells in {time.perf_counter() - t_start:.1f} s; results in {out}", file=sys.stderr)
    if stopped:
        print(f"torch_peer: stopped at the --budget of {args.budget:g} s; continue with --resume {out}", file=sys.stderr)
    if oom_cells:
        print(f"torch_peer: {oom_cells} cells out of device memory (marked oom)", file=sys.stderr)
    if failed_cells:
        raise CheckFailed(f"{failed_cells} cell{'s' if failed_cells > 1 else ''} failed the correctness check; see {out}")
    return EXIT_OK


class CheckFailed(PeerError):
    code = EXIT_CHECK


def cmd_code(args, extra):
    if extra:
        raise UsageError(f"unexpected argument '{extra[0]}'")
    for spec in [s for c in args.case for s in c.split(",") if s]:
        case = find_case(spec)
        print(f"# {case.name}: {case.summary}")
        print(generate(case, args.dropout))
        peers = case_peers(case.name)
        if peers:
            print(f"# library peers of {case.name} (variants beside torch.eager and torch.compile):")
            for peer in peers:
                only = "" if set(peer.dtypes) >= set(case.dtypes) else f" [{', '.join(peer.dtypes)} only]"
                print(f"#   {peer.name}: {peer.code}{only}")
            print()
    return EXIT_OK


def cmd_copy(args, extra):
    if extra:
        raise UsageError(f"unexpected argument '{extra[0]}'")
    load_torch()
    n = args.bytes
    timer = Timer(args.warmup, args.rep, 0.5, 5.0)
    src = torch.empty(n, dtype=torch.uint8, device=DEVICE).fill_(1)
    dst = torch.empty_like(src)
    st = stats(timer.measure(lambda: dst.copy_(src)))
    ms = st["median"]
    print(f"torch copy {n} bytes: median {ms * 1e3:.1f} us, {2 * n / (ms * 1e-3) / 1e9:.1f} GB/s (read + write)")
    return EXIT_OK


def parser():
    p = argparse.ArgumentParser(prog="torch_peer.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    sub = p.add_subparsers(dest="cmd", required=True, metavar="{run,code,copy}")

    r = sub.add_parser("run", allow_abbrev=False, formatter_class=argparse.RawDescriptionHelpFormatter,
                       help="time torch eager, torch.compile and the copy over case grids; write a result file",
                       description="Builds each case's program in PyTorch and measures torch.eager, torch.compile\n"
                                   "and the speed-of-light copy on every cell of its grid: checked against float64,\n"
                                   "timed as fusionbench times, written as a fusionbench result file (put it beside\n"
                                   "fusionbench's with scripts/peer_compare.py). The top of 'torch_peer.py --help'\n"
                                   "says how it times, checks and treats dropout.\n\n"
                                   "  --AXIS LIST          replace a grid axis, e.g. --dim1 61,130,1027 or --dim0 128:65536\n"
                                   "                       (a:b is every power of two from a to b), or a fixed symbol's\n"
                                   "                       values (--K 64,4096: one grid per value), as fusionbench run")
    r.add_argument("--case", action="append", metavar="NAME", help="a bundled case or a path to a case file; "
                   "repeatable, or comma-separated")
    r.add_argument("--all", action="store_true", help="every bundled case (cases/*.json, or $FUSIONBENCH_CASES)")
    r.add_argument("--dtype", metavar="T[,T]", help="float32, float16, bfloat16, float64, or 'all' "
                   "(default: the case's first)")
    r.add_argument("--variants", metavar="A,B", help="torch.eager, torch.compile, and a case's library peers: "
                   + ", ".join(peer_names()) + " (default: every one the case has)")
    r.add_argument("--quick", action="store_true", help="only the first, middle and last value of each axis and fixed symbol")
    r.add_argument("--warmup", type=float, default=25.0, metavar="MS", help="warm-up per measurement (default 25)")
    r.add_argument("--rep", type=float, default=100.0, metavar="MS", help="measured time per measurement (default 100)")
    r.add_argument("--max-noise", type=float, default=0.5, metavar="PCT",
                   help="stop a measurement once the median's noise is below PCT (default 0.5)")
    r.add_argument("--max-time", type=float, default=5.0, metavar="S", help="wall cap per measurement (default 5)")
    r.add_argument("--settle", type=float, default=1000.0, metavar="MS",
                   help="before each measurement, wait up to MS while the SM clock is more than 5%% below the "
                        "highest the run has read, as fusionbench run --settle (default 1000; 0: never)")
    r.add_argument("--seed", type=int, default=1, metavar="N", help="input seed (default 1)")
    r.add_argument("--compile-mode", metavar="MODE", default=None,
                   help="torch.compile mode: default (unset), reduce-overhead, max-autotune, max-autotune-no-cudagraphs")
    r.add_argument("--dynamic", choices=("none", "rows"), default="none",
                   help="none (default): dynamic=False, compiled afresh for every cell; rows: one compile per "
                        "case, dtype and width, the row count marked dynamic (a grid in a tenth of the compiles)")
    r.add_argument("--dropout", choices=("torch", "hash"), default="torch",
                   help="time dropout as F.dropout (torch, default; checked through the hash twin) or as "
                        "fusionbench's hash mask in torch ops (hash)")
    r.add_argument("--tf32", action="store_true",
                   help="let float32 matmuls and convolutions use TF32 (cuBLAS, cuDNN; eager and torch.compile "
                        "alike), as fusionbench run --tf32; default: IEEE float32 (recorded as settings.tf32)")
    r.add_argument("--flush", choices=("write", "clean"), default="write",
                   help="the L2 flush before every sample: write (default: the evict_last sweep, then zero_() of "
                        "the buffer, as fusionbench run --flush write and do_bench) or clean (the sweep alone: no "
                        "dirty lines, as fusionbench's default --flush clean)")
    r.add_argument("--timer", choices=("events", "cupti"), default="events",
                   help="events (default: an event pair around each sample, as fusionbench run) or cupti (each "
                        "sample's kernel, memcpy and memset durations summed, from torch.profiler's records, as "
                        "fusionbench run --timer cupti)")
    r.add_argument("--no-time", action="store_true", help="check only: time neither the variants nor the copy")
    r.add_argument("--out", metavar="FILE", help="result file (default torch-peer-YYYYmmdd-HHMMSS.json)")
    r.add_argument("--resume", metavar="FILE", help="continue a run: skip cells complete in FILE, keep writing to it")
    r.add_argument("--budget", type=float, metavar="S",
                   help="start no new cell after S seconds (then --resume the file to go on)")

    c = sub.add_parser("code", help="print the PyTorch function generated for a case, and its library peers "
                       "(no torch needed)")
    c.add_argument("--case", action="append", required=True, metavar="NAME")
    c.add_argument("--dropout", choices=("torch", "hash"), default="torch")

    k = sub.add_parser("copy", help="device-to-device copy bandwidth (the figure `fusionbench env` must agree with)")
    k.add_argument("--bytes", type=int, default=2 << 30)
    k.add_argument("--warmup", type=float, default=25.0, metavar="MS")
    k.add_argument("--rep", type=float, default=100.0, metavar="MS")
    return p


def main(argv=None):
    p = parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args, extra = p.parse_known_args(argv)
    args.argv = argv
    try:
        if args.cmd == "run":
            for name, lo in (("warmup", 0.0), ("rep", 0.001), ("max_noise", 0.0), ("max_time", 0.001)):
                if not getattr(args, name) >= lo:
                    raise UsageError(f"--{name.replace('_', '-')}: expected a number >= {lo:g}")
        return {"run": cmd_run, "code": cmd_code, "copy": cmd_copy}[args.cmd](args, extra)
    except PeerError as e:
        print(f"torch_peer: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("torch_peer: interrupted (finished cells are in the result file)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
