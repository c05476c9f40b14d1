/* softmax.h — variant table of kernels/softmax.cu. */
#ifndef FB_SOFTMAX_H
#define FB_SOFTMAX_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_softmax_variants[];
extern const int fb_softmax_variant_count;
#ifdef __cplusplus
}
#endif
#endif
