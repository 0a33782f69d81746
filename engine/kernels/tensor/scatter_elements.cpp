// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// ScatterElements (opsets 11, 13, 16 with reduction none/add/mul, 18 with max/min) and the deprecated Scatter
/// (opsets 9 and 11, no reduction), every element type, int32/int64 indices: a copy of data where, for every
/// position p of indices, out[p with p[axis] replaced by indices[p]] is set to (or reduced with) updates[p].
/// Updates are applied in row-major order, so with duplicate indices and no reduction the last one wins.
/// Out-of-range indices are errors; reductions on strings, and max/min on complex numbers, are refused.
class ScatterElements final : public Kernel {
public:
    explicit ScatterElements(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", 0))
        , m_reduction(init.node.opType == "Scatter" ? Reduction::None : reductionAttribute(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const Tensor& indicesTensor = ctx.input(1);
        const Tensor& updates = ctx.input(2);
        const int64_t rank = data.rank();
        if (rank == 0)
            throw ctx.error("input 'data' must have rank 1 or more, got a scalar");
        if (updates.dtype() != data.dtype())
            throw ctx.error(
                "input 'updates' " + updates.typeString() + " must have the element type of data " + data.typeString());
        if (indicesTensor.shape() != updates.shape())
            throw ctx.error("inputs 'indices' " + indicesTensor.typeString() + " and 'updates' " + updates.typeString()
                + " must have the same shape");
        if (indicesTensor.rank() != rank)
            throw ctx.error(
                "input 'indices' " + indicesTensor.typeString() + " must have the rank of data " + data.typeString());
        int64_t axis;
        try {
            axis = normalizeAxis(m_axis, rank);
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        for (int64_t d = 0; d < rank; ++d)
            if (d != axis && indicesTensor.dim(d) > data.dim(d))
                throw ctx.error("input 'indices' " + indicesTensor.typeString() + " is larger than data "
                    + data.typeString() + " on axis " + std::to_string(d));
        if (m_reduction != Reduction::None && data.dtype() == DataType::String)
            throw ctx.error("reduction is not defined for string tensors");
        if ((m_reduction == Reduction::Max || m_reduction == Reduction::Min) && isComplex(data.dtype()))
            throw ctx.error("max and min reductions are not defined for complex tensors");
        const std::vector<int64_t> indices = toInt64s(ctx, indicesTensor, "input 'indices'");

        // Target offset of every update, checked before anything is written.
        const Shape& shape = indicesTensor.shape();
        const auto strides = stridesOf(data.shape());
        const int64_t dim = data.dim(axis);
        std::vector<int64_t> target(indices.size());
        std::vector<int64_t> index(static_cast<size_t>(rank), 0);
        int64_t base = 0;
        for (size_t i = 0; i < indices.size(); ++i) {
            target[i] = base + checkIndex(ctx, indices[i], dim, "index") * strides[static_cast<size_t>(axis)];
            for (size_t d = static_cast<size_t>(rank); d-- > 0;) {
                const int64_t step = static_cast<int64_t>(d) == axis ? 0 : strides[d];
                base += step;
                if (++index[d] < shape[d])
                    break;
                base -= step * shape[d];
                index[d] = 0;
            }
        }

        Tensor& out = ctx.allocateOutput(0, data.dtype(), data.shape());
        dispatch<AllTypes>(data.dtype(), ctx.node(), [&]<class T>() {
            auto in = data.data<T>();
            auto o = out.data<T>();
            auto u = updates.data<T>();
            std::copy(in.begin(), in.end(), o.begin());
            for (size_t i = 0; i < target.size(); ++i)
                reduceInto(o[static_cast<size_t>(target[i])], u[i], m_reduction);
        });
    }

private:
    int64_t m_axis;
    Reduction m_reduction;
};

} // namespace

void registerScatterElements(KernelRegistry& r)
{
    r.add("", "ScatterElements", 11, 18, makeFactory<ScatterElements>());
    r.add("", "Scatter", 9, 11, makeFactory<ScatterElements>());
}

} // namespace onnxscope
