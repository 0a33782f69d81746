// SPDX-License-Identifier: MIT
#include "engine/kernels/quant/qdq_conv.h"

#include "engine/kernels/nn/im2col.h"

#include <algorithm>
#include <cmath>

namespace onnxscope {

namespace {

/// DequantizeLinear -> Conv -> QuantizeLinear as one integer convolution: y = saturate(round_half_even(float(acc +
/// bias) * (x_scale * w_scale[m] / y_scale)) + y_zero_point), acc the exact int32 sum of (x - x_zero) (w - w_zero).
/// The unfused graph sums the dequantized products in float, so the two differ by float rounding only: a value
/// within float error of a rounding tie may land one quantization step apart, as with onnxruntime's QLinearConv.
class QdqConv final : public Kernel {
public:
    QdqConv(const KernelInit& conv, QdqConvParams params)
        : m_window(WindowAttributes::parse(conv, false))
        , m_group(conv.attributes().getInt("group", 1))
        , m_params(std::move(params))
    {
        if (m_group < 1)
            throw conv.attributes().error("group", "must be positive, got " + std::to_string(m_group));
        const Tensor& w = m_params.weights;
        const int64_t m = w.dim(0), perRow = m == 0 ? 0 : w.size() / m;
        m_weights = intprod::prepareWeights(w.dtype(), w.raw(), m, perRow, perRow, 1, m_params.weightZero);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor xq = m_params.fromFloat ? requantized(ctx, ctx.input(0)) : Tensor();
        const Tensor& x = m_params.fromFloat ? xq : ctx.input(0);
        const Tensor& w = m_params.weights;
        if (x.dtype() != m_params.xType)
            throw ctx.error(
                "x is " + x.typeString() + " but its zero point is " + std::string(dataTypeName(m_params.xType)));
        if (x.rank() < 3 || w.rank() != x.rank())
            throw ctx.error("x " + shapeToString(x.shape()) + " and w " + shapeToString(w.shape())
                + " must have the same rank, at least 3");
        const int64_t c = x.dim(1), m = w.dim(0);
        if (c % m_group != 0 || m % m_group != 0 || w.dim(1) * m_group != c)
            throw ctx.error("x " + shapeToString(x.shape()) + " and w " + shapeToString(w.shape())
                + " do not match with group " + std::to_string(m_group));
        const ConvWindow window = resolveConvWindow(ctx, m_window, x, w.shape(), "w");
        const WindowGeometry& g = window.geometry;
        const Shape& outShape = window.outShape;
        // Every element is written: the convolution's sink covers every channel and position.
        Tensor& out = ctx.allocateOutputUninitialized(0, m_params.requantize.type, outShape);
        if (out.size() == 0)
            return;
        const int64_t outSize = g.outSize();
        auto* y = static_cast<uint8_t*>(out.mutableRaw());
        const intprod::Requantize& rq = m_params.requantize;
        intprod::convolve(x.dtype(), static_cast<const uint8_t*>(x.raw()), m_params.xZero, m_weights, x.dim(0), c,
            m_group, g, ctx.threadPool(),
            [&](int64_t b, int64_t row0, int64_t rows, int64_t col0, int64_t cols, const int32_t* acc) {
                for (int64_t r = 0; r < rows; ++r)
                    rq.row(acc + r * cols, cols, row0 + r, y + (b * m + row0 + r) * outSize + col0);
            });
    }

private:
    /// The dequantized x back in its integer type: round(x / scale) + zero point, exact for values that
    /// DequantizeLinear made with this scale and zero point (clamped to the type otherwise).
    Tensor requantized(const KernelContext& ctx, const Tensor& xf) const
    {
        if (xf.dtype() != DataType::Float)
            throw ctx.error("x must be float, got " + xf.typeString());
        Tensor out(m_params.xType, xf.shape());
        const float inv = 1.0f / m_params.xScale;
        const float lo = m_params.xType == DataType::Int8 ? -128.0f : 0.0f, hi = lo + 255.0f;
        const float zero = static_cast<float>(m_params.xZero);
        const float* src = xf.data<float>().data();
        auto* dst = static_cast<uint8_t*>(out.mutableRaw());
        const int64_t n = xf.size();
        for (int64_t i = 0; i < n; ++i) {
            const float q = std::clamp(std::nearbyint(src[i] * inv) + zero, lo, hi);
            dst[i] = static_cast<uint8_t>(static_cast<int32_t>(q));
        }
        return out;
    }

    WindowAttributes m_window;
    int64_t m_group;
    QdqConvParams m_params;
    intprod::Weights m_weights;
};

} // namespace

std::unique_ptr<Kernel> makeQdqConv(const KernelInit& conv, QdqConvParams params)
{
    return std::make_unique<QdqConv>(conv, std::move(params));
}

} // namespace onnxscope
