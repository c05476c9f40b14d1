/* run_common.c — device set-up and the result document's head, for run and selftest. */
#include "run_common.h"

#include <cublas_v2.h>
#include <cudnn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "result.h"
#include "version.h"

fb_status fb_run_env_open(fb_run_env *env, const fb_timer_opts *opts)
{
    memset(env, 0, sizeof *env);
    env->opts = *opts;
    FB_TRY(fb_context_init(&env->ctx));
    fb_status s = fb_timer_create(&env->ctx.dev, opts, env->ctx.stream, &env->timer);
    if (s != FB_OK) fb_context_destroy(&env->ctx);
    return s;
}

void fb_run_env_close(fb_run_env *env)
{
    if (env->timer) fb_timer_destroy(env->timer);
    env->timer = NULL;
    fb_context_destroy(&env->ctx);
}

static void iso_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void version_str(int v, char *buf, size_t n)
{
    /* CUDA encodes 13000 as 13.0 */
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

json_t *fb_device_json(const fb_device_info *d)
{
    char buf[64];
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(d->name));
    snprintf(buf, sizeof buf, "%d.%d", d->cc_major, d->cc_minor);
    json_object_set_new(j, "cc", json_string(buf));
    json_object_set_new(j, "sms", json_integer(d->sms));
    json_object_set_new(j, "l2_bytes", json_integer((json_int_t)d->l2_bytes));
    json_object_set_new(j, "mem_bytes", json_integer((json_int_t)d->mem_bytes));
    json_object_set_new(j, "sm_clock_mhz", json_integer(d->sm_clock_mhz));
    json_object_set_new(j, "mem_clock_mhz", json_integer(d->mem_clock_mhz));
    json_object_set_new(j, "bus_width_bits", json_integer(d->bus_width_bits));
    version_str(d->driver_version, buf, sizeof buf);
    json_object_set_new(j, "driver", json_string(buf));
    version_str(d->runtime_version, buf, sizeof buf);
    json_object_set_new(j, "runtime", json_string(buf));
    json_object_set_new(j, "cublas", json_integer(d->cublas_version));
    json_object_set_new(j, "cudnn", json_integer((json_int_t)d->cudnn_version));
    return j;
}

static json_t *command_json(int argc, char **argv)
{
    char buf[4096] = "fusionbench";
    for (int i = 0; i < argc; i++) {
        size_t k = strlen(buf);
        snprintf(buf + k, sizeof buf - k, " %s", argv[i]);
    }
    return json_string(buf);
}

json_t *fb_run_new_result(const fb_run_env *env, int argc, char **argv, uint64_t seed)
{
    char buf[256];
    json_t *root = json_object();
    json_t *tool = json_object();
    json_object_set_new(tool, "version", json_string(FB_VERSION));
    json_object_set_new(tool, "git", json_string(FB_GIT_REV));
    json_object_set_new(tool, "schema", json_integer(FB_RESULT_SCHEMA));
    json_object_set_new(root, "fusionbench", tool);
    iso_now(buf, sizeof buf);
    json_object_set_new(root, "started", json_string(buf));
    if (gethostname(buf, sizeof buf) != 0) snprintf(buf, sizeof buf, "unknown");
    json_object_set_new(root, "host", json_string(buf));
    json_object_set_new(root, "command", command_json(argc, argv));
    json_object_set_new(root, "device", fb_device_json(&env->ctx.dev));
    json_t *st = json_object();
    json_object_set_new(st, "timer", json_string(fb_timer_mode_name(env->opts.mode)));
    json_object_set_new(st, "warmup_ms", json_real(env->opts.warmup_ms));
    json_object_set_new(st, "rep_ms", json_real(env->opts.rep_ms));
    json_object_set_new(st, "max_noise_pct", json_real(env->opts.max_noise_pct));
    json_object_set_new(st, "max_wall_s", json_real(env->opts.max_wall_s));
    json_object_set_new(st, "flush", json_string(fb_flush_mode_name(env->opts.flush)));
    json_object_set_new(st, "flush_bytes", json_integer((json_int_t)fb_timer_flush_bytes(env->timer)));
    json_object_set_new(st, "seed", json_integer((json_int_t)seed));
    json_object_set_new(st, "tf32", json_boolean(env->ctx.tf32));
    json_object_set_new(root, "settings", st);
    json_object_set_new(root, "cases", json_array());
    return root;
}

void fb_run_note_resume(json_t *root, int argc, char **argv)
{
    json_t *r = json_object_get(root, "resumed");
    if (!json_is_array(r)) {
        r = json_array();
        json_object_set_new(root, "resumed", r);
    }
    char buf[64];
    iso_now(buf, sizeof buf);
    json_t *e = json_object();
    json_object_set_new(e, "at", json_string(buf));
    json_object_set_new(e, "command", command_json(argc, argv));
    json_array_append_new(r, e);
}

void fb_run_finish(json_t *root)
{
    char buf[64];
    iso_now(buf, sizeof buf);
    json_object_set_new(root, "finished", json_string(buf));
}
