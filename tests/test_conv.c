/* test_conv.c — the conv2d and batchnorm op kinds (src/ops/op_conv2d.c,
 * op_batchnorm.c) on the CPU:
 *   - their attributes as the loader reads them (layout strings with "did you
 *     mean", stride/padding/dilation/groups bounds, eps), defaults included;
 *   - conv2d's shape rule in both layouts with stride, padding, dilation, groups,
 *     and its messages; batchnorm's;
 *   - FLOPs and eager traffic;
 *   - conv2d's float64 reference against hand-computed outputs (a 2x2 filter,
 *     stride 2 with padding, dilation 2, groups 2, 1x1), NHWC against NCHW (the
 *     same numbers, transposed), and against a plain seven-loop convolution on
 *     odd shapes, bit for bit; batchnorm's against hand values in both layouts;
 *   - the row rules: the bundled conv cases split on the batch (an image alone
 *     equals its slice of the whole, in rows, chunks of rows on several threads
 *     and kept rows), tests/cases/conv_odd.json (NCHW, groups) splits on N and the
 *     last conv's K, and every grid cell of the bundled cases is checked, the
 *     largest on sampled images;
 *   - the tolerances the conv cases state, against a CPU emulation of eager (fp32
 *     accumulation in one sequential FMA chain over the C·R·S terms, every stored
 *     value rounded to its dtype): they pass it at C·R·S = 576 and 4608, and the
 *     float32 one fails TF32 (operands rounded to 10-bit mantissas).
 * Runs from tests/ (meson's workdir). */
#include "case.h"
#include "check.h"
#include "ops/op_table.h"
#include "program.h"
#include "rowcheck.h"
#include "rowref.h"
#include "shapes.h"
#include "emulate.h"
#include "testing.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

enum { NHWC, NCHW };

static fb_node conv(int layout, int64_t stride, int64_t pad, int64_t dil, int64_t groups)
{
    fb_node n;
    memset(&n, 0, sizeof n);
    CHECK(fb_op_lookup("conv2d", &n.kind, &n.op) == 0);
    n.n_in = 2;
    fb_attrs_set_int(&n.attrs, "layout", layout);
    fb_attrs_set_int(&n.attrs, "stride", stride);
    fb_attrs_set_int(&n.attrs, "padding", pad);
    fb_attrs_set_int(&n.attrs, "dilation", dil);
    fb_attrs_set_int(&n.attrs, "groups", groups);
    return n;
}

static fb_node bn(int layout, double eps)
{
    fb_node n;
    memset(&n, 0, sizeof n);
    CHECK(fb_op_lookup("batchnorm", &n.kind, &n.op) == 0);
    n.n_in = 5;
    fb_attrs_set_int(&n.attrs, "layout", layout);
    fb_attrs_set_real(&n.attrs, "eps", eps);
    return n;
}

static const char *conv_shape(fb_node n, fb_shape x, fb_shape w)
{
    const fb_shape in[2] = {x, w};
    return t_node_shape(&n, 2, in);
}

/* ---- the kinds ------------------------------------------------------------------- */

static void test_kinds(void)
{
    int k, op;
    CHECK(fb_op_lookup("conv2d", &k, &op) == 0);
    const fb_op_kind *c = fb_op_kind_at(k);
    CHECK(c && c->n_in == 2 && !c->literals && c->eager && c->prepare && c->release && c->rows && c->workspace);
    fb_node n = conv(NHWC, 1, 1, 1, 1);
    fb_shape x = t_shape(4, 1, 8, 8, 4), w = t_shape(4, 4, 3, 3, 4), y = t_shape(4, 1, 8, 8, 4);
    const fb_shape *in[2] = {&x, &w};
    CHECK(c->workspace(&n, in, &y, FB_F16) == (size_t)64 << 20);
    c->release(NULL); /* a NULL plan is nothing to release */

    CHECK(fb_op_lookup("batchnorm", &k, &op) == 0);
    const fb_op_kind *b = fb_op_kind_at(k);
    CHECK(b && b->n_in == 5 && !b->literals && b->eager && b->rows && !b->prepare && !b->workspace);
    CHECK(FB_MAX_OPERANDS >= 5);
}

/* ---- attributes, through the loader ------------------------------------------------- */

/* A one-node case around `node`: x [N, 6, 6, 4] and, for a conv2d, w [4, 3, 3, 4], for a
 * batchnorm m and v [4] (every input must be used). */
static fb_status parse_node(const char *node, fb_case *c)
{
    char text[2048];
    const bool conv = strstr(node, "conv2d") != NULL;
    snprintf(text, sizeof text,
             "{\"name\": \"t\", \"summary\": \"s\",\n"
             " \"inputs\": {\"x\": {\"shape\": [\"N\", 6, 6, 4]}, %s},\n"
             " \"program\": [%s],\n"
             " \"outputs\": [\"y\"], \"dtypes\": [\"float32\"], \"grid\": {\"N\": [2]}}",
             conv ? "\"w\": {\"shape\": [4, 3, 3, 4]}"
                  : "\"m\": {\"shape\": [4]}, \"v\": {\"shape\": [4], \"init\": \"positive\"}",
             node);
    return fb_case_parse(text, "t.json", c);
}

#define CONV_NODE(attrs) "{\"op\": \"conv2d\", \"in\": [\"x\", \"w\"], " attrs "\"out\": \"y\"}"
#define BN_NODE(attrs) "{\"op\": \"batchnorm\", \"in\": [\"x\", \"m\", \"v\", \"m\", \"v\"], " attrs "\"out\": \"y\"}"

