// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/narrow_types.h"
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

/// double -> float rounded to odd: the float nearest toward zero, with its last bit set when inexact. Rounding that
/// to a narrower type (float16, bfloat16) gives the correctly rounded result of rounding the double directly, as
/// numpy does, with no double-rounding error.
float roundToOddFloat(double d);

/// Cast's attributes for the narrow types (opset 19 `saturate`, opset 24 `round_mode`).
struct CastOptions {
    bool saturate = true;
    E8M0Rounding round = E8M0Rounding::Up;
};
/// castTensor() with the narrow types too (docs/element-types.md): from a narrow type, the exact value (narrow
/// floats as float, narrow integers as int8/uint8) converted on as above; to a narrow float, the nearest value with
/// `options.saturate`'s overflow rules (narrowFromDouble()), to float8e8m0 as float8e8m0FromFloat() does; to a
/// narrow integer, integers wrap and floats truncate (0 when out of range), as ml_dtypes' astype does. Strings are
/// read as numbers.
Tensor castTensor(const Tensor& x, DataType to, const CastOptions& options);

} // namespace onnxscope
