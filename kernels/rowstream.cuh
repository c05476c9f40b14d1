// rowstream.cuh — streaming row reductions: each row of x[rows, W] is read once, front to back,
// and reduced to a few values (sum; sum and amax; ...) while, optionally, an elementwise map of
// it is written out (y = cos(x)). Nothing is held across the reduction, so unlike the
// register-resident strategies of rowwise.cuh no row is too long and there is no second pass:
// a reduction only needs its partials, and the map's outputs leave as soon as they are made.
// The horizontal fusion cases (horizontal_reduction_pointwise, horizontal_reduction_reduction)
// are an Op each on top of this; rowwise.cuh provides the access unit, the row-tiling helpers
// and the cluster barrier halves.
//
// A row is streamed by a team:
//   group    G = 1..32 lanes of a warp (a power of two), the warp's teams on consecutive rows,
//            a persistent grid looping over rows. Reductions: G-lane shuffles. For many rows.
//   cta      one CTA of T = 64..512 threads per row, persistent over rows; warp shuffles, then the
//            warps' partials through shared memory (one barrier). For rows too few to give every
//            warp one (rows x 32 < the resident threads).
//   short    (kShortRows) G <= 32 lanes a row of aligned elements (128..512; longer in bfloat16,
//            to 2048 in float16, looping 2 or 4 units a lane a step), one row a team, a one-shot
//            grid, 32-bit offsets, no peel: Inductor's shape for many short rows, at 30-47 registers where
//            group holds 64 bytes a lane at 62-80 (launch_short).
//   cluster  C = 2..8 CTAs of 512 threads per row, each streaming a slice of it; the warps'
//            partials of all C CTAs are read by the leading CTA over distributed shared memory
//            (one cluster barrier). For few long rows (128 x 65536: one CTA per row would leave
//            most of the GPU idle).
// The team size is chosen so the grid fills the resident capacity (occupancy calculator), with
// at least a warp on any row of >= 128 units so that every access is a long contiguous run;
// float32 rows of >= 256 units (W >= 1024) instead get one CTA of up to 512 threads each,
// whatever the row count (plan's long-row rule, measured in NOTES.md, issue 6 round 6).
//
// Each lane issues UPT = 4 units (64 bytes) before using any (kept packed until then); rows are 16-byte units when x and
// y are 16-byte aligned, and each row is peeled: a scalar head up to its first 16-byte boundary,
// an aligned vector body, a scalar tail (odd widths 61, 130, 1027 keep 16-byte accesses).
// Unaligned tensors take one element per unit. Indices are int64 (65536 x 65536 = 2^32).
#pragma once

#include "rowwise.cuh"

#include <stdio.h>

#include <type_traits>

