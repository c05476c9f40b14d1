// matmul_matmul.cu — the back-to-back GEMM  E = (A @ B) @ C,  A [M, K], B [K, N], C [N, K],
// E [M, K] (row-major, float16 or bfloat16, fp32 accumulation), with the intermediate
// S = A @ B [M, N] kept on chip: FlashAttention-2's forward without the softmax.
//
// Floors. FLOPs 4·M·N·K (two GEMMs of 2·M·N·K). Ideal bytes (M·K + K·N + N·K + M·K)·elem: each
// input read once, E written once. Eager (two cuBLASLt GEMMs) also writes S and reads it back:
// 2·M·N·elem more, which at K ≤ 128 is most of its traffic once M and N are a few thousand
// (M = N = 16384, K = 128, float16: 1 GiB of S against 12 MiB of inputs and output). Each of
// eager's GEMMs does 2·M·N·K FLOPs per 2·M·N·elem bytes of S, K/elem FLOP per byte: below the
// H100's ~300 FLOP/byte ridge for every K this kernel takes, so both are bound by S's traffic.
//
// matmul_matmul.mma (and matmul_matmul.fused off sm_90a) — sm_80-style tensor cores:
//   mma.sync.aligned.m16n8k16 (f16 or bf16 in, f32 accumulate), operands from shared memory by ldmatrix, global -> shared by cp.async
//   (16 bytes, zero-filled out of bounds), double-buffered. A CTA (4 warps, 128 threads) owns
//   BM = 128 rows of A; warp w owns rows 32w..32w+31 (two m16 tiles: every B and C fragment it
//   loads feeds two mma's). It loads its A tile [128, KD] once (K zero-padded to KD = 32, 64
//   or 128: zeros add nothing to either product), then walks its range of N in chunks of BN
//   columns (BN = 64 at KD = 64, else 32, for registers):
//       S  = A_tile @ B[:, chunk]     [128, BN] in fp32 registers (mma #1)
//       P  = S rounded to the dtype,  in registers: mma #1's accumulator fragment is, pair by
//            pair, mma #2's A fragment (FA2's P), so S never touches shared or global memory
//       O += P @ C[chunk, :]          [128, KD] in fp32 registers (mma #2)
//   and stores O as the dtype. The rounding of S is eager's too (it stores S in the dtype), so
//   both see the same error; the case's tolerances cover it (README, The cases).
//   A grid of ceil(M / 128) CTAs fills an H100 only from M ≈ 32768 (2 CTAs per SM): when the
//   row tiles leave slots empty, N is split over up to resident / m_tiles CTAs per row tile
//   (128 columns or more each, the last maybe fewer; as many as a cost model of chunks against
//   partials' traffic says pays, fb_matmul_matmul_plan), each writing its partial O in float32
//   to the workspace, and a second kernel adds the partials in a fixed order (deterministic:
//   no atomics; spread over splits as well as columns) and stores E. So a run is one launch,
//   or two when N is split.
//   Rows of A, B, C and E that are not 16-byte aligned (K or N not a multiple of 8, or a
//   pointer off 16 bytes) take the same kernel with element loads (synchronous, no overlap):
//   correct for every shape, slower.
//   Declines (unsupported, with the reason): float32 and float64 (no such mma here), K > 128
//   (the accumulator O is 128 x K fp32 per CTA: 128 registers per thread at K = 128, and the A
//   tile is 32 KiB of shared memory), transposed operands, shapes that do not chain.
//
// When it wins. Where S's traffic dominates eager: M and N large next to K. At K = 64 eager's
// two GEMMs move 2·M·N·elem bytes of S at ~3 TB/s while this kernel's 4·M·N·K FLOPs need only
// ~200 TFLOP/s to keep up; at K = 128 it must reach ~400 TFLOP/s of mma.sync to match them, near
// what mma.sync sustains on an H100 (FA2: ~350), so expect parity there rather than a clear win.
// Small M·N is latency: a few microseconds either way, eager paying two launches.
//
// The sm_90a version, matmul_matmul.wgmma (kernels/matmul_matmul_wgmma.cu: warpgroup MMAs, S in
// the registers of a warpgroup, B and C staged through mbarriers), takes the same plan, partials
// and reduce kernel; matmul_matmul.fused runs it where it can (an sm_90a build on a 9.0 GPU, rows
// 16-byte aligned) and this kernel, matmul_matmul.mma, elsewhere.
//
// Layouts (the index math; g = lane / 4, t = lane % 4 throughout, as in the PTX manual):
//   shared, row-major with 8 elements (16 B) of padding per row, so that the 8 row addresses of
//   an ldmatrix land in 8 distinct 16-byte bank groups (row strides of 80, 144 and 272 bytes):
//     sA [BM][KD + 8]         A tile, (m, k), as A is stored
//     sB [2][KD][BN + 8]      B chunk, (k, n), as B [K, N] is stored
//     sC [2][BN][KD + 8]      C chunk, (n, k), as C [N, K] is stored
//   mma.m16n8k16 fragments: A (16 x 16, row) a0 = (g, 2t..2t+1), a1 = (g+8, 2t..), a2 = (g,
//   2t+8..), a3 = (g+8, 2t+8..); B (16 x 8, "col": k pairs per register) b0 = (k 2t..2t+1, n g),
//   b1 = (k 2t+8..2t+9, n g); C/D (16 x 8 fp32) c0,c1 = (g, 2t..2t+1), c2,c3 = (g+8, 2t..).
//   ldmatrix .x4: lane L gives the row address of matrix L/8, row L%8; we place matrix i at
//   row offset 8·(i & 1), column offset 8·(i >> 1) of a 16 x 16 block, i.e. lane L addresses
//   row (L & 7) + 8·((L >> 3) & 1), column 8·(L >> 4). Without .trans register i holds
//   (row g, cols 2t..2t+1) of matrix i; for a row-major A block that is a0..a3 in order. With
//   .trans it holds (rows 2t..2t+1, col g) of matrix i: for a block stored with the reduction
//   index as the row (B chunk: k rows, n columns; C chunk: n rows, k columns) matrices 0, 1 are
//   b0, b1 of the block's first 8 columns and 2, 3 of its next 8: two mma B operands per load.
//   mma #1's accumulators for n-tiles 2p and 2p+1 (c0..c3 each) are the A fragment of k-step p
//   of mma #2: a0 = (c0, c1) of tile 2p, a1 = (c2, c3) of 2p, a2 = (c0, c1) of 2p+1, a3 = (c2,
//   c3) of 2p+1 — the same (row, column) pairs, so P is S re-packed, no data moves between lanes.
#include "matmul_matmul.h"
#include "common.cuh"
#include "matmul_matmul.cuh"
#include "tensorcore.cuh"
#include "wgmma.cuh"

