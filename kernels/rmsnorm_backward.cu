// rmsnorm_backward.cu — RMSNorm backward, rstd recomputed from x (no saved statistics), four
// dtypes (half types stored as half, fp32 arithmetic; float64 in double). For x, dy [..., N], w [N]:
//     r  = rsqrt(mean(x^2) + 1e-6)                         per row
//     dx = r * dy * w - x * r^3 * mean(dy * w * x)         per row
//     dw = sum over every row of dy * x * r                over the leading dims
// Ideal traffic: x, dy read once, w once; dx, dw written once.
//
// The kernel: a group of G threads per row (rowgroup.cuh), x and dy held in registers, both row
// sums (x^2 and dy*w*x) in one paired reduction, dx written in the same pass. Each thread owns the
// same columns for every row it visits, so its dw terms accumulate in registers across all the rows
// its group handles; at the end the CTA's groups are summed in group order through shared memory
// into one float32 (float64) partial row per CTA, and a second small kernel adds the CTAs' partial
// rows in CTA order. Nothing is atomic: the same inputs give the same bits on every run.
//
// Variants:
//   rmsnorm_backward.persistent   the kernel above on a grid of exactly the CTAs resident at once;
//                                 each group steps through the rows (row += groups in the grid).
//   rmsnorm_backward.pipelined    one 1024-thread CTA per SM stepping through the rows, the next
//                                 rows' x and dy copied into shared memory (cp.async) while this
//                                 row reduces and stores; dw in registers, one partial row per SM.
//                                 Aligned rows of 16-byte units. Wins from 8 MiB of x: the
//                                 barrier of each row no longer drains the SM's loads (1024-
//                                 thread CTAs of the kernel above: one row in flight per SM at
//                                 N = 16384 half, 58% of SOL; pipelined 91%). A row of more than
//                                 2048 units (float32 N > 8192, float64 N > 4096) is split over a
//                                 cluster of 2-8 CTAs, up to 16384 units: each CTA stages a slice,
//                                 the row sums meet through distributed shared memory one step
//                                 out of phase (float64 N = 16384: 60-63% of SOL in registers with
//                                 dy read twice, 80-81% over clusters of 4; NOTES.md, stop 24).
//                                 The half types' one-CTA steps go out of phase too from 16 MiB
//                                 (an mbarrier instead of the CTA barrier: pipe_shape).
//   rmsnorm_backward.prefetch     one 1024-thread CTA per SM taking whole rows of up to 4096
//                                 16-byte units: the row's x and dy in registers, the next row's
//                                 copied into shared memory (cp.async) meanwhile; rows of up to
//                                 8192 units over a cluster of two such CTAs, one slice each,
//                                 their row sums exchanged by st.async (no cluster barrier). For
//                                 the rows a pipelined stage cannot hold (float32 N 8196..32768,
//                                 float64 4098..16384), which the pipelined kernel splits over a
//                                 cluster of 2-4 CTAs with a cluster barrier a row (float64
//                                 [4, 2048, 16384]: 69% of SOL there, 92-93% here).
//   rmsnorm_backward.fused        from 8 MiB of x: prefetch for the float32 and float64 rows of
//                                 2049..8192 units (prefetch_wins), else pipelined where it
//                                 applies; below, the kernel
//                                 above on a resident grid, or the pipelined kernel for rows the
//                                 registers cannot hold (the rule and its table: pick()).
// The dw kernel is launched as a programmatic dependent (PDL) of either row kernel, so its launch
// overlaps the row kernel's tail (1-2 points of SOL on 32-64 MB tensors, NOTES.md).
#include "rmsnorm_backward.h"
#include "rowgroup.cuh"

#include <stdint.h>
#include <stdio.h>

namespace {

using namespace fb;
using namespace fb::rowgroup;

constexpr double kEps = 1e-6;
// Elements a thread holds per tensor (x and dy both held, as stored): 64 bytes of each for float32
// and float64 (H100: float32 77-90% -> 81-93% of SOL against 16 fp32 values held widened); 16
// elements (32 bytes) for the half types, where 32 spilled (bfloat16 60% -> 30%).
inline int held_values(int esz) { return esz == 2 ? 16 : 64 / esz; }
constexpr int kUmax = 8;  // instantiated units per thread: 1, 2, 4, 8

// What both row kernels do per unit (NV values of x, dy, w, widened): add to the row's two sums;
// then, with r and k3 = r^3 mean(dy w x), give dx and add this row's dw terms to `dw`.
template <typename A, int NV>
__device__ __forceinline__ void unit_sums(const A (&xv)[NV], const A (&dv)[NV], const A (&wv)[NV], A &ss, A &gx) {
#pragma unroll
    for (int i = 0; i < NV; ++i) {
        ss = fma(xv[i], xv[i], ss);
        gx = fma(dv[i] * wv[i], xv[i], gx);
    }
}
template <typename A, int NV>
__device__ __forceinline__ void unit_dx_dw(const A (&xv)[NV], const A (&dv)[NV], const A (&wv)[NV], A r, A k3,
                                           A (&o)[NV], A *dw) {
#pragma unroll
    for (int i = 0; i < NV; ++i) {
        o[i] = r * dv[i] * wv[i] - xv[i] * k3;
        dw[i] = fma(dv[i], xv[i] * r, dw[i]);
    }
}
// This CTA's partial row of dw: its rpc groups' rows (`stride` apart in shared memory) summed in
// group order, column by column. Call after a barrier that follows the groups' last writes.
template <typename A>
__device__ __forceinline__ void write_partial_row(const A *groups, long stride, int rpc, long N, A *partial) {
    A *out = partial + (long)blockIdx.x * N;
    for (long c = threadIdx.x; c < N; c += blockDim.x) {
        A s = A(0);
        for (int q = 0; q < rpc; ++q) s += groups[(long)q * stride + c];
        out[c] = s;
    }
}

template <typename T, bool VEC, int U>
__global__ void __launch_bounds__(1024) rmsnorm_bwd_kernel(const T *__restrict__ x, const T *__restrict__ w,
                                                           const T *__restrict__ dy, T *__restrict__ dx,
                                                           acc_t<T> *__restrict__ partial, long rows, long N,
                                                           long units, int G, acc_t<T> eps) {
    using A = acc_t<T>;
    using IO = Io<T, VEC>;
    constexpr int NV = IO::NV;
    extern __shared__ unsigned char smem_raw[];
    A *scratch = reinterpret_cast<A *>(smem_raw);  // 64 slots: the paired row sums
    A *groups = scratch + 64;                       // [rpc][units * NV]: each group's dw terms
    const int l = threadIdx.x & (G - 1), g = threadIdx.x / G, rpc = blockDim.x / G;
    const A inv_n = A(1) / (A)N;
    const long W = units * NV;
    // dw accumulates in shared memory, not registers: each element has exactly one owner thread
    // (its group's lane for that unit), so a plain read-modify-write per row, no atomics, and the
    // registers stay free for x and dy.
    A *mine = groups + (long)g * W;
    for (long c = l; c < W; c += G) mine[c] = A(0);

    for (long row = (long)blockIdx.x * rpc + g; row < rows; row += (long)gridDim.x * rpc) {
        const T *xr = x + row * N, *dyr = dy + row * N;
        // x and dy held as stored (raw units: a half-type unit is 4 registers); dy is re-read in
        // the output pass instead of held when a thread holds 8 units (float64 N = 16384), where
        // holding both spilled (37% of SOL).
        constexpr bool kHoldDy = U <= 4;
        typename IO::Raw xraw[U], draw[kHoldDy ? U : 1];
        A ss = A(0), gx = A(0);
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = l + (long)j * G;
            if (k < units) {
                A xv[NV], dv[NV], wv[NV];
                xraw[j] = IO::load_raw(xr, k);
                const typename IO::Raw d = IO::load_raw(dyr, k);
                if constexpr (kHoldDy) draw[j] = d;
                IO::widen(xraw[j], xv);
                IO::widen(d, dv);
                IO::load(w, k, wv);
                unit_sums(xv, dv, wv, ss, gx);
            }
        }
        row_sum2(ss, gx, G, scratch);
        const A r = rsqrt_acc(ss * inv_n + eps);
        const A k3 = r * r * r * (gx * inv_n);
        T *dxr = dx + row * N;
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = l + (long)j * G;
            if (k < units) {
                A xv[NV], dv[NV], wv[NV], o[NV];
                IO::widen(xraw[j], xv);
                if constexpr (kHoldDy) IO::widen(draw[j], dv);
                else IO::load(dyr, k, dv);
                IO::load(w, k, wv);
                unit_dx_dw(xv, dv, wv, r, k3, o, mine + k * NV);
                IO::store_stream(dxr, k, o);
            }
        }
    }

    // This CTA's partial row: its groups' dw in group order. The dw kernel may start launching
    // now (it waits for this grid's end before reading anything).
    allow_dependent_launch();
    __syncthreads();
    write_partial_row(groups, W, rpc, N, partial);
}

