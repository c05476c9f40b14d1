/* fake_cupti.c — stand-ins for libcupti, built as shared modules, so the
 * loader's refusals (src/cupti_loader.c) and the metrics pass's (src/metrics.c)
 * are tested without a GPU or a CUPTI of the version in question:
 *   fake_cupti.so          every entry point the timer and the metrics pass
 *                          use; cuptiGetVersion says $FAKE_CUPTI_VERSION, else
 *                          FAKE_VERSION (default 28: CUDA 12.9's CUPTI, too old)
 *   fake_cupti_new.so      the same, FAKE_VERSION 130002 (newer than the headers:
 *                          accepted, so a search passes over the old one for it)
 *   fake_cupti_partial.so  -DFAKE_PARTIAL: no cuptiActivityFlushAll (the loader
 *                          refuses it: not a CUPTI library)
 *   fake_cupti_noprof.so   -DFAKE_NO_PROFILER, a current version but one
 *                          range-profiler entry point missing (the loader takes
 *                          it, the metrics pass refuses it by name)
 * Nothing here is ever called but cuptiGetVersion and cuptiGetResultString: the
 * refusals come first, and the fakes are never used to time or profile. */
#include <stdint.h>
#include <stdlib.h>

#ifndef FAKE_VERSION
#define FAKE_VERSION 28u
#endif

int cuptiGetVersion(uint32_t *v);
int cuptiGetVersion(uint32_t *v)
{
    const char *s = getenv("FAKE_CUPTI_VERSION");
    *v = s ? (uint32_t)strtoul(s, NULL, 10) : FAKE_VERSION;
    return 0;
}

int cuptiGetResultString(int r, const char **s);
int cuptiGetResultString(int r, const char **s)
{
    (void)r;
    *s = "FAKE";
    return 0;
}

/* the cupti timer's (cupti_loader.h's fb_cupti_api) */
int cuptiActivityRegisterCallbacks(void *a, void *b);
int cuptiActivityRegisterCallbacks(void *a, void *b) { (void)a; (void)b; return 0; }
int cuptiActivityEnable(int k);
int cuptiActivityEnable(int k) { (void)k; return 0; }
int cuptiActivityDisable(int k);
int cuptiActivityDisable(int k) { (void)k; return 0; }
#ifndef FAKE_PARTIAL
int cuptiActivityFlushAll(uint32_t f);
int cuptiActivityFlushAll(uint32_t f) { (void)f; return 0; }
#endif
int cuptiActivityGetNextRecord(void *b, size_t n, void **r);
int cuptiActivityGetNextRecord(void *b, size_t n, void **r) { (void)b; (void)n; (void)r; return 1; }
int cuptiActivityGetNumDroppedRecords(void *c, uint32_t s, size_t *d);
int cuptiActivityGetNumDroppedRecords(void *c, uint32_t s, size_t *d) { (void)c; (void)s; *d = 0; return 0; }
int cuptiActivityPushExternalCorrelationId(int k, uint64_t id);
int cuptiActivityPushExternalCorrelationId(int k, uint64_t id) { (void)k; (void)id; return 0; }
int cuptiActivityPopExternalCorrelationId(int k, uint64_t *id);
int cuptiActivityPopExternalCorrelationId(int k, uint64_t *id) { (void)k; *id = 0; return 0; }

/* the metrics pass's (metrics.c's cupti_api): each fails, never reached */
#define FAKE(name)                            \
    int name(void *p);                        \
    int name(void *p)                         \
    {                                         \
        (void)p;                              \
        return 999; /* CUPTI_ERROR_UNKNOWN */ \
    }

FAKE(cuptiProfilerInitialize)
FAKE(cuptiProfilerDeInitialize)
FAKE(cuptiProfilerDeviceSupported)
FAKE(cuptiProfilerGetCounterAvailability)
FAKE(cuptiDeviceGetChipName)
FAKE(cuptiProfilerHostInitialize)
FAKE(cuptiProfilerHostDeinitialize)
FAKE(cuptiProfilerHostConfigAddMetrics)
FAKE(cuptiProfilerHostGetConfigImageSize)
FAKE(cuptiProfilerHostGetConfigImage)
FAKE(cuptiProfilerHostGetNumOfPasses)
FAKE(cuptiProfilerHostEvaluateToGpuValues)
FAKE(cuptiRangeProfilerEnable)
FAKE(cuptiRangeProfilerDisable)
FAKE(cuptiRangeProfilerSetConfig)
FAKE(cuptiRangeProfilerStart)
FAKE(cuptiRangeProfilerStop)
FAKE(cuptiRangeProfilerPushRange)
FAKE(cuptiRangeProfilerPopRange)
FAKE(cuptiRangeProfilerDecodeData)
FAKE(cuptiRangeProfilerGetCounterDataSize)
FAKE(cuptiRangeProfilerCounterDataImageInitialize)
FAKE(cuptiRangeProfilerGetCounterDataInfo)
#ifndef FAKE_NO_PROFILER
FAKE(cuptiRangeProfilerCounterDataGetRangeInfo)
#endif
