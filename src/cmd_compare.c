/* cmd_compare.c — `fusionbench compare BASE.json NEW.json` and
 * `fusionbench compare RUN.json --variants A,B`: the regression gate.
 *
 * Exit status (main.c's policy): 0 nothing SLOWER and no check failed in NEW; 1 a
 * comparison is SLOWER or a variant failed its check in NEW (FB_E_REGRESSION); 2 usage,
 * also two different devices without --allow-device-mismatch, and nothing to compare;
 * 3 a result file that is missing, malformed or invalid; 4 the output cannot be written.
 * The report goes to stdout (or --out/-o FILE) whatever the verdict; messages to stderr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "compare.h"
#include "opts.h"
#include "resultset.h"

typedef struct compare_args {
    fb_strlist cases, dtypes, variants;
    double threshold_pct;
    int format;
    bool allow_mismatch;
    bool paired;
    const char *out;
} compare_args;

static const fb_opt_choice formats[] = {
    {"table", FB_CMP_TABLE}, {"md", FB_CMP_MD}, {"json", FB_CMP_JSON}, {"bench-json", FB_CMP_BENCH_JSON}};

static int compare_table(compare_args *a, fb_opt *t)
{
    int n = 0;
    t[n++] = (fb_opt){.name = "threshold", .kind = FB_OPT_DOUBLE, .dst = &a->threshold_pct, .arg = "PCT",
                      .lo = 0, .hi = 1000,
                      .help = "the smallest change that counts (default 5): SLOWER needs the whole interval\n"
                              "above 1 + PCT/100, FASTER below 1 / (1 + PCT/100)"};
    t[n++] = (fb_opt){.name = "case", .kind = FB_OPT_LIST, .dst = &a->cases, .arg = "NAME",
                      .help = "compare only these cases (repeatable, or comma-separated)"};
    t[n++] = (fb_opt){.name = "dtype", .kind = FB_OPT_LIST, .dst = &a->dtypes, .arg = "T",
                      .help = "compare only these dtypes"};
    t[n++] = (fb_opt){.name = "variants", .kind = FB_OPT_LIST, .dst = &a->variants, .arg = "A,B",
                      .help = "with two files: compare only these variants;\n"
                              "with one file: exactly two, B held against A (the base)"};
    t[n++] = (fb_opt){.name = "format", .kind = FB_OPT_ENUM, .dst = &a->format, .arg = "F", .choices = formats,
                      .n_choices = 4,
                      .help = "table (default), md (a pull-request comment), json,\n"
                              "bench-json (github-action-benchmark's customSmallerIsBetter)"};
    t[n++] = (fb_opt){.name = "allow-device-mismatch", .kind = FB_OPT_FLAG, .dst = &a->allow_mismatch,
                      .help = "compare runs from different devices (refused by default)"};
    t[n++] = (fb_opt){.name = "paired", .kind = FB_OPT_FLAG, .dst = &a->paired,
                      .help = "hold each variant's paired timing against the other side's: the pairs'\n"
                              "ratios t_variant / t_floor (run times a case's fused variants in turn with\n"
                              "its plain op), not the times, which a power-capped card moves run to run"};
    t[n++] = (fb_opt){.name = "out", .kind = FB_OPT_STRING, .dst = &a->out, .arg = "FILE",
                      .help = "write the report to FILE (also -o FILE) instead of stdout"};
    return n;
}

static void compare_usage(FILE *f)
{
    compare_args dummy = {0};
    fb_opt t[9];
    int n = compare_table(&dummy, t);
    fputs("usage: fusionbench compare BASE.json NEW.json [options]\n"
          "       fusionbench compare RUN.json --variants A,B [options]\n"
          "\n"
          "Holds every cell and variant of NEW against the same cell and variant of BASE\n"
          "(or variant B against variant A in every cell of one run): the ratio of the\n"
          "medians NEW/BASE, a 95% bootstrap interval for it from the timing samples, and a\n"
          "verdict: SLOWER or FASTER when the whole interval is beyond the threshold, SAME\n"
          "when it is inside it, NOISY when it straddles it. Files without timing samples\n"
          "fall back to the runs' p20/p80 ranges (said in the report). Cells only one side\n"
          "has are listed, not failed. The speed-of-light copies are not compared.\n"
          "\n",
          f);
    fb_opts_help(f, t, n, NULL);
    fputs("\n"
          "Exit status: 0 nothing SLOWER; 1 something SLOWER, or a check failed in NEW;\n"
          "2 usage error, runs from different devices, or nothing to compare;\n"
          "3 a result file missing, malformed or invalid; 4 the report cannot be written.\n",
          f);
}

static void args_free(compare_args *a)
{
    fb_strlist_free(&a->cases);
    fb_strlist_free(&a->dtypes);
    fb_strlist_free(&a->variants);
}

/* The shared parser knows long options only; -o is the short spelling of --out that
 * export has too, rewritten before parsing (not after '--'). */