// Pipelined: a resident CTA of 1024 threads (one per SM) steps through the rows rpc = 1024 / G
// at a time, and each thread copies its own units of x and dy for the rows S - 1 steps ahead into
// shared memory with 16-byte cp.async while it works on the current step: the loads of the next
// rows are in flight through this row's reduction barrier and its stores, where the kernel above
// has only what other resident CTAs happen to be loading (one 1024-thread CTA per SM at
// N = 16384 half: 58% of SOL). A thread reads only the slots it copied, so reusing a stage
// needs no barrier. dw stays in registers (U x NV per thread: each thread owns the same columns
// in every row), so the CTA's partial row is written once at the end, and the grid has one
// partial row per SM (the kernel above: one per resident CTA, up to 32 per SM on short rows).
// x and dy are read from shared memory twice (for the sums, then for dx and dw) instead of held
// across the barrier: registers stay at one row's working set.
// CLUSTER: rows longer than one CTA stages (over 2048 units: float32 N > 8192, float64 N > 4096)
// are split over the C CTAs of a cluster, CTA `rank` holding units [rank * slice, + slice) of
// every row the cluster steps through; the row sums add the C CTAs' partial sums through
// distributed shared memory (cluster_publish / cluster_collect), and the cluster's partial row of dw is written in
// slices, one row per cluster.
template <typename T, int U, bool CLUSTER>
__global__ void __launch_bounds__(1024, 1) rmsnorm_bwd_pipe_kernel(const T *__restrict__ x, const T *__restrict__ w,
                                                                   const T *__restrict__ dy, T *__restrict__ dx,
                                                                   acc_t<T> *__restrict__ partial, long rows, long N,
                                                                   long units, int G, int S, long slice,
                                                                   int out_of_phase, acc_t<T> eps) {
    using A = acc_t<T>;
    using IO = Io<T, true>;
    using Raw = typename IO::Raw;
    constexpr int NV = IO::NV;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    A *scratch = reinterpret_cast<A *>(smem_raw);                   // 2 x 64 slots (groups_sum2)
    A *cl = reinterpret_cast<A *>(smem_raw + kStagedScratch);       // 2 x rpc x 2 (cluster_publish)
    long team = blockIdx.x, teams = gridDim.x, k0 = 0, mine = units;
    if constexpr (CLUSTER) {
        const long C = (long)cooperative_groups::this_cluster().num_blocks();
        const long rank = (long)cooperative_groups::this_cluster().block_rank();
        team = blockIdx.x / C;  // clusters tile grid.x: a cluster's CTAs are consecutive
        teams = gridDim.x / C;
        k0 = rank * slice;
        mine = units - k0 < slice ? units - k0 : slice;
        if (mine < 0) mine = 0;
    }
    StagedRows<T, U, 2> sr(smem_raw + kStagedScratch + kClusterScratch, S, G, rows, N, mine, team, teams, k0);
    const T *const src[2] = {x, dy};
    const int l = sr.l, g = sr.g, rpc = sr.threads / G;
    const A inv_n = A(1) / (A)N;
    const T *wk = w + k0 * NV;  // this CTA's columns of w

    Raw wraw[U];
    A dwacc[U][NV];
#pragma unroll
    for (int j = 0; j < U; ++j) {
        const long k = l + (long)j * G;
        if (k < mine) wraw[j] = IO::load_raw(wk, k);
#pragma unroll
        for (int i = 0; i < NV; ++i) dwacc[j][i] = A(0);
    }
    // step i's two row sums over this thread's units; `reduce`: then over the CTA's group (a
    // cluster's CTAs add theirs after)
    auto sums = [&](long i, int st, A &ss, A &gx, bool reduce) {
        ss = A(0);
        gx = A(0);
        const bool active = sr.row(i) < rows;
        if (active) {
#pragma unroll
            for (int j = 0; j < U; ++j) {
                const long k = l + (long)j * G;
                if (k < mine) {
                    A xv[NV], dv[NV], wv[NV];
                    IO::widen(sr.get(st, j, 0), xv);
                    IO::widen(sr.get(st, j, 1), dv);
                    Raw wr = wraw[j];
                    opaque(wr);  // widen w per row: kept widened it would double its registers
                    IO::widen(wr, wv);
                    unit_sums(xv, dv, wv, ss, gx);
                }
            }
        }
        if (!reduce) return;
        if (G > 32) groups_sum2(ss, gx, G, scratch, (int)(i & 1));
        else if (active || CLUSTER) row_sum2(ss, gx, G, scratch);
    };
    // step i's dx (stored) and dw terms, from the row's sums
    auto outputs = [&](long i, int st, A ss, A gx) {
        const long row = sr.row(i);
        if (row >= rows) return;
        const A r = rsqrt_acc(ss * inv_n + eps);
        const A k3 = r * r * r * (gx * inv_n);
        T *dxr = dx + row * N + k0 * NV;
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = l + (long)j * G;
            if (k < mine) {
                A xv[NV], dv[NV], wv[NV], o[NV];
                IO::widen(sr.get(st, j, 0), xv);
                IO::widen(sr.get(st, j, 1), dv);
                Raw wr = wraw[j];
                opaque(wr);
                IO::widen(wr, wv);
                unit_dx_dw(xv, dv, wv, r, k3, o, dwacc[j]);
                IO::store_stream(dxr, k, o);
            }
        }
    };
    // Groups of more than a warp meet at a barrier every step: over a cluster, the cluster's
    // (cluster_publish / collect); in one CTA, an mbarrier (groups_publish / collect, one arrival
    // per thread) in the cluster scratch, which a CTA of no cluster does not use. The host asks for
    // the one-CTA form where it measured faster (`out_of_phase`: pipe_shape).
    uint64_t *bar = reinterpret_cast<uint64_t *>(cl);
    const bool skew = CLUSTER || (out_of_phase && G > 32);
    if (!CLUSTER && skew) {
        if (threadIdx.x == 0) mbar_init(bar, blockDim.x);
        __syncthreads();
    }
    auto publish = [&](long i, A ss, A gx) {
        if constexpr (CLUSTER) cluster_publish(ss, gx, g, l, rpc, cl, (int)(i & 1));
        else groups_publish(ss, gx, scratch, bar, (int)(i & 1));
    };
    auto collect = [&](long i, A &ss, A &gx) {
        if constexpr (CLUSTER) cluster_collect(ss, gx, g, rpc, cl, (int)(i & 1));
        else groups_collect(ss, gx, G, scratch, bar, (int)(i & 1));
    };

    sr.start(src);
    if (!skew) {
        int st = 0;  // the stage of step i
        for (long i = 0; i < sr.steps; ++i, st = sr.next_stage(st)) {
            sr.advance(i, st, src);
            A ss, gx;
            sums(i, st, ss, gx, true);
            // re-read x and dy from shared memory below rather than keep this pass's values live
            asm volatile("" ::: "memory");
            outputs(i, st, ss, gx);
        }
    } else {
        // One step out of phase: step i + 1's own sums are taken (and published) while the
        // barrier for step i completes, so its latency overlaps work instead of stalling every
        // warp (every CTA of the cluster) each row. Step i + 1 must have landed while step i is
        // still read: the copies run S - 2 steps ahead (S >= 3) instead of S - 1.
        A ss = A(0), gx = A(0), ss1 = A(0), gx1 = A(0);
        if (sr.steps > 0) {
            cp_async_wait_pending(S - 2);
            sums(0, 0, ss, gx, CLUSTER);
            publish(0, ss, gx);
        }
        int st = 0;  // the stage of step i
        for (long i = 0; i < sr.steps; ++i, st = sr.next_stage(st)) {
            sr.issue(i + S - 1, sr.prev_stage(st), src);  // into the stage of step i - 1, done
            cp_async_wait_pending(S - 2);
            const bool next = i + 1 < sr.steps;
            if (next) sums(i + 1, sr.next_stage(st), ss1, gx1, CLUSTER);
            collect(i, ss, gx);
            asm volatile("" ::: "memory");
            outputs(i, st, ss, gx);
            if (next) {
                publish(i + 1, ss1, gx1);
                ss = ss1;
                gx = gx1;
            }
        }
    }
    // the peers' last reads of this CTA's cluster_publish slots end before their arrive; the wait
    // before exit below keeps this shared memory alive until then
    if constexpr (CLUSTER) cluster_arrive_release();

    // This CTA's partial row (its team's, in the columns it holds): each group's dw through
    // shared memory (the stages, now idle), then the groups summed in group order. The dw
    // kernel may start launching now (see above).
    allow_dependent_launch();
    cp_async_wait_all();
    __syncthreads();
    const long width = mine * NV;               // columns this CTA holds
    A *groups = reinterpret_cast<A *>(sr.stage);  // [rpc][width]: rpc * width * sizeof(A) <= one stage
