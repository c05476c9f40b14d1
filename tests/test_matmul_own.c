/* test_matmul_own.c — the host side of matmul_add.own (kernels/matmul_own.cu), no GPU: it is
 * registered with prepare/release/note and no workspace; supports() takes A [M, K], B [K, N],
 * D [M, N] of one half dtype with N and K multiples of 8 and 16-byte aligned buffers, and
 * declines float32 and float64, odd N or K (the TMA's 16-byte rows), unaligned buffers, a D of the
 * wrong shape, other ranks and mixed dtypes, each with its reason; a shape it takes is declined
 * here only for want of an sm_90a GPU. */
#include <stdint.h>
#include <string.h>

#include "matmul_own.h"
#include "testing.h"
#include "variant.h"

typedef struct mm_buf {
    fb_tensor in[3], out[1];
    fb_call call;
} mm_buf;

/* fake device addresses: only their alignment is read */
static void make(mm_buf *b, fb_dtype dt, int64_t m, int64_t n, int64_t k)
{
    memset(b, 0, sizeof *b);
    b->in[0] = (fb_tensor){(void *)(uintptr_t)0x100000, dt, (fb_shape){2, {m, k}}};
    b->in[1] = (fb_tensor){(void *)(uintptr_t)0x200000, dt, (fb_shape){2, {k, n}}};
    b->in[2] = (fb_tensor){(void *)(uintptr_t)0x300000, dt, (fb_shape){2, {m, n}}};
    b->out[0] = (fb_tensor){(void *)(uintptr_t)0x400000, dt, (fb_shape){2, {m, n}}};
    b->call = (fb_call){b->in, 3, b->out, 1, NULL, 0, NULL, NULL, NULL, NULL};
}

static int declines(const fb_variant *v, mm_buf *b, const char *reason_part)
{
    char why[256] = "";
    const int st = v->supports(&b->call, why, sizeof why);
    if (st != FB_E_UNSUPPORTED || !strstr(why, reason_part)) {
        fprintf(stderr, "  status %d, why '%s', wanted '%s'\n", st, why, reason_part);
        return 0;
    }
    return 1;
}

int main(void)
{
    const fb_variant *v = fb_variant_find("matmul_add.own");
    CHECK(v != NULL);
    if (!v) return fb_t_report("matmul_own");
    CHECK(v->dtypes == FB_DTYPES_HALF_AND_F32);
    CHECK(v->prepare && v->release && v->note && v->run && !v->workspace);
    mm_buf b;
    /* shapes it takes: on a machine without an sm_90a GPU the one reason left is the GPU */
    static const int64_t shapes[][3] = {{128, 2048, 1024}, {1, 8, 8}, {1000, 1032, 1000}, {300, 264, 72}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int d = FB_F16; d <= FB_BF16; d++) {
            make(&b, (fb_dtype)d, shapes[i][0], shapes[i][1], shapes[i][2]);
            char why[256] = "";
            const int st = v->supports(&b.call, why, sizeof why);
            if (st != FB_OK && !strstr(why, "sm_90a")) fprintf(stderr, "  shape %zu: %s\n", i, why);
            CHECK(st == FB_OK || (st == FB_E_UNSUPPORTED && strstr(why, "sm_90a")));
        }
    make(&b, FB_F32, 128, 128, 64);
    CHECK(declines(v, &b, "float16 and bfloat16"));
    make(&b, FB_F64, 128, 128, 64);
    CHECK(declines(v, &b, "float16 and bfloat16"));
    make(&b, FB_BF16, 128, 130, 64);
    CHECK(declines(v, &b, "multiples of 8"));
    make(&b, FB_F16, 128, 128, 61);
    CHECK(declines(v, &b, "multiples of 8"));
    make(&b, FB_BF16, 128, 128, 64);
    b.in[1].data = (void *)(uintptr_t)0x200008;
    CHECK(declines(v, &b, "16-byte aligned operands"));
    make(&b, FB_BF16, 128, 128, 64);
    b.out[0].data = (void *)(uintptr_t)0x400004;
    CHECK(declines(v, &b, "16-byte aligned output"));
    make(&b, FB_BF16, 128, 128, 64);
    b.in[2].shape = (fb_shape){2, {128, 64}};
    CHECK(declines(v, &b, "D [M, N]"));
    make(&b, FB_BF16, 128, 128, 64);
    b.in[0].shape = (fb_shape){3, {2, 128, 64}};
    CHECK(declines(v, &b, "rank-2"));
    make(&b, FB_BF16, 128, 128, 64);
    b.in[2].dtype = FB_F16;
    CHECK(declines(v, &b, "one dtype"));
    /* run() before prepare() is an error, not a crash */
    make(&b, FB_BF16, 128, 128, 64);
    CHECK(v->run(&b.call) == FB_E_USAGE);
    v->release(NULL);
    CHECK(v->note(NULL) == NULL);
    return fb_t_report("matmul_own");
}
