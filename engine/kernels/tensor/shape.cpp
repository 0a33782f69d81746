// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <optional>

namespace onnxscope {

namespace {

/// Shape 1, 13, 15: the input's dimensions as a 1-D int64 tensor. Opset 15 adds `start`/`end` (negative counts from
/// the back; both are clamped to [0, rank], an empty range gives an empty tensor). Any element type.
class ShapeOp final : public Kernel {
public:
    explicit ShapeOp(const KernelInit& init)
    {
        if (init.opset() >= 15) {
            m_start = init.attributes().getInt("start", 0);
            if (init.attributes().has("end"))
                m_end = init.attributes().getInt("end", 0);
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const int64_t rank = x.rank();
        auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t(0), rank); };
        const int64_t start = clamp(m_start);
        const int64_t end = m_end ? clamp(*m_end) : rank;
        const int64_t count = std::max<int64_t>(end - start, 0);
        Tensor& out = ctx.allocateOutput(0, DataType::Int64, { count });
        auto o = out.data<int64_t>();
        for (int64_t i = 0; i < count; ++i)
            o[static_cast<size_t>(i)] = x.dim(start + i);
    }

private:
    int64_t m_start = 0;
    std::optional<int64_t> m_end;
};

} // namespace

void registerShape(KernelRegistry& r)
{
    r.add("", "Shape", 1, 25, makeFactory<ShapeOp>());
}

} // namespace onnxscope
