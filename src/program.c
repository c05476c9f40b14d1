/* program.c — everything fusionbench derives from a case's program on the CPU:
 * the op table, numpy broadcasting, shape binding at a grid point, ideal bytes /
 * FLOPs / eager kernel count, the float64 reference interpreter, and the row plan
 * that lets check.c verify a large cell on a sample of rows.
 *
 * The interpreter is deliberately plain: every intermediate is a dense double
 * array, broadcasting is stride arithmetic, reductions accumulate in double. It is
 * the ground truth for every kernel, so it favours obviousness over speed.
 *
 * Error messages carry no file path: case.c / the driver prefix "PATH: ". */
#include "program.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the op table ---------------------------------------------------------
 * FLOPs: every unary and binary op counts 1 per output element, transcendental or
 * not (exp, tanh, erf, pow included), and every reduction 1 per input element
 * (mean's final divide is one per output and is not worth counting). This is the
 * convention of roofline "useful work" counts, not an instruction count; it keeps
 * TFLOP/s comparable across variants of one case, which is all it is used for. */
const fb_op_info fb_ops[FB_NOPS] = {
    [FB_OP_NEG] = {"neg", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_ABS] = {"abs", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_EXP] = {"exp", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_LOG] = {"log", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_COS] = {"cos", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_SIN] = {"sin", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_TANH] = {"tanh", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_SQRT] = {"sqrt", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_RSQRT] = {"rsqrt", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_RELU] = {"relu", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_SIGMOID] = {"sigmoid", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_ERF] = {"erf", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_RECIPROCAL] = {"reciprocal", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_SQUARE] = {"square", FB_OPK_UNARY, 1, 1.0},
    [FB_OP_ADD] = {"add", FB_OPK_BINARY, 2, 1.0},
    [FB_OP_SUB] = {"sub", FB_OPK_BINARY, 2, 1.0},
    [FB_OP_MUL] = {"mul", FB_OPK_BINARY, 2, 1.0},
    [FB_OP_DIV] = {"div", FB_OPK_BINARY, 2, 1.0},
    [FB_OP_MAX] = {"max", FB_OPK_BINARY, 2, 1.0},
    [FB_OP_MIN] = {"min", FB_OPK_BINARY, 2, 1.0},
    [FB_OP_POW] = {"pow", FB_OPK_BINARY, 2, 1.0},
    [FB_OP_SUM] = {"sum", FB_OPK_REDUCE, 1, 1.0},
    [FB_OP_AMAX] = {"amax", FB_OPK_REDUCE, 1, 1.0},
    [FB_OP_AMIN] = {"amin", FB_OPK_REDUCE, 1, 1.0},
    [FB_OP_MEAN] = {"mean", FB_OPK_REDUCE, 1, 1.0},
};

int fb_op_from_name(const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < FB_NOPS; i++)
        if (strcmp(name, fb_ops[i].name) == 0) return i;
    return -1;
}

const char *fb_init_name(fb_init i)
{
    switch (i) {
    case FB_INIT_NORMAL: return "normal";
    case FB_INIT_UNIFORM: return "uniform";
    case FB_INIT_POSITIVE: return "positive";
    case FB_NINITS: break;
    }
    return "?";
}

/* ---- shapes ---------------------------------------------------------------- */

int fb_broadcast(const fb_shape *a, const fb_shape *b, fb_shape *out)
{
    if (a->rank < 0 || b->rank < 0 || a->rank > FB_MAX_RANK || b->rank > FB_MAX_RANK) return -1;
    fb_shape r;
    r.rank = a->rank > b->rank ? a->rank : b->rank;
    for (int j = 0; j < r.rank; j++) {
        /* right-aligned: axis j of the result is axis j - (r.rank - x.rank) of x */
        int ia = j - (r.rank - a->rank), ib = j - (r.rank - b->rank);
        int64_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;
        if (da == db || db == 1) r.dim[j] = da;
        else if (da == 1) r.dim[j] = db;
        else return -1;
    }
    for (int j = r.rank; j < FB_MAX_RANK; j++) r.dim[j] = 0;
    *out = r;
    return 0;
}