namespace fb {
namespace rowstream {

namespace cg = cooperative_groups;
using rowwise::cdiv;
using rowwise::cluster_arrive_release;
using rowwise::cluster_wait;
using rowwise::pow2ceil;
using rowwise::Unit;

// An Op (see horizontal_reduction_*.cu) provides, for storage type T:
//   struct Acc { float v[K]; };                    the per-thread partials
//   static constexpr bool kMap;                    writes y = map(x), y shaped as x
//   __device__ Acc init() const;
//   __device__ void add(Acc &, float x) const;     one element
//   __device__ void merge(Acc &, const Acc &) const;
//   __device__ float map(float x) const;           (when kMap)
//   __device__ void finish(int64_t row, const Acc &) const;   writes the row's results
// merge must be associative and commutative (up to rounding): partials meet in a tree.

enum Team { kGroup = 0, kCta = 1, kCluster = 2 };
constexpr int kUpt = 4;           // units per lane per iteration: 64 bytes in flight per lane
constexpr int kMaxThreads = 512;  // CTA size of the cta and cluster teams
constexpr int kGroupThreads = 256;
constexpr int kMaxClusterCtas = 8;

template <class Acc> __device__ __forceinline__ Acc shfl_xor(const Acc &a, int o) {
    Acc r;
#pragma unroll
    for (int i = 0; i < (int)(sizeof a.v / sizeof a.v[0]); ++i) r.v[i] = __shfl_xor_sync(0xffffffffu, a.v[i], o);
    return r;
}
// Over G lanes (a power of two <= 32); every lane of the warp must call it.
template <class Op> __device__ __forceinline__ void team_reduce(const Op &op, typename Op::Acc &a, int G) {
    for (int o = G >> 1; o > 0; o >>= 1) op.merge(a, shfl_xor(a, o));
}

// A row in memory: `head` scalars up to the first 16-byte boundary, `nbody` aligned units of N
// elements, `tail` scalars. base = the row's first element index (x is 16-byte aligned).
struct RowLayout {
    int head, tail;
    int nbody;  // W <= 2^30 (the variants check): offsets within a row, plus a stride, fit 32 bits
};
template <int N> __device__ __forceinline__ RowLayout row_layout(int64_t base, int64_t W) {
    RowLayout l;
    l.head = N == 1 ? 0 : (int)((N - (base & (N - 1))) & (N - 1));
    if (l.head > W) l.head = (int)W;
    l.nbody = (int)((W - l.head) / N);
    l.tail = (int)(W - l.head - (int64_t)l.nbody * N);
    return l;
}

// One unit of a row: its elements added to the partial pa and, for a map op, their images into o.
template <class Op, typename T, int N>
__device__ __forceinline__ void consume_unit(const Op &op, typename Op::Acc &pa, const fb::pack<T, N> &v,
                                             fb::pack<T, N> &o) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const float xv = fb::to_acc(v.v[j]);
        op.add(pa, xv);
        if constexpr (Op::kMap) o.v[j] = fb::from_acc<T>(op.map(xv));
    }
}

// Stream body units [ubeg, uend) of one row (lane `lane` of G takes ubeg + lane, + G, ...) and,
// if `scalars`, its head and tail elements; add every element to acc and write map(x) to y.
template <typename T, bool VEC, bool PLAIN, class Op>
__device__ __forceinline__ void stream_row(const T *__restrict__ x, T *__restrict__ y, int64_t base, int64_t W,
                                           const RowLayout &l, int ubeg, int uend, bool scalars, int lane,
                                           int G, const Op &op, typename Op::Acc &acc) {
    constexpr int N = Unit<T, VEC>::N;
    using P = fb::pack<T, N>;  // raw until used: 4 registers per unit in flight, whatever T
    const T *xb = x + base + l.head;
    T *yb = Op::kMap ? y + base + l.head : nullptr;
    // One partial per in-flight unit: kUpt independent add chains (latency) that are each kUpt
    // times shorter than one (rounding), merged at the end.
    typename Op::Acc pa[kUpt];
#pragma unroll
    for (int k = 0; k < kUpt; ++k) pa[k] = op.init();
    // This lane's first head/tail scalar is loaded before the body, so that short odd rows
    // (W = 61: 15 units and up to 6 scalars over 4 lanes) take one memory round trip, not two.
    const int nsc = scalars ? l.head + l.tail : 0;
    auto scalar_at = [&](int s) {
        return base + (s < l.head ? s : l.head + (int64_t)l.nbody * N + (s - l.head));
    };
    // Scalars take the body's cache policy: an evict-first store of a few bytes next to
    // default-policy vector stores can leave a partial sector to be written back (and, with
    // ECC, read-modified-written) on its own.
    auto ld = [&](int64_t e) { return fb::to_acc(PLAIN ? x[e] : __ldcs(x + e)); };
    auto st = [&](int64_t e, float v) {
        if (PLAIN) y[e] = fb::from_acc<T>(v);
        else __stcs(y + e, fb::from_acc<T>(v));
    };
    float first = 0.f;
    if (lane < nsc) first = ld(scalar_at(lane));
    for (int u0 = ubeg + lane; u0 < uend; u0 += G * kUpt) {
        P v[kUpt];
#pragma unroll
        for (int k = 0; k < kUpt; ++k)
            if (u0 + k * G < uend)
                v[k] = PLAIN ? fb::load_pack_plain<T, N>(xb + (size_t)(u0 + k * G) * N)
                             : fb::load_pack_stream<T, N>(xb + (size_t)(u0 + k * G) * N);
#pragma unroll
        for (int k = 0; k < kUpt; ++k) {
            const int u = u0 + k * G;
            if (u < uend) {
                P o;
                consume_unit(op, pa[k], v[k], o);
                if constexpr (Op::kMap) {
                    if constexpr (PLAIN) fb::store_pack_plain<T, N>(yb + (size_t)u * N, o);
                    else fb::store_pack_stream<T, N>(yb + (size_t)u * N, o);
                }
            }
        }
    }
    for (int s = lane; s < nsc; s += G) {
        const int64_t e = scalar_at(s);
        const float xv = s == lane ? first : ld(e);
        op.add(pa[0], xv);
        if constexpr (Op::kMap) st(e, op.map(xv));
    }
#pragma unroll
    for (int k = 0; k < kUpt; ++k) op.merge(acc, pa[k]);
}

