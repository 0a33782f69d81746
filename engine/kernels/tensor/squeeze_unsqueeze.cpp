// SPDX-License-Identifier: MIT
#include "engine/kernels/common/int_input.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>

namespace onnxscope {

namespace {

/// Normalises `axes` against `rank`, refusing out-of-range and repeated axes. `what` names the op's axes for errors.
std::vector<int64_t> normalizeAxes(const KernelContext& ctx, std::vector<int64_t> axes, int64_t rank)
{
    for (int64_t& a : axes) {
        if (a < -rank || a >= rank)
            throw ctx.error("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
        if (a < 0)
            a += rank;
    }
    std::vector<int64_t> sorted = axes;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw ctx.error("axes " + shapeToString(axes) + " repeat an axis");
    return sorted;
}

/// Squeeze 1, 11 (`axes` attribute), 13 (`axes` as an optional int64 input). Without axes, every dimension of size 1
/// is removed; a listed axis whose dimension is not 1 is an error. Any element type; shares the input's storage.
class Squeeze final : public Kernel {
public:
    explicit Squeeze(const KernelInit& init)
        : m_axesFromInput(init.opset() >= 13)
    {
        if (!m_axesFromInput && init.attributes().has("axes")) {
            m_axes = init.attributes().getInts("axes");
            m_hasAxes = true;
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        std::vector<int64_t> axes = m_axes;
        bool hasAxes = m_hasAxes;
        if (m_axesFromInput && ctx.hasInput(1)) {
            axes = readIntList(ctx, 1, "axes");
            hasAxes = true;
        }
        Shape shape;
        if (!hasAxes) {
            for (int64_t d : x.shape())
                if (d != 1)
                    shape.push_back(d);
        } else {
            const std::vector<int64_t> sorted = normalizeAxes(ctx, axes, x.rank());
            for (int64_t d = 0; d < x.rank(); ++d) {
                if (!std::binary_search(sorted.begin(), sorted.end(), d)) {
                    shape.push_back(x.dim(d));
                } else if (x.dim(d) != 1) {
                    throw ctx.error("cannot squeeze axis " + std::to_string(d) + " of " + shapeToString(x.shape())
                        + ": its dimension is " + std::to_string(x.dim(d)) + ", not 1");
                }
            }
        }
        ctx.setOutput(0, Value(x.reshaped(shape)));
    }

private:
    bool m_axesFromInput;
    bool m_hasAxes = false;
    std::vector<int64_t> m_axes;
};

/// Unsqueeze 1, 11 (`axes` attribute, required), 13 (`axes` as a required int64 input): inserts dimensions of size
/// 1 at `axes`, which refer to the output's rank (negative from opset 11; accepted in opset 1 too). Any element
/// type; shares the input's storage.
class Unsqueeze final : public Kernel {
public:
    explicit Unsqueeze(const KernelInit& init)
        : m_axesFromInput(init.opset() >= 13)
    {
        if (!m_axesFromInput) {
            if (!init.attributes().has("axes"))
                throw init.error("attribute 'axes' is required in opset " + std::to_string(init.opset()));
            m_axes = init.attributes().getInts("axes");
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const std::vector<int64_t> axes = m_axesFromInput ? readIntList(ctx, 1, "axes") : m_axes;
        const int64_t outRank = x.rank() + static_cast<int64_t>(axes.size());
        const std::vector<int64_t> sorted = normalizeAxes(ctx, axes, outRank);
        Shape shape;
        size_t next = 0;
        for (int64_t d = 0; d < outRank; ++d)
            shape.push_back(std::binary_search(sorted.begin(), sorted.end(), d) ? 1 : x.shape()[next++]);
        ctx.setOutput(0, Value(x.reshaped(shape)));
    }

private:
    bool m_axesFromInput;
    std::vector<int64_t> m_axes;
};

} // namespace

void registerSqueezeUnsqueeze(KernelRegistry& r)
{
    r.add("", "Squeeze", 1, 25, makeFactory<Squeeze>());
    r.add("", "Unsqueeze", 1, 25, makeFactory<Unsqueeze>());
}

} // namespace onnxscope
