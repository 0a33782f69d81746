// SPDX-License-Identifier: MIT
#include "engine/exec/value_checks.h"

#include "engine/core/half.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>
#include <cstring>
#include <string_view>

namespace onnxscope {

namespace {

template <class T> std::optional<NonFiniteHit> scan(std::span<const T> data, const Shape& shape)
{
    for (size_t i = 0; i < data.size(); ++i) {
        double v = static_cast<double>(static_cast<float>(data[i]));
        if constexpr (std::is_same_v<T, double>)
            v = data[i];
        if (!std::isfinite(v)) {
            std::string what = std::isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf");
            auto strides = stridesOf(shape);
            std::string index = "[";
            int64_t rest = static_cast<int64_t>(i);
            for (size_t d = 0; d < strides.size(); ++d) {
                index += (d ? ", " : "") + std::to_string(rest / strides[d]);
                rest %= strides[d];
            }
            index += "]";
            return NonFiniteHit { static_cast<int64_t>(i), what + " at index " + index };
        }
    }
    return std::nullopt;
}

std::optional<NonFiniteHit> scanTensor(const Tensor& t)
{
    switch (t.dtype()) {
    case DataType::Float:
        return scan(t.data<float>(), t.shape());
    case DataType::Double:
        return scan(t.data<double>(), t.shape());
    case DataType::Float16:
        return scan(t.data<Float16>(), t.shape());
    case DataType::BFloat16:
        return scan(t.data<BFloat16>(), t.shape());
    case DataType::Complex64: {
        auto d = t.data<Complex64>();
        std::span<const float> f(reinterpret_cast<const float*>(d.data()), d.size() * 2);
        auto hit = scan(f, { static_cast<int64_t>(f.size()) });
        if (hit)
            hit->index /= 2;
        return hit;
    }
    case DataType::Complex128: {
        auto d = t.data<Complex128>();
        std::span<const double> f(reinterpret_cast<const double*>(d.data()), d.size() * 2);
        auto hit = scan(f, { static_cast<int64_t>(f.size()) });
        if (hit)
            hit->index /= 2;
        return hit;
    }
    default:
        return std::nullopt;
    }
}

} // namespace

std::optional<NonFiniteHit> firstNonFinite(const Value& value)
{
    switch (value.kind()) {
    case Value::Kind::Tensor:
        return scanTensor(value.tensor());
    case Value::Kind::Sequence:
        for (const auto& item : value.sequence().items)
            if (auto hit = firstNonFinite(item))
                return hit;
        return std::nullopt;
    case Value::Kind::Optional:
        return value.optionalValue() ? firstNonFinite(*value.optionalValue()) : std::nullopt;
    case Value::Kind::Map:
        return scanTensor(value.map().values);
    default:
        return std::nullopt;
    }
}

namespace {

/// Whether x[0, n) holds NaN or Inf: v - v is +0 for every finite v and NaN otherwise, so the OR of its bits is 0 only
/// when all are finite. Two vector operations per vector of floats (simd::Ops::chunkStats, which also says it, takes
/// six), written once and compiled for each level by inlining it into the functions below (a 64-byte vector is one
/// register at AVX-512, two at AVX2, four at the baseline).
[[gnu::always_inline]] inline bool anyNonFiniteFloats(const float* x, int64_t n)
{
    typedef float FloatVec __attribute__((vector_size(64)));
    typedef int32_t IntVec __attribute__((vector_size(64)));
    constexpr int64_t kLanes = 16;
    IntVec a0 {}, a1 {}, a2 {}, a3 {};
    int64_t i = 0;
    for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
        FloatVec v0, v1, v2, v3;
        std::memcpy(&v0, x + i, sizeof v0);
        std::memcpy(&v1, x + i + kLanes, sizeof v1);
        std::memcpy(&v2, x + i + 2 * kLanes, sizeof v2);
        std::memcpy(&v3, x + i + 3 * kLanes, sizeof v3);
        a0 |= reinterpret_cast<IntVec>(v0 - v0);
        a1 |= reinterpret_cast<IntVec>(v1 - v1);
        a2 |= reinterpret_cast<IntVec>(v2 - v2);
        a3 |= reinterpret_cast<IntVec>(v3 - v3);
    }
    a0 |= a1 | a2 | a3;
    int32_t bits = 0;
    for (int64_t k = 0; k < kLanes; ++k)
        bits |= a0[k];
    for (; i < n; ++i) {
        const float d = x[i] - x[i];
        int32_t b;
        std::memcpy(&b, &d, sizeof b);
        bits |= b;
    }
    return bits != 0;
}

bool anyNonFiniteBaseline(const float* x, int64_t n)
{
    return anyNonFiniteFloats(x, n);
}

[[gnu::target("avx2")]] bool anyNonFiniteAvx2(const float* x, int64_t n)
{
    return anyNonFiniteFloats(x, n);
}

[[gnu::target("avx512f")]] bool anyNonFiniteAvx512(const float* x, int64_t n)
{
    return anyNonFiniteFloats(x, n);
}

} // namespace

bool hasNonFinite(const Value& value)
{
    if (!value.isTensor() || value.tensor().dtype() != DataType::Float)
        return firstNonFinite(value).has_value();
    // The level the kernels run at (simd::ops(): the CPU's widest, or ONNXSCOPE_SIMD's choice).
    static const auto scan = [] {
        const std::string_view level = simd::ops().name;
        return level == "AVX-512" ? anyNonFiniteAvx512 : level == "AVX2" ? anyNonFiniteAvx2 : anyNonFiniteBaseline;
    }();
    const std::span<const float> data = value.tensor().data<float>();
    return scan(data.data(), static_cast<int64_t>(data.size()));
}

} // namespace onnxscope
