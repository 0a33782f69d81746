// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// Expand, opsets 8 and 13, every element type: broadcasts the input against `shape` (numpy rules in both
/// directions, so a 1 in `shape` keeps the input's dimension). The output size is checked before allocation.
class Expand final : public Kernel {
public:
    explicit Expand(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const std::vector<int64_t> shape = intListInput(ctx, 1, "input 'shape'");
        for (int64_t d : shape)
            if (d < 0)
                throw ctx.error("input 'shape' " + shapeToString(shape) + " has a negative dimension");
        Shape outShape;
        try {
            outShape = broadcastShapes(data.shape(), shape);
        } catch (const Error& e) {
            throw ctx.error(
                std::string("cannot expand ") + data.typeString() + " to " + shapeToString(shape) + ": " + e.what());
        }
        Tensor& out = ctx.allocateOutput(0, data.dtype(), outShape);
        if (out.size() == 0)
            return;
        const size_t rank = outShape.size(), offset = rank - data.shape().size();
        const auto own = stridesOf(data.shape());
        std::vector<int64_t> strides(rank, 0);
        for (size_t d = 0; d < data.shape().size(); ++d)
            strides[offset + d] = data.shape()[d] == 1 ? 0 : own[d];
        byElementSize(
            data.dtype(), [&]<class W>() { stridedCopy(words<W>(data), mutableWords<W>(out), outShape, strides, 0); });
    }
};

} // namespace

void registerExpand(KernelRegistry& r)
{
    r.add("", "Expand", 8, 13, makeFactory<Expand>());
}

} // namespace onnxscope
