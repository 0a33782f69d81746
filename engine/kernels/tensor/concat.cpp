// SPDX-License-Identifier: MIT
#include "engine/kernels/common/element_copy.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <limits>

namespace onnxscope {

namespace {

/// Concat 1 (`axis` optional, default 1), 4, 11, 13 (`axis` required; negative from 11). Inputs have one element
/// type and equal dimensions except along `axis`; inputs with 0 elements along it are allowed. Any element type.
class Concat final : public Kernel {
public:
    explicit Concat(const KernelInit& init)
    {
        if (init.opset() < 4)
            m_axis = init.attributes().getInt("axis", 1);
        else if (!init.attributes().has("axis"))
            throw init.error("attribute 'axis' is required in opset " + std::to_string(init.opset()));
        else
            m_axis = init.attributes().requireInt("axis");
    }

    void compute(KernelContext& ctx) const override
    {
        if (ctx.inputCount() == 0)
            throw ctx.error("needs at least one input");
        std::vector<const Tensor*> inputs;
        for (size_t i = 0; i < ctx.inputCount(); ++i)
            inputs.push_back(&ctx.input(i));
        const Tensor& first = *inputs.front();
        const int64_t rank = first.rank();
        if (rank == 0)
            throw ctx.error("cannot concatenate scalars");
        if (m_axis < -rank || m_axis >= rank)
            throw ctx.error(
                "attribute 'axis' " + std::to_string(m_axis) + " is out of range for rank " + std::to_string(rank));
        const size_t axis = static_cast<size_t>(m_axis < 0 ? m_axis + rank : m_axis);
        Shape outShape = first.shape();
        outShape[axis] = 0;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const Tensor& t = *inputs[i];
            if (t.dtype() != first.dtype())
                throw ctx.error(
                    "input " + std::to_string(i) + " is " + t.typeString() + ", input 0 is " + first.typeString());
            bool same = t.rank() == rank;
            for (size_t d = 0; same && d < static_cast<size_t>(rank); ++d)
                same = d == axis || t.shape()[d] == first.shape()[d];
            if (!same)
                throw ctx.error("input " + std::to_string(i) + " " + shapeToString(t.shape())
                    + " does not match input 0 " + shapeToString(first.shape()) + " outside axis "
                    + std::to_string(axis));
            if (t.shape()[axis] > std::numeric_limits<int64_t>::max() - outShape[axis])
                throw ctx.error("the concatenated axis " + std::to_string(axis) + " overflows int64");
            outShape[axis] += t.shape()[axis];
        }
        Tensor& out = ctx.allocateOutputUninitialized(0, first.dtype(), outShape);
        if (out.size() == 0)
            return;
        int64_t outer = 1, inner = 1;
        for (size_t d = 0; d < outShape.size(); ++d)
            (d < axis ? outer : inner) *= d == axis ? 1 : outShape[d];
        dispatchByElementSize(first.dtype(), [&]<class W>() {
            W* o = mutableElementsOf<W>(out);
            const int64_t outRow = outShape[axis] * inner;
            int64_t column = 0;
            for (const Tensor* t : inputs) {
                const int64_t row = t->shape()[axis] * inner;
                const W* src = elementsOf<W>(*t);
                for (int64_t b = 0; b < outer && row > 0; ++b)
                    std::copy(src + b * row, src + (b + 1) * row, o + b * outRow + column);
                column += row;
            }
        });
    }

private:
    int64_t m_axis = 1;
};

} // namespace

void registerConcat(KernelRegistry& r)
{
    r.add("", "Concat", 1, 13, makeFactory<Concat>());
}

} // namespace onnxscope
