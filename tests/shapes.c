/* shapes.c — see shapes.h. */
#include "shapes.h"

#include <stdio.h>

#include "ops/op_table.h"

fb_shape t_shape(int rank, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    fb_shape s = {rank, {d0, d1, d2, d3}};
    return s;
}

const char *t_shape_str(const fb_shape *s)
{
    static char buf[4][96];
    static int k;
    k = (k + 1) % 4;
    return fb_shape_str(s, buf[k], sizeof buf[k]);
}

const char *t_node_shape(const fb_node *n, int n_in, const fb_shape *in)
{
    static char buf[512];
    const fb_shape *p[FB_MAX_OPERANDS];
    for (int i = 0; i < n_in && i < FB_MAX_OPERANDS; i++) p[i] = &in[i];
    fb_shape out;
    fb_status s = fb_node_kind(n)->shape(n, p, &out);
    if (s == FB_OK) snprintf(buf, sizeof buf, "%s", t_shape_str(&out));
    else snprintf(buf, sizeof buf, "error %d: %s", (int)s, fb_last_error());
    return buf;
}
