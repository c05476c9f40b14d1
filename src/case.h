/* case.h — case files (cases/NAME.json) into struct fb_case, strictly.
 *
 * Errors (status FB_E_CASE, message in fb_last_error()):
 *   syntax:    "PATH:LINE:COL: message"                     (from jansson's position)
 *   semantics: "PATH: program[2].op: unknown op 'exx' (did you mean 'exp'?)"
 *   files:     "PATH: no such file" / "PATH: is a directory" / "PATH: cannot read: <strerror>" */
#ifndef FB_CASE_H
#define FB_CASE_H

#include "program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Load and validate one case file. `c` is fully written on success. */
fb_status fb_case_load(const char *path, fb_case *c);

/* Same, from a string already in memory (tests); `path` is used in messages. */
fb_status fb_case_parse(const char *text, const char *path, fb_case *c);

/* What a JSON value is, for "expected X, got Y" (case files' and result files'
 * messages): "an object", "the string 'abc'" (cleaned and cut by fb_clean), a
 * number as written (integers as integers, reals always with a point or an
 * exponent: 4.0 is not 4 to a field that wants an integer). Returns buf or a
 * string constant. */
struct json_t;
const char *fb_json_describe(const struct json_t *j, char *buf, size_t n);

/* The directory of bundled cases: $FUSIONBENCH_CASES if set, else the source
 * tree's cases/ baked in at build time (FB_CASES_DIR). */
const char *fb_cases_dir(void);

/* Resolve a case name ("softmax") or a path ("my/case.json") and load it. */
fb_status fb_case_find(const char *name_or_path, fb_case *c);

/* True when fb_case_find reads the argument as a path (it holds '/' or ends in
 * ".json"); otherwise it is a name, loaded from fb_cases_dir()/NAME.json. */
bool fb_case_is_path(const char *name_or_path);

/* The cases in fb_cases_dir(): every NAME.json there whose NAME is a case name
 * (a-z, 0-9, '_', '.', '-', shorter than FB_NAME_MAX, and not ending in ".json",
 * which fb_case_find would read as a path), sorted by name; hidden files and other
 * extensions are not cases. A *.json file whose name breaks the rule is not left out
 * in silence: `bad` holds one message for each ("DIR/foo.json.json: not a case file
 * name: ..."), for the caller to report as a broken case. All of it is malloc'ed,
 * without limits; fb_case_dir_free releases it (also after a failure).
 * FB_E_CASE with a message when the directory cannot be opened or read. */
typedef struct fb_case_dir {
    int n;
    char **name; /* "softmax" */
    char **path; /* "DIR/softmax.json" */
    int n_bad;
    char **bad;
} fb_case_dir;

fb_status fb_case_list(fb_case_dir *out);
void fb_case_dir_free(fb_case_dir *d);

/* fb_case_list for a command that takes every case (`run --all`, `selftest`): also
 * FB_E_CASE when the directory holds a bad case file name, or no case at all
 * ("PREFIXno case files (*.json) in DIR: nothing to DOING"). d is freed on failure. */
fb_status fb_case_list_every(fb_case_dir *d, const char *prefix, const char *doing);

#ifdef __cplusplus
}
#endif
#endif