#pragma unroll
    for (int j = 0; j < U; ++j) {
        const long k = l + (long)j * G;
        if (k < mine)
#pragma unroll
            for (int q = 0; q < NV; ++q) groups[(long)g * width + k * NV + q] = dwacc[j][q];
    }
    __syncthreads();
    A *out = partial + team * N + k0 * NV;
    for (long c = threadIdx.x; c < width; c += blockDim.x) {
        A s = A(0);
        for (int q = 0; q < rpc; ++q) s += groups[(long)q * width + c];
        out[c] = s;
    }
    if constexpr (CLUSTER) cluster_wait();
}

// dw[c] = sum over p of partial[p][c], p in order: a CTA takes 32 x V columns, lane l the V
// adjacent columns l * V.. (one 16-byte load a partial row where rows are 16-byte multiples: V = 4
// float32 or 2 float64 partials, else V = 1), its 32 warps each adding every 32nd partial row,
// then the 32 warp sums in warp order: the same order, so the same bits, for every V.
// Why V: at 32 columns a CTA the kernel had N / 32 CTAs of 1024 threads, two waves from N = 8192
// float32 partials (2 CTAs an SM), and it cost the timed call 3.9-4.3 us at N = 16384 against
// 2.3-2.9 at 8192 (stop 48, FB_DEV_RMSBWD_SKIP_DW); with V = 4 N = 16384 is 128 CTAs, one wave.
template <typename T, int V>
__global__ void __launch_bounds__(1024) rmsnorm_dw_kernel(const acc_t<T> *__restrict__ partial, long P, long N,
                                                          T *__restrict__ dw) {
    using A = acc_t<T>;
    constexpr int CB = 32 * V;  // columns a CTA
    using Pack = pack<A, V>;  // V = 1, or 16 bytes (common.cuh's load_pack_plain)
    __shared__ Pack s[32][32];  // [warp][lane]: the warps' sums, V columns a lane
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    const long c = (long)blockIdx.x * CB + (long)tx * V;  // V > 1 only where N % V == 0
    // launched as a programmatic dependent of the row kernel: wait here for all of it (its
    // partial rows written and visible)
    wait_prerequisite_grid();
    Pack acc;
#pragma unroll
    for (int i = 0; i < V; ++i) acc.v[i] = A(0);
    if (c < N) {
        const A *src = partial + c;
        // kB partial rows' loads issued before any of their adds (a plain loop, even unrolled,
        // came out of the compiler load, add, load: one L2 round trip per partial row); the adds
        // stay in p order
        constexpr int kB = 8;
        for (long p0 = ty; p0 < P; p0 += 32 * kB) {
            Pack x[kB];
#pragma unroll
            for (int k = 0; k < kB; ++k)
                if (p0 + 32L * k < P) x[k] = load_pack_plain<A, V>(src + (p0 + 32L * k) * N);
#pragma unroll
            for (int k = 0; k < kB; ++k)
                if (p0 + 32L * k < P)
#pragma unroll
                    for (int i = 0; i < V; ++i) acc.v[i] += x[k].v[i];
        }
    }
    s[ty][tx] = acc;
    __syncthreads();
    const int t = threadIdx.x;  // column t of the CTA's block: lane t / V's value t % V
    const long col = (long)blockIdx.x * CB + t;
    if (t < CB && col < N) {
        A sum = A(0);
#pragma unroll
        for (int q = 0; q < 32; ++q) sum += s[q][t / V].v[t % V];
        dw[col] = from_acc<T>(sum);
    }
}

