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

/* The directory of bundled cases: $FUSIONBENCH_CASES if set, else the source
 * tree's cases/ baked in at build time (FB_CASES_DIR). */
const char *fb_cases_dir(void);

/* Resolve a case name ("softmax") or a path ("my/case.json") and load it. */
fb_status fb_case_find(const char *name_or_path, fb_case *c);

/* Names of every case in fb_cases_dir(), sorted; returns the count (<= max). */
int fb_case_list(char names[][FB_NAME_MAX], int max);

#ifdef __cplusplus
}
#endif
#endif
