/* bias_dropout_add_train.h — variant table of kernels/bias_dropout_add_train.cu. */
#ifndef FB_BIAS_DROPOUT_ADD_TRAIN_H
#define FB_BIAS_DROPOUT_ADD_TRAIN_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_bias_dropout_add_train_variants[];
extern const int fb_bias_dropout_add_train_variant_count;
#ifdef __cplusplus
}
#endif
#endif
