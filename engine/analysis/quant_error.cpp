// SPDX-License-Identifier: MIT
#include "engine/analysis/quant_error.h"

#include "engine/compare/value_alignment.h"
#include "engine/core/cast.h"
#include "engine/core/error.h"
#include "engine/io/tensor_proto.h"
#include "engine/model/model.h"
#include "engine/model/node_proto.h"

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>

namespace onnxscope {

namespace {

std::string inQuotes(const std::string& s)
{
    return "\"" + s + "\"";
}

/// Keeps every value of the main graph by name: its inputs and the outputs of its nodes, in execution order.
class MainValues : public SessionObserver {
public:
    void afterNode(const NodeEvent& e) override
    {
        if (e.depth != 1)
            return;
        const Graph& g = e.frame.graph();
        for (size_t i = 0; i < e.outputs.size() && i < e.node.outputs.size(); ++i)
            if (e.node.outputs[i] != kNoValue && !e.outputs[i].isNone())
                add(g.value(e.node.outputs[i]).name, e.outputs[i]);
    }
    bool wantsTiming() const override { return false; }
    void add(const std::string& name, const Value& v)
    {
        if (values.emplace(name, v).second)
            order.push_back(name);
    }
    std::map<std::string, Value> values;
    std::vector<std::string> order;
};

MainValues runKeeping(const std::shared_ptr<const Program>& program, const std::map<std::string, Value>& inputs,
    const SessionOptions& options, const char* side, const std::atomic<bool>* cancel)
{
    MainValues kept;
    const Graph& g = program->model().graph();
    for (ValueId id : g.inputs()) {
        auto it = inputs.find(g.value(id).name);
        if (it != inputs.end())
            kept.add(it->first, it->second);
    }
    Session session(program, options);
    session.addObserver(&kept);
    try {
        session.start(inputs);
        while (session.advance().kind != Session::StepKind::Finished)
            if (cancel && cancel->load())
                throw QuantErrorCancelled();
    } catch (const QuantErrorCancelled&) {
        throw;
    } catch (const Error& e) {
        throw Error(std::string("check-quantization: the ") + side + " model " + program->model().displayName()
            + " failed: " + e.what());
    }
    return kept;
}

/// A float tensor's elements as float64 (any real element type), or nullopt for anything else.
std::optional<std::vector<double>> asDoubles(const Value& v)
{
    if (!v.isTensor())
        return std::nullopt;
    const Tensor& t = v.tensor();
    if (!isFloatingPoint(t.dtype()))
        return std::nullopt;
    const Tensor f = t.dtype() == DataType::Float ? t : castTensor(t, DataType::Float);
    const auto data = f.data<float>();
    return std::vector<double>(data.begin(), data.end());
}

QuantErrorStats errorStats(const Value& q, const Value& f)
{
    QuantErrorStats s;
    auto a = asDoubles(q), b = asDoubles(f);
    if (!a || !b || q.tensor().shape() != f.tensor().shape())
        return s;
    double diff2 = 0, f2 = 0, q2 = 0, dot = 0;
    for (size_t i = 0; i < a->size(); ++i) {
        const double x = (*a)[i], y = (*b)[i];
        if (!std::isfinite(x) || !std::isfinite(y)) {
            s.maxAbsError = std::numeric_limits<double>::infinity();
            continue;
        }
        const double d = x - y;
        s.maxAbsError = std::max(s.maxAbsError, std::fabs(d));
        s.floatMaxAbs = std::max(s.floatMaxAbs, std::fabs(y));
        diff2 += d * d;
        f2 += y * y;
        q2 += x * x;
        dot += x * y;
    }
    s.relativeL2 = f2 > 0 ? std::sqrt(diff2 / f2) : std::sqrt(diff2);
    s.cosine = (f2 > 0 && q2 > 0) ? dot / std::sqrt(f2 * q2) : (f2 == 0 && q2 == 0 ? 1.0 : 0.0);
    s.computed = true;
    return s;
}

/// Where a QOperator node keeps the scale and zero point of each quantized input and of its output.
struct QOpLayout {
    std::vector<std::array<int, 3>> inputs; // (input, scale, zero point)
    int outScale = -1, outZeroPoint = -1; // -1: the output is float (QGemm without y_scale)
};

std::optional<QOpLayout> qopLayout(const Node& n)
{
    const std::string& op = n.opType;
    if (op == "QLinearConv" || op == "QLinearMatMul" || op == "QLinearAdd" || op == "QLinearMul")
        return QOpLayout { { { 0, 1, 2 }, { 3, 4, 5 } }, 6, 7 };
    if (op == "QGemm") {
        QOpLayout l { { { 0, 1, 2 }, { 3, 4, 5 } }, 7, 8 };
        if (n.inputs.size() <= 7 || n.inputs[7] == kNoValue)
            l.outScale = l.outZeroPoint = -1;
        return l;
    }
    if (op == "QLinearSigmoid" || op == "QLinearLeakyRelu" || op == "QLinearAveragePool"
        || op == "QLinearGlobalAveragePool" || op == "QLinearSoftmax" || op == "QLinearReduceMean")
        return QOpLayout { { { 0, 1, 2 } }, 3, 4 };
    if (op == "QLinearConcat") {
        QOpLayout l { {}, 0, 1 };
        for (int i = 2; i + 2 < static_cast<int>(n.inputs.size()); i += 3)
            l.inputs.push_back({ i, i + 1, i + 2 });
        return l;
    }
    return std::nullopt;
}

bool isQuantize(const Node& n)
{
    return n.opType == "QuantizeLinear" && (n.domain.empty() || n.domain == "com.microsoft");
}
bool isDequantize(const Node& n)
{
    return n.opType == "DequantizeLinear" && (n.domain.empty() || n.domain == "com.microsoft");
}

/// Suffixes onnxruntime.quantization appends to the float tensor names it keeps (quant_utils.py).
const char* const kSuffixes[] = { "_QuantizeLinear_Output", "_DequantizeLinear_Output", "_QuantizeLinear_Input",
    "_output_quantized", "_quantized" };

/// One quantized layer being analysed, before its numbers.
struct Candidate {
    QuantLayer layer;
    NodeId nodeId = -1;
    std::optional<QOpLayout> qop;
    std::string outputQuant; // the quantized output (QOperator), "" for QDQ
};

/// Builds the model of one layer: float boundary values fed as graph inputs, quantized where the layer quantizes
/// them, the layer's nodes as the quantized file has them, its output dequantized.
class PartBuilder {
public:
    PartBuilder(const Model& quant)
        : m_model(quant)
        , m_graph(quant.graph())
    {
        const onnx::ModelProto& source = quant.proto();
        m_proto->set_ir_version(source.ir_version());
        *m_proto->mutable_opset_import() = source.opset_import();
        *m_proto->mutable_functions() = source.functions();
        m_proto->set_producer_name("onnxscope check-quantization");
        m_proto->mutable_graph()->set_name("layer");
    }

