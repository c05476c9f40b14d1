/* heatmap.h — one grid (case x dtype x variant) drawn as an SVG heatmap panel,
 * for `export --format svg` (panels stacked in one image) and `--format html`
 * (one inline <svg> per panel, with every view for the page's switch).
 *
 * A panel: a title (case · dtype · variant), a subtitle (device and what the
 * value is), the grid (dim0 down, dim1 across; each cell coloured and labelled
 * with the grid's text), and a legend (the colour bar with ticks, and a swatch
 * for each mark present). Colour scales, chosen per panel:
 *   speedup  diverging around 100% (1.0x) on a log2 scale, red slower, blue faster,
 *            symmetric to the panel's largest factor (at least 2x, at most 64x)
 *   sol      sequential 0..100% of speed of light (viridis; above 100 clamps)
 *   time     sequential, log scale over the panel's range of median times
 *   gbps     sequential 0..the panel's highest GB/s
 *   dram     sequential, log scale over the panel's measured / ideal bytes
 *   inst     sequential, log scale over the panel's instruction counts
 * (each mode's scale is its entry in report.h's fb_show_modes)
 * Marked cells are drawn apart from any colour of a scale: FAIL/BFAIL red
 * hatching, OOM grey hatching, UNCHK light cross-hatching, ERR dark grey, "-"
 * near-white; each keeps its word as the label. Every cell has a tooltip
 * (<title>) with its point and all four values (and the measured DRAM ratio and
 * instructions when the variant has them). The background is white, so a
 * README in a dark theme still shows it. */
#ifndef FB_HEATMAP_H
#define FB_HEATMAP_H

#include <stdio.h>

#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FB_HEATMAP_WIDTH 900

/* A panel's height in pixels (its width is FB_HEATMAP_WIDTH). */
double fb_heatmap_height(const fb_export_grid *g);

/* The <defs> the panels' marks refer to (patterns fbh-fail, fbh-oom, fbh-unchk):
 * once per SVG document, or once per HTML page (ids are page-wide there). */
void fb_heatmap_defs(FILE *f);

/* Draws the panel of grid `g` with top edge at y; cells[r * g->n_cols + c].
 * views: a bit (1 << fb_show) per view drawn; `first` is the one visible. With
 * more than one view, each cell carries data-f<N> (fill), data-k<N> (label
 * colour), data-t<N> (label) and, when bold, data-w<N> for every view N, and the view-dependent parts
 * (subtitle, legend) are drawn once per view in a group of class "v v<N>",
 * hidden (display="none") but for `first`: a script switches views by
 * setting those. */
void fb_heatmap_panel(FILE *f, const fb_export_grid *g, const fb_export_cell *cells, double y, unsigned views,
                      fb_show first);

#ifdef __cplusplus
}
#endif
#endif
