/* eager.c — the GPU interpreter: a case's program run as PyTorch eager would run
 * it, one kernel launch per node (kernels/primitives.cu), every intermediate
 * materialised in device memory.
 *
 * Memory is planned once, at create, the way a caching allocator would serve the
 * program: nodes are walked in order; a node's output takes the smallest free
 * buffer that is large enough (best fit) or else a new allocation; a buffer goes
 * back to the free pool after the last node that reads it. The node's output is
 * placed before its operands are released, so an output never aliases an operand
 * of the node that writes it. Program outputs are not planned: they live in the
 * caller's tensors, and later nodes read them from there. One workspace, the
 * largest any node's kind asks for, is shared by all nodes (they run in order on
 * one stream); fb_eager_prepare grows it where a prepared plan wants more (a
 * cuDNN algorithm's workspace is known only once it is chosen).
 *
 * What a node launches is its op kind's business (src/ops/op_table.h): this file
 * hands each kind its operands, output, the context (stream, library handles)
 * and the workspace. fb_eager_prepare builds each kind's plan once (library
 * descriptors, algorithm choice), outside the timed region; fb_eager_run then
 * does nothing but launch: no allocation, no host sync, no planning. */
#include "eager.h"

#include "ops/op_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EAGER_MAX_BUFS FB_MAX_NODES

struct fb_eager {
    fb_case c; /* a copy: the caller's case may go away */
    fb_shape shapes[FB_MAX_VALUES];
    fb_dtype dt;
    fb_context *ctx;
    void *workspace;
    size_t workspace_bytes;
    char what[FB_MAX_NODES][80]; /* "eager program[2] (exp) launch": error messages name the node */
    int out_slot[FB_MAX_VALUES];  /* value -> index into run's out[], or -1 */
    int buf_of[FB_MAX_VALUES];    /* intermediate value -> buffer, or -1 */
    int n_bufs;
    void *buf[EAGER_MAX_BUFS];
    size_t buf_bytes[EAGER_MAX_BUFS];
    size_t bytes; /* sum of buf_bytes */
    void *plan[FB_MAX_NODES]; /* node k's prepared plan (its kind's prepare), or NULL */
    bool prepared;
};

static size_t value_bytes(const fb_eager *e, int v)
{
    return (size_t)fb_shape_numel(&e->shapes[v]) * fb_dtype_size(e->dt);
}

/* The last node that reads value v, or its producer when nothing reads it. */
static int last_reader(const fb_case *c, int v)
{
    int last = c->values[v].producer;
    for (int k = 0; k < c->n_nodes; k++)
        for (int j = 0; j < c->nodes[k].n_in; j++)
            if (!c->nodes[k].in[j].literal && c->nodes[k].in[j].value == v) last = k;
    return last;
}

static fb_status check_program(const fb_case *c)
{
    for (int k = 0; k < c->n_nodes; k++) {
        const fb_node *n = &c->nodes[k];
        const fb_op_kind *kind = fb_node_kind(n);
        if (!kind) {
            fb_error("eager program[%d]: unknown op %d of kind %d", k, n->op, n->kind);
            return FB_E_CASE;
        }
        if (!kind->eager) {
            fb_error("eager program[%d] (%s): no eager form for this op", k, fb_node_op_name(n));
            return FB_E_UNSUPPORTED;
        }
        if (n->out < 0 || n->out >= c->n_values) {
            fb_error("eager program[%d] (%s): output value %d out of range", k, fb_node_op_name(n), n->out);
            return FB_E_CASE;
        }
        for (int j = 0; j < n->n_in; j++)
            if (!n->in[j].literal && (n->in[j].value < 0 || n->in[j].value >= c->n_values)) {
                fb_error("eager program[%d] (%s): operand value %d out of range", k, fb_node_op_name(n),
                         n->in[j].value);
                return FB_E_CASE;
            }
    }
    return FB_OK;
}

/* The workspace every node can share: the largest one asks for. */
static size_t workspace_need(const fb_eager *e)
{
    static const fb_shape scalar = {0, {0}};
    size_t need = 0;
    for (int k = 0; k < e->c.n_nodes; k++) {
        const fb_node *n = &e->c.nodes[k];
        const fb_op_kind *kind = fb_node_kind(n);
        if (!kind->workspace) continue;
        const fb_shape *in[FB_MAX_OPERANDS];
        for (int j = 0; j < n->n_in; j++) in[j] = n->in[j].literal ? &scalar : &e->shapes[n->in[j].value];
        size_t w = kind->workspace(n, in, &e->shapes[n->out], e->dt);
        if (w > need) need = w;
    }
    return need;
}

