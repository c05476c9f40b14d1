#include "testing.h"
int main(void) { return fb_t_report("test_stats"); }
