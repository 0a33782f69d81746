// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace onnxscope {

/// A node's metadata_props (key, value), in file order: the neutral view of them for code outside engine/model and
/// engine/io (exporters record provenance there, e.g. torch_origin.h's pkg.torch.onnx.* keys).
std::vector<std::pair<std::string, std::string>> nodeMetadataProps(const Node& node);
/// The metadata_props value under `key`, null if the node has none (it points into the model, which outlives it).
const std::string* nodeMetadataProp(const Node& node, std::string_view key);

} // namespace onnxscope
