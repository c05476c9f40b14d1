// cupti_abi_check.cu — src/cupti_host_api.h against NVIDIA's cupti_profiler_host.h.
//
// metrics.c declares the profiler host API's structs itself (the real header
// includes <string>, so C cannot include it). Compiled as C++ against the real
// header, every static_assert below ties one size or offset of the copy to the
// original: a toolkit whose layout differs fails the build, never a run. The
// program itself only prints the sizes it checked.
#include <cstdio>
#include <cstddef>

#include <cupti_profiler_host.h>

#include "cupti_host_api.h"

#define SAME_FIELD(ours, theirs, field) \
    static_assert(offsetof(ours, field) == offsetof(theirs, field), #ours "." #field " moved"); \
    static_assert(sizeof(((ours *)0)->field) == sizeof(((theirs *)0)->field), #ours "." #field " resized")
#define SAME_SIZE(ours, theirs, ours_size, theirs_size)                          \
    static_assert(sizeof(ours) == sizeof(theirs), #ours " has another size");    \
    static_assert(ours_size == theirs_size, #ours_size " differs")

SAME_SIZE(fbc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, FBC_HOST_INITIALIZE_PARAMS_SIZE,
          CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
SAME_FIELD(fbc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, structSize);
SAME_FIELD(fbc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, pPriv);
SAME_FIELD(fbc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, profilerType);
SAME_FIELD(fbc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, pChipName);
SAME_FIELD(fbc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, pCounterAvailabilityImage);
SAME_FIELD(fbc_host_initialize_params, CUpti_Profiler_Host_Initialize_Params, pHostObject);
static_assert((int)FBC_PROFILER_TYPE_RANGE_PROFILER == (int)CUPTI_PROFILER_TYPE_RANGE_PROFILER, "profiler type");
static_assert((int)FBC_METRIC_TYPE_COUNTER == (int)CUPTI_METRIC_TYPE_COUNTER, "metric type");

SAME_SIZE(fbc_host_deinitialize_params, CUpti_Profiler_Host_Deinitialize_Params, FBC_HOST_DEINITIALIZE_PARAMS_SIZE,
          CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
SAME_FIELD(fbc_host_deinitialize_params, CUpti_Profiler_Host_Deinitialize_Params, pHostObject);

SAME_SIZE(fbc_host_config_add_metrics_params, CUpti_Profiler_Host_ConfigAddMetrics_Params,
          FBC_HOST_CONFIG_ADD_METRICS_PARAMS_SIZE, CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
SAME_FIELD(fbc_host_config_add_metrics_params, CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject);
SAME_FIELD(fbc_host_config_add_metrics_params, CUpti_Profiler_Host_ConfigAddMetrics_Params, ppMetricNames);
SAME_FIELD(fbc_host_config_add_metrics_params, CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics);

SAME_SIZE(fbc_host_get_config_image_size_params, CUpti_Profiler_Host_GetConfigImageSize_Params,
          FBC_HOST_GET_CONFIG_IMAGE_SIZE_PARAMS_SIZE, CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
SAME_FIELD(fbc_host_get_config_image_size_params, CUpti_Profiler_Host_GetConfigImageSize_Params, pHostObject);
SAME_FIELD(fbc_host_get_config_image_size_params, CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize);

SAME_SIZE(fbc_host_get_config_image_params, CUpti_Profiler_Host_GetConfigImage_Params,
          FBC_HOST_GET_CONFIG_IMAGE_PARAMS_SIZE, CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
SAME_FIELD(fbc_host_get_config_image_params, CUpti_Profiler_Host_GetConfigImage_Params, pHostObject);
SAME_FIELD(fbc_host_get_config_image_params, CUpti_Profiler_Host_GetConfigImage_Params, configImageSize);
SAME_FIELD(fbc_host_get_config_image_params, CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);

SAME_SIZE(fbc_host_get_num_of_passes_params, CUpti_Profiler_Host_GetNumOfPasses_Params,
          FBC_HOST_GET_NUM_OF_PASSES_PARAMS_SIZE, CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
SAME_FIELD(fbc_host_get_num_of_passes_params, CUpti_Profiler_Host_GetNumOfPasses_Params, configImageSize);
SAME_FIELD(fbc_host_get_num_of_passes_params, CUpti_Profiler_Host_GetNumOfPasses_Params, pConfigImage);
SAME_FIELD(fbc_host_get_num_of_passes_params, CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses);

SAME_SIZE(fbc_host_evaluate_to_gpu_values_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params,
          FBC_HOST_EVALUATE_TO_GPU_VALUES_PARAMS_SIZE, CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
SAME_FIELD(fbc_host_evaluate_to_gpu_values_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject);
SAME_FIELD(fbc_host_evaluate_to_gpu_values_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage);
SAME_FIELD(fbc_host_evaluate_to_gpu_values_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, counterDataImageSize);
SAME_FIELD(fbc_host_evaluate_to_gpu_values_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex);
SAME_FIELD(fbc_host_evaluate_to_gpu_values_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames);
SAME_FIELD(fbc_host_evaluate_to_gpu_values_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics);
SAME_FIELD(fbc_host_evaluate_to_gpu_values_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);

SAME_SIZE(fbc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params,
          FBC_HOST_GET_METRIC_PROPERTIES_PARAMS_SIZE, CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
SAME_FIELD(fbc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, pMetricName);
SAME_FIELD(fbc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, pDescription);
SAME_FIELD(fbc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, pHwUnit);
SAME_FIELD(fbc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, pDimUnit);
SAME_FIELD(fbc_host_get_metric_properties_params, CUpti_Profiler_Host_GetMetricProperties_Params, metricType);

int main()
{
    std::printf("cupti_host_api.h matches cupti_profiler_host.h: 8 structs, sizes %zu %zu %zu %zu %zu %zu %zu %zu\n",
                sizeof(fbc_host_initialize_params), sizeof(fbc_host_deinitialize_params),
                sizeof(fbc_host_config_add_metrics_params), sizeof(fbc_host_get_config_image_size_params),
                sizeof(fbc_host_get_config_image_params), sizeof(fbc_host_get_num_of_passes_params),
                sizeof(fbc_host_evaluate_to_gpu_values_params), sizeof(fbc_host_get_metric_properties_params));
    return 0;
}
