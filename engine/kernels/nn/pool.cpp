// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/im2col.h"
#include "engine/kernels/simd/simd.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

namespace onnxscope {

namespace {

enum class PoolKind { Max, Average, Lp };

int64_t ceilDiv(int64_t a, int64_t b)
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}
/// First kernel tap k >= 0 with start + k * d >= bound.
int64_t tapsFrom(int64_t start, int64_t bound, int64_t d)
{
    return start >= bound ? 0 : ceilDiv(bound - start, d);
}
/// One past the last kernel tap with start + k * d < bound (0 if none); not capped by the kernel size.
int64_t tapsUntil(int64_t start, int64_t bound, int64_t d)
{
    return bound <= start ? 0 : ceilDiv(bound - start, d);
}

/// The start of a running maximum: -inf for float, else the type's lowest value.
template <class T> T lowestOf()
{
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
}

/// maxPool2d for windows that tile the plane (kernel = stride, no padding) of one plane: each output element is the
/// running maximum of its own block, taps in the same order as the general loop. KW: the kernel width if known, else 0.
template <class T, int KW> void maxPoolTiles(const T* img, T* o, const WindowGeometry& g)
{
    const int64_t inW = g.in[2], outH = g.out[1], outW = g.out[2], kH = g.kernel[1];
    const int64_t kW = KW ? KW : g.kernel[2];
    for (int64_t oh = 0; oh < outH; ++oh, o += outW) {
        const T* rows = img + oh * kH * inW;
        for (int64_t ow = 0; ow < outW; ++ow) {
            T best = lowestOf<T>();
            for (int64_t kh = 0; kh < kH; ++kh) {
                const T* block = rows + kh * inW + ow * kW;
                for (int64_t kw = 0; kw < kW; ++kw)
                    best = block[kw] > best ? block[kw] : best;
            }
            o[ow] = best;
        }
    }
}

/// MaxPool over 2-D planes of float, uint8 or int8 without dilation: per output row, a running maximum over the
/// kernel taps, each a vector loop along the row. Same results as the general loop (NaN skipped, -inf or the type's
/// lowest value for an empty window).
template <class T> void maxPool2d(ThreadPool* pool, const T* x, T* y, int64_t planes, const WindowGeometry& g)
{
    const int64_t inH = g.in[1], inW = g.in[2], outH = g.out[1], outW = g.out[2];
    const int64_t kH = g.kernel[1], kW = g.kernel[2], sH = g.stride[1], sW = g.stride[2];
    const int64_t padT = g.padBegin[1], padL = g.padBegin[2];
    const bool tiling = padT == 0 && padL == 0 && kH == sH && kW == sW && outH * kH <= inH && outW * kW <= inW;
    parallelFor(pool, planes, std::max<int64_t>(1, simd::kGrainElements / std::max<int64_t>(1, outH * outW * kH * kW)),
        [&](int64_t p0, int64_t p1) {
            if (tiling) {
                for (int64_t p = p0; p < p1; ++p)
                    if (kW == 2)
                        maxPoolTiles<T, 2>(x + p * inH * inW, y + p * outH * outW, g);
                    else
                        maxPoolTiles<T, 0>(x + p * inH * inW, y + p * outH * outW, g);
                return;
            }
            for (int64_t p = p0; p < p1; ++p) {
                const T* img = x + p * inH * inW;
                for (int64_t oh = 0; oh < outH; ++oh) {
                    T* o = y + (p * outH + oh) * outW;
                    std::fill(o, o + outW, lowestOf<T>());
                    for (int64_t kh = 0; kh < kH; ++kh) {
                        const int64_t ih = oh * sH - padT + kh;
                        if (ih < 0 || ih >= inH)
                            continue;
                        const T* row = img + ih * inW;
                        for (int64_t kw = 0; kw < kW; ++kw) {
                            const int64_t shift = kw - padL; // input column = ow * sW + shift
                            const int64_t lo = std::min(outW, shift >= 0 ? 0 : ceilDiv(-shift, sW));
                            const int64_t hi
                                = std::clamp<int64_t>(inW - shift <= 0 ? 0 : ceilDiv(inW - shift, sW), lo, outW);
                            for (int64_t ow = lo; ow < hi; ++ow) {
                                const T v = row[ow * sW + shift];
                                o[ow] = v > o[ow] ? v : o[ow];
                            }
                        }
                    }
                }
            }
        });
}

/// MaxPool 1, 8, 10, 11, 12 (optional Indices output, storage_order, ceil_mode, dilations; float types, int8 and
/// uint8), AveragePool 1, 7, 10, 11 (count_include_pad, ceil_mode; dilations as AveragePool 19 defines them) and
/// LpPool 1, 2, 11, 18 (p, ceil_mode and dilations). 1-D to 3-D. Every attribute is accepted in every version.
/// NaN elements are skipped by MaxPool, as ONNX's reference does; windows that lie wholly in the padding give the
/// lowest value (index -1) for MaxPool and NaN for AveragePool without count_include_pad.
class Pool final : public Kernel {
public:
    Pool(const KernelInit& init, PoolKind kind)
        : m_kind(kind)
        , m_window(WindowAttributes::parse(init, true))
    {
        const NodeAttributes& attrs = init.attributes();
        m_countIncludePad = attrs.getInt("count_include_pad", 0) != 0;
        m_columnMajor = attrs.getInt("storage_order", 0) != 0;
        if (kind == PoolKind::Lp)
            m_p = init.opset() < 2 ? attrs.getFloat("p", 2.0f) : static_cast<double>(attrs.getInt("p", 2));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() < 3)
            throw ctx.error("X must be [N, C, spatial...], got " + shapeToString(x.shape()));
        const std::span<const int64_t> spatial(x.shape().begin() + 2, x.shape().end());
        const WindowGeometry g = resolveWindow(ctx, m_window, spatial, m_window.kernelShape);
        Shape outShape { x.dim(0), x.dim(1) };
        for (int64_t d : g.outSpatial())
            outShape.push_back(d);
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), outShape);
        Tensor* indices
            = ctx.hasOutput(1) && m_kind == PoolKind::Max ? &ctx.allocateOutput(1, DataType::Int64, outShape) : nullptr;
        if (m_kind == PoolKind::Max && !indices && g.in[0] == 1 && g.out[0] == 1 && g.kernel[0] == 1
            && g.padBegin[0] == 0 && g.dilation[1] == 1 && g.dilation[2] == 1) {
            const int64_t planes = x.dim(0) * x.dim(1);
            switch (x.dtype()) {
            case DataType::Float:
                return maxPool2d(ctx.threadPool(), x.data<float>().data(), y.data<float>().data(), planes, g);
            case DataType::UInt8:
                return maxPool2d(ctx.threadPool(), x.data<uint8_t>().data(), y.data<uint8_t>().data(), planes, g);
            case DataType::Int8:
                return maxPool2d(ctx.threadPool(), x.data<int8_t>().data(), y.data<int8_t>().data(), planes, g);
            default:
                break;
            }
        }
        const auto run = [&]<class T>() {
            using F = std::conditional_t<std::is_same_v<T, double>, double,
                std::conditional_t<std::is_floating_point_v<T> || !std::is_arithmetic_v<T>, float, T>>;
            pool<T, F>(x.data<T>().data(), y.data<T>().data(), indices ? indices->data<int64_t>().data() : nullptr,
                x.dim(0) * x.dim(1), g);
        };
        if (m_kind == PoolKind::Max)
            dispatch<TypeList<float, double, Float16, BFloat16, int8_t, uint8_t>>(x.dtype(), ctx.node(), run);
        else
            dispatch<FloatTypes>(x.dtype(), ctx.node(), run);
    }

