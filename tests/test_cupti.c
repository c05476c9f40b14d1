/* test_cupti.c — `--timer cupti` without a GPU:
 *   - the loader: $FB_CUPTI_LIB naming a missing file, a file that is not a
 *     library, a CUPTI too old, one lacking a function (fake_cupti.c), the
 *     toolkit's real libcupti (loads, reports a version, and dlopen works on a
 *     machine without a GPU); a refused candidate passed over for the next
 *     (a CUDA 12 CUPTI before a CUDA 13 one); the search list over toolkit and
 *     Python environments, checked against a fake tree;
 *   - the bookkeeping (cupti_records.h) on synthetic records: overlapping
 *     kernels (sum vs span), the flush and the blocking kernel left out, a
 *     variant's own memset kept, a sample with no kernel, another batch's
 *     records, ids from runtime and driver calls, records out of order, and
 *     the census of kernels per run and names in launch order;
 *   - kernel names: demangled and tidied;
 *   - the timer mode's name.
 * Run from tests/ (meson's workdir). argv[1..3]: the fake libraries (too old,
 * not a CUPTI, new enough). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "cupti_loader.h"
#include "cupti_records.h"
#include "testing.h"

#ifndef FB_CUDA_ROOT
#define FB_CUDA_ROOT ""
#endif

static const char *fake_old, *fake_partial, *fake_new;

/* Loads with $FB_CUPTI_LIB = lib (NULL: unset), from a fresh start. */
static fb_status load_with(const char *lib, const fb_cupti_api **api)
{
    fb_cupti_unload_for_tests();
    if (lib) setenv("FB_CUPTI_LIB", lib, 1);
    else unsetenv("FB_CUPTI_LIB");
    fb_clear_error();
    return fb_cupti_load(api);
}

static void test_loader_refusals(void)
{
    const fb_cupti_api *api = (const fb_cupti_api *)1;
    CHECK(load_with("/nonexistent/libcupti.so.13", &api) == FB_E_UNSUPPORTED);
    CHECK(api == NULL);
    CHECK_STR(fb_last_error(), "CUPTI: $FB_CUPTI_LIB is /nonexistent/libcupti.so.13, which does not exist");
    /* remembered: the same answer without searching again */
    CHECK(fb_cupti_load(NULL) == FB_E_UNSUPPORTED);
    CHECK(strstr(fb_last_error(), "which does not exist") != NULL);
    char buf[1024];
    fb_cupti_describe(buf, sizeof buf);
    CHECK(strncmp(buf, "absent: CUPTI: $FB_CUPTI_LIB", 28) == 0);
    CHECK(fb_cupti_sym("cuptiGetVersion") == NULL);
    CHECK(fb_cupti_open_sibling("libnvperf_host.so") == NULL); /* no CUPTI, no siblings */

    CHECK(load_with("../cases/softmax.json", NULL) == FB_E_UNSUPPORTED);
    CHECK(strstr(fb_last_error(), "$FB_CUPTI_LIB (../cases/softmax.json) cannot be used: ") != NULL);

    if (fake_old) {
        setenv("FAKE_CUPTI_VERSION", "28", 1); /* CUDA 12.9's API version */
        CHECK(load_with(fake_old, NULL) == FB_E_UNSUPPORTED);
        CHECK(strstr(fb_last_error(), "CUPTI API version 28 is older than 130000, the oldest whose activity records this build reads") != NULL);
        setenv("FAKE_CUPTI_VERSION", "130002", 1); /* newer than the headers: accepted */
        const fb_cupti_api *a = NULL;
        CHECK(load_with(fake_old, &a) == FB_OK);
        CHECK(a && a->version == 130002);
        CHECK(a && strstr(a->path, "fake_cupti") != NULL);
        unsetenv("FAKE_CUPTI_VERSION");
    }
    if (fake_partial) {
        CHECK(load_with(fake_partial, NULL) == FB_E_UNSUPPORTED);
        CHECK(strstr(fb_last_error(), "has no cuptiActivityFlushAll (not a CUPTI library?)") != NULL);
    }
}

