// primitives.cu — the kernels the eager interpreter is built from: one launch per
// primitive op, PyTorch-eager quality, plus seeded input fill and NaN poisoning.
// Half types are stored as half and computed in fp32; float64 computes in double.
// Every index is int64 (a 65536 x 65536 tensor has 2^32 elements); every grid is
// capped at 2^31-1 blocks in x and never uses y/z, with grid-stride loops behind
// the cap, so any shape launches.
//
// The op codes are primitives.h's; the op kinds (src/ops/op_*.c) launch these.
//
// unary_kernel: y = f(x). Each thread owns one 16-byte chunk (LDG.128/STG.128)
//   when x and y are 16-byte aligned, the last partial chunk element by element;
//   otherwise the same loop with 1-element chunks. One chunk per thread and
//   ceil(n / chunk / 256) blocks, as PyTorch's vectorized elementwise kernel:
//   many small blocks keep every SM's load queue full.
//
// binary: y = f(a, b) with numpy broadcasting. The host turns the broadcast into
//   per-operand element strides over y's dims (0 where an operand broadcasts),
//   drops size-1 dims and merges dims that are contiguous for every operand.
//   Nearly every real broadcast collapses to rank <= 2, a [M, W] view of y in
//   which each operand is one of
//     full (stride W, 1)      same shape as y             -> 16-byte loads
//     row  (stride 1, 0)      [..., R, 1]: x - rowmax     -> one load per chunk
//     col  (stride 0, 1)      [W] / [1, W]: x * weight    -> 16-byte loads (W % chunk == 0)
//     scalar (0, 0) / literal                             -> one load / a constant
//   binary2d_kernel handles all of these in one loop (the operand's kind is a
//   uniform branch, not a template: 28 instantiations instead of 448); a chunk's
//   (row, col) costs one division, done in 32 bits when the tensor allows.
//   binary_nd_kernel is the fallback for views that stay rank 3-4 after merging
//   ([A, B, C] + [A, 1, C]): per-element coordinate decomposition.
//   max/min propagate NaN as torch.maximum/minimum do.
//
// reduce over one dim, keepdim: the tensor is viewed as [outer, R, inner].
//   inner == 1 (last-dim reductions, the common case):
//     rows_group_kernel: G = 1..32 lanes of a warp per row (G = a quarter of the
//       row's 16-byte chunks, rounded up to a power of two), so short rows (up to
//       256 chunks) do not leave lanes idle, each lane has ~4 loads in flight, and
//       a warp finishes several rows; shuffle reduction.
//     rows_block_kernel: a block per row for long rows, 16-byte loads (each row's
//       misaligned head and tail are peeled, so any R vectorises), four
//       independent accumulators per thread for memory-level parallelism, then a
//       warp-shuffle + shared-memory block reduction.
//   inner > 1 (reductions over a leading dim):
//     cols_kernel: a block of (bx lanes over inner) x (by slices over R): lanes
//       read consecutive inner elements (coalesced, 16-byte chunks when inner
//       allows), slices split R, and a shared-memory tree combines the slices.
//   When the outputs are too few to fill the GPU (a handful of long rows; a
//   dim-0 reduction of a tall, narrow matrix) both kernels also split R across
//   `split` blocks: each block writes a partial to a module-level staging area,
//   and the last block of a group to arrive (threadfence + atomic ticket, as
//   PyTorch's reduce kernel does with its global semaphores) combines the
//   partials in block order — deterministic, one launch, no workspace. The
//   staging area is shared by all launches, so split reductions must not run
//   concurrently on several streams (fusionbench uses one stream).
//   sum/mean accumulate in fp32 (fp64 for float64); amax/amin propagate NaN.
//
// dropout_kernel: y = keep(seed, i) ? x * (1 / (1 - p)) : 0, the mask from
//   fb_random.h (the one hash shared with the reference and every fused kernel),
//   i the element's row-major index. 16-byte chunks as unary_kernel; the hash is
//   two 64-bit multiplies per element, hidden under the memory traffic.
//
// batchnorm_kernel: inference batch norm, y = (x - mean[c])·rsqrt(var[c] + eps)·gamma[c]
//   + beta[c], over x viewed as [outer, C, inner] (channels last: inner = 1; NCHW:
//   inner = H·W). 16-byte chunks of x and y as unary_kernel; the four per-channel
//   parameters are read per element through the read-only cache (C values each, so
//   they stay in L1/L2 and cost no DRAM traffic beyond the first touch). One division
//   per chunk finds its first element's channel (32-bit when the tensor allows), the
//   chunk's other elements step along from it.
//
// fill_kernel: element i = a pure function of (key, i): fb_fill_bits (src/fb_random.h,
//   one stream per seed and input, shared with the host-side tests), mapped to N(0,1)
//   by Box-Muller, U(-1,1) or U(0.5,1.5), in double, then rounded to the storage
//   dtype — identical on every run and GPU.
// fill_simplex_kernel (row_simplex): U(0.5,1.5) draws as fill_kernel's, each divided by its
//   row's sum (in double; one CTA a row): rows on the simplex, as a softmax output is, so a
//   row of one element is exactly 1. (Divided by the row's length instead, stop 37 found
//   softmax_backward's eager failing its check at W = 1 in the half types: a row of one
//   value in [0.5, 1.5], where dy - sum(y * dy) cancels at y ~ 1 and the half-rounded
//   product's error is no longer small beside the result.)
// fb_poison: cudaMemsetAsync 0xFF, a NaN in every float dtype.
#include "common.cuh"
#include "fb_random.h"
#include "primitives.h"

#include <limits.h>
#include <math.h>

#include <type_traits>

