// rowengine.cuh — the row-resident engine: one set of row-tiling kernels, parameterised by
// the per-row computation (quack's ReductionBase is the model). A fused row-wise kernel file
// (double_softmax.cu, softmax_backward.cu, layernorm.cu, norm_chain.cu) is an Op — its
// per-row math — plus a variant table; everything else (loads, stores, reductions, plans,
// launch, argument checks) is here, built from the parts in rowwise.cuh.
//
// An Op is a struct with
//   static constexpr const char *name;     "layernorm", for messages
//   static constexpr int NIN;              row inputs [rows, W] held per element (1 or 2)
//   static constexpr int NPARAM;           per-column inputs [W] (weight, bias), 0..2
//   template <class Row> __device__ void row(Row &r);
//       the row program: reductions and in-place updates of the held values, e.g.
//           float s = 0.f;  r.each([&](auto &e) { s += e[0]; });  s = r.sum(s);
//       r.each(f) calls f(float (&e)[NIN]) once per element of the row this thread holds
//       (only real elements: no padding to neutralise); r.sum / r.max / r.lse reduce over
//       the whole row and return the result to every thread; r.local_sum / r.local_max
//       reduce over the largest scope that needs no barrier (the row itself in group plans,
//       Row::kLocalIsRow, else a warp); r.width() is W.
//   __device__ float out(const float (&e)[NIN], const float *p) const;
//       the output element from the held values and the column's parameters p[NPARAM].
//   static constexpr bool kHalfSmemRows;   optional: half-type rows that one CTA's registers cannot
//                                          hold go to row_smem, not a cluster (measured per op;
//                                          default false)
//   static constexpr bool kStagedParams;   optional: rows that fill one CTA's registers exactly take
//                                          K_STAGED where plan_staged says (measured per op;
//                                          default false)
//   static constexpr bool kCtaRegisterRows; optional: float32 rows of >= 64 KB that one CTA's
//                                          registers hold (row_smem's plan with no shared part)
//                                          run on K_CTA's kernel (measured per op; default false)
//   static constexpr long kWideRowClusterMaxRows; optional: float32 rows of one input beyond one
//                                          CTA's registers (W = 32769..65536) on 128..this many rows
//                                          run in a cluster of 256-thread CTAs, not row_smem
//                                          (measured per op; default 0: never)
// The Op object lives for one row, so row() can keep per-row results (mean, rstd) in members.
// Every thread of a row runs the same program (reductions are collective): no control flow
// in row() may depend on the values a thread holds, only on reduced results.
//
// Plans (plan_rows, the shape -> strategy choice, after softmax's measured rules):
//   K_SMEM   odd rows of 96..256 bytes: 64-row tiles (one contiguous span per input) staged
//            through shared memory with 16-byte cp.async, double-buffered in a persistent grid;
//            a warp computes each row from shared memory; 16-byte stores of the tile.
//   K_GROUP  rows of <= 32 elements per lane x 32 lanes: G lanes per row, R rows per group;
//            16-byte units, peeled per row (scalar head + tail) for odd widths.
//   (early)  K_GROUP and K_CTA of an op with parameters (layernorm) on grids of up to 8192 units an
//            SM: every unit's weight and bias loaded with the row, before its reductions, not one
//            unit at a time between the stores (plan_params_early).
//            Unaligned rows of 33..64 elements of such an op, up to 8192 rows: scalar group rows
//            with every element's parameters loaded early (plan_scalar_early), before K_SMEM.
//   K_CTA    one CTA per row (c = 1, up to 1024 threads when one CTA can hold the row: each
//            cluster-wide reduction costs long rows points of SOL, NOTES.md) or a cluster of
//            c <= 8 CTAs of <= 512 threads per row exchanging one partial per CTA over DSMEM: 32
//            fp32 values per thread, shared by the NIN inputs.
//   K_ROW_SMEM  one CTA per row, no cluster: 32 values per thread in registers, the rest of the
//            row as fp32 in shared memory (up to 200 KB: float32 W = 65536 in one 1024-thread CTA);
//            every reduction CTA-local. plan_rows picks it for float32 rows of >= 64 KB (but
//            two-input rows of two 1024-thread CTAs' registers from 512 rows: a cluster of two) and
//            for some half-type rows of >= 32 KB (see plan_rows); NAME.row_smem forces it.
//   K_TWO_PASS  rows too long for 8 CTAs' registers: one CTA per row (persistent grid), the
//            held values kept in a float32 workspace; each r.each() re-reads and rewrites it.
//   K_STAGED ops that ask for it (Op::kStagedParams: layernorm) on rows that fill the registers of
//            a CTA of 64..1024 threads exactly (float32 W = 2048..32768): the row in registers, the
//            first parameter (the weight) copied into 128-byte aligned shared memory by cp.async
//            once the row has landed, the others one unit ahead of the stores; every index a
//            compile-time offset from the thread's base (plan_rows_staged, plan_staged).
// softmax.cu keeps its own tuned kernels; its planners are the ones used here.
#pragma once

#include "rowwise.cuh"
#include "rowplan_info.h"

#include <stdio.h>

namespace fb {
namespace rowwise {

// ---- reductions as combiners ----------------------------------------------------------
// A combiner names a partial type (float, or float2 for (max, sum-of-exp) pairs), its
// identity and an associative combine; one reduction tree serves all of them.

struct SumOp {
    using type = float;
    static __device__ __forceinline__ float identity() { return 0.f; }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
};
// fmaxf drops NaN: ops that use max must let a NaN reach the output through a sum
// (row_softmax_scale does: exp(NaN - m) reaches the row sum).
struct MaxOp {
    using type = float;
    static __device__ __forceinline__ float identity() { return -INFINITY; }
    static __device__ __forceinline__ float combine(float a, float b) { return fmaxf(a, b); }
};
// (m, s) with s = sum exp(x - m): merged as S = s_a exp(m_a - M) + s_b exp(m_b - M). s == 0
// (nothing finite seen) contributes 0 even where m - M is NaN (-inf - -inf); a NaN s stays NaN.
struct LseOp {
    using type = float2;
    static __device__ __forceinline__ float2 identity() { return make_float2(-INFINITY, 0.f); }
    static __device__ __forceinline__ float2 combine(float2 a, float2 b) {
        const float M = fmaxf(a.x, b.x);
        const float s = (a.y == 0.f ? 0.f : a.y * ex2((a.x - M) * kLog2e)) +
                        (b.y == 0.f ? 0.f : b.y * ex2((b.x - M) * kLog2e));
        return make_float2(M, s);
    }
};

__device__ __forceinline__ float shfl_xor(float x, int o) { return __shfl_xor_sync(0xffffffffu, x, o); }
__device__ __forceinline__ float2 shfl_xor(float2 x, int o) {
    return make_float2(__shfl_xor_sync(0xffffffffu, x.x, o), __shfl_xor_sync(0xffffffffu, x.y, o));
}
__device__ __forceinline__ float shfl_bcast(float x) { return __shfl_sync(0xffffffffu, x, 0); }
__device__ __forceinline__ float2 shfl_bcast(float2 x) {
    return make_float2(__shfl_sync(0xffffffffu, x.x, 0), __shfl_sync(0xffffffffu, x.y, 0));
}
// Partials travel through shared memory (and DSMEM) as float2 slots, whatever the combiner's type.
__device__ __forceinline__ float2 pack2(float x) { return make_float2(x, 0.f); }
__device__ __forceinline__ float2 pack2(float2 x) { return x; }
template <class T> __device__ __forceinline__ T unpack2(float2 x);
template <> __device__ __forceinline__ float unpack2<float>(float2 x) { return x.x; }
template <> __device__ __forceinline__ float2 unpack2<float2>(float2 x) { return x; }

// Over G lanes (a power of two <= 32); every lane of the warp must call it. Five shuffles
// whatever G, each kept where its offset is under G: straight-line code, where a loop of run-time
// trip count compiled to a divergence check around every shuffle (a short row's kernel time is
// its instruction chain: NOTES.md, "Stop 36"). The same combines in the same order as a loop from
// G / 2 down.
template <class C> __device__ __forceinline__ typename C::type lanes_reduce(typename C::type x, int G) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const typename C::type y = shfl_xor(x, o);
        if (o < G) x = C::combine(x, y);
    }
    return x;
}

// A row owned by G lanes: every reduction is shuffles, no barrier.
struct GroupReducer {
    static constexpr bool kLocalIsRow = true;
    int G;
    template <class C> __device__ __forceinline__ typename C::type reduce(typename C::type x) {
        return lanes_reduce<C>(x, G);
    }
    template <class C> __device__ __forceinline__ typename C::type local(typename C::type x) {
        return lanes_reduce<C>(x, G);
    }
};

// The CTA partials of a cluster's reductions (CtaReducer<true>), pushed rather than pulled: warp 0's
// lane r sends its CTA's partial into CTA r's slot[parity][own rank] by st.async, whose bytes
// complete a phase of CTA r's bar[parity]; every thread then waits on its own CTA's barrier. No
// cluster barrier a reduction (barrier.cluster.arrive.release compiles to MEMBAR.ALL.GPU and meets
// every warp of every CTA). One per CTA in shared memory; init() before a cluster barrier that
// precedes the first send. Slot reuse: a CTA sends reduction i + 2 into slot[i & 1] only after it
// received i + 1, which each peer sends after its reduction's __syncthreads, which every one of its
// threads reaches after reading reduction i's slots (rowgroup.cuh's PairExchange, C-way).
struct ClusterSlots {
    float2 slot[2][8];  // [parity][sender rank]
    uint64_t bar[2];
    __device__ void init() {
        mbar_init(&bar[0], 1);
        mbar_init(&bar[1], 1);
        fence_mbar_init_cluster();
    }
};

// A row owned by a CTA, or by a cluster of C CTAs. Each warp reduces with shuffles and
// publishes one partial. A CTA: one __syncthreads, then every warp reads all nwarps partials
// and reduces them itself. A cluster: after the __syncthreads warp 0 reduces the CTA's partials
// to one and sends it to every CTA of the cluster (ClusterSlots); once the C - 1 peers' partials
// have landed every warp reduces the C of them in rank order. (Every warp reading all C *
// nwarps warp partials over DSMEM instead took 2-4 dependent remote round trips per reduction
// and cost long-row ops ~10 points of SOL per reduction: NOTES.md.)
// Partials alternate between two buffers: a reduction's writes land in the buffer the
// previous-but-one reduction read, and the barrier of the reduction in between orders them
// after those reads. `phase` carries on across rows of a persistent CTA for the same reason.
template <bool CLUSTER> struct CtaReducer {
    static constexpr bool kLocalIsRow = false;
    float2 *part;  // __shared__ float2[66]: two buffers of 33, a partial per warp (up to 32; the
                   // 33rd held the CTA's partial for the cluster barrier form, before ClusterSlots)
    int C;         // CTAs per row (1 without a cluster)
    int phase;
    ClusterSlots *cs = nullptr;  // CLUSTER: this CTA's slots, initialised (see ClusterSlots)
    int rank = 0;                // CLUSTER: this CTA's rank in the cluster
    template <class Cb> __device__ __forceinline__ typename Cb::type local(typename Cb::type x) {
        return lanes_reduce<Cb>(x, 32);
    }
    template <class Cb> __device__ __forceinline__ typename Cb::type reduce(typename Cb::type x) {
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
        x = lanes_reduce<Cb>(x, 32);
        float2 *buf = part + (phase & 1) * 33;
        ++phase;
        if (lane == 0) buf[warp] = pack2(x);
        __syncthreads();
        typename Cb::type acc = Cb::identity();
        if (lane < nwarps) acc = unpack2<typename Cb::type>(buf[lane]);
        acc = lanes_reduce<Cb>(acc, 32);
        if constexpr (CLUSTER) {
            const int i = phase - 1, p = i & 1;
            if (warp == 0) {
                if (lane == 0) mbar_arrive_expect_tx(&cs->bar[p], (uint32_t)((C - 1) * sizeof(float2)));
                if (lane < C && lane != rank) {
                    const float2 v = pack2(acc);
                    st_async_pair(dsmem_addr(&cs->slot[p][rank], (uint32_t)lane), v.x, v.y,
                                  dsmem_addr(&cs->bar[p], (uint32_t)lane));
                }
            }
            mbar_wait(&cs->bar[p], (uint32_t)((i >> 1) & 1));
            typename Cb::type c = Cb::identity();
            if (lane < C) c = lane == rank ? acc : unpack2<typename Cb::type>(cs->slot[p][lane]);
            acc = lanes_reduce<Cb>(c, 8);
            // lanes_reduce over 8 lanes leaves lanes 0..7's result in each aligned group of 8;
            // lane 0's group holds ranks 0..7
            acc = shfl_bcast(acc);
        }
        return acc;
    }
};

