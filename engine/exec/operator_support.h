// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace onnxscope {

/// One operator the engine has a kernel for, over a range of opset versions.
struct SupportedOperator {
    static constexpr int64_t kLatest = std::numeric_limits<int64_t>::max();

    std::string domain; // "" for the default domain (ai.onnx)
    std::string opType;
    int64_t sinceVersion = 1;
    int64_t lastVersion = kLatest; // kLatest: every later version too
};

/// Every operator of the engine's kernel table, sorted by domain, op type and first version: what
/// `onnxscope-cli ops` lists.
std::vector<SupportedOperator> supportedOperators();

} // namespace onnxscope