/* The search passes over a refused candidate for the next: a CUDA 12 libcupti
 * found first (a wheel, LD_LIBRARY_PATH) does not hide a CUDA 13 one behind it;
 * and when every one is refused, the first refusal is what the message says. */
static void test_search_passes_over(void)
{
    if (!fake_old || !fake_new || !fake_partial) return;
    unsetenv("FAKE_CUPTI_VERSION");
    const fb_cupti_api *a = NULL;
    const char *old_then_new[] = {"libno_such_cupti.so.13", fake_old, fake_partial, fake_new};
    fb_status s = fb_cupti_load_list_for_tests(old_then_new, 4, &a);
    if (s != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(s == FB_OK);
    CHECK(a && a->version == 130002);
    CHECK(a && strstr(a->path, "fake_cupti_new") != NULL);
    CHECK(fb_cupti_load(NULL) == FB_OK); /* remembered */

    const char *all_refused[] = {"libno_such_cupti.so.13", fake_old, fake_partial};
    CHECK(fb_cupti_load_list_for_tests(all_refused, 3, &a) == FB_E_UNSUPPORTED);
    CHECK(a == NULL);
    CHECK(strstr(fb_last_error(), "CUPTI (libcupti.so.13) not found; searched ") == fb_last_error());
    CHECK(strstr(fb_last_error(), "; refused: ") != NULL);
    CHECK(strstr(fb_last_error(), "CUPTI API version 28 is older than 130000") != NULL);
    CHECK(strstr(fb_last_error(), "libno_such_cupti") == NULL); /* not there: not worth naming */
    fb_cupti_unload_for_tests();
}

static void test_loader_real(void)
{
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s/lib64/libcupti.so.13", FB_CUDA_ROOT);
    struct stat st;
    if (!FB_CUDA_ROOT[0] || stat(lib, &st) != 0) {
        fprintf(stderr, "test_cupti: no toolkit libcupti at %s: the real-library checks are skipped\n", lib);
        return;
    }
    const fb_cupti_api *api = NULL;
    fb_status s = load_with(lib, &api);
    if (s != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(s == FB_OK);
    if (s != FB_OK) return;
    CHECK(api->version >= FB_CUPTI_MIN_API);
    CHECK(strstr(api->path, "libcupti.so") != NULL);
    CHECK(api->ActivityEnable && api->ActivityFlushAll && api->ActivityPushExternalCorrelationId);
    /* for the metrics pass: anything else by name */
    CHECK(fb_cupti_sym("cuptiActivityGetNextRecord") != NULL);
    CHECK(fb_cupti_sym("cuptiNoSuchFunction") == NULL);
    /* the metrics pass's libraries, from libcupti's directory */
    CHECK(fb_cupti_open_sibling("libnvperf_host.so") != NULL);
    CHECK(fb_cupti_open_sibling("libno_such_sibling.so") == NULL);
    CHECK(strstr(fb_last_error(), "libno_such_sibling.so not found beside ") != NULL);
    char buf[4096], rs[128];
    fb_cupti_describe(buf, sizeof buf);
    CHECK(strstr(buf, "libcupti.so") && strstr(buf, "(CUPTI API 13"));
    CHECK_STR(fb_cupti_result_str(CUPTI_ERROR_INVALID_PARAMETER, rs, sizeof rs), "CUPTI_ERROR_INVALID_PARAMETER");

    /* unset: the search finds one (the toolkit's, or one on the library path) */
    s = load_with(NULL, &api);
    if (s != FB_OK) fprintf(stderr, "%s\n", fb_last_error());
    CHECK(s == FB_OK);
    fb_cupti_unload_for_tests();
    CHECK_STR(fb_cupti_result_str(CUPTI_ERROR_INVALID_PARAMETER, rs, sizeof rs), "CUPTI error 1");
}

static void touch(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(dir, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
}

static int index_of(char **list, int n, const char *want)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], want) == 0) return i;
    return -1;
}

