/* program.c — everything fusionbench derives from a case's program on the CPU by
 * walking it: shape binding at a grid point, ideal bytes / FLOPs / eager kernel
 * count, and the float64 reference interpreter. What each node does is its op
 * kind's business (src/ops/op_table.h); this file never switches on an op.
 *
 * The interpreter is deliberately plain: every intermediate is a dense double
 * array and each kind's reference is obvious C. It is the ground truth for every
 * kernel, so it favours obviousness over speed.
 *
 * Error messages carry no file path: case.c / the driver prefix "PATH: ". */
#include "program.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_table.h"

const char *fb_init_name(fb_init i)
{
    switch (i) {
    case FB_INIT_NORMAL: return "normal";
    case FB_INIT_UNIFORM: return "uniform";
    case FB_INIT_POSITIVE: return "positive";
    case FB_INIT_ROW_SIMPLEX: return "row_simplex";
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

/* The node's kind, op, operand count and value indices are sane; `defined` (when
 * not NULL) says which values exist before node i, so a read of a later value fails. */
static fb_status check_operands(const fb_case *c, int i, const bool *defined)
{
    const fb_node *n = &c->nodes[i];
    const fb_op_kind *k = fb_node_kind(n);
    if (!k) {
        fb_error("program[%d].op: unknown op %d of kind %d", i, n->op, n->kind);
        return FB_E_CASE;
    }
    if (n->n_in != k->n_in) {
        fb_error("program[%d].in: %s takes %d operand%s, got %d", i, k->ops[n->op], k->n_in,
                 k->n_in == 1 ? "" : "s", n->n_in);
        return FB_E_CASE;
    }
    for (int j = 0; j < n->n_in; j++)
        if (!n->in[j].literal && (n->in[j].value < 0 || n->in[j].value >= c->n_values ||
                                  (defined && !defined[n->in[j].value]))) {
            fb_error("program[%d].in: operand %d is not a value defined before this node", i, j);
            return FB_E_CASE;
        }
    if (n->out < c->n_inputs || n->out >= c->n_values) {
        fb_error("program[%d].out: not a node output value", i);
        return FB_E_CASE;
    }
    return FB_OK;
}

/* Node i's output shape from its operands' shapes by its kind's rule; the kind's
 * "FIELD: message" becomes "program[i].FIELD: message". */
static fb_status node_shape(const fb_case *c, int i, const fb_shape shapes[FB_MAX_VALUES], fb_shape *out)
{
    const fb_node *n = &c->nodes[i];
    const fb_shape *in[FB_MAX_OPERANDS];
    for (int j = 0; j < n->n_in; j++) in[j] = operand_shape(&n->in[j], shapes);
    memset(out, 0, sizeof *out);
    fb_status s = fb_node_kind(n)->shape(n, in, out);
    if (s != FB_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", fb_last_error());
        fb_error("program[%d].%s", i, msg);
    }
    return s;
}

fb_status fb_case_floor(const fb_case *c, fb_case *floor, int in_of[FB_MAX_OPERANDS])
{
    if (c->n_nodes < 1) {
        fb_error("case '%s': no op to take as the floor", c->name);
        return FB_E_CASE;
    }
    const fb_node *first = &c->nodes[0];
    *floor = *c;
    snprintf(floor->name, sizeof floor->name, "%.*s.floor", (int)sizeof floor->name - 7, c->name);
    floor->n_values = floor->n_inputs = 0;
    fb_node *n = &floor->nodes[0];
    *n = *first;
    for (int j = 0; j < first->n_in; j++) {
        if (first->in[j].literal) continue;
        const int v = first->in[j].value;
        for (int k = 0; k < floor->n_inputs; k++)
            if (in_of[k] == v) {
                fb_error("case '%s': its first op reads '%s' twice; a floor needs distinct inputs", c->name,
                         c->values[v].name);
                return FB_E_CASE;
            }
        in_of[floor->n_inputs] = v;
        n->in[j].value = floor->n_inputs;
        floor->values[floor->n_values++] = c->values[v];
        floor->n_inputs++;
    }
    if (floor->n_inputs == 0) {
        fb_error("case '%s': its first op reads no input", c->name);
        return FB_E_CASE;
    }
    floor->values[floor->n_values] = c->values[first->out];
    floor->values[floor->n_values].producer = 0;
    n->out = floor->n_values++;
    floor->n_nodes = 1;
    floor->n_outputs = 1;
    floor->outputs[0] = n->out;
    const bool variant = c->paired[0] && strcmp(c->paired, "eager") != 0;
    floor->n_fused = variant ? 1 : 0;
    if (variant) snprintf(floor->fused[0], FB_NAME_MAX, "%s", c->paired);
    floor->paired[0] = 0;
    return FB_OK;
}

bool fb_case_pairs(const fb_case *c, const char *variant)
{
    return c->paired[0] && strcmp(variant, "eager") != 0 && strcmp(variant, c->paired) != 0;
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
        if (st == FB_OK) st = node_shape(c, i, shapes, &shapes[n->out]);
        if (st != FB_OK) return st;
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
        fb_status st = check_operands(c, i, NULL);
        if (st != FB_OK) return st;
        const fb_shape *in[FB_MAX_OPERANDS];
        for (int j = 0; j < n->n_in; j++) in[j] = operand_shape(&n->in[j], shapes);
        fb_node_cost nc = {0};
        fb_node_kind(n)->cost(n, in, &shapes[n->out], elem, &nc);
        k.flops += nc.flops;
        k.eager_bytes += nc.bytes_read + nc.bytes_written;
        k.eager_kernels += nc.launches;
    }
    *out = k;
    return FB_OK;
}

/* ---- the reference interpreter --------------------------------------------- */

/* The caller's shapes must be the ones the program produces from its inputs'
 * (they may be a row plan's slices rather than fb_program_shapes' output, so they
 * are checked, not re-derived). */
static fb_status check_node_shapes(const fb_case *c, int i, const fb_shape shapes[FB_MAX_VALUES])
{
    const fb_node *n = &c->nodes[i];
    fb_shape want;
    fb_status s = node_shape(c, i, shapes, &want);
    if (s != FB_OK) return s;
    const fb_shape *ys = &shapes[n->out];
    bool same = ys->rank == want.rank;
    for (int j = 0; same && j < want.rank; j++) same = ys->dim[j] == want.dim[j];
    if (!same) {
        char sa[96], sb[96];
        fb_error("program[%d].out: shape %s is not the %s of its operands' shapes (%s)", i,
                 fb_shape_str(ys, sa, sizeof sa), fb_node_op_name(n), fb_shape_str(&want, sb, sizeof sb));
        return FB_E_CASE;
    }
    return FB_OK;
}

fb_status fb_reference_eval(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES],
                            const double *const *inputs, double *const *outputs)
{
    return fb_reference_eval_at(c, shapes, NULL, inputs, outputs, NULL);
}

