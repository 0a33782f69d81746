// SPDX-License-Identifier: MIT
#pragma once

// onnxruntime's NCHWc layout (the com.microsoft.nchwc operators): a 4-D float tensor [N, C, H, W] whose C is a multiple
// of the block size B, stored as [N, C / B, H, W, B]. Its declared shape stays [N, C, H, W], so element-wise ops,
// Concat on channels and Reshape run on it unchanged.

#include <cstdint>

namespace onnxscope::contrib {

/// The block size onnxruntime's CPU provider uses on this CPU (MLAS: 16 with AVX-512F, else 8), which is also the one
/// a model was written with when onnxruntime saved it on this CPU at the ORT_ENABLE_ALL level. It depends on the CPU,
/// not on the SIMD level the engine's loops were asked to use.
int64_t nchwcBlockSize();

} // namespace onnxscope::contrib
