// racecheck_mbarrier_dev.cu — does compute-sanitizer's racecheck follow mbarrier phases? (dev
// experiment, issue 9)
//
// rmsnorm_backward's out-of-phase steps (rowgroup.cuh: groups_publish / groups_collect) order
// shared-memory writes and reads with an mbarrier, not a CTA barrier, and racecheck reports
// hazards on them (NOTES.md, stop 24). Whether that is the protocol or the tool is what this
// file tells apart, with one small kernel per ordering, each run in its own racecheck process:
//   none         warp 0 writes a shared word, warp 1 reads it, nothing between: a real race
//                (a positive control: racecheck must report it)
//   syncthreads  the same with __syncthreads() between (the negative control: no report)
//   mbarrier     the textbook producer/consumer: warp 0's lane 0 writes, arrives (release) on an
//                mbarrier of count 1; warp 1 waits for phase 0 (acquire), then reads. Correct
//                by the PTX memory model (mbarrier.arrive has release, try_wait acquire
//                semantics at CTA scope)
//   groups       rowgroup.cuh's own groups_publish / groups_collect (an arrival a thread since
//                stop 27), two warps as one group of 64 threads, 64 steps alternating the two
//                slots, every step's sum checked
//   groups_nowait  the same with the collect's wait left out: a real race (positive control)
//   groups_lane0   the same as groups with the stop-24 form of the publish: lane 0 writes and
//                arrives for its warp after a __syncwarp (one arrival a warp), which is what
//                racecheck reported in rmsnorm_backward (stop 24)
//   groups_all   every lane arrives for itself (an arrival a thread): each reader's own arrive
//                orders its reads before the next writer's wait, with no __syncwarp in the chain
//                (written out here: the library's form since stop 27)
// Measured (H100, the device's compute-sanitizer, results/h100/stop27/ call 2): none 0
// hazards (racecheck did not fire on that single pair), syncthreads 0, mbarrier 0, groups_nowait
// 1012 errors, groups_lane0 266 errors with every sum right, groups_all 0 with every sum right.
// Each prints the sums it read and whether they are right; racecheck's count is in its output.
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -Ikernels dev/racecheck_mbarrier_dev.cu -o /tmp/rcm
// Run:   compute-sanitizer --tool racecheck --racecheck-report all /tmp/rcm MODE
#include "rowgroup.cuh"

#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 2; } } while (0)

enum Mode { NONE, SYNCTHREADS, MBARRIER };
enum Publish { LIB, NOWAIT, LANE0, ALL };

template <int M> __global__ void one_word(int *out) {
    __shared__ int word;
    __shared__ __align__(8) uint64_t bar;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (threadIdx.x == 0) fb::mbar_init(&bar, 1);
    // the init, visible to every thread before its first use (every mode has this barrier, so
    // that the modes differ only in what orders the word's write and reads)
    __syncthreads();
    if (warp == 0 && lane == 0) {
        word = 42;
        if (M == MBARRIER) fb::mbar_arrive(&bar);
    }
    if (M == SYNCTHREADS) __syncthreads();
    if (warp == 1) {
        if (M == MBARRIER) fb::mbar_wait(&bar, 0);
        out[lane] = word;
    }
}

// Two warps, one group of G = 64: step i publishes (warp's sum of its lanes' values, lane 0 writes
// slot i & 1 and arrives) and collects (waits for phase i, adds both warps' slots).
template <int P> __global__ void groups_steps(float *out, int steps, unsigned arrivals) {
    using namespace fb::rowgroup;
    __shared__ float scratch[2 * 64 * 2];
    __shared__ __align__(8) uint64_t bar;
    if (threadIdx.x == 0) fb::mbar_init(&bar, arrivals);
    __syncthreads();
    for (int i = 0; i < steps; ++i) {
        // every thread contributes (i + 1) * (threadIdx.x + 1) and 1: the sums are exact in fp32
        float a = (float)((i + 1) * (threadIdx.x + 1)), b = 1.f;
        const int p = i & 1;
        if (P == LIB) {
            groups_publish(a, b, scratch, &bar, p);
            groups_collect(a, b, 64, scratch, &bar, p);
        } else {
            if (P == LANE0) __syncwarp();
            warp_sum2(a, b);
            if ((threadIdx.x & 31) == 0) slot_write2(scratch + p * 64, a, b);
            if (P == ALL || (threadIdx.x & 31) == 0) fb::mbar_arrive(&bar);
            if (P != NOWAIT) fb::mbar_wait(&bar, (uint32_t)p);
            group_read_sum2(a, b, 64, scratch + p * 64);
        }
        if (threadIdx.x == 0) {
            out[2 * i] = a;
            out[2 * i + 1] = b;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s none|syncthreads|mbarrier|groups|groups_nowait|groups_lane0|groups_all\n", argv[0]);
        return 2;
    }
    const char *m = argv[1];
    int bad = 0;
    if (!strncmp(m, "groups", 6)) {
        const int steps = 64;
        float *d, h[2 * steps];
        CK(cudaMalloc(&d, sizeof h));
        // an arrival a warp (groups_lane0) or a thread (the library's, groups_all)
        if (!strcmp(m, "groups")) groups_steps<LIB><<<1, 64>>>(d, steps, 64);
        else if (!strcmp(m, "groups_nowait")) groups_steps<NOWAIT><<<1, 64>>>(d, steps, 2);
        else if (!strcmp(m, "groups_lane0")) groups_steps<LANE0><<<1, 64>>>(d, steps, 2);
        else if (!strcmp(m, "groups_all")) groups_steps<ALL><<<1, 64>>>(d, steps, 64);
        else {
            fprintf(stderr, "unknown mode %s\n", m);
            return 2;
        }
        CK(cudaGetLastError());
        CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < steps; ++i) {
            const float want_a = (float)((i + 1) * (64 * 65 / 2)), want_b = 64.f;
            if (h[2 * i] != want_a || h[2 * i + 1] != want_b) ++bad;
        }
        printf("%s: %d steps, %d wrong sums\n", m, steps, bad);
    } else {
        int *d, h[32];
        CK(cudaMalloc(&d, sizeof h));
        if (!strcmp(m, "none")) one_word<NONE><<<1, 64>>>(d);
        else if (!strcmp(m, "syncthreads")) one_word<SYNCTHREADS><<<1, 64>>>(d);
        else if (!strcmp(m, "mbarrier")) one_word<MBARRIER><<<1, 64>>>(d);
        else {
            fprintf(stderr, "unknown mode %s\n", m);
            return 2;
        }
        CK(cudaGetLastError());
        CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 32; ++i) bad += h[i] != 42;
        printf("%s: %d of 32 reads wrong\n", m, bad);
    }
    return bad ? 1 : 0;
}
