// matmul_own.cu — matmul_add on a GEMM of our own (kernels/gemm_tma.cuh): out = A·B + D with D's
// tile loaded into shared memory while the tile's main loop runs, instead of after it as
// cuBLASLt's beta = 1 kernels do.
//
//   matmul_add.own   the persistent warp-specialised TMA + wgmma GEMM (128 x 256 tiles), eight
//                    forms raced once per cell in prepare (fb_tune_rounds, as matmul.tuned races
//                    cuBLASLt's candidates): a CTA alone or a cluster of two sharing B's tile by
//                    TMA multicast, times D loaded by the producer's TMA or by three warps'
//                    cp.async, times three stages of 64 along K or six of 32; the note names the
//                    form kept.
//
// When it wins: on the H200 (kernels/NOTES.md "Stop 46", "Stop 47") its plain GEMM is at parity
// with cuBLASLt at 8192^3 (1.006-1.014) but 1.07-1.13x at K = 1024 at free clocks (equal at a
// locked 1.27 GHz; not stages, DRAM bytes or a lower clock); with D it reads 1.10-1.25x the plain
// cuBLASLt GEMM at K = 1024 against cuBLASLt's own full add's 1.18-1.22x: faster on the smaller
// grids (bfloat16 2048 x 2048: 1.096 against 1.182; 8192 x 2048: 1.156-1.171 against 1.215), 1-5%
// slower on the larger. So matmul_add.fused races it against cuBLASLt and cuDNN's graph in prepare
// (kernels/matmul_epilogue.c), and it is registered on its own (not in the case's list) so that
// `--variants matmul_add.own` measures it.
// Six stages of 32 (stop 47): with D, 0.7-1.7% faster than the best 64-wide form at 8192 x 8192,
// 2048 x 2048 and 2048 x 8192 (K = 1024, bfloat16), 1% slower at 16384 x 2048; so they race too.
//
// Takes float16 and bfloat16, A [M, K], B [K, N], D [M, N] row-major and untransposed, N and K
// multiples of 8 (16-byte rows for the TMA), an sm_90a build on a 9.0 GPU; declines the rest.
#include "matmul_own.h"

#include "gemm_tma.cuh"
#include "matmul_add_problem.h"

#include "../src/tune_rounds.h"

#include <stdio.h>
#include <stdlib.h>

namespace {

const char kName[] = "matmul_add.own";
// form bits: 1 a cluster of two, 2 D by cp.async from three warps (else by TMA), 4 six stages of 32
// along K (else three of 64)
constexpr int FORMS = 8;
const char *const kFormNames[FORMS] = {
    "one CTA, D by TMA",          "cluster of 2, D by TMA",          "one CTA, D by cp.async",
    "cluster of 2, D by cp.async", "one CTA, D by TMA, K by 32",       "cluster of 2, D by TMA, K by 32",
    "one CTA, D by cp.async, K by 32", "cluster of 2, D by cp.async, K by 32"};

using Problem = fb_mm_add_problem;

// matmul_add_problem.h's shape and dtype, then this kernel's limits.
int read_problem(const fb_call *c, Problem *p, char *why, size_t len) {
    const int s = fb_mm_add_problem_read(c, FB_DTYPE_BIT(FB_F16) | FB_DTYPE_BIT(FB_BF16), "float16 and bfloat16 only",
                                         p, why, len);
    if (s != FB_OK) return s;
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX) return fb_decline(why, len, "M, N and K below 2^31");
    if (p->n % 8 || p->k % 8) return fb_decline(why, len, "N and K multiples of 8 (the TMA's 16-byte rows)");
    for (int i = 0; i < 3; i++)
        if (!fb::aligned16(c->in[i].data)) return fb_decline(why, len, "16-byte aligned operands");
    if (!fb::aligned16(c->out[0].data)) return fb_decline(why, len, "a 16-byte aligned output");
    if (!fb::wg::available()) return fb_decline(why, len, "needs an sm_90a build on a compute capability 9.0 GPU");
    return FB_OK;
}

int supports(const fb_call *c, char *why, size_t n) {
    Problem p;
    return read_problem(c, &p, why, n);
}

struct State {
    fb::gemm::Plan plan[FORMS];  // tensor maps over the cell's buffers, built once
    bool ok[FORMS];
    int keep;
    const void *bufs[4];  // A, B, D, out as planned: run() refuses others
    char note[160];
};