namespace {

using fb::acc_t;
using fb::from_acc;
using fb::to_acc;
using fb::vec;

constexpr int kBlock = 256;

// ---- math in the accumulation type ------------------------------------------
// Precise libdevice functions (expf, not __expf): results are checked against
// float64 with rtol 1e-5 for float32.
#define FB_MATH1(name, ff, df)                                          \
    __device__ __forceinline__ float name(float x) { return ff(x); }    \
    __device__ __forceinline__ double name(double x) { return df(x); }
FB_MATH1(m_exp, expf, exp)
FB_MATH1(m_log, logf, log)
FB_MATH1(m_cos, cosf, cos)
FB_MATH1(m_sin, sinf, sin)
FB_MATH1(m_tanh, tanhf, tanh)
FB_MATH1(m_sqrt, sqrtf, sqrt)
FB_MATH1(m_rsqrt, rsqrtf, rsqrt)
FB_MATH1(m_erf, erff, erf)
FB_MATH1(m_abs, fabsf, fabs)
#undef FB_MATH1
__device__ __forceinline__ float m_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double m_pow(double a, double b) { return pow(a, b); }

template <int OP, typename A> __device__ __forceinline__ A unary_op(A x)
{
    if constexpr (OP == FB_OP_NEG) return -x;
    else if constexpr (OP == FB_OP_ABS) return m_abs(x);
    else if constexpr (OP == FB_OP_EXP) return m_exp(x);
    else if constexpr (OP == FB_OP_LOG) return m_log(x);
    else if constexpr (OP == FB_OP_COS) return m_cos(x);
    else if constexpr (OP == FB_OP_SIN) return m_sin(x);
    else if constexpr (OP == FB_OP_TANH) return m_tanh(x);
    else if constexpr (OP == FB_OP_SQRT) return m_sqrt(x);
    else if constexpr (OP == FB_OP_RSQRT) return m_rsqrt(x);
    else if constexpr (OP == FB_OP_RELU) return x < A(0) ? A(0) : x;  // NaN stays NaN, as torch.relu
    else if constexpr (OP == FB_OP_SIGMOID) return A(1) / (A(1) + m_exp(-x));
    else if constexpr (OP == FB_OP_ERF) return m_erf(x);
    else if constexpr (OP == FB_OP_RECIPROCAL) return A(1) / x;
    else if constexpr (OP == FB_OP_SQUARE) return x * x;
    else if constexpr (OP == FB_OP_COPY) return x;
    else return A(0.5) * x * (A(1) + m_erf(x * A(M_SQRT1_2)));  // FB_OP_GELU: torch's exact (erf) form
}

template <int OP, typename A> __device__ __forceinline__ A binary_op(A a, A b)
{
    if constexpr (OP == FB_OP_ADD) return a + b;
    else if constexpr (OP == FB_OP_SUB) return a - b;
    else if constexpr (OP == FB_OP_MUL) return a * b;
    else if constexpr (OP == FB_OP_DIV) return a / b;
    else if constexpr (OP == FB_OP_MAX) return (a != a || a > b) ? a : b;  // b NaN: a > b false -> b
    else if constexpr (OP == FB_OP_MIN) return (a != a || a < b) ? a : b;
    else return m_pow(a, b);  // FB_OP_POW
}

// ---- reductions ---------------------------------------------------------------
template <int OP, typename A> __device__ __forceinline__ A red_init()
{
    if constexpr (OP == FB_OP_AMAX) return A(-INFINITY);
    else if constexpr (OP == FB_OP_AMIN) return A(INFINITY);
    else return A(0);
}
template <int OP, typename A> __device__ __forceinline__ A red_combine(A a, A b)
{
    if constexpr (OP == FB_OP_AMAX) return (a != a || a > b) ? a : b;  // NaN wins, as torch.amax
    else if constexpr (OP == FB_OP_AMIN) return (a != a || a < b) ? a : b;
    else return a + b;
}
template <int OP, typename A> __device__ __forceinline__ A red_finish(A a, int64_t R)
{
    if constexpr (OP == FB_OP_MEAN) return a / A(R);  // R == 0 gives NaN, as torch.mean
    else return a;
}

// Combine across the G lanes (a power of two <= 32) that share a row; every lane
// of the warp must take part.
template <int OP, typename A> __device__ __forceinline__ A group_reduce(A x, int G)
{
    for (int o = G >> 1; o > 0; o >>= 1) x = red_combine<OP>(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}

// Block-wide combine over blockDim.x threads (multiple of 32); every thread gets
// the result. The leading barrier lets the caller reuse `scratch` back to back.
template <int OP, typename A> __device__ __forceinline__ A block_reduce(A x, A *scratch)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    x = group_reduce<OP>(x, 32);
    __syncthreads();
    if (lane == 0) scratch[warp] = x;
    __syncthreads();
    x = lane < nwarps ? scratch[lane] : red_init<OP, A>();
    return group_reduce<OP>(x, 32);
}

// ---- launch helpers -------------------------------------------------------------
unsigned grid_for(int64_t work, int64_t per_block)
{
    int64_t g = (work + per_block - 1) / per_block;
    if (g < 1) g = 1;
    if (g > INT_MAX) g = INT_MAX;
    return (unsigned)g;
}

int sm_count()
{
    static int cached[64];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 132;
    if (cached[dev] == 0) {
        int n = 0;
        if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0) n = 132;
        cached[dev] = n;
    }
    return cached[dev];
}

int pow2_at_least(int64_t x, int cap)
{
    int g = 1;
    while (g < cap && g < x) g <<= 1;
    return g;
}

bool same_shape(const fb_shape &a, const fb_shape &b)
{
    if (a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; i++)
        if (a.dim[i] != b.dim[i]) return false;
    return true;
}

int valid_shape(const fb_shape &s)
{
    if (s.rank < 0 || s.rank > FB_MAX_RANK) return 0;
    for (int i = 0; i < s.rank; i++)
        if (s.dim[i] < 0) return 0;
    return 1;
}

// ================================================================================
// unary
// ================================================================================
template <typename T, int OP, int V>
__global__ void __launch_bounds__(kBlock) unary_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t n)
{
    const int64_t chunks = (n + V - 1) / V;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < chunks;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = t * V;
        if constexpr (V > 1) {
            if (i + V <= n) {
                vec<T> v = fb::load_vec(x + i);
#pragma unroll
                for (int j = 0; j < V; j++) v.v[j] = from_acc<T>(unary_op<OP>(to_acc(v.v[j])));
                fb::store_vec(y + i, v);
                continue;
            }
        }
        for (int64_t k = i; k < n && k < i + V; k++) y[k] = from_acc<T>(unary_op<OP>(to_acc(x[k])));
    }
}

template <typename T, int OP> cudaError_t launch_unary(const T *x, T *y, int64_t n, cudaStream_t s)
{
    constexpr int V = vec<T>::n;
    if (fb::aligned16(x) && fb::aligned16(y))
        unary_kernel<T, OP, V><<<grid_for((n + V - 1) / V, kBlock), kBlock, 0, s>>>(x, y, n);
    else
        unary_kernel<T, OP, 1><<<grid_for(n, kBlock), kBlock, 0, s>>>(x, y, n);
    return cudaGetLastError();
}

