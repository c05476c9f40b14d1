// rmsnorm_engine.cu — RMSNorm forward as an Op of the row engine (rowengine.cuh), the engine
// that runs layernorm, so that RMSNorm's rows take the engine's plans (a CTA or cluster a row,
// row_smem, the persistent parameter hold) where those beat kernels/rmsnorm.cu's own.
//
//     y = x * rsqrt(mean(x^2) + 1e-6) * w     (fp32 math; half types stored as half)
//
// Variant (listed in rmsnorm.cu's table):
//   rmsnorm.row_engine   the engine's plan by shape (float32, float16, bfloat16; no float64).
//                        Why it exists: on the H200 (stop 33, call 3) rmsnorm's own modes ran
//                        float32 8192 x 16384 at 88-91% of the copy (283.7-295.5 us against
//                        259.5), where the engine's layernorm, the same row with one more
//                        parameter and one more reduction, ran 8192 x 16384 at 96.9%. Since
//                        stop 39 its float32 rows that fill a CTA's registers stage the weight in
//                        shared memory (layernorm's K_STAGED): [4, 128, 16384] 21.5 -> 19.1 us.
#include "rmsnorm.h"
#include "rowengine.cuh"

namespace {

using namespace fb::rowwise;

struct RmsNorm {
    static constexpr const char *name = "rmsnorm";
    static constexpr int NIN = 1, NPARAM = 1;  // p[0] = weight
    static constexpr bool kHalfSmemRows = true;  // as layernorm (NOTES.md, "Stop 25")
    // float32 rows that fill a CTA's registers exactly (W = 16384, 32768; W = 4096, 8192 from 1024
    // rows) stage the weight in shared memory, as layernorm's (K_STAGED, plan_staged): [4, 128,
    // 16384] 21.5 -> 19.1 us, [4, 512, 16384] 68.6 -> 66.2 (H200, NOTES.md "Stop 39")
    static constexpr bool kStagedParams = true;
    static constexpr float kEps = 1e-6f;
    float rstd;
    template <class R> __device__ __forceinline__ void row(R &r) {
        float q = 0.f;
        r.each([&](auto &e) { q = fmaf(e[0], e[0], q); });
        rstd = rsqrtf(r.sum(q) * (1.f / (float)r.width()) + kEps);
    }
    __device__ __forceinline__ float out(const float (&e)[1], const float *p) const { return e[0] * rstd * p[0]; }
};

using Engine = RowVariant<RmsNorm>;

}  // namespace

extern "C" int fb_rmsnorm_engine_supports(const fb_call *c, char *why, size_t n) { return Engine::supports(c, why, n); }
extern "C" size_t fb_rmsnorm_engine_workspace(const fb_call *c) { return Engine::workspace(c); }
extern "C" int fb_rmsnorm_engine_run(const fb_call *c) { return Engine::run(c); }
// A plan with no workspace (not the two-pass one), from one planning of the call; *params_early
// from the same plan.
extern "C" int fb_rmsnorm_engine_fits(const fb_call *c, int *params_early) {
    fb_row_plan_info info;
    if (Engine::plan_info(c, &info) != FB_OK || info.kind == K_TWO_PASS) return 0;
    *params_early = info.params_early;
    return 1;
}
FB_ROW_PLAN_HOOK(RmsNorm, fb_rmsnorm_engine_plan_only)
FB_ROW_PLAN_INFO_HOOK(RmsNorm, fb_rmsnorm_engine_plan_info)
