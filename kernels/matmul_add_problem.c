/* matmul_add_problem.c — see matmul_add_problem.h. */
#include "matmul_add_problem.h"

#include <stdio.h>

#include "ops/attrs.h"

int fb_mm_add_problem_read(const fb_call *call, unsigned dtypes, const char *dtypes_text, fb_mm_add_problem *p,
                           char *why, size_t len)
{
    if (call->n_in != 3 || call->n_out != 1) return fb_decline(why, len, "takes A, B and D and gives one output");
    const fb_attrs *at = fb_call_op_attrs(call, "matmul");
    if (at && (fb_attr_bool(at, "transpose_a", false) || fb_attr_bool(at, "transpose_b", false)))
        return fb_decline(why, len, "untransposed operands only");
    const fb_shape *a = &call->in[0].shape, *b = &call->in[1].shape, *d = &call->in[2].shape, *c = &call->out[0].shape;
    if (a->rank != 2 || b->rank != 2 || d->rank != 2 || c->rank != 2) return fb_decline(why, len, "a rank-2 GEMM only");
    p->m = a->dim[0];
    p->k = a->dim[1];
    p->n = b->dim[1];
    if (b->dim[0] != p->k || c->dim[0] != p->m || c->dim[1] != p->n || d->dim[0] != p->m || d->dim[1] != p->n)
        return fb_decline(why, len, "the program's shapes are not one GEMM's and D [M, N]");
    if (p->m == 0 || p->n == 0 || p->k == 0) return fb_decline(why, len, "an empty GEMM");
    p->dt = call->out[0].dtype;
    if (!(dtypes & FB_DTYPE_BIT(p->dt))) return fb_decline(why, len, "%s", dtypes_text);
    for (int i = 0; i < 3; i++)
        if (call->in[i].dtype != p->dt) return fb_decline(why, len, "operands of one dtype only");
    return FB_OK;
}
