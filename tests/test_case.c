/* test_case.c — the case-file loader: the bundled softmax case read field by field,
 * then one inline document per rule, each asserting the exact one-line message.
 *
 * Inline documents are written with single quotes (JSON wants double) and turned
 * into JSON by doc(); most are the BASE case with one substring edited, so each
 * test reads as "this edit produces that message". Runs from tests/. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case.h"
#include "ops/op_table.h"
#include "testing.h"

static fb_case g_c; /* large: keep it off the stack */

/* A valid small case: softmax over a 2 x 2 grid. */
static const char BASE[] =
    "{'name': 'sm', 'summary': 'softmax',\n"
    " 'inputs': {'x': {'shape': ['dim0', 'dim1']}},\n"
    " 'program': [\n"
    "  {'op': 'amax', 'in': ['x'], 'dim': -1, 'out': 'm'},\n"
    "  {'op': 'sub', 'in': ['x', 'm'], 'out': 't'},\n"
    "  {'op': 'exp', 'in': ['t'], 'out': 'e'},\n"
    "  {'op': 'sum', 'in': ['e'], 'dim': -1, 'out': 's'},\n"
    "  {'op': 'div', 'in': ['e', 's'], 'out': 'y'}],\n"
    " 'outputs': ['y'], 'fused': ['softmax.fused'], 'dtypes': ['float32', 'float16'],\n"
    " 'grid': {'dim0': [4, 8], 'dim1': [16, 32]}}";

/* Single quotes -> double quotes, into a static buffer. */
static const char *doc(const char *text)
{
    static char buf[8192];
    size_t n = strlen(text);
    if (n >= sizeof buf) n = sizeof buf - 1;
    for (size_t i = 0; i < n; i++) buf[i] = text[i] == '\'' ? '"' : text[i];
    buf[n] = 0;
    return buf;
}

/* BASE with the first occurrence of `from` replaced by `to` (aborts if absent:
 * a typo in a test must not turn into a passing check of the wrong thing). */
static const char *edit(const char *from, const char *to)
{
    static char buf[8192];
    const char *p = strstr(BASE, from);
    if (!p) {
        fprintf(stderr, "test_case: edit(): '%s' is not in BASE\n", from);
        exit(2);
    }
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - BASE), BASE, to, p + strlen(from));
    return doc(buf);
}

#define EXPECT_OK(text)                                                      \
    do {                                                                     \
        fb_status s_ = fb_case_parse((text), "t.json", &g_c);                \
        CHECK(s_ == FB_OK);                                                  \
        if (s_ != FB_OK) fprintf(stderr, "  error: %s\n", fb_last_error()); \
    } while (0)

/* The exact message, after "t.json: " */
#define EXPECT_ERR(text, msg)                                                \
    do {                                                                     \
        fb_clear_error();                                                    \
        CHECK(fb_case_parse((text), "t.json", &g_c) == FB_E_CASE);           \
        CHECK_STR(fb_last_error(), "t.json" msg);                            \
    } while (0)

static void test_softmax_file(void)
{
    fb_case *c = &g_c;
    CHECK(fb_case_load("../cases/softmax.json", c) == FB_OK);
    CHECK_STR(c->name, "softmax");
    CHECK(strncmp(c->summary, "softmax over the last dim", 25) == 0);
    CHECK_STR(c->path, "../cases/softmax.json");

    CHECK(c->n_syms == 2);
    CHECK_STR(c->sym[0], "dim0");
    CHECK_STR(c->sym[1], "dim1");

    CHECK(c->n_inputs == 1);
    CHECK(c->n_values == 6);
    CHECK_STR(c->values[0].name, "x");
    CHECK(c->values[0].is_input);
    CHECK(c->values[0].producer == -1);
    CHECK(c->values[0].init == FB_INIT_NORMAL);
    CHECK(c->values[0].shape.rank == 2);
    CHECK(c->values[0].shape.dim[0].sym == 0 && c->values[0].shape.dim[1].sym == 1);
    static const char *const names[] = {"x", "m", "t", "e", "s", "y"};
    for (int v = 1; v < 6; v++) {
        CHECK_STR(c->values[v].name, names[v]);
        CHECK(!c->values[v].is_input);
        CHECK(c->values[v].producer == v - 1); /* node outputs follow the inputs, in program order */
    }

    CHECK(c->n_nodes == 5);
    static const char *const ops[] = {"amax", "sub", "exp", "sum", "div"};
    static const char *const kinds[] = {"reduce", "binary", "unary", "reduce", "binary"};
    for (int n = 0; n < 5; n++) {
        CHECK_STR(fb_node_op_name(&c->nodes[n]), ops[n]);
        CHECK(fb_node_kind(&c->nodes[n]) && !strcmp(fb_node_kind(&c->nodes[n])->name, kinds[n]));
        CHECK(c->nodes[n].out == n + 1);
    }
    CHECK(c->nodes[0].n_in == 1 && !c->nodes[0].in[0].literal && c->nodes[0].in[0].value == 0);
    /* attributes in the bag: dim as written, keepdim's default */
    CHECK(fb_attr_int(&c->nodes[0].attrs, "dim", 99) == -1 && fb_attr_int(&c->nodes[3].attrs, "dim", 99) == -1);
    CHECK(fb_attr_bool(&c->nodes[0].attrs, "keepdim", false) && fb_attr_bool(&c->nodes[3].attrs, "keepdim", false));
    CHECK(c->nodes[1].attrs.n == 0 && c->nodes[2].attrs.n == 0);
    CHECK(c->nodes[1].n_in == 2 && c->nodes[1].in[0].value == 0 && c->nodes[1].in[1].value == 1);
    CHECK(c->nodes[4].in[0].value == 3 && c->nodes[4].in[1].value == 4);

    CHECK(c->n_outputs == 1 && c->outputs[0] == 5);
    CHECK(c->n_fused == 1);
    CHECK_STR(c->fused[0], "softmax.fused");
    CHECK(c->n_dtypes == 3);
    CHECK(c->dtypes[0] == FB_F32 && c->dtypes[1] == FB_F16 && c->dtypes[2] == FB_BF16);

    CHECK(c->n_axes == 2);
    CHECK(c->axis[0].sym == 0 && c->axis[1].sym == 1);
    CHECK(c->axis[0].n == 10 && c->axis[1].n == 10);
    CHECK(c->axis[0].v[0] == 128 && c->axis[0].v[9] == 65536 && c->axis[1].v[3] == 1024);

    CHECK(c->tol[FB_F32].set && c->tol[FB_F32].atol == 1e-6 && c->tol[FB_F32].rtol == 1e-5);
    CHECK(c->tol[FB_F16].set && c->tol[FB_F16].atol == 1e-5 && c->tol[FB_F16].rtol == 1e-2);
    CHECK(c->tol[FB_BF16].set && c->tol[FB_BF16].atol == 1e-5 && c->tol[FB_BF16].rtol == 5e-2);
    /* not listed, not in the file: the default is still there, marked as such */
    CHECK(!c->tol[FB_F64].set && c->tol[FB_F64].atol == 1e-12 && c->tol[FB_F64].rtol == 1e-10);
}

