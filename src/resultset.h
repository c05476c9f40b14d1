/* resultset.h — the typed read model of a result file: plain C structs built
 * once from a validated result document (result.h has the schema), so that the
 * printers of `export` and the statistics of `compare` never look JSON up by
 * string keys. Read-only: writing stays with result.c.
 *
 * Conventions (every field mirrors a key of result.h's schema):
 *   - a number the file lacks (or holds as null, i.e. NaN/Inf) is NaN; an
 *     integer it lacks is -1; a string it lacks is NULL;
 *   - strings point into the JSON tree the doc keeps alive (doc->json), or into
 *     the doc's own storage (numbers the file holds where a string is natural:
 *     device.cublas 130100 reads as "130100"); they live until fb_rs_free;
 *   - order is the file's: cases, dtypes, cells as stored; a cell's variants in
 *     the order of its case's `variants` list, then any the list lacks;
 *   - a case with fixed size symbols has one grid per combination of their
 *     values (fb_rs_case's fixed, n_grids); each cell knows its grid;
 *   - a case with one grid axis has cols == NULL, n_cols == 0 and col_values
 *     NULL, and its cells have col == -1 (result.c's fb_result_cell convention);
 *   - the cell's speed-of-light copy ("sol") is an fb_rs_variant named "sol"
 *     (has_sol says whether the file has one);
 *   - samples_us: every timing sample in the order taken, microseconds; NULL and
 *     n_samples 0 when the file has none (files written before samples existed);
 *   - a cell's clocks: NaN readings and throttled 0 when the file has none.
 *
 * Ownership: fb_rs_load / fb_rs_from_json fill a caller-provided fb_rs_doc;
 * fb_rs_free releases everything it holds (and is safe on a zeroed doc). */
#ifndef FB_RESULTSET_H
#define FB_RESULTSET_H

#include <jansson.h>
#include <stdint.h>

#include "clocks.h"
#include "fb.h"
#include "metrics.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fb_rs_variant { /* one variant in one cell */
    const char *name;
    const char *status;  /* ok|oom|fail|error|skipped */
    const char *reason;  /* NULL when ok (or when the file gives none) */
    fb_stats time_ms;    /* all NaN, n 0 when has_time is 0 */
    int has_time;        /* the file has time_ms with a finite median */
    double gbps, tflops, sol_pct;                    /* NaN when absent */
    int kernels;                                     /* -1 when absent */
    double footprint_bytes, peak_bytes;              /* NaN when absent */
    double prepare_ms;   /* host time of the variant's prepare step; NaN when absent */
    const char *check_mode; /* full|sampled|none|NULL (no check object) */
    int check_passed;       /* 1, 0, or -1 unknown (no "passed") */
    double max_abs, max_rel; /* NaN when absent */
    const char *unchecked;   /* why it was not checked against the reference, or NULL (fb_result_unchecked) */
    double *samples_us;      /* NULL when the file has none */
    int n_samples;
    /* added to the contract */
    int64_t rows_checked, rows_total; /* -1 when absent (a sampled check says how many rows) */
    double metrics[FB_NMETRICS]; /* run --metrics, by fb_metric_id (metrics.h); NaN when absent */
    const char *metrics_error;   /* why the metrics pass failed for it, or NULL */
    /* --timer cupti (result.h's KERNELS): what CUPTI saw the variant launch */
    int kernels_launched;        /* kernels per run, -1 when absent */
    int kernels_launched_min, kernels_launched_max; /* -1 when absent (runs agreed) */
    const char **kernel_names;   /* the distinct kernels, first-launch order; NULL when absent */
    int n_kernel_names;
    const char *kernel_names_text; /* the names joined with "; " (csv, json), NULL when absent */
    fb_stats span_ms;            /* first start to last end per run; all NaN when absent */
    int has_span;
    /* the measurement's clock (clocks.h): how far its samples stepped, and the SM clock NVML read
     * while its batches ran; NaN when absent */
    double step_pct, sm_clock_min_mhz, sm_clock_mean_mhz;
    const char *limited_by_text; /* NVML's clock-limit reasons joined with "; ", NULL when none */
    int power_limited;           /* one of them a power or thermal limit (fb_clock_power_limited) */
    /* timed in pairs with the case's plain op (cell.c's "paired", when its status is ok): the floor
     * variant's name, the median of t_variant / t_floor over the pairs, their stats and every
     * pair's ratio in the order taken; NULL, NaN (all NaN stats) and NULL / 0 when absent */
    const char *paired_floor;
    double paired_ratio;
    fb_stats paired_stats;
    double *paired_samples;
    int n_paired_samples;
} fb_rs_variant;

typedef struct fb_rs_shape { /* one program input's shape at a cell */
    const char *name; /* the input's name in the case file ("x") */
    int rank;
    int64_t dim[FB_MAX_RANK];
} fb_rs_shape;

typedef struct fb_rs_cell {
    int64_t row, col;   /* col -1 for a case with one grid axis */
    /* a case with fixed size symbols: the cell's value of each (its "point"), in
     * the case's fixed order, and the grid they make (fb_rs_case's grids); NULL
     * and grid 0 for a case without. A cell is its grid, row and col. grid is -1
     * for a value the case's list lacks (a hand-edited file): in no grid. */
    int64_t *fixed;
    int grid;
    double ideal_bytes, flops; /* NaN when absent */
    fb_rs_variant sol;
    int has_sol;
    fb_rs_variant *variants;
    int n_variants;
    /* the clocks read before and after the cell (clocks.h): NaN where the file has
     * none (no NVML, or written before clocks were kept) */
    fb_clock_reading clock_before, clock_after;
    int has_clocks; /* the file has a "clocks" object for the cell */
    int throttled;  /* its SM clock fell more than 10%, or a variant's samples stepped more than 5%
                     * (fb_cell_json_throttled) */
    /* every program input's shape here, in the case file's order (result.h's
     * SHAPES); NULL and 0 in files written before cells had them */
    fb_rs_shape *shapes;
    int n_shapes;
} fb_rs_cell;

