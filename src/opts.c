/* opts.c — the shared option parser (rules in opts.h). */
#include "opts.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* device.h has FB_TRY, but this file needs no CUDA header */
#define TRY(expr)                      \
    do {                               \
        fb_status try_s_ = (expr);     \
        if (try_s_ != FB_OK) return try_s_; \
    } while (0)

/* ---- messages ------------------------------------------------------------------ */

#define QUOTE_MAX 200 /* characters of a value echoed in a message */

const char *fb_opt_quote(const char *s, char *buf, size_t n)
{
    if (!n) return buf;
    size_t k = 0, shown = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++, shown++) {
        if (shown == QUOTE_MAX || k + 8 >= n) {
            if (k + 4 <= n) memcpy(buf + k, "...", 4);
            else buf[k] = 0;
            return buf;
        }
        if (*p < 0x20 || *p == 0x7f) k += (size_t)snprintf(buf + k, n - k, "\\x%02x", *p);
        else buf[k++] = (char)*p;
    }
    buf[k] = 0;
    return buf;
}

/* ---- lists ---------------------------------------------------------------------- */

void fb_strlist_free(fb_strlist *l)
{
    for (int i = 0; i < l->n; i++) free(l->item[i]);
    free(l->item);
    l->n = 0;
    l->item = NULL;
}

static fb_status strlist_add(fb_strlist *l, const char *s, size_t len)
{
    char *copy = malloc(len + 1);
    char **items = realloc(l->item, sizeof *items * (size_t)(l->n + 1));
    if (!copy || !items) {
        free(copy);
        if (items) l->item = items;
        fb_error("out of host memory parsing the command line");
        return FB_E_NOMEM;
    }
    memcpy(copy, s, len);
    copy[len] = 0;
    l->item = items;
    l->item[l->n++] = copy;
    return FB_OK;
}

fb_status fb_opt_split(const char *opt, const char *s, fb_strlist *into)
{
    char q[256], q2[256];
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            fb_error("%s: empty item in '%s'", opt, fb_opt_quote(s, q, sizeof q));
            return FB_E_USAGE;
        }
        for (int i = 0; i < into->n; i++)
            if (strlen(into->item[i]) == len && memcmp(into->item[i], p, len) == 0) {
                fb_error("%s: '%s' given twice", opt, fb_opt_quote(into->item[i], q2, sizeof q2));
                return FB_E_USAGE;
            }
        TRY(strlist_add(into, p, len));
        if (!p[len]) return FB_OK;
        p += len + 1;
    }
}

char *fb_strlist_join(const fb_strlist *l)
{
    size_t total = 1;
    for (int i = 0; i < l->n; i++) total += strlen(l->item[i]) + 1;
    char *s = malloc(total);
    if (!s) return NULL;
    size_t k = 0;
    for (int i = 0; i < l->n; i++) {
        size_t len = strlen(l->item[i]);
        if (i) s[k++] = ',';
        memcpy(s + k, l->item[i], len);
        k += len;
    }
    s[k] = 0;
    return s;
}

/* ---- numbers -------------------------------------------------------------------- */

/* The first `len` characters of s as decimal digits: 0 ok, -1 not digits, -2 above UINT64_MAX. */
static int digits_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return -2;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static void want_integer(char *buf, size_t n, int64_t lo, int64_t hi)
{
    if (lo == 1 && hi == INT64_MAX) snprintf(buf, n, "a positive integer");
    else if (lo == 0 && hi == INT64_MAX) snprintf(buf, n, "a non-negative integer");
    else snprintf(buf, n, "an integer from %lld to %lld", (long long)lo, (long long)hi);
}

fb_status fb_opt_i64(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char q[256], want[96];
    uint64_t v = 0;
    int r = digits_u64(s, strlen(s), &v);
    if (r == 0 && v <= (uint64_t)hi && v >= (uint64_t)lo) {
        *out = (int64_t)v;
        return FB_OK;
    }
    want_integer(want, sizeof want, lo, hi);
    if (r == -2 || (r == 0 && v > (uint64_t)hi))
        fb_error("%s: %s is too large (at most %lld)", opt, fb_opt_quote(s, q, sizeof q), (long long)hi);
    else
        fb_error("%s: expected %s, got '%s'", opt, want, fb_opt_quote(s, q, sizeof q));
    return FB_E_USAGE;
}

