// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// ScatterND, opsets 11, 13, 16 (reduction none/add/mul) and 18 (max/min), every element type, int64 (or int32)
/// indices: a copy of data where each index tuple indices[..., :] (k values addressing the first k dimensions)
/// receives the slice updates[...] of shape data.shape[k:]. Updates are applied in order (the last duplicate wins
/// without reduction). Negative indices count from the end; out-of-range ones are errors.
class ScatterND final : public Kernel {
public:
    explicit ScatterND(const KernelInit& init)
        : m_reduction(reductionAttribute(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const Tensor& indicesTensor = ctx.input(1);
        const Tensor& updates = ctx.input(2);
        const int64_t r = data.rank(), q = indicesTensor.rank();
        if (updates.dtype() != data.dtype())
            throw ctx.error(
                "input 'updates' " + updates.typeString() + " must have the element type of data " + data.typeString());
        if (q < 1)
            throw ctx.error("input 'indices' must have rank 1 or more, got a scalar");
        const int64_t k = indicesTensor.dim(q - 1);
        if (k > r)
            throw ctx.error("indices " + indicesTensor.typeString() + " address " + std::to_string(k)
                + " dimensions but data " + data.typeString() + " has rank " + std::to_string(r));
        Shape expected(indicesTensor.shape().begin(), indicesTensor.shape().end() - 1);
        expected.insert(expected.end(), data.shape().begin() + k, data.shape().end());
        if (updates.shape() != expected)
            throw ctx.error("input 'updates' " + updates.typeString() + " must have shape " + shapeToString(expected)
                + " for data " + data.typeString() + " and indices " + indicesTensor.typeString());
        if (m_reduction != Reduction::None && data.dtype() == DataType::String)
            throw ctx.error("reduction is not defined for string tensors");
        if ((m_reduction == Reduction::Max || m_reduction == Reduction::Min) && isComplex(data.dtype()))
            throw ctx.error("max and min reductions are not defined for complex tensors");
        const std::vector<int64_t> indices = toInt64s(ctx, indicesTensor, "input 'indices'");
        const auto strides = stridesOf(data.shape());
        int64_t slice = 1;
        for (int64_t d = k; d < r; ++d)
            slice *= data.dim(d);
        int64_t tuples = 1;
        for (int64_t d = 0; d < q - 1; ++d)
            tuples *= indicesTensor.dim(d);
        std::vector<int64_t> target(static_cast<size_t>(tuples));
        for (int64_t t = 0; t < tuples; ++t) {
            int64_t offset = 0;
            for (int64_t j = 0; j < k; ++j)
                offset += checkIndex(ctx, indices[static_cast<size_t>(t * k + j)], data.dim(j), "index")
                    * strides[static_cast<size_t>(j)];
            target[static_cast<size_t>(t)] = offset;
        }
        Tensor& out = ctx.allocateOutput(0, data.dtype(), data.shape());
        dispatch<AllTypes>(data.dtype(), ctx.node(), [&]<class T>() {
            auto in = data.data<T>();
            auto o = out.data<T>();
            auto u = updates.data<T>();
            std::copy(in.begin(), in.end(), o.begin());
            for (int64_t t = 0; t < tuples; ++t)
                for (int64_t e = 0; e < slice; ++e)
                    reduceInto(o[static_cast<size_t>(target[static_cast<size_t>(t)] + e)],
                        u[static_cast<size_t>(t * slice + e)], m_reduction);
        });
    }

private:
    Reduction m_reduction;
};

} // namespace

void registerScatterND(KernelRegistry& r)
{
    r.add("", "ScatterND", 11, 18, makeFactory<ScatterND>());
}

} // namespace onnxscope
