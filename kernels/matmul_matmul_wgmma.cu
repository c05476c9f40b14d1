// matmul_matmul_wgmma.cu — the back-to-back GEMM E = (A @ B) @ C on sm_90a warpgroup MMAs:
// matmul_matmul.cu's kernel (same operands, same plan of row tiles and splits of N, same
// partials and reduce kernel) with wgmma.mma_async in place of mma.sync. That file's top
// comment has the floors and the case; this one says what changes.
//
// matmul_matmul.wgmma (and matmul_matmul.fused where it applies: an sm_90a build on a 9.0 GPU,
//   rows 16-byte aligned) — a CTA is two warpgroups (256 threads) over BM = 128 rows of A,
//   64 rows each, with K zero-padded to KD = 64 or 128. Per chunk of BN = 128 columns of N:
//       S[64 x 128]  = A_tile @ B[:, chunk]     KD/16 wgmma m64n128k16, A and B from shared memory
//       P            = S rounded to the dtype, in registers (the accumulator's n-tiles 2p, 2p+1
//                      are the register A operand of k-step p: wgmma.cuh)
//       O[64 x KD]  += P @ C[chunk, :]           8 wgmma m64nKDk16, A from registers
//   S is 64 float32 registers a thread and O is KD/2: BN = 128 fits beside O at KD = 128, where
//   mma.sync's kernel had to drop to BN = 32 (it holds 32 rows a warp, not 16). B and C are
//   MN-major operands (B [K, N] has N contiguous, C [N, K] has K contiguous), read with the
//   transpose bit; A is K-major. All three are staged by cp.async into 128-byte-swizzled atoms
//   (wgmma.cuh), B and C in three stages. Rows past M and N and columns past K are zero-filled
//   by the copies, so they add nothing.
//   The loop keeps the tensor cores fed: an iteration issues S of the next chunk and O's update
//   by this one as one wgmma group; B and C have full/empty mbarriers of their own (no CTA
//   barrier in the loop), so each is copied two iterations before it is read and the two
//   warpgroups drift out of phase (the loop's comments say which stage is free when).
//
// When it wins: everywhere the mma.sync kernel did, and at K = 128 as well. Measured on the H100
// (NOTES.md, "matmul_matmul on wgmma"): 693 TFLOP/s at M = N = 16384, K = 128 (float16), 2.1x two
// cuBLAS GEMMs, where mma.sync reached 361 (1.1x); 544 TFLOP/s and 3.2x at K = 64. It loses to
// eager on M = 128 with N = 8192-16384 (N split 64-128 ways: the float32 partials move more bytes
// than eager's S) and on a few latency-bound cells near 512 x 512-2048.
#include "matmul_matmul.cuh"

#include "common.cuh"
#include "tensorcore.cuh"
#include "wgmma.cuh"

