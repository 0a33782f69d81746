// SPDX-License-Identifier: MIT
#include "engine/kernels/nn/im2col.h"

#include "engine/core/half.h"
#include "engine/core/thread_pool.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace onnxscope {

namespace {

int64_t checkedAdd(const KernelContext& ctx, int64_t a, int64_t b)
{
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        throw ctx.error("window size overflows int64");
    return r;
}

int64_t checkedProduct(const KernelContext& ctx, int64_t a, int64_t b)
{
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw ctx.error("window size overflows int64");
    return r;
}

int64_t ceilDiv(int64_t a, int64_t b)
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

std::vector<int64_t> positiveInts(const KernelInit& init, const std::string& name, bool allowZero)
{
    const NodeAttributes& attrs = init.attributes();
    std::vector<int64_t> v = attrs.getInts(name);
    for (int64_t x : v)
        if (x < 0 || (x == 0 && !allowZero))
            throw attrs.error(name,
                std::string("values must be ") + (allowZero ? "non-negative" : "positive") + ", got "
                    + shapeToString(v));
    return v;
}

} // namespace

WindowAttributes WindowAttributes::parse(const KernelInit& init, bool kernelShapeRequired)
{
    const NodeAttributes& attrs = init.attributes();
    WindowAttributes a;
    if (kernelShapeRequired && !attrs.has("kernel_shape"))
        throw attrs.error("kernel_shape", "is required");
    a.kernelShape = positiveInts(init, "kernel_shape", false);
    a.strides = positiveInts(init, "strides", false);
    a.dilations = positiveInts(init, "dilations", false);
    a.pads = positiveInts(init, "pads", true);
    const std::string autoPad = attrs.getString("auto_pad", "NOTSET");
    if (autoPad == "NOTSET" || autoPad.empty())
        a.autoPad = AutoPad::NotSet;
    else if (autoPad == "SAME_UPPER")
        a.autoPad = AutoPad::SameUpper;
    else if (autoPad == "SAME_LOWER")
        a.autoPad = AutoPad::SameLower;
    else if (autoPad == "VALID")
        a.autoPad = AutoPad::Valid;
    else
        throw attrs.error("auto_pad", "expected NOTSET, SAME_UPPER, SAME_LOWER or VALID, got '" + autoPad + "'");
    a.ceilMode = attrs.getInt("ceil_mode", 0) != 0;
    return a;
}

bool WindowGeometry::isPointwise() const
{
    for (size_t i = 0; i < kMaxRank; ++i)
        if (kernel[i] != 1 || stride[i] != 1 || padBegin[i] != 0 || in[i] != out[i])
            return false;
    return true;
}

Shape WindowGeometry::outSpatial() const
{
    return Shape(out.end() - rank, out.end());
}

WindowGeometry resolveWindow(const KernelContext& ctx, const WindowAttributes& attrs,
    std::span<const int64_t> inSpatial, std::span<const int64_t> kernel)
{
    const auto r = static_cast<int64_t>(inSpatial.size());
    if (r < 1 || r > static_cast<int64_t>(WindowGeometry::kMaxRank))
        throw ctx.error(
            "only 1-D, 2-D and 3-D windows are supported, the input has " + std::to_string(r) + " spatial dimensions");
    const auto expect = [&](const std::vector<int64_t>& v, int64_t n, const char* name) {
        if (!v.empty() && static_cast<int64_t>(v.size()) != n)
            throw ctx.error(std::string("attribute '") + name + "': expected " + std::to_string(n) + " values, got "
                + std::to_string(v.size()));
    };
    if (static_cast<int64_t>(kernel.size()) != r)
        throw ctx.error(
            "kernel has " + std::to_string(kernel.size()) + " spatial dimensions, the input has " + std::to_string(r));
    expect(attrs.strides, r, "strides");
    expect(attrs.dilations, r, "dilations");
    expect(attrs.pads, 2 * r, "pads");
    WindowGeometry g;
    g.rank = r;
    const size_t off = WindowGeometry::kMaxRank - static_cast<size_t>(r);
    for (int64_t i = 0; i < r; ++i) {
        const size_t j = off + static_cast<size_t>(i);
        const auto ui = static_cast<size_t>(i);
        const int64_t in = inSpatial[ui], k = kernel[ui];
        if (k < 1)
            throw ctx.error("kernel dimensions must be positive, got " + std::to_string(k));
        const int64_t s = attrs.strides.empty() ? 1 : attrs.strides[ui];
        const int64_t d = attrs.dilations.empty() ? 1 : attrs.dilations[ui];
        const int64_t effK = checkedAdd(ctx, checkedProduct(ctx, k - 1, d), 1);
        int64_t pb = 0, pe = 0, out = 0;
        switch (attrs.autoPad) {
        case AutoPad::NotSet: {
            pb = attrs.pads.empty() ? 0 : attrs.pads[ui];
            pe = attrs.pads.empty() ? 0 : attrs.pads[ui + static_cast<size_t>(r)];
            const int64_t span = checkedAdd(ctx, checkedAdd(ctx, in, pb), pe) - effK;
            if (span < 0)
                throw ctx.error("window of size " + std::to_string(effK) + " does not fit the padded input of size "
                    + std::to_string(span + effK) + " on spatial axis " + std::to_string(i));
            out = (attrs.ceilMode ? ceilDiv(span, s) : span / s) + 1;
            if (attrs.ceilMode && (out - 1) * s >= in + pb)
                --out;
            break;
        }
        case AutoPad::Valid:
            if (in < effK)
                throw ctx.error("window of size " + std::to_string(effK) + " does not fit the input of size "
                    + std::to_string(in) + " on spatial axis " + std::to_string(i));
            out = (in - effK) / s + 1;
            break;
        case AutoPad::SameUpper:
        case AutoPad::SameLower: {
            out = ceilDiv(in, s);
            const int64_t total = std::max<int64_t>(0, checkedAdd(ctx, checkedProduct(ctx, out - 1, s), effK) - in);
            pb = attrs.autoPad == AutoPad::SameUpper ? total / 2 : total - total / 2;
            pe = total - pb;
            break;
        }
        }
        g.in[j] = in;
        g.out[j] = out;
        g.kernel[j] = k;
        g.stride[j] = s;
        g.dilation[j] = d;
        g.padBegin[j] = pb;
        g.padEnd[j] = pe;
    }
    return g;
}

