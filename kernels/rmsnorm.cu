// rmsnorm.cu — RMSNorm forward over the last dim, in four dtypes (half types stored as half and
// computed in fp32, float64 in double):  y = x * rsqrt(mean(x^2) + 1e-6) * w,  x [..., N], w [N].
// Ideal traffic: x read once, w once, y written once.
//
// Every variant is a group of G threads per row (rowgroup.cuh: G <= 32 lanes for short rows, 256 /
// G rows per CTA; the whole CTA for long ones), 16-byte units where rows are 16-byte aligned.
// TileGym's three modes, as kernels:
//   rmsnorm.multi_wave_cached    one row per group, a grid of ceil(rows / rows-per-CTA) CTAs (many
//                                waves); the row's units held in registers between the sum of
//                                squares and the output, so x is read once. Rows of up to 1024 x 8
//                                units (float32: 32768 elements).
//   rmsnorm.multi_wave_reload    the same grid, the row streamed twice: the second pass re-reads x
//                                (from L1/L2: the row was just read) instead of holding it, so any
//                                row length runs, at the price of the second pass's latency.
//   rmsnorm.static_persistent    the cached kernel on a grid of exactly the CTAs that fit the GPU at
//                                once; each group loops over rows (row += groups in the grid): no
//                                tail wave, no launch of CTAs beyond the resident ones.
//   rmsnorm.straight_reread      one row per CTA, straight-line, for 16-byte rows of exactly G x U
//                                units: x re-read from L1 after the barrier together with w, as
//                                Inductor's kernel does. Wins in the half types and float64
//                                (1.04-1.15x over the previous rule's pick), not in float32.
//   rmsnorm.row_engine           RMSNorm as an Op of the row engine (rmsnorm_engine.cu): layernorm's
//                                plans. Float32, float16, bfloat16.
//   rmsnorm.fused                row_engine where use_engine() says (16-byte rows of <= 512 or
//                                >= 16384, unaligned rows of >= 128 on >= 2048 rows or any on
//                                >= 8192, the half types' unaligned rows of 33..64), else
//                                straight_reread where it
//                                applies outside float32 and on float32 from 32 MB of x
//                                (straight_fits), else one of the three by shape
//                                (pick_mode below: the rules and the tables they came from).
// Rows that do not start on 16-byte boundaries (N = 61, 130, 1027...) move element by element,
// except where the cached kernels read them in the 16-byte blocks of memory they overlap
// (rmsnorm_shifted_kernel; problem() says where that measured faster).
#include "rmsnorm.h"
#include "rowgroup.cuh"

#include <stdio.h>

namespace {

using namespace fb;
using namespace fb::rowgroup;

constexpr double kEps = 1e-6;

enum Mode { MULTI_WAVE_CACHED = 0, MULTI_WAVE_RELOAD = 1, STATIC_PERSISTENT = 2, MODE_AUTO = 3 };
const char *const mode_names[] = {"multi_wave_cached", "multi_wave_reload", "static_persistent", "fused"};

// Cached: U units per thread held in registers. The grid decides persistence: a group starts at
// row blockIdx.x * rpc + g and steps by every group of the grid (one step in a multi-wave grid).
// GC > 0: the group width G as a compile-time constant (the argument is then GC): short rows run
// in a few microseconds, on the critical path of one warp's instructions, and a run-time G cost
// them an integer division and a shuffle loop with divergence checks (NOTES.md, "Stop 36").
template <typename T, bool VEC, int U, int GC = 0>
__global__ void __launch_bounds__(1024) rmsnorm_cached_kernel(const T *__restrict__ x, const T *__restrict__ w,
                                                              T *__restrict__ y, long rows, long N, long units,
                                                              int G_, acc_t<T> eps) {
    using A = acc_t<T>;
    using IO = Io<T, VEC>;
    constexpr int NV = IO::NV;
    __shared__ A scratch[64];
    const int G = GC > 0 ? GC : G_;
    const int l = threadIdx.x & (G - 1), g = threadIdx.x / G, rpc = blockDim.x / G;
    const A inv_n = A(1) / (A)N;
    // w's units, loaded before the first row's x and kept: a lane touches the same columns in
    // every row, so w is read once per group instead of once per row, and the output loop no
    // longer waits on an L1/L2 round trip after the row's barriers (Liger loads w with x).
    // U x 4 more registers: only float32 with U <= 4 (U = 8 would pass the 64 registers a
    // 1024-thread CTA allows). Measured (NOTES.md, issue 9 round 2, --flush write, old -> new):
    // float32 geomean 1.007x, its >= 16M-element cells 96.7-100.2% -> 98.4-100.7% of SOL; the
    // half types lost 4% (float16) and 11% (bfloat16) in geomean even with w widened per row
    // (through opaque()): 60-64 registers where they had ~32, half the resident threads.
    constexpr bool kEarlyW = U <= 4 && sizeof(T) == 4;
    typename IO::Raw wraw[kEarlyW ? U : 1];
    if constexpr (kEarlyW) {
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = l + (long)j * G;
            if (k < units) wraw[j] = IO::load_raw(w, k);
        }
    }
    for (long row = (long)blockIdx.x * rpc + g; row < rows; row += (long)gridDim.x * rpc) {
        const T *xr = x + row * N;
        T *yr = y + row * N;
        typename IO::Raw raw[U];  // the row as stored: half types hold half the registers
        A ss = A(0);
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = l + (long)j * G;
            if (k < units) {
                raw[j] = IO::load_raw(xr, k);  // plain: measured 1-7% faster than evict-first here
                A v[NV];
                IO::widen(raw[j], v);
#pragma unroll
                for (int i = 0; i < NV; ++i) ss = fma(v[i], v[i], ss);
            }
        }
        const A r = rsqrt_acc(row_sum(ss, G, scratch) * inv_n + eps);
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = l + (long)j * G;
            if (k < units) {
                A v[NV], wv[NV];
                // Widened again here from the raw unit, not kept widened from the sum: left to
                // itself the compiler keeps all U x NV widened values across the barrier (half
                // types: 64 registers, half the threads resident; NOTES.md, issue 9 round 2).
                opaque(raw[j]);
                IO::widen(raw[j], v);
                if constexpr (kEarlyW) IO::widen(wraw[j], wv);  // float32: widening is a copy
                else IO::load(w, k, wv);
#pragma unroll
                for (int i = 0; i < NV; ++i) v[i] = v[i] * r * wv[i];
                IO::store_stream(yr, k, v);
            }
        }
    }
}

