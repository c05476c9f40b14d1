/* rowplan.c — how a cell too large to check in full is checked on sampled rows
 * (program.h describes the plan; check.c uses it).
 *
 * Axis tracing: every axis of every input gets an id (a size-1 axis gets -1: it
 * broadcasts and is never split). Each node's kind says, through its row rule,
 * which of its operands' axes its output's axes are (broadcasting unites two ids
 * into one axis, union-find) and which axes it combines values along (a
 * reduction's dim, a matmul's K). An axis nobody combines along can be split: an
 * output element at index i along it depends only on index i (or on values that
 * lack the axis, read whole) of everything upstream.
 *
 * The plan takes the leading axes of outputs[0] but its last, in order, while
 * each one is splittable and, for every value that carries any of the chosen
 * axes, those axes are its leading ones (each at most once): then the slice a row
 * reads of every value is one contiguous run, fetched with one copy, and an op
 * that depends on the element index (dropout) finds its slice's offset. */
#include "program.h"

#include <stdio.h>
#include <string.h>

#include "ops/op_table.h"

#define MAX_IDS (FB_MAX_VALUES * FB_MAX_RANK)

struct fb_rowctx {
    int n;                  /* ids handed out                              */
    int parent[MAX_IDS];    /* union-find                                  */
    int64_t size[MAX_IDS];
    int combiner[MAX_IDS];  /* first node that combines along it, or -1    */
    int node;               /* the node whose rule is running              */
};

static int find(fb_rowctx *rc, int id)
{
    while (rc->parent[id] != id) {
        rc->parent[id] = rc->parent[rc->parent[id]];
        id = rc->parent[id];
    }
    return id;
}

static int fresh(fb_rowctx *rc, int64_t size)
{
    int id = rc->n++;
    rc->parent[id] = id;
    rc->size[id] = size;
    rc->combiner[id] = -1;
    return id;
}

static bool valid_id(const fb_rowctx *rc, int id) { return id >= 0 && id < rc->n; }

int fb_rows_same(fb_rowctx *rc, int a, int b)
{
    if (!valid_id(rc, a)) return valid_id(rc, b) ? find(rc, b) : -1;
    if (!valid_id(rc, b)) return find(rc, a);
    int ra = find(rc, a), rb = find(rc, b);
    if (ra == rb) return ra;
    rc->parent[rb] = ra;
    int ca = rc->combiner[ra], cb = rc->combiner[rb];
    rc->combiner[ra] = ca < 0 ? cb : (cb < 0 || ca < cb ? ca : cb);
    return ra;
}

void fb_rows_combine(fb_rowctx *rc, int id)
{
    if (!valid_id(rc, id)) return;
    int r = find(rc, id);
    if (rc->combiner[r] < 0) rc->combiner[r] = rc->node;
}

void fb_rows_broadcast(fb_rowctx *rc, const fb_axes *a, const fb_axes *b, fb_axes *out)
{
    fb_axes r = {a->rank > b->rank ? a->rank : b->rank, {0}};
    for (int j = 0; j < r.rank; j++) {
        int ia = j - (r.rank - a->rank), ib = j - (r.rank - b->rank);
        r.id[j] = fb_rows_same(rc, ia >= 0 ? a->id[ia] : -1, ib >= 0 ? b->id[ib] : -1);
    }
    *out = r;
}

/* Values whose chosen axes (split[0..n)) are not all leading, or repeat: the
 * first such value, or -1 when the choice is fine. */
static int breaks_prefix(fb_rowctx *rc, const fb_case *c, const fb_axes *ax, const int *split, int n)
{
    for (int v = 0; v < c->n_values; v++) {
        bool seen[FB_MAX_RANK] = {false}, gap = false;
        for (int j = 0; j < ax[v].rank; j++) {
            int id = ax[v].id[j] >= 0 ? find(rc, ax[v].id[j]) : -1, s = -1;
            for (int k = 0; k < n; k++)
                if (split[k] == id) s = k;
            if (s < 0) {
                gap = true;
                continue;
            }
            if (gap || seen[s]) return v;
            seen[s] = true;
        }
    }
    return -1;
}

