/* bias_gelu.h — variant table of kernels/bias_gelu.cu. */
#ifndef FB_BIAS_GELU_H
#define FB_BIAS_GELU_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_bias_gelu_variants[];
extern const int fb_bias_gelu_variant_count;
#ifdef __cplusplus
}
#endif
#endif
