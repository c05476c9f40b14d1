/* cmd_run.c — `fusionbench run`: the grid loop.
 *
 * For each selected case, dtype and grid point, fb_cell_run measures every
 * variant. The result document is written when the run starts and when it ends;
 * each cell in between is appended to its journal (journal.h: one fsync'ed line,
 * constant cost per cell), so a killed run loses at most the cell in flight and
 * --resume picks up from the document and its journal. SIGINT or SIGTERM stops
 * the run after the cell in flight and writes the document (a second one stops
 * at once: the journal has every finished cell). The relative-performance grids
 * (or, with --table, the benchmark tables of report_table.h, through the same
 * printer as export --format md --table) are printed at the end from the
 * document. Data goes to stdout; progress (only on a terminal) and messages to
 * stderr. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "case.h"
#include "cell.h"
#include "check.h"
#include "clocks.h"
#include "commands.h"
#include "cupti_loader.h"
#include "journal.h"
#include "metrics.h"
#include "report.h"
#include "report_table.h"
#include "result.h"
#include "resultset.h"
#include "opts.h"
#include "run_common.h"
#include "variant.h"

#define MAX_OVERRIDES 8
#define MAX_VARIANTS (2 * FB_MAX_FUSED + 1)

/* Bounds of the timing options: far beyond any useful setting, and each keeps the
 * arithmetic on them finite (`--rep 1e308` or `inf` would never stop a measurement). */
#define MAX_WARMUP_MS 1e4
#define MAX_REP_MS 1e5
#define MAX_WALL_S 3600.0
#define MAX_SETTLE_MS 10000.0
#define DEFAULT_SETTLE_MS 1000.0 /* --settle: a bound; a wait ends as soon as the clock is back */

typedef struct axis_override {
    char name[FB_NAME_MAX];
    int n;
    int64_t v[FB_MAX_GRID];
} axis_override;

typedef struct run_opts {
    fb_strlist cases;   /* --case, as given (names or paths) */
    bool all;
    fb_strlist dtype_list, variant_list;
    const char *dtypes;   /* NULL: the case's first dtype; "all"; or a comma list (for messages) */
    fb_dtype dtype_order[FB_NDTYPES]; /* --dtype's dtypes as given, checked by fb_opt_dtypes */
    int n_dtype_order;                /* 0 with "all" or without --dtype */
    const char *variants; /* comma list, NULL: all of the case's */
    char *dtypes_buf, *variants_buf; /* what dtypes and variants point to */
    const char *baseline;
    axis_override ov[MAX_OVERRIDES];
    int n_ov;
    fb_unknown_opt *unknown; /* --NAME VALUE options not in the table: grid axes, or mistakes */
    int n_unknown;
    bool quick;
    fb_timer_opts timer;
    uint64_t seed;
    const char *out;
    const char *resume;
    fb_show show;
    bool table;             /* --table: the benchmark tables in place of the grids */
    const char *speedup_vs; /* --speedup-vs: the tables' speedup reference; NULL: the baseline */
    fb_strlist metrics_list; /* --metrics, as given */
    unsigned metrics;        /* the fb_metric_id bits it names; 0: no metrics pass */
    int timer_mode, show_mode, flush_mode; /* the enums, as the parser writes them */
    bool flush_given;                      /* --flush was on the command line */
    bool tf32;                             /* --tf32 */
    int64_t seed_arg;
    double settle_ms; /* --settle: the longest a measurement waits for a slowed SM clock */
    bool no_pair;     /* --no-pair: no paired measurement (cell.h's fb_cell_env.paired) */
    bool pair;        /* --pair: paired measurement under --all too */
} run_opts;

/* ---- argument parsing ------------------------------------------------------ */
static const fb_opt_choice timer_modes[] = {
    {"events", FB_TIMER_EVENTS}, {"graph", FB_TIMER_GRAPH}, {"cupti", FB_TIMER_CUPTI}};
static const fb_opt_choice flush_modes[] = {
    {"write", FB_FLUSH_WRITE}, {"clean", FB_FLUSH_CLEAN}, {"none", FB_FLUSH_NONE}};

#define RUN_MAX_OPTS 24 /* room in the option table */

