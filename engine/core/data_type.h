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
    // The narrow types (docs/element-types.md). In memory every one of them takes one byte per element, also the
    // sub-byte ones (4-, 2- and 6-bit types are unpacked: one element per byte), so data-movement kernels move
    // them unchanged; they are packed only when read or written (TensorProto raw_data/int32_data, .npy).
    Float8E4M3FN = 17, // byte = the float8 bit pattern (engine/core/float8.h)
    Float8E4M3FNUZ = 18,
    Float8E5M2 = 19,
    Float8E5M2FNUZ = 20,
    UInt4 = 21, // byte = the value, 0..15
    Int4 = 22, // byte = the value as int8_t, -8..7
    Float4E2M1 = 23, // byte = the 4-bit pattern in its low bits
    Float8E8M0 = 24,
    UInt2 = 25, // byte = the value, 0..3
    Int2 = 26, // byte = the value as int8_t, -2..1
    Float6E2M3 = 27, // byte = the 6-bit pattern in its low bits
    Float6E3M2 = 28,
};

/// Bytes per element in memory; for String the size of std::string; 1 for every narrow type (also 4-, 2-, 6-bit ones).
size_t elementSize(DataType type);
/// Bits per element once serialized (TensorProto raw_data, .npy): 4 for int4/uint4/float4e2m1, 2 for int2/uint2,
/// 6 for float6*, otherwise 8 * elementSize(); 0 for String and Undefined.
int bitWidth(DataType type);
/// Bytes that `count` elements take when packed as in TensorProto raw_data: ceil(count * bitWidth / 8).
size_t packedByteSize(DataType type, int64_t count);
/// ONNX spelling: "float", "int64", "float16", "float8e4m3fn", "int4", "string", ...
std::string_view dataTypeName(DataType type);
/// Inverse of dataTypeName(); also accepts numpy and ml_dtypes spellings ("float32", "float64", "float8_e4m3fn",
/// "float4_e2m1fn", "float8_e8m0fnu", ...). Undefined if unknown.
DataType dataTypeFromName(std::string_view name);
/// The numpy (ml_dtypes for the narrow types) spelling: "float32", "float8_e4m3fn", "int4", ... ("" for
/// Undefined, "object" for String).
std::string_view numpyTypeName(DataType type);
/// DataType from an ONNX enum value, Undefined if the value is not a known element type.
DataType dataTypeFromOnnx(int32_t value);

bool isFloatingPoint(DataType type); // float, double, float16, bfloat16 (not the narrow floats below)
bool isInteger(DataType type); // signed and unsigned 8- to 64-bit integers, not bool, not int4/int2
bool isSignedInteger(DataType type); // int8 .. int64
/// float8*, float4e2m1, float6*: one byte holding the bit pattern (engine/core/float8.h converts).
bool isNarrowFloat(DataType type);
/// int4, uint4, int2, uint2: one byte holding the value (int8_t for the signed ones).
bool isNarrowInteger(DataType type);
bool isNarrow(DataType type); // isNarrowFloat || isNarrowInteger
bool isComplex(DataType type);
bool isNumeric(DataType type); // everything but string and bool (narrow types included)

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
