// SPDX-License-Identifier: MIT
#include "engine/model/model.h"
#include "engine/model/node_metadata.h"
#include "engine/model/node_proto.h"

#include "engine/core/version.h"

#include <onnx/checker.h>
#include <onnx/defs/parser.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <functional>
#include <limits>
#include <queue>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace onnxscope {

std::string normalizeDomain(const std::string& domain)
{
    return domain == "ai.onnx" ? std::string() : domain;
}

std::string Node::displayName() const
{
    return name.empty() ? opType + "_" + std::to_string(id) : name;
}

bool Node::hasDisplayName(std::string_view candidate) const
{
    if (!name.empty())
        return candidate == name;
    // "<OpType>_<id>"
    if (candidate.size() < opType.size() + 2 || candidate.substr(0, opType.size()) != opType
        || candidate[opType.size()] != '_')
        return false;
    const std::string_view digits = candidate.substr(opType.size() + 1);
    NodeId parsed = -1;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), parsed);
    return error == std::errc() && end == digits.data() + digits.size() && parsed == id
        && (digits.size() == 1 || digits[0] != '0');
}

std::string Node::label() const
{
    return "node \"" + displayName() + "\" (" + opType + ")";
}

const Graph* Node::subgraph(const std::string& attribute) const
{
    for (const auto& [attr, g] : subgraphs)
        if (attr == attribute)
            return g.get();
    return nullptr;
}

const std::string& Node::docString() const
{
    static const std::string none;
    return m_proto ? m_proto->doc_string() : none;
}

std::vector<Attribute> Node::attributeList() const
{
    std::vector<Attribute> out;
    if (!m_proto)
        return out;
    // The loader adds one subgraph per graph an attribute holds, in attribute order, `g` before `graphs`.
    size_t graph = 0;
    for (const auto& attr : m_proto->attribute()) {
        out.push_back(Attribute(attr, *this, graph));
        graph += (attr.has_g() ? 1 : 0) + static_cast<size_t>(attr.graphs_size());
    }
    return out;
}

InitializerInfo ValueInfo::initializerInfo() const
{
    check(initializer != nullptr, "\"" + name + "\" is not an initializer");
    InitializerInfo info;
    info.dtype = dataTypeFromOnnx(initializer->data_type());
    info.shape.assign(initializer->dims().begin(), initializer->dims().end());
    info.external = initializer->data_location() == onnx::TensorProto::EXTERNAL;
    if (info.external)
        for (const auto& entry : initializer->external_data())
            if (entry.key() == "location")
                info.location = entry.value();
    return info;
}

Tensor ValueInfo::initializerTensor(ExternalDataStore* external) const
{
    check(initializer != nullptr, "\"" + name + "\" is not an initializer");
    return tensorFromProto(*initializer, external);
}

std::vector<ValueId> Graph::requiredInputs() const
{
    std::vector<ValueId> out;
    for (ValueId id : m_inputs)
        if (!value(id).initializer)
            out.push_back(id);
    return out;
}

ValueId Graph::findValue(const std::string& name) const
{
    auto it = m_byName.find(name);
    return it == m_byName.end() ? kNoValue : it->second;
}

NodeId Graph::findNode(const std::string& name) const
{
    auto it = m_nodeByName.find(name);
    return it == m_nodeByName.end() ? -1 : it->second;
}

size_t Graph::totalNodeCount() const
{
    size_t n = m_nodes.size();
    for (const auto& node : m_nodes) {
        for (const auto& [attr, g] : node.subgraphs)
            n += g->totalNodeCount();
        if (node.functionBody)
            n += node.functionBody->totalNodeCount();
    }
    return n;
}

ValueType valueTypeFromProto(const onnx::TypeProto& type)
{
    ValueType vt;
    switch (type.value_case()) {
    case onnx::TypeProto::kTensorType: {
        vt.kind = Value::Kind::Tensor;
        vt.elementType = dataTypeFromOnnx(type.tensor_type().elem_type());
        if (type.tensor_type().has_shape()) {
            vt.hasShape = true;
            for (const auto& d : type.tensor_type().shape().dim()) {
                Dim dim;
                if (d.has_dim_value())
                    dim.value = d.dim_value();
                else if (d.has_dim_param())
                    dim.symbol = d.dim_param();
                vt.shape.push_back(dim);
            }
        }
        break;
    }
    case onnx::TypeProto::kSparseTensorType: {
        // Held and fed dense: the spec lets an implementation densify a sparse value.
        vt.kind = Value::Kind::Tensor;
        vt.sparse = true;
        vt.elementType = dataTypeFromOnnx(type.sparse_tensor_type().elem_type());
        if (type.sparse_tensor_type().has_shape()) {
            vt.hasShape = true;
            for (const auto& d : type.sparse_tensor_type().shape().dim()) {
                Dim dim;
                if (d.has_dim_value())
                    dim.value = d.dim_value();
                else if (d.has_dim_param())
                    dim.symbol = d.dim_param();
                vt.shape.push_back(dim);
            }
        }
        break;
    }
    case onnx::TypeProto::kSequenceType:
        vt.kind = Value::Kind::Sequence;
        vt.element = std::make_shared<ValueType>(valueTypeFromProto(type.sequence_type().elem_type()));
        vt.elementType = vt.element->elementType;
        break;
    case onnx::TypeProto::kMapType:
        vt.kind = Value::Kind::Map;
        vt.keyType = dataTypeFromOnnx(type.map_type().key_type());
        vt.element = std::make_shared<ValueType>(valueTypeFromProto(type.map_type().value_type()));
        vt.elementType = vt.element->elementType;
        break;
    case onnx::TypeProto::kOptionalType:
        vt.kind = Value::Kind::Optional;
        vt.element = std::make_shared<ValueType>(valueTypeFromProto(type.optional_type().elem_type()));
        vt.elementType = vt.element->elementType;
        break;
    default:
        break;
    }
    return vt;
}

