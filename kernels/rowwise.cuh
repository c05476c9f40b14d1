// rowwise.cuh — the parts every row-wise fused kernel shares (softmax, double_softmax,
// softmax_backward, layernorm, norm_chain, ...): a "row" is the last dimension of a tensor,
// rows = the product of the leading dims.
//
//   * fast exp2 (MUFU.EX2) and the 16-byte / scalar access unit (Unit<T, VEC>),
//   * reductions over a group of lanes, a block and a thread-block cluster (barrier halves),
//   * shared-memory staging with cp.async,
//   * the row-tiling strategies (Plan) and the planners that map a shape onto one of them,
//     with the thresholds that were measured on the H100 for softmax (kernels/NOTES.md).
//
// quack's ReductionBase is the model: rowengine.cuh builds one row-resident engine from these
// parts, parameterised by the per-row computation, so a kernel file holds only its per-row
// math and variant table. softmax.cu keeps its own hand-tuned kernels on the same parts and
// plans (choose_plan is softmax's shape -> plan rule; plan_rows in rowengine.cuh the engine's).
#pragma once

#include "common.cuh"

#include <cooperative_groups.h>
#include <math.h>

#include <algorithm>
#include <utility>

namespace fb {
namespace rowwise {

namespace cg = cooperative_groups;

constexpr float kLog2e = 1.4426950408889634f;

// ---- device helpers --------------------------------------------------------------

// MUFU.EX2 directly: exp2f without -ftz wraps it in denormal scaling we do not need
// (results under 2^-126 are far below every tolerance). Max error 2 ulp.
__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// A "unit" is what one access moves: a 16-byte vector, or one element when rows are not
// 16-byte aligned. Values are converted to fp32 on load and back on store. Stores are
// evict-first (.cs) always; the load policy (16-byte units) is the kernel's pick:
//   Ld::Stream     evict-first (.cs): the default.
//   Ld::Plain      the default cache policy. Measured (NOTES.md, "round 4: load policy"): 1-3%
//                  faster than Stream for the register-resident kernels (softmax 65536 x 1024
//                  float32 188.7 -> 183.4 us, the copy 181.3), but 6-12% slower in row_smem CTAs
//                  whose shared part takes most of L1 (layernorm W = 65536 float32).
//   Ld::EvictLast  L1 and L2 evict_last (createpolicy), the hint Inductor gives the first read of
//                  a row it reads again: the row engine's float32 loads (rowengine.cuh,
//                  engine_ld). The timer's flush displaces such lines (l2_sweep.cu), so no
//                  sample starts with its input in L2.
enum class Ld { Stream, Plain, EvictLast };
template <typename T, bool VEC, Ld L = Ld::Stream> struct Unit;
template <typename T, Ld L> struct Unit<T, true, L> {
    static constexpr int N = 16 / (int)sizeof(T);
    static __device__ __forceinline__ void load(const T *p, long i, float (&v)[N]) {
        fb::vec<T> t;
        if constexpr (L == Ld::EvictLast)
            *reinterpret_cast<int4 *>(&t) = fb::load16_evict<fb::Evict::Last>(p + i * N);
        else
            t = L == Ld::Plain ? fb::load_vec(p + i * N) : fb::load_vec_stream(p + i * N);
#pragma unroll
        for (int k = 0; k < N; ++k) v[k] = fb::to_acc(t.v[k]);
    }
    static __device__ __forceinline__ void store(T *p, long i, const float (&v)[N]) {
        fb::vec<T> t;
#pragma unroll
        for (int k = 0; k < N; ++k) t.v[k] = fb::from_acc<T>(v[k]);
        fb::store_vec_stream(p + i * N, t);
    }
};
template <typename T, Ld L> struct Unit<T, false, L> {
    static constexpr int N = 1;
    static __device__ __forceinline__ void load(const T *p, long i, float (&v)[1]) {
        v[0] = fb::to_acc(__ldcs(p + i));  // the policy is not measured on the scalar path: kept evict-first
    }
    static __device__ __forceinline__ void store(T *p, long i, const float (&v)[1]) {
        __stcs(p + i, fb::from_acc<T>(v[0]));
    }
};

// Reductions over G lanes (a power of two <= 32; G = 32 is the warp). fmaxf drops NaN: a
// kernel using group_max must let a NaN reach its output some other way (softmax: a NaN
// element still reaches the row sum through exp(NaN - m) and poisons the whole row, as the
// reference does).
__device__ __forceinline__ float group_max(float x, int G) {
    for (int o = G >> 1; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}
__device__ __forceinline__ float group_sum(float x, int G) {
    for (int o = G >> 1; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}
__device__ __forceinline__ float block_fmax(float x, float *scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    x = group_max(x, 32);
    __syncthreads();
    if (lane == 0) scratch[warp] = x;
    __syncthreads();
    x = lane < nwarps ? scratch[lane] : -INFINITY;
    return group_max(x, 32);
}

// The cluster barrier halves live in common.cuh (rowgroup.cuh's kernels use them too).
using fb::cluster_arrive_release;
using fb::cluster_wait;

// Launches `kernel` as clusters of C CTAs along x (C = 1: an ordinary launch), with `smem`
// bytes of dynamic shared memory (the attribute is raised past 48 KB). Host side.
template <typename... KArgs, typename... Args>
inline cudaError_t launch_clusters(void (*kernel)(KArgs...), unsigned grid, unsigned threads, size_t smem,
                                   cudaStream_t st, int C, Args &&...args) {
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return e;
    }
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = cluster_config(grid, threads, smem, st, C, attr);
    const cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
    if (e != cudaSuccess) return e;
    return cudaGetLastError();
}

// ---- shared-memory staging ---------------------------------------------------------

// 16-byte cp.async and its group waits live in common.cuh (rowgroup.cuh's kernels stage with them
// too); named here for the files that use namespace fb::rowwise.
using fb::cp_async16;
using fb::cp_async_commit;
using fb::cp_async_wait_all;
using fb::cp_async_wait_pending;

// ---- plans ----------------------------------------------------------------------------

// (7 was K_HOLD, a persistent CTA a row holding its parameters: removed in stop 38, NOTES.md)
enum Kind { K_GROUP = 0, K_CTA = 1, K_TWO_PASS = 2, K_SMEM = 4, K_ROW_SMEM = 5, K_PERSIST = 6, K_STAGED = 8 };

struct Plan {
    int kind;
    bool vec;
    bool peel;    // K_GROUP with vec: W not a multiple of the vector width
    int upt;      // units per thread (per row)
    int r;        // rows per group (K_GROUP)
    int g;        // lanes per row (K_GROUP)
    int threads;  // CTA size (K_CTA, K_TWO_PASS)
    int c;        // CTAs per row (K_CTA); 1 = block_row
    // K_GROUP (unpeeled) and K_CTA of an op with parameters: every unit's parameters loaded with
    // the row, before its reductions (rowengine.cuh plan_params_early)
    bool early = false;
    // K_GROUP with early parameters on small float32 grids: the row loaded with the default L2
    // policy, not evict_last (rowengine.cuh plan_params_early, engine_ld)
    bool plain_x = false;
};

struct Shape {
    long rows, W;
    fb_dtype dt;
    int esz;
    const void *x;
    void *y;
    // Other tensors a vector plan reads with 16-byte accesses (a second row input, per-column
    // weight and bias), or null.
    const void *more[3] = {nullptr, nullptr, nullptr};
    int nin = 1;  // row-resident inputs: fp32 values a thread holds per element
    // fp32 values per thread in scalar CTA rows (each element's address costs registers too)
    int scalar_vals = 16;
    // The op prefers row_smem to a cluster for half-type rows that one CTA's registers cannot hold
    // (rowengine.cuh: Op::kHalfSmemRows, measured per op).
    bool half_smem_rows = false;
    // The op takes K_STAGED where it applies (rowengine.cuh: Op::kStagedParams, measured per op).
    bool staged_params = false;
    // float32 rows of >= 64 KB that one CTA's registers hold take K_CTA, not row_smem's kernel with
    // no shared part (rowengine.cuh: Op::kCtaRegisterRows, measured per op).
    bool cta_register_rows = false;
    // float32 rows of one input beyond one CTA's registers, on 128 rows up to this many, run in a
    // cluster of 256-thread CTAs (rowengine.cuh: Op::kWideRowClusterMaxRows, measured per op).
    long wide_cluster_max_rows = 0;
    int nparam = 0;  // per-column inputs (Op::NPARAM): weight, bias
};

constexpr int kMaxVals = 32;   // fp32 values a thread may hold (register budget)
constexpr int kMaxCluster = 8; // portable cluster size

inline int pow2ceil(long v) {
    int p = 1;
    while (p < v) p <<= 1;
    return p;
}
__host__ __device__ inline long cdiv(long a, long b) { return (a + b - 1) / b; }

using fb::sm_count;  // common.cuh: the elementwise kernels size their grids with it too

// Instantiated units-per-thread (a plan rounds up to the next one).
constexpr int kGroupVecUpt[] = {1, 2, 4, 8};
constexpr int kGroupScalarUpt[] = {1, 2, 4, 6, 8, 12, 16, 24, 32};
constexpr int kCtaVecUpt[] = {1, 2, 4, 8};
constexpr int kCtaScalarUpt[] = {4, 8, 16};

template <size_t K> inline int round_up_in(const int (&set)[K], long v) {
    for (size_t i = 0; i < K; ++i)
        if (set[i] >= v) return set[i];
    return -1;
}

// Every tensor the kernel reads or writes starts on a 16-byte boundary.
inline bool aligned_xy(const Shape &s) {
    for (const void *m : s.more)
        if (m != nullptr && !fb::aligned16(m)) return false;
    return fb::aligned16(s.x) && fb::aligned16(s.y);
}

inline bool vec_ok(const Shape &s) {
    const int N = 16 / s.esz;
    return s.W % N == 0 && aligned_xy(s);
}

inline bool plan_group(const Shape &s, Plan *p) {
    const bool vec = vec_ok(s);
    // Odd widths with aligned tensors: vector body + scalar head/tail per row.
    const bool peel = !vec && aligned_xy(s) && s.W >= 16 / s.esz;
    const int N = vec || peel ? 16 / s.esz : 1;
    const long nunits = s.W / N;
    // Units a lane may hold: 32 elements, whatever nin (the group kernels run 256-thread
    // CTAs, so 64 values of two inputs still fit without spilling).
    const int cap = kMaxVals / N;
    if (nunits > 32L * cap) return false;
    p->kind = K_GROUP;
    p->vec = vec || peel;
    p->peel = peel;
    if (p->vec) {
        // 16 values (64 B) per lane in flight is plenty; 32 only when the row needs it.
        const int want = (int)std::max(std::min<long>(nunits, 16 / N), cdiv(nunits, 32));
        p->upt = round_up_in(kGroupVecUpt, want);
        if (p->upt < 0 || p->upt * N > kMaxVals) return false;
    } else {
        const int want = (int)std::max(std::min<long>(4, nunits), cdiv(nunits, 32));
        p->upt = round_up_in(kGroupScalarUpt, want);
        if (p->upt < 0) return false;
    }
    p->g = std::min(32, pow2ceil(cdiv(nunits, p->upt)));
    if (peel && p->g < 2 * N) {  // head + tail <= 2N - 2 scalars, one per lane
        p->g = 2 * N;
        p->upt = round_up_in(kGroupVecUpt, cdiv(nunits, p->g));
    }
    if (p->g > 32) return false;
    // Short rows: several rows per group so each lane has ~16 values in flight.
    const int vals = p->upt * N;
    p->r = std::min(p->vec ? 4 : 8, std::max(1, 16 / (vals * s.nin)));
    p->threads = 256;
    p->c = 1;
    return true;
}

inline bool plan_cta(const Shape &s, int min_c, Plan *p, int vals = kMaxVals, int pref_threads = 512) {
    const bool vec = vec_ok(s);
    const int N = vec ? 16 / s.esz : 1;
    const long nunits = s.W / N;
    const int sms = sm_count();
    // 32 values per thread (scalar: 16, its per-element addresses cost registers) and CTAs of
    // up to 512 threads. Measured (NOTES.md): 32 values beat 16; one CTA per row beats a
    // cluster; a cluster of fewer 512-thread CTAs beats more 256- or 128-thread ones.
    // (Tried: half types at 64 values x 256 threads in a cluster, 128 registers: 70-78% of
    // SOL against 77-88% for 32 values x 512 threads. See NOTES.md.)
    // With nin inputs held per element, the 32 values are shared among them (1024-thread
    // CTAs allow 64 registers per thread).
    const int upt = vec ? vals / N / s.nin : s.scalar_vals / s.nin;
    long c = cdiv(nunits, (long)pref_threads * upt);
    if (c > kMaxCluster) {
        c = cdiv(nunits, 1024L * upt);
        if (c > kMaxCluster) return false;
    }
    // Few rows: split them further so there are >= 2 CTAs per SM, keeping >= 128 threads' worth.
    while (c < kMaxCluster && s.rows * c < 2L * sms && cdiv(nunits, 2 * c) >= 128L * upt)
        c = std::min<long>(2 * c, kMaxCluster);
    if (c < min_c) c = min_c;
    if (c > kMaxCluster) return false;
    const long chunk = cdiv(nunits, c);
    const long t = std::max(32L, ((cdiv(chunk, upt) + 31) / 32) * 32);
    p->kind = K_CTA;
    p->vec = vec;
    p->peel = false;
    p->upt = vec ? round_up_in(kCtaVecUpt, cdiv(chunk, t)) : round_up_in(kCtaScalarUpt, cdiv(chunk, t));
    if (p->upt < 0) return false;
    p->threads = (int)t;
    p->c = (int)c;
    p->r = 1;
    p->g = 32;
    return true;
}

inline void plan_two_pass(const Shape &s, Plan *p) {
    p->kind = K_TWO_PASS;
    p->vec = vec_ok(s);
    p->peel = false;
    p->threads = 1024;
    p->upt = 1;
    p->r = 1;
    p->g = 32;
    p->c = 1;
}

// smem_rows: tiles of R = 64 rows, two buffers per CTA (2 * R * W * esz <= 48 KB), a persistent
// grid of 4 CTAs per SM.
constexpr long kSmemMinRowBytes = 96, kSmemMaxRowBytes = 256;
inline bool plan_smem(const Shape &s, Plan *p) {
    if (!aligned_xy(s) || s.W * s.esz > 384) return false;
    p->kind = K_SMEM;
    p->vec = true;
    p->peel = false;
    p->threads = 64;
    p->upt = 1;
    p->r = 1;
    p->g = 32;
    p->c = 4;
    return true;
}

// row_smem: 1024 threads, REG units per thread in registers (float32: 4 or 8 x float4 = 16 or
// 32 values; half types: 2 x 8 = 16 values), the rest of the row in up to 200 KB of shared memory.
constexpr long kRowSmemMaxBytes = 200 * 1024, kRowSmemPairBytes = 110 * 1024;
inline bool plan_row_smem(const Shape &s, Plan *p) {
    if (!vec_ok(s)) return false;
    const int N = 16 / s.esz;
    // float32: 16 values per thread while they hold the whole row (W <= 16K), else 32 (a
    // 32K row then lives in registers alone: 128 x 32768 103% of SOL vs 94% at 16 values);
    // half types: 16 or 32 values the same way.
    const int reg = s.esz == 4 ? (s.W / N <= 4096 ? 4 : 8) : (s.W / N <= 2048 ? 2 : 4);
    const long nunits = s.W / N;
    // Up to two rows per SM: 512-thread CTAs, two per SM, keep the grid to one wave as long
    // as two CTAs' shared parts fit an SM (2 x 110 KB).
    const int sms = sm_count();
    for (int threads : {512, 1024}) {
        if (threads == 512 && !(s.rows > sms && s.rows <= 2L * sms)) continue;
        const long rest = std::max(0L, nunits - (long)threads * reg);
        const long K = cdiv(rest, threads);
        const long cap = threads == 512 ? kRowSmemPairBytes : kRowSmemMaxBytes;
        if (K * threads * 16 > cap) continue;
        p->kind = K_ROW_SMEM;
        p->vec = true;
        p->peel = false;
        p->threads = threads;
        p->upt = reg;
        p->r = (int)K;  // shared units per thread
        p->g = 32;
        p->c = 1;
        return true;
    }
    return false;
}

inline void choose_plan(const Shape &s, Plan *p) {
    // Short odd rows: staged through shared memory rather than peeled per row (NOTES.md:
    // W=61 float16 67% -> 73%, float32 89% -> 97%). Only rows of 96..256 bytes: shorter rows
    // make 64-row tiles too small to keep enough bytes in flight (not measured).
    if (!vec_ok(s) && s.W * s.esz >= kSmemMinRowBytes && s.W * s.esz <= kSmemMaxRowBytes && plan_smem(s, p))
        return;
    if (plan_group(s, p)) {
        // Many vector rows of >= 2 KB: as many rows per group as bring a lane to 32 values in
        // flight (within the instantiated units x rows), in 64-thread CTAs. Measured (NOTES.md,
        // round 4), float32 against 16 values in 256-thread CTAs: with a written L2 (the torch
        // peer's flush) 16384 x 512 27.7 -> 26.9 us, 65536 x 1024 183.3 -> 182.8 (the copy
        // ~181); with a clean L2 within +-1.5% on those rows. Applied to every vector row it cost
        // L2-sized tensors 5-10% (and 64 MB cells of shorter rows 2-4%, inside the 3.5% two runs
        // of one binary differ there), so only here.
        if (p->vec && !p->peel && s.nin == 1 && s.W * s.esz >= 2048 && s.rows >= 16384) {
            const int vals = p->upt * (16 / s.esz);
            const int cap = p->upt == 1 ? 4 : p->upt <= 4 ? 2 : 1;
            p->r = std::min(cap, std::max(1, 32 / vals));
            p->threads = 64;
        }
        return;
    }
    // Few long rows (one per SM, at least half the SMs busy): one wave of row_smem CTAs beats
    // ~2 waves of clusters while the shared part stays small (NOTES.md, v6: 128 x 32768
    // float32 92% vs 84%, bfloat16 128 x 65536 87% vs 75%; float32 rows of 256 KB lose).
    // Half types: rows of 32K..64K values are faster in row_smem for any row count over half
    // the SMs (1024 x 65536 bfloat16 93% vs 82% in clusters), 16K rows only up to one per SM.
    const int sms = sm_count();
    const bool one_wave = s.rows > sms / 2 && s.rows <= 2L * sms;  // 512-thread pairs past one row per SM
    if (s.W >= 16384 && s.W * s.esz <= 128 * 1024 && s.rows > sms / 2 &&
        (one_wave || (s.esz == 2 && s.W >= 32768)) && plan_row_smem(s, p))
        return;
    if (plan_cta(s, 1, p)) return;
    plan_two_pass(s, p);
}


inline bool plan_block(const Shape &s, Plan *p) {
    // block_row: one CTA per row, up to 1024 threads x 32 values (scalar 16).
    const bool vec = vec_ok(s);
    const int N = vec ? 16 / s.esz : 1;
    const long nunits = s.W / N;
    const int cap = vec ? kMaxVals / N : 16;
    if (nunits > 1024L * cap) return false;
    const long t = std::max(32L, ((cdiv(nunits, cap) + 31) / 32) * 32);
    p->kind = K_CTA;
    p->vec = vec;
    p->peel = false;
    p->upt = vec ? round_up_in(kCtaVecUpt, cdiv(nunits, t)) : round_up_in(kCtaScalarUpt, cdiv(nunits, t));
    p->threads = (int)t;
    p->c = 1;
    p->r = 1;
    p->g = 32;
    return p->upt > 0;
}
inline bool plan_auto(const Shape &s, Plan *p) {
    choose_plan(s, p);
    return true;
}
inline bool plan_any_two_pass(const Shape &s, Plan *p) {
    plan_two_pass(s, p);
    return true;
}
inline bool plan_cluster(const Shape &s, Plan *p) { return plan_cta(s, 2, p); }

}  // namespace rowwise
}  // namespace fb
