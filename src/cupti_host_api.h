/* cupti_host_api.h — the part of CUPTI's profiler host API (cupti_profiler_host.h,
 * CUDA 13) that src/metrics.c uses, declared for C.
 *
 * Why a copy: NVIDIA's cupti_profiler_host.h includes <string>, so no C file can
 * include it. The structs below are field-for-field copies of its own (same
 * types, same order; fbc_ instead of CUpti_ so both can be seen at once), and
 * tests/cupti_abi_check.cu, compiled as C++ against the real header, asserts
 * that every size and offset agrees: a toolkit whose header differs fails the
 * build, not a run. The functions are never linked: metrics.c resolves them
 * from libcupti at run time (dlopen), through pointers of these types.
 *
 * Every struct starts with structSize (set it to the matching _STRUCT_SIZE: the
 * offset of the last field plus its size, CUPTI's versioning rule) and pPriv
 * (NULL). */
#ifndef FB_CUPTI_HOST_API_H
#define FB_CUPTI_HOST_API_H

#include <stddef.h>
#include <stdint.h>

#include <cupti_result.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FBC_STRUCT_SIZE(type_, last_) (offsetof(type_, last_) + sizeof(((type_ *)0)->last_))

typedef enum fbc_metric_type {
    FBC_METRIC_TYPE_COUNTER = 0,
    FBC_METRIC_TYPE_RATIO,
    FBC_METRIC_TYPE_THROUGHPUT,
    FBC_METRIC_TYPE__COUNT
} fbc_metric_type; /* CUpti_MetricType */

typedef enum fbc_profiler_type {
    FBC_PROFILER_TYPE_RANGE_PROFILER,
    FBC_PROFILER_TYPE_PM_SAMPLING,
    FBC_PROFILER_TYPE_PROFILER_INVALID
} fbc_profiler_type; /* CUpti_ProfilerType */

typedef struct fbc_host_object fbc_host_object; /* CUpti_Profiler_Host_Object */

typedef struct fbc_host_initialize_params { /* CUpti_Profiler_Host_Initialize_Params */
    size_t structSize;
    void *pPriv;
    fbc_profiler_type profilerType;
    const char *pChipName;
    const uint8_t *pCounterAvailabilityImage; /* may be NULL for chips known at release */
    fbc_host_object *pHostObject;             /* out */
} fbc_host_initialize_params;
#define FBC_HOST_INITIALIZE_PARAMS_SIZE FBC_STRUCT_SIZE(fbc_host_initialize_params, pHostObject)

typedef struct fbc_host_deinitialize_params { /* CUpti_Profiler_Host_Deinitialize_Params */
    size_t structSize;
    void *pPriv;
    fbc_host_object *pHostObject;
} fbc_host_deinitialize_params;
#define FBC_HOST_DEINITIALIZE_PARAMS_SIZE FBC_STRUCT_SIZE(fbc_host_deinitialize_params, pHostObject)

typedef struct fbc_host_config_add_metrics_params { /* CUpti_Profiler_Host_ConfigAddMetrics_Params */
    size_t structSize;
    void *pPriv;
    fbc_host_object *pHostObject;
    const char **ppMetricNames;
    size_t numMetrics;
} fbc_host_config_add_metrics_params;
#define FBC_HOST_CONFIG_ADD_METRICS_PARAMS_SIZE FBC_STRUCT_SIZE(fbc_host_config_add_metrics_params, numMetrics)

typedef struct fbc_host_get_config_image_size_params { /* CUpti_Profiler_Host_GetConfigImageSize_Params */
    size_t structSize;
    void *pPriv;
    fbc_host_object *pHostObject;
    size_t configImageSize; /* out */
} fbc_host_get_config_image_size_params;
#define FBC_HOST_GET_CONFIG_IMAGE_SIZE_PARAMS_SIZE \
    FBC_STRUCT_SIZE(fbc_host_get_config_image_size_params, configImageSize)

typedef struct fbc_host_get_config_image_params { /* CUpti_Profiler_Host_GetConfigImage_Params */
    size_t structSize;
    void *pPriv;
    fbc_host_object *pHostObject;
    size_t configImageSize;
    uint8_t *pConfigImage; /* out: configImageSize bytes */
} fbc_host_get_config_image_params;
#define FBC_HOST_GET_CONFIG_IMAGE_PARAMS_SIZE FBC_STRUCT_SIZE(fbc_host_get_config_image_params, pConfigImage)

typedef struct fbc_host_get_num_of_passes_params { /* CUpti_Profiler_Host_GetNumOfPasses_Params */
    size_t structSize;
    void *pPriv;
    size_t configImageSize;
    uint8_t *pConfigImage;
    size_t numOfPasses; /* out */
} fbc_host_get_num_of_passes_params;
#define FBC_HOST_GET_NUM_OF_PASSES_PARAMS_SIZE FBC_STRUCT_SIZE(fbc_host_get_num_of_passes_params, numOfPasses)

typedef struct fbc_host_evaluate_to_gpu_values_params { /* CUpti_Profiler_Host_EvaluateToGpuValues_Params */
    size_t structSize;
    void *pPriv;
    fbc_host_object *pHostObject;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char **ppMetricNames;
    size_t numMetrics;
    double *pMetricValues; /* out: numMetrics values */
} fbc_host_evaluate_to_gpu_values_params;
#define FBC_HOST_EVALUATE_TO_GPU_VALUES_PARAMS_SIZE \
    FBC_STRUCT_SIZE(fbc_host_evaluate_to_gpu_values_params, pMetricValues)

typedef struct fbc_host_get_metric_properties_params { /* CUpti_Profiler_Host_GetMetricProperties_Params */
    size_t structSize;
    void *pPriv;
    fbc_host_object *pHostObject;
    const char *pMetricName;
    const char *pDescription; /* out */
    const char *pHwUnit;      /* out */
    const char *pDimUnit;     /* out */
    fbc_metric_type metricType; /* out */
} fbc_host_get_metric_properties_params;
#define FBC_HOST_GET_METRIC_PROPERTIES_PARAMS_SIZE \
    FBC_STRUCT_SIZE(fbc_host_get_metric_properties_params, metricType)

#ifdef __cplusplus
}
#endif
#endif