fb_status fb_opt_double(const char *opt, const char *s, double lo, double hi, double *out)
{
    char q[256];
    /* strtod skips leading blanks and reads "inf", "nan" and hex: only the blanks are
     * refused here; the rest is refused below unless it is a finite number in range */
    char *end = NULL;
    double v = 0;
    bool parsed = false;
    if (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\v' && *s != '\f' && *s != '\r') {
        errno = 0;
        v = strtod(s, &end);
        parsed = end != s && *end == 0;
    }
    if (!parsed) {
        fb_error("%s: expected a number from %g to %g, got '%s'", opt, lo, hi, fb_opt_quote(s, q, sizeof q));
        return FB_E_USAGE;
    }
    if (!isfinite(v)) {
        fb_error("%s: expected a finite number from %g to %g, got '%s'", opt, lo, hi, fb_opt_quote(s, q, sizeof q));
        return FB_E_USAGE;
    }
    if (!(v >= lo && v <= hi)) {
        fb_error("%s: expected a number from %g to %g, got '%s'", opt, lo, hi, fb_opt_quote(s, q, sizeof q));
        return FB_E_USAGE;
    }
    *out = v;
    return FB_OK;
}

fb_status fb_opt_bytes(const char *opt, const char *s, int64_t lo, int64_t hi, size_t *out)
{
    char q[256];
    size_t nd = strspn(s, "0123456789");
    const char *suf = s + nd;
    unsigned shift = 0;
    bool ok = nd > 0;
    if (ok && *suf) {
        switch (*suf) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default: ok = false;
        }
        suf++;
        if (ok && !(strcmp(suf, "") == 0 || strcmp(suf, "B") == 0 || strcmp(suf, "iB") == 0)) ok = false;
    }
    uint64_t v = 0;
    int r = ok ? digits_u64(s, nd, &v) : -1;
    if (r == -1) {
        fb_error("%s: expected a byte count (digits with an optional K, M or G suffix: 1048576, 512M, 2G), got '%s'",
                 opt, fb_opt_quote(s, q, sizeof q));
        return FB_E_USAGE;
    }
    if (r == -2 || v > ((uint64_t)hi >> shift)) {
        fb_error("%s: %s is too large (at most %lld bytes)", opt, fb_opt_quote(s, q, sizeof q), (long long)hi);
        return FB_E_USAGE;
    }
    if ((v << shift) < (uint64_t)lo) {
        fb_error("%s: %s is too small (at least %lld)", opt, fb_opt_quote(s, q, sizeof q), (long long)lo);
        return FB_E_USAGE;
    }
    *out = (size_t)(v << shift);
    return FB_OK;
}

fb_status fb_opt_sizes(const char *opt, const char *s, int64_t *v, int max, int *n)
{
    fb_strlist items = {0};
    fb_status st = fb_opt_split(opt, s, &items);
    char q[256];
    *n = 0;
    for (int i = 0; st == FB_OK && i < items.n; i++) {
        char *tok = items.item[i];
        char *colon = strchr(tok, ':');
        int64_t a, b;
        if (colon) *colon = 0;
        st = fb_opt_i64(opt, tok, 1, INT64_MAX, &a);
        if (st == FB_OK && colon) st = fb_opt_i64(opt, colon + 1, 1, INT64_MAX, &b);
        if (st != FB_OK) break;
        if (!colon) b = a;
        if (colon && a > b) {
            *colon = ':';
            fb_error("%s: empty range '%s' (a:b needs a <= b)", opt, fb_opt_quote(tok, q, sizeof q));
            st = FB_E_USAGE;
            break;
        }
        /* a, 2a, 4a, ... <= b; doubling only while it cannot pass b (nor INT64_MAX) */
        for (int64_t x = a;; x *= 2) {
            for (int k = 0; k < *n; k++)
                if (v[k] == x) {
                    fb_error("%s: %lld given twice", opt, (long long)x);
                    st = FB_E_USAGE;
                }
            if (st == FB_OK && *n == max) {
                fb_error("%s: more than %d values", opt, max);
                st = FB_E_USAGE;
            }
            if (st != FB_OK) break;
            v[(*n)++] = x;
            if (x > b / 2) break;
        }
    }
    fb_strlist_free(&items);
    return st;
}

/* ---- the parser ----------------------------------------------------------------- */

static const fb_opt *find_opt(const fb_cmdline *cl, const char *name, size_t len)
{
    for (int i = 0; i < cl->n_opts; i++)
        if (strlen(cl->opts[i].name) == len && memcmp(cl->opts[i].name, name, len) == 0) return &cl->opts[i];
    return NULL;
}

