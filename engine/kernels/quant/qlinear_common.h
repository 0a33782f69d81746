// SPDX-License-Identifier: MIT
#pragma once

// Shared by onnxruntime's QOperator kernels (com.microsoft QLinear*): per-tensor quantization parameters and the
// requantization rules of onnxruntime's CPU provider, whose numbers these kernels reproduce. Include only from
// kernel .cpp files.

#include "engine/kernels/kernel.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace onnxscope::qlinear {

/// One per-tensor quantization: real = scale * (q - zeroPoint).
struct Params {
    float scale = 1.0f;
    int32_t zeroPoint = 0;
};

/// True for the 8-bit types the QLinear operators take (T: uint8 or int8).
inline bool isByteType(DataType t)
{
    return t == DataType::UInt8 || t == DataType::Int8;
}

/// Requires input `i` to be uint8 or int8 and returns its type.
inline DataType requireByteType(const KernelContext& ctx, size_t i, const char* what)
{
    const Tensor& t = ctx.input(i);
    if (!isByteType(t.dtype()))
        throw ctx.error(std::string(what) + " must be uint8 or int8, got " + t.typeString());
    return t.dtype();
}

/// The per-tensor parameters held by inputs `scaleInput` (float, one element) and `zeroInput` (one element of
/// `type`; absent means 0 unless `zeroRequired`). A scale of several elements, a zero point of another type, a
/// non-finite or zero scale are refused with an error naming the input.
inline Params params(const KernelContext& ctx, size_t scaleInput, size_t zeroInput, DataType type, const char* what,
    bool zeroRequired = false)
{
    Params p;
    const Tensor& s = ctx.input(scaleInput);
    if (s.dtype() != DataType::Float || s.size() != 1 || s.rank() > 1)
        throw ctx.error(std::string(what) + " scale must be a float scalar (per tensor), got " + s.typeString());
    p.scale = s.data<float>()[0];
    if (!std::isfinite(p.scale) || p.scale == 0)
        throw ctx.error(std::string(what) + " scale must be finite and non-zero, got " + std::to_string(p.scale));
    if (zeroInput >= ctx.inputCount() || !ctx.hasInput(zeroInput)) {
        if (zeroRequired)
            throw ctx.error(std::string(what) + " zero point is required");
        return p;
    }
    const Tensor& z = ctx.input(zeroInput);
    if (z.dtype() != type || z.size() != 1 || z.rank() > 1)
        throw ctx.error(std::string(what) + " zero point must be a scalar " + std::string(dataTypeName(type))
            + " (per tensor), got " + z.typeString());
    p.zeroPoint = type == DataType::Int8 ? z.data<int8_t>()[0] : z.data<uint8_t>()[0];
    return p;
}

/// v quantized as onnxruntime's MlasQuantizeLinear does: v / scale in float, clamped to the range the zero point
/// leaves (NaN to its low end), rounded half to even, then shifted by the zero point.
template <class T> T quantize(float v, Params p)
{
    const float lo = static_cast<float>(int32_t(std::numeric_limits<T>::lowest()) - p.zeroPoint);
    const float hi = static_cast<float>(int32_t(std::numeric_limits<T>::max()) - p.zeroPoint);
    float q = v / p.scale;
    q = std::isnan(q) ? lo : std::min(std::max(q, lo), hi);
    return static_cast<T>(static_cast<int32_t>(std::nearbyint(q)) + p.zeroPoint);
}

/// An integer rounded half to even result saturated into T.
template <class T> T saturate(int64_t v)
{
    if (v < std::numeric_limits<T>::lowest())
        return std::numeric_limits<T>::lowest();
    if (v > std::numeric_limits<T>::max())
        return std::numeric_limits<T>::max();
    return static_cast<T>(v);
}

/// The 256-entry table of y = quantize(f(dequantize(x))) for every byte x of type T, indexed by the byte: how
/// onnxruntime computes its element-wise QLinear operators (the float function runs once per possible input).
template <class T, class F> std::array<uint8_t, 256> lookupTable(Params x, Params y, F f)
{
    std::array<uint8_t, 256> table {};
    for (int i = 0; i < 256; ++i) {
        const T q = static_cast<T>(static_cast<uint8_t>(i));
        const float real = x.scale * static_cast<float>(int32_t(q) - x.zeroPoint);
        const T r = quantize<T>(f(real), y);
        table[static_cast<size_t>(i)] = static_cast<uint8_t>(r);
    }
    return table;
}

/// out[i] = table[in[i]] over n bytes.
inline void applyTable(const std::array<uint8_t, 256>& table, const void* in, void* out, int64_t n)
{
    const auto* src = static_cast<const uint8_t*>(in);
    auto* dst = static_cast<uint8_t*>(out);
    for (int64_t i = 0; i < n; ++i)
        dst[i] = table[src[i]];
}

} // namespace onnxscope::qlinear
