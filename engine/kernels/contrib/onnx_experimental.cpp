// SPDX-License-Identifier: MIT
// The experimental operators that onnx once had in the default domain and later removed, which onnxruntime's CPU
// provider still registers there (and older converters still write). onnx has no schema for them, so they are
// registered by opset (1 and later), as onnxruntime registers them.
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/contrib/inner_kernel.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

namespace onnxscope {

namespace {

enum class Experimental { Affine, Scale, ScaledTanh, ParametricSoftplus, ThresholdedRelu };

/// Affine (y = alpha * x + beta; alpha 1, beta 0 by default), Scale (y = scale * x; scale 1 by default), ScaledTanh
/// (y = alpha * tanh(beta * x)), ParametricSoftplus (y = alpha * ln(1 + exp(beta * x))), both with alpha and beta
/// required as onnxruntime requires them, and ThresholdedRelu 1-9 (y = x > alpha ? x : 0; alpha 1 by default).
/// float, double, float16, bfloat16 (half types computed in float).
class ExperimentalUnary final : public Kernel {
public:
    ExperimentalUnary(const KernelInit& init, Experimental op)
        : m_op(op)
    {
        const NodeAttributes& a = init.attributes();
        switch (op) {
        case Experimental::Affine:
            m_alpha = a.getFloat("alpha", 1.0f);
            m_beta = a.getFloat("beta", 0.0f);
            break;
        case Experimental::Scale:
            m_alpha = a.getFloat("scale", 1.0f);
            break;
        case Experimental::ScaledTanh:
        case Experimental::ParametricSoftplus:
            for (const char* name : { "alpha", "beta" })
                if (!a.has(name))
                    throw a.error(name, "is required");
            m_alpha = a.requireFloat("alpha");
            m_beta = a.requireFloat("beta");
            break;
        case Experimental::ThresholdedRelu:
            m_alpha = a.getFloat("alpha", 1.0f);
            break;
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
            auto in = x.data<T>();
            auto out = y.data<T>();
            for (size_t i = 0; i < in.size(); ++i)
                out[i] = static_cast<T>(apply<C>(static_cast<C>(in[i])));
        });
    }

private:
    template <class C> C apply(C v) const
    {
        const C alpha = static_cast<C>(m_alpha), beta = static_cast<C>(m_beta);
        switch (m_op) {
        case Experimental::Affine:
            return alpha * v + beta;
        case Experimental::Scale:
            return alpha * v;
        case Experimental::ScaledTanh:
            return alpha * std::tanh(beta * v);
        case Experimental::ParametricSoftplus: {
            const C z = beta * v;
            return alpha * (z > C(0) ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)));
        }
        case Experimental::ThresholdedRelu:
            return v > alpha ? v : C(0);
        }
        return v;
    }

    Experimental m_op;
    float m_alpha = 1.0f, m_beta = 0.0f;
};

KernelFactory unaryFactory(Experimental op)
{
    return [op](const KernelInit& init) -> std::unique_ptr<Kernel> {
        return std::make_unique<ExperimentalUnary>(init, op);
    };
}

/// The 4-D input X [N, C, H, W] of ImageScaler and Crop.
const Tensor& imageInput(const KernelContext& ctx)
{
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4)
        throw ctx.error("input must be 4-D [N, C, H, W], got " + shapeToString(x.shape()));
    return x;
}

/// ImageScaler: y[n, c, h, w] = scale * x[n, c, h, w] + bias[c]. `bias` has one value per channel; scale is 1 by
/// default. float, double, float16, bfloat16.
class ImageScaler final : public Kernel {
public:
    explicit ImageScaler(const KernelInit& init)
        : m_bias(init.attributes().getFloats("bias"))
        , m_scale(init.attributes().getFloat("scale", 1.0f))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = imageInput(ctx);
        if (static_cast<int64_t>(m_bias.size()) != x.dim(1))
            throw ctx.error("attribute 'bias' has " + std::to_string(m_bias.size()) + " values, but the input has "
                + std::to_string(x.dim(1)) + " channels");
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        const int64_t plane = x.dim(2) * x.dim(3), channels = x.dim(1);
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
            auto in = x.data<T>();
            auto out = y.data<T>();
            for (size_t i = 0; i < in.size(); ++i) {
                const int64_t c = (static_cast<int64_t>(i) / plane) % channels;
                out[i] = static_cast<T>(
                    static_cast<C>(in[i]) * static_cast<C>(m_scale) + static_cast<C>(m_bias[static_cast<size_t>(c)]));
            }
        });
    }

private:
    std::vector<float> m_bias;
    float m_scale;
};

