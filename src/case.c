/* case.c — case files (cases/NAME.json) into struct fb_case, strictly.
 *
 * A case file is the one place a user writes fusionbench's input by hand, so the
 * loader is a compiler front end, not a lenient reader: every key is known, every
 * type checked, every name resolved, and every grid point's shapes and byte counts
 * are derived once here, so that `run` never meets a case it cannot execute.
 *
 * Messages (status FB_E_CASE, text in fb_last_error()) are one line each:
 *   syntax:    PATH:LINE:COL: message          (the column of the offending token)
 *   semantics: PATH: WHERE: message            (WHERE is a JSON path: program[2].op)
 *   files:     PATH: no such file | is a directory, not a case file | cannot read: ...
 * The first error wins; checks run in file order so it is the one a reader meets first. */
#include "case.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ops/op_table.h"
#include "variant.h"

#ifndef FB_CASES_DIR
#define FB_CASES_DIR "cases"
#endif

/* Far above any sensible case; keeps a mistaken `validate big.bin` from reading gigabytes. */
#define MAX_CASE_BYTES ((size_t)4 << 20)
#define WHERE_MAX 192

/* Tolerances when the file is silent (set = false); a case overrides per dtype.
 * rtol covers each type's rounding of stored values around fp32 (fp64) arithmetic:
 * float16 stores 2^-11 relative, bfloat16 2^-8, and eager stores every intermediate,
 * so a chain of ops costs several of those (softmax's exp of a rounded x - max, up
 * to ~12): 1e-2 is 20 float16 roundings, 5e-2 about 13 bfloat16 ones. The check
 * widens a default's atol by rtol x the output's median nonzero |want| (fb_tolerance,
 * check.c): summation error grows with the row length like the scale of a sum
 * whose terms cancel, and a fixed atol fails the rows whose sum lands near 0. */
static const fb_tol default_tol[FB_NDTYPES] = {
    [FB_F32] = {false, 1e-6, 1e-5},
    [FB_F16] = {false, 1e-3, 1e-2},
    [FB_BF16] = {false, 1e-2, 5e-2},
    [FB_F64] = {false, 1e-12, 1e-10},
};

/* Loader state: the message prefix, the case being filled, and the raw program
 * array (operand checks look ahead in it to say "used before it is defined"). */
typedef struct loader {
    const char *path;
    fb_case *c;
    json_t *program;
    char sym_where[FB_MAX_SYMS][WHERE_MAX]; /* first use of each symbol */
} loader;

/* ---- messages ------------------------------------------------------------- */

static fb_status fail(const loader *L, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static fb_status fail(const loader *L, const char *where, const char *fmt, ...)
{
    /* the message may quote a fb_last_error() of its own: format it first, whole */
    char small[1024], *msg = small;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)) != NULL) vsnprintf(msg, (size_t)n + 1, fmt, again);
    else msg = small;
    va_end(again);
    if (where && where[0]) fb_error("%s: %s: %s", fb_qpath(L->path), where, msg);
    else fb_error("%s: %s", fb_qpath(L->path), msg);
    if (msg != small) free(msg);
    return FB_E_CASE;
}

/* A user string made safe for a one-line message (fb_clean): control characters
 * escaped, long strings cut at a character boundary and marked "...". */
static const char *clean(const char *s, char *buf, size_t n) { return fb_clean(s, buf, n); }

/* A real as written back to the user: the shortest form that reads back as the
 * same double, with ".0" when it would otherwise look like an integer (4.0 is
 * not 4 to a field that wants an integer). */
static const char *real_str(double v, char *buf, size_t n)
{
    if (!buf || n == 0) return ""; /* never; it also keeps gcc -fsanitize=undefined's -Wformat-truncation quiet */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    if (isfinite(v) && !strpbrk(buf, ".e") && strlen(buf) + 3 <= n) strcat(buf, ".0");
    return buf;
}

const char *fb_json_describe(const struct json_t *j, char *buf, size_t n)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: {
        char s[48];
        snprintf(buf, n, "the string '%s'", clean(json_string_value(j), s, sizeof s));
        return buf;
    }
    case JSON_INTEGER: snprintf(buf, n, "%lld", (long long)json_integer_value(j)); return buf;
    case JSON_REAL: return real_str(json_real_value(j), buf, n);
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "something else";
}

static fb_status wrong_type(const loader *L, const char *where, const char *expected, const json_t *j)
{
    char d[96];
    return fail(L, where, "expected %s, got %s", expected, fb_json_describe(j, d, sizeof d));
}

/* Where an integer (>= min) is required: a real says so, and when it is a whole
 * number that would do, the fix ("4.0" -> "4") is spelled out; anything else is
 * reported as wrong_type does. */
static fb_status wrong_integer(const loader *L, const char *where, const char *expected, double min, const json_t *j)
{
    if (!json_is_real(j)) return wrong_type(L, where, expected, j);
    double v = json_real_value(j);
    char d[96];
    real_str(v, d, sizeof d);
    if (v == floor(v) && v >= min && fabs(v) < 9007199254740992.0) /* 2^53: still an exact integer */
        return fail(L, where, "expected %s, got the real number %s (write %.0f, without a point or exponent)",
                    expected, d, v);
    return fail(L, where, "expected %s, got the real number %s", expected, d);
}

/* A JSON path into a WHERE_MAX buffer; deep paths are cut, never overflow. */
static void wfmt(char *dst, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void wfmt(char *dst, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, WHERE_MAX, fmt, ap);
    va_end(ap);
}

/* ---- small checks ------------------------------------------------------------ */

static bool is_ident(const char *s) { return fb_is_identifier(s) && strlen(s) < FB_NAME_MAX; }

static fb_status check_ident(const loader *L, const char *where, const char *what, const char *s)
{
    char q[96];
    if (strlen(s) >= FB_NAME_MAX)
        return fail(L, where, "%s '%s' is too long (at most %d characters)", what, clean(s, q, sizeof q),
                    FB_NAME_MAX - 1);
    if (!is_ident(s))
        return fail(L, where, "'%s' is not a valid %s (letters, digits and '_', not starting with a digit)",
                    clean(s, q, sizeof q), what);
    return FB_OK;
}

/* Every key of an object must be one of `allowed`; the first stranger is reported. */
static fb_status check_keys(const loader *L, json_t *obj, const char *where, const char *const *allowed, int n)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        int known = 0;
        for (int i = 0; i < n; i++) known |= strcmp(key, allowed[i]) == 0;
        if (known) continue;
        char q[96], s[512]; /* s: room for a long list of allowed keys */
        if (!fb_suggest("", key, allowed, n, s, sizeof s)[0]) {
            size_t k = (size_t)snprintf(s, sizeof s, " (expected ");
            for (int i = 0; i < n && k < sizeof s; i++)
                k += (size_t)snprintf(s + k, sizeof s - k, "%s%s", i ? (i == n - 1 ? " or " : ", ") : "", allowed[i]);
            if (k < sizeof s) snprintf(s + k, sizeof s - k, ")");
        }
        return fail(L, where, "unknown key '%s'%s", clean(key, q, sizeof q), s);
    }
    return FB_OK;
}

