/* softmax_backward.h — variant table of kernels/softmax_backward.cu. */
#ifndef FB_SOFTMAX_BACKWARD_H
#define FB_SOFTMAX_BACKWARD_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_softmax_backward_variants[];
extern const int fb_softmax_backward_variant_count;
/* The fused variant's host side without the launch (plan + kernel choice): FB_OK when
 * run() has a kernel for this call. No GPU needed: for tests. */
int fb_softmax_backward_plan_only(const fb_call *call);
#ifdef __cplusplus
}
#endif
#endif
