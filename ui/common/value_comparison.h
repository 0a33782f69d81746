// SPDX-License-Identifier: MIT
#pragma once

#include "engine/compare/run_comparison.h"

#include <cstdint>
#include <memory>
#include <string>

namespace onnxscope {

/// A finished comparison as other features see it: its result, and the row of each side-A value. The compare feature
/// provides it; the debugger's Values dock reads it to show each recorded value's error beside its statistics, without
/// knowing how the comparison was run.
class ValueComparison {
public:
    virtual ~ValueComparison() = default;
    virtual const ComparisonResult& comparisonResult() const = 0;
    /// Index into comparisonResult().rows of the side-A value (frame path, name), or -1 if it was not compared.
    virtual int64_t rowOf(const std::string& framePath, const std::string& name) const = 0;
};

using ValueComparisonPtr = std::shared_ptr<const ValueComparison>;

} // namespace onnxscope
