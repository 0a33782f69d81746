// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"

namespace onnxscope {

/// `x` converted element by element to `to`, as ONNX's Cast does (numpy's astype, which generated ONNX's test data):
/// - float -> float16/bfloat16 and double -> float round to nearest even (double -> half without double rounding);
/// - to string: integers in decimal, bool as "True"/"False", floats in numpy's str() format (shortest round-trip);
/// - from string: Python float() syntax for floating types, decimal integers for integer types, "true"/"false" or a
///   number for bool;
/// - float -> integer truncates toward zero and saturates at the target's range, NaN becomes 0 (numpy's result is
///   platform-dependent there); integer -> integer wraps.
/// Every numeric type, bool and string; complex types are refused. A tensor already of type `to` is returned as is
/// (shared storage). Throws Error (without a node prefix) naming the element that cannot be converted.
Tensor castTensor(const Tensor& x, DataType to);

} // namespace onnxscope
