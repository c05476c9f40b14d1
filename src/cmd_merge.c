/* cmd_merge.c — `fusionbench merge A.json B.json ... -o ALL.json`: one result
 * document from runs of one device — shards of a grid, other dtypes, other
 * cases (result_merge.c has the rules).
 *
 * Order of the checks, each before any output: options (exit 2), every input
 * read and validated as strictly as --resume reads it, its journal included
 * when a stopped run left one (exit 3), every pair of inputs checked for
 * another device, another program under one case name, or one measurement that
 * differs (exit 2), and the output written atomically (exit 4). The merged
 * document keeps the first input's head (device, settings, command) and lists
 * every input under "merged". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "journal.h"
#include "opts.h"
#include "result.h"

static void usage(FILE *f, const fb_opt *opts, int n)
{
    fputs("usage: fusionbench merge RESULT.json [RESULT.json ...] -o ALL.json\n"
          "\n"
          "Joins result files of one device (shards of a grid, other dtypes, other cases)\n"
          "into one result file. A file's journal (FILE.journal, left by a run that was\n"
          "stopped) is read with it, as --resume reads it.\n"
          "\n",
          f);
    static const char *const extra[] = {"-o FILE", "the same as --out FILE", NULL};
    fb_opts_help(f, opts, n, extra);
    fputs("\n"
          "Refused, naming both files: files from different devices (name, compute\n"
          "capability, driver, runtime); a case name that holds two programs (other grid\n"
          "axes, other bytes or FLOPs at one cell); one case, dtype, cell and variant\n"
          "measured in two files with different results (identical copies are fine).\n"
          "A cell both files hold keeps the first file's speed-of-light copy.\n"
          "Exit status: 0 ok, 2 usage or conflicting files, 3 bad input file,\n"
          "4 the output cannot be written.\n",
          f);
}

/* argv with "-o" spelled "--out" (before "--"): the shared parser has long options only. */
static char **long_out(int argc, char **argv)
{
    char **a = malloc(sizeof *a * (size_t)(argc + 1));
    if (!a) return NULL;
    bool options = true;
    for (int i = 0; i < argc; i++) {
        a[i] = argv[i];
        if (options && i > 0 && !strcmp(argv[i], "--")) options = false;
        if (options && i > 0 && !strcmp(argv[i], "-o")) a[i] = (char *)"--out";
    }
    a[argc] = NULL;
    return a;
}

/* Where each input came from: an entry of "merged" (an input that was merged
 * before brings its own entries). */
static void note_input(json_t *merged, const json_t *doc, const char *path)
{
    const json_t *had = json_object_get(doc, "merged");
    if (json_is_array(had) && json_array_size(had)) {
        json_array_extend(merged, (json_t *)had);
        return;
    }
    json_t *e = json_pack("{s:s}", "file", path);
    static const char *const keys[] = {"started", "finished", "host", "command"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(doc, keys[i]);
        if (v) json_object_set(e, keys[i], v);
    }
    json_t *git = json_object_get(json_object_get(doc, "fusionbench"), "git");
    if (git) json_object_set(e, "git", git);
    json_t *settings = json_object_get(doc, "settings");
    if (settings) json_object_set(e, "settings", settings);
    json_array_append_new(merged, e);
}

/* Other timer settings are allowed (the user's call), but said. */
static void warn_settings(const json_t *first, const char *first_path, const json_t *doc, const char *path)
{
    const json_t *a = json_object_get(first, "settings"), *b = json_object_get(doc, "settings");
    if (!a || !b || json_equal(a, b)) return;
    const char *key = "settings";
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)b, k, v) if (!json_equal(v, json_object_get(a, k))) {
        key = k;
        break;
    }
    char q[96];
    fprintf(stderr,
            "fusionbench merge: warning: %s was measured with other settings than %s (settings.%s differs); the "
            "merged file keeps %s's, and each file's are under \"merged\"\n",
            fb_qpath(path), fb_qpath(first_path), fb_clean(key, q, sizeof q), fb_qpath(first_path));
}

static void count(const json_t *doc, size_t *cases, size_t *grids, size_t *cells)
{
    size_t i, j;
    json_t *cs, *dt;
    *cases = json_array_size(json_object_get(doc, "cases"));
    *grids = *cells = 0;
    json_array_foreach(json_object_get(doc, "cases"), i, cs) json_array_foreach(json_object_get(cs, "dtypes"), j, dt) {
        (*grids)++;
        *cells += json_array_size(json_object_get(dt, "cells"));
    }
}

