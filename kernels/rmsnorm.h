/* rmsnorm.h — variant table of kernels/rmsnorm.cu. */
#ifndef FB_RMSNORM_H
#define FB_RMSNORM_H
#include "../src/variant.h"
#include "rowplan_info.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_rmsnorm_variants[];
extern const int fb_rmsnorm_variant_count;
/* The fused variant's host side without the launch (plan + kernel choice): FB_OK when
 * run() has a kernel for this call. No GPU needed: for tests. */
int fb_rmsnorm_plan_only(const fb_call *call);
/* What rmsnorm.fused runs for this call: "row_engine", "straight_reread" or one of TileGym's modes
 * ("multi_wave_cached", "multi_wave_reload", "static_persistent"); NULL when it runs nothing (an
 * empty tensor) or the call is not one it takes. No GPU needed: for tests. */
const char *fb_rmsnorm_fused_pick(const fb_call *call);
/* The group shape rmsnorm.fused's modes launch for this call (kernels/rmsnorm.cu problem()): *G
 * threads a row, *U units a thread, *threads a CTA, and *fixed_g 1 when the kernel has G as a
 * compile-time constant. FB_OK, or FB_E_UNSUPPORTED for a call rmsnorm.fused does not take. No
 * GPU needed: for tests. */
int fb_rmsnorm_group_shape(const fb_call *call, int *G, int *U, int *threads, int *fixed_g);
/* kernels/rmsnorm_engine.cu: RMSNorm as a row-engine Op (rmsnorm.row_engine; float32 and the half
 * types). */
int fb_rmsnorm_engine_supports(const fb_call *call, char *why, size_t n);
size_t fb_rmsnorm_engine_workspace(const fb_call *call); /* the engine's two-pass rows (very long) */
int fb_rmsnorm_engine_run(const fb_call *call);
int fb_rmsnorm_engine_plan_only(const fb_call *call);
/* The engine's plan for this call (FB_OK), for tests. */
int fb_rmsnorm_engine_plan_info(const fb_call *call, fb_row_plan_info *out);
/* 1 when the engine has a plan for a call with rows that needs no workspace: supports() takes it
 * and workspace() is 0, from one planning (rmsnorm.fused's test, at every launch); then
 * *params_early says whether that plan loads the weight with the row. */
int fb_rmsnorm_engine_fits(const fb_call *call, int *params_early);
#ifdef __cplusplus
}
#endif
#endif
