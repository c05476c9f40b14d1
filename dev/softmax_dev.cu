// softmax_dev.cu — standalone dev harness for kernels/softmax.cu (no project library needed).
//
// Build (here, no GPU needed; binaries go to build-softmax/, which .gitignore's build-*/ covers):
//   nvcc -gencode arch=compute_90a,code=sm_90a -std=c++17 --expt-relaxed-constexpr -O3 -lineinfo \
//        -DFB_SOFTMAX_DEV -I kernels -I src dev/softmax_dev.cu kernels/softmax.cu -o build-softmax/softmax_dev
// Run (on the GPU machine):
//   build-softmax/softmax_dev --small            every variant x dtype on small/odd shapes, NaN rows (sanitizer-sized)
//   build-softmax/softmax_dev --grid [--dtype T] the 10x10 dim0 x dim1 grid, softmax.fused, % of SOL per cell
//   build-softmax/softmax_dev --cells R:W,R:W [--dtype T]   chosen cells
//   build-softmax/softmax_dev --sweep            explicit plans on key float32 cells (tuning choose_plan)
//   build-softmax/softmax_dev --cells R:W --plan kind,vec,upt,r,g,threads,c   an explicit plan on chosen cells
//     (kind 0 warp_rows, 1 block/cluster rows, 2 two_pass, 4 smem_rows: threads = rows per tile,
//      c = CTAs per SM of the persistent grid, 0 = one CTA per tile)
//   options: --samples N (default 30), --min-mb M (grid: skip cells under M MB of ideal traffic)
//
// Per cell: x = seeded normals (made on the GPU), y poisoned with NaN, one checked run (every
// element tested for NaN on the GPU; a sample of rows compared with a CPU float64 softmax of
// the same x), then timing: each sample flushes L2 (cudaMemsetAsync of 256 MB), then events
// around the kernel only; median of N. Speed of light = cudaMemcpyAsync of half the ideal
// bytes (x -> y, so the same bytes read and written), timed the same way.
#include "softmax.h"
#include "common.cuh"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

// ---- stubs for the project library functions softmax.cu uses -----------------------------
static char g_err[1024];
extern "C" void fb_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
}
extern "C" fb_status fb_cuda_status(int err, const char *what, const char *file, int line) {
    if (err == 0) return FB_OK;
    fb_error("%s failed: %s at %s:%d", what, cudaGetErrorString((cudaError_t)err), file, line);
    return err == cudaErrorMemoryAllocation ? FB_E_OOM : FB_E_CUDA;
}
extern "C" size_t fb_dtype_size(fb_dtype d) {
    static const size_t s[] = {4, 2, 2, 8};
    return (unsigned)d < 4 ? s[d] : 0;
}
extern "C" int fb_softmax_dev_run(const fb_call *c, const int *plan_in, int *out_plan);

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// ---- device helpers ------------------------------------------------------------------------
__device__ __forceinline__ uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
template <typename T> __global__ void fill_normal(T *x, size_t n, uint64_t seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint64_t h = mix64(seed ^ mix64(i + 0x9e3779b97f4a7c15ULL));
        const float u1 = ((h >> 40) + 1) * (1.0f / 16777217.0f), u2 = ((h >> 16) & 0xffffff) * (1.0f / 16777216.0f);
        x[i] = fb::from_acc<T>(sqrtf(-2.f * logf(u1)) * cospif(2.f * u2));
    }
}
template <typename T> __global__ void count_nan(const T *y, size_t n, unsigned long long *cnt) {
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const float v = fb::to_acc(y[i]);
        c += (v != v);
    }
    if (c) atomicAdd(cnt, c);
}

