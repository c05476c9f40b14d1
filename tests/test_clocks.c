/* test_clocks.c — the clocks (clocks.h) without a GPU: the throttle detector on
 * injected readings (a 9% drop passes, 11% is flagged, a missing reading never
 * is), the readings as JSON, the NVML loader against a missing library, a
 * library that is not NVML, and tests/fake_nvml.c (path in argv[1]) standing in
 * for libnvidia-ml.so.1, and the watch run puts around each cell; the step detector on
 * sample sequences (a clock change inside one measurement) and the cell mark it sets. */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "testing.h"

#define FAIL_SM_BIT 4 /* tests/fake_nvml.c: the SM clock read fails */

static fb_clock_reading reading(double sm, double mem, double temp, double power)
{
    return (fb_clock_reading){sm, mem, temp, power};
}

/* ---- the step detector ------------------------------------------------------------ */

static void test_step(void)
{
    double x[64];
    /* too few samples to have quarters: NaN, never flagged */
    for (int i = 0; i < 64; i++) x[i] = 100.0;
    CHECK(isnan(fb_samples_step(x, FB_STEP_MIN_SAMPLES - 1)));
    CHECK(!fb_step_flagged(fb_samples_step(x, 3)));
    CHECK(isnan(fb_samples_step(NULL, 32)));
    /* flat: 0 */
    CHECK_NEAR(fb_samples_step(x, 64), 0.0, 1e-12);
    CHECK(!fb_step_flagged(fb_samples_step(x, 64)));
    /* stop 42's GEMM: 7 samples at 341 us, then 394 (58 samples). The first quarter (14) holds
     * 7 of each, so its median is 367.5 and the step reads +7.2%, not the +15.5% of the clock's
     * step, but past the limit: flagged */
    double g[58];
    for (int i = 0; i < 58; i++) g[i] = i < 7 ? 341.0 : 394.0;
    CHECK_NEAR(fb_samples_step(g, 58), 394.0 / 367.5 - 1.0, 1e-12);
    CHECK(fb_step_flagged(fb_samples_step(g, 58)));
    CHECK(g[0] == 341.0 && g[57] == 394.0); /* not sorted in place */
    /* a step late enough that the last quarter holds it; one too late to reach its median does not */
    for (int i = 0; i < 64; i++) x[i] = i < 40 ? 100.0 : 110.0;
    CHECK(fb_step_flagged(fb_samples_step(x, 64))); /* the last 16 are all 110: +10% */
    for (int i = 0; i < 64; i++) x[i] = i < 58 ? 100.0 : 110.0;
    CHECK(!fb_step_flagged(fb_samples_step(x, 64))); /* 6 of the last 16: the median stays 100 */
    /* faster at the end (a clock that rose): flagged too, it is not the same clock */
    for (int i = 0; i < 64; i++) x[i] = i < 32 ? 100.0 : 90.0;
    CHECK_NEAR(fb_samples_step(x, 64), -0.10, 1e-12);
    CHECK(fb_step_flagged(fb_samples_step(x, 64)));
    /* within the limit: 4%, and exactly 5% is not "more than 5%" */
    for (int i = 0; i < 64; i++) x[i] = i < 32 ? 100.0 : 104.0;
    CHECK(!fb_step_flagged(fb_samples_step(x, 64)));
    CHECK(!fb_step_flagged(0.05) && fb_step_flagged(0.0501) && fb_step_flagged(-0.0501));
    /* noise around one level: the quarter medians agree */
    for (int i = 0; i < 64; i++) x[i] = 100.0 + ((i * 37) % 11) - 5.0; /* 95..105, no trend */
    CHECK(!fb_step_flagged(fb_samples_step(x, 64)));
    /* a median that is not positive: NaN */
    for (int i = 0; i < 64; i++) x[i] = 0.0;
    CHECK(isnan(fb_samples_step(x, 64)));

    /* the cell's mark: a variant's step_pct past the limit, or the clocks; neither: none */
    json_error_t e;
    json_t *c = json_loads("{\"variants\": {\"eager\": {\"step_pct\": 1.2}, \"v.fused\": {\"step_pct\": 15.5}}}", 0, &e);
    CHECK(c && fb_cell_json_throttled(c));
    json_decref(c);
    c = json_loads("{\"variants\": {\"eager\": {\"step_pct\": -4.9}, \"v.fused\": {}}}", 0, &e);
    CHECK(c && !fb_cell_json_throttled(c));
    json_decref(c);
    c = json_loads("{\"clocks\": {\"before\": {\"sm_clock_mhz\": 1980}, \"after\": {\"sm_clock_mhz\": 1605}},"
                   " \"variants\": {\"eager\": {\"step_pct\": 0.3}}}", 0, &e);
    CHECK(c && fb_cell_json_throttled(c));
    json_decref(c);
    CHECK(!fb_cell_json_throttled(NULL));

    /* without NVML the probe reads nothing, and a measurement records no clock */
    fb_clock_watch w;
    fb_clock_watch_init(&w, NULL);
    fb_clock_watch_probe_reset(&w);
    fb_clock_watch_probe(&w);
    CHECK(fb_clock_watch_probe_json(&w) == NULL);
}