static void test_valid_variants(void)
{
    fb_case *c = &g_c;
    EXPECT_OK(doc(BASE));
    CHECK(c->n_axes == 2 && c->axis[0].n == 2 && c->axis[1].v[1] == 32);
    CHECK(!c->tol[FB_F16].set && c->tol[FB_F16].atol == 1e-3 && c->tol[FB_F16].rtol == 1e-2);
    CHECK(c->tol[FB_BF16].atol == 1e-2 && c->tol[FB_BF16].rtol == 5e-2);
    CHECK(c->tol[FB_F32].atol == 1e-6 && c->tol[FB_F32].rtol == 1e-5);

    /* dtype aliases are stored canonically */
    EXPECT_OK(edit("['float32', 'float16']", "['fp32', 'bf16', 'half']"));
    CHECK(c->n_dtypes == 3 && c->dtypes[0] == FB_F32 && c->dtypes[1] == FB_BF16 && c->dtypes[2] == FB_F16);

    /* fused is optional; a partial tolerance table overrides only its dtype */
    EXPECT_OK(edit("'fused': ['softmax.fused'], ", "'tolerance': {'fp16': {'atol': 0, 'rtol': 0.5}}, "));
    CHECK(c->n_fused == 0);
    CHECK(c->tol[FB_F16].set && c->tol[FB_F16].atol == 0 && c->tol[FB_F16].rtol == 0.5);
    CHECK(!c->tol[FB_F32].set && c->tol[FB_F32].atol == 1e-6);

    /* literal operands, literal dims, init, one grid axis */
    EXPECT_OK(doc("{'name': 'scale-1.0', 'summary': 's', 'inputs': {'a': {'shape': ['n', 3], 'init': 'positive'},"
                  " 'b_2': {'shape': [3], 'init': 'uniform'}},"
                  " 'program': [{'op': 'mul', 'in': [2.5, 'a'], 'out': 'p'},"
                  "             {'op': 'add', 'in': ['p', 'b_2'], 'out': 'q'},"
                  "             {'op': 'pow', 'in': ['q', 2], 'out': 'r'}],"
                  " 'outputs': ['r', 'p'], 'dtypes': ['float64'], 'grid': {'n': [1, 7, 1000]}}"));
    CHECK(c->n_axes == 1 && c->axis[0].n == 3 && c->axis[0].v[2] == 1000);
    CHECK(c->n_inputs == 2 && c->values[0].init == FB_INIT_POSITIVE && c->values[1].init == FB_INIT_UNIFORM);
    CHECK(c->values[0].shape.dim[1].sym == -1 && c->values[0].shape.dim[1].size == 3);
    CHECK(c->nodes[0].in[0].literal && c->nodes[0].in[0].number == 2.5 && !c->nodes[0].in[1].literal);
    CHECK(c->nodes[2].in[1].literal && c->nodes[2].in[1].number == 2.0);
    CHECK(c->n_outputs == 2 && c->outputs[0] == 4 && c->outputs[1] == 2);
}

static void test_syntax(void)
{
    EXPECT_ERR(doc("{'name': 'a',\n 'summary': 'b',,\n}"), ":2:17: string or '}' expected near ','");
    EXPECT_ERR(doc("{'name': 'a', 'name': 'b'}"), ":1:15: duplicate key 'name'");
    EXPECT_ERR(doc("{'inputs': {'x': {'shape': [1], 'shape': [2]}}}"), ":1:33: duplicate key 'shape'");
    EXPECT_ERR(doc("{'name': 'a'"), ":1:13: unexpected end of file ('}' expected)");
    EXPECT_ERR(doc(" \n\t "), ":1:1: empty file; a case file is a JSON object");
    EXPECT_ERR(doc("{'a': nan}"), ":1:7: invalid token near 'nan'");
    EXPECT_ERR(doc("{} x"), ":1:4: end of file expected near 'x'");
    EXPECT_ERR(doc("[1, 2]"), ": top level must be a JSON object, got an array");
    EXPECT_ERR(doc("42"), ": top level must be a JSON object, got 42");
}

static void test_keys_and_types(void)
{
    EXPECT_ERR(edit("'summary'", "'summery'"), ": unknown key 'summery' (did you mean 'summary'?)");
    EXPECT_ERR(edit("'summary': 'softmax',", "'summary': 'softmax', 'flavour': 1,"),
               ": unknown key 'flavour' (expected name, summary, inputs, program, outputs, fused, dtypes, grid, fixed, "
               "tolerance or paired)");
    EXPECT_ERR(edit("'shape'", "'shpe'"), ": inputs.x: unknown key 'shpe' (did you mean 'shape'?)");
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': -1, 'axis': 1, 'out': 'm'"),
               ": program[0]: unknown key 'axis' (expected op, in, out, dim or keepdim)");
    EXPECT_ERR(edit("'name': 'sm', ", ""), ": missing key 'name'");
    EXPECT_ERR(edit(",\n 'grid': {'dim0': [4, 8], 'dim1': [16, 32]}", ""), ": missing key 'grid'");
    EXPECT_ERR(edit("'op': 'exp', ", ""), ": program[2]: missing key 'op'");
    EXPECT_ERR(edit("'in': ['t'], ", ""), ": program[2]: missing key 'in'");
    EXPECT_ERR(edit(", 'out': 'e'", ""), ": program[2]: missing key 'out'");
    EXPECT_ERR(edit("{'shape': ['dim0', 'dim1']}", "{'init': 'normal'}"), ": inputs.x: missing key 'shape'");
    EXPECT_ERR(edit("'sm'", "3"), ": name: expected a string, got 3");
    EXPECT_ERR(edit("'softmax'", "''"), ": summary: must not be empty");
    EXPECT_ERR(edit("'softmax'", "'two\\nlines'"), ": summary: must be a single line");
    EXPECT_ERR(edit("'sm'", "'Soft Max'"), ": name: 'Soft Max' may hold only a-z, 0-9, '_', '.' and '-'");
    EXPECT_ERR(edit("'outputs': ['y']", "'outputs': 'y'"), ": outputs: expected an array, got the string 'y'");
    EXPECT_ERR(edit("'outputs': ['y']", "'outputs': []"), ": outputs: must not be empty");
    EXPECT_ERR(edit("'program': [", "'program': [7, "), ": program[0]: expected an object like {\"op\": ..., \"in\": "
                                                         "[...], \"out\": ...}, got 7");
    EXPECT_ERR(edit("'dtypes': ['float32', 'float16']", "'dtypes': null"), ": dtypes: expected an array, got null");
    EXPECT_ERR(edit("'fused': ['softmax.fused']", "'fused': {}"),
               ": fused: expected an array of variant names, got an object");
}

