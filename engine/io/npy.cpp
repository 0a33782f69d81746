// SPDX-License-Identifier: MIT
#include "engine/io/npy.h"

#include "engine/core/allocation_limit.h"
#include "engine/core/half.h"
#include "engine/core/narrow_types.h"
#include "engine/io/tensor_proto.h"

#include <zip.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

namespace fs = std::filesystem;

// The .npy format is small and fully specified (numpy/lib/format.py); no Debian package reads it from C++, so it
// is written by hand here. .npz archives go through libzip.
static_assert(std::endian::native == std::endian::little, "npy I/O assumes a little-endian host");

namespace onnxscope {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// ---- header parsing (the Python dict literal numpy writes) ----

struct HeaderValue {
    enum class Kind { String, Bool, Tuple, Other } kind = Kind::Other;
    std::string text;
    bool flag = false;
    std::vector<int64_t> ints;
};

class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& what)
        : m_text(text)
        , m_what(what)
    {
    }

    std::vector<std::pair<std::string, HeaderValue>> parseDict()
    {
        std::vector<std::pair<std::string, HeaderValue>> out;
        skipSpace();
        expect('{');
        for (;;) {
            skipSpace();
            if (peek() == '}') {
                ++m_pos;
                break;
            }
            std::string key = parseString();
            skipSpace();
            expect(':');
            skipSpace();
            m_key = key;
            HeaderValue value = parseValue();
            m_key.clear();
            out.emplace_back(std::move(key), std::move(value));
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            expect('}');
            break;
        }
        skipSpace();
        if (m_pos != m_text.size())
            fail("unexpected text after the header dictionary");
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& why) const
    {
        throw Error(m_what + ": malformed .npy header (" + why + (m_key.empty() ? "" : " for '" + m_key + "'")
            + " at offset " + std::to_string(m_pos) + ")");
    }
    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    void skipSpace()
    {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }
    void expect(char c)
    {
        if (peek() != c)
            fail(std::string("expected '") + c + "'");
        ++m_pos;
    }
    std::string parseString()
    {
        char quote = peek();
        if (quote != '\'' && quote != '"')
            fail("expected a quoted string");
        ++m_pos;
        std::string s;
        while (m_pos < m_text.size() && m_text[m_pos] != quote) {
            if (m_text[m_pos] == '\\')
                fail("escape sequences are not supported");
            s += m_text[m_pos++];
        }
        if (m_pos >= m_text.size())
            fail("unterminated string");
        ++m_pos;
        return s;
    }
    int64_t parseInt()
    {
        size_t start = m_pos;
        uint64_t v = 0;
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
            int digit = m_text[m_pos] - '0';
            if (v > (static_cast<uint64_t>(INT64_MAX) - digit) / 10)
                fail("dimension too large");
            v = v * 10 + static_cast<uint64_t>(digit);
            ++m_pos;
        }
        if (m_pos == start)
            fail("expected a non-negative integer");
        // The header is a Python literal: Python 3 refuses "01" (not "00"), and Python 2 read it as octal.
        if (m_text[start] == '0' && v != 0)
            fail("a number with a leading zero, which numpy refuses too");
        if (peek() == 'L') // Python 2 longs
            ++m_pos;
        return static_cast<int64_t>(v);
    }
    HeaderValue parseValue()
    {
        HeaderValue v;
        char c = peek();
        if (c == '\'' || c == '"') {
            v.kind = HeaderValue::Kind::String;
            v.text = parseString();
        } else if (m_text.substr(m_pos, 4) == "True") {
            v.kind = HeaderValue::Kind::Bool;
            v.flag = true;
            m_pos += 4;
        } else if (m_text.substr(m_pos, 5) == "False") {
            v.kind = HeaderValue::Kind::Bool;
            m_pos += 5;
        } else if (c == '(') {
            v.kind = HeaderValue::Kind::Tuple;
            ++m_pos;
            for (;;) {
                skipSpace();
                if (peek() == ')') {
                    ++m_pos;
                    break;
                }
                v.ints.push_back(parseInt());
                skipSpace();
                if (peek() == ',') {
                    ++m_pos;
                    continue;
                }
                expect(')');
                break;
            }
        } else if (c == '[' || c == '{') {
            // Structured dtypes: skip the balanced brackets, the caller refuses them.
            v.kind = HeaderValue::Kind::Other;
            int depth = 0;
            do {
                char d = peek();
                if (d == '\0')
                    fail("unbalanced brackets");
                if (d == '\'' || d == '"') {
                    parseString();
                    continue;
                }
                if (d == '[' || d == '{' || d == '(')
                    ++depth;
                else if (d == ']' || d == '}' || d == ')')
                    --depth;
                ++m_pos;
            } while (depth > 0);
        } else {
            fail("unexpected value");
        }
        return v;
    }

    std::string_view m_text;
    size_t m_pos = 0;
    std::string m_key; // the key whose value is being parsed, for messages
    const std::string& m_what;
};

