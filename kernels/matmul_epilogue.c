/* matmul_epilogue.c — the matmul epilogue cases fused into one cuBLASLt call.
 *
 *   matmul.tuned           out = A·B, the plain GEMM planned as the fused ones are:
 *                          the time "the epilogue is free" is measured against
 *   matmul_add.fused       out = A·B + D        beta = 1 with cuBLASLt's C = D (D read
 *                                              once inside the GEMM's store), raced in
 *                                              prepare against matmul_add.own (the own
 *                                              TMA GEMM that loads D during its main
 *                                              loop, kernels/matmul_own.cu) where that
 *                                              takes the shape: the faster is kept
 *   matmul_bias.fused      out = A·B + bias     CUBLASLT_EPILOGUE_BIAS
 *   matmul_relu.fused      out = relu(A·B)      CUBLASLT_EPILOGUE_RELU
 *   matmul_add_relu.fused  out = relu(A·B + bias)  CUBLASLT_EPILOGUE_RELU_BIAS
 *   matmul_bias.heuristic  matmul_bias.fused with cuBLASLt's heuristic's first algorithm,
 *                          untimed (what torch.compile's addmm runs): tuning's
 *                          reference. Stop 30 found matmul_bias.fused at 2048 x 8192 x 8192
 *                          bfloat16 taking 338-386 us over four runs of one binary where
 *                          torch.compile took 337-340 with the same kernel name
 *                          (kernels/NOTES.md, "Stop 30", section 9). Stop 31 ran it
 *                          beside .fused: both kept the same algorithm and spread as
 *                          much, so the spread is the card's power state ("Stop 31").
 * Each variant's result says which algorithm it kept (its ok status's reason:
 * fb_gemm_plan_note), so runs that differ can be told apart.
 *
 * When they win: always, against eager's GEMM-then-pointwise, by the pointwise
 * kernels' traffic (eager writes C, then reads it back and writes out: 2·M·N
 * elements more for relu and bias, 3·M·N for the full add, whose D the fused
 * form reads anyway). The target is that the epilogue is free: the fused call
 * within 3% of the plain GEMM of the same shape (the `matmul` case's eager).
 * Small M·N (≤ 512²) cannot hide the kernels' launch and tail, which is where
 * eager's extra launches cost most, relatively.
 *
 * Eager and these variants go through src/lt_gemm.c with the same workspace and
 * the same heuristic request. Eager takes the heuristic's first algorithm, as
 * torch does; these variants time the heuristic's best TUNE_CANDIDATES in
 * prepare, outside the timed region, and keep the fastest, or the first where
 * none beats it by more than 1% (src/lt_gemm.c's TUNE_MARGIN; the library
 * path's "compile time", recorded as prepare_ms). The heuristic's first pick with an
 * epilogue attached measured up to 1.34x the plain GEMM (kernels/NOTES.md), so
 * an untuned fused call would measure cuBLASLt's heuristic, not the epilogue. float64 has no epilogue algorithms in cuBLASLt on
 * sm_90: prepare then reports the cell skipped with cuBLASLt's "no algorithm". */
#include "matmul_epilogue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lt_gemm.h"
#include "matmul_cudnn.h"
#include "matmul_own.h"
#include "ops/attrs.h"
#include "tune_rounds.h"

/* The program's matmul, rank 2: A [M, K] (or [K, M] with transpose_a), B [K, N]
 * (or [N, K]); the second operand of the epilogue is input 2 (D [M, N] or bias [N]). */
