// SPDX-License-Identifier: MIT
#include "engine/kernels/nn/resize_core.h"

#include "engine/core/thread_pool.h"
#include "engine/kernels/common/dispatch.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onnxscope {

namespace {

/// For one axis: for every output position, `taps` input indices (clamped into the axis) and their weights, and
/// whether the position lies outside the roi (tf_crop_and_resize only).
struct AxisTaps {
    int64_t taps = 1;
    std::vector<int64_t> index;
    std::vector<double> weight;
    std::vector<uint8_t> outside;
    bool anyOutside = false;
    bool identity = false;
};

double originalCoordinate(const ResizeParams& p, const ResizeAxis& a, int64_t inLength, int64_t x)
{
    const double xr = static_cast<double>(x);
    const double in = static_cast<double>(inLength);
    switch (p.coordinates) {
    case CoordinateMode::HalfPixel:
        return (xr + 0.5) / a.scale - 0.5;
    case CoordinateMode::HalfPixelSymmetric: {
        const double adjustment = static_cast<double>(a.outLength) / (a.scale * in);
        const double offset = in / 2 * (1 - adjustment);
        return offset + (xr + 0.5) / a.scale - 0.5;
    }
    case CoordinateMode::PytorchHalfPixel:
        return a.outLength > 1 ? (xr + 0.5) / a.scale - 0.5 : 0.0;
    case CoordinateMode::AlignCorners:
        return a.resizedLength == 1.0 ? 0.0 : xr * (in - 1) / (a.resizedLength - 1);
    case CoordinateMode::Asymmetric:
        return xr / a.scale;
    case CoordinateMode::TfHalfPixelForNn:
        return (xr + 0.5) / a.scale;
    case CoordinateMode::TfCropAndResize:
        if (a.resizedLength == 1.0)
            return (a.roiEnd - a.roiStart) * (in - 1) / 2 + a.roiStart * (in - 1);
        return xr * (a.roiEnd - a.roiStart) * (in - 1) / (a.resizedLength - 1) + a.roiStart * (in - 1);
    }
    return 0.0;
}

int64_t nearestIndex(NearestMode mode, double x, double scale)
{
    double r = 0;
    switch (mode) {
    case NearestMode::RoundPreferFloor:
        r = std::ceil(x - 0.5);
        break;
    case NearestMode::RoundPreferCeil:
        r = std::floor(x + 0.5);
        break;
    case NearestMode::Floor:
        r = std::floor(x);
        break;
    case NearestMode::Ceil:
        r = std::ceil(x);
        break;
    case NearestMode::Legacy:
        r = scale < 1 ? std::ceil(x) : std::floor(x);
        break;
    }
    // Coordinates are finite and bounded by the axis lengths, so this conversion cannot overflow.
    return static_cast<int64_t>(r);
}

void cubicCoefficients(double t, double A, double c[4])
{
    const double s = 1 - t;
    c[0] = ((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A;
    c[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
    c[2] = ((A + 2) * s - (A + 3)) * s * s + 1;
    c[3] = ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A;
}

/// First tap offset (relative to floor(x)) of the antialiased filter of ONNX's reference: the support of the
/// linear (radius 1) or cubic (radius 2) kernel stretched by 1 / scale when downsampling.
int64_t antialiasStart(const ResizeParams& p, double scale)
{
    const double s = std::min(scale, 1.0);
    return static_cast<int64_t>(std::floor((p.mode == ResizeMode::Linear ? -1.0 : -2.0) / s)) + 1;
}

double antialiasCoefficient(const ResizeParams& p, double x)
{
    x = std::fabs(x);
    if (p.mode == ResizeMode::Linear)
        return std::max(0.0, 1 - x);
    const double A = p.cubicA;
    if (x <= 1)
        return ((A + 2) * x - (A + 3)) * x * x + 1;
    if (x < 2)
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
    return 0;
}

AxisTaps axisTaps(const ResizeParams& p, const ResizeAxis& a, int64_t inLength)
{
    AxisTaps t;
    t.taps = p.mode == ResizeMode::Nearest ? 1 : p.mode == ResizeMode::Linear ? 2 : 4;
    const bool antialias = p.antialias && p.mode != ResizeMode::Nearest;
    int64_t aaStart = 0;
    if (antialias) {
        if (!(a.scale > 1e-6))
            throw Error("antialias needs a scale above 1e-6, got " + std::to_string(a.scale));
        aaStart = antialiasStart(p, a.scale);
        t.taps = 2 - 2 * aaStart;
    }
    const size_t n = static_cast<size_t>(a.outLength * t.taps);
    t.index.resize(n);
    t.weight.resize(n);
    t.outside.assign(static_cast<size_t>(a.outLength), 0);
    const int64_t last = inLength - 1;
    t.identity = a.outLength == inLength;
    for (int64_t o = 0; o < a.outLength; ++o) {
        const double x = originalCoordinate(p, a, inLength, o);
        const size_t base = static_cast<size_t>(o * t.taps);
        if (p.coordinates == CoordinateMode::TfCropAndResize && (x < 0 || x > static_cast<double>(last))) {
            t.outside[static_cast<size_t>(o)] = 1;
            t.anyOutside = true;
            t.identity = false;
            for (int64_t k = 0; k < t.taps; ++k) {
                t.index[base + static_cast<size_t>(k)] = 0;
                t.weight[base + static_cast<size_t>(k)] = 0;
            }
            continue;
        }
        if (!std::isfinite(x) || std::abs(x) > 4.0e18)
            throw Error("resize coordinate is not finite");
        if (p.mode == ResizeMode::Nearest) {
            t.index[base] = std::clamp<int64_t>(nearestIndex(p.nearest, x, a.scale), 0, last);
            t.weight[base] = 1;
            t.identity = t.identity && t.index[base] == o;
            continue;
        }
        double fl = std::floor(x);
        double ratio = x - fl;
        std::vector<double> cv;
        double c4[4];
        double* c = c4;
        int64_t first;
        if (antialias) {
            // As ONNX's reference: an integral x is taken as floor(x) - 1 with ratio 1.
            if (ratio == 0) {
                fl -= 1;
                ratio = 1;
            }
            const double s = std::min(a.scale, 1.0);
            cv.resize(static_cast<size_t>(t.taps));
            double sum = 0;
            for (int64_t k = 0; k < t.taps; ++k) {
                cv[static_cast<size_t>(k)] = antialiasCoefficient(p, s * (static_cast<double>(aaStart + k) - ratio));
                sum += cv[static_cast<size_t>(k)];
            }
            for (double& v : cv)
                v /= sum;
            c = cv.data();
            first = static_cast<int64_t>(fl) + aaStart;
        } else if (p.mode == ResizeMode::Linear) {
            c[0] = 1 - ratio;
            c[1] = ratio;
            first = static_cast<int64_t>(fl);
        } else {
            cubicCoefficients(ratio, p.cubicA, c);
            first = static_cast<int64_t>(fl) - 1;
        }
        if (p.excludeOutside) {
            double sum = 0;
            for (int64_t k = 0; k < t.taps; ++k) {
                if (first + k < 0 || first + k > last)
                    c[k] = 0;
                sum += c[k];
            }
            if (sum != 0)
                for (int64_t k = 0; k < t.taps; ++k)
                    c[k] /= sum;
        }
        for (int64_t k = 0; k < t.taps; ++k) {
            t.index[base + static_cast<size_t>(k)] = std::clamp<int64_t>(first + k, 0, last);
            t.weight[base + static_cast<size_t>(k)] = c[k];
        }
        // x == o exactly gives the weights of a copy (with exclude_outside too: the one nonzero weight is 1).
        t.identity = t.identity && x == static_cast<double>(o);
    }
    return t;
}

template <class T> T fromDouble(double v)
{
    if constexpr (std::is_integral_v<T>) {
        if (std::isnan(v))
            return T(0);
        const double r = std::nearbyint(v);
        if (r <= static_cast<double>(std::numeric_limits<T>::lowest()))
            return std::numeric_limits<T>::lowest();
        if (r >= static_cast<double>(std::numeric_limits<T>::max()))
            return std::numeric_limits<T>::max();
        return static_cast<T>(r);
    } else {
        return static_cast<T>(v);
    }
}

/// Visits every output element in row-major order, passing its flat index and the flat index of its source
/// element (nearest) computed from per-axis offsets.
void gatherNearest(
    const Shape& inShape, const std::vector<AxisTaps>& taps, const Shape& outShape, std::vector<int64_t>& sourceOut)
{
    const auto inStrides = stridesOf(inShape);
    const size_t rank = outShape.size();
    int64_t total = 1;
    for (int64_t d : outShape)
        total *= d;
    sourceOut.resize(static_cast<size_t>(total));
    if (total == 0)
        return;
    std::vector<int64_t> pos(rank, 0);
    for (int64_t i = 0; i < total; ++i) {
        int64_t src = 0;
        for (size_t d = 0; d < rank; ++d)
            src += taps[d].index[static_cast<size_t>(pos[d])] * inStrides[d];
        sourceOut[static_cast<size_t>(i)] = src;
        for (size_t d = rank; d-- > 0;) {
            if (++pos[d] < outShape[d])
                break;
            pos[d] = 0;
        }
    }
}

/// Flags output elements that are outside the roi along any axis.
std::vector<uint8_t> outsideMask(const std::vector<AxisTaps>& taps, const Shape& outShape, int64_t total)
{
    std::vector<uint8_t> mask(static_cast<size_t>(total), 0);
    const size_t rank = outShape.size();
    std::vector<int64_t> pos(rank, 0);
    for (int64_t i = 0; i < total; ++i) {
        for (size_t d = 0; d < rank; ++d)
            if (taps[d].outside[static_cast<size_t>(pos[d])]) {
                mask[static_cast<size_t>(i)] = 1;
                break;
            }
        for (size_t d = rank; d-- > 0;) {
            if (++pos[d] < outShape[d])
                break;
            pos[d] = 0;
        }
    }
    return mask;
}

} // namespace

/// Linear or cubic resizing of the last two axes of float planes (2-D upsampling or downsampling of NCHW images, the
/// other axes kept), in float, plane by plane over the pool: each output row is first the weighted sum of its input
/// rows (whole rows, a vector loop), then each output element the weighted sum of that row's taps. The general path
/// below computes in double over the whole tensor, an axis at a time; this one differs by float rounding only.
void resizePlanes(ThreadPool* pool, const float* x, float* y, int64_t planes, int64_t inH, int64_t inW,
    const AxisTaps& rows, const AxisTaps& cols)
{
    const int64_t outH = static_cast<int64_t>(rows.outside.size()), outW = static_cast<int64_t>(cols.outside.size());
    const int64_t inPlane = inH * inW, outPlane = outH * outW;
    const std::vector<float> colWeight(cols.weight.begin(), cols.weight.end());
    const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, outPlane * cols.taps));
    parallelFor(pool, planes, grain, [&](int64_t p0, int64_t p1) {
        std::vector<float> row(static_cast<size_t>(inW));
        for (int64_t p = p0; p < p1; ++p) {
            const float* in = x + p * inPlane;
            float* out = y + p * outPlane;
            for (int64_t j = 0; j < outH; ++j) {
                std::fill(row.begin(), row.end(), 0.0f);
                for (int64_t k = 0; k < rows.taps; ++k) {
                    const size_t tk = static_cast<size_t>(j * rows.taps + k);
                    const auto w = static_cast<float>(rows.weight[tk]);
                    if (w == 0.0f)
                        continue;
                    const float* src = in + rows.index[tk] * inW;
                    for (int64_t i = 0; i < inW; ++i)
                        row[static_cast<size_t>(i)] += w * src[i];
                }
                float* o = out + j * outW;
                const int64_t* index = cols.index.data();
                const float* weight = colWeight.data();
                for (int64_t i = 0; i < outW; ++i) {
                    float v = 0.0f;
                    for (int64_t k = 0; k < cols.taps; ++k)
                        v += weight[i * cols.taps + k] * row[static_cast<size_t>(index[i * cols.taps + k])];
                    o[i] = v;
                }
            }
        }
    });
}

Tensor resizeTensor(
    const KernelContext& ctx, const ResizeParams& params, const Tensor& x, const std::vector<ResizeAxis>& axes)
{
    const size_t rank = static_cast<size_t>(x.rank());
    if (axes.size() != rank)
        throw ctx.error("internal: resize axes do not match the input rank");
    Shape outShape(rank);
    for (size_t d = 0; d < rank; ++d) {
        outShape[d] = axes[d].outLength;
        if (x.shape()[d] == 0 && axes[d].outLength > 0)
            throw ctx.error("cannot resize the empty axis " + std::to_string(d) + " of " + x.typeString() + " to "
                + std::to_string(axes[d].outLength));
    }
    Tensor out;
    try {
        out = Tensor::uninitialized(x.dtype(), outShape); // every path below writes every element
        // The working buffers hold 8 bytes per element of the larger of input and output.
        const size_t work = static_cast<size_t>(std::max(out.size(), x.size()));
        if (work > Tensor::allocationLimit() / 8)
            throw Error(
                "resizing " + x.typeString() + " to " + shapeToString(outShape) + " needs more memory than allowed");
    } catch (const Error& e) {
        throw ctx.error(e.what());
    }
    const int64_t total = out.size();
    if (total == 0)
        return out;
    std::vector<AxisTaps> taps(rank);
    try {
        for (size_t d = 0; d < rank; ++d)
            taps[d] = axisTaps(params, axes[d], x.shape()[d]);
    } catch (const Error& e) {
        throw ctx.error(e.what());
    }
    bool anyOutside = false;
    for (const auto& t : taps)
        anyOutside = anyOutside || t.anyOutside;

    if (params.mode == ResizeMode::Nearest && !anyOutside && rank > 0) {
        // Row by row: the source row of each output row, then a gather along the last axis; an output row with the
        // same source row as the previous one (upsampling) is a copy of it.
        const auto inStrides = stridesOf(x.shape());
        const int64_t outW = outShape[rank - 1];
        const int64_t rows = total / outW;
        const std::vector<int64_t>& col = taps[rank - 1].index;
        dispatch<AllTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            const T* src = x.data<T>().data();
            T* dst = out.data<T>().data();
            std::vector<int64_t> pos(rank, 0);
            int64_t previous = -1;
            for (int64_t r = 0; r < rows; ++r) {
                int64_t offset = 0;
                for (size_t d = 0; d + 1 < rank; ++d)
                    offset += taps[d].index[static_cast<size_t>(pos[d])] * inStrides[d];
                T* row = dst + r * outW;
                if (offset == previous) {
                    std::copy(row - outW, row, row);
                } else {
                    const T* in = src + offset;
                    for (int64_t j = 0; j < outW; ++j)
                        row[j] = in[col[static_cast<size_t>(j)]];
                }
                previous = offset;
                for (size_t d = rank - 1; d-- > 0;) {
                    if (++pos[d] < outShape[d])
                        break;
                    pos[d] = 0;
                }
            }
        });
        return out;
    }
    if (params.mode == ResizeMode::Nearest) {
        std::vector<int64_t> source;
        gatherNearest(x.shape(), taps, outShape, source);
        std::vector<uint8_t> mask;
        if (anyOutside)
            mask = outsideMask(taps, outShape, total);
        dispatch<AllTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto src = x.data<T>();
            auto dst = out.data<T>();
            for (int64_t i = 0; i < total; ++i)
                dst[static_cast<size_t>(i)] = src[static_cast<size_t>(source[static_cast<size_t>(i)])];
            if (anyOutside) {
                if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
                    const T fill = fromDouble<T>(params.extrapolationValue);
                    for (int64_t i = 0; i < total; ++i)
                        if (mask[static_cast<size_t>(i)])
                            dst[static_cast<size_t>(i)] = fill;
                } else {
                    throw ctx.error(
                        "tf_crop_and_resize cannot extrapolate " + std::string(dataTypeName(x.dtype())) + " elements");
                }
            }
        });
        return out;
    }

    if (x.dtype() == DataType::Float && !anyOutside && rank >= 2) {
        bool planar = true;
        for (size_t d = 0; d + 2 < rank; ++d)
            planar = planar && taps[d].identity;
        if (planar) {
            const int64_t inH = x.shape()[rank - 2], inW = x.shape()[rank - 1];
            resizePlanes(ctx.threadPool(), x.data<float>().data(), out.data<float>().data(),
                inH * inW == 0 ? 0 : x.size() / (inH * inW), inH, inW, taps[rank - 2], taps[rank - 1]);
            return out;
        }
    }
    // Linear and cubic: separable passes over the axes, in double precision.
    std::vector<double> buf;
    dispatch<NumericTypes>(x.dtype(),
        ctx.node().label() + ": " + (params.mode == ResizeMode::Linear ? "linear" : "cubic") + " mode", [&]<class T>() {
            auto src = x.data<T>();
            buf.resize(src.size());
            for (size_t i = 0; i < src.size(); ++i)
                buf[i] = static_cast<double>(src[i]);
        });
    // Shrinking axes first, then growing ones, so no intermediate is larger than max(input, output).
    std::vector<size_t> order(rank);
    for (size_t d = 0; d < rank; ++d)
        order[d] = d;
    std::stable_sort(order.begin(), order.end(), [&](size_t l, size_t r) {
        return static_cast<double>(outShape[l]) / static_cast<double>(x.shape()[l])
            < static_cast<double>(outShape[r]) / static_cast<double>(x.shape()[r]);
    });
    Shape cur = x.shape();
    for (size_t d : order) {
        const AxisTaps& t = taps[d];
        if (t.identity)
            continue;
        int64_t outer = 1, inner = 1;
        for (size_t k = 0; k < d; ++k)
            outer *= cur[k];
        for (size_t k = d + 1; k < rank; ++k)
            inner *= cur[k];
        const int64_t inLen = cur[d], outLen = outShape[d];
        std::vector<double> next(static_cast<size_t>(checkedMul(checkedMul(outer, outLen), inner)));
        for (int64_t a = 0; a < outer; ++a) {
            const double* s = buf.data() + a * inLen * inner;
            double* o = next.data() + a * outLen * inner;
            for (int64_t j = 0; j < outLen; ++j) {
                double* row = o + j * inner;
                for (int64_t k = 0; k < t.taps; ++k) {
                    const size_t tk = static_cast<size_t>(j * t.taps + k);
                    const double w = t.weight[tk];
                    if (w == 0)
                        continue;
                    const double* srow = s + t.index[tk] * inner;
                    for (int64_t b = 0; b < inner; ++b)
                        row[b] += w * srow[b];
                }
            }
        }
        buf.swap(next);
        cur[d] = outLen;
    }
    if (anyOutside) {
        const auto mask = outsideMask(taps, outShape, total);
        for (int64_t i = 0; i < total; ++i)
            if (mask[static_cast<size_t>(i)])
                buf[static_cast<size_t>(i)] = params.extrapolationValue;
    }
    dispatch<NumericTypes>(x.dtype(), ctx.node(), [&]<class T>() {
        auto dst = out.data<T>();
        for (size_t i = 0; i < dst.size(); ++i)
            dst[i] = fromDouble<T>(buf[i]);
    });
    return out;
}