/* The member `key` of `obj`; NULL and an error when required and absent. */
static fb_status member(const loader *L, json_t *obj, const char *where, const char *key, bool required,
                        json_t **out)
{
    *out = json_object_get(obj, key);
    if (!*out && required) return fail(L, where, "missing key '%s'", key);
    return FB_OK;
}

static fb_status get_string(const loader *L, const char *where, json_t *j, char *dst, size_t cap)
{
    if (!json_is_string(j)) return wrong_type(L, where, "a string", j);
    const char *s = json_string_value(j);
    if (!s[0]) return fail(L, where, "must not be empty");
    if (strlen(s) >= cap) return fail(L, where, "too long (%zu characters; at most %zu)", strlen(s), cap - 1);
    memcpy(dst, s, strlen(s) + 1);
    return FB_OK;
}

/* A non-empty array of at most `max` items. */
static fb_status get_array(const loader *L, const char *where, json_t *j, size_t max, const char *items)
{
    if (!json_is_array(j)) return wrong_type(L, where, "an array", j);
    if (json_array_size(j) == 0) return fail(L, where, "must not be empty");
    if (json_array_size(j) > max)
        return fail(L, where, "%zu %s; at most %zu", json_array_size(j), items, max);
    return FB_OK;
}

static fb_status get_positive(const loader *L, const char *where, json_t *j, int64_t *out)
{
    if (!json_is_integer(j) || json_integer_value(j) <= 0) return wrong_integer(L, where, "a positive integer", 1, j);
    *out = (int64_t)json_integer_value(j);
    return FB_OK;
}

static int find_value(const fb_case *c, const char *name)
{
    for (int v = 0; v < c->n_values; v++)
        if (strcmp(c->values[v].name, name) == 0) return v;
    return -1;
}

static int find_sym(const fb_case *c, const char *name)
{
    for (int s = 0; s < c->n_syms; s++)
        if (strcmp(c->sym[s], name) == 0) return s;
    return -1;
}

static const char *const dtype_words[] = {"float32", "float16", "bfloat16", "float64", "fp32",
                                          "fp16",    "bf16",    "fp64",     "half",    "double"};
#define N_DTYPE_WORDS (int)(sizeof dtype_words / sizeof dtype_words[0])

static fb_status get_dtype(const loader *L, const char *where, json_t *j, fb_dtype *d)
{
    if (!json_is_string(j)) return wrong_type(L, where, "a dtype name", j);
    const char *s = json_string_value(j);
    if (fb_dtype_from_name(s, d) == 0) return FB_OK;
    char q[96], sg[96];
    if (!fb_suggest("", s, dtype_words, N_DTYPE_WORDS, sg, sizeof sg)[0])
        snprintf(sg, sizeof sg, " (expected float32, float16, bfloat16 or float64)");
    return fail(L, where, "unknown dtype '%s'%s", clean(s, q, sizeof q), sg);
}

/* ---- name, summary ------------------------------------------------------------ */

static fb_status parse_name(const loader *L, json_t *j)
{
    fb_status s = get_string(L, "name", j, L->c->name, sizeof L->c->name);
    if (s) return s;
    for (const char *p = L->c->name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-')) {
            char q[96];
            return fail(L, "name", "'%s' may hold only a-z, 0-9, '_', '.' and '-'", clean(L->c->name, q, sizeof q));
        }
    return FB_OK;
}

static fb_status parse_summary(const loader *L, json_t *j)
{
    fb_status s = get_string(L, "summary", j, L->c->summary, sizeof L->c->summary);
    if (s) return s;
    for (const char *p = L->c->summary; *p; p++)
        if ((unsigned char)*p < 0x20) return fail(L, "summary", "must be a single line");
    return FB_OK;
}

/* ---- inputs ------------------------------------------------------------------- */

static fb_status add_sym(loader *L, const char *where, const char *name, int *out)
{
    fb_case *c = L->c;
    fb_status s = check_ident(L, where, "symbol name", name);
    if (s) return s;
    int k = find_sym(c, name);
    if (k < 0) {
        if (c->n_syms == FB_MAX_SYMS) return fail(L, where, "too many shape symbols (at most %d)", FB_MAX_SYMS);
        k = c->n_syms++;
        snprintf(c->sym[k], sizeof c->sym[k], "%s", name);
        wfmt(L->sym_where[k], "%s", where);
    }
    *out = k;
    return FB_OK;
}

static fb_status parse_shape(loader *L, const char *where, json_t *j, fb_sym_shape *sh)
{
    if (!json_is_array(j)) return wrong_type(L, where, "an array of sizes and symbols", j);
    size_t n = json_array_size(j);
    if (n < 1 || n > FB_MAX_RANK) return fail(L, where, "rank %zu; a shape has 1 to %d dims", n, FB_MAX_RANK);
    sh->rank = (int)n;
    for (size_t i = 0; i < n; i++) {
        char w[WHERE_MAX];
        wfmt(w, "%s[%zu]", where, i);
        json_t *d = json_array_get(j, i);
        fb_status s;
        if (json_is_string(d)) {
            s = add_sym(L, w, json_string_value(d), &sh->dim[i].sym);
        } else if (json_is_integer(d) && json_integer_value(d) > 0) {
            sh->dim[i].sym = -1;
            sh->dim[i].size = (int64_t)json_integer_value(d);
            s = FB_OK;
        } else {
            s = wrong_integer(L, w, "a positive integer or a symbol name", 1, d);
        }
        if (s) return s;
    }
    return FB_OK;
}

static fb_status parse_init(const loader *L, const char *where, json_t *j, fb_init *out)
{
    if (!json_is_string(j)) return wrong_type(L, where, "a string", j);
    const char *names[FB_NINITS];
    for (int i = 0; i < FB_NINITS; i++) {
        names[i] = fb_init_name((fb_init)i);
        if (strcmp(json_string_value(j), names[i]) == 0) {
            *out = (fb_init)i;
            return FB_OK;
        }
    }
    char q[96], sg[96];
    if (!fb_suggest("", json_string_value(j), names, FB_NINITS, sg, sizeof sg)[0])
        snprintf(sg, sizeof sg, " (expected normal, uniform, positive or row_simplex)");
    return fail(L, where, "unknown init '%s'%s", clean(json_string_value(j), q, sizeof q), sg);
}

