// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <limits>
#include <vector>

namespace onnxscope {

namespace {

/// The rows a Softmax-like op works on: opsets 1 and 11 coerce the input to 2-D at `axis` ([d0*..*d(axis-1),
/// d(axis)*..*d(n-1)], axis in [-r, r]); opset 13 works along the single axis `axis` (in [-r, r-1]).
struct AxisRows {
    int64_t outer = 1, len = 1, inner = 1;

    AxisRows(const KernelContext& ctx, const Shape& shape, int64_t axis, bool perAxis)
    {
        const auto rank = static_cast<int64_t>(shape.size());
        if (rank == 0)
            throw ctx.error("input must have rank 1 or more, got a scalar");
        if (axis < -rank || axis > (perAxis ? rank - 1 : rank))
            throw ctx.error(
                "attribute 'axis' " + std::to_string(axis) + " is out of range for input " + shapeToString(shape));
        if (axis < 0)
            axis += rank;
        for (int64_t d = 0; d < rank; ++d) {
            const int64_t n = shape[static_cast<size_t>(d)];
            if (d < axis)
                outer *= n;
            else if (d == axis || !perAxis)
                len *= n;
            else
                inner *= n;
        }
    }
};

/// LogSoftmax 1, 11, 13: x - max - log(sum(exp(x - max))) over the rows of AxisRows (axis default 1 before 13,
/// -1 from 13). Hardmax 1, 11, 13: 1 at the first maximum of each row, 0 elsewhere (a NaN row gives 1 at its first
/// NaN). float, double, float16, bfloat16; half types are computed in float.
class AxisOp final : public Kernel {
public:
    AxisOp(const KernelInit& init, bool hardmax)
        : m_hardmax(hardmax)
        , m_perAxis(init.opset() >= 13)
    {
        m_axis = init.attributes().getInt("axis", m_perAxis ? -1 : 1);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const AxisRows rows(ctx, x.shape(), m_axis, m_perAxis);
        Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() { run<T>(x, y, rows); });
    }

private:
    template <class T> void run(const Tensor& x, Tensor& y, const AxisRows& r) const
    {
        using F = MathType<T>;
        if (x.size() == 0)
            return;
        const T* in = x.data<T>().data();
        T* out = y.data<T>().data();
        const int64_t len = r.len, inner = r.inner;
        for (int64_t o = 0; o < r.outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
                const int64_t base = o * len * inner + i;
                F mx = -std::numeric_limits<F>::infinity();
                int64_t arg = 0;
                for (int64_t j = 0; j < len; ++j) {
                    const F v = static_cast<F>(in[base + j * inner]);
                    if (std::isnan(v)) {
                        mx = v;
                        arg = j;
                        break;
                    }
                    if (v > mx) {
                        mx = v;
                        arg = j;
                    }
                }
                if (m_hardmax) {
                    for (int64_t j = 0; j < len; ++j)
                        out[base + j * inner] = static_cast<T>(j == arg ? 1.0f : 0.0f);
                    continue;
                }
                const F shift = std::isinf(mx) ? F(0) : mx; // an all -inf row (or an +inf) must not give inf - inf
                F sum = 0;
                for (int64_t j = 0; j < len; ++j)
                    sum += std::exp(static_cast<F>(in[base + j * inner]) - shift);
                const F logSum = std::log(sum) + shift;
                for (int64_t j = 0; j < len; ++j)
                    out[base + j * inner] = static_cast<T>(static_cast<F>(in[base + j * inner]) - logSum);
            }
    }

    bool m_hardmax;
    bool m_perAxis;
    int64_t m_axis;
};

KernelFactory axisOpFactory(bool hardmax)
{
    return [hardmax](
               const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<AxisOp>(init, hardmax); };
}

} // namespace

void registerLogSoftmax(KernelRegistry& r)
{
    r.add("", "LogSoftmax", 1, 13, axisOpFactory(false));
    r.add("", "Hardmax", 1, 13, axisOpFactory(true));
}

} // namespace onnxscope
