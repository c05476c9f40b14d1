/* op_unary.c — the unary kind: y = f(x), elementwise, same shape.
 *
 * FLOPs: one per output element whatever f is (exp, erf, gelu included): the
 * roofline convention of "useful work", not an instruction count; it keeps TFLOP/s
 * comparable across the variants of one case, which is all it is used for. `copy`
 * (y = x, a plain streaming copy: cases/copy.json times the L2 flushes with it)
 * does no arithmetic and counts none. */
#include "op_table.h"

#include <math.h>

#include "primitives.h"

static const char *const unary_ops[FB_NUNARY] = {
    [FB_OP_NEG] = "neg",         [FB_OP_ABS] = "abs",       [FB_OP_EXP] = "exp",
    [FB_OP_LOG] = "log",         [FB_OP_COS] = "cos",       [FB_OP_SIN] = "sin",
    [FB_OP_TANH] = "tanh",       [FB_OP_SQRT] = "sqrt",     [FB_OP_RSQRT] = "rsqrt",
    [FB_OP_RELU] = "relu",       [FB_OP_SIGMOID] = "sigmoid", [FB_OP_ERF] = "erf",
    [FB_OP_RECIPROCAL] = "reciprocal", [FB_OP_SQUARE] = "square", [FB_OP_GELU] = "gelu",
    [FB_OP_COPY] = "copy",
};

static fb_status unary_shape(const fb_node *n, const fb_shape *const *in, fb_shape *out)
{
    *out = *in[0];
    return FB_OK;
}

static void unary_cost(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem,
                       fb_node_cost *c)
{
    fb_cost_eager_traffic(n, in, out, elem, c);
    c->flops = n->op == FB_OP_COPY ? 0.0 : (double)fb_shape_numel(out);
}

static double apply(int op, double x)
{
    switch ((fb_prim_unary_op)op) {
    case FB_OP_NEG: return -x;
    case FB_OP_ABS: return fabs(x);
    case FB_OP_EXP: return exp(x);
    case FB_OP_LOG: return log(x);
    case FB_OP_COS: return cos(x);
    case FB_OP_SIN: return sin(x);
    case FB_OP_TANH: return tanh(x);
    case FB_OP_SQRT: return sqrt(x);
    case FB_OP_RSQRT: return 1.0 / sqrt(x);
    case FB_OP_RELU: return isnan(x) ? x : (x > 0.0 ? x : 0.0); /* torch.relu keeps NaN */
    case FB_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case FB_OP_ERF: return erf(x);
    case FB_OP_RECIPROCAL: return 1.0 / x;
    case FB_OP_SQUARE: return x * x;
    case FB_OP_GELU: return 0.5 * x * (1.0 + erf(x * M_SQRT1_2)); /* torch's exact (erf) gelu */
    case FB_OP_COPY: return x;
    case FB_NUNARY: break;
    }
    return NAN;
}

static fb_status unary_reference(const fb_node *n, const fb_ref_args *a)
{
    const int64_t count = fb_shape_numel(a->out_shape);
    const double *x = a->in[0];
    for (int64_t i = 0; i < count; i++) a->out[i] = apply(n->op, x[i]);
    return FB_OK;
}

static fb_status unary_eager(const fb_node *n, const fb_eager_args *a)
{
    return fb_cuda_status(fb_prim_unary(n->op, a->in[0], a->out, a->stream), a->what, __FILE__, __LINE__);
}

static void unary_rows(const fb_node *n, fb_rowctx *rc, const fb_axes *const *in, fb_axes *out)
{
    *out = *in[0];
}

const fb_op_kind fb_kind_unary = {
    .name = "unary",
    .ops = unary_ops,
    .n_ops = FB_NUNARY,
    .n_in = 1,
    .literals = false,
    .shape = unary_shape,
    .cost = unary_cost,
    .reference = unary_reference,
    .eager = unary_eager,
    .rows = unary_rows,
};
