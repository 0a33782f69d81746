// SPDX-License-Identifier: MIT
#include "engine/exec/value_checks.h"

#include "engine/core/half.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>

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

bool hasNonFinite(const Value& value)
{
    if (!value.isTensor() || value.tensor().dtype() != DataType::Float)
        return firstNonFinite(value).has_value();
    const std::span<const float> data = value.tensor().data<float>();
    return simd::anyNonFinite(data.data(), static_cast<int64_t>(data.size()));
}

} // namespace onnxscope