    /// A value the part reads that is a constant of the quantized model (initializer or Constant output); false
    /// otherwise.
    bool addConstant(ValueId id)
    {
        if (id == kNoValue)
            return true;
        const ValueInfo& v = m_graph.value(id);
        if (v.hasInitializer()) {
            if (m_inits.insert(v.name).second)
                tensorToProto(m_model.initializer(v), *m_proto->mutable_graph()->add_initializer(), v.name);
            return true;
        }
        if (v.producer >= 0 && m_graph.node(v.producer).inputs.empty()) {
            m_nodes.insert(v.producer);
            return true;
        }
        return false;
    }
    void requireConstant(ValueId id, const Node& reader)
    {
        if (!addConstant(id))
            throw Error(reader.label() + " reads " + inQuotes(m_graph.value(id).name)
                + " as a scale or zero point, which is computed in the model: only constant ones are supported");
    }
    void addNode(NodeId n) { m_nodes.insert(n); }
    /// Feeds `name` (a name of the quantized model) with a float value.
    void feed(const std::string& name, const Value& value)
    {
        if (m_feeds.emplace(name, value).second)
            typed(*m_proto->mutable_graph()->add_input(), name, value);
    }
    /// `quantName` := QuantizeLinear(float value, scale, zero point), the scale and zero point the layer's.
    void feedQuantized(
        const std::string& quantName, const Value& floatValue, ValueId scale, ValueId zeroPoint, const Node& reader)
    {
        if (!m_quantized.insert(quantName).second)
            return;
        requireConstant(scale, reader);
        requireConstant(zeroPoint, reader);
        const std::string in = "onnxscope.float:" + quantName;
        feed(in, floatValue);
        onnx::NodeProto q;
        q.set_op_type("QuantizeLinear");
        q.set_name("onnxscope.quantize:" + quantName);
        q.add_input(in);
        q.add_input(m_graph.value(scale).name);
        q.add_input(zeroPoint == kNoValue ? std::string() : m_graph.value(zeroPoint).name);
        q.add_output(quantName);
        m_pre.push_back(std::move(q));
    }
    /// The part's output: `name`, or DequantizeLinear(name, scale, zero point) when a scale is given.
    std::string output(
        const std::string& name, ValueId scale = kNoValue, ValueId zeroPoint = kNoValue, const Node* reader = nullptr)
    {
        std::string out = name;
        if (scale != kNoValue) {
            requireConstant(scale, *reader);
            requireConstant(zeroPoint, *reader);
            out = "onnxscope.dequantized:" + name;
            onnx::NodeProto d;
            d.set_op_type("DequantizeLinear");
            d.set_name("onnxscope.dequantize:" + name);
            d.add_input(name);
            d.add_input(m_graph.value(scale).name);
            d.add_input(zeroPoint == kNoValue ? std::string() : m_graph.value(zeroPoint).name);
            d.add_output(out);
            m_post.push_back(std::move(d));
        }
        auto* o = m_proto->mutable_graph()->add_output();
        o->set_name(out);
        o->mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(DataType::Float));
        m_output = out;
        return out;
    }