static const fb_shape scalar_shape = {0, {0}};

static const fb_shape *operand_shape(const fb_operand *o, const fb_shape shapes[FB_MAX_VALUES])
{
    return o->literal ? &scalar_shape : &shapes[o->value];
}

/* A reduction dim as written (negative counts from the end) -> 0..rank-1, or -1. */
static int normalize_dim(int dim, int rank)
{
    int d = dim < 0 ? dim + rank : dim;
    return d >= 0 && d < rank ? d : -1;
}

/* The node's op, operand count and value indices are sane; `defined` (when not
 * NULL) says which values exist before node i, so a read of a later value fails. */
static fb_status check_operands(const fb_case *c, int i, const bool *defined)
{
    const fb_node *n = &c->nodes[i];
    if ((unsigned)n->op >= FB_NOPS) {
        fb_error("program[%d].op: unknown op %d", i, (int)n->op);
        return FB_E_CASE;
    }
    if (n->n_in != fb_ops[n->op].n_in) {
        fb_error("program[%d].in: %s takes %d operand%s, got %d", i, fb_ops[n->op].name,
                 fb_ops[n->op].n_in, fb_ops[n->op].n_in == 1 ? "" : "s", n->n_in);
        return FB_E_CASE;
    }
    for (int k = 0; k < n->n_in; k++)
        if (!n->in[k].literal && (n->in[k].value < 0 || n->in[k].value >= c->n_values ||
                                  (defined && !defined[n->in[k].value]))) {
            fb_error("program[%d].in: operand %d is not a value defined before this node", i, k);
            return FB_E_CASE;
        }
    if (n->out < c->n_inputs || n->out >= c->n_values) {
        fb_error("program[%d].out: not a node output value", i);
        return FB_E_CASE;
    }
    return FB_OK;
}

fb_status fb_program_shapes(const fb_case *c, const fb_point *p, fb_shape shapes[FB_MAX_VALUES])
{
    for (int v = 0; v < c->n_values; v++) shapes[v] = scalar_shape;

    for (int v = 0; v < c->n_inputs; v++) {
        const fb_value *val = &c->values[v];
        fb_shape *s = &shapes[v];
        s->rank = val->shape.rank;
        for (int j = 0; j < val->shape.rank; j++) {
            const fb_dim *d = &val->shape.dim[j];
            if (d->sym >= c->n_syms) {
                fb_error("inputs.%s.shape: unknown symbol %d", val->name, d->sym);
                return FB_E_CASE;
            }
            int64_t size = d->sym >= 0 ? p->sym[d->sym] : d->size;
            if (size < 1) {
                fb_error("inputs.%s.shape: size %lld is not positive", val->name, (long long)size);
                return FB_E_CASE;
            }
            s->dim[j] = size;
        }
    }

    /* Values are only ever defined by earlier nodes, so one pass in order suffices. */
    bool defined[FB_MAX_VALUES] = {0};
    for (int v = 0; v < c->n_inputs; v++) defined[v] = true;
    for (int i = 0; i < c->n_nodes; i++) {
        const fb_node *n = &c->nodes[i];
        fb_status st = check_operands(c, i, defined);
        if (st != FB_OK) return st;
        fb_shape out;
        switch (fb_ops[n->op].kind) {
        case FB_OPK_UNARY:
            out = *operand_shape(&n->in[0], shapes);
            break;
        case FB_OPK_BINARY: {
            const fb_shape *a = operand_shape(&n->in[0], shapes), *b = operand_shape(&n->in[1], shapes);
            if (fb_broadcast(a, b, &out) != 0) {
                char sa[96], sb[96];
                fb_error("program[%d].in: shapes %s and %s do not broadcast", i,
                         fb_shape_str(a, sa, sizeof sa), fb_shape_str(b, sb, sizeof sb));
                return FB_E_CASE;
            }
            break;
        }
        case FB_OPK_REDUCE: {
            const fb_shape *a = operand_shape(&n->in[0], shapes);
            int d = normalize_dim(n->dim, a->rank);
            if (d < 0) {
                fb_error("program[%d].dim: dim %d is out of range for a rank-%d tensor", i, n->dim,
                         a->rank);
                return FB_E_CASE;
            }
            out = *a;
            out.dim[d] = 1;
            break;
        }
        default:
            fb_error("program[%d].op: %s has no shape rule yet", i, fb_ops[n->op].name);
            return FB_E_CASE;
        }
        shapes[n->out] = out;
        defined[n->out] = true;
    }
    return FB_OK;
}

