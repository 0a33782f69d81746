// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"
#include "engine/core/value.h"

#include <cstdint>
#include <string>
#include <vector>

namespace onnx {
class AttributeProto;
class NodeProto;
}

namespace onnxscope {

class ExternalDataStore;
class Graph;
struct Node;

/// The type of an attribute's value, numbered as ONNX numbers them (AttributeProto.AttributeType).
enum class AttributeType {
    Undefined = 0,
    Float = 1,
    Int = 2,
    String = 3,
    Tensor = 4,
    Graph = 5,
    Floats = 6,
    Ints = 7,
    Strings = 8,
    Tensors = 9,
    Graphs = 10,
    SparseTensor = 11,
    SparseTensors = 12,
    Type = 13,
    Types = 14,
};

/// One attribute of a node as the file writes it, for views (the node inspector, the graph view). Each accessor reads
/// the field of its type, whatever type() says; a field the file does not set reads as empty or zero. Kernels read
/// attributes typed and checked through NodeAttributes instead. Valid as long as the Model the node belongs to.
class Attribute {
public:
    const std::string& name() const;
    /// The type the file declares: Undefined when an old exporter left it out.
    AttributeType type() const;
    /// In a function body: the caller's attribute this one stands for; "" otherwise.
    const std::string& refAttrName() const;

    float floatValue() const;
    int64_t intValue() const;
    /// The bytes of a STRING attribute.
    const std::string& stringValue() const;
    std::vector<float> floats() const;
    std::vector<int64_t> ints() const;
    std::vector<std::string> strings() const;

    /// Whether the attribute holds a single tensor, and that tensor's element type and shape, without its data.
    bool hasTensor() const;
    DataType tensorType() const;
    Shape tensorShape() const;
    /// The tensor decoded. External data is read through `external`; an Error if it is needed and null.
    Tensor tensor(ExternalDataStore* external = nullptr) const;
    /// The number of tensors of a TENSORS attribute.
    size_t tensorCount() const;
    /// The dense shape of a SPARSE_TENSOR attribute.
    Shape sparseTensorShape() const;
    /// The type a TYPE attribute names.
    ValueType typeValue() const;
    /// GRAPH: the subgraph the loader built from it (Node::subgraphs); null if the attribute holds none.
    const Graph* graph() const;
    /// GRAPHS: the subgraphs built from it, in order.
    std::vector<const Graph*> graphs() const;

private:
    friend struct Node;
    /// `firstGraph`: the index in node.subgraphs of the first graph this attribute holds.
    Attribute(const onnx::AttributeProto& proto, const Node& node, size_t firstGraph);

    const onnx::AttributeProto* m_proto;
    const Node* m_node;
    size_t m_firstGraph;
};

/// Typed, checked read access to a node's attributes. Every error names the node and the attribute:
/// `node "conv_3" (Conv), attribute 'pads': expected ints, got float`.
class NodeAttributes {
public:
    NodeAttributes() = default;
    NodeAttributes(const onnx::NodeProto* proto, std::string nodeLabel);

    bool has(const std::string& name) const;
    const onnx::AttributeProto* find(const std::string& name) const;
    std::vector<std::string> names() const;

    int64_t getInt(const std::string& name, int64_t fallback) const;
    int64_t requireInt(const std::string& name) const;
    float getFloat(const std::string& name, float fallback) const;
    float requireFloat(const std::string& name) const;
    std::string getString(const std::string& name, const std::string& fallback) const;
    std::string requireString(const std::string& name) const;
    std::vector<int64_t> getInts(const std::string& name, std::vector<int64_t> fallback = {}) const;
    std::vector<float> getFloats(const std::string& name, std::vector<float> fallback = {}) const;
    std::vector<std::string> getStrings(const std::string& name, std::vector<std::string> fallback = {}) const;
    /// A TENSOR attribute converted to a Tensor; an undefined Tensor if absent.
    Tensor getTensor(const std::string& name) const;
    Tensor requireTensor(const std::string& name) const;
    /// A required SPARSE_TENSOR attribute, densified (tensorFromSparseProto); errors name the node and attribute.
    Tensor requireSparseTensorDense(const std::string& name) const;

    /// An Error whose message starts with `node "x" (Op), attribute 'name': `.
    Error error(const std::string& name, const std::string& message) const;
    const std::string& nodeLabel() const { return m_label; }

private:
    const onnx::AttributeProto* expect(const std::string& name, int type, const char* typeName) const;

    const onnx::NodeProto* m_proto = nullptr;
    std::string m_label;
};

} // namespace onnxscope
