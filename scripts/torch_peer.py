#!/usr/bin/env python3
"""torch_peer.py — PyTorch numbers to hold fusionbench's against, on the same GPU.

  copy     device-to-device copy bandwidth of N bytes (read + write counted), the
           figure `fusionbench env` must agree with
  softmax  torch.softmax and the eager op-by-op program (amax, sub, exp, sum, div)
           over a few shapes, and torch.compile of the eager program

Timing follows fusionbench's timer: L2 flushed (a memset over 2x L2) before every
sample, CUDA events around the work only, median of the samples.
Usage: python3 scripts/torch_peer.py copy [--bytes 2147483648]
       python3 scripts/torch_peer.py softmax [--shapes 128x65536,65536x1027] [--dtype float32]
"""
import argparse
import statistics

import torch


def flush_buffer():
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    return torch.empty(max(2 * l2, 256 << 20), dtype=torch.uint8, device="cuda")


def bench(fn, flush, n=50, warmup=5):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for i in range(n):
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def cmd_copy(args):
    n = args.bytes
    src = torch.empty(n, dtype=torch.uint8, device="cuda").fill_(1)
    dst = torch.empty_like(src)
    ms = bench(lambda: dst.copy_(src), flush_buffer())
    print(f"torch copy {n} bytes: median {ms * 1e3:.1f} us, {2 * n / (ms * 1e-3) / 1e9:.1f} GB/s (read + write)")


def eager_softmax(x):
    m = torch.amax(x, dim=-1, keepdim=True)
    t = x - m
    e = torch.exp(t)
    s = torch.sum(e, dim=-1, keepdim=True)
    return e / s


def cmd_softmax(args):
    dtype = getattr(torch, args.dtype)
    flush = flush_buffer()
    compiled = torch.compile(eager_softmax)
    print(f"{'shape':>14} {'torch.softmax us':>17} {'eager us':>10} {'compiled us':>12} {'copy us':>9}")
    for shape in args.shapes.split(","):
        r, c = (int(v) for v in shape.split("x"))
        x = torch.randn(r, c, device="cuda").to(dtype)
        y = torch.empty_like(x)
        t_soft = bench(lambda: torch.softmax(x, dim=-1), flush)
        t_eager = bench(lambda: eager_softmax(x), flush)
        t_comp = bench(lambda: compiled(x), flush)
        t_copy = bench(lambda: y.copy_(x), flush)
        print(f"{shape:>14} {t_soft * 1e3:17.1f} {t_eager * 1e3:10.1f} {t_comp * 1e3:12.1f} {t_copy * 1e3:9.1f}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("copy")
    c.add_argument("--bytes", type=int, default=2 << 30)
    s = sub.add_parser("softmax")
    s.add_argument("--shapes", default="128x65536,1024x65536,65536x1027,65536x128")
    s.add_argument("--dtype", default="float32")
    args = p.parse_args()
    {"copy": cmd_copy, "softmax": cmd_softmax}[args.cmd](args)


if __name__ == "__main__":
    main()
