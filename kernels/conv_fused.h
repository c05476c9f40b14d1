/* conv_fused.h — variant table of kernels/conv_fused.c (cuDNN's fused convolutions:
 * conv_relu.fused, conv_add.fused, conv_bn.fused). */
#ifndef FB_CONV_FUSED_H
#define FB_CONV_FUSED_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_conv_fused_variants[];
extern const int fb_conv_fused_variant_count;

/* The variant's supports() with the program's conv2d and batchnorm attribute bags given
 * directly (supports() reads them from call->program): FB_OK, or FB_E_UNSUPPORTED with
 * the reason in why. `variant` is one of the table's names. No GPU needed: for tests. */
int fb_conv_fused_supports_attrs(const char *variant, const fb_call *call, const struct fb_attrs *conv,
                                 const struct fb_attrs *bn, char *why, size_t n);

/* The variant's cuDNN graph, tensors and operations, built into g (fb_cudnn_graph_init'ed
 * by the caller, freed by fb_cudnn_graph_free) without a plan: cuDNN checks each
 * descriptor as it is finalized (dims, strides, the convolution's output size), which
 * needs no GPU. zero_bias: conv_add's second graph, conv -> + D -> + 0 (ignored by the
 * others). FB_E_UNSUPPORTED when supports() would decline. For tests. */
struct fb_cudnn_graph;
int fb_conv_fused_graph_ops(const char *variant, const fb_call *call, const struct fb_attrs *conv,
                            const struct fb_attrs *bn, bool zero_bias, struct fb_cudnn_graph *g);
#ifdef __cplusplus
}
#endif
#endif
