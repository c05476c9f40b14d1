// pointwise_chain.cu — the seed study's pointwise chain, fused.
//
// For every element of x (any shape; the case uses [dim0, dim1]):
//     y = cos(x); x1 = x * y; y2 = max(x1, y); out = x1 + y2
// computed in fp32 for float32, float16 and bfloat16 (half types stored as half, rounded once
// at the end), in double for float64. cos is the accurate cosf (not __cosf: the check is against
// float64 at rtol 1e-5), max propagates NaN as torch.maximum does.
//
// Eager runs this as four kernels with three intermediates: 8 tensor passes (4 reads, 4 writes
// plus the re-reads of x and y) against the fused kernel's 2 (read x, write out). The fused kernel
// is memory-bound in float32 (~1.6 elements per clock per SM at 3 TB/s, ~25 instructions each,
// a fifth of an SM's issue rate) and closer to its issue limit in the half types (twice the
// elements per byte, ~3.2 per clock per SM: about 60-80% of the issue rate, cosf being most of it).
//
// Variants (the machinery is kernels/elementwise.cuh: flat 16-byte packs, grid-stride):
//   pointwise_chain.fused  One-shot grid: each thread loads its 16-byte packs (several in flight),
//       computes, stores and retires: Triton's launch shape. Measured (H100, float32, 2048..65536 rows x 16384/65536 columns, one run):
//       bias_gelu 94.9-97.4% of SOL one-shot vs 82.1-88.7% persistent; bias_dropout_add
//       95.0-98.0% vs 89.2-92.8%. The persistent grid's deep per-thread stride lost ~8 points on
//       every large cell, so .fused launches one-shot (each thread its packs, then retires).
//   pointwise_chain.fused uses default-policy loads and stores (Triton's), measured 2-5% faster than
//       evict-first (.cs) on every cell of >= 16 MB (NOTES.md, issue 6 round 2), and one 16-byte pack
//       per thread when U packs per thread would not fill one wave.
//   pointwise_chain.stream  .fused with evict-first (.cs) loads and stores: the measured alternative.
//   pointwise_chain.tile    .fused in Inductor's launch shape (ew::Grid::tile), as bias_dropout_add.fused.
//                           Round 3 measured it mixed against .fused. Round 4 (16 cells, NOTES.md) measured it
//                           1-9% faster on 2048..32768 x 256..8192. Not yet adopted: the full grid, selftest and
//                           memcheck of it are still to run.
//   pointwise_chain.persistent  The same kernel as a persistent grid-stride loop over the resident
//       capacity: kept as the measured alternative.
//   pointwise_chain.scalar    One element per access: what .fused falls back to when a tensor is
//                             not 16-byte aligned. Registered so that selftest covers that path.
//                             Slower by design (2- and 4-byte accesses).
#include "pointwise_chain.h"
#include "elementwise.cuh"

namespace {

struct ChainOp {
    static constexpr const char *kName = "pointwise_chain";
    static constexpr bool kBias = false, kRes = false;
    static ChainOp make(const fb_call *) { return ChainOp{}; }
    template <typename A> __device__ __forceinline__ A operator()(A x, A, A, uint64_t) const {
        const A y = fb::math::cos(x);
        const A x1 = x * y;
        const A y2 = fb::nan_max(x1, y);
        return x1 + y2;
    }
};

using fb::ew::Grid;
constexpr unsigned kDtypes = FB_DTYPES_ALL;

}  // namespace

extern "C" const fb_variant fb_pointwise_chain_variants[] = {
    {"pointwise_chain.fused", "cos, mul, max, add in one pass: one 16-byte pack group per thread (Triton's launch shape), 16-byte packs", kDtypes,
     fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::one_shot, true>, 1},
    {"pointwise_chain.persistent", "pointwise_chain.fused's kernel, as a persistent grid-stride loop over the resident capacity (the slower launch shape, kept to measure against)",
     kDtypes, fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::persistent, true>, 1},
    {"pointwise_chain.scalar", "pointwise_chain.fused with one element per access (the unaligned fallback)", kDtypes,
     fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::one_shot, false>, 1},
    {"pointwise_chain.stream", "pointwise_chain.fused with evict-first (.cs) loads and stores instead of default-policy ones (measured 2-5% slower on large tensors)",
     kDtypes, fb::ew::supports<ChainOp, kDtypes>, nullptr,
     fb::ew::run<ChainOp, kDtypes, Grid::one_shot, true, fb::ew::Hint::stream>, 1},
    {"pointwise_chain.tile", "pointwise_chain.fused in Inductor's pointwise launch shape (ew::Grid::tile: 128-thread CTAs, 2 x 128 packs each), the shape bias_dropout_add.fused uses",
     kDtypes, fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::tile, true>, 1},
};
extern "C" const int fb_pointwise_chain_variant_count =
    (int)(sizeof fb_pointwise_chain_variants / sizeof fb_pointwise_chain_variants[0]);
