// elementwise.cuh — the one kernel behind the fused elementwise cases (pointwise_chain,
// bias_gelu, bias_dropout_add, bias_dropout_add_train): for a row-major x[R, W],
//     y[e] = op(x[e], bias[e mod W], res[e], e)        e = r * W + c, the flat element index
// where bias ([W], broadcast over rows) and res ([R, W]) are optional. A case file is an Op
// (the math and which operands it has) plus its variant table; everything about moving the
// bytes is here.
//
// Flat packs, periodic columns. The tensor is walked as n = R * W elements in packs of P
// elements: P = 16 / sizeof(T) (one LDG.128 / STG.128) when x, res and y are 16-byte aligned,
// else P = 1. Thread t of S handles packs t, t + S, t + 2S, ... Packs are taken over the flat
// tensor and may straddle rows, so odd widths (61, 130, 1027) still move 16 bytes per access.
// S is a multiple of the column period L = W / gcd(W, P): S * P is then a multiple of W, and
// every pack a thread touches starts at the same column (t * P) mod W. So the P bias values a
// thread needs are loaded once, before the loop (one 16-byte load when W is a multiple of P and
// the bias is 16-byte aligned, else P scalar loads), and reused for every row it visits; there is
// no division or modulo in the loop.
//
// Grid. Persistent (ew::Grid::persistent): S = the resident capacity (SMs x CTAs per SM from the
// occupancy calculator x 256 threads), or one pack per thread when the tensor is smaller, rounded
// up to a multiple of L. One-shot (ew::Grid::one_shot): S = ceil(packs / U), every thread does one
// iteration, PyTorch's vectorized-elementwise launch shape. Each iteration issues U pack loads per
// full operand before any math: 64 bytes per thread in flight (U = 4, or 2 with a second operand),
// >= 64 KB per SM at 1024 resident threads, above the ~40 KB an SM needs to keep HBM3 busy.
// The n mod P elements past the last whole pack are done by threads 0 .. P-2 after the loop.
// Tile (ew::Grid::tile): Inductor's pointwise shape, 128-thread CTAs each owning 2 x 128
// consecutive packs (one contiguous span per tensor), the bias column computed per pack;
// bias_dropout_add.fused uses it (measured faster there, not for the other cases).
//
// Indices are int64 throughout (65536 x 65536 = 2^32 elements); the grid is 1-D, at most
// 2^31 - 1 CTAs.
#pragma once

#include <stdio.h>

#include <algorithm>
#include <type_traits>

#include "common.cuh"
#include "../src/variant.h"