/* ---- the detector -------------------------------------------------------------- */

static void test_detector(void)
{
    fb_clock_reading b = reading(1000, 2619, 40, 100);
    static const struct { double after; bool throttled; } steps[] = {
        {1000, false}, {1100, false}, /* the same, or faster: fine */
        {910, false},                 /* -9%: within the allowance */
        {900, false},                 /* -10% exactly: "more than 10%" it is not */
        {899, true},  {890, true},    /* -10.1%, -11% */
        {345, true},                  /* an idle clock */
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        fb_clock_reading a = reading(steps[i].after, 2619, 80, 700);
        if (fb_clocks_throttled(&b, &a) != steps[i].throttled)
            fprintf(stderr, "detector: 1000 -> %g MHz: want %s\n", steps[i].after,
                    steps[i].throttled ? "throttled" : "not throttled");
        CHECK(fb_clocks_throttled(&b, &a) == steps[i].throttled);
    }
    fb_clock_reading a = reading(890, 2619, 80, 700);
    CHECK_NEAR(fb_clocks_sm_drop(&b, &a), 0.11, 1e-12);

    /* settled: within 5% of the highest clock read; nothing to go by counts as settled */
    CHECK(fb_clocks_settled(1980, 1980) && fb_clocks_settled(1881, 1980)); /* -5% exactly */
    CHECK(!fb_clocks_settled(1880, 1980) && !fb_clocks_settled(1410, 1980));
    CHECK(fb_clocks_settled(NAN, 1980) && fb_clocks_settled(1410, 0) && fb_clocks_settled(0, 1980));

    /* a missing reading is never flagged: nothing says the clock fell */
    fb_clock_reading none;
    fb_clock_reading_clear(&none);
    CHECK(isnan(none.sm_mhz) && isnan(none.mem_mhz) && isnan(none.temp_c) && isnan(none.power_w));
    CHECK(!fb_clocks_throttled(&none, &a));
    CHECK(!fb_clocks_throttled(&b, &none));
    CHECK(!fb_clocks_throttled(&none, &none));
    CHECK(isnan(fb_clocks_sm_drop(&b, &none)));
    fb_clock_reading zero = reading(0, 2619, 40, 100), neg = reading(-5, 0, 0, 0), inf = reading(INFINITY, 0, 0, 0);
    CHECK(!fb_clocks_throttled(&zero, &a) && !fb_clocks_throttled(&b, &zero));
    CHECK(!fb_clocks_throttled(&neg, &a) && !fb_clocks_throttled(&inf, &a) && !fb_clocks_throttled(&b, &inf));
    CHECK(!fb_clocks_throttled(NULL, &a) && !fb_clocks_throttled(&b, NULL));
    /* only the SM clock counts: the memory clock falling is not throttling of the SMs */
    fb_clock_reading mem_down = reading(1000, 1000, 40, 100);
    CHECK(!fb_clocks_throttled(&b, &mem_down));

    char buf[256];
    fb_clock_reading hot = reading(1605, 2619, 71, 699.5);
    fb_clock_reading cool = reading(1980, 2619, 45, 310.25);
    CHECK_STR(fb_clocks_describe(&cool, &hot, buf, sizeof buf),
              "SM clock 1980 -> 1605 MHz (-18.9%), memory 2619 -> 2619 MHz, temperature 45 -> 71 C, power 310 -> 700 W");
    fb_clock_reading part = reading(1980, NAN, NAN, NAN);
    CHECK_STR(fb_clocks_describe(&part, &none, buf, sizeof buf), "SM clock 1980 -> ? MHz");
    CHECK_STR(fb_clocks_describe(&none, &none, buf, sizeof buf), "no clock readings");
    char tiny[12];
    fb_clocks_describe(&cool, &hot, tiny, sizeof tiny); /* cut, never overflows */
    CHECK(strlen(tiny) == sizeof tiny - 1);
}

