/* horizontal_reduction_reduction.h — variant table of kernels/horizontal_reduction_reduction.cu. */
#ifndef FB_HORIZONTAL_REDUCTION_REDUCTION_H
#define FB_HORIZONTAL_REDUCTION_REDUCTION_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_horizontal_reduction_reduction_variants[];
extern const int fb_horizontal_reduction_reduction_variant_count;
/* The team kernels/rowstream.cuh's plan gives .fused rows of W elements of esz bytes (16-byte
 * units when vec) with threads_per_sm resident threads: for tests, no GPU needed (the SM count
 * falls back to 132 where none can be read). team: 0 group, 1 cta, 2 cluster; one_shot: the
 * grid covers every row once instead of the resident capacity. */
typedef struct fb_rowstream_plan_info {
    int team, lanes, threads, ctas_per_row, one_shot;
} fb_rowstream_plan_info;
fb_rowstream_plan_info fb_horizontal_reduction_reduction_plan(long long rows, long long W, int esz, int vec,
                                                              int threads_per_sm);
#ifdef __cplusplus
}
#endif
#endif
