"""rowcase_inductor_probe.py — torch.compile's kernel for one row case and shape, for a profiler
(dev probe, issue 6). Builds the program as the case defines it (cases/NAME.json), compiles it,
and runs it --iters times so that ncu can pick one launch:
    ncu --kernel-name regex:triton --launch-skip 5 --launch-count 1 --section SpeedOfLight \
        python3 dev/rowcase_inductor_probe.py --case horizontal_reduction_pointwise --rows 65536 --W 128
TORCH_LOGS=output_code prints the Triton source (its launch shape: XBLOCK, R0_BLOCK, num_warps).
"""
import argparse

import torch
import torch.nn.functional as F


def hrp(a):
    return a.sum(1, keepdim=True), torch.cos(a)


def layernorm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", choices=["horizontal_reduction_pointwise", "layernorm"], required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--W", type=int, required=True)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    dt = getattr(torch, a.dtype)
    x = torch.randn(a.rows, a.W, device="cuda", dtype=dt)
    if a.case == "layernorm":
        w = torch.randn(a.W, device="cuda", dtype=dt)
        b = torch.randn(a.W, device="cuda", dtype=dt)
        f, args = torch.compile(layernorm), (x, w, b)
    else:
        f, args = torch.compile(hrp), (x,)
    for _ in range(a.iters):
        f(*args)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
