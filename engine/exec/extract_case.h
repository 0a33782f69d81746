// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/program.h"
#include "engine/model/subgraph_extract.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>

namespace onnxscope {

class ThreadPool;

/// What extractTestCase() wrote.
struct ExtractedCase {
    SubgraphBoundary part;
    ExtractedModel model;
    std::filesystem::path folder;
};

/// A standalone repro of a part of the main graph, in ONNX's backend test layout, which `onnxscope-cli test` and
/// onnxruntime's onnx_test_runner read: runs `program` on `inputs` until every value crossing the part's boundary is
/// known, then writes `folder/model.onnx` (writeSubgraphModel: only the initializers the part reads, external data
/// past 2 GiB) and `folder/test_data_set_0/input_<i>.pb`, `output_<i>.pb` (TensorProtos named after the values) with
/// the values the run gave them. Creates the folder; Error if the run fails before then, naming the node.
ExtractedCase extractTestCase(std::shared_ptr<const Program> program, const SubgraphBoundary& part,
    const std::map<std::string, Value>& inputs, const std::filesystem::path& folder, const ExtractOptions& options = {},
    ThreadPool* pool = nullptr);

} // namespace onnxscope
