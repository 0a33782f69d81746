// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// Tile, every version, every element type. Opset 1 takes `tiles` (a count) and `axis` (which axis) as scalar
/// inputs; opset 6+ take `repeats`, one non-negative count per axis. The output size is checked before anything is
/// allocated. Tiling is a strided copy over the shape [r0, d0, r1, d1, ...] with zero strides on the repeats.
class Tile final : public Kernel {
public:
    explicit Tile(const KernelInit& init)
        : m_legacy(init.opset() < 6)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const int64_t rank = data.rank();
        std::vector<int64_t> repeats;
        if (m_legacy) {
            repeats.assign(static_cast<size_t>(rank), 1);
            const int64_t tiles = intScalarInput(ctx, 1, "input 'tiles'");
            const int64_t axis = intScalarInput(ctx, 2, "input 'axis'");
            if (axis < -rank || axis >= rank)
                throw ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
            repeats[static_cast<size_t>(axis < 0 ? axis + rank : axis)] = tiles;
        } else {
            repeats = intListInput(ctx, 1, "input 'repeats'");
        }
        if (static_cast<int64_t>(repeats.size()) != rank)
            throw ctx.error("'repeats' has " + std::to_string(repeats.size()) + " values but the input "
                + data.typeString() + " has rank " + std::to_string(rank));
        Shape outShape(static_cast<size_t>(rank)), view;
        std::vector<int64_t> viewStrides;
        const auto strides = stridesOf(data.shape());
        for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
            if (repeats[d] < 0)
                throw ctx.error("'repeats' has a negative value " + std::to_string(repeats[d]));
            try {
                outShape[d] = checkedMul(data.dim(static_cast<int64_t>(d)), repeats[d], "tiled dimension");
            } catch (const Error& e) {
                throw ctx.error(std::string(e.what()) + " (input " + data.typeString() + ", repeats "
                    + shapeToString(repeats) + ")");
            }
            view.push_back(repeats[d]);
            view.push_back(data.dim(static_cast<int64_t>(d)));
            viewStrides.push_back(0);
            viewStrides.push_back(strides[d]);
        }
        Tensor& out = ctx.allocateOutput(0, data.dtype(), outShape);
        if (out.size() == 0)
            return;
        byElementSize(
            data.dtype(), [&]<class W>() { stridedCopy(words<W>(data), mutableWords<W>(out), view, viewStrides, 0); });
    }

private:
    bool m_legacy;
};

} // namespace

void registerTile(KernelRegistry& r)
{
    r.add("", "Tile", 1, 13, makeFactory<Tile>());
}

} // namespace onnxscope
