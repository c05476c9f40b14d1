"""dev/peer_flush_probe.py — does scripts/torch_peer.py's flush leave the L2 as fusionbench's
does? Times one device-to-device copy of S bytes (torch's copy_, a cudaMemcpyAsync as
fusionbench's sol copy) under the peer's Timer with each flush, and with variants of the sweep
to find which part differs, then prints the medians. Run beside `fusionbench run ... --flush
none|clean|write` of a cell whose sol copy moves the same bytes.

    python3 dev/peer_flush_probe.py 33554432 134217728
"""
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import torch_peer as tp  # noqa: E402


def sweeps(buf):
    import triton
    import triton.language as tl

    @triton.jit
    def marked8(base, BLOCK: tl.constexpr):  # torch_peer's: 8-byte loads, evict_last
        addr = base + (tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)) * 8
        tl.inline_asm_elementwise(
            "{ .reg .b64 pol; createpolicy.fractional.L2::evict_last.b64 pol, 1.0; "
            "ld.global.L2::cache_hint.b64 $0, [$1], pol; }",
            "=l,l", [addr], dtype=tl.int64, is_pure=False, pack=1)

    @triton.jit
    def plain8(base, BLOCK: tl.constexpr):  # the same loads without a policy
        addr = base + (tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)) * 8
        tl.inline_asm_elementwise("ld.global.b64 $0, [$1];", "=l,l", [addr], dtype=tl.int64,
                                  is_pure=False, pack=1)

    @triton.jit
    def demote(base, BLOCK: tl.constexpr):
        addr = base + (tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)) * 128
        tl.inline_asm_elementwise("applypriority.global.L2::evict_normal [$1], 128; mov.u32 $0, 0;",
                                  "=r,l", [addr], dtype=tl.int32, is_pure=False, pack=1)

    base, n, B = buf.data_ptr(), buf.numel(), 1024
    g8, g128 = (n // 8 // B,), (n // 128 // B,)
    return {
        "marked8+demote (torch_peer)": lambda: (marked8[g8](base, BLOCK=B), demote[g128](base, BLOCK=B)),
        "marked8 alone": lambda: marked8[g8](base, BLOCK=B),
        "plain8 alone": lambda: plain8[g8](base, BLOCK=B),
        "torch sum of the buffer": lambda: buf.view(tp.torch.int64).sum(),
    }


def main(argv):
    tp.load_torch()
    torch = tp.torch
    for n in [int(a) for a in argv] or [32 << 20]:
        src = torch.empty(n, dtype=torch.uint8, device="cuda").fill_(1)
        dst = torch.empty_like(src)
        row = []
        for kind in ("none", "clean", "write"):
            t = tp.Timer(10, 50, 0.5, 5.0, flush="write" if kind == "none" else kind)
            xs = t.measure(lambda: dst.copy_(src), flush=kind != "none")
            row.append(f"{kind} {statistics.median(xs) * 1e3:.2f}")
        t = tp.Timer(10, 50, 0.5, 5.0, flush="clean")
        for name, fn in sweeps(t.flush_buf).items():
            t.flush = fn
            xs = t.measure(lambda: dst.copy_(src), flush=True)
            row.append(f"{name} {statistics.median(xs) * 1e3:.2f}")
        print(f"copy {n} bytes, median us: " + "; ".join(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