ConvWindow resolveConvWindow(
    const KernelContext& ctx, const WindowAttributes& attrs, const Tensor& x, const Shape& w, const char* weightName)
{
    const std::span<const int64_t> kernel(w.begin() + 2, w.end());
    if (!attrs.kernelShape.empty()
        && !std::equal(kernel.begin(), kernel.end(), attrs.kernelShape.begin(), attrs.kernelShape.end()))
        throw ctx.error("attribute 'kernel_shape' " + shapeToString(attrs.kernelShape) + " does not match " + weightName
            + " " + shapeToString(w));
    const std::span<const int64_t> spatial(x.shape().begin() + 2, x.shape().end());
    ConvWindow window { resolveWindow(ctx, attrs, spatial, kernel), Shape { x.dim(0), w[0] } };
    for (int64_t d : window.geometry.outSpatial())
        window.outShape.push_back(d);
    return window;
}

namespace {

/// [lo, hi) of output positions o along one axis for which o * s - pad + koff lies in [0, in).
inline void validRange(int64_t out, int64_t s, int64_t pad, int64_t koff, int64_t in, int64_t& lo, int64_t& hi)
{
    const int64_t shift = koff - pad; // input index = o * s + shift
    lo = shift >= 0 ? 0 : ceilDiv(-shift, s);
    hi = in - shift <= 0 ? 0 : ceilDiv(in - shift, s);
    lo = std::min(lo, out);
    hi = std::clamp(hi, lo, out);
}

/// im2col for a 2-D window with stride 1 whose output rows are as wide as the input's (as with "same" padding across,
/// or none): tap (kh, kw) then reads output position p from input element p + (ih0 * W + shiftW), so each column row is
/// one shifted copy of the image plane, with the padding filled in afterwards over whole rows (input row out of
/// range) and over the |shiftW| columns at one edge of each row. Short rows cost no loop of their own.
template <class T>
void im2colSameWidth(
    const T* image, int64_t channels, const WindowGeometry& g, int64_t p0, int64_t p1, T* col, T padValue)
{
    const int64_t width = p1 - p0, w = g.in[2], h = g.in[1], plane = g.inSize();
    for (int64_t c = 0; c < channels; ++c) {
        const T* img = image + c * plane;
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
            for (int64_t kw = 0; kw < g.kernel[2]; ++kw, col += width) {
                const int64_t shiftH = kh * g.dilation[1] - g.padBegin[1], shiftW = kw * g.dilation[2] - g.padBegin[2];
                // Output rows whose input row is inside the image: [rowLo, rowHi).
                const int64_t rowLo = std::clamp<int64_t>(-shiftH, 0, g.out[1]);
                const int64_t rowHi = std::clamp<int64_t>(h - shiftH, rowLo, g.out[1]);
                const int64_t a = std::clamp(rowLo * w, p0, p1), b = std::clamp(rowHi * w, a, p1);
                const int64_t offset = shiftH * w + shiftW;
                // The copy stays inside the plane; the elements it leaves out are padding columns, set below.
                const int64_t copyLo = std::clamp(-offset, a, b), copyHi = std::clamp(plane - offset, copyLo, b);
                std::fill(col, col + (copyLo - p0), padValue);
                std::copy(img + copyLo + offset, img + copyHi + offset, col + (copyLo - p0));
                std::fill(col + (copyHi - p0), col + width, padValue);
                if (shiftW == 0)
                    continue;
                // Columns ow < -shiftW (shiftW < 0) or ow >= w - shiftW read outside their row.
                const int64_t edgeLo = shiftW < 0 ? 0 : std::max<int64_t>(0, w - shiftW);
                const int64_t edgeHi = shiftW < 0 ? std::min(-shiftW, w) : w;
                for (int64_t rowStart = a - a % w; rowStart < b; rowStart += w) {
                    const int64_t lo = std::max(rowStart + edgeLo, a), hi = std::min(rowStart + edgeHi, b);
                    for (int64_t q = lo; q < hi; ++q)
                        col[q - p0] = padValue;
                }
            }
    }
}

/// im2col when the output has one row (every 1-D convolution, whose few output positions and many taps made the
/// general loop's per-row set-up, two divisions for each channel and tap, most of its cost): each tap's valid range is
/// worked out once, then applied to every channel. Element loops rather than std::fill and std::copy, which call
/// memset and memmove: the rows are often a few elements long (silero_vad_v5: 4).
template <class T>
void im2colOneRow(const T* image, int64_t channels, const WindowGeometry& g, int64_t p0, int64_t p1, T* col, T padValue)
{
    const int64_t width = p1 - p0, inSize = g.inSize(), taps = g.kernelSize(), stride = g.stride[2];
    int64_t t = 0;
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
            for (int64_t kw = 0; kw < g.kernel[2]; ++kw, ++t) {
                const int64_t id = kd * g.dilation[0] - g.padBegin[0], ih = kh * g.dilation[1] - g.padBegin[1];
                int64_t a = p1, b = p1; // positions [p0, a) and [b, p1) are padding, [a, b) read the input
                if (id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1]) {
                    int64_t lo = 0, hi = 0;
                    validRange(g.out[2], stride, g.padBegin[2], kw * g.dilation[2], g.in[2], lo, hi);
                    a = std::clamp(lo, p0, p1);
                    b = std::clamp(hi, a, p1);
                }
                const int64_t rowOffset = (id * g.in[1] + ih) * g.in[2] + kw * g.dilation[2] - g.padBegin[2];
                for (int64_t c = 0; c < channels; ++c) {
                    T* d = col + (c * taps + t) * width; // d[p - p0]: output position p
                    const T* src = image + c * inSize; // src[rowOffset + p * stride]: its input, for p in [a, b)
                    for (int64_t p = p0; p < a; ++p)
                        d[p - p0] = padValue;
                    for (int64_t p = a; p < b; ++p)
                        d[p - p0] = src[rowOffset + p * stride];
                    for (int64_t p = b; p < p1; ++p)
                        d[p - p0] = padValue;
                }
            }
}

} // namespace