// Cached, for rows that are not 16-byte aligned (61, 130, 1027 elements...): the row in the
// 16-byte blocks it overlaps (rowgroup.cuh's ShiftRow), so x and y move 16 bytes an access
// except at the row's two ends, where the scalar path moved one element. w is read element by
// element (its columns do not fall on the row's blocks). The same grid rule as the aligned
// kernel: multi-wave or resident.
template <typename T, int U>
__global__ void __launch_bounds__(1024) rmsnorm_shifted_kernel(const T *__restrict__ x, const T *__restrict__ w,
                                                               T *__restrict__ y, long rows, long N, long units,
                                                               int G, acc_t<T> eps) {
    using A = acc_t<T>;
    using SR = ShiftRow<T>;
    constexpr int NV = SR::NV;
    (void)units;
    __shared__ A scratch[64];
    const int l = threadIdx.x & (G - 1), g = threadIdx.x / G, rpc = blockDim.x / G;
    const A inv_n = A(1) / (A)N;
    for (long row = (long)blockIdx.x * rpc + g; row < rows; row += (long)gridDim.x * rpc) {
        const T *xr = x + row * N;
        T *yr = y + row * N;
        const SR r(xr, N);
        typename SR::Raw raw[U];
        A ss = A(0);
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = l + (long)j * G;
            if (k < r.units) {
                raw[j] = r.load_raw(xr, k);
                A v[NV];
                r.widen(raw[j], v);
#pragma unroll
                for (int i = 0; i < NV; ++i) ss = fma(v[i], v[i], ss);
            }
        }
        const A rs = rsqrt_acc(row_sum(ss, G, scratch) * inv_n + eps);
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = l + (long)j * G;
            if (k < r.units) {
                A v[NV], wv[NV];
                opaque(raw[j]);  // as in the aligned kernel: widen again, do not hold widened values
                r.widen(raw[j], v);
                r.load_col(w, k, wv);
#pragma unroll
                for (int i = 0; i < NV; ++i) v[i] = v[i] * rs * wv[i];
                r.store_stream(yr, k, v);
            }
        }
    }
}

// Reload: nothing held; the output pass reads x again (plain loads in the first pass so that the
// second finds the row in L1/L2). Inductor's looped reduction marks its first pass evict_last
// instead; such lines outlive the timer's flush and make the next sample's read of x partly an
// L2 hit (dev/evict_last_dev.cu: 13% on a 32 MB read), so this kernel does not (NOTES.md, issue
// 9 round 2).
template <typename T, bool VEC>
__global__ void __launch_bounds__(1024) rmsnorm_reload_kernel(const T *__restrict__ x, const T *__restrict__ w,
                                                              T *__restrict__ y, long rows, long N, long units,
                                                              int G, acc_t<T> eps) {
    using A = acc_t<T>;
    using IO = Io<T, VEC>;
    constexpr int NV = IO::NV;
    __shared__ A scratch[64];
    const int l = threadIdx.x & (G - 1), g = threadIdx.x / G, rpc = blockDim.x / G;
    const A inv_n = A(1) / (A)N;
    for (long row = (long)blockIdx.x * rpc + g; row < rows; row += (long)gridDim.x * rpc) {
        const T *xr = x + row * N;
        T *yr = y + row * N;
        A ss = A(0);
#pragma unroll 4
        for (long k = l; k < units; k += G) {
            A v[NV];
            IO::load(xr, k, v);
#pragma unroll
            for (int i = 0; i < NV; ++i) ss = fma(v[i], v[i], ss);
        }
        const A r = rsqrt_acc(row_sum(ss, G, scratch) * inv_n + eps);
#pragma unroll 4
        for (long k = l; k < units; k += G) {
            A v[NV], wv[NV];
            IO::load(xr, k, v);
            IO::load(w, k, wv);
#pragma unroll
            for (int i = 0; i < NV; ++i) v[i] = v[i] * r * wv[i];
            IO::store_stream(yr, k, v);
        }
    }
}

