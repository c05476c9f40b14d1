/* heatmap.c — SVG heatmap panels (heatmap.h) and `export --format svg`, which
 * stacks one panel per grid in a single image, FB_HEATMAP_WIDTH pixels wide, so
 * that `export --format svg --case softmax --dtype float32` gives a file to
 * embed in a README and a plain export gives every grid of a run in one image.
 *
 * Everything the file provides (names, device) is XML-escaped (fb_put_xml); the
 * rest is numbers and fixed words. Coordinates are printed with one decimal. */
#include "heatmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN 12.0
#define LABEL_W 74.0  /* the row-label column */
#define TOP 66.0      /* title, subtitle, column headings */
#define LEGEND_H 72.0 /* gap, legend title, bar, ticks, bottom padding */
#define BAR_W 300.0
#define BAR_STEPS 60

static const char *const font = "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";

/* ---- colours --------------------------------------------------------------------- */

typedef struct rgb {
    double r, g, b;
} rgb;

/* ColorBrewer RdBu (5 classes): slower red .. 1.0x near-white .. faster blue */
static const rgb diverging[] = {{178, 24, 43}, {239, 138, 98}, {247, 247, 247}, {103, 169, 207}, {33, 102, 172}};
/* viridis, 5 stops */
static const rgb sequential[] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};

static rgb ramp(const rgb *stops, int n, double t)
{
    if (!(t > 0)) t = 0; /* NaN too */
    if (t > 1) t = 1;
    double x = t * (n - 1);
    int i = (int)x;
    if (i >= n - 1) return stops[n - 1];
    double u = x - i;
    return (rgb){stops[i].r + u * (stops[i + 1].r - stops[i].r), stops[i].g + u * (stops[i + 1].g - stops[i].g),
                 stops[i].b + u * (stops[i + 1].b - stops[i].b)};
}

static void hex(rgb c, char *buf) /* buf[8] */
{
    snprintf(buf, 8, "#%02x%02x%02x", (int)lround(c.r) & 0xff, (int)lround(c.g) & 0xff, (int)lround(c.b) & 0xff);
}

/* Dark text on light fills, white on dark ones (relative luminance, sRGB approximated). */
static const char *ink(rgb c)
{
    double l = (0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b) / 255.0;
    return l < 0.5 ? "#ffffff" : "#111111";
}

/* ---- scales ------------------------------------------------------------------------ */

/* How a mode is coloured is its table entry's scale (report.h's fb_show_modes). */
typedef struct scale {
    fb_show show;
    fb_show_scale kind;
    double lo, hi; /* log: the panel's range; from zero: 0..hi; percent: 0..100 */
    int factor;    /* speedup: log2 half-range (2^factor x) */
} scale;

static scale make_scale(const fb_export_cell *cells, int n, fb_show show)
{
    scale s = {.show = show, .kind = fb_show_modes[show].scale, .lo = INFINITY, .hi = -INFINITY, .factor = 1};
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double v = cells[i].value[show];
        if (!isfinite(v) || v <= 0) continue;
        if (v < s.lo) s.lo = v;
        if (v > s.hi) s.hi = v;
        if (fabs(log2(v)) > worst) worst = fabs(log2(v));
    }
    if (s.kind == FB_SCALE_SPEEDUP) {
        s.factor = (int)ceil(worst - 1e-9);
        if (s.factor < 1) s.factor = 1;
        if (s.factor > 6) s.factor = 6;
    } else if (s.kind == FB_SCALE_PERCENT) {
        s.lo = 0;
        s.hi = 100;
    } else if (!isfinite(s.lo)) { /* nothing measured */
        s.lo = 1;
        s.hi = 10;
    } else if (s.kind == FB_SCALE_FROM_ZERO) {
        s.lo = 0;
    } else if (s.hi <= s.lo) {
        s.lo /= 2;
        s.hi *= 2;
    }
    return s;
}

