/* run_common.h — what run and selftest share: opening the device with its
 * context and timer, and the head of a result document (tool, host, device,
 * settings). */
#ifndef FB_RUN_COMMON_H
#define FB_RUN_COMMON_H

#include <jansson.h>

#include "bench.h"
#include "device.h"

typedef struct fb_run_env {
    fb_context ctx;
    fb_timer *timer;
    fb_timer_opts opts;
} fb_run_env;

/* FB_E_NO_GPU (one clear line) when there is no usable GPU. */
fb_status fb_run_env_open(fb_run_env *env, const fb_timer_opts *opts);
void fb_run_env_close(fb_run_env *env);

json_t *fb_device_json(const fb_device_info *d);
json_t *fb_run_new_result(const fb_run_env *env, int argc, char **argv, uint64_t seed);
void fb_run_note_resume(json_t *root, int argc, char **argv);
void fb_run_finish(json_t *root);

#endif
