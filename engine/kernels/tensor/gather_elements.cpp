// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// GatherElements, opsets 11 and 13, every element type, int32/int64 indices: out[i][j][k] = data[index][j][k] for
/// axis 0 (and so on), where index = indices[i][j][k], negative counting from the end. indices has the data's rank
/// and, off the axis, dimensions no larger than the data's. An out-of-range index is an error naming it.
class GatherElements final : public Kernel {
public:
    explicit GatherElements(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", 0))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const Tensor& indicesTensor = ctx.input(1);
        const int64_t rank = data.rank();
        if (rank == 0)
            throw ctx.error("input 'data' must have rank 1 or more, got a scalar");
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
        const std::vector<int64_t> indices = toInt64s(ctx, indicesTensor, "input 'indices'");
        const Shape& shape = indicesTensor.shape();
        Tensor& out = ctx.allocateOutput(0, data.dtype(), shape);
        if (out.size() == 0)
            return;
        const auto strides = stridesOf(data.shape());
        const int64_t dim = data.dim(axis);
        byElementSize(data.dtype(), [&]<class W>() {
            const W* in = words<W>(data);
            W* o = mutableWords<W>(out);
            std::vector<int64_t> index(static_cast<size_t>(rank), 0);
            int64_t base = 0; // offset of index with the axis coordinate left out
            for (int64_t i = 0; i < out.size(); ++i) {
                const int64_t at = checkIndex(ctx, indices[static_cast<size_t>(i)], dim, "index");
                o[i] = in[base + at * strides[static_cast<size_t>(axis)]];
                for (size_t d = static_cast<size_t>(rank); d-- > 0;) {
                    const int64_t step = static_cast<int64_t>(d) == axis ? 0 : strides[d];
                    base += step;
                    if (++index[d] < shape[d])
                        break;
                    base -= step * shape[d];
                    index[d] = 0;
                }
            }
        });
    }

private:
    int64_t m_axis;
};

} // namespace

void registerGatherElements(KernelRegistry& r)
{
    r.add("", "GatherElements", 11, 13, makeFactory<GatherElements>());
}

} // namespace onnxscope
