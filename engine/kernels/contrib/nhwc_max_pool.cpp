// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/inner_kernel.h"
#include "engine/kernels/kernel_registry.h"

#include <cstring>
#include <vector>

namespace onnxscope {

namespace {

/// Moves the channel axis of a [N, ..., C] (toChannelsFirst) or [N, C, ...] tensor of 1-byte elements to the other end.
Tensor moveChannels(const Tensor& x, bool toChannelsFirst)
{
    const int64_t n = x.dim(0);
    const int64_t c = toChannelsFirst ? x.dim(x.rank() - 1) : x.dim(1);
    const int64_t spatial = c == 0 || n == 0 ? 0 : x.size() / (n * c);
    Shape shape { n };
    if (toChannelsFirst) {
        shape.push_back(c);
        shape.insert(shape.end(), x.shape().begin() + 1, x.shape().end() - 1);
    } else {
        shape.insert(shape.end(), x.shape().begin() + 2, x.shape().end());
        shape.push_back(c);
    }
    Tensor out = Tensor::uninitialized(x.dtype(), shape);
    const auto* src = static_cast<const uint8_t*>(x.raw());
    auto* dst = static_cast<uint8_t*>(out.mutableRaw());
    for (int64_t i = 0; i < n; ++i)
        for (int64_t s = 0; s < spatial; ++s)
            for (int64_t ch = 0; ch < c; ++ch) {
                const int64_t last = (i * spatial + s) * c + ch, first = (i * c + ch) * spatial + s;
                if (toChannelsFirst)
                    dst[first] = src[last];
                else
                    dst[last] = src[first];
            }
    return out;
}

/// NhwcMaxPool (com.microsoft 1): MaxPool over the spatial axes of X [N, D1, ..., Dn, C] (channels last), int8 or
/// uint8, as onnxruntime's quantization tools write it. MaxPool's attributes (auto_pad, kernel_shape required,
/// dilations, strides, pads, ceil_mode); our MaxPool-22 kernel computes it on the channels-first layout.
class NhwcMaxPool final : public Kernel {
public:
    explicit NhwcMaxPool(const KernelInit& init)
        : m_pool(init, "MaxPool", 22)
    {
        if (!init.attributes().has("kernel_shape"))
            throw init.attributes().error("kernel_shape", "is required");
        if (init.node.outputs.size() > 1)
            throw init.error("has " + std::to_string(init.node.outputs.size()) + " outputs; NhwcMaxPool has one");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::Int8 && x.dtype() != DataType::UInt8)
            throw ctx.error("X must be int8 or uint8, got " + x.typeString());
        if (x.rank() < 3)
            throw ctx.error("X " + shapeToString(x.shape()) + " must have at least 3 dimensions [N, ..., C]");
        std::vector<Value> out = m_pool.run(ctx, { Value(moveChannels(x, true)) });
        ctx.setOutput(0, Value(moveChannels(out[0].tensor(), false)));
    }

private:
    contrib::InnerKernel m_pool;
};

} // namespace

void registerNhwcMaxPool(KernelRegistry& r)
{
    r.add("com.microsoft", "NhwcMaxPool", 1, KernelRegistry::kLatest, makeFactory<NhwcMaxPool>());
}

} // namespace onnxscope