/* A value's place on the colour bar, 0..1. */
static double scale_pos(const scale *s, double v)
{
    switch (s->kind) {
    case FB_SCALE_SPEEDUP: return (log2(v) / s->factor + 1) / 2;
    case FB_SCALE_LOG: return (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
    case FB_SCALE_PERCENT:
    case FB_SCALE_FROM_ZERO: return s->hi > s->lo ? (v - s->lo) / (s->hi - s->lo) : 0.5;
    }
    return 0.5;
}

static rgb scale_colour(const scale *s, double pos)
{
    return s->kind == FB_SCALE_SPEEDUP ? ramp(diverging, 5, pos) : ramp(sequential, 5, pos);
}

/* The bar's ticks: n of them at values v[] with labels. */
static int scale_ticks(const scale *s, double *v, char (*label)[24])
{
    int n = 0;
    switch (s->kind) {
    case FB_SCALE_SPEEDUP: {
        int step = (s->factor + 2) / 3;
        for (int k = -s->factor; k <= s->factor; k++) {
            if (k % step) continue;
            v[n] = pow(2, k);
            snprintf(label[n], 24, "%g%%", v[n] * 100);
            n++;
        }
        break;
    }
    case FB_SCALE_PERCENT:
        for (int k = 0; k <= 4; k++) {
            v[n] = 25.0 * k;
            snprintf(label[n], 24, "%g%%", v[n]);
            n++;
        }
        break;
    case FB_SCALE_LOG:
        v[0] = s->lo, v[1] = sqrt(s->lo * s->hi), v[2] = s->hi;
        for (n = 0; n < 3; n++) snprintf(label[n], 24, "%.3g", v[n]);
        break;
    case FB_SCALE_FROM_ZERO:
        v[0] = 0, v[1] = s->hi / 2, v[2] = s->hi;
        for (n = 0; n < 3; n++) snprintf(label[n], 24, "%.0f", v[n]);
        break;
    }
    return n;
}

static const char *scale_title(fb_show show) { return fb_show_modes[show].legend; }

/* ---- marks --------------------------------------------------------------------------- */

typedef struct mark_style {
    const char *mark, *fill, *ink, *weight, *meaning;
} mark_style;

static const mark_style marks[] = {
    {"FAIL", "url(#fbh-fail)", "#67000d", "bold", "check failed"},
    {"BFAIL", "url(#fbh-fail)", "#67000d", "bold", "baseline's check failed"},
    {"OOM", "url(#fbh-oom)", "#222222", "bold", "out of memory"},
    {"UNCHK", "url(#fbh-unchk)", "#444444", "normal", "not checked"},
    {"ERR", "#8c8c8c", "#ffffff", "bold", "error"},
    {"-", "#f3f3f3", "#888888", "normal", "not measured"},
};
#define N_MARKS (int)(sizeof marks / sizeof marks[0])

static int mark_index(const char *m)
{
    for (int i = 0; m && i < N_MARKS; i++)
        if (strcmp(marks[i].mark, m) == 0) return i;
    return N_MARKS - 1;
}

void fb_heatmap_defs(FILE *f)
{
    fputs("<defs>"
          "<pattern id=\"fbh-fail\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f9dcd8\"/>"
          "<rect width=\"2\" height=\"6\" fill=\"#e3948b\"/></pattern>"
          "<pattern id=\"fbh-oom\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(-45)\"><rect width=\"6\" height=\"6\" fill=\"#e3e3e3\"/>"
          "<rect width=\"2\" height=\"6\" fill=\"#a6a6a6\"/></pattern>"
          "<pattern id=\"fbh-unchk\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
          "<rect width=\"6\" height=\"6\" fill=\"#fbf6e4\"/><path d=\"M0 0L6 6M6 0L0 6\" stroke=\"#c9bf9b\" "
          "stroke-width=\"0.8\"/></pattern>"
          "</defs>\n",
          f);
}

/* ---- one panel ----------------------------------------------------------------------------- */

static double cell_h(const fb_export_grid *g) { return g->n_rows > 24 ? 16.0 : 24.0; }

static double cell_w(const fb_export_grid *g)
{
    double w = (FB_HEATMAP_WIDTH - 2 * MARGIN - LABEL_W) / (g->n_cols > 0 ? g->n_cols : 1);
    return w > 110 ? 110 : w;
}

double fb_heatmap_height(const fb_export_grid *g) { return TOP + g->n_rows * cell_h(g) + LEGEND_H; }

/* A cell's fill and label colour in one view. */
static void cell_style(const scale *s, const fb_export_cell *c, fb_show v, char *fill, size_t n, const char **text_ink,
                       const char **weight)
{
    if (c->mark[v]) {
        const mark_style *m = &marks[mark_index(c->mark[v])];
        snprintf(fill, n, "%s", m->fill);
        *text_ink = m->ink;
        *weight = m->weight;
        return;
    }
    rgb col = scale_colour(s, scale_pos(s, c->value[v]));
    char h[8];
    hex(col, h);
    snprintf(fill, n, "%s", h);
    *text_ink = ink(col);
    *weight = "normal";
}

/* The tooltip: the point, the variant, its status and all four values. */
static void put_tooltip(FILE *f, const fb_export_grid *g, const fb_export_cell *c)
{
    fputs("<title>", f);
    fb_put_xml(f, g->cs->rows);
    fprintf(f, " %lld", (long long)c->row);
    if (g->cs->cols) {
        fputs(" × ", f);
        fb_put_xml(f, g->cs->cols);
        fprintf(f, " %lld", (long long)c->col);
    }
    fputs(" · ", f);
    fb_put_xml(f, g->variant);
    fputs(": ", f);
    if (!c->v) fputs("not measured", f);
    else {
        fb_put_xml(f, c->v->status);
        if (c->v->reason) {
            fputs(" (", f);
            fb_put_xml(f, c->v->reason);
            fputc(')', f);
        }
        if (c->v->unchecked) {
            fputs(", not checked: ", f);
            fb_put_xml(f, c->v->unchecked);
        }
        fprintf(f, " · speedup %s · SOL %s · %s us · %s GB/s", c->text[FB_SHOW_SPEEDUP], c->text[FB_SHOW_SOL],
                c->text[FB_SHOW_TIME], c->text[FB_SHOW_GBPS]);
        /* the measured ones where the variant has them (run --metrics) */
        if (!c->mark[FB_SHOW_DRAM]) fprintf(f, " · DRAM %s of ideal", c->text[FB_SHOW_DRAM]);
        if (!c->mark[FB_SHOW_INST]) fprintf(f, " · %s instructions", c->text[FB_SHOW_INST]);
        if (c->throttled) {
            char why[256];
            fputs(" · throttled: ", f);
            fb_put_xml(f, fb_clocks_describe(&c->cell->clock_before, &c->cell->clock_after, why, sizeof why));
        }
    }
    fputs("</title>", f);
}

static void put_text(FILE *f, double x, double y, const char *anchor, double size, const char *fill,
                     const char *weight, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%.1f\" fill=\"%s\"%s%s%s>", x, y, anchor,
            size, fill, strcmp(weight, "normal") ? " font-weight=\"" : "", strcmp(weight, "normal") ? weight : "",
            strcmp(weight, "normal") ? "\"" : "");
    fb_put_xml(f, s);
    fputs("</text>", f);
}

