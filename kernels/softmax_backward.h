/* softmax_backward.h — variant table of kernels/softmax_backward.cu. */
#ifndef FB_SOFTMAX_BACKWARD_H
#define FB_SOFTMAX_BACKWARD_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_softmax_backward_variants[];
extern const int fb_softmax_backward_variant_count;
#ifdef __cplusplus
}
#endif
#endif
