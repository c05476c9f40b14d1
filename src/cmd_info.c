/* cmd_info.c — `fusionbench list` and `fusionbench validate`: the subcommands that
 * only read case files. Neither touches CUDA, so both work on the build machine and
 * in CI (validate is the pre-commit check for a new case file).
 *
 * validate prints one "ok" line per good file on stdout and the loader's one-line
 * message per bad file on stderr, compiler style (PATH:LINE:COL: ...), so editors
 * and CI annotations can jump to it; it keeps going so one run reports every file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "case.h"
#include "commands.h"
#include "ops/op_table.h"
#include "opts.h"
#include "variant.h"

/* One case at a time: fb_case is large (tens of KiB) and neither command needs two. */
static fb_case g_case;

static void validate_usage(FILE *f)
{
    fprintf(f,
            "usage: fusionbench validate [FILE|NAME ...]\n"
            "\n"
            "Check case files strictly without a GPU: keys, types, names, ops, dtypes,\n"
            "fused variants, and the shapes and byte counts at every grid point.\n"
            "With no arguments, checks every case in %s\n"
            "(set FUSIONBENCH_CASES to use another directory); finding none there is an error.\n"
            "A NAME is looked up there; an argument holding '/' or ending in .json is a path.\n"
            "'--' ends the options (for a file whose name starts with '-').\n"
            "\n"
            "Prints 'ok   PATH (...)' per valid file on stdout and one message per invalid\n"
            "file on stderr. Exit status: 0 all valid, 3 some invalid, 2 usage error.\n",
            fb_cases_dir());
}

static void list_usage(FILE *f, const fb_opt *opts, int n)
{
    fprintf(f,
            "usage: fusionbench list [--json] [NAME|FILE ...]\n"
            "\n"
            "Describe cases (all of %s, or $FUSIONBENCH_CASES, or those named):\n"
            "summary, program, dtypes, grid axes and fused variants.\n"
            "\n",
            fb_cases_dir());
    fb_opts_help(f, opts, n, NULL);
}

static const char *plural(int n, const char *one, const char *many) { return n == 1 ? one : many; }

/* ---- validate ------------------------------------------------------------------- */

/* PATH is the file as found, printed whole (fb_case.path holds at most 1023 characters). */
static void print_ok(const fb_case *c, const char *path)
{
    char grid[64 + FB_MAX_SYMS * (FB_NAME_MAX + 2)];
    int k;
    if (c->n_axes == 2) k = snprintf(grid, sizeof grid, "%d x %d grid", c->axis[0].n, c->axis[1].n);
    else k = snprintf(grid, sizeof grid, "%d-point grid", c->axis[0].n);
    if (c->n_fixed) { /* "3 x 2 grid x 2 (B)": one grid per combination of the fixed symbols */
        k += snprintf(grid + k, sizeof grid - (size_t)k, " x %d (", fb_case_n_grids(c));
        for (int f = 0; f < c->n_fixed; f++)
            k += snprintf(grid + k, sizeof grid - (size_t)k, "%s%s", f ? ", " : "", c->sym[c->fixed[f].sym]);
        snprintf(grid + k, sizeof grid - (size_t)k, ")");
    }
    printf("ok   %s (%d %s, %d fused %s, %s)\n", path, c->n_nodes, plural(c->n_nodes, "op", "ops"), c->n_fused,
           plural(c->n_fused, "variant", "variants"), grid);
}

/* Load a case file, or a case by name, into g_case; *path: the file, whole (malloc'ed). */
static fb_status load_one(const char *arg, bool is_path, char **path)
{
    fb_clear_error();
    *path = NULL;
    fb_status s = is_path ? fb_case_load(arg, &g_case) : fb_case_find(arg, &g_case);
    if (s != FB_OK) return s;
    const char *dir = fb_case_is_path(arg) || is_path ? NULL : fb_cases_dir();
    size_t n = strlen(arg) + (dir ? strlen(dir) + 7 : 1);
    if (!(*path = malloc(n))) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    if (dir) snprintf(*path, n, "%s/%s.json", dir, arg);
    else memcpy(*path, arg, n);
    return FB_OK;
}

/* Validate one file or name; prints its line. Returns the loader's status. */
static fb_status validate_one(const char *arg, bool is_path)
{
    char *path;
    fb_status s = load_one(arg, is_path, &path);
    if (s == FB_OK) print_ok(&g_case, path);
    else fprintf(stderr, "%s\n", fb_last_error());
    fflush(stdout);
    free(path);
    return s;
}

