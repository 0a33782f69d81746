// SPDX-License-Identifier: MIT
#include "engine/kernels/control/axis_slices.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>

namespace onnxscope {

namespace {

/// Scan, versions 8 (batched: optional sequence_lens, leading batch axis, `directions`), and 9, 11, 16 (unbatched:
/// scan_input_axes/directions, scan_output_axes/directions, negative axes from 11). Each step runs `body` as a
/// nested frame labelled `Scan "name" step t` (`batch b step t` in version 8). State values are carried between
/// steps; scan outputs are stacked along their output axis (reversed for direction 1). Version 8 pads the scan
/// outputs of sequences shorter than the longest with zeros.
class Scan final : public SubgraphKernel {
public:
    explicit Scan(const KernelInit& init)
        : m_body(init.node.subgraph("body"))
        , m_batched(init.opset() < 9)
    {
        if (!m_body)
            throw init.error("attribute 'body': required graph attribute is missing");
        const auto& a = init.attributes();
        m_numScanInputs = a.requireInt("num_scan_inputs");
        const int64_t inputs = static_cast<int64_t>(init.node.inputs.size()) - (m_batched ? 1 : 0);
        if (m_numScanInputs < 1 || m_numScanInputs > inputs)
            throw a.error("num_scan_inputs",
                "must be between 1 and the number of inputs, got " + std::to_string(m_numScanInputs));
        m_numStates = inputs - m_numScanInputs;
        if (static_cast<int64_t>(m_body->inputs().size()) != m_numStates + m_numScanInputs)
            throw init.error("body takes " + std::to_string(m_body->inputs().size()) + " inputs, expected "
                + std::to_string(m_numStates + m_numScanInputs));
        m_numScanOutputs = static_cast<int64_t>(m_body->outputs().size()) - m_numStates;
        if (m_numScanOutputs < 0)
            throw init.error("body has fewer outputs than state values");
        if (m_batched) {
            m_inputDirections = a.getInts("directions", std::vector<int64_t>(static_cast<size_t>(m_numScanInputs), 0));
        } else {
            m_inputDirections
                = a.getInts("scan_input_directions", std::vector<int64_t>(static_cast<size_t>(m_numScanInputs), 0));
            m_inputAxes = a.getInts("scan_input_axes", std::vector<int64_t>(static_cast<size_t>(m_numScanInputs), 0));
            m_outputDirections
                = a.getInts("scan_output_directions", std::vector<int64_t>(static_cast<size_t>(m_numScanOutputs), 0));
            m_outputAxes
                = a.getInts("scan_output_axes", std::vector<int64_t>(static_cast<size_t>(m_numScanOutputs), 0));
            if (m_inputAxes.size() != static_cast<size_t>(m_numScanInputs))
                throw a.error("scan_input_axes", "expected " + std::to_string(m_numScanInputs) + " values");
            if (m_outputAxes.size() != static_cast<size_t>(m_numScanOutputs))
                throw a.error("scan_output_axes", "expected " + std::to_string(m_numScanOutputs) + " values");
            if (m_outputDirections.size() != static_cast<size_t>(m_numScanOutputs))
                throw a.error("scan_output_directions", "expected " + std::to_string(m_numScanOutputs) + " values");
        }
        if (m_inputDirections.size() != static_cast<size_t>(m_numScanInputs))
            throw a.error(m_batched ? "directions" : "scan_input_directions",
                "expected " + std::to_string(m_numScanInputs) + " values");
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override { return std::make_unique<Run>(*this, ctx); }

private:
    class Run final : public SubgraphRun {
    public:
        Run(const Scan& scan, KernelContext& ctx)
            : m_scan(scan)
            , m_name(ctx.node().displayName())
        {
            const size_t first = scan.m_batched ? 1 : 0;
            for (int64_t i = 0; i < scan.m_numStates; ++i)
                m_initialStates.push_back(ctx.input(first + static_cast<size_t>(i)));
            for (int64_t i = 0; i < scan.m_numScanInputs; ++i)
                m_scanInputs.push_back(ctx.input(first + static_cast<size_t>(scan.m_numStates + i)));
            if (scan.m_batched) {
                m_batch = m_scanInputs[0].rank() > 0 ? m_scanInputs[0].dim(0) : 0;
                int64_t maxLen = 0;
                for (auto& t : m_scanInputs) {
                    if (t.rank() < 2 || t.dim(0) != m_batch)
                        throw ctx.error("scan input " + t.typeString() + " must be [batch, sequence, ...]");
                    maxLen = std::max(maxLen, t.dim(1));
                    if (t.dim(1) != m_scanInputs[0].dim(1))
                        throw ctx.error("scan inputs have different sequence lengths");
                }
                for (auto& s : m_initialStates)
                    if (s.rank() < 1 || s.dim(0) != m_batch)
                        throw ctx.error("state " + s.typeString() + " must have the batch size "
                            + std::to_string(m_batch) + " as its first dimension");
                m_maxLen = maxLen;
                m_lengths.assign(static_cast<size_t>(m_batch), maxLen);
                if (ctx.hasInput(0)) {
                    const Tensor& lens = ctx.input(0);
                    if (lens.size() != m_batch)
                        throw ctx.error("sequence_lens has " + std::to_string(lens.size()) + " values for batch "
                            + std::to_string(m_batch));
                    for (int64_t b = 0; b < m_batch; ++b) {
                        int64_t l = static_cast<int64_t>(lens.toDouble(b));
                        if (l < 0 || l > maxLen)
                            throw ctx.error("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(l)
                                + " is outside [0, " + std::to_string(maxLen) + "]");
                        m_lengths[static_cast<size_t>(b)] = l;
                    }
                }
            } else {
                m_batch = 1;
                for (size_t i = 0; i < m_scanInputs.size(); ++i) {
                    const Tensor& t = m_scanInputs[i];
                    int64_t axis = scan.m_inputAxes[i];
                    if (axis < -t.rank() || axis >= t.rank())
                        throw ctx.error("scan_input_axes[" + std::to_string(i) + "] = " + std::to_string(axis)
                            + " is out of range for " + t.typeString());
                    if (axis < 0)
                        axis += t.rank();
                    m_axes.push_back(axis);
                    if (i == 0)
                        m_maxLen = t.dim(axis);
                    else if (t.dim(axis) != m_maxLen)
                        throw ctx.error("scan inputs have different lengths along their scan axes");
                }
                m_lengths = { m_maxLen };
            }
            m_finalStates.resize(static_cast<size_t>(m_batch));
            m_outputs.resize(static_cast<size_t>(m_batch));
            beginBatch();
        }

        std::optional<SubgraphCall> next() override
        {
            while (m_b < m_batch && m_t >= m_lengths[static_cast<size_t>(m_b)]) {
                m_finalStates[static_cast<size_t>(m_b)] = m_states;
                ++m_b;
                if (m_b < m_batch)
                    beginBatch();
            }
            if (m_b >= m_batch)
                return std::nullopt;
            SubgraphCall call;
            call.graph = m_scan.m_body;
            for (const auto& s : m_states)
                call.inputs.push_back(Value(s));
            for (size_t i = 0; i < m_scanInputs.size(); ++i) {
                const int64_t len = m_lengths[static_cast<size_t>(m_b)];
                const int64_t t = m_scan.m_inputDirections[i] ? len - 1 - m_t : m_t;
                if (m_scan.m_batched)
                    call.inputs.push_back(Value(sliceAlongAxis(sliceAlongAxis(m_scanInputs[i], 0, m_b), 0, t)));
                else
                    call.inputs.push_back(Value(sliceAlongAxis(m_scanInputs[i], m_axes[i], t)));
            }
            call.label = "Scan \"" + m_name + "\" "
                + (m_scan.m_batched ? "batch " + std::to_string(m_b) + " step " : std::string("step "))
                + std::to_string(m_t);
            call.iteration = m_t;
            return call;
        }

        void finished(std::vector<Value> outputs) override
        {
            const std::string what = "Scan \"" + m_name + "\"";
            for (size_t i = 0; i < m_states.size(); ++i)
                m_states[i] = outputs[i].tensor(what + " state output " + std::to_string(i));
            auto& outs = m_outputs[static_cast<size_t>(m_b)];
            for (int64_t k = 0; k < m_scan.m_numScanOutputs; ++k)
                outs[static_cast<size_t>(k)].push_back(outputs[m_states.size() + static_cast<size_t>(k)].tensor(
                    what + " scan output " + std::to_string(k)));
            ++m_t;
        }

        void complete(KernelContext& ctx) override
        {
            const size_t states = m_initialStates.size();
            if (m_scan.m_batched) {
                for (size_t i = 0; i < states; ++i) {
                    std::vector<Tensor> parts;
                    for (auto& fs : m_finalStates)
                        parts.push_back(fs[i]);
                    ctx.setOutput(
                        i, Value(stackAlongAxis(parts, 0, m_initialStates[i].dtype(), sliceShape(m_initialStates[i]))));
                }
                for (int64_t k = 0; k < m_scan.m_numScanOutputs; ++k) {
                    std::vector<Tensor> perBatch;
                    for (int64_t b = 0; b < m_batch; ++b) {
                        auto parts = m_outputs[static_cast<size_t>(b)][static_cast<size_t>(k)];
                        if (!parts.empty() && static_cast<int64_t>(parts.size()) < m_maxLen)
                            while (static_cast<int64_t>(parts.size()) < m_maxLen)
                                parts.push_back(Tensor(parts[0].dtype(), parts[0].shape()));
                        perBatch.push_back(stackAlongAxis(parts, 0));
                    }
                    ctx.setOutput(states + static_cast<size_t>(k), Value(stackAlongAxis(perBatch, 0)));
                }
                return;
            }
            for (size_t i = 0; i < states; ++i)
                ctx.setOutput(i, Value(m_finalStates[0][i]));
            for (int64_t k = 0; k < m_scan.m_numScanOutputs; ++k) {
                auto parts = m_outputs[0][static_cast<size_t>(k)];
                if (m_scan.m_outputDirections[static_cast<size_t>(k)])
                    std::reverse(parts.begin(), parts.end());
                int64_t rank = parts.empty() ? 0 : parts[0].rank();
                int64_t axis = m_scan.m_outputAxes[static_cast<size_t>(k)];
                if (axis < -(rank + 1) || axis > rank)
                    throw ctx.error(
                        "scan_output_axes[" + std::to_string(k) + "] = " + std::to_string(axis) + " is out of range");
                if (axis < 0)
                    axis += rank + 1;
                ctx.setOutput(states + static_cast<size_t>(k), Value(stackAlongAxis(parts, axis)));
            }
        }

    private:
        static Shape sliceShape(const Tensor& t)
        {
            Shape s = t.shape();
            if (!s.empty())
                s.erase(s.begin());
            return s;
        }

        void beginBatch()
        {
            m_t = 0;
            m_states.clear();
            for (const auto& s : m_initialStates)
                m_states.push_back(m_scan.m_batched ? sliceAlongAxis(s, 0, m_b) : s);
            m_outputs[static_cast<size_t>(m_b)].assign(static_cast<size_t>(m_scan.m_numScanOutputs), {});
        }

        const Scan& m_scan;
        std::string m_name;
        std::vector<Tensor> m_initialStates, m_scanInputs, m_states;
        std::vector<int64_t> m_axes, m_lengths;
        int64_t m_batch = 1, m_maxLen = 0, m_b = 0, m_t = 0;
        std::vector<std::vector<Tensor>> m_finalStates;
        std::vector<std::vector<std::vector<Tensor>>> m_outputs; // [batch][scan output][step]
    };

    const Graph* m_body;
    bool m_batched;
    int64_t m_numScanInputs = 0, m_numStates = 0, m_numScanOutputs = 0;
    std::vector<int64_t> m_inputDirections, m_inputAxes, m_outputDirections, m_outputAxes;
};

} // namespace

void registerScan(KernelRegistry& r)
{
    r.add("", "Scan", 8, 25, makeFactory<Scan>());
}

} // namespace onnxscope
