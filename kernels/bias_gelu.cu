// bias_gelu.cu — bias add + exact GELU, fused.
//
// For x[R, W] and bias[W]:   t = x + bias[c];   y = 0.5 * t * (1 + erf(t / sqrt(2)))
// (PyTorch's gelu(approximate='none')), computed in fp32 for float32, float16 and bfloat16
// (half types stored as half, rounded once at the end) and in double for float64; erff is the
// accurate libdevice erf. For t below about -4 the 1 + erf(...) cancels to a few ulp of 1, as
// in eager and in PyTorch: the absolute error stays under ~2e-7.
//
// Eager: add (a broadcast binary), then the GELU as the case program's ops (mul, erf, add, mul,
// mul), each a full pass with an intermediate. Fused: one read of x, W values of bias (L2), one
// write of y. Float32 is memory-bound (~1.6 elements per clock per SM at 3 TB/s, ~30
// instructions each with erff); the half types need ~3.2 elements per clock per SM, most of an
// SM's issue rate (prediction: they sit a few points below float32).
//
// Variants (the machinery is kernels/elementwise.cuh: flat 16-byte packs, grid-stride, each
// thread's bias values loaded once and reused for every row it visits):
//   bias_gelu.fused  From 8 MB of x: Inductor's pointwise launch shape (ew::Grid::tile: 128-thread
//       CTAs, two rounds of 128 16-byte packs each, the bias column computed per pack); below it,
//       .one_shot (ew::Grid::by_size, as pointwise_chain.fused). Stop 28 (NOTES.md): beside
//       torch.compile on an H200, the one-shot launch was 2-10% slower on 24 of the 55 cells of
//       >= 64 MB, where pointwise_chain (by_size) and bias_dropout_add (tile) were level.
//   bias_gelu.one_shot  The previous .fused: one-shot grid, each thread loads its 16-byte packs
//       (several in flight), computes, stores and retires: Triton's launch shape. Measured (H100,
//       float32, 2048..65536 rows x 16384/65536 columns, one run): bias_gelu 94.9-97.4% of SOL
//       one-shot vs 82.1-88.7% persistent; bias_dropout_add 95.0-98.0% vs 89.2-92.8%. The
//       persistent grid's deep per-thread stride lost ~8 points on every large cell. Default-policy
//       loads and stores (Triton's), measured 2-5% faster than evict-first (.cs) on every cell of
//       >= 16 MB (NOTES.md, issue 6 round 2), and one 16-byte pack per thread when U packs per
//       thread would not fill one wave.
//   bias_gelu.stream  .one_shot with evict-first (.cs) loads and stores: the measured alternative.
//   bias_gelu.persistent  The same kernel as a persistent grid-stride loop over the resident
//       capacity: kept as the measured alternative.
//   bias_gelu.scalar    One element per access: .fused's fallback for tensors that are not
//                       16-byte aligned, registered so that selftest covers it.
#include "bias_gelu.h"
#include "elementwise.cuh"

namespace {

struct BiasGeluOp {
    static constexpr const char *kName = "bias_gelu";
    static constexpr bool kBias = true, kRes = false;
    static BiasGeluOp make(const fb_call *) { return BiasGeluOp{}; }
    template <typename A> __device__ __forceinline__ A operator()(A x, A b, A, uint64_t) const {
        const A t = x + b;
        return A(0.5) * t * (A(1) + fb::math::erf(t * A(0.70710678118654752440)));
    }
};

using fb::ew::Grid;
constexpr unsigned kDtypes = FB_DTYPES_ALL;

}  // namespace

extern "C" const fb_variant fb_bias_gelu_variants[] = {
    {"bias_gelu.fused", "x + bias then exact (erf) GELU in one pass, 16-byte packs: Inductor's pointwise launch shape (128-thread CTAs, 2 x 128 packs each) from 8 MB of x, the one-shot launch below", kDtypes,
     fb::ew::supports<BiasGeluOp, kDtypes>, nullptr, fb::ew::run<BiasGeluOp, kDtypes, Grid::by_size, true>, 1},
    {"bias_gelu.one_shot", "bias_gelu.fused's math in Triton's one-shot launch: one 16-byte pack group per thread (the previous .fused)", kDtypes,
     fb::ew::supports<BiasGeluOp, kDtypes>, nullptr, fb::ew::run<BiasGeluOp, kDtypes, Grid::one_shot, true>, 1},
    {"bias_gelu.persistent", "bias_gelu.one_shot's kernel, as a persistent grid-stride loop over the resident capacity (the slower launch shape, kept to measure against)", kDtypes,
     fb::ew::supports<BiasGeluOp, kDtypes>, nullptr, fb::ew::run<BiasGeluOp, kDtypes, Grid::persistent, true>, 1},
    {"bias_gelu.scalar", "bias_gelu.one_shot with one element per access (the unaligned fallback)", kDtypes,
     fb::ew::supports<BiasGeluOp, kDtypes>, nullptr, fb::ew::run<BiasGeluOp, kDtypes, Grid::one_shot, false>, 1},
    {"bias_gelu.stream", "bias_gelu.one_shot with evict-first (.cs) loads and stores instead of default-policy ones (measured 2-5% slower on large tensors)",
     kDtypes, fb::ew::supports<BiasGeluOp, kDtypes>, nullptr,
     fb::ew::run<BiasGeluOp, kDtypes, Grid::one_shot, true, fb::ew::Hint::stream>, 1},
};
extern "C" const int fb_bias_gelu_variant_count = (int)(sizeof fb_bias_gelu_variants / sizeof fb_bias_gelu_variants[0]);