    Value run(const SessionOptions& options)
    {
        onnx::GraphProto& g = *m_proto->mutable_graph();
        for (auto& q : m_pre)
            *g.add_node() = q;
        for (NodeId n : m_nodes) {
            const onnx::NodeProto* proto = nodeProto(m_graph.node(n));
            if (!proto)
                throw Error(m_graph.node(n).label() + " has no node in the file");
            *g.add_node() = *proto;
        }
        for (auto& d : m_post)
            *g.add_node() = d;
        auto model
            = Model::fromProto(std::move(m_proto), std::filesystem::path(), m_model.displayName() + " (one layer)");
        Session session(std::make_shared<Program>(model), options);
        auto outputs = session.run(m_feeds);
        return outputs.at(m_output);
    }

private:
    static void typed(onnx::ValueInfoProto& info, const std::string& name, const Value& v)
    {
        info.set_name(name);
        check(v.isTensor(), inQuotes(name) + " is not a tensor");
        auto* t = info.mutable_type()->mutable_tensor_type();
        t->set_elem_type(static_cast<int32_t>(v.tensor().dtype()));
        auto* shape = t->mutable_shape();
        for (int64_t d : v.tensor().shape())
            shape->add_dim()->set_dim_value(d);
    }

    const Model& m_model;
    const Graph& m_graph;
    std::unique_ptr<onnx::ModelProto> m_proto = std::make_unique<onnx::ModelProto>();
    std::set<std::string> m_inits, m_quantized;
    std::set<NodeId> m_nodes; // graph order is topological
    std::vector<onnx::NodeProto> m_pre, m_post;
    std::map<std::string, Value> m_feeds;
    std::string m_output;
};

class Analysis {
public:
    Analysis(const Model& floatModel, const Model& quantModel, MainValues& floatRun, MainValues& quantRun,
        const QuantErrorOptions& options)
        : m_float(floatModel)
        , m_quant(quantModel)
        , m_fg(floatModel.graph())
        , m_qg(quantModel.graph())
        , m_floatRun(floatRun)
        , m_quantRun(quantRun)
        , m_options(options)
    {
    }

