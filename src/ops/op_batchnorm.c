/* op_batchnorm.c — the batchnorm kind: batch normalisation in inference form,
 * with the per-channel statistics given (the running mean and variance a trained
 * model holds):
 *
 *   {"op": "batchnorm", "in": ["x", "mean", "var", "gamma", "beta"], "eps": 1e-5, "out": "y"}
 *
 *   y = (x − mean[c])·rsqrt(var[c] + eps)·gamma[c] + beta[c]
 *
 * c is the element's channel: x's last dim with `layout` "NHWC" (the default, what a
 * channels-last convolution writes), dim 1 with "NCHW". x has rank 2 to 4; mean,
 * var, gamma and beta are each [C]. eps (default 1e-5, PyTorch's) is a finite
 * number >= 0.
 *
 * FLOPs: 2 per element of x, the convention of an inference batch norm folded to
 * y = x·scale[c] + shift[c] (one multiply-add); the per-channel work (rsqrt, the
 * scale and shift) is C-sized and not counted. torch_peer.py counts the same.
 * Bytes: x and the four parameters read once, y written once, one launch.
 *
 * The reference computes the formula as written, in double. Eager is one kernel
 * (primitives.cu's batchnorm_kernel): elementwise over x, the parameters read per
 * element through the cache, fp32 arithmetic for the half types, double for
 * float64. Row rule: elementwise along every axis of x; the parameters' one axis
 * is x's channel axis (broadcast along it, as a binary op's [C] operand). */
#include "op_table.h"

#include <math.h>

#include "primitives.h"

static const char *const bn_ops[] = {"batchnorm"};
static const char *const bn_attrs[] = {"eps", "layout"};
static const char *const bn_params[] = {"x", "mean", "var", "gamma", "beta"};

enum { LAYOUT_NHWC, LAYOUT_NCHW };
static const char *const layouts[] = {"NHWC", "NCHW"};

static fb_status bn_parse(fb_attr_reader *r, fb_node *n)
{
    double eps = 1e-5;
    int layout = LAYOUT_NHWC;
    bool present;
    fb_status s = fb_read_real(r, "eps", &eps, &present);
    if (s) return s;
    if (!(eps >= 0.0 && isfinite(eps)))
        return fb_read_fail(r, "eps", "eps %g is not a finite number >= 0 (it keeps rsqrt(var + eps) finite)", eps);
    if ((s = fb_read_enum(r, "layout", layouts, 2, &layout, &present))) return s;
    fb_attrs_set_real(&n->attrs, "eps", eps);
    fb_attrs_set_int(&n->attrs, "layout", layout);
    return FB_OK;
}

/* x's channel dim for this node's layout, or -1 when x's rank has none. */
static int channel_dim(const fb_node *n, int rank)
{
    if (rank < 2) return -1;
    return fb_attr_int(&n->attrs, "layout", LAYOUT_NHWC) == LAYOUT_NHWC ? rank - 1 : 1;
}

static fb_status bn_shape(const fb_node *n, const fb_shape *const *in, fb_shape *out)
{
    const fb_shape *x = in[0];
    char sx[96], sp[96];
    fb_shape_str(x, sx, sizeof sx);
    const int ch = channel_dim(n, x->rank);
    if (ch < 0) {
        fb_error("in: batchnorm needs x of rank 2 or more, operand 0 is %s", sx);
        return FB_E_CASE;
    }
    const int64_t C = x->dim[ch];
    for (int k = 1; k < 5; k++)
        if (in[k]->rank != 1 || in[k]->dim[0] != C) {
            fb_error("in: operand %d (%s) is %s, expected [%lld]: one value per channel of operand 0 %s (%s: channels "
                     "on dim %d)",
                     k, bn_params[k], fb_shape_str(in[k], sp, sizeof sp), (long long)C, sx,
                     layouts[fb_attr_int(&n->attrs, "layout", LAYOUT_NHWC)], ch);
            return FB_E_CASE;
        }
    *out = *x;
    return FB_OK;
}

static void bn_cost(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem, fb_node_cost *c)
{
    fb_cost_eager_traffic(n, in, out, elem, c);
    c->flops = 2.0 * (double)fb_shape_numel(out);
}

/* x viewed as [outer, C, inner]: inner is 1 for NHWC, the spatial size for NCHW. */
static fb_status bn_reference(const fb_node *n, const fb_ref_args *a)
{
    const fb_shape *x = a->in_shape[0];
    const int ch = channel_dim(n, x->rank);
    const double eps = fb_attr_real(&n->attrs, "eps", 1e-5);
    int64_t outer = 1, inner = 1;
    for (int j = 0; j < ch; j++) outer *= x->dim[j];
    for (int j = ch + 1; j < x->rank; j++) inner *= x->dim[j];
    const int64_t C = x->dim[ch];
    const double *X = a->in[0], *mean = a->in[1], *var = a->in[2], *gamma = a->in[3], *beta = a->in[4];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < C; c++) {
            const double rstd = 1.0 / sqrt(var[c] + eps);
            const double *xi = X + (o * C + c) * inner;
            double *yi = a->out + (o * C + c) * inner;
            for (int64_t i = 0; i < inner; i++) yi[i] = (xi[i] - mean[c]) * rstd * gamma[c] + beta[c];
        }
    return FB_OK;
}

static fb_status bn_eager(const fb_node *n, const fb_eager_args *a)
{
    const int ch = channel_dim(n, a->in[0]->shape.rank);
    const double eps = fb_attr_real(&n->attrs, "eps", 1e-5);
    return fb_cuda_status(fb_prim_batchnorm(a->in[0], a->in[1], a->in[2], a->in[3], a->in[4], eps, ch, a->out,
                                            a->stream),
                          a->what, __FILE__, __LINE__);
}

/* y's axes are x's; the parameters' one axis is x's channel axis. */
static void bn_rows(const fb_node *n, fb_rowctx *rc, const fb_axes *const *in, fb_axes *out)
{
    *out = *in[0];
    const int ch = channel_dim(n, in[0]->rank);
    if (ch < 0) return; /* shape() refuses it */
    int id = in[0]->id[ch];
    for (int k = 1; k < 5; k++)
        if (in[k]->rank == 1) id = fb_rows_same(rc, id, in[k]->id[0]);
    out->id[ch] = id;
}

const fb_op_kind fb_kind_batchnorm = {
    .name = "batchnorm",
    .ops = bn_ops,
    .n_ops = 1,
    .n_in = 5,
    .literals = false,
    .attrs = bn_attrs,
    .n_attrs = 2,
    .parse = bn_parse,
    .shape = bn_shape,
    .cost = bn_cost,
    .reference = bn_reference,
    .eager = bn_eager,
    .rows = bn_rows,
};
