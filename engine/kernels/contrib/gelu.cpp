// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

enum class GeluKind : uint8_t {
    Erf, // Gelu, BiasGelu: 0.5·x·(1 + erf(x/√2))
    Tanh, // FastGelu: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
    Quick, // QuickGelu: x·sigmoid(alpha·x)
};

/// Gelu, FastGelu, BiasGelu and QuickGelu (com.microsoft 1). FastGelu and BiasGelu add an optional (FastGelu) or
/// required (BiasGelu) bias first, broadcast along the last axis (its shape is the last dimension of X). float,
/// double, float16, bfloat16, computed in float.
class ContribGelu final : public Kernel {
public:
    ContribGelu(const KernelInit& init, GeluKind kind, bool takesBias)
        : m_kind(kind)
        , m_takesBias(takesBias)
        , m_alpha(init.attributes().getFloat("alpha", 1.702f))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        contrib::requireSameType(ctx, x.dtype(), { 1 });
        std::vector<float> xb, bb;
        const float* in = contrib::floats(ctx, x, xb, "X");
        const float* bias = nullptr;
        int64_t biasLen = 1;
        if (m_takesBias && ctx.hasInput(1)) {
            const Tensor& b = ctx.input(1);
            biasLen = b.size();
            if (x.rank() == 0 || b.rank() != 1 || biasLen != x.dim(x.rank() - 1))
                throw ctx.error("bias " + shapeToString(b.shape()) + " must be 1-D of X's last dimension, X is "
                    + shapeToString(x.shape()));
            bias = contrib::floats(ctx, b, bb, "bias");
        }
        std::vector<float> y(static_cast<size_t>(x.size()));
        constexpr float kSqrt2OverPi = 0.7978845608028654f;
        for (int64_t i = 0; i < x.size(); ++i) {
            const float v = in[i] + (bias ? bias[i % biasLen] : 0.0f);
            float r = 0;
            switch (m_kind) {
            case GeluKind::Erf:
                r = 0.5f * v * (1.0f + std::erf(v * static_cast<float>(M_SQRT1_2)));
                break;
            case GeluKind::Tanh:
                r = 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v)));
                break;
            case GeluKind::Quick:
                r = v / (1.0f + std::exp(-m_alpha * v));
                break;
            }
            y[static_cast<size_t>(i)] = r;
        }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
    }

private:
    GeluKind m_kind;
    bool m_takesBias;
    float m_alpha;
};

KernelFactory geluFactory(GeluKind kind, bool takesBias)
{
    return [kind, takesBias](const KernelInit& init) -> std::unique_ptr<Kernel> {
        return std::make_unique<ContribGelu>(init, kind, takesBias);
    };
}

} // namespace

void registerContribGelu(KernelRegistry& r)
{
    r.add("com.microsoft", "Gelu", 1, KernelRegistry::kLatest, geluFactory(GeluKind::Erf, false));
    r.add("com.microsoft", "BiasGelu", 1, KernelRegistry::kLatest, geluFactory(GeluKind::Erf, true));
    r.add("com.microsoft", "FastGelu", 1, KernelRegistry::kLatest, geluFactory(GeluKind::Tanh, true));
    r.add("com.microsoft", "QuickGelu", 1, KernelRegistry::kLatest, geluFactory(GeluKind::Quick, false));
}

} // namespace onnxscope