/* ---- costs ----------------------------------------------------------------- */

/* numel and bytes of a shape, or -1 when either overflows int64. */
static int shape_bytes(const fb_shape *s, size_t elem, int64_t *numel, int64_t *bytes)
{
    int64_t n = 1, b;
    for (int j = 0; j < s->rank; j++)
        if (__builtin_mul_overflow(n, s->dim[j], &n)) return -1;
    if (__builtin_mul_overflow(n, (int64_t)elem, &b)) return -1;
    *numel = n;
    *bytes = b;
    return 0;
}

fb_status fb_program_costs(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt,
                           fb_costs *out)
{
    size_t elem = fb_dtype_size(dt);
    int64_t numel[FB_MAX_VALUES], bytes[FB_MAX_VALUES];
    fb_costs k = {0};

    /* Every value's size is checked first, so a huge intermediate is reported even
     * when the inputs and outputs are small. */
    for (int v = 0; v < c->n_values; v++)
        if (shape_bytes(&shapes[v], elem, &numel[v], &bytes[v]) != 0) {
            if (v < c->n_inputs || c->values[v].producer < 0)
                fb_error("inputs.%s.shape: byte count overflows 64 bits", c->values[v].name);
            else
                fb_error("program[%d].out: byte count overflows 64 bits", c->values[v].producer);
            return FB_E_CASE;
        }

    for (int v = 0; v < c->n_inputs; v++) k.in_bytes += (double)bytes[v];
    for (int o = 0; o < c->n_outputs; o++) k.out_bytes += (double)bytes[c->outputs[o]];
    k.ideal_bytes = k.in_bytes + k.out_bytes;

    for (int i = 0; i < c->n_nodes; i++) {
        const fb_node *n = &c->nodes[i];
        const fb_op_info *info = &fb_ops[n->op];
        if (info->kind == FB_OPK_REDUCE) {
            double in_numel = n->in[0].literal ? 1.0 : (double)numel[n->in[0].value];
            k.flops += info->flops * in_numel;
        } else {
            k.flops += info->flops * (double)numel[n->out];
        }
        for (int j = 0; j < n->n_in; j++)
            if (!n->in[j].literal) k.eager_bytes += (double)bytes[n->in[j].value];
        k.eager_bytes += (double)bytes[n->out];
    }
    k.eager_kernels = c->n_nodes;
    *out = k;
    return FB_OK;
}

/* ---- the reference interpreter --------------------------------------------- */

/* Strides that read `src` as if it had shape `out` (right-aligned broadcasting):
 * a broadcast axis gets stride 0. -1 when src does not broadcast to out. */
static int broadcast_strides(const fb_shape *src, const fb_shape *out, int64_t st[FB_MAX_RANK])
{
    if (src->rank > out->rank) return -1;
    int64_t contig = 1;
    for (int j = out->rank - 1; j >= 0; j--) {
        int i = j - (out->rank - src->rank);
        if (i < 0) {
            st[j] = 0;
            continue;
        }
        if (src->dim[i] == out->dim[j]) st[j] = src->dim[i] == 1 ? 0 : contig;
        else if (src->dim[i] == 1) st[j] = 0;
        else return -1;
        contig *= src->dim[i];
    }
    return 0;
}

static double max_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : fmax(a, b); }
static double min_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : fmin(a, b); }

static double apply_unary(fb_op op, double x)
{
    switch (op) {
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
    default: return NAN;
    }
}

static double apply_binary(fb_op op, double a, double b)
{
    switch (op) {
    case FB_OP_ADD: return a + b;
    case FB_OP_SUB: return a - b;
    case FB_OP_MUL: return a * b;
    case FB_OP_DIV: return a / b;
    case FB_OP_MAX: return max_nan(a, b); /* torch.maximum propagates NaN; fmax would not */
    case FB_OP_MIN: return min_nan(a, b);
    case FB_OP_POW: return pow(a, b);
    default: return NAN;
    }
}

