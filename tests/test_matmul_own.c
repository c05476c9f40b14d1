/* test_matmul_own.c — the host side of matmul_add.own (kernels/matmul_own.cu), no GPU: it is
 * registered with prepare/release/note and no workspace; supports() takes A [M, K], B [K, N],
 * D [M, N] of one half dtype with N and K multiples of 8 and 16-byte aligned buffers, and
 * declines float32 and float64, odd N or K (the TMA's 16-byte rows), unaligned buffers, a D of the
 * wrong shape, other ranks and mixed dtypes, each with its reason; a shape it takes is declined
 * here only for want of an sm_90a GPU. */
#include <stdint.h>
#include <string.h>

#include "matmul_own.h"
#include "gemm_call.h"
#include "testing.h"
#include "variant.h"

int main(void)
{
    const fb_variant *v = fb_variant_find("matmul_add.own");
    CHECK(v != NULL);
    if (!v) return fb_t_report("matmul_own");
    CHECK(v->dtypes == FB_DTYPES_HALF_AND_F32);
    CHECK(v->prepare && v->release && v->note && v->run && !v->workspace);
    gemm_call b;
    /* shapes it takes: on a machine without an sm_90a GPU the one reason left is the GPU */
    static const int64_t shapes[][3] = {{128, 2048, 1024}, {1, 8, 8}, {1000, 1032, 1000}, {300, 264, 72}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int d = FB_F16; d <= FB_BF16; d++) {
            gemm_call_make(&b, (fb_dtype)d, shapes[i][0], shapes[i][1], shapes[i][2], true);
            char why[256] = "";
            const int st = v->supports(&b.call, why, sizeof why);
            if (st != FB_OK && !strstr(why, "sm_90a")) fprintf(stderr, "  shape %zu: %s\n", i, why);
            CHECK(st == FB_OK || (st == FB_E_UNSUPPORTED && strstr(why, "sm_90a")));
        }
    gemm_call_make(&b, FB_F32, 128, 128, 64, true);
    CHECK(gemm_call_declines(v, &b, "float16 and bfloat16"));
    gemm_call_make(&b, FB_F64, 128, 128, 64, true);
    CHECK(gemm_call_declines(v, &b, "float16 and bfloat16"));
    gemm_call_make(&b, FB_BF16, 128, 130, 64, true);
    CHECK(gemm_call_declines(v, &b, "multiples of 8"));
    gemm_call_make(&b, FB_F16, 128, 128, 61, true);
    CHECK(gemm_call_declines(v, &b, "multiples of 8"));
    gemm_call_make(&b, FB_BF16, 128, 128, 64, true);
    b.in[1].data = (void *)(uintptr_t)0x200008;
    CHECK(gemm_call_declines(v, &b, "16-byte aligned operands"));
    gemm_call_make(&b, FB_BF16, 128, 128, 64, true);
    b.out[0].data = (void *)(uintptr_t)0x400004;
    CHECK(gemm_call_declines(v, &b, "16-byte aligned output"));
    gemm_call_make(&b, FB_BF16, 128, 128, 64, true);
    b.in[2].shape = (fb_shape){2, {128, 64}};
    CHECK(gemm_call_declines(v, &b, "D [M, N]"));
    gemm_call_make(&b, FB_BF16, 128, 128, 64, true);
    b.in[0].shape = (fb_shape){3, {2, 128, 64}};
    CHECK(gemm_call_declines(v, &b, "rank-2"));
    gemm_call_make(&b, FB_BF16, 128, 128, 64, true);
    b.in[2].dtype = FB_F16;
    CHECK(gemm_call_declines(v, &b, "one dtype"));
    /* run() before prepare() is an error, not a crash */
    gemm_call_make(&b, FB_BF16, 128, 128, 64, true);
    CHECK(v->run(&b.call) == FB_E_USAGE);
    v->release(NULL);
    CHECK(v->note(NULL) == NULL);
    return fb_t_report("matmul_own");
}
