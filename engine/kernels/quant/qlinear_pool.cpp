// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/im2col.h"
#include "engine/kernels/quant/qlinear_common.h"

#include <cmath>

namespace onnxscope {

namespace {

/// The N x C x image view of X: NCHW, or NHWC when `channelsLast` (C the last dimension).
struct PoolLayout {
    int64_t batch = 0, channels = 0, image = 1;
    Shape spatial;
    bool channelsLast = false;

    static PoolLayout of(const KernelContext& ctx, const Tensor& x, bool channelsLast)
    {
        if (x.rank() < 3)
            throw ctx.error("X must have rank 3 or more (N, C and the spatial dimensions), got " + x.typeString());
        PoolLayout l;
        l.channelsLast = channelsLast;
        l.batch = x.dim(0);
        l.channels = channelsLast ? x.dim(x.rank() - 1) : x.dim(1);
        const int64_t first = channelsLast ? 1 : 2;
        for (int64_t d = first; d < first + x.rank() - 2; ++d) {
            l.spatial.push_back(x.dim(d));
            l.image *= x.dim(d);
        }
        return l;
    }

    /// Element offset of (n, c, position p in the image).
    int64_t offset(int64_t n, int64_t c, int64_t p) const
    {
        return channelsLast ? (n * image + p) * channels + c : (n * channels + c) * image + p;
    }

    Shape shapeWith(const Shape& outSpatial) const
    {
        Shape s { batch };
        if (!channelsLast)
            s.push_back(channels);
        s.insert(s.end(), outSpatial.begin(), outSpatial.end());
        if (channelsLast)
            s.push_back(channels);
        return s;
    }
};

/// The global average of every (n, c) image as onnxruntime computes it in integers: (sum of X - image *
/// x_zero_point) times x_scale / (y_scale * image) in float, rounded half to even, plus y_zero_point, saturated.
template <class T>
void globalAverage(const Tensor& x, Tensor& y, const PoolLayout& l, qlinear::Params px, qlinear::Params py)
{
    const T* in = x.data<T>().data();
    T* out = y.data<T>().data();
    const float scale = px.scale / (py.scale * static_cast<float>(l.image));
    for (int64_t n = 0; n < l.batch; ++n)
        for (int64_t c = 0; c < l.channels; ++c) {
            int64_t acc = -int64_t(px.zeroPoint) * l.image;
            for (int64_t p = 0; p < l.image; ++p)
                acc += in[l.offset(n, c, p)];
            const auto q = static_cast<int64_t>(std::nearbyint(static_cast<float>(acc) * scale)) + py.zeroPoint;
            out[n * l.channels + c] = qlinear::saturate<T>(q);
        }
}

/// QLinearGlobalAveragePool (com.microsoft 1): Y[n, c, 1, ...] = the requantized mean of X[n, c, ...], uint8 or int8,
/// NCHW or, with `channels_last`, NHWC; scales and zero points per tensor.
class QLinearGlobalAveragePool final : public Kernel {
public:
    explicit QLinearGlobalAveragePool(const KernelInit& init)
        : m_channelsLast(init.attributes().getInt("channels_last", 0) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const DataType t = qlinear::requireByteType(ctx, 0, "X");
        const Tensor& x = ctx.input(0);
        const qlinear::Params px = qlinear::params(ctx, 1, 2, t, "X");
        const qlinear::Params py = qlinear::params(ctx, 3, 4, t, "Y");
        const PoolLayout l = PoolLayout::of(ctx, x, m_channelsLast);
        Tensor& y = ctx.allocateOutputUninitialized(0, t, l.shapeWith(Shape(l.spatial.size(), 1)));
        if (l.image == 0)
            throw ctx.error("cannot average an empty image " + x.typeString());
        if (t == DataType::UInt8)
            globalAverage<uint8_t>(x, y, l, px, py);
        else
            globalAverage<int8_t>(x, y, l, px, py);
    }

private:
    bool m_channelsLast;
};

/// QLinearAveragePool (com.microsoft 1): AveragePool over dequantized X, requantized, as onnxruntime computes it:
/// X dequantized to float (x_scale * (x - x_zero_point)), each window summed in float in row-major order, divided by
/// its element count (the whole kernel with `count_include_pad`, else the part inside X), then y = round_half_even(
/// mean / y_scale + y_zero_point) saturated. 1 to 3 spatial dimensions; kernel_shape (required), strides, pads,
/// auto_pad, ceil_mode, count_include_pad, channels_last (NHWC). A kernel covering the whole image without padding
/// runs as QLinearGlobalAveragePool's integer rule, as in onnxruntime. No dilations (the schema has none).
class QLinearAveragePool final : public Kernel {
public:
    explicit QLinearAveragePool(const KernelInit& init)
        : m_window(WindowAttributes::parse(init, true))
        , m_countIncludePad(init.attributes().getInt("count_include_pad", 0) != 0)
        , m_channelsLast(init.attributes().getInt("channels_last", 0) != 0)
    {
        for (int64_t d : m_window.dilations)
            if (d != 1)
                throw init.attributes().error("dilations", "QLinearAveragePool has no dilations; only 1 is supported");
        if (m_window.kernelShape.empty() || m_window.kernelShape.size() > 3)
            throw init.attributes().error(
                "kernel_shape", "expected 1 to 3 values, got " + std::to_string(m_window.kernelShape.size()));
    }