/* The option table, writing into o; returns its length (at most RUN_MAX_OPTS). */
static int run_table(run_opts *o, fb_opt *t)
{
    int n = 0;
    t[n++] = (fb_opt){.name = "case", .kind = FB_OPT_LIST, .dst = &o->cases, .arg = "NAME",
                      .help = "a bundled case (see 'fusionbench list') or a path to a case file;\n"
                              "repeatable, or comma-separated"};
    t[n++] = (fb_opt){.name = "all", .kind = FB_OPT_FLAG, .dst = &o->all,
                      .help = "every case in the cases directory ($FUSIONBENCH_CASES)"};
    t[n++] = (fb_opt){.name = "dtype", .kind = FB_OPT_LIST, .dst = &o->dtype_list, .arg = "T",
                      .help = "float32, float16, bfloat16, float64, or 'all' (default: the case's first);\n"
                              "comma-separated or repeatable"};
    t[n++] = (fb_opt){.name = "variants", .kind = FB_OPT_LIST, .dst = &o->variant_list, .arg = "A,B",
                      .help = "which variants to run (default: eager and all of the case's fused ones;\n"
                              "any registered variant may be named, see 'fusionbench list')"};
    t[n++] = (fb_opt){.name = "baseline", .kind = FB_OPT_STRING, .dst = &o->baseline, .arg = "V",
                      .help = "the denominator of the grid (default: eager)"};
    t[n++] = (fb_opt){.name = "quick", .kind = FB_OPT_FLAG, .dst = &o->quick,
                      .help = "only the first, middle and last value of each axis"};
    t[n++] = (fb_opt){.name = "timer", .kind = FB_OPT_ENUM, .dst = &o->timer_mode, .arg = "MODE",
                      .choices = timer_modes, .n_choices = 3,
                      .help = "events (default), graph (CUDA graph replay, flush inside) or cupti\n"
                              "(the variant's kernel durations summed, from CUPTI's activity records;\n"
                              "needs libcupti, found at run time, see $FB_CUPTI_LIB; the timer for cells\n"
                              "of a few us, where an event pair is most of a sample)"};
    t[n++] = (fb_opt){.name = "flush", .kind = FB_OPT_ENUM, .dst = &o->flush_mode, .arg = "HOW",
                      .choices = flush_modes, .n_choices = 3,
                      .help = "the L2 flush before every sample: clean (default; a read-only sweep of\n"
                              ">= 2x L2: no dirty lines, as Nsight Compute), write (a memset of it, as\n"
                              "do_bench and scripts/torch_peer.py), none (no flush: warm L2)"};
    t[n++] = (fb_opt){.name = "tf32", .kind = FB_OPT_FLAG, .dst = &o->tf32,
                      .help = "let float32 matmuls and convolutions use TF32 tensor cores, in eager and\n"
                              "fused variants alike (default: IEEE float32, what the reference means);\n"
                              "recorded in the result, float32 then checked with float16's tolerance"};
    t[n++] = (fb_opt){.name = "warmup", .kind = FB_OPT_DOUBLE, .dst = &o->timer.warmup_ms, .arg = "MS",
                      .lo = 0, .hi = MAX_WARMUP_MS, .help = "warm-up time per measurement (default 25, at most 10000)"};
    t[n++] = (fb_opt){.name = "rep", .kind = FB_OPT_DOUBLE, .dst = &o->timer.rep_ms, .arg = "MS",
                      .lo = 0.001, .hi = MAX_REP_MS,
                      .help = "measured time per measurement (default 100, 0.001 to 100000)"};
    t[n++] = (fb_opt){.name = "max-noise", .kind = FB_OPT_DOUBLE, .dst = &o->timer.max_noise_pct, .arg = "PCT",
                      .lo = 0, .hi = 100,
                      .help = "stop a measurement early once the median's noise is below PCT\n(default 0.5, 0 to 100)"};
    t[n++] = (fb_opt){.name = "max-time", .kind = FB_OPT_DOUBLE, .dst = &o->timer.max_wall_s, .arg = "S",
                      .lo = 0.001, .hi = MAX_WALL_S,
                      .help = "wall-time cap per measurement in seconds (default 5, 0.001 to 3600)"};
    t[n++] = (fb_opt){.name = "settle", .kind = FB_OPT_DOUBLE, .dst = &o->settle_ms, .arg = "MS", .lo = 0,
                      .hi = MAX_SETTLE_MS,
                      .help = "before each measurement, wait up to MS while the SM clock is more than 5%\n"
                              "below the highest the run has read (the work before it slowed the GPU;\n"
                              "default 1000, 0 to 10000; 0: never wait); the wait is each cell's\n"
                              "clocks.settle_ms"};
    t[n++] = (fb_opt){.name = "no-pair", .kind = FB_OPT_FLAG, .dst = &o->no_pair,
                      .help = "do not also time each fused variant in turn with the case's plain op (a\n"
                              "case file's \"paired\": the matmul epilogue cases' matmul.tuned); paired\n"
                              "timing needs the events or cupti timer, and adds a plain op's tuning and\n"
                              "timing to each of those cells"};
    t[n++] = (fb_opt){.name = "pair", .kind = FB_OPT_FLAG, .dst = &o->pair,
                      .help = "with --all: pair as a named case does (--all leaves it out, to keep the\n"
                              "whole suite's float32 grids within ten minutes)"};
    t[n++] = (fb_opt){.name = "seed", .kind = FB_OPT_I64, .dst = &o->seed_arg, .arg = "N", .ilo = 1,
                      .ihi = INT64_MAX, .help = "input seed (default 1): each seed draws different inputs"};
    t[n++] = (fb_opt){.name = "out", .kind = FB_OPT_STRING, .dst = &o->out, .arg = "FILE",
                      .help = "result file (default fusionbench-YYYYmmdd-HHMMSS.json)"};
    t[n++] = (fb_opt){.name = "resume", .kind = FB_OPT_STRING, .dst = &o->resume, .arg = "FILE",
                      .help = "continue a run: skip cells already in FILE (and in FILE.journal,\n"
                              "left by a run that was stopped), keep writing to it"};
    t[n++] = (fb_opt){.name = "metrics", .kind = FB_OPT_LIST, .dst = &o->metrics_list, .arg = "LIST",
                      .help = "also measure each variant's DRAM bytes read and written (dram) and warp\n"
                              "instructions executed (inst), or all, with CUPTI's range profiler in a pass\n"
                              "after its timing (one more run from a flushed L2); see --show dram|inst"};
    t[n++] = (fb_opt){.name = "show", .kind = FB_OPT_ENUM, .dst = &o->show_mode, .arg = "WHAT",
                      .choices = fb_show_choices, .n_choices = FB_NSHOW,
                      .help = "speedup (default), sol (% of speed of light), time (us), gbps,\n"
                              "dram (measured DRAM bytes / ideal bytes, e.g. 1.02x), inst (warp\n"
                              "instructions executed); dram and inst need --metrics; paired\n"
                              "(t_floor / t_variant, timed in pairs with the case's plain op);\n"
                              "kernels (kernels per run and their names, measured with --timer cupti)"};
    t[n++] = (fb_opt){.name = "table", .kind = FB_OPT_FLAG, .dst = &o->table,
                      .help = "print the benchmark table instead of the grids: one per case x dtype, a\n"
                              "row per cell (its input's shape and grid values), the median time (us)\n"
                              "of each variant and of the speed-of-light copy (sol), and the speedups\n"
                              "against --speedup-vs (export --format md --table prints the same)"};
    t[n++] = (fb_opt){.name = "speedup-vs", .kind = FB_OPT_STRING, .dst = &o->speedup_vs, .arg = "X",
                      .help = "with --table: the speedups are t_X / t_variant, X one of the run's\n"
                              "variants or sol (default: the baseline)"};
    return n;
}

