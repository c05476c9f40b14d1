// softmax.cu — fused softmax over the last dimension.
//
// For x of shape [..., W] (rows = product of the leading dims) and every row r:
//     y[r, i] = exp(x[r, i] - max_j x[r, j]) / sum_j exp(x[r, j] - max_j x[r, j])
// computed in fp32 for float32, float16 and bfloat16 (half types are stored as half),
// as the case program's amax -> sub -> exp -> sum -> div chain does. A NaN anywhere in a
// row makes the whole row NaN (the NaN reaches the row sum), as in the reference.
//
// The op is memory-bound: ideal traffic is one read of x and one write of y, and on an
// H100 the arithmetic (one ex2 per element) is a few percent of the SM's rate. So every
// variant below is built around reading x exactly once: the row (or this CTA's slice of
// it) is held in registers between the reductions and the write. exp is computed once
// per element and kept in place of x; y = e * scale.
//
// Variants (the table at the bottom):
//   softmax.warp_rows    A group of G = 2..32 lanes per row (G sized to the row), each lane
//                        holding up to 32 values; R rows per group in flight for short rows.
//                        Reductions are G-lane shuffles, no shared memory, no barriers.
//                        For >= 16384 rows of >= 2 KB softmax.fused runs it in 64-thread CTAs
//                        with enough rows per group for 32 values per lane in flight
//                        (softmax.warp_rows: 256 threads, 16 values).
//                        Wins for W <= 1024 with many rows (96-98% of SOL on the grid), and
//                        for odd W <= ~1030 through the peeled path below.
//   softmax.block_row    One CTA per row, the row in the CTA's registers (32 values per
//                        thread, up to 1024 threads). Each warp reduces to a partial
//                        (max, sum of exp(x - max)); one __syncthreads, then every warp merges
//                        the partials. Wins for medium W (2K..16K float32: 95-98% of SOL).
//   softmax.cluster_row  A thread-block cluster of C = 2..8 CTAs per row, each CTA's slice in
//                        registers; the per-warp partials of all C CTAs are exchanged once
//                        through distributed shared memory (one cluster barrier) and merged:
//                        S = sum_w s_w * exp(m_w - M). Still one read and one write of the row.
//                        Wins for long rows (W >= 32K float32: a row no longer fits one CTA's
//                        registers) and for few rows (128 rows of 64K: one CTA per row would
//                        leave 4 of 132 SMs idle and have too little in flight).
//   softmax.smem_rows    Tiles of 64 consecutive rows (one contiguous span) moved through shared
//                        memory with 16-byte cp.async loads and 16-byte stores, double-buffered in
//                        a persistent grid (4 CTAs per SM); thread t computes row t from shared
//                        memory. Wins for short odd rows of 96..256 bytes (W=61: float16/bfloat16
//                        73% of SOL vs 67% peeled, float32 97% vs 89%), where warp_rows' per-row
//                        scalar head and tail dominate.
//   softmax.row_smem     One 1024-thread CTA per row, the row split between registers (16 or 32
//                        values per thread) and up to 200 KB of shared memory (16-byte cp.async): a grid
//                        of at most one row per SM runs in one wave with everything requested up
//                        front. Wins for 67..132 rows of 32..128 KB (128 x 32768 float32 103% of
//                        SOL vs 87% for clusters; bfloat16 128 x 65536 90% vs 81%) and, with 32
//                        values per thread, for half-type rows of 32K..64K values at any row
//                        count (1024 x 65536 bfloat16 93% vs 82%); ties clusters for float32
//                        W = 65536 (its 128 KB shared part is read while HBM idles). For
//                        133..264 rows it runs 512-thread CTAs, two per SM, still one wave
//                        (256 x 32768 float32 97-101% vs 90-92%; bfloat16 256 x 16384 95% vs 86%).
//   softmax.warp_persist A candidate for medium rows, NOT used by softmax.fused until measured: a
//                        warp per row (rows of 32..256 16-byte units: float32 W = 128..1024) in a
//                        one-wave persistent grid of 128-thread CTAs; each warp loads its next row
//                        before reducing and storing the current one. Prediction (kernels/NOTES.md):
//                        2-4% faster than warp_rows at 65536 x 1024 and 16384 x 512 float32, where
//                        softmax.fused trails torch.compile by 3.6% and 8%.
//   softmax.engine       The same softmax as an Op on the generic row engine (rowengine.cuh), which
//                        the other row-wise fused kernels use: its plans are softmax.fused's minus
//                        row_smem. Not a contender: the measure of what the engine's generality
//                        costs against the kernels above (prediction: within 1-2% of softmax.fused
//                        wherever both pick the same strategy).
//   softmax.two_pass     One CTA per row, no register residency: an online (max, sum) pass
//                        over x, then a second pass that re-reads x and writes y. 1.5x the
//                        ideal traffic; the fallback for rows too long for 8 CTAs' registers
//                        (W > 8 CTAs x 1024 threads x 32 values = 256K), any W.
//   softmax.fused        Picks by shape (choose_plan): smem_rows for odd (not 16-byte multiple) rows
//                        of 96..256 bytes; warp_rows for rows of <= 1024 values
//                        (<= ~1030 odd); row_smem for 67..264 rows of W >= 16K and <= 128 KB,
//                        and for half-type rows of 32K..64K values when there are over 66 rows;
//                        else one CTA of <= 512 threads x 32 values per row if
//                        it fits, else a cluster of such CTAs (C <= 8, 1024 threads past
//                        that), split further when rows * C < 2 CTAs per SM; else two_pass.
//                        The thresholds come from measured sweeps (kernels/NOTES.md).
//
// Vector vs scalar: when W is a multiple of the 16-byte vector width and x, y are 16-byte
// aligned, every access is an LDG.128/STG.128 (the "unit" is one vec). Odd W (rows start at
// varying alignments) in warp_rows: each row is peeled into a scalar head, an aligned
// vector body and a scalar tail. Otherwise (unaligned tensors, or odd W past warp_rows) the
// unit is one element: scalar accesses, still coalesced across the lanes of a row. Loads and
// stores carry streaming hints: x is read once and y is not read again.
#include "softmax.h"
#include "rowengine.cuh"
#include "rowwise.cuh"

