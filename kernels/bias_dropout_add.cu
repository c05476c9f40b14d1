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
// Variants (the machinery is kernels/elementwise.cuh: flat 16-byte packs; the bias is read with
// one 16-byte load per pack when W is a multiple of the pack and the bias is aligned):
//   bias_dropout_add.fused  Inductor's pointwise launch shape (ew::Grid::tile): 128-thread CTAs,
//       each owning 2 x 128 consecutive packs of every tensor, default-policy loads and stores.
//       Measured against .one_shot (H100 float32, same run, NOTES.md issue 6 round 3): +2-4 points
//       of SOL on the 32-96 MB cells where torch.compile led by 3-6% (e.g. 2048 x 4096 98.0% vs
//       93.7%), +1-4 on 1-4 MB cells, within noise elsewhere. (bias_gelu and pointwise_chain,
//       measured the same way, showed no such gain: they keep one_shot.)
//   bias_dropout_add.one_shot  The other elementwise cases' launch (one_shot: 256-thread CTAs,
//       2 packs per thread a grid apart, 1 when a grid of 2 would not fill one wave).
//   bias_dropout_add.stream  one_shot with evict-first (.cs) loads and stores (2-5% slower on
//       every cell of >= 16 MB, NOTES.md issue 6 round 2).
//   bias_dropout_add.persistent  one_shot's kernel as a persistent grid-stride loop over the
//       resident capacity: kept as the measured alternative (~8 points slower on large cells).
//   bias_dropout_add.scalar    One element per access: the fallback for tensors that are not
//                              16-byte aligned, registered so that selftest covers it.
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
    {"bias_dropout_add.fused", "(x + bias) + residual (eval-mode dropout) in one pass, Inductor's launch shape: 128-thread CTAs owning 2 x 128 consecutive 16-byte packs per tensor",
     kDtypes, fb::ew::supports<BiasAddAddOp, kDtypes>, nullptr,
     fb::ew::run<BiasAddAddOp, kDtypes, Grid::tile, true>, 1},
    {"bias_dropout_add.one_shot", "bias_dropout_add in the other cases' launch shape: 256-thread CTAs, 2 packs a thread a grid apart (1 below one wave); 2-4% slower on 32-96 MB tensors",
     kDtypes, fb::ew::supports<BiasAddAddOp, kDtypes>, nullptr,
     fb::ew::run<BiasAddAddOp, kDtypes, Grid::one_shot, true>, 1},
    {"bias_dropout_add.persistent", "bias_dropout_add.fused's kernel, as a persistent grid-stride loop over the resident capacity (the slower launch shape, kept to measure against)",
     kDtypes, fb::ew::supports<BiasAddAddOp, kDtypes>, nullptr,
     fb::ew::run<BiasAddAddOp, kDtypes, Grid::persistent, true>, 1},
    {"bias_dropout_add.scalar", "bias_dropout_add.fused with one element per access (the unaligned fallback)", kDtypes,
     fb::ew::supports<BiasAddAddOp, kDtypes>, nullptr, fb::ew::run<BiasAddAddOp, kDtypes, Grid::one_shot, false>, 1},
    {"bias_dropout_add.stream", "bias_dropout_add.fused with evict-first (.cs) loads and stores instead of default-policy ones (measured 2-5% slower on large tensors)",
     kDtypes, fb::ew::supports<BiasAddAddOp, kDtypes>, nullptr,
     fb::ew::run<BiasAddAddOp, kDtypes, Grid::one_shot, true, fb::ew::Hint::stream>, 1},
};
extern "C" const int fb_bias_dropout_add_variant_count =
    (int)(sizeof fb_bias_dropout_add_variants / sizeof fb_bias_dropout_add_variants[0]);
