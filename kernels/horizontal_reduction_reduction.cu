// horizontal_reduction_reduction.cu — two row reductions of one input, in one pass.
//
// For a[R, W] (R = product of the leading dims):
//     b[r] = sum_c a[r, c]        c[r] = max_c a[r, c]        (both [R, 1], keepdim)
// the study's "horizontal fusion" of two reductions that share their input. fp32 accumulation
// for float32, float16 and bfloat16 (half types stored as half); the max propagates NaN as
// torch.amax does. The sum is taken in a tree (per-lane partials of 4 interleaved chains, then
// lanes, warps and CTAs), not left to right.
//
// Eager runs two reduction kernels, each reading a (2 R W element reads). Fused reads a once and
// writes 2 R values: a pure read stream. Its speed of light is a copy of the ideal bytes
// (R W + 2 R elements), i.e. half of them read and half written, while this kernel only reads:
// an H100 reads faster than it copies, so this case can exceed 100% of SOL (prediction: 105-115%
// on float32 cells of >= 64 MB). Arithmetic is one FADD and one FMNMX-like select per element:
// memory-bound in every dtype.
//
// Variants (kernels/rowstream.cuh streams each row once, 64 bytes per lane in flight, peeled
// rows for odd widths; the team per row is chosen so the grid fills the resident capacity):
//   horizontal_reduction_reduction.fused    Picks the team by shape: float32 rows of >= 1024
//                                           elements get one CTA per row of 64..512 threads in
//                                           a one-shot grid (Inductor's shape: 65536 x 4096
//                                           377.7 -> 359.0 us under the write flush, torch.compile
//                                           356.2, NOTES.md issue 6 round 6; from W = 1024 in
//                                           stop 27: geomean 1.025 over W 1024-4096); otherwise, in a
//                                           persistent grid with evict-first loads,
//                                           G = 1..32 lanes per row for
//                                           many rows (a whole warp once a row has >= 128 units),
//                                           a CTA of 64..512 threads per row when rows x 32 would
//                                           not fill the GPU, a cluster of 2..8 CTAs per row for
//                                           few long rows. Prediction (first version): at the
//                                           read bandwidth on float32 cells of >= 64 MB (>= 100%
//                                           of SOL, see above); odd widths 61/130 lower (per-row
//                                           scalar heads and tails), 1027 close to even widths.
//   horizontal_reduction_reduction.group    Forces lanes-per-row teams (any shape). Kept to
//                                           measure the team thresholds.
//   horizontal_reduction_reduction.cta      Forces one CTA per row (persistent over rows).
//   horizontal_reduction_reduction.cluster  Forces a cluster of >= 2 CTAs per row.
//   horizontal_reduction_reduction.scalar   .fused with one element per access: the fallback for
//                                           tensors that are not 16-byte aligned, registered so
//                                           that selftest covers it.
#include "horizontal_reduction_reduction.h"
#include "rowstream.cuh"

