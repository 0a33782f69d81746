// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

/// SkipLayerNormalization and SkipSimplifiedLayerNormalization (com.microsoft 1): S = input + skip (+ bias), then
/// layer normalisation (or RMS normalisation when simplified) of S over its last axis, times gamma (plus beta).
/// input is [B, S, H] or [rows, H]; skip has input's shape, or fewer leading rows that repeat ([1, S, H], [S, H]).
/// Outputs: Y; mean and inv_std_var (float, shape of input with the last axis 1; the simplified op's mean is 0);
/// input_skip_bias_sum S. float, double, float16, bfloat16, computed in double.
class SkipLayerNorm final : public Kernel {
public:
    SkipLayerNorm(const KernelInit& init, bool simplified)
        : m_simplified(simplified)
        , m_epsilon(init.attributes().getFloat("epsilon", 1e-12f))
    {
        if (!(m_epsilon >= 0))
            throw init.attributes().error("epsilon", "must be non-negative");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& skip = ctx.input(1);
        if (x.rank() != 2 && x.rank() != 3)
            throw ctx.error("input must be 2-D or 3-D, got " + shapeToString(x.shape()));
        contrib::requireSameType(ctx, x.dtype(), { 1, 2, 3, 4 });
        const int64_t hidden = x.dim(x.rank() - 1);
        const int64_t rows = hidden ? x.size() / hidden : 0;
        if (skip.rank() < 1 || skip.dim(skip.rank() - 1) != hidden || skip.rank() > x.rank()
            || (skip.size() / std::max<int64_t>(hidden, 1)) == 0 || rows % (skip.size() / std::max<int64_t>(hidden, 1)))
            throw ctx.error("skip " + shapeToString(skip.shape()) + " does not fit input " + shapeToString(x.shape())
                + " (expected [B, S, H], [1, S, H] or [S, H])");
        const int64_t skipRows = skip.size() / std::max<int64_t>(hidden, 1);
        const Shape vec { hidden };
        std::vector<float> xb, sb, gb, bb, biasb;
        const float* in = contrib::floats(ctx, x, xb, "input");
        const float* sk = contrib::floats(ctx, skip, sb, "skip");
        const float* gamma = contrib::optionalFloats(ctx, 2, gb, "gamma", &vec);
        if (!gamma)
            throw ctx.error("gamma is required");
        const float* beta = m_simplified ? nullptr : contrib::optionalFloats(ctx, 3, bb, "beta", &vec);
        const float* bias = contrib::optionalFloats(ctx, m_simplified ? 3 : 4, biasb, "bias", &vec);

        std::vector<float> sum(static_cast<size_t>(x.size())), y(sum.size());
        std::vector<float> means(static_cast<size_t>(rows)), invs(static_cast<size_t>(rows));
        for (int64_t r = 0; r < rows; ++r) {
            float* s = sum.data() + r * hidden;
            const float* a = in + r * hidden;
            const float* b = sk + (r % skipRows) * hidden;
            double total = 0, squares = 0;
            for (int64_t j = 0; j < hidden; ++j) {
                s[j] = a[j] + b[j] + (bias ? bias[j] : 0.0f);
                total += s[j];
                squares += static_cast<double>(s[j]) * s[j];
            }
            const double n = static_cast<double>(hidden);
            const double mean = m_simplified ? 0.0 : total / n;
            const double var = m_simplified ? squares / n : std::max(0.0, squares / n - mean * mean);
            const double inv = 1.0 / std::sqrt(var + m_epsilon);
            means[static_cast<size_t>(r)] = static_cast<float>(mean);
            invs[static_cast<size_t>(r)] = static_cast<float>(inv);
            float* out = y.data() + r * hidden;
            for (int64_t j = 0; j < hidden; ++j)
                out[j] = static_cast<float>((s[j] - mean) * inv * gamma[j] + (beta ? beta[j] : 0.0f));
        }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
        Shape stats = x.shape();
        stats.back() = 1;
        if (ctx.hasOutput(1))
            contrib::storeOutput(ctx, 1, DataType::Float, stats, means.data());
        if (ctx.hasOutput(2))
            contrib::storeOutput(ctx, 2, DataType::Float, stats, invs.data());
        if (ctx.hasOutput(3))
            contrib::storeOutput(ctx, 3, x.dtype(), x.shape(), sum.data());
    }

private:
    bool m_simplified;
    double m_epsilon;
};