static char **with_long_out(int argc, char **argv)
{
    char **v = calloc((size_t)argc + 1, sizeof *v);
    if (!v) return NULL;
    bool options = true;
    for (int i = 0; i < argc; i++) {
        if (options && strcmp(argv[i], "--") == 0) options = false;
        v[i] = options && i > 0 && strcmp(argv[i], "-o") == 0 ? (char *)"--out" : argv[i];
    }
    return v;
}

/* The report into a.out or stdout. A file is written as PATH.tmp.PID and renamed into
 * place, so a CI step never posts half a report. */
static fb_status write_report(const compare_args *a, const fb_cmp_report *r)
{
    if (!a->out) return fb_compare_print(stdout, "stdout", r, (fb_cmp_format)a->format);
    size_t n = strlen(a->out) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    snprintf(tmp, n, "%s.tmp.%ld", a->out, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fb_error("%s: cannot write: %s", fb_qpath(a->out), strerror(errno));
        free(tmp);
        return FB_E_IO;
    }
    fb_status s = fb_compare_print(f, fb_qpath(a->out), r, (fb_cmp_format)a->format);
    if (fclose(f) != 0 && s == FB_OK) {
        fb_error("%s: cannot write: %s", fb_qpath(a->out), strerror(errno));
        s = FB_E_IO;
    }
    if (s == FB_OK && rename(tmp, a->out) != 0) {
        fb_error("%s: cannot write: %s", fb_qpath(a->out), strerror(errno));
        s = FB_E_IO;
    }
    if (s != FB_OK) remove(tmp);
    free(tmp);
    return s;
}

/* What makes times differ besides the code, said on stderr (the gate goes on): two
 * flushes (a file without settings.flush wrote: a memset), two timers, TF32 on one side
 * only, throttled cells. */
static void warn_conditions(const fb_rs_doc *base, const fb_rs_doc *new_, int n_files)
{
    if (n_files == 2) {
        const char *fb = base->flush ? base->flush : "write", *fn = new_->flush ? new_->flush : "write";
        if (strcmp(fb, fn) != 0)
            fprintf(stderr,
                    "fusionbench compare: warning: BASE %s was timed with --flush %s, NEW %s with --flush %s: the "
                    "differences include the flushes' (README, The timer)\n",
                    fb_qpath(base->path), fb, fb_qpath(new_->path), fn);
        /* events times hold the event pair's 2.5-4 us a sample, cupti's (kernel durations) do
         * not, graph's a replay's share: small cells and their paired ratios differ by that */
        if (base->timer && new_->timer && strcmp(base->timer, new_->timer) != 0)
            fprintf(stderr,
                    "fusionbench compare: warning: BASE %s was timed with --timer %s, NEW %s with --timer %s: the "
                    "differences include the timers' (events count the event pair's microseconds, cupti only "
                    "kernels: README, The timer)\n",
                    fb_qpath(base->path), base->timer, fb_qpath(new_->path), new_->timer);
        if (base->tf32 != new_->tf32)
            fprintf(stderr,
                    "fusionbench compare: warning: %s was measured with --tf32, %s without: their float32 matmuls "
                    "and convolutions are different arithmetic\n",
                    fb_qpath(base->tf32 ? base->path : new_->path), fb_qpath(base->tf32 ? new_->path : base->path));
    }
    for (int k = 0; k < n_files; k++) {
        const fb_rs_doc *d = k ? new_ : base;
        /* throttled cells; measurements a power or thermal limit held the clock in (NVML,
         * clocks.h): a note, as run's */
        int n = 0, capped = 0, measured = 0;
        for (int i = 0; i < d->n_cases; i++)
            for (int j = 0; j < d->cases[i].n_dtypes; j++)
                for (int c = 0; c < d->cases[i].dtypes[j].n_cells; c++) {
                    const fb_rs_cell *cell = &d->cases[i].dtypes[j].cells[c];
                    n += cell->throttled;
                    for (int v = 0; v < cell->n_variants; v++) {
                        measured += cell->variants[v].has_time;
                        capped += cell->variants[v].power_limited;
                    }
                }
        if (n)
            fprintf(stderr,
                    "fusionbench compare: warning: %d cell%s of %s %s throttled (the SM clock fell more than 10%%, or a "
                    "variant's samples stepped more than 5%%): %s times are not comparable\n",
                    n, n > 1 ? "s" : "", fb_qpath(d->path), n > 1 ? "were" : "was", n > 1 ? "their" : "its");
        if (capped)
            fprintf(stderr,
                    "fusionbench compare: note: %d of %d measurements of %s ran while a power or thermal limit held "
                    "the GPU's clock (sm_clock_mhz.limited_by): their times depend on the card's power state\n",
                    capped, measured, fb_qpath(d->path));
    }
}

