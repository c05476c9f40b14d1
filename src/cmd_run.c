/* cmd_run.c — `fusionbench run`: the grid loop.
 *
 * For each selected case, dtype and grid point, fb_cell_run measures every
 * variant; the result document is rewritten atomically after every cell (so a
 * killed run loses at most the cell in flight and --resume picks up from there),
 * and the relative-performance grids are printed at the end from that document.
 * Data goes to stdout; progress (only on a terminal) and messages to stderr. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "case.h"
#include "cell.h"
#include "commands.h"
#include "report.h"
#include "result.h"
#include "run_common.h"
#include "variant.h"

#define MAX_CASES 64
#define MAX_OVERRIDES 8
#define MAX_VARIANTS (2 * FB_MAX_FUSED + 1)

typedef struct axis_override {
    char name[FB_NAME_MAX];
    int n;
    int64_t v[FB_MAX_GRID];
} axis_override;

typedef struct run_opts {
    const char *cases[MAX_CASES];
    int n_cases;
    bool all;
    const char *dtypes;   /* NULL: the case's first dtype; "all"; or a comma list */
    const char *variants; /* comma list, NULL: all of the case's */
    const char *baseline;
    axis_override ov[MAX_OVERRIDES];
    int n_ov;
    bool quick;
    fb_timer_opts timer;
    uint64_t seed;
    const char *out;
    const char *resume;
    fb_show show;
} run_opts;

static const char run_usage[] =
    "usage: fusionbench run [--case NAME ...|--all] [--dtype T[,T...]|all] [--variants A,B]\n"
    "                       [--baseline V] [--AXIS LIST] [--quick] [--timer events|graph]\n"
    "                       [--warmup MS] [--rep MS] [--max-noise PCT] [--max-time S] [--seed N]\n"
    "                       [--out FILE] [--resume FILE] [--show speedup|sol|time|gbps]\n"
    "\n"
    "Runs each case's eager form and its fused variants over its shape grid, checks every\n"
    "result against the float64 reference, times them with the L2 flushed before every\n"
    "sample, and prints one grid per dtype and variant: t_baseline / t_variant.\n"
    "\n"
    "  --case NAME      a bundled case (see 'fusionbench list') or a path to a case file;\n"
    "                   repeatable, or comma-separated\n"
    "  --all            every bundled case\n"
    "  --dtype T        float32, float16, bfloat16, float64, or 'all' (default: the case's first)\n"
    "  --variants A,B   which variants to run (default: eager and all of the case's fused ones;\n"
    "                   any registered variant may be named, see 'fusionbench list')\n"
    "  --baseline V     the denominator of the grid (default: eager)\n"
    "  --AXIS LIST      replace a grid axis, e.g. --dim1 61,130,1027 or --dim0 128:65536\n"
    "                   (a:b is every power of two from a to b)\n"
    "  --quick          only the first, middle and last value of each axis\n"
    "  --timer MODE     events (default) or graph (CUDA graph replay, flush inside)\n"
    "  --warmup MS      warm-up time per measurement (default 25)\n"
    "  --rep MS         measured time per measurement (default 100)\n"
    "  --max-noise PCT  stop a measurement early once the median's noise is below PCT (default 0.5)\n"
    "  --max-time S     wall-time cap per measurement in seconds (default 5)\n"
    "  --seed N         input seed (default 1)\n"
    "  --out FILE       result file (default fusionbench-YYYYmmdd-HHMMSS.json)\n"
    "  --resume FILE    continue a run: skip cells already in FILE, keep writing to it\n"
    "  --show WHAT      speedup (default), sol (% of speed of light), time (us), gbps\n";

/* ---- argument parsing ------------------------------------------------------ */
static fb_status parse_double(const char *opt, const char *s, double lo, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo)) {
        fb_error("%s: expected a number >= %g, got '%s'", opt, lo, s);
        return FB_E_USAGE;
    }
    *out = v;
    return FB_OK;
}

