/* registry.c — fused variants by name. Each kernels/NAME.cu file exports a table;
 * adding a kernel file means adding its table here. */
#include "variant.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops/op_table.h"

#include "bias_dropout_add.h"
#include "bias_dropout_add_train.h"
#include "bias_gelu.h"
#include "conv_fused.h"
#include "matmul_cudnn.h"
#include "horizontal_reduction_pointwise.h"
#include "horizontal_reduction_reduction.h"
#include "pointwise_chain.h"
#include "double_softmax.h"
#include "layernorm.h"
#include "matmul_epilogue.h"
#include "matmul_matmul.h"
#include "matmul_own.h"
#include "rmsnorm.h"
#include "rmsnorm_backward.h"
#include "norm_chain.h"
#include "softmax.h"
#include "softmax_backward.h"

typedef struct variant_table {
    const fb_variant *v;
    const int *count;
} variant_table;

static const variant_table tables[] = {
    {fb_softmax_variants, &fb_softmax_variant_count},
    {fb_pointwise_chain_variants, &fb_pointwise_chain_variant_count},
    {fb_bias_gelu_variants, &fb_bias_gelu_variant_count},
    {fb_bias_dropout_add_variants, &fb_bias_dropout_add_variant_count},
    {fb_bias_dropout_add_train_variants, &fb_bias_dropout_add_train_variant_count},
    {fb_horizontal_reduction_pointwise_variants, &fb_horizontal_reduction_pointwise_variant_count},
    {fb_horizontal_reduction_reduction_variants, &fb_horizontal_reduction_reduction_variant_count},
    {fb_double_softmax_variants, &fb_double_softmax_variant_count},
    {fb_softmax_backward_variants, &fb_softmax_backward_variant_count},
    {fb_layernorm_variants, &fb_layernorm_variant_count},
    {fb_norm_chain_variants, &fb_norm_chain_variant_count},
    {fb_rmsnorm_variants, &fb_rmsnorm_variant_count},
    {fb_rmsnorm_backward_variants, &fb_rmsnorm_backward_variant_count},
    {fb_matmul_epilogue_variants, &fb_matmul_epilogue_variant_count},
    {fb_matmul_matmul_variants, &fb_matmul_matmul_variant_count},
    {fb_conv_fused_variants, &fb_conv_fused_variant_count},
    {fb_matmul_cudnn_variants, &fb_matmul_cudnn_variant_count},
    {fb_matmul_own_variants, &fb_matmul_own_variant_count},
};
#define N_TABLES (int)(sizeof tables / sizeof tables[0])

int fb_variant_count(void)
{
    int n = 0;
    for (int t = 0; t < N_TABLES; t++) n += *tables[t].count;
    return n;
}

const fb_variant *fb_variant_at(int i)
{
    for (int t = 0; t < N_TABLES; t++) {
        if (i < *tables[t].count) return &tables[t].v[i];
        i -= *tables[t].count;
    }
    return NULL;
}

const fb_variant *fb_variant_find(const char *name)
{
    for (int i = 0, n = fb_variant_count(); i < n; i++)
        if (strcmp(fb_variant_at(i)->name, name) == 0) return fb_variant_at(i);
    return NULL;
}

int fb_variant_names(const char **names, int max)
{
    int n = fb_variant_count();
    if (n > max) n = max;
    for (int i = 0; i < n; i++) names[i] = fb_variant_at(i)->name;
    return n;
}

int fb_decline(char *why, size_t n, const char *fmt, ...)
{
    if (why && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, n, fmt, ap);
        va_end(ap);
    }
    return FB_E_UNSUPPORTED;
}

const struct fb_attrs *fb_call_op_attrs(const fb_call *call, const char *op)
{
    if (!call || !call->program) return NULL;
    for (int k = 0; k < call->program->n_nodes; k++)
        if (strcmp(fb_node_op_name(&call->program->nodes[k]), op) == 0) return &call->program->nodes[k].attrs;
    return NULL;
}

void fb_variant_release(const fb_variant *v, fb_call *call)
{
    if (call->state && v->release) v->release(call->state);
    call->state = NULL;
}

int fb_prepare_twice(int (*step)(void *arg), void *arg, int (*sync)(void *sync_arg), void *sync_arg, double *ms)
{
    *ms = NAN;
    int s = step(arg);
    if (s != FB_OK) return s;
    const double t0 = fb_now_s();
    s = step(arg);
    if (s == FB_OK && sync) s = sync(sync_arg);
    *ms = (fb_now_s() - t0) * 1e3;
    return s;
}

typedef struct variant_step_arg {
    const fb_variant *v;
    fb_call *call;
    int steps; /* prepares so far */
} variant_step_arg;

/* release what the last prepare built (nothing, the first time), then prepare */
static int variant_step(void *arg)
{
    variant_step_arg *a = arg;
    fb_variant_release(a->v, a->call);
    a->call->first_prepare = a->steps++ == 0;
    const int s = a->v->prepare(a->call, &a->call->state);
    a->call->first_prepare = false;
    return s;
}

int fb_variant_prepare(const fb_variant *v, fb_call *call, int (*sync)(void *arg), void *arg, double *ms)
{
    *ms = NAN;
    if (!v->prepare) return FB_OK;
    variant_step_arg a = {v, call, 0};
    return fb_prepare_twice(variant_step, &a, sync, arg, ms);
}
