/* export_json.c — `export --format json`: the csv's records as a JSON array of
 * flat objects, one per case x dtype x grid point x variant (the speed-of-light
 * copy as variant "sol"), with the same keys as the csv's columns
 * (fb_field_names) in the same order: numbers as numbers, absent values as null,
 * check_passed as true/false/null, and one key more: samples_us, the
 * measurement's timing samples in microseconds in the order taken (null when
 * the file has none). For jq, pandas.read_json and dashboards; the
 * validated document itself is the result file (nothing to convert).
 *
 * Written with jansson, one record at a time, so the output is always valid
 * JSON whatever the names hold. */
#include "export.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

typedef struct json_state {
    int n; /* records written */
} json_state;

static fb_status begin_doc(fb_export *x)
{
    if (!(x->state = calloc(1, sizeof(json_state)))) {
        fb_error("out of host memory writing the json export");
        return FB_E_NOMEM;
    }
    fputs("[", x->out);
    return FB_OK;
}

static json_t *field_json(const fb_field *f)
{
    switch (f->kind) {
    case FB_FIELD_TEXT: return f->text ? json_string(f->text) : json_null();
    case FB_FIELD_NUMBER:
        if (!isfinite(f->number)) return json_null();
        if (f->number == floor(f->number) && fabs(f->number) < 9007199254740992.0)
            return json_integer((json_int_t)f->number);
        return json_real(f->number);
    case FB_FIELD_BOOL: return f->boolean < 0 ? json_null() : json_boolean(f->boolean);
    }
    return json_null();
}

static fb_status cell(fb_export *x, const fb_export_grid *g, const fb_export_cell *c)
{
    if (!c->v) return FB_OK;
    json_state *st = x->state;
    fb_field f[FB_N_FIELDS];
    fb_export_record(g, c, f);
    json_t *rec = json_object();
    if (!rec) goto nomem;
    for (int i = 0; i < FB_N_FIELDS; i++) {
        json_t *v = field_json(&f[i]);
        if (!v || json_object_set_new(rec, fb_field_names[i], v) != 0) goto nomem;
    }
    if (fb_export_has_fixed(x) &&
        json_object_set_new(rec, FB_FIELD_FIXED, g->label[0] ? json_string(g->label) : json_null()) != 0)
        goto nomem;
    /* json only: the timing samples themselves (csv has no place for a list) */
    json_t *samples = c->v->n_samples ? json_array() : json_null();
    for (int i = 0; samples && i < c->v->n_samples; i++)
        if (json_array_append_new(samples, json_real(c->v->samples_us[i])) != 0) {
            json_decref(samples);
            samples = NULL;
        }
    if (!samples || json_object_set_new(rec, "samples_us", samples) != 0) goto nomem;
    char *text = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    json_decref(rec);
    rec = NULL;
    if (!text) goto nomem;
    fprintf(x->out, "%s\n%s", st->n ? "," : "", text);
    free(text);
    st->n++;
    return FB_OK;
nomem:
    json_decref(rec);
    fb_error("out of host memory writing the json export");
    return FB_E_NOMEM;
}

static fb_status end_doc(fb_export *x)
{
    fputs("\n]\n", x->out);
    return FB_OK;
}

static void release(fb_export *x)
{
    free(x->state);
    x->state = NULL;
}

const fb_printer fb_printer_json = {
    .name = "json",
    .splits_grids = true,
    .walk = FB_WALK_MEASURED,
    .begin_doc = begin_doc,
    .cell = cell,
    .end_doc = end_doc,
    .release = release,
};