static fb_status run_compare(const compare_args *a, int n_files, const char *const *files)
{
    fb_rs_doc base = {0}, new_ = {0};
    fb_cmp_report r = {0};
    fb_compare_opts o = fb_compare_defaults();
    o.threshold = a->threshold_pct / 100.0;
    fb_cmp_filter f = {.cases = &a->cases, .dtypes = &a->dtypes, .variants = &a->variants};

    fb_status s = fb_rs_load(files[0], &base);
    if (s == FB_OK && n_files == 2) s = fb_rs_load(files[1], &new_);
    if (s == FB_OK && n_files == 2 && !a->allow_mismatch) s = fb_compare_check_devices(&base, &new_);
    if (s == FB_OK) warn_conditions(&base, &new_, n_files);
    if (s == FB_OK) {
        if (n_files == 2) s = fb_compare_files(&base, &new_, &f, &o, a->paired, &r);
        else s = fb_compare_variants(&base, a->variants.item[0], a->variants.item[1], &f, &o, a->paired, &r);
    }
    if (s == FB_OK) s = write_report(a, &r);
    if (s == FB_OK && r.n_items == 0) {
        /* a gate that compared nothing must not pass as if all were well */
        if (n_files == 2)
            fb_error("nothing to compare: no cell and variant of %s is in %s (see the 'only in' lines)",
                     fb_qpath(new_.path), fb_qpath(base.path));
        else fb_error("nothing to compare: no cell of %s holds both %s and %s", fb_qpath(base.path), r.variant_a,
                      r.variant_b);
        s = FB_E_USAGE;
    } else if (s == FB_OK && r.paired && r.n_items == r.n_untimed) {
        /* --paired on files without pairs: every item untimed; a gate must not pass on that */
        fb_error("nothing to compare in pairs: no variant was timed in pairs on both sides (run times a case's fused "
                 "variants in pairs when its case file names its plain op, \"paired\", under the events or cupti timer)");
        s = FB_E_USAGE;
    } else if (s == FB_OK && fb_cmp_report_regressed(&r)) {
        int slow = r.verdicts[FB_VERDICT_SLOWER];
        char what[128] = "", fails[128] = "";
        if (slow) snprintf(what, sizeof what, "%d SLOWER beyond %g%%", slow, a->threshold_pct);
        if (r.n_failed)
            snprintf(fails, sizeof fails, "%s%d check %s in %s", slow ? ", " : "", r.n_failed,
                     r.n_failed == 1 ? "failure" : "failures", n_files == 2 ? "NEW" : "B");
        fb_error("regression: %s%s", what, fails);
        s = FB_E_REGRESSION;
    }
    fb_cmp_report_free(&r);
    fb_rs_free(&base);
    fb_rs_free(&new_);
    return s;
}

fb_status fb_cmd_compare(int argc, char **argv)
{
    if (fb_wants_help(argc, argv)) {
        compare_usage(stdout);
        return FB_OK;
    }
    compare_args a = {.threshold_pct = 5.0, .format = FB_CMP_TABLE};
    fb_opt t[9];
    fb_cmdline cl = {.cmd = "compare", .opts = t, .n_opts = compare_table(&a, t), .allow_operands = true};
    char **v = with_long_out(argc, argv);
    if (!v) {
        fb_error("out of host memory parsing the command line");
        return FB_E_NOMEM;
    }
    fb_status s = fb_opts_parse(&cl, argc, v);
    if (s == FB_OK && (cl.n_operands < 1 || cl.n_operands > 2)) {
        fb_error("give BASE.json NEW.json, or RUN.json --variants A,B (got %d %s); see 'fusionbench compare --help'",
                 cl.n_operands, cl.n_operands == 1 ? "file" : "files");
        s = FB_E_USAGE;
    }
    if (s == FB_OK && cl.n_operands == 1 && a.variants.n != 2) {
        if (a.variants.n)
            fb_error("one file compares two of its variants: --variants takes exactly two, A,B (got %d)",
                     a.variants.n);
        else fb_error("one file compares two of its variants: give --variants A,B (B held against A), "
                      "or give a second file");
        s = FB_E_USAGE;
    }
    if (s == FB_OK && a.paired && a.format == FB_CMP_BENCH_JSON) {
        fb_error("--format bench-json charts NEW's times; --paired compares ratios: give one");
        s = FB_E_USAGE;
    }
    if (s == FB_OK) s = run_compare(&a, cl.n_operands, cl.operands);
    fb_cmdline_free(&cl);
    free(v);
    args_free(&a);
    return s;
}
