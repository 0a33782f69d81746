// SPDX-License-Identifier: MIT
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace onnxscope {

/// ONNX element types, numbered as in onnx::TensorProto_DataType.
enum class DataType : int32_t {
    Undefined = 0,
    Float = 1,
    UInt8 = 2,
    Int8 = 3,
    UInt16 = 4,
    Int16 = 5,
    Int32 = 6,
    Int64 = 7,
    String = 8,
    Bool = 9,
    Float16 = 10,
    Double = 11,
    UInt32 = 12,
    UInt64 = 13,
    Complex64 = 14,
    Complex128 = 15,
    BFloat16 = 16,
};

/// Bytes per element; for String the size of std::string.
size_t elementSize(DataType type);
/// ONNX spelling: "float", "int64", "float16", "string", ...
std::string_view dataTypeName(DataType type);
/// Inverse of dataTypeName(); also accepts numpy spellings ("float32", "float64"). Undefined if unknown.
DataType dataTypeFromName(std::string_view name);
/// DataType from an ONNX enum value, Undefined if the value is not a known element type.
DataType dataTypeFromOnnx(int32_t value);

bool isFloatingPoint(DataType type); // float, double, float16, bfloat16
bool isInteger(DataType type); // signed and unsigned integers, not bool
bool isSignedInteger(DataType type);
bool isComplex(DataType type);
bool isNumeric(DataType type); // everything but string and bool

/// Storage type for bool elements: one byte, as in ONNX raw_data.
using BoolStorage = bool;
using Complex64 = std::complex<float>;
using Complex128 = std::complex<double>;

/// DataTypeOf<T>::value maps a C++ element type to its DataType. Float16/BFloat16 are specialised in half.h.
template <class T> struct DataTypeOf;
template <> struct DataTypeOf<float> {
    static constexpr DataType value = DataType::Float;
};
template <> struct DataTypeOf<double> {
    static constexpr DataType value = DataType::Double;
};
template <> struct DataTypeOf<int8_t> {
    static constexpr DataType value = DataType::Int8;
};
template <> struct DataTypeOf<int16_t> {
    static constexpr DataType value = DataType::Int16;
};
template <> struct DataTypeOf<int32_t> {
    static constexpr DataType value = DataType::Int32;
};
template <> struct DataTypeOf<int64_t> {
    static constexpr DataType value = DataType::Int64;
};
template <> struct DataTypeOf<uint8_t> {
    static constexpr DataType value = DataType::UInt8;
};
template <> struct DataTypeOf<uint16_t> {
    static constexpr DataType value = DataType::UInt16;
};
template <> struct DataTypeOf<uint32_t> {
    static constexpr DataType value = DataType::UInt32;
};
template <> struct DataTypeOf<uint64_t> {
    static constexpr DataType value = DataType::UInt64;
};
template <> struct DataTypeOf<bool> {
    static constexpr DataType value = DataType::Bool;
};
template <> struct DataTypeOf<std::string> {
    static constexpr DataType value = DataType::String;
};
template <> struct DataTypeOf<Complex64> {
    static constexpr DataType value = DataType::Complex64;
};
template <> struct DataTypeOf<Complex128> {
    static constexpr DataType value = DataType::Complex128;
};

} // namespace onnxscope
