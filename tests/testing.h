/* testing.h — a tiny test harness: CHECK records a failure and goes on; the
 * binary ends with the plain "N passed, N failed" line and exits 1 on failure. */
#ifndef FB_TESTING_H
#define FB_TESTING_H
#include <stdio.h>
#include <string.h>
#include <math.h>

extern int fb_t_passed, fb_t_failed;
int fb_t_report(const char *suite);

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (cond) fb_t_passed++;                                                      \
        else { fb_t_failed++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)
#define CHECK_NEAR(a, b, tol)                                                         \
    do {                                                                              \
        double fb_a_ = (a), fb_b_ = (b);                                              \
        if (fabs(fb_a_ - fb_b_) <= (tol)) fb_t_passed++;                              \
        else { fb_t_failed++; fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g\n", \
                                      __FILE__, __LINE__, #a, fb_a_, #b, fb_b_); }    \
    } while (0)
#define CHECK_STR(a, b)                                                               \
    do {                                                                              \
        const char *fb_a_ = (a), *fb_b_ = (b);                                        \
        if (fb_a_ && fb_b_ && strcmp(fb_a_, fb_b_) == 0) fb_t_passed++;              \
        else { fb_t_failed++; fprintf(stderr, "%s:%d: CHECK_STR failed:\n  got:  %s\n  want: %s\n", \
                                      __FILE__, __LINE__, fb_a_ ? fb_a_ : "(null)", fb_b_ ? fb_b_ : "(null)"); } \
    } while (0)
#endif
