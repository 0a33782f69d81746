// SPDX-License-Identifier: MIT
#include "engine/core/half.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// ScaledSiLU (com.microsoft 1): Y = z * sigmoid(z) with z = scale * X, each step rounded to X's type T as the
/// schema spells it out: Z = T(scale * X), S = T(sigmoid(Z)), Y = T(Z * S), computed in float. The scale is the
/// optional scalar (rank 0) input `scale` (float, float16 or bfloat16), else the attribute `alpha` (default 1). T is
/// float, float16 or bfloat16.
class ScaledSiLU final : public Kernel {
public:
    explicit ScaledSiLU(const KernelInit& init)
        : m_alpha(init.attributes().getFloat("alpha", 1.0f))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        float scale = m_alpha;
        if (ctx.hasInput(1)) {
            const Tensor& s = ctx.input(1);
            if (s.rank() != 0)
                throw ctx.error("scale must be a scalar (rank 0), got " + s.typeString());
            scale = scalarAsFloat(ctx, s);
        }
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        switch (x.dtype()) {
        case DataType::Float:
            run<float>(x, y, scale);
            break;
        case DataType::Float16:
            run<Float16>(x, y, scale);
            break;
        case DataType::BFloat16:
            run<BFloat16>(x, y, scale);
            break;
        default:
            throw ctx.error("X must be float, float16 or bfloat16, got " + x.typeString());
        }
    }

private:
    static float scalarAsFloat(const KernelContext& ctx, const Tensor& s)
    {
        switch (s.dtype()) {
        case DataType::Float:
            return s.data<float>()[0];
        case DataType::Float16:
            return static_cast<float>(s.data<Float16>()[0]);
        case DataType::BFloat16:
            return static_cast<float>(s.data<BFloat16>()[0]);
        default:
            throw ctx.error("scale must be float, float16 or bfloat16, got " + s.typeString());
        }
    }

    template <class T> static void run(const Tensor& x, Tensor& y, float scale)
    {
        auto in = x.data<T>();
        auto out = y.data<T>();
        for (size_t i = 0; i < in.size(); ++i) {
            const float z = static_cast<float>(static_cast<T>(scale * static_cast<float>(in[i])));
            const float s = static_cast<float>(static_cast<T>(1.0f / (1.0f + std::exp(-z))));
            out[i] = static_cast<T>(z * s);
        }
    }

    float m_alpha;
};

} // namespace

void registerScaledSiLU(KernelRegistry& r)
{
    r.add("com.microsoft", "ScaledSiLU", 1, KernelRegistry::kLatest, makeFactory<ScaledSiLU>());
}

} // namespace onnxscope
