/* export_html.c — `export --format html`: one self-contained page to browse a
 * run. Nothing is fetched: the CSS, the script and every heatmap (heatmap.c's
 * panels, one inline <svg> per grid) are in the file, so it opens offline, from
 * a CI artifact or an e-mail.
 *
 *   header   device, software, settings, the run (host, times, command, commit)
 *   switch   speedup | % of SOL | time | GB/s (| DRAM / ideal | instructions, when
 *            the run measured them: run --metrics): every heatmap redraws (each cell
 *            carries its fill, label and ink for every view); the baseline's
 *            own heatmap is hidden for the speedup (100% everywhere)
 *   per case x dtype: the heatmaps of every variant, then a sortable table of the
 *            cells (one row per grid point x variant; click a heading to sort,
 *            numbers numerically, absent values last); "kernels" is the count the
 *            variant declares, "launched" the count --timer cupti measured (the
 *            kernels' names on hover)
 *
 * Everything from the file is escaped (fb_put_xml), in text and attributes.
 * The script is small and defensive: window errors are written into the page
 * (#fb-errors, and data-fb-error on <body>); when it has set everything up it
 * adds #fb-ready. Opened as PAGE#selftest it also switches through every view
 * and sorts every table by every column, checks the result, and writes
 * #fb-selftest — what tests/test_export_html.py reads from headless Chromium's
 * DOM. */
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap.h"

typedef struct html_state {
    fb_export_cell *cells;
    size_t cap;
    char *rows; /* the table rows of the current case x dtype */
    size_t rows_len;
    FILE *mem;
    int n_rows;
    unsigned views; /* a bit per fb_show the page offers (fb_export_views) */
} html_state;

static fb_status no_memory(void)
{
    fb_error("out of host memory writing the html export");
    return FB_E_NOMEM;
}


/* ---- the page's fixed parts ------------------------------------------------------------- */

static const char style[] =
    "<style>\n"
    ":root{color-scheme:light}\n"
    "body{font:14px/1.45 -apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#111;background:#fff;"
    "margin:0 auto;max-width:940px;padding:16px 20px 48px}\n"
    "h1{font-size:22px;margin:8px 0 12px}h2{font-size:19px;margin:28px 0 4px;border-bottom:1px solid #ddd}"
    "h3{font-size:16px;margin:18px 0 6px}\n"
    "table.facts{border-collapse:collapse;margin:0 0 12px}table.facts th{text-align:left;padding:2px 12px 2px 0;"
    "vertical-align:top;color:#555;font-weight:600}table.facts td{padding:2px 0}\n"
    "code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f4f4f4;padding:1px 3px;"
    "word-break:break-all}\n"
    "nav.views{position:sticky;top:0;background:#fff;padding:8px 0;border-bottom:1px solid #eee;z-index:2}\n"
    "nav.views button{font:inherit;border:1px solid #bbb;background:#f7f7f7;padding:3px 10px;margin-right:4px;"
    "border-radius:4px;cursor:pointer}nav.views button[aria-pressed=true]{background:#2166ac;color:#fff;"
    "border-color:#2166ac}\n"
    "nav.toc a{margin-right:10px}\n"
    "figure.heat{margin:0 0 14px}figure.heat svg{display:block;max-width:100%;height:auto}\n"
    "body[data-view=\"0\"] figure.heat.is-baseline{display:none}\n"
    ".scroll{overflow-x:auto}details{margin:4px 0 12px}summary{cursor:pointer;color:#2166ac}\n"
    "table.cells{border-collapse:collapse;font-size:12px;margin-top:6px}\n"
    "table.cells th,table.cells td{padding:2px 8px;border-bottom:1px solid #eee;white-space:nowrap}\n"
    "table.cells th{position:sticky;top:42px;background:#fafafa;cursor:pointer;text-align:right;user-select:none}\n"
    "table.cells th.t,table.cells td.t{text-align:left}table.cells td{text-align:right}\n"
    "table.cells th[aria-sort=ascending]::after{content:' \\25B2'}"
    "table.cells th[aria-sort=descending]::after{content:' \\25BC'}\n"
    "td.bad{color:#b2182b;font-weight:600}td.warn{color:#8a6d00}\n"
    "#fb-errors{color:#b2182b;white-space:pre-wrap}\n"
    "</style>\n";

/* No template strings, no fetch, nothing newer than ES5 needs: it runs wherever
 * the page is opened. */