/* One source of an elementwise op: a value's array, or a literal read with all
 * strides 0. */
typedef struct src {
    const double *p;
    int64_t st[FB_MAX_RANK];
} src;

static int make_src(const fb_operand *o, const double *const *vals, const fb_shape shapes[FB_MAX_VALUES],
                    const fb_shape *out, src *s)
{
    if (o->literal) {
        s->p = &o->number;
        memset(s->st, 0, sizeof s->st);
        return 0;
    }
    s->p = vals[o->value];
    return broadcast_strides(&shapes[o->value], out, s->st);
}

/* Elementwise over `out`'s shape with 1 or 2 broadcast sources; an odometer over
 * the multi-index keeps source offsets in step without a divide per element. */
static void elementwise(fb_op op, int n_src, const src *s, const fb_shape *out, double *y)
{
    int64_t n = fb_shape_numel(out);
    int64_t idx[FB_MAX_RANK] = {0}, off[2] = {0, 0};
    for (int64_t e = 0; e < n; e++) {
        y[e] = n_src == 1 ? apply_unary(op, s[0].p[off[0]])
                          : apply_binary(op, s[0].p[off[0]], s[1].p[off[1]]);
        for (int j = out->rank - 1; j >= 0; j--) {
            idx[j]++;
            for (int k = 0; k < n_src; k++) off[k] += s[k].st[j];
            if (idx[j] < out->dim[j]) break;
            for (int k = 0; k < n_src; k++) off[k] -= s[k].st[j] * out->dim[j];
            idx[j] = 0;
        }
    }
}

/* Reduce x (shape xs) over axis d into y: viewed as [outer, len, inner], y[o, i]
 * combines x[o, 0..len-1, i]. */
static void reduce(fb_op op, const double *x, const fb_shape *xs, int d, double *y)
{
    int64_t outer = 1, inner = 1, len = xs->dim[d];
    for (int j = 0; j < d; j++) outer *= xs->dim[j];
    for (int j = d + 1; j < xs->rank; j++) inner *= xs->dim[j];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const double *p = x + o * len * inner + i;
            double acc = p[0];
            for (int64_t k = 1; k < len; k++) {
                double v = p[k * inner];
                switch (op) {
                case FB_OP_SUM:
                case FB_OP_MEAN: acc += v; break;
                case FB_OP_AMAX: acc = max_nan(acc, v); break;
                case FB_OP_AMIN: acc = min_nan(acc, v); break;
                default: acc = NAN; break;
                }
            }
            if (op == FB_OP_MEAN) acc /= (double)len;
            y[o * inner + i] = acc;
        }
}

/* Check that the caller's shapes are the ones this node produces (they may be
 * row shapes rather than fb_program_shapes' output, so they are not re-derived). */
static fb_status check_node_shapes(const fb_case *c, int i, const fb_shape shapes[FB_MAX_VALUES])
{
    const fb_node *n = &c->nodes[i];
    const fb_shape *ys = &shapes[n->out];
    char sa[96], sb[96];
    if (fb_ops[n->op].kind == FB_OPK_REDUCE) {
        const fb_shape *xs = operand_shape(&n->in[0], shapes);
        int d = normalize_dim(n->dim, xs->rank);
        if (d < 0) {
            fb_error("program[%d].dim: dim %d is out of range for a rank-%d tensor", i, n->dim, xs->rank);
            return FB_E_CASE;
        }
        fb_shape want = *xs;
        want.dim[d] = 1;
        bool ok = ys->rank == want.rank;
        for (int j = 0; ok && j < want.rank; j++) ok = ys->dim[j] == want.dim[j];
        if (!ok) {
            fb_error("program[%d].out: shape %s is not the reduction of %s", i,
                     fb_shape_str(ys, sa, sizeof sa), fb_shape_str(xs, sb, sizeof sb));
            return FB_E_CASE;
        }
        return FB_OK;
    }
    int64_t st[FB_MAX_RANK];
    for (int k = 0; k < n->n_in; k++) {
        const fb_shape *xs = operand_shape(&n->in[k], shapes);
        if (broadcast_strides(xs, ys, st) != 0) {
            fb_error("program[%d].in: shape %s does not broadcast to the output shape %s", i,
                     fb_shape_str(xs, sa, sizeof sa), fb_shape_str(ys, sb, sizeof sb));
            return FB_E_CASE;
        }
    }
    return FB_OK;
}