    /// The float model's value a value of the quantized model stands for: the same name, or the name before
    /// onnxruntime's suffixes; then past a Relu/Clip the quantizer folded into the layer (its output is not in the
    /// quantized model). Falls back to the content alignment. Empty when nothing pairs.
    std::pair<std::string, std::string> floatOf(const std::string& quantName)
    {
        std::vector<std::string> candidates { quantName };
        for (const char* suffix : kSuffixes) {
            const std::string s(suffix);
            if (quantName.size() > s.size() && quantName.compare(quantName.size() - s.size(), s.size(), s) == 0)
                candidates.push_back(quantName.substr(0, quantName.size() - s.size()));
        }
        for (const auto& c : candidates) {
            if (!m_floatRun.values.count(c))
                continue;
            std::string name = c, by = "name";
            for (int hops = 0; hops < 4; ++hops) {
                const ValueId id = m_fg.findValue(name);
                if (id == kNoValue || m_fg.value(id).consumers.size() != 1)
                    break;
                const Node& next = m_fg.node(m_fg.value(id).consumers[0]);
                if ((next.opType != "Relu" && next.opType != "Clip") || next.outputs.empty()
                    || next.outputs[0] == kNoValue)
                    break;
                const std::string& after = m_fg.value(next.outputs[0]).name;
                if (m_qg.findValue(after) != kNoValue || !m_floatRun.values.count(after))
                    break;
                name = after;
                by = "name+activation";
            }
            return { name, by };
        }
        for (const auto& name : equivalents(quantName)) {
            auto it = m_contentPairs.find(name);
            if (it != m_contentPairs.end())
                return { it->second, "content" };
        }
        return {};
    }

    /// The names a value of the quantized model goes by across a QuantizeLinear -> DequantizeLinear pair: itself, the
    /// float value before the pair when it is a DequantizeLinear's output, the DequantizeLinear outputs after it.
    std::vector<std::string> equivalents(const std::string& quantName) const
    {
        std::vector<std::string> names { quantName };
        const ValueId id = m_qg.findValue(quantName);
        if (id == kNoValue)
            return names;
        const ValueInfo& v = m_qg.value(id);
        if (v.producer >= 0 && isDequantize(m_qg.node(v.producer))) {
            const ValueInfo& in = m_qg.value(m_qg.node(v.producer).inputs[0]);
            if (in.producer >= 0 && isQuantize(m_qg.node(in.producer)))
                names.push_back(m_qg.value(m_qg.node(in.producer).inputs[0]).name);
        }
        for (NodeId q : v.consumers)
            if (isQuantize(m_qg.node(q)) && m_qg.node(q).outputs[0] != kNoValue)
                for (NodeId d : m_qg.value(m_qg.node(q).outputs[0]).consumers)
                    if (isDequantize(m_qg.node(d)) && m_qg.node(d).outputs[0] != kNoValue)
                        names.push_back(m_qg.value(m_qg.node(d).outputs[0]).name);
        return names;
    }

    /// The QOperator layer's quantized activation inputs in the quantized run, dequantized with the layer's scales.
    void dequantizedInputs(const Candidate& c, std::map<std::string, Value>& out)
    {
        const Node& n = m_qg.node(c.nodeId);
        for (const auto& [in, s, zp] : c.qop->inputs) {
            if (in >= static_cast<int>(n.inputs.size()) || n.inputs[in] == kNoValue)
                continue;
            const std::string& name = m_qg.value(n.inputs[in]).name;
            auto it = m_quantRun.values.find(name);
            if (out.count(name) || it == m_quantRun.values.end() || m_qg.value(n.inputs[in]).hasInitializer())
                continue;
            try {
                PartBuilder part(m_quant);
                part.feed(name, it->second);
                part.output(name, n.inputs[s], zp < static_cast<int>(n.inputs.size()) ? n.inputs[zp] : kNoValue, &n);
                out[name] = part.run(m_options.session);
            } catch (const std::exception&) {
                // A scale computed in the model: this input is not aligned by content.
            }
        }
    }

