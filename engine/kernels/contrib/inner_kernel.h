// SPDX-License-Identifier: MIT
#pragma once

// A default-domain kernel that a contrib kernel computes with (FusedGemm with Gemm, nchwc MaxPool with MaxPool, ...).
// Include only from kernel .cpp files.

#include "engine/kernels/kernel_registry.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace onnxscope::contrib {

/// The builtin kernel of the op `opType` at `opset` of `domain` (the default domain unless given), built for a copy of
/// the contrib node (the same attributes, inputs and outputs; errors about attributes still name the contrib node).
class InnerKernel {
public:
    InnerKernel(const KernelInit& init, const std::string& opType, int64_t opset, const std::string& domain = "")
        : m_node(std::make_unique<Node>(init.node))
    {
        m_node->domain = domain;
        m_node->opType = opType;
        m_node->opset = opset;
        const KernelEntry* entry = KernelRegistry::builtin().find(domain, opType, opset);
        if (!entry)
            throw init.error(
                "this build has no " + opType + "-" + std::to_string(opset) + " kernel to compute it with");
        m_kernel = entry->factory(KernelInit { *m_node, init.graph });
    }

    /// Runs the kernel on `inputs` (absent ones as None values) and returns its `outputs` output values. Errors name
    /// the node of `ctx`.
    std::vector<Value> run(const KernelContext& ctx, const std::vector<Value>& inputs, size_t outputs = 1) const
    {
        std::vector<Value> out(outputs);
        KernelContext inner(ctx.node(), std::span<const Value>(inputs), std::span<Value>(out), ctx.threadPool());
        m_kernel->compute(inner);
        return out;
    }

private:
    std::unique_ptr<Node> m_node;
    std::unique_ptr<Kernel> m_kernel;
};

} // namespace onnxscope::contrib
