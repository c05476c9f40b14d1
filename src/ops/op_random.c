/* op_random.c — the random kind: ops whose result depends on a counter-based
 * random draw per element. Today: dropout (training mode).
 *
 *   {"op": "dropout", "in": ["t"], "p": 0.5, "seed": 1234, "out": "d"}
 *
 * p in [0, 1) is the drop probability, seed an integer >= 0. Element i of the
 * output (its row-major index into the whole output tensor) is kept when
 * fb_random.h's fb_dropout_keep(seed, i, fb_dropout_threshold(p)); a kept element
 * is x / (1 - p) here in float64 and x * (1 / (1 - p)) on the GPU, a dropped one 0.
 * The mask is a pure function of (seed, i), so eager, every fused kernel and this
 * reference draw the identical mask, and a sampled check evaluating one row at a
 * time gets the same mask from the row's offset (fb_ref_args.out_base).
 *
 * FLOPs: one per element (the scale); the hash is integer work, not counted. */
#include "op_table.h"

#include <math.h>

#include "fb_random.h"
#include "primitives.h"

enum { FB_OP_DROPOUT, FB_NRANDOM };
static const char *const random_ops[FB_NRANDOM] = {[FB_OP_DROPOUT] = "dropout"};
static const char *const random_attrs[] = {"p", "seed"};

static fb_status random_parse(fb_attr_reader *r, fb_node *n)
{
    double p;
    int64_t seed;
    bool present;
    fb_status s = fb_read_real(r, "p", &p, &present);
    if (s) return s;
    if (!present) return fb_read_fail(r, NULL, "missing key 'p' (the probability that dropout zeroes an element)");
    if (!(p >= 0.0 && p < 1.0)) return fb_read_fail(r, "p", "p %g is not in [0, 1)", p);
    if ((s = fb_read_int(r, "seed", &seed, &present))) return s;
    if (!present) return fb_read_fail(r, NULL, "missing key 'seed' (an integer >= 0 that fixes the keep-mask)");
    if (seed < 0) return fb_read_fail(r, "seed", "seed %lld is negative; use an integer >= 0", (long long)seed);
    fb_attrs_set_real(&n->attrs, "p", p);
    fb_attrs_set_int(&n->attrs, "seed", seed);
    return FB_OK;
}

static fb_status random_shape(const fb_node *n, const fb_shape *const *in, fb_shape *out)
{
    *out = *in[0];
    return FB_OK;
}

static void random_cost(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem,
                        fb_node_cost *c)
{
    fb_cost_eager_traffic(n, in, out, elem, c);
    c->flops = (double)fb_shape_numel(out);
}

static fb_status random_reference(const fb_node *n, const fb_ref_args *a)
{
    const double p = fb_attr_real(&n->attrs, "p", 0.0);
    const uint64_t seed = (uint64_t)fb_attr_int(&n->attrs, "seed", 0);
    const uint32_t threshold = fb_dropout_threshold(p);
    const int64_t count = fb_shape_numel(a->out_shape);
    for (int64_t i = 0; i < count; i++)
        a->out[i] = fb_dropout_keep(seed, (uint64_t)(a->out_base + i), threshold) ? a->in[0][i] / (1.0 - p) : 0.0;
    return FB_OK;
}

static fb_status random_eager(const fb_node *n, const fb_eager_args *a)
{
    const double p = fb_attr_real(&n->attrs, "p", 0.0);
    const uint64_t seed = (uint64_t)fb_attr_int(&n->attrs, "seed", 0);
    return fb_cuda_status(fb_prim_dropout(a->in[0], p, seed, a->out, a->stream), a->what, __FILE__, __LINE__);
}

/* Elementwise: a row of the output is the same row of the input; the mask of the
 * row comes from its offset, which the row plan's contiguous slices provide. */
static void random_rows(const fb_node *n, fb_rowctx *rc, const fb_axes *const *in, fb_axes *out)
{
    *out = *in[0];
}

const fb_op_kind fb_kind_random = {
    .name = "random",
    .ops = random_ops,
    .n_ops = FB_NRANDOM,
    .n_in = 1,
    .literals = false,
    .attrs = random_attrs,
    .n_attrs = 2,
    .positional = true,
    .parse = random_parse,
    .shape = random_shape,
    .cost = random_cost,
    .reference = random_reference,
    .eager = random_eager,
    .rows = random_rows,
};