template <typename T> cudaError_t unary_dispatch(int op, const T *x, T *y, int64_t n, cudaStream_t s)
{
    switch (op) {
#define FB_U(o) case o: return launch_unary<T, o>(x, y, n, s);
    FB_U(FB_OP_NEG) FB_U(FB_OP_ABS) FB_U(FB_OP_EXP) FB_U(FB_OP_LOG) FB_U(FB_OP_COS)
    FB_U(FB_OP_SIN) FB_U(FB_OP_TANH) FB_U(FB_OP_SQRT) FB_U(FB_OP_RSQRT) FB_U(FB_OP_RELU)
    FB_U(FB_OP_SIGMOID) FB_U(FB_OP_ERF) FB_U(FB_OP_RECIPROCAL) FB_U(FB_OP_SQUARE) FB_U(FB_OP_GELU)
    FB_U(FB_OP_COPY)
#undef FB_U
    default: return cudaErrorInvalidValue;
    }
}

// ================================================================================
// binary
// ================================================================================
// One operand in the [M, W] view of y: element (r, c) sits at r*sr + c*sc.
struct Operand {
    const void *p;  // nullptr: the literal `lit`
    double lit;
    int64_t sr, sc;
    bool full_vec;  // full and 16-byte aligned: chunk loads at y's offset
    bool col_vec;   // col, W % V == 0 and aligned: chunk loads at the column
};

// The V (or fewer, `cnt`) operand values of the chunk starting at element i = (r, c).
template <typename T, int V>
__device__ __forceinline__ void load_chunk(const Operand &o, int64_t i, int64_t r, int64_t c, int64_t W,
                                           int cnt, acc_t<T> (&v)[V])
{
    using A = acc_t<T>;
    if (o.p == nullptr) {
#pragma unroll
        for (int j = 0; j < V; j++) v[j] = A(o.lit);
        return;
    }
    const T *p = static_cast<const T *>(o.p);
    if constexpr (V > 1) {
        if (cnt == V && (o.full_vec || o.col_vec)) {
            const vec<T> x = fb::load_vec(p + (o.full_vec ? i : c));
#pragma unroll
            for (int j = 0; j < V; j++) v[j] = to_acc(x.v[j]);
            return;
        }
    }
    if (o.sc == 0 && c + cnt <= W) {  // row or scalar, chunk within one row: one value
        const A s = to_acc(p[r * o.sr]);
#pragma unroll
        for (int j = 0; j < V; j++) v[j] = s;
        return;
    }
    int64_t rr = r, cc = c;
#pragma unroll
    for (int j = 0; j < V; j++) {
        if (j < cnt) v[j] = to_acc(p[rr * o.sr + cc * o.sc]);
        if (++cc == W) {
            cc = 0;
            ++rr;
        }
    }
}

template <typename T, int OP, int V>
__global__ void __launch_bounds__(kBlock)
    binary2d_kernel(Operand a, Operand b, T *__restrict__ y, int64_t n, int64_t W, bool idx32)
{
    using A = acc_t<T>;
    const int64_t chunks = (n + V - 1) / V;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < chunks;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = t * V;
        int64_t r, c;
        if (W == n) {
            r = 0;
            c = i;
        } else if (idx32) {  // 32-bit division is several times cheaper than 64-bit
            const uint32_t q = (uint32_t)i / (uint32_t)W;
            r = q;
            c = (int64_t)((uint32_t)i - q * (uint32_t)W);
        } else {
            r = i / W;
            c = i - r * W;
        }
        const int cnt = n - i < V ? (int)(n - i) : V;
        A va[V], vb[V];
        load_chunk<T, V>(a, i, r, c, W, cnt, va);
        load_chunk<T, V>(b, i, r, c, W, cnt, vb);
        if constexpr (V > 1) {
            if (cnt == V) {
                vec<T> out;
#pragma unroll
                for (int j = 0; j < V; j++) out.v[j] = from_acc<T>(binary_op<OP>(va[j], vb[j]));
                fb::store_vec(y + i, out);
                continue;
            }
        }
#pragma unroll
        for (int j = 0; j < V; j++)  // unrolled with a guard: a runtime index would put va/vb in local memory
            if (j < cnt) y[i + j] = from_acc<T>(binary_op<OP>(va[j], vb[j]));
    }
}

// Rank 3-4 views after merging: per-element coordinates.
struct NdView {
    int rank;
    int64_t dim[FB_MAX_RANK];
    int64_t sa[FB_MAX_RANK], sb[FB_MAX_RANK];
};

template <typename T, int OP>
__global__ void __launch_bounds__(kBlock) binary_nd_kernel(const T *__restrict__ a, double la, const T *__restrict__ b,
                                                           double lb, T *__restrict__ y, int64_t n, NdView v)
{
    using A = acc_t<T>;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x) {
        int64_t rest = t, oa = 0, ob = 0;
#pragma unroll
        for (int d = FB_MAX_RANK - 1; d >= 0; d--) {  // constant indices keep `v` out of local memory
            if (d >= v.rank) continue;
            const int64_t q = rest / v.dim[d], x = rest - q * v.dim[d];
            oa += x * v.sa[d];
            ob += x * v.sb[d];
            rest = q;
        }
        const A xa = a ? to_acc(a[oa]) : A(la);
        const A xb = b ? to_acc(b[ob]) : A(lb);
        y[t] = from_acc<T>(binary_op<OP>(xa, xb));
    }
}

