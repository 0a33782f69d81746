// SPDX-License-Identifier: MIT
#include "engine/kernels/quant/integer_product.h"

#include "engine/core/thread_pool.h"
#include "engine/kernels/simd/simd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace onnxscope::intprod {

Weights prepareWeights(DataType type, const void* src, int64_t rows, int64_t k, int64_t strideRow, int64_t strideK,
    std::span<const int32_t> zero)
{
    Weights w;
    w.rows = rows;
    w.k = k;
    w.k4 = (k + 3) / 4;
    w.shift = type == DataType::UInt8 ? 128 : 0;
    w.data.assign(static_cast<size_t>(rows * 4 * w.k4), 0);
    w.rowSum.assign(static_cast<size_t>(rows), 0);
    w.zero.assign(static_cast<size_t>(rows), 0);
    const auto* bytes = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < rows; ++i) {
        int32_t sum = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
            const uint8_t b = bytes[i * strideRow + kk * strideK];
            const int32_t v = type == DataType::UInt8 ? int32_t(b) - 128 : int32_t(static_cast<int8_t>(b));
            w.data[static_cast<size_t>(i * 4 * w.k4 + kk)] = static_cast<int8_t>(v);
            sum += v;
        }
        w.rowSum[static_cast<size_t>(i)] = sum;
        if (!zero.empty())
            w.zero[static_cast<size_t>(i)] = zero[zero.size() == 1 ? 0 : static_cast<size_t>(i)];
        w.needsColumnSums = w.needsColumnSums || w.shift != w.zero[static_cast<size_t>(i)];
    }
    return w;
}

void packColumns(
    DataType type, const uint8_t* src, int64_t k, int64_t n, int64_t strideK, int64_t strideN, Columns& out, bool sums)
{
    out.k = k;
    out.n = n;
    out.k4 = (k + 3) / 4;
    out.shift = type == DataType::Int8 ? 128 : 0;
    const uint8_t flip = type == DataType::Int8 ? 0x80 : 0;
    const int64_t panels = (n + simd::kInt8Panel - 1) / simd::kInt8Panel, panelBytes = out.k4 * 64;
    // Bytes past n in the last panel and past k in the last group are left as they are: they meet zero weights or
    // land in columns that are not stored.
    out.panels.resize(std::max(out.panels.size(), static_cast<size_t>(panels * panelBytes)));
    out.colSum.assign(sums ? static_cast<size_t>(n) : 0, 0);
    uint8_t* panel = out.panels.data();
    int64_t done = 0; // columns packed by the vector loop
#if defined(__SSE2__)
    if (strideN == 1) {
        // Four rows of 16 columns interleaved into 64 bytes: bytes of rows 0/1 and 2/3 paired, then the pairs.
        const __m128i flipBytes = _mm_set1_epi8(static_cast<char>(flip));
        done = n / 16 * 16;
        for (int64_t q = 0; q < out.k4; ++q) {
            const uint8_t* rows[4];
            for (int64_t t = 0; t < 4; ++t)
                rows[t] = 4 * q + t < k ? src + (4 * q + t) * strideK : nullptr;
            for (int64_t j = 0; j < done; j += 16) {
                __m128i r[4];
                for (int t = 0; t < 4; ++t)
                    r[t] = rows[t]
                        ? _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[t] + j)), flipBytes)
                        : _mm_setzero_si128();
                const __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpackhi_epi8(r[0], r[1]);
                const __m128i b0 = _mm_unpacklo_epi8(r[2], r[3]), b1 = _mm_unpackhi_epi8(r[2], r[3]);
                auto* dst = reinterpret_cast<__m128i*>(panel + (j / 16) * panelBytes + q * 64);
                _mm_storeu_si128(dst, _mm_unpacklo_epi16(a0, b0));
                _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(a0, b0));
                _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(a1, b1));
                _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(a1, b1));
            }
        }
    }
