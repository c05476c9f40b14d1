/* test_conv_fused.c — the host side of cuDNN's fused convolutions (kernels/conv_fused.c),
 * no GPU: the three variants are registered with prepare/release/note, their supports()
 * accepts NHWC convolutions of the shapes the cases use (3x3, 1x1, stride 2, dilation,
 * groups, odd sizes) and declines, with a reason, what cuDNN would compute differently or
 * out of bounds; prepare() declines before touching the GPU, run() without a plan is an
 * error; the cuDNN graphs they build are accepted by cuDNN itself up to the plan (which
 * alone needs a GPU). And cudnn_graph.h's pure helpers: NHWC strides in cuDNN's NCHW
 * order, the alignment of a pointer, the dtype mapping. */
#include <string.h>

#include "case.h"
#include "conv_fused.h"
#include "cudnn_graph.h"
#include "ops/attrs.h"
#include "testing.h"
#include "variant.h"

/* conv.tuned (PLAIN) is the plain convolution the three are timed in pairs with */
static const char *const names[] = {"conv_relu.fused", "conv_add.fused", "conv_bn.fused", "conv.tuned"};
enum { RELU, ADD, BN, PLAIN, N_VARIANTS };

typedef struct conv_buf {
    fb_tensor in[6], out[1];
    fb_call call;
    fb_attrs conv, bn;
} conv_buf;

static fb_shape s4(int64_t a, int64_t b, int64_t c, int64_t d) { return (fb_shape){4, {a, b, c, d}}; }
static fb_shape s1(int64_t a) { return (fb_shape){1, {a}}; }

/* x [N,H,W,C], w [K,R,S,C/groups], out [N,P,Q,K] for stride/pad/dil/groups; the epilogue
 * operands of variant v. P and Q as PyTorch computes them. */
static void make(conv_buf *b, int v, fb_dtype dt, int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r,
                 int64_t s, int64_t stride, int64_t pad, int64_t dil, int64_t groups)
{
    memset(b, 0, sizeof *b);
    const int64_t p = (h + 2 * pad - dil * (r - 1) - 1) / stride + 1;
    const int64_t q = (w + 2 * pad - dil * (s - 1) - 1) / stride + 1;
    int ni = 0;
    b->in[ni++] = (fb_tensor){NULL, dt, s4(n, h, w, c)};
    b->in[ni++] = (fb_tensor){NULL, dt, s4(k, r, s, c / groups)};
    if (v == RELU) b->in[ni++] = (fb_tensor){NULL, dt, s1(k)};
    if (v == ADD) b->in[ni++] = (fb_tensor){NULL, dt, s4(n, p, q, k)};
    if (v == BN)
        for (int i = 0; i < 4; i++) b->in[ni++] = (fb_tensor){NULL, dt, s1(k)};
    b->out[0] = (fb_tensor){NULL, dt, s4(n, p, q, k)};
    b->call = (fb_call){b->in, ni, b->out, 1, NULL, 0, NULL, NULL, NULL, NULL};
    fb_attrs_set_int(&b->conv, "stride", stride);
    fb_attrs_set_int(&b->conv, "padding", pad);
    fb_attrs_set_int(&b->conv, "dilation", dil);
    fb_attrs_set_int(&b->conv, "groups", groups);
    fb_attrs_set_real(&b->bn, "eps", 1e-5);
}

static int accepts(int v, conv_buf *b)
{
    char why[256] = "";
    int st = fb_conv_fused_supports_attrs(names[v], &b->call, &b->conv, &b->bn, why, sizeof why);
    if (st != FB_OK) fprintf(stderr, "  %s: declined: %s\n", names[v], why);
    return st == FB_OK;
}

static int declines(int v, conv_buf *b, const char *reason_part)
{
    char why[256] = "";
    int st = fb_conv_fused_supports_attrs(names[v], &b->call, &b->conv, &b->bn, why, sizeof why);
    if (st != FB_E_UNSUPPORTED || strstr(why, reason_part) == NULL) {
        fprintf(stderr, "  %s: status %d, why '%s', wanted '%s'\n", names[v], st, why, reason_part);
        return 0;
    }
    return 1;
}

