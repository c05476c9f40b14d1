// layernorm.cu — layer normalisation over the last dimension, fused.
//
// For x of shape [..., W], weight and bias of shape [W], every row:
//     mean = sum(x) / W;  var = sum((x - mean)^2) / W   (biased);
//     y = (x - mean) * rsqrt(var + 1e-5) * weight + bias
// computed in fp32 (half types stored as half, as PyTorch does). x is read once and y written
// once: the row stays in registers, so the variance is a second pass over registers, not
// memory — as cheap as a one-pass (sum, sum of squares) and without its cancellation when
// |mean| >> std. weight and bias are read per row at the output (L1/L2 hits: every row reads
// the same W columns; 16-byte loads when aligned).
//
// Variant:
//   layernorm.fused       The row engine (rowengine.cuh) picks the plan by shape: G lanes per
//                         row for W <= 1024 (peeled for odd W), a CTA per row for medium W,
//                         clusters of 2..8 CTAs for long rows or few rows, 64-row shared-memory
//                         tiles for odd rows of 96..256 bytes, a workspace two-pass past 8 CTAs.
//                         Two row sums (two barriers in CTA rows, two cluster exchanges).
//                         Prediction (not measured): >= 90% of SOL on float32 cells >= 64 MB
//                         where softmax.fused is, a point or two under softmax on clusters (two
//                         exchanges instead of one) and where rows are long enough that
//                         weight + bias (8 B per element for float32) miss L1 and come from L2.
#include "layernorm.h"
#include "rowengine.cuh"

namespace {

using namespace fb::rowwise;

struct LayerNorm {
    static constexpr const char *name = "layernorm";
    static constexpr int NIN = 1, NPARAM = 2;  // p[0] = weight, p[1] = bias
    static constexpr float kEps = 1e-5f;
    float mean, rstd;
    template <class R> __device__ __forceinline__ void row(R &r) {
        const float inv_w = 1.f / (float)r.width();
        float s = 0.f;
        r.each([&](auto &e) { s += e[0]; });
        mean = r.sum(s) * inv_w;
        float q = 0.f;
        r.each([&](auto &e) {
            const float d = e[0] - mean;
            q = fmaf(d, d, q);
        });
        rstd = rsqrtf(r.sum(q) * inv_w + kEps);
    }
    __device__ __forceinline__ float out(const float (&e)[1], const float *p) const {
        return fmaf((e[0] - mean) * rstd, p[0], p[1]);
    }
};

}  // namespace

FB_ROW_PLAN_HOOK(LayerNorm, fb_layernorm_plan_only)

extern "C" const fb_variant fb_layernorm_variants[] = {
    FB_ROW_VARIANT(LayerNorm, "layernorm.fused",
                   "layernorm over the last dim (weight, bias, eps 1e-5), x read once: row in registers"),
    FB_ROW_VARIANT_PLAN(LayerNorm, "layernorm.row_smem",
                        "layernorm, one CTA per row (no cluster), the row in registers + shared memory as fp32",
                        fb::rowwise::plan_rows_smem),
};
extern "C" const int fb_layernorm_variant_count = (int)(sizeof fb_layernorm_variants / sizeof fb_layernorm_variants[0]);
