// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"

namespace onnx {
class NodeProto;
}

namespace onnxscope {

/// The NodeProto a node was built from, null for nodes the loader made itself. For engine/model and engine/io
/// (subgraph_extract writes nodes as the file has them); views use the neutral accessors.
const onnx::NodeProto* nodeProto(const Node& node);

} // namespace onnxscope
