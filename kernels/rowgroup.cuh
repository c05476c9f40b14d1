// rowgroup.cuh — rows owned by groups of G threads, in any dtype float64 included (the parts the
// RMSNorm kernels share; rowwise.cuh/rowengine.cuh are the fp32-compute engine of the softmax
// family and have no float64 path).
//
// A row of N elements is cut into units: 16-byte vectors when every row starts on a 16-byte
// boundary (N * esz % 16 == 0 and aligned base pointers), else single elements, or, for a kernel
// that asks (plan_geom's shift), the 16-byte blocks of memory the row overlaps (ShiftRow). A group of G
// threads (a power of two: G <= 32 lanes of one warp, or the whole CTA) owns a row; thread l of
// the group owns units l, l + G, l + 2G, ... — the same columns for every row it visits, which
// is what lets a persistent backward keep its dw partial sums in registers across rows.
// Arithmetic is in acc_t<T> (fp32 for the half types and float32, double for float64).
#pragma once

#include "common.cuh"

#include <cooperative_groups.h>

namespace fb {
namespace rowgroup {

// One unit of T moved as acc_t<T> values: loads plain (cached: measured faster than evict-first
// for x, and w is read by every row), stores evict-first (the output is not read again).
template <typename T, bool VEC> struct Io {
    using A = acc_t<T>;
    static constexpr int NV = VEC ? 16 / (int)sizeof(T) : 1;
    using Raw = pack<T, NV>;  // a unit as stored: held raw, a half-type unit costs 4 registers, not 8
    static __device__ __forceinline__ Raw load_raw(const T *p, long k) { return load_pack_plain<T, NV>(p + k * NV); }
    static __device__ __forceinline__ void widen(const Raw &t, A (&v)[NV]) {
#pragma unroll
        for (int i = 0; i < NV; ++i) v[i] = to_acc(t.v[i]);
    }
    static __device__ __forceinline__ void load(const T *p, long k, A (&v)[NV]) { widen(load_raw(p, k), v); }
    static __device__ __forceinline__ void store_stream(T *p, long k, const A (&v)[NV]) {
        pack<T, NV> t;
#pragma unroll
        for (int i = 0; i < NV; ++i) t.v[i] = from_acc<T>(v[i]);
        store_pack_stream<T, NV>(p + k * NV, t);
    }
};

// A row that does not start on a 16-byte boundary (N * esz % 16 != 0, base pointers aligned),
// read and written in the 16-byte blocks of memory it overlaps instead of element by element.
// Block k of a row that starts h elements past a boundary holds columns k*NV - h .. k*NV - h +
// NV - 1. Its first and last blocks may hold columns of the neighbouring rows (or reach past the
// tensor), so those two are read and written element by element, masked to the row (zeros
// outside it: they add nothing to a sum); every other block is one 16-byte access. y of the same
// shape and an aligned base has the same h, so a row of y goes through the same blocks.
// A column-indexed operand (w [N]) is not shifted alike: load_col reads it element by element
// (L1-resident after the first rows).
template <typename T> struct ShiftRow {
    using A = acc_t<T>;
    static constexpr int NV = 16 / (int)sizeof(T);
    using Raw = pack<T, NV>;
    long N;
    int h;          // elements of the first block before the row
    long units;     // blocks the row overlaps
    __device__ __forceinline__ ShiftRow(const T *row, long n) : N(n) {
        h = (int)(((unsigned long long)(size_t)row & 15) / sizeof(T));
        units = (h + N + NV - 1) / NV;
    }
    __device__ __forceinline__ bool edge(long k) const {
        return (k == 0 && h != 0) || (k == units - 1 && (h + N) % NV != 0);
    }
    __device__ __forceinline__ Raw load_raw(const T *row, long k) const {
        const T *b = row - h + k * NV;
        if (!edge(k)) return load_pack_plain<T, NV>(b);
        Raw t;
#pragma unroll
        for (int i = 0; i < NV; ++i) {
            const long c = k * NV - h + i;
            t.v[i] = c >= 0 && c < N ? b[i] : from_acc<T>(A(0));
        }
        return t;
    }
    __device__ __forceinline__ void widen(const Raw &t, A (&v)[NV]) const {
#pragma unroll
        for (int i = 0; i < NV; ++i) v[i] = to_acc(t.v[i]);
    }
    __device__ __forceinline__ void load_col(const T *col, long k, A (&v)[NV]) const {
        if (!edge(k)) {
#pragma unroll
            for (int i = 0; i < NV; ++i) v[i] = to_acc(col[k * NV - h + i]);
            return;
        }
#pragma unroll
        for (int i = 0; i < NV; ++i) {
            const long c = k * NV - h + i;
            v[i] = c >= 0 && c < N ? to_acc(col[c]) : A(0);
        }
    }
    __device__ __forceinline__ void store_stream(T *row, long k, const A (&v)[NV]) const {
        T *b = row - h + k * NV;
        if (!edge(k)) {
            pack<T, NV> t;
#pragma unroll
            for (int i = 0; i < NV; ++i) t.v[i] = from_acc<T>(v[i]);
            store_pack_stream<T, NV>(b, t);
            return;
        }
#pragma unroll
        for (int i = 0; i < NV; ++i) {
            const long c = k * NV - h + i;
            if (c >= 0 && c < N) b[i] = from_acc<T>(v[i]);
        }
    }
};

// The lanes of this thread's group within its warp (G <= 32), for shuffles that name only the
// group: groups of one warp may run different numbers of rows.
__device__ __forceinline__ unsigned group_mask(int G) {
    if (G >= 32) return 0xffffffffu;
    const int lane = threadIdx.x & 31;
    return ((1u << G) - 1u) << (lane & ~(G - 1));
}

// Sums over the G threads of a row, returned to each of them: shuffles when G <= 32; else the
// group is the CTA (G == blockDim.x): warp shuffles, one partial per warp through `scratch`
// (>= 32 slots), two barriers. Two values at once, for rows that need two sums (backward).
template <typename A> __device__ __forceinline__ void row_sum2(A &a, A &b, int G, A *scratch) {
    if (G <= 32) {
        const unsigned m = group_mask(G);
        for (int o = G >> 1; o > 0; o >>= 1) {
            a += __shfl_xor_sync(m, a, o);
            b += __shfl_xor_sync(m, b, o);
        }
        return;
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b += __shfl_xor_sync(0xffffffffu, b, o);
    }
    __syncthreads();  // the previous row's readers are done with scratch
    if (lane == 0) {
        scratch[warp] = a;
        scratch[32 + warp] = b;
    }
    __syncthreads();
    a = lane < nwarps ? scratch[lane] : A(0);
    b = lane < nwarps ? scratch[32 + lane] : A(0);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b += __shfl_xor_sync(0xffffffffu, b, o);
    }
}
// One sum: row_sum2's reduction without its second value's shuffles (the critical path of a
// short row's kernel is its instruction count: NOTES.md, "Stop 36"). With G a compile-time
// constant (a kernel's template argument) the shuffle loop unrolls and group_mask folds.
template <typename A> __device__ __forceinline__ A row_sum(A a, int G, A *scratch) {
    if (G <= 32) {
        const unsigned m = group_mask(G);
#pragma unroll
        for (int o = G >> 1; o > 0; o >>= 1) a += __shfl_xor_sync(m, a, o);
        return a;
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    __syncthreads();  // the previous row's readers are done with scratch
    if (lane == 0) scratch[warp] = a;
    __syncthreads();
    a = lane < nwarps ? scratch[lane] : A(0);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    return a;
}

// groups_sum2's three parts (the two halves below share them): each warp's sums; a warp's
// partials into slot `s`; the group's warps' partials from it, added in warp order and given to
// every lane.
template <typename A> __device__ __forceinline__ void warp_sum2(A &a, A &b) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b += __shfl_xor_sync(0xffffffffu, b, o);
    }
}
template <typename A> __device__ __forceinline__ void slot_write2(A *s, A a, A b) {
    const int warp = threadIdx.x >> 5;
    s[warp] = a;
    s[32 + warp] = b;
}
template <typename A> __device__ __forceinline__ void group_read_sum2(A &a, A &b, int G, const A *s) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, gw = G >> 5;
    const int first = warp & ~(gw - 1);  // this group's first warp
    a = lane < gw ? s[first + lane] : A(0);
    b = lane < gw ? s[32 + first + lane] : A(0);
    for (int o = gw >> 1; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b += __shfl_xor_sync(0xffffffffu, b, o);
    }
    a = __shfl_sync(0xffffffffu, a, 0);
    b = __shfl_sync(0xffffffffu, b, 0);
}
// The same two sums for a CTA of several groups of G > 32 threads (whole warps each), on a
// loop every thread of the CTA runs the same number of times (a group with no row adds zeros
// and still arrives at the barrier). One barrier per call: `scratch` holds 2 x 2 x 32 slots,
// used alternately by odd and even calls (`parity`), so a call's writes cannot meet the previous
// call's reads (every thread has passed that call's barrier before anyone writes again). The
// group's warps are summed in warp order: the same bits on every run.
template <typename A> __device__ __forceinline__ void groups_sum2(A &a, A &b, int G, A *scratch, int parity) {
    warp_sum2(a, b);
    A *s = scratch + parity * 64;
    if ((threadIdx.x & 31) == 0) slot_write2(s, a, b);
    __syncthreads();
    group_read_sum2(a, b, G, s);
}