fb_status fb_reference_eval(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES],
                            const double *const *inputs, double *const *outputs)
{
    /* vals[v] is where value v lives; owned[v] marks what we malloc'd. A node whose
     * value is a program output writes straight into the caller's buffer. */
    const double *vals[FB_MAX_VALUES] = {0};
    double *owned[FB_MAX_VALUES] = {0};
    fb_status st = FB_OK;

    for (int v = 0; v < c->n_inputs; v++) vals[v] = inputs[v];

    for (int i = 0; i < c->n_nodes && st == FB_OK; i++) {
        const fb_node *n = &c->nodes[i];
        if ((st = check_operands(c, i, NULL)) != FB_OK) break;
        for (int k = 0; k < n->n_in; k++)
            if (!n->in[k].literal && !vals[n->in[k].value]) {
                fb_error("program[%d].in: operand %d is read before it is written", i, k);
                st = FB_E_CASE;
            }
        if (st != FB_OK || (st = check_node_shapes(c, i, shapes)) != FB_OK) break;

        const fb_shape *ys = &shapes[n->out];
        int64_t numel, bytes;
        if (shape_bytes(ys, sizeof(double), &numel, &bytes) != 0 || (uint64_t)bytes > SIZE_MAX) {
            fb_error("program[%d].out: byte count overflows 64 bits", i);
            st = FB_E_CASE;
            break;
        }
        double *y = NULL;
        for (int o = 0; o < c->n_outputs && !y; o++)
            if (c->outputs[o] == n->out) y = outputs[o];
        if (!y) {
            y = owned[n->out] = malloc((size_t)bytes ? (size_t)bytes : 1);
            if (!y) {
                fb_error("out of host memory evaluating program[%d] (%lld bytes)", i, (long long)bytes);
                st = FB_E_NOMEM;
                break;
            }
        }

        switch (fb_ops[n->op].kind) {
        case FB_OPK_UNARY:
        case FB_OPK_BINARY: {
            src s[2];
            for (int k = 0; k < n->n_in; k++) make_src(&n->in[k], vals, shapes, ys, &s[k]);
            elementwise(n->op, n->n_in, s, ys, y);
            break;
        }
        case FB_OPK_REDUCE: {
            const fb_operand *o = &n->in[0];
            const fb_shape *xs = operand_shape(o, shapes);
            reduce(n->op, o->literal ? &o->number : vals[o->value], xs, normalize_dim(n->dim, xs->rank), y);
            break;
        }
        default:
            fb_error("program[%d].op: the reference cannot evaluate %s yet", i, fb_ops[n->op].name);
            st = FB_E_CASE;
            break;
        }
        vals[n->out] = y;
    }

    /* Outputs not written in place: an input named as an output, an output listed
     * twice, or one no node produced. */
    for (int o = 0; o < c->n_outputs && st == FB_OK; o++) {
        int v = c->outputs[o];
        if (vals[v] == outputs[o]) continue;
        if (!vals[v]) {
            fb_error("outputs[%d]: '%s' is never written", o, c->values[v].name);
            st = FB_E_CASE;
            break;
        }
        memmove(outputs[o], vals[v], (size_t)fb_shape_numel(&shapes[v]) * sizeof(double));
    }

    for (int v = 0; v < c->n_values; v++) free(owned[v]);
    return st;
}

/* ---- row plan -------------------------------------------------------------- */

/* The leading dims (all but the last) of a rank >= 1 shape. */
static fb_shape leading(const fb_shape *s)
{
    fb_shape l = *s;
    l.rank = s->rank > 0 ? s->rank - 1 : 0;
    return l;
}