/* The worst of two outcomes: anything beyond a bad case file (I/O, memory) wins. */
static fb_status worse(fb_status a, fb_status b)
{
    if (a == FB_OK) return b;
    if (b == FB_OK || b == FB_E_CASE) return a;
    return b;
}

/* A cases directory that is unreadable, or holds no case file, is an error: `validate`
 * and `list` with nothing to check must not look like success. */
static fb_status open_cases_dir(fb_case_dir *d)
{
    FB_TRY(fb_case_list(d));
    if (d->n == 0 && d->n_bad == 0) {
        fb_case_dir_free(d);
        fb_error("no case files (*.json) in %s", fb_qpath(fb_cases_dir()));
        return FB_E_CASE;
    }
    return FB_OK;
}

fb_status fb_cmd_validate(int argc, char **argv)
{
    if (fb_wants_help(argc, argv)) {
        validate_usage(stdout);
        return FB_OK;
    }
    fb_cmdline cl = {.cmd = "validate", .allow_operands = true};
    fb_status s = fb_opts_parse(&cl, argc, argv);
    int total = 0, bad = 0;
    fb_status worst = FB_OK;
    if (s == FB_OK && cl.n_operands) {
        for (int i = 0; i < cl.n_operands; i++, total++) {
            fb_status v = validate_one(cl.operands[i], false);
            bad += v != FB_OK;
            worst = worse(worst, v);
        }
    } else if (s == FB_OK) {
        fb_case_dir d;
        s = open_cases_dir(&d);
        for (int i = 0; s == FB_OK && i < d.n_bad; i++, total++, bad++) {
            fprintf(stderr, "%s\n", d.bad[i]);
            worst = worse(worst, FB_E_CASE);
        }
        for (int i = 0; s == FB_OK && i < d.n; i++, total++) {
            fb_status v = validate_one(d.path[i], true);
            bad += v != FB_OK;
            worst = worse(worst, v);
        }
        if (s == FB_OK) fb_case_dir_free(&d);
    }
    fb_cmdline_free(&cl);
    if (s != FB_OK) return s;
    /* each bad file already has its line on stderr; a summary helps only when several were checked */
    if (bad && total > 1) fb_error("%d of %d case files invalid", bad, total);
    else fb_clear_error();
    return worst;
}

/* ---- list ----------------------------------------------------------------------- */

static void print_case_text(const fb_case *c, const char *path)
{
    printf("%s: %s\n", c->name, c->summary);
    printf("  file      %s\n", path);

    printf("  inputs    ");
    for (int v = 0; v < c->n_inputs; v++) {
        const fb_value *val = &c->values[v];
        printf("%s%s[", v ? ", " : "", val->name);
        for (int d = 0; d < val->shape.rank; d++) {
            const fb_dim *dm = &val->shape.dim[d];
            if (dm->sym >= 0) printf("%s%s", d ? ", " : "", c->sym[dm->sym]);
            else printf("%s%lld", d ? ", " : "", (long long)dm->size);
        }
        printf("] %s", fb_init_name(val->init));
    }
    printf("\n  program   ");
    for (int n = 0; n < c->n_nodes; n++) printf("%s%s", n ? " " : "", fb_node_op_name(&c->nodes[n]));
    printf("  (%d %s) -> ", c->n_nodes, plural(c->n_nodes, "op", "ops"));
    for (int o = 0; o < c->n_outputs; o++) printf("%s%s", o ? ", " : "", c->values[c->outputs[o]].name);

    printf("\n  dtypes    ");
    for (int d = 0; d < c->n_dtypes; d++) printf("%s%s", d ? ", " : "", fb_dtype_name(c->dtypes[d]));
    printf("\n");

    static const char *const role[2] = {"rows", "columns"};
    for (int a = 0; a < c->n_axes; a++) {
        const fb_axis *ax = &c->axis[a];
        printf("  %-9s %s:", role[a], c->sym[ax->sym]);
        for (int i = 0; i < ax->n; i++) printf(" %lld", (long long)ax->v[i]);
        printf("\n");
    }
    for (int f = 0; f < c->n_fixed; f++) { /* one grid per combination */
        const fb_axis *ax = &c->fixed[f];
        printf("  %-9s %s:", "fixed", c->sym[ax->sym]);
        for (int i = 0; i < ax->n; i++) printf(" %lld", (long long)ax->v[i]);
        printf("\n");
    }

    int width = 5; /* "eager" */
    for (int f = 0; f < c->n_fused; f++)
        if ((int)strlen(c->fused[f]) > width) width = (int)strlen(c->fused[f]);
    printf("  variants  %-*s  one kernel per op, every intermediate in device memory (the baseline)\n", width,
           "eager");
    for (int f = 0; f < c->n_fused; f++) {
        const fb_variant *v = fb_variant_find(c->fused[f]);
        printf("            %-*s  %s\n", width, c->fused[f], v && v->about ? v->about : "");
    }
    if (c->paired[0]) /* run's paired timing (cell.c): what each fused variant is timed in turn with */
        printf("  paired    %s, the first op alone: each fused variant is also timed in turn with it\n", c->paired);
}

