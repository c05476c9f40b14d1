/* rowplan.c — how a cell too large to check in full is checked row by row
 * (program.h describes the plan; check.c and rowref.c use it).
 *
 * Axis tracing: every axis of every input gets an id (a size-1 axis gets -1: it
 * broadcasts and is never split). Each node's kind says, through its row rule,
 * which of its operands' axes its output's axes are (broadcasting unites two ids
 * into one axis, union-find) and which axes it combines values along (a
 * reduction's dim, a matmul's K), and whether by a plain sum. An axis nobody
 * combines along can be split: an output element at index i along it depends
 * only on index i (or on values that lack the axis, read whole) of everything
 * upstream. An axis only plain sums combine along can be split too, when what
 * those sums compute (the *partial* values: a row gives a part, the value is the
 * sum of all rows' parts) reaches the outputs only through further plain sums:
 * then each row is evaluated alone and the partial outputs are added up over all
 * rows (rmsnorm_backward's dw, summed over the [4, T] rows of dx).
 *
 * The plan takes the leading axes of an anchor value but its last, in order,
 * while each one is splittable and, for every value that carries any of the
 * chosen axes, those axes are its leading ones (each at most once): then the
 * slice a row reads of every value is one contiguous run, fetched with one copy,
 * and an op that depends on the element index (dropout) finds its slice's
 * offset. The anchor is outputs[0], else (when it gives no axis) the first other
 * output or input that does: a program whose outputs are all sums over rows
 * (dw alone) splits on the rows of its inputs. */
#include "program.h"

#include <stdio.h>
#include <string.h>

#include "ops/op_table.h"

#define MAX_IDS (FB_MAX_VALUES * FB_MAX_RANK)

struct fb_rowctx {
    int n;                  /* ids handed out                              */
    int parent[MAX_IDS];    /* union-find                                  */
    int64_t size[MAX_IDS];
    int combiner[MAX_IDS];  /* first node that combines along it other than by a plain sum, or -1 */
    int node;               /* the node whose rule is running              */
    const fb_shape *out_shape; /* ... and its output's shape (fb_rows_fresh)   */
    /* per node: the axes it sums along (fb_rows_sum), and whether it combines
     * along any axis another way (fb_rows_combine, or no row rule) */
    int n_summed[FB_MAX_NODES];
    int summed[FB_MAX_NODES][FB_MAX_RANK];
    bool sums[FB_MAX_NODES], mixes[FB_MAX_NODES];
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
    rc->mixes[rc->node] = true;
    if (!valid_id(rc, id)) return;
    int r = find(rc, id);
    if (rc->combiner[r] < 0) rc->combiner[r] = rc->node;
}

void fb_rows_sum(fb_rowctx *rc, int id)
{
    int i = rc->node;
    rc->sums[i] = true;
    if (!valid_id(rc, id)) return; /* a size-1 axis: nothing to split */
    if (rc->n_summed[i] < FB_MAX_RANK) rc->summed[i][rc->n_summed[i]++] = id;
    else fb_rows_combine(rc, id); /* more axes than a rank holds: a broken rule; do not split */
}