static fb_status parse_input(loader *L, const char *name, json_t *j)
{
    static const char *const keys[] = {"shape", "init"};
    fb_case *c = L->c;
    char w[WHERE_MAX], ws[WHERE_MAX];
    fb_status s = check_ident(L, "inputs", "value name", name);
    if (s) return s;
    wfmt(w, "inputs.%s", name);
    if (!json_is_object(j)) return wrong_type(L, w, "an object like {\"shape\": [...]}", j);
    if ((s = check_keys(L, j, w, keys, 2))) return s;

    fb_value *v = &c->values[c->n_values];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name);
    v->is_input = true;
    v->producer = -1;
    v->init = FB_INIT_NORMAL;

    json_t *shape, *init;
    if ((s = member(L, j, w, "shape", true, &shape))) return s;
    wfmt(ws, "%s.shape", w);
    if ((s = parse_shape(L, ws, shape, &v->shape))) return s;
    if ((s = member(L, j, w, "init", false, &init))) return s;
    wfmt(ws, "%s.init", w);
    if (init && (s = parse_init(L, ws, init, &v->init))) return s;
    c->n_values++;
    c->n_inputs++;
    return FB_OK;
}

static fb_status parse_inputs(loader *L, json_t *j)
{
    if (!json_is_object(j)) return wrong_type(L, "inputs", "an object of named inputs", j);
    if (json_object_size(j) == 0) return fail(L, "inputs", "must not be empty");
    if (json_object_size(j) > FB_MAX_VALUES)
        return fail(L, "inputs", "%zu inputs; at most %d", json_object_size(j), FB_MAX_VALUES);
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v) {
        fb_status s = parse_input(L, key, v);
        if (s) return s;
    }
    return FB_OK;
}

/* ---- program --------------------------------------------------------------------- */

/* Why `name` is not a value yet: defined further down, this node's own output, a
 * shape symbol, or simply unknown. */
static fb_status undefined_operand(const loader *L, const char *where, int node, const char *name)
{
    const fb_case *c = L->c;
    char q[96];
    clean(name, q, sizeof q);
    for (size_t k = (size_t)node; k < json_array_size(L->program); k++) {
        json_t *out = json_object_get(json_array_get(L->program, k), "out");
        if (!json_is_string(out) || strcmp(json_string_value(out), name) != 0) continue;
        if ((int)k == node) return fail(L, where, "'%s' is this op's own output", q);
        return fail(L, where, "'%s' is used before it is defined (by program[%zu])", q, k);
    }
    if (find_sym(c, name) >= 0) return fail(L, where, "'%s' is a shape symbol, not a value", q);
    const char *names[FB_MAX_VALUES];
    for (int v = 0; v < c->n_values; v++) names[v] = c->values[v].name;
    char sg[96];
    return fail(L, where, "unknown value '%s'%s", q, fb_suggest("", name, names, c->n_values, sg, sizeof sg));
}

static fb_status parse_operands(const loader *L, const char *where, int node, json_t *j, fb_node *nd)
{
    const fb_op_kind *k = fb_node_kind(nd);
    const char *op = fb_node_op_name(nd);
    if (!json_is_array(j)) return wrong_type(L, where, "an array of operands", j);
    size_t n = json_array_size(j);
    if (n != (size_t)k->n_in)
        return fail(L, where, "'%s' takes %d operand%s, got %zu", op, k->n_in, k->n_in == 1 ? "" : "s", n);
    nd->n_in = (int)n;
    int literals = 0;
    for (size_t i = 0; i < n; i++) {
        char w[WHERE_MAX];
        wfmt(w, "%s[%zu]", where, i);
        json_t *a = json_array_get(j, i);
        fb_operand *o = &nd->in[i];
        if (json_is_string(a)) {
            o->literal = false;
            o->value = find_value(L->c, json_string_value(a));
            if (o->value < 0) return undefined_operand(L, w, node, json_string_value(a));
        } else if (json_is_number(a)) {
            if (!k->literals) return fail(L, w, "'%s' takes a value, not a literal", op);
            o->literal = true;
            o->number = json_number_value(a);
            o->value = -1;
            literals++;
        } else {
            return wrong_type(L, w, "a value name or a number", a);
        }
    }
    if (literals == (int)n)
        return fail(L, where, "'%s' needs at least one value operand, not only literals", op);
    return FB_OK;
}

static fb_status parse_op(const loader *L, const char *where, json_t *j, fb_node *nd)
{
    if (!json_is_string(j)) return wrong_type(L, where, "an op name", j);
    const char *name = json_string_value(j);
    if (fb_op_lookup(name, &nd->kind, &nd->op) == 0) return FB_OK;
    const char *names[256];
    int n = fb_op_names(names, 256);
    char q[96], sg[96];
    return fail(L, where, "unknown op '%s'%s", clean(name, q, sizeof q), fb_suggest("", name, names, n, sg, sizeof sg));
}

/* ---- op attributes: what a kind's parse reads through (op_table.h) -------------- */

struct fb_attr_reader {
    const loader *L;
    json_t *node;
    char where[WHERE_MAX]; /* "program[2]" */
};

/* The attribute's JSON value (NULL when absent) and its path for messages. */
static void attr_member(fb_attr_reader *r, const char *key, char *w, json_t **j, bool *present)
{
    *j = json_object_get(r->node, key);
    *present = *j != NULL;
    wfmt(w, "%s.%s", r->where, key);
}

fb_status fb_read_int(fb_attr_reader *r, const char *key, int64_t *out, bool *present)
{
    char w[WHERE_MAX], what[64];
    json_t *j;
    attr_member(r, key, w, &j, present);
    if (!j) return FB_OK;
    snprintf(what, sizeof what, "an integer %s", key);
    if (!json_is_integer(j)) return wrong_integer(r->L, w, what, (double)INT64_MIN, j);
    *out = (int64_t)json_integer_value(j);
    return FB_OK;
}

fb_status fb_read_real(fb_attr_reader *r, const char *key, double *out, bool *present)
{
    char w[WHERE_MAX], what[64];
    json_t *j;
    attr_member(r, key, w, &j, present);
    if (!j) return FB_OK;
    snprintf(what, sizeof what, "a number for %s", key);
    if (!json_is_number(j)) return wrong_type(r->L, w, what, j);
    *out = json_number_value(j);
    return FB_OK;
}

fb_status fb_read_bool(fb_attr_reader *r, const char *key, bool *out, bool *present)
{
    char w[WHERE_MAX];
    json_t *j;
    attr_member(r, key, w, &j, present);
    if (!j) return FB_OK;
    if (!json_is_boolean(j)) return wrong_type(r->L, w, "true or false", j);
    *out = json_is_true(j);
    return FB_OK;
}

fb_status fb_read_enum(fb_attr_reader *r, const char *key, const char *const *names, int n, int *out,
                       bool *present)
{
    char w[WHERE_MAX], list[160] = "";
    size_t k = 0;
    for (int i = 0; i < n && k < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? (i == n - 1 ? " or " : ", ") : "", names[i]);
    json_t *j;
    attr_member(r, key, w, &j, present);
    if (!j) return FB_OK;
    if (!json_is_string(j)) {
        char what[sizeof list + 16];
        snprintf(what, sizeof what, "a string (%s)", list);
        return wrong_type(r->L, w, what, j);
    }
    const char *v = json_string_value(j);
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            return FB_OK;
        }
    char q[96], sg[sizeof list + 16];
    if (!fb_suggest("", v, names, n, sg, sizeof sg)[0]) snprintf(sg, sizeof sg, " (expected %s)", list);
    return fail(r->L, w, "unknown %s '%s'%s", key, clean(v, q, sizeof q), sg);
}

