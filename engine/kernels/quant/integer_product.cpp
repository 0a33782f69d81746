// SPDX-License-Identifier: MIT
#include "engine/kernels/quant/integer_product.h"

#include "engine/core/thread_pool.h"
#include "engine/kernels/simd/simd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

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
    }
    return w;
}

void packColumns(
    DataType type, const uint8_t* src, int64_t k, int64_t n, int64_t strideK, int64_t strideN, Columns& out)
{
    out.k = k;
    out.n = n;
    out.k4 = (k + 3) / 4;
    out.shift = type == DataType::Int8 ? 128 : 0;
    const uint8_t flip = type == DataType::Int8 ? 0x80 : 0;
    const int64_t panels = (n + simd::kInt8Panel - 1) / simd::kInt8Panel, panelBytes = out.k4 * 64;
    out.panels.assign(static_cast<size_t>(panels * panelBytes), 0);
    out.colSum.assign(static_cast<size_t>(n), 0);
    for (int64_t kk = 0; kk < k; ++kk) {
        const uint8_t* row = src + kk * strideK;
        uint8_t* dst = out.panels.data() + (kk / 4) * 64 + kk % 4;
        for (int64_t j = 0; j < n; ++j) {
            const uint8_t v = row[j * strideN] ^ flip;
            dst[(j / 16) * panelBytes + (j % 16) * 4] = v;
            out.colSum[static_cast<size_t>(j)] += v;
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
    const auto b = static_cast<uint32_t>(bias.empty() ? 0 : bias[static_cast<size_t>(channel)]);
    const float o = offset.empty() ? 0.0f : offset[static_cast<size_t>(channel)];
    const auto value = [&](int64_t j) {
        const auto sum = static_cast<int32_t>(static_cast<uint32_t>(acc[j]) + b);
        const float v = std::clamp(static_cast<float>(sum) * s + o, lo, hi);
        return static_cast<int32_t>(std::nearbyint(v)) + zero;
    };
    if (type == DataType::Int8) {
        auto* y = static_cast<int8_t*>(out);
        for (int64_t j = 0; j < n; ++j)
            y[j] = static_cast<int8_t>(value(j));
    } else {
        auto* y = static_cast<uint8_t*>(out);
        for (int64_t j = 0; j < n; ++j)
            y[j] = static_cast<uint8_t>(value(j));
    }
}

void convolve(DataType xType, const uint8_t* x, int32_t zx, const Weights& w, int64_t batch, int64_t channels,
    int64_t group, const WindowGeometry& g, ThreadPool* pool, const ConvSink& sink)
{
    const int64_t cg = channels / group, mg = w.rows / group, ks = g.kernelSize(), outSize = g.outSize();
    const int64_t k = cg * ks;
    const bool pointwise = g.isPointwise();
    // Blocks of output positions sized so that the block's columns (k bytes each) stay in the L2 cache.
    const int64_t chunk = std::clamp<int64_t>((int64_t(256) << 10) / std::max<int64_t>(k, 1) / 16 * 16, 16, 1024);
    const int64_t chunks = (outSize + chunk - 1) / chunk, units = batch * group * chunks;
    const auto padByte = static_cast<uint8_t>(zx);
    const int64_t grain = std::max<int64_t>(1, simd::kGrainMacs / std::max<int64_t>(1, mg * k * chunk));
    parallelFor(pool, units, grain, [&](int64_t u0, int64_t u1) {
        std::vector<uint8_t> col;
        Columns cols;
        std::vector<int32_t> acc;
        for (int64_t u = u0; u < u1; ++u) {
            const int64_t b = u / (group * chunks), gi = (u / chunks) % group, p0 = (u % chunks) * chunk;
            const int64_t p1 = std::min(outSize, p0 + chunk), n = p1 - p0;
            const uint8_t* image = x + (b * channels + gi * cg) * g.inSize();
            if (pointwise) {
                packColumns(xType, image + p0, k, n, g.inSize(), 1, cols);
            } else {
                col.resize(static_cast<size_t>(k * n));
                im2col<uint8_t>(image, cg, g, p0, p1, col.data(), padByte);
                packColumns(xType, col.data(), k, n, n, 1, cols);
            }
            acc.resize(static_cast<size_t>(mg * n));
            product(w, gi * mg, mg, cols, zx, acc.data(), n, 1);
            sink(b, gi * mg, mg, p0, n, acc.data());
        }
    });
}

} // namespace onnxscope::intprod
