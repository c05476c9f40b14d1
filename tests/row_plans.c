/* row_plans.c — the row engine's plan for every cell of a grid, as the CPU sees it (the 132 SMs a
 * machine without a GPU plans for): which kernel kind, CTA size, units a thread, CTAs a row, and
 * whether the parameters load with the row. A developer's tool for reading a plan rule before a
 * device call (NOTES.md "Stop 38"), run once by the CPU suite so that it keeps building:
 *
 *     build/tests/row_plans [layernorm|norm_chain|double_softmax|softmax_backward|rmsnorm_engine] [DTYPE]
 *
 * rmsnorm_engine is rmsnorm.row_engine's plan (what rmsnorm.fused runs where kernels/rmsnorm.cu's
 * use_engine says so). Rows are dim0 128..65536, columns W = 128..65536 (the four cases' default
 * grids; rmsnorm's [4, T, N] has rows = 4T); a cell reads
 * KIND/THREADS/UPT/CTAS, "e" when the parameters load early, "p" when a float32 row loads plainly
 * (not evict_last). Kinds: rowplan_info.h. */
#include <stdio.h>
#include <string.h>

#include "double_softmax.h"
#include "fb.h"
#include "layernorm.h"
#include "norm_chain.h"
#include "rmsnorm.h"
#include "rowcall.h"
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
    {"rmsnorm_engine", 1, 1, fb_rmsnorm_engine_plan_info},
};

static int plan_of(const row_op *o, fb_dtype dt, int64_t rows, int64_t W, fb_row_plan_info *p)
{
    t_row_call b;
    t_row_call_make(&b, o->nin, o->nparam, dt, rows, W, -1);
    return o->info(&b.call, p);
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
        fprintf(stderr, "usage: row_plans [layernorm|norm_chain|double_softmax|softmax_backward|rmsnorm_engine] [DTYPE]\n");
        return 2;
    }
    printf("%s %s: kind/threads/units a thread/CTAs a row (e: parameters loaded with the row, p: the row loaded plainly)\n%6s", o->name,
           fb_dtype_name(dt), "rows");
    for (int64_t W = 128; W <= 65536; W *= 2) printf(" %12lld", (long long)W);
    printf("\n");
    for (int64_t rows = 128; rows <= 65536; rows *= 2) {
        printf("%6lld", (long long)rows);
        for (int64_t W = 128; W <= 65536; W *= 2) {
            fb_row_plan_info p = {-1, -1, -1, -1, 0, 0};
            char cell[32];
            if (plan_of(o, dt, rows, W, &p) != FB_OK) snprintf(cell, sizeof cell, "none");
            else
                snprintf(cell, sizeof cell, "%d/%d/%d/%d%s%s", p.kind, p.threads, p.upt, p.ctas_per_row,
                         p.params_early ? "e" : "", p.plain_x ? "p" : "");
            printf(" %12s", cell);
        }
        printf("\n");
    }
    return 0;
}