// Straight-line: for 16-byte rows of exactly G x U units, one row per CTA of G > 32 threads, the
// shape of Inductor's kernel at bfloat16 2048 x 16384 (kernels/NOTES.md, "RMSNorm: w after the
// barrier"): 32-bit offsets, no row loop, no per-unit guard, one barrier (the scratch is never
// reused). x is loaded with L1/L2 evict_last, summed, and after the barrier read again (an L1
// hit, evict_first) in the same burst as w's loads, so a row pays one round trip after its
// barrier where the cached kernels pay one per unit, and nothing is held across the barrier
// (31 registers at bfloat16 U = 2).
template <typename T, int U>
__global__ void __launch_bounds__(1024) rmsnorm_straight_kernel(const T *__restrict__ x, const T *__restrict__ w,
                                                                T *__restrict__ y, int N, acc_t<T> inv_n,
                                                                acc_t<T> eps) {
    using A = acc_t<T>;
    using IO = Io<T, true>;
    constexpr int NV = IO::NV;
    __shared__ A scratch[32];
    const unsigned t = threadIdx.x, G = blockDim.x, lane = t & 31, warp = t >> 5;
    const size_t base = (size_t)blockIdx.x * (unsigned)N;
    const T *xr = x + base;
    T *yr = y + base;
    typename IO::Raw raw[U];
    A ss = A(0);
#pragma unroll
    for (int j = 0; j < U; ++j) {
        const unsigned e = (t + (unsigned)j * G) * NV;
        raw[j] = load_pack_evict<Evict::Last, T, NV>(xr + e);
        A v[NV];
        IO::widen(raw[j], v);
#pragma unroll
        for (int i = 0; i < NV; ++i) ss = fma(v[i], v[i], ss);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    if (lane == 0) scratch[warp] = ss;
    __syncthreads();
    A tot = lane < (G >> 5) ? scratch[lane] : A(0);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) tot += __shfl_xor_sync(0xffffffffu, tot, o);
    const A r = rsqrt_acc(tot * inv_n + eps);  // inv_n from the host: no division here
    // w through an empty asm after the barrier: left free, the compiler issues its loads with
    // x's, and holding them across the barrier takes 41 registers (bfloat16, U = 2) where two
    // 1024-thread CTAs per SM allow 32.
    // (An offset of zero, not the pointer: a pointer through asm loses its global space and the
    // loads turn generic.)
    unsigned zero = 0;
    asm volatile("" : "+r"(zero));
    const T *wp = w + zero;
    typename IO::Raw wr[U];
#pragma unroll
    for (int j = 0; j < U; ++j) {
        const unsigned e = (t + (unsigned)j * G) * NV;
        raw[j] = load_pack_evict<Evict::First, T, NV>(xr + e);
        wr[j] = load_pack_plain<T, NV>(wp + e);
    }
#pragma unroll
    for (int j = 0; j < U; ++j) {
        const unsigned e = (t + (unsigned)j * G) * NV;
        typename IO::Raw o;
#pragma unroll
        for (int i = 0; i < NV; ++i) o.v[i] = from_acc<T>(to_acc(raw[j].v[i]) * r * to_acc(wr[j].v[i]));
        store_pack_stream<T, NV>(yr + e, o);
    }
}

template <typename T, bool VEC, int U> void *cached_fn() { return (void *)rmsnorm_cached_kernel<T, VEC, U>; }
// The cached kernel with G fixed at compile time, for small tensors' shapes (plan_geom_latency;
// problem()): one unit a thread at G = 8..256, or a warp a row holding two units. Measured
// (--timer cupti, write flush, H200, stop 36 call 9, run-time G / fixed G, kernel durations):
// float32 [4, 128, 32] 1.89 -> 1.57 us, [4, 128, 128] 2.27 -> 1.95, [4, 512, 64] 2.37 -> 2.02;
// geomean over the 39 shapes 1.037 (float32) and 1.024 (bfloat16), the big ones unchanged.
template <typename T, bool VEC> void *cached_fn_fixed_g(int G, int U) {
    if (U == 1) switch (G) {
        case 8: return (void *)rmsnorm_cached_kernel<T, VEC, 1, 8>;
        case 16: return (void *)rmsnorm_cached_kernel<T, VEC, 1, 16>;
        case 32: return (void *)rmsnorm_cached_kernel<T, VEC, 1, 32>;
        case 64: return (void *)rmsnorm_cached_kernel<T, VEC, 1, 64>;
        case 128: return (void *)rmsnorm_cached_kernel<T, VEC, 1, 128>;
        case 256: return (void *)rmsnorm_cached_kernel<T, VEC, 1, 256>;
        default: return nullptr;
        }
    if (G == 32 && U == 2) return (void *)rmsnorm_cached_kernel<T, VEC, 2, 32>;  // problem()'s warp rows
    return nullptr;
}
template <typename T, int U> void *shifted_fn() { return (void *)rmsnorm_shifted_kernel<T, U>; }

