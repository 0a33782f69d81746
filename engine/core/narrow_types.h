// SPDX-License-Identifier: MIT
#pragma once

// The narrow element types (float8*, float4e2m1, float6*, float8e8m0, int4/uint4, int2/uint2): their one-byte
// in-memory elements, exact conversions to and from wider numbers, and the packing used when they are serialized.
// docs/element-types.md describes the conventions.

#include "engine/core/data_type.h"

#include <cstdint>

namespace onnxscope {

/// One element of narrow type D, one byte in memory: floats hold their bit pattern (4- and 6-bit ones in the low
/// bits), int4/int2 their value as a sign-extended int8_t, uint4/uint2 their value.
template <DataType D> struct Narrow {
    uint8_t bits = 0;
    bool operator==(const Narrow&) const = default;
};
template <DataType D> struct DataTypeOf<Narrow<D>> {
    static constexpr DataType value = D;
};
using Float8E4M3FN = Narrow<DataType::Float8E4M3FN>;
using Float8E4M3FNUZ = Narrow<DataType::Float8E4M3FNUZ>;
using Float8E5M2 = Narrow<DataType::Float8E5M2>;
using Float8E5M2FNUZ = Narrow<DataType::Float8E5M2FNUZ>;
using Float4E2M1 = Narrow<DataType::Float4E2M1>;
using Float8E8M0 = Narrow<DataType::Float8E8M0>;
using Float6E2M3 = Narrow<DataType::Float6E2M3>;
using Float6E3M2 = Narrow<DataType::Float6E3M2>;
using Int4 = Narrow<DataType::Int4>;
using UInt4 = Narrow<DataType::UInt4>;
using Int2 = Narrow<DataType::Int2>;
using UInt2 = Narrow<DataType::UInt2>;

/// The value of one in-memory element of narrow type `type`, exactly (every one fits a float): NaN for the NaN
/// encodings (float8e4m3fn S.1111.111, the fnuz types' 0x80, e5m2's IEEE NaNs, e8m0's 0xFF), +-inf for e5m2's.
double narrowToDouble(DataType type, uint8_t element);

/// The element of a narrow float type (not e8m0) nearest to `x`, ties to even, as ml_dtypes' astype does, with
/// ONNX Cast's `saturate` rules for what is out of range: saturate: +-inf and overflow become +-max; otherwise
/// overflow and inf become inf (e5m2) or NaN (e4m3fn keeps the sign, the fnuz types have one NaN). The fnuz types
/// have no -0 (it becomes 0). float4e2m1 and float6* have no inf or NaN: they always saturate, and NaN becomes
/// -0 (+NaN) or 0 (-NaN), as ml_dtypes does.
/// For a narrow integer type: `x` truncated toward zero, 0 if that is out of range or NaN (ml_dtypes' astype).
uint8_t narrowFromDouble(DataType type, double x, bool saturate = true);

/// A narrow integer element from an integer: the low bits (two's complement wrap, as integer casts do).
uint8_t narrowFromInteger(DataType type, int64_t x);

/// The largest finite value of a narrow type (448 for float8e4m3fn, 57344 for e5m2, 7 for int4, ...).
double narrowMax(DataType type);
/// The smallest value (-max for the signed floats, 2^-127 for e8m0, -8 for int4, 0 for uint4...).
double narrowLowest(DataType type);

enum class E8M0Rounding { Up, Down, Nearest };
/// float8e8m0 (2^(e-127), 0xFF is NaN) from `x` as onnx's to_float8e8m0 does it: from x's float32 exponent (the
/// sign is ignored), rounded by `mode` on the float32 mantissa; inf and NaN become NaN; with `saturate` rounding up
/// never passes 2^127.
uint8_t float8e8m0FromFloat(float x, bool saturate, E8M0Rounding mode);

/// Packs `count` in-memory elements of `type` into packedByteSize(type, count) bytes as TensorProto raw_data
/// holds them: 4-bit types two per byte (first in the low nibble), 2-bit types four per byte (from the low bits),
/// 6-bit types as an LSB-first bit stream; 8-bit types are copied.
void packElements(DataType type, const uint8_t* elements, int64_t count, uint8_t* packed);
/// The inverse of packElements(): int4/int2 are sign-extended, the other types' unused high bits are zero.
void unpackElements(DataType type, const uint8_t* packed, int64_t count, uint8_t* elements);

/// An in-memory narrow element from the low `bitWidth(type)` bits of `bits` (sign-extended for int4/int2).
uint8_t narrowFromBits(DataType type, uint32_t bits);
/// The low `bitWidth(type)` bits of an in-memory narrow element.
uint8_t narrowBits(DataType type, uint8_t element);

} // namespace onnxscope
