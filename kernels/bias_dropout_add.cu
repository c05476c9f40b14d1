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
//   bias_dropout_add.fused  One-shot grid: each thread loads its 16-byte packs (several in flight),
//       computes, stores and retires: Triton's launch shape. Measured (H100, float32, 2048..65536 rows x 16384/65536 columns, one run):
//       bias_gelu 94.9-97.4% of SOL one-shot vs 82.1-88.7% persistent; bias_dropout_add
//       95.0-98.0% vs 89.2-92.8%. The persistent grid's deep per-thread stride lost ~8 points on
//       every large cell, so .fused launches one-shot (each thread its packs, then retires).
//   bias_dropout_add.fused uses default-policy loads and stores (Triton's), measured 2-5% faster than
//       evict-first (.cs) on every cell of >= 16 MB (NOTES.md, issue 6 round 2), and one 16-byte pack
//       per thread when U packs per thread would not fill one wave.
//   bias_dropout_add.stream  .fused with evict-first (.cs) loads and stores: the measured alternative.
//   bias_dropout_add.persistent  The same kernel as a persistent grid-stride loop over the resident
//       capacity: kept as the measured alternative.
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
    {"bias_dropout_add.fused", "(x + bias) + residual (eval-mode dropout) in one pass: one 16-byte pack group per thread (Triton's launch shape), 16-byte packs",
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
    {"bias_dropout_add.tile", "bias_dropout_add.fused in Inductor's pointwise launch shape: 128-thread CTAs, each owning 2 x 128 consecutive 16-byte packs per tensor (XBLOCK = 1024, 4 warps)",
     kDtypes, fb::ew::supports<BiasAddAddOp, kDtypes>, nullptr, fb::ew::run<BiasAddAddOp, kDtypes, Grid::tile, true>, 1},
};
extern "C" const int fb_bias_dropout_add_variant_count =
    (int)(sizeof fb_bias_dropout_add_variants / sizeof fb_bias_dropout_add_variants[0]);
