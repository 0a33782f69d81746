// SPDX-License-Identifier: MIT
#pragma once

// Type-blind element moves for data-movement kernels (Transpose, Concat, Gather, ...): they only copy elements, so
// they dispatch on the element's size instead of instantiating their loops for all 16 element types.
// Include only from kernel .cpp files.

#include "engine/core/tensor.h"

#include <cstdint>
#include <string>

namespace onnxscope {

/// A 16-byte trivially copyable element (complex128).
struct Bytes16 {
    uint64_t lo, hi;
    bool operator==(const Bytes16&) const = default;
};

/// Calls `fn.template operator()<W>()` where W is std::string for string tensors and otherwise an unsigned integer
/// (or Bytes16) of the element's size. Elements are then moved through `elementsOf<W>()`.
template <class Fn> void dispatchByElementSize(DataType type, Fn&& fn)
{
    if (type == DataType::String)
        return fn.template operator()<std::string>();
    switch (elementSize(type)) {
    case 1:
        return fn.template operator()<uint8_t>();
    case 2:
        return fn.template operator()<uint16_t>();
    case 4:
        return fn.template operator()<uint32_t>();
    case 8:
        return fn.template operator()<uint64_t>();
    case 16:
        return fn.template operator()<Bytes16>();
    default:
        throw Error("element type " + std::string(dataTypeName(type)) + " cannot be copied");
    }
}

/// The elements of `t` viewed as W (W from dispatchByElementSize for t's type).
template <class W> const W* elementsOf(const Tensor& t)
{
    return static_cast<const W*>(t.raw());
}
template <class W> W* mutableElementsOf(Tensor& t)
{
    return static_cast<W*>(t.mutableRaw());
}

} // namespace onnxscope
