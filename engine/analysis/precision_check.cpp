// SPDX-License-Identifier: MIT
#include "engine/analysis/precision_check.h"

#include "engine/core/cast.h"
#include "engine/core/error.h"
#include "engine/io/tensor_proto.h"
#include "engine/model/model.h"
#include "engine/model/node_proto.h"

#include <nlohmann/json.hpp>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <unordered_map>

namespace onnxscope {

double PrecisionTarget::maxFinite() const
{
    // bfloat16's largest finite value is 0x7F7F: (2 - 2^-7) * 2^127.
    return type == DataType::BFloat16 ? 3.3895313892515355e38 : 65504.0;
}

double PrecisionTarget::smallestSubnormal() const
{
    return type == DataType::BFloat16 ? std::ldexp(1.0, -133) : std::ldexp(1.0, -24);
}

const char* PrecisionTarget::shortName() const
{
    return type == DataType::BFloat16 ? "bf16" : "fp16";
}

PrecisionTarget parsePrecisionTarget(const std::string& text)
{
    if (text == "fp16" || text == "float16")
        return { DataType::Float16 };
    if (text == "bf16" || text == "bfloat16")
        return { DataType::BFloat16 };
    throw Error("unknown precision \"" + text + "\": expected fp16 or bf16");
}

std::vector<std::string> PrecisionReport::blockList() const
{
    std::vector<std::string> names;
    for (const auto& n : keep)
        if (!n.name.empty() && std::find(names.begin(), names.end(), n.name) == names.end())
            names.push_back(n.name);
    return names;
}

size_t PrecisionReport::unnamedKeep() const
{
    return static_cast<size_t>(std::count_if(keep.begin(), keep.end(), [](const auto& n) { return n.name.empty(); }));
}

namespace {

const char* originName(PrecisionValue::Origin o)
{
    switch (o) {
    case PrecisionValue::Origin::GraphInput:
        return "graph input";
    case PrecisionValue::Origin::Initializer:
        return "initializer";
    default:
        return "node output";
    }
}

/// Accumulates the ranges of the float32 values of one run, keyed by (graph, value id), so that every iteration of
/// a Loop body adds to the same value.
class RangeObserver : public SessionObserver {
public:
    explicit RangeObserver(const PrecisionTarget& target)
        : m_max(target.maxFinite())
        , m_subnormal(target.smallestSubnormal())
    {
    }

    struct Entry {
        PrecisionValue value;
        const Graph* graph = nullptr;
        ValueId id = kNoValue;
        size_t order = 0;
    };

    void add(const Graph& graph, ValueId id, const Value& v, const std::string& framePath, const Node* producer,
        PrecisionValue::Origin origin)
    {
        if (!v.isTensor() || v.tensor().dtype() != DataType::Float)
            return;
        auto key = std::make_pair(&graph, id);
        auto it = m_index.find(key);
        if (it == m_index.end()) {
            Entry e;
            e.graph = &graph;
            e.id = id;
            e.order = m_entries.size();
            e.value.name = graph.value(id).name;
            e.value.framePath = framePath;
            e.value.origin = origin;
            if (producer) {
                e.value.producer = producer->displayName();
                e.value.producerOp = producer->opType;
            }
            e.value.min = std::numeric_limits<double>::infinity();
            e.value.max = -std::numeric_limits<double>::infinity();
            it = m_index.emplace(key, m_entries.size()).first;
            m_entries.push_back(std::move(e));
        }
        PrecisionValue& p = m_entries[it->second].value;
        const auto data = v.tensor().data<float>();
        p.elements += static_cast<int64_t>(data.size());
        float lo = std::numeric_limits<float>::infinity(), hi = -lo, minAbs = lo;
        int64_t nonZero = 0, over = 0, under = 0, nonFinite = 0;
        for (float x : data) {
            if (!std::isfinite(x)) {
                ++nonFinite;
                continue;
            }
            lo = std::min(lo, x);
            hi = std::max(hi, x);
            const double a = std::fabs(double(x));
            if (a == 0)
                continue;
            ++nonZero;
            minAbs = std::min(minAbs, float(a));
            over += a > m_max;
            under += a < m_subnormal;
        }
        p.nonZero += nonZero;
        p.overflow += over;
        p.underflow += under;
        p.nonFinite += nonFinite;
        p.min = std::min(p.min, double(lo));
        p.max = std::max(p.max, double(hi));
        if (nonZero)
            p.minAbsNonZero = p.minAbsNonZero == 0 ? double(minAbs) : std::min(p.minAbsNonZero, double(minAbs));
    }