static json_t *dtypes_json(unsigned bits, const fb_dtype *list, int n)
{
    json_t *a = json_array();
    if (list) {
        for (int d = 0; d < n; d++) json_array_append_new(a, json_string(fb_dtype_name(list[d])));
    } else {
        for (int d = 0; d < FB_NDTYPES; d++)
            if (bits & FB_DTYPE_BIT(d)) json_array_append_new(a, json_string(fb_dtype_name((fb_dtype)d)));
    }
    return a;
}

static json_t *case_json(const fb_case *c, const char *path)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(c->name));
    json_object_set_new(o, "summary", json_string(c->summary));
    json_object_set_new(o, "path", json_string(path));

    json_t *inputs = json_object();
    for (int v = 0; v < c->n_inputs; v++) {
        const fb_value *val = &c->values[v];
        json_t *shape = json_array();
        for (int d = 0; d < val->shape.rank; d++) {
            const fb_dim *dm = &val->shape.dim[d];
            json_array_append_new(shape, dm->sym >= 0 ? json_string(c->sym[dm->sym]) : json_integer(dm->size));
        }
        json_object_set_new(inputs, val->name, json_pack("{s:o, s:s}", "shape", shape, "init", fb_init_name(val->init)));
    }
    json_object_set_new(o, "inputs", inputs);

    json_t *ops = json_array();
    for (int n = 0; n < c->n_nodes; n++) json_array_append_new(ops, json_string(fb_node_op_name(&c->nodes[n])));
    json_object_set_new(o, "ops", ops);
    json_t *outs = json_array();
    for (int k = 0; k < c->n_outputs; k++) json_array_append_new(outs, json_string(c->values[c->outputs[k]].name));
    json_object_set_new(o, "outputs", outs);
    json_object_set_new(o, "dtypes", dtypes_json(0, c->dtypes, c->n_dtypes));

    /* the grid as an ordered array: axis 0 is the rows, axis 1 the columns, then
     * the fixed symbols (role "fixed": one grid per combination of their values);
     * every entry is a symbol `run --SYMBOL LIST` overrides */
    static const char *const role[2] = {"rows", "columns"};
    json_t *grid = json_array();
    for (int a = 0; a < c->n_axes; a++) {
        json_t *vals = json_array();
        for (int i = 0; i < c->axis[a].n; i++) json_array_append_new(vals, json_integer(c->axis[a].v[i]));
        json_array_append_new(grid, json_pack("{s:s, s:s, s:o}", "symbol", c->sym[c->axis[a].sym], "role", role[a],
                                              "values", vals));
    }
    for (int f = 0; f < c->n_fixed; f++) {
        json_t *vals = json_array();
        for (int i = 0; i < c->fixed[f].n; i++) json_array_append_new(vals, json_integer(c->fixed[f].v[i]));
        json_array_append_new(grid, json_pack("{s:s, s:s, s:o}", "symbol", c->sym[c->fixed[f].sym], "role", "fixed",
                                              "values", vals));
    }
    json_object_set_new(o, "grid", grid);

    json_t *tol = json_object();
    for (int d = 0; d < c->n_dtypes; d++) {
        const fb_tol *t = &c->tol[c->dtypes[d]];
        json_object_set_new(tol, fb_dtype_name(c->dtypes[d]),
                            json_pack("{s:f, s:f, s:b}", "atol", t->atol, "rtol", t->rtol, "from_file", t->set));
    }
    json_object_set_new(o, "tolerance", tol);

    json_t *variants = json_array();
    for (int f = 0; f < c->n_fused; f++) {
        const fb_variant *v = fb_variant_find(c->fused[f]);
        json_array_append_new(variants, json_pack("{s:s, s:s, s:o}", "name", c->fused[f], "about",
                                                  v && v->about ? v->about : "", "dtypes",
                                                  dtypes_json(v ? v->dtypes : 0, NULL, 0)));
    }
    json_object_set_new(o, "fused", variants);
    if (c->paired[0]) json_object_set_new(o, "paired", json_string(c->paired));
    return o;
}

