/* test_opts.c — the shared option parser (src/opts.c): both spellings, "--", flags,
 * lists without empty or repeated items, integers without sign or blanks and
 * without overflow at the edges of int64, finite bounded reals, byte sizes, enums,
 * operands, unknown options kept or refused, and nothing leaked or cut.
 * Runs without CUDA: it needs only opts.c and fb.c. */
#include <stdint.h>
#include <stdlib.h>

#include "opts.h"
#include "testing.h"

/* argv from a NULL-terminated list, the subcommand first */
#define ARGV(...) ((char *[]){"cmd", __VA_ARGS__, NULL})
#define ARGC(v) argc_of(v)
static int argc_of(char **v)
{
    int n = 0;
    while (v[n]) n++;
    return n;
}

typedef struct sample {
    bool flag;
    const char *str;
    fb_strlist list;
    int64_t i;
    double d;
    size_t bytes;
    int mode;
} sample;

static const fb_opt_choice modes[] = {{"events", 10}, {"graph", 20}};

static int table(sample *s, fb_opt *t)
{
    int n = 0;
    t[n++] = (fb_opt){.name = "flag", .kind = FB_OPT_FLAG, .dst = &s->flag, .help = "a flag"};
    t[n++] = (fb_opt){.name = "str", .kind = FB_OPT_STRING, .dst = &s->str, .arg = "S", .help = "a string"};
    t[n++] = (fb_opt){.name = "list", .kind = FB_OPT_LIST, .dst = &s->list, .arg = "A,B", .help = "a list"};
    t[n++] = (fb_opt){.name = "int", .kind = FB_OPT_I64, .dst = &s->i, .arg = "N", .ilo = 1, .ihi = INT64_MAX,
                      .help = "an integer"};
    t[n++] = (fb_opt){.name = "real", .kind = FB_OPT_DOUBLE, .dst = &s->d, .arg = "X", .lo = 0, .hi = 100,
                      .help = "a real"};
    t[n++] = (fb_opt){.name = "bytes", .kind = FB_OPT_BYTES, .dst = &s->bytes, .arg = "N", .ilo = 1,
                      .ihi = (int64_t)1 << 40, .help = "a size"};
    t[n++] = (fb_opt){.name = "mode", .kind = FB_OPT_ENUM, .dst = &s->mode, .arg = "M", .choices = modes,
                      .n_choices = 2, .help = "a mode"};
    return n;
}

/* Parse argv with the sample table; returns the status, leaves the message. */
static fb_status parse(sample *s, fb_cmdline *cl, fb_opt *t, char **argv, bool operands, bool keep)
{
    memset(s, 0, sizeof *s);
    *cl = (fb_cmdline){.cmd = "cmd", .opts = t, .n_opts = table(s, t), .allow_operands = operands,
                       .keep_unknown = keep};
    fb_clear_error();
    return fb_opts_parse(cl, ARGC(argv), argv);
}

static void done(sample *s, fb_cmdline *cl)
{
    fb_cmdline_free(cl);
    fb_strlist_free(&s->list);
}

