// SPDX-License-Identifier: MIT
#include "engine/exec/simd_level.h"

#include "engine/kernels/simd/simd.h"

namespace onnxscope {

std::string_view simdLevelName()
{
    return simd::ops().name;
}

} // namespace onnxscope