fb_status fb_read_fail(fb_attr_reader *r, const char *key, const char *fmt, ...)
{
    char msg[512], w[WHERE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (key) wfmt(w, "%s.%s", r->where, key);
    else wfmt(w, "%s", r->where);
    return fail(r->L, w, "%s", msg);
}

/* A key that is some kind's attribute but not this node's: say so plainly
 * ("'sub' takes no dim") rather than "unknown key". */
static fb_status misplaced_attr(const loader *L, const char *where, json_t *j, const fb_node *nd)
{
    const fb_op_kind *k = fb_node_kind(nd);
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v) {
        bool mine = !strcmp(key, "op") || !strcmp(key, "in") || !strcmp(key, "out");
        for (int a = 0; a < k->n_attrs; a++) mine |= !strcmp(key, k->attrs[a]);
        if (mine) continue;
        for (int o = 0; o < fb_op_kind_count(); o++) {
            const fb_op_kind *other = fb_op_kind_at(o);
            for (int a = 0; a < other->n_attrs; a++)
                if (!strcmp(key, other->attrs[a])) {
                    char w[WHERE_MAX];
                    wfmt(w, "%s.%s", where, key);
                    return fail(L, w, "'%s' takes no %s (only %s ops do)", fb_node_op_name(nd), key, other->name);
                }
        }
    }
    return FB_OK;
}

/* The keys a node of this op may have: op, in, out and its kind's attributes. */
static fb_status check_node_keys(const loader *L, const char *where, json_t *j, const fb_node *nd)
{
    const fb_op_kind *k = fb_node_kind(nd);
    const char *keys[3 + 16] = {"op", "in", "out"};
    int n = 3;
    for (int a = 0; a < k->n_attrs && n < 19; a++) keys[n++] = k->attrs[a];
    fb_status s = misplaced_attr(L, where, j, nd);
    return s ? s : check_keys(L, j, where, keys, n);
}

static fb_status parse_attrs(const loader *L, const char *where, json_t *j, fb_node *nd)
{
    const fb_op_kind *k = fb_node_kind(nd);
    if (!k->parse) return FB_OK;
    fb_attr_reader r = {L, j, ""};
    wfmt(r.where, "%s", where);
    return k->parse(&r, nd);
}

static fb_status parse_out(const loader *L, const char *where, int node, json_t *j)
{
    fb_case *c = L->c;
    if (!json_is_string(j)) return wrong_type(L, where, "a value name", j);
    const char *name = json_string_value(j);
    fb_status s = check_ident(L, where, "value name", name);
    if (s) return s;
    int v = find_value(c, name);
    if (v >= 0) {
        if (c->values[v].is_input) return fail(L, where, "'%s' is already defined (an input)", name);
        return fail(L, where, "'%s' is already defined (by program[%d])", name, c->values[v].producer);
    }
    if (c->n_values == FB_MAX_VALUES) return fail(L, where, "too many values (at most %d)", FB_MAX_VALUES);
    fb_value *val = &c->values[c->n_values];
    memset(val, 0, sizeof *val);
    snprintf(val->name, sizeof val->name, "%s", name);
    val->is_input = false;
    val->producer = node;
    c->nodes[node].out = c->n_values++;
    return FB_OK;
}

static fb_status parse_node(loader *L, int i, json_t *j)
{
    fb_node *nd = &L->c->nodes[i];
    char w[WHERE_MAX], wk[WHERE_MAX];
    wfmt(w, "program[%d]", i);
    if (!json_is_object(j)) return wrong_type(L, w, "an object like {\"op\": ..., \"in\": [...], \"out\": ...}", j);
    memset(nd, 0, sizeof *nd);

    json_t *op, *in, *out;
    fb_status s;
    if ((s = member(L, j, w, "op", true, &op))) return s;
    wfmt(wk, "%s.op", w);
    if ((s = parse_op(L, wk, op, nd))) return s;
    /* the op decides which other keys are allowed: its kind's attributes */
    if ((s = check_node_keys(L, w, j, nd))) return s;
    if ((s = member(L, j, w, "in", true, &in))) return s;
    wfmt(wk, "%s.in", w);
    if ((s = parse_operands(L, wk, i, in, nd))) return s;
    if ((s = parse_attrs(L, w, j, nd))) return s;
    if ((s = member(L, j, w, "out", true, &out))) return s;
    wfmt(wk, "%s.out", w);
    return parse_out(L, wk, i, out);
}

static fb_status parse_program(loader *L, json_t *j)
{
    fb_status s = get_array(L, "program", j, FB_MAX_NODES, "ops");
    if (s) return s;
    L->program = j;
    for (size_t i = 0; i < json_array_size(j); i++) {
        if ((s = parse_node(L, (int)i, json_array_get(j, i)))) return s;
        L->c->n_nodes++;
    }
    return FB_OK;
}

/* ---- outputs, and what nothing uses ----------------------------------------------- */

static fb_status parse_outputs(const loader *L, json_t *j)
{
    fb_case *c = L->c;
    fb_status s = get_array(L, "outputs", j, FB_MAX_VALUES, "outputs");
    if (s) return s;
    for (size_t k = 0; k < json_array_size(j); k++) {
        char w[WHERE_MAX], q[96];
        wfmt(w, "outputs[%zu]", k);
        json_t *o = json_array_get(j, k);
        if (!json_is_string(o)) return wrong_type(L, w, "a value name", o);
        const char *name = json_string_value(o);
        int v = find_value(c, name);
        if (v < 0) {
            /* an input is never a valid output, so only computed values are suggested */
            const char *names[FB_MAX_VALUES];
            int n = 0;
            for (int i = c->n_inputs; i < c->n_values; i++) names[n++] = c->values[i].name;
            char sg[96];
            return fail(L, w, "'%s' is not produced by the program%s", clean(name, q, sizeof q),
                        fb_suggest("", name, names, n, sg, sizeof sg));
        }
        if (c->values[v].is_input) return fail(L, w, "'%s' is an input, not computed by the program", name);
        for (int i = 0; i < c->n_outputs; i++)
            if (c->outputs[i] == v) return fail(L, w, "'%s' is listed twice (also outputs[%d])", name, i);
        c->outputs[c->n_outputs++] = v;
    }
    return FB_OK;
}

/* An input nobody reads or an op whose result nobody uses would still be
 * allocated, initialised and (for eager) computed, skewing every comparison. */
