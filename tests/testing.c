#include "testing.h"
int fb_t_passed, fb_t_failed;
int fb_t_report(const char *suite)
{
    printf("%s: %d passed, %d failed\n", suite, fb_t_passed, fb_t_failed);
    return fb_t_failed ? 1 : 0;
}