bool parseCoordinateMode(const std::string& name, CoordinateMode& out)
{
    static const std::pair<const char*, CoordinateMode> names[] = {
        { "half_pixel", CoordinateMode::HalfPixel },
        { "half_pixel_symmetric", CoordinateMode::HalfPixelSymmetric },
        { "pytorch_half_pixel", CoordinateMode::PytorchHalfPixel },
        { "align_corners", CoordinateMode::AlignCorners },
        { "asymmetric", CoordinateMode::Asymmetric },
        { "tf_half_pixel_for_nn", CoordinateMode::TfHalfPixelForNn },
        { "tf_crop_and_resize", CoordinateMode::TfCropAndResize },
    };
    for (const auto& [n, m] : names)
        if (name == n) {
            out = m;
            return true;
        }
    return false;
}

bool parseNearestMode(const std::string& name, NearestMode& out)
{
    static const std::pair<const char*, NearestMode> names[] = {
        { "round_prefer_floor", NearestMode::RoundPreferFloor },
        { "round_prefer_ceil", NearestMode::RoundPreferCeil },
        { "floor", NearestMode::Floor },
        { "ceil", NearestMode::Ceil },
    };
    for (const auto& [n, m] : names)
        if (name == n) {
            out = m;
            return true;
        }
    return false;
}

} // namespace onnxscope