#endif
    if (strideK == 1 && done == 0) {
        // Each column's k bytes are contiguous (the rows of a matrix A in A * B): four bytes at a time to their group.
        const uint32_t flip4 = flip * 0x01010101u;
        const int64_t whole = k / 4;
        for (int64_t j = 0; j < n; ++j) {
            const uint8_t* col = src + j * strideN;
            uint8_t* dst = panel + (j / 16) * panelBytes + (j % 16) * 4;
            for (int64_t q = 0; q < whole; ++q) {
                uint32_t v;
                std::memcpy(&v, col + 4 * q, 4);
                v ^= flip4;
                std::memcpy(dst + q * 64, &v, 4);
            }
            if (whole < out.k4) {
                uint8_t tail[4] = { 0, 0, 0, 0 };
                for (int64_t t = 0; t < k - 4 * whole; ++t)
                    tail[t] = col[4 * whole + t] ^ flip;
                std::memcpy(dst + whole * 64, tail, 4);
            }
            if (sums) {
                int32_t sum = 0;
                for (int64_t kk = 0; kk < k; ++kk)
                    sum += col[kk] ^ flip;
                out.colSum[static_cast<size_t>(j)] = sum;
            }
        }
        return;
    }
    for (int64_t kk = 0; kk < k; ++kk) {
        const uint8_t* row = src + kk * strideK;
        uint8_t* dst = panel + (kk / 4) * 64 + kk % 4;
        for (int64_t j = done; j < n; ++j)
            dst[(j / 16) * panelBytes + (j % 16) * 4] = row[j * strideN] ^ flip;
        if (sums) {
            int32_t* sum = out.colSum.data();
            for (int64_t j = 0; j < n; ++j)
                sum[j] += row[j * strideN] ^ flip;
        }
    }
}

void product(const Weights& w, int64_t row0, int64_t rows, const Columns& x, int32_t zx, int32_t* c, int64_t ldcRow,
    int64_t ldcCol)
{
    if (rows <= 0 || x.n <= 0)
        return;
    simd::ops().gemmS8U8(
        rows, x.n, w.k4, w.data.data() + row0 * 4 * w.k4, 4 * w.k4, x.panels.data(), c, ldcRow, ldcCol);
    // The corrections in uint32, so that sums past int32 wrap as onnxruntime's accumulators do.
    const auto xz = static_cast<uint32_t>(x.shift + zx);
    for (int64_t i = 0; i < rows; ++i) {
        const auto wz = static_cast<uint32_t>(w.shift - w.zero[static_cast<size_t>(row0 + i)]);
        const uint32_t rowTerm = xz * static_cast<uint32_t>(w.rowSum[static_cast<size_t>(row0 + i)])
            + static_cast<uint32_t>(w.k) * wz * xz;
        int32_t* ci = c + i * ldcRow;
        if (wz == 0) {
            for (int64_t j = 0; j < x.n; ++j)
                ci[j * ldcCol] = static_cast<int32_t>(static_cast<uint32_t>(ci[j * ldcCol]) - rowTerm);
            continue;
        }
        for (int64_t j = 0; j < x.n; ++j) {
            int32_t& v = ci[j * ldcCol];
            v = static_cast<int32_t>(
                static_cast<uint32_t>(v) + wz * static_cast<uint32_t>(x.colSum[static_cast<size_t>(j)]) - rowTerm);
        }
    }
}

void Requantize::setRange(bool relu)
{
    const int32_t qlo = type == DataType::Int8 ? -128 : 0, qhi = type == DataType::Int8 ? 127 : 255;
    lo = static_cast<float>(qlo - zero);
    hi = static_cast<float>(qhi - zero);
    if (relu)
        lo = std::max(lo, 0.0f);
}

void Requantize::row(const int32_t* acc, int64_t n, int64_t channel, void* out) const
{
    const float s = scale[scale.size() == 1 ? 0 : static_cast<size_t>(channel)];
    const int32_t b = bias.empty() ? 0 : bias[static_cast<size_t>(channel)];
    const float o = offset.empty() ? 0.0f : offset[static_cast<size_t>(channel)];
    simd::ops().requantizeBytes(acc, n, b, s, o, lo, hi, zero, type == DataType::Int8, static_cast<uint8_t*>(out));
}

