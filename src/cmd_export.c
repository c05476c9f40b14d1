/* cmd_export.c — `fusionbench export RESULT.json --format csv|md|svg|html|json`:
 * a result file as data for pandas and spreadsheets (csv, json), tables for a
 * pull request or README (md), heatmaps (svg), or one page to browse (html).
 * Reads the file (validated as strictly as for --resume: exit 3 if it is bad),
 * builds the typed model, and hands it to the printer (export.h). Writes to
 * stdout, or with -o to FILE through FILE.tmp.PID and a rename, so a failed
 * export never leaves half a file (a FILE that is a device, FIFO or symbolic
 * link, such as /dev/stdout, is written in place). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "export.h"
#include "opts.h"
#include "resultset.h"

enum { F_CSV, F_MD, F_SVG, F_HTML, F_JSON, F_NONE };
static const fb_opt_choice formats[] = {{"csv", F_CSV}, {"md", F_MD}, {"svg", F_SVG}, {"html", F_HTML}, {"json", F_JSON}};

#define EXPORT_MAX_OPTS 10 /* room in the option table */

typedef struct export_args {
    int format, show;
    const char *out, *case_name, *dtype, *variant, *speedup_vs;
    bool table;
} export_args;

static int export_table(export_args *a, fb_opt *t)
{
    int n = 0;
    t[n++] = (fb_opt){.name = "format", .kind = FB_OPT_ENUM, .dst = &a->format, .arg = "FMT", .choices = formats,
                      .n_choices = 5,
                      .help = "csv   tidy long form: a row per case x dtype x grid point x variant\n"
                              "md    markdown tables, one per case x dtype x variant\n"
                              "svg   heatmaps, one per case x dtype x variant, stacked in one image\n"
                              "html  one self-contained page: heatmaps, a view switch, sortable tables\n"
                              "json  the csv's rows as an array of JSON objects"};
    t[n++] = (fb_opt){.name = "out", .kind = FB_OPT_STRING, .dst = &a->out, .arg = "FILE",
                      .help = "write to FILE (also -o FILE) instead of stdout"};
    t[n++] = (fb_opt){.name = "show", .kind = FB_OPT_ENUM, .dst = &a->show, .arg = "WHAT",
                      .choices = fb_show_choices, .n_choices = FB_NSHOW_VIEWS,
                      .help = "md, svg: speedup (default), sol (% of speed of light), time (us),\n"
                              "gbps, dram (measured DRAM bytes / ideal bytes), inst (instructions;\n"
                              "dram and inst from run --metrics), paired (t_floor / t_variant, timed\n"
                              "in pairs by run); html: the first view (csv and json carry every value)"};
    t[n++] = (fb_opt){.name = "case", .kind = FB_OPT_STRING, .dst = &a->case_name, .arg = "NAME",
                      .help = "only this case"};
    t[n++] = (fb_opt){.name = "dtype", .kind = FB_OPT_STRING, .dst = &a->dtype, .arg = "T", .help = "only this dtype"};
    t[n++] = (fb_opt){.name = "variant", .kind = FB_OPT_STRING, .dst = &a->variant, .arg = "V",
                      .help = "only this variant's grids (csv, json: its rows; 'sol' the speed-of-light copy)"};
    t[n++] = (fb_opt){.name = "table", .kind = FB_OPT_FLAG, .dst = &a->table,
                      .help = "md: the benchmark table run --table prints, in place of the grids: one\n"
                              "per case x dtype, a row per cell (its input's shape and grid values), the\n"
                              "median time (us) of each variant and of the speed-of-light copy (sol),\n"
                              "and the speedups against --speedup-vs"};
    t[n++] = (fb_opt){.name = "speedup-vs", .kind = FB_OPT_STRING, .dst = &a->speedup_vs, .arg = "X",
                      .help = "with --table: the speedups are t_X / t_variant, X a variant of the\n"
                              "case or sol (default: the case's baseline)"};
    return n;
}

static void usage(FILE *f)
{
    export_args dummy = {0};
    fb_opt t[EXPORT_MAX_OPTS];
    int n = export_table(&dummy, t);
    fprintf(f,
            "usage: fusionbench export RESULT.json --format csv|md|svg|html|json [-o FILE]\n"
            "                          [--show speedup|sol|time|gbps|dram|inst|paired] [--case NAME] [--dtype T]\n"
            "                          [--variant V] [--table [--speedup-vs X]]\n"
            "\n"
            "Print a result file for people and tools. The grids (md, svg, html) are those\n"
            "'run' prints: rows dim0, columns dim1, speedup = t_baseline / t_variant (median\n"
            "times), marks OOM, FAIL, BFAIL (baseline failed), ERR, UNCHK (not checked), - (not\n"
            "measured) where a cell has no trustworthy number. svg stacks every grid in one\n"
            "image (900 px wide); pick one with --case, --dtype and --variant to embed it.\n"
            "md --table prints the seed study's benchmark table instead: a row per cell,\n"
            "a column per variant's median time (us), the speed-of-light copy, and\n"
            "speedup vs X = t_X / t_variant.\n"
            "\n");
    fb_opts_help(f, t, n, NULL);
    fprintf(f, "\nExit status: 0 ok, 2 usage, 3 bad result file, 4 cannot write.\n");
}

