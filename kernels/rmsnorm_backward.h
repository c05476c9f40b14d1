/* rmsnorm_backward.h — variant table of kernels/rmsnorm_backward.cu. */
#ifndef FB_RMSNORM_BACKWARD_H
#define FB_RMSNORM_BACKWARD_H
#include "../src/variant.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const fb_variant fb_rmsnorm_backward_variants[];
extern const int fb_rmsnorm_backward_variant_count;
/* The fused variant's host side without the launch (plan + kernel choice): FB_OK when
 * run() has a kernel for this call. No GPU needed: for tests. */
int fb_rmsnorm_backward_plan_only(const fb_call *call);
/* The pipelined kernel's staging of rows of N elements of esz bytes (16-byte aligned), as
 * pick_pipe makes it, without the device: C CTAs a row (a cluster when C > 1), `slice` units of
 * 16 bytes each, the CTA's threads, group G, units per thread U, stages S, dynamic shared bytes
 * and a stage's; whether one CTA's steps go out of phase. FB_E_UNSUPPORTED where the row does
 * not stage. For tests. */
typedef struct fb_rmsnorm_pipe_plan {
    int C;
    long slice;
    int threads, G, U, S;
    size_t smem, stage_bytes;
    int out_of_phase;
} fb_rmsnorm_pipe_plan;
int fb_rmsnorm_backward_pipe_plan(long rows, long N, int esz, fb_rmsnorm_pipe_plan *out);
/* 1 when rmsnorm_backward.fused runs the prefetched kernel on rows x N of `esz`-byte elements
 * (16-byte aligned tensors): its rule alone, no device query. */
int fb_rmsnorm_backward_takes_prefetch(long rows, long N, int esz);
#ifdef __cplusplus
}
#endif
#endif
