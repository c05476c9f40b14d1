/* cupti_loader.c — find libcupti at run time and resolve what fusionbench
 * calls (search order and the reasons in cupti_loader.h).
 *
 * Why dlopen: the build machine has the toolkit's libcupti, the H100 host has
 * its own only inside PyTorch's pip packages, and a fusionbench without CUPTI
 * must still run every other timer. Linking libcupti would make the whole
 * binary fail to start where it is missing. */
#define _GNU_SOURCE /* dlinfo, RTLD_DI_LINKMAP: the path the dynamic linker chose */
#include "cupti_loader.h"

#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FB_CUDA_ROOT
#define FB_CUDA_ROOT ""
#endif

#define MAX_CANDIDATES 64
#define MSG_MAX 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool tried;
static fb_status load_status = FB_E_UNSUPPORTED;
static char load_msg[MSG_MAX];
static void *handle;
static fb_cupti_api api;

/* ---- candidates --------------------------------------------------------------- */

typedef struct cand_list {
    char **item;
    int n, cap;
} cand_list;

static void add(cand_list *l, const char *path)
{
    if (l->n >= l->cap || !path || !path[0]) return;
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->item[i], path) == 0) return; /* $CONDA_PREFIX may also be a venv, etc. */
    char *copy = strdup(path);
    if (copy) l->item[l->n++] = copy;
}

static void add_glob(cand_list *l, const char *pattern)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++) add(l, g.gl_pathv[i]);
    globfree(&g);
}

/* The pip wheels' layouts: the CUDA 13 meta-wheel (nvidia/cu13/lib, what PyTorch
 * for CUDA 13 installs) and the per-component one (nvidia/cuda_cupti/lib). */
static const char *const wheel_dirs[] = {"nvidia/cu13/lib", "nvidia/cuda_cupti/lib"};

static void add_python_prefix(cand_list *l, const char *prefix)
{
    if (!prefix || !prefix[0]) return;
    for (size_t w = 0; w < sizeof wheel_dirs / sizeof wheel_dirs[0]; w++) {
        char pat[4096];
        /* lib and lib64, site-packages (pip, venvs) and dist-packages (Debian) */
        snprintf(pat, sizeof pat, "%s/lib*/python3*/*-packages/%s/libcupti.so.13", prefix, wheel_dirs[w]);
        add_glob(l, pat);
    }
}

int fb_cupti_candidates(const char *root, const char *home, const char *venv, const char *conda, char **list, int cap)
{
    cand_list l = {list, 0, cap};
    add(&l, "libcupti.so.13");
    add(&l, "libcupti.so");
    if (root && root[0]) {
        static const char *const sub[] = {"lib64", "lib", "extras/CUPTI/lib64"};
        for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s/libcupti.so.13", root, sub[i]);
            struct stat st;
            if (stat(p, &st) == 0) add(&l, p); /* lib64 is often a link to lib: one entry */
        }
    }
    add_python_prefix(&l, venv);
    add_python_prefix(&l, conda);
    if (conda && conda[0]) { /* conda's cuda-cupti package puts it in PREFIX/lib */
        char p[4096];
        snprintf(p, sizeof p, "%s/lib/libcupti.so.13", conda);
        add_glob(&l, p);
    }
    if (home && home[0]) {
        char p[4096];
        snprintf(p, sizeof p, "%s/.local", home);
        add_python_prefix(&l, p);
    }
    add_python_prefix(&l, "/usr/local");
    add_python_prefix(&l, "/usr");
    add_python_prefix(&l, "/opt/conda");
    return l.n;
}

void fb_cupti_candidates_free(char **list, int n)
{
    for (int i = 0; i < n; i++) free(list[i]);
}

/* What the absent message says was searched: the places, not every glob match. */
static void searched_text(char *buf, size_t n, const char *root)
{
    const char *venv = getenv("VIRTUAL_ENV"), *conda = getenv("CONDA_PREFIX");
    size_t k = (size_t)snprintf(buf, n, "libcupti.so.13 and libcupti.so on the dynamic linker's path");
    if (k < n && root[0])
        k += (size_t)snprintf(buf + k, n - k, ", %s/{lib64,lib,extras/CUPTI/lib64}", root);
    if (k < n)
        k += (size_t)snprintf(buf + k, n - k,
                              ", and nvidia/cu13/lib, nvidia/cuda_cupti/lib in the Python site-packages of ");
    if (k < n && venv && venv[0]) k += (size_t)snprintf(buf + k, n - k, "$VIRTUAL_ENV (%s), ", venv);
    if (k < n && conda && conda[0]) k += (size_t)snprintf(buf + k, n - k, "$CONDA_PREFIX (%s), ", conda);
    if (k < n) snprintf(buf + k, n - k, "~/.local, /usr/local, /usr and /opt/conda");
}