    std::vector<Candidate> findLayers()
    {
        std::vector<Candidate> out;
        for (const Node& n : m_qg.nodes()) {
            Candidate c;
            c.nodeId = n.id;
            c.layer.node = n.displayName();
            c.layer.opType = n.opType;
            if (auto layout = qopLayout(n)) {
                c.qop = layout;
                c.layer.format = QuantLayer::Format::QOperator;
                if (n.outputs.empty() || n.outputs[0] == kNoValue)
                    continue;
                c.outputQuant = m_qg.value(n.outputs[0]).name;
                c.layer.output = c.outputQuant;
                out.push_back(std::move(c));
                continue;
            }
            if (isQuantize(n) || isDequantize(n) || n.inputs.empty() || n.outputs.empty() || n.outputs[0] == kNoValue)
                continue;
            const bool readsDequantized = std::any_of(n.inputs.begin(), n.inputs.end(), [&](ValueId v) {
                if (v == kNoValue || m_qg.value(v).producer < 0)
                    return false;
                const Node& p = m_qg.node(m_qg.value(v).producer);
                // An activation's DequantizeLinear, not only a weight's.
                return isDequantize(p) && !p.inputs.empty() && !m_qg.value(p.inputs[0]).hasInitializer();
            });
            if (!readsDequantized)
                continue;
            c.layer.format = QuantLayer::Format::QDQ;
            c.layer.output = m_qg.value(n.outputs[0]).name;
            // The layer's output as the next layers see it: after its QuantizeLinear -> DequantizeLinear.
            const ValueInfo& o = m_qg.value(n.outputs[0]);
            if (o.consumers.size() == 1 && isQuantize(m_qg.node(o.consumers[0]))) {
                const Node& q = m_qg.node(o.consumers[0]);
                for (NodeId d : m_qg.value(q.outputs[0]).consumers)
                    if (isDequantize(m_qg.node(d))) {
                        c.layer.output = m_qg.value(m_qg.node(d).outputs[0]).name;
                        break;
                    }
            }
            out.push_back(std::move(c));
        }
        return out;
    }

    /// The layer's output in the quantized run, dequantized.
    std::optional<Value> accumulatedOutput(const Candidate& c)
    {
        auto it = m_quantRun.values.find(c.layer.output);
        if (it == m_quantRun.values.end())
            return std::nullopt;
        if (!c.qop || c.qop->outScale < 0)
            return it->second;
        const Node& n = m_qg.node(c.nodeId);
        PartBuilder part(m_quant);
        part.feed(c.outputQuant, it->second);
        part.output(c.outputQuant, n.inputs[c.qop->outScale],
            c.qop->outZeroPoint < static_cast<int>(n.inputs.size()) ? n.inputs[c.qop->outZeroPoint] : kNoValue, &n);
        return part.run(m_options.session);
    }

    /// Pairs the values whose names do not pair by content: the float run's values against the quantized run's
    /// float values (the QOperator layers' outputs dequantized), each stream in execution order.
    void alignByContent(const std::vector<Candidate>& layers, const std::map<std::string, Value>& dequantized)
    {
        std::vector<ValueSignature> a, b;
        std::vector<std::string> namesA, namesB;
        auto add = [](std::vector<ValueSignature>& s, std::vector<std::string>& names, const std::string& name,
                       const Value& v) {
            if (!v.isTensor() || !isFloatingPoint(v.tensor().dtype()))
                return;
            ValueSignature sig;
            sig.name = name;
            sig.framePath = "main";
            sketchValue(v, sig);
            s.push_back(std::move(sig));
            names.push_back(name);
        };
        for (const auto& name : m_floatRun.order)
            add(a, namesA, name, m_floatRun.values.at(name));
        for (const auto& name : m_quantRun.order) {
            auto d = dequantized.find(name);
            add(b, namesB, name, d != dequantized.end() ? d->second : m_quantRun.values.at(name));
        }
        (void)layers;
        AlignmentOptions o;
        o.pairNames = false;
        const std::vector<std::string> noNames(a.size());
        const Alignment al = alignValues(a, b, noNames, o);
        for (size_t j = 0; j < b.size(); ++j)
            if (al.aOfB[j] >= 0)
                m_contentPairs[namesB[j]] = namesA[static_cast<size_t>(al.aOfB[j])];
    }

