// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace onnxscope {

/// Dimensions of a tensor, outermost first. A scalar has an empty shape.
using Shape = std::vector<int64_t>;

/// Number of elements; throws Error on a negative dim or when the product overflows int64.
int64_t elementCount(const Shape& shape);
/// "[2, 3, 4]" ("[]" for a scalar).
std::string shapeToString(const Shape& shape);
/// Row-major strides in elements.
std::vector<int64_t> stridesOf(const Shape& shape);
/// Numpy (multidirectional) broadcast of two shapes; throws Error naming both shapes if impossible.
Shape broadcastShapes(const Shape& a, const Shape& b);
/// Normalises an axis in [-rank, rank) to [0, rank); throws Error mentioning `what` if out of range.
int64_t normalizeAxis(int64_t axis, int64_t rank, const std::string& what = "axis");
/// a * b with an overflow check; throws Error mentioning `what`.
int64_t checkedMul(int64_t a, int64_t b, const std::string& what = "size");

} // namespace onnxscope