// K_STAGED's reducer: a CTA's, which issues the kernel's deferred copies (the weight into shared
// memory) at its first reduction, once the thread's partial is known, before the barrier: after
// the row's loads have landed, while the CTA meets at its first barrier. Measured (NOTES.md, "Stop
// 35", H200, dev/layernorm_params_dev.cu's harness, 1024 x 32768 float32, write flush, the staged
// area 128-byte aligned): 74.4 us issued here, 78.4 issued at the top of the kernel (ptxas then
// puts the copies' LDGSTS among the row's loads whatever the source order: they have no result to
// wait for, and 128 KB of L2 requests a CTA delay the row's DRAM loads); the copy 67.5. The test
// on the partial's bits only makes the copies wait for the thread's loads (ptxas cannot hoist a
// predicated LDGSTS above the value it depends on); a partial of exactly those bits (a NaN)
// leaves them to the fallback after row().
template <class Stage> struct StagingReducer {
    static constexpr bool kLocalIsRow = false;
    CtaReducer<false> base;
    Stage &stage;
    bool pending;
    static __device__ __forceinline__ unsigned first_bits(float x) { return __float_as_uint(x); }
    static __device__ __forceinline__ unsigned first_bits(float2 x) { return __float_as_uint(x.x); }
    template <class Cb> __device__ __forceinline__ typename Cb::type local(typename Cb::type x) {
        return base.template local<Cb>(x);
    }
    template <class Cb> __device__ __forceinline__ typename Cb::type reduce(typename Cb::type x) {
        if (pending && first_bits(x) != 0xffffffffu) {
            stage();
            pending = false;
        }
        return base.template reduce<Cb>(x);
    }
};

// ---- the values a thread holds ----------------------------------------------------------

// UPT units of N elements each, NIN values per element (e[j] = input j), plus, for rows
// peeled into head/body/tail (EX), one scalar element. ok[u]: unit u is part of the row.
template <int NIN, int UPT, int N, bool EX> struct RegVals {
    float v[UPT][N][NIN];
    bool ok[UPT];
    float ex[NIN];
    bool has_ex;
    template <class F> __device__ __forceinline__ void each(F &&f) {
#pragma unroll
        for (int u = 0; u < UPT; ++u)
            if (ok[u]) {
#pragma unroll
                for (int k = 0; k < N; ++k) f(v[u][k]);
            }
        if constexpr (EX) {
            if (has_ex) f(ex);
        }
    }
};

// Row too long for registers: the values live in a float32 workspace slice [NIN][W]; each
// thread touches only indices tid + k*blockDim, so no barrier is needed between passes.
// The first pass reads the inputs instead.
template <typename T, int NIN> struct StreamVals {
    const T *in[NIN];  // this row's inputs
    float *ws;         // this CTA's slice
    long W;
    bool fresh;        // no pass yet: values are still the inputs
    __device__ __forceinline__ void get(long i, float (&e)[NIN]) const {
#pragma unroll
        for (int j = 0; j < NIN; ++j) e[j] = fresh ? fb::to_acc(in[j][i]) : ws[j * W + i];
    }
    template <class F> __device__ __forceinline__ void each(F &&f) {
        for (long i = threadIdx.x; i < W; i += blockDim.x) {
            float e[NIN];
            get(i, e);
            f(e);
#pragma unroll
            for (int j = 0; j < NIN; ++j) ws[j * W + i] = e[j];
        }
        fresh = false;
    }
};

// The part of a row a thread holds in shared memory (K_ROW_SMEM): up to K units of N elements
// per input, as fp32 (in-place updates of the values keep full precision whatever T is). Unit k
// of thread t, input j, float4 chunk h sits at float4 index ((k * NIN + j) * CH + h) * T + t: a
// warp's accesses are 16 consecutive bytes per lane, conflict-free. Each thread only ever reads
// the slots it wrote (or copied with cp.async), so no barrier is needed between passes, and
// wait_all once before the first read completes this thread's copies.
// Every dtype is copied with 16-byte cp.async, as it is in memory: float32 straight into its
// slot; a half-type unit (8 values, 16 bytes) into the last of its two chunks (`raw`), widened to
// fp32 in place, over both chunks, by the first read (widen_raw). (The half types used to load,
// widen and store each unit in turn, K round trips to memory in series before the row's first
// reduction: bfloat16 layernorm at W = 65536 ran at 55-71% of SOL, NOTES.md "Stop 23".)
template <typename T, int NIN, int N> struct SmemVals {
    static constexpr int CH = N / 4;  // float4 chunks per unit
    static_assert(sizeof(T) == 4 || (sizeof(T) == 2 && CH == 2), "float32 units, or half-type units of two chunks");
    float4 *sm;
    int K;          // slots per thread
    long first;     // the row's unit index of slot 0 of thread 0
    long nunits;    // units in the row
    bool pending;   // cp.async copies not yet waited for
    bool raw;       // half types: the slots still hold the units as copied (T values in chunk CH - 1)
    // where unit k of input j is copied to
    __device__ __forceinline__ float4 *copy_slot(int k, int j) const { return slot(k, j, CH - 1); }
    __device__ __forceinline__ void widen_raw() {
        for (int k = 0; k < K; ++k) {
            if (!ok(k)) break;
#pragma unroll
            for (int j = 0; j < NIN; ++j) {
                fb::vec<T> t;
                *reinterpret_cast<float4 *>(&t) = *copy_slot(k, j);
                float e[N];
#pragma unroll
                for (int i = 0; i < N; ++i) e[i] = fb::to_acc(t.v[i]);
#pragma unroll
                for (int h = 0; h < CH; ++h) *slot(k, j, h) = make_float4(e[4 * h], e[4 * h + 1], e[4 * h + 2], e[4 * h + 3]);
            }
        }
        raw = false;
    }
    __device__ __forceinline__ bool ok(int k) const {
        return first + threadIdx.x + (long)k * blockDim.x < nunits;
    }
    __device__ __forceinline__ float4 *slot(int k, int j, int h) const {
        return sm + ((long)(k * NIN + j) * CH + h) * blockDim.x + threadIdx.x;
    }
    __device__ __forceinline__ void get(int k, float (&e)[N][NIN]) const {
#pragma unroll
        for (int j = 0; j < NIN; ++j)
#pragma unroll
            for (int h = 0; h < CH; ++h) {
                const float4 q = *slot(k, j, h);
                e[4 * h][j] = q.x;
                e[4 * h + 1][j] = q.y;
                e[4 * h + 2][j] = q.z;
                e[4 * h + 3][j] = q.w;
            }
    }
    __device__ __forceinline__ void put(int k, const float (&e)[N][NIN]) const {
#pragma unroll
        for (int j = 0; j < NIN; ++j)
#pragma unroll
            for (int h = 0; h < CH; ++h)
                *slot(k, j, h) = make_float4(e[4 * h][j], e[4 * h + 1][j], e[4 * h + 2][j], e[4 * h + 3][j]);
    }
    // this thread's copies landed and widened: every read goes through here first
    __device__ __forceinline__ void wait() {
        if (pending) {
            cp_async_wait_all();
            pending = false;
        }
        if constexpr (sizeof(T) != 4) {
            if (raw) widen_raw();
        }
    }
    template <class F> __device__ __forceinline__ void each(F &&f) {
        wait();
        for (int k = 0; k < K; ++k) {
            if (!ok(k)) break;
            float e[N][NIN], was[N][NIN];
            get(k, e);
            bool changed = false;
#pragma unroll
            for (int i = 0; i < N; ++i) {
#pragma unroll
                for (int j = 0; j < NIN; ++j) was[i][j] = e[i][j];
                f(e[i]);
#pragma unroll
                for (int j = 0; j < NIN; ++j) changed |= __float_as_uint(e[i][j]) != __float_as_uint(was[i][j]);
            }
            // read-only passes (sums) cost no shared-memory writes
            if (changed) put(k, e);
        }
    }
};

// A row split between registers (the first UPT * T units) and shared memory (the rest).
template <typename T, int NIN, int UPT, int N> struct RegSmemVals {
    RegVals<NIN, UPT, N, false> reg;
    SmemVals<T, NIN, N> smem;
    template <class F> __device__ __forceinline__ void each(F &&f) {
        reg.each(f);
        smem.each(f);
    }
};

// What an Op's row() sees.
template <class Vals, class Red> struct Row {
    static constexpr bool kLocalIsRow = Red::kLocalIsRow;
    Vals &vals;
    Red &red;
    long W;
    template <class F> __device__ __forceinline__ void each(F &&f) { vals.each(f); }
    __device__ __forceinline__ long width() const { return W; }
    __device__ __forceinline__ float sum(float x) { return red.template reduce<SumOp>(x); }
    __device__ __forceinline__ float max(float x) { return red.template reduce<MaxOp>(x); }
    __device__ __forceinline__ float2 lse(float2 ms) { return red.template reduce<LseOp>(ms); }
    __device__ __forceinline__ float local_sum(float x) { return red.template local<SumOp>(x); }
    __device__ __forceinline__ float local_max(float x) { return red.template local<MaxOp>(x); }
};

// Softmax of value J, as the softmax kernels compute it: the values become exp(e[J] - shift)
// and the returned scale finishes the job (y = e[J] * scale). shift is the max over the local
// scope (the row, or the warp), so one barrier merges (max, sum) pairs: scale =
// exp(m_local - M) / S. An all -inf row gives NaN, a NaN anywhere a NaN row, as the reference.
template <int J, class R> __device__ __forceinline__ float row_softmax_scale(R &r) {
    float m = -INFINITY;
    r.each([&](auto &e) { m = fmaxf(m, e[J]); });
    m = r.local_max(m);
    // A warp may hold only -inf while the row does not: shift by 0 then, so its exps are 0
    // rather than NaN; the merge uses the true m.
    const float sh = m == -INFINITY ? 0.f : m;
    float s = 0.f;
    r.each([&](auto &e) {
        e[J] = ex2((e[J] - sh) * kLog2e);
        s += e[J];
    });
    if constexpr (R::kLocalIsRow) {
        return 1.f / r.local_sum(s);
    } else {
        // Each lane's own (m, s): m is the warp's, shared by its lanes, so the merge adds the
        // lanes' sums exactly. (A warp-summed s here would be merged once per lane: 32x.)
        const float2 MS = r.lse(make_float2(m, s));
        return ex2((m - MS.x) * kLog2e) / MS.y;
    }
}

// ---- kernel arguments -------------------------------------------------------------------

template <typename T> struct Args {
    const T *in[2];     // row inputs [rows, W]
    const T *param[2];  // per-column inputs [W]
    T *out;             // [rows, W]
    float *ws;          // K_TWO_PASS workspace: gridDim.x slices of NIN * W floats
};

// Loads 16-byte (or scalar) unit i of every row input at element offset off.
template <class U, int NIN, typename T, int N>
__device__ __forceinline__ void load_inputs(const Args<T> &a, long off, long i, float (&dst)[N][NIN]) {
#pragma unroll
    for (int j = 0; j < NIN; ++j) {
        float t[N];
        U::load(a.in[j] + off, i, t);
#pragma unroll
        for (int k = 0; k < N; ++k) dst[k][j] = t[k];
    }
}

// The parameters of N consecutive columns from column c: VEC, a 16-byte load (vector plans
// need every tensor 16-byte aligned and W a multiple of N, so c is a multiple of N), else N
// scalar loads. Parameters are re-read by every row: cached loads, no streaming hint.
constexpr int np_slots(int np) { return np > 0 ? np : 1; }
// A 16-byte unit of each parameter as stored (four registers whatever the dtype): what the
// early-parameter plans hold from the row's loads to its stores (Plan::early), widened to fp32
// only at the output (widened at the load, a half type's unit held eight registers a parameter).
template <int NP> struct RawParams {
    int4 q[np_slots(NP)];
};
template <int NP, typename T> __device__ __forceinline__ void load_raw_params(const Args<T> &a, long c, RawParams<NP> &r) {
#pragma unroll
    for (int q = 0; q < NP; ++q) r.q[q] = *reinterpret_cast<const int4 *>(a.param[q] + c);
}
template <int NP, int N, typename T> __device__ __forceinline__ void widen_params(const RawParams<NP> &r, float (&p)[N][np_slots(NP)]) {
    static_assert(N == fb::vec<T>::n, "a 16-byte unit");
#pragma unroll
    for (int q = 0; q < NP; ++q) {
        fb::vec<T> t;
        *reinterpret_cast<int4 *>(&t) = r.q[q];
#pragma unroll
        for (int k = 0; k < N; ++k) p[k][q] = fb::to_acc(t.v[k]);
    }
}

template <int NP, int N, bool VEC, typename T>
__device__ __forceinline__ void load_params(const Args<T> &a, long c, float (&p)[N][np_slots(NP)]) {
    if constexpr (VEC) {
        RawParams<NP> r;
        load_raw_params<NP>(a, c, r);
        widen_params<NP, N, T>(r, p);
    } else {
#pragma unroll
        for (int q = 0; q < NP; ++q)
#pragma unroll
            for (int k = 0; k < N; ++k) p[k][q] = fb::to_acc(a.param[q][c + k]);
    }
}

