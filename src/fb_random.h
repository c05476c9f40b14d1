/* fb_random.h — the dropout keep-mask: a counter-based hash of (seed, element index),
 * the one definition shared by the float64 reference (C), eager (primitives.cu) and
 * every fused kernel (CUDA), so that all of them draw the identical mask.
 *
 * The mask for element i (the row-major index into the dropout op's output) is
 *
 *     bits(seed, i) = top 32 bits of splitmix64_finalizer(seed * 0x9E3779B97F4A7C15 + i)
 *     keep(i)       = bits(seed, i) >= threshold(p),   threshold(p) = floor(p * 2^32)
 *                     (clamped to 2^32 - 1; p = 0 keeps everything)
 *     y[i]          = keep(i) ? x[i] * (1 / (1 - p)) : 0
 *
 * splitmix64's finalizer (Steele, Lea, Flood 2014) is a bijection on 64-bit words with
 * full avalanche, so consecutive indices give independent-looking bits; the multiply
 * by the golden-ratio constant separates seeds. It costs two 64-bit multiplies per
 * element: a few percent of an H100 SM's integer rate at memory speed.
 * Why not Philox (PyTorch's generator): its 10 rounds cost more, and matching
 * PyTorch's mask bit for bit is not the goal; matching our own reference is. */
#ifndef FB_RANDOM_H
#define FB_RANDOM_H

#include <stdint.h>

#if defined(__CUDACC__)
#define FB_HD __host__ __device__ __forceinline__
#else
#define FB_HD static inline
#endif

FB_HD uint32_t fb_dropout_bits(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (uint32_t)(z >> 32);
}

/* floor(p * 2^32), for 0 <= p < 1. */
FB_HD uint32_t fb_dropout_threshold(double p)
{
    double t = p * 4294967296.0;
    return t <= 0.0 ? 0u : t >= 4294967295.0 ? 4294967295u : (uint32_t)t;
}

FB_HD int fb_dropout_keep(uint64_t seed, uint64_t i, uint32_t threshold)
{
    return fb_dropout_bits(seed, i) >= threshold;
}

#undef FB_HD
#endif
