// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

#include <algorithm>
#include <cmath>

namespace onnxscope {

namespace {

using namespace indexing;

/// x < y with NaN above every number and equal to itself, as numpy sorts.
template <class T> bool numpyLess(T x, T y)
{
    if constexpr (std::is_integral_v<T>) {
        return x < y;
    } else {
        const double a = static_cast<double>(x), b = static_cast<double>(y);
        if (std::isnan(a))
            return false;
        return std::isnan(b) || a < b;
    }
}

/// TopK, every version, all numeric types: the k largest (or, from opset 11, smallest) elements along `axis` and
/// their int64 indices. Opset 1 reads k from the attribute, opset 10+ from a 1-element int64 input. Equal values keep
/// the lower index first; NaN counts as larger than any number. Results are always sorted (also for sorted=0,
/// where any order is allowed).
class TopK final : public Kernel {
public:
    explicit TopK(const KernelInit& init)
        : m_opset(init.opset())
    {
        const auto& a = init.attributes();
        m_axis = a.getInt("axis", -1);
        if (m_opset < 10) {
            m_k = a.requireInt("k");
            if (m_k < 0)
                throw a.error("k", "must not be negative, got " + std::to_string(m_k));
        }
        if (m_opset >= 11)
            m_largest = a.getInt("largest", 1) != 0;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        int64_t axis;
        try {
            axis = normalizeAxis(m_axis, data.rank());
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        if (data.rank() == 0)
            throw ctx.error("input must have rank 1 or more, got a scalar");
        const int64_t k = m_opset < 10 ? m_k : intScalarInput(ctx, 1, "input 'K'");
        const int64_t n = data.dim(axis);
        if (k < 0 || k > n)
            throw ctx.error("k = " + std::to_string(k) + " is out of range for axis " + std::to_string(axis) + " of "
                + data.typeString());
        Shape outShape = data.shape();
        outShape[static_cast<size_t>(axis)] = k;
        Tensor& values = ctx.allocateOutput(0, data.dtype(), outShape);
        Tensor& indices = ctx.allocateOutput(1, DataType::Int64, outShape);
        if (values.size() == 0)
            return;
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < axis; ++d)
            outer *= data.dim(d);
        for (int64_t d = axis + 1; d < data.rank(); ++d)
            inner *= data.dim(d);
        dispatch<NumericTypes>(data.dtype(), ctx.node(), [&]<class T>() {
            auto in = data.data<T>();
            auto ov = values.data<T>();
            auto oi = indices.data<int64_t>();
            std::vector<int64_t> order(static_cast<size_t>(n));
            for (int64_t b = 0; b < outer; ++b)
                for (int64_t j = 0; j < inner; ++j) {
                    const int64_t base = b * n * inner + j;
                    auto at = [&](int64_t i) { return in[static_cast<size_t>(base + i * inner)]; };
                    for (int64_t i = 0; i < n; ++i)
                        order[static_cast<size_t>(i)] = i;
                    auto before = [&](int64_t x, int64_t y) {
                        const T vx = at(x), vy = at(y);
                        if (m_largest ? numpyLess(vy, vx) : numpyLess(vx, vy))
                            return true;
                        if (m_largest ? numpyLess(vx, vy) : numpyLess(vy, vx))
                            return false;
                        return x < y;
                    };
                    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
                    for (int64_t i = 0; i < k; ++i) {
                        const size_t o = static_cast<size_t>(b * k * inner + i * inner + j);
                        ov[o] = at(order[static_cast<size_t>(i)]);
                        oi[o] = order[static_cast<size_t>(i)];
                    }
                }
        });
    }

private:
    int64_t m_opset;
    int64_t m_axis = -1;
    int64_t m_k = 0;
    bool m_largest = true;
};

} // namespace

void registerTopK(KernelRegistry& r)
{
    r.add("", "TopK", 1, 24, makeFactory<TopK>());
}

} // namespace onnxscope