namespace fb {
namespace ew {

constexpr int kThreads = 256;

enum class Grid { persistent, one_shot, tile, by_size };
// Grid::by_size: tile from this many bytes of x up, one_shot below. pointwise_chain float32,
// tile against one_shot (NOTES.md, issue 6 round 5), geomean: 1-2% faster from 8 MB (2M
// elements) up, 2% slower (up to 6%) on tensors of <= 4 MB, where one_shot's one pack per
// thread spreads the few packs over more SMs.
constexpr int64_t kTileMinBytes = 8 << 20;
// Cache hints of the tensor accesses: plain = default-policy loads and stores, as Triton emits
// (the default: measured 2-5% faster than stream on every cell of >= 16 MB, H100 float32,
// NOTES.md); stream = .cs loads and stores (evict-first: nothing is read twice), NAME.stream.
enum class Hint { stream, plain };

// An Op (see the case files) provides:
//   static constexpr const char *kName;   "bias_gelu": for messages
//   static constexpr bool kBias, kRes;    which of bias[W] and res[R, W] it reads
//   static Op make(const fb_call *);      its parameters, outside the kernel
//   template <typename A> __device__ A operator()(A x, A b, A r, uint64_t e) const;
// b and r are 0 when the op does not read them.

// The column of pack q's first element: 32-bit modulo where it fits (a 64-bit modulo is a
// ~60-instruction call).
template <int P> __device__ __forceinline__ int64_t column(int64_t q, int64_t W) {
    return q * P < INT32_MAX && W < INT32_MAX ? (int64_t)((uint32_t)(q * P) % (uint32_t)W) : (q * P) % W;
}
// The P bias values from column c on (wrapping at W): one 16-byte load when bvec (W a multiple
// of P and bias 16-byte aligned, so c is a multiple of P and the P values are contiguous), else
// P scalar loads. Default policy: every row re-reads the bias.
template <typename T, int P, typename A>
__device__ __forceinline__ void load_bias(const T *bias, int64_t c, int64_t W, bool bvec, A (&b)[P]) {
    if (P > 1 && bvec) {
        const pack<T, P> v = load_pack_plain<T, P>(bias + c);
#pragma unroll
        for (int j = 0; j < P; ++j) b[j] = to_acc(v.v[j]);
        return;
    }
#pragma unroll
    for (int j = 0; j < P; ++j) {
        b[j] = to_acc(bias[c]);
        c = c + 1 == W ? 0 : c + 1;
    }
}

// Both kernels below move packs the same way: every load of a group issued before any math
// (load_operands), then op and the store per pack (store_result); n mod P trailing elements one
// per thread (tail_element).
template <typename T, int P, class Op, Hint H, typename I>
__device__ __forceinline__ void load_operands(const T *__restrict__ x, const T *__restrict__ res, I q,
                                              pack<T, P> &xv, pack<T, P> &rv) {
    if constexpr (H == Hint::stream) {
        xv = load_pack_stream<T, P>(x + q * P);
        if constexpr (Op::kRes) rv = load_pack_stream<T, P>(res + q * P);
    } else {
        xv = load_pack_plain<T, P>(x + q * P);
        if constexpr (Op::kRes) rv = load_pack_plain<T, P>(res + q * P);
    }
}
template <typename T, int P, class Op, Hint H, typename I, typename A>
__device__ __forceinline__ void store_result(T *__restrict__ y, I q, const pack<T, P> &xv, const pack<T, P> &rv,
                                             const A (&b)[P], const Op &op) {
    pack<T, P> o;
#pragma unroll
    for (int j = 0; j < P; ++j) {
        const A r = Op::kRes ? to_acc(rv.v[j]) : A(0);
        o.v[j] = from_acc<T>(op(to_acc(xv.v[j]), b[j], r, (uint64_t)(q * P + j)));
    }
    if constexpr (H == Hint::stream) store_pack_stream<T, P>(y + q * P, o);
    else store_pack_plain<T, P>(y + q * P, o);
}
template <typename T, class Op, typename I>
__device__ __forceinline__ void tail_element(const T *__restrict__ x, const T *__restrict__ bias,
                                             const T *__restrict__ res, T *__restrict__ y, I e, I W, const Op &op) {
    using A = acc_t<T>;
    const A bb = Op::kBias ? to_acc(bias[e % W]) : A(0);
    const A r = Op::kRes ? to_acc(res[e]) : A(0);
    y[e] = from_acc<T>(op(to_acc(x[e]), bb, r, (uint64_t)e));
}

template <typename T, int P, int U, class Op, Hint H>
__global__ void __launch_bounds__(kThreads) kernel(const T *__restrict__ x, const T *__restrict__ bias,
                                                   const T *__restrict__ res, T *__restrict__ y, int64_t n,
                                                   int64_t W, int64_t S, bool bvec, Op op) {
    using A = acc_t<T>;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= S) return;
    const int64_t np = n / P;

    A b[P];
    if constexpr (Op::kBias) {
        // the one modulo: fixed for every pack of this thread (32-bit when it fits: a 64-bit
        // modulo is a ~60-instruction call, paid per pack in one-shot grids of 1 pack a thread)
        load_bias<T, P>(bias, column<P>(t, W), W, bvec, b);
    } else {
#pragma unroll
        for (int j = 0; j < P; ++j) b[j] = A(0);
    }

    for (int64_t i = t; i < np; i += U * S) {
        pack<T, P> xv[U], rv[U];
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const int64_t q = i + k * S;
            if (q < np) load_operands<T, P, Op, H>(x, res, q, xv[k], rv[k]);
        }
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const int64_t q = i + k * S;
            if (q < np) store_result<T, P, Op, H>(y, q, xv[k], rv[k], b, op);
        }
    }

    // The tail: n mod P elements after the last whole pack, one per thread.
    const int64_t e = np * P + t;
    if (e < n) tail_element(x, bias, res, y, e, W, op);
}