// The launch of one mode on a geometry; dry: pick the kernel and grid, launch nothing.
struct Launch {
    void *fn = nullptr;
    unsigned grid = 0;
    int threads = 0;
    long units = 0;  // the kernel's units per row (reload of a shifted geometry: elements)
};

template <typename T> bool pick_kernel(Mode m, const Geom &g, Launch *L) {
    L->units = g.units;
    if (m == MULTI_WAVE_RELOAD) {
        L->fn = g.vec ? (void *)rmsnorm_reload_kernel<T, true> : (void *)rmsnorm_reload_kernel<T, false>;
        if (g.shift) L->units = g.N;  // reload streams unaligned rows element by element
    } else if (g.shift) {
        if (g.U > 8) return false;
        switch (g.U) {
        case 1: L->fn = shifted_fn<T, 1>(); break;
        case 2: L->fn = shifted_fn<T, 2>(); break;
        case 4: L->fn = shifted_fn<T, 4>(); break;
        default: L->fn = shifted_fn<T, 8>(); break;
        }
    } else {
        if (g.U > 8) return false;
#define FB_RMS_CACHED(V)                                                     \
    switch (g.U) {                                                           \
    case 1: L->fn = cached_fn<T, V, 1>(); break;                             \
    case 2: L->fn = cached_fn<T, V, 2>(); break;                             \
    case 4: L->fn = cached_fn<T, V, 4>(); break;                             \
    default: L->fn = cached_fn<T, V, 8>(); break;                            \
    }
        if (g.vec) {
            FB_RMS_CACHED(true)
            if (void *f = cached_fn_fixed_g<T, true>(g.G, g.U)) L->fn = f;
        } else {
            FB_RMS_CACHED(false)
            if (void *f = cached_fn_fixed_g<T, false>(g.G, g.U)) L->fn = f;
        }
#undef FB_RMS_CACHED
    }
    L->threads = g.threads;
    const long need = (g.rows + g.rpc() - 1) / g.rpc();
    long grid = need;
    if (m == STATIC_PERSISTENT) {
        const long resident = (long)resident_ctas((const void *)L->fn, g.threads) * sm_count();
        grid = need < resident ? need : resident;
    }
    if (grid > 0x7fffffffL) return false;
    L->grid = (unsigned)grid;
    return true;
}

// rmsnorm.fused's rule. TileGym's starting point: static_persistent when there are many rows,
// multi-wave otherwise. What the H100 said instead (kernels/NOTES.md, "rmsnorm: the three modes":
// 4 dtypes x 39 shapes, every mode timed in the same run, --flush write):
//   - 16-byte rows: multi_wave_cached is the fastest or within noise (3%) of it on most shapes;
//     static_persistent loses 5-25% on long rows (float32/float64 N = 16384: its resident grid
//     holds only 1-2 rows per SM in flight);
//   - unaligned rows (61, 130, 1027: single-element loads) with >= 2048 rows: in float32 and
//     float64 static_persistent is 0-12% ahead of cached (the per-row CTA start-up is a larger
//     share of a short scalar row); in the half types multi_wave_reload is 4-10% ahead of both
//     (2048 x 1027: reload 32.4 us, persistent 34.7, cached 37.3 in bfloat16);
//   - half-type rows of >= 32 KB (N = 16384) went to multi_wave_reload while cached held 4 units
//     per thread (reload 5-8% ahead). With 2 units per thread (32 bytes, problem() below) cached
//     is ahead there: float16 and bfloat16 2048 x 16384 200 us against reload's 205 in two runs
//     (issue 9 round 2), so the rule is gone. float64 rows of 128 KB: reload 20% behind (its
//     loop spills).
//   - round 3 (issue9-r3/fwd-ab.json, clean flush, every mode in one run): with 2 units per
//     thread, the half types' aligned rows run as fast or faster on the resident grid:
//     static_persistent / multi_wave_cached time, geomean 0.998 on the 36 cells under 8 MB (none
//     slower by > 3%), 0.984 on the 24 of >= 8 MB (8 faster by > 3%, none slower), e.g. bfloat16
//     2048 x 8192 84.8 -> 90.3% of SOL, 8192 x 16384 88.1 -> 93.2%. float32 stays cached (the
//     resident grid 2% slower from 8 MB, 5 of 15 cells by > 3%). The same run: half-type
//     unaligned rows of 61 with >= 2048 rows ran 12% slower on reload than on the resident grid
//     (bfloat16 2048 x 61: 63.4 vs 71.3% of SOL), so reload keeps only rows of >= 128 there
//     (130: reload 86.9 vs 79.2; 1027: 44.8 vs 42.9).
//   - shifted rows (problem(): unaligned rows read in 16-byte blocks) take the resident grid:
//     every mode in one run (results/h100/issue9-r4/shift-modes-runs.tar.xz), static_persistent
//     within noise of or ahead of cached (float32 2048 x 1027: 29.6-29.7 vs 30.4-30.7 µs;
//     bfloat16 512 x 1027: 9.8-10.1 vs 10.0-10.2); reload stays element by element there.
//   - half-type unaligned rows of 130 with 2048 rows (512 x 130): static_persistent, not reload.
//     Two runs agree (issue9-r4 and issue9-r5 rmsnorm-fwd.json.xz, every mode in each): at 2048
//     rows persistent 6.69-6.77 us against reload 7.30-7.36 (fused was 8-11% behind the fastest
//     mode there), at 8192 rows reload 8.27-8.38 against persistent 9.02-9.22. Not yet timed as
//     rmsnorm.fused with the new rule (no device time left in that session).
//   - round 5 (results/h100/issue9-r5/straight-all-clean.tar.xz, every dtype, clean flush, one
//     run): where rmsnorm.straight_reread applies (15 shapes a dtype), the previous rmsnorm.fused
//     / straight_reread time was 1.04-1.10x in float16 and bfloat16 (geomean 1.065, 1.064),
//     1.04-1.15x in float64 (1.092), 0.92-1.03x in float32 (0.995). bfloat16 2048 x 16384:
//     187.4 -> 176.4 us, the copy 174.5. So fused takes it outside float32 (Variant::launch).
Mode pick_mode(const Geom &g, int esz) {
    if (g.U > 8) return MULTI_WAVE_RELOAD;
    if (g.shift) return STATIC_PERSISTENT;
    if (g.vec && esz == 2) return STATIC_PERSISTENT;
    if (!g.vec && g.rows >= 2048)
        return esz == 2 && g.N >= 128 && g.rows >= 8192 ? MULTI_WAVE_RELOAD : STATIC_PERSISTENT;
    return MULTI_WAVE_CACHED;
}

