#!/usr/bin/env python3
# dev (stop 36, call 8): run on a device as .devbin/tc_one.py T N, under ncu --launch-skip 30 -k regex:triton
# one torch.compile rmsnorm at [4, T, N] float32, run a few times (for ncu -k regex:triton)
import sys, torch
def f(x, w):
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    return x * r * w
T, N = int(sys.argv[1]), int(sys.argv[2])
x = torch.randn(4, T, N, device="cuda"); w = torch.randn(N, device="cuda")
g = torch.compile(f, dynamic=False, fullgraph=True)
for _ in range(40): g(x, w)
torch.cuda.synchronize()
