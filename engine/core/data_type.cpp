// SPDX-License-Identifier: MIT
#include "engine/core/data_type.h"

#include <array>

namespace onnxscope {

namespace {

struct TypeInfo {
    DataType type;
    std::string_view name;
    size_t size;
};

constexpr std::array<TypeInfo, 17> kTypes { {
    { DataType::Undefined, "undefined", 0 },
    { DataType::Float, "float", 4 },
    { DataType::UInt8, "uint8", 1 },
    { DataType::Int8, "int8", 1 },
    { DataType::UInt16, "uint16", 2 },
    { DataType::Int16, "int16", 2 },
    { DataType::Int32, "int32", 4 },
    { DataType::Int64, "int64", 8 },
    { DataType::String, "string", sizeof(std::string) },
    { DataType::Bool, "bool", 1 },
    { DataType::Float16, "float16", 2 },
    { DataType::Double, "double", 8 },
    { DataType::UInt32, "uint32", 4 },
    { DataType::UInt64, "uint64", 8 },
    { DataType::Complex64, "complex64", 8 },
    { DataType::Complex128, "complex128", 16 },
    { DataType::BFloat16, "bfloat16", 2 },
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

std::string_view dataTypeName(DataType type)
{
    return info(type).name;
}

DataType dataTypeFromName(std::string_view name)
{
    if (name == "float32")
        return DataType::Float;
    if (name == "float64")
        return DataType::Double;
    for (const auto& t : kTypes)
        if (t.name == name)
            return t.type;
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

bool isComplex(DataType type)
{
    return type == DataType::Complex64 || type == DataType::Complex128;
}

bool isNumeric(DataType type)
{
    return type != DataType::String && type != DataType::Bool && type != DataType::Undefined;
}

} // namespace onnxscope