namespace {

/// One channel of a depthwise convolution (one input and one output channel per group), directly: for each kernel
/// tap, the valid output positions of each output row add the tap's weight times x less its zero point (the padding
/// adds nothing). In float, which holds these sums exactly (each product at most 2^16 in size, at most kExactTaps of
/// them: below 2^24) and vectorizes at every level; acc holds g.outSize() sums.
constexpr int64_t kExactTaps = 255;

template <class T> void depthwiseChannel(const T* x, int32_t zx, const float* taps, const WindowGeometry& g, float* acc)
{
    std::fill(acc, acc + g.outSize(), 0.0f);
    const auto zero = static_cast<float>(zx);
    int64_t tap = 0;
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
            for (int64_t kw = 0; kw < g.kernel[2]; ++kw, ++tap) {
                const float wv = taps[tap];
                if (wv == 0)
                    continue;
                // Output columns whose input column is inside the image.
                const int64_t shift = kw * g.dilation[2] - g.padBegin[2];
                int64_t lo = 0, hi = g.out[2];
                while (lo < hi && lo * g.stride[2] + shift < 0)
                    ++lo;
                while (hi > lo && (hi - 1) * g.stride[2] + shift >= g.in[2])
                    --hi;
                for (int64_t od = 0; od < g.out[0]; ++od) {
                    const int64_t id = od * g.stride[0] - g.padBegin[0] + kd * g.dilation[0];
                    if (id < 0 || id >= g.in[0])
                        continue;
                    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
                        const int64_t ih = oh * g.stride[1] - g.padBegin[1] + kh * g.dilation[1];
                        if (ih < 0 || ih >= g.in[1])
                            continue;
                        const T* row = x + (id * g.in[1] + ih) * g.in[2] + shift;
                        float* out = acc + (od * g.out[1] + oh) * g.out[2];
                        const int64_t stride = g.stride[2];
                        if (stride == 1)
                            for (int64_t ow = lo; ow < hi; ++ow)
                                out[ow] += wv * (static_cast<float>(row[ow]) - zero);
                        else
                            for (int64_t ow = lo; ow < hi; ++ow)
                                out[ow] += wv * (static_cast<float>(row[ow * stride]) - zero);
                    }
                }
            }
}

} // namespace