// groups_sum2 in two halves around an mbarrier instead of a CTA barrier, for a kernel that works
// between them (the next row's own sums): groups_publish adds each warp's values, its lane 0
// writes them to slot `parity`, and every thread arrives (`bar` counts blockDim.x);
// groups_collect waits for the phase and adds the group's warps in warp order (the bits
// groups_sum2 gives). Every thread publishes and collects once per step, alternately, so no
// thread can arrive for step i + 1 before step i's phase has completed, and slot p is rewritten
// only after every thread has read it (its reads precede its own next arrive, which the writer's
// wait acquires). Phase i has parity i & 1. An arrival a thread, not lane 0's for its warp after
// a __syncwarp: the ordering is the same by the memory model, but compute-sanitizer's racecheck
// does not carry a __syncwarp's ordering into another lane's arrive, and reported every such
// publish against the collects' reads (stop 24); with an arrival a thread it reports none, and
// the half types' backward cells moved within two runs' noise (geomean 0.996; NOTES.md, "Stop
// 27"; dev/racecheck_mbarrier_dev.cu tells the two forms apart).
template <typename A> __device__ __forceinline__ void groups_publish(A a, A b, A *scratch, uint64_t *bar, int parity) {
    warp_sum2(a, b);
    if ((threadIdx.x & 31) == 0) slot_write2(scratch + parity * 64, a, b);
    // every thread arrives for itself (release): lane 0 after its writes, every lane after its
    // reads of the previous collect, which the next writer of that slot acquires by its wait
    mbar_arrive(bar);
}
template <typename A>
__device__ __forceinline__ void groups_collect(A &a, A &b, int G, A *scratch, uint64_t *bar, int parity) {
    mbar_wait(bar, (uint32_t)parity);
    group_read_sum2(a, b, G, scratch + parity * 64);
}

