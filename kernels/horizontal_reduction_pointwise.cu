// horizontal_reduction_pointwise.cu — a row sum and a pointwise map of one input, in one pass.
//
// For a[R, W] (R = product of the leading dims):
//     b[r] = sum_c a[r, c]        (b: [R, 1], keepdim)
//     c[r, c] = cos(a[r, c])      (c: [R, W])
// the study's "horizontal fusion" of a reduction and a pointwise op that share their input.
// fp32 arithmetic and accumulation for float32, float16 and bfloat16 (half types stored as half);
// cos is the accurate cosf. The sum is taken in a tree (per-lane partials of 4 interleaved
// chains, then lanes, warps and CTAs), not left to right.
//
// Eager runs two kernels, each reading a: 3 R W element passes plus R. Fused reads a once,
// writes c and b: ideal bytes (2 R W + R) * sizeof(T), the floor the speed of light measures.
// cos makes the half types heavier on issue (as in pointwise_chain), float32 is memory-bound.
//
// Variants (kernels/rowstream.cuh streams each row once, 64 bytes per lane in flight, peeled
// rows for odd widths; the team per row is chosen so the grid fills the resident capacity):
//   horizontal_reduction_pointwise.fused    Picks the team by shape: float32 rows of >= 1024
//                                           elements get one CTA per row of 64..512 threads
//                                           (one pass of 4 units a thread, Inductor's shape:
//                                           4096 x 4096 55.6 -> 51.6 us, NOTES.md issue 6 round
//                                           6; from W = 1024, stop 27: 4096 x 2048 86.5 -> 93.9%
//                                           of SOL); otherwise G = 1..32 lanes per row for
//                                           many rows (a whole warp once a row has >= 128 units),
//                                           a CTA of 64..512 threads per row when rows x 32 would
//                                           not fill the GPU, a cluster of 2..8 CTAs per row for
//                                           few long rows. Prediction (first version): 90-96%
//                                           of the speed of light on float32 cells of >= 64 MB
//                                           (the output c is as large as the input, so this is a
//                                           copy with a cos in it); 80-90% at odd widths 61/130
//                                           (per-row scalar heads and tails), ~93% at 1027.
//   horizontal_reduction_pointwise.group    Forces lanes-per-row teams (any shape). Kept to
//                                           measure the team thresholds.
//   horizontal_reduction_pointwise.cta      Forces one CTA per row (persistent over rows).
//   horizontal_reduction_pointwise.cluster  Forces a cluster of >= 2 CTAs per row.
//   horizontal_reduction_pointwise.fused launches its team as a one-shot grid (each team streams
//       one row and retires) with default-policy loads and stores: measured (NOTES.md, issue 6
//       round 2) median 93.3% of SOL on cells >= 64 MB against 90.2% for the persistent grid with
//       evict-first accesses, which stays as
//   horizontal_reduction_pointwise.persistent (the measured alternative), except for short odd rows
//       (W not a multiple of the vector width, <= 1 KB: 61 and 130 float32), where the persistent
//       evict-first launch measured faster (W = 61: 70.9% vs 44.6% of SOL; rowstream.cuh's
//       launch_by_shape); and odd rows of <= 256 bytes (float32 W = 61) go one element per access,
//       as .scalar, which measured faster still on tensors under 4 MB and on rows of <= 128 bytes
//       (kScalarShortOdd). Aligned rows from 16384 rows, of 128..512 elements (and from 1024 in
//       bfloat16, 1024..2048 in float16), take rowstream's short team (kShortRows: a row per
//       team of up to 32 lanes, 30-47 registers; launch_short): t_before / t_after over
//       16384-65536 rows x 128, 256, 512 (H100, write flush, NOTES.md "Stop 31" sections 6-9)
//       1.194 in bfloat16 and 1.178 in float16 (the cos made the old team issue-bound at 65-78%
//       of SOL), 1.014 in float32; bfloat16 rows of 1024..8192 1.145, of 16384..65536 1.082, and
//       of 512 at 16 lanes 1.095 over 32 ("Stop 32").
//   horizontal_reduction_pointwise.scalar   .fused with one element per access: the fallback for
//                                           tensors that are not 16-byte aligned, registered so
//                                           that selftest covers it.
#include "horizontal_reduction_pointwise.h"
#include "rowstream.cuh"