static int read_shape(const fb_call *call, fb_gemm_epilogue epi, bool add_d, fb_gemm_shape *g, char *why, size_t n)
{
    const fb_attrs *at = fb_call_op_attrs(call, "matmul");
    const bool ta = at && fb_attr_bool(at, "transpose_a", false), tb = at && fb_attr_bool(at, "transpose_b", false);
    const int want_in = epi == FB_GEMM_PLAIN || epi == FB_GEMM_RELU ? (add_d ? 3 : 2) : 3;
    if (call->n_in != want_in || call->n_out != 1) {
        snprintf(why, n, "expects %d inputs and 1 output, the program has %d and %d", want_in, call->n_in, call->n_out);
        return FB_E_UNSUPPORTED;
    }
    const fb_shape *a = &call->in[0].shape, *b = &call->in[1].shape, *c = &call->out[0].shape;
    if (a->rank != 2 || b->rank != 2 || c->rank != 2) {
        snprintf(why, n, "a rank-2 GEMM only (A is rank %d, B rank %d)", a->rank, b->rank);
        return FB_E_UNSUPPORTED;
    }
    *g = (fb_gemm_shape){.dt = call->out[0].dtype, .m = a->dim[ta ? 1 : 0], .k = a->dim[ta ? 0 : 1],
                         .n = b->dim[tb ? 0 : 1], .ta = ta, .tb = tb, .batch = 1, .epilogue = epi, .add_d = add_d};
    if (b->dim[tb ? 1 : 0] != g->k || c->dim[0] != g->m || c->dim[1] != g->n) {
        snprintf(why, n, "the program's shapes are not one GEMM's");
        return FB_E_UNSUPPORTED;
    }
    for (int i = 0; i < call->n_in; i++)
        if (call->in[i].dtype != call->out[0].dtype) {
            snprintf(why, n, "operands of one dtype only (input %d is %s, the output %s)", i,
                     fb_dtype_name(call->in[i].dtype), fb_dtype_name(call->out[0].dtype));
            return FB_E_UNSUPPORTED;
        }
    if (want_in == 3) {
        const fb_shape *x = &call->in[2].shape;
        const bool ok = add_d ? x->rank == 2 && x->dim[0] == g->m && x->dim[1] == g->n
                              : x->rank == 1 && x->dim[0] == g->n;
        if (!ok) {
            snprintf(why, n, "input 2 must be %s", add_d ? "D [M, N]" : "bias [N]");
            return FB_E_UNSUPPORTED;
        }
    }
    if (g->m == 0 || g->n == 0 || g->k == 0) {
        snprintf(why, n, "an empty GEMM (M, N or K is 0)");
        return FB_E_UNSUPPORTED;
    }
    return 0;
}

static fb_gemm_operands operands(const fb_call *call, const fb_gemm_shape *g)
{
    fb_gemm_operands o = {.a = call->in[0].data, .b = call->in[1].data, .c = call->out[0].data};
    if (g->add_d) o.d = call->in[2].data;
    if (g->epilogue == FB_GEMM_BIAS || g->epilogue == FB_GEMM_RELU_BIAS) o.bias = call->in[2].data;
    return o;
}

static size_t workspace(const fb_call *call) { return FB_GEMM_WORKSPACE; }

/* How many of cuBLASLt's heuristic results prepare times (lt_gemm.h), each over
 * up to six runs from a swept L2 (fewer for long GEMMs and clearly slower
 * candidates: lt_gemm.c). Its first is often not its fastest once an epilogue
 * is attached (kernels/NOTES.md); prepare_ms shows what the tuning costs. */
#define TUNE_CANDIDATES 8

static int prepare(const fb_call *call, fb_gemm_epilogue epi, bool add_d, const char *name, int candidates,
                   void **state)
{
    fb_gemm_shape g;
    char why[160];
    if (read_shape(call, epi, add_d, &g, why, sizeof why) != 0) {
        fb_error("%s: %s", name, why);
        return FB_E_UNSUPPORTED;
    }
    fb_gemm_operands o = operands(call, &g);
    /* the first of the two prepares only loads the candidates' kernels: its choice is thrown away */
    const fb_gemm_tuning tune = {candidates, call->workspace, call->stream, call->first_prepare};
    return fb_gemm_plan_create(call->ctx, &g, &o, call->workspace_bytes, &tune, name, (fb_gemm_plan **)state);
}

static int run(const fb_call *call, fb_gemm_epilogue epi, bool add_d, const char *name)
{
    if (!call->state) {
        fb_error("%s: not prepared", name);
        return FB_E_USAGE;
    }
    fb_gemm_shape g = {.epilogue = epi, .add_d = add_d};
    fb_gemm_operands o = operands(call, &g);
    return fb_gemm_run(call->state, &o, call->workspace, call->stream, name);
}

static void release(void *state) { fb_gemm_plan_destroy(state); }

/* Which algorithm prepare kept, for the result (fb_gemm_plan_note). */
static const char *note(const void *state) { return fb_gemm_plan_note((fb_gemm_plan *)state); }

/* ---- matmul_add.fused: the fastest of cuBLASLt's tuned call and the registered alternatives ----
 * cuBLASLt reads D after its main loop (1.18-1.22x the plain GEMM at K = 1024 on the H200);
 * matmul_add.own loads D during its main loop (1.10-1.25x) and matmul_add.cudnn runs cuDNN's
 * matmul graph (1.08-1.16x over four bfloat16 cells of stop 46's call 1): none wins everywhere
 * (kernels/NOTES.md, "Stop 46"). So prepare plans each that takes the shape and races them once on
 * the cell's operands (fb_tune_rounds: cuBLASLt's is kept unless another beats it by more than
 * 1%); the note says which runs. The three-way race measured 1.163x (bfloat16) and 1.164x
 * (float16) the plain GEMM, geomean over nine K = 1024 cells, against 1.187 and 1.182 with the
 * own GEMM alone beside cuBLASLt ("Stop 47"). Its cost is host time in prepare: cuDNN compiles
 * its graphs' kernels on the cell's first prepare. With eight engine configs a graph that was
 * 5-12 s a half-type cell; with the heuristics' first alone (matmul_cudnn.c, stop 48) 0.2-0.4 s
 * (wall_ms.prepare) for the same geomean (1.171 against 1.172 over the nine bfloat16 cells). */
