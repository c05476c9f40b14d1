/* main.c — the subcommand table (git.c is the model) and the exit-code policy.
 *
 * Exit codes (jq-style, documented in README.md):
 *   0  ok
 *   1  a correctness check failed (or, for compare, a regression)
 *   2  usage error (also inputs that conflict: two cases with one name, a
 *      --resume file holding another program under a case's name)
 *   3  bad input file: a case file or a --resume result file that is missing,
 *      unreadable, not a regular file, or invalid (status FB_E_CASE)
 *   4  CUDA / runtime / I/O error (also: the result file cannot be written)
 *  77  no usable GPU (meson's skip code)
 * 130  run stopped by SIGINT or SIGTERM (the finished cells are in the result file)
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "version.h"

struct cmd_struct {
    const char *name;
    fb_status (*fn)(int argc, char **argv);
    const char *about;
};

static const struct cmd_struct commands[] = {
    {"run", fb_cmd_run, "benchmark cases over their shape grids and print relative-performance grids"},
    {"list", fb_cmd_list, "list cases, their variants, dtypes and grids"},
    {"validate", fb_cmd_validate, "check case files (no GPU needed)"},
    {"selftest", fb_cmd_selftest, "check every variant and dtype on small and odd shapes, and the timer"},
    {"env", fb_cmd_env, "print device facts and the measured copy bandwidth"},
    {"merge", fb_cmd_merge, "join result files of one device (shards, dtypes, cases) into one"},
    {"export", fb_cmd_export, "print a result file as csv, markdown, svg heatmaps, an html page or json"},
    {"compare", fb_cmd_compare, "hold two result files (or two variants of one run) against each other: the regression gate"},
};
#define N_COMMANDS (int)(sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: fusionbench [--version] [--help] <command> [<args>]\n\ncommands:\n");
    for (int i = 0; i < N_COMMANDS; i++) fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].about);
    fprintf(f,
            "\n'fusionbench <command> --help' describes a command.\n"
            "exit codes: 0 ok, 1 correctness failure, 2 usage, 3 bad input file (case or result),\n"
            "            4 CUDA/runtime/I/O error, 77 no usable GPU, 130 run stopped by SIGINT/SIGTERM\n");
}

static int exit_code(fb_status s)
{
    switch (s) {
    case FB_OK: return 0;
    case FB_E_CHECK:
    case FB_E_REGRESSION: return 1;
    case FB_E_USAGE: return 2;
    case FB_E_CASE: return 3;
    case FB_E_NO_GPU: return 77;
    case FB_E_INTERRUPTED: return 130; /* 128 + SIGINT, as a shell reports a Ctrl-C */
    case FB_E_CUDA:
    case FB_E_OOM:
    case FB_E_IO:
    case FB_E_UNSUPPORTED:
    case FB_E_NOMEM: return 4;
    }
    return 4;
}

int fb_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("fusionbench %s (%s)\n", FB_VERSION, FB_GIT_REV);
        return 0;
    }
    for (int i = 0; i < N_COMMANDS; i++) {
        if (strcmp(name, commands[i].name) != 0) continue;
        fb_clear_error();
        fb_status s = commands[i].fn(argc - 1, argv + 1);
        if (s != FB_OK && fb_last_error()[0])
            fprintf(stderr, "fusionbench %s: %s\n", name, fb_last_error());
        return exit_code(s);
    }
    const char *names[N_COMMANDS];
    for (int i = 0; i < N_COMMANDS; i++) names[i] = commands[i].name;
    char sg[96], q[256];
    fprintf(stderr, "fusionbench: '%s' is not a command%s; see 'fusionbench --help'\n", fb_clean(name, q, sizeof q),
            fb_suggest("", name, names, N_COMMANDS, sg, sizeof sg));
    return 2;
}
