// softmax.cu — placeholder table until the kernels land (so the registry links).
#include "softmax.h"
static int placeholder_run(const fb_call *) { return FB_E_UNSUPPORTED; }
extern "C" const fb_variant fb_softmax_variants[] = {
    {"softmax.fused", "softmax over the last dim, one pass (placeholder)", FB_DTYPES_HALF_AND_F32, nullptr, nullptr, placeholder_run, 1},
};
extern "C" const int fb_softmax_variant_count = 1;