static void test_search_list(void)
{
    char tmp[] = "/tmp/fb_test_cupti_XXXXXX";
    CHECK(mkdtemp(tmp) != NULL);
    char root[PATH_MAX], home[PATH_MAX], venv[PATH_MAX], conda[PATH_MAX], p[5][PATH_MAX];
    snprintf(root, sizeof root, "%s/cuda", tmp);
    snprintf(home, sizeof home, "%s/home", tmp);
    snprintf(venv, sizeof venv, "%s/venv", tmp);
    snprintf(conda, sizeof conda, "%s/conda", tmp);
    snprintf(p[0], PATH_MAX, "%s/extras/CUPTI/lib64/libcupti.so.13", root);
    snprintf(p[1], PATH_MAX, "%s/lib/python3.12/site-packages/nvidia/cu13/lib/libcupti.so.13", venv);
    snprintf(p[2], PATH_MAX, "%s/lib/python3.11/site-packages/nvidia/cuda_cupti/lib/libcupti.so.13", conda);
    snprintf(p[3], PATH_MAX, "%s/lib/libcupti.so.13", conda);
    snprintf(p[4], PATH_MAX, "%s/.local/lib/python3.12/site-packages/nvidia/cu13/lib/libcupti.so.13", home);
    for (int i = 0; i < 5; i++) touch(p[i]);
    char *list[64];
    int n = fb_cupti_candidates(root, home, venv, conda, list, 64);
    CHECK(n >= 7);
    CHECK(n >= 2 && strcmp(list[0], "libcupti.so.13") == 0 && strcmp(list[1], "libcupti.so") == 0);
    int at[5];
    for (int i = 0; i < 5; i++) {
        at[i] = index_of(list, n, p[i]);
        if (at[i] < 0) fprintf(stderr, "test_cupti: %s not in the search list\n", p[i]);
        CHECK(at[i] >= 2);
    }
    /* the toolkit, then $VIRTUAL_ENV, $CONDA_PREFIX (site-packages, then lib), ~/.local */
    CHECK(at[0] < at[1] && at[1] < at[2] && at[2] < at[3] && at[3] < at[4]);
    /* the toolkit's lib64 and lib are searched only where they exist */
    char absent[PATH_MAX];
    snprintf(absent, sizeof absent, "%s/lib64/libcupti.so.13", root);
    CHECK(index_of(list, n, absent) < 0);
    fb_cupti_candidates_free(list, n);
    /* nothing but the dynamic linker's names when nothing is given */
    n = fb_cupti_candidates("", NULL, "", NULL, list, 64);
    CHECK(n >= 2);
    fb_cupti_candidates_free(list, n);

    /* what "absent" says: every place, and why one that was there was refused */
    char msg[4096];
    setenv("VIRTUAL_ENV", venv, 1);
    unsetenv("CONDA_PREFIX");
    fb_cupti_absent_message("/opt/cuda", NULL, msg, sizeof msg);
    char want[8192];
    snprintf(want, sizeof want,
             "CUPTI (libcupti.so.13) not found; searched libcupti.so.13 and libcupti.so on the dynamic linker's path, "
             "/opt/cuda/{lib64,lib,extras/CUPTI/lib64}, and nvidia/cu13/lib, nvidia/cuda_cupti/lib in the Python "
             "site-packages of $VIRTUAL_ENV (%s), ~/.local, /usr/local, /usr and /opt/conda; set FB_CUPTI_LIB to its path",
             venv);
    CHECK_STR(msg, want);
    fb_cupti_absent_message("", "/x/libcupti.so.13: CUPTI API version 28 is older", msg, sizeof msg);
    CHECK(strstr(msg, "dynamic linker's path, and nvidia/cu13/lib") != NULL); /* no toolkit: none named */
    CHECK(strstr(msg, "; refused: /x/libcupti.so.13: CUPTI API version 28 is older; set FB_CUPTI_LIB") != NULL);
    unsetenv("VIRTUAL_ENV");

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    CHECK(system(cmd) == 0);
}

/* ---- the bookkeeping ------------------------------------------------------------------ */