// Broadcast strides of each operand over y's dims, size-1 dims dropped and dims
// merged where contiguous for both operands. Returns false if an operand does not
// broadcast to y.
bool broadcast_view(const fb_tensor *a, const fb_tensor *b, const fb_shape &ys, NdView &v)
{
    const fb_tensor *ops[2] = {a, b};
    int64_t st[2][FB_MAX_RANK] = {};
    for (int k = 0; k < 2; k++) {
        if (!ops[k]) continue;
        const fb_shape &s = ops[k]->shape;
        if (!valid_shape(s) || s.rank > ys.rank) return false;
        int64_t stride = 1;
        for (int d = s.rank - 1; d >= 0; d--) {
            const int yd = d + (ys.rank - s.rank);
            if (s.dim[d] == ys.dim[yd]) st[k][yd] = ys.dim[yd] == 1 ? 0 : stride;
            else if (s.dim[d] == 1) st[k][yd] = 0;
            else return false;
            stride *= s.dim[d];
        }
    }
    v.rank = 0;
    for (int d = 0; d < ys.rank; d++) {
        if (ys.dim[d] == 1) continue;
        if (v.rank > 0) {
            const int p = v.rank - 1;
            // merge into the previous (outer) dim when it steps by exactly this dim's extent
            if (v.sa[p] == st[0][d] * ys.dim[d] && v.sb[p] == st[1][d] * ys.dim[d]) {
                v.dim[p] *= ys.dim[d];
                v.sa[p] = st[0][d];
                v.sb[p] = st[1][d];
                continue;
            }
        }
        v.dim[v.rank] = ys.dim[d];
        v.sa[v.rank] = st[0][d];
        v.sb[v.rank] = st[1][d];
        v.rank++;
    }
    return true;
}

template <typename T, int OP>
cudaError_t launch_binary(const fb_tensor *a, double la, const fb_tensor *b, double lb, fb_tensor *y,
                          const NdView &v, int64_t n, cudaStream_t s)
{
    const T *pa = a ? static_cast<const T *>(a->data) : nullptr;
    const T *pb = b ? static_cast<const T *>(b->data) : nullptr;
    T *py = static_cast<T *>(y->data);
    if (v.rank <= 2) {
        constexpr int VW = vec<T>::n;
        const int64_t W = v.rank == 0 ? 1 : v.dim[v.rank - 1];
        const bool vec_ok = fb::aligned16(py);
        auto operand = [&](const T *p, double lit, const int64_t *st) {
            Operand o{p, lit, 0, 0, false, false};
            if (!p) return o;
            o.sc = v.rank == 0 ? 0 : st[v.rank - 1];
            o.sr = v.rank == 2 ? st[0] : 0;
            const bool full = o.sc == 1 && (v.rank < 2 || o.sr == W);
            o.full_vec = vec_ok && full && fb::aligned16(p);
            o.col_vec = vec_ok && o.sc == 1 && o.sr == 0 && W % VW == 0 && fb::aligned16(p);
            return o;
        };
        const Operand oa = operand(pa, la, v.sa), ob = operand(pb, lb, v.sb);
        const bool idx32 = n <= (int64_t)UINT32_MAX;
        if (vec_ok)
            binary2d_kernel<T, OP, VW><<<grid_for((n + VW - 1) / VW, kBlock), kBlock, 0, s>>>(oa, ob, py, n, W, idx32);
        else
            binary2d_kernel<T, OP, 1><<<grid_for(n, kBlock), kBlock, 0, s>>>(oa, ob, py, n, W, idx32);
    } else {
        binary_nd_kernel<T, OP><<<grid_for(n, kBlock), kBlock, 0, s>>>(pa, la, pb, lb, py, n, v);
    }
    return cudaGetLastError();
}

template <typename T>
cudaError_t binary_dispatch(int op, const fb_tensor *a, double la, const fb_tensor *b, double lb, fb_tensor *y,
                            const NdView &v, int64_t n, cudaStream_t s)
{
    switch (op) {
#define FB_B(o) case o: return launch_binary<T, o>(a, la, b, lb, y, v, n, s);
    FB_B(FB_OP_ADD) FB_B(FB_OP_SUB) FB_B(FB_OP_MUL) FB_B(FB_OP_DIV) FB_B(FB_OP_MAX) FB_B(FB_OP_MIN)
    FB_B(FB_OP_POW)
#undef FB_B
    default: return cudaErrorInvalidValue;
    }
}

// ================================================================================
// reduce
// ================================================================================
// Split-R staging: partials of blocks that share outputs, and one arrival ticket
// per group of such blocks. Tickets return to 0 when a group finishes.
constexpr int kMaxTickets = 4096;
constexpr int64_t kStageElems = 1 << 18;  // doubles: 2 MiB
__device__ unsigned g_tickets[kMaxTickets];
__device__ double g_stage[kStageElems];

// Called by every thread of a split block once part[0, width) holds the block's
// partials of its group's `width` outputs; part[width, width + threads) is
// scratch. Returns true in the last-arriving block of the group, whose part[]
// then holds the combination of all `split` partials, in a fixed order so the
// result does not depend on arrival order. Block size and width are powers of two.
template <int OP, typename A>
__device__ bool split_combine(A *part, int width, int64_t group, int s, int split, bool *am_last)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, nt = blockDim.x * blockDim.y;
    A *stage = reinterpret_cast<A *>(g_stage) + group * split * width;
    for (int k = tid; k < width; k += nt) stage[s * width + k] = part[k];
    __threadfence();  // partials visible device-wide before the ticket is taken
    __syncthreads();
    if (tid == 0) {
        const unsigned ticket = atomicAdd(&g_tickets[group], 1u);
        *am_last = ticket == (unsigned)split - 1;
        if (*am_last) g_tickets[group] = 0;  // every block of the group has arrived
    }
    __syncthreads();
    if (!*am_last) return false;
    __threadfence();
    // Threads as kt outputs (fastest: coalesced reads of a partial row) x pt
    // slices of the partials, then a shared-memory tree over the slices.
    const int kt = width < nt ? width : nt, pt = nt / kt;
    const int kk = tid % kt, p = tid / kt;
    A *tmp = part + width;
    for (int base = 0; base < width; base += kt) {
        A acc = red_init<OP, A>();
#pragma unroll 8  // independent loads: issue several before combining
        for (int j = p; j < split; j += pt) {
            const A *src = stage + (int64_t)j * width + base + kk;
            A x;  // from L2, never a stale L1 line
            if constexpr (sizeof(A) == 8) x = __longlong_as_double(__ldcg(reinterpret_cast<const long long *>(src)));
            else x = __ldcg(reinterpret_cast<const float *>(src));
            acc = red_combine<OP>(acc, x);
        }
        tmp[tid] = acc;
        for (int h = pt >> 1; h > 0; h >>= 1) {
            __syncthreads();
            if (p < h) tmp[tid] = red_combine<OP>(tmp[tid], tmp[tid + h * kt]);
        }
        __syncthreads();
        if (p == 0) part[base + kk] = tmp[kk];
        __syncthreads();
    }
    return true;
}