// group: G lanes per row, the warp's 32 / G teams on consecutive rows. The row loop is
// warp-uniform (rows past the end still shuffle, touching no memory), so full-warp shuffles
// are safe.
template <typename T, bool VEC, bool PLAIN, class Op>
__global__ void __launch_bounds__(kGroupThreads, 2) group_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                              int64_t rows, int64_t W, int G, Op op) {
    constexpr int N = Unit<T, VEC>::N;
    const int lane = threadIdx.x & (G - 1);
    const int per_warp = 32 / G;
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    const int team_in_warp = (threadIdx.x & 31) / G;
    for (int64_t r0 = warp * per_warp; r0 < rows; r0 += nwarps * per_warp) {
        const int64_t row = r0 + team_in_warp;
        typename Op::Acc acc = op.init();
        if (row < rows) {
            const int64_t base = row * W;
            const RowLayout l = row_layout<N>(base, W);
            stream_row<T, VEC, PLAIN>(x, y, base, W, l, 0, l.nbody, true, lane, G, op, acc);
        }
        team_reduce(op, acc, G);
        if (row < rows && lane == 0) op.finish(row, acc);
    }
}

// short: 16-byte aligned rows, a team of G lanes a row, one row a team, a one-shot grid, 32-bit
// offsets, no head or tail: Inductor's persistent-reduction shape for short rows (more threads a
// row, few registers each). Each lane takes J units a step, G x J apart: one step when G x J >=
// the row's units, else (LOOP) as many steps as the row needs.
template <typename T, int J, bool LOOP, class Op>
__global__ void __launch_bounds__(kGroupThreads) short_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                              unsigned rows, unsigned units, int G, Op op) {
    constexpr int N = Unit<T, true>::N;
    using P = fb::pack<T, N>;
    const unsigned t = blockIdx.x * kGroupThreads + threadIdx.x;
    const unsigned row = t / (unsigned)G, lane = t & (unsigned)(G - 1);
    typename Op::Acc acc = op.init();
    if (row < rows) {
        const unsigned base = row * units;  // in units
        typename Op::Acc pa[J];
#pragma unroll
        for (int j = 0; j < J; ++j) pa[j] = op.init();
        auto step = [&](unsigned u0) {
            P v[J];
#pragma unroll
            for (int j = 0; j < J; ++j) {
                const unsigned u = u0 + (unsigned)j * G;
                if (u < units) v[j] = fb::load_pack_plain<T, N>(x + (size_t)(base + u) * N);
            }
#pragma unroll
            for (int j = 0; j < J; ++j) {
                const unsigned u = u0 + (unsigned)j * G;
                if (u < units) {
                    P o;
                    consume_unit(op, pa[j], v[j], o);
                    if constexpr (Op::kMap) fb::store_pack_plain<T, N>(y + (size_t)(base + u) * N, o);
                }
            }
        };
        if constexpr (LOOP)
            for (unsigned u0 = lane; u0 < units; u0 += (unsigned)(G * J)) step(u0);
        else
            step(lane);
#pragma unroll
        for (int j = 0; j < J; ++j) op.merge(acc, pa[j]);
    }
    team_reduce(op, acc, G);
    if (row < rows && lane == 0) op.finish(row, acc);
}

