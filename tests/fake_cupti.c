/* fake_cupti.c — stand-ins for libcupti, built as shared modules for test_cupti:
 * the loader must refuse a CUPTI that is too old (cuptiGetVersion reports
 * $FAKE_CUPTI_VERSION) and one that lacks a function it needs (built with
 * -DFAKE_PARTIAL: no cuptiActivityFlushAll). Nothing here is ever called but
 * cuptiGetVersion. */
#include <stdint.h>
#include <stdlib.h>

int cuptiGetVersion(uint32_t *v)
{
    const char *s = getenv("FAKE_CUPTI_VERSION");
    *v = s ? (uint32_t)strtoul(s, NULL, 10) : 28u;
    return 0;
}

int cuptiGetResultString(int r, const char **s) { (void)r; *s = "FAKE"; return 0; }
int cuptiActivityRegisterCallbacks(void *a, void *b) { (void)a; (void)b; return 0; }
int cuptiActivityEnable(int k) { (void)k; return 0; }
int cuptiActivityDisable(int k) { (void)k; return 0; }
#ifndef FAKE_PARTIAL
int cuptiActivityFlushAll(uint32_t f) { (void)f; return 0; }
#endif
int cuptiActivityGetNextRecord(void *b, size_t n, void **r) { (void)b; (void)n; (void)r; return 1; }
int cuptiActivityGetNumDroppedRecords(void *c, uint32_t s, size_t *d) { (void)c; (void)s; *d = 0; return 0; }
int cuptiActivityPushExternalCorrelationId(int k, uint64_t id) { (void)k; (void)id; return 0; }
int cuptiActivityPopExternalCorrelationId(int k, uint64_t *id) { (void)k; *id = 0; return 0; }