namespace {
/// The domains of onnxruntime's own operators, whose nodes onnxruntime runs as version 1 when the model does not import
/// the domain (any other domain missing from opset_import is refused).
bool isImplicitlyImportable(const std::string& domain)
{
    return domain == "com.microsoft" || domain == "com.microsoft.nchwc";
}

/// Model::setFunctionNodeLimit(); read once per load.
std::atomic<size_t> g_functionNodeLimit { 100'000 };
} // namespace

/// Builds Graph objects from GraphProto / FunctionProto, resolving names, outer scope and topological order.
class GraphBuilder {
public:
    /// For nodeProto() (node_proto.h) and nodeMetadataProps() (node_metadata.h) (Node's proto is private, GraphBuilder
    /// its friend).
    static const onnx::NodeProto* protoOf(const Node& node) { return node.m_proto; }

    /// Finds `name` in an enclosing scope; returns false if no enclosing graph defines it.
    using OuterResolver = std::function<bool(const std::string& name)>;

    GraphBuilder(Model& model, std::vector<std::unique_ptr<onnx::GraphProto>>& ownedProtos)
        : m_model(model)
        , m_owned(ownedProtos)
    {
    }

    std::shared_ptr<Graph> build(const onnx::GraphProto& proto, const std::map<std::string, int64_t>& opsets,
        const OuterResolver& outer, int depth)
    {
        if (depth > kMaxDepth)
            throw Error(
                "graph \"" + proto.name() + "\" is nested more than " + std::to_string(kMaxDepth) + " levels deep");
        auto g = std::make_shared<Graph>();
        g->m_name = proto.name();
        g->m_docString = proto.doc_string();
        g->m_model = &m_model;

        auto addValue = [&](const std::string& name, ValueInfo::Source source) -> ValueId {
            ValueId id = static_cast<ValueId>(g->m_values.size());
            ValueInfo v;
            v.name = name;
            v.source = source;
            g->m_values.push_back(std::move(v));
            g->m_byName.emplace(name, id);
            return id;
        };
        const std::string where = proto.name().empty() ? std::string("the graph") : "graph \"" + proto.name() + "\"";

        for (const auto& in : proto.input()) {
            check(!in.name().empty(), where + " has an input without a name");
            check(!g->m_byName.count(in.name()), where + " declares input \"" + in.name() + "\" twice");
            ValueId id = addValue(in.name(), ValueInfo::Source::Input);
            if (in.has_type())
                g->m_values[id].type = valueTypeFromProto(in.type());
            g->m_inputs.push_back(id);
        }
        auto addInitializer = [&](const onnx::TensorProto& init) {
            check(!init.name().empty(), where + " has an initializer without a name");
            ValueId id = g->findValue(init.name());
            if (id != kNoValue) {
                auto& v = g->m_values[id];
                check(v.source == ValueInfo::Source::Input && !v.initializer,
                    where + " defines initializer \"" + init.name() + "\" twice");
                v.initializer = &init;
            } else {
                id = addValue(init.name(), ValueInfo::Source::Initializer);
                g->m_values[id].initializer = &init;
                g->m_initializers.push_back(id);
            }
            for (int64_t d : init.dims())
                check(d >= 0, "initializer \"" + init.name() + "\" has a negative dimension");
            if (g->m_values[id].type.kind != Value::Kind::Tensor) {
                ValueType t;
                t.kind = Value::Kind::Tensor;
                t.elementType = dataTypeFromOnnx(init.data_type());
                t.hasShape = true;
                for (int64_t d : init.dims())
                    t.shape.push_back(Dim { d, {} });
                g->m_values[id].type = t;
            }
        };
        for (const auto& init : proto.initializer())
            addInitializer(init);
        // Sparse initializers are densified at load (the spec allows it) and then are initializers like any other;
        // their dense protos are kept with the model.
        for (const auto& sparse : proto.sparse_initializer()) {
            const std::string& name = sparse.values().name();
            check(!name.empty(), where + " has a sparse initializer without a name (its values have none)");
            Tensor dense
                = tensorFromSparseProto(sparse, "sparse initializer \"" + name + "\"", m_model.m_external.get());
            auto owned = std::make_unique<onnx::TensorProto>();
            tensorToProto(dense, *owned, name);
            m_model.m_denseInitializers.push_back(std::move(owned));
            addInitializer(*m_model.m_denseInitializers.back());
        }

        // Nodes in file order; outputs first, so inputs may refer to values produced later in the file.
        std::vector<Node> nodes(static_cast<size_t>(proto.node_size()));
        for (int i = 0; i < proto.node_size(); ++i) {
            const auto& np = proto.node(i);
            Node& n = nodes[static_cast<size_t>(i)];
            n.id = i;
            n.name = np.name();
            n.opType = np.op_type();
            n.domain = normalizeDomain(np.domain());
            n.m_proto = &np;
            check(!n.opType.empty(), where + ": node #" + std::to_string(i) + " has no op_type");
            for (const auto& out : np.output()) {
                if (out.empty()) {
                    n.outputs.push_back(kNoValue);
                    continue;
                }
                ValueId existing = g->findValue(out);
                if (existing != kNoValue) {
                    const auto& v = g->m_values[existing];
                    std::string other = v.source == ValueInfo::Source::NodeOutput
                        ? nodes[static_cast<size_t>(v.producer)].label()
                        : (v.source == ValueInfo::Source::Input ? std::string("a graph input") : "an initializer");
                    throw Error(n.label() + " produces \"" + out + "\", which " + other + " already produces");
                }
                ValueId id = addValue(out, ValueInfo::Source::NodeOutput);
                g->m_values[id].producer = i;
                n.outputs.push_back(id);
            }
        }
        for (auto& n : nodes) {
            auto opsetIt = opsets.find(n.domain);
            const bool isLocalFunction = localFunction(n) != nullptr;
            if (opsetIt == opsets.end() && !isLocalFunction && isImplicitlyImportable(n.domain)) {
                // onnxruntime runs it as version 1 of its domain; Model::diagnostics() warns.
            } else if (opsetIt == opsets.end() && !isLocalFunction)
                throw Error(n.label() + " uses domain \"" + (n.domain.empty() ? "ai.onnx" : n.domain)
                    + "\", which the model does not import (opset_import)");
            n.opset = opsetIt == opsets.end() ? 1 : opsetIt->second;
            n.attributes = NodeAttributes(n.m_proto, n.label());
            for (const auto& in : n.m_proto->input()) {
                if (in.empty()) {
                    n.inputs.push_back(kNoValue);
                    continue;
                }
                ValueId id = resolve(*g, in, outer);
                if (id == kNoValue)
                    throw Error(n.label() + " reads \"" + in + "\", which no node, graph input or initializer defines");
                n.inputs.push_back(id);
            }
        }
        for (const auto& vi : proto.value_info()) {
            ValueId id = g->findValue(vi.name());
            if (id != kNoValue && vi.has_type() && g->m_values[id].type.kind == Value::Kind::None)
                g->m_values[id].type = valueTypeFromProto(vi.type());
        }
        for (const auto& out : proto.output()) {
            ValueId id = resolve(*g, out.name(), outer);
            check(id != kNoValue, where + ": output \"" + out.name() + "\" is not produced by any node");
            if (out.has_type())
                g->m_values[id].type = valueTypeFromProto(out.type());
            g->m_outputs.push_back(id);
        }

        // Subgraphs: unknown names resolve against this graph, then further out.
        for (auto& n : nodes) {
            for (const auto& attr : n.m_proto->attribute()) {
                std::vector<const onnx::GraphProto*> bodies;
                if (attr.has_g())
                    bodies.push_back(&attr.g());
                for (const auto& gg : attr.graphs())
                    bodies.push_back(&gg);
                for (const auto* body : bodies) {
                    std::set<ValueId> implicit;
                    OuterResolver inner = [&](const std::string& name) {
                        ValueId id = resolve(*g, name, outer);
                        if (id == kNoValue)
                            return false;
                        implicit.insert(id);
                        return true;
                    };
                    std::shared_ptr<Graph> sub;
                    try {
                        sub = build(*body, opsets, inner, depth + 1);
                    } catch (const FunctionExpansionError&) {
                        throw;
                    } catch (const Error& e) {
                        throw Error(n.label() + ", attribute '" + attr.name() + "': " + e.what());
                    }
                    sub->m_parent = g.get();
                    n.subgraphs.emplace_back(attr.name(), sub);
                    for (ValueId id : implicit)
                        if (std::find(n.implicitInputs.begin(), n.implicitInputs.end(), id) == n.implicitInputs.end())
                            n.implicitInputs.push_back(id);
                }
            }
            if (const onnx::FunctionProto* fn = localFunction(n)) {
                std::map<std::string, onnx::AttributeProto> defaults;
                for (const auto& attr : fn->attribute_proto())
                    defaults[attr.name()] = attr;
                n.functionBody = instantiateFunction(*fn, n, opsets, depth + 1, &defaults);
            }
        }

        sortAndIndex(*g, std::move(nodes), where);
        return g;
    }