/* The shared parser knows long options only; -o is the one short option the
 * issue's command line promises, so it is spelled out before parsing. */
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

/* Export into `out`, which the caller opened; FB_E_IO names `name` on a write error. */
static fb_status export_to(FILE *out, const char *name, const fb_rs_doc *doc, const fb_export_opts *o,
                           const fb_printer *p)
{
    fb_status s = fb_export_doc(out, doc, o, p);
    if (s == FB_E_IO) fb_error("%s: cannot write: %s", name, errno ? strerror(errno) : "output error");
    return s;
}

/* Into a device, FIFO or symbolic link (-o /dev/stdout, a pipe, a link to a
 * file): written in place, since a rename would replace the node or link
 * itself with a regular file. */
static fb_status export_in_place(const char *path, const fb_rs_doc *doc, const fb_export_opts *o, const fb_printer *p)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fb_error("%s: cannot write: %s", fb_qpath(path), strerror(errno));
        return FB_E_IO;
    }
    errno = 0;
    fb_status s = export_to(f, fb_qpath(path), doc, o, p);
    if (fclose(f) != 0 && s == FB_OK) {
        fb_error("%s: cannot write: %s", fb_qpath(path), strerror(errno));
        s = FB_E_IO;
    }
    return s;
}

static fb_status export_file(const char *path, const fb_rs_doc *doc, const fb_export_opts *o, const fb_printer *p)
{
    /* lstat: a rename replaces a symbolic link itself (/dev/stdout is one), not
     * what it points to; so a link is written through, in place, like a device */
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fb_error("%s: cannot write: is a directory", fb_qpath(path));
            return FB_E_IO;
        }
        if (!S_ISREG(st.st_mode)) return export_in_place(path, doc, o, p);
    }
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fb_error("%s: cannot write: %s", fb_qpath(path), strerror(errno));
        free(tmp);
        return FB_E_IO;
    }
    errno = 0;
    fb_status s = export_to(f, fb_qpath(path), doc, o, p);
    if (fclose(f) != 0 && s == FB_OK) {
        fb_error("%s: cannot write: %s", fb_qpath(path), strerror(errno));
        s = FB_E_IO;
    }
    if (s == FB_OK && rename(tmp, path) != 0) {
        fb_error("%s: cannot write: %s", fb_qpath(path), strerror(errno));
        s = FB_E_IO;
    }
    if (s != FB_OK) remove(tmp);
    free(tmp);
    return s;
}

fb_status fb_cmd_export(int argc, char **argv)
{
    if (fb_wants_help(argc, argv)) {
        usage(stdout);
        return FB_OK;
    }
    export_args a = {.format = F_NONE, .show = -1}; /* -1: no --show given */
    fb_opt t[EXPORT_MAX_OPTS];
    fb_cmdline cl = {.cmd = "export", .opts = t, .n_opts = export_table(&a, t), .allow_operands = true};
    char **args = with_long_out(argc, argv);
    if (!args) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    fb_status s = fb_opts_parse(&cl, argc, args);
    const char *path = s == FB_OK && cl.n_operands == 1 ? cl.operands[0] : NULL;
    if (s == FB_OK && cl.n_operands != 1) {
        char q[256];
        if (cl.n_operands == 0) fb_error("which result file? usage: fusionbench export RESULT.json --format FMT");
        else fb_error("one result file at a time (got '%s' and '%s'); see 'fusionbench export --help'",
                      fb_opt_quote(cl.operands[0], q, 128), fb_opt_quote(cl.operands[1], q + 128, 128));
        s = FB_E_USAGE;
    }
    if (s == FB_OK && a.format == F_NONE) {
        fb_error("--format is required: one of %s; see 'fusionbench export --help'", fb_printer_names());
        s = FB_E_USAGE;
    }
    if (s == FB_OK && a.table && a.show >= 0) {
        fb_error("--show picks the value of the grids; the table shows median times and speedups: leave out --show");
        s = FB_E_USAGE;
    }
    if (a.show < 0) a.show = FB_SHOW_SPEEDUP;
    fb_rs_doc doc = {0};
    if (s == FB_OK) s = fb_rs_load(path, &doc);
    if (s == FB_OK) {
        fb_export_opts o = {.show = (fb_show)a.show, .case_name = a.case_name, .dtype = a.dtype, .variant = a.variant,
                            .table = a.table, .speedup_vs = a.speedup_vs};
        const fb_printer *p = fb_printer_find(formats[a.format].name);
        s = a.out ? export_file(a.out, &doc, &o, p) : export_to(stdout, "stdout", &doc, &o, p);
    }
    fb_rs_free(&doc);
    fb_cmdline_free(&cl);
    free(args);
    return s;
}