fb_status fb_opts_unknown(const fb_cmdline *cl, const char *name, const char *const *extra, int n_extra,
                          const char *extra_what)
{
    const char **cands = malloc(sizeof *cands * (size_t)(cl->n_opts + n_extra + 1));
    int n = 0;
    if (cands) {
        for (int i = 0; i < cl->n_opts; i++) cands[n++] = cl->opts[i].name;
        for (int i = 0; i < n_extra; i++) cands[n++] = extra[i];
    }
    char q[256], sg[1024];
    fb_suggest("--", name, cands, n, sg, sizeof sg);
    free(cands);
    if (!sg[0] && n_extra) {
        size_t k = (size_t)snprintf(sg, sizeof sg, " (%s: ", extra_what ? extra_what : "also");
        int i = 0;
        for (; i < n_extra && k + strlen(extra[i]) + 32 < sizeof sg; i++)
            k += (size_t)snprintf(sg + k, sizeof sg - k, "%s--%s", i ? ", " : "", extra[i]);
        if (i < n_extra) k += (size_t)snprintf(sg + k, sizeof sg - k, " and %d more", n_extra - i);
        snprintf(sg + k, sizeof sg - k, ")");
    }
    fb_error("unknown option '%s%s'%s; see 'fusionbench %s --help'", name[0] == '-' ? "" : "--",
             fb_opt_quote(name, q, sizeof q), sg, cl->cmd);
    return FB_E_USAGE;
}

static fb_status set_value(const fb_cmdline *cl, const fb_opt *o, const char *v)
{
    char opt[80], q[256];
    snprintf(opt, sizeof opt, "--%s", o->name);
    switch (o->kind) {
    case FB_OPT_FLAG: break; /* not reached: flags take no value */
    case FB_OPT_STRING:
        if (!*v) {
            fb_error("%s: empty value", opt);
            return FB_E_USAGE;
        }
        *(const char **)o->dst = v;
        return FB_OK;
    case FB_OPT_LIST: return fb_opt_split(opt, v, (fb_strlist *)o->dst);
    case FB_OPT_I64: return fb_opt_i64(opt, v, o->ilo, o->ihi, (int64_t *)o->dst);
    case FB_OPT_DOUBLE: return fb_opt_double(opt, v, o->lo, o->hi, (double *)o->dst);
    case FB_OPT_BYTES: return fb_opt_bytes(opt, v, o->ilo, o->ihi, (size_t *)o->dst);
    case FB_OPT_ENUM: {
        const char *names[32];
        int n = 0;
        for (int i = 0; i < o->n_choices; i++) {
            if (strcmp(v, o->choices[i].name) == 0) {
                *(int *)o->dst = o->choices[i].value;
                return FB_OK;
            }
            if (n < 32) names[n++] = o->choices[i].name;
        }
        char sg[256];
        if (!fb_suggest("", v, names, n, sg, sizeof sg)[0]) {
            size_t k = (size_t)snprintf(sg, sizeof sg, " (expected ");
            for (int i = 0; i < n && k < sizeof sg; i++)
                k += (size_t)snprintf(sg + k, sizeof sg - k, "%s%s", i ? (i == n - 1 ? " or " : ", ") : "", names[i]);
            if (k < sizeof sg) snprintf(sg + k, sizeof sg - k, ")");
        }
        fb_error("%s: unknown value '%s'%s", opt, fb_opt_quote(v, q, sizeof q), sg);
        return FB_E_USAGE;
    }
    }
    (void)cl;
    return FB_OK;
}

static fb_status add_operand(fb_cmdline *cl, const char *arg)
{
    const char **ops = realloc(cl->operands, sizeof *ops * (size_t)(cl->n_operands + 1));
    if (!ops) {
        fb_error("out of host memory parsing the command line");
        return FB_E_NOMEM;
    }
    cl->operands = ops;
    ops[cl->n_operands++] = arg;
    return FB_OK;
}

static fb_status add_unknown(fb_cmdline *cl, const char *name, size_t len, const char *value)
{
    fb_unknown_opt *u = realloc(cl->unknown, sizeof *u * (size_t)(cl->n_unknown + 1));
    char *copy = malloc(len + 1);
    if (u) cl->unknown = u;
    if (!u || !copy) {
        free(copy);
        fb_error("out of host memory parsing the command line");
        return FB_E_NOMEM;
    }
    memcpy(copy, name, len);
    copy[len] = 0;
    u[cl->n_unknown++] = (fb_unknown_opt){copy, value};
    return FB_OK;
}