// ---- kernels ------------------------------------------------------------------------------

// The parameters' lines for columns [c0, c1), requested into L1 by the CTA's threads (one
// prefetch per 128-byte line, no registers) while the row's own loads are in flight. The output
// loops load a unit's parameters after the reductions and after the previous unit's store (the
// compiler cannot move a load above a store it may alias), so on a cold L2 each unit paid a DRAM
// round trip in turn: layernorm 128 x 4096 float32 (128-thread CTAs, 8 units a thread) took 9.2
// us where norm_chain, three reductions and no parameters, took 6.4. Only on grids of at most
// two CTAs per SM (few_ctas()): in longer grids the first CTAs on an SM leave the lines in L1
// and L2 for the rest. (A prefetch per unit and thread instead, on grids of up to a wave of
// threads, doubled layernorm 4096 x 1024: every thread asked L2 for the same few lines.) And
// only up to 32 KB of parameters a CTA: more crowds L1, where two 512-thread CTAs of W = 16384
// float32 (128 KB of weight and bias each) lost 9% (256 x 16384: 15.5 -> 16.9 us).
constexpr long kPrefetchParamBytes = 32 * 1024;
template <int NP, typename T> __device__ __forceinline__ void prefetch_param_lines(const Args<T> &a, long c0, long c1) {
    if ((c1 - c0) * (long)sizeof(T) * NP > kPrefetchParamBytes) return;
#pragma unroll
    for (int q = 0; q < NP; ++q) {
        const uintptr_t first = reinterpret_cast<uintptr_t>(a.param[q] + c0) & ~uintptr_t(127);
        const uintptr_t end = reinterpret_cast<uintptr_t>(a.param[q] + c1);
        for (uintptr_t l = first + (uintptr_t)threadIdx.x * 128; l < end; l += (uintptr_t)blockDim.x * 128)
            asm volatile("prefetch.global.L1 [%0];" ::"l"(l));
    }
}
__device__ __forceinline__ bool few_ctas() {
    unsigned sms;
    asm("mov.u32 %0, %%nsmid;" : "=r"(sms));  // the SM id range: the SM count, or a little over
    return gridDim.x <= 2 * sms;
}

// The load policy of the engine's register-resident rows (see Unit). float32: evict_last,
// Inductor's hint for a row's first read. Measured (NOTES.md, issue 6 round 6, H100, old plain
// loads / evict_last, two runs each): float32 geomean 1.005-1.034 over layernorm, norm_chain,
// double_softmax and softmax_backward at 15 cells each, clean flush (layernorm 65536 x 4096
// 731.6 -> 704.9 us, norm_chain 738.5 -> 704.3); but the half types lost up to 22% (bfloat16
// geomeans 0.866-0.927 over 9 cells; layernorm 4096 x 65536 505.9 -> 649.1 us), and row_smem's
// loads beside a full shared part 10% (layernorm float32 W = 65536 775.2 -> 860.6), so both keep
// their earlier policy.
// Except (Plan::plain_x) on the small grids of early-parameter group rows: up to 2048 units of row
// and parameters an SM (rows x units x NPARAM / SMs), where a float32 row loaded plainly is faster.
// Measured (NOTES.md, "Stop 40", H200, --timer cupti, write flush, two rounds, t_evict_last /
// t_plain): rmsnorm [4, T, N] float32 at 124-1986 units an SM 1.000-1.034 ([4, 128, 512] 2.40 ->
// 2.32 us); layernorm (two parameters) at 31-993 units an SM 0.995-1.079 (128 x 512 2.20 -> 2.04),
// but at 1986 0.96 twice (8192 x 128, 4096 x 256) and 1.03 once (2048 x 512); at 3971 evict_last
// wins for both (rmsnorm [4, 2048, 256] 0.966, layernorm 4096 x 512 0.836), and everywhere else it
// was timed (the four issue-6 cases at 1024..16384 rows x 512..8192: 0.84-1.03, geomeans
// 0.928-0.972).
template <typename T> constexpr Ld engine_ld() { return sizeof(T) == 4 ? Ld::EvictLast : Ld::Plain; }
constexpr long kPlainRowUnitsPerSm = 2048;

// K_GROUP: groups of G lanes per row, R consecutive rows per group (all loads issued before
// any row's program runs). Lane l holds units l, l+G, ... of each row. PEEL: W is not a
// multiple of the vector width; each row is split into a scalar head (to the next 16-byte
// boundary), an aligned vector body and a scalar tail, lane l < head + tail holding one of the
// scalars. Rows past the end run the program on no values (reductions are collective).
// EP (parameters early; unpeeled rows of ops with parameters, plan_params_early, and scalar rows
// of 33..64 elements, plan_scalar_early): every unit's (element's) parameters are loaded with the
// row, before its reductions, instead of one unit at a time between the stores (see
// prefetch_param_lines).
// PLAIN (Plan::plain_x): the row loaded with the default policy instead of engine_ld's.
template <class Op, typename T, bool VEC, bool PEEL, int UPT, int R, bool EP = false, bool PLAIN = false>
__global__ void __launch_bounds__(256) row_group_kernel(const Args<T> a, long rows, long W, int G) {
    using U = Unit<T, VEC, PLAIN ? Ld::Plain : engine_ld<T>()>;  // see engine_ld
    constexpr int N = U::N, NIN = Op::NIN, NP = Op::NPARAM;
    static_assert(!EP || (NP > 0 && !PEEL), "early parameters: unpeeled rows of an op with parameters");
    const int lane = threadIdx.x & (G - 1);
    // G is a power of two: a shift, where `/ G` on a 64-bit index was a division subroutine
    const long group = ((long)blockIdx.x * blockDim.x + threadIdx.x) >> (__ffs(G) - 1);

    RegVals<NIN, UPT, N, PEEL> v[R];
    long off[R], head[R], nbody[R], ex_at[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const long row = group * R + r;
        const bool in = row < rows;
        head[r] = 0;
        nbody[r] = W / N;
        ex_at[r] = -1;
        if constexpr (PEEL) {
            head[r] = min(W, (long)((N - (row * W) % N) % N));  // every tensor is 16-byte aligned
            nbody[r] = (W - head[r]) / N;
            const long tail = W - head[r] - nbody[r] * N;
            if (lane < head[r]) ex_at[r] = lane;
            else if (lane < head[r] + tail) ex_at[r] = nbody[r] * N + lane;
            v[r].has_ex = in && ex_at[r] >= 0;
            if (v[r].has_ex) {
#pragma unroll
                for (int j = 0; j < NIN; ++j) v[r].ex[j] = fb::to_acc(__ldcs(a.in[j] + row * W + ex_at[r]));
            }
        }
        off[r] = row * W + head[r];
#pragma unroll
        for (int u = 0; u < UPT; ++u) {
            const long i = lane + (long)u * G;
            v[r].ok[u] = in && i < nbody[r];
            if (v[r].ok[u]) load_inputs<U, NIN>(a, off[r], i, v[r].v[u]);
        }
    }
    // early parameters: a 16-byte unit of each (vector rows), or each element's, widened (scalar rows)
    RawParams<NP> pe[EP && VEC ? UPT : 1];
    float ps[EP && !VEC ? UPT : 1][1][np_slots(NP)];
    if constexpr (EP) {
#pragma unroll
        for (int u = 0; u < UPT; ++u) {
            const long i = lane + (long)u * G;
            if (i < nbody[0]) {
                if constexpr (VEC) load_raw_params<NP>(a, i * N, pe[u]);
                else load_params<NP, 1, false>(a, i, ps[u]);
            }
        }
    } else if constexpr (NP > 0) {
        if (few_ctas()) prefetch_param_lines<NP>(a, 0, W);
    }
    GroupReducer red{G};
    Op op[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        Row<RegVals<NIN, UPT, N, PEEL>, GroupReducer> row{v[r], red, W};
        op[r].row(row);
    }
    float p[N][np_slots(NP)];
#pragma unroll
    for (int u = 0; u < UPT; ++u) {
        const long i = lane + (long)u * G;
        // Unpeeled rows share their column layout: one parameter load serves all R rows.
        if constexpr (EP && VEC) {
            widen_params<NP, N, T>(pe[u], p);
        } else if constexpr (EP) {
#pragma unroll
            for (int q = 0; q < NP; ++q) p[0][q] = ps[u][0][q];
        } else if constexpr (NP > 0 && !PEEL) {
            if (i < nbody[0]) load_params<NP, N, VEC>(a, i * N, p);
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (!v[r].ok[u]) continue;
            if constexpr (NP > 0 && PEEL) load_params<NP, N, false>(a, head[r] + i * N, p);
            float o[N];
#pragma unroll
            for (int k = 0; k < N; ++k) o[k] = op[r].out(v[r].v[u][k], p[k]);
            U::store(a.out + off[r], i, o);
        }
    }
    if constexpr (PEEL) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (!v[r].has_ex) continue;
            const long row = group * R + r;
            float q[1][np_slots(NP)];
            if constexpr (NP > 0) load_params<NP, 1, false>(a, ex_at[r], q);
            __stcs(a.out + row * W + ex_at[r], fb::from_acc<T>(op[r].out(v[r].ex, q[0])));
        }
    }
}

// The output of a CTA's slice of a row: thread t's units t + u * blockDim from element offset
// off (the slice's start; its columns start at unit `begin`). Running pointers (not per-unit
// 64-bit offsets): the parameter loads of a unit then cost no address registers kept across
// the loop.
// The parameters of a CTA's slice of a row, every unit this thread holds, as stored
// (store_slice's EP).
template <int NP, int N, int UPT, typename T>
__device__ __forceinline__ void load_slice_params(const Args<T> &a, long begin, const bool (&ok)[UPT],
                                                  RawParams<NP> (&pe)[UPT]) {
#pragma unroll
    for (int u = 0; u < UPT; ++u)
        if (ok[u]) load_raw_params<NP>(a, (begin + threadIdx.x + (long)u * blockDim.x) * N, pe[u]);
}

// EP: the parameters were loaded with the row (load_slice_params), pe holds them.
template <class Op, class U, bool VEC, bool EP = false, typename T, class V, class PE>
__device__ __forceinline__ void store_slice(const Op &op, const V &v, const Args<T> &a, long off, long begin,
                                            const PE &pe) {
    constexpr int N = U::N, NP = Op::NPARAM;
    constexpr int UPT = sizeof(v.ok) / sizeof(v.ok[0]);
    Args<T> at = a;
    at.out += off + (long)threadIdx.x * N;
#pragma unroll
    for (int q = 0; q < NP; ++q) at.param[q] += (begin + threadIdx.x) * N;
    const long step = (long)blockDim.x * N;
#pragma unroll
    for (int u = 0; u < UPT; ++u) {
        if (v.ok[u]) {
            float p[N][np_slots(NP)];
            if constexpr (EP) widen_params<NP, N, T>(pe[u], p);
            else if constexpr (NP > 0) load_params<NP, N, VEC>(at, 0, p);
            float o[N];
#pragma unroll
            for (int k = 0; k < N; ++k) o[k] = op.out(v.v[u][k], p[k]);
            U::store(at.out, 0, o);
        }
        at.out += step;
#pragma unroll
        for (int q = 0; q < NP; ++q) at.param[q] += step;
    }
}