    /// The schema-defined function body of `caller`'s op, instantiated for it (see Model::schemaFunctionBody).
    std::shared_ptr<const Graph> schemaBody(const onnx::OpSchema& schema, const onnx::FunctionProto& function,
        const Node& caller, const std::map<std::string, int64_t>& opsets)
    {
        std::map<std::string, onnx::AttributeProto> defaults;
        for (const auto& [name, attr] : schema.attributes())
            if (attr.default_value.type() != onnx::AttributeProto::UNDEFINED)
                defaults[name] = attr.default_value;
        auto body = std::const_pointer_cast<Graph>(instantiateFunction(function, caller, opsets, 1, &defaults));
        body->m_owner = &caller;
        return body;
    }

private:
    static constexpr int kMaxDepth = 256;

    /// The model-local function that `node` calls: (domain, op type, overload). Null if the model defines no function
    /// of that domain and name; an error naming the overload if it defines some, but not the one the node names.
    const onnx::FunctionProto* localFunction(const Node& node) const
    {
        const std::string& overload = node.m_proto->overload();
        const auto& functions = m_model.m_functions;
        if (auto it = functions.find({ node.domain, node.opType, overload }); it != functions.end())
            return it->second;
        std::string defined;
        for (auto it = functions.lower_bound({ node.domain, node.opType, std::string() });
             it != functions.end() && std::get<0>(it->first) == node.domain && std::get<1>(it->first) == node.opType;
             ++it)
            defined += (defined.empty() ? "\"" : ", \"") + std::get<2>(it->first) + "\"";
        if (defined.empty())
            return nullptr;
        const std::string qualified = (node.domain.empty() ? std::string() : node.domain + ".") + node.opType;
        throw Error(node.label() + " calls "
            + (overload.empty() ? std::string("function \"") + qualified + "\" without an overload"
                                : "overload \"" + overload + "\" of function \"" + qualified + "\"")
            + ", which the model does not define (its overloads: " + defined + ")");
    }

