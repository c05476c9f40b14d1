/* norm_chain.h — variant table of kernels/norm_chain.cu. */
#ifndef FB_NORM_CHAIN_H
#define FB_NORM_CHAIN_H
#include "../src/variant.h"
#include "rowplan_info.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_norm_chain_variants[];
extern const int fb_norm_chain_variant_count;
/* The fused variant's host side without the launch (plan + kernel choice): FB_OK when
 * run() has a kernel for this call. No GPU needed: for tests. */
int fb_norm_chain_plan_only(const fb_call *call);
/* The plan run() would launch (FB_OK), for tests. */
int fb_norm_chain_plan_info(const fb_call *call, fb_row_plan_info *out);
#ifdef __cplusplus
}
#endif
#endif
