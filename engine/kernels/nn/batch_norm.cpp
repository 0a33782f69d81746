// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>
#include <type_traits>

namespace onnxscope {

namespace {

std::vector<double> toDoubles(const KernelContext& ctx, const Tensor& t)
{
    std::vector<double> v(static_cast<size_t>(t.size()));
    dispatch<FloatTypes>(t.dtype(), ctx.node(), [&]<class T>() {
        auto d = t.data<T>();
        for (size_t i = 0; i < v.size(); ++i)
            v[i] = static_cast<double>(d[i]);
    });
    return v;
}

Tensor fromDoubles(const KernelContext& ctx, const std::vector<double>& v, DataType type, Shape shape)
{
    Tensor t(type, std::move(shape));
    dispatch<FloatTypes>(type, ctx.node(), [&]<class T>() {
        auto d = t.data<T>();
        for (size_t i = 0; i < v.size(); ++i)
            d[i] = static_cast<T>(v[i]);
    });
    return t;
}

/// BatchNormalization 1, 6, 7, 9, 14, 15. Inference: y = (x - mean) / sqrt(var + epsilon) * scale + B per channel
/// (axis 1), or per element of X's shape without the batch axis when the legacy `spatial` attribute is 0 (before 9).
/// Training (training_mode=1 from 14; before 14 when the node asks for the extra outputs, and is_test=0 before 7):
/// normalises with the batch mean and (population) variance and outputs running mean/var updated with `momentum`
/// (and before 14 also the saved batch mean and variance). X float types; scale, B, mean, var any float type (15).
class BatchNorm final : public Kernel {
public:
    explicit BatchNorm(const KernelInit& init)
    {
        const NodeAttributes& attrs = init.attributes();
        m_epsilon = attrs.getFloat("epsilon", 1e-5f);
        m_momentum = attrs.getFloat("momentum", 0.9f);
        m_spatial = init.opset() >= 9 || attrs.getInt("spatial", 1) != 0;
        const size_t extra = init.node.outputs.size();
        if (init.opset() >= 14)
            m_training = attrs.getInt("training_mode", 0) != 0;
        else
            m_training = extra > 1 && (init.opset() >= 7 || attrs.getInt("is_test", 0) == 0);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() < 2)
            throw ctx.error("X must be [N, C, ...], got " + shapeToString(x.shape()));
        const Shape paramShape = m_spatial ? Shape { x.dim(1) } : Shape(x.shape().begin() + 1, x.shape().end());
        const int64_t channels = elementCount(paramShape);
        std::vector<double> params[4];
        const char* names[4] = { "scale", "B", "input_mean", "input_var" };
        for (size_t i = 0; i < 4; ++i) {
            const Tensor& p = ctx.input(i + 1);
            if (p.size() != channels || (m_spatial && p.rank() != 1))
                throw ctx.error(std::string(names[i]) + " " + shapeToString(p.shape()) + " must be "
                    + shapeToString(paramShape) + " for X " + shapeToString(x.shape()));
            params[i] = toDoubles(ctx, p);
        }
        const int64_t batch = x.dim(0);
        const int64_t inner = m_spatial ? (channels == 0 || batch == 0 ? 0 : x.size() / batch / channels) : 1;
        std::vector<double> mean = params[2], var = params[3];
        if (m_training)
            batchStatistics(ctx, x, batch, channels, inner, mean, var);
        if (x.dtype() == DataType::Float && !m_training) {
            // Inference in float: y = x * a + b per channel, written over X when the executor gave it away.
            std::vector<float> fa(static_cast<size_t>(channels)), fb(static_cast<size_t>(channels));
            for (size_t c = 0; c < fa.size(); ++c) {
                const double a = params[0][c] / std::sqrt(var[c] + static_cast<double>(m_epsilon));
                fa[c] = static_cast<float>(a);
                fb[c] = static_cast<float>(params[1][c] - mean[c] * a);
            }
            Tensor& y = ctx.reuseInputOrAllocate(0, 0, x.dtype(), x.shape());
            const float* in = x.data<float>().data();
            float* out = y.data<float>().data();
            parallelFor(ctx.threadPool(), batch * channels,
                std::max<int64_t>(1, simd::kGrainElements / std::max<int64_t>(inner, 1)), [&](int64_t p0, int64_t p1) {
                    for (int64_t p = p0; p < p1; ++p) {
                        const float a = fa[static_cast<size_t>(p % channels)],
                                    b = fb[static_cast<size_t>(p % channels)];
                        float* o = out + p * inner;
                        const float* src = in + p * inner;
                        if (o == src) // one pointer, so that the loop stays vectorised in place
                            for (int64_t i = 0; i < inner; ++i)
                                o[i] = o[i] * a + b;
                        else
                            for (int64_t i = 0; i < inner; ++i)
                                o[i] = src[i] * a + b;
                    }
                });
            return;
        }
        Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
            auto in = x.data<T>();
            auto out = y.data<T>();
            for (int64_t c = 0; c < channels; ++c) {
                const auto uc = static_cast<size_t>(c);
                const double a = params[0][uc] / std::sqrt(var[uc] + static_cast<double>(m_epsilon));
                const F fa = static_cast<F>(a), fb = static_cast<F>(params[1][uc] - mean[uc] * a);
                for (int64_t n = 0; n < batch; ++n) {
                    const auto base = static_cast<size_t>((n * channels + c) * inner);
                    for (size_t i = base; i < base + static_cast<size_t>(inner); ++i)
                        out[i] = static_cast<T>(static_cast<F>(in[i]) * fa + fb);
                }
            }
        });
        if (!m_training)
            return;
        std::vector<double> runMean(mean.size()), runVar(var.size());
        for (size_t c = 0; c < mean.size(); ++c) {
            runMean[c] = params[2][c] * m_momentum + mean[c] * (1.0 - m_momentum);
            runVar[c] = params[3][c] * m_momentum + var[c] * (1.0 - m_momentum);
        }
        const DataType statType = ctx.input(3).dtype();
        if (ctx.hasOutput(1))
            ctx.setOutput(1, fromDoubles(ctx, runMean, statType, ctx.input(3).shape()));
        if (ctx.hasOutput(2))
            ctx.setOutput(2, fromDoubles(ctx, runVar, statType, ctx.input(4).shape()));
        if (ctx.hasOutput(3))
            ctx.setOutput(3, fromDoubles(ctx, mean, statType, ctx.input(3).shape()));
        if (ctx.hasOutput(4))
            ctx.setOutput(4, fromDoubles(ctx, var, statType, ctx.input(4).shape()));
    }

