/* op_binary.c — the binary kind: y = f(a, b) with numpy broadcasting; either
 * operand (not both) may be a numeric literal. One FLOP per output element. */
#include "op_table.h"

#include <math.h>
#include <string.h>

#include "primitives.h"

static const char *const binary_ops[FB_NBINARY] = {
    [FB_OP_ADD] = "add", [FB_OP_SUB] = "sub", [FB_OP_MUL] = "mul", [FB_OP_DIV] = "div",
    [FB_OP_MAX] = "max", [FB_OP_MIN] = "min", [FB_OP_POW] = "pow",
};

static fb_status binary_shape(const fb_node *n, const fb_shape *const *in, fb_shape *out)
{
    if (fb_broadcast(in[0], in[1], out) != 0) {
        char sa[96], sb[96];
        fb_error("in: shapes %s and %s do not broadcast", fb_shape_str(in[0], sa, sizeof sa),
                 fb_shape_str(in[1], sb, sizeof sb));
        return FB_E_CASE;
    }
    return FB_OK;
}

static void binary_cost(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem,
                        fb_node_cost *c)
{
    fb_cost_eager_traffic(n, in, out, elem, c);
    c->flops = (double)fb_shape_numel(out);
}

static double max_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : fmax(a, b); }
static double min_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : fmin(a, b); }

static double apply(int op, double a, double b)
{
    switch ((fb_prim_binary_op)op) {
    case FB_OP_ADD: return a + b;
    case FB_OP_SUB: return a - b;
    case FB_OP_MUL: return a * b;
    case FB_OP_DIV: return a / b;
    case FB_OP_MAX: return max_nan(a, b); /* torch.maximum propagates NaN; fmax would not */
    case FB_OP_MIN: return min_nan(a, b);
    case FB_OP_POW: return pow(a, b);
    case FB_NBINARY: break;
    }
    return NAN;
}

/* Strides that read `src` as if it had shape `out` (right-aligned broadcasting):
 * a broadcast axis gets stride 0. */
static void broadcast_strides(const fb_shape *src, const fb_shape *out, int64_t st[FB_MAX_RANK])
{
    int64_t contig = 1;
    for (int j = out->rank - 1; j >= 0; j--) {
        int i = j - (out->rank - src->rank);
        if (i < 0) {
            st[j] = 0;
            continue;
        }
        st[j] = src->dim[i] == 1 ? 0 : contig;
        contig *= src->dim[i];
    }
}

/* One run along out's last dim: y[i] = a[i * sa] op b[i * sb]. The common ops
 * get their own loop (the row reference spends most of its time here); the rest
 * go through apply. */
static void binary_run(int op, const double *pa, int64_t sa, const double *pb, int64_t sb, double *y, int64_t n)
{
    switch (op) {
    case FB_OP_ADD:
        for (int64_t i = 0; i < n; i++) y[i] = pa[i * sa] + pb[i * sb];
        return;
    case FB_OP_SUB:
        for (int64_t i = 0; i < n; i++) y[i] = pa[i * sa] - pb[i * sb];
        return;
    case FB_OP_MUL:
        for (int64_t i = 0; i < n; i++) y[i] = pa[i * sa] * pb[i * sb];
        return;
    case FB_OP_DIV:
        for (int64_t i = 0; i < n; i++) y[i] = pa[i * sa] / pb[i * sb];
        return;
    default:
        for (int64_t i = 0; i < n; i++) y[i] = apply(op, pa[i * sa], pb[i * sb]);
    }
}

/* Over out's shape a run of its last dim at a time, with an odometer over the
 * leading dims' multi-index, which keeps both operands' offsets in step without
 * a divide per element. */
static fb_status binary_reference(const fb_node *n, const fb_ref_args *a)
{
    const fb_shape *ys = a->out_shape;
    int64_t st[2][FB_MAX_RANK];
    for (int k = 0; k < 2; k++) broadcast_strides(a->in_shape[k], ys, st[k]);
    const int64_t count = fb_shape_numel(ys);
    const int last = ys->rank - 1;
    const int64_t run = last >= 0 ? ys->dim[last] : 1;
    const int64_t s0 = last >= 0 ? st[0][last] : 0, s1 = last >= 0 ? st[1][last] : 0;
    int64_t idx[FB_MAX_RANK] = {0}, off[2] = {0, 0};
    for (int64_t e = 0; run > 0 && e < count; e += run) {
        binary_run(n->op, a->in[0] + off[0], s0, a->in[1] + off[1], s1, a->out + e, run);
        for (int j = last - 1; j >= 0; j--) {
            idx[j]++;
            off[0] += st[0][j];
            off[1] += st[1][j];
            if (idx[j] < ys->dim[j]) break;
            off[0] -= st[0][j] * ys->dim[j];
            off[1] -= st[1][j] * ys->dim[j];
            idx[j] = 0;
        }
    }
    return FB_OK;
}

static fb_status binary_eager(const fb_node *n, const fb_eager_args *a)
{
    return fb_cuda_status(fb_prim_binary(n->op, a->in[0], a->lit[0], a->in[1], a->lit[1], a->out, a->stream),
                          a->what, __FILE__, __LINE__);
}

static void binary_rows(const fb_node *n, fb_rowctx *rc, const fb_axes *const *in, fb_axes *out)
{
    fb_rows_broadcast(rc, in[0], in[1], out);
}

const fb_op_kind fb_kind_binary = {
    .name = "binary",
    .ops = binary_ops,
    .n_ops = FB_NBINARY,
    .n_in = 2,
    .literals = true,
    .shape = binary_shape,
    .cost = binary_cost,
    .reference = binary_reference,
    .eager = binary_eager,
    .rows = binary_rows,
};
