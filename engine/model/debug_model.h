// SPDX-License-Identifier: MIT
#pragma once
#include "engine/core/tensor.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace onnxscope {

class Model;

/// A copy of `model` where each of `values` (main-graph value name, tensor) is attached as an initializer
/// "<name>__debug_value" feeding a DEBUG node of domain mlprodict, so that other graph viewers show the values.
/// Returns the number of values attached; Error if the model would pass protobuf's 2 GB limit or cannot be written.
size_t writeDebugModel(
    const std::filesystem::path& path, const Model& model, const std::vector<std::pair<std::string, Tensor>>& values);

} // namespace onnxscope
