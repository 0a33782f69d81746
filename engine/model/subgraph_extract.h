// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"
#include "engine/model/model.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace onnxscope {

/// A part of the main graph cut out as a model of its own: the values that enter it (its inputs), the values that
/// leave it (its outputs), and the nodes in between, in the graph's (topological) order. Initializers the nodes read
/// stay initializers of the part; nodes without inputs that they need (Constant) come along.
struct SubgraphBoundary {
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::vector<NodeId> nodes;
    std::vector<std::string> initializers; // the initializers the nodes read (only these are written)
};

/// The part of the main graph between `inputs` and `outputs` (value names): every node that computes an output
/// from the inputs. Error naming the value when an output is unknown, or when the boundary is not a subgraph: a
/// node inside needs a value that is neither one of `inputs`, nor an initializer, nor computed from them (e.g. a
/// graph input left out).
SubgraphBoundary subgraphBetween(
    const Graph& graph, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs);

/// The part made of the named nodes of the main graph (one node for a single-node repro): its inputs are the values
/// the nodes read that none of them computes (initializers and Constant outputs stay inside), its outputs the values
/// they compute that the rest of the graph (or the graph's outputs) reads, or all of them for nodes whose outputs
/// nothing reads. Error naming an unknown node.
SubgraphBoundary subgraphOfNodes(const Graph& graph, const std::vector<std::string>& nodeNames);

/// Where the extracted model keeps its initializers.
struct ExtractOptions {
    /// Initializers go to an external data file (`<model>.data`, ONNX's external data) when together they pass this
    /// many bytes: a protobuf message cannot exceed 2 GiB.
    uint64_t externalDataAbove = (uint64_t(1) << 31) - (uint64_t(64) << 20);
    /// With external data, tensors smaller than this stay in the model file.
    uint64_t externalMinBytes = 1024;
};

/// What writeSubgraphModel() wrote.
struct ExtractedModel {
    size_t nodeCount = 0;
    size_t initializerCount = 0;
    uint64_t initializerBytes = 0;
    bool externalData = false; // the initializers went to `<model>.data`
};

/// Writes the part as an ONNX model file: the source model's opsets, IR version and model-local functions, the part's
/// nodes as the file has them, its initializers (read through external data where the source keeps them there), and
/// its inputs and outputs typed from `values` (the values a run gave them; tensors only, Error naming any other).
ExtractedModel writeSubgraphModel(const Model& model, const SubgraphBoundary& part,
    const std::map<std::string, Value>& values, const std::filesystem::path& path, const ExtractOptions& options = {});

} // namespace onnxscope
