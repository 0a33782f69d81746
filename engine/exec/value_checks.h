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

} // namespace onnxscope
