// bias_dropout_add_train.cu — bias add, training-mode dropout, residual add, fused.
//
// For x[R, W], bias[W], residual[R, W] and every element e = r * W + c (row-major index into t):
//     t = x + bias[c];   d = keep(e) ? t * (1 / (1 - p)) : 0;   y = d + residual
// keep(e) = fb_dropout_keep(seed, e, fb_dropout_threshold(p)) from src/fb_random.h: the one
// counter-based hash that eager and the float64 reference draw from too, so all three agree bit
// for bit on the mask. fp32 arithmetic for float32, float16 and bfloat16 (half types rounded once
// at the end), double for float64.
//
// p and seed are the attributes of the case's dropout node (cases/bias_dropout_add_train.json:
// p = 0.5, seed = 1234), read through fb_call_op_attrs, so a case file with other values is
// computed with those; a call whose program has no dropout node is refused (supports).
//
// Eager: add (broadcast), dropout, add: 3 kernels, 2 intermediates. Fused: read x and residual,
// write y, W bias values; the mask costs two 64-bit multiplies per element (~10 integer
// instructions), well inside an H100 SM's integer rate at memory speed.
//
// Variants (the machinery is kernels/elementwise.cuh: flat 16-byte packs, grid-stride, each
// thread's bias values loaded once and reused for every row it visits; the flat element index the
// mask needs is the walk's own index, so no row/column arithmetic per element):
//   bias_dropout_add_train.fused  One-shot grid: each thread loads its 16-byte packs (several in flight),
//       computes, stores and retires: Triton's launch shape. Measured (H100, float32, 2048..65536 rows x 16384/65536 columns, one run):
//       bias_gelu 94.9-97.4% of SOL one-shot vs 82.1-88.7% persistent; bias_dropout_add
//       95.0-98.0% vs 89.2-92.8%. The persistent grid's deep per-thread stride lost ~8 points on
//       every large cell, so .fused launches one-shot (each thread its packs, then retires).
//   bias_dropout_add_train.fused uses default-policy loads and stores (Triton's), measured 2-5% faster than
//       evict-first (.cs) on every cell of >= 16 MB (NOTES.md, issue 6 round 2), and one 16-byte pack
//       per thread when U packs per thread would not fill one wave.
//   bias_dropout_add_train.persistent  The same kernel as a persistent grid-stride loop over the resident
//       capacity: kept as the measured alternative.
//   bias_dropout_add_train.scalar    One element per access: .fused's fallback for tensors that are
//                                    not 16-byte aligned, registered so that selftest covers it.
#include "bias_dropout_add_train.h"
#include "elementwise.cuh"
#include "../src/fb_random.h"
#include "../src/ops/attrs.h"

#include <stdio.h>

namespace {

struct DropoutOp {
    static constexpr const char *kName = "bias_dropout_add_train";
    static constexpr bool kBias = true, kRes = true;
    uint64_t seed;
    uint32_t threshold;
    double scale;  // 1 / (1 - p), rounded to the accumulation type in the kernel
    // Only called after has_dropout_node (below) accepted the call.
    static DropoutOp make(const fb_call *c) {
        const fb_attrs *a = fb_call_op_attrs(c, "dropout");
        const double p = fb_attr_real(a, "p", 0.0);
        return DropoutOp{(uint64_t)fb_attr_int(a, "seed", 0), fb_dropout_threshold(p), 1.0 / (1.0 - p)};
    }
    template <typename A> __device__ __forceinline__ A operator()(A x, A b, A r, uint64_t e) const {
        const A t = x + b;
        const A d = fb_dropout_keep(seed, e, threshold) ? t * A(scale) : A(0);
        return d + r;
    }
};

using fb::ew::Grid;
constexpr unsigned kDtypes = FB_DTYPES_ALL;

// The mask's p and seed live in the program: without a dropout node there is nothing to draw.
static int has_dropout_node(const fb_call *c, char *why, size_t n) {
    if (fb_call_op_attrs(c, "dropout")) return FB_OK;
    if (why && n) snprintf(why, n, "bias_dropout_add_train needs the program's dropout node (its p and seed)");
    return FB_E_UNSUPPORTED;
}

template <Grid G, bool VEC> static int supports(const fb_call *c, char *why, size_t n) {
    const int s = fb::ew::supports<DropoutOp, kDtypes>(c, why, n);
    return s != FB_OK ? s : has_dropout_node(c, why, n);
}

template <Grid G, bool VEC> static int run(const fb_call *c) {
    char why[128];
    if (has_dropout_node(c, why, sizeof why) != FB_OK) {
        fb_error("%s", why);
        return FB_E_UNSUPPORTED;
    }
    return fb::ew::run<DropoutOp, kDtypes, G, VEC>(c);
}

}  // namespace

extern "C" const fb_variant fb_bias_dropout_add_train_variants[] = {
    {"bias_dropout_add_train.fused",
     "dropout(x + bias) + residual with fb_random.h's mask, one pass: one 16-byte pack group per thread (Triton's launch shape), 16-byte packs", kDtypes,
     supports<Grid::one_shot, true>, nullptr, run<Grid::one_shot, true>, 1},
    {"bias_dropout_add_train.persistent",
     "bias_dropout_add_train.fused's kernel, as a persistent grid-stride loop over the resident capacity (the slower launch shape, kept to measure against)", kDtypes,
     supports<Grid::persistent, true>, nullptr, run<Grid::persistent, true>, 1},
    {"bias_dropout_add_train.scalar", "bias_dropout_add_train.fused with one element per access (the unaligned fallback)",
     kDtypes, supports<Grid::one_shot, false>, nullptr, run<Grid::one_shot, false>,
     1},
};
extern "C" const int fb_bias_dropout_add_train_variant_count =
    (int)(sizeof fb_bias_dropout_add_train_variants / sizeof fb_bias_dropout_add_train_variants[0]);