template <class T>
void im2col(const T* image, int64_t channels, const WindowGeometry& g, int64_t p0, int64_t p1, T* col, T padValue)
{
    if (g.out[0] == 1 && g.out[1] == 1) {
        im2colOneRow(image, channels, g, p0, p1, col, padValue);
        return;
    }
    if (g.in[0] == 1 && g.out[0] == 1 && g.kernel[0] == 1 && g.stride[1] == 1 && g.stride[2] == 1
        && g.out[2] == g.in[2]) {
        im2colSameWidth(image, channels, g, p0, p1, col, padValue);
        return;
    }
    const int64_t width = p1 - p0;
    const int64_t inSize = g.inSize();
    const int64_t outHW = g.out[1] * g.out[2];
    for (int64_t c = 0; c < channels; ++c) {
        const T* img = image + c * inSize;
        for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
            for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
                for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    int64_t lo = 0, hi = 0;
                    validRange(g.out[2], g.stride[2], g.padBegin[2], kw * g.dilation[2], g.in[2], lo, hi);
                    const int64_t shiftW = kw * g.dilation[2] - g.padBegin[2];
                    T* dst = col;
                    col += width;
                    // Output rows in order from position p0; od, oh and ow0 advance without divisions.
                    int64_t od = p0 / outHW, oh = (p0 % outHW) / g.out[2], ow0 = p0 % g.out[2];
                    int64_t p = p0;
                    while (p < p1) {
                        const int64_t n = std::min(g.out[2] - ow0, p1 - p);
                        T* d = dst + (p - p0);
                        const int64_t id = od * g.stride[0] - g.padBegin[0] + kd * g.dilation[0];
                        const int64_t ih = oh * g.stride[1] - g.padBegin[1] + kh * g.dilation[1];
                        if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
                            for (int64_t j = 0; j < n; ++j)
                                d[j] = padValue;
                        } else {
                            const T* row = img + (id * g.in[1] + ih) * g.in[2];
                            const int64_t a = std::clamp(lo, ow0, ow0 + n), b = std::clamp(hi, a, ow0 + n);
                            for (int64_t ow = ow0; ow < a; ++ow)
                                d[ow - ow0] = padValue;
                            if (g.stride[2] == 1) {
                                const T* src = row + shiftW;
                                for (int64_t ow = a; ow < b; ++ow)
                                    d[ow - ow0] = src[ow];
                            } else {
                                for (int64_t ow = a; ow < b; ++ow)
                                    d[ow - ow0] = row[ow * g.stride[2] + shiftW];
                            }
                            for (int64_t ow = b; ow < ow0 + n; ++ow)
                                d[ow - ow0] = padValue;
                        }
                        p += n;
                        ow0 = 0;
                        if (++oh == g.out[1]) {
                            oh = 0;
                            ++od;
                        }
                    }
                }
    }
}

template <class T> void col2im(const T* col, int64_t channels, const WindowGeometry& g, T* image)
{
    const int64_t inSize = g.inSize();
    for (int64_t c = 0; c < channels; ++c) {
        T* img = image + c * inSize;
        for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
            for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
                for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    int64_t lo = 0, hi = 0;
                    validRange(g.out[2], g.stride[2], g.padBegin[2], kw * g.dilation[2], g.in[2], lo, hi);
                    const int64_t shiftW = kw * g.dilation[2] - g.padBegin[2];
                    for (int64_t od = 0; od < g.out[0]; ++od) {
                        const int64_t id = od * g.stride[0] - g.padBegin[0] + kd * g.dilation[0];
                        for (int64_t oh = 0; oh < g.out[1]; ++oh, col += g.out[2]) {
                            const int64_t ih = oh * g.stride[1] - g.padBegin[1] + kh * g.dilation[1];
                            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1])
                                continue;
                            T* row = img + (id * g.in[1] + ih) * g.in[2];
                            for (int64_t ow = lo; ow < hi; ++ow)
                                row[ow * g.stride[2] + shiftW] += col[ow];
                        }
                    }
                }
    }
}

template void im2col<float>(const float*, int64_t, const WindowGeometry&, int64_t, int64_t, float*, float);
template void im2col<double>(const double*, int64_t, const WindowGeometry&, int64_t, int64_t, double*, double);
template void im2col<uint8_t>(const uint8_t*, int64_t, const WindowGeometry&, int64_t, int64_t, uint8_t*, uint8_t);
template void col2im<float>(const float*, int64_t, const WindowGeometry&, float*);
template void col2im<double>(const double*, int64_t, const WindowGeometry&, double*);

