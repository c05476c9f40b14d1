/* program.h — a case as a program of primitive ops (the data case.c loads),
 * shape binding over a grid point, ideal bytes / FLOPs / eager kernel count, the
 * float64 CPU interpreter that is the reference for every check, and the row plan
 * that lets a large cell be checked on sampled rows. Everything op-specific is
 * the op table's (src/ops/op_table.h); program.c only walks the program. */
#ifndef FB_PROGRAM_H
#define FB_PROGRAM_H

#include "fb.h"
#include "ops/attrs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the program ----------------------------------------------------------- */
#define FB_NAME_MAX 64
#define FB_MAX_SYMS 8
#define FB_MAX_VALUES 64
#define FB_MAX_NODES 64
#define FB_MAX_OPERANDS 5 /* batchnorm: x, mean, var, gamma, beta */
#define FB_MAX_FUSED 16
#define FB_MAX_GRID 64 /* values per grid axis */
#define FB_MAX_GRIDS 64 /* grids per case: combinations of the fixed symbols' values */

typedef enum fb_init {
    FB_INIT_NORMAL,   /* N(0, 1)                     */
    FB_INIT_UNIFORM,  /* U(-1, 1)                    */
    FB_INIT_POSITIVE, /* U(0.5, 1.5): safe for log, sqrt, div */
    FB_INIT_ROW_SIMPLEX, /* U(0.5, 1.5), each row divided by its sum: positive rows summing to 1 */
    FB_NINITS
} fb_init;
const char *fb_init_name(fb_init i);

typedef struct fb_dim {
    int sym;      /* index into fb_case.sym, or -1 for a literal size */
    int64_t size; /* the literal size when sym < 0                   */
} fb_dim;

typedef struct fb_sym_shape {
    int rank;
    fb_dim dim[FB_MAX_RANK];
} fb_sym_shape;

typedef struct fb_operand {
    bool literal;  /* a numeric literal rather than a value */
    double number; /* the literal                           */
    int value;     /* index into fb_case.values             */
} fb_operand;

/* One op: what it computes is its *kind* (src/ops/op_table.h: unary, binary,
 * reduce, random, ...) and the op within the kind (exp, add, sum, dropout). */
typedef struct fb_node {
    int kind;       /* index into the op table (fb_op_kind_at) */
    int op;         /* which op of the kind: index into its ops[] */
    int n_in;
    fb_operand in[FB_MAX_OPERANDS];
    fb_attrs attrs; /* dim, keepdim, p, seed, ...: as the kind's parse stored them */
    int out;        /* index into fb_case.values */
} fb_node;

typedef struct fb_value {
    char name[FB_NAME_MAX];
    bool is_input;
    fb_sym_shape shape; /* inputs only; node outputs get their shape by inference */
    fb_init init;       /* inputs only */
    int producer;       /* node index that writes it, -1 for inputs */
} fb_value;

typedef struct fb_tol {
    bool set;
    double atol, rtol;
} fb_tol;

typedef struct fb_axis {
    int sym; /* which symbol this axis sweeps */
    int n;
    int64_t v[FB_MAX_GRID];
} fb_axis;

typedef struct fb_case {
    char name[FB_NAME_MAX];
    char summary[256];
    char path[4096]; /* where it was loaded from: PATH_MAX, so a loadable path is never cut */

    int n_syms;
    char sym[FB_MAX_SYMS][FB_NAME_MAX];

    /* values: the inputs first (case-file order), then node outputs (program order) */
    int n_values, n_inputs;
    fb_value values[FB_MAX_VALUES];

    int n_nodes;
    fb_node nodes[FB_MAX_NODES];

    int n_outputs;
    int outputs[FB_MAX_VALUES]; /* value indices, case-file order */

    int n_fused;
    char fused[FB_MAX_FUSED][FB_NAME_MAX];
    /* The case file's "paired": the registered variant that computes the program's first op
     * alone (matmul.tuned), or "eager" (that op's own kernel: conv's cuDNN call), which each
     * fused variant is also timed against sample by sample (bench.h: fb_timer_measure_paired);
     * "" when the case names none. */
    char paired[FB_NAME_MAX];

    int n_dtypes;
    fb_dtype dtypes[FB_NDTYPES]; /* case-file order */

    int n_axes;        /* 1 or 2: axis[0] is the grid's rows, axis[1] its columns */
    fb_axis axis[2];
    /* The case file's "fixed": every other size symbol, with the values it takes;
     * each combination of them is one grid of axis[0] x axis[1] (the first fixed
     * symbol varies slowest). n_fixed 0: one grid, as before fixed symbols. */
    int n_fixed;
    fb_axis fixed[FB_MAX_SYMS];

    fb_tol tol[FB_NDTYPES]; /* defaults filled in by the loader when the file is silent */
} fb_case;