// Grid::tile, Inductor's pointwise launch shape (XBLOCK = 1024, 4 warps): 128-thread CTAs, CTA b
// owning the 2 x 128 consecutive packs from b * 256, thread t packs b * 256 + t and + 128: each
// CTA reads and writes one contiguous span per tensor; the bias is loaded per pack.
constexpr int kTileThreads = 128, kTilePacks = 2;
// I: the index type, 32-bit when n fits (Triton's choice: fewer address instructions per pack).
template <typename T, int P, class Op, Hint H, typename I>
__global__ void __launch_bounds__(kTileThreads) tile_kernel(const T *__restrict__ x, const T *__restrict__ bias,
                                                            const T *__restrict__ res, T *__restrict__ y, I n,
                                                            I W, bool bvec, Op op) {
    using A = acc_t<T>;
    const I np = n / P;
    const I q0 = (I)blockIdx.x * (kTileThreads * kTilePacks) + (I)threadIdx.x;
    pack<T, P> xv[kTilePacks], rv[kTilePacks];
#pragma unroll
    for (int k = 0; k < kTilePacks; ++k) {
        const I q = q0 + k * kTileThreads;
        if (q < np) load_operands<T, P, Op, H>(x, res, q, xv[k], rv[k]);
    }
#pragma unroll
    for (int k = 0; k < kTilePacks; ++k) {
        const I q = q0 + k * kTileThreads;
        if (q < np) {
            A b[P];
            if constexpr (Op::kBias) {
                using UI = std::make_unsigned_t<I>;
                load_bias<T, P>(bias, (int64_t)((UI)(q * P) % (UI)W), W, bvec, b);
            } else {
#pragma unroll
                for (int j = 0; j < P; ++j) b[j] = A(0);
            }
            store_result<T, P, Op, H>(y, q, xv[k], rv[k], b, op);
        }
    }
    if (blockIdx.x == 0) {  // the n mod P elements past the last whole pack
        const I e = np * P + (I)threadIdx.x;
        if (e < n) tail_element(x, bias, res, y, e, W, op);
    }
}

