/* attrs.h — the attribute bag every program node carries: dim, keepdim, p, seed,
 * and whatever the next op kind needs (transposes, stride, padding, ...), stored
 * generically as (key, value) pairs, so that a new kind adds no field to fb_node.
 * Each kind's parse fills it (src/ops/op_*.c); its other functions read it back. */
#ifndef FB_ATTRS_H
#define FB_ATTRS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FB_MAX_ATTRS 8
#define FB_ATTR_KEY_MAX 16

typedef enum fb_attr_type { FB_ATTR_INT, FB_ATTR_REAL, FB_ATTR_BOOL } fb_attr_type;

typedef struct fb_attr {
    char key[FB_ATTR_KEY_MAX];
    fb_attr_type type;
    int64_t i; /* FB_ATTR_INT, FB_ATTR_BOOL (0 or 1) */
    double r;  /* FB_ATTR_REAL                        */
} fb_attr;

typedef struct fb_attrs {
    int n;
    fb_attr a[FB_MAX_ATTRS];
} fb_attrs;

/* Set (or replace) an attribute. -1 when the bag is full or the key too long:
 * a bug in a kind's parse, never a user error. */
int fb_attrs_set_int(fb_attrs *a, const char *key, int64_t v);
int fb_attrs_set_real(fb_attrs *a, const char *key, double v);
int fb_attrs_set_bool(fb_attrs *a, const char *key, bool v);

/* The attribute, or NULL. */
const fb_attr *fb_attrs_get(const fb_attrs *a, const char *key);
/* Its value, or `dflt` when absent. An INT read as real converts; a REAL read as int does not (dflt). */
int64_t fb_attr_int(const fb_attrs *a, const char *key, int64_t dflt);
double fb_attr_real(const fb_attrs *a, const char *key, double dflt);
bool fb_attr_bool(const fb_attrs *a, const char *key, bool dflt);

#ifdef __cplusplus
}
#endif
#endif
