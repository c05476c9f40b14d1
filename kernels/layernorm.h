/* layernorm.h — variant table of kernels/layernorm.cu. */
#ifndef FB_LAYERNORM_H
#define FB_LAYERNORM_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_layernorm_variants[];
extern const int fb_layernorm_variant_count;
#ifdef __cplusplus
}
#endif
#endif