#include <cooperative_groups.h>
#include <math.h>
#include <stdio.h>

#include <algorithm>

namespace {

using namespace fb::rowwise;

// ---- kernels ------------------------------------------------------------------------

// warp_rows: groups of G lanes (a power of two <= 32) per row; a group handles R
// consecutive rows at once (more independent loads in flight for short rows). Lane l of a
// group holds units l, l+G, l+2G, ... (coalesced: the group reads G consecutive units per
// instruction). Rows past the end still run the shuffles (full-warp masks) but touch no
// memory.
// PEEL (with VEC): W is not a multiple of the vector width, so rows start at varying
// alignments. Each row is split into a scalar head (up to the next 16-byte boundary), an
// aligned vector body and a scalar tail; lane l < head+tail (<= 2N-2 <= G) holds one of
// those scalars besides its body vectors. Odd widths then still move 16 bytes per access.
template <typename T, bool VEC, bool PEEL, int UPT, int R>
__global__ void __launch_bounds__(256) softmax_group_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                            long rows, long W, int G) {
    using U = Unit<T, VEC, Ld::Plain>;  // plain loads: see Unit
    constexpr int N = U::N;
    const int lane = threadIdx.x & (G - 1);
    const long group = ((long)blockIdx.x * blockDim.x + threadIdx.x) / G;

    float v[R][UPT][N];
    float ex[R];       // PEEL: this lane's head/tail element (or -inf)
    long ex_at[R];     // its index in the row, -1 if none
    long head[R], nbody[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const long row = group * R + r;
        head[r] = 0;
        nbody[r] = W / N;
        ex[r] = -INFINITY;
        ex_at[r] = -1;
        if constexpr (PEEL) {
            head[r] = min(W, (long)((N - (row * W) % N) % N));  // x is 16-byte aligned
            nbody[r] = (W - head[r]) / N;
            const long tail = W - head[r] - nbody[r] * N;
            if (lane < head[r]) ex_at[r] = lane;
            else if (lane < head[r] + tail) ex_at[r] = nbody[r] * N + lane;
            if (row < rows && ex_at[r] >= 0) ex[r] = fb::to_acc(__ldcs(x + row * W + ex_at[r]));
        }
#pragma unroll
        for (int u = 0; u < UPT; ++u) {
            const long i = lane + (long)u * G;
            if (row < rows && i < nbody[r]) {
                U::load(x + row * W + head[r], i, v[r][u]);
            } else {
#pragma unroll
                for (int k = 0; k < N; ++k) v[r][u][k] = -INFINITY;  // exp -> 0
            }
        }
    }
    float m[R], s[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        m[r] = ex[r];
#pragma unroll
        for (int u = 0; u < UPT; ++u)
#pragma unroll
            for (int k = 0; k < N; ++k) m[r] = fmaxf(m[r], v[r][u][k]);
        m[r] = group_max(m[r], G);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        s[r] = 0.f;
        if constexpr (PEEL) {
            ex[r] = ex2((ex[r] - m[r]) * kLog2e);
            s[r] = ex[r];
        }
#pragma unroll
        for (int u = 0; u < UPT; ++u)
#pragma unroll
            for (int k = 0; k < N; ++k) {
                v[r][u][k] = ex2((v[r][u][k] - m[r]) * kLog2e);
                s[r] += v[r][u][k];
            }
        s[r] = group_sum(s[r], G);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const long row = group * R + r;
        const float inv = 1.f / s[r];
        if constexpr (PEEL) {
            if (row < rows && ex_at[r] >= 0) __stcs(y + row * W + ex_at[r], fb::from_acc<T>(ex[r] * inv));
        }
#pragma unroll
        for (int u = 0; u < UPT; ++u) {
            const long i = lane + (long)u * G;
            if (row < rows && i < nbody[r]) {
#pragma unroll
                for (int k = 0; k < N; ++k) v[r][u][k] *= inv;
                U::store(y + row * W + head[r], i, v[r][u]);
            }
        }
    }
}

