/* emulate.h — what the tests that emulate eager's arithmetic on the CPU share
 * (test_tolerance.c, test_conv.c): a seeded splitmix64 stream and rounding to a
 * storage dtype. */
#ifndef FB_T_EMULATE_H
#define FB_T_EMULATE_H
#include <stdint.h>

#include "fb.h"

void t_rng_seed(uint64_t seed);
uint64_t t_rng_u64(void);
double t_rng_uniform01(void); /* in (0, 1): never 0, so log() of it is finite */

/* Round to a storage type with `bits` significant bits and smallest normal
 * exponent `emin` (float16: 11, -14; bfloat16: 8, -126), round-half-even. */
double t_round_to(double v, int bits, int emin);
double t_to_f16(double v);
double t_to_bf16(double v);
/* v as stored in dt (float32, float16 or bfloat16) */
double t_stored(fb_dtype dt, double v);

#endif