// K_CTA: C CTAs per row (a cluster when CLUSTER), CTA `rank` owning units
// [rank * chunk, (rank + 1) * chunk) of the row; thread t holds units t + u * blockDim.
// EP (parameters early, plan_params_early): every unit's parameters loaded with the row.
template <class Op, typename T, bool VEC, int UPT, bool CLUSTER, bool EP = false>
__global__ void __launch_bounds__(1024, 1) row_cta_kernel(const Args<T> a, long W, int C, long chunk) {
    using U = Unit<T, VEC, engine_ld<T>()>;  // see engine_ld
    constexpr int N = U::N, NIN = Op::NIN, NP = Op::NPARAM;
    static_assert(!EP || NP > 0, "early parameters: an op with parameters");
    __shared__ float2 part[66];

    long row = blockIdx.x, begin = 0;
    if constexpr (CLUSTER) {
        row = blockIdx.x / C;  // clusters tile grid.x: the CTAs of one cluster are consecutive
        begin = (long)cg::this_cluster().block_rank() * chunk;
    }
    const long count = min(W / N - begin, chunk);  // <= 0 for a trailing rank of a short row
    const long off = row * W + begin * N;
    __shared__ ClusterSlots cs;
    if constexpr (CLUSTER) {
        // the slots' barriers initialised, and the cluster barrier that publishes them begun, before
        // the row's loads; its wait comes after them
        if (threadIdx.x == 0) cs.init();
        cluster_arrive_relaxed();
    }

    RegVals<NIN, UPT, N, false> v;
    {
        Args<T> at = a;  // running pointers, as for the stores below
#pragma unroll
        for (int j = 0; j < NIN; ++j) at.in[j] += off + (long)threadIdx.x * N;
#pragma unroll
        for (int u = 0; u < UPT; ++u) {
            v.ok[u] = threadIdx.x + (long)u * blockDim.x < count;
            if (v.ok[u]) load_inputs<U, NIN>(at, 0, 0, v.v[u]);
#pragma unroll
            for (int j = 0; j < NIN; ++j) at.in[j] += (long)blockDim.x * N;
        }
    }
    RawParams<NP> pe[EP ? UPT : 1];
    if constexpr (EP) {
        load_slice_params<NP, N>(a, begin, v.ok, pe);
    } else if constexpr (NP > 0) {
        if (few_ctas() && count > 0) prefetch_param_lines<NP>(a, begin * N, (begin + count) * N);
    }
    CtaReducer<CLUSTER> red{part, C, 0};
    if constexpr (CLUSTER) {
        red.cs = &cs;
        red.rank = (int)cg::this_cluster().block_rank();
        cluster_wait();  // every CTA's slots initialised (the arrive is at the top) before any send
    }
    Op op;
    Row<RegVals<NIN, UPT, N, false>, CtaReducer<CLUSTER>> r{v, red, W};
    op.row(r);
    // No CTA exits while a peer may still send to it (each has received every peer's partials;
    // this pair keeps the rule simple); the matching wait comes after the stores.
    if constexpr (CLUSTER) cluster_arrive_release();
    store_slice<Op, U, VEC, EP>(op, v, a, off, begin, pe);
    if constexpr (CLUSTER) cluster_wait();
}

// K_ROW_SMEM: one CTA per row, no cluster: thread t holds units t + u * T (u < UPT) in
// registers and units UPT * T + t + k * T (k < K) in shared memory as fp32, so a row of up to
// 32 x T values plus ~200 KB fits one CTA (float32 W = 65536 at T = 1024). Every reduction is
// CTA-local (one __syncthreads), where K_CTA would need a cluster and pay a cluster barrier and
// a DSMEM exchange per reduction. The shared part is requested first (16-byte cp.async, as it
// is in memory: see SmemVals) so that it is in flight while the register part loads.
template <class Op, typename T, int UPT>
__global__ void __launch_bounds__(1024, 1) row_smem_kernel(const Args<T> a, long W, int K) {
    using U = Unit<T, true>;
    constexpr int N = U::N, NIN = Op::NIN, NP = Op::NPARAM;
    extern __shared__ float4 row_sm[];
    __shared__ float2 part[66];
    const long row = blockIdx.x, off = row * W, nunits = W / N;
    const int T_ = blockDim.x;

    RegSmemVals<T, NIN, UPT, N> v;
    v.smem.sm = row_sm;
    v.smem.K = K;
    v.smem.first = (long)UPT * T_;
    v.smem.nunits = nunits;
    v.smem.pending = false;
    v.smem.raw = sizeof(T) != 4;
    for (int k = 0; k < K; ++k) {
        if (!v.smem.ok(k)) break;
        const long i = v.smem.first + threadIdx.x + (long)k * T_;
#pragma unroll
        for (int j = 0; j < NIN; ++j) cp_async16(v.smem.copy_slot(k, j), a.in[j] + off + i * N);
        v.smem.pending = true;
    }
    if (v.smem.pending) cp_async_commit();
    {
        Args<T> at = a;
#pragma unroll
        for (int j = 0; j < NIN; ++j) at.in[j] += off + (long)threadIdx.x * N;
#pragma unroll
        for (int u = 0; u < UPT; ++u) {
            v.reg.ok[u] = threadIdx.x + (long)u * T_ < nunits;
            // The engine's load policy (engine_ld) only while nothing is in shared memory (see
            // Unit: the shared part takes L1's room, and default-policy loads then thrash it).
            if (v.reg.ok[u]) {
                if (K == 0) load_inputs<Unit<T, true, engine_ld<T>()>, NIN>(at, 0, 0, v.reg.v[u]);
                else load_inputs<U, NIN>(at, 0, 0, v.reg.v[u]);
            }
#pragma unroll
            for (int j = 0; j < NIN; ++j) at.in[j] += (long)T_ * N;
        }
    }
    if constexpr (NP > 0) {
        if (K == 0 && few_ctas()) prefetch_param_lines<NP>(a, 0, W);  // with a shared part, L1 is mostly shared memory
    }
    CtaReducer<false> red{part, 1, 0};
    Op op;
    Row<RegSmemVals<T, NIN, UPT, N>, CtaReducer<false>> r{v, red, W};
    op.row(r);
    v.smem.wait();  // an op whose row() never reads the values still owns complete slots
    store_slice<Op, U, true>(op, v.reg, a, off, 0, 0);  // no early parameters
    // unrolled: the parameter loads (L2 hits) of several units in flight per thread
#pragma unroll 4
    for (int k = 0; k < K; ++k) {
        if (!v.smem.ok(k)) break;
        const long i = v.smem.first + threadIdx.x + (long)k * T_;
        float e[N][NIN];
        v.smem.get(k, e);
        float p[N][np_slots(NP)];
        if constexpr (NP > 0) load_params<NP, N, true>(a, i * N, p);
        float o[N];
#pragma unroll
        for (int q = 0; q < N; ++q) o[q] = op.out(e[q], p[q]);
        U::store(a.out + off, i, o);
    }
}

// K_STAGED: one CTA of NT threads per row, the row in registers with nothing to spare: thread t
// holds units t + u * NT (u < UPT) and W == N * UPT * NT, so no unit needs a bounds test and
// every access is the thread's base pointer plus a compile-time offset. Parameter 0 (layernorm's
// weight) is copied into shared memory by cp.async once the row has landed (StagingReducer says
// where and why), each thread its own units (its own wait is all the ordering it needs: no
// barrier); the other parameters are loaded one unit ahead of the stores. Why: with one CTA an SM
// (two at NT = 512) and the row in registers, an SM does nothing else while a row's output loop
// runs, and K_ROW_SMEM and K_CTA load each unit's parameters after the previous unit's store (the
// compiler may not lift a load above a store it could alias): one L2 round trip per unit in turn
// while the SM's share of DRAM sits idle.
// The staged area is 128-byte aligned (__align__ on the extern array puts the dynamic region past
// `part` on a 128-byte boundary; without it, at 16 bytes past one, as every kernel here with a
// static array beside its dynamic one): on the dev harness the hand-written form of this kernel ran
// 1024 x 32768 in 74.0 us aligned and 92.6 us with its staged area 16 bytes off (NOTES.md, "Stop
// 35"). row_smem_kernel's shared part (row data, not parameters) keeps its layout: moved from 16
// bytes past a 128-byte boundary to 32, 64 or aligned, float32 W = 65536 moved by -0.7..+1.2% and
// bfloat16 layernorm at 8192 rows lost 3-7% (NOTES.md, "Stop 36"; stop 35's 16-19% loss aligned
// did not reproduce).
template <class Op, typename T, int UPT, int NT>
__global__ void __launch_bounds__(NT, 1024 / NT) row_staged_kernel(const Args<T> a, long W) {
    using U = Unit<T, true, engine_ld<T>()>;  // see engine_ld
    constexpr int N = U::N, NIN = Op::NIN, NP = Op::NPARAM;
    static_assert(NP >= 1, "K_STAGED stages a parameter");
    extern __shared__ __align__(128) float4 staged_sm[];  // parameter 0: W elements of T
    __shared__ float2 part[66];
    const int t = threadIdx.x;
    // this thread's first unit in each tensor; unit u is N * NT * u elements further
    T *const staged = reinterpret_cast<T *>(staged_sm) + t * N;
    const long off = (long)blockIdx.x * W + (long)t * N;
    const T *param[NP];
#pragma unroll
    for (int q = 0; q < NP; ++q) param[q] = a.param[q] + t * N;
    RegVals<NIN, UPT, N, false> v;
#pragma unroll
    for (int u = 0; u < UPT; ++u) {
        v.ok[u] = true;
        load_inputs<U, NIN>(a, off, (long)u * NT, v.v[u]);
    }
    auto stage = [&] {
#pragma unroll
        for (int u = 0; u < UPT; ++u) cp_async16(staged + u * NT * N, param[0] + u * NT * N);
        cp_async_commit();
    };
    StagingReducer<decltype(stage)> red{{part, 1, 0}, stage, true};
    Op op;
    Row<RegVals<NIN, UPT, N, false>, StagingReducer<decltype(stage)>> r{v, red, W};
    op.row(r);
    if (red.pending) stage();  // no reduction issued it
    cp_async_wait_all();
    // parameters 1..NP-1 of unit u into p[.][1..]
    auto load_rest = [&](int u, float (&p)[N][np_slots(NP)]) {
#pragma unroll
        for (int q = 1; q < NP; ++q) {
            fb::vec<T> tv;
            *reinterpret_cast<int4 *>(&tv) = __ldg(reinterpret_cast<const int4 *>(param[q] + u * NT * N));
#pragma unroll
            for (int k = 0; k < N; ++k) p[k][q] = fb::to_acc(tv.v[k]);
        }
    };
    float next[N][np_slots(NP)];
    load_rest(0, next);
    T *const out = a.out + off;
#pragma unroll
    for (int u = 0; u < UPT; ++u) {
        float p[N][np_slots(NP)];
#pragma unroll
        for (int k = 0; k < N; ++k)
#pragma unroll
            for (int q = 1; q < NP; ++q) p[k][q] = next[k][q];
        if (u + 1 < UPT) load_rest(u + 1, next);
        fb::vec<T> wv;
        *reinterpret_cast<int4 *>(&wv) = *reinterpret_cast<const int4 *>(staged + u * NT * N);
        float o[N];
#pragma unroll
        for (int k = 0; k < N; ++k) {
            p[k][0] = fb::to_acc(wv.v[k]);
            o[k] = op.out(v.v[u][k], p[k]);
        }
        U::store(out, (long)u * NT, o);
    }
}

// K_SMEM: tiles of TR consecutive rows — for each input one contiguous span of TR * W
// elements, 16-byte aligned when TR * W * sizeof(T) is a multiple of 16 — copied into shared
// memory with 16-byte cp.async (a scalar remainder only at the tensor's end), so odd widths
// need no per-row head/tail. Persistent and double-buffered: tile i+1 is in flight while each
// warp computes 32 / G rows of tile i at a time from shared memory (G lanes per row, scalar
// shared reads, UPT per lane) and writes the output over input 0; the CTA then stores the tile
// with 16-byte stores. G = 16, not 32: a row of 24..128 elements leaves half a warp's lanes
// idle, and each of an op's reductions is a chain of log2(G) dependent shuffles that nothing
// else hides (NOTES.md, round 4: norm_chain W = 61 took 19.1 us against a 12.2 us copy).
template <class Op, typename T, int UPT, int G>
__global__ void __launch_bounds__(256) row_tile_kernel(const Args<T> a, long rows, long W, int TR) {
    extern __shared__ int4 tile_sm[];
    constexpr int N = 16 / (int)sizeof(T), NIN = Op::NIN, NP = Op::NPARAM;
    const int stride = (int)((TR * W * (long)sizeof(T) + 15) / 16);  // one input's tile, in int4
    const long ntiles = (rows + TR - 1) / TR;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = blockDim.x >> 5;
    auto issue = [&](long t, int b) {
        const long base = t * TR * W;
        const int nel = (int)(min((long)TR, rows - t * TR) * W), nvec = nel / N;
#pragma unroll
        for (int j = 0; j < NIN; ++j) {
            int4 *dst = tile_sm + (b * NIN + j) * stride;
            const int4 *src = reinterpret_cast<const int4 *>(a.in[j] + base);
            for (int i = tid; i < nvec; i += blockDim.x) cp_async16(dst + i, src + i);
            T *dt = reinterpret_cast<T *>(dst);
            for (int i = nvec * N + tid; i < nel; i += blockDim.x) dt[i] = __ldcs(a.in[j] + base + i);
        }
        cp_async_commit();
    };
    long t = blockIdx.x;
    int b = 0;
    if (t < ntiles) issue(t, 0);
    for (; t < ntiles; t += gridDim.x, b ^= 1) {
        cp_async_wait_all();
        __syncthreads();  // tile t is in buffer b; every thread is done storing from buffer b^1
        if (t + gridDim.x < ntiles) issue(t + gridDim.x, b ^ 1);
        const long base = t * TR * W;
        const int nr = (int)min((long)TR, rows - t * TR);
        const int nel = nr * (int)W, nvec = nel / N;
        const T *in_sm[NIN];
#pragma unroll
        for (int j = 0; j < NIN; ++j) in_sm[j] = reinterpret_cast<const T *>(tile_sm + (b * NIN + j) * stride);
        T *out_sm = reinterpret_cast<T *>(tile_sm + b * NIN * stride);
        constexpr int RPW = 32 / G;  // rows per warp at a time
        const int gl = lane % G;
        for (int r0 = 0; r0 < nr; r0 += nwarps * RPW) {  // warp-uniform trip count
            const int row = r0 + warp * RPW + lane / G;
            const bool in = row < nr;
            RegVals<NIN, UPT, 1, false> v;
#pragma unroll
            for (int u = 0; u < UPT; ++u) {
                const int i = gl + G * u;
                v.ok[u] = in && i < W;
                if (v.ok[u]) {
#pragma unroll
                    for (int j = 0; j < NIN; ++j) v.v[u][0][j] = fb::to_acc(in_sm[j][row * W + i]);
                }
            }
            GroupReducer red{G};
            Op op;
            Row<RegVals<NIN, UPT, 1, false>, GroupReducer> rr{v, red, W};
            op.row(rr);
#pragma unroll
            for (int u = 0; u < UPT; ++u) {
                if (!v.ok[u]) continue;
                const int i = gl + G * u;
                float p[1][np_slots(NP)];
                if constexpr (NP > 0) load_params<NP, 1, false>(a, i, p);
                out_sm[row * W + i] = fb::from_acc<T>(op.out(v.v[u][0], p[0]));
            }
        }
        __syncthreads();
        int4 *yv = reinterpret_cast<int4 *>(a.out + base);
        const int4 *ov = reinterpret_cast<const int4 *>(out_sm);
        for (int i = tid; i < nvec; i += blockDim.x) __stcs(yv + i, ov[i]);
        for (int i = nvec * N + tid; i < nel; i += blockDim.x) __stcs(a.out + base + i, out_sm[i]);
    }
}

