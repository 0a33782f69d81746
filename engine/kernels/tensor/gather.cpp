// SPDX-License-Identifier: MIT
#include "engine/kernels/common/element_copy.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>

namespace onnxscope {

namespace {

/// Gather 1, 11, 13: out[i..., j..., k...] = data[i..., indices[j...], k...] along `axis` (default 0; negative
/// from 11). Indices are int32 or int64; negative ones count from the end (as in 11+, also accepted in opset 1).
/// An index out of [-s, s) is an error naming its position and value. Any element type.
class Gather final : public Kernel {
public:
    explicit Gather(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", 0))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const Tensor& indices = ctx.input(1);
        if (data.rank() == 0)
            throw ctx.error("data must have rank 1 or more, got a scalar");
        if (m_axis < -data.rank() || m_axis >= data.rank())
            throw ctx.error("attribute 'axis' " + std::to_string(m_axis) + " is out of range for data "
                + shapeToString(data.shape()));
        const size_t axis = static_cast<size_t>(m_axis < 0 ? m_axis + data.rank() : m_axis);
        const int64_t axisDim = data.shape()[axis];

        std::vector<int64_t> idx(static_cast<size_t>(indices.size()));
        if (indices.dtype() == DataType::Int64)
            std::copy(indices.data<int64_t>().begin(), indices.data<int64_t>().end(), idx.begin());
        else if (indices.dtype() == DataType::Int32)
            std::copy(indices.data<int32_t>().begin(), indices.data<int32_t>().end(), idx.begin());
        else
            throw ctx.error("indices must be int32 or int64, got " + indices.typeString());
        for (size_t i = 0; i < idx.size(); ++i) {
            const int64_t v = idx[i];
            if (v < -axisDim || v >= axisDim)
                throw ctx.error("index " + std::to_string(v) + " at position " + std::to_string(i) + " of indices "
                    + shapeToString(indices.shape()) + " is out of range for axis " + std::to_string(axis) + " of size "
                    + std::to_string(axisDim));
            idx[i] = v < 0 ? v + axisDim : v;
        }

        Shape outShape(data.shape().begin(), data.shape().begin() + static_cast<std::ptrdiff_t>(axis));
        outShape.insert(outShape.end(), indices.shape().begin(), indices.shape().end());
        outShape.insert(
            outShape.end(), data.shape().begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.shape().end());
        Tensor& out = ctx.allocateOutput(0, data.dtype(), outShape);
        if (out.size() == 0)
            return;
        int64_t outer = 1, inner = 1;
        for (size_t d = 0; d < axis; ++d)
            outer *= data.shape()[d];
        for (size_t d = axis + 1; d < data.shape().size(); ++d)
            inner *= data.shape()[d];
        dispatchByElementSize(data.dtype(), [&]<class W>() {
            const W* src = elementsOf<W>(data);
            W* o = mutableElementsOf<W>(out);
            for (int64_t b = 0; b < outer; ++b)
                for (int64_t k : idx) {
                    const W* from = src + (b * axisDim + k) * inner;
                    o = std::copy(from, from + inner, o);
                }
        });
    }

private:
    int64_t m_axis;
};

} // namespace

void registerGather(KernelRegistry& r)
{
    r.add("", "Gather", 1, 13, makeFactory<Gather>());
}

} // namespace onnxscope
