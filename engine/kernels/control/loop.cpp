// SPDX-License-Identifier: MIT
#include "engine/kernels/control/axis_slices.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// Loop, versions 1, 11, 13, 16. Each iteration runs `body` as a nested frame labelled `Loop "name" iteration i`.
/// Trip count M and condition are both optional (with neither, the loop runs until the body's condition is false,
/// bounded only by ExecutionLimits::maxLoopIterations and the debugger's pause). Loop-carried values may be
/// tensors, sequences or optionals; scan outputs are stacked along a new first axis. When the cond input is
/// omitted, the body's condition output is ignored, as the spec says.
class Loop final : public SubgraphKernel {
public:
    explicit Loop(const KernelInit& init)
        : m_body(init.node.subgraph("body"))
    {
        if (!m_body)
            throw init.error("attribute 'body': required graph attribute is missing");
        const size_t carried = init.node.inputs.size() >= 2 ? init.node.inputs.size() - 2 : 0;
        if (init.node.inputs.size() < 2)
            throw init.error("expects at least 2 inputs (M, cond), got " + std::to_string(init.node.inputs.size()));
        if (m_body->inputs().size() != carried + 2)
            throw init.error("body takes " + std::to_string(m_body->inputs().size()) + " inputs but the node passes "
                + std::to_string(carried + 2) + " (iteration_num, cond and " + std::to_string(carried)
                + " loop-carried values)");
        if (m_body->outputs().size() < carried + 1)
            throw init.error("body has " + std::to_string(m_body->outputs().size()) + " outputs, fewer than cond + "
                + std::to_string(carried) + " loop-carried values");
        m_scanOutputs = m_body->outputs().size() - 1 - carried;
        if (init.node.outputs.size() > carried + m_scanOutputs)
            throw init.error("has " + std::to_string(init.node.outputs.size()) + " outputs but the body yields only "
                + std::to_string(carried + m_scanOutputs));
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override
    {
        auto run = std::make_unique<Run>(*this, ctx);
        return run;
    }

private:
    class Run final : public SubgraphRun {
    public:
        Run(const Loop& loop, KernelContext& ctx)
            : m_loop(loop)
            , m_name(ctx.node().displayName())
            , m_limit(ctx.limits().maxLoopIterations)
        {
            if (ctx.hasInput(0)) {
                const Tensor& m = ctx.input(0);
                if (m.size() != 1 || m.dtype() != DataType::Int64)
                    throw ctx.error("trip count M must be one int64, got " + m.typeString());
                m_tripCount = m.data<int64_t>()[0];
            }
            if (ctx.hasInput(1)) {
                const Tensor& c = ctx.input(1);
                if (c.size() != 1)
                    throw ctx.error("cond must have one element, got " + c.typeString());
                m_useCond = true;
                m_cond = c.dtype() == DataType::Bool ? c.data<bool>()[0] : c.toDouble(0) != 0.0;
            }
            for (size_t i = 2; i < ctx.inputCount(); ++i)
                m_carried.push_back(ctx.inputValue(i));
            m_scans.resize(loop.m_scanOutputs);
        }

        std::optional<SubgraphCall> next() override
        {
            if (m_tripCount && m_iteration >= *m_tripCount)
                return std::nullopt;
            if (m_useCond && !m_cond)
                return std::nullopt;
            if (m_limit > 0 && m_iteration >= m_limit)
                throw Error("Loop \"" + m_name + "\" exceeded the iteration limit of " + std::to_string(m_limit));
            SubgraphCall call;
            call.graph = m_loop.m_body;
            call.inputs.reserve(2 + m_carried.size());
            call.inputs.push_back(Value(Tensor::scalar<int64_t>(m_iteration)));
            call.inputs.push_back(Value(Tensor::scalar<bool>(m_cond)));
            for (const auto& v : m_carried)
                call.inputs.push_back(v);
            call.label = "Loop \"" + m_name + "\" iteration " + std::to_string(m_iteration);
            call.iteration = m_iteration;
            return call;
        }

        void finished(std::vector<Value> outputs) override
        {
            const Tensor& c = outputs.at(0).isOptional() && outputs[0].optionalValue()
                ? outputs[0].optionalValue()->tensor("Loop body condition")
                : outputs.at(0).tensor("Loop \"" + m_name + "\" body condition");
            if (c.size() != 1)
                throw Error(
                    "Loop \"" + m_name + "\": the body's condition must have one element, got " + c.typeString());
            if (m_useCond)
                m_cond = c.dtype() == DataType::Bool ? c.data<bool>()[0] : c.toDouble(0) != 0.0;
            for (size_t i = 0; i < m_carried.size(); ++i)
                m_carried[i] = std::move(outputs[1 + i]);
            for (size_t k = 0; k < m_scans.size(); ++k)
                m_scans[k].push_back(outputs[1 + m_carried.size() + k].tensor(
                    "Loop \"" + m_name + "\" scan output " + std::to_string(k)));
            ++m_iteration;
        }

        void complete(KernelContext& ctx) override
        {
            for (size_t i = 0; i < m_carried.size(); ++i)
                ctx.setOutput(i, std::move(m_carried[i]));
            const Graph& body = *m_loop.m_body;
            for (size_t k = 0; k < m_scans.size(); ++k) {
                if (!ctx.hasOutput(m_carried.size() + k))
                    continue;
                // Zero iterations: the element type and slice shape come from the body's declared output.
                const auto& declared = body.value(body.outputs()[1 + m_carried.size() + k]).type;
                Shape slice;
                if (declared.hasShape)
                    for (const auto& d : declared.shape)
                        slice.push_back(d.known() ? d.value : 0);
                DataType type = declared.elementType != DataType::Undefined ? declared.elementType : DataType::Float;
                try {
                    ctx.setOutput(m_carried.size() + k, Value(stackAlongAxis(m_scans[k], 0, type, slice)));
                } catch (const Error& e) {
                    throw ctx.error("scan output " + std::to_string(k) + ": " + e.what());
                }
            }
        }

    private:
        const Loop& m_loop;
        std::string m_name;
        int64_t m_limit;
        std::optional<int64_t> m_tripCount;
        bool m_useCond = false;
        bool m_cond = true;
        int64_t m_iteration = 0;
        std::vector<Value> m_carried;
        std::vector<std::vector<Tensor>> m_scans;
    };

    const Graph* m_body;
    size_t m_scanOutputs = 0;
};

} // namespace

void registerLoop(KernelRegistry& r)
{
    r.add("", "Loop", 1, 25, makeFactory<Loop>());
}

} // namespace onnxscope