typedef struct fb_rs_dtype {
    const char *dtype;  /* canonical name: float32, float16, bfloat16, float64 */
    fb_rs_cell *cells;  /* file order */
    int n_cells;
    int *by_point;      /* private: indices of cells sorted by (grid, row, col), for fb_rs_find_cell */
} fb_rs_dtype;

typedef struct fb_rs_fixed { /* one fixed size symbol of a case */
    const char *name;
    int64_t *values;
    int n_values;
} fb_rs_fixed;

typedef struct fb_rs_case {
    const char *name, *summary, *rows, *cols, *baseline; /* cols NULL for one grid axis */
    int64_t *row_values;
    int n_rows;
    int64_t *col_values;
    int n_cols;
    const char **variants; /* the case's variant list, baseline included */
    int n_variants;
    fb_rs_dtype *dtypes;
    int n_dtypes;
    /* added to the contract */
    const char *file; /* the case file the run read, or NULL */
    /* "fixed": the size symbols beside rows and cols, each with its values; every
     * combination is one grid of rows x cols, grid g in run order (the first
     * symbol slowest). n_fixed 0 and n_grids 1 for a case without. */
    fb_rs_fixed *fixed;
    int n_fixed;
    int n_grids;
} fb_rs_case;

typedef struct fb_rs_doc {
    const char *version, *git, *started, *finished, *host, *command;
    /* device */
    const char *device_name, *cc, *driver, *runtime, *cublas, *cudnn;
    int sms; /* -1 when absent */
    double l2_bytes, mem_bytes;
    /* settings */
    const char *timer;
    double warmup_ms, rep_ms, max_noise_pct, flush_bytes;
    long seed; /* -1 when absent */
    fb_rs_case *cases;
    int n_cases;
    json_t *json; /* kept alive: strings point into it */
    /* added to the contract */
    const char *path;            /* the file's name as given (for messages) */
    double max_wall_s;           /* settings.max_wall_s */
    double sm_clock_mhz, mem_clock_mhz, bus_width_bits; /* device */
    int n_resumed;               /* how many times the run was resumed */
    int tf32;                    /* settings.tf32: 1, 0, or 0 for files written before it (IEEE float32) */
    const char *flush;           /* settings.flush: write|clean|none; NULL in files written before
                                    it (those always flushed with a memset: write) */
    char **owned;                /* private: strings the doc made (path, numbers as text) */
    int n_owned;
} fb_rs_doc;

/* fb_result_read + build: FB_E_CASE (exit 3) for a missing, unreadable or
 * invalid file, with result.c's messages; FB_E_NOMEM when out of memory. */
fb_status fb_rs_load(const char *path, fb_rs_doc *out);
/* Build from a document in memory. Validates it first (fb_result_check), so a
 * hand-made tree is as safe as a read file. Takes its own reference to `doc`
 * (json_incref): the caller keeps, and still releases, its own. */
fb_status fb_rs_from_json(json_t *doc, const char *path, fb_rs_doc *out);
void fb_rs_free(fb_rs_doc *d);

/* Lookups: NULL when absent. */
const fb_rs_variant *fb_rs_find_variant(const fb_rs_cell *c, const char *name);
/* fb_rs_find_cell: grid 0's cell (the only grid of a case without fixed symbols);
 * fb_rs_find_cell_in: grid g's. */
const fb_rs_cell *fb_rs_find_cell(const fb_rs_dtype *d, int64_t row, int64_t col);
const fb_rs_cell *fb_rs_find_cell_in(const fb_rs_dtype *d, int grid, int64_t row, int64_t col);
/* Grid g's value of fixed symbol f. */
int64_t fb_rs_grid_value(const fb_rs_case *c, int grid, int f);
/* "K=1024 B=2": grid g's fixed values ("" for a case without), as run's grids are
 * headed (fb_grid_label); returns buf. */
const char *fb_rs_grid_label(const fb_rs_case *c, int grid, char *buf, size_t n);
/* FB_E_USAGE naming the first case of `doc` (of `only`, when given) with fixed
 * size symbols, for the readers that do not yet split by grid: "PATH:
 * cases[0] ('mm') has fixed size symbols (one grid per value); WHAT does not
 * read such cases yet"; FB_OK when there is none. */
fb_status fb_rs_refuse_fixed(const fb_rs_doc *doc, const char *only, const char *what);
const fb_rs_case *fb_rs_find_case(const fb_rs_doc *doc, const char *name);
/* Accepts the command line's aliases ("bf16" finds "bfloat16"). */
const fb_rs_dtype *fb_rs_find_dtype(const fb_rs_case *c, const char *dtype);
/* Index of `name` in the case's variant list, or -1. */
int fb_rs_case_variant_index(const fb_rs_case *c, const char *name);

/* A measurement with a number to show: status ok and a time (checked or not). */
int fb_rs_is_timed(const fb_rs_variant *v);
/* t_baseline_median / t_variant_median: NaN unless both are ok and timed. */
double fb_rs_speedup(const fb_rs_variant *variant, const fb_rs_variant *baseline);

#ifdef __cplusplus
}
#endif
#endif
