/* fb_random.h — counter-based randomness shared by the C host code and the CUDA kernels:
 * the input fill's streams (below) and the dropout keep-mask.
 *
 * The dropout keep-mask: a counter-based hash of (seed, element index),
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

/* ---- input fill -------------------------------------------------------------------
 * Input t (case-file order) of a run with seed s is filled from its own stream:
 *
 *     key(s, t)    = mix(mix(s ^ 0x5851F42D4C957F2D) + (t + 1) * 0x632BE59BD9B4E019)
 *     bits(key, i) = mix(key ^ mix(i + 0x9E3779B97F4A7C15))      element i's 64 bits
 *
 * with mix the splitmix64 finalizer (a bijection of 64-bit words). The fill kernel
 * maps bits to N(0,1), U(-1,1), U(0.5,1.5) or U(0.5,1.5) / (its row's sum) (row_simplex)
 * (kernels/primitives.cu).
 * Why the key enters after the counter is mixed: splitmix64 as usually written,
 * mix(key + i * gamma) (this file's fill until issue 5), makes every stream a window
 * of one sequence — stream(k2, i) = stream(k1, i + (k2 - k1) / gamma) — so a seed only
 * chose where to start reading, and two seeds or two inputs could overlap. Here
 * stream(k1, j) = stream(k2, i) needs mix(j + c) = mix(i + c) ^ k1 ^ k2, which no fixed
 * shift j = i + m satisfies for k1 != k2. key(s, t) is a bijection of s for each t and
 * of t for each s: no two seeds, and no two inputs of one run, share a stream.
 * tests/test_random.c checks all of this on the CPU with these very functions. */
FB_HD uint64_t fb_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

FB_HD uint64_t fb_fill_key(uint64_t seed, uint64_t tensor)
{
    return fb_mix64(fb_mix64(seed ^ 0x5851F42D4C957F2Dull) + (tensor + 1) * 0x632BE59BD9B4E019ull);
}

FB_HD uint64_t fb_fill_bits(uint64_t key, uint64_t i)
{
    return fb_mix64(key ^ fb_mix64(i + 0x9E3779B97F4A7C15ull));
}

#undef FB_HD
#endif
