/* horizontal_reduction_reduction.h — variant table of kernels/horizontal_reduction_reduction.cu. */
#ifndef FB_HORIZONTAL_REDUCTION_REDUCTION_H
#define FB_HORIZONTAL_REDUCTION_REDUCTION_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_horizontal_reduction_reduction_variants[];
extern const int fb_horizontal_reduction_reduction_variant_count;
#ifdef __cplusplus
}
#endif
#endif