static float host_to_f(const void *p, fb_dtype dt, size_t i) {
    if (dt == FB_F32) return ((const float *)p)[i];
    uint16_t h = ((const uint16_t *)p)[i];
    if (dt == FB_BF16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return __half2float(*(const __half *)&h);
}

// ---- the harness -------------------------------------------------------------------------
struct Ctx {
    void *x = nullptr, *y = nullptr, *flush = nullptr;
    size_t cap = 0;
    size_t flush_bytes = 256u << 20;
    unsigned long long *dcnt = nullptr;
    cudaStream_t st;
    int samples = 30;
};

static const char *dt_name(fb_dtype d) { return d == FB_F32 ? "float32" : d == FB_F16 ? "float16" : "bfloat16"; }

static void fill(Ctx &c, fb_dtype dt, size_t n, uint64_t seed) {
    FB_DISPATCH_FLOAT(dt, T, fill_normal<T><<<4096, 256, 0, c.st>>>((T *)c.x, n, seed));
    CK(cudaGetLastError());
}

struct Check {
    bool pass;
    double max_abs, max_rel, worst;  // worst = max |d| / (atol + rtol |ref|)
    unsigned long long nans;
};

static void tol_of(fb_dtype dt, double *atol, double *rtol) {
    if (dt == FB_F32) { *atol = 1e-6; *rtol = 1e-5; }
    else if (dt == FB_F16) { *atol = 1e-5; *rtol = 1e-2; }
    else { *atol = 1e-5; *rtol = 5e-2; }
}

// Compare sampled rows against a float64 softmax of the same x. Rows whose reference is NaN
// (x had a NaN) must be all NaN; elsewhere NaN fails.
static Check check(Ctx &c, fb_dtype dt, long rows, long W, bool nan_expected_rows) {
    Check r = {true, 0, 0, 0, 0};
    const size_t n = (size_t)rows * W, esz = fb_dtype_size(dt);
    CK(cudaMemsetAsync(c.dcnt, 0, sizeof *c.dcnt, c.st));
    FB_DISPATCH_FLOAT(dt, T, count_nan<T><<<2048, 256, 0, c.st>>>((const T *)c.y, n, c.dcnt));
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(&r.nans, c.dcnt, sizeof r.nans, cudaMemcpyDeviceToHost, c.st));
    CK(cudaStreamSynchronize(c.st));
    std::vector<long> pick;
    if (rows <= 64 || (size_t)rows * W <= (1u << 22)) {
        for (long i = 0; i < rows; ++i) pick.push_back(i);
    } else {
        for (int k = 0; k < 48; ++k) pick.push_back((long)((double)k * (rows - 1) / 47));
        pick.push_back(1);
        pick.push_back(rows - 2);
    }
    double atol, rtol;
    tol_of(dt, &atol, &rtol);
    const bool all = (long)pick.size() == rows;
    std::vector<char> hx((all ? n : W) * esz), hy((all ? n : W) * esz);
    std::vector<double> ref(W);
    if (all) {
        CK(cudaMemcpy(hx.data(), c.x, n * esz, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hy.data(), c.y, n * esz, cudaMemcpyDeviceToHost));
    }
    for (long row : pick) {
        const char *px = hx.data(), *py = hy.data();
        if (all) {
            px += (size_t)row * W * esz;
            py += (size_t)row * W * esz;
        } else {
            CK(cudaMemcpy(hx.data(), (char *)c.x + (size_t)row * W * esz, W * esz, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hy.data(), (char *)c.y + (size_t)row * W * esz, W * esz, cudaMemcpyDeviceToHost));
        }
        double m = -INFINITY;
        bool has_nan = false;
        for (long i = 0; i < W; ++i) {
            double v = host_to_f(px, dt, i);
            if (v != v) has_nan = true;
            m = std::max(m, v);
        }
        double s = 0;
        for (long i = 0; i < W; ++i) s += (ref[i] = exp((double)host_to_f(px, dt, i) - m));
        for (long i = 0; i < W; ++i) {
            const double out = host_to_f(py, dt, i);
            if (has_nan) {
                if (out == out) r.pass = false;
                continue;
            }
            const double rf = ref[i] / s, d = fabs(out - rf);
            if (!(d <= atol + rtol * fabs(rf))) r.pass = false;
            r.max_abs = std::max(r.max_abs, d);
            if (rf > 1e-3) r.max_rel = std::max(r.max_rel, d / rf);
            r.worst = std::max(r.worst, d / (atol + rtol * fabs(rf)));
            if (d != d) r.worst = INFINITY;
        }
    }
    if (!nan_expected_rows && r.nans) r.pass = false;
    return r;
}

