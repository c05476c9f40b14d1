/* test_case.c — the case-file loader: the bundled softmax case read field by field,
 * then one inline document per rule, each asserting the exact one-line message.
 *
 * Inline documents are written with single quotes (JSON wants double) and turned
 * into JSON by doc(); most are the BASE case with one substring edited, so each
 * test reads as "this edit produces that message". Runs from tests/. */
#include <stdlib.h>
#include <string.h>

#include "case.h"
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
    static const fb_op ops[] = {FB_OP_AMAX, FB_OP_SUB, FB_OP_EXP, FB_OP_SUM, FB_OP_DIV};
    for (int n = 0; n < 5; n++) {
        CHECK(c->nodes[n].op == ops[n]);
        CHECK(c->nodes[n].out == n + 1);
    }
    CHECK(c->nodes[0].n_in == 1 && !c->nodes[0].in[0].literal && c->nodes[0].in[0].value == 0);
    CHECK(c->nodes[0].dim == -1 && c->nodes[3].dim == -1);
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
               ": unknown key 'flavour' (expected name, summary, inputs, program, outputs, fused, dtypes, grid or "
               "tolerance)");
    EXPECT_ERR(edit("'shape'", "'shpe'"), ": inputs.x: unknown key 'shpe' (did you mean 'shape'?)");
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': -1, 'axis': 1, 'out': 'm'"),
               ": program[0]: unknown key 'axis' (expected op, in, out or dim)");
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
               ": inputs.x.shape[1]: expected a positive integer or a symbol name, got 2.5");
    EXPECT_ERR(edit("['dim0', 'dim1']", "['dim0', 'dim 1']"),
               ": inputs.x.shape[1]: 'dim 1' is not a valid symbol name (letters, digits and '_', not starting with a "
               "digit)");
    EXPECT_ERR(edit("['dim0', 'dim1']}", "['dim0', 'dim1'], 'init': 'gauss'}"),
               ": inputs.x.init: unknown init 'gauss' (expected normal, uniform or positive)");
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
               ": program[1].dim: 'sub' is not a reduction and takes no dim");
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': 1.0, 'out': 'm'"), ": program[0].dim: expected an integer dim, got 1");
    EXPECT_ERR(edit("'dim': -1, 'out': 'm'", "'dim': 9, 'out': 'm'"),
               ": program[0].dim: dim 9 is out of range (tensors have rank at most 4)");
    EXPECT_ERR(edit("'out': 'e'", "'out': 'x'"), ": program[2].out: 'x' is already defined (an input)");
    EXPECT_ERR(edit("'out': 'e'", "'out': 'm'"), ": program[2].out: 'm' is already defined (by program[0])");
    EXPECT_ERR(edit("'out': 'e'", "'out': 'e-1'"),
               ": program[2].out: 'e-1' is not a valid value name (letters, digits and '_', not starting with a digit)");
    EXPECT_ERR(edit("'in': ['e', 's'], 'out': 'y'}]", "'in': ['e', 's'], 'out': 'y'}, {'op': 'neg', 'in': ['e'], 'out': 'n'}]"),
               ": program[5].out: 'n' is never used (not an operand of a later op, not an output)");
    EXPECT_ERR(edit("'program': [", "'program': [] ,'x': ["), ": unknown key 'x' (expected name, summary, inputs, "
                                                              "program, outputs, fused, dtypes, grid or tolerance)");
    EXPECT_ERR(doc("{'name': 'a', 'summary': 'b', 'inputs': {'x': {'shape': [1]}}, 'program': [], 'outputs': ['x'],"
                   " 'dtypes': ['float32'], 'grid': {}}"),
               ": program: must not be empty");
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

static void test_grid(void)
{
    EXPECT_ERR(edit("{'dim0': [4, 8], 'dim1': [16, 32]}", "{}"), ": grid: no axes; give 1 (rows) or 2 (rows, columns)");
    EXPECT_ERR(edit("{'dim0': [4, 8], 'dim1': [16, 32]}", "[4]"), ": grid: expected an object of 1 or 2 axes, got an array");
    EXPECT_ERR(edit("{'dim0': [4, 8], 'dim1': [16, 32]}", "{'dim0': [4], 'dim1': [4], 'dim2': [4]}"),
               ": grid: 3 axes; a grid has 1 (rows) or 2 (rows, columns)");
    EXPECT_ERR(edit("'dim1': [16", "'dimm1': [16"), ": grid: 'dimm1' is not a symbol of any input shape (did you mean 'dim1'?)");
    EXPECT_ERR(edit(", 'dim1': [16, 32]", ""),
               ": grid: symbol 'dim1' (used at inputs.x.shape[1]) has no axis; every shape symbol needs one");
    EXPECT_ERR(edit("[16, 32]", "[]"), ": grid.dim1: must not be empty");
    EXPECT_ERR(edit("[16, 32]", "[16, -32]"), ": grid.dim1[1]: expected a positive integer, got -32");
    EXPECT_ERR(edit("[16, 32]", "[16, 3.5]"), ": grid.dim1[1]: expected a positive integer, got 3.5");
    EXPECT_ERR(edit("[16, 32]", "[16, 32, 16]"), ": grid.dim1[2]: 16 repeats grid.dim1[0]");
    EXPECT_ERR(edit("[16, 32]", "'16'"), ": grid.dim1: expected an array, got the string '16'");
    /* axis order follows the file: rows first */
    EXPECT_OK(edit("{'dim0': [4, 8], 'dim1': [16, 32]}", "{'dim1': [16], 'dim0': [4, 8, 2]}"));
    CHECK(g_c.axis[0].sym == 1 && g_c.axis[1].sym == 0 && g_c.axis[1].n == 3);
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

    /* tests/cases holds only broken files: listed by name, sorted, "bad_" first */
    setenv("FUSIONBENCH_CASES", "cases", 1);
    CHECK(fb_case_list(&d) == FB_OK);
    CHECK(d.n >= 2 && strcmp(d.name[0], "bad_broadcast") == 0 && strcmp(d.name[1], "bad_byte_overflow") == 0);
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
    test_outputs();
    test_dtypes_and_fused();
    test_grid();
    test_tolerance();
    test_grid_points();
    test_files();
    return fb_t_report("test_case");
}
