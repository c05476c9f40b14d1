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
//   pointwise_chain.fused     A persistent grid of the resident capacity (or one pack per thread
//                             for small tensors), 4 packs (64 bytes) per thread in flight.
//                             Prediction (not yet measured): 92-97% of the speed of light on every
//                             float32 cell of >= 64 MB, odd widths included (the walk is flat, W
//                             does not matter); half types 85-95% (issue-bound side of the limit).
//   pointwise_chain.one_shot  The same kernel with one iteration per thread and as many CTAs as
//                             that takes (PyTorch's and Triton's launch shape). Prediction: ties
//                             .fused within 2% on large cells; kept to measure that claim.
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
    {"pointwise_chain.fused", "cos, mul, max, add in one pass: persistent grid-stride, 16-byte packs", kDtypes,
     fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::persistent, true>, 1},
    {"pointwise_chain.one_shot", "pointwise_chain.fused's kernel, one iteration per thread (Triton's launch shape)",
     kDtypes, fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::one_shot, true>, 1},
    {"pointwise_chain.scalar", "pointwise_chain.fused with one element per access (the unaligned fallback)", kDtypes,
     fb::ew::supports<ChainOp, kDtypes>, nullptr, fb::ew::run<ChainOp, kDtypes, Grid::persistent, false>, 1},
};
extern "C" const int fb_pointwise_chain_variant_count =
    (int)(sizeof fb_pointwise_chain_variants / sizeof fb_pointwise_chain_variants[0]);
