// SPDX-License-Identifier: MIT
#include "engine/exec/fusion.h"

#include "engine/kernels/math/matmul.h"
#include "engine/kernels/nn/activations.h"
#include "engine/kernels/nn/conv.h"
#include "engine/kernels/quant/qdq_conv.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_set>

namespace onnxscope {

namespace {

bool isDefaultOp(const Node& node, const char* opType)
{
    return node.opType == opType && node.domain.empty() && !node.functionBody && node.subgraphs.empty();
}

/// Default-domain ops that a plain run computes once at plan time when every input is known: deterministic, without
/// subgraphs, and with outputs no larger than their inputs (or than the broadcast of their inputs, checked by
/// withinFoldBound before they run). Exporters leave such chains on initializers, e.g. LSTM weights sliced and
/// concatenated into the gate order at every run.
bool isFoldable(const Node& node)
{
    static const std::unordered_set<std::string_view> ops { "Constant", "Identity", "Cast", "Reshape", "Flatten",
        "Squeeze", "Unsqueeze", "Transpose", "Slice", "Gather", "Concat", "Split", "Shape", "Size", "Neg", "Abs",
        "Sqrt", "Reciprocal", "Exp", "Log", "Floor", "Ceil", "Sign", "Not", "Equal", "Less", "Greater", "LessOrEqual",
        "GreaterOrEqual", "And", "Or", "Xor", "Add", "Sub", "Mul", "Div", "Pow", "Min", "Max", "Where" };
    return (node.domain.empty() || node.domain == "ai.onnx") && !node.functionBody && node.subgraphs.empty()
        && node.implicitInputs.empty() && !node.outputs.empty() && ops.count(node.opType) != 0;
}

/// Elements a folded node may read or produce: its inputs' total, and the broadcast of their shapes (element-wise
/// ops), must stay under this, so that plan time never builds a large tensor.
constexpr int64_t kMaxFoldElements = int64_t(1) << 22;
/// Bytes of folded values one plan may hold.
constexpr size_t kMaxFoldBytes = size_t(64) << 20;

bool withinFoldBound(const Node& node, const std::vector<Value>& inputs)
{
    int64_t total = 0;
    size_t rank = 0;
    for (const Value& v : inputs) {
        if (v.isNone())
            continue;
        if (!v.isTensor())
            return false;
        total += v.tensor().size();
        rank = std::max(rank, v.tensor().shape().size());
    }
    if (total > kMaxFoldElements)
        return false;
    if (node.opType == "Gather") // indices times the data: a bound on any gather
        return inputs.size() < 2 || inputs[0].isNone() || inputs[1].isNone()
            || inputs[0].tensor().size() * std::max<int64_t>(1, inputs[1].tensor().size()) <= kMaxFoldElements;
    // The broadcast shape of the inputs, right-aligned (what an element-wise op produces).
    int64_t broadcast = 1;
    for (size_t d = 0; d < rank; ++d) {
        int64_t extent = 1;
        for (const Value& v : inputs) {
            if (v.isNone())
                continue;
            const Shape& shape = v.tensor().shape();
            if (d < shape.size())
                extent = std::max(extent, shape[shape.size() - 1 - d]);
        }
        broadcast *= extent;
        if (broadcast > kMaxFoldElements)
            return false;
    }
    return true;
}

using Constants = std::vector<std::pair<ValueId, Value>>;

class Fuser {
public:
    Fuser(Plan& plan, const Plan* enclosing)
        : m_plan(plan)
        , m_graph(*plan.graph)
        , m_known(knownValues(plan, enclosing))
    {
    }

