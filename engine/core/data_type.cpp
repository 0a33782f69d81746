// SPDX-License-Identifier: MIT
#include "engine/core/data_type.h"

#include "engine/core/error.h"

#include <array>

namespace onnxscope {

namespace {

struct TypeInfo {
    DataType type;
    std::string_view name; // ONNX
    std::string_view numpyName; // numpy / ml_dtypes
    size_t size; // bytes in memory
    int bits; // bits when packed
};

constexpr std::array<TypeInfo, 29> kTypes { {
    { DataType::Undefined, "undefined", "", 0, 0 },
    { DataType::Float, "float", "float32", 4, 32 },
    { DataType::UInt8, "uint8", "uint8", 1, 8 },
    { DataType::Int8, "int8", "int8", 1, 8 },
    { DataType::UInt16, "uint16", "uint16", 2, 16 },
    { DataType::Int16, "int16", "int16", 2, 16 },
    { DataType::Int32, "int32", "int32", 4, 32 },
    { DataType::Int64, "int64", "int64", 8, 64 },
    { DataType::String, "string", "object", sizeof(std::string), 0 },
    { DataType::Bool, "bool", "bool", 1, 8 },
    { DataType::Float16, "float16", "float16", 2, 16 },
    { DataType::Double, "double", "float64", 8, 64 },
    { DataType::UInt32, "uint32", "uint32", 4, 32 },
    { DataType::UInt64, "uint64", "uint64", 8, 64 },
    { DataType::Complex64, "complex64", "complex64", 8, 64 },
    { DataType::Complex128, "complex128", "complex128", 16, 128 },
    { DataType::BFloat16, "bfloat16", "bfloat16", 2, 16 },
    { DataType::Float8E4M3FN, "float8e4m3fn", "float8_e4m3fn", 1, 8 },
    { DataType::Float8E4M3FNUZ, "float8e4m3fnuz", "float8_e4m3fnuz", 1, 8 },
    { DataType::Float8E5M2, "float8e5m2", "float8_e5m2", 1, 8 },
    { DataType::Float8E5M2FNUZ, "float8e5m2fnuz", "float8_e5m2fnuz", 1, 8 },
    { DataType::UInt4, "uint4", "uint4", 1, 4 },
    { DataType::Int4, "int4", "int4", 1, 4 },
    { DataType::Float4E2M1, "float4e2m1", "float4_e2m1fn", 1, 4 },
    { DataType::Float8E8M0, "float8e8m0", "float8_e8m0fnu", 1, 8 },
    { DataType::UInt2, "uint2", "uint2", 1, 2 },
    { DataType::Int2, "int2", "int2", 1, 2 },
    { DataType::Float6E2M3, "float6e2m3", "float6_e2m3fn", 1, 6 },
    { DataType::Float6E3M2, "float6e3m2", "float6_e3m2fn", 1, 6 },
} };

const TypeInfo& info(DataType type)
{
    auto index = static_cast<size_t>(type);
    return index < kTypes.size() ? kTypes[index] : kTypes[0];
}

} // namespace

size_t elementSize(DataType type)
{
    return info(type).size;
}

int bitWidth(DataType type)
{
    return info(type).bits;
}

size_t packedByteSize(DataType type, int64_t count)
{
    // By groups of 8 elements (whole bytes), so that the product cannot wrap for a count read from a file: count * 4
    // bits wraps past 2^64 when count is near 2^62, and a wrapped size would let a few bytes of raw_data pass for
    // 2^62 int4 elements.
    const auto n = static_cast<uint64_t>(count);
    const auto bits = static_cast<uint64_t>(bitWidth(type));
    uint64_t bytes = 0;
    if (count < 0 || __builtin_mul_overflow(n / 8, bits, &bytes)
        || __builtin_add_overflow(bytes, ((n % 8) * bits + 7) / 8, &bytes))
        throw Error("the byte size of " + std::to_string(count) + " " + std::string(dataTypeName(type))
            + " elements overflows");
    return static_cast<size_t>(bytes);
}

std::string_view dataTypeName(DataType type)
{
    return info(type).name;
}

std::string_view numpyTypeName(DataType type)
{
    return info(type).numpyName;
}

DataType dataTypeFromName(std::string_view name)
{
    if (name.empty())
        return DataType::Undefined;
    for (const auto& t : kTypes)
        if (t.name == name || (t.numpyName == name && t.type != DataType::String))
            return t.type;
    // ml_dtypes' other spellings
    if (name == "float4_e2m1" || name == "float4e2m1fn")
        return DataType::Float4E2M1;
    if (name == "float8_e8m0" || name == "float8e8m0fnu")
        return DataType::Float8E8M0;
    if (name == "float6_e2m3" || name == "float6e2m3fn")
        return DataType::Float6E2M3;
    if (name == "float6_e3m2" || name == "float6e3m2fn")
        return DataType::Float6E3M2;
    return DataType::Undefined;
}

DataType dataTypeFromOnnx(int32_t value)
{
    return value > 0 && value < static_cast<int32_t>(kTypes.size()) ? static_cast<DataType>(value)
                                                                    : DataType::Undefined;
}

bool isFloatingPoint(DataType type)
{
    return type == DataType::Float || type == DataType::Double || type == DataType::Float16
        || type == DataType::BFloat16;
}

bool isSignedInteger(DataType type)
{
    return type == DataType::Int8 || type == DataType::Int16 || type == DataType::Int32 || type == DataType::Int64;
}

bool isInteger(DataType type)
{
    return isSignedInteger(type) || type == DataType::UInt8 || type == DataType::UInt16 || type == DataType::UInt32
        || type == DataType::UInt64;
}

bool isNarrowFloat(DataType type)
{
    switch (type) {
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float4E2M1:
    case DataType::Float8E8M0:
    case DataType::Float6E2M3:
    case DataType::Float6E3M2:
        return true;
    default:
        return false;
    }
}

bool isNarrowInteger(DataType type)
{
    return type == DataType::Int4 || type == DataType::UInt4 || type == DataType::Int2 || type == DataType::UInt2;
}

bool isNarrow(DataType type)
{
    return isNarrowFloat(type) || isNarrowInteger(type);
}

bool isComplex(DataType type)
{
    return type == DataType::Complex64 || type == DataType::Complex128;
}

bool isNumeric(DataType type)
{
    return type != DataType::String && type != DataType::Bool && type != DataType::Undefined;
}

} // namespace onnxscope