bool fb_dtype_overflows(fb_dtype dt, double v)
{
    /* the largest finite value plus half an ulp: from there on, round-to-nearest gives inf */
    static const double limit[FB_NDTYPES] = {
        [FB_F32] = 0x1.ffffffp127,  /* FLT_MAX + 2^103 */
        [FB_F16] = 65520.0,         /* 65504 + 16      */
        [FB_BF16] = 0x1.ffp127,     /* 0x1.fep127 + 2^119 */
        [FB_F64] = INFINITY,
    };
    return (unsigned)dt < FB_NDTYPES && isfinite(v) && fabs(v) >= limit[dt];
}

/* Node i into y (numel of its output shape), its operands in vals; peak as
 * fb_reference_eval_at's. */
static fb_status eval_node(const fb_case *c, int i, const fb_shape shapes[FB_MAX_VALUES], const int64_t *base,
                           const double *const *vals, double *y, int64_t numel, double *peak)
{
    const fb_node *n = &c->nodes[i];
    fb_ref_args a = {.out = y, .out_shape = &shapes[n->out], .out_base = base ? base[n->out] : 0};
    for (int k = 0; k < n->n_in; k++) {
        a.in[k] = n->in[k].literal ? &n->in[k].number : vals[n->in[k].value];
        a.in_shape[k] = operand_shape(&n->in[k], shapes);
    }
    fb_status st = fb_node_kind(n)->reference(n, &a);
    if (peak && st == FB_OK) {
        double m = peak[n->out];
        for (int64_t e = 0; e < numel; e++) { /* finite only: NaN compares false, and inf is not <= DBL_MAX */
            const double v = fabs(y[e]);
            if (v > m && v <= DBL_MAX) m = v; /* rarely taken: a predicted branch beats a maxsd chain */
        }
        peak[n->out] = m;
    }
    return st;
}

