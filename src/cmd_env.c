/* cmd_env.c — `fusionbench env`: what the benchmark numbers stand on.
 *
 * Prints the device facts every result file records (name, compute capability,
 * SMs, L2, memory, clocks, bus, driver/runtime/cuBLAS/cuDNN versions, the L2
 * flush size) and one measurement: the device-to-device copy bandwidth of a
 * large buffer (2 GiB by default) under the same timer `run` uses, L2 flushed
 * before each sample. GB/s count bytes read + written, as every GB/s figure in
 * fusionbench does, so this number is the practical ceiling ("speed of light")
 * a memory-bound fused kernel is compared with. Then the clocks as NVML reads
 * them after that copy (what `run` records around each cell), or why it cannot,
 * and whether `--timer cupti` can run: the libcupti found at run time (path and
 * API version), or "absent" with what was searched.
 *
 * No GPU: fb_device_open's FB_E_NO_GPU is returned unchanged, so main prints its
 * one line and exits 77. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clocks.h"
#include "commands.h"
#include "cupti_loader.h"
#include "device.h"
#include "opts.h"
#include "result.h"

/* Largest --bytes: far above any GPU's memory; a typo like 2000G is refused before
 * a device allocation fails on it. */
#define MAX_COPY_BYTES ((int64_t)1 << 40)

static void usage(FILE *f, const fb_opt *opts, int n)
{
    fprintf(f,
            "usage: fusionbench env [--json] [--bytes N]\n"
            "\n"
            "Print device facts and the measured device-to-device copy bandwidth.\n"
            "\n");
    fb_opts_help(f, opts, n, NULL);
    fprintf(f,
            "\n"
            "Bandwidth counts bytes read + written; the L2 is flushed before every sample.\n"
            "The cupti line names the libcupti --timer cupti would load ($FB_CUPTI_LIB, the\n"
            "library path, the CUDA toolkit, Python's nvidia/cu13 wheels), or says it is absent.\n"
            "Exit status: 0 ok, 2 usage, 4 CUDA error, 77 no usable GPU.\n");
}

