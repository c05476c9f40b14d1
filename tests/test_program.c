/* test_program.c — the program layer without the JSON loader: cases are built by
 * hand with the small builder below, then checked for broadcasting, shape binding
 * and its error messages, costs and overflow, the float64 reference against
 * hand-computed numbers, and the row plan (a row evaluated alone must equal the
 * same row of the full evaluation). */
#include "ops/op_table.h"
#include "program.h"
#include "rowcheck.h"
#include "shapes.h"
#include "testing.h"

#include <stdlib.h>

/* ---- a tiny case builder ---------------------------------------------------- */

static int find_sym(fb_case *c, const char *name)
{
    for (int i = 0; i < c->n_syms; i++)
        if (strcmp(c->sym[i], name) == 0) return i;
    snprintf(c->sym[c->n_syms], FB_NAME_MAX, "%s", name);
    return c->n_syms++;
}

static int find_value(const fb_case *c, const char *name)
{
    for (int v = 0; v < c->n_values; v++)
        if (strcmp(c->values[v].name, name) == 0) return v;
    fprintf(stderr, "test bug: no value named %s\n", name);
    abort();
}

/* dims: a number is a literal size, anything else a symbol ("dim0"). */
static void input(fb_case *c, const char *name, int rank, const char *const *dims)
{
    fb_value *v = &c->values[c->n_values++];
    c->n_inputs++;
    snprintf(v->name, sizeof v->name, "%s", name);
    v->is_input = true;
    v->producer = -1;
    v->init = FB_INIT_NORMAL;
    v->shape.rank = rank;
    for (int j = 0; j < rank; j++) {
        char *end;
        long long n = strtoll(dims[j], &end, 10);
        if (*end == 0) v->shape.dim[j] = (fb_dim){-1, n};
        else v->shape.dim[j] = (fb_dim){find_sym(c, dims[j]), 0};
    }
}
#define INPUT(c, name, ...) \
    input(c, name, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), (const char *[]){__VA_ARGS__})

/* Operands: a number is a literal, anything else a value name. b may be NULL.
 * `dim` is the reduction dim (keepdim), ignored by other kinds. */
static void node(fb_case *c, const char *op, const char *out, int dim, const char *a, const char *b)
{
    fb_node *n = &c->nodes[c->n_nodes];
    memset(n, 0, sizeof *n);
    if (fb_op_lookup(op, &n->kind, &n->op) != 0) {
        fprintf(stderr, "test bug: no op %s\n", op);
        abort();
    }
    if (!strcmp(fb_node_kind(n)->name, "reduce")) {
        fb_attrs_set_int(&n->attrs, "dim", dim);
        fb_attrs_set_bool(&n->attrs, "keepdim", true);
    }
    const char *ops[2] = {a, b};
    n->n_in = b ? 2 : 1;
    for (int i = 0; i < n->n_in; i++) {
        char *end;
        double x = strtod(ops[i], &end);
        if (*end == 0) n->in[i] = (fb_operand){.literal = true, .number = x, .value = -1};
        else n->in[i] = (fb_operand){.literal = false, .value = find_value(c, ops[i])};
    }
    fb_value *v = &c->values[c->n_values];
    snprintf(v->name, sizeof v->name, "%s", out);
    v->producer = c->n_nodes;
    n->out = c->n_values++;
    c->n_nodes++;
}

static void output(fb_case *c, const char *name) { c->outputs[c->n_outputs++] = find_value(c, name); }

/* softmax over `dim` of x[dim0, dim1], exactly as cases/softmax.json writes it */
static void make_softmax(fb_case *c, int dim)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "softmax");
    INPUT(c, "x", "dim0", "dim1");
    node(c, "amax", "m", dim, "x", NULL);
    node(c, "sub", "t", 0, "x", "m");
    node(c, "exp", "e", 0, "t", NULL);
    node(c, "sum", "s", dim, "e", NULL);
    node(c, "div", "y", 0, "e", "s");
    output(c, "y");
}

static bool same_shape(const fb_shape *a, const fb_shape *b)
{
    if (a->rank != b->rank) return false;
    for (int j = 0; j < a->rank; j++)
        if (a->dim[j] != b->dim[j]) return false;
    return true;
}

static fb_point point2(int64_t a, int64_t b) { return (fb_point){{a, b}}; }

/* ---- op table -------------------------------------------------------------- */