    void run()
    {
        m_plan.fused.resize(m_graph.nodes().size());
        for (const Node& node : m_graph.nodes()) {
            try {
                if (m_plan.fused[static_cast<size_t>(node.id)].nodes == 0)
                    fuseQdqConv(node);
                if (m_plan.fused[static_cast<size_t>(node.id)].nodes == 0)
                    fuseTransposedWeights(node);
                fuseConv(node);
            } catch (const Error&) {
                // An attribute the node's own kernel would reject at run time: leave the node alone.
            }
        }
        // SiLU pairs (Sigmoid, then Mul by the Sigmoid's input) that no convolution took.
        for (size_t at = 0; at < m_plan.fused.size();) {
            if (m_plan.fused[at].nodes) {
                at += m_plan.fused[at].nodes;
                continue;
            }
            fuseSilu(m_graph.nodes()[at]);
            at += std::max<uint32_t>(1, m_plan.fused[at].nodes);
        }
        // The other folded nodes (Constant nodes, and nodes computed at plan time): one step per run of them, which
        // sets their outputs.
        for (size_t at = 0; at < m_plan.fused.size();) {
            FusedStep& step = m_plan.fused[at];
            if (step.nodes) {
                at += step.nodes;
                continue;
            }
            const size_t end = skipConstants(at, step.constants);
            step.nodes = static_cast<uint32_t>(end - at);
            at = std::max(end, at + 1);
        }
        m_plan.folded.assign(m_graph.nodes().size(), false);
        for (const Node& node : m_graph.nodes())
            m_plan.folded[static_cast<size_t>(node.id)] = isFolded(node);
        m_plan.known = m_known;
    }

private:
    /// By ValueId: the values known at plan time. Initializers, but not graph inputs with a default (a caller may
    /// override those), and the outputs of foldable nodes (isFoldable) whose inputs are all known, computed by their
    /// own kernels in plan order, up to kMaxFoldBytes. A node whose kernel fails is left to fail at run time.
    static std::vector<Value> knownValues(const Plan& plan, const Plan* enclosing)
    {
        const Graph& graph = *plan.graph;
        std::vector<Value> known(graph.values().size());
        for (size_t id = 0; id < known.size(); ++id)
            if (graph.values()[id].source == ValueInfo::Source::Initializer)
                known[id] = plan.constants[id];
        // Outer-scope values are bound by name from the enclosing frame when the subgraph runs (Session::pushFrame).
        if (enclosing)
            for (ValueId id : graph.outerScopeValues()) {
                const ValueId outer = enclosing->graph->findValue(graph.value(id).name);
                if (outer != kNoValue && static_cast<size_t>(outer) < enclosing->known.size())
                    known[static_cast<size_t>(id)] = enclosing->known[static_cast<size_t>(outer)];
            }
        size_t budget = kMaxFoldBytes;
        std::vector<Value> inputs;
        for (const Node& node : graph.nodes()) {
            const Kernel* kernel = plan.kernels[static_cast<size_t>(node.id)].get();
            if (!kernel || !isFoldable(node))
                continue;
            inputs.assign(node.inputs.size(), Value());
            bool ready = true;
            for (size_t i = 0; i < node.inputs.size() && ready; ++i) {
                const ValueId id = node.inputs[i];
                if (id == kNoValue)
                    continue;
                inputs[i] = known[static_cast<size_t>(id)];
                ready = !inputs[i].isNone();
            }
            if (!ready || !withinFoldBound(node, inputs))
                continue;
            std::vector<Value> out(node.outputs.size());
            try {
                KernelContext ctx(node, inputs, out);
                kernel->compute(ctx);
            } catch (const std::exception&) {
                continue;
            }
            size_t bytes = 0;
            bool complete = true;
            for (size_t i = 0; i < out.size(); ++i) {
                if (node.outputs[i] == kNoValue)
                    continue;
                complete = complete && !out[i].isNone();
                bytes += out[i].isNone() ? 0 : out[i].byteSize();
            }
            if (!complete || bytes > budget)
                continue;
            budget -= bytes;
            for (size_t i = 0; i < out.size(); ++i)
                if (node.outputs[i] != kNoValue)
                    known[static_cast<size_t>(node.outputs[i])] = std::move(out[i]);
        }
        return known;
    }

    /// True for a node whose outputs are all known at plan time (a Constant node or another folded node).
    bool isFolded(const Node& node) const
    {
        if (!isFoldable(node) || !m_plan.kernels[static_cast<size_t>(node.id)])
            return false;
        for (ValueId id : node.outputs)
            if (id != kNoValue && m_known[static_cast<size_t>(id)].isNone())
                return false;
        return true;
    }

    const Tensor* floatConstant(ValueId id) const
    {
        if (id == kNoValue)
            return nullptr;
        const Value& v = m_known[static_cast<size_t>(id)];
        return v.isTensor() && v.tensor().dtype() == DataType::Float ? &v.tensor() : nullptr;
    }

    /// The first position from `at` that is not a folded node (isFolded); the outputs of those passed over are
    /// appended to `skipped`.
    size_t skipConstants(size_t at, Constants& skipped) const
    {
        for (; at < m_graph.nodes().size(); ++at) {
            const Node& node = m_graph.nodes()[at];
            if (!isFolded(node))
                break;
            for (ValueId id : node.outputs)
                if (id != kNoValue)
                    skipped.emplace_back(id, m_known[static_cast<size_t>(id)]);
        }
        return at;
    }

    /// The node at position `at` if it has a kernel and one output, and reads `id` once as a plain input.
    const Node* readerAt(ValueId id, size_t at) const
    {
        if (at >= m_graph.nodes().size() || !m_plan.kernels[at])
            return nullptr;
        const Node& reader = m_graph.nodes()[at];
        if (std::count(reader.inputs.begin(), reader.inputs.end(), id) != 1 || !reader.implicitInputs.empty()
            || reader.outputs.size() != 1 || reader.outputs[0] == kNoValue)
            return nullptr;
        return &reader;
    }