// The warps' partials of a CTA in shared memory, merged by warp 0 (at most 16 warps).
template <class Op>
__device__ __forceinline__ bool cta_reduce(const Op &op, typename Op::Acc &acc, typename Op::Acc *part) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    team_reduce(op, acc, 32);
    if (lane == 0) part[warp] = acc;
    __syncthreads();
    if (warp != 0) return false;
    acc = lane < nwarps ? part[lane] : op.init();
    team_reduce(op, acc, 32);
    return lane == 0;
}

// cta: one CTA per row, persistent over rows (the loop is CTA-uniform).
template <typename T, bool VEC, bool PLAIN, class Op>
__global__ void __launch_bounds__(kMaxThreads, 1) cta_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t rows,
                                                          int64_t W, Op op) {
    constexpr int N = Unit<T, VEC>::N;
    __shared__ typename Op::Acc part[kMaxThreads / 32];
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        typename Op::Acc acc = op.init();
        const int64_t base = row * W;
        const RowLayout l = row_layout<N>(base, W);
        stream_row<T, VEC, PLAIN>(x, y, base, W, l, 0, l.nbody, true, (int)threadIdx.x, (int)blockDim.x, op, acc);
        if (cta_reduce(op, acc, part)) op.finish(row, acc);
        __syncthreads();  // part is rewritten by the next row
    }
}

// cluster: C CTAs per row (the cluster tiles grid.x: its CTAs are consecutive), CTA `rank`
// streams body units [rank * chunk, (rank + 1) * chunk), rank 0 also the head and tail. Every
// warp's partial goes to its CTA's shared memory; after one cluster barrier, warp 0 of rank 0
// reads all C x nwarps partials over DSMEM and finishes the row. The second arrive (after those
// reads) paired with a wait before exit keeps every CTA's shared memory alive while it is read.
template <typename T, bool VEC, bool PLAIN, class Op>
__global__ void __launch_bounds__(kMaxThreads, 1) cluster_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t W,
                                                              int C, Op op) {
    constexpr int N = Unit<T, VEC>::N;
    using Acc = typename Op::Acc;
    __shared__ Acc part[kMaxThreads / 32];
    cg::cluster_group cl = cg::this_cluster();
    const int rank = (int)cl.block_rank();
    const int64_t row = blockIdx.x / C;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;

    const int64_t base = row * W;
    const RowLayout l = row_layout<N>(base, W);
    const int chunk = (l.nbody + C - 1) / C;
    const int ubeg = min(l.nbody, rank * chunk), uend = min(l.nbody, ubeg + chunk);
    Acc acc = op.init();
    stream_row<T, VEC, PLAIN>(x, y, base, W, l, ubeg, uend, rank == 0, (int)threadIdx.x, (int)blockDim.x, op, acc);
    team_reduce(op, acc, 32);
    if (lane == 0) part[warp] = acc;
    cluster_arrive_release();
    cluster_wait();
    if (rank == 0 && warp == 0) {
        Acc m = op.init();
        for (int k = lane; k < C * nwarps; k += 32) op.merge(m, cl.map_shared_rank(part, k / nwarps)[k % nwarps]);
        team_reduce(op, m, 32);
        if (lane == 0) op.finish(row, m);
    }
    // Release (not relaxed): rank 0's DSMEM loads above complete before a peer may exit.
    cluster_arrive_release();
    cluster_wait();
}

