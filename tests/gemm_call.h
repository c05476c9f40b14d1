/* gemm_call.h — an out = A·B + D call for a variant's supports() in a CPU test: A [M, K],
 * B [K, N], D [M, N] and out [M, N] of one dtype; data pointers NULL or, with fake_data, distinct
 * 16-byte aligned addresses that are never dereferenced (a variant that checks alignment reads
 * them). test_matmul_cudnn.c and test_matmul_own.c share it. */
#ifndef FB_TEST_GEMM_CALL_H
#define FB_TEST_GEMM_CALL_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "variant.h"

typedef struct gemm_call {
    fb_tensor in[3], out[1];
    fb_call call;
} gemm_call;

static inline void gemm_call_make(gemm_call *b, fb_dtype dt, int64_t m, int64_t n, int64_t k, bool fake_data)
{
    memset(b, 0, sizeof *b);
    b->in[0] = (fb_tensor){fake_data ? (void *)(uintptr_t)0x100000 : NULL, dt, (fb_shape){2, {m, k}}};
    b->in[1] = (fb_tensor){fake_data ? (void *)(uintptr_t)0x200000 : NULL, dt, (fb_shape){2, {k, n}}};
    b->in[2] = (fb_tensor){fake_data ? (void *)(uintptr_t)0x300000 : NULL, dt, (fb_shape){2, {m, n}}};
    b->out[0] = (fb_tensor){fake_data ? (void *)(uintptr_t)0x400000 : NULL, dt, (fb_shape){2, {m, n}}};
    b->call = (fb_call){b->in, 3, b->out, 1, NULL, 0, NULL, NULL, NULL, NULL};
}

/* 1 when v declines the call with a reason that holds reason_part; else 0, with what it said. */
static inline int gemm_call_declines(const fb_variant *v, gemm_call *b, const char *reason_part)
{
    char why[256] = "";
    const int st = v->supports(&b->call, why, sizeof why);
    if (st != FB_E_UNSUPPORTED || !strstr(why, reason_part)) {
        fprintf(stderr, "  status %d, why '%s', wanted '%s'\n", st, why, reason_part);
        return 0;
    }
    return 1;
}
#endif