/* Every registered fused variant: a case lists some, `run --variants` can name any. */
static void print_registry(void)
{
    printf("\nregistered variants (any can join a run with --variants):\n");
    int wname = 0; /* columns as wide as the longest name: bias_dropout_add_train.one_shot */
    for (int i = 0; i < fb_variant_count(); i++) {
        int len = (int)strlen(fb_variant_at(i)->name);
        if (len > wname) wname = len;
    }
    for (int i = 0; i < fb_variant_count(); i++) {
        const fb_variant *v = fb_variant_at(i);
        char dts[64] = "";
        for (int d = 0; d < FB_NDTYPES; d++)
            if (v->dtypes & FB_DTYPE_BIT(d)) {
                size_t k = strlen(dts);
                snprintf(dts + k, sizeof dts - k, "%s%s", k ? "," : "", fb_dtype_name((fb_dtype)d));
            }
        printf("  %-*s %-33s %s\n", wname, v->name, dts, v->about);
    }
}

/* One case of `list`: described, or its message on stderr. */
static fb_status list_one(const char *arg, bool is_path, json_t *all, int *shown)
{
    char *path;
    fb_status s = load_one(arg, is_path, &path);
    if (s != FB_OK) {
        fprintf(stderr, "%s\n", fb_last_error());
        return s;
    }
    if (all) {
        json_array_append_new(all, case_json(&g_case, path));
    } else {
        if (*shown) printf("\n");
        print_case_text(&g_case, path);
    }
    free(path);
    ++*shown;
    return FB_OK;
}

fb_status fb_cmd_list(int argc, char **argv)
{
    bool as_json = false;
    const fb_opt opts[] = {
        {.name = "json", .kind = FB_OPT_FLAG, .dst = &as_json, .help = "print a JSON array on stdout instead of text"},
    };
    const int n_opts = (int)(sizeof opts / sizeof opts[0]);
    if (fb_wants_help(argc, argv)) {
        list_usage(stdout, opts, n_opts);
        return FB_OK;
    }
    fb_cmdline cl = {.cmd = "list", .opts = opts, .n_opts = n_opts, .allow_operands = true};
    fb_case_dir d = {0};
    fb_status s = fb_opts_parse(&cl, argc, argv);
    if (s == FB_OK && cl.n_operands == 0) s = open_cases_dir(&d);
    if (s != FB_OK) {
        fb_cmdline_free(&cl);
        return s;
    }

    /* a broken case is reported and skipped: the others are still worth listing */
    json_t *all = as_json ? json_array() : NULL;
    int bad = 0, shown = 0, total = 0;
    fb_status worst = FB_OK;
    for (int i = 0; i < cl.n_operands; i++, total++) {
        fb_status v = list_one(cl.operands[i], false, all, &shown);
        bad += v != FB_OK;
        worst = worse(worst, v);
    }
    for (int i = 0; i < d.n_bad; i++, total++, bad++) {
        fprintf(stderr, "%s\n", d.bad[i]);
        worst = worse(worst, FB_E_CASE);
    }
    for (int i = 0; i < d.n; i++, total++) {
        fb_status v = list_one(d.path[i], true, all, &shown);
        bad += v != FB_OK;
        worst = worse(worst, v);
    }
    fb_case_dir_free(&d);
    fb_cmdline_free(&cl);
    if (as_json) {
        char *text = json_dumps(all, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
        json_decref(all);
        if (!text) {
            fb_error("out of memory writing JSON");
            return FB_E_NOMEM;
        }
        printf("%s\n", text);
        free(text);
    } else {
        print_registry();
    }
    if (bad) {
        fb_error("%d of %d cases invalid; see 'fusionbench validate'", bad, total);
        return worst;
    }
    return FB_OK;
}