fb_status fb_reference_eval_values(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], const int64_t *base,
                                   double *const *vals, double *peak)
{
    bool written[FB_MAX_VALUES] = {false};
    for (int v = 0; v < c->n_inputs; v++) written[v] = true;
    for (int i = 0; i < c->n_nodes; i++) {
        const fb_node *n = &c->nodes[i];
        fb_status st = check_operands(c, i, NULL);
        if (st != FB_OK) return st;
        for (int k = 0; k < n->n_in; k++)
            if (!n->in[k].literal && !written[n->in[k].value]) {
                fb_error("program[%d].in: operand %d is read before it is written", i, k);
                return FB_E_CASE;
            }
        if ((st = check_node_shapes(c, i, shapes)) != FB_OK) return st;
        if (!vals[n->out]) {
            fb_error("program[%d].out: no buffer for '%s'", i, c->values[n->out].name);
            return FB_E_CASE;
        }
        st = eval_node(c, i, shapes, base, (const double *const *)vals, vals[n->out], fb_shape_numel(&shapes[n->out]),
                       peak);
        if (st != FB_OK) return st;
        written[n->out] = true;
    }
    return FB_OK;
}

fb_status fb_reference_eval_at(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], const int64_t *base,
                               const double *const *inputs, double *const *outputs, double *peak)
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

        st = eval_node(c, i, shapes, base, vals, y, numel, peak);
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

const char *fb_point_str(const fb_case *c, const fb_point *p, char *buf, size_t n)
{
    size_t k = 0;
    if (n) buf[0] = 0;
    for (int a = 0; a < c->n_axes && k < n; a++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s=%lld", a ? " " : "", c->sym[c->axis[a].sym],
                              (long long)p->sym[c->axis[a].sym]);
    for (int f = 0; f < c->n_fixed && k < n; f++)
        k += (size_t)snprintf(buf + k, n - k, " %s=%lld", c->sym[c->fixed[f].sym], (long long)p->sym[c->fixed[f].sym]);
    return buf;
}

const char *fb_grid_label(const fb_case *c, const fb_point *p, char *buf, size_t n)
{
    size_t k = 0;
    if (n) buf[0] = 0;
    for (int f = 0; f < c->n_fixed && k < n; f++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s=%lld", f ? " " : "", c->sym[c->fixed[f].sym],
                              (long long)p->sym[c->fixed[f].sym]);
    return buf;
}

int fb_case_n_grids(const fb_case *c)
{
    int n = 1;
    for (int f = 0; f < c->n_fixed; f++) n *= c->fixed[f].n;
    return n;
}

int fb_case_n_points(const fb_case *c)
{
    return fb_case_n_grids(c) * c->axis[0].n * (c->n_axes > 1 ? c->axis[1].n : 1);
}

void fb_case_point(const fb_case *c, int i, fb_point *p)
{
    memset(p, 0, sizeof *p);
    int nc = c->n_axes > 1 ? c->axis[1].n : 1;
    if (c->n_axes > 1) p->sym[c->axis[1].sym] = c->axis[1].v[i % nc];
    i /= nc;
    p->sym[c->axis[0].sym] = c->axis[0].v[i % c->axis[0].n];
    i /= c->axis[0].n;
    for (int f = c->n_fixed - 1; f >= 0; f--) { /* the last fixed symbol varies fastest */
        p->sym[c->fixed[f].sym] = c->fixed[f].v[i % c->fixed[f].n];
        i /= c->fixed[f].n;
    }
}