static fb_call make_call(Ctx &c, fb_dtype dt, long rows, long W, fb_tensor *tx, fb_tensor *ty) {
    tx->data = c.x; tx->dtype = dt; tx->shape.rank = 2; tx->shape.dim[0] = rows; tx->shape.dim[1] = W;
    *ty = *tx;
    ty->data = c.y;
    fb_call call = {};
    call.in = tx; call.n_in = 1; call.out = ty; call.n_out = 1; call.stream = c.st;
    return call;
}

static double median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : v[v.size() / 2];
}

// Time `fn` with an L2 flush before each sample; median in microseconds.
template <typename F> static double time_it(Ctx &c, F fn, int samples) {
    for (int i = 0; i < 2; ++i) fn();
    CK(cudaStreamSynchronize(c.st));
    std::vector<cudaEvent_t> ev(2 * samples);
    for (auto &e : ev) CK(cudaEventCreate(&e));
    for (int i = 0; i < samples; ++i) {
        CK(cudaMemsetAsync(c.flush, i & 0xff, c.flush_bytes, c.st));
        CK(cudaEventRecord(ev[2 * i], c.st));
        fn();
        CK(cudaEventRecord(ev[2 * i + 1], c.st));
    }
    CK(cudaStreamSynchronize(c.st));
    std::vector<float> t(samples);
    for (int i = 0; i < samples; ++i) CK(cudaEventElapsedTime(&t[i], ev[2 * i], ev[2 * i + 1]));
    for (auto &e : ev) CK(cudaEventDestroy(e));
    return median(t) * 1e3;
}

static int g_fail = 0;

// One cell: check + time; plan == nullptr: auto (softmax.fused's choice).
static void cell(Ctx &c, fb_dtype dt, long rows, long W, const int *plan, const char *label, bool timed) {
    const size_t esz = fb_dtype_size(dt), n = (size_t)rows * W, bytes = n * esz;
    if (bytes > c.cap) {
        printf("%-8s %6ld %7ld  skipped (needs %.1f GB)\n", dt_name(dt), rows, W, bytes / 1e9);
        return;
    }
    fill(c, dt, n, 1234 + rows * 7 + W);
    CK(cudaMemsetAsync(c.y, 0xff, bytes, c.st));
    fb_tensor tx, ty;
    fb_call call = make_call(c, dt, rows, W, &tx, &ty);
    int used[7] = {0};
    int st = fb_softmax_dev_run(&call, plan, used);
    CK(cudaStreamSynchronize(c.st));
    CK(cudaGetLastError());
    char pl[96];
    snprintf(pl, sizeof pl, "%s k%d v%d u%d r%d g%d t%d c%d", label ? label : "auto", used[0], used[1], used[2],
             used[3], used[4], used[5], used[6]);
    if (st != FB_OK) {
        printf("%-8s %6ld %7ld  %-34s ERROR %d %s\n", dt_name(dt), rows, W, pl, st, g_err);
        g_fail++;
        return;
    }
    Check k = check(c, dt, rows, W, false);
    if (!k.pass) g_fail++;
    if (!timed) {
        printf("%-8s %6ld %7ld  %-34s maxabs %.2e maxrel %.2e worst %.3f nan %llu %s\n", dt_name(dt), rows, W, pl,
               k.max_abs, k.max_rel, k.worst, k.nans, k.pass ? "PASS" : "FAIL");
        return;
    }
    int samples = c.samples;
    const double t = time_it(c, [&] { fb_softmax_dev_run(&call, plan, nullptr); }, samples);
    const double tsol = time_it(c, [&] { CK(cudaMemcpyAsync(c.y, c.x, bytes, cudaMemcpyDeviceToDevice, c.st)); },
                                samples);
    const double ideal = 2.0 * bytes;
    printf("%-8s %6ld %7ld  %-34s %9.2f us %7.0f GB/s  sol %9.2f us  %5.1f%%  %6.1f MB  maxabs %.1e maxrel %.1e worst %.2f %s\n",
           dt_name(dt), rows, W, pl, t, ideal / t * 1e-3, tsol, 100.0 * tsol / t, ideal / 1e6, k.max_abs, k.max_rel,
           k.worst, k.pass ? "PASS" : "FAIL");
    fflush(stdout);
}