struct Problem {
    const void *x, *w;
    void *y;
    fb_dtype dt;
    Geom g;
};

int check(const fb_call *c, char *why, size_t n) {
    if (c->n_in != 2 || c->n_out != 1) {
        if (why) snprintf(why, n, "rmsnorm takes x, w and gives y");
        return FB_E_UNSUPPORTED;
    }
    const fb_tensor *x = &c->in[0], *w = &c->in[1], *y = &c->out[0];
    if (x->dtype != y->dtype || w->dtype != y->dtype) {
        if (why) snprintf(why, n, "rmsnorm needs one dtype for x, w and y");
        return FB_E_UNSUPPORTED;
    }
    const int rank = y->shape.rank;
    bool same = rank >= 1 && x->shape.rank == rank;
    for (int d = 0; same && d < rank; ++d) same = x->shape.dim[d] == y->shape.dim[d];
    if (!same || w->shape.rank != 1 || w->shape.dim[0] != y->shape.dim[rank - 1]) {
        if (why) snprintf(why, n, "rmsnorm needs x and y of one shape [..., N] and w of shape [N]");
        return FB_E_UNSUPPORTED;
    }
    return FB_OK;
}

Problem problem(const fb_call *c) {
    Problem p;
    const fb_tensor *y = &c->out[0];
    p.x = c->in[0].data;
    p.w = c->in[1].data;
    p.y = y->data;
    p.dt = y->dtype;
    const long N = y->shape.dim[y->shape.rank - 1];
    long rows = 1;
    for (int d = 0; d + 1 < y->shape.rank; ++d) rows *= y->shape.dim[d];
    const bool aligned = aligned16(p.x) && aligned16(p.w) && aligned16(p.y);
    const int esz = (int)fb_dtype_size(p.dt);
    // x in flight per thread: 64 bytes for float32/float64, 32 for the half types. A half-type
    // thread holding 4 units took 48-64 registers (half the threads resident) where 2 units take
    // 32; Inductor's kernel holds 16 bytes at 30 registers. Measured (NOTES.md, issue 9 round 2,
    // --flush write, bfloat16): 2048 x 4096 88 -> 97% of SOL, 2048 x 8192 86 -> 98%.
    // Unaligned rows in 16-byte blocks (ShiftRow, rmsnorm_shifted_kernel) where that measured
    // faster than element by element (NOTES.md, "RMSNorm: unaligned rows in 16-byte blocks";
    // best mode before / after, µs): the half types' rows of >= 1024 elements (bfloat16 2048 x
    // 1027: 32.7 -> 24.4-24.8; 128 x 1027: 7.2 -> 6.3-6.6) and float32 from 4 MiB of x (2048 x
    // 1027: 34.8 -> 29.5-29.8). Not: short half-type rows (61, 130: 0.3-0.8 µs slower: the w
    // columns read one by one, fewer threads a row), float32 under 4 MiB (128 x 1027: 6.7 ->
    // 7.4-8.0) and float64 (16-byte blocks of 2 doubles: 2048 x 1027 49.9 -> 58).
    const long bytes = rows * N * esz;
    const bool shift = (esz == 2 && N >= 1024) || (esz == 4 && bytes >= (4L << 20));
    plan_geom_latency(rows, N, esz, aligned, (esz == 2 ? 32 : 64) / esz, sm_count(), &p.g, shift);
    // A small tensor's rows of 33..64 units (float32 N = 256, bfloat16 512, scalar rows of 61) on
    // one warp each, two units a lane, where plan_geom_latency gives them a 64-thread CTA: no
    // barrier in the row's sum. Kernel durations (--timer cupti, write flush, H200, stop 36 call
    // 10, 64-thread CTA / warp): [4, 512, 61] 1.47 (float32) and 1.37 (bfloat16), [4, 128, 61]
    // 1.13 and 1.00, bfloat16 [4, 512, 512] 1.18 and [4, 128, 512] 0.95, float32 N = 256 1.01-1.03.
    // Rows of 65..256 units lost that way (float32 [4, 128, 1024] 0.60: U = 8 a lane).
    const Geom &q = p.g;
    if (!q.shift && q.G == 64 && q.U == 1 && q.rows * q.units <= (long)sm_count() * 1024) {
        Geom c = q;
        c.G = 32;
        c.U = 2;
        c.threads = 256;
        spread_short_rows(&c, sm_count());
        p.g = c;
    }
    return p;
}