namespace {

using namespace fb;
using namespace fb::mm2;

constexpr int WARPGROUPS = 2;
constexpr int THREADS = 128 * WARPGROUPS;
constexpr int BM = kWgmmaBM, BN = kWgmmaBN;
static_assert(BM == 64 * WARPGROUPS, "a warpgroup owns 64 rows of A");
static_assert(BN % 64 == 0, "whole 64-column blocks of the MN-major B");
constexpr int STAGES = 3;  // chunks of B and C in shared memory: 225 KiB at KD = 128

// Shared memory, in bytes from a 1024-byte aligned base (every atom 1024-byte aligned):
//   A     [KD/64 blocks of K][BM rows][128 B]        K-major,  SBO 1024
//   B(s)  [BN/64 blocks of N][KD rows][128 B]        MN-major, LBO KD·128, SBO 1024
//   C(s)  [KD/64 blocks of K][BN rows][128 B]        MN-major, LBO BN·128, SBO 1024
template <int KD> struct Layout {
    static constexpr uint32_t A_BYTES = BM * KD * 2;
    static constexpr uint32_t B_BYTES = KD * BN * 2;
    static constexpr uint32_t C_BYTES = BN * KD * 2;
    static constexpr uint32_t STAGE = B_BYTES + C_BYTES;
    static constexpr size_t SMEM = A_BYTES + STAGES * STAGE + 1024;  // + the slack to align the base
    static_assert(KD == 64 || KD == 128, "KD is one or two 64-element atoms of K");
};

// 16-byte unit u of row r of a [rows, ld] row-major matrix at (r0, c0) into a swizzled block;
// zero outside [n_rows, n_cols).
__device__ __forceinline__ void stage_unit(uint8_t *dst, const uint16_t *src, long r, long c, long n_rows,
                                           long n_cols, long ld) {
    const bool ok = r < n_rows && c < n_cols;
    tc::cp_async16(dst, ok ? src + r * ld + c : src, ok);
}

template <typename T, int KD> __global__ void __launch_bounds__(THREADS, 1) b2b_wgmma_kernel(const Params p) {
    using L = Layout<KD>;
    extern __shared__ uint8_t smem_raw[];
    uint8_t *smem = reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
    uint8_t *sA = smem;
    uint8_t *sStage = smem + L::A_BYTES;

    const uint16_t *A = static_cast<const uint16_t *>(p.A);
    const uint16_t *B = static_cast<const uint16_t *>(p.B);
    const uint16_t *C = static_cast<const uint16_t *>(p.C);
    const long M = p.M, N = p.N, K = p.K;
    const CtaShare<BM> share(p);
    const long m0 = share.m0;
    const int c_begin = share.c_begin, n_my = share.n_my;

    // the A tile: KD/8 units a row
    for (int i = threadIdx.x; i < BM * (KD / 8); i += THREADS) {
        const int r = i / (KD / 8), u = i % (KD / 8);
        stage_unit(sA + (u / 8) * (BM * 128) + wg::swizzle128(r, u % 8), A, m0 + r, u * 8, M, K, K);
    }
    // A chunk's copies. Each thread's units sit at fixed offsets: in B it always copies unit
    // v = tid % 16 of rows k0 + 16j (j < KD/16), in C unit u = tid % (KD/8) of rows n1 +
    // (THREADS·8/KD)·j. Both row steps are multiples of 8, so the swizzle of every unit is that of
    // its first row, and a chunk is KD/8 copies at constant strides from two per-thread bases,
    // with 32-bit bounds: the index arithmetic is done once here, not per copy (per copy, with
    // 64-bit bounds, it came to ~500 instructions a warp per chunk, and the warps' instruction
    // streams, not the tensor cores, set the pace).
    constexpr int B_ROW_STEP = THREADS / (BN / 8), C_UPR = KD / 8, C_ROW_STEP = THREADS / C_UPR;
    static_assert(B_ROW_STEP % 8 == 0 && C_ROW_STEP % 8 == 0 && KD % B_ROW_STEP == 0 && BN % C_ROW_STEP == 0,
                  "whole rows of units a pass, steps of whole swizzle atoms");
    const int bv = threadIdx.x % (BN / 8), bk0 = threadIdx.x / (BN / 8);
    const int cu = threadIdx.x % C_UPR, cn0 = threadIdx.x / C_UPR;
    const uint32_t b_off = (bv / 8) * (KD * 128) + wg::swizzle128(bk0, bv % 8);
    const uint32_t c_off = L::B_BYTES + (cu / 8) * (BN * 128) + wg::swizzle128(cn0, cu % 8);
    const uint16_t *b_src = B + (long)bk0 * N + bv * 8;  // + the chunk's n0
    const uint16_t *c_src = C + (long)cn0 * K + cu * 8;  // + the chunk's n0 rows
    const long b_step = (long)B_ROW_STEP * N, c_step = (long)C_ROW_STEP * K;
    const int b_rows_left = p.K - bk0;   // rows k0 + 16j < K
    const bool c_col_ok = cu * 8 < p.K;  // columns of C are K
    auto load_b = [&](int chunk, int stage) {  // chunk: an index into N's chunks
        const int n0 = chunk * BN;
        uint8_t *dst = sStage + stage * L::STAGE;
        const bool b_col_ok = n0 + bv * 8 < p.N;
        const uint16_t *bp = b_src + n0;
#pragma unroll
        for (int j = 0; j < KD / B_ROW_STEP; ++j, bp += b_step) {  // B [k][n0 + 8v ..]
            const bool ok = b_col_ok && B_ROW_STEP * j < b_rows_left;
            tc::cp_async16(dst + b_off + j * B_ROW_STEP * 128, ok ? bp : B, ok);
        }
    };
    auto load_c = [&](int chunk, int stage) {
        const int n0 = chunk * BN;
        uint8_t *dst = sStage + stage * L::STAGE;
        const int c_rows_left = p.N - n0 - cn0;
        const uint16_t *cp = c_src + (long)n0 * K;
#pragma unroll
        for (int j = 0; j < BN / C_ROW_STEP; ++j, cp += c_step) {  // C [n0 + n][8u ..]
            const bool ok = c_col_ok && C_ROW_STEP * j < c_rows_left;
            tc::cp_async16(dst + c_off + j * C_ROW_STEP * 128, ok ? cp : C, ok);
        }
    };
    // Stages are handed over by mbarriers, not CTA barriers, so the two warpgroups can drift out
    // of phase and one's MMAs fill the tensor cores while the other packs or waits. B and C of a
    // chunk have barriers of their own: B(i) is read by the first product in iteration i - 1, C(i)
    // by the second in iteration i, so each is freed and refilled on its own schedule, and both
    // are copied two iterations before they are read (one, with a shared stage, was not enough:
    // the waits for the copies were the largest stall):
    //   full_b[s], full_c[s]:   every thread's copies into that half of stage s landed
    //                           (256 cp.async arrivals a phase);
    //   empty_b[s], empty_c[s]: every thread's MMAs that read it completed (256 arrivals).
    // Chunk i of this CTA lives in stage i % 3 as that stage's (i / 3)-th phase.
    __shared__ uint64_t full_b[STAGES], full_c[STAGES], empty_b[STAGES], empty_c[STAGES];
    if (threadIdx.x == 0)
        for (int i = 0; i < STAGES; ++i) {
            wg::mbar_init(&full_b[i], THREADS);
            wg::mbar_init(&full_c[i], THREADS);
            wg::mbar_init(&empty_b[i], THREADS);
            wg::mbar_init(&empty_c[i], THREADS);
        }
    __syncthreads();
    auto phase = [](int i) { return (uint32_t)(i / STAGES) & 1u; };
    auto copy_b = [&](int i) {  // my i-th chunk's B into its stage, announced on full_b
        load_b(c_begin + i, i % STAGES);
        wg::mbar_arrive_cp_async(&full_b[i % STAGES]);
    };
    auto copy_c = [&](int i) {
        load_c(c_begin + i, i % STAGES);
        wg::mbar_arrive_cp_async(&full_c[i % STAGES]);
    };
    for (int i = 0; i < STAGES && i < n_my; ++i) {  // the A tile travels with chunk 0's B
        copy_b(i);
        copy_c(i);
    }

    // Descriptors: built once; a k-step or a stage adds its byte offset / 16 to the start
    // address field (the sums stay below 2^14: shared memory ends before 256 KiB).
    const int wgi = threadIdx.x / 128;
    const uint64_t desc_a = wg::desc128(tc::smem_addr(sA) + wgi * 64 * 128, 16, 1024);  // this warpgroup's rows
    const uint64_t desc_b = wg::desc128(tc::smem_addr(sStage), KD * 128, 1024);          // stage 0's B
    const uint64_t desc_c = wg::desc128(tc::smem_addr(sStage) + L::B_BYTES, BN * 128, 1024);
    float s[BN / 2], o[KD / 2];
    uint32_t pf[BN / 16][4];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) s[i] = 0.f;
#pragma unroll
    for (int i = 0; i < KD / 2; ++i) o[i] = 0.f;