static fb_status parse_i64(const char *opt, const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 1) {
        fb_error("%s: expected a positive integer, got '%s'", opt, s);
        return FB_E_USAGE;
    }
    *out = v;
    return FB_OK;
}

/* "128,256,1024" or "128:65536" (powers of two) or a mix: "61,130,128:1024". */
static fb_status parse_list(const char *opt, const char *s, axis_override *ov)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    ov->n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        int64_t a, b;
        if (colon) {
            *colon = 0;
            FB_TRY(parse_i64(opt, tok, &a));
            FB_TRY(parse_i64(opt, colon + 1, &b));
            for (int64_t v = a; v <= b; v *= 2) {
                if (ov->n == FB_MAX_GRID) goto too_many;
                ov->v[ov->n++] = v;
            }
        } else {
            FB_TRY(parse_i64(opt, tok, &a));
            if (ov->n == FB_MAX_GRID) goto too_many;
            ov->v[ov->n++] = a;
        }
    }
    if (ov->n == 0) {
        fb_error("%s: empty list", opt);
        return FB_E_USAGE;
    }
    return FB_OK;
too_many:
    fb_error("%s: more than %d values", opt, FB_MAX_GRID);
    return FB_E_USAGE;
}

static fb_status parse_args(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    fb_timer_opts_default(&o->timer);
    o->seed = 1;
    o->show = FB_SHOW_SPEEDUP;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0) {
            fb_error("unexpected argument '%s'; see 'fusionbench run --help'", arg);
            return FB_E_USAGE;
        }
        /* --opt=value or --opt value */
        char name[128];
        const char *val = NULL;
        const char *eq = strchr(arg, '=');
        if (eq) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", arg);
        }
        bool is_flag = !strcmp(name, "--all") || !strcmp(name, "--quick");
        if (is_flag) {
            if (!strcmp(name, "--all")) o->all = true;
            else o->quick = true;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc) {
                fb_error("%s needs a value; see 'fusionbench run --help'", name);
                return FB_E_USAGE;
            }
            val = argv[++i];
        }
        double d;
        if (!strcmp(name, "--case")) {
            char *copy = strdup(val); /* lives as long as the process */
            for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (o->n_cases == MAX_CASES) {
                    fb_error("--case: at most %d cases", MAX_CASES);
                    return FB_E_USAGE;
                }
                o->cases[o->n_cases++] = tok;
            }
        } else if (!strcmp(name, "--dtype")) o->dtypes = val;
        else if (!strcmp(name, "--variants")) o->variants = val;
        else if (!strcmp(name, "--baseline")) o->baseline = val;
        else if (!strcmp(name, "--out")) o->out = val;
        else if (!strcmp(name, "--resume")) o->resume = val;
        else if (!strcmp(name, "--timer")) {
            if (fb_timer_mode_from_name(val, &o->timer.mode) != 0) {
                fb_error("--timer: unknown mode '%s' (events or graph)", val);
                return FB_E_USAGE;
            }
            if (o->timer.mode == FB_TIMER_CUPTI) {
                fb_error("--timer cupti: not available in this build (CUPTI is not linked); use events or graph");
                return FB_E_USAGE;
            }
        } else if (!strcmp(name, "--show")) {
            if (fb_show_from_name(val, &o->show) != 0) {
                fb_error("--show: unknown '%s' (speedup, sol, time or gbps)", val);
                return FB_E_USAGE;
            }
        } else if (!strcmp(name, "--warmup")) {
            FB_TRY(parse_double(name, val, 0, &o->timer.warmup_ms));
        } else if (!strcmp(name, "--rep")) {
            FB_TRY(parse_double(name, val, 0.001, &o->timer.rep_ms));
        } else if (!strcmp(name, "--max-noise")) {
            FB_TRY(parse_double(name, val, 0, &o->timer.max_noise_pct));
        } else if (!strcmp(name, "--max-time")) {
            FB_TRY(parse_double(name, val, 0.001, &d));
            o->timer.max_wall_s = d;
        } else if (!strcmp(name, "--seed")) {
            int64_t s;
            FB_TRY(parse_i64(name, val, &s));
            o->seed = (uint64_t)s;
        } else {
            /* anything else must name a grid axis; checked against each case later */
            if (o->n_ov == MAX_OVERRIDES) {
                fb_error("at most %d axis overrides", MAX_OVERRIDES);
                return FB_E_USAGE;
            }
            axis_override *ov = &o->ov[o->n_ov++];
            snprintf(ov->name, sizeof ov->name, "%.*s", (int)sizeof ov->name - 1, name + 2);
            FB_TRY(parse_list(name, val, ov));
        }
    }
    if (o->all && o->n_cases) {
        fb_error("--all and --case exclude each other");
        return FB_E_USAGE;
    }
    if (!o->all && !o->n_cases) {
        fb_error("which case? give --case NAME or --all (cases: see 'fusionbench list')");
        return FB_E_USAGE;
    }
    return FB_OK;
}

