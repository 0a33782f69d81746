// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include "engine/core/thread_pool.h"

#include <algorithm>
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
        // Float outputs are written in place; rows of the bias's length, so no index arithmetic per element, split
        // over the pool.
        std::vector<float> yb;
        float* y = nullptr;
        Tensor* out = nullptr;
        if (x.dtype() == DataType::Float) {
            out = &ctx.allocateOutputUninitialized(0, DataType::Float, x.shape());
            y = out->data<float>().data();
        } else {
            yb.resize(static_cast<size_t>(x.size()));
            y = yb.data();
        }
        if (!bias) {
            parallelFor(
                ctx.threadPool(), x.size(), 4096, [&](int64_t b, int64_t e) { row(in + b, nullptr, y + b, e - b); });
        } else {
            const int64_t rows = x.size() / biasLen;
            parallelFor(ctx.threadPool(), rows, std::max<int64_t>(1, 4096 / biasLen), [&](int64_t r0, int64_t r1) {
                for (int64_t r = r0; r < r1; ++r)
                    row(in + r * biasLen, bias, y + r * biasLen, biasLen);
            });
        }
        if (!out)
            contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y);
    }

private:
    void row(const float* in, const float* bias, float* y, int64_t n) const
    {
        constexpr float kSqrt2OverPi = 0.7978845608028654f;
        switch (m_kind) {
        case GeluKind::Erf:
            // The SIMD level's Gelu (Eigen's vectorised erf), in place over the row.
            if (bias || in != y)
                for (int64_t i = 0; i < n; ++i)
                    y[i] = in[i] + (bias ? bias[i] : 0.0f);
            simd::ops().activation(y, y, n, { simd::Activation::Gelu, 0.0f, 0.0f });
            break;
        case GeluKind::Tanh:
            // tanh by the SIMD activation (vectorized, as onnxruntime's) over the row, in place.
            for (int64_t i = 0; i < n; ++i) {
                const float v = in[i] + (bias ? bias[i] : 0.0f);
                y[i] = kSqrt2OverPi * (v + 0.044715f * v * v * v);
            }
            simd::ops().activation(y, y, n, { simd::Activation::Tanh, 0.0f, 0.0f });
            for (int64_t i = 0; i < n; ++i) {
                const float v = in[i] + (bias ? bias[i] : 0.0f);
                y[i] = 0.5f * v * (1.0f + y[i]);
            }
            break;
        case GeluKind::Quick:
            for (int64_t i = 0; i < n; ++i) {
                const float v = in[i] + (bias ? bias[i] : 0.0f);
                y[i] = v / (1.0f + std::exp(-m_alpha * v));
            }
            break;
        }
    }

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