// block_row (CLUSTER = false) and cluster_row (CLUSTER = true): C CTAs per row, CTA `rank`
// owns units [rank*chunk, (rank+1)*chunk) of the row, thread t holds units t + u*blockDim.
// Every warp reduces its own values with shuffles to a partial (m_w, s_w) = (max, sum of
// exp(x - m_w)) and publishes it in shared memory; after ONE barrier (__syncthreads, or the
// cluster barrier) every warp reads all C * nwarps partials (over DSMEM for peers) and merges
// them: M = max m_w, S = sum s_w exp(m_w - M); the warp's scale is exp(m_w - M) / S. One
// barrier instead of the four of a block max + block sum: less time with the row held in
// registers and no memory traffic in flight.
template <typename T, bool VEC, int UPT, bool CLUSTER>
__global__ void __launch_bounds__(1024) softmax_cta_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                          long W, int C, long chunk) {
    using U = Unit<T, VEC, Ld::Plain>;  // plain loads: see Unit
    constexpr int N = U::N;
    __shared__ float2 part[32];

    long row = blockIdx.x;
    long begin = 0;
    if constexpr (CLUSTER) {
        row = blockIdx.x / C;  // clusters tile grid.x: CTAs of one cluster are consecutive
        begin = (long)cg::this_cluster().block_rank() * chunk;
    }
    const long nunits = W / N;
    const long count = min(nunits - begin, chunk);  // may be <= 0 for a trailing rank
    const T *xr = x + row * W + begin * N;
    T *yr = y + row * W + begin * N;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;

    float v[UPT][N];
#pragma unroll
    for (int u = 0; u < UPT; ++u) {
        const long i = threadIdx.x + (long)u * blockDim.x;
        if (i < count) {
            U::load(xr, i, v[u]);
        } else {
#pragma unroll
            for (int k = 0; k < N; ++k) v[u][k] = -INFINITY;
        }
    }
    float m = -INFINITY;
#pragma unroll
    for (int u = 0; u < UPT; ++u)
#pragma unroll
        for (int k = 0; k < N; ++k) m = fmaxf(m, v[u][k]);
    m = group_max(m, 32);
    // A warp may hold only -inf (or padding) while the row does not: shift by 0 then, so its
    // exps are 0 rather than NaN. The merge uses the true m (exp(-inf - M) = 0).
    const float shift = m == -INFINITY ? 0.f : m;
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < UPT; ++u)
#pragma unroll
        for (int k = 0; k < N; ++k) {
            v[u][k] = ex2((v[u][k] - shift) * kLog2e);
            s += v[u][k];
        }
    s = group_sum(s, 32);
    if (lane == 0) part[warp] = make_float2(m, s);

    // Merge all partials; lane l takes partials l, l+32, ... (at most 8 CTAs x 32 warps).
    const int P = (CLUSTER ? C : 1) * nwarps;
    float2 pp[8];
    if constexpr (CLUSTER) {
        cluster_arrive_release();
        cluster_wait();
        cg::cluster_group cl = cg::this_cluster();
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int k = lane + 32 * j;
            pp[j] = k < P ? cl.map_shared_rank(part, k / nwarps)[k % nwarps] : make_float2(-INFINITY, 0.f);
        }
    } else {
        __syncthreads();
        pp[0] = lane < P ? part[lane] : make_float2(-INFINITY, 0.f);
#pragma unroll
        for (int j = 1; j < 8; ++j) pp[j] = make_float2(-INFINITY, 0.f);
    }
    float M = -INFINITY;
#pragma unroll
    for (int j = 0; j < 8; ++j) M = fmaxf(M, pp[j].x);
    M = group_max(M, 32);
    // M = -inf (an all -inf row) gives NaN, as the reference does; a NaN partial sum poisons S.
    float S = 0.f;
#pragma unroll
    for (int j = 0; j < 8; ++j) S += pp[j].y == 0.f ? 0.f : pp[j].y * ex2((pp[j].x - M) * kLog2e);
    S = group_sum(S, 32);
    if constexpr (CLUSTER) {
        // Done with the peers' shared memory. Release (not relaxed): the DSMEM loads above
        // must be complete before a peer can pass its final wait and exit.
        cluster_arrive_release();
    }
    const float scale = ex2((m - M) * kLog2e) / S;
#pragma unroll
    for (int u = 0; u < UPT; ++u) {
        const long i = threadIdx.x + (long)u * blockDim.x;
        if (i < count) {
#pragma unroll
            for (int k = 0; k < N; ++k) v[u][k] *= scale;
            U::store(yr, i, v[u]);
        }
    }
    if constexpr (CLUSTER) cluster_wait();
}

// two_pass: any W. Pass 1 keeps a running (m, s) per thread (online softmax), the block
// merges them; pass 2 re-reads x and writes y.
template <typename T, bool VEC>
__global__ void __launch_bounds__(1024) softmax_two_pass_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                               long W) {
    using U = Unit<T, VEC>;
    constexpr int N = U::N;
    __shared__ float red[32];
    const long row = blockIdx.x;
    const long nunits = W / N;
    const T *xr = x + row * W;
    T *yr = y + row * W;

    float m = -INFINITY, s = 0.f;
    for (long i = threadIdx.x; i < nunits; i += blockDim.x) {
        float v[N];
        U::load(xr, i, v);
        float mu = m;
#pragma unroll
        for (int k = 0; k < N; ++k) mu = fmaxf(mu, v[k]);
        if (mu > m) {
            s *= ex2((m - mu) * kLog2e);  // m = -inf: s is 0 and stays 0
            m = mu;
        }
        const float sh = m == -INFINITY ? 0.f : m;
#pragma unroll
        for (int k = 0; k < N; ++k) s += ex2((v[k] - sh) * kLog2e);
    }
    const float M = block_fmax(m, red);
    // s == 0: nothing finite seen (skip: exp(m - M) may be NaN); a NaN s stays NaN.
    const float S = fb::block_sum(s == 0.f ? 0.f : s * ex2((m - M) * kLog2e), red);
    const float inv = 1.f / S;
    for (long i = threadIdx.x; i < nunits; i += blockDim.x) {
        float v[N];
        U::load(xr, i, v);
#pragma unroll
        for (int k = 0; k < N; ++k) v[k] = ex2((v[k] - M) * kLog2e) * inv;
        U::store(yr, i, v);
    }
}

// smem_rows (short odd rows, W * sizeof(T) <= 384 bytes): tiles of R consecutive rows, i.e.
// contiguous spans of R * W elements (16-byte aligned when R is a multiple of 16 and x, y
// are), moved through shared memory with coalesced 16-byte accesses instead of the peeled
// per-row head/tail scalars (a scalar tail only at the very end of the tensor). A persistent
// grid: each CTA loops over tiles, double-buffered: cp.async brings tile i+1 into one buffer
// while thread t computes row t of tile i from the other (y over x in place) and the CTA
// stores it. Without the pipeline every CTA of the one wave loaded, computed and stored in
// lockstep, and reads and writes hardly overlapped.