/* ---- per-case selection ------------------------------------------------------------- */
typedef struct case_plan {
    fb_case c;
    fb_dtype dtypes[FB_NDTYPES];
    int n_dtypes;
    const char *variants[MAX_VARIANTS];
    int n_variants;
    const char *baseline;
} case_plan;

static fb_status plan_dtypes(const run_opts *o, case_plan *p)
{
    const fb_case *c = &p->c;
    if (!o->dtypes) {
        p->dtypes[0] = c->dtypes[0];
        p->n_dtypes = 1;
        return FB_OK;
    }
    if (!strcmp(o->dtypes, "all")) {
        memcpy(p->dtypes, c->dtypes, sizeof c->dtypes);
        p->n_dtypes = c->n_dtypes;
        return FB_OK;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", o->dtypes);
    p->n_dtypes = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        fb_dtype d;
        if (fb_dtype_from_name(tok, &d) != 0) {
            static const char *const names[] = {"float32", "float16", "bfloat16", "float64"};
            char sg[96];
            fb_error("--dtype: unknown dtype '%s'%s", tok, fb_suggest("", tok, names, 4, sg, sizeof sg));
            return FB_E_USAGE;
        }
        bool listed = false;
        for (int i = 0; i < c->n_dtypes; i++) listed |= c->dtypes[i] == d;
        if (!listed) {
            fb_error("--dtype: case '%s' does not list %s", c->name, fb_dtype_name(d));
            return FB_E_USAGE;
        }
        if (p->n_dtypes < FB_NDTYPES) p->dtypes[p->n_dtypes++] = d;
    }
    return FB_OK;
}

static fb_status plan_variants(const run_opts *o, case_plan *p)
{
    const fb_case *c = &p->c;
    const char *known[MAX_VARIANTS];
    int n_known = 0;
    known[n_known++] = FB_EAGER;
    for (int i = 0; i < c->n_fused; i++) known[n_known++] = c->fused[i];
    p->baseline = o->baseline ? o->baseline : FB_EAGER;

    bool want[MAX_VARIANTS] = {0};
    if (!o->variants) {
        for (int i = 0; i < n_known; i++) want[i] = true;
    } else {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", o->variants);
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            int k = -1;
            for (int i = 0; i < n_known; i++)
                if (!strcmp(tok, known[i])) k = i;
            /* any registered variant may join, e.g. one strategy of softmax.fused */
            const fb_variant *reg = k < 0 ? fb_variant_find(tok) : NULL;
            if (reg && n_known < MAX_VARIANTS) {
                k = n_known;
                known[n_known++] = reg->name;
            }
            if (k < 0) {
                const char *all[MAX_VARIANTS + 64];
                int n_all = 0;
                for (int i = 0; i < n_known; i++) all[n_all++] = known[i];
                n_all += fb_variant_names(all + n_all, 64);
                char sg[96];
                fb_error("--variants: no variant '%s'%s (see 'fusionbench list')", tok,
                         fb_suggest("", tok, all, n_all, sg, sizeof sg));
                return FB_E_USAGE;
            }
            want[k] = true;
        }
    }
    int base = -1;
    for (int i = 0; i < n_known; i++)
        if (!strcmp(p->baseline, known[i])) base = i;
    if (base < 0) {
        char sg[96];
        fb_error("--baseline: case '%s' has no variant '%s'%s", c->name, p->baseline,
                 fb_suggest("", p->baseline, known, n_known, sg, sizeof sg));
        return FB_E_USAGE;
    }
    want[base] = true; /* the grid needs its denominator */
    p->baseline = known[base];
    p->n_variants = 0;
    for (int i = 0; i < n_known; i++)
        if (want[i]) p->variants[p->n_variants++] = known[i];
    return FB_OK;
}

