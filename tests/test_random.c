/* test_random.c — the input fill's random streams (src/fb_random.h), on the CPU with
 * the very functions the fill kernel runs: seeds 1 and 2 draw unrelated data, not
 * one sequence shifted, and the inputs of one case differ from one another. */
#include <stdint.h>
#include <stdlib.h>

#include "fb_random.h"
#include "testing.h"

#define N 4096

/* The inverse of splitmix64's finalizer: recovers what was mixed, which is how a
 * stream built as mix(key + i * gamma) betrays itself (its pre-images step by gamma). */
static uint64_t unmix64(uint64_t z)
{
    z ^= (z >> 31) ^ (z >> 62);
    z *= 0x319642B2D24D8EC3ull; /* 0x94D049BB133111EB^-1 mod 2^64 */
    z ^= (z >> 27) ^ (z >> 54);
    z *= 0x96DE1B173F119089ull; /* 0xBF58476D1CE4E5B9^-1 */
    z ^= (z >> 30) ^ (z >> 60);
    return z;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* How many of b's first n values appear anywhere among a's first n: a shift by fewer
 * than n elements (the "seed N reads seed 1's stream N-1 further on" failure) shows up
 * as n - |shift| common values. */
static int common_values(uint64_t key_a, uint64_t key_b, int n)
{
    uint64_t *a = malloc(sizeof *a * (size_t)n);
    int common = 0;
    for (int i = 0; i < n; i++) a[i] = fb_fill_bits(key_a, (uint64_t)i);
    qsort(a, (size_t)n, sizeof *a, cmp_u64);
    for (int i = 0; i < n; i++) {
        uint64_t v = fb_fill_bits(key_b, (uint64_t)i);
        common += bsearch(&v, a, (size_t)n, sizeof v, cmp_u64) != NULL;
    }
    free(a);
    return common;
}

/* For a stream of the form mix(key + i * gamma), stream(kb, i) = stream(ka, i + m) for
 * m = (pre_b(0) - pre_a(0)) / gamma: any shift, however far, is found in one step. */
static int equal_at_weyl_shift(uint64_t key_a, uint64_t key_b)
{
    const uint64_t gamma_inv = 0xF1DE83E19937733Dull; /* 0x9E3779B97F4A7C15^-1 */
    uint64_t m = (unmix64(fb_fill_bits(key_b, 0)) - unmix64(fb_fill_bits(key_a, 0))) * gamma_inv;
    int equal = 0;
    for (uint64_t i = 0; i < 64; i++) equal += fb_fill_bits(key_b, i) == fb_fill_bits(key_a, m + i);
    return equal;
}

static void test_seeds_differ(void)
{
    uint64_t k1 = fb_fill_key(1, 0), k2 = fb_fill_key(2, 0);
    CHECK(k1 != k2);
    CHECK(common_values(k1, k2, N) == 0);
    CHECK(equal_at_weyl_shift(k1, k2) == 0);
    /* and for neighbouring seeds further on */
    for (uint64_t s = 2; s < 40; s++) {
        CHECK(common_values(fb_fill_key(s, 0), fb_fill_key(s + 1, 0), 256) == 0);
        CHECK(equal_at_weyl_shift(fb_fill_key(s, 0), fb_fill_key(s + 1, 0)) == 0);
    }
    /* a stream is no fixed-step walk through one sequence */
    int same_step = 0;
    uint64_t step = unmix64(fb_fill_bits(k1, 1)) - unmix64(fb_fill_bits(k1, 0));
    for (uint64_t i = 1; i < 32; i++) same_step += unmix64(fb_fill_bits(k1, i + 1)) - unmix64(fb_fill_bits(k1, i)) == step;
    CHECK(same_step < 2);
}

static void test_inputs_differ(void)
{
    /* the inputs of one case: their own streams, for seed 1 and for a large seed */
    for (uint64_t s = 1; s < 3; s++) {
        uint64_t seed = s == 1 ? 1 : UINT64_C(9223372036854775807);
        CHECK(common_values(fb_fill_key(seed, 0), fb_fill_key(seed, 1), N) == 0);
        CHECK(equal_at_weyl_shift(fb_fill_key(seed, 0), fb_fill_key(seed, 1)) == 0);
        CHECK(common_values(fb_fill_key(seed, 1), fb_fill_key(seed, 2), N) == 0);
    }
    /* no key shared by seeds 1..512 x inputs 0..7 */
    static uint64_t keys[512 * 8];
    int n = 0;
    for (uint64_t s = 1; s <= 512; s++)
        for (uint64_t t = 0; t < 8; t++) keys[n++] = fb_fill_key(s, t);
    qsort(keys, (size_t)n, sizeof keys[0], cmp_u64);
    int dup = 0;
    for (int i = 1; i < n; i++) dup += keys[i] == keys[i - 1];
    CHECK(dup == 0);
}

static void test_bits_look_uniform(void)
{
    /* each of the 64 bits is set about half the time over 65536 elements (6 sigma: 0.5 +- 0.012) */
    const int n = 1 << 16;
    int count[64] = {0};
    uint64_t key = fb_fill_key(1, 0);
    for (int i = 0; i < n; i++) {
        uint64_t h = fb_fill_bits(key, (uint64_t)i);
        for (int b = 0; b < 64; b++) count[b] += (int)((h >> b) & 1);
    }
    int off = 0;
    for (int b = 0; b < 64; b++) off += count[b] < n / 2 - 786 || count[b] > n / 2 + 786;
    CHECK(off == 0);
    /* the same on every call: the fill is a pure function of (key, i) */
    CHECK(fb_fill_bits(key, 12345) == fb_fill_bits(key, 12345));
    CHECK(fb_fill_key(7, 3) == fb_fill_key(7, 3));
}

int main(void)
{
    test_seeds_differ();
    test_inputs_differ();
    test_bits_look_uniform();
    return fb_t_report("random");
}