template <typename T>
__global__ void __launch_bounds__(256) softmax_smem_rows_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                                long rows, long W) {
    extern __shared__ int4 sm4[];
    constexpr int N = 16 / (int)sizeof(T);
    const int R = blockDim.x;
    const int stride = (int)((R * W * (long)sizeof(T) + 15) / 16);  // one buffer, in int4
    const long ntiles = (rows + R - 1) / R;
    auto issue = [&](long t, int b) {
        const long r0 = t * R, base = r0 * W;
        const int nel = (int)(min((long)R, rows - r0) * W);
        const int nvec = nel / N;
        int4 *dst = sm4 + b * stride;
        const int4 *src = reinterpret_cast<const int4 *>(x + base);
        for (int i = threadIdx.x; i < nvec; i += R) cp_async16(dst + i, src + i);
        T *dt = reinterpret_cast<T *>(dst);
        for (int i = nvec * N + threadIdx.x; i < nel; i += R) dt[i] = __ldcs(x + base + i);
        cp_async_commit();
    };
    long t = blockIdx.x;
    int b = 0;
    if (t < ntiles) issue(t, 0);
    for (; t < ntiles; t += gridDim.x, b ^= 1) {
        cp_async_wait_all();
        __syncthreads();  // tile t is in buffer b; every thread is done storing from buffer b^1
        if (t + gridDim.x < ntiles) issue(t + gridDim.x, b ^ 1);
        const long r0 = t * R, base = r0 * W;
        const int nr = (int)min((long)R, rows - r0);
        const int nel = nr * (int)W, nvec = nel / N;
        int4 *buf = sm4 + b * stride;
        T *sm = reinterpret_cast<T *>(buf);
        if (threadIdx.x < nr) {
            T *r = sm + threadIdx.x * W;
            float m = -INFINITY;
#pragma unroll 4
            for (int j = 0; j < W; ++j) m = fmaxf(m, fb::to_acc(r[j]));
            float s = 0.f;
#pragma unroll 4
            for (int j = 0; j < W; ++j) s += ex2((fb::to_acc(r[j]) - m) * kLog2e);
            const float inv = 1.f / s;
#pragma unroll 4
            for (int j = 0; j < W; ++j) r[j] = fb::from_acc<T>(ex2((fb::to_acc(r[j]) - m) * kLog2e) * inv);
        }
        __syncthreads();
        int4 *yv = reinterpret_cast<int4 *>(y + base);
        for (int i = threadIdx.x; i < nvec; i += R) __stcs(yv + i, buf[i]);
        for (int i = nvec * N + threadIdx.x; i < nel; i += R) __stcs(y + base + i, sm[i]);
    }
}

// Online (max, sum of exp) update with one 16-byte unit: the sum is rescaled when the max grows.
template <int N> __device__ __forceinline__ void online_update(const float (&x)[N], float &m, float &s) {
    float um = x[0];
#pragma unroll
    for (int j = 1; j < N; ++j) um = fmaxf(um, x[j]);
    if (um > m) {
        s = s == 0.f ? 0.f : s * ex2((m - um) * kLog2e);
        m = um;
    }
    const float sh = m == -INFINITY ? 0.f : m;
#pragma unroll
    for (int j = 0; j < N; ++j) s += ex2((x[j] - sh) * kLog2e);
}

