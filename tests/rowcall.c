/* rowcall.c — see rowcall.h. */
#include "rowcall.h"

#include <string.h>

/* Fake device pointers: 16-byte aligned addresses (plus `mis` elements), never dereferenced. */
static _Alignas(16) char arena[8][64];

void t_row_call_make(t_row_call *b, int nin, int nparam, fb_dtype dt, int64_t rows, int64_t W, int mis_at)
{
    memset(b, 0, sizeof *b);
    for (int j = 0; j < nin + nparam; j++) {
        b->in[j].dtype = dt;
        b->in[j].data = arena[j] + (j == mis_at ? fb_dtype_size(dt) : 0);
        if (j < nin) {
            b->in[j].shape.rank = 2;
            b->in[j].shape.dim[0] = rows;
            b->in[j].shape.dim[1] = W;
        } else {
            b->in[j].shape.rank = 1;
            b->in[j].shape.dim[0] = W;
        }
    }
    b->out[0].dtype = dt;
    b->out[0].data = arena[7];
    b->out[0].shape.rank = 2;
    b->out[0].shape.dim[0] = rows;
    b->out[0].shape.dim[1] = W;
    b->call = (fb_call){b->in, nin + nparam, b->out, 1, NULL, 0, 0, NULL};
}