static void test_ops(void)
{
    /* every op name finds its kind, and the kind's table names it back */
    static const struct { const char *name, *kind; int n_in; } ops[] = {
        {"neg", "unary", 1},   {"abs", "unary", 1},     {"exp", "unary", 1},        {"log", "unary", 1},
        {"cos", "unary", 1},   {"sin", "unary", 1},     {"tanh", "unary", 1},       {"sqrt", "unary", 1},
        {"rsqrt", "unary", 1}, {"relu", "unary", 1},    {"sigmoid", "unary", 1},    {"erf", "unary", 1},
        {"reciprocal", "unary", 1}, {"square", "unary", 1}, {"gelu", "unary", 1}, {"copy", "unary", 1},
        {"add", "binary", 2},  {"sub", "binary", 2},    {"mul", "binary", 2},       {"div", "binary", 2},
        {"max", "binary", 2},  {"min", "binary", 2},    {"pow", "binary", 2},
        {"sum", "reduce", 1},  {"amax", "reduce", 1},   {"amin", "reduce", 1},      {"mean", "reduce", 1},
        {"dropout", "random", 1},
        {"matmul", "matmul", 2},
        {"conv2d", "conv2d", 2},
        {"batchnorm", "batchnorm", 5},
    };
    const int n_ops = (int)(sizeof ops / sizeof ops[0]);
    for (int i = 0; i < n_ops; i++) {
        fb_node n = {0};
        CHECK(fb_op_lookup(ops[i].name, &n.kind, &n.op) == 0);
        const fb_op_kind *k = fb_node_kind(&n);
        CHECK(k != NULL);
        if (!k) continue;
        CHECK_STR(k->name, ops[i].kind);
        CHECK_STR(fb_node_op_name(&n), ops[i].name);
        CHECK(k->n_in == ops[i].n_in);
    }
    const char *names[64];
    CHECK(fb_op_names(names, 64) == n_ops);
    CHECK(fb_op_names(names, 3) == 3);
    int kind, op;
    CHECK(fb_op_lookup("softmax", &kind, &op) == -1);
    CHECK(fb_op_lookup("", &kind, &op) == -1);
    CHECK(fb_op_lookup("ADD", &kind, &op) == -1);
    CHECK(fb_op_lookup(NULL, &kind, &op) == -1);
    CHECK(fb_op_kind_at(-1) == NULL && fb_op_kind_at(fb_op_kind_count()) == NULL);
    fb_node broken = {.kind = 0, .op = 999};
    CHECK(fb_node_kind(&broken) == NULL);
    CHECK_STR(fb_node_op_name(&broken), "?");

    /* every kind has everything the walks call; literals only where they make sense */
    for (int i = 0; i < fb_op_kind_count(); i++) {
        const fb_op_kind *k = fb_op_kind_at(i);
        CHECK(k->shape && k->cost && k->reference && k->eager && k->rows);
        CHECK((k->n_attrs > 0) == (k->parse != NULL));
        CHECK(k->literals == !strcmp(k->name, "binary"));
    }

    CHECK_STR(fb_init_name(FB_INIT_NORMAL), "normal");
    CHECK_STR(fb_init_name(FB_INIT_UNIFORM), "uniform");
    CHECK_STR(fb_init_name(FB_INIT_POSITIVE), "positive");
    CHECK_STR(fb_init_name(FB_INIT_ROW_SIMPLEX), "row_simplex");
}

/* ---- broadcasting ------------------------------------------------------------ */

static void check_bc(fb_shape a, fb_shape b, int ok, fb_shape want)
{
    fb_shape out = t_shape(1, 99, 0, 0, 0);
    int rc = fb_broadcast(&a, &b, &out);
    CHECK(rc == (ok ? 0 : -1));
    if (ok && !same_shape(&out, &want))
        fprintf(stderr, "broadcast %s %s: got %s want %s\n", t_shape_str(&a), t_shape_str(&b), t_shape_str(&out), t_shape_str(&want));
    if (ok) CHECK(same_shape(&out, &want));
    if (!ok) CHECK(out.rank == 1 && out.dim[0] == 99); /* untouched on failure */
}

static void test_broadcast(void)
{
    fb_shape none = {0, {0}};
    check_bc(t_shape(2, 4, 8, 0, 0), t_shape(1, 8, 0, 0, 0), 1, t_shape(2, 4, 8, 0, 0));
    check_bc(t_shape(1, 8, 0, 0, 0), t_shape(2, 4, 8, 0, 0), 1, t_shape(2, 4, 8, 0, 0));
    check_bc(t_shape(2, 4, 1, 0, 0), t_shape(2, 1, 8, 0, 0), 1, t_shape(2, 4, 8, 0, 0));
    check_bc(t_shape(2, 4, 8, 0, 0), t_shape(2, 4, 1, 0, 0), 1, t_shape(2, 4, 8, 0, 0));
    check_bc(t_shape(3, 2, 1, 3, 0), t_shape(2, 5, 1, 0, 0), 1, t_shape(3, 2, 5, 3, 0));
    check_bc(t_shape(4, 2, 3, 4, 5), t_shape(1, 5, 0, 0, 0), 1, t_shape(4, 2, 3, 4, 5));
    check_bc(t_shape(4, 1, 1, 1, 1), t_shape(2, 6, 7, 0, 0), 1, t_shape(4, 1, 1, 6, 7));
    check_bc(none, t_shape(1, 3, 0, 0, 0), 1, t_shape(1, 3, 0, 0, 0));
    check_bc(none, none, 1, none);
    check_bc(t_shape(1, 1, 0, 0, 0), t_shape(1, 1, 0, 0, 0), 1, t_shape(1, 1, 0, 0, 0));
    check_bc(t_shape(2, 4, 8, 0, 0), t_shape(1, 3, 0, 0, 0), 0, none);
    check_bc(t_shape(2, 2, 3, 0, 0), t_shape(2, 3, 3, 0, 0), 0, none);
    check_bc(t_shape(3, 2, 3, 4, 0), t_shape(2, 2, 4, 0, 0), 0, none);
    check_bc(t_shape(2, 4, 1, 0, 0), t_shape(2, 3, 1, 0, 0), 0, none);
}

/* ---- shapes and their errors ------------------------------------------------- */