// ---- plans and launch ------------------------------------------------------------------

// Launch options (a variant's FLAGS): kOneShot = a grid covering every row once (each team
// streams its row and retires) instead of a persistent grid of the resident capacity;
// kPlain = default-policy loads and stores instead of evict-first (.cs) ones.
// kScalarShortOdd (with kByShape): odd rows of <= 256 bytes go one element per access, one-shot
// and plain, as the .scalar variant, where the tensor is small (x < 4 MB) or its rows are of <= 128
// bytes: horizontal_reduction_pointwise 2048 x 61 float32 % of SOL 69.9 -> 84.3 (NOTES.md, round
// 4). Larger tensors of longer odd rows keep the 16-byte persistent path, which measured faster
// there (stop 25, best of three runs, t_scalar / t_persistent: bfloat16 W = 127 at 16384-65536
// rows 1.19-1.35, float32 32768 x 33 1.16; 30 cells of 2048-65536 rows x 33, 61, 127 in both
// dtypes: geomean 1.027 for this rule over scalar everywhere, no cell under 0.99).
// kLongRowsOneShot: kOneShot where plan's long-row rule chose the team (horizontal_reduction_
// reduction: its other shapes keep the persistent grid).
// kShortRows: the short team (short_kernel, launch_short) for the rows it takes.
enum Flags { kOneShot = 1, kPlain = 2, kByShape = 4, kScalarShortOdd = 8, kLongRowsOneShot = 16, kShortRows = 32 };

// kByShape: one-shot + plain, except for short rows that are not a multiple of the vector width
// (head/tail scalars in every row), where the persistent evict-first launch measured faster:
// horizontal_reduction_pointwise at 65536 rows (H100 float32, NOTES.md issue 6 round 3), % of SOL
// one-shot+plain vs persistent: W = 61 44.6 vs 70.9, W = 130 77.0 vs 81.7, W = 1027 95.2 vs 85.2.
// With kScalarShortOdd, odd rows of <= 256 bytes also give up 16-byte access (scalar = true).
struct ByShape {
    int flags;
    bool scalar;
};
inline ByShape launch_by_shape(int64_t rows, int64_t W, int esz, bool scalar_short_odd) {
    const bool odd = W % (16 / esz) != 0;
    const int64_t row_bytes = W * esz;
    if (scalar_short_odd && odd && row_bytes <= 256 && (row_bytes <= 128 || rows * row_bytes < 4000000))
        return {kOneShot | kPlain, true};
    return {odd && row_bytes <= 1024 ? 0 : (kOneShot | kPlain), false};
}

struct Plan {
    Team team;
    bool vec;
    bool long_rows;  // the long-row rule chose the team (see plan)
    int flags;
    int G;        // kGroup: lanes per row
    int threads;  // CTA size
    int C;        // kCluster: CTAs per row
};

// Resident threads per SM of this Op's kernels (all three have about the same registers),
// from the occupancy calculator on the group kernel; cached per instantiation.
template <typename T, bool VEC, class Op> inline int resident_threads_per_sm() {
    static const int n = resident_ctas(group_kernel<T, VEC, false, Op>, kGroupThreads) * kGroupThreads;
    return n;
}

inline int pow2floor(int64_t v) {
    int p = 1;
    while ((int64_t)p * 2 <= v && p < (1 << 30)) p <<= 1;
    return p;
}