// ---- dtypes ----

struct NpyDtype {
    char kind = 0; // 'f', 'i', 'u', 'b', 'c', 'U', 'S'
    size_t itemSize = 0; // bytes per element
    bool bigEndian = false;
    DataType type = DataType::Undefined;
};

NpyDtype parseDescr(const std::string& descr, const std::string& what)
{
    auto refuse = [&](const std::string& why) -> NpyDtype { throw Error(what + ": dtype '" + descr + "' " + why); };
    NpyDtype d;
    // ml_dtypes' names (docs/element-types.md): one byte per element, the bit pattern in the low bits.
    const DataType narrow = dataTypeFromName(descr.substr(!descr.empty() && std::strchr("<>|=", descr[0]) ? 1 : 0));
    if (isNarrow(narrow) && descr.find('_') != std::string::npos) {
        d.kind = 'n';
        d.itemSize = 1;
        d.type = narrow;
        return d;
    }
    if (descr == "int4" || descr == "uint4" || descr == "int2" || descr == "uint2") {
        d.kind = 'n';
        d.itemSize = 1;
        d.type = dataTypeFromName(descr);
        return d;
    }
    if (descr.size() >= 2 && descr[descr.size() - 2] == 'V')
        return refuse(
            "is raw bytes (numpy's view of an ml_dtypes array saved without its type); view it as its ml_dtypes "
            "type (e.g. float8_e4m3fn) and save it again, or convert it to float32");
    size_t pos = 0;
    if (!descr.empty() && std::strchr("<>|=", descr[0])) {
        d.bigEndian = descr[0] == '>';
        pos = 1;
    }
    if (pos >= descr.size())
        return refuse("is empty");
    d.kind = descr[pos++];
    std::string digits = descr.substr(pos);
    if (d.kind == 'O')
        return refuse("holds Python objects (pickled); save it with a numeric or unicode dtype instead");
    if (d.kind == '?' && digits.empty()) {
        d.kind = 'b';
        digits = "1";
    }
    if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        }))
        return refuse("is not supported (expected a kind and a size, e.g. '<f4')");
    size_t n = std::stoul(digits);
    switch (d.kind) {
    case 'f':
        d.type = n == 2 ? DataType::Float16
            : n == 4    ? DataType::Float
            : n == 8    ? DataType::Double
                        : DataType::Undefined;
        d.itemSize = n;
        break;
    case 'i':
        d.type = n == 1 ? DataType::Int8
            : n == 2    ? DataType::Int16
            : n == 4    ? DataType::Int32
            : n == 8    ? DataType::Int64
                        : DataType::Undefined;
        d.itemSize = n;
        break;
    case 'u':
        d.type = n == 1 ? DataType::UInt8
            : n == 2    ? DataType::UInt16
            : n == 4    ? DataType::UInt32
            : n == 8    ? DataType::UInt64
                        : DataType::Undefined;
        d.itemSize = n;
        break;
    case 'b':
        d.type = n == 1 ? DataType::Bool : DataType::Undefined;
        d.itemSize = n;
        break;
    case 'c':
        d.type = n == 8 ? DataType::Complex64 : n == 16 ? DataType::Complex128 : DataType::Undefined;
        d.itemSize = n;
        break;
    case 'U':
        d.type = DataType::String;
        d.itemSize = n * 4;
        break;
    case 'S':
        d.type = DataType::String;
        d.itemSize = n;
        break;
    default:
        return refuse("is not supported");
    }
    if (d.type == DataType::Undefined)
        return refuse("has no ONNX element type");
    return d;
}

