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
// Variants (the machinery is kernels/elementwise.cuh: flat 16-byte packs):
//   pointwise_chain.fused  From 8 MB of x: Inductor's pointwise launch shape (ew::Grid::tile:
//       128-thread CTAs, two rounds of 128 16-byte packs each); below: .one_shot (Grid::by_size).
//       Default-policy loads and stores. The full float32 grid, tile against one_shot in one run
//       (NOTES.md, issue 6 round 5; t_one_shot / t_tile, clean and write flush): >= 32 MB geomean
//       1.020 / 1.018 (0.99-1.08), 8-16 MB 1.015 / 1.010, <= 4 MB 0.978 / 0.977 (0.94-1.01),
//       hence the split.
//   pointwise_chain.one_shot  The previous .fused: each thread loads its 16-byte packs (several in
//       flight, one pack per thread when that would not fill one wave), computes, stores and
//       retires: Triton's launch shape. It beat the persistent grid by ~8 points on every large
//       cell (bias_gelu 94.9-97.4% of SOL against 82.1-88.7%).
//   pointwise_chain.stream  .one_shot with evict-first (.cs) loads and stores: measured 2-5% slower
//       than default-policy ones on every cell of >= 16 MB (NOTES.md, issue 6 round 2).
//   pointwise_chain.persistent  .one_shot's kernel as a persistent grid-stride loop over the
//       resident capacity: kept as the measured alternative.
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
    {"pointwise_chain.fused", "cos, mul, max, add in one pass, 16-byte packs: Inductor's pointwise launch shape (128-thread CTAs, 2 x 128 packs each) from 8 MB of x, the one-shot launch below", kDtypes,
     fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::by_size, true>, 1},
    {"pointwise_chain.one_shot", "pointwise_chain.fused's math in Triton's one-shot launch: one 16-byte pack group per thread (the previous .fused)", kDtypes,
     fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::one_shot, true>, 1},
    {"pointwise_chain.persistent", "pointwise_chain.one_shot's kernel, as a persistent grid-stride loop over the resident capacity (the slower launch shape, kept to measure against)",
     kDtypes, fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::persistent, true>, 1},
    {"pointwise_chain.scalar", "pointwise_chain with one element per access (the unaligned fallback)", kDtypes,
     fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::one_shot, false>, 1},
    {"pointwise_chain.stream", "pointwise_chain.one_shot with evict-first (.cs) loads and stores instead of default-policy ones (measured 2-5% slower on large tensors)",
     kDtypes, fb::ew::supports<ChainOp, kDtypes>, nullptr,
     fb::ew::run<ChainOp, kDtypes, Grid::one_shot, true, fb::ew::Hint::stream>, 1},
};
extern "C" const int fb_pointwise_chain_variant_count =
    (int)(sizeof fb_pointwise_chain_variants / sizeof fb_pointwise_chain_variants[0]);