// The dw kernel, launched with programmatic stream serialisation (PDL): it may be scheduled
// before the row kernel ends and waits in griddepcontrol.wait, so the launch gap between the two
// overlaps the row kernel's tail (measured against the same launch without PDL: 1-2 points of SOL
// on 32-64 MB tensors, NOTES.md, RMSNorm backward round 3).
template <typename T>
cudaError_t launch_dw(const acc_t<T> *partial, long P, long N, T *dw, cudaStream_t stream) {
    using A = acc_t<T>;
    constexpr int V = 16 / (int)sizeof(A);
    // 16-byte loads where every partial row starts on 16 bytes (the workspace itself does)
    const bool wide = (N * (long)sizeof(A)) % 16 == 0 && reinterpret_cast<uintptr_t>(partial) % 16 == 0;
    const void *fn = wide ? reinterpret_cast<const void *>(&rmsnorm_dw_kernel<T, V>)
                          : reinterpret_cast<const void *>(&rmsnorm_dw_kernel<T, 1>);
    const long cb = 32L * (wide ? V : 1);
    void *args[] = {(void *)&partial, &P, &N, (void *)&dw};
    cudaError_t e = launch_dependent(fn, dim3((unsigned)((N + cb - 1) / cb)), dim3(1024), 0, args, stream);
    return e != cudaSuccess ? e : cudaGetLastError();
}

// Prefetched: rows of 2049..4096 16-byte units (float32 N 8196..16384, float64 4098..8192), which
// no pipelined stage holds (a stage of x and dy is 128 KB there: two do not fit an SM), so the
// pipelined kernel splits them over a cluster of two and pays a cluster exchange each row (float32
// [4, 512, 16384] 79-81% of SOL, float64 rows of 8192 72-78%). Here one resident CTA of NT
// threads takes whole rows: thread t holds units t + NT j (j < U) of the current row's x and dy in
// registers while the next row's x and dy land in shared memory (16-byte cp.async, each thread
// its own units: it reads only the slots it copied, so neither the copy nor the reuse needs a
// barrier). Two row sums a row (one CTA reduction), w read per unit (L1/L2), dw accumulated in
// shared memory (each column one owner thread) and written as the CTA's partial row at the end.
// NT, the thread count, is a compile-time constant: with blockDim.x in the unit index the kernel
// took 1.6x the instructions (1860 against 1156 SASS lines) and ran float32 [4, 2048, 16384] at
// 79.6% of SOL instead of 96.3 (stop 48, calls 6 and 8).
// CLUSTER: rows of 4097..8192 units (float64 N 8194..16384, float32 16388..32768) over a
// cluster of two CTAs, CTA `rank` holding units [rank * slice, + slice) of every row its cluster
// takes, as above within its slice; the two CTAs' row sums meet through distributed shared memory
// (PairExchange: st.async into the peer's mbarrier-counted slot, no cluster barrier a row) while
// the next row's copies are in flight; one partial row of dw per cluster, each CTA writing its
// slice.
// Shared memory: 64 scratch slots, 8 more for the PairExchange, dw (slice x NV values), the stage
// (x then dy: 2 x slice x 16 B).
constexpr int kPrefetchScratch = 64 + 8;
template <typename T, int U, int NT, bool CLUSTER>
__global__ void __launch_bounds__(NT, 1) rmsnorm_bwd_prefetch_kernel(const T *__restrict__ x, const T *__restrict__ w,
                                                                     const T *__restrict__ dy, T *__restrict__ dx,
                                                                     acc_t<T> *__restrict__ partial, long rows, long N,
                                                                     long units, int G, acc_t<T> eps) {
    using A = acc_t<T>;
    using IO = Io<T, true>;
    using Raw = typename IO::Raw;
    constexpr int NV = IO::NV;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    A *scratch = reinterpret_cast<A *>(smem_raw);  // 64 slots: the paired row sums
    auto *pair = reinterpret_cast<PairExchange<A> *>(scratch + 64);  // CLUSTER: the row sums' exchange
    A *dwacc = scratch + kPrefetchScratch;          // [slice * NV]
    const int t = threadIdx.x;
    (void)G;
    // this CTA's team (a cluster, or itself), the teams, and its units [k0, k0 + mine) of each row
    long team = blockIdx.x, teams = gridDim.x, k0 = 0, mine = units;
    uint32_t peer = 0;
    if constexpr (CLUSTER) {
        const long rank = (long)cooperative_groups::this_cluster().block_rank();  // of 2
        const long slice = (units + 1) / 2;
        team = blockIdx.x / 2;  // clusters tile grid.x: a cluster's CTAs are consecutive
        teams = gridDim.x / 2;
        k0 = rank * slice;
        mine = units - k0 < slice ? units - k0 : slice;
        peer = (uint32_t)rank ^ 1u;
        if (t == 0) pair->init();
        // the peer's barriers initialised before any send to them
        cluster_arrive_release();
        cluster_wait();
    }
    Raw *stage = reinterpret_cast<Raw *>(dwacc + mine * NV);  // [2][mine]: x, then dy
    const T *xs = x + k0 * NV, *dys = dy + k0 * NV, *ws = w + k0 * NV;
    const A inv_n = A(1) / (A)N;
#pragma unroll
    for (int j = 0; j < U; ++j) {
        const long k = t + (long)j * NT;
        if (k < mine)
#pragma unroll
            for (int i = 0; i < NV; ++i) dwacc[k * NV + i] = A(0);
    }
    // the next row's units into this thread's slots of the stage
    auto prefetch = [&](long row) {
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = t + (long)j * NT;
            if (k < mine) {
                cp_async16(stage + k, xs + row * N + k * NV);
                cp_async16(stage + mine + k, dys + row * N + k * NV);
            }
        }
        cp_async_commit();
    };
    Raw xraw[U], draw[U];
    long row = team;
    if (row < rows) {
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = t + (long)j * NT;
            if (k < mine) {
                xraw[j] = IO::load_raw(xs + row * N, k);
                draw[j] = IO::load_raw(dys + row * N, k);
            }
        }
    }
    for (long i = 0; row < rows; row += teams, ++i) {
        const long next = row + teams;
        if (next < rows) prefetch(next);
        A ss = A(0), gx = A(0);
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = t + (long)j * NT;
            if (k < mine) {
                A xv[NV], dv[NV], wv[NV];
                IO::widen(xraw[j], xv);
                IO::widen(draw[j], dv);
                IO::load(ws, k, wv);
                unit_sums(xv, dv, wv, ss, gx);
            }
        }
        row_sum2(ss, gx, NT, scratch);
        if constexpr (CLUSTER) pair->exchange(ss, gx, i, peer);
        const A r = rsqrt_acc(ss * inv_n + eps);
        const A k3 = r * r * r * (gx * inv_n);
        T *dxr = dx + row * N + k0 * NV;
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long k = t + (long)j * NT;
            if (k < mine) {
                A xv[NV], dv[NV], wv[NV], o[NV];
                IO::widen(xraw[j], xv);
                IO::widen(draw[j], dv);
                IO::load(ws, k, wv);
                unit_dx_dw(xv, dv, wv, r, k3, o, dwacc + k * NV);
                IO::store_stream(dxr, k, o);
            }
        }
        if (next < rows) {
            // the next row: this thread's own slots, landed
            cp_async_wait_all();
#pragma unroll
            for (int j = 0; j < U; ++j) {
                const long k = t + (long)j * NT;
                if (k < mine) {
                    xraw[j] = stage[k];
                    draw[j] = stage[mine + k];
                }
            }
        }
    }
    // no CTA of the cluster exits while a send to it may be in flight (each waits for its peer's
    // last send; the wait before exit below covers the rest)
    if constexpr (CLUSTER) cluster_arrive_release();
    // This CTA's partial row (its team's, in the columns it holds): every column has one owner
    // thread. The dw kernel may start launching now (it waits for this grid's end before reading
    // anything).
    allow_dependent_launch();
    A *out = partial + team * N + k0 * NV;
