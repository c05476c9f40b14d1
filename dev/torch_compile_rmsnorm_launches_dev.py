#!/usr/bin/env python3
# dev (stop 36, call 7): run on a device as .devbin/tc_code.py OUT_DIR
# torch.compile's rmsnorm kernels at a few small float32 shapes: the launch (grid, block, registers,
# shared memory) and duration from the profiler's trace, and the generated source (TORCH_LOGS=output_code)
import json, sys, torch
from torch.profiler import profile, ProfilerActivity
def f(x, w):
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    return x * r * w
out = sys.argv[1]
for (T, N) in [(128, 128), (512, 130), (2048, 61), (512, 256), (2048, 32), (128, 16384)]:
    torch._dynamo.reset()
    x = torch.randn(4, T, N, device="cuda"); w = torch.randn(N, device="cuda")
    g = torch.compile(f, dynamic=False, fullgraph=True)
    for _ in range(3): g(x, w)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(5): g(x, w)
        torch.cuda.synchronize()
    p = f"{out}/trace-{T}x{N}.json"
    prof.export_chrome_trace(p)
    ev = [e for e in json.load(open(p))["traceEvents"] if e.get("cat") == "kernel"]
    for e in ev[:1]:
        a = e.get("args", {})
        print(f"[4,{T},{N}] {e['name'][:60]} dur {e['dur']} us grid {a.get('grid')} block {a.get('block')} "
              f"regs {a.get('registers per thread')} smem {a.get('shared memory')} occ {a.get('est. achieved occupancy %')}")
print("done")
