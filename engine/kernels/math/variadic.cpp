// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>
#include <type_traits>

namespace onnxscope {

namespace {

enum class VariadicOp { Max, Min, Sum, Mean };

/// Max, Min (1, 6, 8, 12, 13), Sum, Mean (1, 6, 8, 13): element-wise over one or more inputs of one type, with
/// numpy broadcasting across all of them (opsets before 8 require equal shapes, which broadcasting accepts too).
/// Every numeric type in every version (a superset of the older float-only constraints). Max and Min propagate NaN
/// as numpy's maximum/minimum do. Half types accumulate in float; integer sums wrap; an integer Mean truncates.
class Variadic final : public Kernel {
public:
    Variadic(const KernelInit&, VariadicOp op)
        : m_op(op)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        if (ctx.inputCount() == 0)
            throw ctx.error("needs at least one input");
        const Tensor& first = ctx.input(0);
        Shape outShape = first.shape();
        for (size_t i = 1; i < ctx.inputCount(); ++i) {
            const Tensor& t = ctx.input(i);
            if (t.dtype() != first.dtype())
                throw ctx.error("input " + std::to_string(i) + " has element type "
                    + std::string(dataTypeName(t.dtype())) + ", input 0 has "
                    + std::string(dataTypeName(first.dtype())));
            try {
                outShape = broadcastShapes(outShape, t.shape());
            } catch (const Error& e) {
                throw ctx.error(e.what());
            }
        }
        if (first.dtype() == DataType::Float && ctx.inputCount() == 2 && m_op != VariadicOp::Mean) {
            // Two float inputs: one SIMD loop, written over an input the executor gave away.
            const Tensor& second = ctx.input(1);
            Tensor& out = first.shape() == outShape ? ctx.reuseInputOrAllocate(0, 0, DataType::Float, outShape)
                : second.shape() == outShape        ? ctx.reuseInputOrAllocate(0, 1, DataType::Float, outShape)
                                                    : ctx.allocateOutputUninitialized(0, DataType::Float, outShape);
            const simd::BinaryOp op = m_op == VariadicOp::Max ? simd::BinaryOp::Max
                : m_op == VariadicOp::Min                     ? simd::BinaryOp::Min
                                                              : simd::BinaryOp::Add;
            simd::broadcastBinary(ctx.threadPool(), op, first.data<float>().data(), first.shape(),
                second.data<float>().data(), second.shape(), out.data<float>().data(), outShape);
            return;
        }
        Tensor& out = ctx.allocateOutput(0, first.dtype(), outShape);
        dispatch<NumericTypes>(first.dtype(), ctx.node(), [&]<class T>() { run<T>(ctx, out); });
    }

private:
    template <class T> void run(const KernelContext& ctx, Tensor& out) const
    {
        using C = std::conditional_t<std::is_integral_v<T>, T, MathType<T>>;
        constexpr bool direct = std::is_same_v<C, T>;
        Tensor acc = direct ? out : Tensor(DataTypeOf<C>::value, out.shape());
        // acc has the output shape, so reading and writing it in one broadcastBinary touches each element once.
        broadcastBinary<C, T, C>(acc, ctx.input(0), acc, [](C, T x) { return static_cast<C>(x); });
        for (size_t i = 1; i < ctx.inputCount(); ++i) {
            const Tensor& t = ctx.input(i);
            switch (m_op) {
            case VariadicOp::Max:
                broadcastBinary<C, T, C>(acc, t, acc, [](C a, T x) {
                    const C b = static_cast<C>(x);
                    if constexpr (!std::is_integral_v<C>)
                        if (std::isnan(a) || std::isnan(b))
                            return std::isnan(a) ? a : b;
                    return a < b ? b : a;
                });
                break;
            case VariadicOp::Min:
                broadcastBinary<C, T, C>(acc, t, acc, [](C a, T x) {
                    const C b = static_cast<C>(x);
                    if constexpr (!std::is_integral_v<C>)
                        if (std::isnan(a) || std::isnan(b))
                            return std::isnan(a) ? a : b;
                    return b < a ? b : a;
                });
                break;
            case VariadicOp::Sum:
            case VariadicOp::Mean:
                broadcastBinary<C, T, C>(acc, t, acc, [](C a, T x) { return add(a, static_cast<C>(x)); });
                break;
            }
        }
        if (m_op == VariadicOp::Mean) {
            const auto n = static_cast<C>(ctx.inputCount());
            for (C& v : acc.data<C>())
                v = static_cast<C>(v / n);
        }
        if constexpr (!direct) {
            auto src = acc.data<C>();
            auto dst = out.data<T>();
            for (size_t i = 0; i < src.size(); ++i)
                dst[i] = static_cast<T>(src[i]);
        }
    }

    template <class C> static C add(C a, C b)
    {
        if constexpr (std::is_integral_v<C>) {
            using U = std::make_unsigned_t<C>;
            return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
        } else {
            return a + b;
        }
    }

    VariadicOp m_op;
};

template <VariadicOp Op> KernelFactory variadicFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Variadic>(init, Op); };
}

} // namespace

void registerVariadic(KernelRegistry& r)
{
    r.add("", "Max", 1, 13, variadicFactory<VariadicOp::Max>());
    r.add("", "Min", 1, 13, variadicFactory<VariadicOp::Min>());
    r.add("", "Sum", 1, 13, variadicFactory<VariadicOp::Sum>());
    r.add("", "Mean", 1, 13, variadicFactory<VariadicOp::Mean>());
}

} // namespace onnxscope
