/* softmax_backward.h — variant table of kernels/softmax_backward.cu. */
#ifndef FB_SOFTMAX_BACKWARD_H
#define FB_SOFTMAX_BACKWARD_H
#include "../src/variant.h"
#include "rowplan_info.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_softmax_backward_variants[];
extern const int fb_softmax_backward_variant_count;
/* The fused variant's host side without the launch (plan + kernel choice): FB_OK when
 * run() has a kernel for this call. No GPU needed: for tests. */
int fb_softmax_backward_plan_only(const fb_call *call);
/* The plan run() would launch (FB_OK), for tests. */
int fb_softmax_backward_plan_info(const fb_call *call, fb_row_plan_info *out);
#ifdef __cplusplus
}
#endif
#endif