namespace {

template <class F> using RowMatrix = Eigen::Matrix<F, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// act over columns [p0, p1) of `rows` rows of y (row stride `stride`), in place: the epilogue of a GEMM that wrote
/// those columns.
void activateColumns(float* y, int64_t rows, int64_t stride, int64_t p0, int64_t p1, simd::ActivationParams act)
{
    if (act.kind == simd::Activation::None)
        return;
    for (int64_t r = 0; r < rows; ++r)
        simd::ops().activation(y + r * stride + p0, y + r * stride + p0, p1 - p0, act);
}

// Output positions per task of a pointwise convolution: whole panels of gemmBias's packed columns at every level (48
// at AVX-512, 16 at AVX2).
constexpr int64_t kPointwiseStrip = 192;

/// Floats of one group's weights packed by packA: `rows` values for each of mg output channels, rounded up to whole
/// tiles of packRows.
int64_t packedGroupFloats(int64_t mg, int64_t rows)
{
    const int64_t tile = simd::ops().packRows;
    return (mg + tile - 1) / tile * tile * rows;
}

// Blocks of output channels that a convolution's tasks are split into when its column chunks are too few for the
// threads: a multiple of every level's register tile (6 and 8 rows).
constexpr int64_t kRowBlockMin = 24;

// Column buffers are capped at this many elements (16 MB of float); the GEMM runs chunk by chunk.
constexpr int64_t kColumnBudget = int64_t(1) << 22;
// The float path's column chunks, per thread: 1 MiB, about half of this machine's L2 cache.
constexpr int64_t kFloatColumnBudget = int64_t(1) << 18;

/// Depthwise convolution: output channel oc reads input channel oc / multiplier only.
template <class F>
void depthwise(const F* x, const F* w, F* y, int64_t channels, int64_t multiplier, const WindowGeometry& g)
{
    const int64_t inSize = g.inSize(), outSize = g.outSize(), k = g.kernelSize();
    for (int64_t oc = 0; oc < channels * multiplier; ++oc) {
        const F* img = x + (oc / multiplier) * inSize;
        F* out = y + oc * outSize;
        std::fill(out, out + outSize, F(0));
        const F* wk = w + oc * k;
        for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
            for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
                for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    const F wv = *wk++;
                    int64_t lo = 0, hi = 0;
                    validRange(g.out[2], g.stride[2], g.padBegin[2], kw * g.dilation[2], g.in[2], lo, hi);
                    const int64_t shiftW = kw * g.dilation[2] - g.padBegin[2];
                    for (int64_t od = 0; od < g.out[0]; ++od) {
                        const int64_t id = od * g.stride[0] - g.padBegin[0] + kd * g.dilation[0];
                        if (id < 0 || id >= g.in[0])
                            continue;
                        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
                            const int64_t ih = oh * g.stride[1] - g.padBegin[1] + kh * g.dilation[1];
                            if (ih < 0 || ih >= g.in[1])
                                continue;
                            const F* row = img + (id * g.in[1] + ih) * g.in[2];
                            F* o = out + (od * g.out[1] + oh) * g.out[2];
                            if (g.stride[2] == 1)
                                for (int64_t ow = lo; ow < hi; ++ow)
                                    o[ow] += wv * row[ow + shiftW];
                            else
                                for (int64_t ow = lo; ow < hi; ++ow)
                                    o[ow] += wv * row[ow * g.stride[2] + shiftW];
                        }
                    }
                }
    }
}

template <class F> void addBias(F* y, const F* bias, int64_t batch, int64_t channels, int64_t size)
{
    if (!bias)
        return;
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t c = 0; c < channels; ++c) {
            F* p = y + (n * channels + c) * size;
            const F b = bias[c];
            for (int64_t i = 0; i < size; ++i)
                p[i] += b;
        }
}

/// The kernel taps that read the input at some output position: along each axis a range [lo, hi) of kernel indices.
/// Taps outside it read only padding (a dilated kernel larger than a small input: DeepLab's atrous convolutions
/// at dilation 24 and 36 on a 14 x 14 map read the input with their centre tap only). False when every tap is
/// live, when the live ones do not form a box whose geometry keeps a non-negative begin padding, or none is live.
bool deadTaps(const WindowGeometry& g, std::array<int64_t, 3>& lo, std::array<int64_t, 3>& hi)
{
    bool some = false;
    for (size_t i = 0; i < WindowGeometry::kMaxRank; ++i) {
        lo[i] = -1;
        hi[i] = -1;
        for (int64_t k = 0; k < g.kernel[i]; ++k) {
            int64_t a = 0, b = 0;
            validRange(g.out[i], g.stride[i], g.padBegin[i], k * g.dilation[i], g.in[i], a, b);
            if (a < b) {
                if (hi[i] >= 0 && hi[i] != k)
                    return false; // a dead tap between live ones
                if (lo[i] < 0)
                    lo[i] = k;
                hi[i] = k + 1;
            }
        }
        if (lo[i] < 0 || g.padBegin[i] - lo[i] * g.dilation[i] < 0)
            return false;
        some = some || lo[i] > 0 || hi[i] < g.kernel[i];
    }
    return some;
}

void convolveFloat(const float* x, const float* w, const float* bias, float* y, int64_t batch, int64_t channels,
    int64_t outChannels, int64_t group, const WindowGeometry& g, const ConvolveOptions& options);