static void run_usage(FILE *f)
{
    run_opts dummy = {0};
    fb_opt t[RUN_MAX_OPTS];
    int n = run_table(&dummy, t);
    fputs("usage: fusionbench run [--case NAME ...|--all] [--dtype T[,T...]|all] [--variants A,B]\n"
          "                       [--baseline V] [--AXIS LIST] [--quick] [--timer events|graph|cupti]\n"
          "                       [--flush write|clean|none] [--warmup MS] [--rep MS] [--max-noise PCT]\n"
          "                       [--max-time S] [--settle MS] [--seed N] [--out FILE] [--resume FILE]\n"
          "                       [--metrics dram,inst|all]\n"
          "                       [--show speedup|sol|time|gbps|dram|inst|paired|kernels]\n"
          "                       [--table [--speedup-vs X]] [--tf32] [--no-pair|--pair]\n"
          "\n"
          "Runs each case's eager form and its fused variants over its shape grid, checks every\n"
          "result against the float64 reference, times them with the L2 flushed before every\n"
          "sample (--flush), and prints one grid per dtype and variant: t_baseline / t_variant\n"
          "(--table: one table per dtype, a row per cell, a column per variant's time). A case\n"
          "that names its plain op (\"paired\") also has each fused variant timed in turn with\n"
          "it, and a grid of t_floor / t_variant (100%: the fusion is free).\n"
          "\n",
          f);
    static const char *const axis_help[] = {
        "--AXIS LIST",
        "replace a grid axis of the selected cases, e.g. --dim1 61,130,1027 or\n"
        "--dim0 128:65536 (a:b is a, 2a, 4a, ... up to b); at most 64 values,\n"
        "none twice; an option that is no axis of any selected case is an error",
        NULL};
    fb_opts_help(f, t, n, axis_help);
    fputs("\n"
          "Options take --NAME VALUE or --NAME=VALUE; a later scalar option overrides an earlier one,\n"
          "list options (--case, --dtype, --variants) accumulate; lists hold no empty or repeated item.\n",
          f);
}

static void run_opts_free(run_opts *o)
{
    fb_strlist_free(&o->cases);
    fb_strlist_free(&o->dtype_list);
    fb_strlist_free(&o->variant_list);
    fb_strlist_free(&o->metrics_list);
    free(o->dtypes_buf);
    free(o->variants_buf);
    for (int i = 0; i < o->n_unknown; i++) free(o->unknown[i].name);
    free(o->unknown);
    memset(o, 0, sizeof *o);
}

/* "128,256,1024" or "128:65536" (a, 2a, 4a, ... <= b) or a mix: "61,130,128:1024". */
static fb_status parse_list(const char *opt, const char *s, axis_override *ov)
{
    return fb_opt_sizes(opt, s, ov->v, FB_MAX_GRID, &ov->n);
}

