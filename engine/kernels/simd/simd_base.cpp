// SPDX-License-Identifier: MIT
// simd_impl.h at the build's baseline instruction set (x86-64 in portable builds).
#define ONNXSCOPE_SIMD_LEVEL base
#define ONNXSCOPE_SIMD_NAME "baseline"
#define Eigen OnnxscopeEigenSimdBase
#include "engine/kernels/simd/simd_impl.h"
