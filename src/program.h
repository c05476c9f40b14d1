/* program.h — a case as a program of primitive ops (the data case.c loads), the
 * op table, shape binding over a grid point, ideal bytes / FLOPs / eager kernel
 * count, and the float64 CPU interpreter that is the reference for every check. */
#ifndef FB_PROGRAM_H
#define FB_PROGRAM_H

#include "fb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the op table ---------------------------------------------------------
 * One row per primitive. `kind` decides how shapes, costs, the reference and the
 * eager launch are derived; matmul and conv2d slot in as new kinds and rows. */
typedef enum fb_op_kind {
    FB_OPK_UNARY,   /* y = f(x), same shape                                        */
    FB_OPK_BINARY,  /* y = f(a, b), numpy broadcasting, either operand may be a literal */
    FB_OPK_REDUCE,  /* y = reduce(x, dim), keepdim: y has size 1 along dim           */
    FB_OPK_MATMUL,  /* reserved: batched matmul through cuBLAS                      */
    FB_OPK_CONV2D,  /* reserved: conv2d through cuDNN                               */
} fb_op_kind;

typedef enum fb_op {
    /* unary */
    FB_OP_NEG, FB_OP_ABS, FB_OP_EXP, FB_OP_LOG, FB_OP_COS, FB_OP_SIN, FB_OP_TANH,
    FB_OP_SQRT, FB_OP_RSQRT, FB_OP_RELU, FB_OP_SIGMOID, FB_OP_ERF, FB_OP_RECIPROCAL,
    FB_OP_SQUARE,
    /* binary */
    FB_OP_ADD, FB_OP_SUB, FB_OP_MUL, FB_OP_DIV, FB_OP_MAX, FB_OP_MIN, FB_OP_POW,
    /* reductions (keepdim) */
    FB_OP_SUM, FB_OP_AMAX, FB_OP_AMIN, FB_OP_MEAN,
    FB_NOPS
} fb_op;

typedef struct fb_op_info {
    const char *name;     /* as written in case files */
    fb_op_kind kind;
    int n_in;             /* operand count */
    double flops;         /* FLOPs per output element (unary/binary) or per input element (reduce) */
} fb_op_info;

extern const fb_op_info fb_ops[FB_NOPS];
int fb_op_from_name(const char *name); /* index into fb_ops, or -1 */

/* ---- the program ----------------------------------------------------------- */
#define FB_NAME_MAX 64
#define FB_MAX_SYMS 8
#define FB_MAX_VALUES 64
#define FB_MAX_NODES 64
#define FB_MAX_OPERANDS 3
#define FB_MAX_FUSED 16
#define FB_MAX_GRID 64 /* values per grid axis */

typedef enum fb_init {
    FB_INIT_NORMAL,   /* N(0, 1)                     */
    FB_INIT_UNIFORM,  /* U(-1, 1)                    */
    FB_INIT_POSITIVE, /* U(0.5, 1.5): safe for log, sqrt, div */
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

typedef struct fb_node {
    fb_op op;
    int n_in;
    fb_operand in[FB_MAX_OPERANDS];
    int dim;  /* reductions: the dim as written (may be negative) */
    int out;  /* index into fb_case.values */
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

    int n_dtypes;
    fb_dtype dtypes[FB_NDTYPES]; /* case-file order */

    int n_axes;        /* 1 or 2: axis[0] is the grid's rows, axis[1] its columns */
    fb_axis axis[2];

    fb_tol tol[FB_NDTYPES]; /* defaults filled in by the loader when the file is silent */
} fb_case;

/* A grid point: the value of every symbol. */
typedef struct fb_point {
    int64_t sym[FB_MAX_SYMS];
} fb_point;

/* "dim0=128 dim1=256": the grid axes' values at a point; returns buf. */
const char *fb_point_str(const fb_case *c, const fb_point *p, char *buf, size_t n);

/* Concrete shapes of every value at a point. Fails with FB_E_CASE and a message
 * naming the node (e.g. "program[1].in: shapes [4, 8] and [3] do not broadcast")
 * when shapes do not broadcast or a reduction dim is out of range. */
fb_status fb_program_shapes(const fb_case *c, const fb_point *p, fb_shape shapes[FB_MAX_VALUES]);

/* Numpy broadcasting of two shapes (right-aligned). 0 ok, -1 incompatible. */
int fb_broadcast(const fb_shape *a, const fb_shape *b, fb_shape *out);

typedef struct fb_costs {
    double in_bytes;     /* every program input read once              */
    double out_bytes;    /* every program output written once          */
    double ideal_bytes;  /* in_bytes + out_bytes                       */
    double flops;        /* counted from the ops                       */
    int eager_kernels;   /* one launch per node                        */
    double eager_bytes;  /* what eager moves: each node reads its operands, writes its output */
} fb_costs;

/* Costs at concrete shapes for a dtype. FB_E_CASE with a message when a byte
 * count overflows int64. */
fb_status fb_program_costs(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_dtype dt,
                           fb_costs *out);

/* The reference: interpret the program in float64. inputs[i] holds value i
 * (i < n_inputs) as a dense row-major double array of shapes[i]; outputs[k]
 * receives output k (caller-allocated, numel of shapes[c->outputs[k]]).
 * Intermediates are allocated and freed inside. Reductions accumulate in double. */
fb_status fb_reference_eval(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES],
                            const double *const *inputs, double *const *outputs);

/* Row view for checking large cells on a sample of rows.
 * A program is row-separable when every reduction is over the last dim. Then the
 * outputs' leading dims (all dims but the last, broadcast together) form n_rows
 * rows, and output row r depends only on row r of each input (or row 0 of an
 * input whose leading dims broadcast). */
typedef struct fb_rowplan {
    bool separable;
    char why[128];                      /* when not separable */
    int64_t n_rows;
    fb_shape row_shape[FB_MAX_VALUES];  /* every value's shape with leading dims set to 1 */
} fb_rowplan;

fb_status fb_program_rowplan(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], fb_rowplan *rp);

/* Element offset, into value v's full dense tensor, of the row that feeds output
 * row r (broadcast along leading dims). Its length is row_shape[v]'s numel. */
int64_t fb_rowplan_offset(const fb_case *c, const fb_shape shapes[FB_MAX_VALUES], int v, int64_t r);

#ifdef __cplusplus
}
#endif
#endif