static fb_status parse_args(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    fb_timer_opts_default(&o->timer);
    o->seed_arg = 1;
    o->settle_ms = DEFAULT_SETTLE_MS;
    o->timer_mode = (int)o->timer.mode;
    o->flush_mode = -1; /* not given: the default, or a resumed file's own */
    o->show_mode = -1; /* not given: the speedup */
    fb_opt t[RUN_MAX_OPTS];
    fb_cmdline cl = {.cmd = "run", .opts = t, .n_opts = run_table(o, t), .keep_unknown = true};
    fb_status s = fb_opts_parse(&cl, argc, argv);
    /* unknown options wait for the cases: only then is it known which are grid axes */
    o->unknown = cl.unknown;
    o->n_unknown = cl.n_unknown;
    cl.unknown = NULL;
    cl.n_unknown = 0;
    fb_cmdline_free(&cl);
    FB_TRY(s);

    o->timer.mode = (fb_timer_mode)o->timer_mode;
    o->flush_given = o->flush_mode >= 0;
    if (o->flush_given) o->timer.flush = (fb_flush_mode)o->flush_mode;
    if (o->table && o->show_mode >= 0) {
        fb_error("--show picks the value of the grids; the table shows median times and speedups: leave out --show");
        return FB_E_USAGE;
    }
    if (o->pair && o->no_pair) {
        fb_error("--pair and --no-pair contradict each other: give one");
        return FB_E_USAGE;
    }
    if (o->speedup_vs && !o->table) {
        fb_error("--speedup-vs picks the table's speedup reference: add --table (the grids' is --baseline)");
        return FB_E_USAGE;
    }
    o->show = o->show_mode >= 0 ? (fb_show)o->show_mode : FB_SHOW_SPEEDUP;
    o->seed = (uint64_t)o->seed_arg;
    /* before the GPU: a missing libcupti is said at once (FB_E_UNSUPPORTED, exit 4) */
    if (o->timer.mode == FB_TIMER_CUPTI && fb_cupti_load(NULL) != FB_OK) {
        fb_error("--timer cupti: %s", fb_last_error());
        return FB_E_UNSUPPORTED;
    }
    unsigned dtype_mask; /* --dtype: known names, 'all' alone, no dtype twice (f32,float32) */
    FB_TRY(fb_opt_dtypes("--dtype", &o->dtype_list, &dtype_mask));
    for (int i = 0; i < o->dtype_list.n && strcmp(o->dtype_list.item[i], "all") != 0; i++)
        (void)fb_dtype_from_name(o->dtype_list.item[i], &o->dtype_order[o->n_dtype_order++]);
    if (o->metrics_list.n) {
        char *joined = fb_strlist_join(&o->metrics_list);
        if (!joined) goto nomem;
        s = fb_metrics_parse(joined, &o->metrics);
        free(joined);
        FB_TRY(s);
    }
    if (o->dtype_list.n && !(o->dtypes = o->dtypes_buf = fb_strlist_join(&o->dtype_list))) goto nomem;
    if (o->variant_list.n && !(o->variants = o->variants_buf = fb_strlist_join(&o->variant_list))) goto nomem;
    if (o->all && o->cases.n) {
        fb_error("--all and --case exclude each other");
        return FB_E_USAGE;
    }
    if (!o->all && !o->cases.n) {
        /* no case, so no grid axis: an unknown option is a mistake, and likely the reason */
        if (o->n_unknown) return fb_opts_unknown(&cl, o->unknown[0].name, NULL, 0, NULL);
        fb_error("which case? give --case NAME or --all (cases: see 'fusionbench list')");
        return FB_E_USAGE;
    }
    return FB_OK;
nomem:
    fb_error("out of host memory parsing the command line");
    return FB_E_NOMEM;
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
    p->n_dtypes = 0;
    for (int k = 0; k < o->n_dtype_order; k++) {
        const fb_dtype d = o->dtype_order[k];
        bool listed = false;
        for (int i = 0; i < c->n_dtypes; i++) listed |= c->dtypes[i] == d;
        if (!listed && o->all) continue; /* --all: this case sits that dtype out (load_plans says so) */
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
    /* the table's reference must be measured by this run (or be the sol copy) */
    return o->speedup_vs ? fb_table_check_vs(c->name, o->speedup_vs, p->variants, p->n_variants, "this run's") : FB_OK;
}

/* The axis or fixed symbol of `c` named `name`, or NULL. */
static fb_axis *find_axis(fb_case *c, const char *name)
{
    for (int a = 0; a < c->n_axes; a++)
        if (!strcmp(c->sym[c->axis[a].sym], name)) return &c->axis[a];
    for (int f = 0; f < c->n_fixed; f++)
        if (!strcmp(c->sym[c->fixed[f].sym], name)) return &c->fixed[f];
    return NULL;
}

static fb_status plan_axes(const run_opts *o, case_plan *p)
{
    fb_case *c = &p->c;
    for (int k = 0; k < o->n_ov; k++) {
        fb_axis *ax = find_axis(c, o->ov[k].name); /* a displayed axis or a fixed symbol alike */
        if (!ax) continue; /* an axis of another selected case (parse_overrides checked the union) */
        ax->n = o->ov[k].n;
        memcpy(ax->v, o->ov[k].v, sizeof(int64_t) * (size_t)o->ov[k].n);
    }
    if (o->quick) {
        for (int a = 0; a < c->n_axes + c->n_fixed; a++) {
            fb_axis *ax = a < c->n_axes ? &c->axis[a] : &c->fixed[a - c->n_axes];
            if (ax->n <= 3) continue;
            int64_t first = ax->v[0], mid = ax->v[ax->n / 2], last = ax->v[ax->n - 1];
            ax->v[0] = first, ax->v[1] = mid, ax->v[2] = last;
            ax->n = 3;
        }
    }
    int64_t grids = 1;
    for (int f = 0; f < c->n_fixed; f++) grids *= c->fixed[f].n;
    if (grids > FB_MAX_GRIDS) {
        fb_error("%s: the fixed symbols' values make %lld grids; at most %d", c->name, (long long)grids, FB_MAX_GRIDS);
        return FB_E_USAGE;
    }
    /* overrides may create shapes that do not broadcast or overflow: check every point now */
    for (int i = 0, n = fb_case_n_points(c); i < n; i++) {
        fb_point pt;
        fb_case_point(c, i, &pt);
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

/* The unknown options, now that the cases are loaded: each must be a grid axis of at
 * least one selected case (the union of their axes), with a LIST value. */
static fb_status parse_overrides(run_opts *o, const case_plan *plans, int n_plans)
{
    const char **axes = malloc(sizeof *axes * (size_t)((2 + FB_MAX_SYMS) * n_plans + 1));
    int n_axes = 0;
    if (!axes) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    for (int i = 0; i < n_plans; i++) {
        const fb_case *c = &plans[i].c;
        for (int a = 0; a < c->n_axes + c->n_fixed; a++) { /* a fixed symbol is overridden as an axis is */
            const char *sym = c->sym[a < c->n_axes ? c->axis[a].sym : c->fixed[a - c->n_axes].sym];
            bool dup = false;
            for (int k = 0; k < n_axes; k++) dup |= !strcmp(axes[k], sym);
            if (!dup) axes[n_axes++] = sym;
        }
    }
    fb_status s = FB_OK;
    for (int u = 0; u < o->n_unknown && s == FB_OK; u++) {
        const fb_unknown_opt *uo = &o->unknown[u];
        const char *axis = NULL;
        for (int k = 0; k < n_axes; k++)
            if (!strcmp(axes[k], uo->name)) axis = axes[k];
        if (!axis) {
            fb_opt t[RUN_MAX_OPTS];
            run_opts dummy = {0};
            fb_cmdline cl = {.cmd = "run", .opts = t, .n_opts = run_table(&dummy, t)};
            s = fb_opts_unknown(&cl, uo->name, axes, n_axes, "grid axes of the selected cases");
            break;
        }
        char opt[FB_NAME_MAX + 2];
        snprintf(opt, sizeof opt, "--%s", axis);
        if (!uo->value) {
            fb_error("%s needs a value (LIST, e.g. %s 128,256 or %s 128:4096)", opt, opt, opt);
            s = FB_E_USAGE;
            break;
        }
        axis_override *ov = NULL; /* given twice: the last one wins, as for every scalar option */
        for (int k = 0; k < o->n_ov; k++)
            if (!strcmp(o->ov[k].name, axis)) ov = &o->ov[k];
        if (!ov && o->n_ov == MAX_OVERRIDES) {
            fb_error("at most %d axis overrides", MAX_OVERRIDES);
            s = FB_E_USAGE;
            break;
        }
        if (!ov) ov = &o->ov[o->n_ov++];
        snprintf(ov->name, sizeof ov->name, "%s", axis);
        s = parse_list(opt, uo->value, ov);
    }
    free(axes);
    return s;
}

static bool same_file(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return true;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Two case files with one internal name would write into one another's cells
 * (the result file keys cases by name): refuse, naming both files. */
static fb_status check_unique_names(const case_plan *plans, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            if (strcmp(plans[i].c.name, plans[j].c.name) != 0) continue;
            if (same_file(plans[i].c.path, plans[j].c.path))
                fb_error("case '%s' is given twice (%s)", plans[i].c.name, fb_qpath(plans[i].c.path));
            else
                fb_error("%s and %s both define the case '%s'; one run needs distinct case names",
                         fb_qpath(plans[j].c.path), fb_qpath(plans[i].c.path), plans[i].c.name);
            return FB_E_USAGE;
        }
    return FB_OK;
}

/* Load and plan every case before touching the GPU: bad input costs nothing. */
static fb_status load_plans(run_opts *o, case_plan **out, int *n_out)
{
    *out = NULL;
    *n_out = 0;
    fb_case_dir d = {0};
    if (o->all) FB_TRY(fb_case_list_every(&d, "--all: ", "run"));
    int n = o->all ? d.n : o->cases.n;
    case_plan *plans = calloc((size_t)n, sizeof *plans); /* each holds an fb_case: tens of KiB */
    fb_status s = plans ? FB_OK : FB_E_NOMEM;
    if (!plans) fb_error("out of host memory loading %d cases", n);
    for (int i = 0; i < n && s == FB_OK; i++)
        s = o->all ? fb_case_load(d.path[i], &plans[i].c) : fb_case_find(o->cases.item[i], &plans[i].c);
    fb_case_dir_free(&d);
    if (s == FB_OK) s = parse_overrides(o, plans, n);
    for (int i = 0; i < n && s == FB_OK; i++) {
        s = plan_dtypes(o, &plans[i]);
        if (s == FB_OK && plans[i].n_dtypes == 0) {
            /* --all with a --dtype list this case does not take: leave the case out, say so */
            fprintf(stderr, "note: --all: case '%s' lists none of --dtype %s: left out\n", plans[i].c.name, o->dtypes);
            memmove(&plans[i], &plans[i + 1], (size_t)(n - i - 1) * sizeof *plans);
            n--;
            i--;
            continue;
        }
        if (s == FB_OK) s = plan_variants(o, &plans[i]);
        if (s == FB_OK) s = plan_axes(o, &plans[i]);
    }
    if (s == FB_OK && n == 0) {
        fb_error("--all: no case lists --dtype %s", o->dtypes);
        s = FB_E_USAGE;
    }
    if (s == FB_OK) s = check_unique_names(plans, n);
    if (s != FB_OK) {
        free(plans);
        return s;
    }
    *out = plans;
    *n_out = n;
    return FB_OK;
}

#define MAX_UNCHECKED_WARNINGS 5 /* by name; past that, a count at the end */

/* ---- progress ------------------------------------------------------------------------------ */

static void progress(bool tty, int i, int n, const char *cname, fb_dtype d, const char *pt, double t0)
{
    if (!tty) return;
    int el = (int)(fb_now_s() - t0);
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

static fb_status run_plans(run_opts o, case_plan *plans, int n_plans, int argc, char **argv);

/* fb_cell_env's before_timing: wait for a slowed SM clock (clocks.h) */
static void settle_clock(void *watch) { (void)fb_clock_watch_settle(watch); }

/* ---- stopping: SIGINT / SIGTERM ------------------------------------------------------------- */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    static const char msg[] = "\nfusionbench: stopping after the cell in flight and writing the result file "
                              "(again to stop at once: the journal keeps every finished cell)\n";
    stop_signal = sig;
    ssize_t rc = write(2, msg, sizeof msg - 1); /* async-signal-safe, unlike stdio */
    (void)rc;
}

/* SA_RESETHAND: the second signal takes its default action, at once. */
static void catch_stop(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    stop_signal = 0;
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

static void release_stop(const struct sigaction *old_int, const struct sigaction *old_term)
{
    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGTERM, old_term, NULL);
}

/* Whether two case paths name one file (a bundled name and a path to it, or two
 * spellings of one path). */
static bool same_file(const char *a, const char *b);

/* The journal the run will write, PATH.journal, before the GPU: it may be the
 * journal --resume just read (the run continues it), but a journal of another
 * stopped run would lose that run's cells: refused (exit 2). Not writable: exit 4. */
static fb_status check_journal_target(const char *out, const char *resume)
{
    char *jout = fb_journal_path(out), *jres = resume ? fb_journal_path(resume) : NULL;
    fb_status s = jout && (!resume || jres) ? FB_OK : FB_E_NOMEM;
    if (s != FB_OK) fb_error("out of host memory");
    struct stat st;
    if (s == FB_OK && lstat(jout, &st) == 0 && S_ISREG(st.st_mode) && !(jres && same_file(jout, jres))) {
        fb_error("%s: the journal of a run that was stopped before it finished (its cells are not in %s); "
                 "continue that run with --resume %s, or move the journal away",
                 fb_qpath(jout), fb_qpath(out), fb_qpath(out));
        s = FB_E_USAGE;
    }
    if (s == FB_OK) s = fb_result_check_target(jout);
    free(jout);
    free(jres);
    return s;
}

fb_status fb_cmd_run(int argc, char **argv)
{
    if (fb_wants_help(argc, argv)) {
        run_usage(stdout);
        return FB_OK;
    }
    run_opts o;
    /* Every input is checked before the GPU is touched, so bad input costs
     * nothing: the options (exit 2), the cases and the plan (exit 3 / 2), the
     * resumed file (3), its fit with this run's cases (2), and whether the
     * result can be written (4) — the last two at the start of run_plans. */
    case_plan *plans = NULL;
    int n_plans = 0;
    fb_status s = parse_args(argc, argv, &o);
    if (s == FB_OK) s = load_plans(&o, &plans, &n_plans);
    if (s == FB_OK) s = run_plans(o, plans, n_plans, argc, argv);
    free(plans);
    run_opts_free(&o);
    return s;
}

/* A result file records one flush for all its cells, so a resumed run times
 * with the file's: taken when --flush is not given, refused (exit 2) when it
 * names another. A file from before --flush flushed with a memset: write. */
static fb_status resume_flush(const json_t *root, const char *path, run_opts *o)
{
    const char *had = json_string_value(json_object_get(json_object_get(root, "settings"), "flush"));
    fb_flush_mode m;
    if (!had) had = fb_flush_mode_name(FB_FLUSH_WRITE);
    if (fb_flush_mode_from_name(had, &m) != 0) {
        char q[96];
        fb_error("%s: settings.flush is '%s', not a flush fusionbench knows (write, clean or none): not resumable",
                 fb_qpath(path), fb_clean(had, q, sizeof q));
        return FB_E_USAGE;
    }
    if (o->flush_given && m != o->timer.flush) {
        fb_error("%s was measured with --flush %s, this run would use --flush %s: a result file holds one flush "
                 "(resume without --flush, or start a new file without --resume)",
                 fb_qpath(path), had, fb_flush_mode_name(o->timer.flush));
        return FB_E_USAGE;
    }
    o->timer.flush = m;
    return FB_OK;
}

/* A result file holds one float32 math: a resumed run keeps the file's TF32
 * setting, and refuses (exit 2) a --tf32 the file was not measured with. */
static fb_status resume_tf32(const json_t *root, const char *path, run_opts *o)
{
    const bool had = json_is_true(json_object_get(json_object_get(root, "settings"), "tf32"));
    if (o->tf32 && !had) {
        fb_error("%s was measured without --tf32: a result file holds one float32 math (resume without --tf32, "
                 "or start a new file without --resume)", fb_qpath(path));
        return FB_E_USAGE;
    }
    o->tf32 = had;
    return FB_OK;
}

/* A failure of --metrics' set-up, named as the option's. */
static fb_status metrics_error(fb_status s)
{
    if (s != FB_OK) {
        char msg[4096];
        snprintf(msg, sizeof msg, "%s", fb_last_error());
        fb_error("--metrics: %s", msg);
    }
    return s;
}

/* run --table: the document read into the typed model, as export reads a file,
 * and each case x dtype of the run through export's table printer (text); only
 * the run's variants are columns (a resumed file may hold others). A failure
 * here is said, but the measurements are safe in the file: export prints them. */
static void print_tables(json_t *root, const char *out, const case_plan *plans, int n_plans, const char *vs)
{
    fb_rs_doc doc = {0};
    fb_status s = fb_rs_from_json(root, out, &doc);
    for (int ci = 0; ci < n_plans && s == FB_OK; ci++) {
        const case_plan *p = &plans[ci];
        const fb_rs_case *cs = fb_rs_find_case(&doc, p->c.name);
        for (int di = 0; cs && di < p->n_dtypes && s == FB_OK; di++) {
            const fb_rs_dtype *dt = fb_rs_find_dtype(cs, fb_dtype_name(p->dtypes[di]));
            if (dt) s = fb_table_print(stdout, &doc, cs, dt, p->variants, p->n_variants, vs, FB_TABLE_TEXT);
        }
    }
    if (s != FB_OK)
        fprintf(stderr, "fusionbench: warning: cannot print the tables (%s); export --format md --table %s prints them\n",
                fb_last_error(), out);
    fb_rs_free(&doc);
}

/* The run itself, once every case is loaded and planned. */
static fb_status run_plans(run_opts o, case_plan *plans, int n_plans, int argc, char **argv)
{
    json_t *root = NULL;
    char out_buf[PATH_MAX];
    const char *out = o.out;
    fb_status s = FB_OK;
    if (o.resume) {
        /* the document and the journal a stopped run left beside it: its cells count as finished */
        fb_journal_info jinfo;
        FB_TRY(fb_result_load(o.resume, &root, &jinfo));
        if (jinfo.warning[0]) fprintf(stderr, "fusionbench: warning: %s\n", jinfo.warning);
        for (int i = 0; i < n_plans && s == FB_OK; i++) s = fb_result_check_resume(root, o.resume, &plans[i].c);
        if (s == FB_OK) s = resume_flush(root, o.resume, &o);
        if (s == FB_OK) s = resume_tf32(root, o.resume, &o);
        if (!out) out = o.resume;
    }
    if (!out) {
        default_out(out_buf, sizeof out_buf);
        out = out_buf;
    }
    if (s == FB_OK) s = fb_result_check_target(out);
    if (s == FB_OK) s = check_journal_target(out, o.resume);
    if (s != FB_OK) {
        json_decref(root);
        return s;
    }

    /* --metrics: libcupti is looked for before the GPU is opened, and everything
     * else that can fail for it (permission, device support) right after, so it
     * fails before any timing, never halfway through the run */
    if (s == FB_OK && o.metrics) s = metrics_error(fb_metrics_load_cupti(NULL, NULL));
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
    env.ctx.tf32 = o.tf32;
    fb_metrics *metrics = NULL;
    if (o.metrics) s = metrics_error(fb_metrics_open(&env.ctx, env.timer, o.metrics, &metrics));
    if (s != FB_OK) {
        json_decref(root);
        fb_run_env_close(&env);
        return s;
    }
    /* SM/memory clocks, temperature, power around each cell (one note if NVML is absent) */
    fb_clock_watch clocks;
    fb_clock_watch_open(&clocks, env.ctx.dev.ordinal, stderr);
    clocks.settle_max_ms = o.settle_ms;
    if (!root) root = fb_run_new_result(&env, argc, argv, o.seed);
    else fb_run_note_resume(root, argc, argv);
    json_t *settings = json_object_get(root, "settings");
    if (metrics) json_object_set_new(settings, "metrics", fb_metrics_settings_json(o.metrics));
    /* a resumed file keeps the bound its first run recorded (the cells it adds record their own waits) */
    if (!json_object_get(settings, "settle_max_ms"))
        json_object_set_new(settings, "settle_max_ms", json_real(o.settle_ms));

    /* the first write: a fresh run's file exists from now on, a resumed one records the
     * resume and holds the cells of the journal it was resumed from; then the journal */
    fb_journal *journal = NULL;
    s = fb_journal_start(out, root, &journal);
    if (s != FB_OK) {
        json_decref(root);
        fb_clock_watch_close(&clocks);
        fb_metrics_close(metrics);
        fb_run_env_close(&env);
        return s;
    }
    struct sigaction old_int, old_term;
    catch_stop(&old_int, &old_term);

    int total = 0;
    for (int i = 0; i < n_plans; i++)
        total += plans[i].n_dtypes * fb_case_n_points(&plans[i].c);
    bool tty = isatty(2);
    double t0 = fb_now_s();
    int done = 0, failed_cells = 0, oom_cells = 0, unchecked_cells = 0, metrics_missing = 0, stepped_cells = 0;
    int capped = 0, measured = 0; /* measurements a power or thermal limit held the clock in; all timed */
    fb_cell_env cenv = {&env.ctx, env.timer, o.seed, FB_RUN_FULL_LIMIT, true, metrics};
    cenv.sol_cache = fb_sol_cache_create(); /* NULL: each cell times its own copy */
    cenv.before_timing = settle_clock;
    cenv.before_timing_arg = &clocks;
    cenv.clocks = &clocks;
    /* --all leaves paired timing out unless --pair: it adds a plain op's tuning and pairs to
     * every epilogue cell (the float32 GEMM cells' tuning is seconds each), and the suite's
     * float32 grids are held to ten minutes (issue 6) */
    const bool want_pairs = !o.no_pair && (!o.all || o.pair);
    cenv.paired = want_pairs && o.timer.mode != FB_TIMER_GRAPH;
    for (int i = 0; i < n_plans && !o.no_pair && !cenv.paired; i++)
        if (plans[i].c.paired[0]) {
            if (!want_pairs)
                fprintf(stderr,
                        "fusionbench: note: --all times the fused variants alone; --pair also times them in turn "
                        "with their case's plain op (case %s's %s, ...)\n",
                        plans[i].c.name, plans[i].c.paired);
            else
                fprintf(stderr,
                        "fusionbench: note: case %s names its plain op for paired timing (%s), which needs the "
                        "events or cupti timer: under --timer %s its variants are timed alone only\n",
                        plans[i].c.name, plans[i].c.paired, fb_timer_mode_name(o.timer.mode));
            break;
        }

    for (int ci = 0; ci < n_plans && s == FB_OK && !stop_signal; ci++) {
        case_plan *p = &plans[ci];
        fb_case *c = &p->c;
        json_t *cj = fb_result_begin_case(root, c, p->variants, p->n_variants, p->baseline);
        s = fb_journal_begin_case(journal, cj);
        for (int di = 0; di < p->n_dtypes && s == FB_OK && !stop_signal; di++) {
            json_t *dj = fb_result_begin_dtype(cj, p->dtypes[di]);
            for (int pi = 0, n_points = fb_case_n_points(c); pi < n_points && s == FB_OK && !stop_signal; pi++) {
                    fb_point pt;
                    fb_case_point(c, pi, &pt); /* grid by grid (fixed symbols), row by row, column by column */
                    char pts[FB_MAX_SYMS * (FB_NAME_MAX + 24)];
                    fb_point_str(c, &pt, pts, sizeof pts);
                    progress(tty, ++done, total, c->name, p->dtypes[di], pts, t0);
                    /* a resumed cell measures only what it lacks; what it has stays */
                    json_t *old = fb_result_cell_at(dj, c, &pt);
                    const char *todo[MAX_VARIANTS];
                    int n_todo = fb_result_cell_todo(old, p->variants, p->n_variants, todo);
                    if (n_todo == 0) continue;
                    json_t *cell = json_object();
                    bool failed = false, throttled = false;
                    char why[256];
                    fb_clock_watch_before(&clocks);
                    s = fb_cell_run(&cenv, c, p->dtypes[di], &pt, todo, n_todo, cell, &failed);
                    json_t *clk = fb_clock_watch_after(&clocks, &throttled, why, sizeof why);
                    if (clk) json_object_set_new(cell, "clocks", clk);
                    if (throttled && clocks.throttled <= FB_THROTTLE_WARNINGS)
                        fprintf(stderr, "%sfusionbench: warning: %s %s %s throttled: %s\n", tty ? "\r\033[K" : "",
                                c->name, fb_dtype_name(p->dtypes[di]), pts, why);
                    if (failed) failed_cells++;
                    json_t *vars = json_object_get(cell, "variants");
                    const char *k;
                    json_t *vj;
                    bool oom = false, stepped = false;
                    const char *unchecked = NULL;
                    json_object_foreach(vars, k, vj) {
                        if (json_object_get(vj, "time_ms")) measured++;
                        capped += fb_clock_power_limited(json_object_get(vj, "sm_clock_mhz"));
                        /* the clock changed inside this measurement (clocks.h, "the step detector") */
                        double step_pct;
                        if (fb_variant_json_stepped(vj, &step_pct)) {
                            if (!stepped && !throttled && stepped_cells < FB_THROTTLE_WARNINGS)
                                fprintf(stderr,
                                        "%sfusionbench: warning: %s %s %s throttled: %s's samples stepped %+.1f%% within "
                                        "its measurement (the median of the last quarter against the first's)\n",
                                        tty ? "\r\033[K" : "", c->name, fb_dtype_name(p->dtypes[di]), pts, k, step_pct);
                            stepped = true;
                        }
                        oom |= !strcmp(json_string_value(json_object_get(vj, "status")) ?: "", "oom");
                        const char *merr = json_string_value(json_object_get(vj, "metrics_error"));
                        if (merr && metrics_missing++ < MAX_UNCHECKED_WARNINGS)
                            fprintf(stderr, "%sfusionbench: warning: %s %s %s %s: no metrics: %s\n", tty ? "\r\033[K" : "",
                                    c->name, fb_dtype_name(p->dtypes[di]), pts, k, merr);
                        if (!unchecked) unchecked = fb_result_unchecked(vj);
                    }
                    oom_cells += oom;
                    stepped_cells += stepped && !throttled; /* a cell the clock watch flagged is counted there */
                    /* never silent: the first few by name, then a count at the end */
                    if (unchecked && unchecked_cells++ < MAX_UNCHECKED_WARNINGS)
                        fprintf(stderr, "%sfusionbench: warning: %s %s %s not checked against the reference: %s\n",
                                tty ? "\r\033[K" : "", c->name, fb_dtype_name(p->dtypes[di]), pts, unchecked);
                    /* its journal line (fsync'ed), then into the document in memory */
                    fb_status ws = fb_journal_store_cell(journal, cj, dj, cell);
                    if (s == FB_OK) s = ws;
                }
        }
    }
    if (tty) fprintf(stderr, "\r\033[K");
    fb_status run_status = s;
    char run_error[2048] = "";
    if (run_status != FB_OK) snprintf(run_error, sizeof run_error, "%s", fb_last_error());
    int stopped_by = stop_signal;

    fb_sol_cache_destroy(cenv.sol_cache);
    fb_run_finish(root);
    /* the document, whole, and the journal removed: from every exit but a second signal */
    fb_status ws = fb_journal_finish(journal, root);
    release_stop(&old_int, &old_term);

    /* the grids, or the tables, from the document just written */
    if (o.table) print_tables(root, out, plans, n_plans, o.speedup_vs);
    for (int ci = 0; ci < n_plans && !o.table; ci++) {
        case_plan *p = &plans[ci];
        for (int di = 0; di < p->n_dtypes; di++) {
            fb_report_case(stdout, root, p->c.name, fb_dtype_name(p->dtypes[di]), p->variants, p->n_variants,
                           p->baseline, o.show);
            /* and what the paired timing measured: each fused variant against the plain op, pair by pair */
            for (int v = 0; v < p->n_variants && cenv.paired && o.show != FB_SHOW_PAIRED; v++)
                if (fb_case_pairs(&p->c, p->variants[v]))
                    fb_report_grid(stdout, root, p->c.name, fb_dtype_name(p->dtypes[di]), p->variants[v], NULL,
                                   FB_SHOW_PAIRED);
        }
    }
    fflush(stdout);
    fprintf(stderr, "fusionbench: %d cells in %.1f s; results in %s\n", done, fb_now_s() - t0, out);
    if (oom_cells) fprintf(stderr, "fusionbench: %d cells out of device memory (marked OOM)\n", oom_cells);
    if (unchecked_cells)
        fprintf(stderr, "fusionbench: warning: %d cell%s not checked against the reference (marked UNCHK)\n",
                unchecked_cells, unchecked_cells > 1 ? "s" : "");
    if (metrics_missing)
        fprintf(stderr, "fusionbench: warning: %d variant measurement%s without metrics (see metrics_error in %s)\n",
                metrics_missing, metrics_missing > 1 ? "s" : "", out);
    fb_clock_watch_report(&clocks, stderr);
    if (capped)
        fprintf(stderr,
                "fusionbench: note: %d of %d measurements ran while a power or thermal limit held the GPU's clock "
                "(NVML's clock-limit reasons, in each variant's sm_clock_mhz.limited_by): their times depend on the "
                "card's power state; compare them across runs with care\n",
                capped, measured);
    if (stepped_cells)
        fprintf(stderr,
                "fusionbench: warning: %d cell%s throttled: a variant's samples stepped more than %.0f%% within its "
                "measurement, the GPU's clock changing while it ran (marked ! in the grids); %s times are not comparable "
                "with the others\n",
                stepped_cells, stepped_cells > 1 ? "s" : "", FB_STEP_LIMIT * 100, stepped_cells > 1 ? "their" : "its");
    fb_clock_watch_close(&clocks);
    json_decref(root);
    fb_metrics_close(metrics);
    fb_run_env_close(&env);

    if (run_status != FB_OK) {
        fb_error("%s (what was measured before is in %s)", run_error, out);
        return run_status;
    }
    if (ws != FB_OK) return ws;
    if (stopped_by) {
        fb_error("stopped by %s after %d of %d cells; the finished ones are in %s (--resume %s goes on)",
                 stopped_by == SIGINT ? "SIGINT" : "SIGTERM", done, total, fb_qpath(out), fb_qpath(out));
        return FB_E_INTERRUPTED;
    }
    if (failed_cells) {
        fb_error("%d cell%s failed the correctness check; see %s", failed_cells, failed_cells > 1 ? "s" : "", out);
        return FB_E_CHECK;
    }
    return FB_OK;
}