static void test_inputs(void)
{
    EXPECT_ERR(edit("'inputs': {'x': {'shape': ['dim0', 'dim1']}}", "'inputs': {}"), ": inputs: must not be empty");
    EXPECT_ERR(edit("'inputs': {'x': {'shape': ['dim0', 'dim1']}}", "'inputs': []"),
               ": inputs: expected an object of named inputs, got an array");
    EXPECT_ERR(edit("{'x': {", "{'1x': {"),
               ": inputs: '1x' is not a valid value name (letters, digits and '_', not starting with a digit)");
    EXPECT_ERR(edit("{'shape': ['dim0', 'dim1']}", "['dim0']"),
               ": inputs.x: expected an object like {\"shape\": [...]}, got an array");
    EXPECT_ERR(edit("['dim0', 'dim1']", "[]"), ": inputs.x.shape: rank 0; a shape has 1 to 4 dims");
    EXPECT_ERR(edit("['dim0', 'dim1']", "['dim0', 1, 1, 1, 'dim1']"), ": inputs.x.shape: rank 5; a shape has 1 to 4 dims");
    EXPECT_ERR(edit("['dim0', 'dim1']", "['dim0', 0]"),
               ": inputs.x.shape[1]: expected a positive integer or a symbol name, got 0");
    EXPECT_ERR(edit("['dim0', 'dim1']", "['dim0', 2.5]"),
               ": inputs.x.shape[1]: expected a positive integer or a symbol name, got the real number 2.5");
    EXPECT_ERR(edit("['dim0', 'dim1']", "['dim0', 4.0]"),
               ": inputs.x.shape[1]: expected a positive integer or a symbol name, got the real number 4.0 (write 4, "
               "without a point or exponent)");
    EXPECT_ERR(edit("['dim0', 'dim1']", "['dim0', 'dim 1']"),
               ": inputs.x.shape[1]: 'dim 1' is not a valid symbol name (letters, digits and '_', not starting with a "
               "digit)");
    EXPECT_ERR(edit("['dim0', 'dim1']}", "['dim0', 'dim1'], 'init': 'gauss'}"),
               ": inputs.x.init: unknown init 'gauss' (expected normal, uniform, positive or row_simplex)");
    EXPECT_ERR(edit("['dim0', 'dim1']}", "['dim0', 'dim1'], 'init': 'unifrm'}"),
               ": inputs.x.init: unknown init 'unifrm' (did you mean 'uniform'?)");
    EXPECT_ERR(edit("['dim0', 'dim1']}}", "['dim0', 'dim1']}, 'w': {'shape': ['dim1']}}"),
               ": inputs.w: never used by the program");
}

static void test_program(void)
{
    EXPECT_ERR(edit("'exp'", "'exx'"), ": program[2].op: unknown op 'exx' (did you mean 'exp'?)");
    EXPECT_ERR(edit("'exp'", "'softplus'"), ": program[2].op: unknown op 'softplus'");
    EXPECT_ERR(edit("'exp'", "5"), ": program[2].op: expected an op name, got 5");
    EXPECT_ERR(edit("['x', 'm']", "['x']"), ": program[1].in: 'sub' takes 2 operands, got 1");
    EXPECT_ERR(edit("['t']", "['t', 't']"), ": program[2].in: 'exp' takes 1 operand, got 2");
    EXPECT_ERR(edit("['t']", "'t'"), ": program[2].in: expected an array of operands, got the string 't'");
    EXPECT_ERR(edit("['x', 'm']", "['x', 's']"), ": program[1].in[1]: 's' is used before it is defined (by program[3])");
    EXPECT_ERR(edit("['x', 'm']", "['x', 't']"), ": program[1].in[1]: 't' is this op's own output");
    EXPECT_ERR(edit("['t']", "['tt']"), ": program[2].in[0]: unknown value 'tt' (did you mean 't'?)");
    EXPECT_ERR(edit("['x', 'm']", "['x', 'dim1']"), ": program[1].in[1]: 'dim1' is a shape symbol, not a value");
    EXPECT_ERR(edit("['x', 'm']", "['x', true]"), ": program[1].in[1]: expected a value name or a number, got true");
    EXPECT_ERR(edit("['t']", "[1.5]"), ": program[2].in[0]: 'exp' takes a value, not a literal");
    EXPECT_ERR(edit("'in': ['x'], 'dim'", "'in': [0], 'dim'"), ": program[0].in[0]: 'amax' takes a value, not a literal");
    EXPECT_ERR(edit("['x', 'm']", "[1, 2]"), ": program[1].in: 'sub' needs at least one value operand, not only literals");
    EXPECT_ERR(edit("'in': ['e'], 'dim': -1,", "'in': ['e'],"), ": program[3]: missing key 'dim' ('sum' reduces over one dim)");
    EXPECT_ERR(edit("'in': ['x', 'm'],", "'in': ['x', 'm'], 'dim': 1,"),
               ": program[1].dim: 'sub' takes no dim (only reduce ops do)");
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': 1.0, 'out': 'm'"),
               ": program[0].dim: expected an integer dim, got the real number 1.0 (write 1, without a point or exponent)");
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': -1e0, 'out': 'm'"),
               ": program[0].dim: expected an integer dim, got the real number -1.0 (write -1, without a point or "
               "exponent)");
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': 0.5, 'out': 'm'"),
               ": program[0].dim: expected an integer dim, got the real number 0.5");
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': 9, 'out': 'm'"),
               ": program[0].dim: dim 9 is out of range (tensors have rank at most 4)");
    EXPECT_ERR(edit("'out': 'e'", "'out': 'x'"), ": program[2].out: 'x' is already defined (an input)");
    EXPECT_ERR(edit("'out': 'e'", "'out': 'm'"), ": program[2].out: 'm' is already defined (by program[0])");
    EXPECT_ERR(edit("'out': 'e'", "'out': 'e-1'"),
               ": program[2].out: 'e-1' is not a valid value name (letters, digits and '_', not starting with a digit)");
    EXPECT_ERR(edit("'in': ['e', 's'], 'out': 'y'}]", "'in': ['e', 's'], 'out': 'y'}, {'op': 'neg', 'in': ['e'], 'out': 'n'}]"),
               ": program[5].out: 'n' is never used (not an operand of a later op, not an output)");
    EXPECT_ERR(edit("'program': [", "'program': [] ,'x': ["), ": unknown key 'x' (expected name, summary, inputs, "
                                                              "program, outputs, fused, dtypes, grid, fixed, tolerance or paired)");
    EXPECT_ERR(doc("{'name': 'a', 'summary': 'b', 'inputs': {'x': {'shape': [1]}}, 'program': [], 'outputs': ['x'],"
                   " 'dtypes': ['float32'], 'grid': {}}"),
               ": program: must not be empty");
}

