// SPDX-License-Identifier: MIT
#include "engine/core/byte_size.h"

#include "engine/core/error.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace onnxscope {

namespace {

bool isSpace(char c)
{
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

char upper(char c)
{
    return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}

} // namespace

std::optional<uint64_t> parseByteSize(std::string_view text)
{
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    // The number: digits, optionally one '.' and more digits (no sign, no exponent).
    size_t end = 0;
    size_t digits = 0;
    bool dot = false;
    for (; end < text.size(); ++end) {
        if (std::isdigit(static_cast<unsigned char>(text[end])))
            ++digits;
        else if (text[end] == '.' && !dot)
            dot = true;
        else
            break;
    }
    if (digits == 0 || digits > 40)
        return std::nullopt;
    double number = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, number);
    if (ec != std::errc() || ptr != text.data() + end)
        return std::nullopt;
    std::string_view unit = text.substr(end);
    while (!unit.empty() && isSpace(unit.front()))
        unit.remove_prefix(1);
    int power = 0;
    static constexpr std::string_view kUnits = "KMGTP";
    if (!unit.empty() && kUnits.find(upper(unit.front())) != std::string_view::npos) {
        power = 1 + static_cast<int>(kUnits.find(upper(unit.front())));
        unit.remove_prefix(1);
        if (!unit.empty() && upper(unit.front()) == 'I')
            unit.remove_prefix(1);
    }
    if (!unit.empty() && upper(unit.front()) == 'B')
        unit.remove_prefix(1);
    if (!unit.empty())
        return std::nullopt;
    if (!dot) {
        // Whole numbers are exact, beyond double's 53 bits too.
        uint64_t whole = 0;
        const auto [p, e] = std::from_chars(text.data(), text.data() + end, whole);
        if (e != std::errc() || p != text.data() + end || whole == 0
            || (power > 0 && whole > (UINT64_MAX >> (10 * power))))
            return std::nullopt;
        return whole << (10 * power);
    }
    const double bytes = std::floor(number * std::ldexp(1.0, 10 * power));
    // 2^64 is exactly representable; anything at or above it does not fit.
    if (!(bytes >= 1) || bytes >= std::ldexp(1.0, 64))
        return std::nullopt;
    return static_cast<uint64_t>(bytes);
}

uint64_t parseByteSizeOrThrow(std::string_view text, std::string_view what)
{
    if (const auto bytes = parseByteSize(text))
        return *bytes;
    throw Error(std::string(what) + " expects a positive size such as 1048576, 512M, 1.5G or 64KiB (K, M, G, T, P are "
        + "powers of 1024), got \"" + std::string(text) + "\"");
}

std::string formatByteCount(uint64_t bytes)
{
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    return formatByteCount(static_cast<double>(bytes));
}

std::string formatByteCount(double bytes)
{
    static const char* const kUnits[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    int u = 0;
    while (bytes >= 1024 && u < 6) {
        bytes /= 1024;
        ++u;
    }
    char buf[64];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%.0f B", bytes);
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", bytes, kUnits[u]);
    return buf;
}

} // namespace onnxscope
