"""rmsnorm_inductor_probe.py — what torch.compile makes of the rmsnorm case (dev probe, issue 9).

Compiles the case's program (cases/rmsnorm.json, op by op as scripts/torch_peer.py builds it) for
one shape and dtype, and runs it --iters times so that a profiler can pick one launch:
    TORCH_LOGS=output_code python3 dev/rmsnorm_inductor_probe.py --T 2048 --N 2048 --dtype bfloat16
    ncu --kernel-name regex:triton --launch-skip 5 --launch-count 1 --section LaunchStats \
        python3 dev/rmsnorm_inductor_probe.py ...
With --time it times the compiled function and a copy of x the way scripts/torch_peer.py does
(a 256 MB write flush before each sample, events around the call, median of --iters), once as is
and once with cuCtxResetPersistingL2Cache() after each flush: Inductor's first pass loads x with
evict_last, and lines so marked may outlive the flush (dev/evict_last_dev.cu).
"""
import argparse
import ctypes

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
    ap.add_argument("--time", action="store_true")
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
    if a.time:
        cuda = ctypes.CDLL("libcuda.so.1")
        flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
        out = torch.empty_like(x)
        for label, fn in (("torch.compile", lambda: f(x, w)), ("copy", lambda: out.copy_(x))):
            for reset in (False, True):
                ts = []
                for _ in range(max(a.iters, 30)):
                    flush.zero_()
                    if reset:
                        torch.cuda.synchronize()
                        rc = cuda.cuCtxResetPersistingL2Cache()
                        assert rc == 0, f"cuCtxResetPersistingL2Cache: {rc}"
                    s0, s1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    s0.record()
                    fn()
                    s1.record()
                    s1.synchronize()
                    ts.append(s0.elapsed_time(s1) * 1000)
                ts.sort()
                print(f"  {label:14s} {'reset after flush' if reset else 'flush only':18s} median {ts[len(ts) // 2]:8.2f} us")


if __name__ == "__main__":
    main()