    /// True when exactly `readers` (in plan order) read `id`, which is not a graph output. A subgraph that reads `id`
    /// from the outer scope makes its owner node a reader too.
    bool readOnlyBy(ValueId id, std::initializer_list<const Node*> readers) const
    {
        const auto uid = static_cast<size_t>(id);
        const auto& consumers = m_graph.values()[uid].consumers;
        if (m_plan.isGraphOutput[uid] || consumers.size() != readers.size())
            return false;
        size_t i = 0;
        for (const Node* r : readers)
            if (consumers[i++] != r->id)
                return false;
        return true;
    }

    /// The node at position `at` if it is the only reader of `id`, and reads it as its input 0.
    const Node* soleReaderAt(ValueId id, size_t at) const
    {
        const Node* reader = readerAt(id, at);
        return reader && reader->inputs[0] == id && readOnlyBy(id, { reader }) ? reader : nullptr;
    }

    /// True for a known float constant of one element equal to `value`, of rank at most `rank` (so that it
    /// broadcasts to the shape of the other operand).
    bool isScalar(ValueId id, float value, int64_t rank) const
    {
        const Tensor* t = floatConstant(id);
        return t && t->size() == 1 && t->rank() <= rank && t->data<float>()[0] == value;
    }

    void fuseConv(const Node& conv)
    {
        if (!isDefaultOp(conv, "Conv") || !m_plan.kernels[static_cast<size_t>(conv.id)] || conv.inputs.size() < 2
            || conv.inputs.size() > 3 || conv.outputs.size() != 1 || conv.outputs[0] == kNoValue)
            return;
        // Known float weights also mean float data: other X types fail Conv's own type check, fused or not.
        const Tensor* w = floatConstant(conv.inputs[1]);
        if (!w || w->rank() < 3 || w->dim(0) < 1)
            return;
        const Tensor* b = nullptr;
        if (conv.inputs.size() == 3 && conv.inputs[2] != kNoValue) {
            b = floatConstant(conv.inputs[2]);
            if (!b || b->rank() != 1 || b->dim(0) != w->dim(0))
                return;
        }
        ConvFolding folding;
        FusedStep step;
        step.nodes = 1;
        step.output = conv.outputs[0];
        Constants skipped; // Constant nodes between the step and the node being considered
        const auto absorb = [&](const Node& node) {
            step.nodes = static_cast<uint32_t>(node.id - conv.id + 1);
            step.output = node.outputs[0];
            step.constants.insert(step.constants.end(), skipped.begin(), skipped.end());
            skipped.clear();
        };
        size_t at = skipConstants(static_cast<size_t>(conv.id) + 1, skipped);
        const Node* reader = soleReaderAt(step.output, at);
        if (reader && foldBatchNorm(*reader, *w, b, folding)) {
            absorb(*reader);
            at = skipConstants(static_cast<size_t>(reader->id) + 1, skipped);
            reader = soleReaderAt(step.output, at);
        }
        // Then any number of Mul and Add by known per-channel values (an affine layer, or a BatchNormalization that
        // the exporter wrote out as Mul and Add), with the conv's output as either operand.
        for (const Node* affine = readerAt(step.output, at); affine && readOnlyBy(step.output, { affine })
             && foldAffine(*affine, step.output, *w, b, w->rank(), folding);
             affine = readerAt(step.output, at)) {
            absorb(*affine);
            at = skipConstants(static_cast<size_t>(affine->id) + 1, skipped);
            reader = soleReaderAt(step.output, at);
        }
        if (reader) {
            if (auto act = activation(*reader)) {
                folding.activation = *act;
                absorb(*reader);
            }
        } else if (const Node* last = hardSwish(step.output, at, w->rank(), skipped)) {
            folding.activation = { simd::Activation::HardSwish };
            absorb(*last);
        } else if (const Node* mul = silu(step.output, at, skipped)) {
            folding.activation = { simd::Activation::Silu };
            absorb(*mul);
        }
        if (step.nodes == 1)
            return;
        step.kernel = makeFoldedConv(KernelInit { conv, &m_graph }, std::move(folding));
        m_plan.fused[static_cast<size_t>(conv.id)] = std::move(step);
    }

    const Tensor* knownTensor(ValueId id) const
    {
        if (id == kNoValue)
            return nullptr;
        const Value& v = m_known[static_cast<size_t>(id)];
        return v.isTensor() ? &v.tensor() : nullptr;
    }

    /// The DequantizeLinear node (default domain, per tensor or per axis, no blocks, float output) that produces
    /// `id`, has a kernel and whose inputs are all known, or null.
    const Node* knownDequantize(ValueId id) const
    {
        if (id == kNoValue)
            return nullptr;
        const NodeId at = m_graph.values()[static_cast<size_t>(id)].producer;
        if (at < 0)
            return nullptr;
        const Node& dq = m_graph.nodes()[static_cast<size_t>(at)];
        if (!isDefaultOp(dq, "DequantizeLinear") || !m_plan.kernels[static_cast<size_t>(at)] || dq.inputs.size() < 2
            || dq.outputs.size() != 1 || m_plan.fused[static_cast<size_t>(at)].nodes
            || dq.attributes.getInt("block_size", 0) != 0 || dq.attributes.getInt("output_dtype", 0) != 0)
            return nullptr;
        for (size_t i = 0; i < dq.inputs.size(); ++i)
            if (dq.inputs[i] != kNoValue && !knownTensor(dq.inputs[i]))
                return nullptr;
        return &dq;
    }

