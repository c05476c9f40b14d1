/* op_table.h — the op table: one entry per op *kind*, each in its own file
 * (op_unary.c, op_binary.c, op_reduce.c, op_random.c, op_matmul.c, op_conv2d.c,
 * op_batchnorm.c), owning everything that is specific to it, so that the loader,
 * the program walks, the reference, eager and the check never switch on an op:
 *
 *   parse      its attributes, read from the case file into the node's bag
 *   shape      the output shape from the operand shapes
 *   cost       FLOPs and the bytes eager moves, as functions of the shapes
 *   reference  the float64 result on the CPU
 *   eager      one launch (or a few) on the GPU, given the context and workspace
 *   rows       how the sampled check may split a program through it
 *
 * Adding a kind (matmul through cuBLASLt, conv2d through cuDNN) is one new file
 * that defines a `const fb_op_kind` and one line in op_table.c's table. */
#ifndef FB_OP_TABLE_H
#define FB_OP_TABLE_H

#include "../device.h"
#include "../program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reading attributes (implemented by case.c over the JSON node) ----------
 * Messages are the loader's: "PATH: program[2].dim: expected an integer dim, got 1.5".
 * *present is false (and *out untouched) when the key is absent. */
typedef struct fb_attr_reader fb_attr_reader;
fb_status fb_read_int(fb_attr_reader *r, const char *key, int64_t *out, bool *present);
fb_status fb_read_real(fb_attr_reader *r, const char *key, double *out, bool *present);
fb_status fb_read_bool(fb_attr_reader *r, const char *key, bool *out, bool *present);
/* A string that must be one of names[0..n): *out is its index. A misspelling gets
 * "unknown layout 'NWHC' (expected NHWC or NCHW)" or a "did you mean". */
fb_status fb_read_enum(fb_attr_reader *r, const char *key, const char *const *names, int n, int *out,
                       bool *present);
