/* double_softmax.h — variant table of kernels/double_softmax.cu. */
#ifndef FB_DOUBLE_SOFTMAX_H
#define FB_DOUBLE_SOFTMAX_H
#include "../src/variant.h"
#include "rowplan_info.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_double_softmax_variants[];
extern const int fb_double_softmax_variant_count;
/* The fused variant's host side without the launch (plan + kernel choice): FB_OK when
 * run() has a kernel for this call. No GPU needed: for tests. */
int fb_double_softmax_plan_only(const fb_call *call);
/* The plan run() would launch (FB_OK), for tests. */
int fb_double_softmax_plan_info(const fb_call *call, fb_row_plan_info *out);
#ifdef __cplusplus
}
#endif
#endif