static void test_shapes(void)
{
    fb_case c;
    make_softmax(&c, -1);
    fb_shape s[FB_MAX_VALUES];
    fb_point p = point2(128, 256);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[find_value(&c, "x")]), "[128, 256]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "m")]), "[128, 1]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "t")]), "[128, 256]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "e")]), "[128, 256]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "s")]), "[128, 1]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "y")]), "[128, 256]");

    make_softmax(&c, 0);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[find_value(&c, "m")]), "[1, 256]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "y")]), "[128, 256]");

    /* literals are scalars; literal sizes mix with symbols; rank 3 reductions */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "2", "n", "4");
    INPUT(&c, "b", "4");
    node(&c, "mul", "h", 0, "x", "0.5");
    node(&c, "add", "z", 0, "h", "b");
    node(&c, "mean", "r", 1, "z", NULL);
    node(&c, "sub", "k", 0, "1", "r");
    output(&c, "k");
    fb_point q = {{3}};
    CHECK(fb_program_shapes(&c, &q, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[find_value(&c, "x")]), "[2, 3, 4]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "h")]), "[2, 3, 4]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "z")]), "[2, 3, 4]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "r")]), "[2, 1, 4]");
    CHECK_STR(t_shape_str(&s[find_value(&c, "k")]), "[2, 1, 4]");

    /* the exact messages the loader prefixes with "PATH: " */
    memset(&c, 0, sizeof c);
    INPUT(&c, "a", "4", "8");
    INPUT(&c, "b", "3");
    node(&c, "exp", "e", 0, "a", NULL);
    node(&c, "add", "y", 0, "e", "b");
    output(&c, "y");
    fb_clear_error();
    CHECK(fb_program_shapes(&c, &p, s) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "program[1].in: shapes [4, 8] and [3] do not broadcast");

    make_softmax(&c, 2);
    CHECK(fb_program_shapes(&c, &p, s) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "program[0].dim: dim 2 is out of range for a rank-2 tensor");
    make_softmax(&c, -3);
    CHECK(fb_program_shapes(&c, &p, s) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "program[0].dim: dim -3 is out of range for a rank-2 tensor");
    make_softmax(&c, -2); /* -2 is dim 0: fine */
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[find_value(&c, "m")]), "[1, 256]");

    make_softmax(&c, -1);
    p = point2(0, 256);
    CHECK(fb_program_shapes(&c, &p, s) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "inputs.x.shape: size 0 is not positive");
    p = point2(16, -5);
    CHECK(fb_program_shapes(&c, &p, s) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "inputs.x.shape: size -5 is not positive");
}

/* ---- costs --------------------------------------------------------------------- */

static void test_costs(void)
{
    fb_case c;
    make_softmax(&c, -1);
    fb_shape s[FB_MAX_VALUES];
    fb_point p = point2(128, 256);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    fb_costs k;
    CHECK(fb_program_costs(&c, s, FB_F32, &k) == FB_OK);
    CHECK(k.in_bytes == 131072);
    CHECK(k.out_bytes == 131072);
    CHECK(k.ideal_bytes == 262144);
    CHECK(k.eager_kernels == 5);
    CHECK(k.flops == 5.0 * 128 * 256); /* sub, exp, div per output; amax, sum per input */
    double big = 128 * 256 * 4, col = 128 * 4;
    double eager = (big + col)         /* amax: read x, write m    */
                   + (big + col + big) /* sub:  read x, m, write t */
                   + (big + big)       /* exp                      */
                   + (big + col)       /* sum                      */
                   + (big + col + big);/* div                      */
    CHECK(k.eager_bytes == eager);

    CHECK(fb_program_costs(&c, s, FB_BF16, &k) == FB_OK);
    CHECK(k.in_bytes == 65536 && k.out_bytes == 65536);
    CHECK(k.eager_bytes == eager / 2);

    /* a literal operand moves no bytes; FLOPs of elementwise ops count outputs */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "4", "8");
    INPUT(&c, "b", "8");
    node(&c, "mul", "h", 0, "x", "0.5");
    node(&c, "add", "y", 0, "b", "h");
    node(&c, "mean", "r", 0, "y", NULL);
    output(&c, "y");
    output(&c, "r");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_costs(&c, s, FB_F64, &k) == FB_OK);
    CHECK(k.in_bytes == (32 + 8) * 8);
    CHECK(k.out_bytes == (32 + 8) * 8);
    CHECK(k.flops == 32 + 32 + 32);
    CHECK(k.eager_bytes == (32 + 32) * 8 + (8 + 32 + 32) * 8 + (32 + 8) * 8);
    CHECK(k.eager_kernels == 3);

    /* overflow: 2^80 elements; 2^62 elements of 4 bytes; an intermediate too big */
    make_softmax(&c, -1);
    p = point2(INT64_C(1) << 40, INT64_C(1) << 40);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    fb_clear_error();
    CHECK(fb_program_costs(&c, s, FB_F32, &k) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "inputs.x.shape: byte count overflows 64 bits");
    /* 2^61 elements: the count fits, 2^63 bytes of float32 do not, 2^62 of float16 do */
    p = point2(INT64_C(1) << 31, INT64_C(1) << 30);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_costs(&c, s, FB_F32, &k) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "inputs.x.shape: byte count overflows 64 bits");
    CHECK(fb_program_costs(&c, s, FB_F16, &k) == FB_OK);
    CHECK(k.in_bytes == 0x1p62);

    memset(&c, 0, sizeof c);
    INPUT(&c, "a", "dim0", "1");
    INPUT(&c, "b", "1", "dim1");
    node(&c, "neg", "n", 0, "a", NULL);
    node(&c, "add", "y", 0, "n", "b");
    output(&c, "y");
    p = point2(INT64_C(1) << 40, INT64_C(1) << 40);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_costs(&c, s, FB_F32, &k) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "program[1].out: byte count overflows 64 bits");
}

/* ---- the reference ----------------------------------------------------------- */

static fb_status eval1(const fb_case *c, const fb_point *p, const double *const *in, double *out)
{
    fb_shape s[FB_MAX_VALUES];
    fb_status st = fb_program_shapes(c, p, s);
    if (st != FB_OK) return st;
    double *outs[1] = {out};
    return fb_reference_eval(c, s, in, outs);
}