// rmsnorm.fused takes the row engine (rmsnorm.row_engine) on two kinds of rows. Measured on the
// H200 (stop 33 call 4, results/h200/stop33/, --flush write, every variant in one run, twice;
// t_fused-before / t_row_engine, geomean of the two runs):
//   - float32 16-byte rows of >= 16384: 4 x 2048 x 16384 1.142 (294.7 -> 258.1 us, the copy
//     258.9), 4 x 512 1.093, 4 x 128 1.007. Where rmsnorm's own kernels hold a row of 16 KB-64 KB in
//     registers or re-read it, the engine takes a 1024-thread CTA a row (and row_smem, a shared
//     part, from 64 KB), as layernorm does at 96.9% of the copy on the same shape.
//   - rows that are not 16-byte rows, of >= 128 elements, from 2048 rows: N = 130 and 1027 at
//     4 x 512 and 4 x 2048, every half type and float32: 1.048-1.599 (bfloat16 4 x 2048 x 1027
//     25.5 -> 16.8 us, the copy 16.0); the engine's unaligned CTA rows against rmsnorm's element by
//     element or shifted loads. At 4 x 128 (512 rows) they lose (0.84-1.00), and N = 61 is mixed
//     (0.95-1.14), so those keep the modes.
// Elsewhere the modes stayed: on 16-byte rows of 32..8192 (27 cells a dtype) fused / engine was
// 0.77-1.19, geomean 0.960 (float32), 0.973 (bfloat16), 0.991 (float16).
// Since stop 38 the engine loads the weight with the row on small grids (plan_params_early), and
// stop 39 re-measured (H200, call 3, results/h200/stop39/, --timer cupti, write flush, two runs;
// t_fused / t_row_engine, the range of the two runs), so three more kinds of rows take it:
//   - 16-byte rows of N <= 512, half types up to 4 MiB of x: float32 0.985-1.129 over the 15
//     shapes ([4, 512, 256] 3.07 -> 2.72 us, [4, 2048, 512] 1.07), bfloat16 0.96-1.23 over 14
//     ([4, 512, 32] 2.08 -> 1.70 us); bfloat16 [4, 2048, 512] (8 MiB) lost (0.81): the modes;
//   - half types' 16-byte rows of >= 16384 from 2048 rows: bfloat16 1.06-1.07 ([4, 2048, 16384]
//     139.9 -> 131.7 us); 512 rows 1.00;
//   - rows that are not 16-byte rows from 8192 rows whatever N: N = 61 1.20 (float32), 1.17
//     (bfloat16) at [4, 2048, 61]; fewer rows of 61 still lose (0.62-0.82).
//   Rows of 1024..8192 keep the modes (the engine 0.34-1.12, mostly below 1).
// Since stop 41 the engine runs unaligned rows of 33..64 elements on up to 8192 rows as scalar
// group rows with early parameters (rowengine.cuh plan_scalar_early), which also beats the modes
// on the half types' fewer rows (H200, call 7, results/h200/stop41/, --timer cupti, write flush,
// two runs, t_fused / t_row_engine): bfloat16 [4, 128, 61] 2.14 / 1.82 us (1.18), [4, 512, 61]
// 2.35-2.37 / 2.14 (1.10). float32 stays with the modes there: 1.02-1.05 at 512 rows, 0.94-0.95
// at 2048 ([4, 512, 61] 1.98 against 2.08-2.11 us).
bool use_engine(const fb_call *c, const Problem &p) {
    const int esz = (int)fb_dtype_size(p.dt);
    if (p.dt == FB_F64) return false;
    const bool long_rows = p.g.vec && p.g.N >= 16384 && (esz == 4 || p.g.rows >= 2048);
    const bool short_rows = p.g.vec && p.g.N <= 512 && (esz == 4 || p.g.rows * p.g.N * esz <= (4L << 20));
    const bool unaligned = !p.g.vec && ((p.g.N >= 128 && p.g.rows >= 2048) || p.g.rows >= 8192);
    // the half types' unaligned rows, where the engine's plan loads the weight early: only its
    // scalar rows do that on rows that are not 16-byte rows (plan_scalar_early owns the widths)
    const bool half_unaligned = !p.g.vec && esz == 2;
    if (!(long_rows || short_rows || unaligned || half_unaligned)) return false;
    // rows too long for 8 CTAs' registers go to the engine's two-pass plan, which needs a workspace
    // that rmsnorm.fused does not ask for (and that was never measured here): the modes keep them
    int early = 0;
    if (!fb_rmsnorm_engine_fits(c, &early)) return false;
    return long_rows || short_rows || unaligned || (half_unaligned && early);
}