/* The broadcast of every output's leading dims: the row index space. */
static int row_space(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_shape *L)
{
    fb_shape acc = scalar_shape;
    for (int o = 0; o < c->n_outputs; o++) {
        fb_shape l = leading(&shapes[c->outputs[o]]);
        if (fb_broadcast(&acc, &l, &acc) != 0) return -1;
    }
    *L = acc;
    return 0;
}

fb_status fb_program_rowplan(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_rowplan *rp)
{
    memset(rp, 0, sizeof *rp);

    for (int v = 0; v < c->n_values; v++) {
        if (shapes[v].rank >= 1) continue;
        if (c->values[v].producer >= 0)
            snprintf(rp->why, sizeof rp->why, "program[%d] writes '%s', a rank-0 value",
                     c->values[v].producer, c->values[v].name);
        else
            snprintf(rp->why, sizeof rp->why, "inputs.%s is a rank-0 value", c->values[v].name);
        return FB_OK;
    }
    for (int i = 0; i < c->n_nodes; i++) {
        const fb_node *n = &c->nodes[i];
        if ((unsigned)n->op >= FB_NOPS || fb_ops[n->op].kind == FB_OPK_UNARY ||
            fb_ops[n->op].kind == FB_OPK_BINARY)
            continue;
        if (fb_ops[n->op].kind != FB_OPK_REDUCE) {
            snprintf(rp->why, sizeof rp->why, "program[%d] (%s) is not elementwise or a reduction", i,
                     fb_ops[n->op].name);
            return FB_OK;
        }
        int rank = operand_shape(&n->in[0], shapes)->rank;
        int d = normalize_dim(n->dim, rank);
        if (d != rank - 1) {
            if (d < 0)
                snprintf(rp->why, sizeof rp->why, "program[%d] reduces dim %d, out of range", i, n->dim);
            else
                snprintf(rp->why, sizeof rp->why, "program[%d] reduces dim %d, not the last dim", i, d);
            return FB_OK;
        }
    }

    fb_shape L;
    if (row_space(c, shapes, &L) != 0) {
        snprintf(rp->why, sizeof rp->why, "the outputs' leading dims do not broadcast together");
        return FB_OK;
    }
    int64_t rows = 1;
    for (int j = 0; j < L.rank; j++)
        if (__builtin_mul_overflow(rows, L.dim[j], &rows)) {
            fb_error("outputs: row count overflows 64 bits");
            return FB_E_CASE;
        }

    rp->separable = true;
    rp->n_rows = rows;
    for (int v = 0; v < c->n_values; v++) {
        rp->row_shape[v] = shapes[v];
        for (int j = 0; j + 1 < shapes[v].rank; j++) rp->row_shape[v].dim[j] = 1;
    }
    return FB_OK;
}

int64_t fb_rowplan_offset(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], int v, int64_t r)
{
    const fb_shape *s = &shapes[v];
    fb_shape L;
    if (s->rank < 1 || row_space(c, shapes, &L) != 0) return 0;

    /* Decompose r in L (row-major), then read the same axes of v's leading dims,
     * right-aligned, taking index 0 where v broadcasts along an axis. */
    int64_t idx[FB_MAX_RANK] = {0};
    for (int j = L.rank - 1; j >= 0; j--) {
        idx[j] = r % L.dim[j];
        r /= L.dim[j];
    }
    int lead = s->rank - 1;
    int64_t flat = 0;
    for (int i = 0; i < lead; i++) {
        int j = i - (lead - L.rank); /* v's leading axis i is L's axis j */
        int64_t k = 0;
        /* a value wider than the outputs along an axis feeds no output: row 0 of it */
        if (j >= 0 && s->dim[i] == L.dim[j]) k = idx[j];
        flat = flat * s->dim[i] + k;
    }
    return flat * s->dim[s->rank - 1];
}

const char *fb_point_str(const fb_case *c, const fb_point *p, char *buf, size_t n)
{
    size_t k = 0;
    if (n) buf[0] = 0;
    for (int a = 0; a < c->n_axes && k < n; a++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s=%lld", a ? " " : "", c->sym[c->axis[a].sym],
                              (long long)p->sym[c->axis[a].sym]);
    return buf;
}
