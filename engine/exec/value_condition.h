// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <functional>
#include <optional>
#include <string>

namespace onnxscope {

/// Where a value met a condition.
struct ConditionMatch {
    int64_t index = -1; // flat index of the first element that met it; -1 for conditions on the whole tensor
    std::string description; // "-20000 at index [0, 1]", "NaN at index [3]", "max = 150", "all 6 elements"
};

/// A condition on a tensor, as the user types it in a conditional breakpoint (the GUI's, or `onnxscope-cli run
/// --break-when`):
///
///   any |x| > 1e4      some element's magnitude exceeds 1e4
///   all x >= 0         every element is non-negative
///   max > 100, min < -5, mean != 0, std > 3, absmax > 1e3, sum == 0, count == 0
///   nan, inf, nonfinite  some element is NaN / ±Inf / either
///
/// Comparisons: > >= < <= == !=. Statistics are over the finite elements (tensor_stats.h). An optional is tested
/// through the tensor it holds; other non-tensor values (sequences, maps) and string tensors never match.
class ValueCondition {
public:
    /// Parses `text`; throws Error with a message saying what was expected.
    static ValueCondition parse(const std::string& text);
    /// Whether `value` meets the condition, and where: the first element that met an element condition ("any",
    /// "nan", "inf", "nonfinite"), or the statistic's value.
    std::optional<ConditionMatch> match(const Value& value) const;
    bool matches(const Value& value) const { return match(value).has_value(); }
    const std::string& text() const { return m_text; }

private:
    std::string m_text;
    std::function<std::optional<ConditionMatch>(const Tensor&)> m_test;
};

} // namespace onnxscope