#define ADD_ALTERNATIVES 2
static const fb_variant *add_alternative(int i)
{
    return i == 0 ? &fb_matmul_own_variants[0] : &fb_matmul_cudnn_variants[0];
}

typedef struct add_state {
    fb_gemm_plan *lt;
    void *alt[ADD_ALTERNATIVES]; /* each alternative's state, or NULL where it declined */
    int use;                     /* 0: cuBLASLt's; i + 1: alternative i */
    char note[480];
} add_state;

typedef struct add_race {
    const fb_call *call;
    add_state *st;
    int who[1 + ADD_ALTERNATIVES]; /* candidate -> 0 (cuBLASLt) or alternative + 1 */
} add_race;

/* One run of cuBLASLt's plan (use 0) or of alternative use - 1 on the call's operands. */
static int add_call(const fb_call *c, const add_state *st, int use, cudaStream_t stream)
{
    fb_call oc = *c;
    oc.stream = stream;
    if (use > 0) {
        oc.state = st->alt[use - 1];
        return add_alternative(use - 1)->run(&oc);
    }
    fb_gemm_shape g = {.epilogue = FB_GEMM_PLAIN, .add_d = true};
    fb_gemm_operands o = operands(&oc, &g);
    return fb_gemm_run(st->lt, &o, oc.workspace, stream, "matmul_add.fused");
}

static int add_launch(void *arg, int i, cudaStream_t stream)
{
    const add_race *r = arg;
    return add_call(r->call, r->st, r->who[i], stream) != FB_OK;
}

static void add_release(void *state)
{
    add_state *st = state;
    if (!st) return;
    fb_gemm_plan_destroy(st->lt);
    for (int i = 0; i < ADD_ALTERNATIVES; i++)
        if (st->alt[i]) add_alternative(i)->release(st->alt[i]);
    free(st);
}

/* cuBLASLt's workspace, or an alternative's where it asks more (the cell allocates one for all). */
static size_t add_workspace(const fb_call *c)
{
    size_t ws = FB_GEMM_WORKSPACE;
    for (int i = 0; i < ADD_ALTERNATIVES; i++) {
        const fb_variant *v = add_alternative(i);
        char why[200];
        if (v->workspace && v->supports(c, why, sizeof why) == FB_OK && v->workspace(c) > ws) ws = v->workspace(c);
    }
    return ws;
}

static int add_prepare(const fb_call *c, void **out)
{
    *out = NULL;
    add_state *st = calloc(1, sizeof *st);
    if (!st) {
        fb_error("matmul_add.fused: out of host memory");
        return FB_E_NOMEM;
    }
    int s = prepare(c, FB_GEMM_PLAIN, true, "matmul_add.fused", TUNE_CANDIDATES, (void **)&st->lt);
    add_race r = {c, st, {0}};
    int n = 1;
    for (int i = 0; s == FB_OK && i < ADD_ALTERNATIVES; i++) {
        const fb_variant *v = add_alternative(i);
        char why[200] = "";
        if (v->supports(c, why, sizeof why) != FB_OK) continue;
        s = v->prepare(c, &st->alt[i]);
        if (s == FB_E_UNSUPPORTED) { /* it cannot run here after all (no engine, no form): the others race */
            v->release(st->alt[i]);
            st->alt[i] = NULL;
            s = FB_OK;
            continue;
        }
        if (s == FB_OK) r.who[n++] = i + 1;
    }
    if (s == FB_OK && n > 1) {
        int keep = 0;
        s = c->first_prepare ? fb_tune_load(n, add_launch, &r, c->stream, &keep, "matmul_add.fused")
                             : fb_tune_rounds(c->ctx, c->stream, n, add_launch, &r, &keep, "matmul_add.fused");
        st->use = s == FB_OK ? r.who[keep] : 0;
    }
    if (s != FB_OK) {
        add_release(st);
        return s;
    }
    if (st->use > 0)
        snprintf(st->note, sizeof st->note, "%s: %s; beat cuBLASLt's (%s)", add_alternative(st->use - 1)->name,
                 add_alternative(st->use - 1)->note(st->alt[st->use - 1]), fb_gemm_plan_note(st->lt));
    else
        snprintf(st->note, sizeof st->note, "%s%s", fb_gemm_plan_note(st->lt),
                 n > 1 ? "; beat the other implementations raced" : "");
    *out = st;
    return FB_OK;
}

