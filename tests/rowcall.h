/* rowcall.h — an fb_call for a row-wise variant's host side (supports(), planning), on fake
 * device pointers that are never dereferenced: test_rowwise's contract and plan tests and the
 * row_plans tool build their calls with it. */
#ifndef FB_T_ROWCALL_H
#define FB_T_ROWCALL_H
#include <stdint.h>

#include "fb.h"
#include "variant.h"

typedef struct t_row_call {
    fb_tensor in[4], out[1];
    fb_call call;
} t_row_call;

/* Inputs in contract order: nin row tensors [rows, W], nparam tensors [W]; one output [rows, W];
 * every pointer 16-byte aligned, but mis_at >= 0 shifts that input by one element (misaligned). */
void t_row_call_make(t_row_call *b, int nin, int nparam, fb_dtype dt, int64_t rows, int64_t W, int mis_at);

#endif