static void test_registered(void)
{
    for (int v = 0; v < N_VARIANTS; v++) {
        const fb_variant *var = fb_variant_find(names[v]);
        CHECK(var != NULL);
        if (!var) continue;
        CHECK(var->dtypes == FB_DTYPES_HALF_AND_F32);
        CHECK(var->supports && var->workspace && var->run && var->prepare && var->release && var->note);
        CHECK(var->launches == 1);
        conv_buf b;
        make(&b, v, FB_F16, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        /* asked before prepare() has a plan: the bound prepare's engine must fit */
        CHECK(var->workspace(&b.call) >= ((size_t)32 << 20));
        CHECK(var->note(NULL) == NULL);
        var->release(NULL);
    }
}

/* The shapes of the cases and of selftest (ResNet/UNet layers, odd sizes, stride 2). */
static void test_accepts(void)
{
    static const int64_t shapes[][11] = {
        /* n, h, w, c, k, r, s, stride, pad, dil, groups */
        {2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1},      /* 3x3 "same"                        */
        {32, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1},   /* ResNet-50 conv2_x                 */
        {32, 56, 56, 256, 128, 1, 1, 2, 0, 1, 1}, /* 1x1 stride 2 (downsample)         */
        {8, 224, 224, 3, 64, 7, 7, 2, 3, 1, 1},   /* the stem: C = 3                   */
        {1, 7, 5, 3, 5, 3, 3, 1, 0, 1, 1},        /* odd, no padding                   */
        {3, 13, 11, 12, 6, 3, 3, 2, 1, 1, 3},     /* odd, stride 2, 3 groups           */
        {2, 9, 9, 8, 8, 3, 3, 1, 2, 2, 1},        /* dilation 2                        */
        {2, 10, 10, 32, 32, 3, 3, 1, 1, 1, 32},   /* depthwise                         */
        {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1},        /* 1x1x1                             */
    };
    for (int v = 0; v < N_VARIANTS; v++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int d = 0; d < FB_F64; d++) {
                const int64_t *x = shapes[i];
                conv_buf b;
                make(&b, v, (fb_dtype)d, x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10]);
                CHECK(accepts(v, &b));
            }
    /* the conv2d defaults: stride 1, padding 0, dilation 1, groups 1 */
    conv_buf b;
    make(&b, RELU, FB_F32, 1, 7, 5, 3, 5, 3, 3, 1, 0, 1, 1);
    memset(&b.conv, 0, sizeof b.conv);
    CHECK(accepts(RELU, &b));
    b.out[0].shape = s4(1, 7, 5, 5); /* "same" needs padding 1, which is not the default */
    CHECK(declines(RELU, &b, "[N, P, Q, K] = [1, 5, 3, 5]"));
    /* batch norm's eps: default 1e-5; an integer is a number too */
    make(&b, BN, FB_F32, 1, 7, 5, 3, 5, 3, 3, 1, 0, 1, 1);
    memset(&b.bn, 0, sizeof b.bn);
    CHECK(accepts(BN, &b));
    fb_attrs_set_int(&b.bn, "eps", 0);
    CHECK(accepts(BN, &b));
}

/* The case files themselves: each bundled conv case and its odd test case, read by the
 * loader, every grid point, through the program (call->program, as cell.c calls it):
 * the variant the case lists accepts it in every dtype the case lists. */
static void test_case_files(void)
{
    static const char *const files[] = {"conv", "conv_relu", "conv_add", "conv_bn", "../tests/cases/conv_relu_odd.json",
                                        "../tests/cases/conv_add_odd.json", "../tests/cases/conv_bn_odd.json"};
    static fb_case c;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        CHECK(fb_case_find(files[f], &c) == FB_OK);
        CHECK(c.n_fused == 1);
        const fb_variant *v = c.n_fused == 1 ? fb_variant_find(c.fused[0]) : NULL;
        CHECK(v != NULL);
        if (!v) continue;
        for (int i = 0, n = fb_case_n_points(&c); i < n; i++) {
            fb_point p;
            fb_case_point(&c, i, &p);
            fb_shape shapes[FB_MAX_VALUES];
            CHECK(fb_program_shapes(&c, &p, shapes) == FB_OK);
            for (int d = 0; d < c.n_dtypes; d++) {
                fb_tensor in[FB_MAX_VALUES], out[1];
                for (int k = 0; k < c.n_inputs; k++) in[k] = (fb_tensor){NULL, c.dtypes[d], shapes[k]};
                out[0] = (fb_tensor){NULL, c.dtypes[d], shapes[c.outputs[0]]};
                fb_call call = {in, c.n_inputs, out, 1, NULL, 0, NULL, NULL, &c, NULL};
                char why[256] = "";
                int st = v->supports(&call, why, sizeof why);
                if (st != FB_OK) fprintf(stderr, "  %s (%s): declined: %s\n", c.name, files[f], why);
                CHECK(st == FB_OK);
            }
        }
    }
}