private:
    template <class T, class F>
    void pool(const T* x, T* y, int64_t* indices, int64_t planes, const WindowGeometry& g) const
    {
        const int64_t inSize = g.inSize();
        // Element strides of the spatial axes for Indices (storage_order 1 is column-major over the spatial axes).
        const std::array<int64_t, 3> idxStride = m_columnMajor
            ? std::array<int64_t, 3> { 1, g.in[0], g.in[0] * g.in[1] }
            : std::array<int64_t, 3> { g.in[1] * g.in[2], g.in[2], 1 };
        for (int64_t plane = 0; plane < planes; ++plane) {
            const T* img = x + plane * inSize;
            for (int64_t od = 0; od < g.out[0]; ++od)
                for (int64_t oh = 0; oh < g.out[1]; ++oh)
                    for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                        const std::array<int64_t, 3> start { od * g.stride[0] - g.padBegin[0],
                            oh * g.stride[1] - g.padBegin[1], ow * g.stride[2] - g.padBegin[2] };
                        F best = std::numeric_limits<F>::has_infinity ? -std::numeric_limits<F>::infinity()
                                                                      : std::numeric_limits<F>::lowest();
                        int64_t bestIndex = -1, valid = 0, inPadded = 1;
                        F sum = 0;
                        // Per axis, the kernel taps [lo, hi) that land in the input, and the count in the padded input.
                        std::array<int64_t, 3> lo {}, hi {};
                        for (size_t a = 0; a < 3; ++a) {
                            lo[a] = tapsFrom(start[a], 0, g.dilation[a]);
                            hi[a] = std::min(g.kernel[a], tapsUntil(start[a], g.in[a], g.dilation[a]));
                            inPadded *= std::max<int64_t>(0,
                                std::min(g.kernel[a], tapsUntil(start[a], g.in[a] + g.padEnd[a], g.dilation[a]))
                                    - tapsFrom(start[a], -g.padBegin[a], g.dilation[a]));
                        }
                        for (int64_t kd = lo[0]; kd < hi[0]; ++kd) {
                            const int64_t id = start[0] + kd * g.dilation[0];
                            for (int64_t kh = lo[1]; kh < hi[1]; ++kh) {
                                const int64_t ih = start[1] + kh * g.dilation[1];
                                const T* row = img + (id * g.in[1] + ih) * g.in[2];
                                for (int64_t kw = lo[2]; kw < hi[2]; ++kw) {
                                    const int64_t iw = start[2] + kw * g.dilation[2];
                                    const F v = static_cast<F>(row[iw]);
                                    ++valid;
                                    if (m_kind == PoolKind::Max) {
                                        if (v == v && (bestIndex < 0 || v > best)) {
                                            best = v;
                                            bestIndex = id * idxStride[0] + ih * idxStride[1] + iw * idxStride[2];
                                        }
                                    } else if (m_kind == PoolKind::Average) {
                                        sum += v;
                                    } else {
                                        sum += static_cast<F>(std::pow(std::abs(static_cast<double>(v)), m_p));
                                    }
                                }
                            }
                        }
                        const int64_t o = plane * g.outSize() + (od * g.out[1] + oh) * g.out[2] + ow;
                        if (m_kind == PoolKind::Max) {
                            y[o] = static_cast<T>(best);
                            if (indices)
                                indices[o] = bestIndex < 0 ? -1 : plane * inSize + bestIndex;
                        } else if (m_kind == PoolKind::Average) {
                            y[o] = static_cast<T>(sum / static_cast<F>(m_countIncludePad ? inPadded : valid));
                        } else {
                            y[o] = static_cast<T>(std::pow(static_cast<double>(sum), 1.0 / m_p));
                        }
                    }
        }
    }

    PoolKind m_kind;
    WindowAttributes m_window;
    bool m_countIncludePad = false;
    bool m_columnMajor = false;
    double m_p = 2.0;
};

template <PoolKind K> KernelFactory poolFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Pool>(init, K); };
}

} // namespace

void registerPool(KernelRegistry& r)
{
    r.add("", "MaxPool", 1, 22, poolFactory<PoolKind::Max>());
    r.add("", "AveragePool", 1, 22, poolFactory<PoolKind::Average>());
    r.add("", "LpPool", 1, 22, poolFactory<PoolKind::Lp>());
}

} // namespace onnxscope
