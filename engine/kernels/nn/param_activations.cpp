// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>
#include <type_traits>

namespace onnxscope {

namespace {

enum class Act {
    Elu,
    Selu,
    Celu,
    LeakyRelu,
    ThresholdedRelu,
    HardSigmoid,
    HardSwish,
    Softplus,
    Softsign,
    Shrink,
    Mish
};

/// Element-wise activations with float attributes: Elu 1, 6 (alpha 1), Selu 1, 6 (alpha 1.6733, gamma 1.0507),
/// Celu 12 (alpha 1), LeakyRelu 1, 6, 16 (alpha 0.01), ThresholdedRelu 10 (alpha 1), HardSigmoid 1, 6 (alpha 0.2,
/// beta 0.5), HardSwish 14, Softplus 1, Softsign 1, Shrink 9 (lambd 0.5, bias 0) and Mish 18. float, double,
/// float16, bfloat16 (half types computed in float); Shrink also every integer type (computed in double, the
/// result saturated to the type). The opset-1 `consumed_inputs` hint is ignored.
class ParamActivation final : public Kernel {
public:
    ParamActivation(const KernelInit& init, Act kind)
        : m_kind(kind)
    {
        const NodeAttributes& attrs = init.attributes();
        switch (kind) {
        case Act::Elu:
        case Act::Celu:
        case Act::ThresholdedRelu:
            m_alpha = attrs.getFloat("alpha", 1.0f);
            break;
        case Act::Selu:
            m_alpha = attrs.getFloat("alpha", 1.67326319217681884765625f);
            m_beta = attrs.getFloat("gamma", 1.05070102214813232421875f);
            break;
        case Act::LeakyRelu:
            m_alpha = attrs.getFloat("alpha", 0.01f);
            break;
        case Act::HardSigmoid:
            m_alpha = attrs.getFloat("alpha", 0.2f);
            m_beta = attrs.getFloat("beta", 0.5f);
            break;
        case Act::Shrink:
            m_alpha = attrs.getFloat("lambd", 0.5f);
            m_beta = attrs.getFloat("bias", 0.0f);
            break;
        default:
            break;
        }
        if (kind == Act::Celu && m_alpha == 0.0f)
            throw attrs.error("alpha", "must not be 0");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const bool simdKind = m_kind == Act::LeakyRelu || m_kind == Act::HardSigmoid || m_kind == Act::HardSwish;
        Tensor& y = x.dtype() == DataType::Float && simdKind ? ctx.reuseInputOrAllocate(0, 0, x.dtype(), x.shape())
                                                             : ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        if (x.dtype() == DataType::Float && simdKind) {
            const simd::Activation kind = m_kind == Act::LeakyRelu ? simd::Activation::LeakyRelu
                : m_kind == Act::HardSigmoid                       ? simd::Activation::HardSigmoid
                                                                   : simd::Activation::HardSwish;
            simd::parallelActivation(
                ctx.threadPool(), x.data<float>().data(), y.data<float>().data(), x.size(), { kind, m_alpha, m_beta });
            return;
        }
        const auto run = [&]<class T>() { apply<T>(x.data<T>(), y.data<T>()); };
        if (m_kind == Act::Shrink)
            dispatch<NumericTypes>(x.dtype(), ctx.node(), run);
        else
            dispatch<FloatTypes>(x.dtype(), ctx.node(), run);
    }

private:
    template <class T> void apply(std::span<const T> in, std::span<T> out) const
    {
        using F = std::conditional_t<std::is_integral_v<T> || std::is_same_v<T, double>, double, float>;
        const F alpha = static_cast<F>(m_alpha), beta = static_cast<F>(m_beta);
        for (size_t i = 0; i < in.size(); ++i) {
            const F v = static_cast<F>(in[i]);
            F r = v;
            switch (m_kind) {
            case Act::Elu:
                r = v >= 0 ? v : alpha * std::expm1(v);
                break;
            case Act::Selu:
                r = v > 0 ? beta * v : beta * alpha * std::expm1(v);
                break;
            case Act::Celu:
                r = std::max(F(0), v) + std::min(F(0), alpha * std::expm1(v / alpha));
                break;
            case Act::LeakyRelu:
                r = v >= 0 ? v : alpha * v;
                break;
            case Act::ThresholdedRelu:
                r = v > alpha ? v : F(0);
                break;
            case Act::HardSigmoid:
                r = std::max(F(0), std::min(F(1), alpha * v + beta));
                break;
            case Act::HardSwish:
                r = v * std::max(F(0), std::min(F(1), v / F(6) + F(0.5)));
                break;
            case Act::Softplus:
                r = v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
                break;
            case Act::Softsign:
                r = v / (F(1) + std::abs(v));
                break;
            case Act::Shrink:
                r = v < -alpha ? v + beta : (v > alpha ? v - beta : F(0));
                break;
            case Act::Mish:
                r = v * std::tanh(v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)));
                break;
            }
            out[i] = convertFromFloat<T>(r);
        }
    }

    Act m_kind;
    float m_alpha = 0.0f;
    float m_beta = 0.0f;
};

template <Act A> KernelFactory actFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<ParamActivation>(init, A); };
}

} // namespace

void registerParamActivations(KernelRegistry& r)
{
    r.add("", "Elu", 1, 22, actFactory<Act::Elu>());
    r.add("", "Selu", 1, 22, actFactory<Act::Selu>());
    r.add("", "Celu", 12, 28, actFactory<Act::Celu>());
    r.add("", "LeakyRelu", 1, 16, actFactory<Act::LeakyRelu>());
    r.add("", "ThresholdedRelu", 10, 22, actFactory<Act::ThresholdedRelu>());
    r.add("", "HardSigmoid", 1, 22, actFactory<Act::HardSigmoid>());
    r.add("", "HardSwish", 14, 22, actFactory<Act::HardSwish>());
    r.add("", "Softplus", 1, 22, actFactory<Act::Softplus>());
    r.add("", "Softsign", 1, 22, actFactory<Act::Softsign>());
    r.add("", "Shrink", 9, 9, actFactory<Act::Shrink>());
    r.add("", "Mish", 18, 22, actFactory<Act::Mish>());
}

} // namespace onnxscope