/// convolveFloat without the taps that read only padding (deadTaps): the same sums without their products by zero,
/// on a geometry with the live taps' box as its kernel (and weights cut to it, packed or not). False (nothing done)
/// when every tap is live, or when a dropped weight is not finite (its product by the padding's zero would be NaN).
/// A sum of only such products can differ in the sign of a zero.
bool convolveLiveTaps(const float* x, const float* w, const float* bias, float* y, int64_t batch, int64_t channels,
    int64_t outChannels, int64_t group, const WindowGeometry& g, const ConvolveOptions& options)
{
    std::array<int64_t, 3> lo {}, hi {};
    if (!deadTaps(g, lo, hi))
        return false;
    WindowGeometry live = g;
    for (size_t i = 0; i < WindowGeometry::kMaxRank; ++i) {
        live.kernel[i] = hi[i] - lo[i];
        live.padBegin[i] = g.padBegin[i] - lo[i] * g.dilation[i];
    }
    const int64_t cg = channels / group, mg = outChannels / group, taps = g.kernelSize(), kept = live.kernelSize();
    // tapOf[t'] = the tap of the full kernel that live tap t' is.
    std::vector<int64_t> tapOf;
    for (int64_t a = lo[0]; a < hi[0]; ++a)
        for (int64_t b = lo[1]; b < hi[1]; ++b)
            for (int64_t c = lo[2]; c < hi[2]; ++c)
                tapOf.push_back((a * g.kernel[1] + b) * g.kernel[2] + c);
    // Rows of A (one per input channel and tap, as im2col orders them) are kept or dropped, in `matrices` matrices
    // of cg * taps rows (`stride` floats apart) of `block` floats each: the weights (a row per output channel, block
    // 1), or packed A (a matrix per tile of packRows output channels, p-major: block packRows). Every value is
    // checked to be finite (exponent bits not all set), in a loop that vectorizes.
    const auto cut = [&](const float* from, int64_t matrices, int64_t stride, int64_t block, std::vector<float>& to) {
        const int64_t keptRows = cg * kept, size = cg * taps * block;
        to.resize(static_cast<size_t>(matrices * keptRows * block));
        bool finite = true;
        for (int64_t mtx = 0; mtx < matrices; ++mtx) {
            const float* src = from + mtx * stride;
            finite = finite && (options.weightsFinite || !simd::anyNonFinite(src, size));
            float* dst = to.data() + mtx * keptRows * block;
            for (int64_t c = 0; c < cg; ++c)
                for (int64_t t = 0; t < kept; ++t) {
                    const float* in = src + (c * taps + tapOf[static_cast<size_t>(t)]) * block;
                    float* out = dst + (c * kept + t) * block;
                    for (int64_t v = 0; v < block; ++v)
                        out[v] = in[v];
                }
        }
        return finite;
    };
    const auto makeCut = [&]() -> std::shared_ptr<const std::vector<float>> {
        auto cutWeights = std::make_shared<std::vector<float>>();
        if (options.packedWeights) {
            // Packed A: per group, tiles of packRows rows, each rows x packRows values (p-major).
            const int64_t pr = simd::ops().packRows, tiles = (mg + pr - 1) / pr;
            if (!cut(options.packedWeights, group * tiles, cg * taps * pr, pr, *cutWeights))
                return nullptr;
        } else if (!cut(w, outChannels, cg * taps, 1, *cutWeights)) {
            return nullptr;
        }
        return cutWeights;
    };
    std::shared_ptr<const std::vector<float>> cutWeights;
    if (options.liveTaps) {
        const std::array<int64_t, 6> key { lo[0], lo[1], lo[2], hi[0], hi[1], hi[2] };
        std::lock_guard lock(options.liveTaps->mutex);
        auto [it, fresh] = options.liveTaps->cuts.try_emplace(key);
        if (fresh)
            it->second = makeCut();
        cutWeights = it->second;
    } else {
        cutWeights = makeCut();
    }
    if (!cutWeights)
        return false;
    ConvolveOptions liveOptions = options;
    liveOptions.liveTaps = nullptr;
    if (options.packedWeights)
        liveOptions.packedWeights = cutWeights->data();
    convolveFloat(x, options.packedWeights ? nullptr : cutWeights->data(), bias, y, batch, channels, outChannels, group,
        live, liveOptions);
    return true;
}

/// One float convolution's operands and sizes, and its three ways to run: depthwise, pointwise and im2col.
struct FloatConv {
    const float *x, *w, *bias;
    float* y;
    int64_t batch, channels, outChannels, group;
    const WindowGeometry& g;
    const ConvolveOptions& options;
    const simd::Ops& ops = simd::ops();
    int64_t cg = channels / group, mg = outChannels / group;
    int64_t inSize = g.inSize(), outSize = g.outSize(), rows = cg * g.kernelSize();
    int64_t threads = options.pool ? options.pool->threads() : 1;
    bool split = batch * group * mg * rows * outSize >= 2 * simd::kGrainMacs; // worth splitting over the pool
    const float* packed = options.packedWeights; // each group's weights packed by rows (packA)
    int64_t groupStride = packedGroupFloats(mg, rows);

    /// Output channels per task when `units` tasks are too few for the threads (mg when they are not, or when the
    /// channels are too few to split).
    int64_t rowBlockFor(int64_t units) const
    {
        if (threads > 1 && split && units < 4 * threads && mg >= 2 * kRowBlockMin)
            return std::max(
                kRowBlockMin, (mg * units / (4 * threads) + kRowBlockMin - 1) / kRowBlockMin * kRowBlockMin);
        return mg;
    }

    /// Output channels [r0, r1) of group gr, columns [p0, p0 + n) (yg: the group's rows from r0) from B: rows of
    /// the group's input in place (row stride ldb), or im2col's panels (ldb 0).
    void product(
        int64_t gr, int64_t r0, int64_t r1, int64_t p0, int64_t n, const float* b, int64_t ldb, float* yg) const
    {
        const float* bs = bias ? bias + gr * mg + r0 : nullptr;
        if (packed)
            ops.gemmPackedA(r1 - r0, n, rows, packed + gr * groupStride + r0 * rows, b, ldb, bs, yg + p0, outSize);
        else if (ldb == 0)
            ops.gemmPanels(r1 - r0, n, rows, w + (gr * mg + r0) * rows, rows, b, bs, yg + p0, outSize);
        else
            ops.gemmBias(r1 - r0, n, rows, w + (gr * mg + r0) * rows, rows, b, ldb, bs, yg + p0, outSize);
        activateColumns(yg, r1 - r0, outSize, p0, p0 + n, options.activation);
    }

