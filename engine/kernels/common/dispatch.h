// SPDX-License-Identifier: MIT
#pragma once

// Type dispatch for kernels: calls fn.template operator()<T>() for the C++ type of a DataType from a given list.
// Include only from kernel .cpp files.

#include "engine/core/half.h"
#include "engine/core/tensor.h"
#include "engine/model/graph.h"

#include <string>

namespace onnxscope {

template <class... Ts> struct TypeList {
};

using FloatTypes = TypeList<float, double, Float16, BFloat16>;
using SignedIntTypes = TypeList<int8_t, int16_t, int32_t, int64_t>;
using UnsignedIntTypes = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;
using IntTypes = TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
using NumericTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
    uint32_t, uint64_t>;
using AllTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
    uint32_t, uint64_t, bool, std::string, Complex64, Complex128>;

namespace detail {
template <class Fn, class T, class... Rest> bool dispatchOne(DataType type, Fn& fn)
{
    if (type == DataTypeOf<T>::value) {
        fn.template operator()<T>();
        return true;
    }
    if constexpr (sizeof...(Rest) > 0)
        return dispatchOne<Fn, Rest...>(type, fn);
    else
        return false;
}
template <class Fn, class... Ts> bool dispatchList(DataType type, Fn& fn, TypeList<Ts...>)
{
    return dispatchOne<Fn, Ts...>(type, fn);
}
} // namespace detail

/// Calls `fn.template operator()<T>()` where T is the C++ type of `type`, if it is in List; otherwise throws
/// Error "<what>: element type X is not supported".
template <class List, class Fn> void dispatch(DataType type, const std::string& what, Fn&& fn)
{
    if (!detail::dispatchList(type, fn, List {}))
        throw Error(what + ": element type " + std::string(dataTypeName(type)) + " is not supported");
}

/// The same, with `node.label() + suffix` as <what>. A kernel calls this on every run: the label is built only
/// for the error.
template <class List, class Fn> void dispatch(DataType type, const Node& node, const char* suffix, Fn&& fn)
{
    if (!detail::dispatchList(type, fn, List {}))
        throw Error(node.label() + suffix + ": element type " + std::string(dataTypeName(type)) + " is not supported");
}
template <class List, class Fn> void dispatch(DataType type, const Node& node, Fn&& fn)
{
    dispatch<List>(type, node, "", std::forward<Fn>(fn));
}

} // namespace onnxscope