// Rows whose columns are split over the C CTAs of a cluster (each CTA's groups hold a slice of
// the same rows): after each CTA's own group sums (row_sum2 / groups_sum2), the C partial sums of
// group g's row, added in rank order, so every CTA gets the same bits. In two halves around one
// cluster barrier, so that a kernel can work between them (the next row's own sums):
// cluster_publish writes this CTA's two sums and arrives; cluster_collect waits and adds the C
// CTAs' sums. `cl` holds 2 x rpc x 2 slots in each CTA's shared memory, used alternately
// (`parity`) as groups_sum2's scratch is: a CTA writes slot p again only after the collect that
// follows the next publish, which every peer reaches after its reads of slot p. Every thread of
// every CTA of the cluster calls both the same number of times, alternately; the caller keeps its
// shared memory alive until the peers' last reads (an arrive after the last collect and a wait
// before exit).
template <typename A>
__device__ __forceinline__ void cluster_publish(A a, A b, int g, int l, int rpc, A *cl, int parity) {
    A *mine = cl + ((long)parity * rpc + g) * 2;
    if (l == 0) {
        mine[0] = a;
        mine[1] = b;
    }
    cluster_arrive_release();
}
template <typename A>
__device__ __forceinline__ void cluster_collect(A &a, A &b, int g, int rpc, A *cl, int parity) {
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    cluster_wait();
    const A *mine = cl + ((long)parity * rpc + g) * 2;
    A sa = A(0), sb = A(0);
    const int C = (int)cluster.num_blocks();
    for (int r = 0; r < C; ++r) {
        const A *p = cluster.map_shared_rank(mine, r);
        sa += p[0];
        sb += p[1];
    }
    a = sa;
    b = sb;
}