    void depthwise() const
    {
        simd::DepthwiseGeometry d { g.in[1], g.in[2], g.out[1], g.out[2], g.kernel[1], g.kernel[2], g.stride[1],
            g.stride[2], g.dilation[1], g.dilation[2], g.padBegin[1], g.padBegin[2] };
        const int64_t planeWork = std::max<int64_t>(1, outSize * g.kernelSize());
        parallelFor(options.pool, batch * channels, std::max<int64_t>(1, simd::kGrainMacs / planeWork),
            [&](int64_t p0, int64_t p1) {
                // Planes p0 to p1 of all images, a run of channels of one image per call.
                for (int64_t p = p0; p < p1;) {
                    const int64_t c = p % channels, count = std::min(p1 - p, channels - c);
                    ops.depthwise2d(x + p * inSize, w + c * g.kernelSize(), bias ? bias + c : nullptr, y + p * outSize,
                        count, d, options.activation);
                    p += count;
                }
            });
    }

    /// X is B as it stands, read in place in strips of output positions, as the weights are; the strips (and, when
    /// they are too few for the threads, blocks of output channels) split over the pool.
    void pointwise() const
    {
        const int64_t strip = std::min(outSize, kPointwiseStrip), strips = (outSize + strip - 1) / strip;
        const int64_t units = batch * group * strips, rowBlock = rowBlockFor(units);
        const int64_t rowBlocks = (mg + rowBlock - 1) / rowBlock;
        const int64_t grain = std::max<int64_t>(1, simd::kGrainMacs / std::max<int64_t>(1, rowBlock * cg * strip));
        parallelFor(options.pool, units * rowBlocks, grain, [&](int64_t u0, int64_t u1) {
            for (int64_t u = u0; u < u1; ++u) {
                const int64_t unit = u / rowBlocks, r0 = (u % rowBlocks) * rowBlock, r1 = std::min(mg, r0 + rowBlock);
                const int64_t n = unit / (group * strips), gr = (unit / strips) % group, p0 = (unit % strips) * strip;
                product(gr, r0, r1, p0, std::min(outSize, p0 + strip) - p0, x + (n * channels + gr * cg) * inSize + p0,
                    outSize, y + (n * outChannels + gr * mg + r0) * outSize);
            }
        });
    }

    /// Chunks of output positions small enough that their columns stay in cache between im2col and the GEMM, in
    /// whole panels, and at least a few per thread when the pool is used: when the convolution has the work of two
    /// grains (below that, parallelFor runs it on this thread, where smaller chunks would only cost more GEMM calls).
    /// When the chunks are still too few for the threads, many output channels are split into blocks of rows (each
    /// chunk's columns made once and shared by its blocks), else the chunks are made smaller.
    void columns() const
    {
        int64_t chunk = std::clamp<int64_t>(
            kFloatColumnBudget / std::max<int64_t>(rows, 1), std::min<int64_t>(16, outSize), outSize);
        const int64_t units = batch * group * ((outSize + chunk - 1) / chunk), rowBlock = rowBlockFor(units);
        if (threads > 1 && split && units < 4 * threads && rowBlock == mg)
            chunk = std::max<int64_t>(16, (outSize + 4 * threads - 1) / (4 * threads));
        chunk = std::min(outSize, (chunk + simd::kGemmPanel - 1) / simd::kGemmPanel * simd::kGemmPanel);
        const int64_t chunks = (outSize + chunk - 1) / chunk, rowBlocks = (mg + rowBlock - 1) / rowBlock;
        const int64_t grain = std::max<int64_t>(1, simd::kGrainMacs / std::max<int64_t>(1, rowBlock * rows * chunk));
        const int64_t tasks = batch * group * chunks; // units of the final chunk size
        const int64_t panelSize = rows * chunk + simd::kGemmPanelSlack;
        // A unit: image n, group gr, output positions [p0, p1).
        struct Unit {
            int64_t n, gr, p0, p1;
        };
        const auto unitAt = [&](int64_t unit) {
            const int64_t p0 = (unit % chunks) * chunk;
            return Unit { unit / (group * chunks), (unit / chunks) % group, p0, std::min(outSize, p0 + chunk) };
        };
        // The columns of a unit into `col`, in panels.
        const auto makeColumns = [&](int64_t unit, float* col) {
            const Unit u = unitAt(unit);
            const float* xg = x + (u.n * channels + u.gr * cg) * inSize;
            for (int64_t q0 = u.p0; q0 < u.p1; q0 += simd::kGemmPanel)
                im2col(xg, cg, g, q0, std::min(u.p1, q0 + simd::kGemmPanel), col + (q0 - u.p0) * rows, 0.0f);
        };
        // Output channels [r0, r1) of a unit from its columns.
        const auto multiply = [&](int64_t unit, int64_t r0, int64_t r1, const float* col) {
            const Unit u = unitAt(unit);
            product(u.gr, r0, r1, u.p0, u.p1 - u.p0, col, 0, y + (u.n * outChannels + u.gr * mg + r0) * outSize);
        };
        if (rowBlocks > 1) {
            // Split by output channels: each unit's columns made once, in parallel, then shared by its blocks (these
            // units are few: fewer than four per thread).
            // The calling thread's buffer, kept (a new one costs page faults); the tasks reach it through `columns`,
            // not by its name, which names each thread's own.
            thread_local std::vector<float> shared;
            if (shared.size() < static_cast<size_t>(tasks * panelSize))
                shared.resize(static_cast<size_t>(tasks * panelSize));
            float* columns = shared.data();
            parallelFor(options.pool, tasks, 1, [&](int64_t u0, int64_t u1) {
                for (int64_t u = u0; u < u1; ++u)
                    makeColumns(u, columns + u * panelSize);
            });
            parallelFor(options.pool, tasks * rowBlocks, grain, [&](int64_t u0, int64_t u1) {
                for (int64_t u = u0; u < u1; ++u) {
                    const int64_t unit = u / rowBlocks, r0 = (u % rowBlocks) * rowBlock;
                    multiply(unit, r0, std::min(mg, r0 + rowBlock), columns + unit * panelSize);
                }
            });
            return;
        }
        parallelFor(options.pool, tasks, grain, [&](int64_t u0, int64_t u1) {
            thread_local std::vector<float> col;
            if (col.size() < static_cast<size_t>(panelSize))
                col.resize(static_cast<size_t>(panelSize));
            for (int64_t u = u0; u < u1; ++u) {
                makeColumns(u, col.data());
                multiply(u, 0, mg, col.data());
            }
        });
    }
};

