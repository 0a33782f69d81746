// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"
#include "engine/core/value.h"

#include <QString>

namespace onnxscope {

/// "64×3×3×3" ("scalar" for rank 0). Symbolic dims print their symbol, unknown ones "?".
QString formatShape(const Shape& shape);
QString formatShape(const ValueType& type);
/// "float 1×3×224×224" for an edge label; "?" when nothing is known.
QString formatTypeShort(const ValueType& type);
/// One element for display: integers exactly, floats with up to 6 significant digits.
QString formatElement(const Tensor& tensor, int64_t index);
/// "0.5", "[1, -1]", or "[1, 2, 3, …]" past `maxElements`.
QString formatTensorValues(const Tensor& tensor, int maxElements = 8);
/// "1.5 MB"
QString formatBytes(uint64_t bytes);

} // namespace onnxscope