    /// Replaces the attribute references (ref_attr_name) of `node`, and of the nodes of its subgraphs at any depth,
    /// by the caller's value or the function's default; a reference to an attribute that neither sets is dropped.
    static void substituteAttributeReferences(
        onnx::NodeProto& node, const Node& caller, const std::map<std::string, onnx::AttributeProto>* defaults)
    {
        auto* attributes = node.mutable_attribute();
        for (int i = 0; i < attributes->size();) {
            onnx::AttributeProto& attr = *attributes->Mutable(i);
            if (!attr.ref_attr_name().empty()) {
                const onnx::AttributeProto* value = caller.attributes.find(attr.ref_attr_name());
                if (!value && defaults)
                    if (auto it = defaults->find(attr.ref_attr_name()); it != defaults->end())
                        value = &it->second;
                if (!value) {
                    attributes->DeleteSubrange(i, 1);
                    continue;
                }
                const std::string name = attr.name();
                attr = *value;
                attr.set_name(name);
            }
            if (attr.has_g())
                for (auto& inner : *attr.mutable_g()->mutable_node())
                    substituteAttributeReferences(inner, caller, defaults);
            for (auto& g : *attr.mutable_graphs())
                for (auto& inner : *g.mutable_node())
                    substituteAttributeReferences(inner, caller, defaults);
            ++i;
        }
    }

    /// Thrown where the budget runs out; the outermost function call turns it into an Error naming its node.
    struct FunctionExpansionError : Error {
        using Error::Error;
    };

    ValueId resolve(Graph& g, const std::string& name, const OuterResolver& outer)
    {
        ValueId id = g.findValue(name);
        if (id != kNoValue)
            return id;
        if (!outer || !outer(name))
            return kNoValue;
        id = static_cast<ValueId>(g.m_values.size());
        ValueInfo v;
        v.name = name;
        v.source = ValueInfo::Source::OuterScope;
        g.m_values.push_back(std::move(v));
        g.m_byName.emplace(name, id);
        g.m_outer.push_back(id);
        return id;
    }

