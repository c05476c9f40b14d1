/* horizontal_reduction_pointwise.h — variant table of kernels/horizontal_reduction_pointwise.cu. */
#ifndef FB_HORIZONTAL_REDUCTION_POINTWISE_H
#define FB_HORIZONTAL_REDUCTION_POINTWISE_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_horizontal_reduction_pointwise_variants[];
extern const int fb_horizontal_reduction_pointwise_variant_count;
/* For CPU tests: 1 when .fused streams rows x W of esz-byte elements one element per access
 * (kScalarShortOdd's rule, rowstream.cuh's launch_by_shape), else 0. */
int fb_horizontal_reduction_pointwise_scalar(long long rows, long long W, int esz);
#ifdef __cplusplus
}
#endif
#endif