#pragma unroll
    for (int j = 0; j < U; ++j) {
        const long k = t + (long)j * NT;
        if (k < mine)
#pragma unroll
            for (int i = 0; i < NV; ++i) out[k * NV + i] = dwacc[k * NV + i];
    }
    if constexpr (CLUSTER) cluster_wait();
}

template <typename T, bool VEC, int U> void *bwd_fn() { return (void *)rmsnorm_bwd_kernel<T, VEC, U>; }

struct Problem {
    const void *x, *w, *dy;
    void *dx, *dw;
    fb_dtype dt;
    Geom g;
};

enum Grid { PERSISTENT = 0, AUTO = 1, PIPELINED = 2, PREFETCH = 3 };
const char *const grid_names[] = {"persistent", "fused", "pipelined", "prefetch"};

int check(const fb_call *c, char *why, size_t n) {
    if (c->n_in != 3 || c->n_out != 2) {
        if (why) snprintf(why, n, "rmsnorm_backward takes x, w, dy and gives dx, dw");
        return FB_E_UNSUPPORTED;
    }
    const fb_tensor *x = &c->in[0], *w = &c->in[1], *dy = &c->in[2], *dx = &c->out[0], *dw = &c->out[1];
    const fb_dtype dt = dx->dtype;
    if (x->dtype != dt || w->dtype != dt || dy->dtype != dt || dw->dtype != dt) {
        if (why) snprintf(why, n, "rmsnorm_backward needs one dtype throughout");
        return FB_E_UNSUPPORTED;
    }
    const int rank = dx->shape.rank;
    bool same = rank >= 1 && x->shape.rank == rank && dy->shape.rank == rank;
    for (int d = 0; same && d < rank; ++d)
        same = x->shape.dim[d] == dx->shape.dim[d] && dy->shape.dim[d] == dx->shape.dim[d];
    const long N = rank >= 1 ? dx->shape.dim[rank - 1] : 0;
    if (!same || w->shape.rank != 1 || w->shape.dim[0] != N || dw->shape.rank != 1 || dw->shape.dim[0] != N) {
        if (why) snprintf(why, n, "rmsnorm_backward needs x, dy, dx of one shape [..., N] and w, dw of shape [N]");
        return FB_E_UNSUPPORTED;
    }
    return FB_OK;
}

Problem problem(const fb_call *c) {
    Problem p;
    const fb_tensor *dx = &c->out[0];
    p.x = c->in[0].data;
    p.w = c->in[1].data;
    p.dy = c->in[2].data;
    p.dx = dx->data;
    p.dw = c->out[1].data;
    p.dt = dx->dtype;
    const long N = dx->shape.dim[dx->shape.rank - 1];
    long rows = 1;
    for (int d = 0; d + 1 < dx->shape.rank; ++d) rows *= dx->shape.dim[d];
    const bool aligned = aligned16(p.x) && aligned16(p.w) && aligned16(p.dy) && aligned16(p.dx);
    plan_geom_latency(rows, N, (int)fb_dtype_size(p.dt), aligned, held_values((int)fb_dtype_size(p.dt)), sm_count(), &p.g);
    return p;
}

struct Launch {
    void *fn = nullptr;
    unsigned grid = 0;
    int threads = 0;
    size_t smem = 0;
    int G = 0, S = 0;  // the pipelined kernel's group and stages (S = 0: the register kernel)
    int C = 1;         // CTAs per cluster (the pipelined kernel's rows split over C CTAs)
    int out_of_phase = 0;  // the pipelined kernel's one-CTA steps out of phase (see pipe_shape)
    long slice = 0;    // units of a row each CTA of a cluster holds
    long teams() const { return (long)grid / C; }  // partial rows of dw: one per CTA or cluster
    // the workspace: the partial rows of dw, in float32 (float64 for float64)
    size_t partial_bytes(long N, fb_dtype dt) const { return (size_t)teams() * (size_t)N * (dt == FB_F64 ? 8 : 4); }
};

