// SPDX-License-Identifier: MIT
#include "engine/core/text.h"

#include "engine/core/shape.h"

#include <cstdint>
#include <cstdio>

namespace onnxscope {

namespace {

/// Length of the valid UTF-8 sequence starting at `i`, or 0 if the bytes there are not one.
size_t utf8SequenceLength(std::string_view s, size_t i)
{
    const auto b0 = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    uint32_t cp = 0;
    if (b0 < 0x80)
        return 1;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2;
        cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3;
        cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4;
        cp = b0 & 0x07;
    } else {
        return 0;
    }
    if (len > s.size() - i)
        return 0;
    for (size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMin[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

} // namespace

bool isValidUtf8(std::string_view bytes)
{
    for (size_t i = 0; i < bytes.size();) {
        const size_t len = utf8SequenceLength(bytes, i);
        if (len == 0)
            return false;
        i += len;
    }
    return true;
}

std::string escapeBytes(std::string_view bytes)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size());
    for (size_t i = 0; i < bytes.size();) {
        const auto b = static_cast<unsigned char>(bytes[i]);
        const size_t len = utf8SequenceLength(bytes, i);
        if (len == 0 || b < 0x20 || b == 0x7F) {
            out += "\\x";
            out += kHex[b >> 4];
            out += kHex[b & 0xF];
            ++i;
        } else {
            out.append(bytes.substr(i, len));
            i += len;
        }
    }
    return out;
}

std::string formatMs(double ms, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, ms);
    return buf;
}

std::string formatMs(std::chrono::nanoseconds d)
{
    return formatMs(static_cast<double>(d.count()) / 1e6);
}

std::string formatIndex(const std::vector<int64_t>& shape, int64_t flat)
{
    const std::vector<int64_t> strides = stridesOf(shape);
    std::string s = "[";
    for (size_t d = 0; d < strides.size(); ++d) {
        s += (d ? ", " : "") + std::to_string(strides[d] ? flat / strides[d] : 0);
        if (strides[d])
            flat %= strides[d];
    }
    return s + "]";
}

} // namespace onnxscope