/* ---- loading -------------------------------------------------------------------- */

#define RESOLVE(field, name)                                              \
    do {                                                                  \
        *(void **)(&a->field) = dlsym(h, name);                           \
        if (!a->field) {                                                  \
            snprintf(why, nwhy, "%s: has no %s (not a CUPTI library?)", path, name); \
            return false;                                                 \
        }                                                                 \
    } while (0)

static bool resolve(void *h, const char *path, fb_cupti_api *a, char *why, size_t nwhy)
{
    RESOLVE(GetVersion, "cuptiGetVersion");
    RESOLVE(GetResultString, "cuptiGetResultString");
    RESOLVE(ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks");
    RESOLVE(ActivityEnable, "cuptiActivityEnable");
    RESOLVE(ActivityDisable, "cuptiActivityDisable");
    RESOLVE(ActivityFlushAll, "cuptiActivityFlushAll");
    RESOLVE(ActivityGetNextRecord, "cuptiActivityGetNextRecord");
    RESOLVE(ActivityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
    RESOLVE(ActivityPushExternalCorrelationId, "cuptiActivityPushExternalCorrelationId");
    RESOLVE(ActivityPopExternalCorrelationId, "cuptiActivityPopExternalCorrelationId");
    return true;
}

/* One candidate: loaded, complete and new enough, or *why says what was wrong. */
static void *try_one(const char *path, fb_cupti_api *a, char *why, size_t nwhy)
{
    why[0] = 0;
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, nwhy, "%s", e ? e : "dlopen failed");
        return NULL;
    }
    memset(a, 0, sizeof *a);
    uint32_t v = 0;
    CUptiResult r = CUPTI_SUCCESS;
    if (!resolve(h, path, a, why, nwhy) || (r = a->GetVersion(&v)) != CUPTI_SUCCESS) {
        if (!why[0]) snprintf(why, nwhy, "%s: cuptiGetVersion failed (%d)", path, (int)r);
        dlclose(h);
        return NULL;
    }
    if (v < FB_CUPTI_MIN_API) {
        snprintf(why, nwhy, "%s: CUPTI API version %u is older than %u, the oldest whose activity records this build reads",
                 path, v, FB_CUPTI_MIN_API);
        dlclose(h);
        return NULL;
    }
    a->version = v;
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
        snprintf(a->path, sizeof a->path, "%s", lm->l_name);
    else
        snprintf(a->path, sizeof a->path, "%s", path);
    return h;
}

/* The candidates in order: the first that loads, is complete and new enough
 * wins; one that is refused (a CUDA 12 CUPTI found first, say) is passed over for
 * the next, and named in the absent message when none is left. */
static void search_locked(const char *const *cand, int n)
{
    char why[1024] = "";
    char first_why[1024] = ""; /* the first candidate that exists but was refused says the most */
    for (int i = 0; i < n && !handle; i++) {
        handle = try_one(cand[i], &api, why, sizeof why);
        /* "cannot open shared object file" only says it is not there: not worth reporting */
        if (!handle && !first_why[0] && !strstr(why, "cannot open shared object file"))
            snprintf(first_why, sizeof first_why, "%s", why);
    }
    if (handle) {
        load_status = FB_OK;
        return;
    }
    fb_cupti_absent_message(FB_CUDA_ROOT, first_why, load_msg, sizeof load_msg);
    load_status = FB_E_UNSUPPORTED;
}

static void load_locked(void)
{
    tried = true;
    char why[1024] = "";
    const char *forced = getenv("FB_CUPTI_LIB");
    if (forced && forced[0]) {
        handle = try_one(forced, &api, why, sizeof why);
        if (handle) {
            load_status = FB_OK;
            return;
        }
        struct stat st;
        if (stat(forced, &st) != 0)
            snprintf(load_msg, sizeof load_msg, "CUPTI: $FB_CUPTI_LIB is %s, which does not exist", fb_qpath(forced));
        else
            snprintf(load_msg, sizeof load_msg, "CUPTI: $FB_CUPTI_LIB (%s) cannot be used: %s", fb_qpath(forced), why);
        load_status = FB_E_UNSUPPORTED;
        return;
    }
    char *cand[MAX_CANDIDATES];
    int n = fb_cupti_candidates(FB_CUDA_ROOT, getenv("HOME"), getenv("VIRTUAL_ENV"), getenv("CONDA_PREFIX"), cand,
                                MAX_CANDIDATES);
    search_locked((const char *const *)cand, n);
    fb_cupti_candidates_free(cand, n);
}