// K_TWO_PASS: any W. A persistent grid, one CTA per row at a time, the values in this CTA's
// workspace slice; the output pass reads them back.
template <class Op, typename T>
__global__ void __launch_bounds__(1024) row_stream_kernel(const Args<T> a, long rows, long W) {
    constexpr int NIN = Op::NIN, NP = Op::NPARAM;
    __shared__ float2 part[66];
    CtaReducer<false> red{part, 1, 0};
    float *ws = a.ws + (long)blockIdx.x * NIN * W;
    for (long row = blockIdx.x; row < rows; row += gridDim.x) {
        StreamVals<T, NIN> v;
#pragma unroll
        for (int j = 0; j < NIN; ++j) v.in[j] = a.in[j] + row * W;
        v.ws = ws;
        v.W = W;
        v.fresh = true;
        Op op;
        Row<StreamVals<T, NIN>, CtaReducer<false>> r{v, red, W};
        op.row(r);
        for (long i = threadIdx.x; i < W; i += blockDim.x) {
            float e[NIN];
            v.get(i, e);
            float p[1][np_slots(NP)];
            if constexpr (NP > 0) load_params<NP, 1, false>(a, i, p);
            a.out[row * W + i] = fb::from_acc<T>(op.out(e, p[0]));
        }
    }
}

// ---- plans ----------------------------------------------------------------------------------

// Scalar CTA rows (unaligned tensors, odd rows past group rows) hold 8 values per thread, not
// softmax's 16: with an op's extra state and parameter loads 16 spilled (layernorm, half types).
constexpr int kScalarCtaVals = 8;
constexpr int kTileRows = 64, kTileThreads = 256, kTileCtasPerSm = 4, kTileLanes = 16;
constexpr long kTileSmemBudget = 200 * 1024;  // per SM, for the persistent tile grid

inline size_t tile_smem_bytes(const Shape &s, int TR) {
    return 2 * (size_t)s.nin * (size_t)cdiv((long)TR * s.W * s.esz, 16) * 16;
}

// K_ROW_SMEM: one CTA per row, 32 fp32 values per thread in registers (shared by the NIN
// inputs) and the rest of the row as fp32 in up to 200 KB of shared memory; 512-thread CTAs
// (two per SM, <= 110 KB each) for 133..528 rows.
constexpr long kRowSmemEngineMax = 200 * 1024, kRowSmemEnginePair = 110 * 1024;
inline size_t row_smem_bytes(const Shape &s, const Plan &p) {
    return (size_t)p.r * (size_t)p.threads * (size_t)s.nin * (size_t)(16 / s.esz) * sizeof(float);
}
inline bool plan_rows_smem(const Shape &s, Plan *p) {
    if (!vec_ok(s)) return false;
    const int N = 16 / s.esz;
    const int upt = kMaxVals / N / s.nin;
    if (upt < 1) return false;
    const long nunits = s.W / N;
    const int sms = sm_count();
    for (int threads : {512, 1024}) {
        // Pairs of 512-thread CTAs keep the grid to one wave for 133..264 rows and to two for
        // 265..528 (one CTA an SM would take four: NOTES.md, "Stop 27": float32 at 512 rows,
        // double_softmax W = 32768 84.0 -> 90.0% of SOL, layernorm 83.8 -> 87.0, softmax_backward
        // W = 16384 92.7 -> 97.2; at 1024+ rows pairs lost for layernorm and double_softmax,
        // 1.01-1.05x slower). norm_chain (three reductions) took pairs at every row count from
        // round 3 to stop 28; on stop 29's engine they cost it 3-4% from 1024 rows of 32768
        // (H100, 8192 x 32768: 711.5 us one CTA an SM, 741.6 pairs; NOTES.md, "Stop 29").
        if (threads == 512 && (s.rows <= sms || s.rows > 4L * sms)) continue;
        const long rest = std::max(0L, nunits - (long)threads * upt);
        const long K = cdiv(rest, threads);
        Plan q;
        q.kind = K_ROW_SMEM;
        q.vec = true;
        q.peel = false;
        // a row the registers hold needs no more threads than units / upt
        q.threads = K > 0 ? threads : (int)std::min<long>(threads, std::max(32L, (cdiv(nunits, upt) + 31) / 32 * 32));
        q.upt = upt;
        q.r = (int)K;  // shared-memory units per thread
        q.g = 32;
        q.c = 1;
        if ((long)row_smem_bytes(s, q) > (threads == 512 ? kRowSmemEnginePair : kRowSmemEngineMax)) continue;
        *p = q;
        return true;
    }
    return false;
}

// K_STAGED: 16-byte rows (float32 or a half type) of an op with parameters that fill the
// registers of a CTA of 64..1024 threads exactly (8 float32 or 4 half units a thread: W = 2048..
// 32768), parameter 0 staged in shared memory (W elements: up to 128 KB). NAME.staged forces it;
// plan_rows takes it for ops with Op::kStagedParams where plan_staged says.
inline size_t staged_smem_bytes(const Shape &s) { return (size_t)s.W * (size_t)s.esz; }
inline bool plan_rows_staged(const Shape &s, Plan *p) {
    if (!vec_ok(s) || (s.esz != 4 && s.esz != 2) || s.nparam < 1) return false;
    const int N = 16 / s.esz;
    const int upt = kMaxVals / N / s.nin;
    const long nunits = s.W / N;
    for (int threads : {1024, 512, 256, 128, 64}) {
        if (nunits != (long)threads * upt || (long)staged_smem_bytes(s) > kRowSmemEngineMax) continue;
        p->kind = K_STAGED;
        p->vec = true;
        p->peel = false;
        p->threads = threads;
        p->upt = upt;
        p->r = 0;
        p->g = 32;
        p->c = 1;
        return true;
    }
    return false;
}

// A vector K_CTA plan of c CTAs a row whose threads hold `upt` 16-byte units each of the CTA's
// share (whole warps; upt then rounded up to an instantiated count, -1 if none): the launch shape
// the CTA rules below choose by measurement, written once.
inline Plan vector_cta_plan(long nunits, int c, int upt) {
    Plan p;
    p.kind = K_CTA;
    p.vec = true;
    p.peel = false;
    p.r = 1;
    p.g = 32;
    p.c = c;
    const long chunk = cdiv(nunits, c);
    p.threads = (int)((cdiv(chunk, upt) + 31) / 32 * 32);
    p.upt = round_up_in(kCtaVecUpt, cdiv(chunk, p.threads));
    return p;
}

// Every unit of every row of the grid on a thread of its own at once (rows x units <= SMs x
// 1024): plan_rows' latency rule, plan_params_early's G.
inline bool one_unit_a_thread_fits(const Shape &s, long nunits) { return s.rows * nunits <= (long)sm_count() * 1024; }

// K_CTA for float32 rows of 256..512 units (W = 1024..2048) on grids of >= 128 rows, more threads
// a row than the plans before it gave: W = 1024 took the group plan (one warp a row, eight units a
// lane; it comes before the latency rule, so layernorm's few rows took it too) and W = 2048
// plan_cta's fewest threads (64, eight units each). Here 16 values a thread (all inputs: four units
// of one input, two of two) from 1024 rows and at W = 2048, eight on fewer rows of W = 1024. More
// warps a row, fewer loads in flight a thread. Measured (NOTES.md "Stop 37", H200, --timer cupti,
// write flush, two rounds within 1.5% of each other, t_before / t_mid):
//   W = 1024, 128..512 rows (call 6): layernorm 1.33-1.53 (128 x 1024 4.06 -> 2.66 us),
//     double_softmax 1.17-1.35, softmax_backward (256 threads of one unit) 1.00-1.18, norm_chain
//     0.98-1.10; 1024..65536 rows (call 5): double_softmax 1.01-1.17, softmax_backward 1.00-1.06,
//     layernorm past the hold (from 4096 rows) 1.02-1.10 (8192 x 1024 20.5 -> 18.6 us),
//     norm_chain 0.95-1.05 (1.00 from 8192 rows);
//   W = 1536 and 2048 with parameters (layernorm, from 2048 rows, call 5): 1.01-1.15 (8192 x
//     2048 36.3 -> 33.8 us, 4096 x 1536 16.7 -> 14.5); fewer rows keep the latency rule and the
//     hold (128 threads lost there, 0.86-0.95);
//   W = 2048 without (calls 4, 6): up to 1024 rows double_softmax 1.09-1.15, norm_chain 1.03-1.10;
//     from 2048 rows 0.96-1.00, and W = 1536 0.99-1.00, so they keep plan_cta's there; two inputs
//     hold four units of each on 128 threads already (softmax_backward).
// Other widths of 257..511 units are between the measured ones. (Since stop 38 plan_params_early
// takes layernorm's grids of up to 8192 units an SM first.)
inline bool plan_mid_rows(const Shape &s, Plan *p) {
    const long nunits = s.W / 4;
    if (!vec_ok(s) || s.esz != 4 || s.rows < 128 || nunits < 256 || nunits > 512) return false;
    const bool few = s.rows < 1024;
    int vals = 16;  // float32 values a thread, all inputs together
    if (nunits == 256)
        vals = few ? 8 : 16;
    else if (s.nparam > 0 ? few : (s.rows > 1024 || s.nin > 1))
        return false;
    Plan one;
    if (!plan_cta(s, 1, &one, kMaxVals, 1024) || one.c != 1) return false;
    *p = vector_cta_plan(nunits, 1, std::max(1, vals / 4 / s.nin));
    return true;
}

// Float32 rows of 1024..2048 units (W = 4096..8192) of an op without parameters, on grids of up
// to 4096 units an SM (a row or two an SM: 128..512 rows of 4096, 128..256 of 8192): one CTA a row
// of four units a thread of each input (256 threads at W = 4096, 512 at 8192), where plan_cta gave
// 128..256 threads of eight units (one input) or a cluster of two to four 128-thread CTAs (two).
// On so few rows most SMs hold one or two CTAs, and the row's time is one thread's chain of
// loads and reductions: fewer units a thread, more warps a row. Measured (NOTES.md "Stop 39",
// H200, --timer cupti, write flush, a forced-plan dev knob, two rounds within 1.5%, t_before /
// t_few):
//   W = 4096, 128..512 rows: double_softmax 1.09-1.11, norm_chain 1.03-1.08, softmax_backward
//     1.20-1.21 at 128..256 rows, 1.00 at 512;
//   W = 8192, 128..256 rows: double_softmax 1.19-1.37, norm_chain 1.28-1.40 (128 x 8192 6.50 ->
//     4.64 us), softmax_backward 1.10-1.17; at 512 rows (8192 units an SM) 0.95-1.01: plan_cta's;
//   eight units a thread (256 threads at W = 8192) 0.93-0.99x as fast as four; 1024 threads of
//     one or two units lost from 256 rows for double_softmax and norm_chain (0.50-0.91).
// (layernorm's grids here take plan_params_early first.)
inline bool plan_few_long_rows(const Shape &s, Plan *p) {
    const long nunits = s.W / 4;
    if (s.nparam > 0 || s.esz != 4 || !vec_ok(s) || nunits < 1024 || nunits > 2048) return false;
    if (cdiv(s.rows * nunits, sm_count()) > 4096) return false;
    const Plan f = vector_cta_plan(nunits, 1, 4);
    if (f.upt != 4) return false;
    *p = f;
    return true;
}

