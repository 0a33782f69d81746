// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// If, versions 1, 11, 13, 16: runs then_branch or else_branch as a nested frame (so the debugger can step into it)
/// and forwards its outputs. `cond` must hold exactly one bool (older exporters also write numeric conditions:
/// non-zero is true). Branch outputs of any value kind (tensors, sequences, optionals) are forwarded.
class If final : public SubgraphKernel {
public:
    explicit If(const KernelInit& init)
        : m_then(init.node.subgraph("then_branch"))
        , m_else(init.node.subgraph("else_branch"))
    {
        if (!m_then || !m_else)
            throw init.error(std::string("attribute '") + (m_then ? "else_branch" : "then_branch")
                + "': required graph attribute is missing");
        for (const Graph* g : { m_then, m_else })
            if (g->outputs().size() != init.node.outputs.size())
                throw init.error("branch \"" + g->name() + "\" has " + std::to_string(g->outputs().size())
                    + " outputs but the node has " + std::to_string(init.node.outputs.size()));
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override
    {
        const Tensor& cond = ctx.input(0);
        if (cond.size() != 1)
            throw ctx.error("condition must have exactly one element, got " + cond.typeString());
        const bool value = cond.dtype() == DataType::Bool ? cond.data<bool>()[0] : cond.toDouble(0) != 0.0;
        return std::make_unique<Run>(value ? m_then : m_else, value, ctx.node().displayName());
    }

private:
    class Run final : public SubgraphRun {
    public:
        Run(const Graph* branch, bool then, std::string nodeName)
            : m_branch(branch)
            , m_label("If \"" + nodeName + "\" " + (then ? "then_branch" : "else_branch"))
        {
        }
        std::optional<SubgraphCall> next() override
        {
            if (m_started)
                return std::nullopt;
            m_started = true;
            return SubgraphCall { m_branch, {}, m_label, -1 };
        }
        void finished(std::vector<Value> outputs) override { m_outputs = std::move(outputs); }
        void complete(KernelContext& ctx) override
        {
            for (size_t i = 0; i < m_outputs.size(); ++i)
                ctx.setOutput(i, std::move(m_outputs[i]));
        }

    private:
        const Graph* m_branch;
        std::string m_label;
        bool m_started = false;
        std::vector<Value> m_outputs;
    };

    const Graph* m_then;
    const Graph* m_else;
};

} // namespace

void registerIf(KernelRegistry& r)
{
    r.add("", "If", 1, 25, makeFactory<If>());
}

} // namespace onnxscope