// With L->fn, threads, smem and C chosen: allow the dynamic shared memory, and size the grid to
// the CTAs (clusters of C) resident at once, or fewer when `need` teams cover the rows. false if
// the smem or the cluster shape is refused.
bool resident_grid(Launch *L, long need) {
    if (L->smem > 48 * 1024 &&
        cudaFuncSetAttribute((const void *)L->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L->smem) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    const long resident = L->C > 1 ? (long)resident_clusters(L->fn, L->threads, L->smem, L->C)
                                   : (long)resident_ctas((const void *)L->fn, L->threads, L->smem) * sm_count();
    if (resident <= 0) return false;
    const long teams = need < resident ? need : resident;
    L->grid = (unsigned)((teams > 0 ? teams : 1) * L->C);
    return true;
}

template <typename T> bool pick_kernel(Grid mode, const Geom &g, Launch *L) {
    if (g.U > kUmax) return false;
#define FB_RMS_BWD(V)                                \
    switch (g.U) {                                   \
    case 1: L->fn = bwd_fn<T, V, 1>(); break;        \
    case 2: L->fn = bwd_fn<T, V, 2>(); break;        \
    case 4: L->fn = bwd_fn<T, V, 4>(); break;        \
    default: L->fn = bwd_fn<T, V, 8>(); break;       \
    }
    if (g.vec) {
        FB_RMS_BWD(true)
    } else {
        FB_RMS_BWD(false)
    }
#undef FB_RMS_BWD
    using A = acc_t<T>;
    const long nv = g.vec ? 16 / (long)sizeof(T) : 1;
    L->threads = g.threads;
    L->smem = (64 + (size_t)g.rpc() * (size_t)(g.units * nv)) * sizeof(A);
    if (L->smem > 200 * 1024) return false;
    (void)mode;  // both grids are resident-sized until NOTES.md's measurements say otherwise
    return resident_grid(L, (g.rows + g.rpc() - 1) / g.rpc());
}

// The pipelined kernel's launch: rowgroup.cuh's plan_staged (x and dy staged: Q = 2) in 200 KB,
// at most 4 stages; one partial row per CTA. Rows of more than 2048 units are split over a
// cluster of C CTAs (the fewest, a power of two up to 8, that leaves each at most 2048 units).
constexpr int kPipeStages = 4;
constexpr size_t kPipeSmem = 200 * 1024;
constexpr long kPipeUnits = 2048;  // units of a row (or a cluster CTA's slice) one CTA stages
template <typename T> void *pipe_fn(int U, bool cluster) {
    if (cluster) return U == 1 ? (void *)rmsnorm_bwd_pipe_kernel<T, 1, true> : (void *)rmsnorm_bwd_pipe_kernel<T, 2, true>;
    return U == 1 ? (void *)rmsnorm_bwd_pipe_kernel<T, 1, false> : (void *)rmsnorm_bwd_pipe_kernel<T, 2, false>;
}
// The staging of a row (host arithmetic only): C CTAs a row, `slice` units each, plan_staged's
// threads, group, units per thread and stages; and whether one CTA's steps go out of phase.
struct PipeShape {
    int C = 1;
    long slice = 0;
    StagedGeom sg;
    bool out_of_phase = false;
    size_t smem() const { return kStagedScratch + kClusterScratch + (size_t)sg.S * sg.stage_bytes; }
};
bool pipe_shape(const Geom &g, int esz, PipeShape *ps) {
    if (!g.vec || g.rows == 0) return false;
    int C = 1;
    while (C < 8 && (g.units + C - 1) / C > kPipeUnits) C *= 2;
    ps->C = C;
    ps->slice = (g.units + C - 1) / C;
    Geom part = g;
    part.units = ps->slice;
    if (!plan_staged(part, 2, kPipeSmem - kStagedScratch - kClusterScratch, kPipeStages, sm_count(), &ps->sg))
        return false;
    if (C > 1 && ps->sg.threads / ps->sg.G > 32) return false;  // cluster_publish's scratch: 32 rows a step
    // One CTA's steps out of phase (groups_publish / collect) where it measured faster: the half
    // types from 16 MiB of x (H100, against steps in phase, t_old / t_new, best of two runs,
    // geomean (range): half types 16-64 MiB 1.024 over 10 cells (0.98-1.06; bfloat16 2048 x 2048
    // 77.9 -> 82.6% of SOL), from 64 MiB 1.015 over 8 (1.00-1.04), 8 MiB 0.968 over 4 (0.92-1.03);
    // float32 and float64 8-16 MiB 0.969 over 3, 16-64 MiB 0.982 over 9 (0.94-1.02), from 64 MiB
    // 1.001 over 15: there the copies' S - 2 steps ahead instead of S - 1 cost more than the
    // barrier saves; NOTES.md, stop 24).
    const double xbytes = (double)g.rows * (double)g.N * (double)esz;
    ps->out_of_phase = esz == 2 && xbytes >= 16.0 * 1024 * 1024;
    return true;
}

template <typename T> bool pick_pipe(const Geom &g, Launch *L) {
    PipeShape ps;
    if (!pipe_shape(g, (int)sizeof(T), &ps)) return false;
    L->fn = pipe_fn<T>(ps.sg.U, ps.C > 1);
    L->threads = ps.sg.threads;
    L->smem = ps.smem();
    L->C = ps.C;
    L->slice = ps.slice;
    const long rpc = ps.sg.threads / ps.sg.G;
    if (!resident_grid(L, (g.rows + rpc - 1) / rpc)) return false;
    L->G = ps.sg.G;
    L->S = ps.sg.S;
    L->out_of_phase = ps.out_of_phase;
    return true;
}

// The prefetched kernel's launch: 16-byte rows of at most kPrefetchUnits units on one resident
// CTA of 1024 threads an SM (its shared memory: the stage, 128 KB at 4096 units, and dw), rows of
// up to twice that over a cluster of two such CTAs.
constexpr long kPrefetchUnits = 4096;
constexpr int kPrefetchMaxC = 2;
template <typename T> bool pick_prefetch(const Geom &g, Launch *L) {
    if (!g.vec || g.units > kPrefetchMaxC * kPrefetchUnits) return false;
    using A = acc_t<T>;
    const long nv = 16 / (long)sizeof(T);
    const int C = g.units > kPrefetchUnits ? 2 : 1;
    const long slice = (g.units + C - 1) / C;
    // units a thread: 2 up to 2048 units (the half types' rows of <= 16384 elements, held in half
    // the registers), else 4
    if (C > 1)
        L->fn = (void *)rmsnorm_bwd_prefetch_kernel<T, 4, 1024, true>;
    else
        L->fn = slice <= 2048 ? (void *)rmsnorm_bwd_prefetch_kernel<T, 2, 1024, false>
                              : (void *)rmsnorm_bwd_prefetch_kernel<T, 4, 1024, false>;
    L->threads = 1024;
    L->C = C;
    L->slice = slice;
    L->smem = (kPrefetchScratch + (size_t)(slice * nv)) * sizeof(A) + 2 * (size_t)slice * 16;
    return resident_grid(L, g.rows);
}
// Where rmsnorm_backward.fused takes the prefetched kernel over the pipelined one's clusters:
// rows of 2049..8192 units in float32 and float64. Measured (NVIDIA H200, stop 48, two rounds each,
// % of SOL at 2048 / 8192 rows, the pipelined kernel -> the prefetched one): float32 N = 12288
// 70.5 / 76.3 -> 83.2 / 94.1 (call 6), N = 16384 80.9 / 87.0 -> 90.8 / 96.3 (call 8, with the
// thread count a compile-time constant: call 6's build, indexing by blockDim.x, lost there);
// float64 N = 8192 72.3 / 77.8 (call 6) -> 86.4 / 95.7 (call 8). The half types spill in it (their
// rows of more than 2048 units are N > 16384, never measured); at <= 2048 units the pipelined
// kernel's own stages win (float32 N = 8192 86.1 / 93.5 against 86.3 / 89.9, call 8). Rows of
// 4097..8192 units on the prefetched kernel's cluster of two (stop 49, call 1, two rounds, % of
// SOL at 128 / 512 / 2048 rows of 4 x T): float64 N = 16384 58 / 67.3 / 68-69 (the pipelined
// kernel's cluster of four) -> 66-68 / 87.0 / 92-93. The half types lose on it at 1024 units
// (bfloat16 [4, 512, 8192] 76 -> 52.5%, call 1), so they keep the pipelined kernel.
bool prefetch_wins(const Geom &g, fb_dtype dt) {
    return g.vec && g.units > kPipeUnits && g.units <= kPrefetchMaxC * kPrefetchUnits && fb_dtype_size(dt) >= 4;
}

// The kernel and grid of a mode; false where it has none for this shape. L->S > 0 when the
// pipelined kernel is the one picked.
// fused: the pipelined kernel from 8 MiB of x, where it supports the row, else the kernel above
// on a resident grid. H100, one run of both over the whole grid (NOTES.md, RMSNorm round 3),
// t_fused_old / t_pipelined geomean by the size of x: >= 32 MB 1.16 (24 cells, none slower),
// 16-32 MB 1.13 (12, none slower), 8-16 MB 1.11 (13; 2 slower by > 3%, rows of 8 and 16 units),
// 4-8 MB 1.03 (3 of 12 slower), 2-4 MB 1.00 (6 of 13), < 2 MB 0.93 (30 of 40 slower).
constexpr double kPipeFromBytes = 8.0 * 1024 * 1024;
// .fused's first choice: the prefetched kernel, from 8 MiB of x, where prefetch_wins says
bool fused_takes_prefetch(const Geom &g, fb_dtype dt, double xbytes) {
    return xbytes >= kPipeFromBytes && prefetch_wins(g, dt);
}
bool pick(Grid mode, const Problem &p, Launch *L) {
    bool ok = false;
    *L = Launch();
    const double xbytes = (double)p.g.rows * (double)p.g.N * (double)fb_dtype_size(p.dt);
    if (mode == PREFETCH) {
        FB_DISPATCH(p.dt, T, { ok = pick_prefetch<T>(p.g, L); });
        return ok;
    }
    if (mode == AUTO && fused_takes_prefetch(p.g, p.dt, xbytes)) {
        FB_DISPATCH(p.dt, T, { ok = pick_prefetch<T>(p.g, L); });
        if (ok) return true;
        *L = Launch();
    }
    if (mode == PIPELINED || (mode == AUTO && xbytes >= kPipeFromBytes)) {
        FB_DISPATCH(p.dt, T, { ok = pick_pipe<T>(p.g, L); });
        if (ok || mode == PIPELINED) return ok;
        *L = Launch();
    }
    FB_DISPATCH(p.dt, T, { ok = pick_kernel<T>(mode, p.g, L); });
    if (!ok && mode == AUTO) {
        // a row the registers cannot hold (over 8192 units) on a small tensor: the pipelined
        // kernel, which stages it (over a cluster), is the one that can
        *L = Launch();
        FB_DISPATCH(p.dt, T, { ok = pick_pipe<T>(p.g, L); });
    }
    return ok;
}

size_t workspace_for(Grid mode, const Problem &p) {
    // the partial rows: one per CTA of a resident grid at most
    Launch L;
    if (!pick(mode, p, &L)) return 0;
    return L.partial_bytes(p.g.N, p.dt);
}

template <Grid M> struct Variant {
    static int supports(const fb_call *c, char *why, size_t n) {
        const int st = check(c, why, n);
        if (st != FB_OK) return st;
        const Problem p = problem(c);
        if (M == PREFETCH && p.g.rows > 0 && p.g.N > 0) {
            Launch L;
            if (!pick(M, p, &L)) {
                if (why)
                    snprintf(why, n, "rmsnorm_backward.prefetch holds a row in registers (over a cluster of %d "
                             "CTAs), 16-byte units, at most %ld (this row: %ld %s)", kPrefetchMaxC,
                             kPrefetchMaxC * kPrefetchUnits, p.g.units, p.g.vec ? "units" : "elements, unaligned");
                return FB_E_UNSUPPORTED;
            }
            return FB_OK;
        }
        if (M == PIPELINED && p.g.rows > 0 && p.g.N > 0) {
            Launch L;
            if (!pick(M, p, &L)) {
                if (why)
                    snprintf(why, n, "rmsnorm_backward.pipelined stages 16-byte units: 16-byte aligned rows of at "
                             "most %ld units (this row: %ld %s)", 8 * kPipeUnits, p.g.units, p.g.vec ? "units" : "elements, unaligned");
                return FB_E_UNSUPPORTED;
            }
            return FB_OK;
        }
        // (the pipelined kernel is asked only for rows beyond the registers: its plan queries the
        // device, and the register plans need none)
        Launch L;
        if (p.g.rows > 0 && p.g.N > 0 && p.g.U > kUmax && !(M == AUTO && pick(M, p, &L))) {
            if (why) {
                if (M == AUTO)
                    snprintf(why, n, "rmsnorm_backward.fused holds x and dy in registers (rows of at most %d units) "
                             "or stages them over a cluster (16-byte aligned rows of at most %ld units); this row "
                             "has %ld %s", 1024 * kUmax, 8 * kPipeUnits, p.g.units, p.g.vec ? "units" : "elements, unaligned");
                else
                    snprintf(why, n, "rmsnorm_backward.%s holds x and dy in registers: rows of at most %d units (this "
                             "row has %ld)", grid_names[M], 1024 * kUmax, p.g.units);
            }
            return FB_E_UNSUPPORTED;
        }
        return FB_OK;
    }
    static size_t workspace(const fb_call *c) {
        if (check(c, nullptr, 0) != FB_OK) return 0;
        return workspace_for(M, problem(c));
    }
    static int launch(const fb_call *c, bool dry) {
        const int st = supports(c, nullptr, 0);
        if (st != FB_OK) return st;
        const Problem p = problem(c);
        if (p.g.N == 0) return FB_OK;
        Launch L;
        const bool ok = pick(M, p, &L);
        if (!ok) {
            fb_error("rmsnorm_backward.%s: no kernel for rows of %ld elements", grid_names[M], p.g.N);
            return FB_E_UNSUPPORTED;
        }
        if (dry) return FB_OK;
        const size_t need = L.partial_bytes(p.g.N, p.dt);
        if (c->workspace_bytes < need || !c->workspace) {
            fb_error("rmsnorm_backward.%s: needs a %zu-byte workspace", grid_names[M], need);
            return FB_E_UNSUPPORTED;
        }
        long rows = p.g.rows, N = p.g.N, units = p.g.units, P = L.teams(), slice = L.slice;
        int out_of_phase = L.out_of_phase;
        int G = p.g.G;
        void *partial = c->workspace;
        cudaError_t e = cudaErrorInvalidValue;
        if (rows == 0) {
            // no rows: dw is a sum of nothing
            e = cudaMemsetAsync(p.dw, 0, (size_t)N * fb_dtype_size(p.dt), c->stream);
            return fb_cuda_status((int)e, "rmsnorm_backward", __FILE__, __LINE__);
        }
        int S = L.S;
        const bool piped = L.S > 0;
        if (piped) G = L.G;
        FB_DISPATCH(p.dt, T, {
            acc_t<T> eps = (acc_t<T>)kEps;
            void *args[] = {(void *)&p.x, (void *)&p.w, (void *)&p.dy, (void *)&p.dx, &partial,
                            &rows, &N, &units, &G, &eps};
            void *pipe_args[] = {(void *)&p.x, (void *)&p.w, (void *)&p.dy, (void *)&p.dx, &partial,
                                 &rows, &N, &units, &G, &S, &slice, &out_of_phase, &eps};
            // a plain launch for C = 1, clusters of C CTAs otherwise
            e = launch_clusters_args(L.fn, L.grid, (unsigned)L.threads, L.smem, c->stream, L.C,
                                     piped ? pipe_args : args);
            if (e == cudaSuccess) e = launch_dw<T>((const acc_t<T> *)partial, P, N, (T *)p.dw, c->stream);
        });
        return fb_cuda_status((int)e, "rmsnorm_backward", __FILE__, __LINE__);
    }
    static int run(const fb_call *c) { return launch(c, false); }
};

}  // namespace