// Accumulate x[lo, hi) of one row into `acc` (4 independent chains), with `lane`
// of `G` threads: scalar head up to 16-byte alignment, 16-byte body, scalar tail.
template <typename T, int OP>
__device__ __forceinline__ acc_t<T> row_partial(const T *__restrict__ x, int64_t lo, int64_t hi, int lane, int G)
{
    using A = acc_t<T>;
    constexpr int V = vec<T>::n;
    A a0 = red_init<OP, A>(), a1 = a0, a2 = a0, a3 = a0;
    const int64_t mis = (int64_t)((reinterpret_cast<uintptr_t>(x + lo) & 15u) / sizeof(T));
    int64_t head = mis ? V - mis : 0;
    if (head > hi - lo) head = hi - lo;
    const int64_t body = lo + head, nv = (hi - body) / V, tail = body + nv * V;
    for (int64_t k = lo + lane; k < body; k += G) a0 = red_combine<OP>(a0, to_acc(x[k]));
    for (int64_t k = tail + lane; k < hi; k += G) a1 = red_combine<OP>(a1, to_acc(x[k]));
    const T *xv = x + body;
    int64_t k = lane;
    for (; k + 3 * (int64_t)G < nv; k += 4 * (int64_t)G) {
        const vec<T> v0 = fb::load_vec(xv + k * V), v1 = fb::load_vec(xv + (k + G) * V);
        const vec<T> v2 = fb::load_vec(xv + (k + 2 * G) * V), v3 = fb::load_vec(xv + (k + 3 * G) * V);
#pragma unroll
        for (int j = 0; j < V; j++) {
            a0 = red_combine<OP>(a0, to_acc(v0.v[j]));
            a1 = red_combine<OP>(a1, to_acc(v1.v[j]));
            a2 = red_combine<OP>(a2, to_acc(v2.v[j]));
            a3 = red_combine<OP>(a3, to_acc(v3.v[j]));
        }
    }
    for (; k < nv; k += G) {
        const vec<T> v0 = fb::load_vec(xv + k * V);
#pragma unroll
        for (int j = 0; j < V; j++) a0 = red_combine<OP>(a0, to_acc(v0.v[j]));
    }
    return red_combine<OP>(red_combine<OP>(a0, a1), red_combine<OP>(a2, a3));
}

// G lanes per row, kBlock / G rows per block.
template <typename T, int OP>
__global__ void __launch_bounds__(kBlock)
    rows_group_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t R, int G)
{
    const int lane = threadIdx.x & (G - 1);
    const int64_t per_block = kBlock / G;
    for (int64_t base = blockIdx.x * per_block; base < rows; base += (int64_t)gridDim.x * per_block) {
        const int64_t row = base + threadIdx.x / G;
        acc_t<T> acc = red_init<OP, acc_t<T>>();
        if (row < rows) acc = row_partial<T, OP>(x + row * R, 0, R, lane, G);
        acc = group_reduce<OP>(acc, G);  // all lanes, also those past the last row
        if (row < rows && lane == 0) y[row] = from_acc<T>(red_finish<OP>(acc, R));
    }
}

// A block per row, or `split` blocks per row (blockIdx.x = row * split + slice)
// when rows are too few to fill the GPU.
template <typename T, int OP>
__global__ void __launch_bounds__(512)
    rows_block_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t R, int split)
{
    using A = acc_t<T>;
    __shared__ A scratch[32];
    __shared__ A result[1 + 512];  // the row's value, then split_combine's scratch
    __shared__ bool am_last;
    const int64_t slice_len = (R + split - 1) / split;
    for (int64_t b = blockIdx.x; b < rows * split; b += gridDim.x) {
        const int64_t row = b / split;
        const int s = (int)(b - row * split);
        const int64_t lo = s * slice_len < R ? s * slice_len : R;
        const int64_t hi = lo + slice_len < R ? lo + slice_len : R;
        A acc = row_partial<T, OP>(x + row * R, lo, hi, threadIdx.x, blockDim.x);
        acc = block_reduce<OP>(acc, scratch);
        if (split > 1) {
            if (threadIdx.x == 0) result[0] = acc;
            if (!split_combine<OP>(result, 1, row, s, split, &am_last)) continue;
            acc = result[0];
        }
        if (threadIdx.x == 0) y[row] = from_acc<T>(red_finish<OP>(acc, R));
    }
}

// V consecutive elements: one 16-byte load, or (V == 1) one element in v[0].
template <typename T, int V> __device__ __forceinline__ vec<T> load_cols(const T *p)
{
    if constexpr (V > 1) return fb::load_vec(p);
    vec<T> r;
    r.v[0] = *p;
    return r;
}

