/* matmul_own.h — variant table of kernels/matmul_own.cu (matmul_add.own: out = A·B + D on the own
 * TMA + wgmma GEMM of kernels/gemm_tma.cuh, D loaded during the main loop). */
#ifndef FB_MATMUL_OWN_H
#define FB_MATMUL_OWN_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_matmul_own_variants[];
extern const int fb_matmul_own_variant_count;
#ifdef __cplusplus
}
#endif
#endif
