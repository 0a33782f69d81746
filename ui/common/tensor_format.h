// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"
#include "engine/core/value.h"

#include <QString>

#include <optional>

class QFontMetrics;

namespace onnxscope {

/// "64×3×3×3" ("scalar" for rank 0). Symbolic dims print their symbol, unknown ones "?".
QString formatShape(const Shape& shape);
QString formatShape(const ValueType& type);
/// "float 1×3×224×224" for an edge label; "?" when nothing is known.
QString formatTypeShort(const ValueType& type);
/// One element for display: integers exactly, floats with up to 6 significant digits.
QString formatElement(const Tensor& tensor, int64_t index);
/// The narrowest element column of a tensor table, also its width before any tensor is shown.
constexpr int kMinElementColumnWidth = 84;
/// Pixels a table column needs for the widest element of `tensor` (measured over up to 4096 evenly spaced
/// elements) in `metrics`, within [minimum, 320]: "5.93671e-06" or a long int64 must not turn into "5....".
int elementColumnWidth(const Tensor& tensor, const QFontMetrics& metrics, int minimum = kMinElementColumnWidth);
/// "0.5", "[1, -1]", or "[1, 2, 3, …]" past `maxElements`.
QString formatTensorValues(const Tensor& tensor, int maxElements = 8);
/// "1 element", "12 elements".
QString elementCountText(int64_t count);
/// engine/core/byte_size.h's formatByteCount: "312 B", "1.5 MiB".
QString formatBytes(uint64_t bytes);
/// engine/core/byte_size.h's parseByteSize ("512M", "1.5G", "64 KiB", "1048576"); nullopt for anything else or 0.
std::optional<uint64_t> parseBytes(const QString& text);

} // namespace onnxscope