/* Opens a view's group: plain when it is the only view, else classed and hidden unless first. */
static void open_view(FILE *f, unsigned views, fb_show v, fb_show first)
{
    if (views == (1u << v)) fputs("<g>", f);
    else fprintf(f, "<g class=\"v v%d\"%s>", (int)v, v == first ? "" : " display=\"none\"");
}

static void put_legend(FILE *f, const scale *s, const bool *present, bool throttled, double x0, double y)
{
    put_text(f, x0, y + 10, "start", 11, "#333333", "normal", scale_title(s->show));
    double by = y + 16, step = BAR_W / BAR_STEPS;
    for (int i = 0; i < BAR_STEPS; i++) {
        char h[8];
        hex(scale_colour(s, (i + 0.5) / BAR_STEPS), h);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"12\" fill=\"%s\"/>", x0 + i * step, by,
                step + 0.3, h);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" fill=\"none\" stroke=\"#999999\" "
               "stroke-width=\"0.5\"/>",
            x0, by, BAR_W);
    double tv[16];
    char tl[16][24];
    int nt = scale_ticks(s, tv, tl);
    for (int i = 0; i < nt; i++) {
        double p = scale_pos(s, tv[i]);
        if (!(p >= 0)) p = 0;
        if (p > 1) p = 1;
        double x = x0 + p * BAR_W;
        fprintf(f, "<path d=\"M%.1f %.1fv4\" stroke=\"#555555\" stroke-width=\"1\"/>", x, by + 12);
        put_text(f, x, by + 26, i == 0 && p == 0 ? "start" : (p == 1 ? "end" : "middle"), 10, "#333333", "normal",
                 tl[i]);
    }
    /* the marks present, in rows to the right of the bar (at most three: six marks fit) */
    double sx0 = x0 + BAR_W + 28, sx = sx0, sy = by;
    for (int m = 0; m < N_MARKS; m++) {
        if (!present[m]) continue;
        char what[64];
        snprintf(what, sizeof what, "%s %s", marks[m].mark, marks[m].meaning);
        double w = 20 + 5.6 * (double)strlen(what) + 14;
        if (sx > sx0 && sx + w > FB_HEATMAP_WIDTH - MARGIN) {
            sx = sx0;
            sy += 17;
        }
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"12\" fill=\"%s\" stroke=\"#bbbbbb\" "
                   "stroke-width=\"0.5\"/>",
                sx, sy, marks[m].fill);
        put_text(f, sx + 20, sy + 10, "start", 10, "#333333", "normal", what);
        sx += w;
    }
    if (throttled) { /* not a fill: the "!" after a number */
        static const char what[] = "! throttled: SM clock fell > 10% or samples stepped > 5%";
        double w = 5.6 * (double)(sizeof what - 1) + 14;
        if (sx > sx0 && sx + w > FB_HEATMAP_WIDTH - MARGIN) {
            sx = sx0;
            sy += 17;
        }
        put_text(f, sx, sy + 10, "start", 10, "#333333", "normal", what);
    }
}