void convolveFloat(const float* x, const float* w, const float* bias, float* y, int64_t batch, int64_t channels,
    int64_t outChannels, int64_t group, const WindowGeometry& g, const ConvolveOptions& options)
{
    if (!g.isPointwise() && convolveLiveTaps(x, w, bias, y, batch, channels, outChannels, group, g, options))
        return;
    const FloatConv conv { x, w, bias, y, batch, channels, outChannels, group, g, options };
    if (conv.cg == 1 && conv.mg == 1 && g.in[0] == 1 && g.kernel[0] == 1 && g.out[0] == 1 && g.padBegin[0] == 0
        && !g.isPointwise())
        conv.depthwise();
    else if (g.isPointwise())
        conv.pointwise();
    else
        conv.columns();
}

/// ConvTranspose whose kernel equals its stride across (kernel and stride 1 in depth), without padding, dilation or
/// output padding: every output element is one tap of one input position, y[m, i * kh + a, j * kw + b] = bias[m] +
/// sum over c of x[c, i, j] * w[c, m, a, b]. Each chunk of input positions runs as one gemmBias of the transposed
/// weights (rows m, a, b) by the chunk, into a buffer that is then spread over the output: no column matrix of the
/// whole image, no zeroed output, no col2im. False (nothing done) for other geometries.
bool convolveTransposeTiles(const float* x, const float* w, const float* bias, float* y, int64_t batch,
    int64_t channels, int64_t outChannels, int64_t group, const WindowGeometry& g, ThreadPool* pool)
{
    // In the geometry `in` is the output image and `out` the input image.
    const int64_t kh = g.kernel[1], kw = g.kernel[2];
    if (g.kernel[0] != 1 || g.stride[0] != 1 || g.stride[1] != kh || g.stride[2] != kw || g.in[0] != g.out[0]
        || g.in[1] != g.out[1] * kh || g.in[2] != g.out[2] * kw || g.dilation != decltype(g.dilation) { 1, 1, 1 }
        || g.padBegin != decltype(g.padBegin) { 0, 0, 0 } || g.padEnd != decltype(g.padEnd) { 0, 0, 0 })
        return false;
    const int64_t cg = channels / group, mg = outChannels / group, taps = kh * kw, rows = mg * taps;
    const int64_t xSize = g.outSize(), ySize = g.inSize(), width = g.out[2];
    if (cg == 0 || rows == 0 || xSize == 0)
        return false;
    // Per group, A[r = m * taps + a * kw + b][c] = w[c, m, a, b], and each row's bias.
    std::vector<float> wt(static_cast<size_t>(group * rows * cg));
    std::vector<float> rowBias(static_cast<size_t>(group * rows), 0.0f);
    for (int64_t gr = 0; gr < group; ++gr)
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < cg; ++c)
                wt[static_cast<size_t>((gr * rows + r) * cg + c)] = w[(gr * cg + c) * rows + r];
            if (bias)
                rowBias[static_cast<size_t>(gr * rows + r)] = bias[gr * mg + r / taps];
        }
    const simd::Ops& ops = simd::ops();
    const int64_t chunk = std::min(xSize, std::max<int64_t>(64, kFloatColumnBudget / rows / 64 * 64));
    const int64_t chunks = (xSize + chunk - 1) / chunk;
    const int64_t grain = std::max<int64_t>(1, simd::kGrainMacs / std::max<int64_t>(1, rows * cg * chunk));
    parallelFor(pool, batch * group * chunks, grain, [&](int64_t u0, int64_t u1) {
        thread_local std::vector<float> buffer;
        if (buffer.size() < static_cast<size_t>(rows * chunk))
            buffer.resize(static_cast<size_t>(rows * chunk));
        for (int64_t u = u0; u < u1; ++u) {
            const int64_t n = u / (group * chunks), gr = (u / chunks) % group, p0 = (u % chunks) * chunk;
            const int64_t p1 = std::min(xSize, p0 + chunk), cols = p1 - p0;
            ops.gemmBias(rows, cols, cg, wt.data() + gr * rows * cg, cg, x + (n * channels + gr * cg) * xSize + p0,
                xSize, rowBias.data() + gr * rows, buffer.data(), cols);
            for (int64_t r = 0; r < rows; ++r) {
                const int64_t m = r / taps, a = (r % taps) / kw, b = r % kw;
                const float* src = buffer.data() + r * cols;
                float* ym = y + (n * outChannels + gr * mg + m) * ySize;
                // Input position p = row * width + j goes to output row row * kh + a, column j * kw + b.
                for (int64_t p = p0; p < p1;) {
                    const int64_t row = p / width, j0 = p % width, j1 = std::min(width, j0 + (p1 - p));
                    float* out = ym + (row * kh + a) * (width * kw) + b;
                    for (int64_t j = j0; j < j1; ++j)
                        out[j * kw] = src[p - p0 + (j - j0)];
                    p += j1 - j0;
                }
            }
        }
    });
    return true;
}

} // namespace