/* Attributes of the new kinds: keepdim on reductions, p and seed on dropout, in
 * the node's bag; the messages the kinds' parse functions give. */
static void test_op_attributes(void)
{
    EXPECT_OK(edit("'dim': -1, 'out': 'm'", "'dim': -1, 'keepdim': true, 'out': 'm'"));
    CHECK(fb_attr_bool(&g_c.nodes[0].attrs, "keepdim", false));
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': -1, 'keepdim': 1, 'out': 'm'"),
               ": program[0].keepdim: expected true or false, got 1");
    /* keepdim false: m is [dim0], and x - m broadcasts it along the wrong axis */
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': -1, 'keepdim': false, 'out': 'm'"),
               ": program[1].in: shapes [4, 16] and [4] do not broadcast (at dim0=4, dim1=16)");

    /* gelu is unary; dropout takes p in [0, 1) and an integer seed >= 0 */
    static const char GELU[] =
        "{'name': 'g', 'summary': 'gelu and dropout',\n"
        " 'inputs': {'x': {'shape': ['n'], 'init': 'row_simplex'}},\n"
        " 'program': [{'op': 'gelu', 'in': ['x'], 'out': 'g'},\n"
        "             {'op': 'dropout', 'in': ['g'], 'p': 0.25, 'seed': 7, 'out': 'y'}],\n"
        " 'outputs': ['y'], 'dtypes': ['float32'], 'grid': {'n': [8]}}";
    char buf[1024];
    EXPECT_OK(doc(GELU));
    CHECK(g_c.values[0].init == FB_INIT_ROW_SIMPLEX);
    CHECK_STR(fb_node_op_name(&g_c.nodes[0]), "gelu");
    CHECK_STR(fb_node_kind(&g_c.nodes[1])->name, "random");
    CHECK(fb_attr_real(&g_c.nodes[1].attrs, "p", -1) == 0.25);
    CHECK(fb_attr_int(&g_c.nodes[1].attrs, "seed", -1) == 7);
#define GELU_EDIT(from, to)                                                         \
    do {                                                                           \
        const char *p_ = strstr(GELU, from);                                       \
        CHECK(p_ != NULL);                                                         \
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p_ - GELU), GELU, to, p_ + strlen(from)); \
    } while (0)
    GELU_EDIT("'p': 0.25, ", "");
    EXPECT_ERR(doc(buf), ": program[1]: missing key 'p' (the probability that dropout zeroes an element)");
    GELU_EDIT("'p': 0.25", "'p': 1");
    EXPECT_ERR(doc(buf), ": program[1].p: p 1 is not in [0, 1)");
    GELU_EDIT("'p': 0.25", "'p': -0.5");
    EXPECT_ERR(doc(buf), ": program[1].p: p -0.5 is not in [0, 1)");
    GELU_EDIT("'p': 0.25", "'p': 'half'");
    EXPECT_ERR(doc(buf), ": program[1].p: expected a number for p, got the string 'half'");
    GELU_EDIT("'seed': 7, ", "");
    EXPECT_ERR(doc(buf), ": program[1]: missing key 'seed' (an integer >= 0 that fixes the keep-mask)");
    GELU_EDIT("'seed': 7", "'seed': 7.5");
    EXPECT_ERR(doc(buf), ": program[1].seed: expected an integer seed, got the real number 7.5");
    GELU_EDIT("'seed': 7", "'seed': -1");
    EXPECT_ERR(doc(buf), ": program[1].seed: seed -1 is negative; use an integer >= 0");
    GELU_EDIT("'seed': 7", "'seed': 7, 'dim': 0");
    EXPECT_ERR(doc(buf), ": program[1].dim: 'dropout' takes no dim (only reduce ops do)");
    GELU_EDIT("'in': ['x'], 'out': 'g'", "'in': ['x'], 'p': 0.5, 'out': 'g'");
    EXPECT_ERR(doc(buf), ": program[0].p: 'gelu' takes no p (only random ops do)");
    GELU_EDIT("'in': ['g'],", "'in': [0.5],");
    EXPECT_ERR(doc(buf), ": program[1].in[0]: 'dropout' takes a value, not a literal");
    GELU_EDIT("'gelu'", "'gelu_'");
    EXPECT_ERR(doc(buf), ": program[0].op: unknown op 'gelu_' (did you mean 'gelu'?)");
#undef GELU_EDIT
}

static void test_outputs(void)
{
    EXPECT_ERR(edit("'outputs': ['y']", "'outputs': ['Y']"), ": outputs[0]: 'Y' is not produced by the program (did you mean 'y'?)");
    EXPECT_ERR(edit("'outputs': ['y']", "'outputs': ['y', 'x']"), ": outputs[1]: 'x' is an input, not computed by the program");
    EXPECT_ERR(edit("'outputs': ['y']", "'outputs': ['y', 'y']"), ": outputs[1]: 'y' is listed twice (also outputs[0])");
    EXPECT_ERR(edit("'outputs': ['y']", "'outputs': [1]"), ": outputs[0]: expected a value name, got 1");
}

static void test_dtypes_and_fused(void)
{
    EXPECT_ERR(edit("'float16'", "'flaot16'"), ": dtypes[1]: unknown dtype 'flaot16' (did you mean 'float16'?)");
    EXPECT_ERR(edit("'float16'", "'int8'"), ": dtypes[1]: unknown dtype 'int8' (expected float32, float16, bfloat16 or float64)");
    EXPECT_ERR(edit("'float16'", "'fp32'"), ": dtypes[1]: 'fp32' repeats float32 (dtypes[0])");
    EXPECT_ERR(edit("['float32', 'float16']", "[]"), ": dtypes: must not be empty");
    EXPECT_ERR(edit("'softmax.fused'", "'softmax.fsed'"), ": fused[0]: unknown variant 'softmax.fsed' (did you mean 'softmax.fused'?)");
    EXPECT_ERR(edit("'softmax.fused'", "'nothing.like.it'"), ": fused[0]: unknown variant 'nothing.like.it'");
    EXPECT_ERR(edit("'softmax.fused'", "'eager'"), ": fused[0]: 'eager' always runs; list only fused variants");
    EXPECT_ERR(edit("['softmax.fused']", "['softmax.fused', 'softmax.fused']"),
               ": fused[1]: 'softmax.fused' is listed twice (also fused[0])");
    EXPECT_ERR(edit("'float16'", "'float64'"), ": fused[0]: variant 'softmax.fused' does not support float64");
    EXPECT_OK(edit("'fused': ['softmax.fused']", "'fused': []"));
}

