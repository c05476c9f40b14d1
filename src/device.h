/* device.h — the GPU: facts, tracked allocation, the shared context, and the
 * checked-call macros. Every CUDA, cuBLAS and cuDNN call goes through FB_CUDA /
 * FB_CUBLAS / FB_CUDNN, whose message names the call, file:line and fb_context_str(). */
#ifndef FB_DEVICE_H
#define FB_DEVICE_H

#include "fb.h"
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fb_device_info {
    int ordinal;
    char name[256];
    int cc_major, cc_minor;
    int sms;
    size_t l2_bytes;
    size_t mem_bytes;
    size_t smem_per_block_optin;
    int sm_clock_mhz, mem_clock_mhz, bus_width_bits;
    double peak_bw_gbps; /* datasheet-style: 2 * mem clock * bus width */
    int driver_version, runtime_version;
    int cublas_version;
    size_t cudnn_version;
} fb_device_info;

/* Open device 0 (or $CUDA_VISIBLE_DEVICES' first). FB_E_NO_GPU with a one-line
 * message when there is no driver or no device. */
fb_status fb_device_open(fb_device_info *info);

/* Turn a cudaError_t into FB_OK / FB_E_OOM / FB_E_CUDA with a message naming
 * `what` (the call), file:line and the context in flight. */
fb_status fb_cuda_status(int err, const char *what, const char *file, int line);
fb_status fb_cublas_status(int err, const char *what, const char *file, int line);
fb_status fb_cudnn_status(int err, const char *what, const char *file, int line);

#define FB_CUDA(call)                                                              \
    do {                                                                           \
        fb_status fb_s_ = fb_cuda_status((int)(call), #call, __FILE__, __LINE__);  \
        if (fb_s_ != FB_OK) return fb_s_;                                          \
    } while (0)
#define FB_TRY(expr)                                                               \
    do {                                                                           \
        fb_status fb_s_ = (expr);                                                  \
        if (fb_s_ != FB_OK) return fb_s_;                                          \
    } while (0)

/* Tracked device allocation: every byte fusionbench puts on the GPU goes through
 * here so that footprint and peak can be reported per variant. Out of memory
 * returns FB_E_OOM (after clearing CUDA's sticky-free OOM error). */
fb_status fb_dmalloc(void **p, size_t bytes);
void fb_dfree(void *p);
size_t fb_dmem_current(void);
size_t fb_dmem_peak(void);
void fb_dmem_reset_peak(void); /* peak := current */

/* Handles shared by variants, created on first use. */
typedef struct fb_context {
    fb_device_info dev;
    cudaStream_t stream;
    void *cublas;   /* cublasHandle_t   */
    void *cublaslt; /* cublasLtHandle_t */
    void *cudnn;    /* cudnnHandle_t    */
    bool tf32;      /* --tf32: TF32 allowed for float32 matmul/conv */
} fb_context;

fb_status fb_context_init(fb_context *ctx);
void fb_context_destroy(fb_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
