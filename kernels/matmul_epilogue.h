/* matmul_epilogue.h — variant table of kernels/matmul_epilogue.c (cuBLASLt epilogues). */
#ifndef FB_MATMUL_EPILOGUE_H
#define FB_MATMUL_EPILOGUE_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_matmul_epilogue_variants[];
extern const int fb_matmul_epilogue_variant_count;
#ifdef __cplusplus
}
#endif
#endif