static fb_status merge_files(const char *const *paths, int n, const char *out)
{
    json_t **docs = calloc((size_t)n, sizeof *docs);
    if (!docs) {
        fb_error("out of host memory");
        return FB_E_NOMEM;
    }
    fb_status s = FB_OK;
    for (int i = 0; i < n && s == FB_OK; i++) {
        fb_journal_info info;
        s = fb_result_load(paths[i], &docs[i], &info);
        if (s != FB_OK) break;
        if (info.warning[0]) fprintf(stderr, "fusionbench merge: warning: %s\n", info.warning);
        if (info.cells)
            fprintf(stderr, "fusionbench merge: %s: with %d cell%s from its journal (a run that was stopped)\n",
                    fb_qpath(paths[i]), info.cells, info.cells == 1 ? "" : "s");
    }
    /* every pair: a conflict names the two files it is between */
    for (int i = 1; i < n && s == FB_OK; i++)
        for (int k = 0; k < i && s == FB_OK; k++) s = fb_result_merge_check(docs[k], paths[k], docs[i], paths[i]);
    json_t *all = NULL;
    if (s == FB_OK) {
        all = json_deep_copy(docs[0]);
        json_t *merged = json_array();
        note_input(merged, docs[0], paths[0]);
        for (int i = 1; i < n; i++) {
            warn_settings(docs[0], paths[0], docs[i], paths[i]);
            fb_result_merge_into(all, docs[i]);
            note_input(merged, docs[i], paths[i]);
        }
        json_object_set_new(all, "merged", merged);
        s = fb_result_check(all, out); /* a join of valid files is valid: this would be a bug here */
    }
    if (s == FB_OK) {
        if (strcmp(out, "-") == 0) {
            int err = fb_result_print(stdout, all);
            if (err) {
                fb_error("stdout: cannot write: %s", strerror(err));
                s = FB_E_IO;
            }
        } else {
            s = fb_result_write(all, out);
        }
    }
    if (s == FB_OK) {
        size_t cases, grids, cells;
        count(all, &cases, &grids, &cells);
        fprintf(stderr, "fusionbench merge: %d file%s -> %s: %zu case%s, %zu grid%s (case x dtype), %zu cell%s\n", n,
                n == 1 ? "" : "s", strcmp(out, "-") ? fb_qpath(out) : "stdout", cases, cases == 1 ? "" : "s", grids,
                grids == 1 ? "" : "s", cells, cells == 1 ? "" : "s");
    }
    json_decref(all);
    for (int i = 0; i < n; i++) json_decref(docs[i]);
    free(docs);
    return s;
}

fb_status fb_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    const fb_opt opts[] = {
        {.name = "out", .kind = FB_OPT_STRING, .dst = &out, .arg = "FILE",
         .help = "the merged result file (required); '-' writes it to stdout"},
    };
    const int n_opts = (int)(sizeof opts / sizeof opts[0]);
    if (fb_wants_help(argc, argv)) {
        usage(stdout, opts, n_opts);
        return FB_OK;
    }
    char **args = long_out(argc, argv);
    if (!args) {
        fb_error("out of host memory parsing the command line");
        return FB_E_NOMEM;
    }
    fb_cmdline cl = {.cmd = "merge", .opts = opts, .n_opts = n_opts, .allow_operands = true};
    fb_status s = fb_opts_parse(&cl, argc, args);
    if (s == FB_OK && cl.n_operands == 0) {
        fb_error("which files? give RESULT.json ... -o ALL.json (see 'fusionbench merge --help')");
        s = FB_E_USAGE;
    }
    if (s == FB_OK && !out) {
        fb_error("where to? give -o ALL.json (or -o - for stdout)");
        s = FB_E_USAGE;
    }
    /* found before any file is read: a typo in -o costs nothing */
    if (s == FB_OK && strcmp(out, "-") != 0) s = fb_result_check_target(out);
    if (s == FB_OK) s = merge_files(cl.operands, cl.n_operands, out);
    fb_cmdline_free(&cl);
    free(args);
    return s;
}
