// SPDX-License-Identifier: MIT
#pragma once

#include "engine/io/tensor_proto.h"
#include "engine/model/graph.h"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace onnx {
class ModelProto;
class FunctionProto;
class GraphProto;
class TensorProto;
}

namespace onnxscope {

/// A diagnostic from onnx's checker or shape inference. Shown to the user; never blocks running.
struct Diagnostic {
    enum class Severity { Warning, Error };
    Severity severity = Severity::Warning;
    std::string source; // "checker", "shape inference", "loader", "opset"
    std::string message;
};

/// What a model file says about itself: the header fields and metadata_props of its ModelProto.
struct ModelMetadata {
    int64_t irVersion = 0;
    std::string producerName;
    std::string producerVersion;
    std::string domain;
    int64_t modelVersion = 0;
    std::string docString;
    std::vector<std::pair<std::string, std::string>> properties; // metadata_props (key, value), in file order
};

/// A model-local function as the file declares it.
struct FunctionInfo {
    std::string domain; // as the file spells it
    std::string name;
    std::string overload; // IR 10: which of several functions with this (domain, name); "" if not overloaded
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::vector<std::string> attributes; // attribute names, those with a default value as "name = value"
    size_t nodeCount = 0;
    std::string doc; // doc_string
    std::vector<std::pair<std::string, std::string>> metadata; // IR 10 metadata_props (key, value), in file order
};

/// A loaded ONNX model: the ModelProto, its opset imports, and the main graph with every subgraph built.
///
/// Loading never aborts: a defect becomes an Error naming the file, node and field. Loading does not depend on
/// onnx's schema registry, so models of opsets newer than the installed onnx knows still load.
class Model {
public:
    /// Loads a model file. External data is resolved relative to the file's folder.
    static std::shared_ptr<Model> load(const std::filesystem::path& path);
    /// Loads a model from serialized bytes; `baseDir` is where external data is looked up, `displayName` names
    /// it in errors.
    static std::shared_ptr<Model> fromBytes(
        const std::string& bytes, const std::filesystem::path& baseDir, const std::string& displayName = "<memory>");
    /// Parses ONNX's text format (onnx::OnnxParser): either a graph (`agraph (float[N] x) => ...`) or a model
    /// with `<ir_version: 8, opset_import: ["" : 17]>` header. A bare graph gets opset `defaultOpset`.
    static std::shared_ptr<Model> fromText(const std::string& text, int64_t defaultOpset = 17);
    static std::shared_ptr<Model> fromProto(
        std::unique_ptr<onnx::ModelProto> proto, const std::filesystem::path& baseDir, const std::string& displayName);

    /// Every call site instantiates its function body, so model-local functions that call each other several times
    /// grow exponentially; loading refuses a model whose function bodies would build more than this many nodes
    /// (default 100 000, process-wide; the fuzzer lowers it to keep each input fast).
    static void setFunctionNodeLimit(size_t nodes);
    static size_t functionNodeLimit();

    ~Model();
    /// The file's protobuf, for engine/io and the engine's exporters; views use the neutral accessors.
    const onnx::ModelProto& proto() const { return *m_proto; }
    const Graph& graph() const { return *m_graph; }
    ModelMetadata metadata() const;
    /// The model-local functions, in file order.
    std::vector<FunctionInfo> functions() const;
    const std::string& displayName() const { return m_displayName; }
    const std::filesystem::path& path() const { return m_path; }
    /// Opset version per domain ("" for the default domain).
    const std::map<std::string, int64_t>& opsets() const { return m_opsets; }
    int64_t opset(const std::string& domain) const;
    ExternalDataStore& externalData() const { return *m_external; }
    /// Initializer tensor (decoded from the proto, external data memory-mapped); errors name the model.
    Tensor initializer(const ValueInfo& value) const;
    /// Total bytes of initializers (from their dims, without reading external data).
    uint64_t initializerBytes() const;

    /// Runs onnx's checker and shape inference and returns what they report (slow on big models: on demand).
    std::vector<Diagnostic> diagnostics() const;
    /// The function body that onnx's schema registry defines for `node`'s op (e.g. Celu, Range), instantiated for
    /// this node, or null if the schema defines none. Used when the engine has no kernel for an op. Built once and
    /// kept with the model.
    std::shared_ptr<const Graph> schemaFunctionBody(const Node& node) const;

    /// Types of values inferred by onnx's shape inference, by name (main graph only), including declared ones.
    std::map<std::string, ValueType> inferredTypes() const;

private:
    Model() = default;
    friend class GraphBuilder;

    std::unique_ptr<onnx::ModelProto> m_proto;
    std::shared_ptr<Graph> m_graph;
    std::string m_displayName;
    std::filesystem::path m_path;
    std::map<std::string, int64_t> m_opsets;
    /// (domain, name, overload); the domain normalized.
    std::map<std::tuple<std::string, std::string, std::string>, const onnx::FunctionProto*> m_functions;
    std::unique_ptr<ExternalDataStore> m_external;
    // Function bodies instantiated per call site; the graphs built from them point into these.
    std::vector<std::unique_ptr<onnx::GraphProto>> m_functionBodies;
    // The dense forms of the graphs' sparse initializers, which their ValueInfos point to.
    std::vector<std::unique_ptr<onnx::TensorProto>> m_denseInitializers;
    mutable std::mutex m_schemaBodiesMutex;
    mutable std::map<const Node*, std::shared_ptr<const Graph>> m_schemaBodies;
};

/// "" for the default domain, whatever spelling the file used.
std::string normalizeDomain(const std::string& domain);

} // namespace onnxscope
