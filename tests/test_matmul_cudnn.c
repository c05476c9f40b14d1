/* test_matmul_cudnn.c — the host side of matmul_add.cudnn (kernels/matmul_cudnn.c), no GPU: it
 * is registered with prepare/release/note; supports() takes A [M, K], B [K, N], D [M, N] of one
 * half or float32 dtype, odd sizes included, and declines transposed operands, other ranks,
 * float64 and a D of the wrong shape; its two graphs (matmul -> + D, matmul -> + D -> + 0) are
 * accepted by cuDNN up to the plan (which alone needs a GPU). */
#include <string.h>

#include "cudnn_graph.h"
#include "matmul_cudnn.h"
#include "gemm_call.h"
#include "testing.h"
#include "variant.h"

int main(void)
{
    const fb_variant *v = fb_variant_find("matmul_add.cudnn");
    CHECK(v != NULL);
    if (!v) return fb_t_report("matmul_cudnn");
    CHECK(v->dtypes == FB_DTYPES_HALF_AND_F32);
    CHECK(v->prepare && v->release && v->note && v->run && v->workspace);
    gemm_call b;
    static const int64_t shapes[][3] = {{128, 2048, 1024}, {1, 8, 64}, {130, 136, 72}, {8192, 16384, 1024}, {7, 5, 3}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int d = 0; d < FB_F64; d++) {
            gemm_call_make(&b, (fb_dtype)d, shapes[i][0], shapes[i][1], shapes[i][2], false);
            char why[256] = "";
            const int st = v->supports(&b.call, why, sizeof why);
            if (st != FB_OK) fprintf(stderr, "  shape %zu: %s\n", i, why);
            CHECK(st == FB_OK);
            for (int zb = 0; zb <= 1; zb++) {
                fb_cudnn_graph g;
                fb_cudnn_graph_init(&g, NULL);
                int gs = fb_matmul_cudnn_graph_ops(&b.call, zb, &g);
                CHECK(gs == FB_OK);
                CHECK(g.n_io == 4 + zb);  /* A, B, D, out[, the zero bias] */
                CHECK(g.n_ops == 2 + zb); /* matmul, add D[, add 0] */
                gs = fb_cudnn_graph_finalize(&g);
                if (gs != FB_OK) fprintf(stderr, "  shape %zu zb %d: %s\n", i, zb, fb_last_error());
                CHECK(gs == FB_OK);
                fb_cudnn_graph_free(&g);
            }
        }
    gemm_call_make(&b, FB_F64, 128, 128, 64, false);
    CHECK(gemm_call_declines(v, &b, "float32, float16 or bfloat16"));
    gemm_call_make(&b, FB_BF16, 128, 128, 64, false);
    b.in[2].shape = (fb_shape){2, {128, 64}};
    CHECK(gemm_call_declines(v, &b, "D [M, N]"));
    gemm_call_make(&b, FB_BF16, 128, 128, 64, false);
    b.in[0].shape = (fb_shape){3, {2, 128, 64}};
    CHECK(gemm_call_declines(v, &b, "rank-2"));
    gemm_call_make(&b, FB_BF16, 128, 128, 64, false);
    b.in[1].dtype = FB_F16;
    CHECK(gemm_call_declines(v, &b, "one dtype"));
    /* run() before prepare() is an error, not a crash */
    gemm_call_make(&b, FB_BF16, 128, 128, 64, false);
    CHECK(v->run(&b.call) == FB_E_USAGE);
    CHECK(v->note(NULL) == NULL);
    return fb_t_report("matmul_cudnn");
}
