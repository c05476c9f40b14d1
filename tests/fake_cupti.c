/* fake_cupti.c — stand-ins for libcupti, so the loader's refusals (src/metrics.c)
 * are tested without CUDA 13's CUPTI or a GPU (tests/test_cli.sh, through
 * $FB_CUPTI_LIB): built as fake_cupti_old.so (every entry point, but
 * cuptiGetVersion says CUDA 12.9) and fake_cupti_partial.so (a current version,
 * but one range-profiler entry point missing, as in a CUPTI before 12.6). No
 * entry point but cuptiGetVersion is ever called: the loader refuses first. */
#include <stdint.h>

#ifndef FAKE_VERSION
#define FAKE_VERSION 130001u
#endif

#define FAKE(name)                 \
    int name(void *p);             \
    int name(void *p)              \
    {                              \
        (void)p;                   \
        return 999; /* CUPTI_ERROR_UNKNOWN */ \
    }

int cuptiGetVersion(uint32_t *v);
int cuptiGetVersion(uint32_t *v)
{
    *v = FAKE_VERSION;
    return 0;
}

FAKE(cuptiGetResultString)
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
#ifndef FAKE_PARTIAL
FAKE(cuptiRangeProfilerCounterDataGetRangeInfo)
#endif