    static bool isByte(const Tensor* t) { return t && (t->dtype() == DataType::UInt8 || t->dtype() == DataType::Int8); }

    static int32_t byteAt(const Tensor& t, int64_t i)
    {
        return t.dtype() == DataType::Int8 ? t.data<int8_t>()[static_cast<size_t>(i)]
                                           : t.data<uint8_t>()[static_cast<size_t>(i)];
    }

    /// DequantizeLinear -> Conv -> (Relu) -> QuantizeLinear, as onnxruntime's QDQ format writes a quantized
    /// convolution, as one integer convolution (qdq_conv.h): x uint8 or int8 per tensor; the weights and the bias
    /// DequantizeLinear nodes of known values (weights per tensor or per output channel, an int32 bias), read by this
    /// Conv only, are skipped; y per tensor. A Relu is the clamp at y's zero point, which QuantizeLinear's monotonic
    /// rounding makes exact. The result equals the unfused graph's up to the float rounding of its sums (see
    /// QdqConv). When only the Conv reads x's DequantizeLinear and it comes just before, the step starts there and
    /// reads the quantized x; otherwise (x also read elsewhere, a residual) the DequantizeLinear still runs and the
    /// step, from the Conv, takes x back to integers exactly (x_scale a normal float: the round trip of at most 255
    /// steps is within float error of an integer).
    void fuseQdqConv(const Node& conv)
    {
        if (!isDefaultOp(conv, "Conv") || !m_plan.kernels[static_cast<size_t>(conv.id)] || conv.inputs.size() < 2
            || conv.inputs.size() > 3 || conv.outputs.size() != 1 || conv.outputs[0] == kNoValue
            || conv.inputs[0] == kNoValue || conv.inputs[1] == conv.inputs[0])
            return;
        const NodeId dqAt = m_graph.values()[static_cast<size_t>(conv.inputs[0])].producer;
        if (dqAt < 0)
            return;
        const Node& dq = m_graph.nodes()[static_cast<size_t>(dqAt)];
        if (!isDefaultOp(dq, "DequantizeLinear") || !m_plan.kernels[static_cast<size_t>(dq.id)] || dq.inputs.size() != 3
            || dq.outputs.size() != 1 || dq.attributes.getInt("block_size", 0) != 0
            || dq.attributes.getInt("output_dtype", 0) != 0)
            return;
        const Tensor* xs = knownTensor(dq.inputs[1]);
        const Tensor* xz = knownTensor(dq.inputs[2]);
        if (!xs || xs->dtype() != DataType::Float || xs->size() != 1 || !isByte(xz) || xz->size() != 1)
            return;
        Constants skipped;
        const bool fromQuantized = m_plan.fused[static_cast<size_t>(dq.id)].nodes == 0
            && skipConstants(static_cast<size_t>(dq.id) + 1, skipped) == static_cast<size_t>(conv.id)
            && readOnlyBy(dq.outputs[0], { &conv });
        if (!fromQuantized) {
            skipped.clear();
            const float s = xs->data<float>()[0];
            if (!std::isnormal(s) || std::fabs(s) > 1e30f)
                return;
        }
        const Node* first = fromQuantized ? &dq : &conv;
        // The weights: quantized [M, C / group, kernel...], zero point and scale per tensor or along axis 0.
        const Node* wdq = knownDequantize(conv.inputs[1]);
        if (!wdq || wdq->inputs.size() != 3 || !readOnlyBy(conv.inputs[1], { &conv }))
            return;
        const Tensor* wq = knownTensor(wdq->inputs[0]);
        const Tensor* ws = knownTensor(wdq->inputs[1]);
        const Tensor* wz = knownTensor(wdq->inputs[2]);
        if (!isByte(wq) || wq->rank() < 3 || wq->dim(0) < 1 || !ws || ws->dtype() != DataType::Float || !wz
            || wz->dtype() != wq->dtype() || wz->size() != ws->size())
            return;
        const int64_t m = wq->dim(0);
        const int64_t axis = wdq->attributes.getInt("axis", 1);
        if (ws->size() != 1 && (ws->rank() != 1 || ws->size() != m || (axis != 0 && axis != -wq->rank())))
            return;
        // The bias: an int32 DequantizeLinear [M] with a zero point of 0.
        const Node* bdq = nullptr;
        const Tensor* bq = nullptr;
        const Tensor* bs = nullptr;
        if (conv.inputs.size() == 3 && conv.inputs[2] != kNoValue) {
            bdq = knownDequantize(conv.inputs[2]);
            if (!bdq || !readOnlyBy(conv.inputs[2], { &conv }))
                return;
            bq = knownTensor(bdq->inputs[0]);
            bs = knownTensor(bdq->inputs[1]);
            const Tensor* bz = bdq->inputs.size() > 2 ? knownTensor(bdq->inputs[2]) : nullptr;
            if (!bq || bq->dtype() != DataType::Int32 || bq->rank() != 1 || bq->size() != m || !bs
                || bs->dtype() != DataType::Float || (bs->size() != 1 && (bs->rank() != 1 || bs->size() != m)))
                return;
            if (bz
                && (bz->dtype() != DataType::Int32
                    || std::any_of(
                        bz->data<int32_t>().begin(), bz->data<int32_t>().end(), [](int32_t z) { return z != 0; })))
                return;
        }
        // Then an optional Relu and the QuantizeLinear of y, per tensor, to uint8 or int8, anywhere after the Conv
        // (exporters interleave a block's convolutions): the step writes the QuantizeLinear's output, and the Relu
        // and QuantizeLinear nodes are skipped where they stand.
        const Node* relu = soleConsumer(conv.outputs[0]);
        const Node* last = relu;
        if (relu && isDefaultOp(*relu, "Relu") && relu->inputs.size() == 1)
            last = soleConsumer(relu->outputs[0]);
        else
            relu = nullptr;
        if (!last || !isDefaultOp(*last, "QuantizeLinear") || last->inputs.size() != 3
            || last->inputs[0] != (relu ? relu->outputs[0] : conv.outputs[0])
            || m_plan.fused[static_cast<size_t>(last->id)].nodes
            || (relu && m_plan.fused[static_cast<size_t>(relu->id)].nodes)
            || last->attributes.getInt("output_dtype", 0) != 0 || last->attributes.getInt("block_size", 0) != 0)
            return;
        const Tensor* ys = knownTensor(last->inputs[1]);
        const Tensor* yz = knownTensor(last->inputs[2]);
        if (!ys || ys->dtype() != DataType::Float || ys->size() != 1 || !isByte(yz) || yz->size() != 1)
            return;
        const float sx = xs->data<float>()[0], sy = ys->data<float>()[0];
        if (!std::isfinite(sx) || !std::isfinite(sy) || sy == 0)
            return;
        QdqConvParams params;
        params.xType = xz->dtype();
        params.fromFloat = !fromQuantized;
        params.xScale = xs->data<float>()[0];
        params.xZero = byteAt(*xz, 0);
        params.weights = *wq;
        for (int64_t i = 0; i < wz->size(); ++i)
            params.weightZero.push_back(byteAt(*wz, i));
        intprod::Requantize& rq = params.requantize;
        rq.type = yz->dtype();
        rq.zero = byteAt(*yz, 0);
        rq.setRange(relu != nullptr);
        for (int64_t i = 0; i < ws->size(); ++i) {
            const float sw = ws->data<float>()[static_cast<size_t>(i)];
            if (!std::isfinite(sw))
                return;
            rq.scale.push_back(sx * sw / sy);
        }
        if (bq) {
            // The int32 bias as onnxruntime's QLinearConv adds it when its scale is x_scale * w_scale (as the
            // quantizer writes it); otherwise the dequantized bias over y_scale, added in float.
            bool exact = true;
            for (int64_t i = 0; i < m; ++i)
                exact = exact
                    && bs->data<float>()[static_cast<size_t>(bs->size() == 1 ? 0 : i)]
                        == sx * ws->data<float>()[static_cast<size_t>(ws->size() == 1 ? 0 : i)];
            for (int64_t i = 0; i < m; ++i) {
                const int32_t b = bq->data<int32_t>()[static_cast<size_t>(i)];
                if (exact)
                    rq.bias.push_back(b);
                else
                    rq.offset.push_back(
                        static_cast<float>(b) * bs->data<float>()[static_cast<size_t>(bs->size() == 1 ? 0 : i)] / sy);
            }
        }
        FusedStep step;
        step.nodes = static_cast<uint32_t>(conv.id - first->id + 1);
        step.output = last->outputs[0];
        step.constants = std::move(skipped);
        step.kernel = makeQdqConv(KernelInit { conv, &m_graph }, std::move(params));
        m_plan.fused[static_cast<size_t>(first->id)] = std::move(step);
        // Nothing reads the outputs of the weights' and bias' DequantizeLinear nodes in plain runs any more, and the
        // step has written the QuantizeLinear's.
        for (const Node* skip : { wdq, bdq, relu, last })
            if (skip)
                m_plan.fused[static_cast<size_t>(skip->id)].nodes = 1;
    }