    // S = A_tile @ B_chunk (issued, not waited for)
    auto gemm1 = [&](int stage) {
        const uint64_t db = desc_b + (uint64_t)(stage * (L::STAGE / 16));
#pragma unroll
        for (int ks = 0; ks < KD / 16; ++ks)
            wg::Mma64<T, BN>::ss(s, desc_a + ((ks / 4) * (BM * 128) + (ks % 4) * 32) / 16, db + ks * (2048 / 16), ks > 0);
    };
    // O += P @ C_chunk (issued, not waited for)
    auto gemm2 = [&](int stage) {
        const uint64_t dc = desc_c + (uint64_t)(stage * (L::STAGE / 16));
#pragma unroll
        for (int pp = 0; pp < BN / 16; ++pp) wg::Mma64<T, KD>::rs(o, pf[pp], dc + pp * (2048 / 16), 1);
    };
    // P = S in the dtype: k-step pp of the second product is S's n-tiles 2pp, 2pp + 1
    auto pack = [&]() {
#pragma unroll
        for (int pp = 0; pp < BN / 16; ++pp)
#pragma unroll
            for (int q = 0; q < 4; ++q) pf[pp][q] = tc::Mma<T>::pack(s[8 * pp + 2 * q], s[8 * pp + 2 * q + 1]);
    };

