// SPDX-License-Identifier: MIT
#include "engine/core/narrow_types.h"

#include "engine/core/error.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace onnxscope {

namespace {

enum class Kind {
    Ieee, // inf and NaN as IEEE 754 (e5m2)
    Fn, // no inf; NaN is S.1..1.1..1 (e4m3fn)
    Fnuz, // no inf, no -0; NaN is 0x80
    Finite, // neither inf nor NaN (float4e2m1, float6*)
};

struct Format {
    int exponentBits;
    int mantissaBits;
    int bias;
    Kind kind;
    double max;
};

Format formatOf(DataType type)
{
    switch (type) {
    case DataType::Float8E4M3FN:
        return { 4, 3, 7, Kind::Fn, 448.0 };
    case DataType::Float8E4M3FNUZ:
        return { 4, 3, 8, Kind::Fnuz, 240.0 };
    case DataType::Float8E5M2:
        return { 5, 2, 15, Kind::Ieee, 57344.0 };
    case DataType::Float8E5M2FNUZ:
        return { 5, 2, 16, Kind::Fnuz, 57344.0 };
    case DataType::Float4E2M1:
        return { 2, 1, 1, Kind::Finite, 6.0 };
    case DataType::Float6E2M3:
        return { 2, 3, 1, Kind::Finite, 7.5 };
    case DataType::Float6E3M2:
        return { 3, 2, 3, Kind::Finite, 28.0 };
    default:
        throw Error("element type " + std::string(dataTypeName(type)) + " is not a narrow float type");
    }
}

struct IntRange {
    int min, max;
};

IntRange intRange(DataType type)
{
    switch (type) {
    case DataType::Int4:
        return { -8, 7 };
    case DataType::UInt4:
        return { 0, 15 };
    case DataType::Int2:
        return { -2, 1 };
    case DataType::UInt2:
        return { 0, 3 };
    default:
        throw Error("element type " + std::string(dataTypeName(type)) + " is not a narrow integer type");
    }
}

double decodeFloat(const Format& f, uint8_t element)
{
    const int width = 1 + f.exponentBits + f.mantissaBits;
    const uint32_t bits = element & ((1u << width) - 1);
    const bool negative = (bits >> (width - 1)) & 1;
    const uint32_t expAll = (1u << f.exponentBits) - 1, manAll = (1u << f.mantissaBits) - 1;
    const uint32_t e = (bits >> f.mantissaBits) & expAll, m = bits & manAll;
    if (f.kind == Kind::Fnuz && bits == 0x80)
        return std::numeric_limits<double>::quiet_NaN();
    if (f.kind == Kind::Ieee && e == expAll)
        return m == 0 ? (negative ? -1.0 : 1.0) * std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::quiet_NaN();
    if (f.kind == Kind::Fn && e == expAll && m == manAll)
        return std::numeric_limits<double>::quiet_NaN();
    const double v = e == 0
        ? std::ldexp(static_cast<double>(m), 1 - f.bias - f.mantissaBits)
        : std::ldexp(static_cast<double>(m + (1u << f.mantissaBits)), static_cast<int>(e) - f.bias - f.mantissaBits);
    return negative ? -v : v;
}

uint8_t encodeFloat(const Format& f, double x, bool saturate)
{
    const int width = 1 + f.exponentBits + f.mantissaBits;
    const uint8_t signBit = static_cast<uint8_t>(1u << (width - 1));
    const uint32_t expAll = (1u << f.exponentBits) - 1, manAll = (1u << f.mantissaBits) - 1;
    const bool negative = std::signbit(x);
    const uint8_t sign = negative ? signBit : 0;
    auto maxBits = [&]() -> uint8_t {
        switch (f.kind) {
        case Kind::Ieee:
            return static_cast<uint8_t>(sign | ((expAll - 1) << f.mantissaBits) | manAll);
        case Kind::Fn:
            return static_cast<uint8_t>(sign | (expAll << f.mantissaBits) | (manAll - 1));
        default:
            return static_cast<uint8_t>(sign | (expAll << f.mantissaBits) | manAll);
        }
    };
    auto nanBits = [&]() -> uint8_t {
        switch (f.kind) {
        case Kind::Ieee:
            return static_cast<uint8_t>(sign | (expAll << f.mantissaBits) | (1u << (f.mantissaBits - 1)));
        case Kind::Fn:
            return static_cast<uint8_t>(sign | (expAll << f.mantissaBits) | manAll);
        case Kind::Fnuz:
            return 0x80;
        default:
            return negative ? 0 : signBit; // ml_dtypes' result
        }
    };
    auto overflowBits = [&]() -> uint8_t {
        if (saturate || f.kind == Kind::Finite)
            return maxBits();
        if (f.kind == Kind::Ieee)
            return static_cast<uint8_t>(sign | (expAll << f.mantissaBits));
        return nanBits();
    };
    if (std::isnan(x))
        return nanBits();
    if (std::isinf(x))
        return overflowBits();
    const double a = std::fabs(x);
    const int minExponent = 1 - f.bias; // of the smallest normal number
    int exponent = 0;
    std::frexp(a, &exponent); // a = frac * 2^exponent, frac in [0.5, 1)
    const int unbiased = a == 0 ? minExponent : std::max(exponent - 1, minExponent);
    const double quantum = std::ldexp(1.0, unbiased - f.mantissaBits);
    const double steps = std::nearbyint(a / quantum); // ties to even (the default rounding mode)
    const double rounded = steps * quantum;
    if (rounded > f.max)
        return overflowBits();
    if (rounded == 0)
        return f.kind == Kind::Fnuz ? 0 : sign;
    uint32_t e, m;
    if (rounded < std::ldexp(1.0, minExponent)) {
        e = 0;
        m = static_cast<uint32_t>(steps);
    } else {
        std::frexp(rounded, &exponent);
        e = static_cast<uint32_t>(exponent - 1 + f.bias);
        m = static_cast<uint32_t>(std::ldexp(rounded, f.mantissaBits - (exponent - 1))) - (1u << f.mantissaBits);
    }
    return static_cast<uint8_t>(sign | (e << f.mantissaBits) | m);
}

} // namespace

