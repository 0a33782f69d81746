// SPDX-License-Identifier: MIT
#include "engine/kernels/nn/activations.h"

#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>
#include <type_traits>

namespace onnxscope {

namespace {

enum class Activation { Relu, Sigmoid, Tanh };

/// Relu (1, 6, 13, 14), Sigmoid (1, 6, 13), Tanh (1, 6, 13). float, double, float16, bfloat16; Relu 14 also
/// int8, int16, int32, int64. Half types are computed in float. The opset-1 `consumed_inputs` attribute is a legacy
/// optimisation hint and is ignored.
class ElementwiseActivation final : public Kernel {
public:
    ElementwiseActivation(const KernelInit&, Activation kind)
        : m_kind(kind)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Tensor& y = x.dtype() == DataType::Float ? ctx.reuseInputOrAllocate(0, 0, x.dtype(), x.shape())
                                                 : ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        if (x.dtype() == DataType::Float) {
            static constexpr simd::Activation kinds[]
                = { simd::Activation::Relu, simd::Activation::Sigmoid, simd::Activation::Tanh };
            simd::parallelActivation(ctx.threadPool(), x.data<float>().data(), y.data<float>().data(), x.size(),
                { kinds[static_cast<int>(m_kind)] });
            return;
        }
        if (m_kind == Activation::Relu)
            dispatch<TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t>>(
                x.dtype(), ctx.node(), [&]<class T>() { apply<T>(x, y); });
        else
            dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() { apply<T>(x, y); });
    }

private:
    template <class T> void apply(const Tensor& x, Tensor& y) const
    {
        using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
        auto in = x.data<T>();
        auto out = y.data<T>();
        const size_t n = in.size();
        switch (m_kind) {
        case Activation::Relu:
            for (size_t i = 0; i < n; ++i)
                out[i] = in[i] > T(0) ? in[i] : T(0);
            break;
        case Activation::Sigmoid:
            if constexpr (!std::is_integral_v<T>)
                for (size_t i = 0; i < n; ++i) {
                    const F v = static_cast<F>(in[i]);
                    // Split by sign so exp() never overflows.
                    const F s = v >= 0 ? F(1) / (F(1) + std::exp(-v)) : std::exp(v) / (F(1) + std::exp(v));
                    out[i] = static_cast<T>(s);
                }
            break;
        case Activation::Tanh:
            if constexpr (!std::is_integral_v<T>)
                for (size_t i = 0; i < n; ++i)
                    out[i] = static_cast<T>(std::tanh(static_cast<F>(in[i])));
            break;
        }
    }

    Activation m_kind;
};

template <Activation A> KernelFactory activationFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> {
        return std::make_unique<ElementwiseActivation>(init, A);
    };
}

/// makeSiluStep's kernel (activations.h).
class SiluStep final : public Kernel {
public:
    SiluStep(const Node& sigmoid, const Kernel& sigmoidKernel, const Node& mul, const Kernel& mulKernel)
        : m_sigmoid(sigmoid)
        , m_sigmoidKernel(sigmoidKernel)
        , m_mul(mul)
        , m_mulKernel(mulKernel)
        , m_xFirst(mul.inputs[0] == sigmoid.inputs[0])
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() == DataType::Float) {
            Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, x.shape());
            simd::parallelActivation(
                ctx.threadPool(), x.data<float>().data(), y.data<float>().data(), x.size(), { simd::Activation::Silu });
            return;
        }
        Value s;
        const Value* sigmoidIn[] = { &ctx.inputValue(0) };
        KernelContext sc(m_sigmoid, sigmoidIn, std::span<Value>(&s, 1), ctx.threadPool(), nullptr, &ctx.limits());
        m_sigmoidKernel.compute(sc);
        Value y;
        const Value* mulIn[] = { m_xFirst ? &ctx.inputValue(0) : &s, m_xFirst ? &s : &ctx.inputValue(0) };
        KernelContext mc(m_mul, mulIn, std::span<Value>(&y, 1), ctx.threadPool(), nullptr, &ctx.limits());
        m_mulKernel.compute(mc);
        ctx.setOutput(0, std::move(y));
    }

private:
    const Node& m_sigmoid;
    const Kernel& m_sigmoidKernel;
    const Node& m_mul;
    const Kernel& m_mulKernel;
    bool m_xFirst;
};

} // namespace

std::unique_ptr<Kernel> makeSiluStep(
    const Node& sigmoid, const Kernel& sigmoidKernel, const Node& mul, const Kernel& mulKernel)
{
    return std::make_unique<SiluStep>(sigmoid, sigmoidKernel, mul, mulKernel);
}

void registerActivations(KernelRegistry& r)
{
    r.add("", "Relu", 1, 14, activationFactory<Activation::Relu>());
    r.add("", "Sigmoid", 1, 13, activationFactory<Activation::Sigmoid>());
    r.add("", "Tanh", 1, 13, activationFactory<Activation::Tanh>());
}

} // namespace onnxscope