void appendUtf8(std::string& out, uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// Decodes UTF-8; nullopt if the bytes are not valid UTF-8 (overlong forms and surrogates included).
std::optional<std::u32string> decodeUtf8(const std::string& s)
{
    std::u32string out;
    size_t i = 0;
    while (i < s.size()) {
        auto b0 = static_cast<unsigned char>(s[i]);
        uint32_t cp = 0;
        size_t len = 0;
        if (b0 < 0x80) {
            cp = b0;
            len = 1;
        } else if ((b0 & 0xE0) == 0xC0) {
            cp = b0 & 0x1F;
            len = 2;
        } else if ((b0 & 0xF0) == 0xE0) {
            cp = b0 & 0x0F;
            len = 3;
        } else if ((b0 & 0xF8) == 0xF0) {
            cp = b0 & 0x07;
            len = 4;
        } else {
            return std::nullopt;
        }
        if (i + len > s.size())
            return std::nullopt;
        for (size_t k = 1; k < len; ++k) {
            auto b = static_cast<unsigned char>(s[i + k]);
            if ((b & 0xC0) != 0x80)
                return std::nullopt;
            cp = (cp << 6) | (b & 0x3F);
        }
        static constexpr uint32_t kMin[] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return std::nullopt;
        out += static_cast<char32_t>(cp);
        i += len;
    }
    return out;
}

void swapChunks(char* data, size_t bytes, size_t chunk)
{
    if (chunk <= 1)
        return;
    for (size_t off = 0; off + chunk <= bytes; off += chunk)
        std::reverse(data + off, data + off + chunk);
}

/// Reorders elements stored in Fortran (column-major) order into row-major order.
std::string fortranToC(const char* src, const Shape& shape, size_t itemSize, int64_t count)
{
    std::string out(static_cast<size_t>(count) * itemSize, '\0');
    const size_t rank = shape.size();
    std::vector<int64_t> fstride(rank, 1), index(rank, 0);
    for (size_t k = 1; k < rank; ++k)
        fstride[k] = fstride[k - 1] * shape[k - 1];
    for (int64_t i = 0; i < count; ++i) {
        int64_t off = 0;
        for (size_t k = 0; k < rank; ++k)
            off += index[k] * fstride[k];
        std::memcpy(
            out.data() + static_cast<size_t>(i) * itemSize, src + static_cast<size_t>(off) * itemSize, itemSize);
        for (size_t k = rank; k-- > 0;) {
            if (++index[k] < shape[k])
                break;
            index[k] = 0;
        }
    }
    return out;
}

uint32_t readLE32(const char* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

} // namespace

Tensor parseNpy(std::string_view bytes, const std::string& displayName)
{
    const std::string& what = displayName;
    check(bytes.size() >= 10 && bytes.substr(0, 6) == kMagic,
        what + ": not a .npy file (the magic string \\x93NUMPY is missing)");
    const int major = static_cast<unsigned char>(bytes[6]);
    check(major >= 1 && major <= 3,
        what + ": .npy format version " + std::to_string(major) + "."
            + std::to_string(static_cast<unsigned char>(bytes[7])) + " is not supported (1.0, 2.0 and 3.0 are)");
    size_t headerLen = 0, headerStart = 0;
    if (major == 1) {
        headerLen
            = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
        headerStart = 10;
    } else {
        check(bytes.size() >= 12, what + ": truncated .npy header");
        headerLen = readLE32(bytes.data() + 8);
        headerStart = 12;
    }
    check(headerLen <= bytes.size() - headerStart,
        what + ": truncated .npy file: the header claims " + std::to_string(headerLen) + " bytes but only "
            + std::to_string(bytes.size() - headerStart) + " follow");
    std::string_view header = bytes.substr(headerStart, headerLen);
    // 1.0 and 2.0 headers are latin-1, 3.0 is UTF-8; every key and value we accept is ASCII either way.
    auto dict = HeaderParser(header, what).parseDict();
    const HeaderValue *descr = nullptr, *fortran = nullptr, *shapeValue = nullptr;
    for (const auto& [key, value] : dict) {
        if (key == "descr")
            descr = &value;
        else if (key == "fortran_order")
            fortran = &value;
        else if (key == "shape")
            shapeValue = &value;
    }
    check(descr && fortran && shapeValue,
        what + ": malformed .npy header: it needs the keys 'descr', 'fortran_order' and 'shape'");
    check(descr->kind == HeaderValue::Kind::String,
        what + ": structured dtypes (records) are not supported; save a plain array");
    check(fortran->kind == HeaderValue::Kind::Bool, what + ": malformed .npy header: 'fortran_order' is not a bool");
    check(shapeValue->kind == HeaderValue::Kind::Tuple, what + ": malformed .npy header: 'shape' is not a tuple");

    NpyDtype dtype = parseDescr(descr->text, what);
    Shape shape = shapeValue->ints;
    int64_t count = 0;
    size_t dataBytes = 0;
    try {
        count = elementCount(shape);
        dataBytes = static_cast<size_t>(checkedMul(count, static_cast<int64_t>(dtype.itemSize), "data size"));
    } catch (const Error& e) {
        throw Error(what + ": shape " + shapeToString(shape) + ": " + e.what());
    }
    const size_t dataStart = headerStart + headerLen;
    const size_t available = bytes.size() - dataStart;
    check(available >= dataBytes,
        what + ": truncated .npy data: " + descr->text + shapeToString(shape) + " needs " + std::to_string(dataBytes)
            + " bytes but the file has " + std::to_string(available));
    check(available == dataBytes,
        what + ": .npy data has " + std::to_string(available - dataBytes) + " unexpected trailing bytes after "
            + descr->text + shapeToString(shape));
    // Before any per-element work: zero-length items ('|S0', '<U0') make a tiny file declare billions of elements.
    try {
        checkedTensorCount(dtype.type, shape);
    } catch (const Error& e) {
        throw Error(what + ": " + e.what());
    }

    // Element bytes in native order and C layout.
    std::string owned;
    const char* data = bytes.data() + dataStart;
    const bool needSwap = dtype.bigEndian && dtype.kind != 'S' && dtype.kind != 'b' && dtype.itemSize > 1;
    if (fortran->flag && shape.size() > 1 && dataBytes > 0) {
        owned = fortranToC(data, shape, dtype.itemSize, count);
        data = owned.data();
    }
    if (needSwap) {
        if (owned.empty())
            owned.assign(data, dataBytes);
        size_t chunk = dtype.kind == 'c' ? dtype.itemSize / 2 : dtype.kind == 'U' ? 4 : dtype.itemSize;
        swapChunks(owned.data(), owned.size(), chunk);
        data = owned.data();
    }

    Tensor t;
    try {
        t = Tensor(dtype.type, shape);
    } catch (const Error& e) {
        throw Error(what + ": " + e.what());
    }
    if (dtype.kind == 'U' || dtype.kind == 'S') {
        auto out = t.data<std::string>();
        for (int64_t i = 0; i < count; ++i) {
            const char* item = data + static_cast<size_t>(i) * dtype.itemSize;
            std::string s;
            if (dtype.kind == 'S') {
                size_t len = dtype.itemSize;
                while (len > 0 && item[len - 1] == '\0')
                    --len;
                s.assign(item, len);
            } else {
                size_t chars = dtype.itemSize / 4;
                while (chars > 0 && readLE32(item + (chars - 1) * 4) == 0)
                    --chars;
                for (size_t c = 0; c < chars; ++c) {
                    uint32_t cp = readLE32(item + c * 4);
                    check(cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF),
                        what + ": element " + std::to_string(i) + " holds an invalid unicode code point "
                            + std::to_string(cp));
                    appendUtf8(s, cp);
                }
            }
            out[static_cast<size_t>(i)] = std::move(s);
        }
    } else if (dtype.kind == 'b') {
        auto out = t.data<bool>();
        for (int64_t i = 0; i < count; ++i)
            out[static_cast<size_t>(i)] = data[i] != 0;
    } else if (dtype.kind == 'n') {
        auto* out = static_cast<uint8_t*>(t.mutableRaw());
        for (int64_t i = 0; i < count; ++i)
            out[i] = narrowFromBits(dtype.type, static_cast<uint8_t>(data[i]));
    } else if (dataBytes > 0) {
        std::memcpy(t.mutableRaw(), data, dataBytes);
    }
    return t;
}