    /// MatMul(A, Transpose(W)) with W a known float matrix whose transpose was not folded (too large: a tied
    /// embedding of a language model's vocabulary): the MatMul reads W in place (makeMatMulTransposedB) and the
    /// Transpose, read by this MatMul only, is skipped. The same products, summed in another order.
    void fuseTransposedWeights(const Node& matmul)
    {
        if (!isDefaultOp(matmul, "MatMul") || !m_plan.kernels[static_cast<size_t>(matmul.id)]
            || matmul.inputs.size() != 2 || matmul.outputs.size() != 1 || matmul.outputs[0] == kNoValue
            || matmul.inputs[1] == kNoValue || matmul.inputs[0] == matmul.inputs[1] || knownTensor(matmul.inputs[1]))
            return;
        const NodeId at = m_graph.values()[static_cast<size_t>(matmul.inputs[1])].producer;
        if (at < 0)
            return;
        const Node& transpose = m_graph.nodes()[static_cast<size_t>(at)];
        if (!isDefaultOp(transpose, "Transpose") || !m_plan.kernels[static_cast<size_t>(at)]
            || transpose.inputs.size() != 1 || transpose.outputs.size() != 1
            || m_plan.fused[static_cast<size_t>(at)].nodes || !readOnlyBy(matmul.inputs[1], { &matmul }))
            return;
        const Tensor* w = floatConstant(transpose.inputs[0]);
        if (!w || w->rank() != 2 || w->size() == 0)
            return;
        const std::vector<int64_t> perm = transpose.attributes.getInts("perm", { 1, 0 });
        if (perm != std::vector<int64_t> { 1, 0 })
            return;
        FusedStep step;
        step.nodes = 1;
        step.output = matmul.outputs[0];
        step.kernel = makeMatMulTransposedB(KernelInit { matmul, &m_graph }, *w);
        m_plan.fused[static_cast<size_t>(matmul.id)] = std::move(step);
        m_plan.fused[static_cast<size_t>(at)].nodes = 1;
    }

