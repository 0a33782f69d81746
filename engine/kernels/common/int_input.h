// SPDX-License-Identifier: MIT
#pragma once

// Reading small integer inputs (shapes, axes) that some ops take as tensors. Include only from kernel .cpp files.

#include "engine/kernels/kernel.h"

#include <string>
#include <vector>

namespace onnxscope {

/// The elements of input `i` (int64, or int32 which some exporters write) as int64 values. It must be 1-D (or a
/// scalar, read as one value); otherwise an Error naming the node and `what`.
inline std::vector<int64_t> readIntList(const KernelContext& ctx, size_t i, const std::string& what)
{
    const Tensor& t = ctx.input(i);
    if (t.rank() > 1)
        throw ctx.error("input '" + what + "' must be 1-D, got " + t.typeString());
    if (t.dtype() == DataType::Int64) {
        auto d = t.data<int64_t>();
        return { d.begin(), d.end() };
    }
    if (t.dtype() == DataType::Int32) {
        auto d = t.data<int32_t>();
        return { d.begin(), d.end() };
    }
    throw ctx.error("input '" + what + "' must be int64, got " + t.typeString());
}

} // namespace onnxscope
