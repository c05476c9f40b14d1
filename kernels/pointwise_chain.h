/* pointwise_chain.h — variant table of kernels/pointwise_chain.cu. */
#ifndef FB_POINTWISE_CHAIN_H
#define FB_POINTWISE_CHAIN_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_pointwise_chain_variants[];
extern const int fb_pointwise_chain_variant_count;
#ifdef __cplusplus
}
#endif
#endif