/* Best fit among free buffers; -1 when none is large enough. */
static int take_free(const fb_eager *e, const bool *is_free, size_t need)
{
    int best = -1;
    for (int b = 0; b < e->n_bufs; b++)
        if (is_free[b] && e->buf_bytes[b] >= need && (best < 0 || e->buf_bytes[b] < e->buf_bytes[best]))
            best = b;
    return best;
}

static fb_status plan(fb_eager *e)
{
    const fb_case *c = &e->c;
    bool is_free[EAGER_MAX_BUFS] = {false};
    int last[FB_MAX_VALUES];
    for (int v = 0; v < c->n_values; v++) last[v] = c->values[v].is_input ? -1 : last_reader(c, v);

    for (int k = 0; k < c->n_nodes; k++) {
        const int v = c->nodes[k].out;
        const size_t need = value_bytes(e, v);
        if (e->out_slot[v] < 0 && !c->values[v].is_input && need > 0) {
            int b = take_free(e, is_free, need);
            if (b < 0) {
                if (e->n_bufs == EAGER_MAX_BUFS) {
                    fb_error("eager: more than %d intermediate buffers", EAGER_MAX_BUFS);
                    return FB_E_UNSUPPORTED;
                }
                b = e->n_bufs;
                FB_TRY(fb_dmalloc(&e->buf[b], need));
                e->buf_bytes[b] = need;
                e->bytes += need;
                e->n_bufs++;
            }
            is_free[b] = false;
            e->buf_of[v] = b;
        }
        /* Only now release what this node was the last to read (its output too,
         * when nothing reads it): an output never shares a buffer with an operand. */
        for (int u = 0; u < c->n_values; u++)
            if (last[u] == k && e->buf_of[u] >= 0) is_free[e->buf_of[u]] = true;
    }
    return FB_OK;
}

fb_status fb_eager_create(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt, fb_context *ctx,
                          fb_eager **out)
{
    *out = NULL;
    FB_TRY(check_program(c));
    fb_eager *e = calloc(1, sizeof *e);
    if (!e) {
        fb_error("eager: out of host memory");
        return FB_E_NOMEM;
    }
    e->c = *c;
    memcpy(e->shapes, shapes, sizeof e->shapes);
    e->dt = dt;
    e->ctx = ctx;
    for (int v = 0; v < FB_MAX_VALUES; v++) {
        e->out_slot[v] = -1;
        e->buf_of[v] = -1;
    }
    for (int k = c->n_outputs - 1; k >= 0; k--) e->out_slot[c->outputs[k]] = k; /* first slot wins */
    for (int k = 0; k < c->n_nodes; k++)
        snprintf(e->what[k], sizeof e->what[k], "eager program[%d] (%s) launch", k, fb_node_op_name(&c->nodes[k]));
    fb_status s = plan(e);
    if (s == FB_OK && (e->workspace_bytes = workspace_need(e)) > 0) s = fb_dmalloc(&e->workspace, e->workspace_bytes);
    if (s != FB_OK) {
        fb_eager_destroy(e);
        return s;
    }
    *out = e;
    return FB_OK;
}

/* The tensor holding value v during a run. */
static fb_tensor view(const fb_eager *e, int v, const fb_tensor *in, const fb_tensor *out)
{
    fb_tensor t = {NULL, e->dt, e->shapes[v]};
    if (e->c.values[v].is_input) t.data = in[v].data;
    else if (e->out_slot[v] >= 0) t.data = out[e->out_slot[v]].data;
    else if (e->buf_of[v] >= 0) t.data = e->buf[e->buf_of[v]];
    return t;
}

static fb_status check_tensor(const fb_eager *e, const fb_tensor *t, int v, const char *role)
{
    char want[64], got[64];
    bool same = t->shape.rank == e->shapes[v].rank;
    for (int d = 0; same && d < t->shape.rank; d++) same = t->shape.dim[d] == e->shapes[v].dim[d];
    if (t->dtype != e->dt || !same) {
        fb_error("eager: %s '%s' is %s %s, expected %s %s", role, e->c.values[v].name, fb_dtype_name(t->dtype),
                 fb_shape_str(&t->shape, got, sizeof got), fb_dtype_name(e->dt),
                 fb_shape_str(&e->shapes[v], want, sizeof want));
        return FB_E_USAGE;
    }
    return FB_OK;
}