// The most units a thread holds whose parameters are loaded early, as stored (RawParams: four
// registers a unit and parameter). Group kernels (256 threads, up to 255 registers): 32 registers
// (four units of weight and bias); CTA kernels (up to 1024 threads, 64 registers): 16 (two).
constexpr int early_group_upt(int np) { return std::max(1, 32 / (4 * std::max(1, np))); }
constexpr int early_cta_upt(int np) { return std::max(1, 16 / (4 * std::max(1, np))); }

// Grids of an op with parameters (layernorm) of up to 8192 units an SM. On the plans below
// (plan_group, plan_cta, the latency rule) a warp's time on such a grid is its chain of dependent
// steps: the row's loads, two reductions, then the output loop, which loaded each unit's
// parameters after the previous unit's store (the compiler cannot move a load above a store that
// may alias it): an L1 or L2 round trip a unit, in turn. Triton's kernel (torch.compile) loads the
// weight and bias with the row. Here too (Plan::early): every unit's parameters are loaded as
// stored (RawParams) with the row, before its reductions, on few enough units a thread to hold
// them:
//   rows of <= 32 lanes x 16 values (float32 W <= 512; half types W <= 256, 8 values a lane):
//     group rows, one row a group, CTAs of 256 threads halved (to 64) while the grid has fewer
//     than two an SM; while rows x units <= SMs x 1024 (one unit a thread fits) G = the row's
//     units (up to 32, so fewer units a lane), beyond it plan_group's G and units;
//   longer rows: one CTA a row of eight values a thread (two float32 units, one of a half type).
// Measured (NOTES.md "Stop 38", H200, --timer cupti, write flush, t_before / t_early; call 4):
//   float32, 128..32768 rows x W = 128..8192: geomean 1.089 over 63 cells, none below 0.99;
//     1.02-1.51 where it applies (128 x 128 2.53 -> 1.69 us, 256 x 4096 5.86 -> 4.26, 128 x 8192
//     7.20 -> 4.77, 2048 x 2048 11.94 -> 10.72); CTAs of 1024 threads beyond 4096 units an SM lost
//     (512 x 8192 0.78, call 3), so they stop there; it replaced the parameter hold (K_HOLD: a
//     persistent CTA a row holding its parameters, NOTES.md "Stop 27"; removed) everywhere the
//     hold ran (1024 x 2048 6.94 -> 6.50 us);
//   half types, 128..8192 rows: geomean bfloat16 1.072, float16 1.084 (128 x 1024 bfloat16 3.49
//     -> 2.50 us, 128 x 8192 5.63 -> 4.00); lowest bfloat16 512 x 2048 0.93. Beyond 1024 units an
//     SM they lost (0.54-0.96, CTAs of one unit a thread on grids of several waves), and rows of
//     two units a lane (W = 512) lost at every row count (0.87-0.93, call 3), so neither takes it.
inline bool plan_params_early(const Shape &s, Plan *p) {
    if (s.nparam == 0 || !vec_ok(s)) return false;
    const int N = 16 / s.esz, sms = sm_count();
    const bool f32 = s.esz == 4;
    const long nunits = s.W / N, per_sm = cdiv(s.rows * nunits, sms);
    const bool latency = one_unit_a_thread_fits(s, nunits);  // per_sm <= 1024
    if (per_sm > 8192 || (!f32 && !latency)) return false;
    const int lane_units = f32 ? std::min(early_group_upt(s.nparam), 4) : 1;
    // rows that plan_group holds at 16 values a lane but early group rows do not (half types'
    // W = 512) keep plan_group
    if (nunits <= 32L * std::max(1, 16 / N) && nunits > 32L * lane_units) return false;
    if (nunits <= 32L * lane_units) {
        Plan e;
        e.kind = K_GROUP;
        e.vec = true;
        e.peel = false;
        e.r = 1;
        e.c = 1;
        e.early = true;
        if (latency) {
            e.g = std::min(32, pow2ceil(nunits));
            e.upt = round_up_in(kGroupVecUpt, cdiv(nunits, e.g));
        } else {
            Plan g;
            if (!plan_group(s, &g)) return false;
            e.g = g.g;
            e.upt = g.upt;
        }
        if (e.upt < 0 || e.upt > lane_units) return false;
        e.plain_x = f32 && per_sm * s.nparam <= kPlainRowUnitsPerSm;
        e.threads = 256;
        while (e.threads > 64 && e.threads > e.g && cdiv(s.rows, e.threads / e.g) < 2L * sms) e.threads /= 2;
        *p = e;
        return true;
    }
    const int cta_units = std::min(early_cta_upt(s.nparam), f32 ? 2 : 1);
    Plan e = vector_cta_plan(nunits, 1, cta_units);
    if (e.threads > 1024 || (e.threads > 512 && per_sm > 4096)) return false;
    if (e.upt < 0 || e.upt > cta_units) return false;
    e.early = true;
    *p = e;
    return true;
}

// Unaligned rows of 33..64 elements of an op with parameters, up to 8192 rows: scalar group rows
// of 16 lanes with up to four elements each in 128-thread CTAs, every element's parameters loaded
// with the row (EP), not K_SMEM's tiles. Measured (NOTES.md, "Stop 41", H200, rmsnorm N = 61,
// --timer cupti, write flush, two rounds, t_tiles / t_scalar_early): float32 1.69, 1.45, 1.19 at
// 512, 2048, 8192 rows ([4, 2048, 61] 3.78 -> 3.18 us), bfloat16 1.43, 1.37, 1.13; 64 threads
// 1.60-1.17 and 32 1.57-0.88. Rows of 130 on 32 lanes of eight lost at every row count (0.41-0.95
// in both dtypes, 1.07-1.12 at 512 rows of float32 only): the rule stops at 64 elements.
inline bool plan_scalar_early(const Shape &s, Plan *p) {
    if (s.nparam == 0 || vec_ok(s) || s.W < 33 || s.W > 64 || s.rows > 8192) return false;
    p->kind = K_GROUP;
    p->vec = false;
    p->peel = false;
    p->early = true;
    p->plain_x = false;
    p->g = 16;
    p->upt = 4;
    p->r = 1;
    p->c = 1;
    p->threads = 128;
    return true;
}

// Where an op that asks for it (Op::kStagedParams) takes K_STAGED (the weight staged in shared
// memory, the row in registers). Measured (NOTES.md, "Stop 35", H200, layernorm, write flush, two
// runs, t_plan / t_staged):
//   float32 W = 16384, 32768 (512-, 1024-thread CTAs): every row count. W = 32768 1.07 at 128 and
//     512 rows, 0.99 at 256 (the pair plan), 1.17-1.18 from 1024 (1024 x 32768 88.3 -> 74.8 us;
//     from 4096 rows 99-100% of the copy); W = 16384 1.07-1.16 to 1024 rows, 1.03-1.07 beyond.
//   float32 W = 4096, 8192 (128, 256 threads) from 1024 rows: 1.00-1.10 to 16384 rows, 1.00-1.01
//     beyond; under the clean flush (the grid of call 12 against stop 34's, across sessions) 4096 x
//     4096 35.5 -> 34.8 us, 1024 x 8192 20.0 -> 19.8. Fewer rows keep the latency plan, unmeasured
//     against it. W = 2048 (64 threads) keeps the parameter hold and the CTA plan: staged, it ran
//     1.08-1.19 at 1024-2048 rows under the write flush, but 2048 x 2048 12.7 -> 13.3 us and 4096
//     x 2048 20.0 -> 21.0 under the clean one (where W = 1024, unchanged, moved 2%).
//   half types W = 16384, 32768 on grids of at most two rows an SM: 1.12-1.34 at 128 and 256 rows;
//     from 512 rows float16 lost 1-9% and bfloat16 moved 0.93-1.06, so they keep their plans.
inline bool plan_staged(const Shape &s, Plan *p) {
    if (!s.staged_params) return false;
    const bool take = s.esz == 4 ? (s.W >= 16384 || (s.W >= 4096 && s.rows >= 1024))
                                 : (s.esz == 2 && s.W * s.esz >= 32 * 1024 && s.rows <= 2L * sm_count());
    return take && plan_rows_staged(s, p);
}

// The engine's shape -> plan choice: softmax's measured rules (kernels/NOTES.md) plus the
// engine's own row_smem (K_ROW_SMEM) for long float32 rows.
inline bool plan_rows(const Shape &s, Plan *p) {
    const bool vec = vec_ok(s), al = aligned_xy(s);
    const long rb = s.W * s.esz;
    const int N = 16 / s.esz;
    if (plan_scalar_early(s, p)) return true;
    if (!vec && al && rb >= kSmemMinRowBytes && rb <= kSmemMaxRowBytes) {
        p->kind = K_SMEM;
        p->vec = true;
        p->peel = false;
        p->threads = kTileThreads;
        p->r = kTileRows;
        p->upt = (int)cdiv(s.W, kTileLanes);
        p->g = kTileLanes;
        p->c = 1;
        return true;
    }
    if (plan_staged(s, p)) return true;
    if (plan_params_early(s, p)) return true;
    if (plan_mid_rows(s, p)) return true;
    if (plan_few_long_rows(s, p)) return true;
    // Scalar group rows only for short rows (W < N, or unaligned tensors); longer unaligned
    // rows go to scalar CTA rows.
    if ((vec || (al && s.W >= N) || s.W <= 128) && plan_group(s, p)) return true;
    // A row that one 1024-thread CTA holds gets one, not a cluster of two 512-thread CTAs: every
    // cluster reduction costs long rows ~8 points of SOL per reduction (NOTES.md, issue 6 round
    // 2: W = 32768 float32 at >= 4096 rows, layernorm 81-86% -> 91-95%, double_softmax 89-90% ->
    // 95-98%, norm_chain 80-82% -> 86-89%; softmax_backward W = 16384 92-94% -> 97-99%).
    // float32 rows of >= 64 KB: one CTA per row with the rest of the row in shared memory
    // (K_ROW_SMEM) wherever it fits — every reduction stays in the CTA. Measured (NOTES.md,
    // issue 6 round 3, H100 float32, % of SOL, clusters/K_CTA -> K_ROW_SMEM): W = 65536 at
    // >= 2048 rows layernorm 76-81 -> 89-93, norm_chain 76-78 -> 91-97, double_softmax 86-87 ->
    // 93-97; 128..256 rows of W = 16384..32768 67-90 -> 88-103. Half types: next.
    // Two-input float32 rows that fill the registers of two 1024-thread CTAs (softmax_backward W =
    // 32768): a cluster of two, one DSMEM exchange a row, beats row_smem's half of the row in
    // shared memory from 512 rows. Measured (NOTES.md, "Stop 34", H200, write flush, two runs
    // each, t_row_smem / t_cluster): 1.01 at 512 rows, 1.04-1.06 at 1024-16384 (2048 x 32768 205.6
    // -> 195.4 us, the copy 193.4); 128-256 rows 0.95-1.01 keep row_smem; bfloat16 lost at
    // every row count (0.82-0.94); W = 65536 in clusters of four 0.91-1.00 (its plan stays eight
    // 512-thread CTAs).
    // Since stop 39 the same rows run in a cluster of eight 256-thread CTAs (four units of each
    // input a thread, as before), from 256 rows: four CTAs an SM, so one row's exchange overlaps
    // the other rows' loads, and the last wave is finer. Measured (NOTES.md "Stop 39", H200,
    // --timer cupti, write flush, two rounds, t_before / t_eight): 256 rows (row_smem before) 1.11,
    // 512 1.06 (54.9 -> 51.7 us), 1024 1.03, 2048 1.02, 4096..65536 1.01; 128 rows 0.99 (row_smem).
    if (vec && s.esz == 4 && s.nin == 2 && s.rows >= 256) {
        Plan two;
        if (plan_cta(s, 1, &two, kMaxVals, 1024) && two.c == 2 && two.threads == 1024) {
            *p = vector_cta_plan(s.W / N, 8, two.upt);
            return true;
        }
    }
    // Float32 rows of one input that one 1024-thread CTA's registers cannot hold, up to eight
    // 256-thread CTAs' (W = 32769..65536), on 128 rows up to the op's bound
    // (Op::kWideRowClusterMaxRows): a cluster of 256-thread CTAs of eight units, not row_smem's
    // one 1024-thread CTA with half the row in shared memory: several rows' CTAs an SM overlap one
    // row's reductions with another's loads. Stop 39 (a cluster barrier a reduction; H200, W =
    // 65536, --timer cupti, t_row_smem / t_cluster) found it for 256..1024 rows only:
    // double_softmax 1.17-1.18 at 256..512, 1.00 at 2048; norm_chain 1.06-1.07 at 256..512,
    // 0.95-0.96 at 128 and 2048; layernorm 0.86-0.97. With the partials pushed into ClusterSlots
    // (stop 49, H200, events, clean flush, two rounds, t_row_smem / t_cluster): double_softmax
    // 1.088, 1.103, 1.050 at 128, 2048, 8192 rows (2048 x 65536 83.6 -> 92.5% of SOL), norm_chain
    // 1.086, 1.097, 1.079 (87.0 -> 95.8), layernorm 1.019, 1.062, 1.060, 1.035 at 128..1024 but
    // 0.996 and 0.974 at 2048 and 8192 (its parameters' L2 reads: NOTES.md "Stop 47"). Rows past
    // 8192 were not measured and keep row_smem. Clusters of four 256- or 512-thread CTAs at W =
    // 32768 lost (0.75-0.98, stop 39).
    if (vec && s.esz == 4 && s.nin == 1 && s.rows >= 128 && s.rows <= s.wide_cluster_max_rows) {
        const long nunits = s.W / N;
        if (nunits > 1024L * 8 && nunits <= (long)kMaxCluster * 256 * 8) {
            const Plan w = vector_cta_plan(nunits, (int)cdiv(nunits, 256L * 8), 8);
            if (w.upt == 8) {
                *p = w;
                return true;
            }
        }
    }
    if (vec && s.esz == 4 && s.W * s.esz >= 64 * 1024 && plan_rows_smem(s, p)) {
        // No shared part (float32 W = 16384, one input: 512 threads of eight units): the same CTA
        // on K_CTA's kernel where the op asks (Op::kCtaRegisterRows). Measured (NOTES.md "Stop
        // 38", H200, norm_chain, --timer cupti, write flush, two rounds within 0.5%): 256..2048
        // rows 10.98 -> 9.86, 20.54 -> 18.88, 35.71 -> 34.34, 66.98 -> 65.41 us; K_CTA's 1024
        // threads of four units and clusters of 2-4 CTAs ran 1.07-1.30x slower. (W = 32768 from
        // 529 rows, 1024 threads with no shared part, was not measured: it keeps row_smem.)
        if (p->r == 0 && p->threads <= 512 && s.cta_register_rows) p->kind = K_CTA;
        return true;
    }
    // Half-type rows of >= 32 KB: row_smem for a grid of one wave (rows <= SMs), and for rows one
    // 1024-thread CTA's registers cannot hold (else a cluster) where the op asks (kHalfSmemRows).
    // Measured (NOTES.md, "Stop 25", H100, t_cluster-or-CTA / t_row_smem with the shared part by
    // cp.async): 128 rows of 16K-64K 1.10-1.34x for all four ops; rows that need a cluster, 512-8192
    // of them: layernorm (W = 65536) 1.08-1.13x, softmax_backward (W = 32768) 1.09-1.12x, but
    // norm_chain 0.99-1.06x and double_softmax 0.94-1.00x, which keep the cluster.
    if (vec && s.esz == 2 && s.W * s.esz >= 32 * 1024) {
        const bool one_wave = s.rows <= sm_count();
        const bool needs_cluster = s.W * s.nin > 1024L * kMaxVals;
        if ((one_wave || (needs_cluster && s.half_smem_rows)) && plan_rows_smem(s, p)) return true;
    }
    Plan one;
    if (vec && plan_cta(s, 1, &one, kMaxVals, 1024) && one.c == 1) {
        // An op with parameters, on a grid that holds every unit of every row with one unit a
        // thread (rows x units <= SMs x 1024: few rows), spreads each row over up to 1024
        // threads, one unit each, instead of the fewest threads that hold it: its output loop
        // loads each unit's parameters after the previous unit's store, one round trip per unit
        // in turn (see prefetch_param_lines). Measured (NOTES.md, "Stop 23", float32, µs):
        // layernorm 128 x 2048 7.65 -> 6.0, 128 x 4096 7.8 -> 6.9, 256 x 2048 8.1 -> 6.7; but
        // not for the ops without parameters, whose reductions then span 32 warps instead of 4
        // (norm_chain 128 x 4096 6.4 -> 6.8, softmax_backward 128 x 2048 5.5 -> 5.9).
        const long nunits = s.W / N;
        if (s.nparam > 0 && one_unit_a_thread_fits(s, nunits)) {
            one.threads = (int)std::min<long>(1024, (nunits + 31) / 32 * 32);
            one.upt = round_up_in(kCtaVecUpt, cdiv(nunits, one.threads));
        }
        *p = one;
        return true;
    }
    if (plan_cta(s, 1, p)) return true;
    plan_two_pass(s, p);
    return true;
}

