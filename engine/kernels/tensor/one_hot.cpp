// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

#include <cmath>
#include <limits>

namespace onnxscope {

namespace {

using namespace indexing;

/// A numeric element as an integer index, truncated toward zero; nullopt when it has no int64 value (NaN, inf,
/// out of range).
template <class T> std::optional<int64_t> asIndex(T v)
{
    if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8)
            if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                return std::nullopt;
        return static_cast<int64_t>(v);
    } else {
        const double d = static_cast<double>(v);
        if (!(d > -9.2e18 && d < 9.2e18))
            return std::nullopt;
        return static_cast<int64_t>(d);
    }
}

/// OneHot, opsets 9 and 11: indices and depth of any numeric type, values [off, on] of any element type (the output
/// type). The new axis of size `depth` goes at `axis` (-1: last). Indices in [-depth, -1] count from the end (the
/// spec allows them from opset 11; onnxruntime accepts them in 9 too); other out-of-range indices give a row of
/// `off`. The output size is checked before allocation.
class OneHot final : public Kernel {
public:
    explicit OneHot(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", -1))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& indices = ctx.input(0);
        const Tensor& depthTensor = ctx.input(1);
        const Tensor& values = ctx.input(2);
        if (depthTensor.size() != 1)
            throw ctx.error("input 'depth' must hold one value, got " + depthTensor.typeString());
        if (values.size() != 2 || values.rank() > 1)
            throw ctx.error("input 'values' must be [off_value, on_value], got " + values.typeString());
        std::optional<int64_t> depth;
        dispatch<NumericTypes>(depthTensor.dtype(), ctx.node(), ": input 'depth'",
            [&]<class T>() { depth = asIndex(depthTensor.data<T>()[0]); });
        if (!depth || *depth < 0)
            throw ctx.error(
                "input 'depth' must be a non-negative integer, got " + std::to_string(depthTensor.toDouble(0)));
        const int64_t rank = indices.rank() + 1;
        if (m_axis < -rank || m_axis >= rank)
            throw ctx.error(
                "axis " + std::to_string(m_axis) + " is out of range for output rank " + std::to_string(rank));
        const int64_t axis = m_axis < 0 ? m_axis + rank : m_axis;
        Shape outShape = indices.shape();
        outShape.insert(outShape.begin() + axis, *depth);

        std::vector<int64_t> idx(static_cast<size_t>(indices.size()));
        dispatch<NumericTypes>(indices.dtype(), ctx.node(), ": input 'indices'", [&]<class T>() {
            auto in = indices.data<T>();
            for (size_t i = 0; i < idx.size(); ++i) {
                auto v = asIndex(in[i]);
                int64_t x = v ? *v : -1 - *depth; // out of range
                if (x < 0 && x >= -*depth)
                    x += *depth;
                idx[i] = x >= 0 && x < *depth ? x : -1;
            }
        });
        Tensor& out = ctx.allocateOutput(0, values.dtype(), outShape);
        if (out.size() == 0)
            return;
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < axis; ++d)
            outer *= indices.dim(d);
        for (int64_t d = axis; d < indices.rank(); ++d)
            inner *= indices.dim(d);
        byElementSize(values.dtype(), [&]<class W>() {
            const W off = words<W>(values)[0], on = words<W>(values)[1];
            W* o = mutableWords<W>(out);
            std::fill(o, o + out.size(), off);
            for (int64_t b = 0; b < outer; ++b)
                for (int64_t j = 0; j < inner; ++j) {
                    const int64_t x = idx[static_cast<size_t>(b * inner + j)];
                    if (x >= 0)
                        o[(b * *depth + x) * inner + j] = on;
                }
        });
    }

private:
    int64_t m_axis;
};

} // namespace

void registerOneHot(KernelRegistry& r)
{
    r.add("", "OneHot", 9, 28, makeFactory<OneHot>());
}

} // namespace onnxscope