/// SimplifiedLayerNormalization (onnxruntime's, in the default domain, opset 1): RMS normalisation of X over the axes
/// [axis, rank), times scale (the normalised axes' shape). Outputs Y (scale's element type) and inv_std_var (float,
/// double for double X; X's shape with the normalised axes 1). Computed in double.
class SimplifiedLayerNorm final : public Kernel {
public:
    explicit SimplifiedLayerNorm(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", -1))
        , m_epsilon(init.attributes().getFloat("epsilon", 1e-5f))
    {
        const int64_t stash = init.attributes().getInt("stash_type", 1);
        if (stash != 1)
            throw init.attributes().error("stash_type", "only 1 (float) is supported, got " + std::to_string(stash));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& scale = ctx.input(1);
        const int64_t axis = m_axis < 0 ? m_axis + x.rank() : m_axis;
        if (axis < 0 || axis >= x.rank())
            throw ctx.error("axis " + std::to_string(m_axis) + " is outside X " + shapeToString(x.shape()));
        const Shape normalized(x.shape().begin() + axis, x.shape().end());
        const int64_t inner = elementCount(normalized);
        if (scale.size() != inner)
            throw ctx.error("scale " + shapeToString(scale.shape()) + " must hold the normalised axes "
                + shapeToString(normalized));
        const int64_t outer = inner ? x.size() / inner : 0;
        std::vector<float> xb, sb;
        const float* in = contrib::floats(ctx, x, xb, "X");
        const float* sc = contrib::floats(ctx, scale, sb, "scale");
        std::vector<float> y(static_cast<size_t>(x.size())), invs(static_cast<size_t>(outer));
        for (int64_t o = 0; o < outer; ++o) {
            const float* a = in + o * inner;
            double squares = 0;
            for (int64_t j = 0; j < inner; ++j)
                squares += static_cast<double>(a[j]) * a[j];
            const double inv = 1.0 / std::sqrt(squares / static_cast<double>(inner) + m_epsilon);
            invs[static_cast<size_t>(o)] = static_cast<float>(inv);
            for (int64_t j = 0; j < inner; ++j)
                y[static_cast<size_t>(o * inner + j)] = static_cast<float>(a[j] * inv * sc[j]);
        }
        contrib::storeOutput(ctx, 0, scale.dtype(), x.shape(), y.data());
        if (ctx.hasOutput(1)) {
            Shape stats = x.shape();
            for (int64_t d = axis; d < x.rank(); ++d)
                stats[static_cast<size_t>(d)] = 1;
            contrib::storeOutput(
                ctx, 1, x.dtype() == DataType::Double ? DataType::Double : DataType::Float, stats, invs.data());
        }
    }

private:
    int64_t m_axis;
    double m_epsilon;
};

} // namespace

void registerContribNorms(KernelRegistry& r)
{
    r.add("com.microsoft", "SkipLayerNormalization", 1, KernelRegistry::kLatest,
        [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<SkipLayerNorm>(init, false); });
    r.add("com.microsoft", "SkipSimplifiedLayerNormalization", 1, KernelRegistry::kLatest,
        [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<SkipLayerNorm>(init, true); });
    // onnxruntime defines this one in the default domain, where onnx has no schema of that name.
    r.add("", "SimplifiedLayerNormalization", 1, KernelRegistry::kLatest, makeFactory<SimplifiedLayerNorm>());
}

} // namespace onnxscope
