/* matmul_matmul.h — variant table of kernels/matmul_matmul.cu (the back-to-back GEMM
 * E = (A @ B) @ C), and its launch plan, which is host arithmetic: for tests. */
#ifndef FB_MATMUL_MATMUL_H
#define FB_MATMUL_MATMUL_H
#include <stddef.h>
#include <stdint.h>

#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_matmul_matmul_variants[];
extern const int fb_matmul_matmul_variant_count;

/* The largest K the fused kernel takes: a CTA holds its 128 x K accumulator in
 * registers and its 128 x K tile of A in shared memory. */
#define FB_MM2_MAX_K 128

/* The two kernels: mma.sync (any sm_80+ GPU, any alignment; kernels/matmul_matmul.cu) and
 * wgmma (sm_90a, rows 16-byte aligned; kernels/matmul_matmul_wgmma.cu). */
#define FB_MM2_KERNEL_MMA 0
#define FB_MM2_KERNEL_WGMMA 1

/* How run() launches A [M, K] @ B [K, N] @ C [N, K] with `kernel` on a GPU where
 * `resident` CTAs of it fit at once (the occupancy calculator's CTAs per SM times the
 * SMs). */
typedef struct fb_mm2_plan {
    int kernel;              /* FB_MM2_KERNEL_*                                             */
    int kd;                  /* K padded with zeros to the kernel's width: 32 (mma only),
                                64 or 128                                                  */
    int bm, bn;              /* rows of A per CTA; columns of the intermediate per chunk    */
    int64_t m_tiles;         /* ceil(M / bm): the grid's x                                  */
    int64_t n_chunks;        /* ceil(N / bn)                                                */
    int splits;              /* the grid's y: CTAs that share a row tile, each over a range
                                of N; 1 means no second kernel                             */
    int64_t chunks_per_split;
    size_t workspace;        /* bytes of float32 partial E tiles: 0 when splits == 1       */
} fb_mm2_plan;

/* FB_OK and the plan, or FB_E_UNSUPPORTED (K outside 1..FB_MM2_MAX_K, M or N below 1
 * or beyond the kernel's 32-bit indices, resident < 1, an unknown kernel). No GPU needed. */
int fb_matmul_matmul_plan(int64_t M, int64_t N, int64_t K, int kernel, int resident, fb_mm2_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
