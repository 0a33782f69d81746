// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

#include <limits>
#include <optional>

namespace onnxscope {

namespace {

using namespace indexing;

/// Slice, every version, every element type. Opsets 1-9 read `starts`, `ends` and `axes` from attributes (steps are
/// 1); opset 10+ read them (and `steps`) from int32/int64 inputs. Starts and ends are clamped as numpy does:
/// to [0, dim] for positive steps and [-1, dim - 1] for negative ones. A zero step or a repeated axis is an error.
class Slice final : public Kernel {
public:
    explicit Slice(const KernelInit& init)
    {
        if (init.opset() < 10) {
            const auto& a = init.attributes();
            m_starts = a.getInts("starts");
            m_ends = a.getInts("ends");
            if (!a.has("starts") || !a.has("ends"))
                throw init.error("attributes 'starts' and 'ends' are required");
            if (a.has("axes"))
                m_axes = a.getInts("axes");
        }
        m_attributeForm = init.opset() < 10;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        std::vector<int64_t> starts, ends, steps;
        std::optional<std::vector<int64_t>> axes;
        if (m_attributeForm) {
            starts = m_starts;
            ends = m_ends;
            axes = m_axes;
        } else {
            starts = intListInput(ctx, 1, "input 'starts'");
            ends = intListInput(ctx, 2, "input 'ends'");
            if (ctx.hasInput(3))
                axes = intListInput(ctx, 3, "input 'axes'");
            if (ctx.hasInput(4))
                steps = intListInput(ctx, 4, "input 'steps'");
        }
        const size_t count = starts.size();
        if (ends.size() != count || (axes && axes->size() != count) || (!steps.empty() && steps.size() != count))
            throw ctx.error("starts, ends, axes and steps must have the same length (got "
                + std::to_string(starts.size()) + ", " + std::to_string(ends.size()) + ", "
                + (axes ? std::to_string(axes->size()) : std::string("-")) + ", "
                + (steps.empty() ? std::string("-") : std::to_string(steps.size())) + ")");

        const int64_t rank = data.rank();
        Shape outShape = data.shape();
        std::vector<int64_t> begin(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1);
        std::vector<bool> seen(static_cast<size_t>(rank), false);
        for (size_t i = 0; i < count; ++i) {
            int64_t axis = axes ? (*axes)[i] : static_cast<int64_t>(i);
            if (axis < -rank || axis >= rank)
                throw ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
            if (axis < 0)
                axis += rank;
            const auto a = static_cast<size_t>(axis);
            if (seen[a])
                throw ctx.error("axis " + std::to_string(axis) + " is repeated");
            seen[a] = true;
            const int64_t s = steps.empty() ? 1 : steps[i];
            if (s == 0)
                throw ctx.error("step for axis " + std::to_string(axis) + " is 0");
            const int64_t dim = data.dim(axis);
            int64_t start = starts[i], end = ends[i];
            if (start < 0)
                start += dim;
            if (end < 0)
                end += dim;
            int64_t length = 0;
            if (s > 0) {
                start = std::clamp<int64_t>(start, 0, dim);
                end = std::clamp<int64_t>(end, 0, dim);
                length = end > start ? 1 + (end - start - 1) / s : 0;
            } else {
                start = std::clamp<int64_t>(start, -1, dim - 1);
                end = std::clamp<int64_t>(end, -1, dim - 1);
                const int64_t stride
                    = s == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -s;
                length = start > end ? 1 + (start - end - 1) / stride : 0;
            }
            outShape[a] = length;
            begin[a] = length > 0 ? start : 0;
            step[a] = length > 1 ? s : 1;
        }

        Tensor& out = ctx.allocateOutputUninitialized(0, data.dtype(), outShape); // every element is copied
        if (out.size() == 0)
            return;
        const auto strides = stridesOf(data.shape());
        std::vector<int64_t> inStrides(static_cast<size_t>(rank));
        int64_t offset = 0;
        for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
            offset += begin[d] * strides[d];
            inStrides[d] = step[d] * strides[d];
        }
        byElementSize(data.dtype(),
            [&]<class W>() { stridedCopy(words<W>(data), mutableWords<W>(out), outShape, inStrides, offset); });
    }

private:
    bool m_attributeForm = false;
    std::vector<int64_t> m_starts, m_ends;
    std::optional<std::vector<int64_t>> m_axes;
};

} // namespace

void registerSlice(KernelRegistry& r)
{
    r.add("", "Slice", 1, 13, makeFactory<Slice>());
}

} // namespace onnxscope
