// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <functional>
#include <memory>
#include <string>

namespace onnxscope {

/// A condition on a tensor, as the user types it in a conditional breakpoint:
///
///   any |x| > 1e4      some element's magnitude exceeds 1e4
///   all x >= 0         every element is non-negative
///   max > 100, min < -5, mean != 0, std > 3, absmax > 1e3, sum == 0, count == 0
///   nan, inf, nonfinite  some element is NaN / ±Inf / either
///
/// Comparisons: > >= < <= == !=. Non-tensor values (sequences, maps) never match.
class ValueCondition {
public:
    /// Parses `text`; throws Error with a message saying what was expected.
    static ValueCondition parse(const std::string& text);
    bool matches(const Value& value) const;
    const std::string& text() const { return m_text; }

private:
    std::string m_text;
    std::function<bool(const Tensor&)> m_test;
};

} // namespace onnxscope
