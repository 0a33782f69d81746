// SPDX-License-Identifier: MIT
// simd_impl.h for x86-64-v3 (AVX2, FMA); engine/CMakeLists.txt compiles this file with -march=x86-64-v3.
#if defined(__x86_64__)
#define ONNXSCOPE_SIMD_LEVEL avx2
#define ONNXSCOPE_SIMD_NAME "AVX2"
#define Eigen OnnxscopeEigenSimdAvx2
#include "engine/kernels/simd/simd_impl.h"
#endif