/* A grid point: the value of every symbol. */
typedef struct fb_point {
    int64_t sym[FB_MAX_SYMS];
} fb_point;

/* "dim0=128 dim1=256": the grid axes' values at a point, then the fixed
 * symbols' ("M=128 N=256 K=1024"); returns buf. */
const char *fb_point_str(const fb_case *c, const fb_point *p, char *buf, size_t n);

/* The grid a point belongs to, by its fixed symbols: "K=1024 B=2", or "" for a
 * case without fixed symbols; returns buf. */
const char *fb_grid_label(const fb_case *c, const fb_point *p, char *buf, size_t n);

/* Grid points in run order: grid by grid (the fixed symbols' combinations, the
 * first fixed symbol slowest), row by row, column by column. fb_case_n_points
 * counts them; fb_case_point writes point i (0 <= i < n) with every symbol set. */
int fb_case_n_grids(const fb_case *c);
int fb_case_n_points(const fb_case *c);
void fb_case_point(const fb_case *c, int i, fb_point *p);

/* Concrete shapes of every value at a point. Fails with FB_E_CASE and a message
 * naming the node (e.g. "program[1].in: shapes [4, 8] and [3] do not broadcast")
 * when shapes do not broadcast or a reduction dim is out of range. */
fb_status fb_program_shapes(const fb_case *c, const fb_point *p, fb_shape shapes[FB_MAX_VALUES]);

/* The program's first op as a program of its own (the "floor" a paired measurement runs: the
 * case's plain op): its value operands as inputs, in operand order, each with its init and
 * symbolic shape, and its output as the only output; the case's symbols, grid, dtypes and
 * tolerances, and `paired` as its one fused variant (none when it is "eager"). in_of[j] receives the index, among the
 * case's inputs, of the floor's input j. FB_E_CASE when the first op reads a literal only, or
 * reads one input twice (a floor must be callable on distinct tensors). */
fb_status fb_case_floor(const fb_case *c, fb_case *floor, int in_of[FB_MAX_OPERANDS]);
/* Is `variant` of case c timed in pairs with its plain op? Its fused variants are, when the case
 * names one, but not the plain op itself; eager is not (its extra cost is tens of percent, which
 * its own cells say). run's cells and its grids ask this one question. */
bool fb_case_pairs(const fb_case *c, const char *variant);

/* Numpy broadcasting of two shapes (right-aligned). 0 ok, -1 incompatible. */
int fb_broadcast(const fb_shape *a, const fb_shape *b, fb_shape *out);

typedef struct fb_costs {
    double in_bytes;     /* every program input read once              */
    double out_bytes;    /* every program output written once          */
    double ideal_bytes;  /* in_bytes + out_bytes                       */
    double flops;        /* the sum of every node's kind's count       */
    int eager_kernels;   /* the sum of every node's launches (one each today) */
    double eager_bytes;  /* what eager moves: each node reads its operands, writes its output */
} fb_costs;

/* Costs at concrete shapes for a dtype, each node's from its kind's cost rule.
 * FB_E_CASE with a message when a byte count overflows int64. */
fb_status fb_program_costs(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt,
                           fb_costs *out);

/* The reference: interpret the program in float64. inputs[i] holds value i
 * (i < n_inputs) as a dense row-major double array of shapes[i]; outputs[k]
 * receives output k (caller-allocated, numel of shapes[c->outputs[k]]).
 * Intermediates are allocated and freed inside. Reductions accumulate in double. */
fb_status fb_reference_eval(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES],
                            const double *const *inputs, double *const *outputs);

