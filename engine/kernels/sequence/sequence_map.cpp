// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// SequenceMap-17: runs `body` once per item of the input sequence, as a nested frame labelled
/// `SequenceMap "name" item i`. Additional inputs that are sequences contribute their i-th item (they must have the
/// same length); tensors are passed whole. Output k is the sequence of the body's k-th outputs.
class SequenceMap final : public SubgraphKernel {
public:
    explicit SequenceMap(const KernelInit& init)
        : m_body(init.node.subgraph("body"))
    {
        if (!m_body)
            throw init.error("attribute 'body': required graph attribute is missing");
        if (m_body->inputs().size() != init.node.inputs.size())
            throw init.error("body takes " + std::to_string(m_body->inputs().size()) + " inputs but the node has "
                + std::to_string(init.node.inputs.size()));
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override { return std::make_unique<Run>(*this, ctx); }

private:
    class Run final : public SubgraphRun {
    public:
        Run(const SequenceMap& op, KernelContext& ctx)
            : m_body(op.m_body)
            , m_name(ctx.node().displayName())
        {
            for (size_t i = 0; i < ctx.inputCount(); ++i)
                m_inputs.push_back(ctx.inputValue(i));
            m_count = m_inputs.at(0).sequence(ctx.node().label() + ": input 0").items.size();
            for (size_t i = 1; i < m_inputs.size(); ++i)
                if (m_inputs[i].isSequence() && m_inputs[i].sequence().items.size() != m_count)
                    throw ctx.error("input " + std::to_string(i) + " has "
                        + std::to_string(m_inputs[i].sequence().items.size()) + " items but the input sequence has "
                        + std::to_string(m_count));
            m_outputs.resize(m_body->outputs().size());
        }

        std::optional<SubgraphCall> next() override
        {
            if (m_index >= m_count)
                return std::nullopt;
            SubgraphCall call;
            call.graph = m_body;
            for (const auto& v : m_inputs)
                call.inputs.push_back(v.isSequence() ? v.sequence().items[m_index] : v);
            call.label = "SequenceMap \"" + m_name + "\" item " + std::to_string(m_index);
            call.iteration = static_cast<int64_t>(m_index);
            return call;
        }

        void finished(std::vector<Value> outputs) override
        {
            for (size_t k = 0; k < outputs.size() && k < m_outputs.size(); ++k) {
                if (outputs[k].isTensor())
                    m_outputs[k].elementType = outputs[k].tensor().dtype();
                m_outputs[k].items.push_back(std::move(outputs[k]));
            }
            ++m_index;
        }

        void complete(KernelContext& ctx) override
        {
            for (size_t k = 0; k < m_outputs.size(); ++k) {
                if (m_outputs[k].elementType == DataType::Undefined) {
                    const auto& declared = m_body->value(m_body->outputs()[k]).type;
                    m_outputs[k].elementType
                        = declared.elementType != DataType::Undefined ? declared.elementType : DataType::Float;
                }
                ctx.setOutput(k, Value(std::move(m_outputs[k])));
            }
        }

    private:
        const Graph* m_body;
        std::string m_name;
        std::vector<Value> m_inputs;
        size_t m_count = 0, m_index = 0;
        std::vector<Sequence> m_outputs;
    };

    const Graph* m_body;
};

} // namespace

void registerSequenceMap(KernelRegistry& r)
{
    r.add("", "SequenceMap", 17, 17, makeFactory<SequenceMap>());
}

} // namespace onnxscope