Tensor readNpy(const fs::path& path)
{
    std::string bytes = readFileBytes(path);
    return parseNpy(bytes, "\"" + path.string() + "\"");
}

std::string npyDescr(const Tensor& tensor)
{
    switch (tensor.dtype()) {
    case DataType::Float:
        return "<f4";
    case DataType::Double:
        return "<f8";
    case DataType::Float16:
        return "<f2";
    case DataType::Int8:
        return "|i1";
    case DataType::UInt8:
        return "|u1";
    case DataType::Int16:
        return "<i2";
    case DataType::UInt16:
        return "<u2";
    case DataType::Int32:
        return "<i4";
    case DataType::UInt32:
        return "<u4";
    case DataType::Int64:
        return "<i8";
    case DataType::UInt64:
        return "<u8";
    case DataType::Bool:
        return "|b1";
    case DataType::Complex64:
        return "<c8";
    case DataType::Complex128:
        return "<c16";
    case DataType::String: {
        size_t width = 1;
        for (const auto& s : tensor.data<std::string>()) {
            if (s.empty())
                continue;
            auto decoded = decodeUtf8(s);
            check(decoded.has_value(),
                "string tensor holds bytes that are not valid UTF-8; numpy's unicode arrays "
                "cannot hold them");
            width = std::max(width, decoded->size());
        }
        return "<U" + std::to_string(width);
    }
    case DataType::BFloat16:
        throw Error("numpy has no bfloat16 dtype; convert the tensor to float32 first");
    default:
        if (isNarrow(tensor.dtype()))
            return std::string(numpyTypeName(tensor.dtype()));
        throw Error("cannot write an undefined tensor as .npy");
    }
}

