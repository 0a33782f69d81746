// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// Trilu, opset 14, every element type: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two
/// dimensions and zeroes the rest (empty strings for strings). `k` is an optional int64 scalar input.
class Trilu final : public Kernel {
public:
    explicit Trilu(const KernelInit& init)
        : m_upper(init.attributes().getInt("upper", 1) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        if (data.rank() < 2)
            throw ctx.error("input must have rank 2 or more, got " + data.typeString());
        const int64_t k = ctx.hasInput(1) ? intScalarInput(ctx, 1, "input 'k'") : 0;
        Tensor& out = ctx.allocateOutput(0, data.dtype(), data.shape());
        if (out.size() == 0)
            return;
        const int64_t rows = data.dim(data.rank() - 2), cols = data.dim(data.rank() - 1);
        const int64_t matrices = data.size() / (rows * cols);
        byElementSize(data.dtype(), [&]<class W>() {
            const W* in = words<W>(data);
            W* o = mutableWords<W>(out);
            for (int64_t m = 0; m < matrices; ++m)
                for (int64_t i = 0; i < rows; ++i)
                    for (int64_t j = 0; j < cols; ++j) {
                        const int64_t at = (m * rows + i) * cols + j;
                        const bool keep = m_upper ? j - i >= k : j - i <= k;
                        o[at] = keep ? in[at] : W {};
                    }
        });
    }

private:
    bool m_upper;
};

} // namespace

void registerTrilu(KernelRegistry& r)
{
    r.add("", "Trilu", 14, 14, makeFactory<Trilu>());
}

} // namespace onnxscope