// --small: every variant (through the table) x dtype on small and odd shapes, plus a NaN row.
static void small_tests(Ctx &c) {
    const long shapes[][2] = {{1, 1},      {3, 61},    {7, 130},   {5, 1027},  {2, 65536}, {300, 4096},
                              {4, 262144}, {2, 300001}, {1, 600000}, {1000, 7}, {65537, 3}, {33, 2048},
                              {3, 32},     {9, 1000},  {17, 8200}, {6, 33000}, {2, 131072}, {129, 128}, {33, 1027}, {65, 130}, {40, 61}, {17, 5}, {9, 9}, {11, 1031}};
    const fb_dtype dts[] = {FB_F32, FB_F16, FB_BF16};
    for (fb_dtype dt : dts)
        for (auto &sh : shapes) {
            const long rows = sh[0], W = sh[1];
            const size_t esz = fb_dtype_size(dt), n = (size_t)rows * W;
            for (int v = 0; v < fb_softmax_variant_count; ++v) {
                const fb_variant *var = &fb_softmax_variants[v];
                fill(c, dt, n, 99 + v + rows * 3 + W);
                // A NaN in row 1 (if any) must poison that whole row and only it.
                const bool with_nan = rows >= 2;
                CK(cudaStreamSynchronize(c.st));  // the fill runs on a non-blocking stream
                if (with_nan) {
                    const uint32_t nanbits = 0x7fc00000u;
                    const uint16_t hnan = dt == FB_BF16 ? 0x7fc0 : 0x7e00;
                    CK(cudaMemcpy((char *)c.x + ((size_t)W + W / 2) * esz, dt == FB_F32 ? (const void *)&nanbits
                                                                                     : (const void *)&hnan,
                                  esz, cudaMemcpyHostToDevice));
                }
                CK(cudaMemsetAsync(c.y, 0xff, n * esz, c.st));
                fb_tensor tx, ty;
                fb_call call = make_call(c, dt, rows, W, &tx, &ty);
                char why[200] = "";
                if (var->supports && var->supports(&call, why, sizeof why) != FB_OK) {
                    printf("%-8s %6ld %7ld  %-20s unsupported: %s\n", dt_name(dt), rows, W, var->name, why);
                    continue;
                }
                void *ws = nullptr;
                const size_t wsb = var->workspace ? var->workspace(&call) : 0;
                if (wsb) CK(cudaMalloc(&ws, wsb));
                call.workspace = ws;
                call.workspace_bytes = wsb;
                const int st = var->run(&call);
                if (ws) {
                    CK(cudaStreamSynchronize(c.st));
                    CK(cudaFree(ws));
                }
                CK(cudaStreamSynchronize(c.st));
                if (st != FB_OK) {
                    printf("%-8s %6ld %7ld  %-20s ERROR %d %s\n", dt_name(dt), rows, W, var->name, st, g_err);
                    g_fail++;
                    continue;
                }
                Check k = check(c, dt, rows, W, with_nan);
                const bool nan_ok = !with_nan || k.nans == (unsigned long long)W;
                if (!nan_ok) k.pass = false;
                if (!k.pass) g_fail++;
                printf("%-8s %6ld %7ld  %-20s maxabs %.2e maxrel %.2e worst %.3f nan %llu %s\n", dt_name(dt), rows, W,
                       var->name, k.max_abs, k.max_rel, k.worst, k.nans, k.pass ? "PASS" : "FAIL");
            }
        }
}