static fb_status check_all_used(const loader *L)
{
    const fb_case *c = L->c;
    bool used[FB_MAX_VALUES] = {false};
    for (int n = 0; n < c->n_nodes; n++)
        for (int k = 0; k < c->nodes[n].n_in; k++)
            if (!c->nodes[n].in[k].literal) used[c->nodes[n].in[k].value] = true;
    for (int o = 0; o < c->n_outputs; o++) used[c->outputs[o]] = true;
    for (int v = 0; v < c->n_values; v++) {
        if (used[v]) continue;
        char w[WHERE_MAX];
        const fb_value *val = &c->values[v];
        if (val->is_input) {
            wfmt(w, "inputs.%s", val->name);
            return fail(L, w, "never used by the program");
        }
        wfmt(w, "program[%d].out", val->producer);
        return fail(L, w, "'%s' is never used (not an operand of a later op, not an output)", val->name);
    }
    return FB_OK;
}

/* ---- dtypes, fused ---------------------------------------------------------------- */

static fb_status parse_dtypes(const loader *L, json_t *j)
{
    fb_case *c = L->c;
    fb_status s = get_array(L, "dtypes", j, 64, "dtypes");
    if (s) return s;
    for (size_t k = 0; k < json_array_size(j); k++) {
        char w[WHERE_MAX];
        wfmt(w, "dtypes[%zu]", k);
        fb_dtype d;
        if ((s = get_dtype(L, w, json_array_get(j, k), &d))) return s;
        for (int i = 0; i < c->n_dtypes; i++)
            if (c->dtypes[i] == d)
                return fail(L, w, "'%s' repeats %s (dtypes[%d])", json_string_value(json_array_get(j, k)),
                            fb_dtype_name(d), i);
        c->dtypes[c->n_dtypes++] = d;
    }
    return FB_OK;
}

/* `name` (found at `where`) is a registered variant that supports every listed dtype. */
static fb_status known_variant(const loader *L, const char *where, const char *name)
{
    const fb_case *c = L->c;
    char q[96];
    const fb_variant *v = fb_variant_find(name);
    if (!v) {
        const char *names[256];
        int n = fb_variant_names(names, 256);
        char sg[96];
        return fail(L, where, "unknown variant '%s'%s", clean(name, q, sizeof q), fb_suggest("", name, names, n, sg, sizeof sg));
    }
    for (int i = 0; i < c->n_dtypes; i++)
        if (!(v->dtypes & FB_DTYPE_BIT(c->dtypes[i])))
            return fail(L, where, "variant '%s' does not support %s", name, fb_dtype_name(c->dtypes[i]));
    return FB_OK;
}

static fb_status parse_fused(const loader *L, json_t *j)
{
    fb_case *c = L->c;
    if (!j) return FB_OK;
    if (!json_is_array(j)) return wrong_type(L, "fused", "an array of variant names", j);
    if (json_array_size(j) > FB_MAX_FUSED)
        return fail(L, "fused", "%zu variants; at most %d", json_array_size(j), FB_MAX_FUSED);
    for (size_t k = 0; k < json_array_size(j); k++) {
        char w[WHERE_MAX];
        wfmt(w, "fused[%zu]", k);
        json_t *f = json_array_get(j, k);
        if (!json_is_string(f)) return wrong_type(L, w, "a variant name", f);
        const char *name = json_string_value(f);
        if (strcmp(name, "eager") == 0) return fail(L, w, "'eager' always runs; list only fused variants");
        fb_status s = known_variant(L, w, name);
        if (s) return s;
        for (int i = 0; i < c->n_fused; i++)
            if (strcmp(c->fused[i], name) == 0) return fail(L, w, "'%s' is listed twice (also fused[%d])", name, i);
        snprintf(c->fused[c->n_fused++], FB_NAME_MAX, "%s", name);
    }
    return FB_OK;
}

/* "paired": "matmul.tuned": the plain op each fused variant is also timed against, sample by
 * sample (bench.h's fb_timer_measure_paired): a registered variant that computes the program's
 * first op alone, or "eager" (that op's own kernel), run on that op's inputs (program.h:
 * fb_case_floor). */
static fb_status parse_paired(const loader *L, json_t *j)
{
    fb_case *c = L->c;
    if (!j) return FB_OK;
    if (!json_is_string(j)) return wrong_type(L, "paired", "a variant name (the plain op's)", j);
    const char *name = json_string_value(j);
    /* eager: the first op's own kernel (one cuDNN convolution), where no variant computes it alone */
    fb_status s = strcmp(name, "eager") == 0 ? FB_OK : known_variant(L, "paired", name);
    if (s) return s;
    if (c->n_nodes < 2) return fail(L, "paired", "the program has one op: its fused variants are that op, there is nothing to pair");
    snprintf(c->paired, FB_NAME_MAX, "%s", name);
    return FB_OK;
}

/* ---- grid ------------------------------------------------------------------------- */

/* Has symbol `sym` a grid axis or a fixed list already? */
static bool sym_placed(const fb_case *c, int sym)
{
    for (int a = 0; a < c->n_axes; a++)
        if (c->axis[a].sym == sym) return true;
    for (int f = 0; f < c->n_fixed; f++)
        if (c->fixed[f].sym == sym) return true;
    return false;
}

/* One symbol's values at SECTION.KEY ("grid.dim0", "fixed.K"): a list of
 * distinct positive integers, or (fixed only) one integer. */
static fb_status parse_axis(const loader *L, const char *section, const char *key, json_t *j, fb_axis *ax)
{
    const fb_case *c = L->c;
    char w[WHERE_MAX], q[96];
    ax->sym = find_sym(c, key);
    if (ax->sym < 0) {
        /* suggest only symbols still waiting for an axis: the likely typo */
        const char *names[FB_MAX_SYMS];
        int n = 0;
        for (int i = 0; i < c->n_syms; i++)
            if (!sym_placed(c, i)) names[n++] = c->sym[i];
        char sg[96];
        return fail(L, section, "'%s' is not a symbol of any input shape%s", clean(key, q, sizeof q),
                    fb_suggest("", key, names, n, sg, sizeof sg));
    }
    wfmt(w, "%s.%s", section, key);
    if (sym_placed(c, ax->sym)) /* only reachable from fixed: grid keys are unique */
        return fail(L, w, "'%s' is already a grid axis (grid.%s); a symbol is either displayed or fixed", key, key);
    fb_status s;
    if (json_is_integer(j) && strcmp(section, "fixed") == 0) {
        ax->n = 1;
        return get_positive(L, w, j, &ax->v[0]);
    }
    if ((s = get_array(L, w, j, FB_MAX_GRID, "values"))) return s;
    ax->n = (int)json_array_size(j);
    for (int i = 0; i < ax->n; i++) {
        wfmt(w, "%s.%s[%d]", section, key, i);
        if ((s = get_positive(L, w, json_array_get(j, (size_t)i), &ax->v[i]))) return s;
        for (int k = 0; k < i; k++)
            if (ax->v[k] == ax->v[i])
                return fail(L, w, "%lld repeats %s.%s[%d]", (long long)ax->v[i], section, key, k);
    }
    return FB_OK;
}