/* The same on a slice of every tensor (a row plan's rows): shapes are the slices'
 * shapes and base[v] the flat index, in value v's full tensor, of the slice's first
 * element, which ops that depend on the element index (dropout) need. base NULL:
 * whole tensors (all 0). peak (when not NULL, caller-initialised) gets, per node
 * output v, max(peak[v], the largest finite |element| of v): how large the values
 * a dtype must hold get (fb_dtype_overflows). */
fb_status fb_reference_eval_at(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], const int64_t *base,
                               const double *const *inputs, double *const *outputs, double *peak);

/* The same with every value's buffer from the caller, allocating nothing (the
 * row engine's per-chunk call): vals[v] for v < n_inputs holds input v, and for
 * every node output v receives it (numel of shapes[v] doubles; outputs are node
 * outputs like any other). base and peak as fb_reference_eval_at's. */
fb_status fb_reference_eval_values(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], const int64_t *base,
                                   double *const *vals, double *peak);

/* True when storing v in dt rounds it to infinity (|v| beyond dt's largest finite
 * value by half an ulp or more). */
bool fb_dtype_overflows(fb_dtype dt, double v);

/* ---- the row plan (src/rowplan.c) ---------------------------------------------
 * How a cell too large to check in full is checked row by row.
 *
 * Every axis of every value is traced through the program by the kinds' row
 * rules: broadcasting makes two axes one, a reduction marks the axis it combines
 * along, as a plain sum (sum) or otherwise (amax, mean). The plan splits on the
 * longest run of leading axes of outputs[0] (never its last, unless it has only
 * one) that no node combines along other than by plain sums, and that lead every
 * value carrying them (so each value's slice is contiguous); when outputs[0]
 * gives none, the first other output or input that gives some. Row r of the
 * plan is one index along those axes; a value without them (a weight, a bias) is
 * read whole in every row. A softmax or layernorm splits on its leading dims and
 * keeps the last; [A, B, C] summed over dim 1 splits on A.
 *
 * A plain sum along a split axis makes its result *partial*: a row gives a part,
 * the whole is the sum of all rows' parts. That is allowed when every partial
 * value reaches the outputs only through further plain sums of it alone (sum
 * over dim 0 of [R, W]; rmsnorm_backward's dw, summed over dx's [4, T] rows):
 * then every row is evaluated and the partial outputs added up (accumulates). A
 * partial value read by anything else (a sum over dim 0 feeding a mul), or any
 * other combining along a split axis (amax, mean), and the axis is not split; a
 * cell of a program that splits on nothing and is too large to check in full is
 * reported unchecked. */
typedef struct fb_rowplan {
    bool separable;
    char why[160];                              /* when not separable           */
    int64_t n_rows;
    int n_split;                                /* axes the rows split on        */
    int64_t split_size[FB_MAX_RANK];            /* their sizes (row r is row-major over them) */
    fb_shape row_shape[FB_MAX_VALUES];          /* every value's slice: split axes set to 1 */
    int64_t stride[FB_MAX_VALUES][FB_MAX_RANK]; /* element stride of split axis s in value v, 0 when v lacks it */
    signed char split_dim[FB_MAX_VALUES][FB_MAX_RANK]; /* which split axis dim j of value v is, or -1 */
    bool partial[FB_MAX_VALUES];                /* a sum over rows: each row gives a part of it */
    bool accumulates;                           /* some value is partial: every row counts */
    bool boxes; /* every value carries its split axes in plan order, so a box of rows
                   (leading split axes fixed, one a range, the rest whole) is one
                   contiguous slice of every value (rowref.c evaluates such boxes) */
} fb_rowplan;

/* Not separable is not an error: rp->separable false and rp->why say why.
 * FB_E_CASE only for a broken program or a row count that overflows int64. */
fb_status fb_program_rowplan(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_rowplan *rp);

/* Element offset, into value v's full dense tensor, of the slice that row r
 * reads; the slice is contiguous, row_shape[v]'s numel long. */
int64_t fb_rowplan_offset(const fb_rowplan *rp, int v, int64_t r);

#ifdef __cplusplus
}
#endif
#endif