static const char script[] =
    "<script>\n"
    "(function () {\n"
    "  'use strict';\n"
    "  function report(msg) {\n"
    "    var p = document.getElementById('fb-errors');\n"
    "    p.hidden = false;\n"
    "    p.textContent += msg + '\\n';\n"
    "    document.body.setAttribute('data-fb-error', '1');\n"
    "  }\n"
    "  window.addEventListener('error', function (e) {\n"
    "    report('script error: ' + e.message + ' (line ' + e.lineno + ')');\n"
    "  });\n"
    "  function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }\n"
    "  function setView(v) {\n"
    "    document.body.setAttribute('data-view', String(v));\n"
    "    all('g.c').forEach(function (g) {\n"
    "      var f = g.getAttribute('data-f' + v);\n"
    "      if (f === null) return;\n"
    "      var r = g.querySelector('rect'), t = g.querySelector('text');\n"
    "      r.setAttribute('fill', f);\n"
    "      t.setAttribute('fill', g.getAttribute('data-k' + v));\n"
    "      t.setAttribute('font-weight', g.getAttribute('data-w' + v) || 'normal');\n"
    "      t.textContent = g.getAttribute('data-t' + v);\n"
    "    });\n"
    "    all('g.v').forEach(function (g) {\n"
    "      if (g.classList.contains('v' + v)) g.removeAttribute('display');\n"
    "      else g.setAttribute('display', 'none');\n"
    "    });\n"
    "    all('nav.views button').forEach(function (b) {\n"
    "      b.setAttribute('aria-pressed', b.getAttribute('data-view') === String(v) ? 'true' : 'false');\n"
    "    });\n"
    "  }\n"
    "  function key(td, num) {\n"
    "    if (!num) return td.textContent;\n"
    "    var s = td.getAttribute('data-v');\n"
    "    return s === null || s === '' ? NaN : parseFloat(s);\n"
    "  }\n"
    "  function sortTable(table, col, dir) {\n"
    "    var th = table.tHead.rows[0].cells[col], num = th.className.indexOf('t') < 0;\n"
    "    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
    "    rows.sort(function (a, b) {\n"
    "      var x = key(a.cells[col], num), y = key(b.cells[col], num);\n"
    "      if (!num) return dir * x.localeCompare(y);\n"
    "      if (isNaN(x) || isNaN(y)) return (isNaN(x) ? 1 : 0) - (isNaN(y) ? 1 : 0);\n"
    "      return dir * (x - y);\n"
    "    });\n"
    "    rows.forEach(function (r) { body.appendChild(r); });\n"
    "    all('th', table.tHead).forEach(function (h) { h.removeAttribute('aria-sort'); });\n"
    "    th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');\n"
    "  }\n"
    "  all('table.cells').forEach(function (table) {\n"
    "    all('th', table.tHead).forEach(function (th, col) {\n"
    "      th.addEventListener('click', function () {\n"
    "        sortTable(table, col, th.getAttribute('aria-sort') === 'ascending' ? -1 : 1);\n"
    "      });\n"
    "    });\n"
    "  });\n"
    "  all('nav.views button').forEach(function (b) {\n"
    "    b.addEventListener('click', function () { setView(b.getAttribute('data-view')); });\n"
    "  });\n"
    "  var first = document.body.getAttribute('data-view');\n"
    "  setView(first);\n"
    "  function selftest() {\n"
    "    var cells = all('g.c'), checks = 0;\n"
    "    all('nav.views button').forEach(function (b) {\n"
    "      var v = b.getAttribute('data-view');\n"
    "      setView(v);\n"
    "      cells.forEach(function (g) {\n"
    "        var t = g.querySelector('text');\n"
    "        if (g.querySelector('rect').getAttribute('fill') !== g.getAttribute('data-f' + v) ||\n"
    "            t.textContent !== g.getAttribute('data-t' + v))\n"
    "          throw new Error('view ' + v + ': a cell was not redrawn');\n"
    "        checks++;\n"
    "      });\n"
    "      if (all('g.v.v' + v + '[display]').length) throw new Error('view ' + v + ': its legend is hidden');\n"
    "    });\n"
    "    setView(first);\n"
    "    all('table.cells').forEach(function (table) {\n"
    "      all('th', table.tHead).forEach(function (th, col) {\n"
    "        var num = th.className.indexOf('t') < 0;\n"
    "        [1, -1].forEach(function (dir) {\n"
    "          sortTable(table, col, dir);\n"
    "          var prev = null;\n"
    "          Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {\n"
    "            var k = key(r.cells[col], num);\n"
    "            if (num && isNaN(k)) { prev = 'nan'; return; }\n"
    "            if (prev === 'nan') throw new Error('a number after an absent value in column ' + col);\n"
    "            if (prev !== null && (num ? dir * (k - prev) < 0 : dir * String(k).localeCompare(prev) < 0))\n"
    "              throw new Error('column ' + col + ' is out of order');\n"
    "            prev = k;\n"
    "            checks++;\n"
    "          });\n"
    "        });\n"
    "      });\n"
    "    });\n"
    "    var out = document.createElement('div');\n"
    "    out.id = 'fb-selftest';\n"
    "    out.setAttribute('data-ok', '1');\n"
    "    out.setAttribute('data-checks', String(checks));\n"
    "    out.hidden = true;\n"
    "    document.body.appendChild(out);\n"
    "  }\n"
    "  if (location.hash === '#selftest') selftest();\n"
    "  var ready = document.createElement('div');\n"
    "  ready.id = 'fb-ready';\n"
    "  ready.setAttribute('data-grids', String(all('figure.heat').length));\n"
    "  ready.setAttribute('data-tables', String(all('table.cells').length));\n"
    "  ready.hidden = true;\n"
    "  document.body.appendChild(ready);\n"
    "})();\n"
    "</script>\n";