std::string serializeNpy(const Tensor& tensor, NpyWriteOptions options)
{
    const std::string descr = npyDescr(tensor);
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < tensor.shape().size(); ++i) {
        if (i)
            dict += ", ";
        dict += std::to_string(tensor.shape()[i]);
    }
    if (tensor.shape().size() == 1)
        dict += ",";
    dict += "), }";

    int version = options.version;
    check(version >= 0 && version <= 3, "unknown .npy format version " + std::to_string(version));
    // Pad so that the data starts at a multiple of 64 bytes, as numpy does; the header ends with '\n'.
    auto padded = [&](size_t prefix) {
        size_t total = prefix + dict.size() + 1;
        return dict.size() + 1 + (64 - total % 64) % 64;
    };
    if (version == 0)
        version = padded(10) <= 65535 ? 1 : 2;
    const size_t prefix = version == 1 ? 10 : 12;
    const size_t headerLen = padded(prefix);
    check(version != 1 || headerLen <= 65535, ".npy header too long for format 1.0");

    std::string out;
    out.reserve(prefix + headerLen + tensor.byteSize());
    out += kMagic;
    out += static_cast<char>(version);
    out += '\0';
    if (version == 1) {
        out += static_cast<char>(headerLen & 0xFF);
        out += static_cast<char>((headerLen >> 8) & 0xFF);
    } else {
        auto len = static_cast<uint32_t>(headerLen);
        out.append(reinterpret_cast<const char*>(&len), 4);
    }
    out += dict;
    out.append(headerLen - dict.size() - 1, ' ');
    out += '\n';

    if (tensor.dtype() == DataType::String) {
        // The zero padding written at once and the code points over it: one item per element, no per-character
        // appends (a million empty strings took seconds that way).
        const size_t width = std::stoul(descr.substr(2));
        size_t at = out.size();
        out.resize(at + static_cast<size_t>(tensor.size()) * width * 4, '\0');
        for (const auto& s : tensor.data<std::string>()) {
            if (!s.empty()) {
                const std::u32string u = *decodeUtf8(s);
                for (size_t c = 0; c < u.size(); ++c) {
                    const auto cp = static_cast<uint32_t>(u[c]);
                    std::memcpy(out.data() + at + c * 4, &cp, 4);
                }
            }
            at += width * 4;
        }
    } else if (tensor.dtype() == DataType::Bool) {
        for (bool b : tensor.data<bool>())
            out += static_cast<char>(b ? 1 : 0);
    } else if (isNarrow(tensor.dtype())) {
        const auto* in = static_cast<const uint8_t*>(tensor.raw());
        for (int64_t i = 0; i < tensor.size(); ++i)
            out += static_cast<char>(narrowBits(tensor.dtype(), in[i]));
    } else {
        out.append(static_cast<const char*>(tensor.raw()), tensor.byteSize());
    }
    return out;
}