static int add_run(const fb_call *c)
{
    const add_state *st = c->state;
    if (!st) {
        fb_error("matmul_add.fused: not prepared");
        return FB_E_USAGE;
    }
    return add_call(c, st, st->use, c->stream);
}

static const char *add_note(const void *state) { return state ? ((const add_state *)state)->note : NULL; }

static int add_supports(const fb_call *c, char *why, size_t n)
{
    fb_gemm_shape g;
    return read_shape(c, FB_GEMM_PLAIN, true, &g, why, n);
}

/* One variant's entry points: its epilogue, whether D is added, how many candidates prepare times. */
#define EPILOGUE_VARIANT(fn, NAME, EPI, ADD_D, CANDIDATES)                                                     \
    static int fn##_supports(const fb_call *c, char *why, size_t n)                                           \
    {                                                                                                         \
        fb_gemm_shape g;                                                                                      \
        return read_shape(c, EPI, ADD_D, &g, why, n);                                                         \
    }                                                                                                         \
    static int fn##_prepare(const fb_call *c, void **state)                                                   \
    {                                                                                                         \
        return prepare(c, EPI, ADD_D, NAME, CANDIDATES, state);                                               \
    }                                                                                                         \
    static int fn##_run(const fb_call *c) { return run(c, EPI, ADD_D, NAME); }

EPILOGUE_VARIANT(plain, "matmul.tuned", FB_GEMM_PLAIN, false, TUNE_CANDIDATES)
EPILOGUE_VARIANT(bias, "matmul_bias.fused", FB_GEMM_BIAS, false, TUNE_CANDIDATES)
EPILOGUE_VARIANT(relu, "matmul_relu.fused", FB_GEMM_RELU, false, TUNE_CANDIDATES)
EPILOGUE_VARIANT(bias_relu, "matmul_add_relu.fused", FB_GEMM_RELU_BIAS, false, TUNE_CANDIDATES)
EPILOGUE_VARIANT(bias_first, "matmul_bias.heuristic", FB_GEMM_BIAS, false, 1)

#define DTYPES (FB_DTYPE_BIT(FB_F32) | FB_DTYPE_BIT(FB_F16) | FB_DTYPE_BIT(FB_BF16) | FB_DTYPE_BIT(FB_F64))

const fb_variant fb_matmul_epilogue_variants[] = {
    {.name = "matmul.tuned", .about = "A·B alone, its algorithm tuned as the fused variants' are: their reference",
     .dtypes = DTYPES, .supports = plain_supports, .workspace = workspace, .run = plain_run,
     .prepare = plain_prepare, .release = release, .note = note},
    {.name = "matmul_add.fused",
     .about = "A·B + D in one cuBLASLt call (beta = 1, C = D), or matmul_add.own or matmul_add.cudnn where one raced "
              "faster in prepare",
     .dtypes = DTYPES, .supports = add_supports, .workspace = add_workspace, .run = add_run,
     .prepare = add_prepare, .release = add_release, .note = add_note},
    {.name = "matmul_bias.fused", .about = "A·B + bias in one cuBLASLt call (the BIAS epilogue)", .dtypes = DTYPES,
     .supports = bias_supports, .workspace = workspace, .run = bias_run, .prepare = bias_prepare,
     .release = release, .note = note},
    {.name = "matmul_relu.fused", .about = "relu(A·B) in one cuBLASLt call (the RELU epilogue)", .dtypes = DTYPES,
     .supports = relu_supports, .workspace = workspace, .run = relu_run, .prepare = relu_prepare,
     .release = release, .note = note},
    {.name = "matmul_add_relu.fused", .about = "relu(A·B + bias) in one cuBLASLt call (the RELU_BIAS epilogue)",
     .dtypes = DTYPES, .supports = bias_relu_supports, .workspace = workspace, .run = bias_relu_run,
     .prepare = bias_relu_prepare, .release = release, .note = note},
    {.name = "matmul_bias.heuristic",
     .about = "A·B + bias in one cuBLASLt call, the heuristic's first algorithm untimed (torch's choice): tuning's "
              "reference",
     .dtypes = DTYPES, .supports = bias_first_supports, .workspace = workspace, .run = bias_first_run,
     .prepare = bias_first_prepare, .release = release, .note = note},
};
const int fb_matmul_epilogue_variant_count = sizeof fb_matmul_epilogue_variants / sizeof fb_matmul_epilogue_variants[0];
