/* op_table.c — the table of op kinds, lookups by op name, the attribute bag, and
 * the few helpers several kinds share. A new kind is one file and one line in
 * `kinds` below. */
#include "op_table.h"

#include <string.h>

extern const fb_op_kind fb_kind_unary, fb_kind_binary, fb_kind_reduce, fb_kind_random, fb_kind_matmul,
    fb_kind_conv2d, fb_kind_batchnorm;

static const fb_op_kind *const kinds[] = {
    &fb_kind_unary,
    &fb_kind_binary,
    &fb_kind_reduce,
    &fb_kind_random,
    &fb_kind_matmul,
    &fb_kind_conv2d,
    &fb_kind_batchnorm,
};
#define N_KINDS (int)(sizeof kinds / sizeof kinds[0])

int fb_op_kind_count(void) { return N_KINDS; }

const fb_op_kind *fb_op_kind_at(int k) { return k >= 0 && k < N_KINDS ? kinds[k] : NULL; }

int fb_op_lookup(const char *name, int *kind, int *op)
{
    if (!name) return -1;
    for (int k = 0; k < N_KINDS; k++)
        for (int i = 0; i < kinds[k]->n_ops; i++)
            if (strcmp(name, kinds[k]->ops[i]) == 0) {
                *kind = k;
                *op = i;
                return 0;
            }
    return -1;
}

int fb_op_names(const char **names, int max)
{
    int n = 0;
    for (int k = 0; k < N_KINDS; k++)
        for (int i = 0; i < kinds[k]->n_ops && n < max; i++) names[n++] = kinds[k]->ops[i];
    return n;
}

const fb_op_kind *fb_node_kind(const fb_node *n)
{
    const fb_op_kind *k = fb_op_kind_at(n->kind);
    return k && n->op >= 0 && n->op < k->n_ops ? k : NULL;
}

const char *fb_node_op_name(const fb_node *n)
{
    const fb_op_kind *k = fb_node_kind(n);
    return k ? k->ops[n->op] : "?";
}

/* ---- the attribute bag --------------------------------------------------------- */

static fb_attr *slot(fb_attrs *a, const char *key)
{
    if (strlen(key) >= FB_ATTR_KEY_MAX) return NULL;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->a[i].key, key) == 0) return &a->a[i];
    if (a->n == FB_MAX_ATTRS) return NULL;
    fb_attr *s = &a->a[a->n++];
    memset(s, 0, sizeof *s);
    memcpy(s->key, key, strlen(key) + 1);
    return s;
}

int fb_attrs_set_int(fb_attrs *a, const char *key, int64_t v)
{
    fb_attr *s = slot(a, key);
    if (!s) return -1;
    s->type = FB_ATTR_INT;
    s->i = v;
    s->r = (double)v;
    return 0;
}

int fb_attrs_set_real(fb_attrs *a, const char *key, double v)
{
    fb_attr *s = slot(a, key);
    if (!s) return -1;
    s->type = FB_ATTR_REAL;
    s->r = v;
    s->i = 0;
    return 0;
}

int fb_attrs_set_bool(fb_attrs *a, const char *key, bool v)
{
    fb_attr *s = slot(a, key);
    if (!s) return -1;
    s->type = FB_ATTR_BOOL;
    s->i = v;
    s->r = v;
    return 0;
}

const fb_attr *fb_attrs_get(const fb_attrs *a, const char *key)
{
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->a[i].key, key) == 0) return &a->a[i];
    return NULL;
}

int64_t fb_attr_int(const fb_attrs *a, const char *key, int64_t dflt)
{
    const fb_attr *s = fb_attrs_get(a, key);
    return s && s->type != FB_ATTR_REAL ? s->i : dflt;
}

double fb_attr_real(const fb_attrs *a, const char *key, double dflt)
{
    const fb_attr *s = fb_attrs_get(a, key);
    return s ? s->r : dflt;
}

bool fb_attr_bool(const fb_attrs *a, const char *key, bool dflt)
{
    const fb_attr *s = fb_attrs_get(a, key);
    return s && s->type == FB_ATTR_BOOL ? s->i != 0 : dflt;
}

/* ---- shared helpers ------------------------------------------------------------- */

int fb_normalize_dim(int64_t dim, int rank)
{
    int64_t d = dim < 0 ? dim + rank : dim;
    return d >= 0 && d < rank ? (int)d : -1;
}

void fb_cost_eager_traffic(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem,
                           fb_node_cost *c)
{
    c->bytes_read = 0;
    for (int k = 0; k < n->n_in; k++)
        if (!n->in[k].literal) c->bytes_read += (double)fb_shape_numel(in[k]) * (double)elem;
    c->bytes_written = (double)fb_shape_numel(out) * (double)elem;
    c->launches = 1;
}
