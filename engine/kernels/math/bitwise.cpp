// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

enum class BitOp { And, Or, Xor, Not };

/// BitwiseAnd, BitwiseOr, BitwiseXor (numpy broadcasting) and BitwiseNot, opset 18: bit operations on the two's
/// complement representation of int8, int16, int32, int64, uint8, uint16, uint32, uint64.
class Bitwise final : public Kernel {
public:
    Bitwise(const KernelInit&, BitOp op)
        : m_op(op)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (m_op == BitOp::Not) {
            Tensor& out = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
            dispatch<IntTypes>(x.dtype(), ctx.node(), [&]<class T>() {
                auto in = x.data<T>();
                auto o = out.data<T>();
                for (size_t i = 0; i < in.size(); ++i)
                    o[i] = static_cast<T>(~in[i]);
            });
            return;
        }
        const Tensor& y = ctx.input(1);
        Tensor& out = allocateBinaryOutput(ctx, x, y);
        dispatch<IntTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            switch (m_op) {
            case BitOp::And:
                broadcastBinary<T, T, T>(x, y, out, [](T a, T b) { return static_cast<T>(a & b); });
                break;
            case BitOp::Or:
                broadcastBinary<T, T, T>(x, y, out, [](T a, T b) { return static_cast<T>(a | b); });
                break;
            case BitOp::Xor:
                broadcastBinary<T, T, T>(x, y, out, [](T a, T b) { return static_cast<T>(a ^ b); });
                break;
            case BitOp::Not:
                break;
            }
        });
    }

private:
    BitOp m_op;
};

template <BitOp Op> KernelFactory bitwiseFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Bitwise>(init, Op); };
}

} // namespace

void registerBitwise(KernelRegistry& r)
{
    r.add("", "BitwiseAnd", 18, 18, bitwiseFactory<BitOp::And>());
    r.add("", "BitwiseOr", 18, 18, bitwiseFactory<BitOp::Or>());
    r.add("", "BitwiseXor", 18, 18, bitwiseFactory<BitOp::Xor>());
    r.add("", "BitwiseNot", 18, 18, bitwiseFactory<BitOp::Not>());
}

} // namespace onnxscope
