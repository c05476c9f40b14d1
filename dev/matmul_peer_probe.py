"""matmul_peer_probe.py — which kernels torch.compile and torch.addmm run for matmul_bias, and with
which cuBLAS (dev probe, issue 10).

Stop 30 (results/h100/stop30, call 6) found matmul_bias.fused 0.987x (bfloat16) and 0.995x
(float16) torch.compile over the case's 50 cells, up to 12% behind at K = 8192 (8192^3 bfloat16:
1520.7 us against 1354.8). Both call cuBLASLt with a bias epilogue, as far as we knew. This prints,
for C = A @ B + bias at M, N, K in --dtype:
  - the cuBLAS / cuBLASLt libraries this process has loaded (torch's own, or the system's);
  - the CUDA kernels one call of torch.compile(fn), torch.addmm and torch.mm + bias launches
    (torch.profiler), with their CUDA times;
  - each one's median time over --iters samples, each after a 256 MB write flush, events around
    the call (as scripts/torch_peer.py times).
Run: python3 dev/matmul_peer_probe.py --M 8192 --N 8192 --K 8192 --dtype bfloat16
"""
import argparse

import torch


def fn(a, b, bias):
    return a @ b + bias


def loaded_blas():
    with open("/proc/self/maps") as f:
        libs = {ln.split()[-1] for ln in f if "cublas" in ln}
    return sorted(libs)


def timed(call, iters, flush):
    start = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for _ in range(3):
        call()
    for i in range(iters):
        flush.zero_()
        start[i].record()
        call()
        end[i].record()
    torch.cuda.synchronize()
    ts = sorted(s.elapsed_time(e) * 1e3 for s, e in zip(start, end))
    return ts[len(ts) // 2]


def kernels(call):
    from torch.profiler import ProfilerActivity, profile
    call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    out = []
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            out.append((e.name, e.device_time if hasattr(e, "device_time") else e.cuda_time))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--M", type=int, default=8192)
    ap.add_argument("--N", type=int, default=8192)
    ap.add_argument("--K", type=int, default=8192)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()
    dt = getattr(torch, args.dtype)
    torch.manual_seed(1)
    a = torch.randn(args.M, args.K, device="cuda", dtype=dt)
    b = torch.randn(args.K, args.N, device="cuda", dtype=dt)
    bias = torch.randn(args.N, device="cuda", dtype=dt)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    compiled = torch.compile(fn)
    forms = {
        "torch.compile": lambda: compiled(a, b, bias),
        "torch.addmm": lambda: torch.addmm(bias, a, b),
        "torch.mm + bias": lambda: fn(a, b, bias),
    }
    print(f"torch {torch.__version__}, cuBLAS {torch.backends.cuda.preferred_blas_library()}, "
          f"{torch.cuda.get_device_name()}; {args.dtype} M={args.M} N={args.N} K={args.K}")
    for name, call in forms.items():
        ks = kernels(call)
        t = timed(call, args.iters, flush)
        tf = 2.0 * args.M * args.N * args.K / (t * 1e-6) / 1e12
        print(f"{name}: median {t:.1f} us ({tf:.0f} TFLOP/s)")
        for k, ct in ks:
            print(f"    {ct:10.1f} us  {k}")
    print("loaded:", *loaded_blas(), sep="\n    ")


if __name__ == "__main__":
    main()
