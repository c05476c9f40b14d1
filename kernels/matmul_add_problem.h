/* matmul_add_problem.h — the call of an out = A·B + D variant, read once: A [M, K], B [K, N] and
 * D [M, N] to out [M, N], rank 2, untransposed, non-empty, one dtype of the variant's set, or the
 * reason it is not. matmul_add.cudnn (kernels/matmul_cudnn.c) and matmul_add.own
 * (kernels/matmul_own.cu) read their calls through it; each adds its own limits after. */
#ifndef FB_MATMUL_ADD_PROBLEM_H
#define FB_MATMUL_ADD_PROBLEM_H
#include <stddef.h>
#include <stdint.h>

#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct fb_mm_add_problem {
    int64_t m, n, k;
    fb_dtype dt;
} fb_mm_add_problem;

/* FB_OK and *p, or FB_E_UNSUPPORTED with the reason in why (dtypes_text when the output's dtype
 * is not in `dtypes`, an FB_DTYPE_BIT set). No GPU needed. */
int fb_mm_add_problem_read(const fb_call *call, unsigned dtypes, const char *dtypes_text, fb_mm_add_problem *p,
                           char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
