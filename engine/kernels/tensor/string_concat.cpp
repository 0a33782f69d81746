// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// StringConcat 20: Z = X + Y for string tensors, element-wise with numpy broadcasting (bytes appended as they are,
/// so UTF-8 stays UTF-8).
class StringConcat final : public Kernel {
public:
    explicit StringConcat(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& y = ctx.input(1);
        if (x.dtype() != DataType::String || y.dtype() != DataType::String)
            throw ctx.error("inputs must be string tensors, got " + x.typeString() + " and " + y.typeString());
        Tensor& out = ctx.allocateOutput(0, DataType::String, broadcastShapesOf(ctx, x.shape(), y.shape()));
        broadcastBinary<std::string, std::string, std::string>(
            x, y, out, [](const std::string& a, const std::string& b) { return a + b; });
    }
};

} // namespace

void registerStringConcat(KernelRegistry& r)
{
    r.add("", "StringConcat", 20, 20, makeFactory<StringConcat>());
}

} // namespace onnxscope
