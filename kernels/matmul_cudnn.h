/* matmul_cudnn.h — variant table of kernels/matmul_cudnn.c (matmul_add.cudnn: out = A·B + D as
 * one cuDNN operation graph). */
#ifndef FB_MATMUL_CUDNN_H
#define FB_MATMUL_CUDNN_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_matmul_cudnn_variants[];
extern const int fb_matmul_cudnn_variant_count;

/* The variant's graph (zero_bias: its second, matmul -> + D -> + 0), tensors and operations,
 * into g (fb_cudnn_graph_init'ed by the caller) without a plan: no GPU needed. For tests. */
struct fb_cudnn_graph;
int fb_matmul_cudnn_graph_ops(const fb_call *call, bool zero_bias, struct fb_cudnn_graph *g);
#ifdef __cplusplus
}
#endif
#endif
