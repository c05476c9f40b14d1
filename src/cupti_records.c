/* cupti_records.c — activity records to samples, the kernel census, and
 * readable kernel names (cupti_records.h). Pure: no CUPTI, no GPU. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "cupti_records.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- samples -------------------------------------------------------------------- */

static int cmp_corr(const void *a, const void *b)
{
    const fb_act_corr *x = a, *y = b;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

/* The external id of correlation id `corr`, or false when no pushed region made it. */
static bool find_ext(const fb_act_corr *map, int n, uint32_t corr, uint64_t *ext)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (map[mid].corr == corr) {
            *ext = map[mid].ext;
            return true;
        }
        if (map[mid].corr < corr) lo = mid + 1;
        else hi = mid - 1;
    }
    return false;
}

int fb_act_samples(const fb_act *acts, int n_acts, fb_act_corr *map, int n_map, uint64_t ext_base, int n,
                   fb_act_sample *out, int *sample_of)
{
    if (n_map > 1) qsort(map, (size_t)n_map, sizeof *map, cmp_corr);
    uint64_t *first = calloc(n > 0 ? (size_t)n : 1, sizeof *first), *last = calloc(n > 0 ? (size_t)n : 1, sizeof *last);
    double *sum_ns = calloc(n > 0 ? (size_t)n : 1, sizeof *sum_ns);
    for (int i = 0; i < n; i++) out[i] = (fb_act_sample){NAN, NAN, 0, 0};
    if (!first || !last || !sum_ns) {
        free(first);
        free(last);
        free(sum_ns);
        return -1;
    }
    int assigned = 0;
    for (int k = 0; k < n_acts; k++) {
        if (sample_of) sample_of[k] = -1;
        uint64_t ext;
        if (!find_ext(map, n_map, acts[k].corr, &ext)) continue;
        if (ext < ext_base || ext - ext_base >= (uint64_t)n) continue; /* another batch's, or not a sample's */
        int i = (int)(ext - ext_base);
        const fb_act *a = &acts[k];
        uint64_t dur = a->end > a->start ? a->end - a->start : 0;
        if (out[i].kernels + out[i].memops == 0 || a->start < first[i]) first[i] = a->start;
        if (out[i].kernels + out[i].memops == 0 || a->end > last[i]) last[i] = a->end;
        sum_ns[i] += (double)dur;
        if (a->kind == FB_ACT_KERNEL) out[i].kernels++;
        else out[i].memops++;
        if (sample_of) sample_of[k] = i;
        assigned++;
    }
    for (int i = 0; i < n; i++) {
        if (out[i].kernels + out[i].memops == 0) continue;
        out[i].sum_ms = sum_ns[i] * 1e-6;
        out[i].span_ms = (double)(last[i] > first[i] ? last[i] - first[i] : 0) * 1e-6;
    }
    free(first);
    free(last);
    free(sum_ns);
    return assigned;
}

/* ---- census ------------------------------------------------------------------------- */

void fb_census_init(fb_kernel_census *c)
{
    memset(c, 0, sizeof *c);
    c->count_min = -1;
    c->count_max = -1;
}

/* One more run with value v in a (value, runs) histogram; the mode after it. */
static int hist_add(int *val, int *runs, int *n, int v)
{
    int k = 0;
    while (k < *n && val[k] != v) k++;
    if (k == *n && *n < FB_CENSUS_COUNTS) {
        val[k] = v;
        runs[k] = 0;
        (*n)++;
    }
    if (k < *n) runs[k]++;
    int best = 0;
    for (int j = 1; j < *n; j++)
        if (runs[j] > runs[best] || (runs[j] == runs[best] && val[j] > val[best])) best = j;
    return *n ? val[best] : v;
}

typedef struct ordered {
    int sample;
    uint64_t start;
    int name;
} ordered;

