/* row_plans.c — the row engine's plan for every cell of a grid, as the CPU sees it (the 132 SMs a
 * machine without a GPU plans for): which kernel kind, CTA size, units a thread, CTAs a row, and
 * whether the parameters load with the row. A developer's tool for reading a plan rule before a
 * device call (NOTES.md "Stop 38"), run once by the CPU suite so that it keeps building:
 *
 *     build/tests/row_plans [layernorm|norm_chain|double_softmax|softmax_backward] [DTYPE]
 *
 * Rows are dim0 128..65536, columns W = 128..65536 (the four cases' default grids); a cell reads
 * KIND/THREADS/UPT/CTAS, "e" when the parameters load early. Kinds: rowplan_info.h. */
#include <stdio.h>
#include <string.h>

#include "double_softmax.h"
#include "fb.h"
#include "layernorm.h"
#include "norm_chain.h"
#include "rowplan_info.h"
#include "softmax_backward.h"

typedef struct row_op {
    const char *name;
    int nin, nparam;
    int (*info)(const fb_call *, fb_row_plan_info *);
} row_op;

static const row_op ops[] = {
    {"layernorm", 1, 2, fb_layernorm_plan_info},
    {"norm_chain", 1, 0, fb_norm_chain_plan_info},
    {"double_softmax", 1, 0, fb_double_softmax_plan_info},
    {"softmax_backward", 2, 0, fb_softmax_backward_plan_info},
};

/* fake 16-byte aligned device pointers: planning never dereferences them */
static _Alignas(16) char arena[8][64];

static int plan_of(const row_op *o, fb_dtype dt, int64_t rows, int64_t W, fb_row_plan_info *p)
{
    fb_tensor in[4], out[1];
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    for (int k = 0; k < o->nin + o->nparam; k++) {
        in[k].dtype = dt;
        in[k].data = arena[k];
        if (k < o->nin) {
            in[k].shape.rank = 2;
            in[k].shape.dim[0] = rows;
            in[k].shape.dim[1] = W;
        } else {
            in[k].shape.rank = 1;
            in[k].shape.dim[0] = W;
        }
    }
    out[0].dtype = dt;
    out[0].data = arena[7];
    out[0].shape.rank = 2;
    out[0].shape.dim[0] = rows;
    out[0].shape.dim[1] = W;
    const fb_call c = {in, o->nin + o->nparam, out, 1, NULL, 0, 0, NULL};
    return o->info(&c, p);
}

int main(int argc, char **argv)
{
    const row_op *o = &ops[0];
    fb_dtype dt = FB_F32;
    if (argc > 1) {
        o = NULL;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            if (strcmp(argv[1], ops[k].name) == 0) o = &ops[k];
    }
    if (!o || (argc > 2 && fb_dtype_from_name(argv[2], &dt) != 0) || argc > 3) {
        fprintf(stderr, "usage: row_plans [layernorm|norm_chain|double_softmax|softmax_backward] [DTYPE]\n");
        return 2;
    }
    printf("%s %s: kind/threads/units a thread/CTAs a row (e: parameters loaded with the row)\n%6s", o->name,
           fb_dtype_name(dt), "rows");
    for (int64_t W = 128; W <= 65536; W *= 2) printf(" %12lld", (long long)W);
    printf("\n");
    for (int64_t rows = 128; rows <= 65536; rows *= 2) {
        printf("%6lld", (long long)rows);
        for (int64_t W = 128; W <= 65536; W *= 2) {
            fb_row_plan_info p = {-1, -1, -1, -1, 0};
            char cell[32];
            if (plan_of(o, dt, rows, W, &p) != FB_OK) snprintf(cell, sizeof cell, "none");
            else
                snprintf(cell, sizeof cell, "%d/%d/%d/%d%s", p.kind, p.threads, p.upt, p.ctas_per_row,
                         p.params_early ? "e" : "");
            printf(" %12s", cell);
        }
        printf("\n");
    }
    return 0;
}
