// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <type_traits>

namespace onnxscope {

namespace {

/// ArgMax, ArgMin 1, 11, 12, 13: int64 index of the largest (smallest) element along `axis` (default 0; negative
/// from 11), keeping the axis as 1 when keepdims=1 (default). Ties give the first index, or the last with
/// select_last_index=1 (12+). A NaN wins over every number and the first NaN is taken, as numpy does. Every numeric
/// type. An empty axis is an error (there is no index to return).
class ArgMinMax final : public Kernel {
public:
    ArgMinMax(const KernelInit& init, bool isMax)
        : m_isMax(isMax)
    {
        m_axis = init.attributes().getInt("axis", 0);
        m_keepDims = init.attributes().getInt("keepdims", 1) != 0;
        m_selectLast = init.attributes().getInt("select_last_index", 0) != 0;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const int64_t rank = x.rank();
        if (m_axis < -rank || m_axis >= rank || rank == 0)
            throw ctx.error("attribute 'axis' " + std::to_string(m_axis) + " is out of range for input "
                + shapeToString(x.shape()));
        const int64_t axis = m_axis < 0 ? m_axis + rank : m_axis;
        int64_t outer = 1, inner = 1;
        Shape outShape;
        for (int64_t d = 0; d < rank; ++d) {
            if (d < axis)
                outer *= x.dim(d);
            else if (d > axis)
                inner *= x.dim(d);
            if (d != axis || m_keepDims)
                outShape.push_back(d == axis ? 1 : x.dim(d));
        }
        const int64_t len = x.dim(axis);
        if (len == 0 && outer * inner > 0)
            throw ctx.error("cannot take the index of an extreme over an empty axis " + std::to_string(axis)
                + " of input " + shapeToString(x.shape()));
        Tensor& y = ctx.allocateOutput(0, DataType::Int64, outShape);
        dispatch<NumericTypes>(x.dtype(), ctx.node(), [&]<class T>() { run<T>(x, y, outer, len, inner); });
    }

private:
    template <class T> void run(const Tensor& x, Tensor& y, int64_t outer, int64_t len, int64_t inner) const
    {
        using C = std::conditional_t<std::is_integral_v<T>, T, MathType<T>>;
        const T* in = x.data<T>().data();
        int64_t* out = y.data<int64_t>().data();
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
                const T* p = in + o * len * inner + i;
                C best = static_cast<C>(p[0]);
                int64_t bestIndex = 0;
                for (int64_t j = 1; j < len; ++j) {
                    const C v = static_cast<C>(p[j * inner]);
                    if constexpr (!std::is_integral_v<C>) {
                        if (std::isnan(best))
                            break;
                        if (std::isnan(v)) {
                            bestIndex = j;
                            break;
                        }
                    }
                    const bool better = m_isMax ? v > best : v < best;
                    if (better || (m_selectLast && v == best)) {
                        best = v;
                        bestIndex = j;
                    }
                }
                out[o * inner + i] = bestIndex;
            }
    }

    bool m_isMax;
    int64_t m_axis = 0;
    bool m_keepDims = true;
    bool m_selectLast = false;
};

KernelFactory argFactory(bool isMax)
{
    return
        [isMax](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<ArgMinMax>(init, isMax); };
}

} // namespace

void registerArgMinMax(KernelRegistry& r)
{
    r.add("", "ArgMax", 1, 13, argFactory(true));
    r.add("", "ArgMin", 1, 13, argFactory(false));
}

} // namespace onnxscope