static int cmp_ordered(const void *a, const void *b)
{
    const ordered *x = a, *y = b;
    if (x->sample != y->sample) return x->sample < y->sample ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static void add_name(fb_kernel_census *c, int name)
{
    if (name < 0) return;
    for (int j = 0; j < c->n_names; j++)
        if (c->names[j] == name) return;
    if (c->n_names < FB_CENSUS_NAMES) c->names[c->n_names++] = name;
    else c->names_dropped++;
}

void fb_census_add(fb_kernel_census *c, const fb_act *acts, int n_acts, const int *sample_of,
                   const fb_act_sample *samples, int n)
{
    for (int i = 0; i < n; i++) {
        const fb_act_sample *s = &samples[i];
        if (s->kernels + s->memops == 0) continue;
        c->samples++;
        if (c->count_min < 0 || s->kernels < c->count_min) c->count_min = s->kernels;
        if (s->kernels > c->count_max) c->count_max = s->kernels;
        c->count = hist_add(c->hist_count, c->hist_runs, &c->n_hist, s->kernels);
        c->memops = hist_add(c->hist_memops, c->hist_mruns, &c->n_mhist, s->memops);
    }
    /* names in launch order: by sample, then by start time on the GPU */
    int m = 0;
    for (int k = 0; k < n_acts; k++) m += sample_of[k] >= 0 && acts[k].kind == FB_ACT_KERNEL;
    ordered *o = malloc((m ? (size_t)m : 1) * sizeof *o);
    if (!o) { /* out of memory: names in record order rather than none */
        for (int k = 0; k < n_acts; k++)
            if (sample_of[k] >= 0 && acts[k].kind == FB_ACT_KERNEL) add_name(c, acts[k].name);
        return;
    }
    m = 0;
    for (int k = 0; k < n_acts; k++)
        if (sample_of[k] >= 0 && acts[k].kind == FB_ACT_KERNEL) o[m++] = (ordered){sample_of[k], acts[k].start, acts[k].name};
    qsort(o, (size_t)m, sizeof *o, cmp_ordered);
    for (int j = 0; j < m; j++) add_name(c, o[j].name);
    free(o);
}

/* ---- names ------------------------------------------------------------------------- */

/* Removes every occurrence of `prefix` followed by an identifier's characters and "::"
 * (exact == true: `prefix` itself, then "::"). */
static void drop_scopes(char *s, const char *prefix, bool exact)
{
    size_t lp = strlen(prefix);
    char *p = s;
    while ((p = strstr(p, prefix)) != NULL) {
        char *q = p + lp;
        if (!exact)
            while (*q == '_' || (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) q++;
        if (q[0] == ':' && q[1] == ':') memmove(p, q + 2, strlen(q + 2) + 1);
        else p = q;
    }
}

void fb_kernel_name_tidy(char *s)
{
    size_t len = strlen(s);
    /* the parameter list: from the '(' that matches the final ')' */
    while (len && s[len - 1] == ' ') s[--len] = 0;
    if (len >= 6 && strcmp(s + len - 6, " const") == 0) s[len -= 6] = 0;
    if (len && s[len - 1] == ')') {
        int depth = 0;
        for (size_t i = len; i-- > 0;) {
            if (s[i] == ')') depth++;
            else if (s[i] == '(' && --depth == 0) {
                if (i > 0) s[i] = 0; /* a name that is all parentheses stays */
                break;
            }
        }
    }
    /* a function template's demangled name starts with its return type */
    if (strncmp(s, "void ", 5) == 0) memmove(s, s + 5, strlen(s + 5) + 1);
    drop_scopes(s, "(anonymous namespace)", true);
    drop_scopes(s, "_INTERNAL_", false);
    drop_scopes(s, "_GLOBAL__N_", false);
}

typedef char *(*demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

const char *fb_kernel_display_name(const char *mangled, char *buf, size_t n)
{
    if (!buf || n == 0) return buf;
    buf[0] = 0;
    if (!mangled) return buf;
    /* Looked up, not linked: the C driver has no C++ runtime of its own, but the
     * CUDA objects bring libstdc++ into the process, and with it the demangler. */
    static demangle_fn demangle;
    static int looked;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        demangle_fn f;
        *(void **)(&f) = dlsym(RTLD_DEFAULT, "__cxa_demangle");
        demangle = f;
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    char *d = NULL;
    int status = -1;
    if (demangle && strncmp(mangled, "_Z", 2) == 0) d = demangle(mangled, NULL, NULL, &status);
    bool demangled = d && status == 0;
    const char *src = demangled ? d : mangled;
    size_t len = strlen(src);
    char *tmp = malloc(len + 1);
    if (!tmp) {
        snprintf(buf, n, "%s", src);
        free(d);
        return buf;
    }
    memcpy(tmp, src, len + 1);
    free(d);
    /* a mangled name the demangler could not read stays as it is */
    if (demangled || strncmp(mangled, "_Z", 2) != 0) fb_kernel_name_tidy(tmp);
    snprintf(buf, n, "%s", tmp);
    free(tmp);
    return buf;
}
