/* test_tune.c — the library tuner's choice rule (src/tune_rounds.c's fb_tune_pick), no GPU:
 * the fastest median wins, but the heuristic's first is kept when it is within 1% of it
 * (stop 31: candidates tied to 0.1% swapped run to run), failed or cut candidates (negative
 * medians) never win, and nothing timed is -1. */
#include "testing.h"
#include "tune_rounds.h"

int main(void)
{
    const double tie[] = {1.000, 0.995};             /* within 1%: the first */
    const double gap[] = {1.000, 0.980};             /* 2% faster: the second */
    const double cut[] = {-1, 2.0, 1.5};             /* the first failed: the fastest of the rest */
    const double none[] = {-1, -1};                  /* nothing ran */
    const double far[] = {1.000, 0.989, 0.985};      /* the best is more than 1% ahead of the first */
    const double inside[] = {1.009, 1.000};          /* just inside the margin: the first */
    const double outside[] = {1.011, 1.000};         /* just outside: the second */
    const double first_cut[] = {-1, 1.000, 0.995};   /* no first to prefer: the fastest */
    CHECK(fb_tune_pick(tie, 2) == 0);
    CHECK(fb_tune_pick(gap, 2) == 1);
    CHECK(fb_tune_pick(cut, 3) == 2);
    CHECK(fb_tune_pick(none, 2) == -1);
    CHECK(fb_tune_pick(none, 0) == -1);
    CHECK(fb_tune_pick(far, 3) == 2);
    CHECK(fb_tune_pick(inside, 2) == 0);
    CHECK(fb_tune_pick(outside, 2) == 1);
    CHECK(fb_tune_pick(first_cut, 3) == 2);
    CHECK(fb_tune_pick(gap, 1) == 0); /* one candidate */
    return fb_t_report("test_tune");
}