template <typename T> cudaError_t plan_form(int form, fb::gemm::Plan *pl, const fb_call *c, const Problem &p) {
    const void *A = c->in[0].data, *B = c->in[1].data, *D = c->in[2].data;
    void *out = c->out[0].data;
    const int m = (int)p.m, n = (int)p.n, k = (int)p.k;
    cudaError_t e;
    switch (form & 5) {
    case 0: e = fb::gemm::plan_gemm<T, 1, true>(pl, A, B, D, out, m, n, k); break;
    case 1: e = fb::gemm::plan_gemm<T, 2, true>(pl, A, B, D, out, m, n, k); break;
    case 4: e = fb::gemm::plan_gemm<T, 1, true, 6, 32>(pl, A, B, D, out, m, n, k); break;
    default: e = fb::gemm::plan_gemm<T, 2, true, 6, 32>(pl, A, B, D, out, m, n, k); break;
    }
    if (e == cudaSuccess) pl->args.d_async = (form & 2) ? 3 : 0;
    return e;
}

int launch_form(void *arg, int i, cudaStream_t stream) {
    const State *st = static_cast<const State *>(arg);
    if (!st->ok[i]) return 1;
    return fb::gemm::run_gemm(st->plan[i], stream) != cudaSuccess;
}

void release(void *state) { free(state); }

// The eight forms planned (tensor maps over this cell's buffers), then raced on them.
int prepare(const fb_call *c, void **out) {
    *out = nullptr;
    Problem p;
    char why[200];
    int s = read_problem(c, &p, why, sizeof why);
    if (s != FB_OK) {
        fb_error("%s: %s", kName, why);
        return s;
    }
    State *st = static_cast<State *>(calloc(1, sizeof(State)));
    if (!st) {
        fb_error("%s: out of host memory", kName);
        return FB_E_NOMEM;
    }
    int planned = 0;
    for (int i = 0; i < FORMS; i++) {
        const cudaError_t e = p.dt == FB_BF16 ? plan_form<__nv_bfloat16>(i, &st->plan[i], c, p)
                                              : plan_form<__half>(i, &st->plan[i], c, p);
        st->ok[i] = e == cudaSuccess;
        planned += st->ok[i];
        if (e != cudaSuccess && e != cudaErrorNotSupported) {
            free(st);
            return fb_cuda_status((int)e, "matmul_add.own: plan", __FILE__, __LINE__);
        }
        (void)cudaGetLastError();
    }
    if (!planned) {
        free(st);
        fb_error("%s: no form of the kernel takes this shape on this device", kName);
        return FB_E_UNSUPPORTED;
    }
    s = c->first_prepare ? fb_tune_load(FORMS, launch_form, st, c->stream, &st->keep, kName)
                         : fb_tune_rounds(c->ctx, c->stream, FORMS, launch_form, st, &st->keep, kName);
    if (s != FB_OK) {
        free(st);
        return s;
    }
    snprintf(st->note, sizeof st->note, "own TMA GEMM, %s (fastest of %d forms)", kFormNames[st->keep], planned);
    for (int i = 0; i < 3; i++) st->bufs[i] = c->in[i].data;
    st->bufs[3] = c->out[0].data;
    *out = st;
    return FB_OK;
}

int run(const fb_call *c) {
    const State *st = static_cast<const State *>(c->state);
    if (!st) {
        fb_error("%s: run() without prepare()", kName);
        return FB_E_USAGE;
    }
    // the tensor maps name the buffers prepare() saw; a call on others would read and write those
    if (st->bufs[0] != c->in[0].data || st->bufs[1] != c->in[1].data || st->bufs[2] != c->in[2].data ||
        st->bufs[3] != c->out[0].data) {
        fb_error("%s: run() on other buffers than prepare() planned for", kName);
        return FB_E_USAGE;
    }
    return fb_cuda_status((int)fb::gemm::run_gemm(st->plan[st->keep], c->stream), kName, __FILE__, __LINE__);
}

const char *note(const void *state) { return state ? static_cast<const State *>(state)->note : nullptr; }

}  // namespace

// float32 is in the set so that --variants names it on any dtype; supports() declines it per cell
extern "C" const fb_variant fb_matmul_own_variants[] = {
    {kName,
     "out = A @ B + D on an own persistent TMA + wgmma GEMM that loads D's tile during the main loop (sm_90a, "
     "float16/bfloat16, N and K multiples of 8; its forms raced in prepare)",
     FB_DTYPES_HALF_AND_F32, supports, nullptr, run, 1, prepare, release, note},
};
extern "C" const int fb_matmul_own_variant_count = (int)(sizeof fb_matmul_own_variants / sizeof fb_matmul_own_variants[0]);