static void test_reference(void)
{
    fb_case c;
    make_softmax(&c, -1);
    fb_point p = point2(2, 3);
    const double x[6] = {1, 2, 3, 1, 1, 1};
    const double *in[1] = {x};
    double y[6];
    CHECK(eval1(&c, &p, in, y) == FB_OK);
    /* softmax([1, 2, 3]) = e^k / (e + e^2 + e^3) */
    CHECK_NEAR(y[0], 0.09003057317038046, 1e-15);
    CHECK_NEAR(y[1], 0.24472847105479767, 1e-15);
    CHECK_NEAR(y[2], 0.6652409557748219, 1e-15);
    for (int j = 3; j < 6; j++) CHECK_NEAR(y[j], 1.0 / 3.0, 1e-15);

    /* softmax over dim 0: each column of [[1, 2, 3], [1, 1, 1]] */
    make_softmax(&c, 0);
    CHECK(eval1(&c, &p, in, y) == FB_OK);
    CHECK_NEAR(y[0], 0.5, 1e-15);
    CHECK_NEAR(y[3], 0.5, 1e-15);
    CHECK_NEAR(y[1], exp(1.0) / (exp(1.0) + 1.0), 1e-15);
    CHECK_NEAR(y[4], 1.0 / (exp(1.0) + 1.0), 1e-15);
    CHECK_NEAR(y[2], exp(2.0) / (exp(2.0) + 1.0), 1e-15);
    CHECK_NEAR(y[5], 1.0 / (exp(2.0) + 1.0), 1e-15);

    /* literals on either side, a reduction over dim 0, a rank-1 broadcast operand */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "2", "3");
    INPUT(&c, "b", "3");
    node(&c, "mul", "h", 0, "x", "0.5");
    node(&c, "sub", "g", 0, "10", "h");
    node(&c, "add", "z", 0, "g", "b");
    node(&c, "sum", "s", 0, "z", NULL);
    output(&c, "s");
    output(&c, "z");
    {
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
        const double xv[6] = {2, 4, 6, 8, 10, 12}, bv[3] = {100, 200, 300};
        const double *ins[2] = {xv, bv};
        double sv[3], zv[6];
        double *outs[2] = {sv, zv};
        CHECK(fb_reference_eval(&c, s, ins, outs) == FB_OK);
        const double zwant[6] = {109, 208, 307, 106, 205, 304};
        for (int i = 0; i < 6; i++) CHECK(zv[i] == zwant[i]);
        CHECK(sv[0] == 215 && sv[1] == 413 && sv[2] == 611);
    }

    /* rank 3, reductions over the middle dim, mean/amin, [2,1,3] + [4,1] broadcast */
    memset(&c, 0, sizeof c);
    INPUT(&c, "a", "2", "1", "3");
    INPUT(&c, "b", "4", "1");
    node(&c, "add", "z", 0, "a", "b");   /* [2, 4, 3]: z[i][j][k] = a[i][k] + b[j] */
    node(&c, "mean", "m", 1, "z", NULL); /* [2, 1, 3] */
    node(&c, "amin", "n", -2, "z", NULL);
    node(&c, "amax", "q", -1, "z", NULL); /* [2, 4, 1] */
    output(&c, "z");
    output(&c, "m");
    output(&c, "n");
    output(&c, "q");
    {
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
        CHECK_STR(t_shape_str(&s[find_value(&c, "z")]), "[2, 4, 3]");
        const double av[6] = {1, 2, 3, 4, 5, 6}, bv[4] = {10, 20, 30, 40};
        const double *ins[2] = {av, bv};
        double zv[24], mv[6], nv[6], qv[8];
        double *outs[4] = {zv, mv, nv, qv};
        CHECK(fb_reference_eval(&c, s, ins, outs) == FB_OK);
        int bad = 0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < 3; k++) bad += zv[(i * 4 + j) * 3 + k] != av[i * 3 + k] + bv[j];
        CHECK(bad == 0);
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 3; k++) {
                CHECK_NEAR(mv[i * 3 + k], av[i * 3 + k] + 25, 1e-12);
                CHECK(nv[i * 3 + k] == av[i * 3 + k] + 10);
            }
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 4; j++) CHECK(qv[i * 4 + j] == av[i * 3 + 2] + bv[j]);
    }

    /* NaN propagates through max/min/amax/amin (torch semantics), not fmax's */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "2", "2");
    INPUT(&c, "w", "2", "2");
    node(&c, "max", "mx", 0, "x", "w");
    node(&c, "min", "mn", 0, "x", "w");
    node(&c, "amax", "ax", -1, "x", NULL);
    node(&c, "amin", "an", -1, "x", NULL);
    node(&c, "relu", "r", 0, "x", NULL);
    output(&c, "mx");
    output(&c, "mn");
    output(&c, "ax");
    output(&c, "an");
    output(&c, "r");
    {
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
        const double xv[4] = {NAN, 1, -3, 5}, wv[4] = {0, NAN, 2, 4};
        const double *ins[2] = {xv, wv};
        double mx[4], mn[4], ax[2], an[2], r[4];
        double *outs[5] = {mx, mn, ax, an, r};
        CHECK(fb_reference_eval(&c, s, ins, outs) == FB_OK);
        CHECK(isnan(mx[0]) && isnan(mx[1]) && mx[2] == 2 && mx[3] == 5);
        CHECK(isnan(mn[0]) && isnan(mn[1]) && mn[2] == -3 && mn[3] == 4);
        CHECK(isnan(ax[0]) && ax[1] == 5);
        CHECK(isnan(an[0]) && an[1] == -3);
        CHECK(isnan(r[0]) && r[1] == 1 && r[2] == 0 && r[3] == 5);
    }
    /* NaN that is not the first element of a reduction */
    {
        memset(&c, 0, sizeof c);
        INPUT(&c, "x", "1", "3");
        node(&c, "amax", "a", -1, "x", NULL);
        output(&c, "a");
        const double xv[3] = {1, NAN, 2};
        const double *ins[1] = {xv};
        double a = 0;
        CHECK(eval1(&c, &p, ins, &a) == FB_OK);
        CHECK(isnan(a));
    }

    /* every unary op at one point, and pow */
    {
        static const struct { const char *op; double x, want; } u[] = {
            {"neg", 2, -2}, {"abs", -3, 3}, {"exp", 1, 2.718281828459045}, {"log", 1, 0},
            {"cos", 0, 1}, {"sin", 0, 0}, {"tanh", 0, 0}, {"sqrt", 9, 3}, {"rsqrt", 4, 0.5},
            {"relu", -1, 0}, {"relu", 2.5, 2.5}, {"sigmoid", 0, 0.5},
            {"sigmoid", 2, 0.8807970779778823}, {"erf", 0.5, 0.5204998778130465},
            {"reciprocal", 4, 0.25}, {"square", -3, 9}, {"copy", -1.25, -1.25},
        };
        for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
            memset(&c, 0, sizeof c);
            INPUT(&c, "x", "1");
            node(&c, u[i].op, "y", 0, "x", NULL);
            output(&c, "y");
            const double *ins[1] = {&u[i].x};
            double yv = NAN;
            CHECK(eval1(&c, &p, ins, &yv) == FB_OK);
            if (fabs(yv - u[i].want) > 1e-15) fprintf(stderr, "unary %s\n", u[i].op);
            CHECK_NEAR(yv, u[i].want, 1e-15);
        }
        memset(&c, 0, sizeof c);
        INPUT(&c, "x", "3");
        node(&c, "pow", "y", 0, "x", "2");
        node(&c, "pow", "z", 0, "2", "y");
        output(&c, "z");
        const double xv[3] = {1, 2, 3};
        const double *ins[1] = {xv};
        double zv[3];
        CHECK(eval1(&c, &p, ins, zv) == FB_OK);
        CHECK(zv[0] == 2 && zv[1] == 16 && zv[2] == 512);
    }

    /* an output that later nodes also read, and an input named as an output */
    {
        make_softmax(&c, -1);
        c.n_outputs = 0;
        output(&c, "m");
        output(&c, "y");
        output(&c, "x");
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
        double m[2], yv[6], xo[6];
        double *outs[3] = {m, yv, xo};
        CHECK(fb_reference_eval(&c, s, in, outs) == FB_OK);
        CHECK(m[0] == 3 && m[1] == 1);
        CHECK_NEAR(yv[2], 0.6652409557748219, 1e-15);
        CHECK(memcmp(xo, x, sizeof x) == 0);
    }

    /* shapes that do not fit the program are refused, not read out of bounds */
    {
        make_softmax(&c, -1);
        fb_shape s[FB_MAX_VALUES];
        CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
        s[find_value(&c, "t")] = t_shape(2, 2, 4, 0, 0);
        double *outs[1] = {y};
        CHECK(fb_reference_eval(&c, s, in, outs) == FB_E_CASE);
    }
}