// NAME.cluster: vector rows in a cluster of 2..8 CTAs of up to 1024 threads, the row in
// registers; what plan_rows' two-CTA rule was measured against (softmax_backward.cluster).
inline bool plan_rows_cluster(const Shape &s, Plan *p) { return vec_ok(s) && plan_cta(s, 2, p, kMaxVals, 1024); }

inline long two_pass_grid(const Shape &s) { return std::min<long>(s.rows, sm_count()); }
inline size_t two_pass_workspace(const Shape &s) {
    return (size_t)two_pass_grid(s) * (size_t)s.nin * (size_t)s.W * sizeof(float);
}

// ---- launchers ------------------------------------------------------------------------------

// Instantiated kernels. A plan's units per thread may be rounded up to an instantiated
// count (more capacity than the row needs is harmless: the extra units are not part of it).
// Group rows: R follows UPT as in plan_group, so UPT alone names the kernel.
// Early parameters (plan_params_early): one row a group, the latency plan's.
template <int N, int NIN, bool VEC> constexpr int group_rows(int upt, bool early = false) {
    return early ? 1 : std::min(VEC ? 4 : 8, std::max(1, 16 / (upt * N * NIN)));
}

// dry: choose the kernel and check the launch configuration, launch nothing (plan_only).
template <class Op, typename T, bool VEC, bool PEEL, int UPT, bool EP = false, bool PLAIN = false>
cudaError_t launch_group_k(const Shape &s, const Plan &p, const Args<T> &a, cudaStream_t st, bool dry) {
    constexpr int N = VEC ? 16 / (int)sizeof(T) : 1;
    constexpr int R = group_rows<N, Op::NIN, VEC>(UPT, EP);
    // G lanes x UPT units cover a row's (body) units; a peeled row's head + tail (<= 2N - 2
    // scalars) fit one per lane.
    if (p.r != R || p.g < 1 || p.g > 32 || (p.g & (p.g - 1)) || p.threads % p.g ||
        (long)p.g * UPT < s.W / N || (PEEL && p.g < 2 * N - 2))
        return cudaErrorInvalidConfiguration;
    const long groups = cdiv(s.rows, R);
    const long blocks = cdiv(groups, p.threads / p.g);
    if (blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
    if (dry) return cudaSuccess;
    row_group_kernel<Op, T, VEC, PEEL, UPT, R, EP, PLAIN><<<(unsigned)blocks, p.threads, 0, st>>>(a, s.rows, s.W, p.g);
    return cudaGetLastError();
}

template <class Op, typename T, bool VEC, int UPT, bool EP = false>
cudaError_t launch_cta_k(const Shape &s, const Plan &p, const Args<T> &a, cudaStream_t st, bool dry) {
    const int N = VEC ? 16 / (int)sizeof(T) : 1;
    const long chunk = cdiv(s.W / N, p.c);
    const long blocks = s.rows * p.c;
    // every unit of a CTA's chunk has a thread: threads x UPT >= chunk
    if (blocks > INT32_MAX || p.threads > 1024 || p.threads % 32 || (long)p.threads * UPT < chunk ||
        p.c < 1 || p.c > kMaxCluster || s.W % N)
        return cudaErrorInvalidConfiguration;
    if (dry) return cudaSuccess;
    if (p.c == 1) return launch_clusters(row_cta_kernel<Op, T, VEC, UPT, false, EP>, (unsigned)blocks, p.threads, 0, st, 1, a, s.W, 1, chunk);
    if constexpr (EP) return cudaErrorInvalidConfiguration;  // early parameters: one CTA a row
    return launch_clusters(row_cta_kernel<Op, T, VEC, UPT, true>, (unsigned)blocks, p.threads, 0, st, p.c, a, s.W, p.c, chunk);
}

template <class Op, typename T>
cudaError_t launch_rows_t(const Shape &s, const Plan &p, const Args<T> &a, cudaStream_t st, bool dry) {
    constexpr int N = 16 / (int)sizeof(T), NIN = Op::NIN;
    switch (p.kind) {
    case K_GROUP:
        if (p.vec) {
            // 16-byte units: at most 32 elements per lane.
            if constexpr (Op::NPARAM > 0) {
                if (p.early) {
                    if (p.peel || p.upt > early_group_upt(Op::NPARAM)) return cudaErrorInvalidConfiguration;
                    auto early = [&](auto plain) -> cudaError_t {
                        constexpr bool PLAIN = decltype(plain)::value;
                        if (p.upt <= 1) return launch_group_k<Op, T, true, false, 1, true, PLAIN>(s, p, a, st, dry);
                        if (p.upt <= 2) return launch_group_k<Op, T, true, false, 2, true, PLAIN>(s, p, a, st, dry);
                        return launch_group_k<Op, T, true, false, 4, true, PLAIN>(s, p, a, st, dry);
                    };
                    if constexpr (N == 4)  // float32 only: the half types load plainly anyway
                        if (p.plain_x) return early(std::true_type{});
                    return early(std::false_type{});
                }
            }
            if (p.early) return cudaErrorInvalidConfiguration;
            auto go = [&](auto peel) -> cudaError_t {
                constexpr bool PEEL = decltype(peel)::value;
                if (p.upt <= 1) return launch_group_k<Op, T, true, PEEL, 1>(s, p, a, st, dry);
                if (p.upt <= 2) return launch_group_k<Op, T, true, PEEL, 2>(s, p, a, st, dry);
                if (p.upt <= 4) return launch_group_k<Op, T, true, PEEL, 4>(s, p, a, st, dry);
                if constexpr (N == 4)
                    if (p.upt <= 8) return launch_group_k<Op, T, true, PEEL, 8>(s, p, a, st, dry);
                return cudaErrorInvalidConfiguration;
            };
            return p.peel ? go(std::true_type{}) : go(std::false_type{});
        }
        // scalar: rows of <= 128 elements (plan_rows); with early parameters, of <= 64 (plan_scalar_early)
        if constexpr (Op::NPARAM > 0)
            if (p.early) return p.upt <= 4 ? launch_group_k<Op, T, false, false, 4, true>(s, p, a, st, dry)
                                           : cudaErrorInvalidConfiguration;
        if (p.early) return cudaErrorInvalidConfiguration;
        if (p.upt <= 1) return launch_group_k<Op, T, false, false, 1>(s, p, a, st, dry);
        if (p.upt <= 2) return launch_group_k<Op, T, false, false, 2>(s, p, a, st, dry);
        if (p.upt <= 4) return launch_group_k<Op, T, false, false, 4>(s, p, a, st, dry);
        return cudaErrorInvalidConfiguration;
    case K_CTA: {
        // plan_cta holds 32 values per thread shared by the NIN inputs (scalar: kScalarCtaVals):
        // the largest unit count and half of it are instantiated, smaller plans round up.
        constexpr int VMAX = 32 / N / NIN, SMAX = kScalarCtaVals / NIN;
        if constexpr (Op::NPARAM > 0) {
            // early parameters: the one instantiation that holds them (early_cta_upt), vector rows
            constexpr int UE = early_cta_upt(Op::NPARAM);
            if (p.early)
                return p.vec && p.upt <= UE ? launch_cta_k<Op, T, true, UE, true>(s, p, a, st, dry) : cudaErrorInvalidConfiguration;
        }
        if (p.early) return cudaErrorInvalidConfiguration;
        if (!p.vec) return p.upt <= SMAX ? launch_cta_k<Op, T, false, SMAX>(s, p, a, st, dry) : cudaErrorInvalidConfiguration;
        if (p.upt <= VMAX / 2) return launch_cta_k<Op, T, true, VMAX / 2>(s, p, a, st, dry);
        if (p.upt <= VMAX) return launch_cta_k<Op, T, true, VMAX>(s, p, a, st, dry);
        return cudaErrorInvalidConfiguration;
    }
    case K_SMEM: {
        const size_t smem = tile_smem_bytes(s, p.r);
        if (smem > (size_t)kTileSmemBudget || p.threads != kTileThreads) return cudaErrorInvalidConfiguration;
        const int per_sm = (int)std::max<long>(1, std::min<long>(kTileCtasPerSm, kTileSmemBudget / (long)smem));
        const long tiles = cdiv(s.rows, p.r);
        const long blocks = std::min<long>(tiles, (long)per_sm * sm_count());
        if (p.upt * kTileLanes < s.W) return cudaErrorInvalidConfiguration;
        auto launch = [&](auto kernel) {
            if (dry) return cudaSuccess;
            if (smem > 48 * 1024) {
                const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
                if (e != cudaSuccess) return e;
            }
            kernel<<<(unsigned)blocks, p.threads, smem, st>>>(a, s.rows, s.W, p.r);
            return cudaGetLastError();
        };
        // rows of 96..256 bytes: float32 24..64 elements (2..4 per lane of 16), half types
        // 48..128 (3..8)
        if constexpr (N == 4) {
            if (p.upt <= 2) return launch(row_tile_kernel<Op, T, 2, kTileLanes>);
            if (p.upt <= 4) return launch(row_tile_kernel<Op, T, 4, kTileLanes>);
        } else {
            if (p.upt <= 4) return launch(row_tile_kernel<Op, T, 4, kTileLanes>);
            if (p.upt <= 8) return launch(row_tile_kernel<Op, T, 8, kTileLanes>);
        }
        return cudaErrorInvalidConfiguration;
    }
    case K_ROW_SMEM: {
        constexpr int VMAX = 32 / N / NIN;
        const size_t smem = row_smem_bytes(s, p);
        if (!p.vec || p.upt != VMAX || p.r < 0 || p.threads > 1024 || p.threads % 32 || s.W % N ||
            smem > (size_t)kRowSmemEngineMax || s.rows > INT32_MAX || (long)p.threads * (p.upt + p.r) < s.W / N)
            return cudaErrorInvalidConfiguration;
        if (dry) return cudaSuccess;
        return launch_clusters(row_smem_kernel<Op, T, VMAX>, (unsigned)s.rows, p.threads, smem, st, 1, a, s.W, p.r);
    }
    case K_STAGED: {
        constexpr int VMAX = 32 / N / NIN;
        if constexpr (Op::NPARAM > 0 && sizeof(T) <= 4) {
            const size_t smem = staged_smem_bytes(s);
            if (!p.vec || p.upt != VMAX || p.threads > 1024 || p.threads < 64 || (p.threads & (p.threads - 1)) || s.W % N ||
                (long)p.threads * VMAX != s.W / N || smem > (size_t)kRowSmemEngineMax || s.rows > INT32_MAX)
                return cudaErrorInvalidConfiguration;
            if (dry) return cudaSuccess;
            switch (p.threads) {
            case 1024: return launch_clusters(row_staged_kernel<Op, T, VMAX, 1024>, (unsigned)s.rows, 1024, smem, st, 1, a, s.W);
            case 512: return launch_clusters(row_staged_kernel<Op, T, VMAX, 512>, (unsigned)s.rows, 512, smem, st, 1, a, s.W);
            case 256: return launch_clusters(row_staged_kernel<Op, T, VMAX, 256>, (unsigned)s.rows, 256, smem, st, 1, a, s.W);
            case 128: return launch_clusters(row_staged_kernel<Op, T, VMAX, 128>, (unsigned)s.rows, 128, smem, st, 1, a, s.W);
            default: return launch_clusters(row_staged_kernel<Op, T, VMAX, 64>, (unsigned)s.rows, 64, smem, st, 1, a, s.W);
            }
        }
        return cudaErrorInvalidConfiguration;
    }
    case K_TWO_PASS:
        if (dry) return cudaSuccess;
        if (a.ws == nullptr) return cudaErrorInvalidValue;
        row_stream_kernel<Op, T><<<(unsigned)two_pass_grid(s), p.threads, 0, st>>>(a, s.rows, s.W);
        return cudaGetLastError();
    }
    return cudaErrorInvalidConfiguration;
}

// ---- the variant interface ------------------------------------------------------------------
// fb_call contract: in[0 .. NIN-1] are the row inputs, each of the output's shape; in[NIN ..]
// the per-column inputs of W elements; one output; one dtype throughout.

// Op::kHalfSmemRows if the op declares it, else false.
template <class Op> constexpr auto half_smem_rows_of(int) -> decltype(Op::kHalfSmemRows, bool()) { return Op::kHalfSmemRows; }
template <class Op> constexpr bool half_smem_rows_of(long) { return false; }
// Op::kStagedParams if the op declares it, else false.
template <class Op> constexpr auto staged_params_of(int) -> decltype(Op::kStagedParams, bool()) { return Op::kStagedParams; }
template <class Op> constexpr bool staged_params_of(long) { return false; }
// Op::kCtaRegisterRows if the op declares it, else false.
template <class Op> constexpr auto cta_register_rows_of(int) -> decltype(Op::kCtaRegisterRows, bool()) { return Op::kCtaRegisterRows; }
template <class Op> constexpr bool cta_register_rows_of(long) { return false; }
// Op::kWideRowClusterMaxRows if the op declares it, else 0.
template <class Op> constexpr auto wide_cluster_max_rows_of(int) -> decltype(Op::kWideRowClusterMaxRows, long()) { return Op::kWideRowClusterMaxRows; }
template <class Op> constexpr long wide_cluster_max_rows_of(long) { return 0; }

template <class Op, bool (*PLAN)(const Shape &, Plan *) = plan_rows> struct RowVariant {
    static int check(const fb_call *c, char *why, size_t n) {
        constexpr int NIN = Op::NIN, NP = Op::NPARAM;
        if (c->n_in != NIN + NP || c->n_out != 1) {
            if (why) snprintf(why, n, "%s takes %d inputs and 1 output", Op::name, NIN + NP);
            return FB_E_UNSUPPORTED;
        }
        const fb_tensor *y = &c->out[0];
        const fb_dtype dt = y->dtype;
        if (dt != FB_F32 && dt != FB_F16 && dt != FB_BF16) {
            if (why) snprintf(why, n, "%s needs float32, float16 or bfloat16", Op::name);
            return FB_E_UNSUPPORTED;
        }
        if (y->shape.rank < 1) {
            if (why) snprintf(why, n, "%s needs an output of rank >= 1", Op::name);
            return FB_E_UNSUPPORTED;
        }
        const long W = y->shape.dim[y->shape.rank - 1];
        if (W > INT32_MAX) {
            if (why) snprintf(why, n, "%s rows longer than 2^31-1 elements", Op::name);
            return FB_E_UNSUPPORTED;
        }
        for (int j = 0; j < NIN + NP; ++j) {
            const fb_tensor *x = &c->in[j];
            if (x->dtype != dt) {
                if (why) snprintf(why, n, "%s needs one dtype for every input and the output", Op::name);
                return FB_E_UNSUPPORTED;
            }
            bool same = true;
            if (j < NIN) {
                same = x->shape.rank == y->shape.rank;
                for (int d = 0; same && d < x->shape.rank; ++d) same = x->shape.dim[d] == y->shape.dim[d];
            } else {
                long numel = 1;
                for (int d = 0; d < x->shape.rank; ++d) numel *= x->shape.dim[d];
                same = x->shape.rank >= 1 && x->shape.dim[x->shape.rank - 1] == W && numel == W;
            }
            if (!same) {
                if (why)
                    snprintf(why, n, "%s input %d must be %s", Op::name, j,
                             j < NIN ? "of the output's shape" : "of shape [W] (W = the output's last dim)");
                return FB_E_UNSUPPORTED;
            }
        }
        return FB_OK;
    }
    static Shape shape(const fb_call *c) {
        Shape s;
        const fb_tensor *y = &c->out[0];
        s.W = y->shape.dim[y->shape.rank - 1];
        s.rows = 1;
        for (int i = 0; i < y->shape.rank - 1; ++i) s.rows *= y->shape.dim[i];
        s.dt = y->dtype;
        s.esz = (int)fb_dtype_size(y->dtype);
        s.x = c->in[0].data;
        s.y = y->data;
        for (int j = 1; j < Op::NIN + Op::NPARAM; ++j) s.more[j - 1] = c->in[j].data;
        s.nin = Op::NIN;
        s.scalar_vals = kScalarCtaVals;
        s.half_smem_rows = half_smem_rows_of<Op>(0);
        s.staged_params = staged_params_of<Op>(0);
        s.cta_register_rows = cta_register_rows_of<Op>(0);
        s.wide_cluster_max_rows = wide_cluster_max_rows_of<Op>(0);
        s.nparam = Op::NPARAM;
        return s;
    }
    static int supports(const fb_call *c, char *why, size_t n) {
        const int st = check(c, why, n);
        if (st != FB_OK) return st;
        const Shape s = shape(c);
        Plan p;
        if (s.rows > 0 && s.W > 0 && !PLAN(s, &p)) {
            if (why) snprintf(why, n, "%s: this plan does not apply to rows of %ld elements", Op::name, s.W);
            return FB_E_UNSUPPORTED;
        }
        return FB_OK;
    }
    static size_t workspace(const fb_call *c) {
        if (check(c, nullptr, 0) != FB_OK) return 0;
        const Shape s = shape(c);
        Plan p;
        if (!PLAN(s, &p)) return 0;
        return p.kind == K_TWO_PASS ? two_pass_workspace(s) : 0;
    }
    // dry: plan and pick the kernel, check its configuration, launch nothing (plan_only).
    static int launch(const fb_call *c, bool dry) {
        const int st = check(c, nullptr, 0);
        if (st != FB_OK) return st;
        const Shape s = shape(c);
        if (s.rows == 0 || s.W == 0) return FB_OK;
        Plan p;
        if (!PLAN(s, &p)) {
            fb_error("%s: this plan does not apply to rows of %ld elements", Op::name, s.W);
            return FB_E_UNSUPPORTED;
        }
        if (!dry && p.kind == K_TWO_PASS &&
            (c->workspace == nullptr || c->workspace_bytes < two_pass_workspace(s))) {
            fb_error("%s: rows of %ld elements need a %zu-byte workspace", Op::name, s.W, two_pass_workspace(s));
            return FB_E_UNSUPPORTED;
        }
        cudaError_t e = cudaErrorInvalidValue;
        FB_DISPATCH_FLOAT(s.dt, T, {
            Args<T> a = {};
            for (int j = 0; j < Op::NIN + Op::NPARAM; ++j) {
                if (j < Op::NIN) a.in[j] = (const T *)c->in[j].data;
                else a.param[j - Op::NIN] = (const T *)c->in[j].data;
            }
            a.out = (T *)c->out[0].data;
            a.ws = (float *)c->workspace;
            e = launch_rows_t<Op, T>(s, p, a, c->stream, dry);
        });
        if (e == cudaErrorInvalidConfiguration) {
            (void)cudaGetLastError();
            fb_error("%s: no kernel instantiated for (or a bad launch of) plan kind=%d vec=%d peel=%d upt=%d r=%d "
                     "g=%d threads=%d c=%d",
                     Op::name, p.kind, (int)p.vec, (int)p.peel, p.upt, p.r, p.g, p.threads, p.c);
            return FB_E_UNSUPPORTED;
        }
        return fb_cuda_status((int)e, Op::name, __FILE__, __LINE__);
    }
    static int run(const fb_call *c) { return launch(c, false); }
    // The whole host side of run() without the launch: FB_OK when the shape has a plan and an
    // instantiated kernel for it. For CPU tests (no GPU needed).
    static int plan_only(const fb_call *c) { return launch(c, true); }
    // The plan run() would launch, for CPU tests: FB_OK and *out filled, or FB_E_UNSUPPORTED.
    static int plan_info(const fb_call *c, fb_row_plan_info *out) {
        if (check(c, nullptr, 0) != FB_OK) return FB_E_UNSUPPORTED;
        Plan p;
        if (!PLAN(shape(c), &p)) return FB_E_UNSUPPORTED;
        *out = fb_row_plan_info{(int)p.kind, p.threads, p.upt, p.c, p.early ? 1 : 0, p.plain_x ? 1 : 0};
        return FB_OK;
    }
};

// An extern "C" int FN(const fb_call *) running RowVariant<Op>::plan_only, for tests.
#define FB_ROW_PLAN_HOOK(Op, FN) \
    extern "C" int FN(const fb_call *c) { return fb::rowwise::RowVariant<Op>::plan_only(c); }
// An extern "C" int FN(const fb_call *, fb_row_plan_info *) giving RowVariant<Op>'s plan, for tests.
#define FB_ROW_PLAN_INFO_HOOK(Op, FN) \
    extern "C" int FN(const fb_call *c, fb_row_plan_info *out) { return fb::rowwise::RowVariant<Op>::plan_info(c, out); }

// The table entry of an engine op's fused variant.
#define FB_ROW_VARIANT(Op, NAME, ABOUT) FB_ROW_VARIANT_PLAN(Op, NAME, ABOUT, fb::rowwise::plan_rows)
#define FB_ROW_VARIANT_PLAN(Op, NAME, ABOUT, PLAN)                                                        \
    {NAME, ABOUT, FB_DTYPES_HALF_AND_F32, fb::rowwise::RowVariant<Op, PLAN>::supports,                     \
     fb::rowwise::RowVariant<Op, PLAN>::workspace, fb::rowwise::RowVariant<Op, PLAN>::run, 1}


}  // namespace rowwise
}  // namespace fb
