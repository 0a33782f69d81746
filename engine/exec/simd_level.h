// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

namespace onnxscope {

/// The instruction-set level the engine's vectorised float loops run with on this CPU: "baseline" (x86-64), "AVX2" or
/// "AVX-512" (the environment variable ONNXSCOPE_SIMD may choose a narrower one).
std::string_view simdLevelName();

} // namespace onnxscope