// row_smem: one 1024-thread CTA per row, the row split between registers (REG 16-byte
// units per thread) and dynamic shared memory (the rest, brought in with 16-byte cp.async).
// Registers plus shared memory hold 4 x 64 KB + 227 KB per SM, so a grid of up to one row
// per SM (128 rows of 64K float32) runs in ONE wave with every byte requested up front and
// no cluster: the cluster version needs ~2 waves of 4-CTA clusters for the same cells, and
// each wave pays a load -> reduce -> store bubble. Each thread reads back only the shared
// units it copied itself, so cp.async.wait_all needs no barrier before the reductions;
// the merge of per-warp (max, sum) partials is block_row's (one __syncthreads).
template <typename T, int REG>
__global__ void __launch_bounds__(1024, 1) softmax_row_smem_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                                   long W, int K) {
    using U = Unit<T, true>;
    constexpr int N = U::N;
    extern __shared__ __align__(16) unsigned char row_smem_raw[];
    fb::vec<T> *sm = reinterpret_cast<fb::vec<T> *>(row_smem_raw);
    __shared__ float2 part[32];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = blockDim.x >> 5;
    const long nunits = W / N;
    const long reg_units = (long)REG * blockDim.x;
    const T *xr = x + (long)blockIdx.x * W;
    T *yr = y + (long)blockIdx.x * W;

    // Shared part first, one cp.async group per unit, so each unit can be reduced as soon as
    // it lands: the (max, sum) work hides under the load phase instead of following it.
    for (int k = 0; k < K; ++k) {
        const long u = reg_units + tid + (long)k * blockDim.x;
        if (u < nunits) cp_async16(sm + tid + k * blockDim.x, xr + u * N);
        cp_async_commit();
    }
    float v[REG][N];
#pragma unroll
    for (int u = 0; u < REG; ++u) {
        const long i = tid + (long)u * blockDim.x;
        if (i < nunits) {
            // plain loads only while nothing is in shared memory (see Unit)
            if (K == 0) Unit<T, true, Ld::Plain>::load(xr, i, v[u]);
            else U::load(xr, i, v[u]);
        } else {
#pragma unroll
            for (int k = 0; k < N; ++k) v[u][k] = -INFINITY;
        }
    }
    // register part: exp(x - mr) kept in place for the output
    float mr = -INFINITY;
#pragma unroll
    for (int u = 0; u < REG; ++u)
#pragma unroll
        for (int k = 0; k < N; ++k) mr = fmaxf(mr, v[u][k]);
    const float shr = mr == -INFINITY ? 0.f : mr;
    float sr = 0.f;
#pragma unroll
    for (int u = 0; u < REG; ++u)
#pragma unroll
        for (int k = 0; k < N; ++k) {
            v[u][k] = ex2((v[u][k] - shr) * kLog2e);
            sr += v[u][k];
        }
    // shared part, unit by unit as the copies complete; each thread reads only its own copies
    float ms = -INFINITY, ss = 0.f;
    for (int k = 0; k < K; ++k) {
        cp_async_wait_pending(K - 1 - k);
        const long u = reg_units + tid + (long)k * blockDim.x;
        if (u < nunits) {
            const fb::vec<T> t = sm[tid + k * blockDim.x];
            float f[N];
#pragma unroll
            for (int j = 0; j < N; ++j) f[j] = fb::to_acc(t.v[j]);
            online_update<N>(f, ms, ss);
        }
    }
    // the thread's partial, then the warp's, then the row's: S = sum s_i * exp(m_i - M)
    const float m = fmaxf(mr, ms);
    const float s = (sr == 0.f ? 0.f : sr * ex2((mr - m) * kLog2e)) + (ss == 0.f ? 0.f : ss * ex2((ms - m) * kLog2e));
    const float mw = group_max(m, 32);
    const float sw = group_sum(s == 0.f ? 0.f : s * ex2((m - mw) * kLog2e), 32);
    if (lane == 0) part[warp] = make_float2(mw, sw);
    __syncthreads();
    const float2 pp = lane < nwarps ? part[lane] : make_float2(-INFINITY, 0.f);
    const float M = group_max(pp.x, 32);
    const float S = group_sum(pp.y == 0.f ? 0.f : pp.y * ex2((pp.x - M) * kLog2e), 32);
    const float inv = 1.f / S;
    const float scale_r = ex2((mr - M) * kLog2e) * inv;
#pragma unroll
    for (int u = 0; u < REG; ++u) {
        const long i = tid + (long)u * blockDim.x;
        if (i < nunits) {
#pragma unroll
            for (int k = 0; k < N; ++k) v[u][k] *= scale_r;
            U::store(yr, i, v[u]);
        }
    }
    // the shared part's exps are recomputed against (M, S): they overlap the stores
    for (int k = 0; k < K; ++k) {
        const long u = reg_units + tid + (long)k * blockDim.x;
        if (u < nunits) {
            const fb::vec<T> t = sm[tid + k * blockDim.x];
            float o[N];
#pragma unroll
            for (int j = 0; j < N; ++j) o[j] = ex2((fb::to_acc(t.v[j]) - M) * kLog2e) * inv;
            U::store(yr, u, o);
        }
    }
}

// warp_persist (a candidate for medium rows, not used by softmax.fused until measured): a
// persistent grid of 128-thread CTAs, as many as fit the SMs in one wave (small CTAs: at 96
// registers a thread, 5 per SM = 20 warps where 256-thread CTAs fit 2 = 16), each warp looping
// over rows warp, warp + nwarps_total, ... with the NEXT row's loads issued before the current
// row's reductions and stores. warp_rows instead loads, reduces and stores one row per warp
// and retires; a CTA's slot frees only when its slowest warp is done, and a warp has nothing in
// flight while it reduces. Rows of 32..256 16-byte units (float32 W = 128..1024), 32 lanes per
// row, UPT units per lane held twice: the current row as fp32, the next one as it was loaded
// (16-byte vectors; half types then cost half the registers).
template <typename T, int UPT>
__global__ void __launch_bounds__(128) softmax_persist_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                              long rows, long W) {
    using U = Unit<T, true>;
    constexpr int N = U::N;
    const int lane = threadIdx.x & 31;
    const long wpb = blockDim.x >> 5;
    const long stride = (long)gridDim.x * wpb;
    const long nunits = W / N;
    // Units outside the row read as -inf (exp -> 0; every dtype has -inf).
    auto load = [&](long r, fb::vec<T> (&raw)[UPT]) {
#pragma unroll
        for (int u = 0; u < UPT; ++u) {
            const long i = lane + 32L * u;
            if (r < rows && i < nunits) {
                raw[u] = fb::load_vec_stream(x + r * W + i * N);
            } else {
#pragma unroll
                for (int k = 0; k < N; ++k) raw[u].v[k] = fb::from_acc<T>(-INFINITY);
            }
        }
    };
    auto widen = [&](const fb::vec<T> (&raw)[UPT], float (&v)[UPT][N]) {
#pragma unroll
        for (int u = 0; u < UPT; ++u)
#pragma unroll
            for (int k = 0; k < N; ++k) v[u][k] = fb::to_acc(raw[u].v[k]);
    };
    long row = (long)blockIdx.x * wpb + (threadIdx.x >> 5);
    fb::vec<T> nxt[UPT];
    float cur[UPT][N];
    load(row, nxt);
    for (; row < rows; row += stride) {  // warp-uniform
        widen(nxt, cur);
        load(row + stride, nxt);  // in flight while this row is reduced and stored
        float m = -INFINITY;
#pragma unroll
        for (int u = 0; u < UPT; ++u)
#pragma unroll
            for (int k = 0; k < N; ++k) m = fmaxf(m, cur[u][k]);
        m = group_max(m, 32);
        float sum = 0.f;
#pragma unroll
        for (int u = 0; u < UPT; ++u)
#pragma unroll
            for (int k = 0; k < N; ++k) {
                cur[u][k] = ex2((cur[u][k] - m) * kLog2e);
                sum += cur[u][k];
            }
        const float inv = 1.f / group_sum(sum, 32);
#pragma unroll
        for (int u = 0; u < UPT; ++u) {
            const long i = lane + 32L * u;
            if (i < nunits) {
#pragma unroll
                for (int k = 0; k < N; ++k) cur[u][k] *= inv;
                U::store(y + row * W, i, cur[u]);
            }
        }
    }
}