/* Batch of 3 samples with external ids 100, 101, 102; an earlier batch's id 99. */
static void test_samples(void)
{
    fb_act acts[] = {
        /* the blocking kernel and the flush memsets: API calls outside any pushed region */
        {1000, 900000, 4, FB_ACT_KERNEL, 9},
        {900100, 910000, 5, FB_ACT_MEMSET, -1},
        /* sample 0: two kernels that overlap (two streams), listed out of order */
        {910300, 910450, 8, FB_ACT_KERNEL, 1},
        {910200, 910300, 7, FB_ACT_KERNEL, 0},
        {920000, 930000, 10, FB_ACT_MEMSET, -1},
        /* sample 1: a kernel launched by a library through the driver (id 13, its
         * runtime call 12), and the variant's own memset (kept: it is its work) */
        {930100, 930130, 14, FB_ACT_MEMSET, -1},
        {930200, 930400, 13, FB_ACT_KERNEL, 2},
        {930400, 930500, 15, FB_ACT_KERNEL, 0},
        /* sample 2 launched nothing; another batch's kernel; one no region claims */
        {940000, 940100, 3, FB_ACT_KERNEL, 0},
        {950000, 950100, 30, FB_ACT_KERNEL, 0},
    };
    fb_act_corr map[] = {
        {15, 101}, {7, 100}, {8, 100}, {12, 101}, {13, 101}, {14, 101}, {3, 99}, {20, 102},
    };
    int n_acts = (int)(sizeof acts / sizeof acts[0]);
    fb_act_sample out[3];
    int sample_of[16];
    int assigned = fb_act_samples(acts, n_acts, map, (int)(sizeof map / sizeof map[0]), 100, 3, out, sample_of);
    CHECK(assigned == 5);
    /* overlapping: the sum counts each kernel whole, the span once */
    CHECK_NEAR(out[0].sum_ms, (150 + 100) * 1e-6, 1e-15);
    CHECK_NEAR(out[0].span_ms, (910450 - 910200) * 1e-6, 1e-15);
    CHECK(out[0].kernels == 2 && out[0].memops == 0);
    CHECK_NEAR(out[1].sum_ms, (30 + 200 + 100) * 1e-6, 1e-15);
    CHECK_NEAR(out[1].span_ms, (930500 - 930100) * 1e-6, 1e-15);
    CHECK(out[1].kernels == 2 && out[1].memops == 1);
    CHECK(isnan(out[2].sum_ms) && isnan(out[2].span_ms) && out[2].kernels == 0 && out[2].memops == 0);
    /* the flush, the blocking kernel, the other batch's and the unclaimed ones: none */
    CHECK(sample_of[0] == -1 && sample_of[1] == -1 && sample_of[4] == -1);
    CHECK(sample_of[8] == -1 && sample_of[9] == -1);
    CHECK(sample_of[2] == 0 && sample_of[3] == 0 && sample_of[5] == 1 && sample_of[6] == 1 && sample_of[7] == 1);

    /* the census: names in the order they started, each once */
    fb_kernel_census c;
    fb_census_init(&c);
    fb_census_add(&c, acts, n_acts, sample_of, out, 3);
    CHECK(c.samples == 2); /* the empty sample is not a run the census saw */
    CHECK(c.count == 2 && c.count_min == 2 && c.count_max == 2);
    CHECK(c.memops == 1); /* runs with 0 and with 1: a tie goes to the larger */
    CHECK(c.n_names == 3 && c.names[0] == 0 && c.names[1] == 1 && c.names[2] == 2);

    /* runs that differ: the most frequent count, and the range */
    fb_act one[] = {{10, 20, 1, FB_ACT_KERNEL, 5}, {30, 40, 2, FB_ACT_KERNEL, 5}, {50, 60, 3, FB_ACT_KERNEL, 6},
                    {70, 80, 4, FB_ACT_KERNEL, 5}, {90, 95, 5, FB_ACT_KERNEL, 5}};
    fb_act_corr m2[] = {{1, 7}, {2, 8}, {3, 8}, {4, 9}, {5, 10}};
    fb_act_sample o2[4];
    int so2[5];
    CHECK(fb_act_samples(one, 5, m2, 5, 7, 4, o2, so2) == 5);
    fb_census_add(&c, one, 5, so2, o2, 4);
    CHECK(c.samples == 6);
    CHECK(c.count == 2 && c.count_min == 1 && c.count_max == 2); /* 2 kernels in 3 runs, 1 in 3: the larger */
    CHECK(c.n_names == 5 && c.names[3] == 5 && c.names[4] == 6);
    fb_act_sample o3[1];
    int so3[1];
    fb_act last[] = {{100, 110, 9, FB_ACT_KERNEL, 5}};
    fb_act_corr m3[] = {{9, 50}};
    CHECK(fb_act_samples(last, 1, m3, 1, 50, 1, o3, so3) == 1);
    fb_census_add(&c, last, 1, so3, o3, 1);
    CHECK(c.count == 1); /* now 4 runs of 1 against 3 of 2 */

    /* no external-correlation records at all: nothing is the variant's */
    fb_act_sample o4[2];
    CHECK(fb_act_samples(acts, n_acts, NULL, 0, 100, 2, o4, NULL) == 0);
    CHECK(isnan(o4[0].sum_ms) && isnan(o4[1].sum_ms));
}