void convolve(DataType xType, const uint8_t* x, int32_t zx, const Weights& w, int64_t batch, int64_t channels,
    int64_t group, const WindowGeometry& g, ThreadPool* pool, const ConvSink& sink)
{
    if (channels == group && w.rows == group && g.kernelSize() <= kExactTaps && g.in[0] == 1 && g.kernel[0] == 1
        && g.out[0] == 1) {
        // 2-D depthwise: the level's float depthwise kernel over x less its zero point, exact here as in
        // depthwiseChannel (products of integers under 2^16, fewer than 256 of them), blocks of channels over the pool.
        simd::DepthwiseGeometry dg;
        dg.inH = g.in[1];
        dg.inW = g.in[2];
        dg.outH = g.out[1];
        dg.outW = g.out[2];
        dg.kernelH = g.kernel[1];
        dg.kernelW = g.kernel[2];
        dg.strideH = g.stride[1];
        dg.strideW = g.stride[2];
        dg.dilationH = g.dilation[1];
        dg.dilationW = g.dilation[2];
        dg.padTop = g.padBegin[1];
        dg.padLeft = g.padBegin[2];
        const int64_t ks = g.kernelSize(), inSize = g.inSize(), outSize = g.outSize();
        std::vector<float> taps(static_cast<size_t>(channels * ks));
        for (int64_t c = 0; c < channels; ++c)
            for (int64_t t = 0; t < ks; ++t)
                taps[static_cast<size_t>(c * ks + t)] = static_cast<float>(
                    int32_t(w.data[static_cast<size_t>(c * 4 * w.k4 + t)]) + w.shift - w.zero[static_cast<size_t>(c)]);
        constexpr int64_t kChannels = 8;
        const int64_t blocks = (channels + kChannels - 1) / kChannels;
        const int64_t grain
            = std::max<int64_t>(1, simd::kGrainElements / std::max<int64_t>(1, outSize * ks * kChannels));
        const auto flip = static_cast<float>(zx);
        parallelFor(pool, batch * blocks, grain, [&](int64_t u0, int64_t u1) {
            // Kept by each thread between calls: new buffers each time cost a clearing of fresh pages.
            thread_local std::vector<float> in, out;
            thread_local std::vector<int32_t> sums;
            in.resize(std::max(in.size(), static_cast<size_t>(kChannels * inSize)));
            out.resize(std::max(out.size(), static_cast<size_t>(kChannels * outSize)));
            sums.resize(std::max(sums.size(), static_cast<size_t>(outSize)));
            for (int64_t u = u0; u < u1; ++u) {
                const int64_t b = u / blocks, c0 = (u % blocks) * kChannels, nc = std::min(kChannels, channels - c0);
                const uint8_t* image = x + (b * channels + c0) * inSize;
                const int64_t count = nc * inSize;
                if (xType == DataType::Int8)
                    for (int64_t i = 0; i < count; ++i)
                        in[static_cast<size_t>(i)] = static_cast<float>(static_cast<int8_t>(image[i])) - flip;
                else
                    for (int64_t i = 0; i < count; ++i)
                        in[static_cast<size_t>(i)] = static_cast<float>(image[i]) - flip;
                simd::ops().depthwise2d(in.data(), taps.data() + c0 * ks, nullptr, out.data(), nc, dg, {});
                for (int64_t c = 0; c < nc; ++c) {
                    const float* plane = out.data() + c * outSize;
                    for (int64_t i = 0; i < outSize; ++i)
                        sums[static_cast<size_t>(i)] = static_cast<int32_t>(plane[i]);
                    sink(b, c0 + c, 1, 0, outSize, sums.data());
                }
            }
        });
        return;
    }
    if (channels == group && w.rows == group && g.kernelSize() <= kExactTaps) {
        // Depthwise: a direct loop per channel instead of a one-row product.
        const int64_t ks = g.kernelSize();
        const int64_t grain = std::max<int64_t>(1, simd::kGrainElements / std::max<int64_t>(1, g.outSize() * ks));
        parallelFor(pool, batch * channels, grain, [&](int64_t u0, int64_t u1) {
            std::vector<float> acc(static_cast<size_t>(g.outSize()));
            std::vector<int32_t> sums(acc.size());
            std::vector<float> taps(static_cast<size_t>(ks));
            for (int64_t u = u0; u < u1; ++u) {
                const int64_t b = u / channels, c = u % channels;
                for (int64_t t = 0; t < ks; ++t)
                    taps[static_cast<size_t>(t)]
                        = static_cast<float>(int32_t(w.data[static_cast<size_t>(c * 4 * w.k4 + t)]) + w.shift
                            - w.zero[static_cast<size_t>(c)]);
                const uint8_t* image = x + u * g.inSize();
                if (xType == DataType::Int8)
                    depthwiseChannel(reinterpret_cast<const int8_t*>(image), zx, taps.data(), g, acc.data());
                else
                    depthwiseChannel(image, zx, taps.data(), g, acc.data());
                for (size_t i = 0; i < acc.size(); ++i)
                    sums[i] = static_cast<int32_t>(acc[i]);
                sink(b, c, 1, 0, g.outSize(), sums.data());
            }
        });
        return;
    }
    const int64_t cg = channels / group, mg = w.rows / group, ks = g.kernelSize(), outSize = g.outSize();
    const int64_t k = cg * ks;
    const bool pointwise = g.isPointwise();
    // Blocks of output positions sized so that the block's columns (k bytes each) stay in the L2 cache.
    const int64_t chunk = std::clamp<int64_t>((int64_t(256) << 10) / std::max<int64_t>(k, 1) / 16 * 16, 16, 1024);
    const int64_t chunks = (outSize + chunk - 1) / chunk, units = batch * group * chunks;
    const auto padByte = static_cast<uint8_t>(zx);
    const int64_t grain = std::max<int64_t>(1, simd::kGrainMacs / std::max<int64_t>(1, mg * k * chunk));
    parallelFor(pool, units, grain, [&](int64_t u0, int64_t u1) {
        // Kept by each thread between calls: new buffers each time cost a clearing of fresh pages.
        thread_local std::vector<uint8_t> col;
        thread_local Columns cols;
        thread_local std::vector<int32_t> acc;
        for (int64_t u = u0; u < u1; ++u) {
            const int64_t b = u / (group * chunks), gi = (u / chunks) % group, p0 = (u % chunks) * chunk;
            const int64_t p1 = std::min(outSize, p0 + chunk), n = p1 - p0;
            const uint8_t* image = x + (b * channels + gi * cg) * g.inSize();
            if (pointwise) {
                packColumns(xType, image + p0, k, n, g.inSize(), 1, cols, w.needsColumnSums);
            } else {
                col.resize(std::max(col.size(), static_cast<size_t>(k * n)));
                im2col<uint8_t>(image, cg, g, p0, p1, col.data(), padByte);
                packColumns(xType, col.data(), k, n, n, 1, cols, w.needsColumnSums);
            }
            acc.resize(std::max(acc.size(), static_cast<size_t>(mg * n)));
            product(w, gi * mg, mg, cols, zx, acc.data(), n, 1);
            sink(b, gi * mg, mg, p0, n, acc.data());
        }
    });
}

} // namespace onnxscope::intprod
