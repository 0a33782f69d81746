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

/// One version of an operator in onnx's schema registry.
struct SchemaVersion {
    std::string domain; // "" for the default domain (ai.onnx)
    std::string opType;
    int sinceVersion = 0;
    bool deprecated = false;
    bool functionBody = false; // onnx defines this version as a function of other ops (not context-dependent)
};

/// Every version of every operator in onnx's schema registry, sorted by domain, op type and version.
std::vector<SchemaVersion> allSchemaVersions();

/// The since-versions of (opType, domain) in onnx's schema registry, ascending; empty if it has none.
std::vector<int> schemaVersions(const std::string& opType, const std::string& domain);

/// True when onnx's schema registry defines the operators of `domain` (the default domain, ai.onnx.ml,
/// ai.onnx.preview.training, ...). Kernels of these domains are registered by schema since-version.
bool isSchemaDomain(const std::string& domain);

/// The schema's name for input/output `index` of `node` ("X", "W", "inputs_2"), or empty when unknown.
std::string inputPortName(const Node& node, size_t index);
std::string outputPortName(const Node& node, size_t index);

} // namespace onnxscope