#include "../src/ops/op_table.h"
#include "../src/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <climits>

namespace {

using namespace fb;
using namespace fb::tc;
using fb::mm2::CtaShare;
using fb::mm2::Params;

constexpr int WARPS = 4;
constexpr int THREADS = 32 * WARPS;
constexpr int WM = 2;                 // m16 tiles per warp
constexpr int BM = WARPS * 16 * WM;   // 128 rows of A per CTA
constexpr int PAD = 8;                // elements of padding per shared row
constexpr int MIN_SPLIT_COLS = 128;   // a split of N covers at least this many columns
constexpr int REDUCE_WARPS = 8;     // warps of the reduce kernel's CTA, at most

// The chunk width of N for a padded K, for registers (per thread: O is 2 x KD/2 fp32, S 2 x BN/2
// fp32, P 2 x BN/4 packed pairs): 32 at KD = 128 keeps O and S under the 255-register limit
// (240 used); at KD = 32 it avoids ptxas's spills at the 128 registers it settles for; 64 at
// KD = 64 (190 registers).
constexpr int bn_for(int kd) { return kd == 64 ? 64 : 32; }
int kd_for(int64_t K) { return K <= 32 ? 32 : K <= 64 ? 64 : 128; }
int kd_for_wgmma(int64_t K) { return K <= 64 ? 64 : 128; }  // whole 64-element swizzle atoms
static_assert(BM == fb::mm2::kWgmmaBM, "both kernels tile M alike: one partial layout, one reduce kernel");

template <int KD, int BN> struct Tile {
    static constexpr int LDA = KD + PAD, LDB = BN + PAD, LDC = KD + PAD;
    static constexpr int A_ELEMS = BM * LDA, B_ELEMS = KD * LDB, C_ELEMS = BN * LDC;
    static constexpr size_t SMEM = (size_t)(A_ELEMS + 2 * B_ELEMS + 2 * C_ELEMS) * 2;  // 2-byte dtypes
    static_assert((LDA * 2) % 16 == 0 && (LDB * 2) % 16 == 0, "ldmatrix and cp.async need 16-byte rows");
    static_assert(KD % 16 == 0 && BN % 16 == 0, "whole mma k-steps");
};

// ---- global -> shared -----------------------------------------------------------------
// Every element of the destination block is written (zero outside the matrix), so the
// padding in K and the rows past M or N add exact zeros. VEC: 16-byte cp.async (rows
// 16-byte aligned, K and N multiples of 8, so a unit is wholly in or out); else element
// loads through registers.

// rows x cols block of a row-major [n_rows, ld] matrix starting at (r0, c0) into shared
// dst (row stride lds); elements with row >= n_rows or col >= n_cols are zero.
template <bool VEC, int ROWS, int COLS>
__device__ __forceinline__ void load_block(uint16_t *dst, int lds, const uint16_t *src, long r0, long c0,
                                           long n_rows, long n_cols, long ld) {
    if constexpr (VEC) {
        constexpr int UPR = COLS / 8;  // 16-byte units per row
#pragma unroll 4
        for (int u = threadIdx.x; u < ROWS * UPR; u += THREADS) {
            const int r = u / UPR, c = (u % UPR) * 8;
            const long gr = r0 + r, gc = c0 + c;
            const bool ok = gr < n_rows && gc < n_cols;
            cp_async16(dst + r * lds + c, ok ? src + gr * ld + gc : src, ok);
        }
    } else {
#pragma unroll 4
        for (int e = threadIdx.x; e < ROWS * COLS; e += THREADS) {
            const int r = e / COLS, c = e % COLS;
            const long gr = r0 + r, gc = c0 + c;
            dst[r * lds + c] = (gr < n_rows && gc < n_cols) ? src[gr * ld + gc] : (uint16_t)0;
        }
    }
}

// ---- the fused kernel -----------------------------------------------------------------
template <typename T, int KD, int BN, bool VEC>
__global__ void __launch_bounds__(THREADS) b2b_kernel(const Params p) {
    using Tl = Tile<KD, BN>;
    extern __shared__ __align__(16) uint16_t smem[];
    uint16_t *sA = smem;
    uint16_t *sB = sA + Tl::A_ELEMS;      // two stages
    uint16_t *sC = sB + 2 * Tl::B_ELEMS;  // two stages

    const uint16_t *A = static_cast<const uint16_t *>(p.A);
    const uint16_t *B = static_cast<const uint16_t *>(p.B);
    const uint16_t *C = static_cast<const uint16_t *>(p.C);
    const long M = p.M, N = p.N, K = p.K;
    const CtaShare<BM> share(p);
    const long m0 = share.m0;
    const int c_begin = share.c_begin, n_my = share.n_my;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    // this lane's row and column inside a 16 x 16 ldmatrix block (see the top comment)
    const int lrow = (lane & 7) + 8 * ((lane >> 3) & 1), lcol = 8 * (lane >> 4);

    auto load_chunk = [&](int chunk, int stage) {
        const long n0 = (long)chunk * BN;
        // B [K, N]: rows k < KD, columns n0 .. n0 + BN
        load_block<VEC, KD, BN>(sB + stage * Tl::B_ELEMS, Tl::LDB, B, 0, n0, K, N, N);
        // C [N, K]: rows n0 .. n0 + BN, columns k < KD
        load_block<VEC, BN, KD>(sC + stage * Tl::C_ELEMS, Tl::LDC, C, n0, 0, N, K, K);
    };

    // group 0: the A tile and the first chunk
    load_block<VEC, BM, KD>(sA, Tl::LDA, A, m0, 0, M, K, K);
    load_chunk(c_begin, 0);
    cp_async_commit();

    float o[WM][KD / 8][4];
#pragma unroll
    for (int i = 0; i < WM; ++i)
#pragma unroll
        for (int j = 0; j < KD / 8; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) o[i][j][r] = 0.f;

    for (int it = 0; it < n_my; ++it) {
        const int stage = it & 1;
        // the next chunk into the other stage (its last readers passed the loop's final
        // barrier), then wait for this one; a group is committed every iteration, empty at the
        // end, so "all but the newest group" is always this chunk (and the A tile)
        if (it + 1 < n_my) load_chunk(c_begin + it + 1, stage ^ 1);
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();

        const uint16_t *b_s = sB + stage * Tl::B_ELEMS;
        const uint16_t *c_s = sC + stage * Tl::C_ELEMS;

        // mma #1: S[i] (rows 32·warp + 16i .. +16, BN columns) = A_tile @ B_chunk
        float s[WM][BN / 8][4];
#pragma unroll
        for (int i = 0; i < WM; ++i)
#pragma unroll
            for (int j = 0; j < BN / 8; ++j)
#pragma unroll
                for (int r = 0; r < 4; ++r) s[i][j][r] = 0.f;
#pragma unroll
        for (int kk = 0; kk < KD / 16; ++kk) {
            uint32_t a[WM][4];
#pragma unroll
            for (int i = 0; i < WM; ++i)
                ldmatrix_x4(a[i], sA + (warp * 32 + i * 16 + lrow) * Tl::LDA + kk * 16 + lcol);
#pragma unroll
            for (int nn = 0; nn < BN / 16; ++nn) {
                uint32_t b[4];  // b0, b1 of n-tile 2nn; b0, b1 of n-tile 2nn + 1
                ldmatrix_x4_trans(b, b_s + (kk * 16 + lrow) * Tl::LDB + nn * 16 + lcol);
#pragma unroll
                for (int i = 0; i < WM; ++i) {
                    Mma<T>::run(s[i][2 * nn], a[i], b[0], b[1]);
                    Mma<T>::run(s[i][2 * nn + 1], a[i], b[2], b[3]);
                }
            }
        }

        // P = S in the dtype, as mma #2's A fragments (k-step pp = S's n-tiles 2pp, 2pp + 1)
        uint32_t pf[WM][BN / 16][4];
#pragma unroll
        for (int i = 0; i < WM; ++i)
#pragma unroll
            for (int pp = 0; pp < BN / 16; ++pp) {
                pf[i][pp][0] = Mma<T>::pack(s[i][2 * pp][0], s[i][2 * pp][1]);
                pf[i][pp][1] = Mma<T>::pack(s[i][2 * pp][2], s[i][2 * pp][3]);
                pf[i][pp][2] = Mma<T>::pack(s[i][2 * pp + 1][0], s[i][2 * pp + 1][1]);
                pf[i][pp][3] = Mma<T>::pack(s[i][2 * pp + 1][2], s[i][2 * pp + 1][3]);
            }

        // mma #2: O[i] += P[i] @ C_chunk (reduction over the chunk's BN rows of C)
#pragma unroll
        for (int pp = 0; pp < BN / 16; ++pp)
#pragma unroll
            for (int qq = 0; qq < KD / 16; ++qq) {
                uint32_t b[4];  // b0, b1 of E columns 16qq..+8; b0, b1 of 16qq+8..+16
                ldmatrix_x4_trans(b, c_s + (pp * 16 + lrow) * Tl::LDC + qq * 16 + lcol);
#pragma unroll
                for (int i = 0; i < WM; ++i) {
                    Mma<T>::run(o[i][2 * qq], pf[i][pp], b[0], b[1]);
                    Mma<T>::run(o[i][2 * qq + 1], pf[i][pp], b[2], b[3]);
                }
            }
        __syncthreads();  // every warp is done with this stage: the next iteration loads into it
    }

    // O fragment (i, j, h): rows 32·warp + 16i + g + 8h of the tile, columns 8j + 2t, +1
    if (p.splits > 1) {
        // The reduce kernel may be launched now (programmatic dependent launch): its CTAs wait
        // in griddepcontrol.wait for this whole grid to finish and its stores to be visible,
        // so only its launch overlaps the rest of this grid.
        fb::allow_dependent_launch();
        float *part = share.partial<KD>(p);
#pragma unroll
        for (int i = 0; i < WM; ++i)
#pragma unroll
            for (int j = 0; j < KD / 8; ++j)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int r = warp * 32 + i * 16 + g + 8 * h, c = 8 * j + 2 * t;
                    *reinterpret_cast<float2 *>(part + (size_t)r * KD + c) = make_float2(o[i][j][2 * h], o[i][j][2 * h + 1]);
                }
        return;
    }
    T *E = static_cast<T *>(p.E);
#pragma unroll
    for (int i = 0; i < WM; ++i)
#pragma unroll
        for (int j = 0; j < KD / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const long r = m0 + warp * 32 + i * 16 + g + 8 * h;
                const int c = 8 * j + 2 * t;
                if (r >= M || c >= K) continue;
                T *e = E + r * K + c;
                if constexpr (VEC) {  // K even and E 16-byte aligned: the pair is 4-byte aligned
                    const uint32_t v = Mma<T>::pack(o[i][j][2 * h], o[i][j][2 * h + 1]);
                    *reinterpret_cast<uint32_t *>(e) = v;
                } else {
                    e[0] = from_acc<T>(o[i][j][2 * h]);
                    if (c + 1 < K) e[1] = from_acc<T>(o[i][j][2 * h + 1]);
                }
            }
}