void writeNpy(const fs::path& path, const Tensor& tensor, NpyWriteOptions options)
{
    std::string bytes;
    try {
        bytes = serializeNpy(tensor, options);
    } catch (const Error& e) {
        throw Error("\"" + path.string() + "\": " + e.what());
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    check(out.good(), "cannot write \"" + path.string() + "\": " + std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    check(out.good(), "cannot write \"" + path.string() + "\" (disk full?)");
}

Tensor npyCompatible(const Tensor& tensor)
{
    if (tensor.dtype() != DataType::BFloat16)
        return tensor;
    Tensor f(DataType::Float, tensor.shape());
    auto src = tensor.data<BFloat16>();
    auto dst = f.data<float>();
    for (size_t i = 0; i < src.size(); ++i)
        dst[i] = static_cast<float>(src[i]);
    return f;
}

// ---- .npz ----

namespace {

std::string zipErrorText(int code)
{
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return text;
}

struct ZipDiscard {
    void operator()(zip_t* z) const
    {
        if (z)
            zip_discard(z);
    }
};

struct ZipFileClose {
    void operator()(zip_file_t* f) const
    {
        if (f)
            zip_fclose(f);
    }
};

} // namespace

std::vector<std::pair<std::string, Tensor>> readNpz(const fs::path& path)
{
    const std::string what = "\"" + path.string() + "\"";
    std::error_code ec;
    check(fs::is_regular_file(path, ec), "cannot open " + what + ": no such file");
    int code = 0;
    std::unique_ptr<zip_t, ZipDiscard> archive(zip_open(path.c_str(), ZIP_RDONLY, &code));
    check(archive != nullptr, what + " is not a readable .npz (zip) archive: " + zipErrorText(code));
    const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
    // Every array is held at once: the sizes the archive declares (uncompressed, so a small archive can promise
    // much) are checked, each and in all, before anything is decompressed.
    std::vector<zip_stat_t> stats;
    uint64_t total = 0;
    for (zip_int64_t i = 0; i < entries; ++i) {
        zip_stat_t st;
        zip_stat_init(&st);
        check(zip_stat_index(archive.get(), static_cast<zip_uint64_t>(i), 0, &st) == 0,
            what + ": cannot read entry " + std::to_string(i) + ": " + zip_strerror(archive.get()));
        std::string name = (st.valid & ZIP_STAT_NAME) && st.name ? st.name : "";
        if (!name.empty() && name.back() == '/')
            continue; // a directory entry
        const std::string entryWhat = what + " entry \"" + name + "\"";
        check(name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0, entryWhat + " is not a .npy array");
        check(st.valid & ZIP_STAT_SIZE, entryWhat + " has no recorded size");
        checkAllocation(st.size, 1, entryWhat + " (its size as the archive declares it)");
        total = total + st.size < total ? UINT64_MAX : total + st.size;
        checkAllocation(total, 1,
            what + ": its first " + std::to_string(stats.size() + 1)
                + " arrays (their sizes as the archive declares them)");
        stats.push_back(st);
    }
    std::vector<std::pair<std::string, Tensor>> arrays;
    uint64_t decoded = 0;
    for (const zip_stat_t& st : stats) {
        const std::string name = st.name;
        const std::string entryWhat = what + " entry \"" + name + "\"";
        std::unique_ptr<zip_file_t, ZipFileClose> file(zip_fopen_index(archive.get(), st.index, 0));
        check(file != nullptr, entryWhat + " cannot be opened: " + zip_strerror(archive.get()));
        std::string bytes(static_cast<size_t>(st.size), '\0');
        size_t done = 0;
        while (done < bytes.size()) {
            zip_int64_t n = zip_fread(file.get(), bytes.data() + done, bytes.size() - done);
            check(n > 0,
                entryWhat + " cannot be read: "
                    + (n < 0 ? std::string(zip_file_strerror(file.get())) : std::string("unexpected end of data")));
            done += static_cast<size_t>(n);
        }
        arrays.emplace_back(name.substr(0, name.size() - 4), parseNpy(bytes, entryWhat));
        // Zero-length items ('|S0') decode to more than their bytes: the arrays in memory are bounded in all too.
        decoded += arrays.back().second.byteSize();
        checkAllocation(decoded, 1, what + ": its first " + std::to_string(arrays.size()) + " arrays");
    }
    return arrays;
}

void writeNpz(const fs::path& path, const std::vector<std::pair<std::string, Tensor>>& arrays, bool compress,
    NpyWriteOptions options)
{
    const std::string what = "\"" + path.string() + "\"";
    std::set<std::string> names;
    std::deque<std::string> buffers; // must outlive zip_close(), and never move (deque keeps addresses)
    for (const auto& [name, tensor] : arrays) {
        check(!name.empty(), what + ": an array has an empty name");
        check(names.insert(name).second, what + ": two arrays are named \"" + name + "\"");
        try {
            buffers.push_back(serializeNpy(tensor, options));
        } catch (const Error& e) {
            throw Error(what + ": array \"" + name + "\": " + e.what());
        }
    }
    int code = 0;
    std::unique_ptr<zip_t, ZipDiscard> archive(zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
    check(archive != nullptr, "cannot create " + what + ": " + zipErrorText(code));
    for (size_t i = 0; i < arrays.size(); ++i) {
        zip_source_t* source = zip_source_buffer(archive.get(), buffers[i].data(), buffers[i].size(), 0);
        check(source != nullptr, what + ": " + zip_strerror(archive.get()));
        const std::string entry = arrays[i].first + ".npy";
        zip_int64_t index = zip_file_add(archive.get(), entry.c_str(), source, ZIP_FL_ENC_UTF_8);
        if (index < 0) {
            zip_source_free(source);
            throw Error(what + ": cannot add \"" + entry + "\": " + zip_strerror(archive.get()));
        }
        check(zip_set_file_compression(
                  archive.get(), static_cast<zip_uint64_t>(index), compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0)
                == 0,
            what + ": " + zip_strerror(archive.get()));
    }
    if (zip_close(archive.get()) != 0)
        throw Error("cannot write " + what + ": " + zip_strerror(archive.get()));
    archive.release(); // zip_close freed it
}

} // namespace onnxscope