// Rows split over a cluster of exactly two CTAs, each holding one slice: their CTA row sums
// exchanged without a cluster barrier. barrier.cluster.arrive.release (cluster_publish) compiles to
// MEMBAR.ALL.GPU, which waits for every store this CTA still has in flight (the previous row's
// outputs) before the peer may go on; here thread 0 writes its two sums straight into the peer's
// slot by st.async, whose bytes complete a phase of the peer's mbarrier, and every thread waits
// on its own CTA's barrier. Slot and barrier p = row parity; a CTA sends row i + 2 into slot p
// only after it received row i + 1, which its peer sends after a CTA barrier (row_sum2's) that
// every one of its threads reaches after reading row i's slot p. The pair is added in rank
// order (IEEE addition commutes: both CTAs get the same bits).
template <typename A> struct PairExchange {
    A slot[2][2];      // the peer's sums, by row parity
    uint64_t bar[2];   // one barrier a slot: 1 arrival (this CTA's thread 0) + the peer's bytes
    // thread 0, once, before the cluster barrier that precedes the first send
    __device__ void init() {
        mbar_init(&bar[0], 1);
        mbar_init(&bar[1], 1);
        fence_mbar_init_cluster();
    }
    // every thread of the CTA, row i of the cluster's rows (i = 0, 1, ...): a, b become the pair's
    __device__ __forceinline__ void exchange(A &a, A &b, long i, uint32_t peer) {
        const int p = (int)(i & 1);
        if (threadIdx.x == 0) {
            mbar_arrive_expect_tx(&bar[p], (uint32_t)(2 * sizeof(A)));
            st_async_pair(dsmem_addr(&slot[p][0], peer), a, b, dsmem_addr(&bar[p], peer));
        }
        mbar_wait(&bar[p], (uint32_t)((i >> 1) & 1));
        a += slot[p][0];
        b += slot[p][1];
    }
};

__device__ __forceinline__ float rsqrt_acc(float x) { return rsqrtf(x); }
__device__ __forceinline__ double rsqrt_acc(double x) { return rsqrt(x); }