// ---- the split reduction: E = sum over splits of the partials, in a fixed order ----------
// A CTA is BX x RY threads (BX x RY <= 256, BX a multiple of 32): thread x owns one float4 of
// the padded [M, KD] output (a warp reads 512 contiguous bytes of each partial), and row y of
// the CTA takes the splits y, y + RY, ..., so the sum is spread over splits as well as columns. With one thread per float4 and a loop
// over every split (the first version), M = 128 gave 4096 threads on 16 SMs to read 128 x 64 KiB
// of partials: the reduce, not the GEMMs, set the time of the small-M cells (NOTES.md). The RY
// partial sums meet in shared memory and are added in warp order: the same bits every run.
template <typename T, bool VEC>
__global__ void __launch_bounds__(32 * REDUCE_WARPS) b2b_reduce_kernel(const float *__restrict__ part, T *__restrict__ E,
                                                                       int M, int K, int KD, long rows_padded,
                                                                       int splits) {
    __shared__ float4 sums[32 * REDUCE_WARPS];
    fb::wait_prerequisite_grid();  // the partials are complete past this point
    const int bx = blockDim.x, ry = blockDim.y;
    const long idx = (long)blockIdx.x * bx + threadIdx.x;
    const int q = KD / 4;
    const long r = idx / q;
    const int c = (int)(idx % q) * 4;
    const bool live = r < M && c < K;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    if (live) {
        const size_t stride = (size_t)rows_padded * KD;
        const float *src = part + (size_t)r * KD + c;
#pragma unroll 8
        for (int s = threadIdx.y; s < splits; s += ry) {
            const float4 v = __ldcs(reinterpret_cast<const float4 *>(src + s * stride));  // read once
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
    }
    if (ry > 1) {
        sums[threadIdx.y * bx + threadIdx.x] = acc;
        __syncthreads();
        if (threadIdx.y != 0) return;
        for (int y = 1; y < ry; ++y) {
            const float4 v = sums[y * bx + threadIdx.x];
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
    }
    if (!live) return;
    T *e = E + (size_t)r * K + c;
    if constexpr (VEC) {  // K a multiple of 8, E 16-byte aligned: 4 elements are 8-byte aligned
        const uint2 v = make_uint2(Mma<T>::pack(acc.x, acc.y), Mma<T>::pack(acc.z, acc.w));
        *reinterpret_cast<uint2 *>(e) = v;
    } else {
        const float a[4] = {acc.x, acc.y, acc.z, acc.w};
        for (int k = 0; k < 4 && c + k < K; ++k) e[k] = from_acc<T>(a[k]);
    }
}

// ---- host side ------------------------------------------------------------------------
template <typename T, int KD, bool VEC> struct Kernel {
    static constexpr int BN = bn_for(KD);
    using Tl = Tile<KD, BN>;
    static const void *fn() { return reinterpret_cast<const void *>(&b2b_kernel<T, KD, BN, VEC>); }
    // CTAs that fit the GPU at once; sets the kernel's shared-memory attributes first (the
    // occupancy calculator and the launch both need them). Once per kernel.
    static int resident() {
        static int n = 0;
        if (n == 0) {
            (void)cudaFuncSetAttribute(b2b_kernel<T, KD, BN, VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)Tl::SMEM);
            (void)cudaFuncSetAttribute(b2b_kernel<T, KD, BN, VEC>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       (int)cudaSharedmemCarveoutMaxShared);
            (void)cudaGetLastError();
            n = resident_ctas(b2b_kernel<T, KD, BN, VEC>, THREADS, Tl::SMEM) * sm_count();
        }
        return n;
    }
};

struct Problem {
    const fb_tensor *A, *B, *C, *E;
    int64_t M, N, K;
    fb_dtype dt;
    bool vec;
    int kernel;  // FB_MM2_KERNEL_*: the variant's, or fused's choice
};

// Which kernel a variant runs: fused takes wgmma where it can run (an sm_90a build on a 9.0
// GPU, rows 16-byte aligned), else mma.sync; the other two name theirs.
enum class Pick { fused, mma, wgmma };

Problem problem(const fb_call *c, Pick pick) {
    Problem p;
    p.A = &c->in[0];
    p.B = &c->in[1];
    p.C = &c->in[2];
    p.E = &c->out[0];
    p.M = p.A->shape.dim[0];
    p.K = p.A->shape.dim[1];
    p.N = p.B->shape.dim[1];
    p.dt = p.E->dtype;
    p.vec = p.K % 8 == 0 && p.N % 8 == 0 && aligned16(p.A->data) && aligned16(p.B->data) && aligned16(p.C->data) &&
            aligned16(p.E->data);
    p.kernel = pick == Pick::wgmma || (pick == Pick::fused && p.vec && wg::available()) ? FB_MM2_KERNEL_WGMMA
                                                                                        : FB_MM2_KERNEL_MMA;
    return p;
}

// The resident CTAs of the kernel run() would launch for this problem.
int resident_for(const Problem &p) {
    if (p.kernel == FB_MM2_KERNEL_WGMMA) return mm2::wgmma_resident(p.dt, kd_for_wgmma(p.K));
    const int kd = kd_for(p.K);
#define MM2_RESIDENT(T)                                                                            \
    return kd == 32    ? (p.vec ? Kernel<T, 32, true>::resident() : Kernel<T, 32, false>::resident()) \
           : kd == 64  ? (p.vec ? Kernel<T, 64, true>::resident() : Kernel<T, 64, false>::resident()) \
                       : (p.vec ? Kernel<T, 128, true>::resident() : Kernel<T, 128, false>::resident())
    if (p.dt == FB_BF16) MM2_RESIDENT(__nv_bfloat16);
    MM2_RESIDENT(__half);
#undef MM2_RESIDENT
}

int check(const fb_call *c, Pick pick, char *why, size_t n) {
    const char *name = pick == Pick::fused ? "matmul_matmul.fused" : pick == Pick::mma ? "matmul_matmul.mma"
                                                                                      : "matmul_matmul.wgmma";
    if (c->n_in != 3 || c->n_out != 1) {
        if (why) snprintf(why, n, "%s takes A, B, C and gives E", name);
        return FB_E_UNSUPPORTED;
    }
    const fb_tensor *A = &c->in[0], *B = &c->in[1], *C = &c->in[2], *E = &c->out[0];
    const fb_dtype dt = E->dtype;
    if (A->dtype != dt || B->dtype != dt || C->dtype != dt) {
        if (why) snprintf(why, n, "%s needs one dtype for A, B, C and E", name);
        return FB_E_UNSUPPORTED;
    }
    if (dt != FB_F16 && dt != FB_BF16) {
        if (why)
            snprintf(why, n, "%s runs float16 and bfloat16 tensor-core MMAs only, not %s", name,
                     fb_dtype_name(dt));
        return FB_E_UNSUPPORTED;
    }
    const bool rank2 = A->shape.rank == 2 && B->shape.rank == 2 && C->shape.rank == 2 && E->shape.rank == 2;
    if (!rank2 || B->shape.dim[0] != A->shape.dim[1] || C->shape.dim[0] != B->shape.dim[1] ||
        C->shape.dim[1] != A->shape.dim[1] || E->shape.dim[0] != A->shape.dim[0] ||
        E->shape.dim[1] != A->shape.dim[1]) {
        if (why) snprintf(why, n, "%s takes A [M, K], B [K, N], C [N, K] and gives E [M, K]", name);
        return FB_E_UNSUPPORTED;
    }
    if (c->program) {  // the shapes fit; the program must also be the plain (A @ B) @ C
        for (int k = 0; k < c->program->n_nodes; k++) {
            const fb_node *nd = &c->program->nodes[k];
            if (strcmp(fb_node_op_name(nd), "matmul") == 0 &&
                (fb_attr_bool(&nd->attrs, "transpose_a", false) || fb_attr_bool(&nd->attrs, "transpose_b", false))) {
                if (why) snprintf(why, n, "%s reads its operands untransposed", name);
                return FB_E_UNSUPPORTED;
            }
        }
    }
    const int64_t M = A->shape.dim[0], K = A->shape.dim[1], N = B->shape.dim[1];
    if (K > FB_MM2_MAX_K) {
        if (why)
            snprintf(why, n,
                     "K = %lld > %d: the 128 x K float32 accumulator of a CTA's rows of E (and its A tile) does not "
                     "fit on chip",
                     (long long)K, FB_MM2_MAX_K);
        return FB_E_UNSUPPORTED;
    }
    if (M > INT_MAX || N > INT_MAX) {
        if (why) snprintf(why, n, "%s indexes M and N in 32 bits: M = %lld, N = %lld", name, (long long)M,
                          (long long)N);
        return FB_E_UNSUPPORTED;
    }
    if (pick == Pick::wgmma) {
        if (!wg::available()) {
            if (why)
                snprintf(why, n, "%s needs an sm_90a build (meson -Dcuda-arch=sm_90a) on a "
                                 "compute-capability 9.0 GPU",
                         name);
            return FB_E_UNSUPPORTED;
        }
        if (K % 8 != 0 || N % 8 != 0 || !aligned16(A->data) || !aligned16(B->data) || !aligned16(C->data) ||
            !aligned16(E->data)) {
            if (why)
                snprintf(why, n, "%s copies 16-byte units: K and N must be multiples of 8 (K = %lld, "
                                 "N = %lld) and the tensors 16-byte aligned",
                         name, (long long)K, (long long)N);
            return FB_E_UNSUPPORTED;
        }
    }
    return FB_OK;
}

// Nothing to launch: E empty (M or K zero), or a sum over N = 0 terms (zeros).
bool trivial(const Problem &p) { return p.M == 0 || p.K == 0 || p.N == 0; }

int plan_for(const fb_call *c, const Problem &p, fb_mm2_plan *plan) {
    if (c->state) {
        *plan = *static_cast<const fb_mm2_plan *>(c->state);
        return FB_OK;
    }
    if (fb_matmul_matmul_plan(p.M, p.N, p.K, p.kernel, resident_for(p), plan) != FB_OK) {
        fb_error("matmul_matmul.fused: no launch plan for M = %lld, N = %lld, K = %lld", (long long)p.M,
                 (long long)p.N, (long long)p.K);
        return FB_E_UNSUPPORTED;
    }
    return FB_OK;
}

// Either fused kernel's parameters for this problem and plan.
Params params(const Problem &p, const fb_mm2_plan &pl, void *workspace) {
    Params prm;
    prm.A = p.A->data;
    prm.B = p.B->data;
    prm.C = p.C->data;
    prm.E = p.E->data;
    prm.part = static_cast<float *>(workspace);
    prm.M = (int)p.M;
    prm.N = (int)p.N;
    prm.K = (int)p.K;
    prm.splits = pl.splits;
    prm.chunks_per_split = (int)pl.chunks_per_split;
    prm.n_chunks = (int)pl.n_chunks;
    return prm;
}

template <typename T, int KD, bool VEC>
cudaError_t launch(const Problem &p, const fb_mm2_plan &pl, void *workspace, cudaStream_t stream) {
    using Kn = Kernel<T, KD, VEC>;
    (void)Kn::resident();  // the shared-memory attributes, if no plan asked yet
    Params prm = params(p, pl, workspace);
    void *args[] = {&prm};
    return cudaLaunchKernel(Kn::fn(), dim3((unsigned)pl.m_tiles, (unsigned)pl.splits), dim3(THREADS), args,
                            Kn::Tl::SMEM, stream);
}

// The second kernel when N is split (either fused kernel's partials: the same layout).
template <typename T, bool VEC>
cudaError_t launch_reduce(const Problem &p, const fb_mm2_plan &pl, void *workspace, cudaStream_t stream) {
    const long rows_padded = (long)pl.m_tiles * BM;
    const long lanes = (long)p.M * (pl.kd / 4);  // one lane per float4 of the output
    const float *part = static_cast<const float *>(workspace);
    T *E = static_cast<T *>(p.E->data);
    int M = (int)p.M, K = (int)p.K, kd = pl.kd, splits = pl.splits;
    // Rows of the CTA for the splits, about 8 partials a thread (one row when the splits are
    // few: 8 rows for 8 splits ran M = 2048 1-2 us slower than one), at most REDUCE_WARPS; the
    // rest of its 256 threads across the output.
    const int ry = splits / 8 < 1 ? 1 : splits / 8 > REDUCE_WARPS ? REDUCE_WARPS : splits / 8;
    const int bx = 32 * (REDUCE_WARPS / ry);
    void *rargs[] = {(void *)&part, (void *)&E, &M, &K, &kd, (void *)&rows_padded, &splits};
    // Launched as a programmatic dependent of the fused kernel: its launch overlaps the fused
    // kernel's tail (b2b_reduce_kernel waits for the partials in griddepcontrol.wait). Measured
    // (NOTES.md, "matmul_matmul: the reduce as a dependent launch"): bfloat16 M = 128-512, N =
    // 512-2048, K = 128, fused 8% faster in geomean (256 x 1024: 12.8-12.9 -> 10.8-11.0 us).
    return launch_dependent(reinterpret_cast<const void *>(&b2b_reduce_kernel<T, VEC>),
                            dim3((unsigned)((lanes + bx - 1) / bx)), dim3((unsigned)bx, (unsigned)ry), 0, rargs,
                            stream);
}

template <typename T> cudaError_t launch_fused(const Problem &p, const fb_mm2_plan &pl, void *ws, cudaStream_t s) {
    if (pl.kernel == FB_MM2_KERNEL_WGMMA) return mm2::wgmma_launch(p.dt, pl.kd, params(p, pl, ws), (int)pl.m_tiles, s);
    switch (pl.kd) {
    case 32: return p.vec ? launch<T, 32, true>(p, pl, ws, s) : launch<T, 32, false>(p, pl, ws, s);
    case 64: return p.vec ? launch<T, 64, true>(p, pl, ws, s) : launch<T, 64, false>(p, pl, ws, s);
    default: return p.vec ? launch<T, 128, true>(p, pl, ws, s) : launch<T, 128, false>(p, pl, ws, s);
    }
}

template <typename T> cudaError_t launch_all(const Problem &p, const fb_mm2_plan &pl, void *ws, cudaStream_t s) {
    const cudaError_t e = launch_fused<T>(p, pl, ws, s);
    if (e != cudaSuccess || pl.splits == 1) return e;
    return p.vec ? launch_reduce<T, true>(p, pl, ws, s) : launch_reduce<T, false>(p, pl, ws, s);
}

template <Pick PICK> int supports(const fb_call *c, char *why, size_t n) { return check(c, PICK, why, n); }

template <Pick PICK> size_t workspace(const fb_call *c) {
    if (check(c, PICK, nullptr, 0) != FB_OK) return 0;
    const Problem p = problem(c, PICK);
    fb_mm2_plan pl;
    if (trivial(p) || fb_matmul_matmul_plan(p.M, p.N, p.K, p.kernel, resident_for(p), &pl) != FB_OK) return 0;
    return pl.workspace;
}

// The plan, once per cell outside the timed region (the occupancy query, the split of N).
template <Pick PICK> int prepare(const fb_call *c, void **state) {
    *state = nullptr;
    const int st = check(c, PICK, nullptr, 0);
    if (st != FB_OK) return st;
    const Problem p = problem(c, PICK);
    if (trivial(p)) return FB_OK;
    fb_mm2_plan *pl = static_cast<fb_mm2_plan *>(malloc(sizeof *pl));
    if (!pl) {
        fb_error("matmul_matmul.fused: out of host memory for its plan");
        return FB_E_NOMEM;
    }
    if (fb_matmul_matmul_plan(p.M, p.N, p.K, p.kernel, resident_for(p), pl) != FB_OK) {
        free(pl);
        fb_error("matmul_matmul.fused: no launch plan for M = %lld, N = %lld, K = %lld", (long long)p.M,
                 (long long)p.N, (long long)p.K);
        return FB_E_UNSUPPORTED;
    }
    *state = pl;
    return FB_OK;
}

void release(void *state) { free(state); }

template <Pick PICK> int run(const fb_call *c) {
    char why[256] = "";
    const int st = check(c, PICK, why, sizeof why);
    if (st != FB_OK) {
        fb_error("%s", why);
        return st;
    }
    const Problem p = problem(c, PICK);
    if (p.M == 0 || p.K == 0) return FB_OK;
    if (p.N == 0)
        return fb_cuda_status((int)cudaMemsetAsync(p.E->data, 0, (size_t)(p.M * p.K) * 2, c->stream),
                              "matmul_matmul.fused: cudaMemsetAsync (N = 0)", __FILE__, __LINE__);
    fb_mm2_plan pl;
    const int ps = plan_for(c, p, &pl);
    if (ps != FB_OK) return ps;
    if (pl.workspace > 0 && (c->workspace == nullptr || c->workspace_bytes < pl.workspace)) {
        fb_error("matmul_matmul.fused: splitting N %d ways needs %zu bytes of workspace, got %zu", pl.splits,
                 pl.workspace, c->workspace ? c->workspace_bytes : (size_t)0);
        return FB_E_USAGE;
    }
    const cudaError_t e = p.dt == FB_BF16 ? launch_all<__nv_bfloat16>(p, pl, c->workspace, c->stream)
                                          : launch_all<__half>(p, pl, c->workspace, c->stream);
    return fb_cuda_status((int)e, "matmul_matmul.fused", __FILE__, __LINE__);
}

}  // namespace