int fb_rows_fresh(fb_rowctx *rc, int dim)
{
    const fb_shape *y = rc->out_shape;
    if (!y || dim < 0 || dim >= y->rank || y->dim[dim] == 1) return -1;
    /* a rule's fresh axes belong to its output value, whose rank's worth of ids
     * MAX_IDS already counts; a broken rule asking for more gets none, and its
     * node is marked as combining (nothing splits through it) */
    if (rc->n == MAX_IDS) {
        fb_rows_combine(rc, -1);
        return -1;
    }
    return fresh(rc, y->dim[dim]);
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

/* Which values are partial when the rows split on split[0..n) (roots): the
 * output of a plain sum along a split axis, and whatever a plain sum computes
 * from a partial value. Returns -1 when every partial value reaches the outputs
 * only through plain sums of it alone, else the node whose sum breaks that
 * (the sum that started the partial value a non-sum reads, or a sum along a
 * split axis that also mixes operands or combines another way). */
static int trace_partials(fb_rowctx *rc, const fb_case *c, const int *split, int n, bool *partial)
{
    int origin[FB_MAX_VALUES];
    memset(partial, 0, sizeof(bool) * FB_MAX_VALUES);
    for (int v = 0; v < FB_MAX_VALUES; v++) origin[v] = -1;
    for (int i = 0; i < c->n_nodes; i++) {
        const fb_node *nd = &c->nodes[i];
        int values = 0, from = -1;
        for (int j = 0; j < nd->n_in; j++) {
            if (nd->in[j].literal) continue;
            values++;
            if (partial[nd->in[j].value] && from < 0) from = origin[nd->in[j].value];
        }
        const bool plain = rc->sums[i] && !rc->mixes[i] && values == 1;
        bool along_split = false;
        for (int k = 0; k < rc->n_summed[i]; k++)
            for (int s = 0; s < n; s++) along_split |= find(rc, rc->summed[i][k]) == split[s];
        if (from >= 0 && !plain) return from;
        if (along_split && !plain) return i;
        if (from >= 0 || along_split) {
            partial[nd->out] = true;
            origin[nd->out] = from >= 0 ? from : i;
        }
    }
    return -1;
}

/* The longest splittable run of `anchor`'s leading axes (all but its last,
 * unless it has only one) into split[]; when there is none, why says why. */
static int choose_split(fb_rowctx *rc, const fb_case *c, const fb_axes *ax, int anchor, int *split, char *why,
                        size_t why_n)
{
    int n_split = 0;
    const char *aname = c->values[anchor].name, *what = anchor < c->n_inputs ? "input" : "output";
    bool partial[FB_MAX_VALUES];
    /* A row keeps the anchor's last dim whole (unless it has only one): rows of
     * single elements would cost a copy each to fetch. */
    const int splittable = ax[anchor].rank > 1 ? ax[anchor].rank - 1 : ax[anchor].rank;
    for (int j = 0; j < splittable; j++) {
        int id = ax[anchor].id[j] >= 0 ? find(rc, ax[anchor].id[j]) : -1;
        if (id < 0) {
            if (n_split == 0)
                snprintf(why, why_n, "%s '%s' has size 1 along dim %d, so it has no rows to sample", what, aname, j);
            break;
        }
        int culprit = rc->combiner[id];
        if (culprit < 0) {
            split[n_split] = id;
            culprit = trace_partials(rc, c, split, n_split + 1, partial);
        }
        if (culprit >= 0) {
            if (n_split == 0)
                snprintf(why, why_n,
                         "program[%d] (%s) combines values along dim %d of %s '%s', so its rows are not independent",
                         culprit, fb_node_op_name(&c->nodes[culprit]), j, what, aname);
            break;
        }
        split[n_split] = id;
        int v = breaks_prefix(rc, c, ax, split, n_split + 1);
        if (v >= 0) {
            if (n_split == 0)
                snprintf(why, why_n,
                         "'%s' does not lead with dim %d of %s '%s', so a row of it is not one contiguous slice",
                         c->values[v].name, j, what, aname);
            break;
        }
        n_split++;
    }
    if (n_split == 0 && !why[0]) snprintf(why, why_n, "%s '%s' has no dims to split into rows", what, aname);
    return n_split;
}

fb_status fb_program_rowplan(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_rowplan *rp)
{
    memset(rp, 0, sizeof *rp);
    static _Thread_local fb_rowctx rc;
    static _Thread_local fb_axes ax[FB_MAX_VALUES];
    memset(&rc, 0, sizeof rc);
    memset(ax, 0, sizeof ax);
    static const fb_axes scalar = {0, {0}};

    if (c->n_nodes > FB_MAX_NODES || c->n_values > FB_MAX_VALUES || c->n_outputs < 1) {
        fb_error("program: not a valid program");
        return FB_E_CASE;
    }
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
        rc.out_shape = &shapes[n->out];
        fb_axes *out = &ax[n->out];
        if (k->rows) {
            k->rows(n, &rc, in, out);
        } else {
            rc.mixes[i] = true;
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

    /* outputs[0] first; its reason is the one reported when no anchor splits */
    int split[FB_MAX_RANK], n_split = 0;
    bool tried[FB_MAX_VALUES] = {false};
    for (int a = 0; a < c->n_outputs + c->n_inputs && n_split == 0; a++) {
        int v = a < c->n_outputs ? c->outputs[a] : a - c->n_outputs;
        if (v < 0 || v >= c->n_values || tried[v]) continue;
        tried[v] = true;
        char why[sizeof rp->why] = "";
        n_split = choose_split(&rc, c, ax, v, split, why, sizeof why);
        if (a == 0) memcpy(rp->why, why, sizeof why);
    }
    if (n_split == 0) return FB_OK;
    rp->why[0] = 0;

    int64_t rows = 1;
    for (int s = 0; s < n_split; s++) {
        rp->split_size[s] = rc.size[split[s]];
        if (__builtin_mul_overflow(rows, rp->split_size[s], &rows)) {
            fb_error("outputs: row count overflows 64 bits");
            return FB_E_CASE;
        }
    }
    rp->boxes = true;
    for (int v = 0; v < c->n_values; v++) {
        rp->row_shape[v] = shapes[v];
        int64_t stride = 1;
        int last = n_split; /* split axes met so far from the right: must fall */
        for (int j = shapes[v].rank - 1; j >= 0; j--) {
            int id = ax[v].id[j] >= 0 ? find(&rc, ax[v].id[j]) : -1;
            rp->split_dim[v][j] = -1;
            for (int s = 0; s < n_split; s++)
                if (split[s] == id) {
                    rp->stride[v][s] = stride;
                    rp->row_shape[v].dim[j] = 1;
                    rp->split_dim[v][j] = (signed char)s;
                    if (s >= last) rp->boxes = false;
                    last = s;
                }
            stride *= shapes[v].dim[j];
        }
    }
    (void)trace_partials(&rc, c, split, n_split, rp->partial);
    for (int v = 0; v < c->n_values; v++) rp->accumulates |= rp->partial[v];
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