    /// The node that alone reads `id` (not a graph output), if it has a kernel and one output.
    const Node* soleConsumer(ValueId id) const
    {
        const auto& consumers = m_graph.values()[static_cast<size_t>(id)].consumers;
        if (consumers.size() != 1)
            return nullptr;
        const Node& reader = m_graph.nodes()[static_cast<size_t>(consumers[0])];
        if (!m_plan.kernels[static_cast<size_t>(reader.id)] || reader.outputs.size() != 1
            || reader.outputs[0] == kNoValue || !reader.implicitInputs.empty() || !readOnlyBy(id, { &reader }))
            return nullptr;
        return &reader;
    }

    /// HardSwish as exporters write it, x * Clip(x + 3, 0, 6) / 6: Add, Clip, Mul and Div from position `at` (Constant
    /// nodes in between are appended to `skipped`), x of rank `rank` read by the Add and the Mul only. Returns the
    /// Div, or null. Equal to the HardSwish activation up to float rounding.
    const Node* hardSwish(ValueId x, size_t at, int64_t rank, Constants& skipped) const
    {
        Constants passed;
        const Node* add = readerAt(x, skipConstants(at, passed));
        if (!add || !isDefaultOp(*add, "Add") || add->inputs.size() != 2
            || !isScalar(add->inputs[add->inputs[0] == x ? 1 : 0], 3.0f, rank))
            return nullptr;
        const Node* clip = soleReaderAt(add->outputs[0], skipConstants(static_cast<size_t>(add->id) + 1, passed));
        const auto bounds = clip && isDefaultOp(*clip, "Clip") ? clipBounds(*clip) : std::nullopt;
        if (!bounds || bounds->alpha != 0.0f || bounds->beta != 6.0f)
            return nullptr;
        const Node* mul = readerAt(x, skipConstants(static_cast<size_t>(clip->id) + 1, passed));
        if (!mul || !isDefaultOp(*mul, "Mul") || mul->inputs.size() != 2
            || mul->inputs[mul->inputs[0] == x ? 1 : 0] != clip->outputs[0] || !readOnlyBy(clip->outputs[0], { mul })
            || !readOnlyBy(x, { add, mul }))
            return nullptr;
        const Node* div = soleReaderAt(mul->outputs[0], skipConstants(static_cast<size_t>(mul->id) + 1, passed));
        if (!div || !isDefaultOp(*div, "Div") || div->inputs.size() != 2 || !isScalar(div->inputs[1], 6.0f, rank))
            return nullptr;
        skipped.insert(skipped.end(), passed.begin(), passed.end());
        return div;
    }

    /// SiLU as exporters write it, Mul(x, Sigmoid(x)) (either operand order): the Sigmoid at position `at` and the Mul
    /// after it (Constant nodes in between are appended to `skipped`), x read by these two only. Returns the Mul, or
    /// null. Equal to the Silu activation up to float rounding.
    const Node* silu(ValueId x, size_t at, Constants& skipped) const
    {
        const Node* sigmoid = readerAt(x, at);
        Constants passed;
        const Node* mul = sigmoid ? siluMul(*sigmoid, passed) : nullptr;
        if (!mul || !readOnlyBy(x, { sigmoid, mul }))
            return nullptr;
        skipped.insert(skipped.end(), passed.begin(), passed.end());
        return mul;
    }

