// double_softmax.cu — softmax(softmax(x, -1), -1), fused.
//
// For x of shape [..., W] and every row:  s = softmax(x);  y = softmax(s)
// computed in fp32 (half types stored as half). x is read once and y written once: the row
// stays in registers between the two softmaxes. The second softmax needs no max: s lies in
// [0, 1], so exp(s) lies in [1, e] and cannot overflow, and softmax is shift-invariant —
// y = exp(s) / sum exp(s) is the reference's exp(s - max s) / sum exp(s - max s) exactly in
// real arithmetic. That saves a reduction (a barrier in CTA rows). A NaN anywhere in a row
// makes the row NaN; an all -inf row gives NaN, as the reference does.
//
// Variant:
//   double_softmax.fused  The row engine (rowengine.cuh) picks the plan by shape: 64-row tiles
//                         through shared memory for odd rows of 96..256 bytes; G lanes per row
//                         for W <= 1024 (peeled for odd W) but float32 W = 1024 from 128 rows;
//                         a CTA per row for medium W (more threads a row at float32 W =
//                         1024..2048: rowengine.cuh plan_mid_rows, NOTES.md "Stop 37"); a
//                         cluster of 2..8 CTAs for long rows or few rows; a workspace two-pass
//                         past 8 CTAs' registers. Since stop 39 (H200, NOTES.md "Stop 39"):
//                         float32 W = 16384 on the CTA kernel (Op::kCtaRegisterRows: 1.01-1.14x
//                         at 256..4096 rows), rows of 4096..8192 on few rows on a CTA of four
//                         units a thread (plan_few_long_rows: 1.09-1.37x), W = 65536 on 256..1024
//                         rows in clusters of eight 256-thread CTAs (1.07-1.18x); since stop 49
//                         (cluster partials by st.async) on 128..8192 rows (Op::
//                         kWideRowClusterMaxRows: 1.05-1.10x, 2048 x 65536 83.6 -> 92.5% of SOL). Per row: 2 exps per element, one (max, sum)
//                         merge and one sum (2 barriers in CTA rows, shuffles only in group rows).
//                         Prediction (not measured): within 1-3 points of softmax.fused wherever
//                         both use the same plan (the second exp pass is register-only work), so
//                         >= 90% of SOL on float32 cells >= 64 MB except where softmax itself
//                         used row_smem (256 x 32768: clusters here, ~90%) and 128 x 65536
//                         (clusters, 88-91% for softmax).
#include "double_softmax.h"
#include "rowengine.cuh"

namespace {

using namespace fb::rowwise;

struct DoubleSoftmax {
    static constexpr const char *name = "double_softmax";
    static constexpr int NIN = 1, NPARAM = 0;
    // float32 W = 16384 on K_CTA's kernel, not row_smem's with no shared part (1.01-1.14x at
    // 256..4096 rows, 1.00 at 128; H200, NOTES.md "Stop 39")
    static constexpr bool kCtaRegisterRows = true;
    // float32 W = 65536 on 128..8192 rows in clusters of 256-thread CTAs, not row_smem (stop 49,
    // H200: 1.088, 1.103, 1.050 at 128, 2048, 8192 rows; stop 39: 1.07-1.18 at 256..1024)
    static constexpr long kWideRowClusterMaxRows = 8192;
    float inv;
    template <class R> __device__ __forceinline__ void row(R &r) {
        // values: exp(x - shift); s = e * scale1. Second pass: exp(s) = ex2(e * scale1 * log2e).
        const float a = row_softmax_scale<0>(r) * kLog2e;
        float s = 0.f;
        r.each([&](auto &e) {
            e[0] = ex2(e[0] * a);
            s += e[0];
        });
        inv = 1.f / r.sum(s);
    }
    __device__ __forceinline__ float out(const float (&e)[1], const float *) const { return e[0] * inv; }
};

}  // namespace

FB_ROW_PLAN_HOOK(DoubleSoftmax, fb_double_softmax_plan_only)
FB_ROW_PLAN_INFO_HOOK(DoubleSoftmax, fb_double_softmax_plan_info)

extern "C" const fb_variant fb_double_softmax_variants[] = {
    FB_ROW_VARIANT(DoubleSoftmax, "double_softmax.fused",
                   "softmax(softmax(x)) over the last dim, x read once: row in registers, plan by shape"),
    FB_ROW_VARIANT_PLAN(DoubleSoftmax, "double_softmax.row_smem",
                        "double_softmax, one CTA per row (no cluster), the row in registers + shared memory as fp32",
                        fb::rowwise::plan_rows_smem),
};
extern "C" const int fb_double_softmax_variant_count =
    (int)(sizeof fb_double_softmax_variants / sizeof fb_double_softmax_variants[0]);
