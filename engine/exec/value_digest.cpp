// SPDX-License-Identifier: MIT
#include "engine/exec/value_digest.h"

#include "engine/kernels/simd/simd.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onnxscope {

namespace {

/// min/max/sums and counts of a float tensor in one pass over chunks that stay in cache. Written out for float32, the
/// element type of nearly every intermediate, with one vector loop of the CPU's level for all five (simd::Ops::
/// chunkStats): computeStats() goes through a division per element (Welford), several times slower than the kernels
/// that produced the values. A chunk whose min, max or sums are not finite holds NaN or Inf (or sums past float's
/// range) and is done again element by element.
TensorStats floatStats(std::span<const float> data)
{
    constexpr size_t kChunk = 4096;
    const auto chunkStats = simd::ops().chunkStats;
    TensorStats s;
    s.numeric = true;
    s.count = static_cast<int64_t>(data.size());
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    double sum = 0, sumSq = 0;
    int64_t nan = 0, posInf = 0, negInf = 0, zeros = 0;
    for (size_t begin = 0; begin < data.size(); begin += kChunk) {
        const size_t n = std::min(kChunk, data.size() - begin);
        float chunkLo, chunkHi, chunkSum, chunkSq;
        int64_t chunkZeros = 0;
        if (chunkStats(
                data.data() + begin, static_cast<int64_t>(n), &chunkLo, &chunkHi, &chunkSum, &chunkSq, &chunkZeros)) {
            lo = std::min(lo, chunkLo);
            hi = std::max(hi, chunkHi);
            sum += chunkSum;
            sumSq += chunkSq;
            zeros += chunkZeros;
            continue;
        }
        for (size_t i = begin; i < begin + n; ++i) {
            const float v = data[i];
            if (std::isnan(v)) {
                ++nan;
            } else if (std::isinf(v)) {
                ++(v > 0 ? posInf : negInf);
            } else {
                zeros += v == 0.0f;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
                sum += v;
                sumSq += static_cast<double>(v) * v;
            }
        }
    }
    s.nan = nan;
    s.posInf = posInf;
    s.negInf = negInf;
    s.zeros = zeros;
    s.finite = s.count - nan - posInf - negInf;
    if (s.finite > 0) {
        s.min = lo;
        s.max = hi;
        s.mean = sum / static_cast<double>(s.finite);
        s.std = std::sqrt(std::max(0.0, sumSq / static_cast<double>(s.finite) - s.mean * s.mean));
    }
    return s;
}

/// The histogram of a large tensor bins kHistogramSample elements evenly spread over it, so that the summary of every
/// value stays a small part of the run (binning every one of ocr_det's 172 M intermediate elements costs about a
/// third of a plain run).
constexpr size_t kHistogramSample = ValueDigest::kHistogramSample;

void floatHistogram(std::span<const float> data, ValueDigest& d)
{
    if (data.size() > kHistogramSample) {
        std::array<float, kHistogramSample> sample;
        const double stride = static_cast<double>(data.size()) / kHistogramSample;
        for (size_t i = 0; i < kHistogramSample; ++i)
            sample[i] = data[static_cast<size_t>(static_cast<double>(i) * stride)];
        d.histogramSampled = true;
        floatHistogram(sample, d);
        return;
    }
    const float flo = static_cast<float>(d.histogramLo), fhi = static_cast<float>(d.histogramHi);
    const float scale = fhi > flo ? static_cast<float>(ValueDigest::kBins / (d.histogramHi - d.histogramLo)) : 0.0f;
    // Four sets of counters, so that neighbouring elements in the same bin do not wait on each other's increment.
    int64_t counts[4][ValueDigest::kBins] = {};
    const auto bin = [&](float v) {
        // NaN and ±Inf fall outside [flo, fhi]; the bin is then ignored.
        const bool in = v >= flo && v <= fhi;
        const int b = in ? std::min(static_cast<int>((v - flo) * scale), ValueDigest::kBins - 1) : -1;
        return b;
    };
    size_t i = 0;
    if (d.stats && d.stats->finite == d.stats->count) {
        // Every element is within [min, max]: no test needed.
        for (; i + 4 <= data.size(); i += 4)
            for (size_t k = 0; k < 4; ++k)
                ++counts[k][std::min(static_cast<int>((data[i + k] - flo) * scale), ValueDigest::kBins - 1)];
    } else {
        for (; i + 4 <= data.size(); i += 4)
            for (size_t k = 0; k < 4; ++k)
                if (const int b = bin(data[i + k]); b >= 0)
                    ++counts[k][b];
    }
    for (; i < data.size(); ++i)
        if (const int b = bin(data[i]); b >= 0)
            ++counts[0][b];
    for (size_t b = 0; b < ValueDigest::kBins; ++b)
        d.histogram[b] = counts[0][b] + counts[1][b] + counts[2][b] + counts[3][b];
}

} // namespace

ValueDigest digest(const Value& value)
{
    ValueDigest d;
    d.valid = true;
    d.kind = value.kind();
    d.bytes = value.byteSize();
    const Tensor* t = value.heldTensor();
    if (!t || !t->defined())
        return d;
    d.dtype = t->dtype();
    d.rank = static_cast<uint8_t>(std::min<size_t>(t->shape().size(), 255));
    std::copy_n(t->shape().begin(), std::min<size_t>(t->shape().size(), ValueDigest::kMaxRank), d.dims.begin());
    if (t->dtype() == DataType::String) {
        TensorStats count;
        count.count = t->size();
        d.stats = count;
        return d;
    }
    if (t->dtype() == DataType::Float)
        d.stats = floatStats(t->data<float>());
    else
        d.stats = computeStats(*t);
    d.histogramLo = d.stats->min;
    d.histogramHi = d.stats->max;
    if (t->dtype() == DataType::Float) {
        floatHistogram(t->data<float>(), d);
    } else if (d.stats->min == 0 && d.stats->max == 0) {
        // computeHistogram would take [0, 0] for "use the stats' range" and compute them again.
        d.histogram[0] = d.stats->finite;
    } else {
        const Histogram h = computeHistogram(*t, ValueDigest::kBins, d.stats->min, d.stats->max);
        std::copy(h.counts.begin(), h.counts.end(), d.histogram.begin());
    }
    const int64_t n = std::min<int64_t>(t->size(), static_cast<int64_t>(ValueDigest::kSample));
    d.sampleSize = static_cast<uint8_t>(n);
    copyAsDouble(*t, 0, n, d.sample.data());
    return d;
}

std::string ValueDigest::typeString() const
{
    switch (kind) {
    case Value::Kind::None:
        return "none";
    case Value::Kind::Sequence:
        return "sequence";
    case Value::Kind::Map:
        return "map";
    default:
        break;
    }
    std::string s = kind == Value::Kind::Optional ? "optional(" : "";
    s += dataTypeName(dtype);
    s += "[";
    for (size_t i = 0; i < rank; ++i) {
        if (i)
            s += ", ";
        s += i < kMaxRank ? std::to_string(dims[i]) : std::string("...");
        if (i >= kMaxRank)
            break;
    }
    s += "]";
    if (kind == Value::Kind::Optional)
        s += ")";
    return s;
}

} // namespace onnxscope