// rmsnorm.fused takes straight_reread (where its shape applies) outside float32, and in float32
// from 32 MB of x. float32, previous fused / straight_reread: on the H100 (issue 9 round 5, clean
// flush) 0.92-1.03 over its 15 shapes, but 0.993-1.016 on the six of >= 32 MB; on the H200 (stop
// 33 call 4, write flush, two runs) 1.009-1.049 on those six ([4, 2048, 2048] 38.4 -> 36.6 us) and
// 0.967-1.067 below.
constexpr long kStraightF32MinBytes = 32L << 20;
bool straight_fits(const fb_call *c, const Problem &p) {
    if (c->out[0].dtype != FB_F32) return true;
    return p.g.rows * p.g.N * 4 >= kStraightF32MinBytes;
}

// rmsnorm.straight_reread: rows of exactly G x U 16-byte units under plan_geom's G and U, G > 32,
// U of 1, 2 or 4, N < 2^30; one CTA per row.
struct Straight {
    static bool shape(const fb_call *c, Problem *p) {
        *p = problem(c);
        const Geom &g = p->g;
        Geom s;
        const int esz = (int)fb_dtype_size(p->dt);
        if (!plan_geom(g.rows, g.N, esz, g.vec, (esz == 2 ? 32 : 64) / esz, &s)) return false;
        p->g = s;
        return s.vec && s.G > 32 && s.units == (long)s.G * s.U && s.U <= 4 && s.N < (1L << 30) &&
               s.rows <= 0x7fffffffL;
    }
    static int supports(const fb_call *c, char *why, size_t n) {
        const int st = check(c, why, n);
        if (st != FB_OK) return st;
        Problem p;
        if (!shape(c, &p)) {
            if (why) snprintf(why, n, "rmsnorm.straight_reread takes 16-byte rows of exactly G x U units (G > 32 threads, U <= 4)");
            return FB_E_UNSUPPORTED;
        }
        return FB_OK;
    }
    static int run(const fb_call *c) {
        Problem p;
        if (check(c, nullptr, 0) != FB_OK || !shape(c, &p)) return FB_E_UNSUPPORTED;
        return launch(c, p);
    }
    // p: shape()'s problem for c (rmsnorm.fused has it already)
    static int launch(const fb_call *c, const Problem &p) {
        if (p.g.rows == 0) return FB_OK;
        int N = (int)p.g.N;
        cudaError_t e = cudaErrorInvalidValue;
        FB_DISPATCH(p.dt, T, {
            acc_t<T> eps = (acc_t<T>)kEps, inv_n = (acc_t<T>)(1.0 / (double)N);
            void *fn = p.g.U == 1   ? (void *)rmsnorm_straight_kernel<T, 1>
                       : p.g.U == 2 ? (void *)rmsnorm_straight_kernel<T, 2>
                                    : (void *)rmsnorm_straight_kernel<T, 4>;
            void *args[] = {(void *)&p.x, (void *)&p.w, (void *)&p.y, &N, &inv_n, &eps};
            e = cudaLaunchKernel(fn, dim3((unsigned)p.g.rows), dim3((unsigned)p.g.G), args, 0, c->stream);
        });
        return fb_cuda_status((int)e, "rmsnorm", __FILE__, __LINE__);
    }
};

// What rmsnorm.fused runs for a call with rows (p = problem(c)): the row engine, straight_reread
// (*sp its problem) or one of the three modes (pick_mode). The one place that orders the rules:
// Variant<MODE_AUTO>::launch runs the choice, fb_rmsnorm_fused_pick names it for the tests.
enum class FusedPick { ENGINE, STRAIGHT, MODE };
FusedPick fused_pick(const fb_call *c, const Problem &p, Problem *sp) {
    if (use_engine(c, p)) return FusedPick::ENGINE;
    if (straight_fits(c, p) && Straight::shape(c, sp)) return FusedPick::STRAIGHT;  // pick_mode's comment
    return FusedPick::MODE;
}