/* ---- row plan -------------------------------------------------------------------- */


static void fill(double *p, int64_t n, double seed)
{
    for (int64_t i = 0; i < n; i++) p[i] = sin(seed + 0.7 * (double)i) * 3.0;
}

static void test_rowplan(void)
{
    fb_case c;
    fb_shape s[FB_MAX_VALUES];
    fb_rowplan rp;

    make_softmax(&c, -1);
    fb_point p = point2(5, 7);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable);
    CHECK(rp.n_rows == 5);
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "x")]), "[1, 7]");
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "m")]), "[1, 1]");
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "y")]), "[1, 7]");
    for (int r = 0; r < 5; r++) {
        CHECK(fb_rowplan_offset(&rp, find_value(&c, "x"), r) == r * 7);
        CHECK(fb_rowplan_offset(&rp, find_value(&c, "m"), r) == r);
    }
    {
        double x[35], y[35];
        fill(x, 35, 1.0);
        const double *in[1] = {x};
        double *out[1] = {y};
        CHECK(fb_reference_eval(&c, s, in, out) == FB_OK);
        CHECK(fb_t_rows_match_full(&c, &rp, in, out) == 0);
    }

    /* a [1, W] bias and a [W] scale broadcast: their row is always row 0 */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "dim0", "dim1");
    INPUT(&c, "bias", "1", "dim1");
    INPUT(&c, "g", "dim1");
    node(&c, "add", "h", 0, "x", "bias");
    node(&c, "mean", "mu", -1, "h", NULL);
    node(&c, "sub", "d", 0, "h", "mu");
    node(&c, "square", "d2", 0, "d", NULL);
    node(&c, "mean", "var", -1, "d2", NULL);
    node(&c, "add", "ve", 0, "var", "1e-5");
    node(&c, "rsqrt", "rs", 0, "ve", NULL);
    node(&c, "mul", "n", 0, "d", "rs");
    node(&c, "mul", "y", 0, "n", "g");
    output(&c, "y");
    output(&c, "mu");
    p = point2(6, 10);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable);
    CHECK(rp.n_rows == 6);
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "g")]), "[10]");
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "bias")]), "[1, 10]");
    for (int r = 0; r < 6; r++) {
        CHECK(fb_rowplan_offset(&rp, find_value(&c, "bias"), r) == 0);
        CHECK(fb_rowplan_offset(&rp, find_value(&c, "g"), r) == 0);
        CHECK(fb_rowplan_offset(&rp, find_value(&c, "x"), r) == r * 10);
        CHECK(fb_rowplan_offset(&rp, find_value(&c, "mu"), r) == r);
    }
    {
        double x[60], b[10], g[10], y[60], mu[6];
        fill(x, 60, 0.3);
        fill(b, 10, 2.0);
        fill(g, 10, 5.0);
        const double *in[3] = {x, b, g};
        double *out[2] = {y, mu};
        CHECK(fb_reference_eval(&c, s, in, out) == FB_OK);
        CHECK(fb_t_rows_match_full(&c, &rp, in, out) == 0);
    }

    /* rank 3 with a [C, W] operand: rows run over [B, C], the operand repeats per B */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "2", "3", "4");
    INPUT(&c, "w", "3", "4");
    node(&c, "mul", "h", 0, "x", "w");
    node(&c, "amax", "m", -1, "h", NULL);
    node(&c, "sub", "y", 0, "h", "m");
    output(&c, "y");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_rows == 6);
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "w")]), "[1, 4]");
    for (int r = 0; r < 6; r++) {
        CHECK(fb_rowplan_offset(&rp, find_value(&c, "x"), r) == r * 4);
        CHECK(fb_rowplan_offset(&rp, find_value(&c, "w"), r) == (r % 3) * 4);
    }
    {
        double x[24], w[12], y[24];
        fill(x, 24, 0.1);
        fill(w, 12, 0.9);
        const double *in[2] = {x, w};
        double *out[1] = {y};
        CHECK(fb_reference_eval(&c, s, in, out) == FB_OK);
        CHECK(fb_t_rows_match_full(&c, &rp, in, out) == 0);
    }

    /* an [R, 1] operand broadcast along the last dim: one element per row */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "4", "5");
    INPUT(&c, "t", "4", "1");
    node(&c, "div", "y", 0, "x", "t");
    output(&c, "y");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_rows == 4);
    CHECK(fb_rowplan_offset(&rp, find_value(&c, "t"), 3) == 3);
    {
        double x[20], t[4], y[20];
        fill(x, 20, 0.2);
        fill(t, 4, 0.4);
        const double *in[2] = {x, t};
        double *out[1] = {y};
        CHECK(fb_reference_eval(&c, s, in, out) == FB_OK);
        CHECK(fb_t_rows_match_full(&c, &rp, in, out) == 0);
    }

    /* not separable: a reduction over dim 0, written as 0 or as -2 */
    make_softmax(&c, 0);
    p = point2(5, 7);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    rp.separable = true;
    rp.n_rows = 99;
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    CHECK(rp.n_rows == 0);
    CHECK_STR(rp.why, "program[0] (amax) combines values along dim 0 of output 'y', so its rows are not independent");
    make_softmax(&c, -2);
    fb_attrs_set_int(&c.nodes[0].attrs, "dim", -1); /* only the sum is over dim 0 */
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    CHECK_STR(rp.why, "program[3] (sum) combines values along dim 0 of output 'y', so its rows are not independent");

    /* a rank-0 value (two literals) is read whole by every row */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "4");
    node(&c, "add", "k", 0, "1", "2");
    node(&c, "mul", "y", 0, "x", "k");
    output(&c, "y");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_rows == 4);
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "k")]), "[]");
    {
        const double xv[4] = {1, 2, 3, 4};
        const double *in[1] = {xv};
        double yv[4];
        double *out[1] = {yv};
        CHECK(eval1(&c, &p, in, yv) == FB_OK);
        CHECK(yv[0] == 3 && yv[3] == 12);
        CHECK(fb_t_rows_match_full(&c, &rp, in, out) == 0);
    }

    /* the generalisation: a reduction over a middle dim leaves the leading dim to
     * split, [A, B, C] summed over B splits on A alone */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "3", "4", "5");
    node(&c, "sum", "s", 1, "x", NULL);
    node(&c, "div", "y", 0, "x", "s");
    output(&c, "y");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_rows == 3 && rp.n_split == 1);
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "x")]), "[1, 4, 5]");
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "s")]), "[1, 1, 5]");
    CHECK(fb_rowplan_offset(&rp, find_value(&c, "x"), 2) == 40);
    CHECK(fb_rowplan_offset(&rp, find_value(&c, "s"), 2) == 10);
    {
        double x[60], y[60];
        fill(x, 60, 0.5);
        const double *in[1] = {x};
        double *out[1] = {y};
        CHECK(fb_reference_eval(&c, s, in, out) == FB_OK);
        CHECK(fb_t_rows_match_full(&c, &rp, in, out) == 0);
    }

    /* keepdim false drops the reduced axis; the rows follow the leading dims */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "6", "5");
    node(&c, "amax", "m", -1, "x", NULL);
    fb_attrs_set_bool(&c.nodes[0].attrs, "keepdim", false);
    node(&c, "neg", "y", 0, "m", NULL);
    output(&c, "y");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK_STR(t_shape_str(&s[find_value(&c, "y")]), "[6]");
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_rows == 6);
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "x")]), "[1, 5]");
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "y")]), "[1]");
    {
        double x[30], y[6];
        fill(x, 30, 0.8);
        const double *in[1] = {x};
        double *out[1] = {y};
        CHECK(fb_reference_eval(&c, s, in, out) == FB_OK);
        CHECK(y[2] == -fmax(fmax(fmax(x[10], x[11]), fmax(x[12], x[13])), x[14]));
        CHECK(fb_t_rows_match_full(&c, &rp, in, out) == 0);
    }

    /* not separable: outputs[0]'s axis is not the leading axis of another value
     * (t = u + x is [5, 3]: x's axis comes second), so no row is a contiguous slice */
    memset(&c, 0, sizeof c);
    INPUT(&c, "u", "5", "1");
    INPUT(&c, "x", "3");
    node(&c, "mul", "o", 0, "x", "2");
    node(&c, "add", "t", 0, "u", "x");
    output(&c, "o");
    output(&c, "t");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    /* outputs[0] gives no rows; 't' does (o = x * 2 is the same in every row) */
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_rows == 5 && !rp.accumulates);
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "o")]), "[3]");
    {
        double u[5], x[3], o[3], t[15];
        fill(u, 5, 0.6);
        fill(x, 3, 1.6);
        const double *in[2] = {u, x};
        double *out[2] = {o, t};
        CHECK(fb_reference_eval(&c, s, in, out) == FB_OK);
        CHECK(fb_t_rows_match_full(&c, &rp, in, out) == 0);
    }
    /* ... unless 't''s rows are combined too: then no anchor splits, and the
     * reason is outputs[0]'s */
    node(&c, "amax", "m", 0, "t", NULL);
    output(&c, "m");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    CHECK_STR(rp.why, "'t' does not lead with dim 0 of output 'o', so a row of it is not one contiguous slice");

    /* not separable: a size-1 leading dim leaves nothing to sample */
    make_softmax(&c, -1);
    p = point2(1, 7);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    CHECK_STR(rp.why, "output 'y' has size 1 along dim 0, so it has no rows to sample");
}

