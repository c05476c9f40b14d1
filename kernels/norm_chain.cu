// norm_chain.cu — three row-sum rescalings, fused.
//
// For x of shape [..., W], every row, three times:  s = sum(x);  x = x * s.  Output: x.
// computed in fp32 (half types stored as half; the intermediates never round to half). x is
// read once and written once: the row stays in registers across the three sums. Each sum is
// taken over the values as they are after the previous rescaling, as the program says (not
// folded into s1^7 algebraically, which would round differently).
//
// Variant:
//   norm_chain.fused      The row engine (rowengine.cuh) picks the plan by shape: G lanes per
//                         row for W <= 1024 (peeled for odd W) but float32 W = 1024 from 128
//                         rows, a CTA per row for medium W (more threads a row at float32 W =
//                         1024..2048: rowengine.cuh plan_mid_rows, NOTES.md "Stop 37"),
//                         clusters of 2..8 CTAs for long rows or few rows, 64-row shared-memory
//                         tiles for odd rows of 96..256 bytes, a workspace two-pass past 8 CTAs.
//                         float32 W = 16384 (a row in the registers of 512 threads) on the CTA
//                         kernel (Op::kCtaRegisterRows): 512 x 16384 20.5 -> 18.9 us, 1024 x
//                         16384 35.7 -> 34.3 (H200, NOTES.md "Stop 38"). Since stop 39 (H200,
//                         NOTES.md "Stop 39"): float32 rows of 4096..8192 on few rows on a CTA of
//                         four units a thread (plan_few_long_rows: 128 x 8192 6.50 -> 4.64 us),
//                         and W = 65536 on 256..1024 rows in clusters of eight 256-thread CTAs
//                         (1.06-1.07 at 256..512 rows); since stop 49 (cluster partials by
//                         st.async) on 128..8192 rows (Op::kWideRowClusterMaxRows: 1.08-1.17x,
//                         2048 x 65536 87.0 -> 95.8% of SOL).
//                         Three row sums (three barriers in CTA rows, three cluster exchanges).
//                         Prediction (first version): >= 90% of SOL on float32 cells >= 64 MB
//                         where softmax.fused is; on clusters 1-3 points under softmax (three
//                         exchanges, while the row sits in registers with no traffic in flight).
//                         Measured (stop 29, H100, write flush, full float32 grid): 52 of the 55
//                         cells of >= 64 MB at >= 90% of SOL; the three under it are the few-wave
//                         rows of 65536 (128-512 rows, 82.6-87.4%). 1.122x torch.compile in
//                         geomean (results/h100/stop29/tables.txt).
#include "norm_chain.h"
#include "rowengine.cuh"

namespace {

using namespace fb::rowwise;

struct NormChain {
    static constexpr const char *name = "norm_chain";
    static constexpr int NIN = 1, NPARAM = 0;
    // No kPairRows any more (stop 29): two 512-thread CTAs an SM, which round 3 measured ahead at
    // W = 32768, ran 3-4% behind one 1024-thread CTA on the H100 from 1024 rows (NOTES.md).
    // float32 W = 16384 on K_CTA's kernel, not row_smem's (1.02-1.11x, H200, NOTES.md "Stop 38").
    static constexpr bool kCtaRegisterRows = true;
    // float32 W = 65536 on 128..8192 rows in clusters of 256-thread CTAs, not row_smem (stop 49,
    // H200: 1.086, 1.097, 1.079 at 128, 2048, 8192 rows; 1.17 at 256..1024)
    static constexpr long kWideRowClusterMaxRows = 8192;
    float s3;
    template <class R> __device__ __forceinline__ void row(R &r) {
        float s = 0.f;
        r.each([&](auto &e) { s += e[0]; });
        const float s1 = r.sum(s);
        s = 0.f;
        r.each([&](auto &e) {
            e[0] *= s1;
            s += e[0];
        });
        const float s2 = r.sum(s);
        s = 0.f;
        r.each([&](auto &e) {
            e[0] *= s2;
            s += e[0];
        });
        s3 = r.sum(s);  // the last rescaling happens at the store
    }
    __device__ __forceinline__ float out(const float (&e)[1], const float *) const { return e[0] * s3; }
};

}  // namespace

FB_ROW_PLAN_HOOK(NormChain, fb_norm_chain_plan_only)
FB_ROW_PLAN_INFO_HOOK(NormChain, fb_norm_chain_plan_info)

extern "C" const fb_variant fb_norm_chain_variants[] = {
    FB_ROW_VARIANT(NormChain, "norm_chain.fused",
                   "three times s = sum(x, -1); x = x * s, x read once: row in registers"),
    FB_ROW_VARIANT_PLAN(NormChain, "norm_chain.row_smem",
                        "norm_chain, one CTA per row (no cluster), the row in registers + shared memory as fp32",
                        fb::rowwise::plan_rows_smem),
};
extern "C" const int fb_norm_chain_variant_count = (int)(sizeof fb_norm_chain_variants / sizeof fb_norm_chain_variants[0]);
