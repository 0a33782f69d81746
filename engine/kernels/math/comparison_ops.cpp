// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

#include <string>

namespace onnxscope {

namespace {

enum class CompareOp { Equal, Greater, GreaterOrEqual, Less, LessOrEqual };

using OrderedTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
    uint32_t, uint64_t, bool, std::string>;

/// Equal (1, 7, 11, 13, 19), Greater, Less (1, 7, 9, 13), GreaterOrEqual, LessOrEqual (12, 16): element-wise
/// comparison to a bool tensor. Every numeric type, bool and string in every version (a superset of the older
/// constraints). Opset 1 has the legacy `broadcast`/`axis` attributes; 7+ broadcast as numpy. Half types compare
/// their float values, so NaN compares unequal to everything.
class Compare final : public Kernel {
public:
    Compare(const KernelInit& init, CompareOp op)
        : m_op(op)
        , m_legacy(LegacyBroadcast::parse(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        Tensor b = ctx.input(1);
        if (a.dtype() != b.dtype())
            throw typeMismatch(ctx, a, b);
        Tensor& out = ctx.allocateOutput(0, DataType::Bool, m_legacy.apply(ctx, a, b));
        dispatch<OrderedTypes>(a.dtype(), ctx.node(), [&]<class T>() { run<T>(a, b, out); });
    }

private:
    template <class T> void run(const Tensor& a, const Tensor& b, Tensor& out) const
    {
        using C = std::conditional_t<std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>, float, T>;
        const auto cmp = [&](auto f) {
            broadcastBinary<T, T, bool>(a, b, out, [f](const T& x, const T& y) {
                if constexpr (std::is_same_v<C, T>)
                    return f(x, y);
                else
                    return f(static_cast<C>(x), static_cast<C>(y));
            });
        };
        switch (m_op) {
        case CompareOp::Equal:
            return cmp([](const C& x, const C& y) { return x == y; });
        case CompareOp::Greater:
            return cmp([](const C& x, const C& y) { return x > y; });
        case CompareOp::GreaterOrEqual:
            return cmp([](const C& x, const C& y) { return x >= y; });
        case CompareOp::Less:
            return cmp([](const C& x, const C& y) { return x < y; });
        case CompareOp::LessOrEqual:
            return cmp([](const C& x, const C& y) { return x <= y; });
        }
    }

    CompareOp m_op;
    LegacyBroadcast m_legacy;
};

template <CompareOp Op> KernelFactory compareFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Compare>(init, Op); };
}

} // namespace

void registerCompare(KernelRegistry& r)
{
    r.add("", "Equal", 1, 19, compareFactory<CompareOp::Equal>());
    r.add("", "Greater", 1, 13, compareFactory<CompareOp::Greater>());
    r.add("", "GreaterOrEqual", 12, 16, compareFactory<CompareOp::GreaterOrEqual>());
    r.add("", "Less", 1, 13, compareFactory<CompareOp::Less>());
    r.add("", "LessOrEqual", 12, 16, compareFactory<CompareOp::LessOrEqual>());
}

} // namespace onnxscope