/* "paired": the plain op's variant (cell.c's paired measurement), checked as a fused name is */
static void test_paired(void)
{
    const char *ok = edit("'fused': ['softmax.fused']", "'fused': ['softmax.fused'], 'paired': 'softmax.fused'");
    EXPECT_OK(ok);
    CHECK_STR(g_c.paired, "softmax.fused");
    EXPECT_OK(doc(BASE));
    CHECK_STR(g_c.paired, "");
    EXPECT_ERR(edit("'fused': [", "'paired': 1, 'fused': ["), ": paired: expected a variant name (the plain op's), got 1");
    EXPECT_ERR(edit("'fused': [", "'paired': 'softmax.fsed', 'fused': ["),
               ": paired: unknown variant 'softmax.fsed' (did you mean 'softmax.fused'?)");
    EXPECT_OK(edit("'fused': [", "'paired': 'eager', 'fused': ["));
    CHECK_STR(g_c.paired, "eager");
    EXPECT_ERR(edit("'float16'", "'float64'"), ": fused[0]: variant 'softmax.fused' does not support float64");
    EXPECT_ERR(doc("{'name': 'a', 'summary': 'b', 'inputs': {'x': {'shape': ['n']}}, 'program': [{'op': 'exp', 'in': "
                   "['x'], 'out': 'y'}], 'outputs': ['y'], 'dtypes': ['float32'], 'grid': {'n': [4]}, 'paired': "
                   "'softmax.fused'}"),
               ": paired: the program has one op: its fused variants are that op, there is nothing to pair");
}

static void test_grid(void)
{
    EXPECT_ERR(edit("{'dim0': [4, 8], 'dim1': [16, 32]}", "{}"), ": grid: no axes; give 1 (rows) or 2 (rows, columns)");
    EXPECT_ERR(edit("{'dim0': [4, 8], 'dim1': [16, 32]}", "[4]"), ": grid: expected an object of 1 or 2 axes, got an array");
    EXPECT_ERR(edit("{'dim0': [4, 8], 'dim1': [16, 32]}", "{'dim0': [4], 'dim1': [4], 'dim2': [4]}"),
               ": grid: 3 axes; a grid has 1 (rows) or 2 (rows, columns); give the other symbols under 'fixed'");
    EXPECT_ERR(edit("'dim1': [16", "'dimm1': [16"), ": grid: 'dimm1' is not a symbol of any input shape (did you mean 'dim1'?)");
    EXPECT_ERR(edit(", 'dim1': [16, 32]", ""),
               ": grid: symbol 'dim1' (used at inputs.x.shape[1]) has no axis; every shape symbol needs one (or a value "
               "in 'fixed')");
    EXPECT_ERR(edit("[16, 32]", "[]"), ": grid.dim1: must not be empty");
    EXPECT_ERR(edit("[16, 32]", "[16, -32]"), ": grid.dim1[1]: expected a positive integer, got -32");
    EXPECT_ERR(edit("[16, 32]", "[16, 3.5]"), ": grid.dim1[1]: expected a positive integer, got the real number 3.5");
    /* a whole real is not an integer either; the message says so rather than "got 4" */
    EXPECT_ERR(edit("[16, 32]", "[16, 4.0]"),
               ": grid.dim1[1]: expected a positive integer, got the real number 4.0 (write 4, without a point or "
               "exponent)");
    EXPECT_ERR(edit("[16, 32]", "[16, 1e3]"),
               ": grid.dim1[1]: expected a positive integer, got the real number 1e+03 (write 1000, without a point or "
               "exponent)");
    /* no hint where the integer would be refused too */
    EXPECT_ERR(edit("[16, 32]", "[16, -32.0]"), ": grid.dim1[1]: expected a positive integer, got the real number -32.0");
    EXPECT_ERR(edit("[16, 32]", "[16, 1e300]"), ": grid.dim1[1]: expected a positive integer, got the real number 1e+300");
    EXPECT_ERR(edit("[16, 32]", "[16, 0.1]"), ": grid.dim1[1]: expected a positive integer, got the real number 0.1");
    EXPECT_ERR(edit("[16, 32]", "[16, 32, 16]"), ": grid.dim1[2]: 16 repeats grid.dim1[0]");
    EXPECT_ERR(edit("[16, 32]", "'16'"), ": grid.dim1: expected an array, got the string '16'");
    /* axis order follows the file: rows first */
    EXPECT_OK(edit("{'dim0': [4, 8], 'dim1': [16, 32]}", "{'dim1': [16], 'dim0': [4, 8, 2]}"));
    CHECK(g_c.axis[0].sym == 1 && g_c.axis[1].sym == 0 && g_c.axis[1].n == 3);
}

/* BASE on [B, dim0, dim1]: B is no displayed axis, so it needs "fixed". */
static const char *fixed_case(const char *fixed)
{
    static char buf[8192];
    snprintf(buf, sizeof buf, "%s", BASE);
    char *sh = strstr(buf, "['dim0', 'dim1']");
    memmove(sh + 6, sh + 1, strlen(sh + 1) + 1); /* "['dim0'" -> "['B', 'dim0'" */
    memcpy(sh + 1, "'B', ", 5);
    size_t n = strlen(buf);
    snprintf(buf + n - 1, sizeof buf - (n - 1), "%s}", fixed);
    return doc(buf);
}

