// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// DEBUG (domain mlprodict, also `DEBUG`): identity. The debugger records its output as a trace point under the
/// node's name and can pause after it. Any value kind passes through unchanged.
class Debug final : public Kernel {
public:
    explicit Debug(const KernelInit&) { }
    void compute(KernelContext& ctx) const override
    {
        if (!ctx.hasInput(0))
            throw ctx.error("input 0 is missing");
        ctx.setOutput(0, ctx.inputValue(0));
    }
};

/// YieldOp (domain mlprodict, also com.microsoft): Yi = Xi, unless the caller supplied output i (SessionOptions::
/// yieldOutputs / Debugger::setYieldOutputs). The debugger always pauses before it.
class YieldOp final : public Kernel {
public:
    explicit YieldOp(const KernelInit& init)
    {
        // Validated for type; they only matter to training graphs.
        init.attributes().getInts("full_shape_outputs");
        init.attributes().getInts("non_differentiable_outputs");
    }
    void compute(KernelContext& ctx) const override
    {
        for (size_t i = 0; i < ctx.outputCount(); ++i) {
            if (const auto* over = ctx.outputOverride(i)) {
                ctx.setOutput(i, **over);
                continue;
            }
            if (!ctx.hasOutput(i))
                continue;
            if (i >= ctx.inputCount() || !ctx.hasInput(i))
                throw ctx.error("output " + std::to_string(i) + " has no matching input and was not supplied");
            ctx.setOutput(i, ctx.inputValue(i));
        }
    }
};

} // namespace

void registerDebugOps(KernelRegistry& r)
{
    for (const char* domain : { "mlprodict", "DEBUG" })
        r.add(domain, "DEBUG", 1, KernelRegistry::kLatest, makeFactory<Debug>());
    for (const char* domain : { "mlprodict", "com.microsoft" })
        r.add(domain, "YieldOp", 1, KernelRegistry::kLatest, makeFactory<YieldOp>());
}

} // namespace onnxscope
