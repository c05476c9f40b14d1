/* opts.h — the one option parser every subcommand uses.
 *
 * A command describes its options as a table of fb_opt (name, kind, where the
 * value goes, help text) and calls fb_opts_parse; the same rules then hold for
 * every command:
 *   - `--name VALUE` and `--name=VALUE`; a flag takes no value; `--` ends the options.
 *   - A value that starts with "--" must be written `--name=VALUE`: `--out --rep 5`
 *     is "--out needs a value", not a file named "--rep".
 *   - A scalar option given twice: the last one wins (so `run $DEFAULTS --rep 50`
 *     works). A list option accumulates: `--case a --case b,c` is three cases.
 *   - Comma lists hold no empty item (`128,,256`) and no item twice (`a,a`).
 *   - Integers are plain decimal digits (no sign, blank or base prefix: strtoll's
 *     leniency let " -5" through), reals are finite, and both stay inside the
 *     option's documented bounds; byte sizes take a K, M or G (KiB, MiB, GiB) suffix.
 *   - An unknown option fails with a "did you mean" — or, when the command asks
 *     (run's grid axes, known only once the cases are loaded), is kept for the
 *     command to decide.
 * Errors are FB_E_USAGE with one line in fb_last_error(), naming the option.
 * Nothing is cut: values are kept whole, lists and operands grow as needed.
 * Ownership: fb_cmdline_free frees the parser's own allocations; list destinations
 * (fb_strlist) belong to the caller, who frees them with fb_strlist_free. */
#ifndef FB_OPTS_H
#define FB_OPTS_H

#include <stdio.h>

#include "fb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fb_opt_kind {
    FB_OPT_FLAG,   /* bool: present or not                                               */
    FB_OPT_STRING, /* const char *: the value itself (points into argv), never empty     */
    FB_OPT_LIST,   /* fb_strlist: comma-separated items, accumulating over repeats        */
    FB_OPT_I64,    /* int64_t: decimal digits, in [ilo, ihi] (ilo >= 0)                   */
    FB_OPT_DOUBLE, /* double: finite, in [lo, hi]                                         */
    FB_OPT_BYTES,  /* size_t: digits with an optional K/M/G suffix (also KiB, KB), in [ilo, ihi] */
    FB_OPT_ENUM,   /* int: the value of the fb_opt_choice named                           */
} fb_opt_kind;

typedef struct fb_opt_choice {
    const char *name;
    int value;
} fb_opt_choice;

/* A list of owned strings; fb_strlist_free releases them. */
typedef struct fb_strlist {
    int n;
    char **item;
} fb_strlist;

typedef struct fb_opt {
    const char *name;  /* without the dashes: "warmup" */
    fb_opt_kind kind;
    void *dst;         /* bool *, const char **, fb_strlist *, int64_t *, double *, size_t *, int * */
    const char *arg;   /* the value's name in --help ("MS"); NULL for flags */
    const char *help;  /* one or more lines ('\n' between them) */
    int64_t ilo, ihi;  /* FB_OPT_I64, FB_OPT_BYTES */
    double lo, hi;     /* FB_OPT_DOUBLE */
    const fb_opt_choice *choices; /* FB_OPT_ENUM */
    int n_choices;
} fb_opt;

/* An option the table does not know, kept when fb_cmdline.keep_unknown is set. */
typedef struct fb_unknown_opt {
    char *name;        /* without the dashes, owned */
    const char *value; /* the VALUE of --name=VALUE or of `--name VALUE` (a next argument not
                          starting with '-'); NULL when there is none */
} fb_unknown_opt;

typedef struct fb_cmdline {
    const char *cmd; /* "run", for "see 'fusionbench run --help'" */
    const fb_opt *opts;
    int n_opts;
    bool allow_operands; /* positional arguments allowed (list, validate) */
    bool keep_unknown;   /* keep unknown options in `unknown` instead of failing */

    /* filled by fb_opts_parse */
    int n_operands;
    const char **operands; /* pointing into argv */
    int n_unknown;
    fb_unknown_opt *unknown;
} fb_cmdline;

/* Parse argv[1..argc-1] (argv[0] is the subcommand) into the table's destinations,
 * which keep the values they held before unless the option is given.
 * On failure the destinations may be partly written. */
fb_status fb_opts_parse(fb_cmdline *cl, int argc, char **argv);

/* Free what the parser allocated for itself: the operands and the unknown options.
 * The destinations are the caller's: FB_OPT_LIST lists are freed with fb_strlist_free
 * (also after a failed parse, which may have filled them partly). */
void fb_cmdline_free(fb_cmdline *cl);

/* "  --name ARG       help" lines for every option of the table, then the pairs of
 * `extra` ({"--AXIS LIST", "what it does", ..., NULL}; may be NULL), then -h/--help. */
void fb_opts_help(FILE *f, const fb_opt *opts, int n, const char *const *extra);

/* FB_E_USAGE: "unknown option '--NAME' (did you mean '--X'?); see 'fusionbench CMD --help'",
 * suggesting among the table's options and `extra` (names without dashes, e.g. grid
 * axes). With no close match and some extras, they are listed instead, after
 * `extra_what`: "(grid axes of the selected cases: --dim0, --dim1)". */
fb_status fb_opts_unknown(const fb_cmdline *cl, const char *name, const char *const *extra, int n_extra,
                          const char *extra_what);

/* ---- the value parsers, for values that arrive by other routes (grid axes) ---- */

/* Split a comma list into `into` (appending): FB_E_USAGE on an empty item or an item
 * already in `into`. `opt` names the option in messages ("--case"). */
fb_status fb_opt_split(const char *opt, const char *s, fb_strlist *into);
void fb_strlist_free(fb_strlist *l);
/* "a,b,c" of a list, malloc'ed; NULL when out of memory. */
char *fb_strlist_join(const fb_strlist *l);

fb_status fb_opt_i64(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out);
fb_status fb_opt_double(const char *opt, const char *s, double lo, double hi, double *out);
fb_status fb_opt_bytes(const char *opt, const char *s, int64_t lo, int64_t hi, size_t *out);

/* A list of sizes: "61,130,1027", or "a:b" — every power-of-two multiple of a from a to b
 * (a, 2a, 4a, ... <= b) — or a mix ("61,128:1024"). Values are positive, none twice, at
 * most `max` of them. */
fb_status fb_opt_sizes(const char *opt, const char *s, int64_t *v, int max, int *n);

/* A --dtype list (fb_opt_split's items): known dtype names (aliases such as f32 or bf16 too),
 * or "all" alone; no dtype twice under two spellings. *mask gets FB_DTYPE_BIT of each, every
 * dtype for "all" or an empty list. FB_E_USAGE, with the message, otherwise. */
fb_status fb_opt_dtypes(const char *opt, const fb_strlist *l, unsigned *mask);

/* `s` for a message: control bytes as \xNN, and at most about 200 characters with
 * "..." marking a cut; written into buf (which is returned). */
const char *fb_opt_quote(const char *s, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
