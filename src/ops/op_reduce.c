/* op_reduce.c — the reduction kind: y = reduce(x) over one dim.
 *
 * Attributes: dim (required; negative counts from the end) and keepdim (default
 * true: y keeps the reduced dim with size 1, so it broadcasts back against x, as
 * every case writes `sum(x, -1, keepdim=True)`; false drops it). The layout of y
 * is the same either way, so eager and the reference ignore keepdim.
 *
 * FLOPs: one per input element (mean's final divide, one per output, is not
 * worth counting). The reference accumulates in double. */
#include "op_table.h"

#include <math.h>

#include "primitives.h"

static const char *const reduce_ops[FB_NREDUCE] = {
    [FB_OP_SUM] = "sum", [FB_OP_AMAX] = "amax", [FB_OP_AMIN] = "amin", [FB_OP_MEAN] = "mean"};
static const char *const reduce_attrs[] = {"dim", "keepdim"};

static fb_status reduce_parse(fb_attr_reader *r, fb_node *n)
{
    int64_t dim;
    bool present, keepdim = true;
    fb_status s = fb_read_int(r, "dim", &dim, &present);
    if (s) return s;
    if (!present) return fb_read_fail(r, NULL, "missing key 'dim' ('%s' reduces over one dim)", reduce_ops[n->op]);
    /* the rank-aware check happens per grid point (shape); this one only keeps
     * the value inside an int */
    if (dim < -FB_MAX_RANK || dim >= FB_MAX_RANK)
        return fb_read_fail(r, "dim", "dim %lld is out of range (tensors have rank at most %d)", (long long)dim,
                            FB_MAX_RANK);
    if ((s = fb_read_bool(r, "keepdim", &keepdim, &present))) return s;
    fb_attrs_set_int(&n->attrs, "dim", dim);
    fb_attrs_set_bool(&n->attrs, "keepdim", keepdim);
    return FB_OK;
}

/* The reduced axis of x, or -1 (with a message) when out of range. */
static int reduced_axis(const fb_node *n, const fb_shape *x)
{
    int64_t dim = fb_attr_int(&n->attrs, "dim", 0);
    int d = fb_normalize_dim(dim, x->rank);
    if (d < 0) fb_error("dim: dim %lld is out of range for a rank-%d tensor", (long long)dim, x->rank);
    return d;
}

static fb_status reduce_shape(const fb_node *n, const fb_shape *const *in, fb_shape *out)
{
    int d = reduced_axis(n, in[0]);
    if (d < 0) return FB_E_CASE;
    *out = *in[0];
    if (fb_attr_bool(&n->attrs, "keepdim", true)) {
        out->dim[d] = 1;
    } else {
        for (int j = d; j + 1 < out->rank; j++) out->dim[j] = out->dim[j + 1];
        out->dim[--out->rank] = 0;
    }
    return FB_OK;
}

static void reduce_cost(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem,
                        fb_node_cost *c)
{
    fb_cost_eager_traffic(n, in, out, elem, c);
    c->flops = (double)fb_shape_numel(in[0]);
}

static double max_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : fmax(a, b); }
static double min_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : fmin(a, b); }

/* x viewed as [outer, len, inner]: y[o, i] combines x[o, 0..len-1, i]. */
static fb_status reduce_reference(const fb_node *n, const fb_ref_args *a)
{
    const fb_shape *xs = a->in_shape[0];
    int d = reduced_axis(n, xs);
    if (d < 0) return FB_E_CASE;
    int64_t outer = 1, inner = 1, len = xs->dim[d];
    for (int j = 0; j < d; j++) outer *= xs->dim[j];
    for (int j = d + 1; j < xs->rank; j++) inner *= xs->dim[j];
    const int op = n->op;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const double *p = a->in[0] + o * len * inner + i;
            double acc = len ? p[0] : (op == FB_OP_AMAX ? -INFINITY : op == FB_OP_AMIN ? INFINITY : 0.0);
            for (int64_t k = 1; k < len; k++) {
                double v = p[k * inner];
                if (op == FB_OP_AMAX) acc = max_nan(acc, v);
                else if (op == FB_OP_AMIN) acc = min_nan(acc, v);
                else acc += v;
            }
            if (op == FB_OP_MEAN) acc /= (double)len;
            a->out[o * inner + i] = acc;
        }
    return FB_OK;
}

static fb_status reduce_eager(const fb_node *n, const fb_eager_args *a)
{
    const fb_tensor *x = a->in[0];
    int d = fb_normalize_dim(fb_attr_int(&n->attrs, "dim", 0), x->shape.rank);
    /* keepdim or not, y's memory is the keepdim layout: launch on that view */
    fb_tensor y = *a->out;
    y.shape = x->shape;
    if (d >= 0) y.shape.dim[d] = 1;
    return fb_cuda_status(fb_prim_reduce(n->op, x, d, &y, a->stream), a->what, __FILE__, __LINE__);
}

static void reduce_rows(const fb_node *n, fb_rowctx *rc, const fb_axes *const *in, fb_axes *out)
{
    *out = *in[0];
    int d = fb_normalize_dim(fb_attr_int(&n->attrs, "dim", 0), in[0]->rank);
    if (d < 0) return;
    /* sum is a plain sum; mean divides by the length and amax/amin do not add */
    if (n->op == FB_OP_SUM) fb_rows_sum(rc, in[0]->id[d]);
    else fb_rows_combine(rc, in[0]->id[d]);
    if (fb_attr_bool(&n->attrs, "keepdim", true)) {
        out->id[d] = -1;
    } else {
        for (int j = d; j + 1 < out->rank; j++) out->id[j] = out->id[j + 1];
        out->rank--;
    }
}

const fb_op_kind fb_kind_reduce = {
    .name = "reduce",
    .ops = reduce_ops,
    .n_ops = FB_NREDUCE,
    .n_in = 1,
    .literals = false,
    .attrs = reduce_attrs,
    .n_attrs = 2,
    .parse = reduce_parse,
    .shape = reduce_shape,
    .cost = reduce_cost,
    .reference = reduce_reference,
    .eager = reduce_eager,
    .rows = reduce_rows,
};