static void test_fixed(void)
{
    /* one grid per value of B, B varying slowest; a lone integer is one value */
    EXPECT_OK(fixed_case(", 'fixed': {'B': [2, 3]}"));
    CHECK(g_c.n_axes == 2 && g_c.n_fixed == 1 && g_c.fixed[0].n == 2 && g_c.fixed[0].v[1] == 3);
    CHECK_STR(g_c.sym[g_c.fixed[0].sym], "B");
    CHECK(fb_case_n_grids(&g_c) == 2 && fb_case_n_points(&g_c) == 8);
    EXPECT_OK(fixed_case(", 'fixed': {'B': 5}"));
    CHECK(g_c.n_fixed == 1 && g_c.fixed[0].n == 1 && g_c.fixed[0].v[0] == 5 && fb_case_n_grids(&g_c) == 1);
    /* a case without "fixed" has none */
    EXPECT_OK(doc(BASE));
    CHECK(g_c.n_fixed == 0 && fb_case_n_grids(&g_c) == 1 && fb_case_n_points(&g_c) == 4);

    EXPECT_ERR(fixed_case(""),
               ": grid: symbol 'B' (used at inputs.x.shape[0]) has no axis; every shape symbol needs one (or a value in "
               "'fixed')");
    EXPECT_ERR(fixed_case(", 'fixed': {'B': [2], 'K': [4]}"),
               ": fixed: 'K' is not a symbol of any input shape");
    EXPECT_ERR(fixed_case(", 'fixed': {'b': [2]}"), ": fixed: 'b' is not a symbol of any input shape (did you mean 'B'?)");
    EXPECT_ERR(fixed_case(", 'fixed': {'B': [2], 'dim1': [4]}"),
               ": fixed.dim1: 'dim1' is already a grid axis (grid.dim1); a symbol is either displayed or fixed");
    EXPECT_ERR(fixed_case(", 'fixed': {'B': [2, 4, 2]}"), ": fixed.B[2]: 2 repeats fixed.B[0]");
    EXPECT_ERR(fixed_case(", 'fixed': {'B': []}"), ": fixed.B: must not be empty");
    EXPECT_ERR(fixed_case(", 'fixed': {'B': 0}"), ": fixed.B: expected a positive integer, got 0");
    EXPECT_ERR(fixed_case(", 'fixed': {'B': '2'}"), ": fixed.B: expected an array, got the string '2'");
    EXPECT_ERR(fixed_case(", 'fixed': {}"), ": fixed: no symbols; leave 'fixed' out when every symbol is a grid axis");
    EXPECT_ERR(fixed_case(", 'fixed': [2]"), ": fixed: expected an object of symbol -> value or list of values, got an array");
    EXPECT_ERR(fixed_case(", 'fixd': {'B': 2}"), ": unknown key 'fixd' (did you mean 'fixed'?)");
    char big[1024];
    int k = snprintf(big, sizeof big, ", 'fixed': {'B': [1");
    for (int i = 2; i <= 65; i++) k += snprintf(big + k, sizeof big - (size_t)k, ", %d", i);
    snprintf(big + k, sizeof big - (size_t)k, "]}");
    EXPECT_ERR(fixed_case(big), ": fixed.B: 65 values; at most 64");
    /* a shape that fails only at one fixed value names the whole point */
    EXPECT_ERR(doc("{'name': 'f', 'summary': 's', 'inputs': {'x': {'shape': ['B', 'N']}, 'w': {'shape': ['K']}},"
                   " 'program': [{'op': 'add', 'in': ['x', 'w'], 'out': 'y'}], 'outputs': ['y'],"
                   " 'dtypes': ['float32'], 'grid': {'B': [2], 'N': [8]}, 'fixed': {'K': [8, 1, 4]}}"),
               ": program[0].in: shapes [2, 8] and [4] do not broadcast (at B=2, N=8, K=4)");
}

static void test_tolerance(void)
{
    EXPECT_ERR(edit("32]}}", "32]}, 'tolerance': {'float64': {'atol': 0, 'rtol': 0}}}"),
               ": tolerance: 'float64' is not one of this case's dtypes (float32, float16)");
    EXPECT_ERR(edit("32]}}", "32]}, 'tolerance': {'flot32': {'atol': 0, 'rtol': 0}}}"),
               ": tolerance: unknown dtype 'flot32' (did you mean 'float32'?)");
    EXPECT_ERR(edit("32]}}", "32]}, 'tolerance': {'float32': {'atol': 0, 'rtol': 0}, 'fp32': {'atol': 0, 'rtol': 0}}}"),
               ": tolerance: 'fp32' repeats float32");
    EXPECT_ERR(edit("32]}}", "32]}, 'tolerance': {'float16': {'atol': -1e-3, 'rtol': 0}}}"),
               ": tolerance.float16.atol: expected a non-negative number, got -0.001");
    EXPECT_ERR(edit("32]}}", "32]}, 'tolerance': {'float16': {'atol': 0, 'rtol': '1'}}}"),
               ": tolerance.float16.rtol: expected a non-negative number, got the string '1'");
    EXPECT_ERR(edit("32]}}", "32]}, 'tolerance': {'float16': {'atol': 0}}}"), ": tolerance.float16: missing key 'rtol'");
    EXPECT_ERR(edit("32]}}", "32]}, 'tolerance': {'float16': {'atol': 0, 'rtol': 0, 'ulp': 2}}}"),
               ": tolerance.float16: unknown key 'ulp' (expected atol or rtol)");
    EXPECT_ERR(edit("32]}}", "32]}, 'tolerance': {'float16': 0.1}}"),
               ": tolerance.float16: expected an object like {\"atol\": 1e-6, \"rtol\": 1e-5}, got 0.1");
}

/* Shapes and byte counts are checked at every grid point, not just the first. */
static void test_grid_points(void)
{
    /* [r, c] + [r] broadcasts only where r == c: the first point passes */
    EXPECT_ERR(doc("{'name': 'a', 'summary': 'b', 'inputs': {'x': {'shape': ['r', 'c']}, 'b': {'shape': ['r']}},"
                   " 'program': [{'op': 'add', 'in': ['x', 'b'], 'out': 'y'}], 'outputs': ['y'],"
                   " 'dtypes': ['float32'], 'grid': {'r': [4, 8], 'c': [4, 8]}}"),
               ": program[0].in: shapes [4, 8] and [4] do not broadcast (at r=4, c=8)");
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': 2, 'out': 'm'"),
               ": program[0].dim: dim 2 is out of range for a rank-2 tensor (at dim0=4, dim1=16)");
    EXPECT_ERR(edit("'dim': -1, 'out': 's'", "'dim': -3, 'out': 's'"),
               ": program[3].dim: dim -3 is out of range for a rank-2 tensor (at dim0=4, dim1=16)");
    /* float32 fits at the first point; float64 overflows only at the largest */
    EXPECT_ERR(doc("{'name': 'a', 'summary': 'b', 'inputs': {'x': {'shape': ['n', 536870912, 1073741824]}},"
                   " 'program': [{'op': 'neg', 'in': ['x'], 'out': 'y'}], 'outputs': ['y'],"
                   " 'dtypes': ['float16', 'float64'], 'grid': {'n': [1, 2, 4]}}"),
               ": inputs.x.shape: byte count overflows 64 bits (float64, at n=2)");
}