/* Every row alone, as fb_t_rows_match_full, but the partial outputs (sums over rows)
 * are added up over all rows before they are compared with the whole evaluation
 * (within rounding: the order of the sum differs). Returns mismatches. */
static int rows_sum_match_full(const fb_case *c, const fb_shape *s, const fb_rowplan *rp,
                               const double *const *in, double *const *full)
{
    int bad = 0;
    double *sum[FB_MAX_VALUES] = {0};
    for (int o = 0; o < c->n_outputs; o++)
        if (rp->partial[c->outputs[o]]) sum[o] = calloc((size_t)fb_shape_numel(&s[c->outputs[o]]), sizeof(double));
    for (int64_t r = 0; r < rp->n_rows; r++) {
        const double *rin[FB_MAX_VALUES];
        double *rout[FB_MAX_VALUES];
        int64_t base[FB_MAX_VALUES];
        for (int v = 0; v < c->n_values; v++) base[v] = fb_rowplan_offset(rp, v, r);
        for (int v = 0; v < c->n_inputs; v++) rin[v] = in[v] + base[v];
        for (int o = 0; o < c->n_outputs; o++)
            rout[o] = malloc(sizeof(double) * (size_t)fb_shape_numel(&rp->row_shape[c->outputs[o]]));
        if (fb_reference_eval_at(c, rp->row_shape, base, rin, rout, NULL) != FB_OK) bad++;
        for (int o = 0; o < c->n_outputs; o++) {
            int v = c->outputs[o];
            for (int64_t e = 0; e < fb_shape_numel(&rp->row_shape[v]); e++) {
                if (sum[o]) sum[o][base[v] + e] += rout[o][e];
                else bad += rout[o][e] != full[o][base[v] + e];
            }
            free(rout[o]);
        }
    }
    for (int o = 0; o < c->n_outputs; o++) {
        if (!sum[o]) continue;
        for (int64_t e = 0; e < fb_shape_numel(&s[c->outputs[o]]); e++)
            bad += !(fabs(sum[o][e] - full[o][e]) <= 1e-12 * (1 + fabs(full[o][e])));
        free(sum[o]);
    }
    return bad;
}