const char *fb_cupti_absent_message(const char *root, const char *refused, char *buf, size_t n)
{
    char searched[2048];
    searched_text(searched, sizeof searched, root ? root : "");
    snprintf(buf, n, "CUPTI (libcupti.so.13) not found; searched %s%s%s; set FB_CUPTI_LIB to its path", searched,
             refused && refused[0] ? "; refused: " : "", refused ? refused : "");
    return buf;
}

fb_status fb_cupti_load(const fb_cupti_api **out)
{
    if (out) *out = NULL;
    pthread_mutex_lock(&lock);
    if (!tried) load_locked();
    fb_status s = load_status;
    if (s == FB_OK && out) *out = &api;
    if (s != FB_OK) fb_error("%s", load_msg);
    pthread_mutex_unlock(&lock);
    return s;
}

void *fb_cupti_sym(const char *name)
{
    pthread_mutex_lock(&lock);
    void *p = handle ? dlsym(handle, name) : NULL;
    pthread_mutex_unlock(&lock);
    return p;
}

void *fb_cupti_open_sibling(const char *name)
{
    const fb_cupti_api *a = NULL;
    if (fb_cupti_load(&a) != FB_OK) return NULL;
    char path[sizeof a->path + 256], why_dir[512] = "", why_name[512] = "";
    const char *slash = strrchr(a->path, '/');
    void *h = NULL;
    if (slash) {
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - a->path), a->path, name);
        dlerror();
        if (!(h = dlopen(path, RTLD_NOW | RTLD_GLOBAL))) snprintf(why_dir, sizeof why_dir, "%s", dlerror());
    }
    if (!h) {
        dlerror();
        if (!(h = dlopen(name, RTLD_NOW | RTLD_GLOBAL))) snprintf(why_name, sizeof why_name, "%s", dlerror());
    }
    if (!h)
        fb_error("%s not found beside %s%s%s, nor on the library path (%s)", name, a->path, why_dir[0] ? ": " : "",
                 why_dir, why_name);
    return h;
}

const char *fb_cupti_describe(char *buf, size_t n)
{
    const fb_cupti_api *a = NULL;
    if (fb_cupti_load(&a) == FB_OK)
        snprintf(buf, n, "%s (CUPTI API %u)", a->path, a->version);
    else
        snprintf(buf, n, "absent: %s", fb_last_error());
    return buf;
}

const char *fb_cupti_result_str(CUptiResult r, char *buf, size_t n)
{
    const char *s = NULL;
    pthread_mutex_lock(&lock);
    if (handle && api.GetResultString && api.GetResultString(r, &s) != CUPTI_SUCCESS) s = NULL;
    pthread_mutex_unlock(&lock);
    if (s) snprintf(buf, n, "%s", s);
    else snprintf(buf, n, "CUPTI error %d", (int)r);
    return buf;
}

void fb_cupti_unload_for_tests(void)
{
    pthread_mutex_lock(&lock);
    /* forgotten, not dlclose'd: the library stays mapped, so what it allocated
     * for itself is still referenced from its globals and LeakSanitizer does not
     * report it as leaked; a later dlopen of the same file gets the same handle */
    handle = NULL;
    memset(&api, 0, sizeof api);
    tried = false;
    load_status = FB_E_UNSUPPORTED;
    load_msg[0] = 0;
    pthread_mutex_unlock(&lock);
}

fb_status fb_cupti_load_list_for_tests(const char *const *list, int n, const fb_cupti_api **out)
{
    if (out) *out = NULL;
    pthread_mutex_lock(&lock);
    handle = NULL;
    memset(&api, 0, sizeof api);
    load_msg[0] = 0;
    tried = true;
    search_locked(list, n);
    fb_status s = load_status;
    if (s == FB_OK && out) *out = &api;
    if (s != FB_OK) fb_error("%s", load_msg);
    pthread_mutex_unlock(&lock);
    return s;
}