extern "C" int fb_matmul_matmul_plan(int64_t M, int64_t N, int64_t K, int kernel, int resident, fb_mm2_plan *pl) {
    if (K < 1 || K > FB_MM2_MAX_K || M < 1 || N < 1 || M > INT_MAX || N > INT_MAX || resident < 1 ||
        (kernel != FB_MM2_KERNEL_MMA && kernel != FB_MM2_KERNEL_WGMMA))
        return FB_E_UNSUPPORTED;
    memset(pl, 0, sizeof *pl);
    const bool wgmma = kernel == FB_MM2_KERNEL_WGMMA;
    pl->kernel = kernel;
    pl->kd = wgmma ? kd_for_wgmma(K) : kd_for(K);
    pl->bm = BM;
    pl->bn = wgmma ? mm2::kWgmmaBN : bn_for(pl->kd);
    pl->m_tiles = (M + BM - 1) / BM;
    pl->n_chunks = (N + pl->bn - 1) / pl->bn;
    // Split N only to fill slots the row tiles leave empty, never below MIN_SPLIT_COLS columns a
    // split, and only as far as it pays: a split of s ways costs ceil(chunks / s) chunks of
    // MMAs on one CTA, plus s float32 partials of [128, KD] per row tile written and read back,
    // plus the reduce kernel's launch. At M = 128, N = 16384, K = 128 that model takes 64 splits
    // of 2 chunks over 128 of 1: the partials' 8 MiB less traffic outweigh one more chunk
    // (measured, wgmma, both half types: 17.3-18.7 us -> 15.5-17.4, eager 17.1-17.7; NOTES.md,
    // "matmul_matmul: the split of N"). Rates: a chunk's 4·128·BN·KD FLOPs at ~5 TFLOP/s per
    // CTA for wgmma (660 TFLOP/s over 132 CTAs), ~1.3 for mma.sync (two CTAs an SM); partials
    // at ~2.5 TB/s; the second launch ~1.5 us (at 2 us the model left M = 2048, N = 512, K = 128 unsplit,
    // ~1 us slower in bfloat16).
    int64_t splits = 1;
    if (pl->m_tiles < resident) {
        const int64_t fill = resident / pl->m_tiles;
        const int64_t most = pl->n_chunks / (MIN_SPLIT_COLS / pl->bn);
        const int64_t top = fill < most ? fill : most;
        const double us_chunk = 4.0 * BM * pl->bn * pl->kd / (wgmma ? 5.0e6 : 1.3e6);
        const double us_partial = (double)pl->m_tiles * BM * pl->kd * sizeof(float) * 2 / 2.5e6;
        double best = 0;
        for (int64_t s = 1; s <= top; ++s) {
            const double t = (double)((pl->n_chunks + s - 1) / s) * us_chunk + (s > 1 ? s * us_partial + 1.5 : 0);
            if (s == 1 || t <= best) {  // ties go to more splits
                best = t;
                splits = s;
            }
        }
    }
    pl->chunks_per_split = (pl->n_chunks + splits - 1) / splits;
    pl->splits = (int)((pl->n_chunks + pl->chunks_per_split - 1) / pl->chunks_per_split);
    pl->workspace = pl->splits > 1 ? (size_t)pl->splits * (size_t)pl->m_tiles * BM * (size_t)pl->kd * sizeof(float) : 0;
    return FB_OK;
}