    /// A model-local function body for one call site: attribute references are replaced by the caller's values.
    std::shared_ptr<const Graph> instantiateFunction(const onnx::FunctionProto& fn, const Node& caller,
        const std::map<std::string, int64_t>& callerOpsets, int depth,
        const std::map<std::string, onnx::AttributeProto>* defaults = nullptr)
    {
        auto body = std::make_unique<onnx::GraphProto>();
        // The overload names the frame too, so that the debugger tells two overloads' bodies apart.
        body->set_name(fn.overload().empty() ? fn.name() : fn.name() + ":" + fn.overload());
        body->set_doc_string(fn.doc_string());
        for (int i = 0; i < fn.input_size(); ++i)
            body->add_input()->set_name(fn.input(i));
        for (int i = 0; i < fn.output_size(); ++i)
            body->add_output()->set_name(fn.output(i));
        for (const auto& np : fn.node()) {
            auto* copy = body->add_node();
            *copy = np;
            substituteAttributeReferences(*copy, caller, defaults);
        }
        // IR 10: the declared types of the body's values, like a graph's value_info.
        *body->mutable_value_info() = fn.value_info();
        std::map<std::string, int64_t> opsets = callerOpsets;
        for (const auto& imp : fn.opset_import())
            opsets[normalizeDomain(imp.domain())] = imp.version();
        const onnx::GraphProto& ref = *body;
        m_owned.push_back(std::move(body));
        // Checked up front from the functions' sizes at the outermost call, so that an exponential expansion is
        // refused at once instead of after building the first m_maxFunctionNodes nodes.
        const size_t expected = m_functionDepth == 0 ? expansionSize(fn) : 0;
        m_functionNodes += static_cast<size_t>(fn.node_size());
        if (m_functionNodes > m_maxFunctionNodes
            || expected > m_maxFunctionNodes - std::min(m_functionNodes, m_maxFunctionNodes)) {
            const std::string message = expansionTooLarge(caller);
            if (m_functionDepth == 0)
                throw Error(message);
            throw FunctionExpansionError(message);
        }
        ++m_functionDepth;
        try {
            auto g = build(ref, opsets, {}, depth);
            --m_functionDepth;
            return g;
        } catch (const FunctionExpansionError&) {
            if (--m_functionDepth > 0)
                throw;
            throw Error(expansionTooLarge(caller));
        } catch (const Error& e) {
            --m_functionDepth;
            throw Error(caller.label() + ", function \"" + ref.name() + "\": " + e.what());
        }
    }

    /// The error for a function call at `caller` whose expansion goes past the node budget.
    std::string expansionTooLarge(const Node& caller) const
    {
        return caller.label() + ": its model-local functions expand to more than " + std::to_string(m_maxFunctionNodes)
            + " nodes (functions that call each other many times)";
    }

    /// Nodes one call of `fn` expands to: its own, the bodies of the model-local functions it calls and the nodes of
    /// its subgraphs, at any depth (saturating). A call that recurses counts as nothing: the depth limit refuses it.
    size_t expansionSize(const onnx::FunctionProto& fn)
    {
        if (auto it = m_expansion.find(&fn); it != m_expansion.end())
            return it->second;
        m_expansion[&fn] = 0; // in progress: a recursive call adds nothing
        std::function<size_t(const google::protobuf::RepeatedPtrField<onnx::NodeProto>&)> count
            = [&](const auto& nodes) {
                  size_t n = 0;
                  auto add = [&](size_t k) { n = k > SIZE_MAX - n ? SIZE_MAX : n + k; };
                  for (const auto& node : nodes) {
                      add(1);
                      for (const auto& attr : node.attribute()) {
                          if (attr.has_g())
                              add(count(attr.g().node()));
                          for (const auto& g : attr.graphs())
                              add(count(g.node()));
                      }
                      if (auto it = m_model.m_functions.find(
                              { normalizeDomain(node.domain()), node.op_type(), node.overload() });
                          it != m_model.m_functions.end())
                          add(expansionSize(*it->second));
                  }
                  return n;
              };
        const size_t n = count(fn.node());
        m_expansion[&fn] = n;
        return n;
    }

    /// Kahn's algorithm, stable in file order. Renumbers nodes to their sorted position.
    void sortAndIndex(Graph& g, std::vector<Node> nodes, const std::string& where)
    {
        const size_t n = nodes.size();
        std::vector<std::vector<size_t>> users(n);
        std::vector<size_t> pending(n, 0);
        for (size_t i = 0; i < n; ++i) {
            std::set<size_t> deps;
            auto addDep = [&](ValueId id) {
                if (id == kNoValue)
                    return;
                const auto& v = g.m_values[static_cast<size_t>(id)];
                if (v.source == ValueInfo::Source::NodeOutput)
                    deps.insert(static_cast<size_t>(v.producer));
            };
            for (ValueId id : nodes[i].inputs)
                addDep(id);
            for (ValueId id : nodes[i].implicitInputs)
                addDep(id);
            for (size_t d : deps) {
                if (d == i)
                    throw Error(nodes[i].label() + " reads its own output: the graph has a cycle");
                users[d].push_back(i);
            }
            pending[i] = deps.size();
        }
        std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
        for (size_t i = 0; i < n; ++i)
            if (pending[i] == 0)
                ready.push(i);
        std::vector<size_t> order;
        order.reserve(n);
        while (!ready.empty()) {
            size_t i = ready.top();
            ready.pop();
            order.push_back(i);
            for (size_t u : users[i])
                if (--pending[u] == 0)
                    ready.push(u);
        }
        if (order.size() != n) {
            std::string names;
            int listed = 0;
            for (size_t i = 0; i < n && listed < 8; ++i)
                if (pending[i] > 0) {
                    names += (listed++ ? ", " : "") + ("\"" + nodes[i].displayName() + "\"");
                }
            throw Error(where + " has a cycle through the nodes " + names);
        }
        std::vector<NodeId> newId(n);
        for (size_t pos = 0; pos < n; ++pos)
            newId[order[pos]] = static_cast<NodeId>(pos);
        g.m_nodes.resize(n);
        for (size_t old = 0; old < n; ++old) {
            Node& node = nodes[old];
            node.id = newId[old];
            g.m_nodes[static_cast<size_t>(node.id)] = std::move(node);
        }
        for (auto& v : g.m_values) {
            if (v.source == ValueInfo::Source::NodeOutput)
                v.producer = newId[static_cast<size_t>(v.producer)];
        }
        for (auto& node : g.m_nodes) {
            node.attributes = NodeAttributes(node.m_proto, node.label());
            if (!node.name.empty())
                g.m_nodeByName.emplace(node.name, node.id);
            auto addConsumer = [&](ValueId id) {
                if (id == kNoValue)
                    return;
                auto& c = g.m_values[static_cast<size_t>(id)].consumers;
                if (c.empty() || c.back() != node.id)
                    c.push_back(node.id);
            };
            for (ValueId id : node.inputs)
                addConsumer(id);
            for (ValueId id : node.implicitInputs)
                addConsumer(id);
            for (auto& [attr, sub] : node.subgraphs)
                std::const_pointer_cast<Graph>(sub)->m_owner = &node;
            if (node.functionBody)
                std::const_pointer_cast<Graph>(node.functionBody)->m_owner = &node;
        }
        for (const auto& node : g.m_nodes)
            if (node.name.empty())
                g.m_nodeByName.emplace(node.displayName(), node.id);
    }