    void compute(KernelContext& ctx) const override
    {
        const DataType t = qlinear::requireByteType(ctx, 0, "X");
        const Tensor& x = ctx.input(0);
        const qlinear::Params px = qlinear::params(ctx, 1, 2, t, "X");
        const qlinear::Params py = qlinear::params(ctx, 3, 4, t, "Y");
        const PoolLayout l = PoolLayout::of(ctx, x, m_channelsLast);
        if (l.spatial.size() != m_window.kernelShape.size())
            throw ctx.error("attribute 'kernel_shape' " + shapeToString(m_window.kernelShape) + " does not match the "
                + std::to_string(l.spatial.size()) + " spatial dimensions of X " + x.typeString());
        const WindowGeometry g = resolveWindow(ctx, m_window, l.spatial, m_window.kernelShape);
        Tensor& y = ctx.allocateOutputUninitialized(0, t, l.shapeWith(g.outSpatial()));
        bool global = true;
        for (size_t i = 0; i < WindowGeometry::kMaxRank; ++i)
            global = global && g.kernel[i] == g.in[i] && g.padBegin[i] == 0 && g.padEnd[i] == 0;
        if (global && l.image > 0) {
            if (t == DataType::UInt8)
                globalAverage<uint8_t>(x, y, l, px, py);
            else
                globalAverage<int8_t>(x, y, l, px, py);
            return;
        }
        if (t == DataType::UInt8)
            run<uint8_t>(x, y, l, g, px, py);
        else
            run<int8_t>(x, y, l, g, px, py);
    }

private:
    template <class T>
    void run(const Tensor& x, Tensor& y, const PoolLayout& l, const WindowGeometry& g, qlinear::Params px,
        qlinear::Params py) const
    {
        const T* in = x.data<T>().data();
        T* out = y.data<T>().data();
        const int64_t outImage = g.outSize();
        PoolLayout ol = l;
        ol.image = outImage;
        std::array<float, 256> real {};
        for (int i = 0; i < 256; ++i) {
            const T q = static_cast<T>(static_cast<uint8_t>(i));
            real[static_cast<size_t>(i)] = px.scale * static_cast<float>(int32_t(q) - px.zeroPoint);
        }
        const auto lo = static_cast<int64_t>(std::numeric_limits<T>::lowest());
        const auto hi = static_cast<int64_t>(std::numeric_limits<T>::max());
        for (int64_t n = 0; n < l.batch; ++n)
            for (int64_t c = 0; c < l.channels; ++c)
                for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
                    for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
                        for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                            std::array<int64_t, 3> start {}, end {};
                            const std::array<int64_t, 3> o { o0, o1, o2 };
                            int64_t count = 1;
                            for (size_t d = 0; d < 3; ++d) {
                                start[d] = o[d] * g.stride[d] - g.padBegin[d];
                                end[d] = std::min(start[d] + g.kernel[d], g.in[d]);
                                start[d] = std::max<int64_t>(start[d], 0);
                                count *= std::max<int64_t>(end[d] - start[d], 0);
                            }
                            float sum = 0;
                            for (int64_t i0 = start[0]; i0 < end[0]; ++i0)
                                for (int64_t i1 = start[1]; i1 < end[1]; ++i1)
                                    for (int64_t i2 = start[2]; i2 < end[2]; ++i2) {
                                        const int64_t p = (i0 * g.in[1] + i1) * g.in[2] + i2;
                                        sum += real[static_cast<uint8_t>(in[l.offset(n, c, p)])];
                                    }
                            const int64_t divisor = m_countIncludePad ? g.kernelSize() : count;
                            const float mean = divisor == 0 ? 0.0f : sum / static_cast<float>(divisor);
                            const float v = std::clamp(mean / py.scale + static_cast<float>(py.zeroPoint), -1e9f, 1e9f);
                            const int64_t p = (o0 * g.out[1] + o1) * g.out[2] + o2;
                            out[ol.offset(n, c, p)]
                                = static_cast<T>(std::clamp(static_cast<int64_t>(std::nearbyint(v)), lo, hi));
                        }
    }

    WindowAttributes m_window;
    bool m_countIncludePad;
    bool m_channelsLast;
};

} // namespace

void registerQLinearPool(KernelRegistry& r)
{
    r.add("com.microsoft", "QLinearGlobalAveragePool", 1, KernelRegistry::kLatest,
        makeFactory<QLinearGlobalAveragePool>());
    r.add("com.microsoft", "QLinearAveragePool", 1, KernelRegistry::kLatest, makeFactory<QLinearAveragePool>());
}

} // namespace onnxscope