    /// The Mul that completes a SiLU with `sigmoid` (a default-domain Sigmoid of one input x): the next node that is
    /// not folded (those passed over are appended to `passed`), a Mul of x and the Sigmoid's output, which only it
    /// reads. Null otherwise.
    const Node* siluMul(const Node& sigmoid, Constants& passed) const
    {
        if (!isDefaultOp(sigmoid, "Sigmoid") || sigmoid.inputs.size() != 1 || sigmoid.inputs[0] == kNoValue
            || sigmoid.outputs.size() != 1 || sigmoid.outputs[0] == kNoValue)
            return nullptr;
        const ValueId x = sigmoid.inputs[0], s = sigmoid.outputs[0];
        const Node* mul = readerAt(s, skipConstants(static_cast<size_t>(sigmoid.id) + 1, passed));
        if (!mul || !isDefaultOp(*mul, "Mul") || mul->inputs.size() != 2 || !readOnlyBy(s, { mul })
            || !((mul->inputs[0] == x && mul->inputs[1] == s) || (mul->inputs[0] == s && mul->inputs[1] == x)))
            return nullptr;
        return mul;
    }

    /// A SiLU pair (siluMul) from `sigmoid` as one step, which reads x once and writes the Mul's output.
    void fuseSilu(const Node& sigmoid)
    {
        Constants passed;
        const Node* mul = siluMul(sigmoid, passed);
        const Kernel* sigmoidKernel = m_plan.kernels[static_cast<size_t>(sigmoid.id)].get();
        if (!mul || !sigmoidKernel || !m_plan.kernels[static_cast<size_t>(mul->id)])
            return;
        FusedStep step;
        step.nodes = static_cast<uint32_t>(mul->id - sigmoid.id + 1);
        step.output = mul->outputs[0];
        step.constants = std::move(passed);
        step.kernel = makeSiluStep(sigmoid, *sigmoidKernel, *mul, *m_plan.kernels[static_cast<size_t>(mul->id)]);
        m_plan.fused[static_cast<size_t>(sigmoid.id)] = std::move(step);
    }

    /// An inference-mode BatchNormalization with known float parameters of the conv's M channels, folded into the
    /// weights and bias: a = scale / sqrt(var + epsilon) (in double, as the BatchNormalization kernel computes it),
    /// W' = W * a and B' = (B - mean) * a + bias per output channel.
    bool foldBatchNorm(const Node& bn, const Tensor& w, const Tensor* b, ConvFolding& folding) const
    {
        if (!isDefaultOp(bn, "BatchNormalization") || bn.inputs.size() != 5
            || (bn.opset >= 14 && bn.attributes.getInt("training_mode", 0) != 0)
            || (bn.opset < 9 && bn.attributes.getInt("spatial", 1) == 0))
            return false;
        const int64_t m = w.dim(0);
        const Tensor* p[4]; // scale, bias, mean, var
        for (size_t i = 0; i < 4; ++i) {
            p[i] = floatConstant(bn.inputs[i + 1]);
            if (!p[i] || p[i]->rank() != 1 || p[i]->dim(0) != m)
                return false;
        }
        const auto scale = p[0]->data<float>(), bias = p[1]->data<float>(), mean = p[2]->data<float>(),
                   var = p[3]->data<float>();
        const double epsilon = static_cast<double>(bn.attributes.getFloat("epsilon", 1e-5f));
        const auto in = w.data<float>();
        const size_t perChannel = in.size() / static_cast<size_t>(m);
        Tensor weights(DataType::Float, w.shape());
        Tensor folded(DataType::Float, { m });
        auto out = weights.data<float>();
        auto outBias = folded.data<float>();
        for (size_t c = 0; c < static_cast<size_t>(m); ++c) {
            const double a = static_cast<double>(scale[c]) / std::sqrt(static_cast<double>(var[c]) + epsilon);
            for (size_t k = c * perChannel; k < (c + 1) * perChannel; ++k)
                out[k] = static_cast<float>(static_cast<double>(in[k]) * a);
            const double b0 = b ? static_cast<double>(b->data<float>()[c]) : 0.0;
            outBias[c] = static_cast<float>((b0 - static_cast<double>(mean[c])) * a + static_cast<double>(bias[c]));
        }
        folding.weights = std::move(weights);
        folding.bias = std::move(folded);
        return true;
    }

