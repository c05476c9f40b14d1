/* rowplan_info.h — the row engine's plan for a call (rowengine.cuh's Plan), as plain C for the
 * CPU tests: which kernel kind, CTA size, units a thread and CTAs a row. */
#ifndef FB_ROWPLAN_INFO_H
#define FB_ROWPLAN_INFO_H
#ifdef __cplusplus
extern "C" {
#endif
/* kind: 0 group rows, 1 CTA rows (ctas_per_row > 1: a cluster), 2 two-pass, 4 shared-memory
 * tiles, 5 one CTA a row with a shared-memory part, 8 one CTA a row with the first parameter
 * staged in shared memory (rowwise.cuh's Kind; 7 is no longer used). */
typedef struct fb_row_plan_info {
    int kind, threads, upt, ctas_per_row;
    int params_early; /* 1: the parameters loaded with the row (rowengine.cuh plan_params_early) */
    int plain_x;      /* 1: float32 rows loaded with the default L2 policy, not evict_last (engine_ld) */
} fb_row_plan_info;
#ifdef __cplusplus
}
#endif
#endif