// ---- staged rows: a resident CTA stepping through rows with the next ones in flight -------
// A CTA of `threads` threads takes rpc = threads / G rows per step (row = blockIdx.x * rpc + g +
// step * gridDim.x * rpc; every thread runs the same number of steps, so CTA-wide barriers are
// safe) and keeps the units of Q row tensors for the steps up to S - 1 ahead in S shared-memory
// stages, copied with 16-byte cp.async. Each thread copies and reads only its own slots
// ([S][U][Q][threads] 16-byte units: a warp's accesses are consecutive), so reusing a stage needs
// no barrier, and the loads of the next rows are in flight through this row's reductions and
// stores. Aligned (16-byte unit) rows only; a kernel may take a team's rows one step out of phase
// (issue() itself, S - 2 ahead) around groups_publish / cluster_publish. Used by
// rmsnorm_backward.pipelined (Q = 2: x, dy). A
// forward on it (Q = 1) lost to the register kernels on all but half-type rows of 32 KB, and
// there to static_persistent (NOTES.md, round 3), so it is not kept.
// Bytes in front of the stages in the kernels' dynamic shared memory: groups_sum2's 2 x 64
// slots and cluster_publish's 2 x 32 x 2, in either accumulation type.
constexpr size_t kStagedScratch = 128 * 8;
constexpr size_t kClusterScratch = 128 * 8;
// A team steps through the rows: a CTA, or the C CTAs of a cluster that each hold a slice of
// every row's units (units k0 .. k0 + units - 1 of rows N elements long; k0 = 0 and `units`
// the whole row for a CTA team). Teams are numbered `team` of `teams`.
template <typename T, int U, int Q> struct StagedRows {
    using Raw = typename Io<T, true>::Raw;
    static constexpr int NV = Io<T, true>::NV;
    Raw *stage;
    int S, G, threads, t, l, g;
    long rows, N, units, k0, base0, per_step, steps;
    __device__ StagedRows(void *smem, int S_, int G_, long rows_, long N_, long units_, long team, long teams,
                          long k0_)
        : stage(reinterpret_cast<Raw *>(smem)), S(S_), G(G_), rows(rows_), N(N_), units(units_), k0(k0_) {
        threads = blockDim.x;
        t = threadIdx.x;
        l = t & (G - 1);
        g = t / G;
        const int rpc = threads / G;
        per_step = teams * rpc;
        base0 = team * rpc;
        steps = base0 < rows ? (rows - base0 + per_step - 1) / per_step : 0;  // the same for the whole team
    }
    __device__ long row(long i) const { return base0 + i * per_step + g; }
    // Stages are named by index, not found as step % S: the kernels keep the index of the step
    // they read (next_stage / prev_stage) because a 64-bit modulo at every slot address was ~20
    // instructions a call, about a tenth of the issue slots of an issue-bound half-type row step
    // (ncu, stop 25).
    __device__ int next_stage(int s) const { return s + 1 == S ? 0 : s + 1; }
    __device__ int prev_stage(int s) const { return s == 0 ? S - 1 : s - 1; }
    __device__ Raw *slot(int s, int j, int q) const { return stage + ((long)(s * U + j) * Q + q) * threads + t; }
    // one 16-byte shared load per unit: read through the pack's elements, bfloat16 compiled to 8
    // LDS.U16 a unit (float16 to 2 LDS.64) and ran 10-20% behind float16 (NOTES.md, round 3)
    __device__ Raw get(int s, int j, int q) const {
        Raw r;
        *reinterpret_cast<int4 *>(&r) = *reinterpret_cast<const int4 *>(slot(s, j, q));
        return r;
    }
    // step i's copies into stage s (nothing past the last step), then one commit group: empty or
    // not, so that wait() counts steps
    __device__ void issue(long i, int s, const T *const (&src)[Q]) {
        const long r = row(i);
        if (i < steps && r < rows) {
#pragma unroll
            for (int j = 0; j < U; ++j) {
                const long k = l + (long)j * G;
                if (k < units)
#pragma unroll
                    for (int q = 0; q < Q; ++q) cp_async16(slot(s, j, q), src[q] + r * N + (k0 + k) * NV);
            }
        }
        cp_async_commit();
    }
    // steps 0 .. S - 2 into stages 0 .. S - 2; step i then reads stage i % S
    __device__ void start(const T *const (&src)[Q]) {
        for (int i = 0; i < S - 1; ++i) issue(i, i, src);
    }
    // at step i (in stage s): ask for step i + S - 1 (into the stage of step i - 1, read), then
    // wait until step i's copies (this thread's) landed
    __device__ void advance(long i, int s, const T *const (&src)[Q]) {
        issue(i + S - 1, prev_stage(s), src);
        cp_async_wait_pending(S - 1);
    }
};

// ---- host: the group geometry of a shape --------------------------------------------------
struct Geom {
    long rows = 0, N = 0;
    bool vec = false;
    bool shift = false; // unaligned rows in 16-byte blocks (ShiftRow): units is the most blocks a row overlaps
    long units = 0;    // units per row
    int G = 1;         // threads per row (power of two, <= 1024)
    int U = 1;         // units a thread holds (cached kernels): 1, 2, 4 or 8
    int threads = 256; // per CTA: 256 when G <= 32 (256 / G rows per CTA), else G (one row)
    int rpc() const { return threads / G; }
};

inline long pow2_at_least(long v) {
    long p = 1;
    while (p < v) p <<= 1;
    return p;
}