// Reduction over R of an [outer, R, inner] view with inner > 1. blockDim = (bx, by):
// x over chunks of V inner elements, y over R (with `split` blocks per output
// group when outputs are few). blockIdx.x = group * split + slice.
template <typename T, int OP, int V>
__global__ void __launch_bounds__(512)
    cols_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t outer, int64_t R, int64_t inner, int split)
{
    using A = acc_t<T>;
    __shared__ A part[512 * V + 512];  // slices' partials; split_combine's scratch after bx * V
    __shared__ bool am_last;
    const int bx = blockDim.x, by = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
    const int64_t chunks = inner / V;  // V > 1 only when V divides inner
    const int64_t col_blocks = (chunks + bx - 1) / bx;
    const int64_t groups = outer * col_blocks;
    const int64_t slice_len = (R + split - 1) / split;
    for (int64_t b = blockIdx.x; b < groups * split; b += gridDim.x) {
        const int64_t g = b / split;
        const int s = (int)(b - g * split);
        const int64_t o = g / col_blocks, chunk = (g - o * col_blocks) * bx + tx;
        const int64_t lo = s * slice_len < R ? s * slice_len : R;
        const int64_t hi = lo + slice_len < R ? lo + slice_len : R;
        A acc[V];
#pragma unroll
        for (int j = 0; j < V; j++) acc[j] = red_init<OP, A>();
        if (chunk < chunks) {
            const T *p = x + o * R * inner + chunk * V;
            int64_t r = lo + ty;
            for (; r + 3 * by < hi; r += 4 * by) {  // four loads in flight per thread
                vec<T> v[4];
#pragma unroll
                for (int u = 0; u < 4; u++) v[u] = load_cols<T, V>(p + (r + u * by) * inner);
#pragma unroll
                for (int u = 0; u < 4; u++)
#pragma unroll
                    for (int j = 0; j < V; j++) acc[j] = red_combine<OP>(acc[j], to_acc(v[u].v[j]));
            }
            for (; r < hi; r += by) {
                const vec<T> v0 = load_cols<T, V>(p + r * inner);
#pragma unroll
                for (int j = 0; j < V; j++) acc[j] = red_combine<OP>(acc[j], to_acc(v0.v[j]));
            }
        }
        // combine the by slices: a tree over shared memory
        __syncthreads();  // the previous iteration's readers are done with `part`
#pragma unroll
        for (int j = 0; j < V; j++) part[(ty * bx + tx) * V + j] = acc[j];
        for (int h = by >> 1; h > 0; h >>= 1) {
            __syncthreads();
            if (ty < h) {
#pragma unroll
                for (int j = 0; j < V; j++) {
                    A &d = part[(ty * bx + tx) * V + j];
                    d = red_combine<OP>(d, part[((ty + h) * bx + tx) * V + j]);
                }
            }
        }
        __syncthreads();
        // part[k], k < bx * V, now holds output k of the group (inner index base + k)
        if (split > 1 && !split_combine<OP>(part, bx * V, g, s, split, &am_last)) continue;
        const int64_t base = (g - o * col_blocks) * bx * V;
        for (int k = ty * bx + tx; k < bx * V; k += bx * by)
            if (base + k < inner) y[o * inner + base + k] = from_acc<T>(red_finish<OP>(part[k], R));
    }
}

// How many blocks share one output group: enough for ~4 blocks per SM when the
// groups alone leave SMs idle, while each slice keeps `min_per_slice` elements.
// The last block of a group reads all split x width partials from L2 alone, so
// they stay under 16K (64 KiB of fp32): measured on H100, larger splits of a
// dim-0 reduction ([65536, 128], [2^20, 256]) were slower, not faster.
int choose_split(int64_t groups, int64_t R, int64_t min_per_slice, int64_t width)
{
    const int64_t target = 4LL * sm_count();
    if (groups >= target / 2 || groups > kMaxTickets) return 1;
    int64_t split = target / groups;
    if (split > R / min_per_slice) split = R / min_per_slice;
    if (split > 16384 / width) split = 16384 / width;
    while (split > 1 && groups * split * width > kStageElems) split--;
    return split < 1 ? 1 : (int)split;
}

template <typename T, int OP>
cudaError_t launch_reduce(const T *x, T *y, int64_t outer, int64_t R, int64_t inner, cudaStream_t s)
{
    constexpr int V = vec<T>::n;
    if (inner == 1) {
        const int64_t rows = outer, nv = (R + V - 1) / V;
        if (nv <= 256) {  // a warp or less per row, ~4 chunks (4 loads in flight) per lane
            const int G = pow2_at_least((nv + 3) / 4, 32);
            rows_group_kernel<T, OP><<<grid_for(rows * G, kBlock), kBlock, 0, s>>>(x, y, rows, R, G);
        } else {
            const int split = choose_split(rows, R, 2048, 1);
            // ~8 chunks (two rounds of 4 loads) per thread, 128..512 threads
            int threads = pow2_at_least((nv / split + 7) / 8, 512);
            if (threads < 128) threads = 128;
            rows_block_kernel<T, OP><<<grid_for(rows * split, 1), threads, 0, s>>>(x, y, rows, R, split);
        }
        return cudaGetLastError();
    }
    auto go = [&](auto vtag) {
        constexpr int VV = decltype(vtag)::value;
        const int64_t chunks = inner / VV;
        const int bx = pow2_at_least(chunks, 32);
        const int64_t col_blocks = (chunks + bx - 1) / bx, groups = outer * col_blocks;
        // slices over R: enough threads to fill the GPU, and at most ~256 rows per
        // thread so fp32 sums stay accurate
        const int64_t want = 2048LL * sm_count();
        int by = 1;
        while (bx * by < 512 && by < R && (groups * bx * by < want || R / by > 256)) by <<= 1;
        const int split = choose_split(groups, R, 8LL * by, (int64_t)bx * VV);
        const dim3 block(bx, by);
        cols_kernel<T, OP, VV><<<grid_for(groups * split, 1), block, 0, s>>>(x, y, outer, R, inner, split);
    };
    if (inner % V == 0 && fb::aligned16(x) && fb::aligned16(y))
        go(std::integral_constant<int, V>{});
    else
        go(std::integral_constant<int, 1>{});
    return cudaGetLastError();
}

template <typename T>
cudaError_t reduce_dispatch(int op, const T *x, T *y, int64_t outer, int64_t R, int64_t inner, cudaStream_t s)
{
    switch (op) {
    case FB_OP_SUM: return launch_reduce<T, FB_OP_SUM>(x, y, outer, R, inner, s);
    case FB_OP_AMAX: return launch_reduce<T, FB_OP_AMAX>(x, y, outer, R, inner, s);
    case FB_OP_AMIN: return launch_reduce<T, FB_OP_AMIN>(x, y, outer, R, inner, s);
    case FB_OP_MEAN: return launch_reduce<T, FB_OP_MEAN>(x, y, outer, R, inner, s);
    default: return cudaErrorInvalidValue;
    }
}

// ================================================================================
// dropout
// ================================================================================
template <typename T, int V>
__global__ void __launch_bounds__(kBlock)
    dropout_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t n, uint64_t seed, uint32_t threshold,
                   acc_t<T> scale)
{
    const int64_t chunks = (n + V - 1) / V;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < chunks;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = t * V;
        if constexpr (V > 1) {
            if (i + V <= n) {
                vec<T> v = fb::load_vec(x + i);
#pragma unroll
                for (int j = 0; j < V; j++)
                    v.v[j] = fb_dropout_keep(seed, (uint64_t)(i + j), threshold) ? from_acc<T>(to_acc(v.v[j]) * scale)
                                                                                 : from_acc<T>(acc_t<T>(0));
                fb::store_vec(y + i, v);
                continue;
            }
        }
        for (int64_t k = i; k < n && k < i + V; k++)
            y[k] = fb_dropout_keep(seed, (uint64_t)k, threshold) ? from_acc<T>(to_acc(x[k]) * scale)
                                                                 : from_acc<T>(acc_t<T>(0));
    }
}

