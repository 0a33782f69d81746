// SPDX-License-Identifier: MIT
#pragma once

// float16 and bfloat16 element types, from Eigen (round-to-nearest-even conversions, as numpy does).
// Include this only where half-precision elements are touched; it pulls in Eigen/Core.
#include <Eigen/Core>

#include "engine/core/data_type.h"

namespace onnxscope {

using Float16 = Eigen::half;
using BFloat16 = Eigen::bfloat16;

template <> struct DataTypeOf<Float16> {
    static constexpr DataType value = DataType::Float16;
};
template <> struct DataTypeOf<BFloat16> {
    static constexpr DataType value = DataType::BFloat16;
};

} // namespace onnxscope
