// SPDX-License-Identifier: MIT
// Element conversions as ONNX's Cast does them: the Cast and CastLike kernels, typed-in and converted inputs.
#include "engine/core/cast.h"

#include "engine/core/half.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace onnxscope {

float roundToOddFloat(double d)
{
    float f = static_cast<float>(d);
    if (!std::isfinite(d) || static_cast<double>(f) == d || !std::isfinite(f))
        return f;
    if (std::fabs(static_cast<double>(f)) > std::fabs(d))
        f = std::nextafter(f, 0.0f);
    return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}

namespace {

template <class... Ts> struct TypeList {
};

/// Calls `fn.template operator()<T>()` for the C++ type T of `type` in `Ts`, else throws "<what>: element type X is
/// not supported". The kernels' dispatch (kernels/common/dispatch.h) does the same; core cannot include kernel code.
template <class Fn, class T, class... Rest> void dispatchIn(DataType type, const char* what, Fn& fn)
{
    if (type == DataTypeOf<T>::value)
        fn.template operator()<T>();
    else if constexpr (sizeof...(Rest) > 0)
        dispatchIn<Fn, Rest...>(type, what, fn);
    else
        throw Error(std::string(what) + ": element type " + std::string(dataTypeName(type)) + " is not supported");
}
template <class List, class Fn> void dispatch(DataType type, const char* what, Fn&& fn)
{
    [&]<class... Ts>(TypeList<Ts...>) { dispatchIn<Fn, Ts...>(type, what, fn); }(List {});
}

using CastTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
    uint32_t, uint64_t, bool, std::string>;

template <class T> constexpr bool isHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

/// Shortest decimal digits that read back as `v` in type T: the digits without a point and the decimal exponent
/// of the first digit.
template <class T> void shortestDigits(T v, std::string& digits, int& exponent)
{
    char buf[64];
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
        *r.ptr = 0;
    } else {
        // No shortest formatter exists for the half types: try increasing precision until the value reads back.
        const float f = static_cast<float>(v);
        for (int precision = 0; precision < 9; ++precision) {
            std::snprintf(buf, sizeof buf, "%.*e", precision, static_cast<double>(f));
            if (static_cast<T>(std::strtof(buf, nullptr)) == v)
                break;
        }
    }
    std::string s(buf);
    const size_t e = s.find('e');
    exponent = std::stoi(s.substr(e + 1));
    digits.clear();
    for (size_t i = 0; i < e; ++i)
        if (s[i] >= '0' && s[i] <= '9')
            digits += s[i];
    while (digits.size() > 1 && digits.back() == '0')
        digits.pop_back();
}

/// A floating-point value as numpy's str() writes it: shortest round-trip digits, positional notation for
/// 1e-4 <= |v| < 1e16 ("0.5488135", "100.0"), scientific otherwise ("1e-05", "3.4028235e+38"), "nan", "inf".
template <class T> std::string formatFloat(T value)
{
    const double d = static_cast<double>(value);
    if (std::isnan(d))
        return "nan";
    if (std::isinf(d))
        return d < 0 ? "-inf" : "inf";
    std::string out = std::signbit(d) ? "-" : "";
    if (d == 0)
        return out + "0.0";
    std::string digits;
    int e = 0;
    shortestDigits<T>(std::signbit(d) ? T(-value) : value, digits, e);
    const double mag = std::fabs(d);
    if (mag >= 1e-4 && mag < 1e16) {
        if (e >= 0) {
            const size_t intLen = static_cast<size_t>(e) + 1;
            if (digits.size() <= intLen)
                out += digits + std::string(intLen - digits.size(), '0') + ".0";
            else
                out += digits.substr(0, intLen) + "." + digits.substr(intLen);
        } else {
            out += "0." + std::string(static_cast<size_t>(-e - 1), '0') + digits;
        }
        return out;
    }
    out += digits.substr(0, 1);
    if (digits.size() > 1)
        out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", e < 0 ? '-' : '+', std::abs(e));
    return out + exp;
}

