/* eager.h — the GPU interpreter: one kernel launch per program node, every
 * intermediate in tracked device memory, reused as a caching allocator would
 * once its last reader has run. */
#ifndef FB_EAGER_H
#define FB_EAGER_H

#include "program.h"
#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fb_eager fb_eager;

/* Plan and allocate intermediates (and the kinds' workspace) for these shapes and
 * dtype. FB_E_OOM if they do not fit. ctx (library handles, device facts) is
 * handed to every launch; it must outlive the fb_eager. */
fb_status fb_eager_create(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt, fb_context *ctx,
                          fb_eager **out);
/* Build every node's plan (its kind's prepare(): cuBLASLt descriptors and
 * heuristic, cuDNN plans) for these tensors, outside any timed region. The cell
 * calls it once and records its time as eager's prepare_ms; run() prepares on
 * its first call when nobody did. Calling it again rebuilds the plans. */
fb_status fb_eager_prepare(fb_eager *e, const fb_tensor *in, fb_tensor *out, cudaStream_t stream);
/* Run the program on `stream`: `in` are the program inputs, `out` its outputs (caller-owned). */
fb_status fb_eager_run(fb_eager *e, const fb_tensor *in, fb_tensor *out, cudaStream_t stream);
int fb_eager_launches(const fb_eager *e);
size_t fb_eager_bytes(const fb_eager *e); /* intermediates and workspace held */
void fb_eager_destroy(fb_eager *e);

#ifdef __cplusplus
}
#endif
#endif