static fb_status parse_grid(const loader *L, json_t *j)
{
    fb_case *c = L->c;
    if (!json_is_object(j)) return wrong_type(L, "grid", "an object of 1 or 2 axes", j);
    size_t n = json_object_size(j);
    if (n == 0) return fail(L, "grid", "no axes; give 1 (rows) or 2 (rows, columns)");
    if (n > 2)
        return fail(L, "grid", "%zu axes; a grid has 1 (rows) or 2 (rows, columns); give the other symbols under 'fixed'",
                    n);
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v) {
        fb_status s = parse_axis(L, "grid", key, v, &c->axis[c->n_axes]);
        if (s) return s;
        c->n_axes++;
    }
    return FB_OK;
}

/* "fixed": {"K": [1024, 4096], "B": 4}: the symbols that are not displayed axes,
 * each with the values it takes; every combination is one grid. */
static fb_status parse_fixed(const loader *L, json_t *j)
{
    fb_case *c = L->c;
    if (j) {
        if (!json_is_object(j)) return wrong_type(L, "fixed", "an object of symbol -> value or list of values", j);
        if (json_object_size(j) == 0) return fail(L, "fixed", "no symbols; leave 'fixed' out when every symbol is a grid axis");
        const char *key;
        json_t *v;
        json_object_foreach(j, key, v) {
            fb_status s = parse_axis(L, "fixed", key, v, &c->fixed[c->n_fixed]);
            if (s) return s;
            c->n_fixed++;
        }
        int64_t grids = 1;
        for (int f = 0; f < c->n_fixed; f++) grids *= c->fixed[f].n; /* <= 64^8: no overflow */
        if (grids > FB_MAX_GRIDS)
            return fail(L, "fixed", "%lld combinations of values, so as many grids; at most %d", (long long)grids,
                        FB_MAX_GRIDS);
    }
    for (int s = 0; s < c->n_syms; s++)
        if (!sym_placed(c, s))
            return fail(L, "grid", "symbol '%s' (used at %s) has no axis; every shape symbol needs one (or a value in 'fixed')",
                        c->sym[s], L->sym_where[s]);
    return FB_OK;
}

/* ---- tolerance ------------------------------------------------------------------- */

static fb_status get_tol_number(const loader *L, const char *where, json_t *j, double *out)
{
    if (!json_is_number(j) || json_number_value(j) < 0 || !isfinite(json_number_value(j)))
        return wrong_type(L, where, "a non-negative number", j);
    *out = json_number_value(j);
    return FB_OK;
}

static fb_status parse_tolerance(const loader *L, json_t *j)
{
    static const char *const keys[] = {"atol", "rtol"};
    fb_case *c = L->c;
    for (int d = 0; d < FB_NDTYPES; d++) c->tol[d] = default_tol[d];
    if (!j) return FB_OK;
    if (!json_is_object(j)) return wrong_type(L, "tolerance", "an object of dtype -> {atol, rtol}", j);
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v) {
        fb_dtype d;
        fb_status s;
        char w[WHERE_MAX], q[96];
        if (fb_dtype_from_name(key, &d) != 0) {
            char sg[96];
            if (!fb_suggest("", key, dtype_words, N_DTYPE_WORDS, sg, sizeof sg)[0])
                snprintf(sg, sizeof sg, " (expected float32, float16, bfloat16 or float64)");
            return fail(L, "tolerance", "unknown dtype '%s'%s", clean(key, q, sizeof q), sg);
        }
        bool listed = false;
        for (int i = 0; i < c->n_dtypes; i++) listed |= c->dtypes[i] == d;
        if (!listed) {
            char list[96];
            size_t k = 0;
            for (int i = 0; i < c->n_dtypes; i++)
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", fb_dtype_name(c->dtypes[i]));
            return fail(L, "tolerance", "'%s' is not one of this case's dtypes (%s)", key, list);
        }
        if (c->tol[d].set) return fail(L, "tolerance", "'%s' repeats %s", key, fb_dtype_name(d));
        wfmt(w, "tolerance.%s", key);
        if (!json_is_object(v)) return wrong_type(L, w, "an object like {\"atol\": 1e-6, \"rtol\": 1e-5}", v);
        if ((s = check_keys(L, v, w, keys, 2))) return s;
        json_t *atol, *rtol;
        if ((s = member(L, v, w, "atol", true, &atol))) return s;
        if ((s = member(L, v, w, "rtol", true, &rtol))) return s;
        char wa[WHERE_MAX];
        wfmt(wa, "%s.atol", w);
        if ((s = get_tol_number(L, wa, atol, &c->tol[d].atol))) return s;
        wfmt(wa, "%s.rtol", w);
        if ((s = get_tol_number(L, wa, rtol, &c->tol[d].rtol))) return s;
        c->tol[d].set = true;
    }
    return FB_OK;
}

/* ---- every grid point --------------------------------------------------------------- */

/* Shapes and byte counts at every point and dtype: a case that fails at its largest
 * point would otherwise fail hours into a run. The sweep is cheap (at most
 * 64 x 64 points, a few dozen nodes each). */
static fb_status check_grid_points(const loader *L)
{
    const fb_case *c = L->c;
    static _Thread_local fb_shape shapes[FB_MAX_VALUES];
    for (int i = 0, n_points = fb_case_n_points(c); i < n_points; i++) {
        fb_point p;
        fb_case_point(c, i, &p);
        char pt[FB_MAX_SYMS * (FB_NAME_MAX + 24)], at[sizeof pt + 8];
        fb_point_str(c, &p, pt, sizeof pt);
        /* "at dim0=4, dim1=8": the form messages had before fixed symbols */
        size_t k = (size_t)snprintf(at, sizeof at, "at ");
        for (const char *t = pt; *t && k + 3 < sizeof at; t++) {
            if (*t == ' ') at[k++] = ',';
            at[k++] = *t;
        }
        at[k] = 0;
        fb_status s = fb_program_shapes(c, &p, shapes);
        if (s == FB_E_CASE) return fail(L, NULL, "%s (%s)", fb_last_error(), at);
        if (s) return s;
        for (int d = 0; d < c->n_dtypes; d++) {
            fb_costs costs;
            s = fb_program_costs(c, shapes, c->dtypes[d], &costs);
            if (s == FB_E_CASE)
                return fail(L, NULL, "%s (%s, %s)", fb_last_error(), fb_dtype_name(c->dtypes[d]), at);
            if (s) return s;
        }
    }
    return FB_OK;
}

/* ---- the document ------------------------------------------------------------------ */

