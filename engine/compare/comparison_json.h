// SPDX-License-Identifier: MIT
#pragma once

// A comparison as the JSON document of docs/compare-format.md ("onnxscope-compare", version 1): what
// `onnxscope-cli compare --json` writes and what the Python module's CompareReport holds.

#include "engine/compare/run_comparison.h"

#include <string>

namespace onnxscope {

/// The document, indented by `indent` spaces (-1: one line). `sideBKind` is "model" or "reference". Text that is
/// not valid UTF-8 is written with replacement characters.
std::string comparisonJson(const ComparisonResult& res, const std::string& sideBKind, int indent = 2);

} // namespace onnxscope