std::vector<float> packConvWeights(const float* w, const Shape& shape, int64_t group)
{
    const int64_t mg = shape[0] / group;
    int64_t rows = 1;
    for (size_t i = 1; i < shape.size(); ++i)
        rows *= shape[i];
    if (mg <= 0 || rows <= 0 || (shape[1] == 1 && mg == 1))
        return {};
    const int64_t groupStride = packedGroupFloats(mg, rows);
    std::vector<float> packed(static_cast<size_t>(group * groupStride));
    for (int64_t gr = 0; gr < group; ++gr)
        simd::ops().packA(mg, rows, w + gr * mg * rows, rows, packed.data() + gr * groupStride);
    return packed;
}

template <class F>
void convolve(const F* x, const F* w, const F* bias, F* y, int64_t batch, int64_t channels, int64_t outChannels,
    int64_t group, const WindowGeometry& g, const ConvolveOptions& options)
{
    const int64_t cg = channels / group, mg = outChannels / group;
    const int64_t inSize = g.inSize(), outSize = g.outSize(), rows = cg * g.kernelSize();
    if (outSize == 0 || batch == 0 || outChannels == 0)
        return;
    if (rows == 0) {
        std::fill(y, y + batch * outChannels * outSize, F(0));
        addBias(y, bias, batch, outChannels, outSize);
        if constexpr (std::is_same_v<F, float>)
            if (options.activation.kind != simd::Activation::None)
                simd::parallelActivation(options.pool, y, y, batch * outChannels * outSize, options.activation);
        return;
    }
    if constexpr (std::is_same_v<F, float>) {
        convolveFloat(x, w, bias, y, batch, channels, outChannels, group, g, options);
        return;
    }
    if (cg == 1 && !g.isPointwise()) {
        for (int64_t n = 0; n < batch; ++n)
            depthwise(x + n * channels * inSize, w, y + n * outChannels * outSize, channels, mg, g);
        addBias(y, bias, batch, outChannels, outSize);
        return;
    }
    const bool pointwise = g.isPointwise();
    const int64_t chunk
        = pointwise ? outSize : std::clamp<int64_t>(kColumnBudget / std::max<int64_t>(rows, 1), 1, outSize);
    std::vector<F> col(pointwise ? 0 : static_cast<size_t>(rows * chunk));
    using Stride = Eigen::OuterStride<>;
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t gr = 0; gr < group; ++gr) {
            const F* xg = x + (n * channels + gr * cg) * inSize;
            F* yg = y + (n * outChannels + gr * mg) * outSize;
            Eigen::Map<const RowMatrix<F>> wm(w + gr * mg * rows, mg, rows);
            if (pointwise) {
                Eigen::Map<RowMatrix<F>>(yg, mg, outSize).noalias()
                    = wm * Eigen::Map<const RowMatrix<F>>(xg, cg, outSize);
                continue;
            }
            for (int64_t p0 = 0; p0 < outSize; p0 += chunk) {
                const int64_t p1 = std::min(outSize, p0 + chunk);
                im2col(xg, cg, g, p0, p1, col.data(), F(0));
                Eigen::Map<RowMatrix<F>, 0, Stride>(yg + p0, mg, p1 - p0, Stride(outSize)).noalias()
                    = wm * Eigen::Map<const RowMatrix<F>>(col.data(), rows, p1 - p0);
            }
        }
    addBias(y, bias, batch, outChannels, outSize);
}

template <class F>
void convolveTranspose(const F* x, const F* w, const F* bias, F* y, int64_t batch, int64_t channels,
    int64_t outChannels, int64_t group, const WindowGeometry& g, const ConvolveOptions& options)
{
    if constexpr (std::is_same_v<F, float>)
        if (convolveTransposeTiles(x, w, bias, y, batch, channels, outChannels, group, g, options.pool))
            return;
    const int64_t cg = channels / group, mg = outChannels / group;
    const int64_t imageSize = g.inSize(), xSize = g.outSize(), rows = mg * g.kernelSize();
    std::fill(y, y + batch * outChannels * imageSize, F(0));
    std::vector<F> col(static_cast<size_t>(rows * xSize));
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t gr = 0; gr < group; ++gr) {
            if (rows == 0 || xSize == 0)
                continue;
            if constexpr (std::is_same_v<F, float>) {
                simd::parallelGemm(options.pool, rows, xSize, cg, w + gr * cg * rows, rows, true,
                    x + (n * channels + gr * cg) * xSize, xSize, false, col.data(), xSize, false);
            } else {
                Eigen::Map<const RowMatrix<F>> wm(w + gr * cg * rows, cg, rows);
                Eigen::Map<const RowMatrix<F>> xm(x + (n * channels + gr * cg) * xSize, cg, xSize);
                Eigen::Map<RowMatrix<F>>(col.data(), rows, xSize).noalias() = wm.transpose() * xm;
            }
            col2im(col.data(), mg, g, y + (n * outChannels + gr * mg) * imageSize);
        }
    addBias(y, bias, batch, outChannels, imageSize);
}

template void convolve<float>(const float*, const float*, const float*, float*, int64_t, int64_t, int64_t, int64_t,
    const WindowGeometry&, const ConvolveOptions&);
template void convolve<double>(const double*, const double*, const double*, double*, int64_t, int64_t, int64_t, int64_t,
    const WindowGeometry&, const ConvolveOptions&);
template void convolveTranspose<float>(const float*, const float*, const float*, float*, int64_t, int64_t, int64_t,
    int64_t, const WindowGeometry&, const ConvolveOptions&);
template void convolveTranspose<double>(const double*, const double*, const double*, double*, int64_t, int64_t, int64_t,
    int64_t, const WindowGeometry&, const ConvolveOptions&);

} // namespace onnxscope