/// Crop: the window of X [N, C, H, W] that `border` (left, top, right, bottom; required) leaves, or, with `scale`
/// (height, width), the window of that size whose top-left corner is (top, left). Any element type.
class Crop final : public Kernel {
public:
    explicit Crop(const KernelInit& init)
        : m_border(init.attributes().getInts("border"))
        , m_scale(init.attributes().getInts("scale"))
    {
        if (m_border.size() != 4 || std::any_of(m_border.begin(), m_border.end(), [](int64_t v) { return v < 0; }))
            throw init.attributes().error("border", "expected 4 values (left, top, right, bottom), none negative");
        if (!m_scale.empty()
            && (m_scale.size() != 2 || std::any_of(m_scale.begin(), m_scale.end(), [](int64_t v) { return v < 0; })))
            throw init.attributes().error("scale", "expected 2 values (height, width), none negative");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = imageInput(ctx);
        const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
        const int64_t left = m_border[0], top = m_border[1];
        const int64_t bottom = m_scale.empty() ? h - m_border[3] : top + m_scale[0];
        const int64_t right = m_scale.empty() ? w - m_border[2] : left + m_scale[1];
        if (top > bottom || left > right || bottom > h || right > w)
            throw ctx.error("the window rows [" + std::to_string(top) + ", " + std::to_string(bottom) + "), columns ["
                + std::to_string(left) + ", " + std::to_string(right) + ") does not fit the input "
                + shapeToString(x.shape()));
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), { n, c, bottom - top, right - left });
        const size_t e = elementSize(x.dtype());
        const auto* src = static_cast<const uint8_t*>(x.raw());
        auto* dst = static_cast<uint8_t*>(y.mutableRaw());
        if (x.dtype() == DataType::String)
            throw ctx.error("string tensors are not supported");
        for (int64_t p = 0; p < n * c; ++p)
            for (int64_t r = top; r < bottom; ++r) {
                const size_t count = static_cast<size_t>(right - left) * e;
                std::memcpy(dst, src + static_cast<size_t>((p * h + r) * w + left) * e, count);
                dst += count;
            }
    }

private:
    std::vector<int64_t> m_border;
    std::vector<int64_t> m_scale;
};

/// DynamicSlice: Slice-10 without steps (data, starts, ends, optional axes); our Slice kernel computes it.
class DynamicSlice final : public Kernel {
public:
    explicit DynamicSlice(const KernelInit& init)
        : m_slice(init, "Slice", 10)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        std::vector<Value> out
            = m_slice.run(ctx, { ctx.inputValue(0), ctx.inputValue(1), ctx.inputValue(2), ctx.inputValue(3) });
        ctx.setOutput(0, std::move(out[0]));
    }

private:
    contrib::InnerKernel m_slice;
};

/// MeanVarianceNormalization 1-8 (the experimental version): X [N, C, H, W] minus its mean over the axes (0, 2, 3)
/// (across_channels = 0, the default) or (0, 1, 2, 3), divided by the standard deviation over them when
/// normalize_variance = 1 (the default), with no epsilon. These axes and the missing epsilon are onnxruntime's (its
/// CPU kernel for versions 1-8). float, double, float16, bfloat16; statistics in double.
class MeanVarianceNormalization1 final : public Kernel {
public:
    explicit MeanVarianceNormalization1(const KernelInit& init)
        : m_acrossChannels(init.attributes().getInt("across_channels", 0) != 0)
        , m_normalizeVariance(init.attributes().getInt("normalize_variance", 1) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = imageInput(ctx);
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        const int64_t n = x.dim(0), c = x.dim(1), plane = x.dim(2) * x.dim(3);
        const int64_t groups = m_acrossChannels ? 1 : c;
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto in = x.data<T>();
            auto out = y.data<T>();
            for (int64_t g = 0; g < groups; ++g) {
                // The elements of group g: every channel (across) or channel g, of every batch item.
                auto each = [&](const std::function<void(size_t)>& fn) {
                    for (int64_t b = 0; b < n; ++b)
                        for (int64_t ch = m_acrossChannels ? 0 : g; ch < (m_acrossChannels ? c : g + 1); ++ch)
                            for (int64_t s = 0; s < plane; ++s)
                                fn(static_cast<size_t>((b * c + ch) * plane + s));
                };
                double sum = 0, count = 0;
                each([&](size_t i) { sum += static_cast<double>(in[i]), ++count; });
                const double mean = count > 0 ? sum / count : 0.0;
                double sq = 0;
                each(
                    [&](size_t i) { sq += (static_cast<double>(in[i]) - mean) * (static_cast<double>(in[i]) - mean); });
                const double scale = m_normalizeVariance ? 1.0 / std::sqrt(sq / count) : 1.0;
                each([&](size_t i) { out[i] = static_cast<T>((static_cast<double>(in[i]) - mean) * scale); });
            }
        });
    }

private:
    bool m_acrossChannels;
    bool m_normalizeVariance;
};

} // namespace

void registerOnnxExperimentalKernels(KernelRegistry& r)
{
    const int64_t last = KernelRegistry::kLatest;
    r.add("", "Affine", 1, last, unaryFactory(Experimental::Affine));
    r.add("", "Scale", 1, last, unaryFactory(Experimental::Scale));
    r.add("", "ScaledTanh", 1, last, unaryFactory(Experimental::ScaledTanh));
    r.add("", "ParametricSoftplus", 1, last, unaryFactory(Experimental::ParametricSoftplus));
    r.add("", "ImageScaler", 1, last, makeFactory<ImageScaler>());
    r.add("", "Crop", 1, last, makeFactory<Crop>());
    r.add("", "DynamicSlice", 1, last, makeFactory<DynamicSlice>());
    // Versions before onnx's first (ThresholdedRelu 10, MeanVarianceNormalization 9): opsets without a schema.
    r.add("", "ThresholdedRelu", 1, 9, unaryFactory(Experimental::ThresholdedRelu));
    r.add("", "MeanVarianceNormalization", 1, 8, makeFactory<MeanVarianceNormalization1>());
}

} // namespace onnxscope
