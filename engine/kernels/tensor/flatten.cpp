// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// Flatten 1, 9, 11, 13: the input as a 2-D [d0*...*d(axis-1), d(axis)*...*d(n-1)] tensor. `axis` (default 1) is in
/// [0, rank], and from opset 11 also in [-rank, -1]. Any element type; the output shares the input's storage.
class Flatten final : public Kernel {
public:
    explicit Flatten(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", 1))
        , m_allowNegative(init.opset() >= 11)
    {
        if (m_axis < 0 && !m_allowNegative)
            throw init.error("attribute 'axis' must not be negative before opset 11, got " + std::to_string(m_axis));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        int64_t axis = m_axis;
        if (axis < -x.rank() || axis > x.rank())
            throw ctx.error("attribute 'axis' " + std::to_string(m_axis) + " is out of range for input "
                + shapeToString(x.shape()));
        if (axis < 0)
            axis += x.rank();
        int64_t outer = 1, inner = 1;
        try {
            for (int64_t d = 0; d < x.rank(); ++d)
                (d < axis ? outer : inner) = checkedMul(d < axis ? outer : inner, x.dim(d), "flattened dimension");
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        ctx.setOutput(0, Value(x.reshaped({ outer, inner })));
    }

private:
    int64_t m_axis;
    bool m_allowNegative;
};

} // namespace

void registerFlatten(KernelRegistry& r)
{
    r.add("", "Flatten", 1, 25, makeFactory<Flatten>());
}

} // namespace onnxscope
