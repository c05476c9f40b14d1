/* device.c — the GPU as fusionbench sees it: device facts, checked-call error
 * messages, the tracked device allocator and the shared context.
 *
 * Errors: every CUDA/cuBLAS/cuDNN status goes through fb_*_status, which writes
 * "CALL failed: NAME (description) at file:line [while CONTEXT]" so a failure
 * names the call and the cell in flight. Out-of-memory is its own status
 * (FB_E_OOM) because the driver records it per cell and goes on.
 *
 * Allocation: fb_dmalloc/fb_dfree wrap plain cudaMalloc/cudaFree and keep a
 * small ptr -> size table, so the driver can report a variant's footprint and
 * peak. The table is a flat array: fusionbench holds tens of buffers at a time,
 * never thousands. Single-threaded by design, like the rest of the driver. */
#include "device.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- error messages ------------------------------------------------------ */

/* "../src/eager.c" -> "src/eager.c": meson compiles from the build dir. */
static const char *short_file(const char *file)
{
    while (strncmp(file, "../", 3) == 0) file += 3;
    return file;
}

static void set_call_error(const char *what, const char *name, const char *desc, const char *file,
                           int line)
{
    const char *ctx = fb_context_str();
    if (ctx && ctx[0])
        fb_error("%s failed: %s (%s) at %s:%d while %s", what, name, desc, short_file(file), line, ctx);
    else
        fb_error("%s failed: %s (%s) at %s:%d", what, name, desc, short_file(file), line);
}

fb_status fb_cuda_status(int err, const char *what, const char *file, int line)
{
    if (err == (int)cudaSuccess) return FB_OK;
    cudaError_t e = (cudaError_t)err;
    set_call_error(what, cudaGetErrorName(e), cudaGetErrorString(e), file, line);
    if (e == cudaErrorMemoryAllocation) {
        /* An allocation failure is not sticky: clear it so the next CUDA call
         * does not report it again, and let the caller record an OOM cell. */
        (void)cudaGetLastError();
        return FB_E_OOM;
    }
    return FB_E_CUDA;
}

fb_status fb_cublas_status(int err, const char *what, const char *file, int line)
{
    if (err == (int)CUBLAS_STATUS_SUCCESS) return FB_OK;
    cublasStatus_t s = (cublasStatus_t)err;
    set_call_error(what, cublasGetStatusName(s), cublasGetStatusString(s), file, line);
    if (s == CUBLAS_STATUS_ALLOC_FAILED) {
        (void)cudaGetLastError();
        return FB_E_OOM;
    }
    /* cuBLASLt reports "no algorithm for this problem" as NOT_SUPPORTED: the
     * variant cannot run this shape, which is a skipped cell, not a crash. */
    if (s == CUBLAS_STATUS_NOT_SUPPORTED) return FB_E_UNSUPPORTED;
    return FB_E_CUDA;
}

static const char *cudnn_status_name(int s)
{
    switch (s / 1000) {
    case 1: return "CUDNN_STATUS_NOT_INITIALIZED/VERSION";
    case 2: return "CUDNN_STATUS_BAD_PARAM";
    case 3: return "CUDNN_STATUS_NOT_SUPPORTED";
    case 4: return "CUDNN_STATUS_INTERNAL_ERROR";
    case 5: return "CUDNN_STATUS_EXECUTION_FAILED";
    }
    return "CUDNN_STATUS_UNKNOWN";
}

fb_status fb_cudnn_status(int err, const char *what, const char *file, int line)
{
    if (err == (int)CUDNN_STATUS_SUCCESS) return FB_OK;
    char name[64];
    snprintf(name, sizeof name, "%s %d", cudnn_status_name(err), err);
    set_call_error(what, name, cudnnGetErrorString((cudnnStatus_t)err), file, line);
    if (err == (int)CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) {
        (void)cudaGetLastError();
        return FB_E_OOM;
    }
    /* The 3000 family means "no engine for this problem" (shape, layout,
     * dtype, shared memory): a cell the variant cannot run. */
    if (err >= 3000 && err < 4000) return FB_E_UNSUPPORTED;
    return FB_E_CUDA;
}

/* ---- device facts -------------------------------------------------------- */

/* Why the runtime found no GPU, in words a user can act on. */
static const char *no_gpu_reason(cudaError_t e)
{
    switch (e) {
    case cudaErrorNoDevice: return "no CUDA-capable device is visible";
    case cudaErrorInsufficientDriver: return "CUDA driver not found or older than the CUDA runtime";
    case cudaErrorStubLibrary: return "CUDA driver not found (only the stub libcuda is present)";
    case cudaErrorCallRequiresNewerDriver: return "the CUDA driver is older than the CUDA runtime";
    case cudaErrorSystemDriverMismatch: return "the CUDA driver and kernel module versions differ";
    case cudaErrorDevicesUnavailable: return "all CUDA devices are busy or unavailable";
    case cudaErrorCompatNotSupportedOnDevice: return "forward-compatibility is not supported on this device";
    default: return "the CUDA runtime could not initialise";
    }
}

static int attr(enum cudaDeviceAttr a, int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return v;
}

