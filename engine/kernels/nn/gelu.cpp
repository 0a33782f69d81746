// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>
#include <numbers>

namespace onnxscope {

namespace {

/// Gelu 20: y = 0.5 x (1 + erf(x / sqrt(2))); with approximate="tanh", y = 0.5 x (1 + tanh(sqrt(2 / pi) (x +
/// 0.044715 x^3))). float, double, float16, bfloat16; half types are computed in float. float runs on the SIMD
/// activations (Eigen's vectorised erf and tanh), in place when the plain run donates X.
class Gelu final : public Kernel {
public:
    explicit Gelu(const KernelInit& init)
    {
        const std::string approximate = init.attributes().getString("approximate", "none");
        if (approximate != "none" && approximate != "tanh")
            throw init.attributes().error("approximate", "expected \"none\" or \"tanh\", got \"" + approximate + "\"");
        m_tanh = approximate == "tanh";
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() == DataType::Float) {
            Tensor& y = ctx.reuseInputOrAllocate(0, 0, x.dtype(), x.shape());
            simd::parallelActivation(ctx.threadPool(), x.data<float>().data(), y.data<float>().data(), x.size(),
                { m_tanh ? simd::Activation::GeluTanh : simd::Activation::Gelu });
            return;
        }
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            using F = MathType<T>;
            auto in = x.data<T>();
            auto out = y.data<T>();
            const F half = F(0.5), c = static_cast<F>(std::sqrt(2.0 / std::numbers::pi)), k = F(0.044715);
            const F invSqrt2 = static_cast<F>(1.0 / std::numbers::sqrt2);
            for (size_t i = 0; i < in.size(); ++i) {
                const F v = static_cast<F>(in[i]);
                const F g = m_tanh ? half * v * (F(1) + std::tanh(c * (v + k * v * v * v)))
                                   : half * v * (F(1) + std::erf(v * invSqrt2));
                out[i] = static_cast<T>(g);
            }
        });
    }

private:
    bool m_tanh = false;
};

} // namespace

void registerGelu(KernelRegistry& r)
{
    r.add("", "Gelu", 20, 20, makeFactory<Gelu>());
}

} // namespace onnxscope