double narrowToDouble(DataType type, uint8_t element)
{
    if (isNarrowInteger(type))
        return type == DataType::Int4 || type == DataType::Int2 ? static_cast<double>(static_cast<int8_t>(element))
                                                                : static_cast<double>(element);
    if (type == DataType::Float8E8M0)
        return element == 0xFF ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, int(element) - 127);
    return decodeFloat(formatOf(type), element);
}

uint8_t narrowFromDouble(DataType type, double x, bool saturate)
{
    if (isNarrowInteger(type)) {
        if (std::isnan(x))
            return 0;
        const double t = std::trunc(x);
        const IntRange r = intRange(type);
        if (t < r.min || t > r.max)
            return 0;
        return static_cast<uint8_t>(static_cast<int8_t>(t));
    }
    if (type == DataType::Float8E8M0)
        return float8e8m0FromFloat(static_cast<float>(x), saturate, E8M0Rounding::Up);
    return encodeFloat(formatOf(type), x, saturate);
}

uint8_t narrowFromInteger(DataType type, int64_t x)
{
    const int bits = bitWidth(type);
    const uint64_t mask = (uint64_t(1) << bits) - 1;
    return narrowFromBits(type, static_cast<uint32_t>(static_cast<uint64_t>(x) & mask));
}

double narrowMax(DataType type)
{
    if (isNarrowInteger(type))
        return intRange(type).max;
    if (type == DataType::Float8E8M0)
        return std::ldexp(1.0, 127);
    return formatOf(type).max;
}

double narrowLowest(DataType type)
{
    if (isNarrowInteger(type))
        return intRange(type).min;
    if (type == DataType::Float8E8M0)
        return std::ldexp(1.0, -127);
    return -formatOf(type).max;
}

uint8_t float8e8m0FromFloat(float x, bool saturate, E8M0Rounding mode)
{
    const uint32_t f = std::bit_cast<uint32_t>(x);
    uint32_t exponent = (f >> 23) & 0xFF;
    if (exponent == 0xFF)
        return 0xFF;
    bool up = false;
    if (mode == E8M0Rounding::Nearest) {
        const bool g = f & 0x400000, r = f & 0x200000, s = f & 0x1FFFFF, lsb = exponent > 0;
        up = g && (r || s || lsb);
    } else if (mode == E8M0Rounding::Up) {
        up = (f & 0x7FFFFF) != 0;
    }
    if (up && saturate && exponent == 0xFE)
        up = false;
    return static_cast<uint8_t>(exponent + (up ? 1 : 0));
}

uint8_t narrowFromBits(DataType type, uint32_t bits)
{
    const int width = bitWidth(type);
    const uint32_t mask = (1u << width) - 1;
    bits &= mask;
    if ((type == DataType::Int4 || type == DataType::Int2) && (bits >> (width - 1)) & 1)
        bits |= ~mask;
    return static_cast<uint8_t>(bits);
}

uint8_t narrowBits(DataType type, uint8_t element)
{
    const int width = bitWidth(type);
    return width >= 8 ? element : static_cast<uint8_t>(element & ((1u << width) - 1));
}

void packElements(DataType type, const uint8_t* elements, int64_t count, uint8_t* packed)
{
    const int width = bitWidth(type);
    const size_t bytes = packedByteSize(type, count);
    if (width == 8) {
        if (count > 0)
            std::memcpy(packed, elements, static_cast<size_t>(count));
        return;
    }
    std::memset(packed, 0, bytes);
    for (int64_t i = 0; i < count; ++i) {
        const uint32_t v = narrowBits(type, elements[i]);
        const int64_t bit = i * width;
        packed[bit / 8] |= static_cast<uint8_t>(v << (bit % 8));
        if (bit % 8 + width > 8)
            packed[bit / 8 + 1] |= static_cast<uint8_t>(v >> (8 - bit % 8));
    }
}

void unpackElements(DataType type, const uint8_t* packed, int64_t count, uint8_t* elements)
{
    const int width = bitWidth(type);
    for (int64_t i = 0; i < count; ++i) {
        if (width == 8) {
            elements[i] = packed[i];
            continue;
        }
        const int64_t bit = i * width;
        uint32_t v = packed[bit / 8] >> (bit % 8);
        if (bit % 8 + width > 8)
            v |= static_cast<uint32_t>(packed[bit / 8 + 1]) << (8 - bit % 8);
        elements[i] = narrowFromBits(type, v);
    }
}

} // namespace onnxscope
