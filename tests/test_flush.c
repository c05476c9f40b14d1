/* test_flush.c — the L2 flush modes of the timer (bench.h): their names, the
 * default, and the "flush" the result file's settings record (written by run's
 * head, validated, read back by the typed model), without a GPU. */
#include <stdlib.h>

#include "bench.h"
#include "result.h"
#include "resultset.h"
#include "run_common.h"
#include "testing.h"

static void test_names(void)
{
    static const struct { const char *name; fb_flush_mode mode; } known[] = {
        {"write", FB_FLUSH_WRITE}, {"clean", FB_FLUSH_CLEAN}, {"none", FB_FLUSH_NONE}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        fb_flush_mode m = (fb_flush_mode)99;
        CHECK(fb_flush_mode_from_name(known[i].name, &m) == 0);
        CHECK(m == known[i].mode);
        CHECK_STR(fb_flush_mode_name(known[i].mode), known[i].name);
    }
    static const char *const unknown[] = {"Write", "dirty", "", "memset", "clean "};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        fb_flush_mode m = FB_FLUSH_CLEAN;
        CHECK(fb_flush_mode_from_name(unknown[i], &m) == -1);
        CHECK(m == FB_FLUSH_CLEAN); /* untouched */
    }
    fb_flush_mode m;
    CHECK(fb_flush_mode_from_name(NULL, &m) == -1);
    CHECK_STR(fb_flush_mode_name((fb_flush_mode)7), "?");
}

/* The flush of the metrics pass and env's copy: the timer's own, and still a
 * flush (write) under --flush none. */
static void test_cold(void)
{
    CHECK(fb_flush_mode_cold(FB_FLUSH_WRITE) == FB_FLUSH_WRITE);
    CHECK(fb_flush_mode_cold(FB_FLUSH_CLEAN) == FB_FLUSH_CLEAN);
    CHECK(fb_flush_mode_cold(FB_FLUSH_NONE) == FB_FLUSH_CLEAN);
}

static void test_default(void)
{
    fb_timer_opts o;
    fb_timer_opts_default(&o);
    CHECK(o.flush == FB_FLUSH_CLEAN); /* no dirty lines: the README's flush table is the reason */
    /* none is 0, so code that asks `if (opts.flush)` still means "flushes at all" */
    CHECK(!FB_FLUSH_NONE && FB_FLUSH_WRITE && FB_FLUSH_CLEAN);
}

/* run's result head for each mode: settings.flush, valid, and read back. */
static void test_settings(void)
{
    static const fb_flush_mode modes[] = {FB_FLUSH_WRITE, FB_FLUSH_CLEAN, FB_FLUSH_NONE};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        fb_run_env env;
        memset(&env, 0, sizeof env);
        fb_timer_opts_default(&env.opts);
        env.opts.flush = modes[i];
        snprintf(env.ctx.dev.name, sizeof env.ctx.dev.name, "Test GPU");
        char *argv[] = {"run", "--flush", (char *)fb_flush_mode_name(modes[i])};
        json_t *root = fb_run_new_result(&env, 3, argv, 1);
        CHECK(root != NULL);
        if (!root) continue;
        CHECK_STR(json_string_value(json_object_get(json_object_get(root, "settings"), "flush")),
                  fb_flush_mode_name(modes[i]));
        CHECK(json_is_integer(json_object_get(json_object_get(root, "settings"), "flush_bytes")));

        /* through the file's text and back, as export and compare read it */
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        CHECK(fb_result_print(f, root) == 0);
        fclose(f);
        json_t *back = NULL;
        fb_status st = fb_result_parse(text, len, "flush.json", &back);
        if (st != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
        CHECK(st == FB_OK);
        fb_rs_doc d;
        if (st == FB_OK && fb_rs_from_json(back, "flush.json", &d) == FB_OK) {
            CHECK_STR(d.flush, fb_flush_mode_name(modes[i]));
            fb_rs_free(&d);
        } else {
            CHECK(!"read back");
        }
        json_decref(back);
        free(text);
        json_decref(root);
    }
}

int main(void)
{
    test_names();
    test_default();
    test_cold();
    test_settings();
    return fb_t_report("flush");
}
