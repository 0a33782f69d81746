// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"
#include "engine/model/attributes.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace onnx {
class GraphProto;
class NodeProto;
class TensorProto;
class TypeProto;
}

namespace onnxscope {

class ExternalDataStore;
class Graph;
class Model;

using NodeId = int32_t;
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

/// One node of a graph. Ids are indices into Graph::nodes(); names are kept for display.
struct Node {
    NodeId id = -1;
    std::string name; // may be empty in the file
    std::string opType;
    std::string domain; // "" for the default domain (also when the file says "ai.onnx")
    int64_t opset = 0; // version of `domain` imported by the model (or function) this node belongs to
    std::vector<ValueId> inputs; // kNoValue for an omitted optional input
    std::vector<ValueId> outputs; // kNoValue for an omitted optional output
    /// Values of the enclosing graph that this node's subgraphs read by name (outer scope).
    std::vector<ValueId> implicitInputs;
    NodeAttributes attributes;
    /// Graph attributes (If branches, Loop/Scan bodies), by attribute name, in attribute order.
    std::vector<std::pair<std::string, std::shared_ptr<const Graph>>> subgraphs;
    /// For a call of a model-local function: the function body instantiated for this node.
    std::shared_ptr<const Graph> functionBody;

    /// The file's name, or "<OpType>_<id>" when the node has none.
    std::string displayName() const;
    /// displayName() == name, without building the display name (breakpoints test every node with it).
    bool hasDisplayName(std::string_view name) const;
    /// `node "conv_3" (Conv)`, the prefix of every error about this node.
    std::string label() const;
    const Graph* subgraph(const std::string& attribute) const;
    /// The node's doc string from the file, "" if none.
    const std::string& docString() const;
    /// Every attribute as the file writes it, in file order, for display.
    std::vector<Attribute> attributeList() const;

private:
    friend class GraphBuilder;
    const onnx::NodeProto* m_proto = nullptr;
};

/// An initializer as the file describes it, read without its data.
struct InitializerInfo {
    DataType dtype = DataType::Undefined;
    Shape shape;
    bool external = false; // the data is in another file (ONNX external data)
    std::string location; // that file, as the model names it ("" when internal)
};

/// A named value of a graph (an edge).
struct ValueInfo {
    enum class Source { Input, Initializer, NodeOutput, OuterScope };
    std::string name;
    Source source = Source::NodeOutput;
    NodeId producer = -1;
    std::vector<NodeId> consumers;
    ValueType type; // declared type (inputs, outputs, value_info); kind None if undeclared
    /// The initializer in the file, for the engine's loader and executor (engine/io decodes it); others use the
    /// accessors below. Also set for inputs with a default initializer.
    const onnx::TensorProto* initializer = nullptr;

    bool hasInitializer() const { return initializer != nullptr; }
    /// Element type, shape and data location of the initializer; an Error if the value has none.
    InitializerInfo initializerInfo() const;
    /// The initializer decoded. External data is read through `external` (Model::externalData()); an Error if it is
    /// needed and null. Model::initializer() does the same and names the model in its errors.
    Tensor initializerTensor(ExternalDataStore* external = nullptr) const;
};

/// A graph (the main graph, a subgraph or a function body) with integer ids for nodes and values.
///
/// The node list is in topological order (the loader sorts it and refuses cycles). Values not produced in the
/// graph and read by its nodes are OuterScope values, bound by name from the enclosing frame at run time.
class Graph {
public:
    const std::string& name() const { return m_name; }
    /// The graph's doc string from the file, "" if none.
    const std::string& docString() const { return m_docString; }
    const std::vector<Node>& nodes() const { return m_nodes; }
    const Node& node(NodeId id) const { return m_nodes.at(static_cast<size_t>(id)); }
    const std::vector<ValueInfo>& values() const { return m_values; }
    const ValueInfo& value(ValueId id) const { return m_values.at(static_cast<size_t>(id)); }
    const std::vector<ValueId>& inputs() const { return m_inputs; }
    /// Inputs the caller must supply: graph inputs without an initializer.
    std::vector<ValueId> requiredInputs() const;
    const std::vector<ValueId>& outputs() const { return m_outputs; }
    const std::vector<ValueId>& initializers() const { return m_initializers; }
    const std::vector<ValueId>& outerScopeValues() const { return m_outer; }
    ValueId findValue(const std::string& name) const;
    /// Node by its display name, -1 if none.
    NodeId findNode(const std::string& name) const;

    /// The node that owns this subgraph and the graph it lives in, null for the main graph.
    const Graph* parent() const { return m_parent; }
    const Node* ownerNode() const { return m_owner; }
    const Model* model() const { return m_model; }
    /// Total node count including all subgraphs and function bodies.
    size_t totalNodeCount() const;

private:
    friend class GraphBuilder;
    std::string m_name;
    std::string m_docString;
    std::vector<Node> m_nodes;
    std::vector<ValueInfo> m_values;
    std::vector<ValueId> m_inputs, m_outputs, m_initializers, m_outer;
    std::unordered_map<std::string, ValueId> m_byName;
    std::unordered_map<std::string, NodeId> m_nodeByName;
    const Graph* m_parent = nullptr;
    const Node* m_owner = nullptr;
    const Model* m_model = nullptr;
};

/// ValueType from an onnx::TypeProto.
ValueType valueTypeFromProto(const onnx::TypeProto& type);

} // namespace onnxscope
