// SPDX-License-Identifier: MIT
#include "engine/core/tensor_stats.h"

#include "engine/core/half.h"

#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <vector>

namespace onnxscope {

namespace {

template <class T> double asDouble(const T& v)
{
    if constexpr (std::is_same_v<T, Complex64> || std::is_same_v<T, Complex128>)
        return static_cast<double>(v.real());
    else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
        return static_cast<double>(static_cast<float>(v));
    else if constexpr (std::is_same_v<T, bool>)
        return v ? 1.0 : 0.0;
    else
        return static_cast<double>(v);
}

/// Calls `fn(span)` with the tensor's elements typed; false for strings and undefined tensors. The narrow types
/// (float8, int4, float4, ...) come as their values in doubles.
template <class Fn> bool visit(const Tensor& t, Fn&& fn)
{
    if (isNarrow(t.dtype())) {
        std::vector<double> values(static_cast<size_t>(t.size()));
        for (int64_t i = 0; i < t.size(); ++i)
            values[static_cast<size_t>(i)] = t.toDouble(i);
        fn(std::span<const double>(values));
        return true;
    }
    switch (t.dtype()) {
    case DataType::Float:
        fn(t.data<float>());
        return true;
    case DataType::Double:
        fn(t.data<double>());
        return true;
    case DataType::Float16:
        fn(t.data<Float16>());
        return true;
    case DataType::BFloat16:
        fn(t.data<BFloat16>());
        return true;
    case DataType::Int8:
        fn(t.data<int8_t>());
        return true;
    case DataType::Int16:
        fn(t.data<int16_t>());
        return true;
    case DataType::Int32:
        fn(t.data<int32_t>());
        return true;
    case DataType::Int64:
        fn(t.data<int64_t>());
        return true;
    case DataType::UInt8:
        fn(t.data<uint8_t>());
        return true;
    case DataType::UInt16:
        fn(t.data<uint16_t>());
        return true;
    case DataType::UInt32:
        fn(t.data<uint32_t>());
        return true;
    case DataType::UInt64:
        fn(t.data<uint64_t>());
        return true;
    case DataType::Bool:
        fn(t.data<bool>());
        return true;
    case DataType::Complex64:
        fn(t.data<Complex64>());
        return true;
    case DataType::Complex128:
        fn(t.data<Complex128>());
        return true;
    default:
        return false;
    }
}

} // namespace

TensorStats computeStats(const Tensor& tensor)
{
    TensorStats s;
    if (!tensor.defined())
        return s;
    s.count = tensor.size();
    double mean = 0, m2 = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    s.numeric = visit(tensor, [&](auto span) {
        for (const auto& e : span) {
            const double v = asDouble(e);
            if (std::isnan(v)) {
                ++s.nan;
                continue;
            }
            if (std::isinf(v)) {
                ++(v > 0 ? s.posInf : s.negInf);
                continue;
            }
            if (v == 0)
                ++s.zeros;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            ++s.finite;
            const double delta = v - mean;
            mean += delta / static_cast<double>(s.finite);
            m2 += delta * (v - mean);
        }
    });
    if (s.finite > 0) {
        s.min = lo;
        s.max = hi;
        s.mean = mean;
        s.std = std::sqrt(m2 / static_cast<double>(s.finite));
    }
    return s;
}

std::optional<TensorStats> computeStats(const Value& value)
{
    if (value.isTensor())
        return computeStats(value.tensor());
    if (value.isOptional() && value.optionalValue())
        return computeStats(*value.optionalValue());
    return std::nullopt;
}

Histogram computeHistogram(const Tensor& tensor, int bins, double lo, double hi)
{
    Histogram h;
    bins = std::max(bins, 1);
    h.counts.assign(static_cast<size_t>(bins), 0);
    if (lo == 0 && hi == 0) {
        const TensorStats s = computeStats(tensor);
        lo = s.min;
        hi = s.max;
    }
    h.lo = lo;
    h.hi = hi;
    const double width = hi > lo ? (hi - lo) / bins : 1.0;
    visit(tensor, [&](auto span) {
        for (const auto& e : span) {
            const double v = asDouble(e);
            if (!std::isfinite(v) || v < lo || v > hi)
                continue;
            const int b = std::min(static_cast<int>((v - lo) / width), bins - 1);
            ++h.counts[static_cast<size_t>(b)];
        }
    });
    return h;
}

void forEachAsDouble(const Tensor& tensor, const std::function<void(int64_t, double)>& fn)
{
    visit(tensor, [&](auto span) {
        for (size_t i = 0; i < span.size(); ++i)
            fn(static_cast<int64_t>(i), asDouble(span[i]));
    });
}

void copyAsDouble(const Tensor& tensor, int64_t begin, int64_t end, double* out)
{
    const bool ok = visit(tensor, [&](auto span) {
        for (int64_t i = begin; i < end; ++i)
            *out++ = asDouble(span[static_cast<size_t>(i)]);
    });
    if (!ok)
        std::fill(out, out + (end - begin), std::numeric_limits<double>::quiet_NaN());
}

TensorDiff compareTensors(const Tensor& actual, const Tensor& reference)
{
    check(actual.size() == reference.size(),
        "cannot compare " + actual.typeString() + " with " + reference.typeString() + ": element counts differ");
    check(actual.dtype() != DataType::String && reference.dtype() != DataType::String,
        "cannot compare string tensors numerically");
    TensorDiff d;
    d.count = actual.size();
    // Chunked so that neither tensor is converted whole (they may be huge).
    constexpr int64_t kChunk = 1 << 16;
    std::vector<double> a(kChunk), b(kChunk);
    for (int64_t begin = 0; begin < d.count; begin += kChunk) {
        const int64_t end = std::min(d.count, begin + kChunk);
        copyAsDouble(actual, begin, end, a.data());
        copyAsDouble(reference, begin, end, b.data());
        for (int64_t i = 0; i < end - begin; ++i) {
            const double x = a[static_cast<size_t>(i)], y = b[static_cast<size_t>(i)];
            if (!std::isfinite(x) || !std::isfinite(y)) {
                const bool same = (std::isnan(x) && std::isnan(y)) || (std::isinf(x) && x == y);
                if (!same)
                    ++d.mismatchedNonFinite;
                continue;
            }
            const double abs = std::abs(x - y);
            const double rel = abs / std::max(std::abs(y), std::numeric_limits<double>::min());
            if (abs > d.maxAbs || d.worstIndex < 0) {
                d.maxAbs = abs;
                d.worstIndex = begin + i;
                d.worstA = x;
                d.worstB = y;
            }
            d.maxRel = std::max(d.maxRel, abs == 0 ? 0.0 : rel);
        }
    }
    return d;
}

} // namespace onnxscope