void fb_heatmap_panel(FILE *f, const fb_export_grid *g, const fb_export_cell *cells, double y, unsigned views,
                      fb_show first)
{
    int n = g->n_rows * g->n_cols;
    scale sc[FB_NSHOW];
    bool present[FB_NSHOW][N_MARKS], throttled[FB_NSHOW];
    memset(present, 0, sizeof present);
    memset(throttled, 0, sizeof throttled);
    for (int v = 0; v < FB_NSHOW; v++) {
        sc[v] = make_scale(cells, n, (fb_show)v);
        for (int i = 0; i < n; i++) {
            if (cells[i].mark[v]) present[v][mark_index(cells[i].mark[v])] = true;
            else if (cells[i].marked[v]) throttled[v] = true;
        }
    }
    double cw = cell_w(g), ch = cell_h(g), x0 = MARGIN + LABEL_W, gy = y + TOP;
    double fs = cw / 5.4;
    if (fs > 12) fs = 12;
    if (fs < 6) fs = 6;
    if (fs > ch * 0.55) fs = ch * 0.55;

    fputs("<g class=\"panel\">", f);
    /* title: case · dtype · variant; a case with fixed symbols: the grid's values
     * after the dtype (case · dtype · K=1024 · variant), as run and md head it */
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\" fill=\"#111111\">", MARGIN, y + 20);
    fb_put_xml(f, g->cs->name);
    fputs(" · ", f);
    fb_put_xml(f, g->dt->dtype);
    fputs(" · ", f);
    if (g->label[0]) {
        fb_put_xml(f, g->label);
        fputs(" · ", f);
    }
    fb_put_xml(f, g->variant);
    fputs("</text>\n", f);
    for (int v = 0; v < FB_NSHOW; v++) {
        if (!(views & (1u << v))) continue;
        open_view(f, views, (fb_show)v, first);
        char desc[1024];
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#555555\">", MARGIN, y + 38);
        fb_put_xml(f, g->doc->device_name ? g->doc->device_name : "unknown device");
        fputs(" · ", f);
        fb_put_xml(f, fb_export_describe(g, (fb_show)v, desc, sizeof desc));
        fputs("</text></g>\n", f);
    }
    /* headings: the corner, the column values (or the value's name for one axis) */
    char buf[512];
    put_text(f, x0 - 8, gy - 8, "end", 11, "#333333", "bold", fb_export_corner(g, buf, sizeof buf));
    for (int c = 0; c < g->n_cols; c++) {
        if (!g->cs->cols) {
            for (int v = 0; v < FB_NSHOW; v++) {
                if (!(views & (1u << v))) continue;
                open_view(f, views, (fb_show)v, first);
                put_text(f, x0 + cw / 2, gy - 8, "middle", 11, "#333333", "bold", fb_export_value_heading((fb_show)v));
                fputs("</g>", f);
            }
        } else {
            put_text(f, x0 + (c + 0.5) * cw, gy - 8, "middle", fs < 11 ? fs : 11, "#333333", "bold",
                     fb_export_col_label(g, c, first, buf, sizeof buf));
        }
    }
    fputc('\n', f);
    for (int r = 0; r < g->n_rows; r++) {
        snprintf(buf, sizeof buf, "%lld", (long long)g->cs->row_values[r]);
        put_text(f, x0 - 8, gy + (r + 0.5) * ch + 4, "end", 11, "#333333", "bold", buf);
        for (int c = 0; c < g->n_cols; c++) {
            const fb_export_cell *cell = &cells[r * g->n_cols + c];
            char fill[32];
            const char *tink, *weight;
            cell_style(&sc[first], cell, first, fill, sizeof fill, &tink, &weight);
            fputs("<g class=\"c\"", f);
            if (views != (1u << first))
                for (int v = 0; v < FB_NSHOW; v++) {
                    if (!(views & (1u << v))) continue;
                    char fv[32];
                    const char *kv, *wv;
                    cell_style(&sc[v], cell, (fb_show)v, fv, sizeof fv, &kv, &wv);
                    fprintf(f, " data-f%d=\"%s\" data-k%d=\"%s\" data-t%d=\"%s\"", v, fv, v, kv, v, cell->text[v]);
                    if (strcmp(wv, "normal")) fprintf(f, " data-w%d=\"%s\"", v, wv);
                }
            fputc('>', f);
            put_tooltip(f, g, cell);
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#ffffff\" "
                       "stroke-width=\"1\"/>",
                    x0 + c * cw, gy + r * ch, cw, ch, fill);
            put_text(f, x0 + (c + 0.5) * cw, gy + (r + 0.5) * ch + fs * 0.36, "middle", fs, tink, weight,
                     cell->text[first]);
            fputs("</g>\n", f);
        }
    }
    double ly = gy + g->n_rows * ch + 14;
    for (int v = 0; v < FB_NSHOW; v++) {
        if (!(views & (1u << v))) continue;
        open_view(f, views, (fb_show)v, first);
        put_legend(f, &sc[v], present[v], throttled[v], x0, ly);
        fputs("</g>\n", f);
    }
    fputs("</g>\n", f);
}

