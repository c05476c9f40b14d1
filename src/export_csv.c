/* export_csv.c — `export --format csv`: tidy long form, one row per case x
 * dtype x grid point x variant, the cell's speed-of-light copy included as
 * variant "sol"; the columns are fb_field_names (export.c), the same records
 * `--format json` writes.
 *
 * Meant to load in pandas and in a spreadsheet with no cleaning: a header row,
 * one type per column, an absent value (NaN, a one-axis grid's col, a check
 * that did not run) an empty field, booleans true/false, RFC 4180 quoting (a
 * field holding a comma, quote, CR or LF is quoted, its quotes doubled), and
 * '\n' line ends. Times are microseconds (the file's milliseconds x 1000) with
 * the file's nine significant digits; byte counts print whole. A grid point the
 * file has no cell for, and a variant a cell lacks, have no row. */
#include "export.h"

#include <string.h>

static void put_text(FILE *f, const char *s)
{
    if (!s) return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static fb_status begin_doc(fb_export *x)
{
    for (int i = 0; i < FB_N_FIELDS; i++) {
        if (i) fputc(',', x->out);
        put_text(x->out, fb_field_names[i]);
    }
    if (fb_export_has_fixed(x)) fputs("," FB_FIELD_FIXED, x->out);
    fputc('\n', x->out);
    return FB_OK;
}

static fb_status cell(fb_export *x, const fb_export_grid *g, const fb_export_cell *c)
{
    if (!c->v) return FB_OK;
    fb_field f[FB_N_FIELDS];
    fb_export_record(g, c, f);
    char num[64];
    for (int i = 0; i < FB_N_FIELDS; i++) {
        if (i) fputc(',', x->out);
        switch (f[i].kind) {
        case FB_FIELD_TEXT: put_text(x->out, f[i].text); break;
        case FB_FIELD_NUMBER:
            if (fb_format_number(f[i].number, num, sizeof num)) fputs(num, x->out);
            break;
        case FB_FIELD_BOOL:
            if (f[i].boolean >= 0) fputs(f[i].boolean ? "true" : "false", x->out);
            break;
        }
    }
    if (fb_export_has_fixed(x)) {
        fputc(',', x->out);
        put_text(x->out, g->label);
    }
    fputc('\n', x->out);
    return FB_OK;
}

const fb_printer fb_printer_csv = {
    .name = "csv",
    .splits_grids = true,
    .walk = FB_WALK_MEASURED,
    .begin_doc = begin_doc,
    .cell = cell,
};