static fb_status plan_axes(const run_opts *o, case_plan *p)
{
    fb_case *c = &p->c;
    for (int k = 0; k < o->n_ov; k++) {
        int hit = -1;
        for (int a = 0; a < c->n_axes; a++)
            if (!strcmp(c->sym[c->axis[a].sym], o->ov[k].name)) hit = a;
        if (hit < 0) {
            const char *axes[2];
            for (int a = 0; a < c->n_axes; a++) axes[a] = c->sym[c->axis[a].sym];
            char sg[96];
            fb_error("unknown option '--%s'%s; see 'fusionbench run --help'", o->ov[k].name,
                     fb_suggest("--", o->ov[k].name, axes, c->n_axes, sg, sizeof sg));
            return FB_E_USAGE;
        }
        c->axis[hit].n = o->ov[k].n;
        memcpy(c->axis[hit].v, o->ov[k].v, sizeof(int64_t) * (size_t)o->ov[k].n);
    }
    if (o->quick) {
        for (int a = 0; a < c->n_axes; a++) {
            fb_axis *ax = &c->axis[a];
            if (ax->n <= 3) continue;
            int64_t first = ax->v[0], mid = ax->v[ax->n / 2], last = ax->v[ax->n - 1];
            ax->v[0] = first, ax->v[1] = mid, ax->v[2] = last;
            ax->n = 3;
        }
    }
    /* overrides may create shapes that do not broadcast or overflow: check every point now */
    fb_point pt = {0};
    int nr = c->axis[0].n, nc = c->n_axes > 1 ? c->axis[1].n : 1;
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nc; q++) {
            pt.sym[c->axis[0].sym] = c->axis[0].v[r];
            if (c->n_axes > 1) pt.sym[c->axis[1].sym] = c->axis[1].v[q];
            fb_shape shapes[FB_MAX_VALUES];
            fb_costs costs;
            fb_status s = fb_program_shapes(c, &pt, shapes);
            for (int d = 0; s == FB_OK && d < p->n_dtypes; d++) s = fb_program_costs(c, shapes, p->dtypes[d], &costs);
            if (s != FB_OK) {
                char msg[1024];
                snprintf(msg, sizeof msg, "%s", fb_last_error());
                fb_error("%s: %s", c->name, msg);
                return FB_E_USAGE;
            }
        }
    return FB_OK;
}

/* ---- before the GPU ------------------------------------------------------------------------ */

/* Two case files with one internal name would write into one another's cells
 * (the result file keys cases by name): refuse, naming both files. */
static fb_status check_unique_names(const case_plan *plans, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            if (strcmp(plans[i].c.name, plans[j].c.name) != 0) continue;
            if (strcmp(plans[i].c.path, plans[j].c.path) == 0)
                fb_error("case '%s' is given twice (%s)", plans[i].c.name, plans[i].c.path);
            else
                fb_error("%s and %s both define the case '%s'; one run needs distinct case names", plans[j].c.path,
                         plans[i].c.path, plans[i].c.name);
            return FB_E_USAGE;
        }
    return FB_OK;
}