/* ---- export --format svg -------------------------------------------------------------------- */

typedef struct svg_state {
    fb_export_cell *cells; /* the grid being walked */
    size_t cap;
    char *body; /* the panels, drawn as each grid ends; the height is known only at the end */
    size_t body_len;
    FILE *mem;
    double y;
    int panels;
} svg_state;

static fb_status no_memory(void)
{
    fb_error("out of host memory writing the svg export");
    return FB_E_NOMEM;
}

static fb_status begin_doc(fb_export *x)
{
    svg_state *st = calloc(1, sizeof *st);
    if (!st) return no_memory();
    x->state = st;
    st->mem = open_memstream(&st->body, &st->body_len);
    return st->mem ? FB_OK : no_memory();
}

static fb_status begin_grid(fb_export *x, const fb_export_grid *g)
{
    svg_state *st = x->state;
    size_t need = (size_t)g->n_rows * (size_t)g->n_cols;
    if (need > st->cap) {
        void *more = realloc(st->cells, need * sizeof *st->cells);
        if (!more) return no_memory();
        st->cells = more;
        st->cap = need;
    }
    return FB_OK;
}

static fb_status cell(fb_export *x, const fb_export_grid *g, const fb_export_cell *c)
{
    svg_state *st = x->state;
    st->cells[c->r * g->n_cols + c->c] = *c;
    return FB_OK;
}

static fb_status end_grid(fb_export *x, const fb_export_grid *g)
{
    svg_state *st = x->state;
    if (st->panels++) {
        fprintf(st->mem, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"#dddddd\" stroke-width=\"1\"/>\n", MARGIN, st->y + 0.5,
                FB_HEATMAP_WIDTH - MARGIN);
    }
    fb_heatmap_panel(st->mem, g, st->cells, st->y, 1u << g->show, g->show);
    st->y += fb_heatmap_height(g);
    return FB_OK;
}

static fb_status end_doc(fb_export *x)
{
    svg_state *st = x->state;
    if (fclose(st->mem) != 0) {
        st->mem = NULL;
        return no_memory();
    }
    st->mem = NULL;
    double h = st->panels ? st->y : 40;
    FILE *f = x->out;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
            "font-family=\"%s\" role=\"img\">\n",
            FB_HEATMAP_WIDTH, ceil(h), FB_HEATMAP_WIDTH, ceil(h), font);
    fputs("<title>fusionbench ", f);
    fb_put_xml(f, x->doc->device_name ? x->doc->device_name : "unknown device");
    fputs(" ", f);
    fb_put_xml(f, x->doc->git ? x->doc->git : "");
    fputs("</title>\n", f);
    fb_heatmap_defs(f);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    if (!st->panels) fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"13\">no grids in this result</text>\n", MARGIN);
    fwrite(st->body, 1, st->body_len, f);
    fputs("</svg>\n", f);
    return FB_OK;
}

static void release(fb_export *x)
{
    svg_state *st = x->state;
    if (!st) return;
    if (st->mem) fclose(st->mem);
    free(st->body);
    free(st->cells);
    free(st);
    x->state = NULL;
}

const fb_printer fb_printer_svg = {
    .name = "svg",
    .splits_grids = true, /* a panel per grid, its title naming the grid's fixed values */
    .walk = FB_WALK_SHOWN,
    .begin_doc = begin_doc,
    .begin_grid = begin_grid,
    .cell = cell,
    .end_grid = end_grid,
    .end_doc = end_doc,
    .release = release,
};