static void test_spellings(void)
{
    sample s;
    fb_cmdline cl;
    fb_opt t[8];
    CHECK(parse(&s, &cl, t, ARGV("--flag", "--str", "a b", "--int=42", "--real", "2.5", "--bytes=2G", "--mode",
                                 "graph", "--list", "x,y", "--list=z"),
                false, false) == FB_OK);
    CHECK(s.flag && !strcmp(s.str, "a b") && s.i == 42 && s.d == 2.5 && s.bytes == ((size_t)2 << 30) && s.mode == 20);
    CHECK(s.list.n == 3 && !strcmp(s.list.item[0], "x") && !strcmp(s.list.item[2], "z"));
    done(&s, &cl);

    /* the last scalar wins */
    CHECK(parse(&s, &cl, t, ARGV("--int", "1", "--int", "2"), false, false) == FB_OK && s.i == 2);
    done(&s, &cl);

    /* "--" ends the options; "-" alone is an operand */
    CHECK(parse(&s, &cl, t, ARGV("a", "--flag", "-", "--", "--int", "-x"), true, false) == FB_OK);
    CHECK(s.flag && s.i == 0 && cl.n_operands == 4 && !strcmp(cl.operands[1], "-") &&
          !strcmp(cl.operands[2], "--int") && !strcmp(cl.operands[3], "-x"));
    done(&s, &cl);

    CHECK(parse(&s, &cl, t, ARGV("oops"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "unexpected argument 'oops'; see 'fusionbench cmd --help'");
    done(&s, &cl);
}

static void test_values_and_flags(void)
{
    sample s;
    fb_cmdline cl;
    fb_opt t[8];
    CHECK(parse(&s, &cl, t, ARGV("--str"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--str needs a value (S); see 'fusionbench cmd --help'");
    done(&s, &cl);
    /* a forgotten value is not silently replaced by the next option */
    CHECK(parse(&s, &cl, t, ARGV("--str", "--flag"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(),
              "--str needs a value (S), got the option '--flag' (write --str=VALUE for a value starting with '--')");
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--str=--flag"), false, false) == FB_OK && !strcmp(s.str, "--flag") && !s.flag);
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--str="), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--str: empty value");
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--flag=yes"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--flag takes no value (got 'yes')");
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--mode", "grap"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--mode: unknown value 'grap' (did you mean 'graph'?)");
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--mode", "zzzzzz"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--mode: unknown value 'zzzzzz' (expected events or graph)");
    done(&s, &cl);
}

static void test_lists(void)
{
    sample s;
    fb_cmdline cl;
    fb_opt t[8];
    CHECK(parse(&s, &cl, t, ARGV("--list", "a,,b"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--list: empty item in 'a,,b'");
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--list", "a,"), false, false) == FB_E_USAGE);
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--list", ",a"), false, false) == FB_E_USAGE);
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--list="), false, false) == FB_E_USAGE);
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--list", "a,b,a"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--list: 'a' given twice");
    done(&s, &cl);
    /* repeats count across occurrences too */
    CHECK(parse(&s, &cl, t, ARGV("--list", "a", "--list", "b,a"), false, false) == FB_E_USAGE);
    done(&s, &cl);

    fb_strlist l = {0};
    CHECK(fb_opt_split("--x", "p,q,r", &l) == FB_OK && l.n == 3);
    char *j = fb_strlist_join(&l);
    CHECK_STR(j, "p,q,r");
    free(j);
    fb_strlist_free(&l);
    CHECK(l.n == 0 && l.item == NULL);

    /* long values are kept whole: nothing is cut at a fixed width */
    static char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[2500] = ',';
    CHECK(fb_opt_split("--x", big, &l) == FB_OK && l.n == 2 && strlen(l.item[0]) == 2500 &&
          strlen(l.item[1]) == sizeof big - 2502);
    fb_strlist_free(&l);
}

static void test_integers(void)
{
    int64_t v = -7;
    CHECK(fb_opt_i64("--n", "9223372036854775807", 1, INT64_MAX, &v) == FB_OK && v == INT64_MAX);
    CHECK(fb_opt_i64("--n", "9223372036854775808", 1, INT64_MAX, &v) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--n: 9223372036854775808 is too large (at most 9223372036854775807)");
    CHECK(fb_opt_i64("--n", "18446744073709551616", 1, INT64_MAX, &v) == FB_E_USAGE); /* 2^64 */
    CHECK(fb_opt_i64("--n", "99999999999999999999999", 1, INT64_MAX, &v) == FB_E_USAGE);
    /* strtoll would take all of these */
    const char *bad[] = {"", " 5", "5 ", "+5", "-5", " -5", "0x10", "4.0", "1e3", "5x", "0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = -7;
        CHECK(fb_opt_i64("--n", bad[i], 1, INT64_MAX, &v) == FB_E_USAGE && v == -7);
    }
    CHECK(fb_opt_i64("--n", "4.0", 1, INT64_MAX, &v) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--n: expected a positive integer, got '4.0'");
    CHECK(fb_opt_i64("--n", "007", 1, INT64_MAX, &v) == FB_OK && v == 7);
    CHECK(fb_opt_i64("--n", "11", 1, 10, &v) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--n: 11 is too large (at most 10)");
    /* a value with control bytes is echoed escaped */
    CHECK(fb_opt_i64("--n", "1\n2", 1, 10, &v) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--n: expected an integer from 1 to 10, got '1\\x0a2'");
}

static void test_reals(void)
{
    double d = -7;
    const char *bad[] = {"inf", "-inf", "INF", "infinity", "nan", "NaN", "1e308", "1e309", "-1", " 5", "5 ", "", "x", "1e"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = -7;
        CHECK(fb_opt_double("--x", bad[i], 0, 100, &d) == FB_E_USAGE && d == -7);
    }
    CHECK(fb_opt_double("--x", "inf", 0, 100, &d) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--x: expected a finite number from 0 to 100, got 'inf'");
    CHECK(fb_opt_double("--x", "100", 0, 100, &d) == FB_OK && d == 100);
    CHECK(fb_opt_double("--x", "0", 0, 100, &d) == FB_OK && d == 0);
    CHECK(fb_opt_double("--x", "2.5e1", 0, 100, &d) == FB_OK && d == 25);
    CHECK(fb_opt_double("--x", "100.0001", 0, 100, &d) == FB_E_USAGE);
}

static void test_bytes(void)
{
    size_t b = 7;
    const int64_t hi = (int64_t)1 << 40;
    CHECK(fb_opt_bytes("--b", "1048576", 1, hi, &b) == FB_OK && b == 1048576);
    CHECK(fb_opt_bytes("--b", "512M", 1, hi, &b) == FB_OK && b == (size_t)512 << 20);
    CHECK(fb_opt_bytes("--b", "2GiB", 1, hi, &b) == FB_OK && b == (size_t)2 << 30);
    CHECK(fb_opt_bytes("--b", "4kB", 1, hi, &b) == FB_OK && b == 4096);
    CHECK(fb_opt_bytes("--b", "1024G", 1, hi, &b) == FB_OK && b == (size_t)hi);
    const char *bad[] = {" -5", "-5", " 5", "+5", "", "G", "5X", "5Gi", "5GB ", "1025G", "0",
                         "18446744073709551615", "18446744073709551616G", "17179869184G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b = 7;
        CHECK(fb_opt_bytes("--b", bad[i], 1, hi, &b) == FB_E_USAGE && b == 7);
    }
    CHECK(fb_opt_bytes("--b", " -5", 1, hi, &b) == FB_E_USAGE);
    CHECK_STR(fb_last_error(),
              "--b: expected a byte count (digits with an optional K, M or G suffix: 1048576, 512M, 2G), got ' -5'");
}

static void test_sizes(void)
{
    int64_t v[64];
    int n = -1;
    CHECK(fb_opt_sizes("--d", "61,130,128:1024", v, 64, &n) == FB_OK && n == 6);
    CHECK(v[0] == 61 && v[1] == 130 && v[2] == 128 && v[5] == 1024);
    CHECK(fb_opt_sizes("--d", "3:20", v, 64, &n) == FB_OK && n == 3 && v[2] == 12); /* 3, 6, 12 */
    /* near 2^63: no signed overflow, and a one-value range is one value */
    CHECK(fb_opt_sizes("--d", "4611686018427387904:4611686018427387904", v, 64, &n) == FB_OK && n == 1 &&
          v[0] == INT64_C(4611686018427387904));
    CHECK(fb_opt_sizes("--d", "4611686018427387904:9223372036854775807", v, 64, &n) == FB_OK && n == 1);
    CHECK(fb_opt_sizes("--d", "1:9223372036854775807", v, 64, &n) == FB_OK && n == 63 &&
          v[62] == INT64_C(4611686018427387904));
    CHECK(fb_opt_sizes("--d", "9223372036854775807:9223372036854775807", v, 64, &n) == FB_OK && n == 1 &&
          v[0] == INT64_MAX);
    CHECK(fb_opt_sizes("--d", "1:9223372036854775808", v, 64, &n) == FB_E_USAGE);
    CHECK(fb_opt_sizes("--d", "1:3", v, 1, &n) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--d: more than 1 values");
    CHECK(fb_opt_sizes("--d", "256:128", v, 64, &n) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--d: empty range '256:128' (a:b needs a <= b)");
    CHECK(fb_opt_sizes("--d", "128,,256", v, 64, &n) == FB_E_USAGE);
    CHECK(fb_opt_sizes("--d", "128,128", v, 64, &n) == FB_E_USAGE);
    CHECK(fb_opt_sizes("--d", "64:256,128", v, 64, &n) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--d: 128 given twice");
    CHECK(fb_opt_sizes("--d", "128,0128", v, 64, &n) == FB_E_USAGE);
    CHECK(fb_opt_sizes("--d", "0", v, 64, &n) == FB_E_USAGE);
    CHECK(fb_opt_sizes("--d", ":5", v, 64, &n) == FB_E_USAGE);
    CHECK(fb_opt_sizes("--d", "5:", v, 64, &n) == FB_E_USAGE);
    CHECK(fb_opt_sizes("--d", "1:2:4", v, 64, &n) == FB_E_USAGE);
}

static void test_unknown(void)
{
    sample s;
    fb_cmdline cl;
    fb_opt t[8];
    CHECK(parse(&s, &cl, t, ARGV("--flg"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "unknown option '--flg' (did you mean '--flag'?); see 'fusionbench cmd --help'");
    done(&s, &cl);
    CHECK(parse(&s, &cl, t, ARGV("--zzzzzz=1"), false, false) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "unknown option '--zzzzzz'; see 'fusionbench cmd --help'");
    done(&s, &cl);

    /* kept: a value is the =VALUE or the next argument unless that is an option */
    CHECK(parse(&s, &cl, t, ARGV("--dim0", "1,2", "--dim1=3", "--quik", "--flag", "--zz", "-x"), false, true) ==
          FB_OK);
    CHECK(cl.n_unknown == 5 && s.flag);
    CHECK(!strcmp(cl.unknown[0].name, "dim0") && !strcmp(cl.unknown[0].value, "1,2"));
    CHECK(!strcmp(cl.unknown[1].name, "dim1") && !strcmp(cl.unknown[1].value, "3"));
    CHECK(!strcmp(cl.unknown[2].name, "quik") && cl.unknown[2].value == NULL);
    CHECK(!strcmp(cl.unknown[3].name, "zz") && cl.unknown[3].value == NULL);
    CHECK(!strcmp(cl.unknown[4].name, "-x"));
    const char *axes[] = {"dim0", "dim1"};
    CHECK(fb_opts_unknown(&cl, "quik", axes, 2, "grid axes") == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "unknown option '--quik' (grid axes: --dim0, --dim1); see 'fusionbench cmd --help'");
    done(&s, &cl);

    /* the candidates: the table's options and the extras */
    fb_opt t2[8];
    sample s2 = {0};
    fb_cmdline c2 = {.cmd = "run", .opts = t2, .n_opts = table(&s2, t2)};
    CHECK(fb_opts_unknown(&c2, "dim2", axes, 2, "grid axes") == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "unknown option '--dim2' (did you mean '--dim0'?); see 'fusionbench run --help'");
    CHECK(fb_opts_unknown(&c2, "zzzzzz", axes, 2, "grid axes") == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "unknown option '--zzzzzz' (grid axes: --dim0, --dim1); see 'fusionbench run --help'");
    CHECK(fb_opts_unknown(&c2, "mde", NULL, 0, NULL) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "unknown option '--mde' (did you mean '--mode'?); see 'fusionbench run --help'");
}

static void test_quote(void)
{
    char buf[512];
    CHECK_STR(fb_opt_quote("a\tb", buf, sizeof buf), "a\\x09b");
    static char big[1000];
    memset(big, 'y', sizeof big - 1);
    const char *q = fb_opt_quote(big, buf, sizeof buf);
    CHECK(strlen(q) == 203 && !strcmp(q + 200, "..."));
    char tiny[6];
    CHECK_STR(fb_opt_quote("abcdefgh", tiny, sizeof tiny), "...");
}

/* fb_appendf (fb.c): the self-check reports' append, cut at the buffer's end; the dtype list
 * check that run and selftest share (fb_opt_dtypes) */
static void test_appendf_and_dtypes(void)
{
    char buf[12] = "";
    fb_appendf(buf, sizeof buf, "%s=%d", "ab", 7);
    fb_appendf(buf, sizeof buf, ", %s", "cdefghijk");
    CHECK_STR(buf, "ab=7, cdefg");
    fb_appendf(buf, sizeof buf, "more"); /* full: nothing */
    CHECK_STR(buf, "ab=7, cdefg");
    fb_appendf(NULL, 4, "x");
    fb_appendf(buf, 0, "x");

    unsigned mask = 0;
    fb_strlist l = {0};
    CHECK(fb_opt_dtypes("--dtype", &l, &mask) == FB_OK && mask == FB_DTYPES_ALL);
    CHECK(fb_opt_split("--dtype", "bf16,f64", &l) == FB_OK);
    CHECK(fb_opt_dtypes("--dtype", &l, &mask) == FB_OK &&
          mask == (FB_DTYPE_BIT(FB_BF16) | FB_DTYPE_BIT(FB_F64)));
    fb_strlist_free(&l);
    CHECK(fb_opt_split("--dtype", "float64,f64", &l) == FB_OK);
    CHECK(fb_opt_dtypes("--dtype", &l, &mask) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--dtype: 'float64' and 'f64' are the same dtype (float64)");
    fb_strlist_free(&l);
    CHECK(fb_opt_split("--dtype", "all", &l) == FB_OK);
    CHECK(fb_opt_dtypes("--dtype", &l, &mask) == FB_OK && mask == FB_DTYPES_ALL);
    CHECK(fb_opt_split("--dtype", "float16", &l) == FB_OK);
    CHECK(fb_opt_dtypes("--dtype", &l, &mask) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--dtype: 'all' stands alone (got 2 dtypes)");
    fb_strlist_free(&l);
    CHECK(fb_opt_split("--dtype", "flaot32", &l) == FB_OK);
    CHECK(fb_opt_dtypes("--dtype", &l, &mask) == FB_E_USAGE);
    CHECK_STR(fb_last_error(), "--dtype: unknown dtype 'flaot32' (did you mean 'float32'?)");
    fb_strlist_free(&l);
}

int main(void)
{
    test_appendf_and_dtypes();
    test_spellings();
    test_values_and_flags();
    test_lists();
    test_integers();
    test_reals();
    test_bytes();
    test_sizes();
    test_unknown();
    test_quote();
    return fb_t_report("opts");
}
