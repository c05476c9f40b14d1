/* emulate.c — see emulate.h. */
#include "emulate.h"

#include <math.h>

static uint64_t g_state;

void t_rng_seed(uint64_t seed) { g_state = seed; }

uint64_t t_rng_u64(void)
{
    uint64_t z = (g_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double t_rng_uniform01(void) { return ((double)(t_rng_u64() >> 11) + 0.5) / 9007199254740992.0; }

double t_round_to(double v, int bits, int emin)
{
    if (v == 0 || !isfinite(v)) return v;
    int e = ilogb(v);
    if (e < emin) e = emin; /* subnormal: a fixed spacing */
    double q = ldexp(1.0, e - (bits - 1));
    return nearbyint(v / q) * q;
}

double t_to_f16(double v) { return t_round_to(v, 11, -14); }
double t_to_bf16(double v) { return t_round_to(v, 8, -126); }

double t_stored(fb_dtype dt, double v)
{
    return dt == FB_F32 ? (double)(float)v : dt == FB_F16 ? t_to_f16(v) : t_to_bf16(v);
}
