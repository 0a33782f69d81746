// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/int_input.h"
#include "engine/kernels/kernel_registry.h"

#include <type_traits>

namespace onnxscope {

namespace {

/// The running sum and the running product: the combining operation and its identity.
struct SumOp {
    static constexpr int identity = 0;
    template <class A> static void combine(A& acc, A v) { acc += v; }
};
struct ProductOp {
    static constexpr int identity = 1;
    template <class A> static void combine(A& acc, A v) { acc *= v; }
};

/// CumSum 11, 14 and CumProd 26: the running sum (product) of X along the axis given by input 1 (an int32/int64
/// scalar or one-element 1-D tensor, negative counts from the back). exclusive=1 leaves the current element out (the
/// first output is the identity, 0 or 1), reverse=1 runs from the end. Floating types accumulate in double; integer
/// results wrap. `Types` lists the element types of the op: CumSum takes every numeric type, CumProd int32, int64,
/// uint32, uint64, float, double, float16 and bfloat16.
template <class Op, class Types> class Cumulative final : public Kernel {
public:
    explicit Cumulative(const KernelInit& init)
    {
        m_exclusive = init.attributes().getInt("exclusive", 0) != 0;
        m_reverse = init.attributes().getInt("reverse", 0) != 0;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const std::vector<int64_t> axisList = readIntList(ctx, 1, "axis");
        if (axisList.size() != 1)
            throw ctx.error("input 'axis' must hold one value, got " + ctx.input(1).typeString());
        const int64_t rank = x.rank();
        int64_t axis = axisList[0];
        if (axis < -rank || axis >= rank)
            throw ctx.error("axis " + std::to_string(axis) + " is out of range for input " + shapeToString(x.shape()));
        if (axis < 0)
            axis += rank;
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < rank; ++d) {
            if (d < axis)
                outer *= x.dim(d);
            else if (d > axis)
                inner *= x.dim(d);
        }
        Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
        dispatch<Types>(x.dtype(), ctx.node(), [&]<class T>() { run<T>(x, y, outer, x.dim(axis), inner); });
    }

private:
    template <class T> void run(const Tensor& x, Tensor& y, int64_t outer, int64_t len, int64_t inner) const
    {
        using A = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;
        const T* in = x.data<T>().data();
        T* out = y.data<T>().data();
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
                const int64_t base = o * len * inner + i;
                A acc = static_cast<A>(Op::identity);
                for (int64_t k = 0; k < len; ++k) {
                    const int64_t at = base + (m_reverse ? len - 1 - k : k) * inner;
                    const A v = static_cast<A>(in[at]); // integer: modular, so the result wraps
                    if (!m_exclusive)
                        Op::combine(acc, v);
                    out[at] = static_cast<T>(acc);
                    if (m_exclusive)
                        Op::combine(acc, v);
                }
            }
    }

    bool m_exclusive = false;
    bool m_reverse = false;
};

using CumProdTypes = TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>;

} // namespace

void registerCumSum(KernelRegistry& r)
{
    r.add("", "CumSum", 11, 14, makeFactory<Cumulative<SumOp, NumericTypes>>());
}

void registerCumProd(KernelRegistry& r)
{
    r.add("", "CumProd", 26, 26, makeFactory<Cumulative<ProductOp, CumProdTypes>>());
}

} // namespace onnxscope