inline int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
inline int64_t cdiv64(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The operands of one call, validated by check().
template <typename T> struct Operands {
    const T *x, *bias, *res;
    T *y;
    int64_t n, W;
};

template <typename T, int P, class Op, Hint H>
static int launch(const Operands<T> &o, const Op &op, Grid grid, cudaStream_t st) {
    constexpr int UMAX = Op::kRes ? 2 : 4;
    const int64_t np = o.n / P;
    const bool bvec = Op::kBias && P > 1 && o.W % P == 0 && aligned16(o.bias);
    if (grid == Grid::by_size) grid = o.n * (int64_t)sizeof(T) >= kTileMinBytes ? Grid::tile : Grid::one_shot;
    if (grid == Grid::tile) {
        const int64_t ctas = std::max<int64_t>(1, cdiv64(np, kTileThreads * kTilePacks));
        if (ctas > INT32_MAX) {
            fb_error("%s: %lld CTAs do not fit one grid", Op::kName, (long long)ctas);
            return FB_E_UNSUPPORTED;
        }
        if (o.n < INT32_MAX - kTileThreads * kTilePacks * P)
            tile_kernel<T, P, Op, H, int32_t><<<(unsigned)ctas, kTileThreads, 0, st>>>(o.x, o.bias, o.res, o.y, (int32_t)o.n,
                                                                                      (int32_t)o.W, bvec, op);
        else
            tile_kernel<T, P, Op, H, int64_t><<<(unsigned)ctas, kTileThreads, 0, st>>>(o.x, o.bias, o.res, o.y, o.n, o.W,
                                                                                      bvec, op);
        return fb_cuda_status((int)cudaGetLastError(), Op::kName, __FILE__, __LINE__);
    }
    // One-shot grids of U packs per thread that would not fill one wave of resident threads
    // (2048 per SM) take one pack per thread instead: U times the CTAs, spread over more SMs.
    const bool small = grid == Grid::one_shot && np / UMAX < (int64_t)sm_count() * 2048;
    const int U = small ? 1 : UMAX;
    auto k = small ? kernel<T, P, 1, Op, H> : kernel<T, P, UMAX, Op, H>;
    static const int ctas_per_sm = resident_ctas(kernel<T, P, UMAX, Op, H>, kThreads);
    const int64_t L = Op::kBias ? o.W / gcd64(o.W, P) : 1;
    int64_t want = grid == Grid::persistent ? std::min<int64_t>((int64_t)sm_count() * ctas_per_sm * kThreads, np)
                                            : cdiv64(np, U);
    want = std::max<int64_t>(want, P);  // threads 0 .. P-2 do the tail
    const int64_t S = cdiv64(want, L) * L;
    const int64_t ctas = cdiv64(S, kThreads);
    if (ctas > INT32_MAX) {
        fb_error("%s: %lld threads do not fit one grid (bias period %lld)", Op::kName, (long long)S, (long long)L);
        return FB_E_UNSUPPORTED;
    }
    k<<<(unsigned)ctas, kThreads, 0, st>>>(o.x, o.bias, o.res, o.y, o.n, o.W, S, bvec, op);
    return fb_cuda_status((int)cudaGetLastError(), Op::kName, __FILE__, __LINE__);
}

static inline bool same_shape(const fb_shape &a, const fb_shape &b) {
    if (a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; ++i)
        if (a.dim[i] != b.dim[i]) return false;
    return true;
}

// Inputs in case-file order: x, then bias if the op reads it, then res if it reads it; one output
// shaped as x. bias may be [W] or any shape of W elements whose last dim is W ([1, W]).
template <class Op> static int check(const fb_call *c, unsigned dtypes, char *why, size_t n) {
    const int want_in = 1 + (Op::kBias ? 1 : 0) + (Op::kRes ? 1 : 0);
    if (c->n_in != want_in || c->n_out != 1) {
        if (why) snprintf(why, n, "%s takes %d input%s and 1 output", Op::kName, want_in, want_in > 1 ? "s" : "");
        return FB_E_UNSUPPORTED;
    }
    const fb_tensor *x = &c->in[0], *y = &c->out[0];
    if (!(dtypes & FB_DTYPE_BIT(x->dtype))) {
        if (why) snprintf(why, n, "%s: no kernel for %s", Op::kName, fb_dtype_name(x->dtype));
        return FB_E_UNSUPPORTED;
    }
    for (int i = 0; i < c->n_in; ++i)
        if (c->in[i].dtype != x->dtype || y->dtype != x->dtype) {
            if (why) snprintf(why, n, "%s needs every input and the output in one dtype", Op::kName);
            return FB_E_UNSUPPORTED;
        }
    if (x->shape.rank < 1 || !same_shape(x->shape, y->shape)) {
        if (why) snprintf(why, n, "%s needs x of rank >= 1 and an output of x's shape", Op::kName);
        return FB_E_UNSUPPORTED;
    }
    const int64_t W = x->shape.dim[x->shape.rank - 1];
    if constexpr (Op::kBias) {
        const fb_shape &bs = c->in[1].shape;
        if (bs.rank < 1 || bs.dim[bs.rank - 1] != W || fb_shape_numel(&bs) != W) {
            if (why) snprintf(why, n, "%s needs bias of shape [W] (W = x's last dim)", Op::kName);
            return FB_E_UNSUPPORTED;
        }
    }
    if constexpr (Op::kRes) {
        if (!same_shape(c->in[Op::kBias ? 2 : 1].shape, x->shape)) {
            if (why) snprintf(why, n, "%s needs the residual in x's shape", Op::kName);
            return FB_E_UNSUPPORTED;
        }
    }
    return FB_OK;
}

template <typename T> static Operands<T> operands(const fb_call *c, bool bias, bool res) {
    const fb_tensor *x = &c->in[0];
    Operands<T> o;
    o.x = (const T *)x->data;
    o.bias = bias ? (const T *)c->in[1].data : nullptr;
    o.res = res ? (const T *)c->in[bias ? 2 : 1].data : nullptr;
    o.y = (T *)c->out[0].data;
    o.n = fb_shape_numel(&x->shape);
    o.W = x->shape.dim[x->shape.rank - 1];
    return o;
}

// The variant entry points. VEC: 16-byte packs where x, res and y are 16-byte aligned (the bias
// never needs to be); false forces one element per access (the fallback, as a variant of its own
// so that selftest covers it on aligned tensors too).
template <class Op, unsigned DTYPES> static int supports(const fb_call *c, char *why, size_t n) {
    return check<Op>(c, DTYPES, why, n);
}

template <class Op, unsigned DTYPES, Grid GRID, bool VEC, Hint H = Hint::plain> static int run(const fb_call *c) {
    const int s = check<Op>(c, DTYPES, nullptr, 0);
    if (s != FB_OK) {
        fb_error("%s: unsupported call (see supports)", Op::kName);
        return s;
    }
    const Op op = Op::make(c);
    int r = FB_E_UNSUPPORTED;
    FB_DISPATCH(c->in[0].dtype, T, {
        const Operands<T> o = operands<T>(c, Op::kBias, Op::kRes);
        if (o.n == 0) return FB_OK;
        const bool aligned = aligned16(o.x) && aligned16(o.y) && (!Op::kRes || aligned16(o.res));
        constexpr int P = 16 / (int)sizeof(T);
        r = VEC && aligned ? launch<T, P, Op, H>(o, op, GRID, c->stream) : launch<T, 1, Op, H>(o, op, GRID, c->stream);
    });
    return r;
}

}  // namespace ew
}  // namespace fb