    Model& m_model;
    std::vector<std::unique_ptr<onnx::GraphProto>>& m_owned;
    size_t m_functionNodes = 0;
    const size_t m_maxFunctionNodes = g_functionNodeLimit.load();
    int m_functionDepth = 0;
    std::map<const onnx::FunctionProto*, size_t> m_expansion;
};

Model::~Model() = default;

std::shared_ptr<Model> Model::load(const fs::path& path)
{
    std::error_code ec;
    check(fs::exists(path, ec), "\"" + path.string() + "\" does not exist");
    check(!fs::is_directory(path, ec), "\"" + path.string() + "\" is a folder, not a model file");
    auto size = fs::file_size(path, ec);
    check(!ec, "cannot read \"" + path.string() + "\": " + ec.message());
    check(size < (uint64_t(2) << 30),
        "\"" + path.string() + "\" is " + std::to_string(size >> 20)
            + " MiB; protobuf cannot parse a model over 2 GiB. Save its weights as external data "
              "(onnx.save_model(..., save_as_external_data=True)).");
    std::string bytes = readFileBytes(path, (uint64_t(2) << 30) - 1);
    auto model = fromBytes(bytes, path.parent_path(), path.string());
    model->m_path = path;
    return model;
}

void Model::setFunctionNodeLimit(size_t nodes)
{
    g_functionNodeLimit = nodes;
}

size_t Model::functionNodeLimit()
{
    return g_functionNodeLimit;
}

std::shared_ptr<Model> Model::fromBytes(
    const std::string& bytes, const fs::path& baseDir, const std::string& displayName)
{
    auto proto = std::make_unique<onnx::ModelProto>();
    google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
    // Each graph nesting level is three message levels (node, attribute, graph); the builder refuses more than
    // kMaxDepth levels with a clear message, so protobuf's limit must not be what stops a deep model.
    coded.SetRecursionLimit(1000);
    check(!bytes.empty(), "\"" + displayName + "\" is empty");
    check(proto->ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage(),
        "\"" + displayName + "\" is not a valid ONNX model (protobuf parsing failed: truncated, corrupt or not an "
            + "ONNX file)");
    return fromProto(std::move(proto), baseDir, displayName);
}

std::shared_ptr<Model> Model::fromText(const std::string& text, int64_t defaultOpset)
{
    auto proto = std::make_unique<onnx::ModelProto>();
    auto trimmed = text.substr(std::min(text.find_first_not_of(" \t\r\n"), text.size()));
    if (!trimmed.empty() && trimmed[0] == '<') {
        auto status = onnx::OnnxParser::Parse(*proto, text.c_str());
        check(status.IsOK(), "cannot parse ONNX text: " + status.ErrorMessage());
    } else {
        auto status = onnx::OnnxParser::Parse(*proto->mutable_graph(), text.c_str());
        check(status.IsOK(), "cannot parse ONNX text: " + status.ErrorMessage());
        proto->set_ir_version(8);
        auto* imp = proto->add_opset_import();
        imp->set_domain("");
        imp->set_version(defaultOpset);
    }
    if (proto->ir_version() == 0)
        proto->set_ir_version(8);
    return fromProto(std::move(proto), fs::current_path(), "<text>");
}

std::shared_ptr<Model> Model::fromProto(
    std::unique_ptr<onnx::ModelProto> proto, const fs::path& baseDir, const std::string& displayName)
{
    std::shared_ptr<Model> model(new Model());
    model->m_proto = std::move(proto);
    model->m_displayName = displayName;
    model->m_external = std::make_unique<ExternalDataStore>(baseDir);
    const auto& mp = *model->m_proto;
    for (const auto& imp : mp.opset_import())
        model->m_opsets[normalizeDomain(imp.domain())] = imp.version();
    if (mp.opset_import_size() == 0 && mp.ir_version() < 3)
        model->m_opsets[""] = 1; // IR 1-2 predate opset_import and mean opset 1
    for (const auto& fn : mp.functions()) {
        const bool added
            = model->m_functions.emplace(std::tuple { normalizeDomain(fn.domain()), fn.name(), fn.overload() }, &fn)
                  .second;
        check(added,
            "\"" + displayName + "\" defines function \"" + (fn.domain().empty() ? "" : fn.domain() + ".") + fn.name()
                + "\"" + (fn.overload().empty() ? std::string() : " overload \"" + fn.overload() + "\"") + " twice");
    }
    check(mp.has_graph(), "\"" + displayName + "\" has no graph");
    try {
        GraphBuilder builder(*model, model->m_functionBodies);
        model->m_graph = builder.build(mp.graph(), model->m_opsets, {}, 0);
    } catch (const Error& e) {
        throw Error("\"" + displayName + "\": " + e.what());
    }
    return model;
}

int64_t Model::opset(const std::string& domain) const
{
    auto it = m_opsets.find(normalizeDomain(domain));
    return it == m_opsets.end() ? 0 : it->second;
}

Tensor Model::initializer(const ValueInfo& value) const
{
    check(value.initializer != nullptr, "\"" + value.name + "\" is not an initializer");
    try {
        return value.initializerTensor(m_external.get());
    } catch (const Error& e) {
        throw Error("\"" + m_displayName + "\": initializer " + e.what());
    }
}

ModelMetadata Model::metadata() const
{
    const onnx::ModelProto& mp = *m_proto;
    ModelMetadata m;
    m.irVersion = mp.ir_version();
    m.producerName = mp.producer_name();
    m.producerVersion = mp.producer_version();
    m.domain = mp.domain();
    m.modelVersion = mp.model_version();
    m.docString = mp.doc_string();
    for (const auto& entry : mp.metadata_props())
        m.properties.emplace_back(entry.key(), entry.value());
    return m;
}

namespace {
/// A function attribute's default value as text: numbers, strings and their lists; other kinds by their type name.
std::string attributeDefaultText(const onnx::AttributeProto& attr)
{
    auto number = [](double v) {
        std::ostringstream out;
        out << v;
        return out.str();
    };
    auto list = [](const auto& values, const auto& text) {
        std::string out = "[";
        for (int i = 0; i < values.size(); ++i)
            out += (i ? ", " : "") + text(values.Get(i));
        return out + "]";
    };
    auto quoted = [](const std::string& s) { return "\"" + s + "\""; };
    switch (attr.type()) {
    case onnx::AttributeProto::FLOAT:
        return number(attr.f());
    case onnx::AttributeProto::INT:
        return std::to_string(attr.i());
    case onnx::AttributeProto::STRING:
        return quoted(attr.s());
    case onnx::AttributeProto::FLOATS:
        return list(attr.floats(), number);
    case onnx::AttributeProto::INTS:
        return list(attr.ints(), [](int64_t v) { return std::to_string(v); });
    case onnx::AttributeProto::STRINGS:
        return list(attr.strings(), quoted);
    default:
        return onnx::AttributeProto::AttributeType_Name(attr.type());
    }
}
} // namespace

std::vector<FunctionInfo> Model::functions() const
{
    std::vector<FunctionInfo> out;
    for (const auto& fn : m_proto->functions()) {
        FunctionInfo f;
        f.domain = fn.domain();
        f.name = fn.name();
        f.overload = fn.overload();
        f.inputs.assign(fn.input().begin(), fn.input().end());
        f.outputs.assign(fn.output().begin(), fn.output().end());
        f.attributes.assign(fn.attribute().begin(), fn.attribute().end());
        for (const auto& attr : fn.attribute_proto())
            f.attributes.push_back(attr.name() + " = " + attributeDefaultText(attr));
        f.nodeCount = static_cast<size_t>(fn.node_size());
        f.doc = fn.doc_string();
        for (const auto& entry : fn.metadata_props())
            f.metadata.emplace_back(entry.key(), entry.value());
        out.push_back(std::move(f));
    }
    return out;
}

uint64_t Model::initializerBytes() const
{
    uint64_t total = 0;
    std::function<void(const Graph&)> visit = [&](const Graph& g) {
        for (const auto& v : g.values())
            if (v.initializer) {
                // Saturating: dims from the file may multiply past 2^64.
                DataType t = dataTypeFromOnnx(v.initializer->data_type());
                uint64_t n = t == DataType::String || t == DataType::Undefined ? 0 : elementSize(t);
                for (int64_t d : v.initializer->dims())
                    if (__builtin_mul_overflow(n, static_cast<uint64_t>(std::max<int64_t>(d, 0)), &n))
                        n = UINT64_MAX;
                if (__builtin_add_overflow(total, n, &total))
                    total = UINT64_MAX;
            }
        for (const auto& node : g.nodes())
            for (const auto& [attr, sub] : node.subgraphs)
                visit(*sub);
    };
    visit(*m_graph);
    return total;
}

std::vector<Diagnostic> Model::diagnostics() const
{
    std::vector<Diagnostic> out;
    // onnx's schemas, checker and shape inference stop at the newest opset of each domain that the library knows.
    const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    for (const auto& [domain, version] : m_opsets)
        if (auto it = known.find(domain); it != known.end() && version > it->second.second)
            out.push_back({ Diagnostic::Severity::Warning, "opset",
                "the model imports opset " + std::to_string(version) + " of \"" + (domain.empty() ? "ai.onnx" : domain)
                    + "\"; the newest that onnx " + onnxLibraryVersion() + " knows is "
                    + std::to_string(it->second.second) });
    // Nodes of onnxruntime's domains that the model does not import (the loader runs them as version 1).
    std::map<std::string, size_t> implicitDomains;
    std::function<void(const Graph&)> visit = [&](const Graph& g) {
        for (const auto& node : g.nodes()) {
            if (isImplicitlyImportable(node.domain) && !m_opsets.count(node.domain))
                ++implicitDomains[node.domain];
            for (const auto& [attr, sub] : node.subgraphs)
                visit(*sub);
        }
    };
    visit(*m_graph);
    for (const auto& [domain, count] : implicitDomains)
        out.push_back({ Diagnostic::Severity::Warning, "loader",
            std::to_string(count) + (count == 1 ? " node uses" : " nodes use") + " domain \"" + domain
                + "\", which the model does not import (opset_import); they run as version 1 of that domain, as "
                  "onnxruntime runs them" });
    try {
        // From a file, the checker is given its path: it looks external data up next to the model (given the
        // proto alone, it would look in the working directory and report the weights as missing).
        if (!m_path.empty())
            onnx::checker::check_model(m_path.string());
        else
            onnx::checker::check_model(*m_proto);
    } catch (const std::exception& e) {
        out.push_back({ Diagnostic::Severity::Error, "checker", e.what() });
    }
    try {
        onnx::ModelProto copy = *m_proto;
        onnx::ShapeInferenceOptions options(true, 1, false);
        onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
        out.push_back({ Diagnostic::Severity::Warning, "shape inference", e.what() });
    }
    return out;
}

std::shared_ptr<const Graph> Model::schemaFunctionBody(const Node& node) const
{
    std::lock_guard lock(m_schemaBodiesMutex);
    if (auto it = m_schemaBodies.find(&node); it != m_schemaBodies.end())
        return it->second;
    std::shared_ptr<const Graph> body;
    const auto* schema = onnx::OpSchemaRegistry::Schema(node.opType, static_cast<int>(node.opset), node.domain);
    // The body written for the model's opset of the op's domain: onnx keeps one per opset in which an op that the
    // body uses changed (e.g. LogSoftmax-13 has bodies for opsets 13 and 18, ReduceMax having changed in 18).
    const onnx::FunctionProto* function
        = schema && schema->HasFunction() ? schema->GetFunction(static_cast<int>(node.opset)) : nullptr;
    if (function) {
        std::map<std::string, int64_t> opsets = m_opsets;
        GraphBuilder builder(const_cast<Model&>(*this), const_cast<Model*>(this)->m_functionBodies);
        body = builder.schemaBody(*schema, *function, node, opsets);
    }
    m_schemaBodies[&node] = body;
    return body;
}

std::map<std::string, ValueType> Model::inferredTypes() const
{
    std::map<std::string, ValueType> out;
    onnx::ModelProto copy = *m_proto;
    try {
        onnx::shape_inference::InferShapes(copy);
    } catch (const std::exception&) {
        // Partial results are still useful; diagnostics() reports the failure.
    }
    const auto& g = copy.graph();
    for (const auto* list : { &g.input(), &g.output(), &g.value_info() })
        for (const auto& vi : *list)
            if (vi.has_type())
                out[vi.name()] = valueTypeFromProto(vi.type());
    return out;
}

const onnx::NodeProto* nodeProto(const Node& node)
{
    return GraphBuilder::protoOf(node);
}

std::vector<std::pair<std::string, std::string>> nodeMetadataProps(const Node& node)
{
    std::vector<std::pair<std::string, std::string>> out;
    if (const onnx::NodeProto* proto = GraphBuilder::protoOf(node))
        for (const auto& entry : proto->metadata_props())
            out.emplace_back(entry.key(), entry.value());
    return out;
}

const std::string* nodeMetadataProp(const Node& node, std::string_view key)
{
    if (const onnx::NodeProto* proto = GraphBuilder::protoOf(node))
        for (const auto& entry : proto->metadata_props())
            if (entry.key() == key)
                return &entry.value();
    return nullptr;
}

} // namespace onnxscope
