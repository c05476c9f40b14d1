// dev_check.h — the dev tools' CK (a CUDA runtime call) and LK (a cuBLAS(Lt) call): print the
// file, line, call and error, then exit(1). For the one-file tools under dev/ that include it
// (`#include "dev_check.h"`: found beside the .cu by its quoted include).
#pragma once

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)
#define LK(x)                                                                     \
    do {                                                                          \
        cublasStatus_t s_ = (x);                                                  \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                        \
            fprintf(stderr, "%s:%d %s: status %d\n", __FILE__, __LINE__, #x, s_); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)
