// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <limits>

namespace onnxscope {

namespace {

enum class ArithOp { Add, Sub, Mul, Div };

/// Add, Sub, Mul, Div: every version. Opsets 1-6 support the legacy `broadcast`/`axis` attributes (B aligned to A at
/// `axis`); opset 7+ use numpy broadcasting. All numeric types. Integer division truncates toward zero, as
/// onnxruntime does; integer division by zero is an error rather than a crash.
class BinaryArith final : public Kernel {
public:
    BinaryArith(const KernelInit& init, ArithOp op)
        : m_op(op)
        , m_legacy(LegacyBroadcast::parse(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        if (a.dtype() == DataType::Float && !m_legacy.enabled && ctx.input(1).dtype() == DataType::Float) {
            computeFloat(ctx, a, ctx.input(1));
            return;
        }
        Tensor b = ctx.input(1);
        if (a.dtype() != b.dtype())
            throw typeMismatch(ctx, a, b);
        const Shape outShape = m_legacy.apply(ctx, a, b);
        Tensor& out = ctx.allocateOutputUninitialized(0, a.dtype(), outShape);
        dispatch<TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
            uint32_t, uint64_t>>(a.dtype(), ctx.node(), [&]<class T>() { run<T>(ctx, a, b, out); });
    }

private:
    /// float with numpy broadcasting: written over an input of the output's shape when the executor gave it away.
    void computeFloat(KernelContext& ctx, const Tensor& a, const Tensor& b) const
    {
        const Shape outShape = broadcastShapesOf(ctx, a.shape(), b.shape());
        Tensor& out = a.shape() == outShape ? ctx.reuseInputOrAllocate(0, 0, DataType::Float, outShape)
            : b.shape() == outShape         ? ctx.reuseInputOrAllocate(0, 1, DataType::Float, outShape)
                                            : ctx.allocateOutputUninitialized(0, DataType::Float, outShape);
        static constexpr simd::BinaryOp ops[]
            = { simd::BinaryOp::Add, simd::BinaryOp::Sub, simd::BinaryOp::Mul, simd::BinaryOp::Div };
        simd::broadcastBinary(ctx.threadPool(), ops[static_cast<int>(m_op)], a.data<float>().data(), a.shape(),
            b.data<float>().data(), b.shape(), out.data<float>().data(), outShape);
    }

    template <class T> void run(KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) const
    {
        switch (m_op) {
        case ArithOp::Add:
            broadcastBinary<T, T, T>(a, b, out, [](T x, T y) { return static_cast<T>(x + y); });
            break;
        case ArithOp::Sub:
            broadcastBinary<T, T, T>(a, b, out, [](T x, T y) { return static_cast<T>(x - y); });
            break;
        case ArithOp::Mul:
            broadcastBinary<T, T, T>(a, b, out, [](T x, T y) { return static_cast<T>(x * y); });
            break;
        case ArithOp::Div:
            if constexpr (std::is_integral_v<T>) {
                for (T y : b.data<T>())
                    if (y == 0)
                        throw ctx.error("integer division by zero");
                broadcastBinary<T, T, T>(a, b, out, [](T x, T y) {
                    if constexpr (std::is_signed_v<T>)
                        if (x == std::numeric_limits<T>::min() && y == T(-1))
                            return x; // wraps, as two's complement negation does
                    return static_cast<T>(x / y);
                });
            } else {
                broadcastBinary<T, T, T>(a, b, out, [](T x, T y) { return static_cast<T>(x / y); });
            }
            break;
        }
    }

    ArithOp m_op;
    LegacyBroadcast m_legacy;
};

template <ArithOp Op> KernelFactory arithFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<BinaryArith>(init, Op); };
}

} // namespace

void registerBinaryArith(KernelRegistry& r)
{
    r.add("", "Add", 1, 14, arithFactory<ArithOp::Add>());
    r.add("", "Sub", 1, 14, arithFactory<ArithOp::Sub>());
    r.add("", "Mul", 1, 14, arithFactory<ArithOp::Mul>());
    r.add("", "Div", 1, 14, arithFactory<ArithOp::Div>());
}

} // namespace onnxscope