/* ---- names --------------------------------------------------------------------------- */

static void check_tidy(const char *in, const char *want)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", in);
    fb_kernel_name_tidy(buf);
    CHECK_STR(buf, want);
}

static void test_names(void)
{
    check_tidy("void foo<(int)4>(float*, int) const", "foo<(int)4>");
    check_tidy("(anonymous namespace)::bar(int)", "bar");
    check_tidy("void (anonymous namespace)::rows_kernel<float, 3>(float const*, float*, long)", "rows_kernel<float, 3>");
    check_tidy("_INTERNAL_9f1c2a3b_10_timing_cu_0123abcd::k(int)", "k");
    check_tidy("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>"
               "(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)",
               "cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>");
    check_tidy("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32", "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32");
    check_tidy("()", "()");

    char buf[512];
    bool demangler = dlsym(RTLD_DEFAULT, "__cxa_demangle") != NULL;
    fb_kernel_display_name("_Z18spin_cycles_kernelxPyi", buf, sizeof buf);
    CHECK_STR(buf, demangler ? "spin_cycles_kernel" : "_Z18spin_cycles_kernelxPyi");
    fb_kernel_display_name("_ZN43_GLOBAL__N__59ca5632_10_softmax_cu_15f0848a23softmax_two_pass_kernelI13__nv_bfloat16Lb0EEEvPKT_PS2_l",
                           buf, sizeof buf);
    CHECK_STR(buf, demangler ? "softmax_two_pass_kernel<__nv_bfloat16, false>"
                             : "_ZN43_GLOBAL__N__59ca5632_10_softmax_cu_15f0848a23softmax_two_pass_kernelI13__nv_bfloat16Lb0EEEvPKT_PS2_l");
    if (!demangler) fprintf(stderr, "test_cupti: no __cxa_demangle in the process: names stay mangled\n");
    fb_kernel_display_name("_Znot a mangled name(", buf, sizeof buf);
    CHECK_STR(buf, "_Znot a mangled name("); /* unreadable: left as it is */
    fb_kernel_display_name("extern_c_kernel", buf, sizeof buf);
    CHECK_STR(buf, "extern_c_kernel");
    fb_kernel_display_name("_Z18spin_cycles_kernelxPyi", buf, 5);
    CHECK(strlen(buf) == 4);
}

static void test_mode_name(void)
{
    fb_timer_mode m = FB_TIMER_EVENTS;
    CHECK(fb_timer_mode_from_name("cupti", &m) == 0 && m == FB_TIMER_CUPTI);
    CHECK_STR(fb_timer_mode_name(FB_TIMER_CUPTI), "cupti");
    CHECK(fb_timer_mode_from_name("CUPTI", &m) != 0);
}

int main(int argc, char **argv)
{
    fake_old = argc > 1 ? argv[1] : NULL;
    fake_partial = argc > 2 ? argv[2] : NULL;
    fake_new = argc > 3 ? argv[3] : NULL;
    test_loader_refusals();
    test_search_passes_over();
    test_loader_real();
    test_search_list();
    test_samples();
    test_names();
    test_mode_name();
    fb_cupti_unload_for_tests();
    return fb_t_report("cupti");
}