/* A semantic error: "PATH: program[2].KEY: message" (key NULL: "PATH: program[2]: message"). */
fb_status fb_read_fail(fb_attr_reader *r, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- what the kinds' functions receive ---------------------------------------- */

/* Cost of one node at concrete shapes. */
typedef struct fb_node_cost {
    double flops;         /* useful arithmetic, by the kind's convention          */
    double bytes_read;    /* what eager's launch reads ...                         */
    double bytes_written; /* ... and writes                                        */
    int launches;         /* kernel launches eager makes for it                    */
} fb_node_cost;

/* The float64 reference of one node. Operands are dense row-major arrays; a
 * literal is a pointer to its number with a rank-0 shape. */
typedef struct fb_ref_args {
    const double *in[FB_MAX_OPERANDS];
    const fb_shape *in_shape[FB_MAX_OPERANDS];
    double *out;
    const fb_shape *out_shape;
    int64_t out_base; /* flat index of out[0] in the full output tensor: 0, or the
                         slice's offset when the check evaluates sampled rows */
} fb_ref_args;

/* One eager launch. */
typedef struct fb_eager_args {
    const fb_tensor *in[FB_MAX_OPERANDS]; /* NULL for a literal operand ...      */
    double lit[FB_MAX_OPERANDS];          /* ... whose number is here            */
    fb_tensor *out;
    fb_context *ctx;                      /* device facts, cuBLAS(Lt)/cuDNN handles */
    cudaStream_t stream;                  /* launch here (the timer's stream)    */
    void *workspace;                      /* the kind's workspace(), or NULL     */
    size_t workspace_bytes;
    const char *what;                     /* "eager program[2] (exp)", for messages */
    void *plan;                           /* what the kind's prepare() built, or NULL */
} fb_eager_args;

/* Row rules trace axes: every axis of every value has an id, or -1 for a size-1
 * (broadcast) axis, which is never split. A rule says which axes of its output
 * are which axes of its operands, and which axes it combines along, and how:
 * by a plain sum (fb_rows_sum) or any other way (fb_rows_combine). */
typedef struct fb_axes {
    int rank;
    int id[FB_MAX_RANK];
} fb_axes;
typedef struct fb_rowctx fb_rowctx; /* rowplan.c */
/* a and b (ids, or -1) are the same axis; returns the id to use for it */
int fb_rows_same(fb_rowctx *rc, int a, int b);
/* the node combines values along this axis in a way other than a plain sum
 * (max, mean, a sum whose terms mix several operands): no check may split it */
void fb_rows_combine(fb_rowctx *rc, int id);
/* the node's output is its one operand summed along this axis, nothing more (no
 * scaling: mean is not a plain sum): the sum of the node's results on parts of
 * the axis is its result on the whole. A check may then split the axis into rows
 * and add the rows' results, when what the node computes reaches the program's
 * outputs only through further plain sums (rowplan.c decides; program.h). */
void fb_rows_sum(fb_rowctx *rc, int id);
/* a new axis, dim `dim` of the node's output, that no operand has (a
 * convolution's output rows and columns); -1 when that dim has size 1, as for any
 * size-1 axis */
int fb_rows_fresh(fb_rowctx *rc, int dim);
/* numpy broadcasting of two operands' axes (right-aligned) */
void fb_rows_broadcast(fb_rowctx *rc, const fb_axes *a, const fb_axes *b, fb_axes *out);

/* ---- the kind ------------------------------------------------------------------ */
typedef struct fb_op_kind {
    const char *name;            /* "unary", "binary", "reduce", "random"          */
    const char *const *ops;      /* the op names it implements; fb_node.op indexes it */
    int n_ops;
    int n_in;                    /* operand count                                   */
    bool literals;               /* operands may be numeric literals (not all)      */
    const char *const *attrs;    /* attribute keys a node may carry (for the loader) */
    int n_attrs;
    /* Its reference reads fb_ref_args.out_base: an output element's value depends
     * on its flat index in the whole tensor (dropout's counter-based mask), so the
     * row reference must evaluate rows at their true offsets and cannot gather
     * sampled rows into one block (rowref.c). */
    bool positional;

    /* Read n's attributes (with their defaults) into n->attrs. NULL: none. */
    fb_status (*parse)(fb_attr_reader *r, fb_node *n);
    /* The output shape. Errors: FB_E_CASE and fb_error("FIELD: message"), e.g.
     * "dim: dim 2 is out of range for a rank-2 tensor"; program.c prefixes "program[i].". */
    fb_status (*shape)(const fb_node *n, const fb_shape *const *in, fb_shape *out);
    /* Cost at concrete shapes; `elem` is the dtype's size in bytes. */
    void (*cost)(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem,
                 fb_node_cost *c);
    /* The float64 result. Shapes are consistent (program.c checked them). */
    fb_status (*reference)(const fb_node *n, const fb_ref_args *a);
    /* Device workspace its eager launch needs. NULL: none. */
    size_t (*workspace)(const fb_node *n, const fb_shape *const *in, const fb_shape *out, fb_dtype dt);
    /* The eager launch, on a->stream only, allocating nothing. NULL: no eager form
     * (eager reports the program unsupported). */
    fb_status (*eager)(const fb_node *n, const fb_eager_args *a);
    /* Build what the eager launch needs, outside the timed region: library
     * descriptors, the algorithm choice, plans (cuBLASLt, cuDNN). `a` holds the
     * launch's arguments as eager will pass them (the tensors at their final
     * addresses, so alignment can be assumed); *plan is handed to every eager
     * launch as a->plan and finally to release(). Both NULL: nothing to prepare. */
    fb_status (*prepare)(const fb_node *n, const fb_eager_args *a, void **plan);
    void (*release)(void *plan);
    /* The workspace the prepared plan's launch needs, which may be more than
     * workspace() asked for from shapes alone: a library's ranking may put first an
     * algorithm that wants more, and eager takes it as torch does. fb_eager_prepare
     * grows the shared workspace to the largest before any launch. NULL: workspace()
     * is enough. */
    size_t (*plan_workspace)(const void *plan);
    /* The row rule: out's axes from the operands' (literals: rank 0), and the axes
     * it combines along (fb_rows_sum, fb_rows_combine). NULL: the node combines
     * along every axis of its operands, and the program cannot be split into rows. */
    void (*rows)(const fb_node *n, fb_rowctx *rc, const fb_axes *const *in, fb_axes *out);
} fb_op_kind;

/* ---- the table ------------------------------------------------------------------- */
int fb_op_kind_count(void);
const fb_op_kind *fb_op_kind_at(int k);          /* NULL when out of range */
/* Find an op by name: 0 and (kind, op), or -1. */
int fb_op_lookup(const char *name, int *kind, int *op);
/* Every op name of every kind, for "did you mean"; returns the count (<= max). */
int fb_op_names(const char **names, int max);

/* The node's kind and op name; NULL / "?" when the node is broken. */
const fb_op_kind *fb_node_kind(const fb_node *n);
const char *fb_node_op_name(const fb_node *n);

/* ---- helpers shared by kinds ------------------------------------------------------ */
/* A dim as written (negative counts from the end) -> 0..rank-1, or -1. */
int fb_normalize_dim(int64_t dim, int rank);
/* The usual eager traffic: every value operand read once, the output written once, one launch. */
void fb_cost_eager_traffic(const fb_node *n, const fb_shape *const *in, const fb_shape *out, size_t elem,
                           fb_node_cost *c);

#ifdef __cplusplus
}
#endif
#endif
