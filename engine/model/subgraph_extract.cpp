// SPDX-License-Identifier: MIT
#include "engine/model/subgraph_extract.h"

#include "engine/core/error.h"
#include "engine/io/tensor_proto.h"
#include "engine/model/node_proto.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>
#include <set>

namespace fs = std::filesystem;

namespace onnxscope {

namespace {

std::string quoted(const std::string& s)
{
    return "\"" + s + "\"";
}

ValueId requireValue(const Graph& graph, const std::string& name, const char* what)
{
    const ValueId v = graph.findValue(name);
    if (v == kNoValue)
        throw Error(std::string(what) + " " + quoted(name) + " is not a value of the main graph");
    return v;
}

// Every value a node reads: its inputs and the outer-scope values its subgraphs read.
std::vector<ValueId> readsOf(const Node& node)
{
    std::vector<ValueId> out;
    for (const auto* list : { &node.inputs, &node.implicitInputs })
        for (ValueId v : *list)
            if (v != kNoValue)
                out.push_back(v);
    return out;
}

// Walks back from `needed` to `inputs`, collecting the nodes in between and the initializers they read. A value that
// is none of these is the error: the boundary leaves out something the part needs.
void collect(const Graph& graph, const std::set<ValueId>& inputs, std::vector<ValueId> needed, std::set<NodeId>& nodes,
    std::set<ValueId>& initializers)
{
    std::set<ValueId> seen;
    while (!needed.empty()) {
        const ValueId v = needed.back();
        needed.pop_back();
        if (!seen.insert(v).second || inputs.count(v))
            continue;
        const ValueInfo& info = graph.value(v);
        if (info.hasInitializer()) {
            initializers.insert(v);
            continue;
        }
        if (info.producer < 0) {
            // A graph input without a default, or a value of an enclosing graph.
            std::string reader;
            for (NodeId c : info.consumers)
                if (nodes.count(c)) {
                    reader = graph.node(c).label() + " ";
                    break;
                }
            throw Error("the boundary is not a subgraph: " + reader + "needs " + quoted(info.name)
                + ", a graph input that is not one of the given inputs; add it to --inputs");
        }
        if (nodes.insert(info.producer).second)
            for (ValueId in : readsOf(graph.node(info.producer)))
                needed.push_back(in);
    }
}

SubgraphBoundary finish(const Graph& graph, std::vector<std::string> inputs, std::vector<std::string> outputs,
    const std::set<NodeId>& nodes, const std::set<ValueId>& initializers)
{
    SubgraphBoundary part;
    part.inputs = std::move(inputs);
    part.outputs = std::move(outputs);
    part.nodes.assign(nodes.begin(), nodes.end()); // NodeIds are in topological order
    for (ValueId v : initializers)
        part.initializers.push_back(graph.value(v).name);
    if (part.nodes.empty())
        throw Error("the boundary holds no node: every output is one of the inputs or an initializer");
    return part;
}

// The value info of a boundary value, typed from the value a run gave it.
void typeValue(onnx::ValueInfoProto& info, const std::string& name, const std::map<std::string, Value>& values)
{
    info.set_name(name);
    auto it = values.find(name);
    if (it == values.end())
        throw Error("no value of " + quoted(name) + " was captured, so the extracted model cannot be typed");
    if (!it->second.isTensor())
        throw Error(quoted(name) + " is a " + it->second.typeString()
            + "; only tensors can cross the boundary of an extracted part");
    const Tensor& t = it->second.tensor();
    auto* tensorType = info.mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(static_cast<int32_t>(t.dtype()));
    auto* shape = tensorType->mutable_shape();
    for (int64_t d : t.shape())
        shape->add_dim()->set_dim_value(d);
}

} // namespace

SubgraphBoundary subgraphBetween(
    const Graph& graph, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs)
{
    if (outputs.empty())
        throw Error("an extract needs at least one output");
    std::set<ValueId> in;
    for (const auto& name : inputs)
        in.insert(requireValue(graph, name, "input"));
    std::vector<ValueId> needed;
    for (const auto& name : outputs)
        needed.push_back(requireValue(graph, name, "output"));
    std::set<NodeId> nodes;
    std::set<ValueId> initializers;
    collect(graph, in, needed, nodes, initializers);
    // An input nothing inside reads would be an input the test data must still supply: refuse it instead.
    for (ValueId v : in) {
        const auto& consumers = graph.value(v).consumers;
        bool read = std::find(needed.begin(), needed.end(), v) != needed.end();
        for (NodeId c : consumers)
            read = read || nodes.count(c) > 0;
        if (!read)
            throw Error(
                "input " + quoted(graph.value(v).name) + " is not read by any node between the inputs and the outputs");
    }
    return finish(graph, inputs, outputs, nodes, initializers);
}

SubgraphBoundary subgraphOfNodes(const Graph& graph, const std::vector<std::string>& nodeNames)
{
    if (nodeNames.empty())
        throw Error("an extract needs at least one node");
    std::set<NodeId> chosen;
    for (const auto& name : nodeNames) {
        const NodeId id = graph.findNode(name);
        if (id < 0)
            throw Error("the main graph has no node named " + quoted(name));
        chosen.insert(id);
    }
    std::set<ValueId> produced;
    for (NodeId n : chosen)
        for (ValueId v : graph.node(n).outputs)
            if (v != kNoValue)
                produced.insert(v);
    // Inputs: what the chosen nodes read from outside, except initializers and Constant outputs, which come along.
    std::vector<std::string> inputs;
    std::set<ValueId> inputIds;
    std::vector<ValueId> constants;
    for (NodeId n : chosen)
        for (ValueId v : readsOf(graph.node(n))) {
            if (produced.count(v) || inputIds.count(v))
                continue;
            const ValueInfo& info = graph.value(v);
            if (info.hasInitializer())
                continue;
            if (info.producer >= 0 && graph.node(info.producer).inputs.empty()
                && graph.node(info.producer).subgraphs.empty()) {
                constants.push_back(v);
                continue;
            }
            inputIds.insert(v);
            inputs.push_back(info.name);
        }
    std::set<ValueId> outputSet(graph.outputs().begin(), graph.outputs().end());
    std::vector<std::string> outputs, all;
    for (NodeId n : chosen)
        for (ValueId v : graph.node(n).outputs) {
            if (v == kNoValue)
                continue;
            all.push_back(graph.value(v).name);
            bool leaves = outputSet.count(v) > 0;
            for (NodeId c : graph.value(v).consumers)
                leaves = leaves || !chosen.count(c);
            if (leaves)
                outputs.push_back(graph.value(v).name);
        }
    if (outputs.empty())
        outputs = all;
    std::set<NodeId> nodes = chosen;
    std::set<ValueId> initializers;
    std::vector<ValueId> needed;
    for (NodeId n : chosen)
        for (ValueId v : readsOf(graph.node(n)))
            needed.push_back(v);
    collect(graph, inputIds, needed, nodes, initializers);
    return finish(graph, inputs, outputs, nodes, initializers);
}

ExtractedModel writeSubgraphModel(const Model& model, const SubgraphBoundary& part,
    const std::map<std::string, Value>& values, const fs::path& path, const ExtractOptions& options)
{
    const Graph& graph = model.graph();
    const onnx::ModelProto& source = model.proto();
    onnx::ModelProto out;
    out.set_ir_version(source.ir_version());
    *out.mutable_opset_import() = source.opset_import();
    *out.mutable_functions() = source.functions();
    out.set_producer_name("onnxscope extract");
    out.set_doc_string("Extracted from " + model.displayName() + " by onnxscope-cli extract");
    onnx::GraphProto& g = *out.mutable_graph();
    g.set_name((graph.name().empty() ? std::string("graph") : graph.name()) + "_extract");
    ExtractedModel result;
    for (NodeId n : part.nodes) {
        const onnx::NodeProto* proto = nodeProto(graph.node(n));
        if (!proto)
            throw Error(graph.node(n).label() + " was made by the loader and has no node in the file to extract");
        *g.add_node() = *proto;
    }
    result.nodeCount = part.nodes.size();
    for (const auto& name : part.inputs)
        typeValue(*g.add_input(), name, values);
    for (const auto& name : part.outputs)
        typeValue(*g.add_output(), name, values);

    std::vector<Tensor> tensors;
    for (const auto& name : part.initializers) {
        Tensor t = model.initializer(graph.value(graph.findValue(name)));
        result.initializerBytes += t.dtype() == DataType::String ? 0 : t.byteSize();
        tensors.push_back(std::move(t));
    }
    result.initializerCount = tensors.size();
    result.externalData = result.initializerBytes > options.externalDataAbove;
    const fs::path dataName = path.filename().string() + ".data";
    std::ofstream data;
    uint64_t offset = 0;
    if (result.externalData) {
        data.open(path.parent_path() / dataName, std::ios::binary | std::ios::trunc);
        if (!data)
            throw Error("cannot write " + (path.parent_path() / dataName).string());
    }
    for (size_t i = 0; i < tensors.size(); ++i) {
        onnx::TensorProto& proto = *g.add_initializer();
        tensorToProto(tensors[i], proto, part.initializers[i]);
        if (!result.externalData || !proto.has_raw_data() || proto.raw_data().size() < options.externalMinBytes)
            continue;
        // 64-byte aligned, so that readers may map each tensor in place.
        const uint64_t aligned = (offset + 63) / 64 * 64;
        if (aligned > offset) {
            const std::string pad(aligned - offset, '\0');
            data.write(pad.data(), static_cast<std::streamsize>(pad.size()));
        }
        const std::string& raw = proto.raw_data();
        data.write(raw.data(), static_cast<std::streamsize>(raw.size()));
        auto add = [&](const char* key, const std::string& value) {
            auto* entry = proto.add_external_data();
            entry->set_key(key);
            entry->set_value(value);
        };
        add("location", dataName.string());
        add("offset", std::to_string(aligned));
        add("length", std::to_string(raw.size()));
        offset = aligned + raw.size();
        proto.clear_raw_data();
        proto.set_data_location(onnx::TensorProto::EXTERNAL);
    }
    if (data.is_open()) {
        data.close();
        if (!data)
            throw Error("cannot write " + (path.parent_path() / dataName).string());
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file || !out.SerializeToOstream(&file))
        throw Error("cannot write " + path.string());
    return result;
}

} // namespace onnxscope