// ---- launchers ------------------------------------------------------------------------

template <typename T, bool VEC, bool PEEL, int UPT, int R>
static cudaError_t launch_group(const Shape &s, const Plan &p, cudaStream_t st) {
    const long groups = cdiv(s.rows, R);
    const long per_block = p.threads / p.g;
    const long blocks = cdiv(groups, per_block);
    if (blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
    softmax_group_kernel<T, VEC, PEEL, UPT, R><<<(unsigned)blocks, p.threads, 0, st>>>(
        (const T *)s.x, (T *)s.y, s.rows, s.W, p.g);
    return cudaGetLastError();
}

template <typename T, bool VEC, int UPT>
static cudaError_t launch_cta(const Shape &s, const Plan &p, cudaStream_t st) {
    const int N = VEC ? 16 / (int)sizeof(T) : 1;
    const long nunits = s.W / N;
    const long chunk = cdiv(nunits, p.c);
    const long blocks = s.rows * p.c;
    if (blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
    if (p.c == 1)
        return launch_clusters(softmax_cta_kernel<T, VEC, UPT, false>, (unsigned)blocks, p.threads, 0, st, 1,
                               (const T *)s.x, (T *)s.y, s.W, 1, chunk);
    return launch_clusters(softmax_cta_kernel<T, VEC, UPT, true>, (unsigned)blocks, p.threads, 0, st, p.c,
                           (const T *)s.x, (T *)s.y, s.W, p.c, chunk);
}

template <typename T, bool VEC, bool PEEL>
static cudaError_t launch_group_upt(const Shape &s, const Plan &p, cudaStream_t st) {
#define FB_G(U, RR)                                                   \
    if (p.upt == U && p.r == RR) return launch_group<T, VEC, PEEL, U, RR>(s, p, st);
    if constexpr (VEC) {
        FB_G(1, 2) FB_G(1, 4) FB_G(2, 1) FB_G(2, 2) FB_G(4, 1) FB_G(4, 2)
        if constexpr (sizeof(T) == 4) { FB_G(8, 1) }
    } else {
        FB_G(1, 8) FB_G(2, 8) FB_G(4, 4) FB_G(6, 2) FB_G(8, 2) FB_G(12, 1) FB_G(16, 1) FB_G(24, 1)
        FB_G(32, 1)
    }
#undef FB_G
    return cudaErrorInvalidConfiguration;
}

template <typename T, bool VEC>
static cudaError_t launch_cta_upt(const Shape &s, const Plan &p, cudaStream_t st) {
    if constexpr (VEC) {
        switch (p.upt) {
        case 1: return launch_cta<T, VEC, 1>(s, p, st);
        case 2: return launch_cta<T, VEC, 2>(s, p, st);
        case 4: return launch_cta<T, VEC, 4>(s, p, st);
        case 8:
            if constexpr (sizeof(T) == 4) return launch_cta<T, VEC, 8>(s, p, st);
            break;
        }
    } else {
        switch (p.upt) {
        case 4: return launch_cta<T, VEC, 4>(s, p, st);
        case 8: return launch_cta<T, VEC, 8>(s, p, st);
        case 16: return launch_cta<T, VEC, 16>(s, p, st);
        }
    }
    return cudaErrorInvalidConfiguration;
}

template <typename T>
static cudaError_t launch_plan_t(const Shape &s, const Plan &p, cudaStream_t st) {
    switch (p.kind) {
    case K_SMEM: {
        // p.c CTAs per SM (persistent), 0: one CTA per tile.
        const long tiles = cdiv(s.rows, p.threads);
        const long blocks = p.c > 0 ? std::min<long>(tiles, (long)p.c * sm_count()) : tiles;
        const size_t smem = 2 * (size_t)cdiv((long)p.threads * s.W * (long)sizeof(T), 16) * 16;
        if (blocks > INT32_MAX || p.threads % 16 || p.threads > 256 || smem > 48 * 1024)
            return cudaErrorInvalidConfiguration;
        softmax_smem_rows_kernel<T><<<(unsigned)blocks, p.threads, smem, st>>>((const T *)s.x, (T *)s.y, s.rows, s.W);
        return cudaGetLastError();
    }
    case K_ROW_SMEM: {
        const size_t smem = (size_t)p.r * p.threads * 16;
        if (s.rows > INT32_MAX || (p.threads != 1024 && p.threads != 512)) return cudaErrorInvalidConfiguration;
        auto launch = [&](auto kernel) {
            // > 48 KB of dynamic shared memory must be asked for, per kernel
            cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
            // Two 512-thread CTAs per SM need all of L1 as shared memory; one 1024-thread CTA
            // runs slower with that carveout (bfloat16 512 x 32768: 82% vs 91%), so it keeps
            // the default.
            if (e == cudaSuccess)
                e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         p.threads == 512 ? 100 : -1);
            if (e != cudaSuccess) return e;
            kernel<<<(unsigned)s.rows, p.threads, smem, st>>>((const T *)s.x, (T *)s.y, s.W, p.r);
            return cudaGetLastError();
        };
        if (p.upt == 2) return launch(softmax_row_smem_kernel<T, 2>);
        if (p.upt == 4) return launch(softmax_row_smem_kernel<T, 4>);
        if constexpr (sizeof(T) == 4)
            if (p.upt == 8) return launch(softmax_row_smem_kernel<T, 8>);
        return cudaErrorInvalidConfiguration;
    }
    case K_PERSIST: {
        auto launch = [&](auto kernel) {
            // One wave: as many CTAs as fit (asked once per kernel; the answer does not change).
            static int per_sm = 0;
            if (per_sm == 0) {
                const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, p.threads, 0);
                if (e != cudaSuccess) return e;
                if (per_sm < 1) per_sm = 1;
            }
            const long blocks = std::min<long>(cdiv(s.rows, p.threads / 32), (long)per_sm * sm_count());
            kernel<<<(unsigned)blocks, p.threads, 0, st>>>((const T *)s.x, (T *)s.y, s.rows, s.W);
            return cudaGetLastError();
        };
        if (p.threads != 128) return cudaErrorInvalidConfiguration;
        if (p.upt == 1) return launch(softmax_persist_kernel<T, 1>);
        if (p.upt == 2) return launch(softmax_persist_kernel<T, 2>);
        if (p.upt == 4) return launch(softmax_persist_kernel<T, 4>);
        if constexpr (sizeof(T) == 4)
            if (p.upt == 8) return launch(softmax_persist_kernel<T, 8>);
        return cudaErrorInvalidConfiguration;
    }
    case K_GROUP:
        if (p.peel) return launch_group_upt<T, true, true>(s, p, st);
        return p.vec ? launch_group_upt<T, true, false>(s, p, st) : launch_group_upt<T, false, false>(s, p, st);
    case K_CTA:
        return p.vec ? launch_cta_upt<T, true>(s, p, st) : launch_cta_upt<T, false>(s, p, st);
    case K_TWO_PASS:
        if (s.rows > INT32_MAX) return cudaErrorInvalidConfiguration;
        if (p.vec)
            softmax_two_pass_kernel<T, true><<<(unsigned)s.rows, p.threads, 0, st>>>((const T *)s.x, (T *)s.y, s.W);
        else
            softmax_two_pass_kernel<T, false><<<(unsigned)s.rows, p.threads, 0, st>>>((const T *)s.x, (T *)s.y, s.W);
        return cudaGetLastError();
    }
    return cudaErrorInvalidConfiguration;
}