static void test_parse(void)
{
    static fb_case c;
    /* defaults */
    CHECK(parse_node(CONV_NODE(""), &c) == FB_OK);
    CHECK(fb_attr_int(&c.nodes[0].attrs, "layout", -1) == NHWC && fb_attr_int(&c.nodes[0].attrs, "stride", -1) == 1 &&
          fb_attr_int(&c.nodes[0].attrs, "padding", -1) == 0 && fb_attr_int(&c.nodes[0].attrs, "dilation", -1) == 1 &&
          fb_attr_int(&c.nodes[0].attrs, "groups", -1) == 1);
    /* NCHW reads x [N, 6, 6, 4] as C 6, H 6, W 4 and w [4, 3, 3, 4] as K 4, 3 channels per group, 3x4 */
    CHECK(parse_node(CONV_NODE("\"layout\": \"NCHW\", \"stride\": 2, \"padding\": 3, \"dilation\": 2, \"groups\": 2, "),
                     &c) == FB_OK);
    CHECK(fb_attr_int(&c.nodes[0].attrs, "layout", -1) == NCHW && fb_attr_int(&c.nodes[0].attrs, "groups", -1) == 2);
    CHECK(parse_node(CONV_NODE("\"layout\": \"NCHW\", "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].in: operand 1 [4, 3, 3, 4] has 3 channels per group (dim 1), "
                               "operand 0 [2, 6, 6, 4] has 6 / groups 1 = 6 (at N=2)");
    CHECK(parse_node(CONV_NODE("\"stride\": 2, \"padding\": 3, \"dilation\": 2, "), &c) == FB_OK);
    CHECK(fb_attr_int(&c.nodes[0].attrs, "stride", -1) == 2 && fb_attr_int(&c.nodes[0].attrs, "padding", -1) == 3 &&
          fb_attr_int(&c.nodes[0].attrs, "dilation", -1) == 2);
    CHECK(parse_node(CONV_NODE("\"layout\": \"NHWC\", "), &c) == FB_OK);

    /* layout: a string of two */
    CHECK(parse_node(CONV_NODE("\"layout\": \"NWHC\", "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].layout: unknown layout 'NWHC' (expected NHWC or NCHW)");
    CHECK(parse_node(CONV_NODE("\"layout\": \"nhwc\", "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].layout: unknown layout 'nhwc' (did you mean 'NHWC'?)");
    CHECK(parse_node(CONV_NODE("\"layout\": \"NCHV\", "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].layout: unknown layout 'NCHV' (did you mean 'NCHW'?)");
    CHECK(parse_node(CONV_NODE("\"layout\": 4, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].layout: expected a string (NHWC or NCHW), got 4");

    /* sizes */
    CHECK(parse_node(CONV_NODE("\"stride\": 0, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].stride: stride 0 is less than 1 (the step between windows)");
    CHECK(parse_node(CONV_NODE("\"padding\": -1, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].padding: padding -1 is less than 0 (zeros added on each side)");
    CHECK(parse_node(CONV_NODE("\"dilation\": 0, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].dilation: dilation 0 is less than 1 (the step between a window's taps)");
    CHECK(parse_node(CONV_NODE("\"groups\": 0, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].groups: groups 0 is less than 1 (the channels split into groups)");
    CHECK(parse_node(CONV_NODE("\"padding\": 2000000, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].padding: padding 2000000 is too large (at most 1048576)");
    CHECK(parse_node(CONV_NODE("\"stride\": 1.5, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].stride: expected an integer stride, got the real number 1.5");
    /* groups that do not divide: a shape error at the grid point */
    CHECK(parse_node(CONV_NODE("\"groups\": 3, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].groups: groups 3 does not divide the 4 input channels of "
                               "operand 0 [2, 6, 6, 4] (at N=2)");
    /* another kind's attribute */
    CHECK(parse_node("{\"op\": \"relu\", \"in\": [\"x\"], \"layout\": \"NHWC\", \"out\": \"y\"}", &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].layout: 'relu' takes no layout (only conv2d ops do)");
    CHECK(parse_node(CONV_NODE("\"eps\": 1e-5, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].eps: 'conv2d' takes no eps (only batchnorm ops do)");

    /* batchnorm: eps and layout */
    CHECK(parse_node(BN_NODE(""), &c) == FB_OK);
    CHECK(fb_attr_real(&c.nodes[0].attrs, "eps", -1) == 1e-5 && fb_attr_int(&c.nodes[0].attrs, "layout", -1) == NHWC);
    CHECK(c.nodes[0].n_in == 5);
    CHECK(parse_node(BN_NODE("\"eps\": 0, "), &c) == FB_OK);
    CHECK(fb_attr_real(&c.nodes[0].attrs, "eps", -1) == 0.0);
    CHECK(parse_node(BN_NODE("\"eps\": -1e-5, "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].eps: eps -1e-05 is not a finite number >= 0 (it keeps "
                               "rsqrt(var + eps) finite)");
    CHECK(parse_node(BN_NODE("\"eps\": \"small\", "), &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].eps: expected a number for eps, got the string 'small'");
    CHECK(parse_node(BN_NODE("\"layout\": \"NCHW\", "), &c) == FB_E_CASE); /* channels on dim 1: 6, params [4] */
    CHECK_STR(fb_last_error(), "t.json: program[0].in: operand 1 (mean) is [4], expected [6]: one value per channel "
                               "of operand 0 [2, 6, 6, 4] (NCHW: channels on dim 1) (at N=2)");
    CHECK(parse_node("{\"op\": \"batchnorm\", \"in\": [\"x\", \"m\", \"v\", \"m\"], \"out\": \"y\"}", &c) == FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].in: 'batchnorm' takes 5 operands, got 4");
    CHECK(parse_node("{\"op\": \"batchnorm\", \"in\": [\"x\", \"m\", \"v\", \"m\", 1.0], \"out\": \"y\"}", &c) ==
          FB_E_CASE);
    CHECK_STR(fb_last_error(), "t.json: program[0].in[4]: 'batchnorm' takes a value, not a literal");
}

/* ---- conv2d's shape rule ----------------------------------------------------------------- */

static void test_conv_shape(void)
{
    /* NHWC: x [N, H, W, C], w [K, R, S, C/groups] -> [N, P, Q, K] */
    CHECK_STR(conv_shape(conv(NHWC, 1, 0, 1, 1), t_shape(4, 2, 5, 5, 4), t_shape(4, 6, 3, 3, 4)), "[2, 3, 3, 6]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 1, 1, 1), t_shape(4, 2, 5, 5, 4), t_shape(4, 6, 3, 3, 4)), "[2, 5, 5, 6]");
    CHECK_STR(conv_shape(conv(NHWC, 2, 1, 1, 1), t_shape(4, 2, 5, 6, 4), t_shape(4, 6, 3, 3, 4)), "[2, 3, 3, 6]");
    CHECK_STR(conv_shape(conv(NHWC, 2, 1, 1, 1), t_shape(4, 2, 56, 56, 64), t_shape(4, 128, 3, 3, 64)), "[2, 28, 28, 128]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 0, 2, 1), t_shape(4, 1, 5, 7, 4), t_shape(4, 6, 3, 3, 4)), "[1, 1, 3, 6]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 0, 1, 2), t_shape(4, 1, 5, 5, 4), t_shape(4, 6, 3, 3, 2)), "[1, 3, 3, 6]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 0, 1, 4), t_shape(4, 1, 5, 5, 4), t_shape(4, 8, 1, 1, 1)), "[1, 5, 5, 8]");
    CHECK_STR(conv_shape(conv(NHWC, 3, 0, 1, 1), t_shape(4, 1, 7, 8, 3), t_shape(4, 2, 1, 1, 3)), "[1, 3, 3, 2]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 2, 1, 1), t_shape(4, 1, 1, 1, 3), t_shape(4, 2, 1, 1, 3)), "[1, 5, 5, 2]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 1, 1, 1), t_shape(4, 1, 2, 9, 3), t_shape(4, 2, 4, 1, 3)), "[1, 1, 11, 2]");
    /* NCHW: x [N, C, H, W], w [K, C/groups, R, S] -> [N, K, P, Q] */
    CHECK_STR(conv_shape(conv(NCHW, 2, 1, 1, 1), t_shape(4, 2, 4, 5, 7), t_shape(4, 6, 4, 3, 3)), "[2, 6, 3, 4]");
    CHECK_STR(conv_shape(conv(NCHW, 2, 2, 2, 2), t_shape(4, 3, 6, 11, 9), t_shape(4, 10, 3, 3, 3)), "[3, 10, 6, 5]");
    CHECK_STR(conv_shape(conv(NCHW, 1, 0, 1, 1), t_shape(4, 1, 3, 2, 2), t_shape(4, 5, 3, 1, 1)), "[1, 5, 2, 2]");

    /* errors */
    CHECK_STR(conv_shape(conv(NHWC, 1, 0, 1, 1), t_shape(3, 5, 5, 4, 0), t_shape(4, 6, 3, 3, 4)),
              "error 2: in: conv2d needs operands of rank 4 (NHWC: x [N, H, W, C], w [K, R, S, C/groups]), operand 0 "
              "is [5, 5, 4]");
    CHECK_STR(conv_shape(conv(NCHW, 1, 0, 1, 1), t_shape(4, 1, 4, 5, 5), t_shape(2, 6, 4, 0, 0)),
              "error 2: in: conv2d needs operands of rank 4 (NCHW: x [N, C, H, W], w [K, C/groups, R, S]), operand 1 "
              "is [6, 4]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 0, 1, 4), t_shape(4, 1, 5, 5, 6), t_shape(4, 8, 3, 3, 1)),
              "error 2: groups: groups 4 does not divide the 6 input channels of operand 0 [1, 5, 5, 6]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 0, 1, 4), t_shape(4, 1, 5, 5, 8), t_shape(4, 6, 3, 3, 2)),
              "error 2: groups: groups 4 does not divide the 6 output channels of operand 1 [6, 3, 3, 2]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 0, 1, 1), t_shape(4, 1, 5, 5, 64), t_shape(4, 8, 3, 3, 32)),
              "error 2: in: operand 1 [8, 3, 3, 32] has 32 channels per group (dim 3), operand 0 [1, 5, 5, 64] has 64 "
              "/ groups 1 = 64");
    CHECK_STR(conv_shape(conv(NCHW, 1, 0, 1, 2), t_shape(4, 1, 8, 5, 5), t_shape(4, 8, 8, 3, 3)),
              "error 2: in: operand 1 [8, 8, 3, 3] has 8 channels per group (dim 1), operand 0 [1, 8, 5, 5] has 8 / "
              "groups 2 = 4");
    CHECK_STR(conv_shape(conv(NHWC, 1, 0, 2, 1), t_shape(4, 1, 4, 4, 1), t_shape(4, 1, 3, 3, 1)),
              "error 2: in: the 3x3 filter (dilation 2) does not fit the 4x4 input with padding 0: the output would "
              "be empty");
    CHECK_STR(conv_shape(conv(NHWC, 1, 1, 1, 1), t_shape(4, 1, 9, 1, 1), t_shape(4, 1, 1, 5, 1)),
              "error 2: in: the 1x5 filter (dilation 1) does not fit the 9x1 input with padding 1: the output would "
              "be empty");
    /* dilation 2, padding 1 just fits 3x3: 3 + 2 = 5 = 2·(3 - 1) + 1; one more row or column, one more output */
    CHECK_STR(conv_shape(conv(NHWC, 1, 1, 2, 1), t_shape(4, 1, 3, 3, 1), t_shape(4, 1, 3, 3, 1)), "[1, 1, 1, 1]");
    CHECK_STR(conv_shape(conv(NHWC, 1, 1, 2, 1), t_shape(4, 1, 4, 3, 1), t_shape(4, 1, 3, 3, 1)), "[1, 2, 1, 1]");
    /* no overflow from huge sizes: the filter cannot fit */
    CHECK(strncmp(conv_shape(conv(NHWC, 1, 1048576, 1048576, 1), t_shape(4, 1, 4, 4, 1), t_shape(4, 1, INT64_MAX / 2, 1, 1)),
                  "error 2: in: the ", 17) == 0);
}

static void test_costs(void)
{
    fb_node n = conv(NHWC, 2, 1, 1, 2);
    fb_shape x = t_shape(4, 3, 9, 8, 6), w = t_shape(4, 10, 3, 3, 3), y;
    const fb_shape *in[2] = {&x, &w};
    CHECK(fb_node_kind(&n)->shape(&n, in, &y) == FB_OK);
    CHECK_STR(t_shape_str(&y), "[3, 5, 4, 10]");
    fb_node_cost cost;
    fb_node_kind(&n)->cost(&n, in, &y, 2, &cost);
    CHECK(cost.flops == 2.0 * 3 * 5 * 4 * 10 * 3 * 3 * 3);
    CHECK(cost.bytes_read == (3 * 9 * 8 * 6 + 10 * 3 * 3 * 3) * 2.0);
    CHECK(cost.bytes_written == 3 * 5 * 4 * 10 * 2.0);
    CHECK(cost.launches == 1);
    /* NCHW, the same problem: the same count */
    n = conv(NCHW, 2, 1, 1, 2);
    x = t_shape(4, 3, 6, 9, 8), w = t_shape(4, 10, 3, 3, 3);
    CHECK(fb_node_kind(&n)->shape(&n, in, &y) == FB_OK);
    CHECK_STR(t_shape_str(&y), "[3, 10, 5, 4]");
    fb_node_kind(&n)->cost(&n, in, &y, 4, &cost);
    CHECK(cost.flops == 2.0 * 3 * 5 * 4 * 10 * 3 * 3 * 3);

    fb_node b = bn(NHWC, 1e-5);
    fb_shape bx = t_shape(4, 2, 3, 4, 5), p = t_shape(1, 5, 0, 0, 0), by;
    const fb_shape *bin[5] = {&bx, &p, &p, &p, &p};
    CHECK(fb_node_kind(&b)->shape(&b, bin, &by) == FB_OK);
    fb_node_kind(&b)->cost(&b, bin, &by, 4, &cost);
    CHECK(cost.flops == 2.0 * 120);
    CHECK(cost.bytes_read == (120 + 4 * 5) * 4.0 && cost.bytes_written == 120 * 4.0 && cost.launches == 1);
}

/* ---- conv2d's reference ---------------------------------------------------------------------- */

/* y = the node's reference (out shape by the rule, returned in *ys) */
static fb_status conv_ref(fb_node n, fb_shape xs, const double *x, fb_shape ws, const double *w, double *y,
                          fb_shape *ys)
{
    const fb_shape *in[2] = {&xs, &ws};
    fb_status s = fb_node_kind(&n)->shape(&n, in, ys);
    if (s) return s;
    fb_ref_args r = {.in = {x, w}, .in_shape = {&xs, &ws}, .out = y, .out_shape = ys};
    return fb_node_kind(&n)->reference(&n, &r);
}

static void test_conv_reference(void)
{
    double y[64];
    fb_shape ys;
    /* x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], one channel; a 2x2 filter [[1, 2], [3, 4]]:
     * y[p][q] = x[p][q] + 2 x[p][q+1] + 3 x[p+1][q] + 4 x[p+1][q+1] = [[37, 47], [67, 77]] */
    const double x33[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w22[4] = {1, 2, 3, 4};
    CHECK(conv_ref(conv(NHWC, 1, 0, 1, 1), t_shape(4, 1, 3, 3, 1), x33, t_shape(4, 1, 2, 2, 1), w22, y, &ys) == FB_OK);
    CHECK_STR(t_shape_str(&ys), "[1, 2, 2, 1]");
    CHECK(y[0] == 37 && y[1] == 47 && y[2] == 67 && y[3] == 77);
    CHECK(conv_ref(conv(NCHW, 1, 0, 1, 1), t_shape(4, 1, 1, 3, 3), x33, t_shape(4, 1, 1, 2, 2), w22, y, &ys) == FB_OK);
    CHECK(y[0] == 37 && y[1] == 47 && y[2] == 67 && y[3] == 77);

    /* stride 2, padding 1, a 3x3 filter of ones: each output sums the 2x2 corner of x its
     * window covers: [[1+2+4+5, 2+3+5+6], [4+5+7+8, 5+6+8+9]] = [[12, 16], [24, 28]] */
    const double ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK(conv_ref(conv(NHWC, 2, 1, 1, 1), t_shape(4, 1, 3, 3, 1), x33, t_shape(4, 1, 3, 3, 1), ones, y, &ys) == FB_OK);
    CHECK_STR(t_shape_str(&ys), "[1, 2, 2, 1]");
    CHECK(y[0] == 12 && y[1] == 16 && y[2] == 24 && y[3] == 28);
    /* padding 1, stride 1: the border sees the zeros, the centre all nine */
    CHECK(conv_ref(conv(NHWC, 1, 1, 1, 1), t_shape(4, 1, 3, 3, 1), x33, t_shape(4, 1, 3, 3, 1), ones, y, &ys) == FB_OK);
    CHECK(y[0] == 12 && y[1] == 21 && y[4] == 45 && y[8] == 28);

    /* dilation 2: x[h][w] = 5h + w on 5x5, the 2x2 filter [1, 10, 100, 1000] taps (0,0), (0,2),
     * (2,0), (2,2): y[p][q] = 1111 (5p + q) + 10·2 + 100·10 + 1000·12 = 1111 (5p + q) + 13020 */
    double x55[25];
    for (int i = 0; i < 25; i++) x55[i] = i;
    const double wd[4] = {1, 10, 100, 1000};
    CHECK(conv_ref(conv(NHWC, 1, 0, 2, 1), t_shape(4, 1, 5, 5, 1), x55, t_shape(4, 1, 2, 2, 1), wd, y, &ys) == FB_OK);
    CHECK_STR(t_shape_str(&ys), "[1, 3, 3, 1]");
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) CHECK(y[p * 3 + q] == 1111.0 * (5 * p + q) + 13020);

    /* 1x1, two pixels (a, b) = (1, 2) and (3, 4). groups 1, w [[1, 2], [3, 4]]: out channel
     * k = w[k]·(a, b): (5, 11), (11, 25). groups 2, w [5, 7]: channel 0 is 5a, channel 1 7b */
    const double px[4] = {1, 2, 3, 4}, wg1[4] = {1, 2, 3, 4}, wg2[2] = {5, 7};
    CHECK(conv_ref(conv(NHWC, 1, 0, 1, 1), t_shape(4, 1, 1, 2, 2), px, t_shape(4, 2, 1, 1, 2), wg1, y, &ys) == FB_OK);
    CHECK(y[0] == 5 && y[1] == 11 && y[2] == 11 && y[3] == 25);
    CHECK(conv_ref(conv(NHWC, 1, 0, 1, 2), t_shape(4, 1, 1, 2, 2), px, t_shape(4, 2, 1, 1, 1), wg2, y, &ys) == FB_OK);
    CHECK(y[0] == 5 && y[1] == 14 && y[2] == 15 && y[3] == 28);
    /* groups 2 with two filters per group: channels 0, 1 read a; 2, 3 read b */
    const double wg4[4] = {1, -1, 10, 100};
    CHECK(conv_ref(conv(NHWC, 1, 0, 1, 2), t_shape(4, 1, 1, 2, 2), px, t_shape(4, 4, 1, 1, 1), wg4, y, &ys) == FB_OK);
    CHECK_STR(t_shape_str(&ys), "[1, 1, 2, 4]");
    CHECK(y[0] == 1 && y[1] == -1 && y[2] == 20 && y[3] == 200 && y[4] == 3 && y[5] == -3 && y[6] == 40 &&
          y[7] == 400);
    /* the same in NCHW: x [1, 2, 1, 2] holds channel a = (1, 3), b = (2, 4) */
    const double pxc[4] = {1, 3, 2, 4};
    CHECK(conv_ref(conv(NCHW, 1, 0, 1, 2), t_shape(4, 1, 2, 1, 2), pxc, t_shape(4, 4, 1, 1, 1), wg4, y, &ys) == FB_OK);
    CHECK_STR(t_shape_str(&ys), "[1, 4, 1, 2]");
    CHECK(y[0] == 1 && y[1] == 3 && y[2] == -1 && y[3] == -3 && y[4] == 20 && y[5] == 40 && y[6] == 200 &&
          y[7] == 400);

    /* a batch of two images: the second is the first times -2 */
    double x2[18];
    for (int i = 0; i < 9; i++) x2[i] = x33[i], x2[9 + i] = -2 * x33[i];
    CHECK(conv_ref(conv(NHWC, 1, 0, 1, 1), t_shape(4, 2, 3, 3, 1), x2, t_shape(4, 1, 2, 2, 1), w22, y, &ys) == FB_OK);
    CHECK(y[4] == -74 && y[5] == -94 && y[6] == -134 && y[7] == -154);
}

/* A plain convolution, seven loops, NHWC or NCHW by index functions: the obviously
 * correct form the reference's tiled loops must agree with bit for bit (both sum an
 * output's terms in (r, s, c) order from 0). */
static int64_t at_x(int layout, const fb_shape *x, int64_t n, int64_t c, int64_t h, int64_t w)
{
    return layout == NHWC ? ((n * x->dim[1] + h) * x->dim[2] + w) * x->dim[3] + c
                          : ((n * x->dim[1] + c) * x->dim[2] + h) * x->dim[3] + w;
}
static int64_t at_w(int layout, const fb_shape *f, int64_t k, int64_t c, int64_t r, int64_t s)
{
    return layout == NHWC ? ((k * f->dim[1] + r) * f->dim[2] + s) * f->dim[3] + c
                          : ((k * f->dim[1] + c) * f->dim[2] + r) * f->dim[3] + s;
}
static void naive_conv(int layout, int64_t st, int64_t pad, int64_t dil, int64_t g, const fb_shape *xs,
                       const double *x, const fb_shape *fs, const double *w, const fb_shape *ys, double *y)
{
    const bool nhwc = layout == NHWC;
    const int64_t N = xs->dim[0], C = xs->dim[nhwc ? 3 : 1], H = xs->dim[nhwc ? 1 : 2], W = xs->dim[nhwc ? 2 : 3];
    const int64_t K = fs->dim[0], R = fs->dim[nhwc ? 1 : 2], S = fs->dim[nhwc ? 2 : 3];
    const int64_t P = ys->dim[nhwc ? 1 : 2], Q = ys->dim[nhwc ? 2 : 3], Cg = C / g, Kg = K / g;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            for (int64_t p = 0; p < P; p++)
                for (int64_t q = 0; q < Q; q++) {
                    double acc = 0.0;
                    for (int64_t r = 0; r < R; r++)
                        for (int64_t s = 0; s < S; s++)
                            for (int64_t c = 0; c < Cg; c++) {
                                const int64_t h = p * st - pad + r * dil, wc = q * st - pad + s * dil;
                                if (h < 0 || h >= H || wc < 0 || wc >= W) continue;
                                acc += x[at_x(layout, xs, n, (k / Kg) * Cg + c, h, wc)] * w[at_w(layout, fs, k, c, r, s)];
                            }
                    /* the output's own layout: [N, P, Q, K] or [N, K, P, Q] */
                    y[nhwc ? ((n * P + p) * Q + q) * K + k : ((n * K + k) * P + p) * Q + q] = acc;
                }
}

static void fill(double *p, int64_t n, double seed)
{
    for (int64_t i = 0; i < n; i++) p[i] = sin(seed + 0.7 * (double)i) * 3.0;
}

/* Both layouts on odd problems: the reference equals the seven loops bit for bit, and
 * NHWC's result is NCHW's transposed (inputs transposed alike). */
static void test_conv_layouts(void)
{
    static const struct { int64_t n, c, h, w, k, r, s, st, pad, dil, g; } t[] = {
        {2, 6, 9, 11, 10, 3, 3, 2, 2, 2, 2}, /* conv_odd's second conv */
        {1, 3, 7, 5, 4, 1, 1, 1, 0, 1, 1},   /* 1x1 */
        {3, 4, 6, 6, 4, 3, 3, 1, 1, 1, 4},   /* depthwise */
        {1, 5, 13, 3, 7, 2, 3, 3, 1, 1, 1},  /* rectangular filter, stride 3 */
        {2, 16, 10, 9, 20, 3, 3, 1, 1, 1, 1}, /* more channels than a tile's worth of pixels */
        {1, 2, 3, 19, 3, 3, 5, 1, 4, 3, 1},  /* padding beyond the filter, dilation 3 */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const fb_shape xh = t_shape(4, t[i].n, t[i].h, t[i].w, t[i].c), wh = t_shape(4, t[i].k, t[i].r, t[i].s, t[i].c / t[i].g);
        const fb_shape xc = t_shape(4, t[i].n, t[i].c, t[i].h, t[i].w), wc = t_shape(4, t[i].k, t[i].c / t[i].g, t[i].r, t[i].s);
        const int64_t nx = fb_shape_numel(&xh), nw = fb_shape_numel(&wh);
        double *x = malloc(sizeof(double) * (size_t)nx), *xt = malloc(sizeof(double) * (size_t)nx);
        double *w = malloc(sizeof(double) * (size_t)nw), *wt = malloc(sizeof(double) * (size_t)nw);
        fill(x, nx, 0.3 + (double)i);
        fill(w, nw, 1.7 + (double)i);
        /* the same tensors in NCHW */
        for (int64_t n = 0; n < t[i].n; n++)
            for (int64_t c = 0; c < t[i].c; c++)
                for (int64_t h = 0; h < t[i].h; h++)
                    for (int64_t v = 0; v < t[i].w; v++) xt[at_x(NCHW, &xc, n, c, h, v)] = x[at_x(NHWC, &xh, n, c, h, v)];
        for (int64_t k = 0; k < t[i].k; k++)
            for (int64_t c = 0; c < t[i].c / t[i].g; c++)
                for (int64_t r = 0; r < t[i].r; r++)
                    for (int64_t s = 0; s < t[i].s; s++) wt[at_w(NCHW, &wc, k, c, r, s)] = w[at_w(NHWC, &wh, k, c, r, s)];
        fb_shape yh, yc;
        const fb_node nh = conv(NHWC, t[i].st, t[i].pad, t[i].dil, t[i].g), nc = conv(NCHW, t[i].st, t[i].pad, t[i].dil, t[i].g);
        const fb_shape *inh[2] = {&xh, &wh}, *inc[2] = {&xc, &wc};
        CHECK(fb_node_kind(&nh)->shape(&nh, inh, &yh) == FB_OK && fb_node_kind(&nc)->shape(&nc, inc, &yc) == FB_OK);
        const int64_t ny = fb_shape_numel(&yh);
        CHECK(ny == fb_shape_numel(&yc) && ny > 0);
        double *y1 = malloc(sizeof(double) * (size_t)ny), *y2 = malloc(sizeof(double) * (size_t)ny);
        double *y3 = malloc(sizeof(double) * (size_t)ny), *y4 = malloc(sizeof(double) * (size_t)ny);
        fb_shape ys;
        CHECK(conv_ref(nh, xh, x, wh, w, y1, &ys) == FB_OK);
        CHECK(conv_ref(nc, xc, xt, wc, wt, y2, &ys) == FB_OK);
        naive_conv(NHWC, t[i].st, t[i].pad, t[i].dil, t[i].g, &xh, x, &wh, w, &yh, y3);
        naive_conv(NCHW, t[i].st, t[i].pad, t[i].dil, t[i].g, &xc, xt, &wc, wt, &yc, y4);
        int bad_naive = 0, bad_layout = 0, nonzero = 0;
        const int64_t N = yh.dim[0], P = yh.dim[1], Q = yh.dim[2], K = yh.dim[3];
        for (int64_t e = 0; e < ny; e++) bad_naive += y1[e] != y3[e] || y2[e] != y4[e];
        for (int64_t n = 0; n < N; n++)
            for (int64_t p = 0; p < P; p++)
                for (int64_t q = 0; q < Q; q++)
                    for (int64_t k = 0; k < K; k++) {
                        const double a = y1[((n * P + p) * Q + q) * K + k], b = y2[((n * K + k) * P + p) * Q + q];
                        bad_layout += a != b;
                        nonzero += a != 0;
                    }
        if (bad_naive || bad_layout) fprintf(stderr, "conv problem %zu: %d naive, %d layout mismatches\n", i, bad_naive, bad_layout);
        CHECK(bad_naive == 0 && bad_layout == 0);
        CHECK(nonzero > ny / 2);
        free(x), free(xt), free(w), free(wt), free(y1), free(y2), free(y3), free(y4);
    }
}

/* ---- batchnorm -------------------------------------------------------------------------- */

static fb_status bn_ref(fb_node n, fb_shape xs, const double *x, const double *const *prm, double *y)
{
    const fb_shape ps = t_shape(1, xs.dim[fb_attr_int(&n.attrs, "layout", NHWC) == NHWC ? xs.rank - 1 : 1], 0, 0, 0);
    const fb_shape *in[5] = {&xs, &ps, &ps, &ps, &ps};
    fb_shape ys;
    fb_status s = fb_node_kind(&n)->shape(&n, in, &ys);
    if (s) return s;
    fb_ref_args r = {.in = {x, prm[0], prm[1], prm[2], prm[3]},
                     .in_shape = {&xs, &ps, &ps, &ps, &ps},
                     .out = y,
                     .out_shape = &ys};
    return fb_node_kind(&n)->reference(&n, &r);
}

static void test_batchnorm(void)
{
    /* shapes */
    const fb_node b = bn(NHWC, 1e-5), bc = bn(NCHW, 1e-5);
    fb_shape in[5] = {t_shape(4, 2, 5, 5, 8), t_shape(1, 8, 0, 0, 0), t_shape(1, 8, 0, 0, 0), t_shape(1, 8, 0, 0, 0),
                      t_shape(1, 8, 0, 0, 0)};
    CHECK_STR(t_node_shape(&b, 5, in), "[2, 5, 5, 8]");
    CHECK_STR(t_node_shape(&bc, 5, in),
              "error 2: in: operand 1 (mean) is [8], expected [5]: one value per channel of operand 0 [2, 5, 5, 8] "
              "(NCHW: channels on dim 1)");
    in[0] = t_shape(2, 3, 8, 0, 0); /* [N, C]: channels on dim 1 in both layouts */
    CHECK_STR(t_node_shape(&b, 5, in), "[3, 8]");
    CHECK_STR(t_node_shape(&bc, 5, in), "[3, 8]");
    in[0] = t_shape(4, 2, 8, 5, 5);
    CHECK_STR(t_node_shape(&bc, 5, in), "[2, 8, 5, 5]");
    in[3] = t_shape(2, 1, 8, 0, 0);
    CHECK_STR(t_node_shape(&bc, 5, in),
              "error 2: in: operand 3 (gamma) is [1, 8], expected [8]: one value per channel of operand 0 [2, 8, 5, "
              "5] (NCHW: channels on dim 1)");
    in[3] = t_shape(1, 8, 0, 0, 0);
    in[4] = t_shape(1, 7, 0, 0, 0);
    CHECK_STR(t_node_shape(&bc, 5, in),
              "error 2: in: operand 4 (beta) is [7], expected [8]: one value per channel of operand 0 [2, 8, 5, 5] "
              "(NCHW: channels on dim 1)");
    in[0] = t_shape(1, 8, 0, 0, 0);
    CHECK_STR(t_node_shape(&b, 5, in), "error 2: in: batchnorm needs x of rank 2 or more, operand 0 is [8]");

    /* values, eps 0: mean (1, 2, 3), var (4, 1, 0.25) so rstd (0.5, 1, 2), gamma (1, 2, 3),
     * beta (0, 1, -1). x rows (3, 2, 3.5), (1, 0, 2):
     * y = (3-1)0.5 + 0, (2-2)2 + 1, (3.5-3)2·3 - 1 = 1, 1, 2; (1-1)0.5, (0-2)2 + 1, (2-3)6 - 1 = 0, -3, -7 */
    const double mean[3] = {1, 2, 3}, var[3] = {4, 1, 0.25}, gamma[3] = {1, 2, 3}, beta[3] = {0, 1, -1};
    const double *prm[4] = {mean, var, gamma, beta};
    const double x[6] = {3, 2, 3.5, 1, 0, 2}, want[6] = {1, 1, 2, 0, -3, -7};
    double y[6];
    CHECK(bn_ref(bn(NHWC, 0.0), t_shape(2, 2, 3, 0, 0), x, prm, y) == FB_OK);
    for (int i = 0; i < 6; i++) CHECK(y[i] == want[i]);
    /* NHWC rank 4: [1, 1, 2, 3] is the same two pixels */
    CHECK(bn_ref(bn(NHWC, 0.0), t_shape(4, 1, 1, 2, 3), x, prm, y) == FB_OK);
    for (int i = 0; i < 6; i++) CHECK(y[i] == want[i]);
    /* NCHW [1, 3, 1, 2]: the pixels' channels planar */
    const double xc[6] = {3, 1, 2, 0, 3.5, 2}, wantc[6] = {1, 0, 1, -3, 2, -7};
    CHECK(bn_ref(bn(NCHW, 0.0), t_shape(4, 1, 3, 1, 2), xc, prm, y) == FB_OK);
    for (int i = 0; i < 6; i++) CHECK(y[i] == wantc[i]);
    /* eps */
    CHECK(bn_ref(bn(NHWC, 1e-5), t_shape(2, 2, 3, 0, 0), x, prm, y) == FB_OK);
    CHECK_NEAR(y[0], 2.0 / sqrt(4 + 1e-5), 1e-15);
    CHECK_NEAR(y[5], -1 * 3 / sqrt(0.25 + 1e-5) - 1, 1e-14);
}

/* ---- row rules ------------------------------------------------------------------------ */

static int value(const fb_case *c, const char *name)
{
    for (int v = 0; v < c->n_values; v++)
        if (strcmp(c->values[v].name, name) == 0) return v;
    return -1;
}

/* Full and row-by-row evaluation of c at shapes s agree. */
static void rows_agree(const fb_case *c, const fb_shape *s, const fb_rowplan *rp)
{
    double *in[FB_MAX_VALUES], *out[FB_MAX_VALUES];
    for (int v = 0; v < c->n_inputs; v++) {
        in[v] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[v]));
        fill(in[v], fb_shape_numel(&s[v]), v);
        if (!strcmp(c->values[v].name, "var"))
            for (int64_t e = 0; e < fb_shape_numel(&s[v]); e++) in[v][e] = 1.0 + fabs(in[v][e]);
    }
    for (int o = 0; o < c->n_outputs; o++)
        out[o] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[c->outputs[o]]));
    CHECK(fb_reference_eval(c, s, (const double *const *)in, out) == FB_OK);
    CHECK(fb_t_rows_match_full(c, rp, (const double *const *)in, out) == 0);
    for (int v = 0; v < c->n_inputs; v++) free(in[v]);
    for (int o = 0; o < c->n_outputs; o++) free(out[o]);
}

static fb_point at(const fb_case *c, int64_t N, int64_t C, int64_t H)
{
    fb_point p;
    fb_case_point(c, 0, &p);
    p.sym[c->axis[0].sym] = N;
    p.sym[c->axis[1].sym] = C;
    p.sym[c->fixed[0].sym] = H;
    return p;
}

static void test_rowplan_cases(void)
{
    static fb_case c;
    static const char *const names[] = {"conv_relu", "conv_add", "conv_bn"};
    for (int i = 0; i < 3; i++) {
        CHECK(fb_case_find(names[i], &c) == FB_OK);
        /* inputs as the fused variants expect them, the grid as documented */
        CHECK_STR(c.values[0].name, "x");
        CHECK_STR(c.values[1].name, "w");
        CHECK(c.n_axes == 2 && c.n_fixed == 1 && fb_case_n_grids(&c) == 2 && fb_case_n_points(&c) == 32);
        CHECK(c.n_dtypes == 3 && c.dtypes[0] == FB_F32 && c.dtypes[1] == FB_F16 && c.dtypes[2] == FB_BF16);
        fb_shape s[FB_MAX_VALUES];
        fb_point p = at(&c, 3, 8, 5);
        CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
        const int x = value(&c, "x"), w = value(&c, "w"), y = value(&c, "y"), out = value(&c, "out");
        CHECK_STR(t_shape_str(&s[x]), "[3, 5, 5, 8]");
        CHECK_STR(t_shape_str(&s[y]), "[3, 5, 5, 8]");
        CHECK_STR(t_shape_str(&s[out]), "[3, 5, 5, 8]");
        fb_costs cost;
        CHECK(fb_program_costs(&c, s, FB_F16, &cost) == FB_OK);
        const double conv_flops = 2.0 * 3 * 5 * 5 * 8 * 8 * 9, elems = 3 * 5 * 5 * 8;
        CHECK(cost.flops == conv_flops + (i == 0 ? 2 * elems : i == 1 ? elems : 2 * elems));
        CHECK(cost.eager_kernels == (i == 0 ? 3 : 2));

        fb_rowplan rp;
        CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
        CHECK(rp.separable && rp.n_split == 1 && rp.n_rows == 3 && !rp.accumulates && rp.boxes);
        CHECK_STR(t_shape_str(&rp.row_shape[x]), "[1, 5, 5, 8]");
        CHECK_STR(t_shape_str(&rp.row_shape[w]), "[8, 3, 3, 8]"); /* read whole */
        CHECK_STR(t_shape_str(&rp.row_shape[out]), "[1, 5, 5, 8]");
        CHECK(fb_rowplan_offset(&rp, x, 2) == 2 * 200 && fb_rowplan_offset(&rp, w, 2) == 0);
        rows_agree(&c, s, &rp);
        /* a single image: nothing to split, checked whole */
        p = at(&c, 1, 8, 5);
        CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
        CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
        CHECK(!rp.separable);
        CHECK_STR(rp.why, "output 'out' has size 1 along dim 0, so it has no rows to sample");

        /* the largest cell: sampled images, never unchecked; each image's reference is a few
         * seconds at most (7.4 G terms at 56x56x512) */
        fb_case_point(&c, 15, &p); /* the first grid (H = 56), N = 64, C = 512 */
        CHECK(p.sym[c.axis[0].sym] == 64 && p.sym[c.axis[1].sym] == 512 && p.sym[c.fixed[0].sym] == 56);
        CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
        fb_check_plan *plan = malloc(sizeof *plan);
        CHECK(fb_check_plan_cell(&c, s, FB_RUN_FULL_LIMIT, plan) == FB_OK);
        CHECK(plan->mode == FB_CHECK_SAMPLED && plan->by_rows && plan->rp.n_rows == 64);
        CHECK(plan->sample_rows >= 2 && plan->sample_rows < 64);
        free(plan);
    }
}

/* The NCHW chain of tests/cases/conv_odd.json: rows split on N and on the 1x1 conv's
 * K (groups 1: an output channel is its filter alone), never through the grouped conv;
 * rows, chunks of rows on 1 and 3 threads and kept rows all equal the whole. */
static void test_rowplan_odd(void)
{
    static fb_case c;
    CHECK(fb_case_load("cases/conv_odd.json", &c) == FB_OK);
    fb_point p;
    fb_case_point(&c, 0, &p);
    p.sym[c.axis[0].sym] = 3;  /* N */
    p.sym[c.axis[1].sym] = 13; /* W */
    fb_shape s[FB_MAX_VALUES];
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    const int x = value(&c, "x"), a = value(&c, "a"), b = value(&c, "b"), y = value(&c, "y"), w3 = value(&c, "w3"),
              mean = value(&c, "mean"), w2 = value(&c, "w2");
    CHECK_STR(t_shape_str(&s[a]), "[3, 6, 7, 6]");  /* NHWC: P = (11 + 2 - 3) / 2 + 1 = 6, Q = (13 + 2 - 3) / 2 + 1 = 7 */
    /* a read as NCHW [3, C 6, H 7, W 6]: P = (7 + 4 - 4 - 1) / 2 + 1 = 4, Q = (6 + 4 - 4 - 1) / 2 + 1 = 3 */
    CHECK_STR(t_shape_str(&s[b]), "[3, 10, 4, 3]");
    CHECK_STR(t_shape_str(&s[y]), "[3, 5, 4, 3]");
    fb_rowplan rp;
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_split == 2 && rp.n_rows == 15 && rp.boxes);
    CHECK_STR(t_shape_str(&rp.row_shape[x]), "[1, 11, 13, 4]");
    CHECK_STR(t_shape_str(&rp.row_shape[w2]), "[10, 3, 3, 3]");
    CHECK_STR(t_shape_str(&rp.row_shape[w3]), "[1, 10, 1, 1]");
    CHECK_STR(t_shape_str(&rp.row_shape[mean]), "[1]");
    CHECK_STR(t_shape_str(&rp.row_shape[y]), "[1, 1, 4, 3]");
    CHECK(fb_rowplan_offset(&rp, w3, 7) == 2 * 10 && fb_rowplan_offset(&rp, y, 7) == 7 * 12);
    CHECK(fb_rowplan_offset(&rp, x, 7) == 1 * 11 * 13 * 4 && fb_rowplan_offset(&rp, mean, 7) == 2);
    rows_agree(&c, s, &rp);

    double *in[FB_MAX_VALUES] = {0};
    for (int v = 0; v < c.n_inputs; v++) {
        in[v] = malloc(sizeof(double) * (size_t)fb_shape_numel(&s[v]));
        fill(in[v], fb_shape_numel(&s[v]), 0.5 + v);
        if (v == value(&c, "var"))
            for (int64_t e = 0; e < fb_shape_numel(&s[v]); e++) in[v][e] = 1.0 + fabs(in[v][e]);
    }
    const int64_t ny = fb_shape_numel(&s[y]);
    double whole[180], got[180];
    CHECK(ny == 180);
    double *outs[1] = {whole};
    CHECK(fb_reference_eval(&c, s, (const double *const *)in, outs) == FB_OK);
    for (int threads = 1; threads <= 3; threads += 2) {
        for (int i = 0; i < ny; i++) got[i] = NAN;
        fb_rowref_job job = {.c = &c, .shapes = s, .rp = &rp, .fetch = fb_t_fetch_doubles, .fetch_ctx = in,
                             .out = {got}, .threads = threads, .chunk_elems = 4000};
        int64_t rows_per_chunk, chunks;
        fb_rowref_chunking(&c, s, &rp, job.chunk_elems, &rows_per_chunk, &chunks);
        CHECK(chunks > 1);
        CHECK(fb_rowref_eval(&job) == FB_OK);
        int bad = 0;
        for (int i = 0; i < ny; i++) bad += got[i] != whole[i];
        CHECK(bad == 0);
    }
    const int64_t keep[] = {0, 7, 14};
    fb_rowref_job job = {.c = &c, .shapes = s, .rp = &rp, .fetch = fb_t_fetch_doubles, .fetch_ctx = in,
                         .keep = keep, .n_keep = 3, .out = {got}, .threads = 2};
    CHECK(fb_rowref_eval(&job) == FB_OK);
    int bad = 0;
    for (int j = 0; j < 3; j++)
        for (int e = 0; e < 12; e++) bad += got[j * 12 + e] != whole[keep[j] * 12 + e];
    CHECK(bad == 0);
    for (int v = 0; v < c.n_inputs; v++) free(in[v]);

    /* the grouped conv's output alone: its K is combined, so only N splits */
    c.outputs[0] = b;
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    CHECK(rp.separable && rp.n_split == 1 && rp.n_rows == 3);
    CHECK_STR(t_shape_str(&rp.row_shape[b]), "[1, 10, 4, 3]");
    CHECK_STR(t_shape_str(&rp.row_shape[w2]), "[10, 3, 3, 3]");
}

/* The bundled conv cases sample images on the conv's batch, which is also its
 * residual's (conv_add's D) batch: a sampled image of D is the same image of x. */
static void test_rowplan_residual(void)
{
    static fb_case c;
    CHECK(fb_case_find("conv_add", &c) == FB_OK);
    fb_point p = at(&c, 4, 16, 6);
    fb_shape s[FB_MAX_VALUES];
    CHECK(fb_program_shapes(&c, &p, s) == FB_OK);
    fb_rowplan rp;
    CHECK(fb_program_rowplan(&c, s, &rp) == FB_OK);
    const int x = value(&c, "x"), D = value(&c, "D");
    CHECK(rp.separable && rp.n_rows == 4);
    CHECK_STR(t_shape_str(&rp.row_shape[D]), "[1, 6, 6, 16]");
    CHECK(fb_rowplan_offset(&rp, D, 3) == fb_rowplan_offset(&rp, x, 3));
    rows_agree(&c, s, &rp);
}

/* ---- the stated tolerances against an emulation of eager ------------------------------ */

/* N(0, 1) from a pool drawn once: the emulation needs many cheap draws, not fresh ones */
enum { POOL = 1 << 16 };
static double g_pool[POOL];
static double gauss(void)
{
    if (g_pool[0] == 0)
        for (int i = 0; i < POOL; i++)
            g_pool[i] = sqrt(-2 * log(t_rng_uniform01())) * cos(6.283185307179586 * t_rng_uniform01());
    return g_pool[t_rng_u64() & (POOL - 1)];
}

/* One conv output of n terms: the reference in double, eager as one sequential fp32 FMA
 * chain (an implicit-GEMM thread's accumulator; the fp16/bf16 products are exact in
 * fp32), operands as stored, or rounded to TF32 first. */
static void conv_output(fb_dtype dt, int n, bool tf32, double *want, float *acc)
{
    double r = 0;
    float a = 0;
    for (int i = 0; i < n; i++) {
        const double x = t_stored(dt, gauss()), w = t_stored(dt, gauss());
        r += x * w;
        const float xf = (float)(tf32 ? t_round_to(x, 11, -126) : x), wf = (float)(tf32 ? t_round_to(w, 11, -126) : w);
        a = fmaf(xf, wf, a);
    }
    *want = r;
    *acc = a;
}

enum { EMU_OUTPUTS = 3000 };

/* Emulate EMU_OUTPUTS elements of case c (conv_relu, conv_add, conv_bn) at n = 9·C terms;
 * returns how many fail the check as run would apply the case's tolerance. Every third
 * element is a cancellation the case's N(0, 1) parameters can meet: conv_relu's bias
 * near -y where |y| < 4; conv_bn's gamma so small that (y - mean)·rstd·gamma is near
 * -beta. */
static int emulate(const fb_case *c, fb_dtype dt, int n, bool tf32, double *worst)
{
    const bool relu = !strcmp(c->name, "conv_relu"), bn = !strcmp(c->name, "conv_bn");
    static double want[EMU_OUTPUTS], got[EMU_OUTPUTS];
    for (int o = 0; o < EMU_OUTPUTS; o++) {
        double yr;
        float acc;
        conv_output(dt, n, tf32, &yr, &acc);
        const float y = (float)t_stored(dt, acc); /* eager stores the conv's output */
        const bool cancel = o % 3 == 0 && fabs(yr) < 4;
        if (relu) {
            const double bias = t_stored(dt, cancel ? -yr + 0.01 * gauss() : gauss());
            const double z = t_stored(dt, (float)(y + (float)bias)), zr = yr + bias;
            got[o] = z > 0 ? z : 0;
            want[o] = zr > 0 ? zr : 0;
        } else if (bn) {
            const double m = t_stored(dt, gauss()), v = t_stored(dt, 0.5 + t_rng_uniform01()), beta = t_stored(dt, gauss());
            const double rstd = 1.0 / sqrt(v + 1e-5);
            const double g = t_stored(dt, o % 3 == 0 && fabs(yr - m) > 1 ? -beta / ((yr - m) * rstd) * (1 + 0.01 * gauss())
                                                                       : gauss());
            const float rf = 1.0f / sqrtf((float)v + 1e-5f);
            got[o] = t_stored(dt, ((y - (float)m) * rf * (float)g + (float)beta));
            want[o] = (yr - m) * rstd * g + beta;
        } else {
            const double D = t_stored(dt, gauss());
            got[o] = t_stored(dt, (float)(y + (float)D));
            want[o] = yr + D;
        }
    }
    const fb_tol tol = fb_tolerance(c->tol[dt], fb_typical_magnitude(want, EMU_OUTPUTS));
    int bad = 0;
    *worst = 0;
    for (int o = 0; o < EMU_OUTPUTS; o++) {
        bad += !fb_within_tol(got[o], want[o], tol);
        const double r = fabs(got[o] - want[o]) / (tol.atol + tol.rtol * fabs(want[o]));
        if (r > *worst) *worst = r;
    }
    return bad;
}

static void test_tolerances(void)
{
    static fb_case c;
    static const char *const names[] = {"conv_relu", "conv_add", "conv_bn"};
    static const fb_dtype dts[] = {FB_F32, FB_F16, FB_BF16};
    t_rng_seed(12345);
    for (int i = 0; i < 3; i++) {
        CHECK(fb_case_find(names[i], &c) == FB_OK);
        /* float32 is stated in every conv case (the default's rtol·M is ~4σ of a sequential
         * fp32 sum at C·R·S = 4608); conv_relu states every dtype (its median is ~0),
         * conv_bn bfloat16 (conv_bn.fused's weights folded and rounded to bfloat16 once
         * more: worst 1.49 at median |want| 26 on the H100) */
        CHECK(c.tol[FB_F32].set);
        CHECK(c.tol[FB_F16].set == (i == 0) && c.tol[FB_BF16].set == (i != 1));
        for (int d = 0; d < 3; d++)
            for (int C = 64; C <= 512; C *= 8) {
                double worst;
                const int bad = emulate(&c, dts[d], 9 * C, false, &worst);
                if (getenv("FB_TEST_VERBOSE") || worst >= 0.5)
                    fprintf(stderr, "%s %s C=%d: %d of %d emulated outputs fail; the worst uses %.2f of its tolerance\n",
                            c.name, fb_dtype_name(dts[d]), C, bad, EMU_OUTPUTS, worst);
                CHECK(bad == 0);
                CHECK(worst < 0.5); /* headroom: the GPU checks millions of elements, not thousands */
            }
        /* TF32 rounding is caught: float32 means IEEE float32 */
        for (int C = 64; C <= 512; C *= 8) {
            double worst;
            const int bad = emulate(&c, FB_F32, 9 * C, true, &worst);
            if (getenv("FB_TEST_VERBOSE") || bad <= EMU_OUTPUTS / 20)
                fprintf(stderr, "%s float32 C=%d with TF32: %d of %d fail\n", c.name, C, bad, EMU_OUTPUTS);
            CHECK(bad > EMU_OUTPUTS / 20);
        }
    }
}

int main(void)
{
    test_kinds();
    test_parse();
    test_conv_shape();
    test_costs();
    test_conv_reference();
    test_conv_layouts();
    test_batchnorm();
    test_rowplan_cases();
    test_rowplan_odd();
    test_rowplan_residual();
    test_tolerances();
    return fb_t_report("test_conv");
}