// force: -1 = choose by shape; else the team to use (kCluster with C >= 2).
inline Plan plan(int64_t rows, int64_t W, int esz, bool vec, int threads_per_sm, int force) {
    const int N = vec ? 16 / esz : 1;
    const int64_t units = std::max<int64_t>(1, W / N);
    const int64_t capacity = (int64_t)sm_count() * threads_per_sm;
    // Threads per row that fill the resident capacity, and that each still get kUpt units.
    const int64_t want = pow2floor(std::max<int64_t>(1, capacity / std::max<int64_t>(1, rows)));
    const int64_t useful = pow2ceil(cdiv(units, kUpt));
    int64_t tpr = std::max(std::min(want, useful), std::min<int64_t>(32, useful));
    // Long float32 rows (>= 64 threads' worth of kUpt units: W >= 1024): one CTA per row, as
    // many threads as one pass of kUpt units needs, at most 512 (Inductor's 16-warp row
    // programs), whatever the row count. The capacity rule above gave W = 4096 one warp a row
    // at 65536 rows and 64 threads at 4096 rows; measured (NOTES.md, issue 6 round 6, H100
    // float32, write flush) horizontal_reduction_pointwise 4096 x 4096 55.6 -> 51.6 us, 65536 x
    // 4096 736.9 -> 708.3, 4096 x 65536 789.5 -> 734.2 (torch.compile 50.7, 714.1, 757.2). From
    // W = 4096 down to 1024 (NOTES.md, "Stop 27", 1024-65536 rows x W 1024, 2048, 4096, best of
    // two runs): geomean 1.025 (HRP) and 1.025 (HRR) over 21 cells each, no cell slower than
    // 0.999; HRP 4096 x 2048 86.5 -> 93.9% of SOL, 8192 x 2048 89.5 -> 96.4. Not measured for
    // the half types: they keep the capacity rule.
    const bool long_rows = force < 0 && vec && esz == 4 && useful >= 64;
    if (long_rows) tpr = std::min<int64_t>(useful, kMaxThreads);
    Plan p;
    p.vec = vec;
    p.long_rows = long_rows;
    p.flags = 0;
    p.G = 32;
    p.threads = kGroupThreads;
    p.C = 1;
    if (force == kGroup || (force < 0 && tpr <= 32)) {
        p.team = kGroup;
        p.G = (int)std::min<int64_t>(32, tpr);
    } else if (force == kCta || (force < 0 && tpr <= kMaxThreads)) {
        p.team = kCta;
        p.threads = (int)std::min<int64_t>(kMaxThreads, std::max<int64_t>(64, tpr));
    } else {
        p.team = kCluster;
        p.threads = kMaxThreads;
        p.C = (int)std::min<int64_t>(kMaxClusterCtas, std::max<int64_t>(2, tpr / kMaxThreads));
    }
    return p;
}

// The launch flags a variant's FLAGS give a plan (kLongRowsOneShot resolved).
inline int resolve_flags(const Plan &p, int flags) {
    return p.long_rows && (flags & kLongRowsOneShot) ? flags | kOneShot : flags;
}

template <typename T, bool VEC, bool PLAIN, class Op>
inline cudaError_t launch_plan(const Plan &p, const T *x, T *y, int64_t rows, int64_t W, const Op &op,
                               int threads_per_sm, cudaStream_t st) {
    const int64_t resident_ctas_total = (p.flags & kOneShot)
                                            ? INT32_MAX
                                            : std::max<int64_t>(1, (int64_t)sm_count() * threads_per_sm / p.threads);
    if (p.team == kGroup) {
        const int64_t rows_per_cta = kGroupThreads / p.G;
        const int64_t ctas = std::min(cdiv(rows, rows_per_cta), resident_ctas_total);
        group_kernel<T, VEC, PLAIN, Op><<<(unsigned)ctas, kGroupThreads, 0, st>>>(x, y, rows, W, p.G, op);
        return cudaGetLastError();
    }
    if (p.team == kCta) {
        const int64_t ctas = std::min(rows, resident_ctas_total);
        cta_kernel<T, VEC, PLAIN, Op><<<(unsigned)ctas, p.threads, 0, st>>>(x, y, rows, W, op);
        return cudaGetLastError();
    }
    if (rows * p.C > INT32_MAX) return cudaErrorInvalidConfiguration;
    return rowwise::launch_clusters(cluster_kernel<T, VEC, PLAIN, Op>, (unsigned)(rows * p.C), p.threads, 0, st, p.C,
                                    x, y, W, p.C, op);
}

