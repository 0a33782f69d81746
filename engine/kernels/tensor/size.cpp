// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// Size, opsets 1 and 13, any element type: the input's element count as an int64 scalar.
class Size final : public Kernel {
public:
    explicit Size(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        ctx.allocateOutput(0, DataType::Int64, {}).data<int64_t>()[0] = x.size();
    }
};

} // namespace

void registerSize(KernelRegistry& r)
{
    r.add("", "Size", 1, 25, makeFactory<Size>());
}

} // namespace onnxscope