static void test_declines(void)
{
    conv_buf b;
    for (int v = 0; v < N_VARIANTS; v++) {
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        b.call.n_in--;
        CHECK(declines(v, &b, "inputs"));
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        b.call.n_out = 2;
        CHECK(declines(v, &b, "1 output"));
        make(&b, v, FB_F64, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        CHECK(declines(v, &b, "not float64"));
        make(&b, v, FB_F16, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        b.in[b.call.n_in - 1].dtype = FB_BF16;
        CHECK(declines(v, &b, "one dtype"));
        make(&b, v, FB_F16, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        b.out[0].dtype = FB_F32;
        CHECK(declines(v, &b, "one dtype"));

        /* the program's conv2d node */
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        CHECK(fb_conv_fused_supports_attrs(names[v], &b.call, NULL, &b.bn, NULL, 0) == FB_E_UNSUPPORTED);
        char why[256] = "";
        fb_conv_fused_supports_attrs(names[v], &b.call, NULL, &b.bn, why, sizeof why);
        CHECK(strstr(why, "conv2d node") != NULL);
        /* the layout: conv2d stores the index into {"NHWC", "NCHW"}; only NHWC runs */
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        fb_attrs_set_int(&b.conv, "layout", 0);
        CHECK(accepts(v, &b));
        fb_attrs_set_int(&b.conv, "layout", 1);
        CHECK(declines(v, &b, "NHWC only"));
        CHECK(declines(v, &b, "not NCHW (conv2d)"));
        fb_attrs_set_int(&b.conv, "layout", 2);
        CHECK(declines(v, &b, "NHWC only"));
        fb_attrs_set_real(&b.conv, "layout", 0.0);
        CHECK(declines(v, &b, "not one this variant knows"));
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        fb_attrs_set_real(&b.conv, "stride", 2.0);
        CHECK(declines(v, &b, "'stride' is not one integer"));
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        fb_attrs_set_int(&b.conv, "stride", 0);
        CHECK(declines(v, &b, "stride, dilation and groups must be >= 1"));
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        fb_attrs_set_int(&b.conv, "padding", -1);
        CHECK(declines(v, &b, "padding >= 0"));
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        fb_attrs_set_int(&b.conv, "groups", 0);
        CHECK(declines(v, &b, ">= 1"));

        /* shapes */
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        b.in[0].shape = (fb_shape){3, {2, 8, 128}};
        CHECK(declines(v, &b, "rank 4"));
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        b.in[1].shape = s4(32, 3, 3, 8); /* C/groups = 16 */
        CHECK(declines(v, &b, "groups"));
        make(&b, v, FB_F32, 3, 13, 11, 12, 6, 3, 3, 2, 1, 1, 3);
        fb_attrs_set_int(&b.conv, "groups", 5); /* 12 channels do not split in 5 */
        CHECK(declines(v, &b, "groups"));
        make(&b, v, FB_F32, 2, 8, 8, 12, 32, 3, 3, 1, 1, 1, 3);
        b.in[1].shape = s4(31, 3, 3, 4); /* K = 31 is not a multiple of 3 groups */
        b.out[0].shape = s4(2, 8, 8, 31);
        if (v == RELU) b.in[2].shape = s1(31);
        if (v == ADD) b.in[2].shape = s4(2, 8, 8, 31);
        if (v == BN)
            for (int i = 2; i < 6; i++) b.in[i].shape = s1(31);
        CHECK(declines(v, &b, "groups"));
        make(&b, v, FB_F32, 1, 2, 2, 4, 4, 5, 5, 1, 1, 1, 1); /* 5x5 over a padded 4x4 */
        CHECK(declines(v, &b, "larger than the padded"));
        make(&b, v, FB_F32, 2, 8, 8, 16, 32, 3, 3, 2, 1, 1, 1);
        b.out[0].shape = s4(2, 8, 8, 32); /* stride 2 halves H and W */
        CHECK(declines(v, &b, "[2, 4, 4, 32]"));
        make(&b, v, FB_F32, 0, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        CHECK(declines(v, &b, "empty"));
    }

    /* the epilogue operands */
    make(&b, RELU, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
    b.in[2].shape = s1(33);
    CHECK(declines(RELU, &b, "bias of shape [K] = [32]"));
    b.in[2].shape = s4(1, 1, 1, 32); /* a bias is [K] */
    CHECK(declines(RELU, &b, "bias of shape [K]"));
    make(&b, ADD, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
    b.in[2].shape = s4(2, 8, 8, 31);
    CHECK(declines(ADD, &b, "D in the output's shape"));
    b.in[2].shape = s1(32); /* a broadcast D is conv_relu's bias, not this add */
    CHECK(declines(ADD, &b, "D in the output's shape"));
    static const char *const params[] = {"mean", "var", "gamma", "beta"};
    for (int i = 0; i < 4; i++) {
        make(&b, BN, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        b.in[2 + i].shape = s1(16);
        char want[64];
        snprintf(want, sizeof want, "%s of shape [K] = [32]", params[i]);
        CHECK(declines(BN, &b, want));
    }
    make(&b, BN, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
    CHECK(fb_conv_fused_supports_attrs("conv_bn.fused", &b.call, &b.conv, NULL, NULL, 0) == FB_E_UNSUPPORTED);
    fb_attrs_set_real(&b.bn, "eps", -1e-5);
    CHECK(declines(BN, &b, "eps must be finite and >= 0"));
    fb_attrs_set_real(&b.bn, "eps", NAN);
    CHECK(declines(BN, &b, "eps must be finite and >= 0"));
    make(&b, BN, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
    memset(&b.bn, 0, sizeof b.bn);
    fb_attrs_set_bool(&b.bn, "eps", true);
    CHECK(declines(BN, &b, "eps is not a number"));
    /* batch norm over channels last, as the convolution writes them */
    make(&b, BN, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
    fb_attrs_set_int(&b.bn, "layout", 0);
    CHECK(accepts(BN, &b));
    fb_attrs_set_int(&b.bn, "layout", 1);
    CHECK(declines(BN, &b, "not NCHW (batchnorm)"));

    make(&b, BN, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
    CHECK(declines(RELU, &b, "takes 3 inputs (x, w, bias), got 6"));
    char why[128] = "";
    CHECK(fb_conv_fused_supports_attrs("conv_gelu.fused", &b.call, &b.conv, &b.bn, why, sizeof why) ==
          FB_E_UNSUPPORTED);
    CHECK(strstr(why, "conv_gelu.fused") != NULL);
}

/* Without the program there are no conv2d attributes: supports() and prepare() decline
 * (prepare before any GPU call, leaving no state); run() without a plan is an error. */
static void test_without_program(void)
{
    for (int v = 0; v < N_VARIANTS; v++) {
        const fb_variant *var = fb_variant_find(names[v]);
        if (!var) continue;
        conv_buf b;
        make(&b, v, FB_F16, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
        char why[256] = "";
        CHECK(var->supports(&b.call, why, sizeof why) == FB_E_UNSUPPORTED);
        CHECK(strstr(why, "conv2d node") != NULL);
        CHECK(var->supports(&b.call, NULL, 0) == FB_E_UNSUPPORTED);
        void *state = (void *)&b; /* prepare must clear it */
        fb_clear_error();
        CHECK(var->prepare(&b.call, &state) == FB_E_UNSUPPORTED);
        CHECK(state == NULL);
        CHECK(strstr(fb_last_error(), "conv2d node") != NULL);
        CHECK(var->run(&b.call) == FB_E_CUDA);
        CHECK(strstr(fb_last_error(), "without prepare") != NULL);
    }
}

static void test_graph_helpers(void)
{
    /* NHWC [2, 5, 7, 3] as cuDNN's {N, C, H, W}: C is contiguous, then W, then H */
    const int64_t dims[4] = {2, 3, 5, 7};
    int64_t st[4];
    fb_cudnn_nhwc_strides(dims, st);
    CHECK(st[0] == 5 * 7 * 3 && st[1] == 1 && st[2] == 7 * 3 && st[3] == 3);
    /* a bias [K] as {1, K, 1, 1}: contiguous along K */
    const int64_t bias[4] = {1, 64, 1, 1};
    fb_cudnn_nhwc_strides(bias, st);
    CHECK(st[0] == 64 && st[1] == 1 && st[2] == 64 && st[3] == 64);

    CHECK(fb_cudnn_alignment(NULL) == 16);
    CHECK(fb_cudnn_alignment((void *)(uintptr_t)0x1000) == 16);
    CHECK(fb_cudnn_alignment((void *)(uintptr_t)0x1008) == 8);
    CHECK(fb_cudnn_alignment((void *)(uintptr_t)0x1004) == 4);
    CHECK(fb_cudnn_alignment((void *)(uintptr_t)0x1002) == 2);
    CHECK(fb_cudnn_alignment((void *)(uintptr_t)0x1001) == 1);

    CHECK(fb_cudnn_dtype(FB_F32) == CUDNN_DATA_FLOAT);
    CHECK(fb_cudnn_dtype(FB_F16) == CUDNN_DATA_HALF);
    CHECK(fb_cudnn_dtype(FB_BF16) == CUDNN_DATA_BFLOAT16);
    CHECK(fb_cudnn_dtype(FB_F64) == CUDNN_DATA_DOUBLE);

    /* a graph with nothing built frees cleanly, twice; a plan needs operations */
    fb_cudnn_graph g;
    fb_cudnn_graph_init(&g, NULL);
    CHECK(g.engine == -1 && g.n_io == 0 && g.plan == NULL);
    fb_cudnn_plan_opts o = {.max_workspace = 1 << 20};
    char why[64] = "";
    CHECK(fb_cudnn_graph_plan(&g, &o, why, sizeof why) != FB_OK);
    CHECK(fb_cudnn_graph_execute(&g, NULL, NULL, NULL) != FB_OK);
    /* tuning needs a plan first, and no plan has no note */
    CHECK(fb_cudnn_graph_tune(&g, NULL, NULL, NULL, NULL, false, "test") == FB_E_CUDA);
    {   /* and so is a race over several graphs with one that has none (nothing launched) */
        fb_cudnn_graph *const gs[2] = {&g, &g};
        int which = -1;
        CHECK(fb_cudnn_graphs_tune(gs, 2, NULL, NULL, NULL, NULL, false, "test", &which) == FB_E_CUDA);
        CHECK(which == -1);
    }
    {   /* fb_cudnn_graph_pick's paths that need no GPU: neither graph planned (both reasons, in order),
         * an error from either plan passed on, a graph that says it planned but has no plan refused */
        fb_cudnn_graph g2;
        fb_cudnn_graph_init(&g2, NULL);
        char why[200] = "", note[200] = "unchanged";
        fb_cudnn_alt a = {&g, FB_E_UNSUPPORTED, "graph A", "no engine a"};
        fb_cudnn_alt b = {&g2, FB_E_UNSUPPORTED, "graph B", "no engine b"};
        CHECK(fb_cudnn_graph_pick(&a, &b, NULL, NULL, NULL, NULL, false, "test", why, sizeof why, note, sizeof note) ==
              FB_E_UNSUPPORTED);
        CHECK_STR(why, "graph A: no engine a; graph B: no engine b");
        CHECK_STR(note, "unchanged");
        a.planned = FB_E_CUDA;
        CHECK(fb_cudnn_graph_pick(&a, &b, NULL, NULL, NULL, NULL, false, "test", why, sizeof why, note, sizeof note) ==
              FB_E_CUDA);
        a.planned = FB_E_UNSUPPORTED;
        b.planned = FB_E_NOMEM;
        CHECK(fb_cudnn_graph_pick(&a, &b, NULL, NULL, NULL, NULL, false, "test", why, sizeof why, note, sizeof note) ==
              FB_E_NOMEM);
        b.planned = FB_OK; /* but g2 has no plan: the tuner refuses it, nothing is launched */
        CHECK(fb_cudnn_graph_pick(&a, &b, NULL, NULL, NULL, NULL, false, "test", why, sizeof why, note, sizeof note) ==
              FB_E_CUDA);
        CHECK_STR(note, "unchanged");
        fb_cudnn_graph_free(&g2);
    }
    CHECK(fb_cudnn_graph_note(&g) == NULL);
    fb_cudnn_graph_free(&g);
    fb_cudnn_graph_free(&g);
    /* the handle: it needs the device context */
    cudnnHandle_t h;
    CHECK(fb_cudnn_handle(NULL, &h) == FB_E_CUDA);
}

/* The graphs the variants build, checked by cuDNN itself: every tensor and operation
 * descriptor finalizes (cuDNN checks dims, strides and the convolution's geometry as it
 * does) and so does the operation graph. No GPU: only the plan needs one. */
static void test_graph_ops(void)
{
    static const int64_t shapes[][11] = {
        {2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1},      {32, 56, 56, 256, 128, 1, 1, 2, 0, 1, 1},
        {8, 224, 224, 3, 64, 7, 7, 2, 3, 1, 1},   {1, 7, 5, 3, 5, 3, 3, 1, 0, 1, 1},
        {3, 13, 11, 12, 6, 3, 3, 2, 1, 1, 3},     {2, 9, 9, 8, 8, 3, 3, 1, 2, 2, 1},
        {2, 10, 10, 32, 32, 3, 3, 1, 1, 1, 32},
    };
    for (int v = 0; v < N_VARIANTS; v++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int d = 0; d < FB_F64; d++) {
                const int64_t *x = shapes[i];
                conv_buf b;
                make(&b, v, (fb_dtype)d, x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10]);
                /* conv_add builds two graphs: conv -> + D, and conv -> + D -> + 0 (a zero bias
                 * [K] as a fifth slot, after y: conv_fused.c graph_prepare_add) */
                for (int zb = 0; zb <= (v == ADD); zb++) {
                    fb_cudnn_graph g;
                    fb_cudnn_graph_init(&g, NULL);
                    int st = fb_conv_fused_graph_ops(names[v], &b.call, &b.conv, &b.bn, zb, &g);
                    if (st != FB_OK) fprintf(stderr, "  %s shape %zu: %s\n", names[v], i, fb_last_error());
                    CHECK(st == FB_OK);
                    CHECK(g.n_io == (v == PLAIN ? 3 : 4 + zb));                  /* x, w, [bias / D / b',] y[, 0] */
                    CHECK(g.n_ops == (v == RELU || zb ? 3 : v == PLAIN ? 1 : 2)); /* conv[, add[, relu / add]] */
                    st = fb_cudnn_graph_finalize(&g);
                    if (st != FB_OK) fprintf(stderr, "  %s shape %zu: %s\n", names[v], i, fb_last_error());
                    CHECK(st == FB_OK);
                    fb_cudnn_graph_free(&g);
                }
            }
    /* what supports() declines is never built */
    conv_buf b;
    make(&b, ADD, FB_F32, 2, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1);
    b.in[2].shape = s1(32);
    fb_cudnn_graph g;
    fb_cudnn_graph_init(&g, NULL);
    CHECK(fb_conv_fused_graph_ops(names[ADD], &b.call, &b.conv, &b.bn, false, &g) == FB_E_UNSUPPORTED);
    CHECK(g.n_owned == 0);

    /* and cuDNN does check the convolution: an output of the wrong size (8x8 with
     * padding 1 stays 8x8, not 7x7) does not finalize. (It checks neither the pointwise
     * ops' shapes nor the graph's wiring before a plan: those are the GPU's to verify.) */
    fb_cudnn_graph_init(&g, NULL);
    cudnnBackendDescriptor_t xd, wd, yd, acc;
    CHECK(fb_cudnn_tensor_nhwc(&g, CUDNN_DATA_HALF, 2, 16, 8, 8, false, 16, &xd) == FB_OK);
    CHECK(fb_cudnn_tensor_nhwc(&g, CUDNN_DATA_HALF, 32, 16, 3, 3, false, 16, &wd) == FB_OK);
    CHECK(fb_cudnn_tensor_nhwc(&g, CUDNN_DATA_FLOAT, 2, 32, 7, 7, true, 16, &yd) == FB_OK);
    const fb_cudnn_conv2d geom = {1, 1, 1};
    CHECK(fb_cudnn_conv_fwd(&g, xd, wd, yd, &geom, CUDNN_DATA_FLOAT) != FB_OK);
    CHECK(fb_cudnn_tensor_nhwc(&g, CUDNN_DATA_FLOAT, 2, 32, 8, 8, true, 16, &acc) == FB_OK);
    CHECK(fb_cudnn_conv_fwd(&g, xd, wd, acc, &geom, CUDNN_DATA_FLOAT) == FB_OK);
    CHECK(g.n_ops == 1);
    /* groups come from x's C over w's: 16 channels do not split into groups of 5 */
    cudnnBackendDescriptor_t w5;
    CHECK(fb_cudnn_tensor_nhwc(&g, CUDNN_DATA_HALF, 32, 5, 3, 3, false, 16, &w5) == FB_OK);
    CHECK(fb_cudnn_conv_fwd(&g, xd, w5, acc, &geom, CUDNN_DATA_FLOAT) != FB_OK);
    fb_cudnn_graph_free(&g);
}

int main(void)
{
    test_registered();
    test_accepts();
    test_case_files();
    test_declines();
    test_without_program();
    test_graph_helpers();
    test_graph_ops();
    return fb_t_report("conv_fused");
}
