// layernorm_op.cuh — layernorm's per-row math as a row-engine Op (rowengine.cuh's interface):
// layernorm.cu's variants run it, and dev/layernorm_params_dev.cu runs the engine's kernels with
// it beside its hand-written forms.
#pragma once

namespace fb {
namespace rowwise {

struct LayerNorm {
    static constexpr const char *name = "layernorm";
    static constexpr int NIN = 1, NPARAM = 2;  // p[0] = weight, p[1] = bias
    // half-type rows beyond one CTA's registers: row_smem beats the cluster (NOTES.md, "Stop 25")
    static constexpr bool kHalfSmemRows = true;
    // rows that fill a CTA's registers: the weight staged in shared memory (K_STAGED, NOTES.md "Stop 35")
    static constexpr bool kStagedParams = true;
    // float32 W = 65536 on 128..1024 rows in clusters of 256-thread CTAs, not row_smem (stop 49, H200:
    // 1.019-1.062; 0.996 and 0.974 at 2048 and 8192 rows, NOTES.md "Stop 49")
    static constexpr long kWideRowClusterMaxRows = 1024;
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

}  // namespace rowwise
}  // namespace fb