// The short team's launch, for the rows it was measured on: 16-byte aligned rows (x and y aligned,
// W a multiple of the unit) from 16384 rows, of 128..512 elements in any dtype, and of 1024 or
// more in bfloat16 (1024..2048 in float16). G = the row's units rounded up to a power of two, at
// most 32 lanes; a row of at most G x 4 units takes J = its units / G (1, 2 or 4) in one step, a
// longer one loops with J = 2 units a lane a step (J = 4 from 16384 elements). *launched false:
// not such a shape, nothing launched. Measured (NOTES.md, "Stop 31" sections 6-9 and "Stop 32";
// H100, write flush, two runs each, horizontal_reduction_pointwise, t_old / t_short):
//   - rows of 128..512, 16384-65536 rows: bfloat16 1.194, float16 1.178 (the cos made the group
//     team issue-bound at 65-78% of SOL at 62-80 registers, where short_kernel has 30-32), float32
//     1.014; beside torch.compile bfloat16 0.862 -> 1.029x.
//   - bfloat16 rows of 1024..8192 at 16384 and 65536 rows, units a lane a step J = 1 / 2 / 4:
//     1.121 / 1.153 / 1.118 (J = 2: 75-86% of SOL -> 88-96%); float32's long-row CTA team stays
//     ahead there (J = 1 0.957, J = 2 0.879 at 8192-16384 x 1024-2048). As landed ("Stop 32",
//     section 1, in turn twice): bfloat16 1.145 over 16384 and 65536 rows x 1024..8192; float16
//     1.027 over the same cells, where its old team ran at 83-92% of SOL: 1.09 at 1024, 1.02 at
//     2048, 1.00 at 4096, 0.99 at 8192, so float16 stops at 2048.
//   - half-type rows of 16384..65536 at 16384-65536 rows (section 5, dev knobs, in turn twice):
//     bfloat16 J = 2 1.075, J = 4 1.082 (82-88% of SOL -> 89-94%); float16 0.995 / 1.001. So
//     bfloat16 takes every row from 1024: J = 2 below 16384 elements (stop 31's J = 4 lost 3%
//     there), J = 4 from 16384, where it was ahead of J = 2 on two cards at 16384 rows (395-1549
//     against 400-1563 us at W = 16384-65536; "Stop 32" sections 5 and 9).
//   - bfloat16 rows of 512: 16 lanes of 4 units 1.095 over 32 of 2 (section 10).
// horizontal_reduction_reduction (no map) measured 0.963 in float32 on the persistent grid it
// keeps, so only the map op asks for the short team.
template <typename T, class Op>
inline cudaError_t launch_short(const T *x, T *y, int64_t rows, int64_t W, const Op &op, cudaStream_t st,
                                bool *launched) {
    constexpr int N = Unit<T, true>::N;
    constexpr bool kHalf = sizeof(T) == 2;
    // the longest half-type row it takes: float16 gained only to 2048 (1.09 at 1024, 1.02 at
    // 2048, 1.00 at 4096, 0.99 at 8192, 1.00 at 16384-65536); bfloat16 everywhere measured
    // (1.09-1.24 at 1024-8192, 1.03-1.10 at 16384-65536)
    constexpr int64_t kLongest = std::is_same<T, __half>::value ? 2048 : INT64_MAX;
    const int64_t units = W / N;
    *launched = false;
    // 32-bit offsets in units (row * units + u < rows * units) and thread indices (< rows x G <= rows x 32)
    if (W % N != 0 || W < 128 || rows < 16384 || rows * std::max<int64_t>(units, 32) >= ((int64_t)1 << 32))
        return cudaSuccess;
    if (W > 512 && !(kHalf && W >= 1024 && W <= kLongest)) return cudaSuccess;
    // bfloat16 rows of 512 (64 units) take 16 lanes of 4 units, not 32 of 2: 1.095 (1.04-1.20) over
    // 16384-65536 rows, in turn twice ("Stop 32", section 10), where 16 lanes lost on rows of 256
    // (0.80-0.97) and on float32's 64-unit rows (256: 0.94-1.04), and 8 lanes lost more
    const bool sixteen = std::is_same<T, __nv_bfloat16>::value && W == 512;
    const int G = sixteen ? 16 : (int)std::min<int64_t>(32, pow2ceil(units));
    const unsigned ctas = (unsigned)cdiv(rows * G, kGroupThreads), r = (unsigned)rows, n = (unsigned)units;
    *launched = true;
    if constexpr (kHalf)
        if (W > 512) {
            if (W >= 16384)
                short_kernel<T, 4, true, Op><<<ctas, kGroupThreads, 0, st>>>(x, y, r, n, G, op);
            else
                short_kernel<T, 2, true, Op><<<ctas, kGroupThreads, 0, st>>>(x, y, r, n, G, op);
            return cudaGetLastError();
        }
    if (units <= G)
        short_kernel<T, 1, false, Op><<<ctas, kGroupThreads, 0, st>>>(x, y, r, n, G, op);
    else if (units <= 2 * G)
        short_kernel<T, 2, false, Op><<<ctas, kGroupThreads, 0, st>>>(x, y, r, n, G, op);
    else
        short_kernel<T, 4, false, Op><<<ctas, kGroupThreads, 0, st>>>(x, y, r, n, G, op);
    return cudaGetLastError();
}

