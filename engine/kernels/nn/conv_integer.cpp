// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/half_convert.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/im2col.h"
#include "engine/kernels/quant/integer_product.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>

namespace onnxscope {

namespace {

/// The zero point input `zp` of `t` as int32 values: none (0), a scalar, or one per slice (`slices` of them).
std::vector<int32_t> zeroPoints(
    const KernelContext& ctx, const Tensor& t, const Tensor* zp, int64_t slices, const char* what)
{
    if (!zp)
        return { 0 };
    if (zp->dtype() != t.dtype())
        throw ctx.error(
            std::string(what) + " zero point " + zp->typeString() + " must have the type of " + t.typeString());
    std::vector<int32_t> zeros;
    dispatch<TypeList<uint8_t, int8_t>>(zp->dtype(), ctx.node(), [&]<class T>() {
        for (T v : zp->data<T>())
            zeros.push_back(v);
    });
    if (zeros.empty())
        throw ctx.error(std::string(what) + " zero point is empty");
    if (zeros.size() != 1 && static_cast<int64_t>(zeros.size()) != slices)
        throw ctx.error(std::string(what) + " zero point " + zp->typeString() + " must be a scalar"
            + (slices > 1 ? " or have " + std::to_string(slices) + " values" : std::string()));
    return zeros;
}

/// ConvInteger 10 and QLinearConv 10 (and com.microsoft QLinearConv 1, which adds `channels_last`: x and y NHWC, w
/// still [M, C / group, kernel]): Conv over uint8/int8 data with zero points (weights' zero point per tensor or per
/// output channel). ConvInteger outputs the int32 accumulators (wrapping past int32, as a 32-bit accumulator
/// would). QLinearConv adds the int32 bias to the int32 accumulator, multiplies it in float by x_scale * w_scale[m] /
/// y_scale (formed in float; w_scale per tensor or per output channel), rounds half to even, adds y_zero_point and
/// saturates to its type: onnxruntime's requantization, step for step. The products run on the shared integer kernel
/// (engine/kernels/quant/integer_product.h), exact in int32 (wrapping past it, as onnxruntime's accumulators).
class ConvInteger final : public Kernel {
public:
    ConvInteger(const KernelInit& init, bool quantized, bool msDomain = false)
        : m_quantized(quantized)
        , m_window(WindowAttributes::parse(init, false))
        , m_group(init.attributes().getInt("group", 1))
        , m_channelsLast(msDomain && init.attributes().getInt("channels_last", 0) != 0)
        , m_constantWeights(isConstantInput(init, quantized ? 3 : 1)
              && (init.node.inputs.size() <= (quantized ? 5u : 3u) || isConstantInput(init, quantized ? 5 : 3)))
    {
        if (m_group < 1)
            throw init.attributes().error("group", "must be positive, got " + std::to_string(m_group));
    }