/* Quoted user strings: escaped, and cut only between characters. */
static void test_quoted_text(void)
{
    char want[512], src[512], got[1024];
    /* 100 two-byte characters: the quote keeps whole ones only (46 of them fill the
     * 96-byte buffer with "..."), where it used to end in half of one */
    size_t k = 0;
    for (int i = 0; i < 100; i++) k += (size_t)snprintf(src + k, sizeof src - k, "\xc3\xa9");
    snprintf(got, sizeof got, "'program': [\n  {'op': '%s',", src);
    k = (size_t)snprintf(want, sizeof want, ": program[0].op: unknown op '");
    for (int i = 0; i < 46; i++) k += (size_t)snprintf(want + k, sizeof want - k, "\xc3\xa9");
    snprintf(want + k, sizeof want - k, "...'");
    fb_clear_error();
    CHECK(fb_case_parse(edit("'program': [\n  {'op': 'amax',", got), "t.json", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error() + strlen("t.json"), want);

    /* three-byte characters in "got the string '...'" (a 48-byte quote) */
    k = 0;
    for (int i = 0; i < 40; i++) k += (size_t)snprintf(src + k, sizeof src - k, "\xe2\x82\xac"); /* U+20AC */
    snprintf(got, sizeof got, "'dtypes': '%s'", src);
    k = (size_t)snprintf(want, sizeof want, ": dtypes: expected an array, got the string '");
    for (int i = 0; i < 14; i++) k += (size_t)snprintf(want + k, sizeof want - k, "\xe2\x82\xac");
    snprintf(want + k, sizeof want - k, "...'");
    fb_clear_error();
    CHECK(fb_case_parse(edit("'dtypes': ['float32', 'float16']", got), "t.json", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error() + strlen("t.json"), want);

    /* control characters are shown escaped, not as '?' and never raw */
    EXPECT_ERR(edit("'exp'", "'ex\\np'"), ": program[2].op: unknown op 'ex\\np' (did you mean 'exp'?)");
    EXPECT_ERR(edit("'exp'", "'e\\u001b[31mx'"), ": program[2].op: unknown op 'e\\x1b[31mx'");
    EXPECT_ERR(edit("'exp'", "'e\\u0085\\u202ex'"), ": program[2].op: unknown op 'e\\u0085\\u202ex'");

    /* the helpers themselves */
    char b[16];
    CHECK_STR(fb_clean("plain", b, sizeof b), "plain");
    CHECK_STR(fb_clean("0123456789abcdef", b, sizeof b), "0123456789ab...");
    CHECK_STR(fb_clean("012345678901234", b, sizeof b), "012345678901234"); /* exactly fits: no cut */
    CHECK_STR(fb_clean("0123456789a\xc3\xa9", b, sizeof b), "0123456789a\xc3\xa9"); /* 13 bytes fit whole */
    CHECK_STR(fb_clean("0123456789ab\xc3\xa9xyz", b, sizeof b), "0123456789ab...");
    CHECK_STR(fb_clean("a\tb\x7f\xff", b, sizeof b), "a\\tb\\x7f\\xff");
}

/* Paths in messages: harmless ones as they are, others as $'...' on one line. */
static void test_paths_in_messages(void)
{
    char q[FB_QUOTE_PATH_MAX];
    const char *plain = "cases/it's a \\ path.json";
    CHECK(fb_quote_path(plain, q, sizeof q) == plain); /* no copy when nothing needs escaping */
    CHECK_STR(fb_quote_path("a\nb.json", q, sizeof q), "$'a\\nb.json'");
    CHECK_STR(fb_quote_path("it's\t\\x\x1b\xff.json", q, sizeof q), "$'it\\'s\\t\\\\x\\x1b\\xff.json'");
    CHECK_STR(fb_quote_path("caf\xc3\xa9/\xe2\x80\xae.json", q, sizeof q), "$'caf\xc3\xa9/\\u202e.json'");
    char small[12];
    CHECK_STR(fb_quote_path("abcdef\ngh", small, sizeof small), "$'abcde...'");
    CHECK_STR(fb_qpath("x\ny"), "$'x\\ny'");

    fb_clear_error();
    CHECK(fb_case_load("cases/no\nsuch.json", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "$'cases/no\\nsuch.json': no such file");
    CHECK(fb_case_parse(edit("'exp'", "'exx'"), "dir/new\nline.json", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "$'dir/new\\nline.json': program[2].op: unknown op 'exx' (did you mean 'exp'?)");
    CHECK(fb_case_parse("{\"a\": nan}", "tab\there.json", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "$'tab\\there.json':1:7: invalid token near 'nan'");

    /* a real file whose name holds a newline: loaded, and named on one line when broken */
    char path[] = "/tmp/fb_test_case_XXXXXX";
    if (mkdtemp(path)) {
        char file[128], dir_q[160];
        snprintf(file, sizeof file, "%s/two\nlines.json", path);
        FILE *f = fopen(file, "w");
        if (f) {
            fputs(edit("'exp'", "'exx'"), f);
            fclose(f);
        }
        CHECK(fb_case_load(file, &g_c) == FB_E_CASE);
        snprintf(dir_q, sizeof dir_q, "$'%s/two\\nlines.json': program[2].op: unknown op 'exx' (did you mean 'exp'?)",
                 path);
        CHECK_STR(fb_last_error(), dir_q);
        CHECK(strchr(fb_last_error(), '\n') == NULL);
        remove(file);
        rmdir(path);
    }
}

/* Long paths are carried whole: PATH_MAX (4096) and past it. */
static void test_long_paths(void)
{
    static char path[12000], want[12100];
    /* 3000 bytes of existing-looking directories: the kernel says ENOENT, the message names all of it */
    size_t k = (size_t)snprintf(path, sizeof path, "cases");
    while (k < 3000) k += (size_t)snprintf(path + k, sizeof path - k, "/%s", "abcdefghijklmnopqrstuvwxyz0123456789");
    snprintf(path + k, sizeof path - k, "/x.json");
    fb_clear_error();
    CHECK(fb_case_load(path, &g_c) == FB_E_CASE);
    snprintf(want, sizeof want, "%s: no such file", path);
    CHECK_STR(fb_last_error(), want);

    /* past the 8 KB kept in place: the message moves to the heap, still whole */
    memset(path, 'p', 10000);
    path[10000] = 0;
    CHECK(fb_case_parse(edit("'exp'", "'exx'"), path, &g_c) == FB_E_CASE);
    snprintf(want, sizeof want, "%s: program[2].op: unknown op 'exx' (did you mean 'exp'?)", path);
    CHECK_STR(fb_last_error(), want);
    CHECK(fb_case_parse("{\"a\": nan}", path, &g_c) == FB_E_CASE);
    snprintf(want, sizeof want, "%s:1:7: invalid token near 'nan'", path);
    CHECK_STR(fb_last_error(), want);
    CHECK(strlen(fb_last_error()) == 10000 + strlen(":1:7: invalid token near 'nan'"));

    /* a message may quote the one it replaces, large or small */
    fb_error("%s (more)", fb_last_error());
    snprintf(want, sizeof want, "%s:1:7: invalid token near 'nan' (more)", path);
    CHECK_STR(fb_last_error(), want);
    fb_error("short");
    fb_error("%s, %s", fb_last_error(), fb_last_error());
    CHECK_STR(fb_last_error(), "short, short");
    fb_clear_error();
    CHECK_STR(fb_last_error(), "");
    
    /* a valid case at a 3000-byte path: fb_case.path keeps all of it */
    static char deep[4096];
    char base[] = "/tmp/fb_test_case_XXXXXX";
    if (mkdtemp(base)) {
        k = (size_t)snprintf(deep, sizeof deep, "%s", base);
        while (k < 2900) {
            k += (size_t)snprintf(deep + k, sizeof deep - k, "/%0200d", 0);
            CHECK(mkdir(deep, 0700) == 0);
        }
        snprintf(deep + k, sizeof deep - k, "/ok.json");
        FILE *f = fopen(deep, "w");
        CHECK(f != NULL);
        if (f) {
            fputs(doc(BASE), f);
            fclose(f);
        }
        CHECK(fb_case_load(deep, &g_c) == FB_OK);
        CHECK_STR(g_c.path, deep);
        /* tear down, deepest first */
        remove(deep);
        for (char *slash; (slash = strrchr(deep, '/')) != NULL && strlen(deep) > strlen(base);) {
            *slash = 0;
            rmdir(deep);
        }
    }
}

/* A byte-order mark or a NUL byte is named as such, where it is. */
static void test_encoding(void)
{
    char text[8192];
    snprintf(text, sizeof text, "\xef\xbb\xbf%s", doc(BASE));
    EXPECT_ERR(text, ": starts with a UTF-8 byte-order mark; save it without one");
    snprintf(text, sizeof text, "\xff\xfe{");
    EXPECT_ERR(text, ": starts with a UTF-16 byte-order mark; save it as UTF-8");
    snprintf(text, sizeof text, "\xfe\xff");
    EXPECT_ERR(text, ": starts with a UTF-16 byte-order mark; save it as UTF-8");
    /* a BOM further in is only a character: jansson's message stands */
    EXPECT_ERR(doc("{'name':\n \xef\xbb\xbf 'a'}"), ":2:2: invalid token near '\\ufeff'");

    fb_clear_error();
    CHECK(fb_case_load("cases/bad_nul_byte.json", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "cases/bad_nul_byte.json:3:22: NUL byte in the file");
    CHECK(fb_case_load("cases/bad_utf8_bom.json", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "cases/bad_utf8_bom.json: starts with a UTF-8 byte-order mark; save it without one");
}

static void test_files(void)
{
    fb_clear_error();
    CHECK(fb_case_load("cases/does_not_exist.json", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "cases/does_not_exist.json: no such file");
    CHECK(fb_case_load("cases", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "cases: is a directory, not a case file");
    CHECK(fb_case_load("cases/bad_unknown_op.json", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "cases/bad_unknown_op.json: program[2].op: unknown op 'exx' (did you mean 'exp'?)");
    CHECK(fb_case_parse(NULL, NULL, &g_c) == FB_E_CASE);

    /* names resolve in the cases directory; paths are paths */
    setenv("FUSIONBENCH_CASES", "../cases", 1);
    CHECK_STR(fb_cases_dir(), "../cases");
    CHECK(fb_case_find("softmax", &g_c) == FB_OK);
    CHECK_STR(g_c.path, "../cases/softmax.json");
    CHECK(fb_case_find("../cases/softmax.json", &g_c) == FB_OK);
    CHECK(fb_case_find("sofmax", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "unknown case 'sofmax' (did you mean 'softmax'?)");
    CHECK(fb_case_find("softmax.json", &g_c) == FB_E_CASE); /* ends in .json: a path, here relative to tests/ */
    CHECK_STR(fb_last_error(), "softmax.json: no such file");

    CHECK(fb_case_is_path("a/b") && fb_case_is_path("x.json") && fb_case_is_path("foo.json.json"));
    CHECK(!fb_case_is_path("softmax") && !fb_case_is_path("a.b"));

    fb_case_dir d;
    CHECK(fb_case_list(&d) == FB_OK);
    int has_softmax = 0;
    for (int i = 0; i < d.n; i++) has_softmax |= strcmp(d.name[i], "softmax") == 0;
    CHECK(d.n >= 1 && has_softmax && d.n_bad == 0);
    for (int i = 1; i < d.n; i++) CHECK(strcmp(d.name[i - 1], d.name[i]) < 0);
    for (int i = 0; i < d.n; i++) {
        char want[256];
        snprintf(want, sizeof want, "../cases/%s.json", d.name[i]);
        CHECK_STR(d.path[i], want);
    }
    fb_case_dir_free(&d);

    /* tests/cases holds broken files and a few test cases: listed by name, sorted, "bad_" first */
    setenv("FUSIONBENCH_CASES", "cases", 1);
    CHECK(fb_case_list(&d) == FB_OK);
    CHECK(d.n >= 2 && strncmp(d.name[0], "bad_", 4) == 0);
    for (int i = 1; i < d.n; i++) CHECK(strcmp(d.name[i - 1], d.name[i]) < 0);
    fb_case_dir_free(&d);
    CHECK(fb_case_find("bad_unknwn_op", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "unknown case 'bad_unknwn_op' (did you mean 'bad_unknown_op'?)");

    setenv("FUSIONBENCH_CASES", "no/such/dir", 1);
    CHECK(fb_case_list(&d) == FB_E_CASE && d.n == 0);
    CHECK_STR(fb_last_error(), "cannot open the cases directory no/such/dir: No such file or directory");
    fb_case_dir_free(&d);
    CHECK(fb_case_find("softmax", &g_c) == FB_E_CASE);
    CHECK_STR(fb_last_error(),
              "unknown case 'softmax' (cannot open the cases directory no/such/dir: No such file or directory)");
    unsetenv("FUSIONBENCH_CASES");
}

int main(void)
{
    test_softmax_file();
    test_valid_variants();
    test_syntax();
    test_keys_and_types();
    test_inputs();
    test_program();
    test_op_attributes();
    test_outputs();
    test_dtypes_and_fused();
    test_paired();
    test_grid();
    test_fixed();
    test_tolerance();
    test_grid_points();
    test_quoted_text();
    test_paths_in_messages();
    test_long_paths();
    test_encoding();
    test_files();
    return fb_t_report("test_case");
}
