/* rowref.h — the float64 reference of a cell evaluated over a row plan's rows
 * (program.h): inputs fetched a chunk of many rows at a time, chunks evaluated by
 * several threads, and partial values (sums over rows: rmsnorm_backward's dw)
 * added up over every row in a fixed order, so the result is the same whatever
 * the thread count. check.c builds every large cell's reference with it, and a
 * small one's when the program splits into rows (it is faster than evaluating
 * the whole program at once, and holds a chunk of each intermediate, not all). */
#ifndef FB_ROWREF_H
#define FB_ROWREF_H

#include "program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the inputs come from: n elements of input `input` from flat index
 * `offset`, as doubles. Called from the worker threads, concurrently. */
typedef fb_status (*fb_rowref_fetch)(void *ctx, int input, int64_t offset, int64_t n, double *dst);

typedef struct fb_rowref_job {
    const fb_case *c;
    const fb_shape *shapes;  /* the cell's full shapes (fb_program_shapes)            */
    const fb_rowplan *rp;    /* separable                                             */
    fb_rowref_fetch fetch;
    void *fetch_ctx;
    /* Which rows' slices of the non-partial outputs to keep: `keep` (ascending,
     * unique, n_keep of them), each output's slices one after another in out[k];
     * NULL: every row, each slice written where it belongs in out[k], the whole
     * tensor. Partial outputs are always whole: the sum over every row. */
    const int64_t *keep;
    int64_t n_keep;
    double *out[FB_MAX_VALUES]; /* per output k, caller-allocated */
    /* Per value, caller-initialised (or NULL): max(peak[v], the largest finite
     * |element| of node output v over the rows evaluated); a partial value's from
     * its sum over all rows, which is what eager stores. */
    double *peak;
    int threads;         /* 0: one per online CPU                                  */
    int64_t chunk_elems; /* doubles a chunk may hold over all values; 0: 2^19      */
} fb_rowref_job;

/* Every row is evaluated when keep is NULL or the plan accumulates, else only the
 * kept rows. Errors: the fetch's, FB_E_NOMEM, or the interpreter's. */
fb_status fb_rowref_eval(const fb_rowref_job *job);

/* Rows per chunk and chunks for this plan and budget (0: the default), as
 * fb_rowref_eval splits every row; for tests and the report. */
void fb_rowref_chunking(const fb_case *c, const fb_shape *shapes, const fb_rowplan *rp, int64_t chunk_elems,
                        int64_t *rows_per_chunk, int64_t *chunks);

#ifdef __cplusplus
}
#endif
#endif
