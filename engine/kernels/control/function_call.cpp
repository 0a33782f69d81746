// SPDX-License-Identifier: MIT
#include "engine/kernels/control/function_call.h"

namespace onnxscope {

namespace {

/// Runs a function body (a FunctionProto instantiated for this call site) as a nested frame.
class FunctionCall final : public SubgraphKernel {
public:
    explicit FunctionCall(const Graph& body)
        : m_body(&body)
    {
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override { return std::make_unique<Run>(ctx, m_body); }

private:
    class Run final : public SubgraphRun {
    public:
        Run(KernelContext& ctx, const Graph* body)
            : m_body(body)
        {
            for (size_t i = 0; i < ctx.inputCount(); ++i)
                m_inputs.push_back(ctx.inputValue(i));
        }
        std::optional<SubgraphCall> next() override
        {
            if (m_done)
                return std::nullopt;
            m_done = true;
            return SubgraphCall { m_body, m_inputs, "function \"" + m_body->name() + "\"" };
        }
        void finished(std::vector<Value> outputs) override { m_outputs = std::move(outputs); }
        void complete(KernelContext& ctx) override
        {
            for (size_t i = 0; i < m_outputs.size() && i < ctx.outputCount(); ++i)
                ctx.setOutput(i, m_outputs[i]);
        }

    private:
        const Graph* m_body;
        std::vector<Value> m_inputs;
        std::vector<Value> m_outputs;
        bool m_done = false;
    };

    const Graph* m_body;
};

} // namespace

std::unique_ptr<Kernel> makeFunctionCallKernel(const Graph& body)
{
    return std::make_unique<FunctionCall>(body);
}

} // namespace onnxscope
