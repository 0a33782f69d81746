// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace onnxscope {

struct Node;

/// What onnx's schema registry knows about an operator, for documentation and port names only (never for loading
/// or running: models of opsets newer than the installed onnx must still open).
struct OpSchemaInfo {
    bool known = false;
    int sinceVersion = 0; // the version of the op that `opset` resolves to
    std::string domain;
    std::string doc; // without leading and trailing white space
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    bool variadicInput = false; // last input repeats
    bool variadicOutput = false;
    std::string support; // "deprecated", "experimental" or empty
};

/// Looks up (opType, domain, opset) in onnx's schema registry. Results are kept for the life of the process, so the
/// reference stays valid. Thread-safe.
const OpSchemaInfo& lookupOpSchema(const std::string& opType, const std::string& domain, int64_t opset);

/// The schema's name for input/output `index` of `node` ("X", "W", "inputs_2"), or empty when unknown.
std::string inputPortName(const Node& node, size_t index);
std::string outputPortName(const Node& node, size_t index);

} // namespace onnxscope