namespace {

template <typename T> struct SumMaxOp {
    struct Acc {
        float v[2];  // sum, max
    };
    static constexpr bool kMap = false;
    T *b, *c;
    __device__ __forceinline__ Acc init() const { return Acc{{0.f, -INFINITY}}; }
    __device__ __forceinline__ void add(Acc &a, float x) const {
        a.v[0] += x;
        a.v[1] = fb::nan_max(a.v[1], x);
    }
    __device__ __forceinline__ void merge(Acc &a, const Acc &o) const {
        a.v[0] += o.v[0];
        a.v[1] = fb::nan_max(a.v[1], o.v[1]);
    }
    __device__ __forceinline__ float map(float x) const { return x; }
    __device__ __forceinline__ void finish(int64_t row, const Acc &a) const {
        b[row] = fb::from_acc<T>(a.v[0]);
        c[row] = fb::from_acc<T>(a.v[1]);
    }
};

constexpr const char *kName = "horizontal_reduction_reduction";

// in: a [..., W]; out: b and c with R elements each (the keepdim [R, 1] or [R]).
int check(const fb_call *c, char *why, size_t n) {
    if (c->n_in != 1 || c->n_out != 2) {
        if (why) snprintf(why, n, "%s takes 1 input (a) and 2 outputs (b = sum, c = amax)", kName);
        return FB_E_UNSUPPORTED;
    }
    const fb_tensor *a = &c->in[0];
    if (a->dtype != c->out[0].dtype || a->dtype != c->out[1].dtype ||
        (a->dtype != FB_F32 && a->dtype != FB_F16 && a->dtype != FB_BF16)) {
        if (why) snprintf(why, n, "%s needs float32/float16/bfloat16 input and outputs of one dtype", kName);
        return FB_E_UNSUPPORTED;
    }
    if (a->shape.rank < 1) {
        if (why) snprintf(why, n, "%s needs a of rank >= 1", kName);
        return FB_E_UNSUPPORTED;
    }
    const int64_t W = a->shape.dim[a->shape.rank - 1];
    if (W > (int64_t)1 << 30) { // row offsets are 32-bit in rowstream.cuh, with room for a stride
        if (why) snprintf(why, n, "%s: rows of more than 2^30 elements", kName);
        return FB_E_UNSUPPORTED;
    }
    const int64_t rows = W > 0 ? fb_shape_numel(&a->shape) / W : 0;
    for (int k = 0; k < 2; ++k)
        if (W > 0 && fb_shape_numel(&c->out[k].shape) != rows) {
            if (why) snprintf(why, n, "%s needs b and c with one element per row of a", kName);
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
        const SumMaxOp<T> op{(T *)c->out[0].data, (T *)c->out[1].data};
        r = fb::rowstream::run<T>((const T *)a->data, (T *)nullptr, rows, W, op, VEC, FORCE, c->stream, kName, FLAGS);
    });
    return r;
}

using namespace fb::rowstream;
constexpr unsigned kDtypes = FB_DTYPES_HALF_AND_F32;
// .fused: the persistent grid, except for the rows that plan's long-row rule takes (rowstream.cuh)
constexpr int kFusedFlags = kLongRowsOneShot;

}  // namespace

extern "C" fb_rowstream_plan_info fb_horizontal_reduction_reduction_plan(long long rows, long long W, int esz,
                                                                          int vec, int threads_per_sm) {
    const Plan p = plan(rows, W, esz, vec != 0, threads_per_sm, -1);
    const int flags = resolve_flags(p, kFusedFlags);
    return fb_rowstream_plan_info{(int)p.team, p.G, p.threads, p.C, (flags & kOneShot) != 0};
}

extern "C" const fb_variant fb_horizontal_reduction_reduction_variants[] = {
    {"horizontal_reduction_reduction.fused", "b = sum(a, -1) and c = amax(a, -1) in one pass over a: team per row by shape",
     kDtypes, supports, nullptr, run<-1, true, kFusedFlags>, 1},
    {"horizontal_reduction_reduction.group", "horizontal_reduction_reduction, 1..32 lanes per row (any shape)", kDtypes,
     supports, nullptr, run<kGroup, true>, 1},
    {"horizontal_reduction_reduction.cta", "horizontal_reduction_reduction, one CTA per row (any shape)", kDtypes,
     supports, nullptr, run<kCta, true>, 1},
    {"horizontal_reduction_reduction.cluster", "horizontal_reduction_reduction, a cluster of 2..8 CTAs per row (any shape)",
     kDtypes, supports, nullptr, run<kCluster, true>, 1},
    {"horizontal_reduction_reduction.scalar", "horizontal_reduction_reduction.fused, one element per access (the unaligned fallback)",
     kDtypes, supports, nullptr, run<-1, false>, 1},
};
extern "C" const int fb_horizontal_reduction_reduction_variant_count =
    (int)(sizeof fb_horizontal_reduction_reduction_variants / sizeof fb_horizontal_reduction_reduction_variants[0]);
