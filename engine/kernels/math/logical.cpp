// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

enum class LogicOp { And, Or, Xor };

/// And, Or, Xor 1, 7: element-wise on bool tensors. Opset 1 has the legacy `broadcast`/`axis` attributes; 7+
/// broadcast as numpy.
class Logical final : public Kernel {
public:
    Logical(const KernelInit& init, LogicOp op)
        : m_op(op)
        , m_legacy(LegacyBroadcast::parse(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        Tensor b = ctx.input(1);
        if (a.dtype() != DataType::Bool || b.dtype() != DataType::Bool)
            throw ctx.error("inputs must be bool, got " + a.typeString() + " and " + b.typeString());
        Tensor& out = ctx.allocateOutput(0, DataType::Bool, m_legacy.apply(ctx, a, b));
        switch (m_op) {
        case LogicOp::And:
            broadcastBinary<bool, bool, bool>(a, b, out, [](bool x, bool y) { return x && y; });
            break;
        case LogicOp::Or:
            broadcastBinary<bool, bool, bool>(a, b, out, [](bool x, bool y) { return x || y; });
            break;
        case LogicOp::Xor:
            broadcastBinary<bool, bool, bool>(a, b, out, [](bool x, bool y) { return x != y; });
            break;
        }
    }

private:
    LogicOp m_op;
    LegacyBroadcast m_legacy;
};

template <LogicOp Op> KernelFactory logicalFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Logical>(init, Op); };
}

} // namespace

void registerLogical(KernelRegistry& r)
{
    r.add("", "And", 1, 7, logicalFactory<LogicOp::And>());
    r.add("", "Or", 1, 7, logicalFactory<LogicOp::Or>());
    r.add("", "Xor", 1, 7, logicalFactory<LogicOp::Xor>());
}

} // namespace onnxscope
