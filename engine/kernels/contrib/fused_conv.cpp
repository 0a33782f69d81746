// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/contrib/fused_activation.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/conv.h"

#include <vector>

namespace onnxscope {

namespace {

/// FusedConv (com.microsoft 1), as onnxruntime's graph optimizer writes it for Conv followed by an activation (and at
/// times an Add): Y = act(Conv(X, W, B) + Z). Conv's attributes and meaning (any rank, group, strides, dilations, pads
/// or auto_pad), our Conv kernel doing the convolution; the optional input Z must have Y's shape. `activation` is one
/// of Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid with `activation_params` as onnxruntime's CPU kernel takes
/// them. float, double, float16 (the schema's types; onnxruntime's CPU kernel takes float only).
class FusedConv final : public Kernel {
public:
    explicit FusedConv(const KernelInit& init)
        : m_activation(contrib::FusedActivation::fromConvAttributes(init))
        , m_conv(makeFoldedConv(init, {}))
    {
        if (auto s = m_activation.simdParams(); s && m_activation.kind != contrib::FusedActivation::Kind::None)
            m_folded = makeFoldedConv(init, ConvFolding { std::nullopt, std::nullopt, *s });
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (!ctx.hasInput(3) && (m_activation.kind == contrib::FusedActivation::Kind::None))
            return m_conv->compute(ctx);
        if (!ctx.hasInput(3) && m_folded && x.dtype() == DataType::Float)
            return m_folded->compute(ctx);
        const std::vector<Value> inputs { ctx.inputValue(0), ctx.inputValue(1), ctx.inputValue(2) };
        std::vector<Value> outputs(1);
        KernelContext inner(ctx.node(), std::span<const Value>(inputs), std::span<Value>(outputs), ctx.threadPool());
        m_conv->compute(inner);
        Tensor& y = const_cast<Tensor&>(outputs[0].tensor());
        if (ctx.hasInput(3)) {
            const Tensor& z = ctx.input(3);
            if (z.dtype() != y.dtype() || z.shape() != y.shape())
                throw ctx.error(
                    "input Z (" + z.typeString() + ") must have the output's type and shape " + y.typeString());
            dispatch<FloatTypes>(y.dtype(), ctx.node(), [&]<class T>() {
                auto out = y.data<T>();
                auto add = z.data<T>();
                for (size_t i = 0; i < out.size(); ++i)
                    out[i] = static_cast<T>(out[i] + add[i]);
            });
        }
        m_activation.apply(ctx, y);
        ctx.setOutput(0, std::move(outputs[0]));
    }

private:
    contrib::FusedActivation m_activation;
    std::unique_ptr<Kernel> m_conv; // without the activation
    std::unique_ptr<Kernel> m_folded; // with it, for float without Z
};

} // namespace

void registerFusedConv(KernelRegistry& r)
{
    r.add("com.microsoft", "FusedConv", 1, KernelRegistry::kLatest, makeFactory<FusedConv>());
}

} // namespace onnxscope