fb_status fb_device_open(fb_device_info *info)
{
    memset(info, 0, sizeof *info);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        if (e == cudaSuccess) e = cudaErrorNoDevice;
        fb_error("no usable GPU: %s (%s: %s)", no_gpu_reason(e), cudaGetErrorName(e), cudaGetErrorString(e));
        (void)cudaGetLastError();
        return FB_E_NO_GPU;
    }
    /* Device 0 of what CUDA_VISIBLE_DEVICES exposes. */
    const int dev = 0;
    e = cudaSetDevice(dev);
    if (e != cudaSuccess) {
        fb_error("no usable GPU: device 0 cannot be used (%s: %s)", cudaGetErrorName(e), cudaGetErrorString(e));
        return FB_E_NO_GPU;
    }
    struct cudaDeviceProp p;
    FB_CUDA(cudaGetDeviceProperties(&p, dev));
    info->ordinal = dev;
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sms = p.multiProcessorCount;
    info->l2_bytes = (size_t)p.l2CacheSize;
    info->mem_bytes = p.totalGlobalMem;
    info->smem_per_block_optin = p.sharedMemPerBlockOptin;
    /* CUDA 13 dropped clockRate/memoryClockRate from cudaDeviceProp; the
     * attributes still report them, in kHz. */
    info->sm_clock_mhz = attr(cudaDevAttrClockRate, dev) / 1000;
    info->mem_clock_mhz = attr(cudaDevAttrMemoryClockRate, dev) / 1000;
    info->bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, dev);
    /* Double data rate: two transfers per memory clock over the whole bus. */
    info->peak_bw_gbps = 2.0 * info->mem_clock_mhz * 1e6 * (info->bus_width_bits / 8.0) / 1e9;
    FB_CUDA(cudaDriverGetVersion(&info->driver_version));
    FB_CUDA(cudaRuntimeGetVersion(&info->runtime_version));
    int maj = 0, min = 0, pat = 0;
    if (cublasGetProperty(MAJOR_VERSION, &maj) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &min) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &pat) == CUBLAS_STATUS_SUCCESS)
        info->cublas_version = maj * 10000 + min * 100 + pat; /* CUBLAS_VERSION's encoding */
    info->cudnn_version = cudnnGetVersion();
    return FB_OK;
}

/* ---- tracked allocation -------------------------------------------------- */

typedef struct alloc_rec {
    void *p;
    size_t bytes;
} alloc_rec;

static alloc_rec *g_allocs;
static int g_n_allocs, g_cap_allocs;
static size_t g_current, g_peak;

static int track(void *p, size_t bytes)
{
    if (g_n_allocs == g_cap_allocs) {
        int cap = g_cap_allocs ? 2 * g_cap_allocs : 64;
        alloc_rec *a = realloc(g_allocs, (size_t)cap * sizeof *a);
        if (!a) return -1;
        g_allocs = a;
        g_cap_allocs = cap;
    }
    g_allocs[g_n_allocs++] = (alloc_rec){p, bytes};
    g_current += bytes;
    if (g_current > g_peak) g_peak = g_current;
    return 0;
}

fb_status fb_dmalloc(void **p, size_t bytes)
{
    *p = NULL;
    /* cudaMalloc(0) returns NULL; allocate at least 1 byte so the pointer is a
     * real, distinct buffer that fb_dfree can find. */
    size_t n = bytes ? bytes : 1;
    cudaError_t e = cudaMalloc(p, n);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        *p = NULL;
        const char *ctx = fb_context_str();
        fb_error("out of device memory allocating %zu bytes (%.2f GiB in use by fusionbench)%s%s", bytes,
                 g_current / 1073741824.0, ctx && ctx[0] ? " while " : "", ctx && ctx[0] ? ctx : "");
        return FB_E_OOM;
    }
    FB_CUDA(e);
    if (track(*p, n) != 0) {
        cudaFree(*p);
        *p = NULL;
        fb_error("out of host memory tracking a device allocation");
        return FB_E_NOMEM;
    }
    return FB_OK;
}

void fb_dfree(void *p)
{
    if (!p) return;
    for (int i = 0; i < g_n_allocs; i++) {
        if (g_allocs[i].p != p) continue;
        g_current -= g_allocs[i].bytes;
        g_allocs[i] = g_allocs[--g_n_allocs];
        break;
    }
    /* A failing cudaFree means a sticky error is already set; the next checked
     * call reports it with its context, so there is nothing to add here. */
    (void)cudaFree(p);
}

size_t fb_dmem_current(void) { return g_current; }
size_t fb_dmem_peak(void) { return g_peak; }
void fb_dmem_reset_peak(void) { g_peak = g_current; }

/* ---- context ------------------------------------------------------------- */

fb_status fb_context_init(fb_context *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    FB_TRY(fb_device_open(&ctx->dev));
    /* Non-blocking: never serialise against the legacy default stream that a
     * library might use behind our back. */
    FB_CUDA(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    /* cuBLAS/cuDNN handles are created on first use by the variants that need
     * them: creating them costs hundreds of ms and memory we may never use. */
    return FB_OK;
}

void fb_context_destroy(fb_context *ctx)
{
    if (!ctx) return;
    if (ctx->cudnn) cudnnDestroy((cudnnHandle_t)ctx->cudnn);
    if (ctx->cublaslt) cublasLtDestroy((cublasLtHandle_t)ctx->cublaslt);
    if (ctx->cublas) cublasDestroy((cublasHandle_t)ctx->cublas);
    if (ctx->stream) cudaStreamDestroy(ctx->stream);
    ctx->cudnn = ctx->cublaslt = ctx->cublas = NULL;
    ctx->stream = NULL;
}
