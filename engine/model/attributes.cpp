// SPDX-License-Identifier: MIT
#include "engine/model/attributes.h"

#include "engine/io/tensor_proto.h"
#include "engine/model/graph.h"

#include <onnx/onnx_pb.h>

namespace onnxscope {

namespace {
const char* attributeTypeName(int type)
{
    switch (type) {
    case onnx::AttributeProto::FLOAT:
        return "float";
    case onnx::AttributeProto::INT:
        return "int";
    case onnx::AttributeProto::STRING:
        return "string";
    case onnx::AttributeProto::TENSOR:
        return "tensor";
    case onnx::AttributeProto::GRAPH:
        return "graph";
    case onnx::AttributeProto::SPARSE_TENSOR:
        return "sparse tensor";
    case onnx::AttributeProto::TYPE_PROTO:
        return "type";
    case onnx::AttributeProto::FLOATS:
        return "floats";
    case onnx::AttributeProto::INTS:
        return "ints";
    case onnx::AttributeProto::STRINGS:
        return "strings";
    case onnx::AttributeProto::TENSORS:
        return "tensors";
    case onnx::AttributeProto::GRAPHS:
        return "graphs";
    default:
        return "undefined";
    }
}
} // namespace

NodeAttributes::NodeAttributes(const onnx::NodeProto* proto, std::string nodeLabel)
    : m_proto(proto)
    , m_label(std::move(nodeLabel))
{
}

const onnx::AttributeProto* NodeAttributes::find(const std::string& name) const
{
    if (!m_proto)
        return nullptr;
    for (const auto& a : m_proto->attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

bool NodeAttributes::has(const std::string& name) const
{
    return find(name) != nullptr;
}

std::vector<std::string> NodeAttributes::names() const
{
    std::vector<std::string> out;
    if (m_proto)
        for (const auto& a : m_proto->attribute())
            out.push_back(a.name());
    return out;
}

Error NodeAttributes::error(const std::string& name, const std::string& message) const
{
    return Error(m_label + ", attribute '" + name + "': " + message);
}

const onnx::AttributeProto* NodeAttributes::expect(const std::string& name, int type, const char* typeName) const
{
    const auto* a = find(name);
    if (!a)
        return nullptr;
    // Old exporters sometimes omit the type field; infer it from the populated field.
    int populated = onnx::AttributeProto::UNDEFINED;
    if (a->has_i())
        populated = onnx::AttributeProto::INT;
    else if (a->has_f())
        populated = onnx::AttributeProto::FLOAT;
    else if (a->has_s())
        populated = onnx::AttributeProto::STRING;
    else if (a->has_t())
        populated = onnx::AttributeProto::TENSOR;
    else if (a->has_g())
        populated = onnx::AttributeProto::GRAPH;
    else if (a->ints_size())
        populated = onnx::AttributeProto::INTS;
    else if (a->floats_size())
        populated = onnx::AttributeProto::FLOATS;
    else if (a->strings_size())
        populated = onnx::AttributeProto::STRINGS;
    int actual = a->type();
    if (actual == onnx::AttributeProto::UNDEFINED)
        actual = populated == onnx::AttributeProto::UNDEFINED ? type : populated; // an empty list: whatever was asked
    else if (populated != onnx::AttributeProto::UNDEFINED && populated != actual)
        throw error(name,
            std::string("its type says ") + attributeTypeName(actual) + " but it holds "
                + attributeTypeName(populated));
    if (actual != type)
        throw error(name, std::string("expected ") + typeName + ", got " + attributeTypeName(actual));
    return a;
}

int64_t NodeAttributes::getInt(const std::string& name, int64_t fallback) const
{
    const auto* a = expect(name, onnx::AttributeProto::INT, "int");
    return a ? a->i() : fallback;
}

int64_t NodeAttributes::requireInt(const std::string& name) const
{
    const auto* a = expect(name, onnx::AttributeProto::INT, "int");
    if (!a)
        throw error(name, "required attribute is missing");
    return a->i();
}

float NodeAttributes::getFloat(const std::string& name, float fallback) const
{
    const auto* a = expect(name, onnx::AttributeProto::FLOAT, "float");
    return a ? a->f() : fallback;
}

float NodeAttributes::requireFloat(const std::string& name) const
{
    const auto* a = expect(name, onnx::AttributeProto::FLOAT, "float");
    if (!a)
        throw error(name, "required attribute is missing");
    return a->f();
}

std::string NodeAttributes::getString(const std::string& name, const std::string& fallback) const
{
    const auto* a = expect(name, onnx::AttributeProto::STRING, "string");
    return a ? a->s() : fallback;
}

std::string NodeAttributes::requireString(const std::string& name) const
{
    const auto* a = expect(name, onnx::AttributeProto::STRING, "string");
    if (!a)
        throw error(name, "required attribute is missing");
    return a->s();
}

std::vector<int64_t> NodeAttributes::getInts(const std::string& name, std::vector<int64_t> fallback) const
{
    const auto* a = expect(name, onnx::AttributeProto::INTS, "ints");
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : fallback;
}

std::vector<float> NodeAttributes::getFloats(const std::string& name, std::vector<float> fallback) const
{
    const auto* a = expect(name, onnx::AttributeProto::FLOATS, "floats");
    return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : fallback;
}

std::vector<std::string> NodeAttributes::getStrings(const std::string& name, std::vector<std::string> fallback) const
{
    const auto* a = expect(name, onnx::AttributeProto::STRINGS, "strings");
    return a ? std::vector<std::string>(a->strings().begin(), a->strings().end()) : fallback;
}

Tensor NodeAttributes::getTensor(const std::string& name) const
{
    const auto* a = expect(name, onnx::AttributeProto::TENSOR, "tensor");
    if (!a)
        return {};
    try {
        return tensorFromProto(a->t());
    } catch (const Error& e) {
        throw error(name, e.what());
    }
}

Tensor NodeAttributes::requireTensor(const std::string& name) const
{
    Tensor t = getTensor(name);
    if (!t.defined())
        throw error(name, "required attribute is missing");
    return t;
}

Tensor NodeAttributes::requireSparseTensorDense(const std::string& name) const
{
    const auto* a = expect(name, onnx::AttributeProto::SPARSE_TENSOR, "sparse tensor");
    if (!a)
        throw error(name, "required attribute is missing");
    try {
        return tensorFromSparseProto(a->sparse_tensor(), "the sparse tensor");
    } catch (const Error& e) {
        throw error(name, e.what());
    }
}

Attribute::Attribute(const onnx::AttributeProto& proto, const Node& node, size_t firstGraph)
    : m_proto(&proto)
    , m_node(&node)
    , m_firstGraph(firstGraph)
{
}

const std::string& Attribute::name() const
{
    return m_proto->name();
}

AttributeType Attribute::type() const
{
    return static_cast<AttributeType>(m_proto->type());
}

const std::string& Attribute::refAttrName() const
{
    return m_proto->ref_attr_name();
}

float Attribute::floatValue() const
{
    return m_proto->f();
}

int64_t Attribute::intValue() const
{
    return m_proto->i();
}

const std::string& Attribute::stringValue() const
{
    return m_proto->s();
}

std::vector<float> Attribute::floats() const
{
    return { m_proto->floats().begin(), m_proto->floats().end() };
}

std::vector<int64_t> Attribute::ints() const
{
    return { m_proto->ints().begin(), m_proto->ints().end() };
}

std::vector<std::string> Attribute::strings() const
{
    return { m_proto->strings().begin(), m_proto->strings().end() };
}

bool Attribute::hasTensor() const
{
    return m_proto->has_t();
}

DataType Attribute::tensorType() const
{
    return dataTypeFromOnnx(m_proto->t().data_type());
}

Shape Attribute::tensorShape() const
{
    return { m_proto->t().dims().begin(), m_proto->t().dims().end() };
}

Tensor Attribute::tensor(ExternalDataStore* external) const
{
    return tensorFromProto(m_proto->t(), external);
}

size_t Attribute::tensorCount() const
{
    return static_cast<size_t>(m_proto->tensors_size());
}

Shape Attribute::sparseTensorShape() const
{
    return { m_proto->sparse_tensor().dims().begin(), m_proto->sparse_tensor().dims().end() };
}

ValueType Attribute::typeValue() const
{
    return valueTypeFromProto(m_proto->tp());
}

const Graph* Attribute::graph() const
{
    if (!m_proto->has_g() || m_firstGraph >= m_node->subgraphs.size())
        return nullptr;
    return m_node->subgraphs[m_firstGraph].second.get();
}

std::vector<const Graph*> Attribute::graphs() const
{
    std::vector<const Graph*> out;
    const size_t first = m_firstGraph + (m_proto->has_g() ? 1 : 0);
    for (size_t i = first; i < first + static_cast<size_t>(m_proto->graphs_size()) && i < m_node->subgraphs.size(); ++i)
        out.push_back(m_node->subgraphs[i].second.get());
    return out;
}

} // namespace onnxscope
