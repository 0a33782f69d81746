// SPDX-License-Identifier: MIT
#pragma once

// Include only from kernel .cpp files.

#include "engine/core/cast.h"
#include "engine/kernels/kernel.h"

namespace onnxscope {

/// Cast's and CastLike's `saturate` (opset 19, default 1) and `round_mode` (opset 24: "up" (default), "down",
/// "nearest"); Error for another round_mode. Defined in kernels/tensor/cast.cpp.
CastOptions castOptions(const KernelInit& init);

} // namespace onnxscope