fb_status fb_program_rowplan(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_rowplan *rp)
{
    memset(rp, 0, sizeof *rp);
    static _Thread_local fb_rowctx rc;
    static _Thread_local fb_axes ax[FB_MAX_VALUES];
    memset(&rc, 0, sizeof rc);
    memset(ax, 0, sizeof ax);
    static const fb_axes scalar = {0, {0}};

    for (int v = 0; v < c->n_inputs; v++) {
        ax[v].rank = shapes[v].rank;
        for (int j = 0; j < shapes[v].rank; j++) ax[v].id[j] = shapes[v].dim[j] == 1 ? -1 : fresh(&rc, shapes[v].dim[j]);
    }
    for (int i = 0; i < c->n_nodes; i++) {
        const fb_node *n = &c->nodes[i];
        const fb_op_kind *k = fb_node_kind(n);
        if (!k || n->out < c->n_inputs || n->out >= c->n_values || n->n_in > FB_MAX_OPERANDS) {
            fb_error("program[%d]: not a valid node", i);
            return FB_E_CASE;
        }
        const fb_axes *in[FB_MAX_OPERANDS];
        for (int j = 0; j < n->n_in; j++) {
            if (!n->in[j].literal && (n->in[j].value < 0 || n->in[j].value >= c->n_values)) {
                fb_error("program[%d].in: operand %d is not a value", i, j);
                return FB_E_CASE;
            }
            in[j] = n->in[j].literal ? &scalar : &ax[n->in[j].value];
        }
        rc.node = i;
        fb_axes *out = &ax[n->out];
        if (k->rows) {
            k->rows(n, &rc, in, out);
        } else {
            for (int j = 0; j < n->n_in; j++)
                for (int d = 0; d < in[j]->rank; d++) fb_rows_combine(&rc, in[j]->id[d]);
            out->rank = shapes[n->out].rank;
            for (int d = 0; d < out->rank; d++) out->id[d] = -1;
        }
        if (out->rank != shapes[n->out].rank) {
            fb_error("program[%d] (%s): the row rule gives rank %d for a rank-%d output", i, k->ops[n->op], out->rank,
                     shapes[n->out].rank);
            return FB_E_CASE;
        }
    }

    /* the longest splittable run of outputs[0]'s leading axes */
    int split[FB_MAX_RANK], n_split = 0;
    const int o0 = c->outputs[0];
    const char *oname = c->values[o0].name;
    /* A row keeps outputs[0]'s last dim whole (unless it has only one): rows of
     * single elements would cost a copy each to fetch. */
    const int splittable = ax[o0].rank > 1 ? ax[o0].rank - 1 : ax[o0].rank;
    for (int j = 0; j < splittable; j++) {
        int id = ax[o0].id[j] >= 0 ? find(&rc, ax[o0].id[j]) : -1;
        if (id < 0) {
            if (n_split == 0)
                snprintf(rp->why, sizeof rp->why, "output '%s' has size 1 along dim %d, so it has no rows to sample",
                         oname, j);
            break;
        }
        if (rc.combiner[id] >= 0) {
            if (n_split == 0) {
                const fb_node *n = &c->nodes[rc.combiner[id]];
                snprintf(rp->why, sizeof rp->why,
                         "program[%d] (%s) combines values along dim %d of output '%s', so its rows are not independent",
                         rc.combiner[id], fb_node_op_name(n), j, oname);
            }
            break;
        }
        split[n_split] = id;
        int v = breaks_prefix(&rc, c, ax, split, n_split + 1);
        if (v >= 0) {
            if (n_split == 0)
                snprintf(rp->why, sizeof rp->why,
                         "'%s' does not lead with dim %d of output '%s', so a row of it is not one contiguous slice",
                         c->values[v].name, j, oname);
            break;
        }
        n_split++;
    }
    if (n_split == 0) {
        if (!rp->why[0]) snprintf(rp->why, sizeof rp->why, "output '%s' has no dims to split into rows", oname);
        return FB_OK;
    }

    int64_t rows = 1;
    for (int s = 0; s < n_split; s++) {
        rp->split_size[s] = rc.size[split[s]];
        if (__builtin_mul_overflow(rows, rp->split_size[s], &rows)) {
            fb_error("outputs: row count overflows 64 bits");
            return FB_E_CASE;
        }
    }
    for (int v = 0; v < c->n_values; v++) {
        rp->row_shape[v] = shapes[v];
        int64_t stride = 1;
        for (int j = shapes[v].rank - 1; j >= 0; j--) {
            int id = ax[v].id[j] >= 0 ? find(&rc, ax[v].id[j]) : -1;
            for (int s = 0; s < n_split; s++)
                if (split[s] == id) {
                    rp->stride[v][s] = stride;
                    rp->row_shape[v].dim[j] = 1;
                }
            stride *= shapes[v].dim[j];
        }
    }
    rp->separable = true;
    rp->n_split = n_split;
    rp->n_rows = rows;
    return FB_OK;
}

int64_t fb_rowplan_offset(const fb_rowplan *rp, int v, int64_t r)
{
    int64_t off = 0;
    for (int s = rp->n_split - 1; s >= 0; s--) {
        int64_t i = r % rp->split_size[s];
        r /= rp->split_size[s];
        off += i * rp->stride[v][s];
    }
    return off;
}