extern "C" int fb_rmsnorm_backward_plan_only(const fb_call *c) { return Variant<AUTO>::launch(c, true); }

extern "C" int fb_rmsnorm_backward_takes_prefetch(long rows, long N, int esz) {
    Geom g;
    (void)plan_geom(rows, N, esz, true, held_values(esz), &g);
    const fb_dtype dt = esz == 8 ? FB_F64 : esz == 4 ? FB_F32 : FB_BF16;  // a half type: either
    return fused_takes_prefetch(g, dt, (double)rows * (double)N * (double)esz) ? 1 : 0;
}

extern "C" int fb_rmsnorm_backward_pipe_plan(long rows, long N, int esz, fb_rmsnorm_pipe_plan *out) {
    Geom g;
    (void)plan_geom(rows, N, esz, true, held_values(esz), &g);  // the pipeline's own limit is below
    PipeShape ps;
    if (!pipe_shape(g, esz, &ps)) return FB_E_UNSUPPORTED;
    *out = fb_rmsnorm_pipe_plan{ps.C, ps.slice, ps.sg.threads, ps.sg.G, ps.sg.U, ps.sg.S, ps.smem(),
                                (size_t)ps.sg.stage_bytes, ps.out_of_phase ? 1 : 0};
    return FB_OK;
}