template <Mode M> struct Variant {
    static Mode mode(const Problem &p) { return M == MODE_AUTO ? pick_mode(p.g, (int)fb_dtype_size(p.dt)) : M; }
    static int supports(const fb_call *c, char *why, size_t n) {
        const int st = check(c, why, n);
        if (st != FB_OK) return st;
        const Problem p = problem(c);
        if (p.g.rows > 0 && p.g.N > 0 && mode(p) != MULTI_WAVE_RELOAD && p.g.U > 8) {
            if (why)
                snprintf(why, n, "rmsnorm.%s holds a row in registers: rows of at most 8192 units (this row has %ld)",
                         mode_names[M], p.g.units);
            return FB_E_UNSUPPORTED;
        }
        return FB_OK;
    }
    static int launch(const fb_call *c, bool dry) {
        const int st = supports(c, nullptr, 0);
        if (st != FB_OK) return st;
        const Problem p = problem(c);
        if (p.g.rows == 0 || p.g.N == 0) return FB_OK;
        if (M == MODE_AUTO) {
            Problem sp;
            switch (fused_pick(c, p, &sp)) {
            case FusedPick::ENGINE: return dry ? fb_rmsnorm_engine_plan_only(c) : fb_rmsnorm_engine_run(c);
            case FusedPick::STRAIGHT: return dry ? FB_OK : Straight::launch(c, sp);
            case FusedPick::MODE: break;
            }
        }
        bool ok = false;
        Launch L;
        FB_DISPATCH(p.dt, T, { ok = pick_kernel<T>(mode(p), p.g, &L); });
        if (!ok) {
            fb_error("rmsnorm.%s: no kernel for rows of %ld elements", mode_names[M], p.g.N);
            return FB_E_UNSUPPORTED;
        }
        if (dry) return FB_OK;
        long rows = p.g.rows, N = p.g.N, units = L.units;
        int G = p.g.G;
        cudaError_t e = cudaErrorInvalidValue;
        FB_DISPATCH(p.dt, T, {
            acc_t<T> eps = (acc_t<T>)kEps;
            void *args[] = {(void *)&p.x, (void *)&p.w, (void *)&p.y, &rows, &N, &units, &G, &eps};
            e = cudaLaunchKernel(L.fn, dim3(L.grid), dim3((unsigned)L.threads), args, 0, c->stream);
        });
        return fb_cuda_status((int)e, "rmsnorm", __FILE__, __LINE__);
    }
    static int run(const fb_call *c) { return launch(c, false); }
};

}  // namespace

extern "C" int fb_rmsnorm_plan_only(const fb_call *c) { return Variant<MODE_AUTO>::launch(c, true); }
extern "C" const char *fb_rmsnorm_fused_pick(const fb_call *c) {
    if (Variant<MODE_AUTO>::supports(c, nullptr, 0) != FB_OK) return nullptr;
    const Problem p = problem(c);
    if (p.g.rows == 0 || p.g.N == 0) return nullptr;
    Problem sp;
    switch (fused_pick(c, p, &sp)) {
    case FusedPick::ENGINE: return "row_engine";
    case FusedPick::STRAIGHT: return "straight_reread";
    case FusedPick::MODE: break;
    }
    return mode_names[Variant<MODE_AUTO>::mode(p)];
}

extern "C" int fb_rmsnorm_group_shape(const fb_call *c, int *G, int *U, int *threads, int *fixed_g) {
    if (Variant<MODE_AUTO>::supports(c, nullptr, 0) != FB_OK) return FB_E_UNSUPPORTED;
    const Problem p = problem(c);
    *G = p.g.G;
    *U = p.g.U;
    *threads = p.g.threads;
    void *f = nullptr;
    FB_DISPATCH(p.dt, T, { f = p.g.vec ? cached_fn_fixed_g<T, true>(p.g.G, p.g.U) : cached_fn_fixed_g<T, false>(p.g.G, p.g.U); });
    *fixed_g = !p.g.shift && f != nullptr;
    return FB_OK;
}

extern "C" const fb_variant fb_rmsnorm_variants[] = {
    {"rmsnorm.fused", "RMSNorm forward, the mode picked by shape (kernels/rmsnorm.cu's rule)", FB_DTYPES_ALL,
     Variant<MODE_AUTO>::supports, nullptr, Variant<MODE_AUTO>::run, 1},
    {"rmsnorm.multi_wave_cached", "RMSNorm forward, one row per thread group, the row held in registers",
     FB_DTYPES_ALL, Variant<MULTI_WAVE_CACHED>::supports, nullptr, Variant<MULTI_WAVE_CACHED>::run, 1},
    {"rmsnorm.multi_wave_reload", "RMSNorm forward, one row per thread group, x read twice (any row length)",
     FB_DTYPES_ALL, Variant<MULTI_WAVE_RELOAD>::supports, nullptr, Variant<MULTI_WAVE_RELOAD>::run, 1},
    {"rmsnorm.static_persistent", "RMSNorm forward, a resident grid looping over rows, the row in registers",
     FB_DTYPES_ALL, Variant<STATIC_PERSISTENT>::supports, nullptr, Variant<STATIC_PERSISTENT>::run, 1},
    {"rmsnorm.straight_reread",
     "RMSNorm forward, one CTA per row of exactly G x U 16-byte units, straight-line, x read again after the barrier",
     FB_DTYPES_ALL, Straight::supports, nullptr, Straight::run, 1},
    {"rmsnorm.row_engine", "RMSNorm forward on the row engine (layernorm's plans: a CTA or cluster a row, row_smem, ...)",
     FB_DTYPES_HALF_AND_F32, fb_rmsnorm_engine_supports, fb_rmsnorm_engine_workspace, fb_rmsnorm_engine_run, 1},
};
extern "C" const int fb_rmsnorm_variant_count = (int)(sizeof fb_rmsnorm_variants / sizeof fb_rmsnorm_variants[0]);