static int launch_plan(const Shape &s, const Plan &p, cudaStream_t st) {
    if (s.rows == 0 || s.W == 0) return FB_OK;
    cudaError_t e = cudaErrorInvalidValue;
    FB_DISPATCH_FLOAT(s.dt, T, e = launch_plan_t<T>(s, p, st));
    if (e == cudaErrorInvalidConfiguration && p.kind != K_TWO_PASS) {
        (void)cudaGetLastError();
        fb_error("softmax: no kernel instantiated for plan kind=%d vec=%d upt=%d r=%d", p.kind, (int)p.vec, p.upt,
                 p.r);
        return FB_E_UNSUPPORTED;
    }
    return fb_cuda_status((int)e, "softmax kernel launch", __FILE__, __LINE__);
}

// ---- the variant interface -------------------------------------------------------------

// softmax.engine: y = exp(x - shift) * scale, the Op of rowengine.cuh.
struct EngineSoftmax {
    static constexpr const char *name = "softmax";
    static constexpr int NIN = 1, NPARAM = 0;
    float scale;
    template <class R> __device__ __forceinline__ void row(R &r) { scale = row_softmax_scale<0>(r); }
    __device__ __forceinline__ float out(const float (&e)[1], const float *) const { return e[0] * scale; }
};

static int check_call(const fb_call *c, char *why, size_t n) {
    if (c->n_in != 1 || c->n_out != 1) {
        if (why) snprintf(why, n, "softmax takes 1 input and 1 output");
        return FB_E_UNSUPPORTED;
    }
    const fb_tensor *x = &c->in[0], *y = &c->out[0];
    if (x->dtype != y->dtype || (x->dtype != FB_F32 && x->dtype != FB_F16 && x->dtype != FB_BF16)) {
        if (why) snprintf(why, n, "softmax needs float32/float16/bfloat16 in and out of one dtype");
        return FB_E_UNSUPPORTED;
    }
    if (x->shape.rank < 1 || x->shape.rank != y->shape.rank) {
        if (why) snprintf(why, n, "softmax needs equal input and output shapes of rank >= 1");
        return FB_E_UNSUPPORTED;
    }
    for (int i = 0; i < x->shape.rank; ++i)
        if (x->shape.dim[i] != y->shape.dim[i]) {
            if (why) snprintf(why, n, "softmax needs equal input and output shapes");
            return FB_E_UNSUPPORTED;
        }
    if (x->shape.dim[x->shape.rank - 1] > INT32_MAX) {
        if (why) snprintf(why, n, "softmax rows longer than 2^31-1 elements");
        return FB_E_UNSUPPORTED;
    }
    return FB_OK;
}

static Shape shape_of(const fb_call *c) {
    Shape s;
    const fb_tensor *x = &c->in[0];
    s.W = x->shape.dim[x->shape.rank - 1];
    s.rows = 1;
    for (int i = 0; i < x->shape.rank - 1; ++i) s.rows *= x->shape.dim[i];
    s.dt = x->dtype;
    s.esz = (int)fb_dtype_size(x->dtype);
    s.x = x->data;
    s.y = c->out[0].data;
    return s;
}


// warp_persist: a whole warp per row (32..256 units), units per lane rounded up to 1, 2, 4, 8.
static bool plan_persist(const Shape &s, Plan *p) {
    if (!vec_ok(s)) return false;
    const int N = 16 / s.esz;
    const long nunits = s.W / N;
    if (nunits < 32 || nunits > 32L * (kMaxVals / N)) return false;
    p->kind = K_PERSIST;
    p->vec = true;
    p->peel = false;
    p->upt = round_up_in(kGroupVecUpt, cdiv(nunits, 32));
    p->r = 1;
    p->g = 32;
    p->threads = 128;
    p->c = 0;
    return p->upt > 0 && p->upt * N <= kMaxVals;
}