/* ---- the header ------------------------------------------------------------------------------ */

static void put_bytes(FILE *f, double b)
{
    if (b >= 1024.0 * 1024 * 1024) fprintf(f, "%.1f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024) fprintf(f, "%.0f MiB", b / (1024.0 * 1024));
    else fprintf(f, "%.0f B", b);
}

/* "· label value" parts of a facts line, each only when the file has it. */
static void fact_text(FILE *f, bool *first, const char *label, const char *value)
{
    if (!value) return;
    fputs(*first ? "" : " · ", f);
    *first = false;
    if (label) fprintf(f, "%s ", label);
    fb_put_xml(f, value);
}

static void fact_number(FILE *f, bool *first, const char *fmt, double v)
{
    if (!isfinite(v)) return;
    fputs(*first ? "" : " · ", f);
    *first = false;
    fprintf(f, fmt, v);
}

static void fact_bytes(FILE *f, bool *first, const char *label, double v)
{
    if (!isfinite(v)) return;
    fputs(*first ? "" : " · ", f);
    *first = false;
    fprintf(f, "%s ", label);
    put_bytes(f, v);
}

static void put_header(FILE *f, const fb_rs_doc *d, const fb_export_opts *opts, unsigned views)
{
    bool one = true;
    fputs("<header>\n<h1>fusionbench results</h1>\n<table class=\"facts\">\n<tr><th>device</th><td>", f);
    fact_text(f, &one, NULL, d->device_name ? d->device_name : "unknown device");
    fact_text(f, &one, "compute capability", d->cc);
    if (d->sms >= 0) fact_number(f, &one, "%.0f SMs", d->sms);
    fact_bytes(f, &one, "L2", d->l2_bytes);
    fact_bytes(f, &one, "memory", d->mem_bytes);
    fact_number(f, &one, "SM clock %.0f MHz", d->sm_clock_mhz);
    fact_number(f, &one, "memory clock %.0f MHz", d->mem_clock_mhz);
    fact_number(f, &one, "%.0f-bit bus", d->bus_width_bits);
    fputs("</td></tr>\n<tr><th>software</th><td>", f);
    one = true;
    fact_text(f, &one, "fusionbench", d->version ? d->version : "?");
    fact_text(f, &one, "commit", d->git);
    fact_text(f, &one, "driver", d->driver);
    fact_text(f, &one, "CUDA runtime", d->runtime);
    fact_text(f, &one, "cuBLAS", d->cublas);
    fact_text(f, &one, "cuDNN", d->cudnn);
    fputs("</td></tr>\n<tr><th>settings</th><td>", f);
    one = true;
    fact_text(f, &one, "timer", d->timer);
    fact_number(f, &one, "warm-up %g ms", d->warmup_ms);
    fact_number(f, &one, "rep %g ms", d->rep_ms);
    fact_number(f, &one, "max noise %g%%", d->max_noise_pct);
    fact_number(f, &one, "max wall %g s", d->max_wall_s);
    fact_text(f, &one, "flush", d->flush);
    fact_bytes(f, &one, "L2 flush", d->flush_bytes);
    if (d->seed >= 0) fact_number(f, &one, "seed %.0f", (double)d->seed);
    if (one) fputs("not recorded", f);
    fputs("</td></tr>\n<tr><th>run</th><td>", f);
    one = true;
    fact_text(f, &one, "host", d->host);
    fact_text(f, &one, "started", d->started);
    fact_text(f, &one, "finished", d->finished);
    if (d->n_resumed > 0) fact_number(f, &one, "resumed %.0f times", d->n_resumed);
    if (d->command) {
        fputs(one ? "<code>" : " · <code>", f);
        fb_put_xml(f, d->command);
        fputs("</code>", f);
    }
    fputs("</td></tr>\n<tr><th>file</th><td><code>", f);
    fb_put_xml(f, d->path);
    fputs("</code></td></tr>\n</table>\n<nav class=\"toc\">", f);
    for (int i = 0; i < d->n_cases; i++) {
        if (opts->case_name && strcmp(opts->case_name, d->cases[i].name) != 0) continue;
        fprintf(f, "<a href=\"#case-%d\">", i);
        fb_put_xml(f, d->cases[i].name);
        fputs("</a>", f);
    }
    fputs("</nav>\n</header>\n<nav class=\"views\">view: ", f);
    for (int v = 0; v < FB_NSHOW; v++)
        if (views & (1u << v))
            fprintf(f, "<button type=\"button\" data-view=\"%d\" aria-pressed=\"%s\">%s</button>", v,
                    v == (int)opts->show ? "true" : "false", fb_show_modes[v].view);
    fputs("</nav>\n", f);
}

/* ---- the printer ------------------------------------------------------------------------------ */

static fb_status begin_doc(fb_export *x)
{
    html_state *st = calloc(1, sizeof *st);
    if (!st) return no_memory();
    x->state = st;
    st->views = fb_export_views(x->doc, x->opts->show);
    FILE *f = x->out;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>fusionbench · ",
          f);
    fb_put_xml(f, x->doc->device_name ? x->doc->device_name : "unknown device");
    if (x->doc->git) {
        fputs(" · ", f);
        fb_put_xml(f, x->doc->git);
    }
    fputs("</title>\n", f);
    fputs(style, f);
    fprintf(f, "</head>\n<body data-view=\"%d\">\n", (int)x->opts->show);
    fputs("<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">", f);
    fb_heatmap_defs(f);
    fputs("</svg>\n", f);
    put_header(f, x->doc, x->opts, st->views);
    fputs("<main>\n", f);
    return FB_OK;
}

static fb_status begin_case(fb_export *x, const fb_rs_case *cs)
{
    FILE *f = x->out;
    fprintf(f, "<section class=\"case\" id=\"case-%d\">\n<h2>", (int)(cs - x->doc->cases));
    fb_put_xml(f, cs->name);
    fputs("</h2>\n", f);
    if (cs->summary) {
        fputs("<p>", f);
        fb_put_xml(f, cs->summary);
        fputs("</p>\n", f);
    }
    fputs("<p>baseline <code>", f);
    fb_put_xml(f, cs->baseline);
    fputs("</code>; grid ", f);
    fb_put_xml(f, cs->rows);
    fputs(" down", f);
    if (cs->cols) {
        fputs(", ", f);
        fb_put_xml(f, cs->cols);
        fputs(" across", f);
    }
    fputs("</p>\n", f);
    return FB_OK;
}

static fb_status begin_dtype(fb_export *x, const fb_rs_case *cs, const fb_rs_dtype *dt)
{
    html_state *st = x->state;
    st->rows = NULL;
    st->rows_len = 0;
    st->n_rows = 0;
    st->mem = open_memstream(&st->rows, &st->rows_len);
    if (!st->mem) return no_memory();
    FILE *f = x->out;
    fputs("<section class=\"dtype\">\n<h3>", f);
    fb_put_xml(f, cs->name);
    fputs(" · ", f);
    fb_put_xml(f, dt->dtype);
    fputs("</h3>\n", f);
    return FB_OK;
}

static fb_status begin_grid(fb_export *x, const fb_export_grid *g)
{
    html_state *st = x->state;
    size_t need = (size_t)g->n_rows * (size_t)g->n_cols;
    if (need > st->cap) {
        void *more = realloc(st->cells, need * sizeof *st->cells);
        if (!more) return no_memory();
        st->cells = more;
        st->cap = need;
    }
    return FB_OK;
}

/* A numeric table cell: data-v for sorting, the text shown. */
static void td_number(FILE *f, double v, const char *fmt, double scale)
{
    if (!isfinite(v)) {
        fputs("<td data-v=\"\">–</td>", f);
        return;
    }
    char num[64];
    fb_format_number(v, num, sizeof num);
    fprintf(f, "<td data-v=\"%s\">", num);
    fprintf(f, fmt, v * scale);
    fputs("</td>", f);
}

static void td_text(FILE *f, const char *cls, const char *s)
{
    fprintf(f, "<td class=\"t%s%s\">", cls ? " " : "", cls ? cls : "");
    fb_put_xml(f, s ? s : "–");
    fputs("</td>", f);
}

static void table_row(FILE *f, const fb_export_grid *g, const fb_export_cell *c, unsigned views)
{
    const fb_rs_variant *v = c->v;
    fputs("<tr>", f);
    td_number(f, (double)c->row, "%.0f", 1);
    if (g->cs->cols) td_number(f, (double)c->col, "%.0f", 1);
    if (g->cs->n_fixed) td_text(f, NULL, g->label); /* the grid: "K=1024" */
    td_text(f, NULL, g->variant);
    td_text(f, strcmp(v->status, "ok") ? "bad" : NULL, v->status);
    td_number(f, v->has_time ? v->time_ms.median * 1000 : NAN, "%.2f", 1);
    td_number(f, fb_rs_speedup(v, c->base), "%.1f%%", 100);
    td_number(f, c->value[FB_SHOW_SOL], "%.1f%%", 1);
    td_number(f, c->value[FB_SHOW_GBPS], "%.0f", 1);
    td_number(f, v->tflops, "%.3g", 1);
    td_number(f, v->kernels >= 0 ? v->kernels : NAN, "%.0f", 1);
    /* measured by --timer cupti; the kernels' names on hover */
    if (v->kernels_launched >= 0) {
        fprintf(f, "<td data-v=\"%d\" title=\"", v->kernels_launched);
        fb_put_xml(f, v->kernel_names_text ? v->kernel_names_text : "");
        fprintf(f, "\">%d</td>", v->kernels_launched);
    } else {
        td_number(f, NAN, "%.0f", 1);
    }
    td_number(f, v->peak_bytes, "%.4g", 1.0 / (1024 * 1024));
    /* the SM clock before -> after the cell, sorted by the after reading; "!" and
     * the warning colour when it fell more than 10% (clocks.h) */
    const fb_clock_reading *cb = &c->cell->clock_before, *ca = &c->cell->clock_after;
    if (!isfinite(cb->sm_mhz) && !isfinite(ca->sm_mhz)) {
        fputs("<td data-v=\"\">–</td>", f);
    } else {
        char num[64] = "";
        fb_format_number(ca->sm_mhz, num, sizeof num);
        fprintf(f, "<td data-v=\"%s\"%s>", num, c->throttled ? " class=\"warn\"" : "");
        if (isfinite(cb->sm_mhz)) fprintf(f, "%.0f", cb->sm_mhz);
        else fputs("?", f);
        fputs(" → ", f);
        if (isfinite(ca->sm_mhz)) fprintf(f, "%.0f", ca->sm_mhz);
        else fputs("?", f);
        if (c->throttled) fputs(FB_THROTTLE_MARK, f);
        fputs("</td>", f);
    }
    if (views & (1u << FB_SHOW_DRAM)) td_number(f, c->value[FB_SHOW_DRAM], "%.2fx", 1);
    if (views & (1u << FB_SHOW_INST)) td_number(f, c->value[FB_SHOW_INST], "%.4g", 1);
    /* the check: passed (mode), FAILED, or why it was not checked */
    char check[256];
    const char *cls = NULL;
    if (v->unchecked) snprintf(check, sizeof check, "not checked: %s", v->unchecked), cls = "warn";
    else if (v->check_passed == 0) snprintf(check, sizeof check, "FAILED (%s)", v->check_mode ? v->check_mode : "?"), cls = "bad";
    else if (v->check_passed == 1) snprintf(check, sizeof check, "passed (%s)", v->check_mode ? v->check_mode : "?");
    else snprintf(check, sizeof check, "%s", v->check_mode ? v->check_mode : "–");
    td_text(f, cls, check);
    td_number(f, v->max_rel, "%.2g", 1);
    td_text(f, NULL, v->reason);
    fputs("</tr>\n", f);
}

static fb_status cell(fb_export *x, const fb_export_grid *g, const fb_export_cell *c)
{
    html_state *st = x->state;
    st->cells[c->r * g->n_cols + c->c] = *c;
    if (c->v) {
        table_row(st->mem, g, c, st->views);
        st->n_rows++;
    }
    return FB_OK;
}

static fb_status end_grid(fb_export *x, const fb_export_grid *g)
{
    html_state *st = x->state;
    FILE *f = x->out;
    double h = ceil(fb_heatmap_height(g));
    fprintf(f, "<figure class=\"heat%s\" data-grid=\"", g->is_baseline && g->others ? " is-baseline" : "");
    fb_put_xml(f, g->cs->name);
    fputc('|', f);
    fb_put_xml(f, g->dt->dtype);
    fputc('|', f);
    fb_put_xml(f, g->variant);
    if (g->label[0]) { /* a case with fixed symbols: one figure per grid, "mm|float32|mm.fused|K=1024" */
        fputc('|', f);
        fb_put_xml(f, g->label);
    }
    fprintf(f, "\">\n<svg width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" role=\"img\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
            FB_HEATMAP_WIDTH, h, FB_HEATMAP_WIDTH, h);
    fb_heatmap_panel(f, g, st->cells, 0, st->views, x->opts->show);
    fputs("</svg>\n</figure>\n", f);
    return FB_OK;
}

static fb_status end_dtype(fb_export *x, const fb_rs_case *cs, const fb_rs_dtype *dt)
{
    html_state *st = x->state;
    FILE *f = x->out;
    if (fclose(st->mem) != 0) {
        st->mem = NULL;
        return no_memory();
    }
    st->mem = NULL;
    fprintf(f, "<details%s><summary>cells of ", st->n_rows <= 400 ? " open" : "");
    fb_put_xml(f, cs->name);
    fputs(" · ", f);
    fb_put_xml(f, dt->dtype);
    fprintf(f, " (%d rows; click a heading to sort)</summary>\n<div class=\"scroll\"><table class=\"cells\">\n<thead><tr><th>", st->n_rows);
    fb_put_xml(f, cs->rows);
    fputs("</th>", f);
    if (cs->cols) {
        fputs("<th>", f);
        fb_put_xml(f, cs->cols);
        fputs("</th>", f);
    }
    if (cs->n_fixed) fputs("<th class=\"t\">fixed</th>", f);
    fputs("<th class=\"t\">variant</th><th class=\"t\">status</th><th>median us</th><th>speedup</th>"
          "<th>% SOL</th><th>GB/s</th><th>TFLOP/s</th><th>kernels</th><th>launched</th><th>peak MiB</th>"
          "<th>SM MHz</th>",
          f);
    if (st->views & (1u << FB_SHOW_DRAM)) fputs("<th>DRAM / ideal</th>", f);
    if (st->views & (1u << FB_SHOW_INST)) fputs("<th>instructions</th>", f);
    fputs("<th class=\"t\">check</th><th>max rel err</th><th class=\"t\">reason</th></tr></thead>\n<tbody>\n", f);
    fwrite(st->rows, 1, st->rows_len, f);
    fputs("</tbody>\n</table></div>\n</details>\n</section>\n", f);
    free(st->rows);
    st->rows = NULL;
    return FB_OK;
}

static fb_status end_case(fb_export *x, const fb_rs_case *cs)
{
    fputs("</section>\n", x->out);
    return FB_OK;
}

static fb_status end_doc(fb_export *x)
{
    FILE *f = x->out;
    if (!x->doc->n_cases) fputs("<p>This result holds no cases.</p>\n", f);
    fputs("</main>\n<pre id=\"fb-errors\" hidden></pre>\n", f);
    fputs(script, f);
    fputs("</body>\n</html>\n", f);
    return FB_OK;
}

static void release(fb_export *x)
{
    html_state *st = x->state;
    if (!st) return;
    if (st->mem) fclose(st->mem);
    free(st->rows);
    free(st->cells);
    free(st);
    x->state = NULL;
}

const fb_printer fb_printer_html = {
    .name = "html",
    .splits_grids = true, /* a figure per grid (titled, data-grid ending "|K=1024"), a fixed column in the cells */
    .walk = FB_WALK_VARIANTS,
    .begin_doc = begin_doc,
    .begin_case = begin_case,
    .begin_dtype = begin_dtype,
    .begin_grid = begin_grid,
    .cell = cell,
    .end_grid = end_grid,
    .end_dtype = end_dtype,
    .end_case = end_case,
    .end_doc = end_doc,
    .release = release,
};
