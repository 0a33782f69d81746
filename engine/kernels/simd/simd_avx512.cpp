// SPDX-License-Identifier: MIT
// simd_impl.h for x86-64-v4 (AVX-512 F/BW/CD/DQ/VL); engine/CMakeLists.txt compiles this file with
// -march=x86-64-v4.
#if defined(__x86_64__)
#define ONNXSCOPE_SIMD_LEVEL avx512
#define ONNXSCOPE_SIMD_NAME "AVX-512"
#define Eigen OnnxscopeEigenSimdAvx512
#include "engine/kernels/simd/simd_impl.h"
#endif
