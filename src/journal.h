/* journal.h — a run's journal: the cells it has finished, one line each, kept
 * next to its result file until the run ends.
 *
 * Why: rewriting the whole result document after every cell costs O(cells²)
 * over a run (tens of gigabytes for a full run of every case and dtype). A run
 * instead writes its document twice — when it starts (fb_journal_start) and when
 * it ends or is interrupted (fb_journal_finish) — and, in between, appends one
 * line per finished cell to PATH.journal: constant cost per cell, and a run
 * killed at any moment loses no finished cell, because `run --resume PATH` (and
 * merge) read the document and its journal together (fb_result_load).
 *
 * Format: JSON Lines. Each line is one JSON object ended by '\n', written with
 * one write() and fsync'ed before the run goes on:
 *   line 1  {"fusionbench_journal": 1, "head": HEAD}
 *             HEAD: the document's top (fusionbench, started, host, command,
 *             resumed, device, settings: every key but "cases"), so a journal
 *             alone rebuilds a document, and a journal is matched to its
 *             document by HEAD.started (one run keeps it through every resume).
 *   then    {"begin_case": CASE}            when the run starts a case: the case
 *             object as the document holds it from then on (grid values and
 *             variants widened by fb_result_begin_case, the baseline), with
 *             "dtypes": [].
 *           {"case": "softmax", "dtype": "float32", "cell": CELL}
 *             one per finished cell, as fb_cell_run measured it: the variants
 *             this run still needed (fb_result_cell_todo).
 *   CASE and CELL are result.h's. Reals have 9 significant digits, as in the
 *   document, so a rebuilt document prints exactly as the run's would have.
 * Rebuilding applies the lines in order, as the run applied them
 * (fb_result_begin_case's widening, fb_result_store_cell's merge): the result is
 * the document the run held in memory. Applying a journal twice changes nothing
 * (finished measurements are kept), so a crash between the final write of the
 * document and the removal of its journal is harmless.
 *
 * A line is written when its '\n' is: a last line without one (a kill or a full
 * disk in the middle of the write), or a last line that does not parse (a crash
 * that left a zero-filled tail), is ignored with a warning. Any other bad line,
 * or a journal of another run than the document beside it, is a bad input file
 * (FB_E_CASE, "PATH.journal:LINE: ..."). */
#ifndef FB_JOURNAL_H
#define FB_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>

#include "fb.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FB_JOURNAL_FORMAT 1

/* PATH.journal, malloc'ed (NULL when out of memory). */
char *fb_journal_path(const char *result_path);

/* What reading a journal found. */
typedef struct fb_journal_info {
    bool found;           /* there was a journal */
    int cells;            /* cell lines applied */
    char warning[1024];   /* not empty: a torn last line was ignored; say it on stderr */
} fb_journal_info;

/* ---- reading: resume, merge ---- */

/* The result at `path` as a run left it: the document PATH, with the cells of
 * its journal PATH.journal applied when there is one, or the document a journal
 * alone rebuilds when PATH is missing. Validated whole (fb_result_check).
 * FB_E_CASE (exit 3) for a bad or missing file, with fb_result_read's messages;
 * `info` (may be NULL) says what the journal held. */
fb_status fb_result_load(const char *path, json_t **root, fb_journal_info *info);

/* Applies the journal at `jpath` to *doc (a validated document), or builds the
 * document from the journal's head when *doc is NULL (then *doc stays NULL if
 * the journal holds no complete line). On failure *doc is freed and NULL. */
fb_status fb_journal_replay(const char *jpath, json_t **doc, fb_journal_info *info);

/* ---- writing: run ---- */

typedef struct fb_journal fb_journal;

/* A run's start: writes `doc` (its head and what a resumed file held) to
 * `result_path` atomically, then creates PATH.journal afresh with its head line.
 * In that order: a journal being replaced is only truncated once the document
 * holds its cells. FB_E_IO with the message on failure. */
fb_status fb_journal_start(const char *result_path, json_t *doc, fb_journal **out);
/* The begin_case line for `case_obj` (its dtypes are left out). */
fb_status fb_journal_begin_case(fb_journal *j, const json_t *case_obj);
/* A finished cell: its line first, then fb_result_store_cell into `dtype_obj`
 * of `case_obj` (which steals `fresh`, on failure too). FB_E_IO when the line
 * could not be written: the journal takes no more lines (a torn line must stay
 * the last), and the run should stop. */
fb_status fb_journal_store_cell(fb_journal *j, json_t *case_obj, json_t *dtype_obj, json_t *fresh);
/* A run's end (finished, failed or interrupted): writes `doc` to the result
 * path atomically, then removes the journal, and frees `j`. When the write
 * fails the journal stays (`--resume PATH` still has every cell): FB_E_IO. */
fb_status fb_journal_finish(fb_journal *j, json_t *doc);
/* Closes and frees `j`, leaving the journal on disk (tests: a killed run). */
void fb_journal_abandon(fb_journal *j);

#ifdef __cplusplus
}
#endif
#endif