    /// Mul or Add of the conv's (folded) output `x` by a known float constant that is one value, or one per channel
    /// (shape broadcasting to [N, M, spatial...] with M or 1 values along the channels and 1 elsewhere), folded into
    /// the weights and bias: Mul scales a channel's weights and bias, Add shifts its bias. Equal up to float rounding.
    bool foldAffine(
        const Node& node, ValueId x, const Tensor& w, const Tensor* b, int64_t rank, ConvFolding& folding) const
    {
        const bool mul = isDefaultOp(node, "Mul"), add = isDefaultOp(node, "Add");
        if ((!mul && !add) || node.inputs.size() != 2)
            return false;
        const Tensor* t = floatConstant(node.inputs[node.inputs[0] == x ? 1 : 0]);
        const int64_t m = w.dim(0);
        if (!t || t->rank() > rank || t->size() < 1)
            return false;
        const int64_t channelAxis = 1 - (rank - t->rank()); // the axis of t aligned with the channels, if any
        for (int64_t a = 0; a < t->rank(); ++a)
            if (t->dim(a) != 1 && !(a == channelAxis && t->dim(a) == m))
                return false;
        const auto values = t->data<float>();
        const auto at = [&](int64_t c) { return values[t->size() == 1 ? 0 : static_cast<size_t>(c)]; };
        if (!folding.weights)
            folding.weights = w.clone();
        if (!folding.bias) {
            Tensor zero(DataType::Float, { m });
            if (b)
                std::copy(b->data<float>().begin(), b->data<float>().end(), zero.data<float>().begin());
            folding.bias = std::move(zero);
        }
        auto weights = folding.weights->data<float>();
        auto bias = folding.bias->data<float>();
        const size_t perChannel = weights.size() / static_cast<size_t>(m);
        for (int64_t c = 0; c < m; ++c) {
            const float v = at(c);
            if (mul) {
                for (size_t k = static_cast<size_t>(c) * perChannel; k < static_cast<size_t>(c + 1) * perChannel; ++k)
                    weights[k] *= v;
                bias[static_cast<size_t>(c)] *= v;
            } else {
                bias[static_cast<size_t>(c)] += v;
            }
        }
        return true;
    }

    /// The convolution epilogue that computes `node` (reading the conv's output as its input 0), as the node's own
    /// float kernel does with the same simd activation.
    std::optional<simd::ActivationParams> activation(const Node& node) const
    {
        using simd::Activation;
        const NodeAttributes& attrs = node.attributes;
        if (!node.domain.empty() || node.functionBody || !node.subgraphs.empty())
            return std::nullopt;
        if (node.opType == "Clip")
            return clipBounds(node);
        if (node.inputs.size() != 1)
            return std::nullopt;
        if (node.opType == "Relu")
            return simd::ActivationParams { Activation::Relu };
        if (node.opType == "Sigmoid")
            return simd::ActivationParams { Activation::Sigmoid };
        if (node.opType == "Tanh")
            return simd::ActivationParams { Activation::Tanh };
        if (node.opType == "HardSwish")
            return simd::ActivationParams { Activation::HardSwish };
        if (node.opType == "Gelu") {
            const std::string approximate = attrs.getString("approximate", "none");
            if (approximate != "none" && approximate != "tanh")
                return std::nullopt;
            return simd::ActivationParams { approximate == "tanh" ? Activation::GeluTanh : Activation::Gelu };
        }
        if (node.opType == "LeakyRelu")
            return simd::ActivationParams { Activation::LeakyRelu, attrs.getFloat("alpha", 0.01f) };
        if (node.opType == "HardSigmoid")
            return simd::ActivationParams { Activation::HardSigmoid, attrs.getFloat("alpha", 0.2f),
                attrs.getFloat("beta", 0.5f) };
        return std::nullopt;
    }

    /// Clip's bounds: attributes before opset 11, known float scalar inputs from 11; an absent bound does not clip.
    std::optional<simd::ActivationParams> clipBounds(const Node& clip) const
    {
        float bounds[2] = { -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity() };
        if (clip.opset < 11) {
            if (clip.inputs.size() != 1)
                return std::nullopt;
            if (clip.attributes.has("min"))
                bounds[0] = clip.attributes.getFloat("min", 0.0f);
            if (clip.attributes.has("max"))
                bounds[1] = clip.attributes.getFloat("max", 0.0f);
        } else {
            if (clip.inputs.size() > 3)
                return std::nullopt;
            for (size_t i = 1; i < clip.inputs.size(); ++i) {
                if (clip.inputs[i] == kNoValue)
                    continue;
                const Tensor* t = floatConstant(clip.inputs[i]);
                if (!t || t->size() != 1)
                    return std::nullopt;
                bounds[i - 1] = t->data<float>()[0];
            }
        }
        return simd::ActivationParams { simd::Activation::Clip, bounds[0], bounds[1] };
    }

    Plan& m_plan;
    const Graph& m_graph;
    std::vector<Value> m_known;
};

} // namespace

void planFusions(Plan& plan, const Plan* enclosing)
{
    Fuser(plan, enclosing).run();
}

} // namespace onnxscope
