// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

#include <optional>

namespace onnxscope {

namespace {

using namespace indexing;

/// Compress, opsets 9 and 11 (negative axis), every element type: keeps the slices along `axis` (or the elements of
/// the flattened input when there is no axis) whose 1-D bool `condition` entry is true. As in numpy, a condition
/// shorter than the axis selects nothing beyond its end, and a longer one may only be false there.
class Compress final : public Kernel {
public:
    explicit Compress(const KernelInit& init)
    {
        if (init.attributes().has("axis"))
            m_axis = init.attributes().getInt("axis", 0);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const Tensor& condition = ctx.input(1);
        if (condition.dtype() != DataType::Bool || condition.rank() != 1)
            throw ctx.error("input 'condition' must be a 1-D bool tensor, got " + condition.typeString());
        Tensor view = data;
        int64_t axis = 0;
        if (m_axis) {
            try {
                axis = normalizeAxis(*m_axis, data.rank());
            } catch (const Error& e) {
                throw ctx.error(e.what());
            }
            if (data.rank() == 0)
                throw ctx.error("cannot compress a scalar along an axis");
        } else {
            view = data.reshaped({ data.size() });
        }
        const int64_t dim = view.dim(axis);
        auto cond = condition.data<bool>();
        std::vector<int64_t> kept;
        for (int64_t i = 0; i < condition.size(); ++i) {
            if (!cond[static_cast<size_t>(i)])
                continue;
            if (i >= dim)
                throw ctx.error("input 'condition' selects index " + std::to_string(i) + " but axis "
                    + std::to_string(axis) + " of " + view.typeString() + " has size " + std::to_string(dim));
            kept.push_back(i);
        }
        Shape outShape = view.shape();
        outShape[static_cast<size_t>(axis)] = static_cast<int64_t>(kept.size());
        Tensor& out = ctx.allocateOutput(0, data.dtype(), outShape);
        if (out.size() == 0)
            return;
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < axis; ++d)
            outer *= view.dim(d);
        for (int64_t d = axis + 1; d < view.rank(); ++d)
            inner *= view.dim(d);
        byElementSize(data.dtype(), [&]<class W>() {
            const W* in = words<W>(data);
            W* o = mutableWords<W>(out);
            for (int64_t b = 0; b < outer; ++b)
                for (int64_t k : kept) {
                    const W* src = in + (b * dim + k) * inner;
                    o = std::copy(src, src + inner, o);
                }
        });
    }

private:
    std::optional<int64_t> m_axis;
};

} // namespace

void registerCompress(KernelRegistry& r)
{
    r.add("", "Compress", 9, 28, makeFactory<Compress>());
}

} // namespace onnxscope
