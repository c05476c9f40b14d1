/* rowcheck.c — a row plan checked against the whole evaluation, for the tests of the
 * row rules (test_program.c, test_matmul.c, test_conv.c, test_cases.c), and the host
 * fetch their rowref jobs read inputs with. */
#include "rowcheck.h"

#include <stdlib.h>
#include <string.h>

/* Evaluate every row alone (row shapes, inputs sliced by fb_rowplan_offset) and
 * compare with the full evaluation: the number of mismatching elements. */
int fb_t_rows_match_full(const fb_case *c, const fb_rowplan *rp, const double *const *in, double *const *full)
{
    int bad = 0;
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
            const double *want = full[o] + base[v];
            for (int64_t e = 0; e < fb_shape_numel(&rp->row_shape[v]); e++) bad += rout[o][e] != want[e];
            free(rout[o]);
        }
    }
    return bad;
}

fb_status fb_t_fetch_doubles(void *ctx, int input, int64_t offset, int64_t n, double *dst)
{
    double *const *in = ctx;
    memcpy(dst, in[input] + offset, (size_t)n * sizeof(double));
    return FB_OK;
}