private:
    /// Per-channel mean and population variance over the batch and spatial axes, accumulated in double.
    static void batchStatistics(const KernelContext& ctx, const Tensor& x, int64_t batch, int64_t channels,
        int64_t inner, std::vector<double>& mean, std::vector<double>& var)
    {
        const std::vector<double> xs = toDoubles(ctx, x);
        const double count = static_cast<double>(batch * inner);
        for (int64_t c = 0; c < channels; ++c) {
            double s = 0, sq = 0;
            for (int64_t n = 0; n < batch; ++n)
                for (int64_t i = 0; i < inner; ++i)
                    s += xs[static_cast<size_t>((n * channels + c) * inner + i)];
            const double mu = s / count;
            for (int64_t n = 0; n < batch; ++n)
                for (int64_t i = 0; i < inner; ++i) {
                    const double d = xs[static_cast<size_t>((n * channels + c) * inner + i)] - mu;
                    sq += d * d;
                }
            mean[static_cast<size_t>(c)] = mu;
            var[static_cast<size_t>(c)] = sq / count;
        }
    }

    float m_epsilon = 1e-5f;
    double m_momentum = 0.9;
    bool m_spatial = true;
    bool m_training = false;
};

} // namespace

void registerBatchNorm(KernelRegistry& r)
{
    r.add("", "BatchNormalization", 1, 15, makeFactory<BatchNorm>());
}

} // namespace onnxscope
