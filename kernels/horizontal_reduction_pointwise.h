/* horizontal_reduction_pointwise.h — variant table of kernels/horizontal_reduction_pointwise.cu. */
#ifndef FB_HORIZONTAL_REDUCTION_POINTWISE_H
#define FB_HORIZONTAL_REDUCTION_POINTWISE_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_horizontal_reduction_pointwise_variants[];
extern const int fb_horizontal_reduction_pointwise_variant_count;
#ifdef __cplusplus
}
#endif
#endif
