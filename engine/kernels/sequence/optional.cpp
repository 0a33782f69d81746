// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <onnx/onnx_pb.h>

namespace onnxscope {

namespace {

/// Optional-15: wraps its input in an optional; without an input, an empty optional of the `type` attribute.
class Optional final : public Kernel {
public:
    explicit Optional(const KernelInit& init)
    {
        const auto* type = init.attributes().find("type");
        if (!init.node.inputs.empty() && init.node.inputs[0] != kNoValue)
            return;
        if (!type || !type->has_tp())
            throw init.attributes().error("type", "required when the input is omitted");
    }
    void compute(KernelContext& ctx) const override
    {
        if (ctx.hasInput(0))
            ctx.setOutput(0, Value::optional(ctx.inputValue(0)));
        else
            ctx.setOutput(0, Value::optional(std::nullopt));
    }
};

/// OptionalHasElement-15/18: true if the optional holds a value. From 18 the input itself may be omitted (false)
/// or be a plain tensor/sequence (true).
class OptionalHasElement final : public Kernel {
public:
    explicit OptionalHasElement(const KernelInit&) { }
    void compute(KernelContext& ctx) const override
    {
        const Value& v = ctx.inputValue(0);
        bool has = v.isOptional() ? v.optionalValue() != nullptr : !v.isNone();
        ctx.setOutput(0, Value(Tensor::scalar<bool>(has)));
    }
};

/// OptionalGetElement-15/18: the value held by the optional (an error if empty); from 18 a plain tensor or
/// sequence passes through.
class OptionalGetElement final : public Kernel {
public:
    explicit OptionalGetElement(const KernelInit&) { }
    void compute(KernelContext& ctx) const override
    {
        const Value& v = ctx.inputValue(0);
        if (v.isOptional()) {
            if (!v.optionalValue())
                throw ctx.error("the optional input is empty");
            ctx.setOutput(0, *v.optionalValue());
            return;
        }
        if (v.isNone())
            throw ctx.error("input 0 is missing");
        ctx.setOutput(0, v);
    }
};

} // namespace

void registerOptional(KernelRegistry& r)
{
    r.add("", "Optional", 15, 28, makeFactory<Optional>());
    r.add("", "OptionalHasElement", 15, 28, makeFactory<OptionalHasElement>());
    r.add("", "OptionalGetElement", 15, 28, makeFactory<OptionalGetElement>());
}

} // namespace onnxscope