// float32 is in each set because a case lists only variants that take all its dtypes (case.c);
// supports() declines it per cell, with the reason, shown as skipped
extern "C" const fb_variant fb_matmul_matmul_variants[] = {
    {"matmul_matmul.fused",
     "E = (A @ B) @ C in one kernel, the [M, N] intermediate on chip: matmul_matmul.wgmma where it runs, else "
     "matmul_matmul.mma (float16/bfloat16: float32 and K > 128 declined; N split over CTAs plus a reduce kernel "
     "when M is small)",
     FB_DTYPES_HALF_AND_F32, supports<Pick::fused>, workspace<Pick::fused>, run<Pick::fused>, 2,
     prepare<Pick::fused>, release},
    {"matmul_matmul.mma",
     "the back-to-back GEMM on mma.sync (sm_80+; any alignment, element loads where rows are not 16-byte aligned)",
     FB_DTYPES_HALF_AND_F32, supports<Pick::mma>, workspace<Pick::mma>, run<Pick::mma>, 2, prepare<Pick::mma>,
     release},
    {"matmul_matmul.wgmma",
     "the back-to-back GEMM on sm_90a warpgroup MMAs (wgmma; K and N multiples of 8)",
     FB_DTYPES_HALF_AND_F32, supports<Pick::wgmma>, workspace<Pick::wgmma>, run<Pick::wgmma>, 2,
     prepare<Pick::wgmma>, release},
};
extern "C" const int fb_matmul_matmul_variant_count =
    (int)(sizeof fb_matmul_matmul_variants / sizeof fb_matmul_matmul_variants[0]);
