// layernorm.cu — layer normalisation over the last dimension, fused.
//
// For x of shape [..., W], weight and bias of shape [W], every row:
//     mean = sum(x) / W;  var = sum((x - mean)^2) / W   (biased);
//     y = (x - mean) * rsqrt(var + 1e-5) * weight + bias
// computed in fp32 (half types stored as half, as PyTorch does). x is read once and y written
// once: the row stays in registers, so the variance is a second pass over registers, not
// memory — as cheap as a one-pass (sum, sum of squares) and without its cancellation when
// |mean| >> std. weight and bias are read per row at the output (L1/L2 hits: every row reads
// the same W columns; 16-byte loads when aligned). On grids of at most two CTAs per SM their
// lines are prefetched into L1 while x loads, and few rows of CTA width take one unit a thread,
// so the output loop no longer pays a DRAM round trip per unit (rowengine.cuh,
// prefetch_param_lines and plan_rows; 128 x 4096 float32 9.2 -> 6.7-6.9 us, NOTES.md "Stop 23").
//
// Variants:
//   layernorm.fused       The row engine (rowengine.cuh) picks the plan by shape. On grids of
//                         up to 8192 16-byte units an SM (float32 W = 512 to 8192 rows, W = 2048
//                         to 2048, W = 8192 to 256; half types to 1024 units an SM), every unit's
//                         weight and bias loaded with the row (plan_params_early: group rows of
//                         up to 16 values a lane, else a CTA of 8 values a thread): float32
//                         geomean 1.089 over 128..32768 rows x W = 128..8192, 256 x 4096 5.86 ->
//                         4.26 us, 128 x 8192 7.20 -> 4.77 (H200, NOTES.md "Stop 38"). Else: G lanes per
//                         row for W <= 1024 (peeled for odd W) but float32 W = 1024 from 128
//                         rows (below), a CTA per row for medium W,
//                         clusters of 2..8 CTAs for long rows or few rows, 64-row shared-memory
//                         tiles for odd rows of 96..256 bytes, a workspace two-pass past 8 CTAs.
//                         On float32 rows of 1024..2048 past the early plans, a CTA a row of four
//                         units a thread (plan_mid_rows: 8192 x 1024 20.5 -> 18.6 us, 8192 x
//                         2048 36.3 -> 33.8, H200, NOTES.md "Stop 37").
//                         On rows that fill a CTA's registers exactly (float32 W = 16384 and
//                         32768, W = 4096 and 8192 from 1024 rows; the half types' W = 16384 and
//                         32768 on up to two rows an SM), the weight copied into shared memory
//                         while the row's first sum runs and the bias loaded a unit ahead
//                         (K_STAGED, rowengine.cuh plan_staged: 1024 x 32768 float32 88.3 ->
//                         74.8 us, 99-100% of the copy from 4096 rows of 32768; H200, NOTES.md
//                         "Stop 35").
//                         float32 W = 65536 on 128..1024 rows: clusters of eight 256-thread CTAs
//                         (layernorm_op.cuh's kWideRowClusterMaxRows; their partials by st.async:
//                         1.02-1.06x over row_smem there, 0.97-1.00x from 2048 rows; H200,
//                         NOTES.md "Stop 49").
//                         Two row sums (two barriers in CTA rows, two cluster exchanges).
//                         Measured (H100, float32, results/h100/stop23/): median 97.0% of SOL
//                         on the cells of >= 64 MB; under 90% on 128-2048 rows of 16K-64K
//                         (a few waves of one row per SM, every SM in the same phase:
//                         NOTES.md, "Few-wave long rows") and at 8192 x 1024 (88.9%).
//   layernorm.row_smem    one CTA per row, the rest of a long row in shared memory (K_ROW_SMEM):
//                         what .fused took at float32 W = 16384..32768 before K_STAGED.
//   layernorm.staged      K_STAGED alone, wherever a row fills a CTA of 64..1024 threads exactly
//                         (W = 2048..32768 float32, 4096..32768 half types; unsupported elsewhere).
#include "layernorm.h"
#include "rowengine.cuh"
#include "layernorm_op.cuh"

using fb::rowwise::LayerNorm;

FB_ROW_PLAN_HOOK(LayerNorm, fb_layernorm_plan_only)
FB_ROW_PLAN_INFO_HOOK(LayerNorm, fb_layernorm_plan_info)

extern "C" const fb_variant fb_layernorm_variants[] = {
    FB_ROW_VARIANT(LayerNorm, "layernorm.fused",
                   "layernorm over the last dim (weight, bias, eps 1e-5), x read once: row in registers"),
    FB_ROW_VARIANT_PLAN(LayerNorm, "layernorm.row_smem",
                        "layernorm, one CTA per row (no cluster), the row in registers + shared memory as fp32",
                        fb::rowwise::plan_rows_smem),
    FB_ROW_VARIANT_PLAN(LayerNorm, "layernorm.staged",
                        "layernorm, rows that fill a CTA's registers exactly (W = 2048..32768): the weight "
                        "staged in shared memory (what .fused takes on most of them)",
                        fb::rowwise::plan_rows_staged),
};
extern "C" const int fb_layernorm_variant_count = (int)(sizeof fb_layernorm_variants / sizeof fb_layernorm_variants[0]);
