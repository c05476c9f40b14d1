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
//   bias_gelu.fused     Persistent grid of the resident capacity (one pack per thread for small
//                       tensors), 4 packs per thread in flight. Prediction (not yet measured):
//                       92-97% of the speed of light on float32 cells of >= 64 MB, the odd widths
//                       (61, 130, 1027) as fast as the even ones (packs straddle rows; the bias
//                       column of each pack is fixed per thread).
//   bias_gelu.one_shot  The same kernel with one iteration per thread (Triton's launch shape).
//                       Prediction: ties .fused within 2% on large cells.
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
    {"bias_gelu.fused", "x + bias then exact (erf) GELU in one pass: persistent grid-stride, 16-byte packs", kDtypes,
     fb::ew::supports<BiasGeluOp, kDtypes>, nullptr, fb::ew::run<BiasGeluOp, kDtypes, Grid::persistent, true>, 1},
    {"bias_gelu.one_shot", "bias_gelu.fused's kernel, one iteration per thread (Triton's launch shape)", kDtypes,
     fb::ew::supports<BiasGeluOp, kDtypes>, nullptr, fb::ew::run<BiasGeluOp, kDtypes, Grid::one_shot, true>, 1},
    {"bias_gelu.scalar", "bias_gelu.fused with one element per access (the unaligned fallback)", kDtypes,
     fb::ew::supports<BiasGeluOp, kDtypes>, nullptr, fb::ew::run<BiasGeluOp, kDtypes, Grid::persistent, false>, 1},
};
extern "C" const int fb_bias_gelu_variant_count = (int)(sizeof fb_bias_gelu_variants / sizeof fb_bias_gelu_variants[0]);