    /// Runs the layer alone on the float run's values. Throws Error saying what does not pair.
    Value ownOutput(Candidate& c)
    {
        const Node& n = m_qg.node(c.nodeId);
        PartBuilder part(m_quant);
        auto floatValue = [&](const std::string& quantName) -> const Value& {
            auto [name, by] = floatOf(quantName);
            if (name.empty())
                throw Error("its input " + inQuotes(quantName) + " has no counterpart in the float model");
            c.layer.inputs.emplace_back(quantName, name);
            return m_floatRun.values.at(name);
        };
        auto input = [&](ValueId id, ValueId scale, ValueId zeroPoint) {
            const ValueInfo& v = m_qg.value(id);
            if (part.addConstant(id))
                return;
            if (scale != kNoValue) {
                // An activation the layer quantizes itself: the value before its QuantizeLinear when there is one.
                std::string source = v.name;
                if (v.producer >= 0 && isQuantize(m_qg.node(v.producer)))
                    source = m_qg.value(m_qg.node(v.producer).inputs[0]).name;
                part.feedQuantized(v.name, floatValue(source), scale, zeroPoint, n);
                return;
            }
            part.feed(v.name, floatValue(v.name));
        };
        if (c.qop) {
            for (const auto& [in, s, zp] : c.qop->inputs) {
                if (in >= static_cast<int>(n.inputs.size()) || n.inputs[in] == kNoValue)
                    continue;
                const ValueId zpId = zp < static_cast<int>(n.inputs.size()) ? n.inputs[zp] : kNoValue;
                input(n.inputs[in], n.inputs[s], zpId);
            }
            for (size_t i = 0; i < n.inputs.size(); ++i)
                if (n.inputs[i] != kNoValue && !part.addConstant(n.inputs[i])) {
                    const bool quantized = std::any_of(c.qop->inputs.begin(), c.qop->inputs.end(),
                        [&](const auto& t) { return t[0] == static_cast<int>(i); });
                    if (!quantized)
                        part.feed(m_qg.value(n.inputs[i]).name, floatValue(m_qg.value(n.inputs[i]).name));
                }
            part.addNode(n.id);
            if (c.qop->outScale >= 0) {
                const ValueId zp = c.qop->outZeroPoint < static_cast<int>(n.inputs.size())
                    ? n.inputs[c.qop->outZeroPoint]
                    : kNoValue;
                part.output(c.outputQuant, n.inputs[c.qop->outScale], zp, &n);
            } else {
                part.output(c.outputQuant);
            }
            return part.run(m_options.session);
        }
        // QDQ: every DequantizeLinear in front of the node, with the QuantizeLinear in front of it when there is one;
        // the values entering those are the float run's.
        for (ValueId id : n.inputs) {
            if (id == kNoValue || part.addConstant(id))
                continue;
            const ValueInfo& v = m_qg.value(id);
            if (v.producer < 0 || !isDequantize(m_qg.node(v.producer))) {
                input(id, kNoValue, kNoValue);
                continue;
            }
            const Node& d = m_qg.node(v.producer);
            part.addNode(d.id);
            for (size_t i = 1; i < d.inputs.size(); ++i)
                part.requireConstant(d.inputs[i], d);
            const ValueId q = d.inputs[0];
            if (part.addConstant(q))
                continue;
            const ValueInfo& qv = m_qg.value(q);
            if (qv.producer >= 0 && isQuantize(m_qg.node(qv.producer))) {
                const Node& qn = m_qg.node(qv.producer);
                part.addNode(qn.id);
                for (size_t i = 1; i < qn.inputs.size(); ++i)
                    part.requireConstant(qn.inputs[i], qn);
                input(qn.inputs[0], kNoValue, kNoValue);
            } else {
                input(q, d.inputs.size() > 1 ? d.inputs[1] : kNoValue, d.inputs.size() > 2 ? d.inputs[2] : kNoValue);
            }
        }
        part.addNode(n.id);
        const ValueInfo& o = m_qg.value(n.outputs[0]);
        if (c.layer.output != o.name) {
            const Node& q = m_qg.node(o.consumers[0]);
            part.addNode(q.id);
            for (size_t i = 1; i < q.inputs.size(); ++i)
                part.requireConstant(q.inputs[i], q);
            const NodeId d = m_qg.value(m_qg.findValue(c.layer.output)).producer;
            part.addNode(d);
            for (size_t i = 1; i < m_qg.node(d).inputs.size(); ++i)
                part.requireConstant(m_qg.node(d).inputs[i], m_qg.node(d));
        }
        part.output(c.layer.output);
        return part.run(m_options.session);
    }