namespace {

template <typename T> struct SumCosOp {
    struct Acc {
        float v[1];
    };
    static constexpr bool kMap = true;
    T *b;
    __device__ __forceinline__ Acc init() const { return Acc{{0.f}}; }
    __device__ __forceinline__ void add(Acc &a, float x) const { a.v[0] += x; }
    __device__ __forceinline__ void merge(Acc &a, const Acc &o) const { a.v[0] += o.v[0]; }
    __device__ __forceinline__ float map(float x) const { return fb::math::cos(x); }
    __device__ __forceinline__ void finish(int64_t row, const Acc &a) const { b[row] = fb::from_acc<T>(a.v[0]); }
};

constexpr const char *kName = "horizontal_reduction_pointwise";

// in: a [..., W]; out: b with R elements (the keepdim [R, 1] or [R]), c shaped as a.
int check(const fb_call *c, char *why, size_t n) {
    if (c->n_in != 1 || c->n_out != 2) {
        if (why) snprintf(why, n, "%s takes 1 input (a) and 2 outputs (b = sum, c = cos)", kName);
        return FB_E_UNSUPPORTED;
    }
    const fb_tensor *a = &c->in[0], *b = &c->out[0], *o = &c->out[1];
    if (a->dtype != b->dtype || a->dtype != o->dtype ||
        (a->dtype != FB_F32 && a->dtype != FB_F16 && a->dtype != FB_BF16)) {
        if (why) snprintf(why, n, "%s needs float32/float16/bfloat16 input and outputs of one dtype", kName);
        return FB_E_UNSUPPORTED;
    }
    if (a->shape.rank < 1 || a->shape.rank != o->shape.rank) {
        if (why) snprintf(why, n, "%s needs a of rank >= 1 and c of a's shape", kName);
        return FB_E_UNSUPPORTED;
    }
    for (int i = 0; i < a->shape.rank; ++i)
        if (a->shape.dim[i] != o->shape.dim[i]) {
            if (why) snprintf(why, n, "%s needs c of a's shape", kName);
            return FB_E_UNSUPPORTED;
        }
    const int64_t W = a->shape.dim[a->shape.rank - 1];
    if (W > (int64_t)1 << 30) { // row offsets are 32-bit in rowstream.cuh, with room for a stride
        if (why) snprintf(why, n, "%s: rows of more than 2^30 elements", kName);
        return FB_E_UNSUPPORTED;
    }
    if (W > 0 && fb_shape_numel(&b->shape) != fb_shape_numel(&a->shape) / W) {
        if (why) snprintf(why, n, "%s needs b with one element per row of a", kName);
        return FB_E_UNSUPPORTED;
    }
    return FB_OK;
}

int supports(const fb_call *c, char *why, size_t n) { return check(c, why, n); }

template <int FORCE, bool VEC, int FLAGS = 0> int run(const fb_call *c) {
    const int s = check(c, nullptr, 0);
    if (s != FB_OK) {
        fb_error("%s: unsupported call (see supports)", kName);
        return s;
    }
    const fb_tensor *a = &c->in[0];
    const int64_t W = a->shape.dim[a->shape.rank - 1];
    const int64_t rows = W > 0 ? fb_shape_numel(&a->shape) / W : 0;
    int r = FB_E_UNSUPPORTED;
    FB_DISPATCH_FLOAT(a->dtype, T, {
        const SumCosOp<T> op{(T *)c->out[0].data};
        r = fb::rowstream::run<T>((const T *)a->data, (T *)c->out[1].data, rows, W, op, VEC, FORCE, c->stream, kName, FLAGS);
    });
    return r;
}

using namespace fb::rowstream;
constexpr unsigned kDtypes = FB_DTYPES_HALF_AND_F32;

}  // namespace

extern "C" int fb_horizontal_reduction_pointwise_scalar(long long rows, long long W, int esz) {
    return launch_by_shape(rows, W, esz, true).scalar ? 1 : 0;
}

extern "C" const fb_variant fb_horizontal_reduction_pointwise_variants[] = {
    {"horizontal_reduction_pointwise.fused", "b = sum(a, -1) and c = cos(a) in one pass over a: team per row by shape",
     kDtypes, supports, nullptr, run<-1, true, kByShape | kScalarShortOdd | kShortRows>, 1},
    {"horizontal_reduction_pointwise.persistent", "horizontal_reduction_pointwise.fused's team in a persistent grid with evict-first loads and stores (the slower launch, kept to measure against)",
     kDtypes, supports, nullptr, run<-1, true>, 1},
    {"horizontal_reduction_pointwise.group", "horizontal_reduction_pointwise, 1..32 lanes per row (any shape)", kDtypes,
     supports, nullptr, run<kGroup, true>, 1},
    {"horizontal_reduction_pointwise.cta", "horizontal_reduction_pointwise, one CTA per row (any shape)", kDtypes,
     supports, nullptr, run<kCta, true>, 1},
    {"horizontal_reduction_pointwise.cluster", "horizontal_reduction_pointwise, a cluster of 2..8 CTAs per row (any shape)",
     kDtypes, supports, nullptr, run<kCluster, true>, 1},
    {"horizontal_reduction_pointwise.scalar", "horizontal_reduction_pointwise.fused, one element per access (the unaligned fallback)",
     kDtypes, supports, nullptr, run<-1, false, kOneShot | kPlain>, 1},
};
extern "C" const int fb_horizontal_reduction_pointwise_variant_count =
    (int)(sizeof fb_horizontal_reduction_pointwise_variants / sizeof fb_horizontal_reduction_pointwise_variants[0]);
