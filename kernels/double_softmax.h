/* double_softmax.h — variant table of kernels/double_softmax.cu. */
#ifndef FB_DOUBLE_SOFTMAX_H
#define FB_DOUBLE_SOFTMAX_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_double_softmax_variants[];
extern const int fb_double_softmax_variant_count;
#ifdef __cplusplus
}
#endif
#endif