    std::map<std::string, std::string> m_contentPairs;

private:
    const Model& m_float;
    const Model& m_quant;
    const Graph& m_fg;
    const Graph& m_qg;
    MainValues& m_floatRun;
    MainValues& m_quantRun;
    const QuantErrorOptions& m_options;
};

} // namespace

QuantErrorReport checkQuantization(const std::shared_ptr<const Program>& floatProgram,
    const std::shared_ptr<const Program>& quantProgram, const std::map<std::string, Value>& inputs,
    const QuantErrorOptions& options)
{
    check(floatProgram && quantProgram, "check-quantization: no program");
    const Model& fm = floatProgram->model();
    const Model& qm = quantProgram->model();
    MainValues floatRun = runKeeping(floatProgram, inputs, options.session, "float", options.cancel);
    MainValues quantRun = runKeeping(quantProgram, inputs, options.session, "quantized", options.cancel);
    Analysis analysis(fm, qm, floatRun, quantRun, options);

    QuantErrorReport report;
    report.floatValues = floatRun.values.size();
    std::vector<Candidate> layers = analysis.findLayers();
    bool qdq = false, qop = false;
    for (const auto& c : layers)
        (c.qop ? qop : qdq) = true;
    report.format = qdq && qop ? "QDQ+QOperator" : qop ? "QOperator" : qdq ? "QDQ" : "";
    if (layers.empty())
        throw Error("check-quantization: " + qm.displayName()
            + " has no quantized layer (no QLinearConv/QLinearMatMul/QGemm/QLinear* node, no operator reading a "
              "DequantizeLinear of an activation)");

    std::map<std::string, Value> accumulated;
    for (const auto& c : layers) {
        try {
            if (auto v = analysis.accumulatedOutput(c))
                accumulated[c.layer.output] = *v;
        } catch (const std::exception&) {
            // An output scale computed in the model: no accumulated error for this layer.
        }
    }
    if (options.pairByContent) {
        bool unnamed = false;
        for (const auto& c : layers)
            unnamed = unnamed || analysis.floatOf(c.layer.output).first.empty();
        if (unnamed) {
            std::map<std::string, Value> dequantized;
            for (const auto& c : layers)
                if (c.qop && accumulated.count(c.layer.output))
                    dequantized[c.outputQuant] = accumulated[c.layer.output];
            for (const auto& c : layers)
                if (c.qop)
                    analysis.dequantizedInputs(c, dequantized);
            analysis.alignByContent(layers, dequantized);
        }
    }

    size_t done = 0;
    for (auto& c : layers) {
        if (options.cancel && options.cancel->load())
            throw QuantErrorCancelled();
        if (options.progress)
            options.progress(done++, layers.size());
        QuantLayer& l = c.layer;
        auto [floatName, by] = analysis.floatOf(c.qop ? c.outputQuant : l.output);
        if (floatName.empty()) {
            report.unpaired.push_back(l.node + " (" + l.opType + "): its output " + inQuotes(l.output)
                + " has no counterpart in the float model");
            continue;
        }
        l.floatValue = floatName;
        l.pairedBy = by;
        const ValueId fv = fm.graph().findValue(floatName);
        if (fv != kNoValue && fm.graph().value(fv).producer >= 0)
            l.floatNode = fm.graph().node(fm.graph().value(fv).producer).displayName();
        const Value& reference = floatRun.values.at(floatName);
        if (auto it = accumulated.find(l.output); it != accumulated.end())
            l.accumulated = errorStats(it->second, reference);
        try {
            l.own = errorStats(analysis.ownOutput(c), reference);
            if (!l.own.computed)
                l.error = "its output does not have the float value's shape";
        } catch (const std::exception& e) {
            l.error = e.what();
        }
    }
    std::vector<QuantLayer> paired;
    for (auto& c : layers)
        if (!c.layer.floatValue.empty())
            paired.push_back(std::move(c.layer));
    if (paired.empty()) {
        std::string some;
        for (size_t i = 0; i < report.unpaired.size() && i < 3; ++i)
            some += "\n  " + report.unpaired[i];
        std::string floats;
        for (size_t i = 0; i < floatRun.order.size() && i < 6; ++i)
            floats += (i ? ", " : "") + inQuotes(floatRun.order[i]);
        throw Error("check-quantization: no quantized layer of " + qm.displayName()
            + " pairs with a value of the float model " + fm.displayName()
            + " (by onnxruntime's names or by content):" + some + "\nthe float model's values include " + floats);
    }
    auto rank = [&](auto member, auto setRank) {
        std::vector<size_t> idx(paired.size());
        for (size_t i = 0; i < idx.size(); ++i)
            idx[i] = i;
        std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
            const QuantErrorStats& a = paired[x].*member;
            const QuantErrorStats& b = paired[y].*member;
            if (a.computed != b.computed)
                return a.computed;
            return a.relativeL2 > b.relativeL2;
        });
        int r = 0;
        for (size_t i : idx)
            if ((paired[i].*member).computed)
                setRank(paired[i], ++r);
    };
    rank(&QuantLayer::accumulated, [](QuantLayer& l, int r) { l.accumulatedRank = r; });
    rank(&QuantLayer::own, [](QuantLayer& l, int r) { l.ownRank = r; });
    std::stable_sort(paired.begin(), paired.end(), [](const QuantLayer& a, const QuantLayer& b) {
        if ((a.ownRank > 0) != (b.ownRank > 0))
            return a.ownRank > 0;
        return a.ownRank < b.ownRank;
    });
    report.layers = std::move(paired);
    return report;
}

