// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <optional>
#include <string>

namespace onnxscope {

struct NonFiniteHit {
    int64_t index = 0; // flat index of the first bad element
    std::string description; // "NaN at index 12" / "+Inf at index 3"
};

/// The first NaN or Inf in a floating-point (or complex) tensor, looking inside sequences and optionals.
std::optional<NonFiniteHit> firstNonFinite(const Value& value);

/// Whether firstNonFinite(value) would find something, without describing it: float32 tensors in one vector pass at
/// the kernels' SIMD level (two vector operations per vector), the other types as firstNonFinite does. What the
/// debugger's quiet stretches test after every node while a NaN/Inf breakpoint is on.
bool hasNonFinite(const Value& value);

} // namespace onnxscope
