// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/fused_activation.h"
#include "engine/kernels/contrib/inner_kernel.h"
#include "engine/kernels/kernel_registry.h"

#include <vector>

namespace onnxscope {

namespace {

/// FusedGemm (com.microsoft 1), as onnxruntime's graph optimizer writes it for Gemm followed by an activation:
/// Y = act(alpha * A' * B' + beta * C), Gemm-13's attributes and meaning (our Gemm kernel computes it). `activation`
/// names the op (Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid, Elu, Celu, Selu, Softplus, Softsign, ThresholdedRelu,
/// ParametricSoftplus, ScaledTanh, the set onnxruntime's kernel takes) and `activation_alpha`, `activation_beta`,
/// `activation_gamma` its parameters. Gemm's types; an activation needs a floating-point one.
class FusedGemm final : public Kernel {
public:
    explicit FusedGemm(const KernelInit& init)
        : m_activation(contrib::FusedActivation::fromGemmAttributes(init))
        , m_gemm(init, "Gemm", 13)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        std::vector<Value> outputs = m_gemm.run(ctx, { ctx.inputValue(0), ctx.inputValue(1), ctx.inputValue(2) });
        Tensor& y = const_cast<Tensor&>(outputs[0].tensor());
        if (m_activation.kind != contrib::FusedActivation::Kind::None && !isFloatingPoint(y.dtype()))
            throw ctx.error("activation " + m_activation.name + " needs floating-point data, got " + y.typeString());
        m_activation.apply(ctx, y);
        ctx.setOutput(0, std::move(outputs[0]));
    }

private:
    contrib::FusedActivation m_activation;
    contrib::InnerKernel m_gemm;
};

} // namespace

void registerFusedGemm(KernelRegistry& r)
{
    r.add("com.microsoft", "FusedGemm", 1, KernelRegistry::kLatest, makeFactory<FusedGemm>());
}

} // namespace onnxscope
