// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <optional>
#include <string>

namespace onnxscope {

/// How far an element may be from its expected or reference value e: |a - e| <= atol + rtol * |e|.
struct Tolerance {
    double rtol = 1e-3;
    double atol = 1e-7;
};

/// Compares `actual` with `expected`: same kind, element type and shape, and every element within
/// |a - e| <= atol + rtol * |e| (NaN equals NaN, infinities must match; strings, bools and integers exactly). For
/// bfloat16 the relative tolerance is at least 2^-6, as in onnx's backend test runner.
/// Returns nullopt if they match, else a message naming the first mismatch (index, both values) and the count.
std::optional<std::string> compareValues(const Value& expected, const Value& actual, Tolerance tolerance = {});

} // namespace onnxscope