// Stream every row of x[rows, W] through op (y: the map's output, shaped as x, or null).
// allow_vec: false forces one element per access. force: -1, or a Team to use.
template <typename T, class Op>
inline fb_status run(const T *x, T *y, int64_t rows, int64_t W, const Op &op, bool allow_vec, int force,
                     cudaStream_t st, const char *what, int flags = 0) {
    if (rows == 0 || W == 0) return FB_OK;
    const bool short_rows = (flags & kShortRows) != 0;  // kByShape below replaces the flags
    if (flags & kByShape) {
        const ByShape b = launch_by_shape(rows, W, (int)sizeof(T), (flags & kScalarShortOdd) != 0);
        flags = b.flags;
        if (b.scalar) allow_vec = false;
    }
    const bool vec = allow_vec && fb::aligned16(x) && (!Op::kMap || fb::aligned16(y));
    if (short_rows && force < 0 && vec) {
        bool launched = false;
        const cudaError_t e = launch_short(x, y, rows, W, op, st, &launched);
        if (launched) return fb_cuda_status((int)e, what, __FILE__, __LINE__);
    }
    const int tps = vec ? resident_threads_per_sm<T, true, Op>() : resident_threads_per_sm<T, false, Op>();
    Plan p = plan(rows, W, (int)sizeof(T), vec, tps, force);
    flags = resolve_flags(p, flags);
    p.flags = flags;
    cudaError_t e;
    if (flags & kPlain)
        e = vec ? launch_plan<T, true, true>(p, x, y, rows, W, op, tps, st)
                : launch_plan<T, false, true>(p, x, y, rows, W, op, tps, st);
    else
        e = vec ? launch_plan<T, true, false>(p, x, y, rows, W, op, tps, st)
                : launch_plan<T, false, false>(p, x, y, rows, W, op, tps, st);
    if (e == cudaErrorInvalidConfiguration) {
        (void)cudaGetLastError();
        fb_error("%s: %lld rows x %d CTAs do not fit one grid", what, (long long)rows, p.C);
        return FB_E_UNSUPPORTED;
    }
    return fb_cuda_status((int)e, what, __FILE__, __LINE__);
}

}  // namespace rowstream
}  // namespace fb