template <typename T>
cudaError_t launch_dropout(const T *x, T *y, int64_t n, double p, uint64_t seed, cudaStream_t s)
{
    constexpr int V = vec<T>::n;
    const uint32_t threshold = fb_dropout_threshold(p);
    const acc_t<T> scale = (acc_t<T>)(1.0 / (1.0 - p));  // x * (1 / (1 - p)), the scale rounded once
    if (fb::aligned16(x) && fb::aligned16(y))
        dropout_kernel<T, V><<<grid_for((n + V - 1) / V, kBlock), kBlock, 0, s>>>(x, y, n, seed, threshold, scale);
    else
        dropout_kernel<T, 1><<<grid_for(n, kBlock), kBlock, 0, s>>>(x, y, n, seed, threshold, scale);
    return cudaGetLastError();
}

// ================================================================================
// batchnorm (inference)
// ================================================================================
template <typename T, int V, typename I>
__global__ void __launch_bounds__(kBlock)
    batchnorm_kernel(const T *__restrict__ x, const T *__restrict__ mean, const T *__restrict__ var,
                     const T *__restrict__ gamma, const T *__restrict__ beta, T *__restrict__ y, int64_t n, I C,
                     I inner, acc_t<T> eps)
{
    using A = acc_t<T>;
    const int64_t chunks = (n + V - 1) / V;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < chunks;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = t * V;
        const I q = (I)i / inner;
        I rem = (I)i - q * inner, c = q % C;
        const int cnt = n - i < V ? (int)(n - i) : V;
        A v[V];
        if constexpr (V > 1) {
            if (cnt == V) {
                const vec<T> in = fb::load_vec(x + i);
#pragma unroll
                for (int j = 0; j < V; j++) v[j] = to_acc(in.v[j]);
            } else {
                for (int j = 0; j < cnt; j++) v[j] = to_acc(x[i + j]);
            }
        } else {
            v[0] = to_acc(x[i]);
        }
#pragma unroll
        for (int j = 0; j < V; j++) {
            if (j < cnt) {
                const A rstd = m_rsqrt(to_acc(var[c]) + eps);
                v[j] = (v[j] - to_acc(mean[c])) * rstd * to_acc(gamma[c]) + to_acc(beta[c]);
                if (++rem == inner) {
                    rem = 0;
                    if (++c == C) c = 0;
                }
            }
        }
        if constexpr (V > 1) {
            if (cnt == V) {
                vec<T> out;
#pragma unroll
                for (int j = 0; j < V; j++) out.v[j] = from_acc<T>(v[j]);
                fb::store_vec(y + i, out);
                continue;
            }
        }
        for (int j = 0; j < cnt; j++) y[i + j] = from_acc<T>(v[j]);
    }
}

template <typename T, typename I>
cudaError_t launch_batchnorm(const T *x, const T *mean, const T *var, const T *gamma, const T *beta, T *y, int64_t n,
                             int64_t C, int64_t inner, double eps, cudaStream_t s)
{
    constexpr int V = vec<T>::n;
    const acc_t<T> e = (acc_t<T>)eps;
    if (fb::aligned16(x) && fb::aligned16(y))
        batchnorm_kernel<T, V, I><<<grid_for((n + V - 1) / V, kBlock), kBlock, 0, s>>>(x, mean, var, gamma, beta, y, n,
                                                                                      (I)C, (I)inner, e);
    else
        batchnorm_kernel<T, 1, I><<<grid_for(n, kBlock), kBlock, 0, s>>>(x, mean, var, gamma, beta, y, n, (I)C,
                                                                        (I)inner, e);
    return cudaGetLastError();
}

// ================================================================================
// fill
// ================================================================================
template <typename T>
__global__ void __launch_bounds__(kBlock) fill_kernel(T *__restrict__ y, int64_t n, int init, uint64_t key)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const uint64_t h = fb_fill_bits(key, (uint64_t)i);
        double v;
        if (init == FB_INIT_NORMAL) {
            const double u1 = ((double)(h >> 32) + 1.0) * 0x1p-32;  // (0, 1]: log is finite
            const double u2 = (double)(h & 0xffffffffu) * 0x1p-32;   // [0, 1)
            v = sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
        } else {
            const double u = (double)(h >> 11) * 0x1p-53;  // [0, 1)
            v = init == FB_INIT_UNIFORM ? 2.0 * u - 1.0 : 0.5 + u;
        }
        y[i] = from_acc<T>((acc_t<T>)v);
    }
}

// U(0.5, 1.5), the positive fill's draw of element i
__device__ __forceinline__ double positive_draw(uint64_t key, int64_t i)
{
    return 0.5 + (double)(fb_fill_bits(key, (uint64_t)i) >> 11) * 0x1p-53;
}

template <typename T>
__global__ void __launch_bounds__(kBlock) fill_simplex_kernel(T *__restrict__ y, int64_t rows, int64_t W, uint64_t key)
{
    __shared__ double part[kBlock / 32];
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const int64_t base = r * W;
        double s = 0;
        for (int64_t j = threadIdx.x; j < W; j += blockDim.x) s += positive_draw(key, base + j);
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
        __syncthreads();
        double sum = 0;
        for (int w = 0; w < kBlock / 32; w++) sum += part[w];  // every thread, the same order
        __syncthreads();  // part is rewritten by the next row
        const double inv = 1.0 / sum;
        for (int64_t j = threadIdx.x; j < W; j += blockDim.x) y[base + j] = from_acc<T>((acc_t<T>)(positive_draw(key, base + j) * inv));
    }
}

}  // namespace

// ================================================================================
// C entry points
// ================================================================================
extern "C" int fb_prim_unary(int op, const fb_tensor *x, fb_tensor *y, cudaStream_t stream)
{
    if (!x || !y || x->dtype != y->dtype || !valid_shape(x->shape) || !same_shape(x->shape, y->shape) ||
        op < 0 || op >= FB_NUNARY)
        return (int)cudaErrorInvalidValue;
    const int64_t n = fb_shape_numel(&y->shape);
    if (n == 0) return 0;
    cudaError_t e = cudaErrorInvalidValue;
    FB_DISPATCH(x->dtype, T, e = unary_dispatch<T>(op, static_cast<const T *>(x->data), static_cast<T *>(y->data), n, stream));
    return (int)e;
}

