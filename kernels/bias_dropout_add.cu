// bias_dropout_add.cu — bias add, dropout in eval mode, residual add, fused.
//
// For x[R, W], bias[W], residual[R, W]:   y = (x + bias[c]) + residual
// The study's form is dropout(x + bias, p=0.5, training=False) + residual; dropout with
// training=False is the identity, so nothing is drawn (bias_dropout_add_train.cu is the training
// form). fp32 arithmetic for float32, float16 and bfloat16 (half types rounded once at the end:
// eager rounds x + bias to half first, a difference within the half-type tolerance), double for
// float64.
//
// Eager: add (broadcast), dropout (a copy in eval mode), add: 3 kernels, 2 intermediates. Fused:
// read x and residual, write y (3 tensor passes: the floor is 3 * R * W * sizeof(T) bytes) and W
// bias values. One FADD pair per element: memory-bound in every dtype.
//
// Variants (the machinery is kernels/elementwise.cuh: flat 16-byte packs, grid-stride, each
// thread's bias values loaded once and reused for every row it visits):
//   bias_dropout_add.fused     Persistent grid of the resident capacity (one pack per thread for
//                              small tensors), 2 packs of each input per thread in flight (64 B).
//                              Prediction (not yet measured): 93-98% of the speed of light on
//                              float32 cells of >= 64 MB (a copy with a second read stream), odd
//                              widths as fast as even ones.
//   bias_dropout_add.one_shot  The same kernel with one iteration per thread (Triton's launch
//                              shape). Prediction: ties .fused within 2% on large cells.
//   bias_dropout_add.scalar    One element per access: .fused's fallback for tensors that are
//                              not 16-byte aligned, registered so that selftest covers it.
#include "bias_dropout_add.h"
#include "elementwise.cuh"

namespace {

struct BiasAddAddOp {
    static constexpr const char *kName = "bias_dropout_add";
    static constexpr bool kBias = true, kRes = true;
    static BiasAddAddOp make(const fb_call *) { return BiasAddAddOp{}; }
    template <typename A> __device__ __forceinline__ A operator()(A x, A b, A r, uint64_t) const {
        return (x + b) + r;
    }
};

using fb::ew::Grid;
constexpr unsigned kDtypes = FB_DTYPES_ALL;

}  // namespace

extern "C" const fb_variant fb_bias_dropout_add_variants[] = {
    {"bias_dropout_add.fused", "(x + bias) + residual (eval-mode dropout) in one pass: persistent grid-stride, 16-byte packs",
     kDtypes, fb::ew::supports<BiasAddAddOp, kDtypes>, nullptr,
     fb::ew::run<BiasAddAddOp, kDtypes, Grid::persistent, true>, 1},
    {"bias_dropout_add.one_shot", "bias_dropout_add.fused's kernel, one iteration per thread (Triton's launch shape)",
     kDtypes, fb::ew::supports<BiasAddAddOp, kDtypes>, nullptr,
     fb::ew::run<BiasAddAddOp, kDtypes, Grid::one_shot, true>, 1},
    {"bias_dropout_add.scalar", "bias_dropout_add.fused with one element per access (the unaligned fallback)", kDtypes,
     fb::ew::supports<BiasAddAddOp, kDtypes>, nullptr, fb::ew::run<BiasAddAddOp, kDtypes, Grid::persistent, false>, 1},
};
extern "C" const int fb_bias_dropout_add_variant_count =
    (int)(sizeof fb_bias_dropout_add_variants / sizeof fb_bias_dropout_add_variants[0]);
