// softmax_backward.cu — the softmax gradient, fused.
//
// For y (a softmax output) and dy of shape [..., W], every row:
//     dx = y * (dy - sum(y * dy))
// computed in fp32 (half types stored as half). y and dy are read once and dx written once:
// both rows stay in registers (two values per element) across the one row sum.
//
// Variant:
//   softmax_backward.fused  The row engine (rowengine.cuh) picks the plan by shape, with the
//                         register budget shared by the two inputs: G lanes per row up to
//                         32 elements (64 values) per lane (W <= 1024), but float32 W = 1024
//                         from 128 rows takes a CTA of 8 or 16 values a thread (rowengine.cuh
//                         plan_mid_rows, NOTES.md "Stop 37"); a CTA per row (16 elements x 2
//                         per thread) for medium W;
//                         clusters of 2..8 CTAs for long rows (W = 65536 float32 needs 8 CTAs
//                         of 512 threads) or few rows; 64-row shared-memory tiles for odd rows
//                         of 96..256 bytes; a workspace two-pass past 8 CTAs. float32 rows of
//                         >= 64 KB go to row_smem, but W = 32768 from 512 rows to a cluster of two
//                         1024-thread CTAs holding y and dy in registers (one DSMEM exchange a
//                         row): 1.04-1.06x over row_smem from 1024 rows on the H200, at the copy
//                         and at torch.compile's time (NOTES.md, "Stop 34"); since stop 39 from
//                         256 rows a cluster of eight 256-thread CTAs, four CTAs an SM (1.01-1.11x
//                         over the two; 512 x 32768 54.9 -> 51.7 us), and float32 rows of
//                         4096..8192 on few rows a CTA of four units a thread of each input
//                         (plan_few_long_rows: 1.10-1.21x at 128..256 rows; NOTES.md "Stop 39").
//                         Prediction (not measured): 3 x rows x W x sizeof(T) of traffic with
//                         one reduction (one barrier in CTA rows) and no exps: >= 90% of SOL on
//                         float32 cells >= 64 MB wherever softmax.fused is, W = 65536 with few
//                         rows a few points lower (8-CTA clusters: the longest exchange).
//   softmax_backward.row_smem  forces one CTA a row with the rest of the row in shared memory.
//   softmax_backward.cluster   forces a cluster of 2..8 CTAs of up to 1024 threads a row, the
//                         row in registers: what the W = 32768 rule was measured against.
#include "softmax_backward.h"
#include "rowengine.cuh"

namespace {

using namespace fb::rowwise;

struct SoftmaxBackward {
    static constexpr const char *name = "softmax_backward";
    static constexpr int NIN = 2, NPARAM = 0;  // e[0] = y, e[1] = dy
    // half-type rows beyond one CTA's registers: row_smem beats the cluster (NOTES.md, "Stop 25")
    static constexpr bool kHalfSmemRows = true;
    float s;
    template <class R> __device__ __forceinline__ void row(R &r) {
        float t = 0.f;
        r.each([&](auto &e) { t = fmaf(e[0], e[1], t); });
        s = r.sum(t);
    }
    __device__ __forceinline__ float out(const float (&e)[2], const float *) const { return e[0] * (e[1] - s); }
};

}  // namespace

FB_ROW_PLAN_HOOK(SoftmaxBackward, fb_softmax_backward_plan_only)
FB_ROW_PLAN_INFO_HOOK(SoftmaxBackward, fb_softmax_backward_plan_info)

extern "C" const fb_variant fb_softmax_backward_variants[] = {
    FB_ROW_VARIANT(SoftmaxBackward, "softmax_backward.fused",
                   "dx = y * (dy - sum(y * dy)) over the last dim, y and dy read once: rows in registers"),
    FB_ROW_VARIANT_PLAN(SoftmaxBackward, "softmax_backward.row_smem",
                        "softmax_backward, one CTA per row (no cluster), the row in registers + shared memory as fp32",
                        fb::rowwise::plan_rows_smem),
    FB_ROW_VARIANT_PLAN(SoftmaxBackward, "softmax_backward.cluster",
                        "softmax_backward, a cluster of 2..8 CTAs of up to 1024 threads per row, the row in registers",
                        fb::rowwise::plan_rows_cluster),
};
extern "C" const int fb_softmax_backward_variant_count =
    (int)(sizeof fb_softmax_backward_variants / sizeof fb_softmax_backward_variants[0]);
