/* bias_dropout_add.h — variant table of kernels/bias_dropout_add.cu. */
#ifndef FB_BIAS_DROPOUT_ADD_H
#define FB_BIAS_DROPOUT_ADD_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_bias_dropout_add_variants[];
extern const int fb_bias_dropout_add_variant_count;
#ifdef __cplusplus
}
#endif
#endif