static fb_status parse_root(loader *L, json_t *root)
{
    static const char *const keys[] = {"name",   "summary", "inputs", "program", "outputs",   "fused",
                                       "dtypes", "grid",    "fixed",  "tolerance", "paired"};
    static const bool required[] = {true, true, true, true, true, false, true, true, false, false, false};
    enum { N_KEYS = sizeof keys / sizeof keys[0] };
    char d[96];
    if (!json_is_object(root)) return fail(L, NULL, "top level must be a JSON object, got %s", fb_json_describe(root, d, sizeof d));
    fb_status s = check_keys(L, root, NULL, keys, N_KEYS);
    if (s) return s;
    json_t *m[N_KEYS];
    for (int i = 0; i < N_KEYS; i++)
        if ((s = member(L, root, NULL, keys[i], required[i], &m[i]))) return s;

    if ((s = parse_name(L, m[0]))) return s;
    if ((s = parse_summary(L, m[1]))) return s;
    if ((s = parse_inputs(L, m[2]))) return s;
    if ((s = parse_program(L, m[3]))) return s;
    if ((s = parse_outputs(L, m[4]))) return s;
    if ((s = check_all_used(L))) return s;
    /* dtypes before fused: a variant is checked against every listed dtype */
    if ((s = parse_dtypes(L, m[6]))) return s;
    if ((s = parse_fused(L, m[5]))) return s;
    if ((s = parse_grid(L, m[7]))) return s;
    if ((s = parse_fixed(L, m[8]))) return s;
    if ((s = parse_tolerance(L, m[9]))) return s;
    if ((s = parse_paired(L, m[10]))) return s;
    return check_grid_points(L);
}

/* Column of the token jansson complained about, not of the character after it:
 * jansson reports where its reader stopped; we step back over the token it quotes. */
static void error_position(const char *text, size_t len, const json_error_t *e, const char *near, int *line,
                           int *col)
{
    size_t pos = e->position < 0 ? 0 : (size_t)e->position;
    if (pos > len) pos = len;
    size_t nl = near ? strlen(near) : 0;
    if (near && nl <= pos && memcmp(text + pos - nl, near, nl) == 0) pos -= nl;
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < pos; i++) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            ++*col; /* count code points, as editors do */
        }
    }
}

static fb_status syntax_error(const char *path, const char *text, size_t len, const json_error_t *e)
{
    char head[JSON_ERROR_TEXT_LENGTH], near[JSON_ERROR_TEXT_LENGTH], msg[2 * JSON_ERROR_TEXT_LENGTH];
    snprintf(head, sizeof head, "%s", e->text);
    near[0] = 0;
    /* jansson writes "WHAT near 'TOKEN'" or "WHAT near end of file" */
    char *p = strstr(head, " near '");
    size_t hl = strlen(head);
    bool at_eof = false;
    if (p && hl > 0 && head[hl - 1] == '\'') {
        head[hl - 1] = 0;
        snprintf(near, sizeof near, "%s", p + 7);
        *p = 0;
    } else if ((p = strstr(head, " near end of file")) != NULL) {
        *p = 0;
        at_eof = true;
    }
    int line, col;
    error_position(text, len, e, near[0] ? near : NULL, &line, &col);

    char qn[96];
    clean(near, qn, sizeof qn);
    size_t ql = strlen(qn);
    if (strcmp(head, "duplicate object key") == 0 && ql >= 2 && qn[0] == '"' && qn[ql - 1] == '"') {
        qn[ql - 1] = 0;
        snprintf(msg, sizeof msg, "duplicate key '%s'", qn + 1);
    } else if (at_eof) {
        bool blank = true;
        for (size_t i = 0; i < len; i++) blank &= text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r';
        if (blank) {
            line = col = 1;
            snprintf(msg, sizeof msg, "empty file; a case file is a JSON object");
        } else if (strcmp(head, "unexpected token") == 0) {
            snprintf(msg, sizeof msg, "unexpected end of file");
        } else {
            snprintf(msg, sizeof msg, "unexpected end of file (%s)", head);
        }
    } else if (near[0]) {
        snprintf(msg, sizeof msg, "%s near '%s'", head, qn);
    } else {
        snprintf(msg, sizeof msg, "%s", head);
    }
    fb_error("%s:%d:%d: %s", fb_qpath(path), line, col, msg);
    return FB_E_CASE;
}

/* Bytes jansson would report far from their cause: a byte-order mark reads as
 * "invalid token near '\ufeff'", a NUL as the end of the text or a bad control
 * character a few tokens on. Said plainly, where they are. */
static fb_status check_encoding(const char *path, const char *text, size_t len)
{
    static const struct { const char *bom; size_t n; const char *what; } boms[] = {
        {"\xEF\xBB\xBF", 3, "a UTF-8 byte-order mark; save it without one"},
        {"\x00\x00\xFE\xFF", 4, "a UTF-32 byte-order mark; save it as UTF-8"},
        {"\xFF\xFE\x00\x00", 4, "a UTF-32 byte-order mark; save it as UTF-8"},
        {"\xFE\xFF", 2, "a UTF-16 byte-order mark; save it as UTF-8"},
        {"\xFF\xFE", 2, "a UTF-16 byte-order mark; save it as UTF-8"},
    };
    for (size_t i = 0; i < sizeof boms / sizeof boms[0]; i++)
        if (len >= boms[i].n && memcmp(text, boms[i].bom, boms[i].n) == 0) {
            fb_error("%s: starts with %s", fb_qpath(path), boms[i].what);
            return FB_E_CASE;
        }
    const char *nul = memchr(text, 0, len);
    if (nul) {
        json_error_t at = {.position = (int)(nul - text)};
        int line, col;
        error_position(text, len, &at, NULL, &line, &col);
        fb_error("%s:%d:%d: NUL byte in the file", fb_qpath(path), line, col);
        return FB_E_CASE;
    }
    return FB_OK;
}

static fb_status parse_buffer(const char *text, size_t len, const char *path, fb_case *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    fb_status s = check_encoding(path, text, len);
    if (s) return s;
    json_error_t e;
    /* DECODE_ANY: a top-level array or number gets our message, not jansson's */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
    if (!root) return syntax_error(path, text, len, &e);
    static _Thread_local loader L;
    memset(&L, 0, sizeof L);
    L.path = path;
    L.c = c;
    s = parse_root(&L, root);
    json_decref(root);
    return s;
}

fb_status fb_case_parse(const char *text, const char *path, fb_case *c)
{
    if (!path) path = "<string>";
    if (!text) {
        fb_error("%s: no text", fb_qpath(path));
        return FB_E_CASE;
    }
    return parse_buffer(text, strlen(text), path, c);
}

/* ---- files ------------------------------------------------------------------------ */

static fb_status read_file(const char *path, char **text, size_t *len)
{
    const char *qp = fb_qpath(path); /* every message below names it */
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) fb_error("%s: no such file", qp);
        else fb_error("%s: cannot read: %s", qp, strerror(errno));
        return FB_E_CASE;
    }
    if (S_ISDIR(st.st_mode)) {
        fb_error("%s: is a directory, not a case file", qp);
        return FB_E_CASE;
    }
    if (!S_ISREG(st.st_mode)) {
        /* a FIFO or device would block or never end */
        fb_error("%s: not a regular file", qp);
        return FB_E_CASE;
    }
    if ((size_t)st.st_size > MAX_CASE_BYTES) {
        fb_error("%s: too large for a case file (%lld bytes; at most %zu)", qp, (long long)st.st_size,
                 MAX_CASE_BYTES);
        return FB_E_CASE;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fb_error("%s: cannot read: %s", qp, strerror(errno));
        return FB_E_CASE;
    }
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size + 2);
    if (!buf) {
        fclose(f);
        fb_error("%s: out of memory reading the file", qp);
        return FB_E_NOMEM;
    }
    /* one byte more than stat promised: a file that grew since is caught, not cut */
    size_t n = fread(buf, 1, size + 1, f);
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) {
        free(buf);
        fb_error("%s: cannot read: %s", qp, strerror(err));
        return FB_E_CASE;
    }
    if (n > size) {
        free(buf);
        fb_error("%s: changed while being read", qp);
        return FB_E_CASE;
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return FB_OK;
}