    void compute(KernelContext& ctx) const override
    {
        const size_t wi = m_quantized ? 3 : 1;
        const Tensor x = m_channelsLast ? toChannelsFirst(ctx, ctx.input(0)) : ctx.input(0);
        const Tensor& w = ctx.input(wi);
        if (x.rank() < 3 || w.rank() != x.rank())
            throw ctx.error("x " + shapeToString(x.shape()) + " and w " + shapeToString(w.shape())
                + " must have the same rank, at least 3");
        const int64_t c = x.dim(1), m = w.dim(0);
        if (c % m_group != 0 || m % m_group != 0 || w.dim(1) * m_group != c)
            throw ctx.error("x " + shapeToString(x.shape()) + " and w " + shapeToString(w.shape())
                + " do not match with group " + std::to_string(m_group));
        const auto opt = [&](size_t i) { return ctx.hasInput(i) ? &ctx.input(i) : nullptr; };
        for (const Tensor* t : { &x, &w })
            if (t->dtype() != DataType::UInt8 && t->dtype() != DataType::Int8)
                throw ctx.error("x and w must be uint8 or int8, got " + t->typeString());
        const std::vector<int32_t> xz = zeroPoints(ctx, x, opt(2), 1, "x");
        const std::vector<int32_t> wz = zeroPoints(ctx, w, opt(m_quantized ? 5 : 3), m, "w");
        const ConvWindow window = resolveConvWindow(ctx, m_window, x, w.shape(), "w");
        const WindowGeometry& g = window.geometry;
        const Shape& outShape = window.outShape;
        // The output is allocated first so that an absurd shape is refused before the scratch buffer is made.
        Tensor nchw;
        Tensor* nhwcOut = nullptr;
        if (m_channelsLast) {
            Shape nhwc { outShape[0] };
            nhwc.insert(nhwc.end(), outShape.begin() + 2, outShape.end());
            nhwc.push_back(outShape[1]);
            nhwcOut = &ctx.allocateOutput(0, ctx.input(7).dtype(), nhwc); // refuses an absurd shape first
            nchw = Tensor(ctx.input(7).dtype(), outShape);
        }
        Tensor& out = m_channelsLast
            ? nchw
            : ctx.allocateOutput(0, m_quantized ? ctx.input(7).dtype() : DataType::Int32, outShape);
        if (out.size() == 0)
            return;
        const int64_t perRow = m == 0 ? 0 : w.size() / m;
        const std::shared_ptr<const intprod::Weights> prepared = preparedWeights(w, m, perRow, wz);
        const intprod::Weights& weights = *prepared;
        const int64_t outSize = g.outSize();
        const auto* xb = static_cast<const uint8_t*>(x.raw());
        if (!m_quantized) {
            int32_t* y = out.data<int32_t>().data();
            intprod::convolve(x.dtype(), xb, xz[0], weights, x.dim(0), c, m_group, g, ctx.threadPool(),
                [&](int64_t b, int64_t row0, int64_t rows, int64_t col0, int64_t cols, const int32_t* acc) {
                    for (int64_t r = 0; r < rows; ++r)
                        std::memcpy(y + (b * m + row0 + r) * outSize + col0, acc + r * cols,
                            static_cast<size_t>(cols) * sizeof(int32_t));
                });
            return;
        }
        const intprod::Requantize rq = requantization(ctx, m);
        auto* y = static_cast<uint8_t*>(out.mutableRaw());
        intprod::convolve(x.dtype(), xb, xz[0], weights, x.dim(0), c, m_group, g, ctx.threadPool(),
            [&](int64_t b, int64_t row0, int64_t rows, int64_t col0, int64_t cols, const int32_t* acc) {
                for (int64_t r = 0; r < rows; ++r)
                    rq.row(acc + r * cols, cols, row0 + r, y + (b * m + row0 + r) * outSize + col0);
            });
        if (m_channelsLast)
            toChannelsLast(out, *nhwcOut);
    }

private:
    /// x_scale * w_scale / y_scale per output channel (formed in float, as onnxruntime does), the int32 bias and
    /// y_zero_point.
    intprod::Requantize requantization(KernelContext& ctx, int64_t m) const
    {
        const auto scalars = [&](size_t i, const char* what, int64_t perChannel) {
            const Tensor& t = ctx.input(i);
            if (t.dtype() != DataType::Float || (t.size() != 1 && t.size() != perChannel))
                throw ctx.error(std::string(what) + " must be a float scalar" + (perChannel > 1 ? " or [M]" : "")
                    + ", got " + t.typeString());
            auto d = t.data<float>();
            return std::vector<float>(d.begin(), d.end());
        };
        const auto xs = scalars(1, "x_scale", 1), ws = scalars(4, "w_scale", m), ys = scalars(6, "y_scale", 1);
        for (const auto* v : { &xs, &ws, &ys })
            for (float e : *v)
                if (!std::isfinite(e) || (v == &ys && e == 0))
                    throw ctx.error("scales must be finite and y_scale non-zero");
        const Tensor& yzp = ctx.input(7);
        if (yzp.size() != 1 || (yzp.dtype() != DataType::UInt8 && yzp.dtype() != DataType::Int8))
            throw ctx.error("y_zero_point must be a uint8 or int8 scalar, got " + yzp.typeString());
        intprod::Requantize rq;
        rq.type = yzp.dtype();
        rq.zero = yzp.dtype() == DataType::Int8 ? yzp.data<int8_t>()[0] : yzp.data<uint8_t>()[0];
        if (ctx.hasInput(8)) {
            const Tensor& b = ctx.input(8);
            if (b.dtype() != DataType::Int32 || b.size() != m)
                throw ctx.error("B must be int32 [" + std::to_string(m) + "], got " + b.typeString());
            auto d = b.data<int32_t>();
            rq.bias.assign(d.begin(), d.end());
        }
        for (float w : ws)
            rq.scale.push_back(xs[0] * w / ys[0]);
        rq.setRange(false);
        return rq;
    }