std::string trim(const std::string& s)
{
    const auto first = s.find_first_not_of(" \t\n\r\f\v");
    if (first == std::string::npos)
        return {};
    return s.substr(first, s.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

/// Parses a floating-point number as Python's float() does ("0.5", "1e-3", "NaN", "INF", "+INF", "-inf").
bool parseDouble(const std::string& text, double& out)
{
    std::string s = trim(text);
    if (!s.empty() && s[0] == '+' && s.size() > 1 && s[1] != '-' && s[1] != '+')
        s.erase(0, 1);
    if (s.empty())
        return false;
    auto r = std::from_chars(s.data(), s.data() + s.size(), out, std::chars_format::general);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

template <class To> To saturate(double d)
{
    if (std::isnan(d))
        return To(0);
    if (d <= static_cast<double>(std::numeric_limits<To>::lowest()))
        return std::numeric_limits<To>::lowest();
    if (d >= static_cast<double>(std::numeric_limits<To>::max()))
        return std::numeric_limits<To>::max();
    return static_cast<To>(d);
}

template <class To> To fromString(const std::string& s, size_t index)
{
    auto bad = [&](const std::string& expected) {
        return Error("element " + std::to_string(index) + " \"" + s.substr(0, 64) + "\" cannot be read as " + expected);
    };
    double d = 0;
    if constexpr (std::is_same_v<To, bool>) {
        std::string t = trim(s);
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
        if (t == "true")
            return true;
        if (t == "false")
            return false;
        if (!parseDouble(s, d))
            throw bad("bool");
        return d != 0;
    } else if constexpr (std::is_integral_v<To>) {
        std::string t = trim(s);
        if (!t.empty() && t[0] == '+')
            t.erase(0, 1);
        To value {};
        auto r = std::from_chars(t.data(), t.data() + t.size(), value);
        if (r.ec == std::errc::result_out_of_range)
            throw bad(std::string(dataTypeName(DataTypeOf<To>::value)) + " (out of range)");
        if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
            throw bad(std::string(dataTypeName(DataTypeOf<To>::value)));
        return value;
    } else {
        if (!parseDouble(s, d))
            throw bad(std::string(dataTypeName(DataTypeOf<To>::value)));
        if constexpr (isHalf<To>)
            return To(roundToOddFloat(d));
        else
            return static_cast<To>(d);
    }
}

template <class From, class To> To convert(const From& v, size_t index)
{
    if constexpr (std::is_same_v<To, std::string>) {
        if constexpr (std::is_same_v<From, std::string>)
            return v;
        else if constexpr (std::is_same_v<From, bool>)
            return v ? "True" : "False";
        else if constexpr (std::is_integral_v<From>)
            return std::to_string(v);
        else
            return formatFloat<From>(v);
    } else if constexpr (std::is_same_v<From, std::string>) {
        return fromString<To>(v, index);
    } else if constexpr (std::is_same_v<To, bool>) {
        if constexpr (isHalf<From>)
            return static_cast<float>(v) != 0.0f;
        else
            return v != From(0);
    } else if constexpr (std::is_same_v<From, bool>) {
        return static_cast<To>(v ? 1 : 0);
    } else if constexpr (std::is_integral_v<To>) {
        if constexpr (std::is_integral_v<From>)
            return static_cast<To>(v);
        else
            return saturate<To>(static_cast<double>(v));
    } else if constexpr (isHalf<To>) {
        if constexpr (std::is_same_v<From, double>)
            return To(roundToOddFloat(v));
        else if constexpr (std::is_same_v<From, int64_t> || std::is_same_v<From, uint64_t>)
            return To(roundToOddFloat(static_cast<double>(v)));
        else
            return To(static_cast<float>(v));
    } else if constexpr (isHalf<From>) {
        return static_cast<To>(static_cast<float>(v));
    } else {
        return static_cast<To>(v);
    }
}

} // namespace

Tensor castTensor(const Tensor& x, DataType to)
{
    return castTensor(x, to, CastOptions {});
}

namespace {

/// A narrow tensor widened exactly: narrow floats to float, int4/int2 to int8, uint4/uint2 to uint8.
Tensor widen(const Tensor& x)
{
    const DataType from = x.dtype();
    const auto* src = static_cast<const uint8_t*>(x.raw());
    if (isNarrowFloat(from)) {
        Tensor w(DataType::Float, x.shape());
        auto out = w.data<float>();
        for (size_t i = 0; i < out.size(); ++i)
            out[i] = static_cast<float>(narrowToDouble(from, src[i]));
        return w;
    }
    Tensor w(from == DataType::Int4 || from == DataType::Int2 ? DataType::Int8 : DataType::UInt8, x.shape());
    if (x.size() > 0)
        std::memcpy(w.mutableRaw(), src, static_cast<size_t>(x.size()));
    return w;
}

/// `x` (not narrow, not complex) converted to the narrow type `to`.
Tensor narrowed(const Tensor& x, DataType to, const CastOptions& options)
{
    Tensor y(to, x.shape());
    auto* out = static_cast<uint8_t*>(y.mutableRaw());
    auto fromDouble = [&](double v) {
        if (to == DataType::Float8E8M0)
            return float8e8m0FromFloat(static_cast<float>(v), options.saturate, options.round);
        return narrowFromDouble(to, v, options.saturate);
    };
    dispatch<CastTypes>(x.dtype(), "cast input", [&]<class From>() {
        auto in = x.data<From>();
        for (size_t i = 0; i < in.size(); ++i) {
            if constexpr (std::is_same_v<From, std::string>) {
                double d = 0;
                if (!parseDouble(in[i], d))
                    throw Error("element " + std::to_string(i) + " \"" + in[i].substr(0, 64) + "\" cannot be read as "
                        + std::string(dataTypeName(to)));
                out[i] = fromDouble(d);
            } else if constexpr (std::is_same_v<From, bool>) {
                out[i] = fromDouble(in[i] ? 1.0 : 0.0);
            } else if constexpr (std::is_integral_v<From>) {
                out[i] = isNarrowInteger(to) ? narrowFromInteger(to, static_cast<int64_t>(in[i]))
                                             : fromDouble(static_cast<double>(in[i]));
            } else if constexpr (isHalf<From>) {
                out[i] = fromDouble(static_cast<double>(static_cast<float>(in[i])));
            } else {
                out[i] = fromDouble(static_cast<double>(in[i]));
            }
        }
    });
    return y;
}

} // namespace

Tensor castTensor(const Tensor& x, DataType to, const CastOptions& options)
{
    if (x.dtype() == to)
        return x;
    if (isNarrow(x.dtype())) {
        Tensor w = widen(x);
        return w.dtype() == to ? w : castTensor(w, to, options);
    }
    if (isNarrow(to)) {
        if (isComplex(x.dtype()))
            throw Error("casting from " + std::string(dataTypeName(x.dtype())) + " to " + std::string(dataTypeName(to))
                + " is not supported");
        return narrowed(x, to, options);
    }
    if (isComplex(to) || isComplex(x.dtype()))
        throw Error("casting from " + std::string(dataTypeName(x.dtype())) + " to " + std::string(dataTypeName(to))
            + " is not supported");
    Tensor y(to, x.shape());
    dispatch<CastTypes>(x.dtype(), "cast input", [&]<class From>() {
        dispatch<CastTypes>(to, "cast target", [&]<class To>() {
            auto in = x.data<From>();
            auto out = y.data<To>();
            for (size_t i = 0; i < in.size(); ++i)
                out[i] = convert<From, To>(in[i], i);
        });
    });
    return y;
}

} // namespace onnxscope