// G = the power of two that leaves each thread about `values` elements (values / units-size
// units, at least 1), at most 1024 threads; U = the units each thread then holds, rounded up to
// an instantiated 1, 2, 4, 8. false when a row needs more than 1024 x 8 units (cached kernels
// cannot hold it; reload kernels can).
// shift: a kernel that takes ShiftRow blocks for rows that are not 16-byte aligned (base
// pointers aligned, elements of at most 8 bytes) gets them as its units.
inline bool plan_geom(long rows, long N, int esz, bool aligned, int values, Geom *g, bool shift = false) {
    g->rows = rows;
    g->N = N;
    g->vec = aligned && (N * esz) % 16 == 0;
    g->shift = shift && aligned && !g->vec && esz <= 8;
    const int nv = g->vec || g->shift ? 16 / esz : 1;
    g->units = g->shift ? (N + nv - 1) / nv + 1 : (N + nv - 1) / nv;
    // a scalar unit is one element: 4 per thread (more serial single-element loads gain nothing)
    // scalar units (unaligned rows) are one element: 8 per thread measured 10-20% faster than 4 on
    // rmsnorm's 130 and 1027 (fewer, longer-lived threads per row)
    const int umax = nv == 1 ? 8 : values / nv > 1 ? values / nv : 1;
    long G = pow2_at_least((g->units + umax - 1) / umax);
    if (G > 1024) G = 1024;
    long U = (g->units + G - 1) / G;
    U = U <= 1 ? 1 : U <= 2 ? 2 : U <= 4 ? 4 : U <= 8 ? 8 : 16;
    g->G = (int)G;
    g->U = (int)U;
    g->threads = G <= 32 ? 256 : (int)G;
    return U <= 8;
}

// CTAs of short rows (G <= 32, several rows a CTA) halve, down to 64 threads, while the grid has
// fewer than 2 CTAs per SM: a small tensor's few bytes spread over every SM's load pipes.
inline void spread_short_rows(Geom *g, int sms) {
    if (g->G <= 32)
        while (g->threads > 64 && (g->rows + g->rpc() - 1) / g->rpc() < 2L * sms) g->threads /= 2;
}

// The same, shaped for latency when the whole tensor is small: with rows x units <= sms x 1024
// (one unit per thread fills less than one wave at 1024 threads per SM) every thread takes one
// unit (U = 1: no serial loads), and CTAs of short rows shrink to 64 threads until the grid has
// 2 CTAs per SM, so the few bytes are spread over every SM's load pipes instead of a handful.
// (H100, rmsnorm float32 512 x 32: 4 CTAs of 256 threads x 4 units ran 1.3x torch.compile's time.)
inline bool plan_geom_latency(long rows, long N, int esz, bool aligned, int values, int sms, Geom *g,
                              bool shift = false) {
    if (!plan_geom(rows, N, esz, aligned, values, g, shift)) return false;
    if (g->rows * g->units > (long)sms * 1024) return true;
    if (g->units <= 1024) {
        g->G = (int)pow2_at_least(g->units);
        g->U = 1;
        g->threads = g->G <= 32 ? 256 : g->G;
    }
    spread_short_rows(g, sms);
    return true;
}

// The staged kernels' launch shape: aligned rows of at most 2048 units (1 or 2 per thread, G
// up to 1024); CTAs of 1024 threads, halved (down to 64, never below G) while the grid would have
// fewer than 2 CTAs per SM; S stages of threads x U x Q x 16 bytes in at most `smem` bytes, at
// least 2 and at most `max_stages`. false where the row does not fit.
struct StagedGeom {
    int G = 0, U = 0, S = 0, threads = 0;
    size_t stage_bytes = 0;
};
inline bool plan_staged(const Geom &g, int Q, size_t smem, int max_stages, int sms, StagedGeom *sg) {
    if (!g.vec || g.units > 2048 || g.rows == 0) return false;
    long G = pow2_at_least((g.units + 1) / 2);
    if (G > 1024) G = 1024;
    const int U = (int)((g.units + G - 1) / G);
    int threads = 1024;
    while (threads > 64 && threads > G && (g.rows + threads / G - 1) / (threads / G) < 2L * sms) threads /= 2;
    const size_t stage = (size_t)threads * (size_t)U * (size_t)Q * 16;
    long S = (long)(smem / stage);
    if (S > max_stages) S = max_stages;
    if (S < 2) return false;
    sg->G = (int)G;
    sg->U = U;
    sg->S = (int)S;
    sg->threads = threads;
    sg->stage_bytes = stage;
    return true;
}

}  // namespace rowgroup
}  // namespace fb
