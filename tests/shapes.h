/* shapes.h — the op-kind tests' shape helpers: a shape literal, a shape as text, and
 * a node's shape rule as text ("[2, 5]" or "error 2: MESSAGE"). */
#ifndef FB_T_SHAPES_H
#define FB_T_SHAPES_H
#include "program.h"

fb_shape t_shape(int rank, int64_t d0, int64_t d1, int64_t d2, int64_t d3);
/* "[2, 5]"; four results stay valid at once (a rotating buffer) */
const char *t_shape_str(const fb_shape *s);
/* n's output shape from its n_in operand shapes, as text, or "error N: MESSAGE" */
const char *t_node_shape(const fb_node *n, int n_in, const fb_shape *in);

#endif