std::string quantErrorJson(const QuantErrorReport& report)
{
    using nlohmann::json;
    auto stats = [](const QuantErrorStats& s) -> json {
        if (!s.computed)
            return nullptr;
        auto finite = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
        return { { "max_abs_error", finite(s.maxAbsError) }, { "relative_l2", finite(s.relativeL2) },
            { "cosine", finite(s.cosine) }, { "float_max_abs", finite(s.floatMaxAbs) } };
    };
    json j;
    j["format"] = report.format;
    j["float_values"] = report.floatValues;
    json layers = json::array();
    for (const auto& l : report.layers) {
        json inputs = json::array();
        for (const auto& [q, f] : l.inputs)
            inputs.push_back({ { "quantized", q }, { "float", f } });
        layers.push_back({ { "rank", l.ownRank > 0 ? json(l.ownRank) : json(nullptr) }, { "node", l.node },
            { "op_type", l.opType }, { "format", l.format == QuantLayer::Format::QDQ ? "QDQ" : "QOperator" },
            { "output", l.output }, { "float_value", l.floatValue },
            { "float_node", l.floatNode.empty() ? json(nullptr) : json(l.floatNode) }, { "paired_by", l.pairedBy },
            { "inputs", inputs }, { "own", stats(l.own) }, { "accumulated", stats(l.accumulated) },
            { "accumulated_rank", l.accumulatedRank > 0 ? json(l.accumulatedRank) : json(nullptr) },
            { "error", l.error.empty() ? json(nullptr) : json(l.error) } });
    }
    j["layers"] = layers;
    j["unpaired"] = report.unpaired;
    return j.dump(1);
}

} // namespace onnxscope