/* ---- JSON ------------------------------------------------------------------------ */

static void test_json(void)
{
    fb_clock_reading r = reading(1980, 2619, 41, 112.3456);
    json_t *j = fb_clock_reading_to_json(&r);
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_STR(s, "{\"sm_clock_mhz\":1980,\"mem_clock_mhz\":2619,\"temp_c\":41,\"power_w\":112.346}");
    free(s);
    fb_clock_reading back;
    fb_clock_reading_from_json(j, &back);
    CHECK(back.sm_mhz == 1980 && back.mem_mhz == 2619 && back.temp_c == 41);
    CHECK_NEAR(back.power_w, 112.346, 1e-12);
    json_decref(j);

    /* what was not read is left out, and reads back as NaN */
    fb_clock_reading some = reading(1755, NAN, 60, NAN);
    j = fb_clock_reading_to_json(&some);
    s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_STR(s, "{\"sm_clock_mhz\":1755,\"temp_c\":60}");
    free(s);
    fb_clock_reading_from_json(j, &back);
    CHECK(back.sm_mhz == 1755 && isnan(back.mem_mhz) && back.temp_c == 60 && isnan(back.power_w));
    json_decref(j);

    /* a member of the wrong type reads as absent, never as a number */
    j = json_pack("{s:s, s:n, s:b, s:f}", "sm_clock_mhz", "1980", "mem_clock_mhz", "temp_c", 1, "power_w", 90.5);
    fb_clock_reading_from_json(j, &back);
    CHECK(isnan(back.sm_mhz) && isnan(back.mem_mhz) && isnan(back.temp_c) && back.power_w == 90.5);
    json_decref(j);
    fb_clock_reading_from_json(NULL, &back);
    CHECK(isnan(back.sm_mhz));

    /* a cell's clocks */
    fb_clock_reading none, b = reading(1980, 2619, 45, 300), a = reading(1600, 2619, 80, 700);
    fb_clock_reading_clear(&none);
    CHECK(fb_clocks_to_json(&none, &none) == NULL);
    json_t *c = fb_clocks_to_json(&b, &a);
    s = json_dumps(c, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_STR(s, "{\"before\":{\"sm_clock_mhz\":1980,\"mem_clock_mhz\":2619,\"temp_c\":45,\"power_w\":300},"
                 "\"after\":{\"sm_clock_mhz\":1600,\"mem_clock_mhz\":2619,\"temp_c\":80,\"power_w\":700}}");
    free(s);
    CHECK(fb_clocks_json_throttled(c));
    fb_clock_reading b2, a2;
    fb_clocks_from_json(c, &b2, &a2);
    CHECK(b2.sm_mhz == 1980 && a2.sm_mhz == 1600 && a2.power_w == 700);
    json_decref(c);
    json_t *half = fb_clocks_to_json(&b, &none); /* the after reading failed */
    CHECK(half != NULL && !fb_clocks_json_throttled(half));
    json_decref(half);
    CHECK(!fb_clocks_json_throttled(NULL));
    json_t *ok = json_pack("{s:{s:i}, s:{s:i}}", "before", "sm_clock_mhz", 1980, "after", "sm_clock_mhz", 1800);
    CHECK(!fb_clocks_json_throttled(ok)); /* -9.1% */
    json_decref(ok);
}

/* ---- NVML ------------------------------------------------------------------------- */

#define FAIL_INIT 1
#define FAIL_HANDLE 2
#define FAIL_POWER 32

typedef void (*fake_set_t)(unsigned, unsigned, unsigned, unsigned, int);
typedef void (*fake_counts_t)(int *, int *);

static void test_nvml(const char *fake)
{
    fb_nvml *n = (fb_nvml *)1;
    setenv("FB_NVML_LIB", "/no/such/libnvidia-ml.so.1", 1);
    CHECK(fb_nvml_open("00000000:01:00.0", &n) == FB_E_UNSUPPORTED);
    CHECK(n == NULL);
    CHECK(strstr(fb_last_error(), "NVML not found: dlopen(\"/no/such/libnvidia-ml.so.1\") ($FB_NVML_LIB): ") ==
          fb_last_error());

    /* a library that is not NVML */
    setenv("FB_NVML_LIB", "libm.so.6", 1);
    CHECK(fb_nvml_open("00000000:01:00.0", &n) == FB_E_UNSUPPORTED);
    CHECK_STR(fb_last_error(), "NVML: libm.so.6 has no nvmlInit_v2");

    if (!fake) {
        fprintf(stderr, "test_clocks: no fake NVML library given (argv[1]); its checks are skipped\n");
        CHECK(!"fake NVML path");
        return;
    }
    void *lib = dlopen(fake, RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", fake, dlerror());
        return;
    }
    fake_set_t set = (fake_set_t)dlsym(lib, "fake_nvml_set");
    fake_counts_t counts = (fake_counts_t)dlsym(lib, "fake_nvml_counts");
    CHECK(set && counts);
    if (!set || !counts) return;
    setenv("FB_NVML_LIB", fake, 1);

    set(1980, 2619, 40, 100000, FAIL_INIT);
    CHECK(fb_nvml_open("00000000:01:00.0", &n) == FB_E_UNSUPPORTED);
    CHECK(strstr(fb_last_error(), "NVML: nvmlInit_v2 failed (Driver Not Loaded) in ") == fb_last_error());
    set(1980, 2619, 40, 100000, 0);
    CHECK(fb_nvml_open("0000:3b:00.0", &n) == FB_E_UNSUPPORTED);
    CHECK_STR(fb_last_error(), "NVML: no device at PCI bus id 0000:3b:00.0 (Not Found)");
    int inits, shutdowns;
    counts(&inits, &shutdowns);
    CHECK(inits == 1 && shutdowns == 1); /* a failed open leaves NVML as it found it */

    CHECK(fb_nvml_open("00000000:01:00.0", &n) == FB_OK);
    CHECK(n != NULL);
    if (!n) return;
    CHECK_STR(fb_nvml_library(n), fake);
    fb_clock_reading r;
    fb_nvml_read(n, &r);
    CHECK(r.sm_mhz == 1980 && r.mem_mhz == 2619 && r.temp_c == 40 && r.power_w == 100);
    set(1755, 2619, 77, 654321, FAIL_POWER);
    fb_nvml_read(n, &r);
    CHECK(r.sm_mhz == 1755 && r.temp_c == 77 && isnan(r.power_w));
    fb_nvml_read(NULL, &r);
    CHECK(isnan(r.sm_mhz));

    /* the watch around each cell */
    fb_clock_watch w;
    fb_clock_watch_init(&w, n);
    char why[256];
    bool thr = true;
    set(1980, 2619, 45, 310000, 0);
    fb_clock_watch_before(&w);
    set(1980, 2619, 60, 650000, 0);
    json_t *c = fb_clock_watch_after(&w, &thr, why, sizeof why);
    CHECK(c != NULL && !thr && why[0] == 0 && w.throttled == 0);
    char *s = json_dumps(c, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_STR(s, "{\"before\":{\"sm_clock_mhz\":1980,\"mem_clock_mhz\":2619,\"temp_c\":45,\"power_w\":310},"
                 "\"after\":{\"sm_clock_mhz\":1980,\"mem_clock_mhz\":2619,\"temp_c\":60,\"power_w\":650}}");
    free(s);
    json_decref(c);

    fb_clock_watch_before(&w);
    set(1782, 2619, 70, 699000, 0); /* -10.0%: not more than 10% */
    c = fb_clock_watch_after(&w, &thr, why, sizeof why);
    CHECK(!thr && w.throttled == 0);
    json_decref(c);

    set(1980, 2619, 45, 310000, 0);
    fb_clock_watch_before(&w);
    set(1762, 2619, 83, 700000, 0); /* -11.0% */
    c = fb_clock_watch_after(&w, &thr, why, sizeof why);
    CHECK(thr && w.throttled == 1);
    CHECK_STR(why, "SM clock 1980 -> 1762 MHz (-11.0%), memory 2619 -> 2619 MHz, temperature 45 -> 83 C, "
                   "power 310 -> 700 W");
    CHECK(fb_clocks_json_throttled(c));
    json_decref(c);

    /* after without a before (a reading that failed): not throttled */
    set(1000, 2619, 45, 310000, 0);
    c = fb_clock_watch_after(&w, &thr, why, sizeof why);
    CHECK(!thr && w.throttled == 1);
    json_decref(c);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fb_clock_watch_report(&w, f);
    fclose(f);
    CHECK_STR(text, "fusionbench: warning: 1 cell throttled: the SM clock fell more than 10% while it ran (marked ! "
                    "in the grids); its times are not comparable with the others\n");
    free(text);
    w.throttled = 3;
    text = NULL;
    f = open_memstream(&text, &len);
    fb_clock_watch_report(&w, f);
    fclose(f);
    CHECK(strstr(text, "3 cells throttled") && strstr(text, "while they ran") && strstr(text, "their times"));
    free(text);
    fb_clock_watch_close(&w); /* closes n */
    CHECK(w.nvml == NULL);
    counts(&inits, &shutdowns);
    CHECK(inits == 2 && shutdowns == 2);

    /* no NVML: nothing watched, nothing fails, nothing reported */
    fb_clock_watch_init(&w, NULL);
    fb_clock_watch_before(&w);
    CHECK(fb_clock_watch_after(&w, &thr, why, sizeof why) == NULL && !thr);
    text = NULL;
    f = open_memstream(&text, &len);
    fb_clock_watch_report(&w, f);
    fclose(f);
    CHECK(len == 0);
    free(text);
    fb_clock_watch_close(&w);
    dlclose(lib);
}

typedef void (*fake_recover_t)(unsigned, int);

/* The wait before a measurement (fb_clock_watch_settle): none while the clock is within 5% of the
 * run's highest; polls until it is back; gives up at settle_max_ms; never without NVML or a bound;
 * the cell's clocks object carries what its measurements waited. */
static void test_settle(const char *fake)
{
    if (!fake) return; /* test_nvml has said so */
    void *lib = dlopen(fake, RTLD_NOW | RTLD_LOCAL);
    fake_set_t set = lib ? (fake_set_t)dlsym(lib, "fake_nvml_set") : NULL;
    fake_recover_t recover = lib ? (fake_recover_t)dlsym(lib, "fake_nvml_recover") : NULL;
    CHECK(set && recover);
    if (!set || !recover) return;
    setenv("FB_NVML_LIB", fake, 1);
    set(1980, 2619, 40, 100000, 0);
    fb_nvml *n = NULL;
    CHECK(fb_nvml_open("00000000:01:00.0", &n) == FB_OK);
    fb_clock_watch w;
    fb_clock_watch_init(&w, n);
    w.settle_max_ms = 1000;
    fb_clock_watch_before(&w); /* the run's first reading: 1980 */
    CHECK(w.peak_sm == 1980);
    CHECK(fb_clock_watch_settle(&w) < 1); /* at the peak: one reading, no wait */

    set(1440, 2619, 70, 600000, 0); /* slowed by the work before */
    recover(1965, 4);                 /* back after four more reads */
    const double waited = fb_clock_watch_settle(&w);
    CHECK(waited >= 3 * FB_SETTLE_POLL_MS && waited < 500);
    bool thr = false;
    char why[256];
    /* the probe during a measurement: the SM clock of each batch, summarised */
    fb_clock_watch_probe_reset(&w);
    CHECK(fb_clock_watch_probe_json(&w) == NULL); /* nothing read yet */
    set(1980, 2619, 60, 400000, 0);
    fb_clock_watch_probe(&w);
    set(1605, 2619, 60, 400000, 0);
    fb_clock_watch_probe(&w);
    set(1815, 2619, 60, 400000, FAIL_SM_BIT); /* a reading NVML refuses is left out */
    fb_clock_watch_probe(&w);
    set(1815, 2619, 60, 400000, 0);
    fb_clock_watch_probe(&w);
    json_t *pj = fb_clock_watch_probe_json(&w);
    CHECK(pj && json_number_value(json_object_get(pj, "min")) == 1605);
    CHECK(json_number_value(json_object_get(pj, "max")) == 1980);
    CHECK_NEAR(json_number_value(json_object_get(pj, "mean")), (1980 + 1605 + 1815) / 3.0, 1e-9);
    CHECK(json_integer_value(json_object_get(pj, "n")) == 3);
    CHECK(json_object_get(pj, "limited_by") == NULL); /* no reason seen: no key */
    json_decref(pj);
    /* NVML's clock-limit reasons seen at any reading, named */
    typedef void (*fake_reasons_t)(unsigned long long);
    fake_reasons_t reasons = (fake_reasons_t)dlsym(lib, "fake_nvml_reasons");
    CHECK(reasons != NULL);
    if (reasons) {
        fb_clock_watch_probe_reset(&w);
        reasons(0x4); /* sw_power_cap */
        fb_clock_watch_probe(&w);
        reasons(0x80 | 0x1000); /* hw_power_brake, and a bit this build has no name for */
        fb_clock_watch_probe(&w);
        reasons(0);
        pj = fb_clock_watch_probe_json(&w);
        const json_t *lb = json_object_get(pj, "limited_by");
        CHECK(json_array_size(lb) == 3);
        CHECK(!strcmp(json_string_value(json_array_get(lb, 0)) ?: "", "sw_power_cap"));
        CHECK(!strcmp(json_string_value(json_array_get(lb, 1)) ?: "", "hw_power_brake"));
        CHECK(!strcmp(json_string_value(json_array_get(lb, 2)) ?: "", "other"));
        CHECK(fb_clock_power_limited(pj));
        json_decref(pj);
        fb_clock_watch_probe_reset(&w);
        reasons(0x1 | 0x10); /* gpu_idle, sync_boost: no power or thermal limit */
        fb_clock_watch_probe(&w);
        reasons(0);
        pj = fb_clock_watch_probe_json(&w);
        CHECK(json_array_size(json_object_get(pj, "limited_by")) == 2 && !fb_clock_power_limited(pj));
        json_decref(pj);
        CHECK(!fb_clock_power_limited(NULL));
    }
    fb_clock_watch_probe_reset(&w);
    CHECK(fb_clock_watch_probe_json(&w) == NULL); /* the next measurement starts empty */

    set(1965, 2619, 60, 400000, 0);
    json_t *c = fb_clock_watch_after(&w, &thr, why, sizeof why);
    CHECK(json_is_number(json_object_get(c, "settle_ms")));
    CHECK(json_number_value(json_object_get(c, "settle_ms")) == floor(waited));
    json_decref(c);

    /* a clock that does not come back: the wait stops at the bound */
    w.settle_max_ms = 30;
    fb_clock_watch_before(&w);
    set(1000, 2619, 80, 700000, 0);
    recover(0, -1);
    const double t0 = fb_now_s();
    const double gave_up = fb_clock_watch_settle(&w);
    CHECK(gave_up >= 30 && (fb_now_s() - t0) * 1e3 < 30 + 200);
    c = fb_clock_watch_after(&w, &thr, why, sizeof why);
    CHECK(thr); /* and the cell is marked: it ran slowed */
    json_decref(c);

    /* a cell that did not wait carries no settle_ms; no bound, no wait */
    set(1980, 2619, 40, 100000, 0);
    fb_clock_watch_before(&w);
    c = fb_clock_watch_after(&w, &thr, why, sizeof why);
    CHECK(json_object_get(c, "settle_ms") == NULL);
    json_decref(c);
    w.settle_max_ms = 0;
    set(1000, 2619, 80, 700000, 0);
    CHECK(fb_clock_watch_settle(&w) == 0);
    fb_clock_watch_close(&w);

    fb_clock_watch_init(&w, NULL); /* no NVML: nothing to wait for */
    w.settle_max_ms = 1000;
    CHECK(fb_clock_watch_settle(&w) == 0);
    unsetenv("FB_NVML_LIB");
    dlclose(lib);
}

/* The watch run opens: without a GPU (or NVML) it says once why there are no
 * clocks and watches nothing; with them (on the GPU machine) it says nothing. */
static void test_watch_open(void)
{
    unsetenv("FB_NVML_LIB");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fb_clock_watch w;
    fb_clock_watch_open(&w, 0, f);
    fclose(f);
    if (w.nvml) {
        CHECK(len == 0);
    } else {
        CHECK(strstr(text, "fusionbench: note: clocks, temperature and power are not recorded: NVML") == text);
        CHECK(len > 0 && strchr(text, '\n') == text + len - 1); /* one line */
    }
    free(text);
    fb_clock_watch_close(&w);
}

int main(int argc, char **argv)
{
    test_detector();
    test_step();
    test_json();
    test_nvml(argc > 1 ? argv[1] : NULL);
    test_settle(argc > 1 ? argv[1] : NULL);
    test_watch_open();
    return fb_t_report("clocks");
}