int main(int argc, char **argv) {
    Ctx c;
    bool small = false, grid = false, sweep = false;
    std::string cells;
    int plan[7];
    bool have_plan = false;
    fb_dtype dt = FB_F32;
    double min_mb = 0;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--small") small = true;
        else if (a == "--grid") grid = true;
        else if (a == "--sweep") sweep = true;
        else if (a == "--cells" && i + 1 < argc) cells = argv[++i];
        else if (a == "--plan" && i + 1 < argc) {
            have_plan = sscanf(argv[++i], "%d,%d,%d,%d,%d,%d,%d", &plan[0], &plan[1], &plan[2], &plan[3], &plan[4],
                               &plan[5], &plan[6]) == 7;
            if (!have_plan) { fprintf(stderr, "--plan kind,vec,upt,r,g,threads,c\n"); return 2; }
        } else if (a == "--samples" && i + 1 < argc) c.samples = atoi(argv[++i]);
        else if (a == "--min-mb" && i + 1 < argc) min_mb = atof(argv[++i]);
        else if (a == "--dtype" && i + 1 < argc) {
            std::string d = argv[++i];
            dt = d == "float16" ? FB_F16 : d == "bfloat16" ? FB_BF16 : FB_F32;
        } else {
            fprintf(stderr, "usage: %s [--small] [--grid] [--sweep] [--cells R:W,...] [--dtype T] [--samples N]\n",
                    argv[0]);
            return 2;
        }
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
    CK(cudaStreamCreateWithFlags(&c.st, cudaStreamNonBlocking));
    size_t freeb, totalb;
    CK(cudaMemGetInfo(&freeb, &totalb));
    c.cap = small ? (64u << 20) : std::min<size_t>((size_t)65536 * 65536 * 4, (freeb - (2ull << 30)) / 2);
    if (small) c.flush_bytes = 1 << 20;
    CK(cudaMalloc(&c.x, c.cap));
    CK(cudaMalloc(&c.y, c.cap));
    CK(cudaMalloc(&c.flush, c.flush_bytes));
    CK(cudaMalloc(&c.dcnt, sizeof *c.dcnt));

    if (small) small_tests(c);
    const long dims[] = {128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
    if (grid)
        for (long r : dims)
            for (long w : dims)
                if (2.0 * r * w * fb_dtype_size(dt) >= min_mb * 1e6) cell(c, dt, r, w, nullptr, nullptr, true);
    if (!cells.empty()) {
        const char *p = cells.c_str();
        while (*p) {
            long r = strtol(p, (char **)&p, 10);
            if (*p == ':') ++p;
            long w = strtol(p, (char **)&p, 10);
            if (*p == ',') ++p;
            cell(c, dt, r, w, have_plan ? plan : nullptr, have_plan ? "plan" : nullptr, true);
        }
    }
    if (sweep) {
        // {kind, vec, upt, r, g, threads, c}
        struct S { fb_dtype dt; long rows, W; int plan[7]; } sw[] = {
            {FB_F32, 128, 65536, {1, 1, 8, 1, 32, 256, 8}},   {FB_F32, 128, 65536, {1, 1, 8, 1, 32, 512, 4}},
            {FB_F32, 256, 32768, {1, 1, 8, 1, 32, 256, 4}},   {FB_F32, 256, 32768, {1, 1, 8, 1, 32, 512, 2}},
            {FB_F16, 1024, 65536, {1, 1, 4, 1, 32, 256, 8}},  {FB_F16, 1024, 65536, {1, 1, 4, 1, 32, 512, 4}},
            {FB_F16, 512, 32768, {1, 1, 4, 1, 32, 256, 4}},   {FB_F16, 512, 32768, {1, 1, 4, 1, 32, 512, 2}},
            {FB_F16, 1024, 16384, {1, 1, 4, 1, 32, 512, 1}},  {FB_F16, 1024, 16384, {1, 1, 4, 1, 32, 256, 2}},
        };
        for (auto &s : sw) cell(c, s.dt, s.rows, s.W, s.plan, "plan", true);
    }
    printf("# failures: %d\n", g_fail);
    return g_fail ? 1 : 0;
}