    void afterNode(const NodeEvent& e) override
    {
        const Graph& g = e.frame.graph();
        for (size_t i = 0; i < e.outputs.size() && i < e.node.outputs.size(); ++i)
            if (e.node.outputs[i] != kNoValue && !e.outputs[i].isNone())
                add(g, e.node.outputs[i], e.outputs[i], e.framePath, &e.node, PrecisionValue::Origin::NodeOutput);
        if (&g == m_main)
            for (size_t i = 0; i < e.outputs.size() && i < e.node.outputs.size(); ++i)
                if (e.node.outputs[i] != kNoValue && e.outputs[i].isTensor())
                    types[g.value(e.node.outputs[i]).name] = e.outputs[i].tensor().dtype();
    }
    bool wantsTiming() const override { return false; }

    const Graph* m_main = nullptr;
    std::vector<Entry> m_entries;
    std::map<std::pair<const Graph*, ValueId>, size_t> m_index;
    std::map<std::string, DataType> types;

private:
    double m_max, m_subnormal;
};

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

} // namespace

PrecisionReport checkPrecision(const std::shared_ptr<const Program>& program,
    const std::map<std::string, Value>& inputs, const PrecisionCheckOptions& options)
{
    check(program != nullptr, "check-precision: no program");
    if (!(options.underflowShare >= 0 && options.underflowShare < 1))
        throw Error("the underflow share threshold must be in [0, 1), got " + number(options.underflowShare));
    const Model& model = program->model();
    const Graph& graph = model.graph();
    PrecisionReport report;
    report.target = options.target;
    report.underflowThreshold = options.underflowShare;

    RangeObserver observer(options.target);
    observer.m_main = &graph;
    // Graph inputs and initializers first: they are converted too (or cast at the boundary).
    for (ValueId id : graph.inputs()) {
        const auto& v = graph.value(id);
        auto it = inputs.find(v.name);
        if (it != inputs.end()) {
            observer.add(graph, id, it->second, "main", nullptr, PrecisionValue::Origin::GraphInput);
            if (it->second.isTensor())
                observer.types[v.name] = it->second.tensor().dtype();
        }
    }
    for (ValueId id : graph.initializers()) {
        const auto& v = graph.value(id);
        const InitializerInfo info = v.initializerInfo();
        observer.types[v.name] = info.dtype;
        if (info.dtype == DataType::Float && !inputs.count(v.name))
            observer.add(graph, id, Value(model.initializer(v)), "main", nullptr, PrecisionValue::Origin::Initializer);
    }

    Session session(program, options.session);
    session.addObserver(&observer);
    if (!options.progress && !options.cancel) {
        report.outputs = session.run(inputs);
    } else {
        session.start(inputs);
        uint64_t done = 0;
        while (session.advance().kind != Session::StepKind::Finished) {
            if (options.cancel && options.cancel->load())
                throw PrecisionCheckCancelled();
            if (options.progress && ++done % 64 == 0)
                options.progress(done);
        }
        report.outputs = session.outputs();
    }
    report.valueTypes = std::move(observer.types);

    // The nodes to keep: the producer of a flagged value (its result cannot be held in the target type) and every
    // node that reads it (a Cast to the target type in front of it would overflow or flush it).
    std::map<std::pair<const Graph*, NodeId>, size_t> keepIndex;
    std::vector<std::pair<size_t, size_t>> keepOrder; // (first flagged value's order, index in keep)
    auto keepNode = [&](const Graph& g, NodeId n, const std::string& framePath, const std::string& reason,
                        bool overflow, size_t order, bool produces) {
        auto key = std::make_pair(&g, n);
        auto it = keepIndex.find(key);
        if (it == keepIndex.end()) {
            const Node& node = g.node(n);
            PrecisionNode k;
            k.name = node.name;
            k.displayName = node.displayName();
            k.opType = node.opType;
            k.framePath = framePath;
            k.graph = &g;
            k.nodeId = n;
            it = keepIndex.emplace(key, report.keep.size()).first;
            keepOrder.emplace_back(order, report.keep.size());
            report.keep.push_back(std::move(k));
        }
        PrecisionNode& k = report.keep[it->second];
        if (std::find(k.reasons.begin(), k.reasons.end(), reason) == k.reasons.end())
            k.reasons.push_back(reason);
        k.overflow = k.overflow || overflow;
        if (produces)
            (overflow ? k.producesOverflow : k.producesUnderflow) = true;
        if (std::find(k.values.begin(), k.values.end(), report.flagged.size()) == k.values.end())
            k.values.push_back(report.flagged.size()); // the value being flagged, pushed after its nodes
    };
    const std::string typeName(dataTypeName(options.target.type));
    for (auto& e : observer.m_entries) {
        PrecisionValue& p = e.value;
        ++report.valuesChecked;
        if (p.elements == p.nonFinite) // no finite element: no range
            p.min = p.max = 0;
        p.overflows = p.overflow > 0;
        p.underflows = p.nonZero > 0 && p.underflowShare() > options.underflowShare;
        if (!p.overflows && !p.underflows)
            continue;
        const std::string what = p.overflows
            ? "overflows " + typeName + " (" + std::to_string(p.overflow) + " of " + std::to_string(p.elements)
                + " elements, max |x| " + number(std::max(std::fabs(p.min), std::fabs(p.max))) + ")"
            : "mostly flushes to zero in " + typeName + " (" + number(100.0 * p.underflowShare())
                + "% of its non-zero elements)";
        const ValueInfo& v = e.graph->value(e.id);
        const size_t order = e.order;
        if (v.producer >= 0)
            keepNode(*e.graph, v.producer, p.framePath, "produces \"" + p.name + "\", which " + what, p.overflows,
                order, true);
        std::set<NodeId> readers(v.consumers.begin(), v.consumers.end());
        for (const Node& n : e.graph->nodes())
            if (std::find(n.implicitInputs.begin(), n.implicitInputs.end(), e.id) != n.implicitInputs.end())
                readers.insert(n.id);
        for (NodeId c : readers)
            keepNode(*e.graph, c, p.framePath, "reads \"" + p.name + "\", which " + what, p.overflows, order, false);
        // onnxconverter-common wraps each kept node in Casts to float32 before and to float16 after, then removes a
        // float16/float32 Cast pair only when the value has one reader (remove_unnecessary_cast_node), so a value
        // with several readers crosses float16 anyway.
        if (v.producer >= 0 && readers.size() > 1)
            report.notes.push_back("\"" + p.name + "\" has " + std::to_string(readers.size())
                + " readers: onnxconverter-common's convert_float_to_float16 (1.16) still casts it to " + typeName
                + " between the kept nodes, so its list alone is not enough here; --write keeps it float32");
        report.flagged.push_back(p);
    }
    // Execution order of the producers; readers after them.
    std::vector<PrecisionNode> ordered;
    std::stable_sort(keepOrder.begin(), keepOrder.end());
    for (const auto& [order, index] : keepOrder)
        ordered.push_back(std::move(report.keep[index]));
    report.keep = std::move(ordered);
    return report;
}

std::string precisionReportJson(const PrecisionReport& report)
{
    using nlohmann::json;
    json j;
    j["target"] = dataTypeName(report.target.type);
    j["max_finite"] = report.target.maxFinite();
    j["smallest_subnormal"] = report.target.smallestSubnormal();
    j["underflow_threshold"] = report.underflowThreshold;
    j["values_checked"] = report.valuesChecked;
    json values = json::array();
    for (const auto& p : report.flagged) {
        json v;
        v["name"] = p.name;
        v["frame"] = p.framePath;
        v["origin"] = originName(p.origin);
        v["producer"] = p.producer.empty() ? json(nullptr) : json(p.producer);
        v["producer_op"] = p.producerOp.empty() ? json(nullptr) : json(p.producerOp);
        v["elements"] = p.elements;
        v["non_zero"] = p.nonZero;
        v["overflow"] = p.overflow;
        v["underflow"] = p.underflow;
        v["underflow_share"] = p.underflowShare();
        v["non_finite"] = p.nonFinite;
        v["min"] = p.min;
        v["max"] = p.max;
        v["min_abs_non_zero"] = p.minAbsNonZero;
        v["overflows"] = p.overflows;
        v["underflows"] = p.underflows;
        values.push_back(v);
    }
    j["flagged"] = values;
    json keep = json::array();
    for (const auto& k : report.keep) {
        json n;
        n["node"] = k.name.empty() ? json(nullptr) : json(k.name);
        n["display_name"] = k.displayName;
        n["op_type"] = k.opType;
        n["frame"] = k.framePath;
        n["reason"] = k.overflow ? "overflow" : "underflow";
        n["evidence"] = k.reasons;
        keep.push_back(n);
    }
    j["keep_in_fp32"] = keep;
    j["node_block_list"] = report.blockList();
    j["notes"] = report.notes;
    return j.dump(2, ' ', false, json::error_handler_t::replace);
}

std::string blockListText(const PrecisionReport& report, bool json)
{
    if (json) {
        nlohmann::json j;
        j["node_block_list"] = report.blockList();
        return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    std::string s;
    for (const auto& name : report.blockList())
        s += name + "\n";
    return s;
}

// ---- the mixed-precision model --------------------------------------------------------------------------------------

namespace {

/// How one node of the main graph is written: which of its inputs and outputs take the target type.
struct NodePlan {
    bool lowered = false;
    std::vector<bool> inputLow, outputLow;
    std::string keptBecause;
};

/// The node's float32 inputs and outputs that switch to the target type, from its schema: every type parameter that
/// an input binds to float32 and that allows the target type switches, with every input and output of that
/// parameter. Parameters bound only by outputs (Cast's T2, LayerNormalization's U) keep what the node says.
NodePlan planNode(
    const Node& node, const onnx::NodeProto& proto, const std::map<std::string, DataType>& types, DataType target)
{
    NodePlan plan;
    plan.inputLow.assign(static_cast<size_t>(proto.input_size()), false);
    plan.outputLow.assign(static_cast<size_t>(proto.output_size()), false);
    auto isFloat = [&](const std::string& name) {
        auto it = types.find(name);
        return !name.empty() && it != types.end() && it->second == DataType::Float;
    };
    bool anyFloat = false;
    for (const auto& n : proto.input())
        anyFloat = anyFloat || isFloat(n);
    for (const auto& n : proto.output())
        anyFloat = anyFloat || isFloat(n);
    if (!anyFloat)
        return plan;
    if (!node.subgraphs.empty() || node.functionBody) {
        plan.keptBecause = "holds subgraphs or a function body (kept float32 whole)";
        return plan;
    }
    const auto* schema = onnx::OpSchemaRegistry::Schema(node.opType, static_cast<int>(node.opset), node.domain);
    if (!schema) {
        plan.keptBecause = "no schema in onnx for its type constraints";
        return plan;
    }
    const std::string wanted = target == DataType::BFloat16 ? "tensor(bfloat16)" : "tensor(float16)";
    std::map<std::string, bool> allows; // type parameter -> allows the target type
    for (const auto& c : schema->typeConstraintParams())
        allows[c.type_param_str]
            = std::find(c.allowed_type_strs.begin(), c.allowed_type_strs.end(), wanted) != c.allowed_type_strs.end();
    auto formal = [](const std::vector<onnx::OpSchema::FormalParameter>& params, size_t i) -> std::string {
        if (params.empty())
            return {};
        if (i < params.size())
            return params[i].GetTypeStr();
        if (params.back().GetOption() == onnx::OpSchema::Variadic)
            return params.back().GetTypeStr();
        return {};
    };
    std::set<std::string> switched, blocked;
    for (int i = 0; i < proto.input_size(); ++i) {
        if (!isFloat(proto.input(i)))
            continue;
        const std::string t = formal(schema->inputs(), static_cast<size_t>(i));
        auto it = allows.find(t);
        if (it != allows.end() && it->second)
            switched.insert(t);
        else
            blocked.insert(t);
    }
    for (const auto& t : blocked)
        switched.erase(t);
    for (int i = 0; i < proto.input_size(); ++i)
        plan.inputLow[static_cast<size_t>(i)]
            = isFloat(proto.input(i)) && switched.count(formal(schema->inputs(), static_cast<size_t>(i)));
    for (int i = 0; i < proto.output_size(); ++i)
        plan.outputLow[static_cast<size_t>(i)]
            = isFloat(proto.output(i)) && switched.count(formal(schema->outputs(), static_cast<size_t>(i)));
    plan.lowered = !switched.empty();
    if (!plan.lowered)
        plan.keptBecause = "its float32 values are not of a type that allows " + std::string(dataTypeName(target));
    return plan;
}

std::string uniqueName(std::set<std::string>& used, const std::string& base)
{
    std::string name = base;
    for (int k = 1; used.count(name); ++k)
        name = base + "_" + std::to_string(k);
    used.insert(name);
    return name;
}

struct Written {
    std::vector<std::string> lowered;
    std::vector<std::pair<std::string, std::string>> kept;
    size_t casts = 0;
};

/// Builds the mixed model's proto. `keepOps` are op types kept float32 because the kernel here lacks the target type.
Written buildMixedModel(const Model& model, const PrecisionReport& report, const std::set<std::string>& keepOps,
    const std::map<std::string, std::string>& keepOpWhy, onnx::ModelProto& out)
{
    const Graph& graph = model.graph();
    const DataType target = report.target.type;
    const auto targetProto = static_cast<int32_t>(target);
    const std::vector<std::string> blockNames = report.blockList();
    const std::set<std::string> blocked(blockNames.begin(), blockNames.end());
    std::set<std::string> blockedDisplay; // unnamed kept nodes of the main graph, by display name
    for (const auto& k : report.keep)
        if (k.name.empty() && k.framePath == "main")
            blockedDisplay.insert(k.displayName);

    out = model.proto();
    onnx::GraphProto& g = *out.mutable_graph();
    g.clear_node();
    g.clear_value_info(); // types change; onnxruntime infers them again

    std::set<std::string> used;
    for (const auto& [name, type] : report.valueTypes)
        used.insert(name);
    for (const Node& n : graph.nodes())
        used.insert(n.displayName());

    // Pass 1: each node's plan and each value's native type (the type its producer writes).
    Written w;
    std::vector<NodePlan> plans(graph.nodes().size());
    std::map<std::string, bool> nativeLow; // value name -> produced in the target type
    for (const Node& node : graph.nodes()) {
        const onnx::NodeProto* proto = nodeProto(node);
        check(proto != nullptr, node.label() + ": no NodeProto to write");
        NodePlan& plan = plans[static_cast<size_t>(node.id)];
        plan = planNode(node, *proto, report.valueTypes, target);
        if (plan.lowered && (blocked.count(node.name) || blockedDisplay.count(node.displayName()))) {
            plan = {};
            plan.keptBecause = "in the keep-in-fp32 list";
        } else if (plan.lowered && keepOps.count(node.opType)) {
            plan = {};
            plan.keptBecause = keepOpWhy.at(node.opType);
        }
        plan.inputLow.resize(static_cast<size_t>(proto->input_size()), false);
        plan.outputLow.resize(static_cast<size_t>(proto->output_size()), false);
        if (plan.lowered)
            w.lowered.push_back(node.displayName());
        else if (!plan.keptBecause.empty())
            w.kept.emplace_back(node.displayName(), plan.keptBecause);
        for (int i = 0; i < proto->output_size(); ++i)
            if (!proto->output(i).empty())
                nativeLow[proto->output(i)] = plan.outputLow[static_cast<size_t>(i)];
    }
    // Initializers read only by lowered nodes are converted; the others stay float32 (cast where a lowered node
    // reads them).
    std::map<std::string, bool> readLow, readHigh; // value -> some reader wants the target type / float32
    for (const Node& node : graph.nodes()) {
        const onnx::NodeProto* proto = nodeProto(node);
        const NodePlan& plan = plans[static_cast<size_t>(node.id)];
        for (int i = 0; i < proto->input_size(); ++i)
            (plan.inputLow[static_cast<size_t>(i)] ? readLow : readHigh)[proto->input(i)] = true;
        for (ValueId id : node.implicitInputs)
            readHigh[graph.value(id).name] = true;
    }
    std::set<std::string> graphOutputs;
    for (ValueId id : graph.outputs())
        graphOutputs.insert(graph.value(id).name);
    std::set<std::string> graphInputs;
    for (ValueId id : graph.inputs())
        graphInputs.insert(graph.value(id).name);
    // External data is read and written inline, so the written model stands alone in any folder.
    std::map<std::string, const ValueInfo*> initializerInfo;
    for (ValueId id : graph.initializers())
        initializerInfo[graph.value(id).name] = &graph.value(id);
    for (auto& init : *g.mutable_initializer()) {
        const bool external = init.data_location() == onnx::TensorProto::EXTERNAL;
        bool low = false;
        if (init.data_type() == onnx::TensorProto::FLOAT && !graphInputs.count(init.name())) {
            low = readLow.count(init.name()) && !readHigh.count(init.name()) && !graphOutputs.count(init.name());
            nativeLow[init.name()] = low;
        }
        if (!low && !external)
            continue;
        auto it = initializerInfo.find(init.name());
        check(it != initializerInfo.end(), "initializer \"" + init.name() + "\" not found in the loaded graph");
        const Tensor value = model.initializer(*it->second);
        const std::string name = init.name();
        init.Clear();
        tensorToProto(low ? castTensor(value, target) : value, init, name);
    }

    // Subgraphs read outer values by name, as float32 (their nodes stay float32).
    std::set<std::string> readByName;
    for (const Node& node : graph.nodes())
        for (ValueId id : node.implicitInputs)
            readByName.insert(graph.value(id).name);
    // Pass 2: the nodes, with a Cast wherever a reader wants the other type. A value produced in the target type that
    // is a graph output, or that a subgraph reads by name, is renamed at its producer and cast back to float32 under
    // its own name.
    std::map<std::string, std::string> renamedLow; // graph output -> the target-type name its producer writes
    std::map<std::pair<std::string, bool>, std::string> variant; // (value, low) -> name of that variant
    auto addCast = [&](const std::string& from, const std::string& to, int32_t type) {
        onnx::NodeProto* c = g.add_node();
        c->set_op_type("Cast");
        c->set_name(uniqueName(used, to + "_cast"));
        c->add_input(from);
        c->add_output(to);
        auto* a = c->add_attribute();
        a->set_name("to");
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(type);
        ++w.casts;
    };
    // The name of `value` in the type a reader wants, adding the Cast the first time.
    auto nameFor = [&](const std::string& value, bool low) -> std::string {
        auto t = report.valueTypes.find(value);
        if (value.empty() || t == report.valueTypes.end() || t->second != DataType::Float)
            return value;
        const bool native = nativeLow.count(value) && nativeLow[value];
        if (native == low)
            return renamedLow.count(value) ? renamedLow[value] : value;
        auto key = std::make_pair(value, low);
        auto it = variant.find(key);
        if (it != variant.end())
            return it->second;
        const std::string source = renamedLow.count(value) ? renamedLow[value] : value;
        const std::string name
            = uniqueName(used, value + (low ? std::string("_") + report.target.shortName() : "_fp32"));
        addCast(source, name, low ? targetProto : onnx::TensorProto::FLOAT);
        variant[key] = name;
        return name;
    };
    for (const Node& node : graph.nodes()) {
        const onnx::NodeProto* proto = nodeProto(node);
        const NodePlan& plan = plans[static_cast<size_t>(node.id)];
        onnx::NodeProto copy = *proto;
        if (copy.name().empty())
            copy.set_name(node.displayName());
        for (int i = 0; i < copy.input_size(); ++i)
            copy.set_input(i, nameFor(proto->input(i), plan.inputLow[static_cast<size_t>(i)]));
        for (int i = 0; i < copy.output_size(); ++i)
            if (plan.outputLow[static_cast<size_t>(i)]
                && (graphOutputs.count(proto->output(i)) || readByName.count(proto->output(i)))) {
                const std::string low
                    = uniqueName(used, proto->output(i) + "_" + std::string(report.target.shortName()));
                renamedLow[proto->output(i)] = low;
                copy.set_output(i, low);
            }
        *g.add_node() = std::move(copy);
        for (int i = 0; i < proto->output_size(); ++i)
            if (renamedLow.count(proto->output(i)))
                addCast(renamedLow[proto->output(i)], proto->output(i), onnx::TensorProto::FLOAT);
    }
    return w;
}

void compareOutputs(const std::map<std::string, Value>& a, const std::map<std::string, Value>& b,
    const std::vector<std::string>& order, MixedPrecisionResult& result)
{
    for (const auto& name : order) {
        MixedPrecisionResult::OutputError e;
        e.name = name;
        auto ia = a.find(name), ib = b.find(name);
        if (ia != a.end() && ib != b.end() && ia->second.isTensor() && ib->second.isTensor()
            && isFloatingPoint(ia->second.tensor().dtype()) && isFloatingPoint(ib->second.tensor().dtype())
            && ia->second.tensor().shape() == ib->second.tensor().shape()) {
            const Tensor x = castTensor(ia->second.tensor(), DataType::Double);
            const Tensor y = castTensor(ib->second.tensor(), DataType::Double);
            const auto xs = x.data<double>(), ys = y.data<double>();
            e.compared = true;
            for (size_t i = 0; i < xs.size(); ++i) {
                if (std::isfinite(xs[i]) && !std::isfinite(ys[i])) {
                    ++e.nonFinite;
                    continue;
                }
                if (!std::isfinite(xs[i]))
                    continue;
                const double d = std::fabs(xs[i] - ys[i]);
                e.maxAbsError = std::max(e.maxAbsError, d);
                e.maxAbsValue = std::max(e.maxAbsValue, std::fabs(xs[i]));
            }
        }
        result.outputs.push_back(e);
    }
}

} // namespace

MixedPrecisionResult writeMixedPrecisionModel(const Model& model, const PrecisionReport& report,
    const std::map<std::string, Value>& inputs, const std::filesystem::path& path, const SessionOptions& session)
{
    std::set<std::string> keepOps;
    std::map<std::string, std::string> keepOpWhy;
    const size_t maxAttempts = model.graph().nodes().size() + 1;
    for (size_t attempt = 0; attempt < maxAttempts; ++attempt) {
        onnx::ModelProto proto;
        Written w = buildMixedModel(model, report, keepOps, keepOpWhy, proto);
        if (proto.ByteSizeLong() > (size_t(1) << 31) - 1)
            throw Error("the mixed-precision model would pass protobuf's 2 GiB limit; models with external data are "
                        "not written yet");
        {
            std::ofstream file(path, std::ios::binary | std::ios::trunc);
            if (!file || !proto.SerializeToOstream(&file))
                throw Error("cannot write \"" + path.string() + "\"");
        }
        auto mixed = Model::load(path);
        auto program = std::make_shared<Program>(mixed);
        Session s(program, session);
        std::map<std::string, Value> outputs;
        try {
            outputs = s.run(inputs);
        } catch (const Error& e) {
            const Node* failed = s.failure().node;
            // A lowered node of the main graph whose kernel here lacks the target type: keep its op type float32.
            const bool lowered = failed && s.failure().graph == &mixed->graph()
                && std::find(w.lowered.begin(), w.lowered.end(), failed->name) != w.lowered.end();
            if (!lowered || keepOps.count(failed->opType))
                throw Error("the mixed-precision model \"" + path.string() + "\" fails here: " + e.what());
            keepOps.insert(failed->opType);
            keepOpWhy[failed->opType] = "the " + failed->opType + " kernel here fails on "
                + std::string(dataTypeName(report.target.type)) + ": " + s.failure().message;
            continue;
        }
        MixedPrecisionResult result;
        result.lowered = std::move(w.lowered);
        result.keptFloat32 = std::move(w.kept);
        result.casts = w.casts;
        compareOutputs(report.outputs, outputs, s.outputNames(), result);
        return result;
    }
    throw Error("the mixed-precision model could not be made to run here");
}

std::string mixedPrecisionJson(const MixedPrecisionResult& result)
{
    using nlohmann::json;
    json j;
    j["lowered"] = result.lowered;
    json kept = json::array();
    for (const auto& [node, why] : result.keptFloat32)
        kept.push_back({ { "node", node }, { "reason", why } });
    j["kept_fp32"] = kept;
    j["casts"] = result.casts;
    json outputs = json::array();
    for (const auto& e : result.outputs)
        outputs.push_back({ { "name", e.name }, { "max_abs_error", e.maxAbsError }, { "max_abs_value", e.maxAbsValue },
            { "non_finite", e.nonFinite }, { "compared", e.compared } });
    j["outputs"] = outputs;
    return j.dump(2, ' ', false, json::error_handler_t::replace);
}

} // namespace onnxscope