static void version_str(int v, char *buf, size_t n) /* 13000 -> "13.0" */
{
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

static void cublas_str(int v, char *buf, size_t n) /* 130100 -> "13.1.0" */
{
    snprintf(buf, n, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
}

static void cudnn_str(size_t v, char *buf, size_t n) /* 91900 -> "9.19.0" (cuDNN 9: M*10000 + m*100 + p) */
{
    snprintf(buf, n, "%zu.%zu.%zu", v / 10000, (v / 100) % 100, v % 100);
}

typedef struct env_result {
    fb_clock_reading clocks; /* NaN: not read */
    char clocks_note[512];   /* the NVML library, or why there are no clocks */
    size_t bytes, flush_bytes;
    double gbps, gbps_p20, gbps_p80, kernel_gbps;
    fb_stats st, kernel_st;
} env_result;

static void print_text(const fb_device_info *d, const env_result *r)
{
    char drv[16], rt[16], cb[24], dnn[24];
    version_str(d->driver_version, drv, sizeof drv);
    version_str(d->runtime_version, rt, sizeof rt);
    cublas_str(d->cublas_version, cb, sizeof cb);
    cudnn_str(d->cudnn_version, dnn, sizeof dnn);
    printf("device        %s (ordinal %d)\n", d->name, d->ordinal);
    printf("compute       sm_%d%d (cc %d.%d), %d SMs, SM clock %d MHz\n", d->cc_major, d->cc_minor, d->cc_major,
           d->cc_minor, d->sms, d->sm_clock_mhz);
    printf("memory        %.1f GiB, memory clock %d MHz, %d-bit bus, peak %.0f GB/s\n",
           d->mem_bytes / 1073741824.0, d->mem_clock_mhz, d->bus_width_bits, d->peak_bw_gbps);
    printf("L2            %.1f MiB (flush buffer %.0f MiB)\n", d->l2_bytes / 1048576.0, r->flush_bytes / 1048576.0);
    printf("shared mem    %zu KiB per block (opt-in)\n", d->smem_per_block_optin / 1024);
    printf("software      driver CUDA %s, runtime %s, cuBLAS %s, cuDNN %s\n", drv, rt, cb, dnn);
    char cupti[4096 + 64];
    printf("cupti         %s\n", fb_cupti_describe(cupti, sizeof cupti));
    printf("copy D2D      %.2f GiB: %.1f GB/s median (p20 %.1f, p80 %.1f; %.3f ms, n=%d)", r->bytes / 1073741824.0,
           r->gbps, r->gbps_p20, r->gbps_p80, r->st.median, r->st.n);
    if (d->peak_bw_gbps > 0) printf(", %.0f%% of peak", 100.0 * r->gbps / d->peak_bw_gbps);
    printf("\n");
    printf("copy kernel   %.2f GiB: %.1f GB/s median (%.3f ms, n=%d): fusionbench's 16-byte streaming copy\n",
           r->bytes / 1073741824.0, r->kernel_gbps, r->kernel_st.median, r->kernel_st.n);
    const fb_clock_reading *c = &r->clocks;
    if (isfinite(c->sm_mhz) || isfinite(c->mem_mhz) || isfinite(c->temp_c) || isfinite(c->power_w))
        printf("clocks now    SM %.0f MHz, memory %.0f MHz, %.0f C, %.0f W (NVML: %s)\n", c->sm_mhz, c->mem_mhz,
               c->temp_c, c->power_w, r->clocks_note);
    else
        printf("clocks now    not read: %s\n", r->clocks_note);
}

static fb_status print_json(const fb_device_info *d, const fb_timer_opts *o, const env_result *r)
{
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    /* Device keys match the result file's "device" object. */
    json_t *dev = json_pack("{s:s, s:i, s:s, s:i, s:I, s:I, s:I, s:i, s:i, s:i, s:o, s:i, s:i, s:i, s:I}",
                            "name", d->name, "ordinal", d->ordinal, "cc", cc, "sms", d->sms,
                            "l2_bytes", (json_int_t)d->l2_bytes, "mem_bytes", (json_int_t)d->mem_bytes,
                            "smem_per_block_optin", (json_int_t)d->smem_per_block_optin,
                            "sm_clock_mhz", d->sm_clock_mhz, "mem_clock_mhz", d->mem_clock_mhz,
                            "bus_width_bits", d->bus_width_bits, "peak_bw_gbps", fb_json_real(d->peak_bw_gbps),
                            "driver", d->driver_version, "runtime", d->runtime_version,
                            "cublas", d->cublas_version, "cudnn", (json_int_t)d->cudnn_version);
    json_t *copy = json_pack("{s:I, s:o, s:o, s:o, s:o}", "bytes", (json_int_t)r->bytes, "gbps", fb_json_real(r->gbps),
                             "gbps_p20", fb_json_real(r->gbps_p20), "gbps_p80", fb_json_real(r->gbps_p80),
                             "time_ms", fb_stats_to_json(&r->st));
    json_t *timer = json_pack("{s:s, s:f, s:f, s:s, s:I}", "timer", fb_timer_mode_name(o->mode), "warmup_ms",
                              o->warmup_ms, "rep_ms", o->rep_ms, "flush", fb_flush_mode_name(o->flush),
                              "flush_bytes", (json_int_t)r->flush_bytes);
    if (copy) json_object_set_new(copy, "kernel_gbps", fb_json_real(r->kernel_gbps));
    /* the clocks after the copy, keyed as a result cell's readings; or why there are none */
    json_t *clocks = fb_clock_reading_to_json(&r->clocks);
    if (clocks) json_object_set_new(clocks, json_object_size(clocks) ? "nvml" : "not_read", json_string(r->clocks_note));
    /* {"path", "version"} of the libcupti --timer cupti would use, or {"absent": why} */
    const fb_cupti_api *api = NULL;
    json_t *cupti = fb_cupti_load(&api) == FB_OK ? json_pack("{s:s, s:I}", "path", api->path, "version", (json_int_t)api->version)
                                                 : json_pack("{s:s}", "absent", fb_last_error());
    if (dev && cupti) json_object_set_new(dev, "cupti", cupti);
    else json_decref(cupti);
    json_t *root = (dev && copy && timer && clocks)
                       ? json_pack("{s:o, s:o, s:o, s:o}", "device", dev, "settings", timer, "copy", copy, "clocks", clocks)
                       : NULL;
    if (!root) {
        json_decref(dev);
        json_decref(copy);
        json_decref(timer);
        json_decref(clocks);
        fb_error("out of host memory building JSON");
        return FB_E_NOMEM;
    }
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (!s) {
        fb_error("out of host memory writing JSON");
        return FB_E_NOMEM;
    }
    printf("%s\n", s);
    free(s);
    return FB_OK;
}

static fb_status measure(fb_context *ctx, const fb_timer_opts *o, env_result *r)
{
    fb_timer *t = NULL;
    FB_TRY(fb_timer_create(&ctx->dev, o, ctx->stream, &t));
    r->flush_bytes = fb_timer_flush_bytes(t);
    fb_set_context("env: copy bandwidth of %zu bytes", r->bytes);
    fb_status s = fb_timer_copy_bandwidth(t, r->bytes, false, &r->gbps, &r->st);
    if (s == FB_OK) s = fb_timer_copy_bandwidth(t, r->bytes, true, &r->kernel_gbps, &r->kernel_st);
    fb_set_context(NULL);
    fb_timer_destroy(t);
    if (s != FB_OK) return s;
    /* Bandwidth is bytes / time: the 20th percentile of bandwidth is the 80th of time. */
    r->gbps_p20 = 2.0 * (double)r->bytes / (r->st.p80 * 1e-3) / 1e9;
    r->gbps_p80 = 2.0 * (double)r->bytes / (r->st.p20 * 1e-3) / 1e9;
    /* read right after the copy, while the clocks are still those of work */
    fb_nvml *n = NULL;
    fb_clock_reading_clear(&r->clocks);
    if (fb_nvml_open_cuda(ctx->dev.ordinal, &n) == FB_OK) {
        fb_nvml_read(n, &r->clocks);
        snprintf(r->clocks_note, sizeof r->clocks_note, "%s", fb_nvml_library(n));
        fb_nvml_close(n);
    } else {
        snprintf(r->clocks_note, sizeof r->clocks_note, "%s", fb_last_error());
    }
    return FB_OK;
}

fb_status fb_cmd_env(int argc, char **argv)
{
    bool json = false;
    env_result r = {0};
    r.bytes = (size_t)2 << 30;
    const fb_opt opts[] = {
        {.name = "json", .kind = FB_OPT_FLAG, .dst = &json, .help = "print one JSON object on stdout"},
        {.name = "bytes", .kind = FB_OPT_BYTES, .dst = &r.bytes, .arg = "N", .ilo = 1, .ihi = MAX_COPY_BYTES,
         .help = "bytes to copy: digits with an optional suffix K, M, G\n(KiB, MiB, GiB); default 2G, at most 1024G"},
    };
    const int n_opts = (int)(sizeof opts / sizeof opts[0]);
    if (fb_wants_help(argc, argv)) {
        usage(stdout, opts, n_opts);
        return FB_OK;
    }
    fb_cmdline cl = {.cmd = "env", .opts = opts, .n_opts = n_opts};
    fb_status ps = fb_opts_parse(&cl, argc, argv);
    fb_cmdline_free(&cl);
    if (ps != FB_OK) return ps;

    fb_context ctx;
    fb_status s = fb_context_init(&ctx);
    if (s != FB_OK) {
        fb_context_destroy(&ctx);
        return s;
    }
    fb_timer_opts o;
    fb_timer_opts_default(&o);
    s = measure(&ctx, &o, &r);
    if (s == FB_OK) {
        if (json) s = print_json(&ctx.dev, &o, &r);
        else print_text(&ctx.dev, &r);
    }
    fb_context_destroy(&ctx);
    return s;
}