    auto wait_full = [&](uint64_t *bar, int i) {
        wg::mbar_wait(&bar[i % STAGES], phase(i));
        wg::fence_proxy_async();  // the copies (generic proxy) before the MMAs' reads (async proxy)
    };
    wait_full(full_b, 0);
    wg::fence();
    gemm1(0);
    wg::commit();
    wg::wait<0>();
    wg::mbar_arrive(&empty_b[0]);
    pack();
    // Iteration it: S of chunk it + 1 and O's update by chunk it go to the tensor cores as one
    // group (no drain between them). Behind them, B of chunk it + 3 into the stage B(it) left
    // (its product completed in iteration it - 1) and C of chunk it + 2 into the one C(it - 1)
    // left (chunks 0..2 were copied up front). When the group completes, this thread releases
    // B(it + 1) and C(it).
    for (int it = 0; it < n_my; ++it) {
        if (it + 1 < n_my) wait_full(full_b, it + 1);
        wait_full(full_c, it);
        wg::fence();
        if (it + 1 < n_my) gemm1((it + 1) % STAGES);
        gemm2(it % STAGES);
        wg::commit();
        if (it + 3 < n_my) {
            wg::mbar_wait(&empty_b[it % STAGES], phase(it));
            copy_b(it + 3);
        }
        if (it >= 1 && it + 2 < n_my) {
            wg::mbar_wait(&empty_c[(it - 1) % STAGES], phase(it - 1));
            copy_c(it + 2);
        }
        wg::wait<0>();
        if (it + 1 < n_my) wg::mbar_arrive(&empty_b[(it + 1) % STAGES]);
        wg::mbar_arrive(&empty_c[it % STAGES]);
        if (it + 1 < n_my) pack();
    }

    // O register 4j + r: row 16·warp + g + 8·(r >> 1) of this warpgroup's 64, column 8j + 2t + (r & 1)
    const int lane = threadIdx.x & 31, warp = (threadIdx.x >> 5) & 3;
    const int g = lane >> 2, t = lane & 3;
    const int row0 = wgi * 64 + warp * 16 + g;
    if (p.splits > 1) {
        // The reduce kernel may be launched now (programmatic dependent launch): its CTAs wait
        // in griddepcontrol.wait for this whole grid to finish and its stores to be visible,
        // so only its launch overlaps the rest of this grid.
        fb::allow_dependent_launch();
        float *part = share.partial<KD>(p);
#pragma unroll
        for (int j = 0; j < KD / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                *reinterpret_cast<float2 *>(part + (size_t)(row0 + 8 * h) * KD + 8 * j + 2 * t) =
                    make_float2(o[4 * j + 2 * h], o[4 * j + 2 * h + 1]);
        return;
    }
    T *E = static_cast<T *>(p.E);
#pragma unroll
    for (int j = 0; j < KD / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const long r = m0 + row0 + 8 * h;
            const int c = 8 * j + 2 * t;
            if (r < M && c < K)  // K is a multiple of 8: the pair is whole, and 4-byte aligned
                *reinterpret_cast<uint32_t *>(E + r * K + c) = tc::Mma<T>::pack(o[4 * j + 2 * h], o[4 * j + 2 * h + 1]);
        }
}

template <typename T, int KD> struct Kernel {
    static const void *fn() { return reinterpret_cast<const void *>(&b2b_wgmma_kernel<T, KD>); }
    static int resident() {
        static int n = 0;
        if (n == 0) {
            (void)cudaFuncSetAttribute(b2b_wgmma_kernel<T, KD>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)Layout<KD>::SMEM);
            (void)cudaGetLastError();
            n = resident_ctas(b2b_wgmma_kernel<T, KD>, THREADS, Layout<KD>::SMEM) * sm_count();
        }
        return n;
    }
    static cudaError_t launch(const Params &p, int m_tiles, cudaStream_t stream) {
        (void)resident();  // the shared-memory attribute
        Params prm = p;
        void *args[] = {&prm};
        return cudaLaunchKernel(fn(), dim3((unsigned)m_tiles, (unsigned)p.splits), dim3(THREADS), args,
                                Layout<KD>::SMEM, stream);
    }
};

}  // namespace

namespace fb {
namespace mm2 {

int wgmma_resident(fb_dtype dt, int kd) {
    if (!wg::available()) return 0;
    if (dt == FB_BF16) return kd == 64 ? Kernel<__nv_bfloat16, 64>::resident() : Kernel<__nv_bfloat16, 128>::resident();
    return kd == 64 ? Kernel<__half, 64>::resident() : Kernel<__half, 128>::resident();
}

cudaError_t wgmma_launch(fb_dtype dt, int kd, const Params &p, int m_tiles, cudaStream_t stream) {
    if (dt == FB_BF16)
        return kd == 64 ? Kernel<__nv_bfloat16, 64>::launch(p, m_tiles, stream)
                        : Kernel<__nv_bfloat16, 128>::launch(p, m_tiles, stream);
    return kd == 64 ? Kernel<__half, 64>::launch(p, m_tiles, stream) : Kernel<__half, 128>::launch(p, m_tiles, stream);
}

}  // namespace mm2
}  // namespace fb
