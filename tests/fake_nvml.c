/* fake_nvml.c — a stand-in for libnvidia-ml.so.1 with the entry points
 * src/clocks.c uses, so the NVML loader, the readings and the throttle watch
 * run without a GPU (test_clocks loads it through $FB_NVML_LIB). The test sets
 * what the "device" reports with fake_nvml_set, and can make any call fail. */
#include <string.h>

#define FAKE_SUCCESS 0
#define FAKE_ERROR_NOT_FOUND 6      /* NVML_ERROR_NOT_FOUND */
#define FAKE_ERROR_NOT_SUPPORTED 3  /* NVML_ERROR_NOT_SUPPORTED */
#define FAKE_ERROR_DRIVER 9         /* NVML_ERROR_DRIVER_NOT_LOADED */

/* fail bits */
#define FAIL_INIT 1
#define FAIL_HANDLE 2
#define FAIL_SM 4
#define FAIL_MEM 8
#define FAIL_TEMP 16
#define FAIL_POWER 32

static unsigned g_sm = 1980, g_mem = 2619, g_temp = 40, g_power_mw = 100000;
static int g_fail, g_inits, g_shutdowns;
static int g_device; /* what a handle points at */

void fake_nvml_set(unsigned sm, unsigned mem, unsigned temp, unsigned power_mw, int fail)
{
    g_sm = sm;
    g_mem = mem;
    g_temp = temp;
    g_power_mw = power_mw;
    g_fail = fail;
}

/* A clock that comes back: after `reads` more reads of the SM clock it reports `sm`
 * (fb_clock_watch_settle's wait); reads < 0: never. */
static unsigned g_sm_later;
static int g_sm_reads_left = -1;
void fake_nvml_recover(unsigned sm, int reads)
{
    g_sm_later = sm;
    g_sm_reads_left = reads;
}

/* What nvmlDeviceGetCurrentClocksThrottleReasons reports (nvmlClocksThrottleReason* bits). */
static unsigned long long g_reasons;
void fake_nvml_reasons(unsigned long long reasons) { g_reasons = reasons; }
int nvmlDeviceGetCurrentClocksThrottleReasons(void *dev, unsigned long long *reasons)
{
    (void)dev;
    *reasons = g_reasons;
    return FAKE_SUCCESS;
}

/* how many times nvmlInit_v2 and nvmlShutdown were called */
void fake_nvml_counts(int *inits, int *shutdowns)
{
    *inits = g_inits;
    *shutdowns = g_shutdowns;
}

int nvmlInit_v2(void)
{
    if (g_fail & FAIL_INIT) return FAKE_ERROR_DRIVER;
    g_inits++;
    return FAKE_SUCCESS;
}

int nvmlShutdown(void)
{
    g_shutdowns++;
    return FAKE_SUCCESS;
}

const char *nvmlErrorString(int r)
{
    switch (r) {
    case FAKE_SUCCESS: return "Success";
    case FAKE_ERROR_NOT_FOUND: return "Not Found";
    case FAKE_ERROR_NOT_SUPPORTED: return "Not Supported";
    case FAKE_ERROR_DRIVER: return "Driver Not Loaded";
    }
    return "Unknown Error";
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev)
{
    if ((g_fail & FAIL_HANDLE) || !bus || strcmp(bus, "00000000:01:00.0") != 0) return FAKE_ERROR_NOT_FOUND;
    *dev = &g_device;
    return FAKE_SUCCESS;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *clock)
{
    if (dev != &g_device) return FAKE_ERROR_NOT_FOUND;
    if (type == 1 && !(g_fail & FAIL_SM)) { /* NVML_CLOCK_SM */
        if (g_sm_reads_left == 0) {
            g_sm = g_sm_later;
            g_sm_reads_left = -1;
        } else if (g_sm_reads_left > 0) {
            g_sm_reads_left--;
        }
        *clock = g_sm;
        return FAKE_SUCCESS;
    }
    if (type == 2 && !(g_fail & FAIL_MEM)) { /* NVML_CLOCK_MEM */
        *clock = g_mem;
        return FAKE_SUCCESS;
    }
    return FAKE_ERROR_NOT_SUPPORTED;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned *temp)
{
    if (dev != &g_device || sensor != 0 || (g_fail & FAIL_TEMP)) return FAKE_ERROR_NOT_SUPPORTED;
    *temp = g_temp;
    return FAKE_SUCCESS;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
    if (dev != &g_device || (g_fail & FAIL_POWER)) return FAKE_ERROR_NOT_SUPPORTED;
    *mw = g_power_mw;
    return FAKE_SUCCESS;
}