extern "C" int fb_prim_binary(int op, const fb_tensor *a, double la, const fb_tensor *b, double lb, fb_tensor *y,
                              cudaStream_t stream)
{
    if (!y || !valid_shape(y->shape) || (a && a->dtype != y->dtype) || (b && b->dtype != y->dtype) || op < 0 ||
        op >= FB_NBINARY)
        return (int)cudaErrorInvalidValue;
    NdView v;
    if (!broadcast_view(a, b, y->shape, v)) return (int)cudaErrorInvalidValue;
    const int64_t n = fb_shape_numel(&y->shape);
    if (n == 0) return 0;
    cudaError_t e = cudaErrorInvalidValue;
    FB_DISPATCH(y->dtype, T, e = binary_dispatch<T>(op, a, la, b, lb, y, v, n, stream));
    return (int)e;
}

extern "C" int fb_prim_reduce(int op, const fb_tensor *x, int dim, fb_tensor *y, cudaStream_t stream)
{
    if (!x || !y || x->dtype != y->dtype || !valid_shape(x->shape) || dim < 0 || dim >= x->shape.rank ||
        op < 0 || op >= FB_NREDUCE)
        return (int)cudaErrorInvalidValue;
    fb_shape want = x->shape;
    want.dim[dim] = 1;
    if (!same_shape(want, y->shape)) return (int)cudaErrorInvalidValue;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim; d++) outer *= x->shape.dim[d];
    for (int d = dim + 1; d < x->shape.rank; d++) inner *= x->shape.dim[d];
    const int64_t R = x->shape.dim[dim];
    if (outer * inner == 0) return 0;  // no outputs (R == 0 still writes 0 / -inf / NaN)
    cudaError_t e = cudaErrorInvalidValue;
    FB_DISPATCH(x->dtype, T,
                e = reduce_dispatch<T>(op, static_cast<const T *>(x->data), static_cast<T *>(y->data), outer, R, inner,
                                       stream));
    return (int)e;
}

extern "C" int fb_prim_dropout(const fb_tensor *x, double p, uint64_t seed, fb_tensor *y, cudaStream_t stream)
{
    if (!x || !y || x->dtype != y->dtype || !valid_shape(x->shape) || !same_shape(x->shape, y->shape) ||
        !(p >= 0.0 && p < 1.0))
        return (int)cudaErrorInvalidValue;
    const int64_t n = fb_shape_numel(&y->shape);
    if (n == 0) return 0;
    cudaError_t e = cudaErrorInvalidValue;
    FB_DISPATCH(x->dtype, T,
                e = launch_dropout<T>(static_cast<const T *>(x->data), static_cast<T *>(y->data), n, p, seed, stream));
    return (int)e;
}

extern "C" int fb_prim_batchnorm(const fb_tensor *x, const fb_tensor *mean, const fb_tensor *var,
                                 const fb_tensor *gamma, const fb_tensor *beta, double eps, int channel_dim,
                                 fb_tensor *y, cudaStream_t stream)
{
    if (!x || !y || !valid_shape(x->shape) || !same_shape(x->shape, y->shape) || x->dtype != y->dtype ||
        channel_dim < 0 || channel_dim >= x->shape.rank)
        return (int)cudaErrorInvalidValue;
    const int64_t C = x->shape.dim[channel_dim];
    const fb_tensor *params[4] = {mean, var, gamma, beta};
    for (const fb_tensor *p : params)
        if (!p || p->dtype != x->dtype || p->shape.rank != 1 || p->shape.dim[0] != C) return (int)cudaErrorInvalidValue;
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < x->shape.rank; d++) inner *= x->shape.dim[d];
    const int64_t n = fb_shape_numel(&x->shape);
    if (n == 0) return 0;
    cudaError_t e = cudaErrorInvalidValue;
    const bool idx32 = n <= (int64_t)UINT32_MAX;
    FB_DISPATCH(x->dtype, T, {
        const T *px = static_cast<const T *>(x->data), *pm = static_cast<const T *>(mean->data),
                *pv = static_cast<const T *>(var->data), *pg = static_cast<const T *>(gamma->data),
                *pb = static_cast<const T *>(beta->data);
        T *py = static_cast<T *>(y->data);
        e = idx32 ? launch_batchnorm<T, uint32_t>(px, pm, pv, pg, pb, py, n, C, inner, eps, stream)
                  : launch_batchnorm<T, int64_t>(px, pm, pv, pg, pb, py, n, C, inner, eps, stream);
    });
    return (int)e;
}

extern "C" int fb_fill(fb_tensor *t, fb_init init, uint64_t key, cudaStream_t stream)
{
    if (!t || !valid_shape(t->shape) || init < 0 || init >= FB_NINITS) return (int)cudaErrorInvalidValue;
    const int64_t n = fb_shape_numel(&t->shape);
    if (n == 0) return 0;
    cudaError_t e = cudaErrorInvalidValue;
    if (init == FB_INIT_ROW_SIMPLEX) {
        const int64_t W = t->shape.rank > 0 ? t->shape.dim[t->shape.rank - 1] : 1, rows = n / W;
        const unsigned blocks = (unsigned)(rows < 65536 ? rows : 65536);
        FB_DISPATCH(t->dtype, T, fill_simplex_kernel<T><<<blocks, kBlock, 0, stream>>>(static_cast<T *>(t->data), rows, W, key);
                    e = cudaGetLastError());
        return (int)e;
    }
    FB_DISPATCH(t->dtype, T, fill_kernel<T><<<grid_for(n, kBlock), kBlock, 0, stream>>>(static_cast<T *>(t->data), n, (int)init, key);
                e = cudaGetLastError());
    return (int)e;
}

extern "C" int fb_poison(fb_tensor *t, cudaStream_t stream)
{
    if (!t || !valid_shape(t->shape)) return (int)cudaErrorInvalidValue;
    const int64_t n = fb_shape_numel(&t->shape);
    if (n == 0) return 0;
    return (int)cudaMemsetAsync(t->data, 0xFF, (size_t)n * fb_dtype_size(t->dtype), stream);
}