static void eval_rows_sum(const fb_case *c, const fb_point *p, int64_t rows, int64_t n_in_elems[], int n_split)
{
    fb_shape s[FB_MAX_VALUES];
    fb_rowplan rp;
    CHECK(fb_program_shapes(c, p, s) == FB_OK);
    CHECK(fb_program_rowplan(c, s, &rp) == FB_OK);
    if (!rp.separable) fprintf(stderr, "%s: not separable: %s\n", c->name, rp.why);
    CHECK(rp.separable && rp.accumulates && rp.n_rows == rows && rp.n_split == n_split && rp.boxes);
    double *in[FB_MAX_VALUES] = {0}, *out[FB_MAX_VALUES] = {0};
    for (int v = 0; v < c->n_inputs; v++) {
        CHECK(fb_shape_numel(&s[v]) == n_in_elems[v]);
        in[v] = malloc(sizeof(double) * (size_t)n_in_elems[v]);
        fill(in[v], n_in_elems[v], 0.37 * (v + 1));
    }
    for (int o = 0; o < c->n_outputs; o++) out[o] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[c->outputs[o]]));
    CHECK(fb_reference_eval(c, s, (const double *const *)in, out) == FB_OK);
    CHECK(rows_sum_match_full(c, s, &rp, (const double *const *)in, out) == 0);
    for (int v = 0; v < FB_MAX_VALUES; v++) {
        free(in[v]);
        free(out[v]);
    }
}

/* Sums over the rows: a plain sum along a split axis whose result reaches the
 * outputs only through further plain sums is accumulated (every row evaluated,
 * the parts added); anything else that combines along the rows is not split. */