/* The launch arguments of node k over these tensors (x holds the operand views). */
static void node_args(const fb_eager *e, int k, const fb_tensor *in, const fb_tensor *out, cudaStream_t stream,
                      fb_tensor *y, fb_tensor *x, fb_eager_args *a)
{
    const fb_node *n = &e->c.nodes[k];
    *y = view(e, n->out, in, out);
    *a = (fb_eager_args){.out = y, .ctx = e->ctx, .stream = stream, .workspace = e->workspace,
                         .workspace_bytes = e->workspace_bytes, .what = e->what[k], .plan = e->plan[k]};
    for (int j = 0; j < n->n_in; j++) {
        if (n->in[j].literal) {
            a->lit[j] = n->in[j].number;
        } else {
            x[j] = view(e, n->in[j].value, in, out);
            a->in[j] = &x[j];
        }
    }
}

static fb_status check_tensors(const fb_eager *e, const fb_tensor *in, const fb_tensor *out)
{
    const fb_case *c = &e->c;
    for (int i = 0; i < c->n_inputs; i++) FB_TRY(check_tensor(e, &in[i], i, "input"));
    for (int k = 0; k < c->n_outputs; k++) FB_TRY(check_tensor(e, &out[k], c->outputs[k], "output"));
    return FB_OK;
}

static void release_plans(fb_eager *e)
{
    for (int k = 0; k < e->c.n_nodes; k++) {
        const fb_op_kind *kind = fb_node_kind(&e->c.nodes[k]);
        if (e->plan[k] && kind->release) kind->release(e->plan[k]);
        e->plan[k] = NULL;
    }
    e->prepared = false;
}

fb_status fb_eager_prepare(fb_eager *e, const fb_tensor *in, fb_tensor *out, cudaStream_t stream)
{
    FB_TRY(check_tensors(e, in, out));
    release_plans(e);
    for (int k = 0; k < e->c.n_nodes; k++) {
        const fb_node *n = &e->c.nodes[k];
        const fb_op_kind *kind = fb_node_kind(n);
        if (!kind->prepare) continue;
        fb_tensor y, x[FB_MAX_OPERANDS];
        fb_eager_args a;
        node_args(e, k, in, out, stream, &y, x, &a);
        fb_status s = kind->prepare(n, &a, &e->plan[k]);
        if (s != FB_OK) {
            release_plans(e);
            return s;
        }
    }
    /* a plan may want more workspace than its kind asked for from shapes (plan_workspace):
     * grown here, before any launch, and counted in the footprint like the rest */
    size_t need = e->workspace_bytes;
    for (int k = 0; k < e->c.n_nodes; k++) {
        const fb_op_kind *kind = fb_node_kind(&e->c.nodes[k]);
        const size_t w = kind->plan_workspace && e->plan[k] ? kind->plan_workspace(e->plan[k]) : 0;
        if (w > need) need = w;
    }
    if (need > e->workspace_bytes) {
        fb_dfree(e->workspace);
        e->workspace = NULL;
        e->workspace_bytes = 0;
        fb_status s = fb_dmalloc(&e->workspace, need);
        if (s != FB_OK) {
            release_plans(e);
            return s;
        }
        e->workspace_bytes = need;
    }
    e->prepared = true;
    return FB_OK;
}

fb_status fb_eager_run(fb_eager *e, const fb_tensor *in, fb_tensor *out, cudaStream_t stream)
{
    if (!e->prepared) FB_TRY(fb_eager_prepare(e, in, out, stream));
    FB_TRY(check_tensors(e, in, out));
    for (int k = 0; k < e->c.n_nodes; k++) {
        fb_tensor y, x[FB_MAX_OPERANDS];
        fb_eager_args a;
        node_args(e, k, in, out, stream, &y, x, &a);
        FB_TRY(fb_node_kind(&e->c.nodes[k])->eager(&e->c.nodes[k], &a));
    }
    return FB_OK;
}

int fb_eager_launches(const fb_eager *e)
{
    if (!e) return 0;
    fb_costs k;
    return fb_program_costs(&e->c, e->shapes, e->dt, &k) == FB_OK ? k.eager_kernels : e->c.n_nodes;
}

size_t fb_eager_bytes(const fb_eager *e) { return e ? e->bytes + e->workspace_bytes : 0; }

void fb_eager_destroy(fb_eager *e)
{
    if (!e) return;
    release_plans(e);
    for (int b = 0; b < e->n_bufs; b++) fb_dfree(e->buf[b]);
    fb_dfree(e->workspace);
    free(e);
}