    std::shared_ptr<const intprod::Weights> preparedWeights(
        const Tensor& w, int64_t m, int64_t perRow, const std::vector<int32_t>& wz) const
    {
        const auto prepare = [&] {
            return std::make_shared<const intprod::Weights>(
                intprod::prepareWeights(w.dtype(), w.raw(), m, perRow, perRow, 1, wz));
        };
        if (!m_constantWeights)
            return prepare();
        std::lock_guard lock(m_cacheMutex);
        if (!m_cached || m_cachedKey != w.raw()) {
            m_cached = prepare();
            m_cachedKey = w.raw();
        }
        return m_cached;
    }

    /// x [N, spatial..., C] as [N, C, spatial...].
    static Tensor toChannelsFirst(const KernelContext& ctx, const Tensor& x)
    {
        if (x.rank() < 3)
            throw ctx.error("x " + shapeToString(x.shape()) + " must have rank 3 or more");
        const int64_t n = x.dim(0), c = x.dim(x.rank() - 1), image = n * c == 0 ? 0 : x.size() / (n * c);
        Shape shape { n, c };
        shape.insert(shape.end(), x.shape().begin() + 1, x.shape().end() - 1);
        Tensor out(x.dtype(), shape);
        const auto* src = static_cast<const uint8_t*>(x.raw());
        auto* dst = static_cast<uint8_t*>(out.mutableRaw());
        for (int64_t b = 0; b < n; ++b)
            for (int64_t p = 0; p < image; ++p)
                for (int64_t ch = 0; ch < c; ++ch)
                    dst[(b * c + ch) * image + p] = src[(b * image + p) * c + ch];
        return out;
    }

    /// y [N, C, spatial...] written into `out` [N, spatial..., C] (one-byte elements).
    static void toChannelsLast(const Tensor& y, Tensor& out)
    {
        const int64_t n = y.dim(0), c = y.dim(1), image = n * c == 0 ? 0 : y.size() / (n * c);
        const auto* src = static_cast<const uint8_t*>(y.raw());
        auto* dst = static_cast<uint8_t*>(out.mutableRaw());
        for (int64_t b = 0; b < n; ++b)
            for (int64_t ch = 0; ch < c; ++ch)
                for (int64_t p = 0; p < image; ++p)
                    dst[(b * image + p) * c + ch] = src[(b * c + ch) * image + p];
    }

    bool m_quantized;
    WindowAttributes m_window;
    int64_t m_group;
    bool m_channelsLast;
    /// Constant weights (and zero point) are prepared on the first run and kept while their storage stays the same.
    bool m_constantWeights;
    mutable std::mutex m_cacheMutex;
    mutable std::shared_ptr<const intprod::Weights> m_cached;
    mutable const void* m_cachedKey = nullptr;
};

template <bool Q> KernelFactory convIntegerFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<ConvInteger>(init, Q); };
}

} // namespace

void registerConvInteger(KernelRegistry& r)
{
    r.add("", "ConvInteger", 10, 10, convIntegerFactory<false>());
    r.add("", "QLinearConv", 10, 10, convIntegerFactory<true>());
}

void registerContribQLinearConv(KernelRegistry& r)
{
    r.add("com.microsoft", "QLinearConv", 1, KernelRegistry::kLatest,
        [](const KernelInit& init) -> std::unique_ptr<Kernel> {
            return std::make_unique<ConvInteger>(init, true, true);
        });
}

} // namespace onnxscope