fb_status fb_opts_parse(fb_cmdline *cl, int argc, char **argv)
{
    cl->n_operands = 0;
    cl->operands = NULL;
    cl->n_unknown = 0;
    cl->unknown = NULL;
    char q[256];
    bool options = true;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (options && strcmp(arg, "--") == 0) {
            options = false;
            continue;
        }
        if (!options || arg[0] != '-' || arg[1] == 0) { /* "-" alone is an operand (stdin, by custom) */
            if (!cl->allow_operands) {
                fb_error("unexpected argument '%s'; see 'fusionbench %s --help'", fb_opt_quote(arg, q, sizeof q),
                         cl->cmd);
                return FB_E_USAGE;
            }
            TRY(add_operand(cl, arg));
            continue;
        }
        if (arg[1] != '-') { /* -x: no short options but -h, which main handles */
            if (cl->keep_unknown) {
                TRY(add_unknown(cl, arg, strlen(arg), NULL));
                continue;
            }
            return fb_opts_unknown(cl, arg, NULL, 0, NULL);
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const char *value = eq ? eq + 1 : NULL;
        const fb_opt *o = find_opt(cl, name, len);
        if (!o) {
            if (!cl->keep_unknown) {
                char *n = strndup(name, len);
                fb_status s = n ? fb_opts_unknown(cl, n, NULL, 0, NULL) : FB_E_NOMEM;
                if (!n) fb_error("out of host memory parsing the command line");
                free(n);
                return s;
            }
            /* the value of an unknown option, if any, is the next argument unless that is an option */
            if (!value && i + 1 < argc && argv[i + 1][0] != '-') value = argv[++i];
            TRY(add_unknown(cl, name, len, value));
            continue;
        }
        if (o->kind == FB_OPT_FLAG) {
            if (value) {
                fb_error("--%s takes no value (got '%s')", o->name, fb_opt_quote(value, q, sizeof q));
                return FB_E_USAGE;
            }
            *(bool *)o->dst = true;
            continue;
        }
        if (!value) {
            if (i + 1 >= argc) {
                fb_error("--%s needs a value (%s); see 'fusionbench %s --help'", o->name, o->arg ? o->arg : "VALUE",
                         cl->cmd);
                return FB_E_USAGE;
            }
            if (strncmp(argv[i + 1], "--", 2) == 0) {
                fb_error("--%s needs a value (%s), got the option '%s' (write --%s=VALUE for a value starting "
                         "with '--')", o->name, o->arg ? o->arg : "VALUE", fb_opt_quote(argv[i + 1], q, sizeof q),
                         o->name);
                return FB_E_USAGE;
            }
            value = argv[++i];
        }
        TRY(set_value(cl, o, value));
    }
    return FB_OK;
}

void fb_cmdline_free(fb_cmdline *cl)
{
    for (int i = 0; i < cl->n_unknown; i++) free(cl->unknown[i].name);
    free(cl->unknown);
    free(cl->operands);
    cl->unknown = NULL;
    cl->operands = NULL;
    cl->n_unknown = cl->n_operands = 0;
}

/* ---- --help ----------------------------------------------------------------------- */

static void help_line(FILE *f, const char *head, const char *text)
{
    fprintf(f, "  %-16s ", head);
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        fprintf(f, "%.*s\n", (int)len, p);
        p += len;
        if (*p == '\n' && *++p) fprintf(f, "%19s", "");
    }
}

void fb_opts_help(FILE *f, const fb_opt *opts, int n, const char *const *extra)
{
    char head[96];
    for (int i = 0; i < n; i++) {
        if (opts[i].kind == FB_OPT_FLAG) snprintf(head, sizeof head, "--%s", opts[i].name);
        else snprintf(head, sizeof head, "--%s %s", opts[i].name, opts[i].arg ? opts[i].arg : "VALUE");
        help_line(f, head, opts[i].help ? opts[i].help : "");
    }
    for (; extra && extra[0] && extra[1]; extra += 2) help_line(f, extra[0], extra[1]);
    help_line(f, "-h, --help", "this text");
}

fb_status fb_opt_dtypes(const char *opt, const fb_strlist *l, unsigned *mask)
{
    static const char *const names[] = {"float32", "float16", "bfloat16", "float64", "all"};
    fb_dtype seen[FB_NDTYPES + 1];
    char q[256], sg[96];
    *mask = l->n == 0 ? FB_DTYPES_ALL : 0;
    for (int i = 0; i < l->n; i++) {
        if (!strcmp(l->item[i], "all")) {
            if (l->n > 1) {
                fb_error("%s: 'all' stands alone (got %d dtypes)", opt, l->n);
                return FB_E_USAGE;
            }
            *mask = FB_DTYPES_ALL;
            continue;
        }
        /* seen[] holds five: past four known dtypes a fifth item is "all", unknown or a repeat */
        if (fb_dtype_from_name(l->item[i], &seen[i]) != 0) {
            fb_error("%s: unknown dtype '%s'%s", opt, fb_opt_quote(l->item[i], q, sizeof q),
                     fb_suggest("", l->item[i], names, 5, sg, sizeof sg));
            return FB_E_USAGE;
        }
        for (int k = 0; k < i; k++)
            if (seen[k] == seen[i]) {
                fb_error("%s: '%s' and '%s' are the same dtype (%s)", opt, l->item[k], l->item[i],
                         fb_dtype_name(seen[i]));
                return FB_E_USAGE;
            }
        *mask |= FB_DTYPE_BIT(seen[i]);
    }
    return FB_OK;
}