fb_status fb_case_load(const char *path, fb_case *c)
{
    char *text;
    size_t len;
    fb_status s = read_file(path, &text, &len);
    if (s) return s;
    s = parse_buffer(text, len, path, c);
    free(text);
    return s;
}

const char *fb_cases_dir(void)
{
    const char *env = getenv("FUSIONBENCH_CASES");
    return env && env[0] ? env : FB_CASES_DIR;
}

/* A file's stem is a case name when `fb_case_find(stem)` would look it up by name
 * (no '/', not ending in ".json") and it obeys the "name" key's rule. */
static const char *case_name_problem(const char *stem)
{
    size_t l = strlen(stem);
    if (l >= FB_NAME_MAX) return "longer than a case name may be";
    if (l >= 5 && strcmp(stem + l - 5, ".json") == 0) return "a name ending in .json would read as a path";
    for (const char *p = stem; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
            return "a case name may hold only a-z, 0-9, '_', '.' and '-'";
    return NULL;
}

static int cmp_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static fb_status push(char ***list, int *n, char *s)
{
    if (!s) return FB_E_NOMEM;
    char **grown = realloc(*list, sizeof **list * (size_t)(*n + 1));
    if (!grown) {
        free(s);
        return FB_E_NOMEM;
    }
    *list = grown;
    grown[(*n)++] = s;
    return FB_OK;
}

static char *str_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static char *str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = len < 0 ? NULL : malloc((size_t)len + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    va_end(ap);
    return s;
}

void fb_case_dir_free(fb_case_dir *d)
{
    for (int i = 0; i < d->n; i++) {
        free(d->name[i]);
        if (d->path) free(d->path[i]);
    }
    for (int i = 0; i < d->n_bad; i++) free(d->bad[i]);
    free(d->name);
    free(d->path);
    free(d->bad);
    memset(d, 0, sizeof *d);
}

fb_status fb_case_list(fb_case_dir *out)
{
    memset(out, 0, sizeof *out);
    const char *dir = fb_cases_dir();
    DIR *d = opendir(dir);
    if (!d) {
        fb_error("cannot open the cases directory %s: %s", fb_qpath(dir), strerror(errno));
        return FB_E_CASE;
    }
    fb_status s = FB_OK;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno) {
                fb_error("cannot read the cases directory %s: %s", fb_qpath(dir), strerror(errno));
                s = FB_E_CASE;
            }
            break;
        }
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l <= 5 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        char *stem = str_printf("%.*s", (int)(l - 5), e->d_name);
        const char *why = stem ? case_name_problem(stem) : NULL;
        if (!stem) s = FB_E_NOMEM;
        else if (why) {
            char *file = str_printf("%s/%s", dir, e->d_name); /* any byte but '/' may be in a name */
            s = push(&out->bad, &out->n_bad,
                     file ? str_printf("%s: not a case file name: %s", fb_qpath(file), why) : NULL);
            free(file);
            free(stem);
        } else {
            s = push(&out->name, &out->n, stem);
        }
        if (s != FB_OK) break;
    }
    closedir(d);
    if (s == FB_OK && out->n) {
        qsort(out->name, (size_t)out->n, sizeof *out->name, cmp_strings);
        out->path = calloc((size_t)out->n, sizeof *out->path);
        if (!out->path) s = FB_E_NOMEM;
        for (int i = 0; i < out->n && s == FB_OK; i++)
            if (!(out->path[i] = str_printf("%s/%s.json", dir, out->name[i]))) s = FB_E_NOMEM;
    }
    if (out->n_bad) qsort(out->bad, (size_t)out->n_bad, sizeof *out->bad, cmp_strings);
    if (s != FB_OK) {
        if (s == FB_E_NOMEM) fb_error("out of host memory listing %s", fb_qpath(dir));
        fb_case_dir_free(out);
    }
    return s;
}

bool fb_case_is_path(const char *name_or_path)
{
    size_t l = strlen(name_or_path);
    return strchr(name_or_path, '/') || (l >= 5 && strcmp(name_or_path + l - 5, ".json") == 0);
}

fb_status fb_case_find(const char *name_or_path, fb_case *c)
{
    size_t l = strlen(name_or_path);
    if (fb_case_is_path(name_or_path)) return fb_case_load(name_or_path, c);

    char q[96];
    fb_case_dir d;
    fb_status s = fb_case_list(&d);
    if (s != FB_OK) {
        char why[1024];
        snprintf(why, sizeof why, "%s", fb_last_error());
        fb_error("unknown case '%s' (%s)", clean(name_or_path, q, sizeof q), why);
        return s == FB_E_NOMEM ? s : FB_E_CASE;
    }
    for (int i = 0; i < d.n; i++)
        if (strcmp(d.name[i], name_or_path) == 0) {
            s = fb_case_load(d.path[i], c);
            fb_case_dir_free(&d);
            return s;
        }

    const char *near = l ? fb_nearest(name_or_path, (const char *const *)d.name, d.n) : NULL;
    if (near) {
        fb_error("unknown case '%s' (did you mean '%s'?)", clean(name_or_path, q, sizeof q), near);
    } else if (d.n) {
        char list[512];
        size_t k = 0;
        int shown = 0;
        list[0] = 0;
        for (; shown < d.n && k + strlen(d.name[shown]) + 24 < sizeof list; shown++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", shown ? ", " : "", d.name[shown]);
        if (shown < d.n) snprintf(list + k, sizeof list - k, " and %d more", d.n - shown);
        fb_error("unknown case '%s' (available: %s)", clean(name_or_path, q, sizeof q), list);
    } else {
        fb_error("unknown case '%s' (no cases in %s)", clean(name_or_path, q, sizeof q), fb_qpath(fb_cases_dir()));
    }
    fb_case_dir_free(&d);
    return FB_E_CASE;
}

fb_status fb_case_list_every(fb_case_dir *d, const char *prefix, const char *doing)
{
    FB_TRY(fb_case_list(d));
    if (d->n_bad) {
        fb_error("%s", d->bad[0]);
        fb_case_dir_free(d);
        return FB_E_CASE;
    }
    if (d->n == 0) {
        fb_case_dir_free(d);
        fb_error("%sno case files (*.json) in %s: nothing to %s", prefix, fb_qpath(fb_cases_dir()), doing);
        return FB_E_CASE;
    }
    return FB_OK;
}
