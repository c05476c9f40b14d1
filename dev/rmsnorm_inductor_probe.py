"""rmsnorm_inductor_probe.py — what torch.compile makes of the rmsnorm case (dev probe, issue 9).

Compiles the case's program (cases/rmsnorm.json, op by op as scripts/torch_peer.py builds it) for
one shape and dtype, and runs it --iters times so that a profiler can pick one launch:
    TORCH_LOGS=output_code python3 dev/rmsnorm_inductor_probe.py --T 2048 --N 2048 --dtype bfloat16
    ncu --kernel-name regex:triton --launch-skip 5 --launch-count 1 --section LaunchStats \
        python3 dev/rmsnorm_inductor_probe.py ...
"""
import argparse

import torch


def rmsnorm(x, w):
    x2 = x * x
    ms = x2.mean(-1, keepdim=True)
    r = torch.rsqrt(ms + 1e-6)
    return x * r * w


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--T", type=int, default=2048)
    ap.add_argument("--N", type=int, default=2048)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    dt = getattr(torch, a.dtype)
    x = torch.randn(4, a.T, a.N, device="cuda", dtype=dt)
    w = torch.randn(a.N, device="cuda", dtype=dt)
    f = torch.compile(rmsnorm)
    for _ in range(a.iters):
        y = f(x, w)
    torch.cuda.synchronize()
    ref = rmsnorm(x.double(), w.double())
    print(f"rmsnorm {a.dtype} [4, {a.T}, {a.N}]: max abs error {(y.double() - ref).abs().max().item():.3g}")


if __name__ == "__main__":
    main()