static void test_rowplan_sums(void)
{
    fb_case c;
    fb_shape s[FB_MAX_VALUES];
    fb_rowplan rp;
    fb_point p = point2(6, 5);

    /* a column sum alone: outputs[0] ([5]) gives no rows, its input x does */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "dim0", "dim1");
    node(&c, "sum", "cs", 0, "x", NULL);
    fb_attrs_set_bool(&c.nodes[0].attrs, "keepdim", false);
    output(&c, "cs");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.accumulates && rp.n_rows == 6 && rp.partial[find_value(&c, "cs")]);
    CHECK(!rp.partial[find_value(&c, "x")]);
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "x")]), "[1, 5]");
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "cs")]), "[5]");
    eval_rows_sum(&c, &p, 6, (int64_t[]){30}, 1);
    /* ... and summed again over its last dim, into a scalar: still plain sums */
    node(&c, "sum", "total", 0, "cs", NULL);
    fb_attrs_set_bool(&c.nodes[1].attrs, "keepdim", false);
    c.outputs[0] = find_value(&c, "total");
    eval_rows_sum(&c, &p, 6, (int64_t[]){30}, 1);

    /* rmsnorm_backward's shape of it: y = 2x [A, T, N] splits on A and T; t =
     * sum over A ([T, N]) still carries T, u = sum of t over T ([N]) carries none */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "2", "dim0", "dim1");
    node(&c, "mul", "y", 0, "x", "2");
    node(&c, "sum", "t", 0, "x", NULL);
    node(&c, "sum", "u", 0, "t", NULL);
    fb_attrs_set_bool(&c.nodes[1].attrs, "keepdim", false);
    fb_attrs_set_bool(&c.nodes[2].attrs, "keepdim", false);
    output(&c, "y");
    output(&c, "t");
    output(&c, "u");
    p = point2(3, 4);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_split == 2 && rp.n_rows == 6);
    CHECK(!rp.partial[find_value(&c, "y")] && rp.partial[find_value(&c, "t")] && rp.partial[find_value(&c, "u")]);
    CHECK_STR(t_shape_str(&rp.row_shape[find_value(&c, "t")]), "[1, 4]");
    CHECK(fb_rowplan_offset(&rp, find_value(&c, "t"), 5) == 2 * 4); /* row (1, 2) */
    CHECK(fb_rowplan_offset(&rp, find_value(&c, "u"), 5) == 0);
    CHECK(rp.split_dim[find_value(&c, "t")][0] == 1 && rp.split_dim[find_value(&c, "t")][1] == -1);
    eval_rows_sum(&c, &p, 6, (int64_t[]){24}, 2);

    /* not split: amax over dim 0 into an output */
    p = point2(6, 5);
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "dim0", "dim1");
    node(&c, "amax", "m", 0, "x", NULL);
    fb_attrs_set_bool(&c.nodes[0].attrs, "keepdim", false);
    output(&c, "m");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable && !rp.accumulates);
    CHECK_STR(rp.why, "'x' does not lead with dim 0 of output 'm', so a row of it is not one contiguous slice");
    /* ... beside a row output, the reason names the amax */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "dim0", "dim1");
    node(&c, "neg", "y", 0, "x", NULL);
    node(&c, "amax", "m", 0, "x", NULL);
    output(&c, "y");
    output(&c, "m");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    CHECK_STR(rp.why, "program[1] (amax) combines values along dim 0 of output 'y', so its rows are not independent");

    /* not split: a mean over the rows (it divides: not a plain sum) */
    CHECK(fb_op_lookup("mean", &c.nodes[1].kind, &c.nodes[1].op) == 0);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    CHECK_STR(rp.why, "program[1] (mean) combines values along dim 0 of output 'y', so its rows are not independent");

    /* not split: a sum over dim 0 feeding a mul */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "dim0", "dim1");
    node(&c, "sum", "s", 0, "x", NULL);
    node(&c, "mul", "y", 0, "x", "s");
    output(&c, "y");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    CHECK_STR(rp.why, "program[0] (sum) combines values along dim 0 of output 'y', so its rows are not independent");
    /* ... also when the sum is an output itself, and through another sum first */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "dim0", "dim1");
    node(&c, "sum", "s", 0, "x", NULL);
    node(&c, "sum", "s2", -1, "s", NULL);
    node(&c, "mul", "y", 0, "s2", "3");
    output(&c, "s");
    output(&c, "y");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    /* outputs[0] is s ([1, 5]): its dim 0 has size 1; the reason is that */
    CHECK_STR(rp.why, "output 's' has size 1 along dim 0, so it has no rows to sample");
    /* not split: a partial value added to itself (two operands: not a plain sum) */
    memset(&c, 0, sizeof c);
    INPUT(&c, "x", "dim0", "dim1");
    node(&c, "neg", "y", 0, "x", NULL);
    node(&c, "sum", "s", 0, "x", NULL);
    node(&c, "add", "d", 0, "s", "s");
    output(&c, "y");
    output(&c, "d");
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(!rp.separable);
    CHECK_STR(rp.why, "program[1] (sum) combines values along dim 0 of output 'y', so its rows are not independent");
    /* a sum along the kept last dim is an ordinary row reduction: nothing partial */
    c.nodes[1].attrs = (fb_attrs){0};
    fb_attrs_set_int(&c.nodes[1].attrs, "dim", -1);
    fb_attrs_set_bool(&c.nodes[1].attrs, "keepdim", true);
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && !rp.accumulates && rp.n_rows == 6);
}

int main(void)
{
    test_ops();
    test_broadcast();
    test_shapes();
    test_costs();
    test_reference();
    test_rowplan();
    test_rowplan_sums();
    return fb_t_report("test_program");
}