extern "C" const fb_variant fb_rmsnorm_backward_variants[] = {
    {"rmsnorm_backward.fused",
     "RMSNorm backward: dx in one pass per row (x, dy in registers), dw from per-CTA partial rows, deterministic",
     FB_DTYPES_ALL, Variant<AUTO>::supports, Variant<AUTO>::workspace, Variant<AUTO>::run, 2},
    {"rmsnorm_backward.persistent",
     "RMSNorm backward on a resident grid looping over rows; dw partials in registers across rows, deterministic",
     FB_DTYPES_ALL, Variant<PERSISTENT>::supports, Variant<PERSISTENT>::workspace, Variant<PERSISTENT>::run, 2},
    {"rmsnorm_backward.pipelined",
     "RMSNorm backward, one 1024-thread CTA per SM: the next rows' x and dy staged in shared memory (cp.async) "
     "during this row's reduction; dw in registers, one partial row per CTA, deterministic",
     FB_DTYPES_ALL, Variant<PIPELINED>::supports, Variant<PIPELINED>::workspace, Variant<PIPELINED>::run, 2},
    {"rmsnorm_backward.prefetch",
     "RMSNorm backward, one 1024-thread CTA per SM taking whole rows (16-byte units, at most 4096): the row in "
     "registers, the next row's x and dy copied into shared memory meanwhile (cp.async); dw in shared memory, "
     "one partial row per CTA, deterministic",
     FB_DTYPES_ALL, Variant<PREFETCH>::supports, Variant<PREFETCH>::workspace, Variant<PREFETCH>::run, 2},
};
extern "C" const int fb_rmsnorm_backward_variant_count =
    (int)(sizeof fb_rmsnorm_backward_variants / sizeof fb_rmsnorm_backward_variants[0]);