constexpr char kWhyAny[] = "";
constexpr char kWhySmemRows[] = "smem_rows needs rows of <= 384 bytes and 16-byte aligned tensors";
constexpr char kWhyWarpRows[] = "warp_rows holds at most 32 values per lane: W <= 1024 (aligned) or 1024";
constexpr char kWhyBlockRow[] = "block_row holds at most 32 values per thread, 1024 threads";
constexpr char kWhyRowSmem[] = "row_smem needs 16-byte aligned rows of <= 16K x 16 B in registers + 200 KB shared";
constexpr char kWhyPersist[] =
    "warp_persist needs 16-byte aligned rows of 32..256 16-byte units (float32 W = 128..1024, a multiple of 4)";
constexpr char kWhyCluster[] = "cluster_row: row longer than 8 CTAs x 1024 threads x 32 values";

template <bool (*PLAN)(const Shape &, Plan *), const char *WHY>
static int strategy_supports(const fb_call *c, char *why, size_t n) {
    const int st = check_call(c, why, n);
    if (st != FB_OK) return st;
    Plan p;
    if (!PLAN(shape_of(c), &p)) {
        if (why) snprintf(why, n, "%s", WHY);
        return FB_E_UNSUPPORTED;
    }
    return FB_OK;
}

template <bool (*PLAN)(const Shape &, Plan *)>
static int strategy_run(const fb_call *c) {
    const int st = check_call(c, nullptr, 0);
    if (st != FB_OK) return st;
    const Shape s = shape_of(c);
    Plan p;
    if (!PLAN(s, &p)) return FB_E_UNSUPPORTED;
    return launch_plan(s, p, c->stream);
}

}  // namespace

#ifdef FB_SOFTMAX_DEV
// Dev-harness hook (dev/softmax_dev.cu): run an explicit plan, or report the auto plan.
// kind < 0: fill *out_plan (7 ints: kind vec upt r g threads c) with the auto plan and run it.
extern "C" int fb_softmax_dev_run(const fb_call *c, const int *plan_in, int *out_plan) {
    const int st = check_call(c, nullptr, 0);
    if (st != FB_OK) return st;
    const Shape s = shape_of(c);
    Plan p;
    if (plan_in == nullptr || plan_in[0] < 0) {
        choose_plan(s, &p);
    } else {
        p.kind = plan_in[0];
        p.vec = plan_in[1] != 0;
        p.peel = plan_in[1] == 2;
        p.upt = plan_in[2];
        p.r = plan_in[3];
        p.g = plan_in[4];
        p.threads = plan_in[5];
        p.c = plan_in[6];
    }
    if (out_plan) {
        out_plan[0] = p.kind; out_plan[1] = p.peel ? 2 : p.vec; out_plan[2] = p.upt;
        out_plan[3] = p.r;
        out_plan[4] = p.g; out_plan[5] = p.threads; out_plan[6] = p.c;
    }
    return launch_plan(s, p, c->stream);
}
#endif

extern "C" const fb_variant fb_softmax_variants[] = {
    {"softmax.fused", "softmax over the last dim: picks warp_rows / smem_rows / row_smem / block_row / cluster_row / two_pass by shape",
     FB_DTYPES_HALF_AND_F32, strategy_supports<plan_auto, kWhyAny>, nullptr, strategy_run<plan_auto>, 1},
    {"softmax.warp_rows", "softmax, 2..32 lanes per row, row in registers (W <= 1024)", FB_DTYPES_HALF_AND_F32,
     strategy_supports<plan_group, kWhyWarpRows>, nullptr, strategy_run<plan_group>, 1},
    {"softmax.block_row", "softmax, one CTA per row, row in registers (W <= 32K float32)", FB_DTYPES_HALF_AND_F32,
     strategy_supports<plan_block, kWhyBlockRow>, nullptr, strategy_run<plan_block>, 1},
    {"softmax.cluster_row", "softmax, a cluster of 2..8 CTAs per row exchanging (max, sum) over DSMEM",
     FB_DTYPES_HALF_AND_F32, strategy_supports<plan_cluster, kWhyCluster>, nullptr, strategy_run<plan_cluster>, 1},
    {"softmax.two_pass", "softmax, one CTA per row: online (max, sum) pass, then re-read and write (any W)",
     FB_DTYPES_HALF_AND_F32, strategy_supports<plan_any_two_pass, kWhyAny>, nullptr,
     strategy_run<plan_any_two_pass>, 1},
    {"softmax.smem_rows", "softmax, short rows staged through shared memory with 16-byte accesses",
     FB_DTYPES_HALF_AND_F32, strategy_supports<plan_smem, kWhySmemRows>, nullptr, strategy_run<plan_smem>, 1},
    {"softmax.row_smem", "softmax, one 1024-thread CTA per row, the row in registers + shared memory (one wave for few long rows)",
     FB_DTYPES_HALF_AND_F32, strategy_supports<plan_row_smem, kWhyRowSmem>, nullptr, strategy_run<plan_row_smem>, 1},
    FB_ROW_VARIANT(EngineSoftmax, "softmax.engine",
                   "softmax on the generic row engine (rowengine.cuh): what its generality costs against softmax.fused"),
    {"softmax.warp_persist", "softmax, a warp per row in a one-wave persistent grid, the next row loaded while this one is reduced (candidate for medium W)",
     FB_DTYPES_HALF_AND_F32, strategy_supports<plan_persist, kWhyPersist>, nullptr, strategy_run<plan_persist>, 1},
};
extern "C" const int fb_softmax_variant_count = (int)(sizeof fb_softmax_variants / sizeof fb_softmax_variants[0]);