#define MAX_UNCHECKED_WARNINGS 5 /* by name; past that, a count at the end */

/* ---- progress ------------------------------------------------------------------------------ */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress(bool tty, int i, int n, const char *cname, fb_dtype d, const char *pt, double t0)
{
    if (!tty) return;
    int el = (int)(now_s() - t0);
    fprintf(stderr, "\r\033[K[%*d/%d] %s %s %s  %d:%02d elapsed", n >= 100 ? 3 : 2, i, n, cname,
            fb_dtype_name(d), pt, el / 60, el % 60);
    fflush(stderr);
}

static void default_out(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, n, "fusionbench-%Y%m%d-%H%M%S.json", &tm);
}

fb_status fb_cmd_run(int argc, char **argv)
{
    if (fb_wants_help(argc, argv)) {
        fputs(run_usage, stdout);
        return FB_OK;
    }
    run_opts o;
    FB_TRY(parse_args(argc, argv, &o));

    /* Every input is checked before the GPU is touched, so bad input costs
     * nothing: the cases and the plan (exit 3 / 2), the resumed file (3), its
     * fit with this run's cases (2), and whether the result can be written (4). */
    static case_plan plans[MAX_CASES];
    int n_plans = 0;
    char names[MAX_CASES][FB_NAME_MAX];
    if (o.all) {
        int n = fb_case_list(names, MAX_CASES);
        for (int i = 0; i < n; i++) o.cases[o.n_cases++] = names[i];
    }
    for (int i = 0; i < o.n_cases; i++) {
        case_plan *p = &plans[n_plans++];
        FB_TRY(fb_case_find(o.cases[i], &p->c));
        FB_TRY(plan_dtypes(&o, p));
        FB_TRY(plan_variants(&o, p));
        FB_TRY(plan_axes(&o, p));
    }
    FB_TRY(check_unique_names(plans, n_plans));

    json_t *root = NULL;
    char out_buf[PATH_MAX];
    const char *out = o.out;
    fb_status s = FB_OK;
    if (o.resume) {
        FB_TRY(fb_result_read(o.resume, &root));
        for (int i = 0; i < n_plans && s == FB_OK; i++) s = fb_result_check_resume(root, o.resume, &plans[i].c);
        if (!out) out = o.resume;
    }
    if (!out) {
        default_out(out_buf, sizeof out_buf);
        out = out_buf;
    }
    if (s == FB_OK) s = fb_result_check_target(out);
    if (s != FB_OK) {
        json_decref(root);
        return s;
    }

    fb_run_env env;
    s = fb_run_env_open(&env, &o.timer);
    if (s != FB_OK) {
        json_decref(root);
        return s;
    }
    if (!root) root = fb_run_new_result(&env, argc, argv, o.seed);
    else fb_run_note_resume(root, argc, argv);

    /* the first write: a fresh run's file exists from now on, a resumed one records the resume */
    s = fb_result_write(root, out);
    if (s != FB_OK) {
        json_decref(root);
        fb_run_env_close(&env);
        return s;
    }

    int total = 0;
    for (int i = 0; i < n_plans; i++)
        total += plans[i].n_dtypes * plans[i].c.axis[0].n * (plans[i].c.n_axes > 1 ? plans[i].c.axis[1].n : 1);
    bool tty = isatty(2);
    double t0 = now_s();
    int done = 0, failed_cells = 0, oom_cells = 0, unchecked_cells = 0;
    fb_cell_env cenv = {&env.ctx, env.timer, o.seed, (int64_t)1 << 22, true};

    for (int ci = 0; ci < n_plans && s == FB_OK; ci++) {
        case_plan *p = &plans[ci];
        fb_case *c = &p->c;
        json_t *cj = fb_result_begin_case(root, c, p->variants, p->n_variants, p->baseline);
        for (int di = 0; di < p->n_dtypes && s == FB_OK; di++) {
            json_t *dj = fb_result_begin_dtype(cj, p->dtypes[di]);
            int nr = c->axis[0].n, nc = c->n_axes > 1 ? c->axis[1].n : 1;
            for (int r = 0; r < nr && s == FB_OK; r++)
                for (int q = 0; q < nc && s == FB_OK; q++) {
                    fb_point pt = {0};
                    pt.sym[c->axis[0].sym] = c->axis[0].v[r];
                    int64_t col = -1;
                    if (c->n_axes > 1) pt.sym[c->axis[1].sym] = col = c->axis[1].v[q];
                    char pts[128];
                    fb_point_str(c, &pt, pts, sizeof pts);
                    progress(tty, ++done, total, c->name, p->dtypes[di], pts, t0);
                    /* a resumed cell measures only what it lacks; what it has stays */
                    json_t *old = fb_result_cell(dj, c->axis[0].v[r], col);
                    const char *todo[MAX_VARIANTS];
                    int n_todo = fb_result_cell_todo(old, p->variants, p->n_variants, todo);
                    if (n_todo == 0) continue;
                    json_t *cell = json_object();
                    bool failed = false;
                    s = fb_cell_run(&cenv, c, p->dtypes[di], &pt, todo, n_todo, cell, &failed);
                    if (failed) failed_cells++;
                    json_t *vars = json_object_get(cell, "variants");
                    const char *k;
                    json_t *vj;
                    bool oom = false;
                    const char *unchecked = NULL;
                    json_object_foreach(vars, k, vj) {
                        oom |= !strcmp(json_string_value(json_object_get(vj, "status")) ?: "", "oom");
                        if (!unchecked) unchecked = fb_result_unchecked(vj);
                    }
                    oom_cells += oom;
                    /* never silent: the first few by name, then a count at the end */
                    if (unchecked && unchecked_cells++ < MAX_UNCHECKED_WARNINGS)
                        fprintf(stderr, "%sfusionbench: warning: %s %s %s not checked against the reference: %s\n",
                                tty ? "\r\033[K" : "", c->name, fb_dtype_name(p->dtypes[di]), pts, unchecked);
                    fb_result_store_cell(dj, old, cell);
                    fb_status ws = fb_result_write(root, out);
                    if (s == FB_OK) s = ws;
                }
        }
    }
    if (tty) fprintf(stderr, "\r\033[K");
    fb_status run_status = s;
    char run_error[2048] = "";
    if (run_status != FB_OK) snprintf(run_error, sizeof run_error, "%s", fb_last_error());

    fb_run_finish(root);
    fb_status ws = fb_result_write(root, out);

    /* the grids, from the document just written */
    for (int ci = 0; ci < n_plans; ci++) {
        case_plan *p = &plans[ci];
        for (int di = 0; di < p->n_dtypes; di++)
            fb_report_case(stdout, root, p->c.name, fb_dtype_name(p->dtypes[di]), p->variants, p->n_variants,
                           p->baseline, o.show);
    }
    fflush(stdout);
    fprintf(stderr, "fusionbench: %d cells in %.1f s; results in %s\n", done, now_s() - t0, out);
    if (oom_cells) fprintf(stderr, "fusionbench: %d cells out of device memory (marked OOM)\n", oom_cells);
    if (unchecked_cells)
        fprintf(stderr, "fusionbench: warning: %d cell%s not checked against the reference (marked UNCHK)\n",
                unchecked_cells, unchecked_cells > 1 ? "s" : "");
    json_decref(root);
    fb_run_env_close(&env);

    if (run_status != FB_OK) {
        fb_error("%s (what was measured before is in %s)", run_error, out);
        return run_status;
    }
    if (ws != FB_OK) return ws;
    if (failed_cells) {
        fb_error("%d cell%s failed the correctness check; see %s", failed_cells, failed_cells > 1 ? "s" : "", out);
        return FB_E_CHECK;
    }
    return FB_OK;
}
