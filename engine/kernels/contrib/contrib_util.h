// SPDX-License-Identifier: MIT
#pragma once

// Shared by the com.microsoft contrib kernels: float views of float, double, float16 and bfloat16 tensors, and the
// checks their inputs need. Include only from kernel .cpp files.

#include "engine/kernels/kernel.h"
#include "engine/kernels/nn/attention_core.h"

#include <string>
#include <vector>

namespace onnxscope::contrib {

/// The elements of a floating-point tensor as float (converted into `buffer` unless they already are float).
inline const float* floats(const KernelContext& ctx, const Tensor& t, std::vector<float>& buffer, const char* what)
{
    if (!isFloatingPoint(t.dtype()))
        throw ctx.error(std::string(what) + " must be a floating-point tensor, got " + t.typeString());
    return attention::elementsAs<float>(t, buffer);
}

/// Input i as floats, or null when it is absent.
inline const float* optionalFloats(
    const KernelContext& ctx, size_t i, std::vector<float>& buffer, const char* what, const Shape* expected = nullptr)
{
    if (!ctx.hasInput(i))
        return nullptr;
    const Tensor& t = ctx.input(i);
    if (expected && t.shape() != *expected)
        throw ctx.error(
            std::string(what) + " must have shape " + shapeToString(*expected) + ", got " + shapeToString(t.shape()));
    return floats(ctx, t, buffer, what);
}

/// Allocates output i of `type` and `shape` and fills it from n floats, rounding to its element type.
inline void storeOutput(KernelContext& ctx, size_t i, DataType type, const Shape& shape, const float* values)
{
    Tensor& out = ctx.allocateOutputUninitialized(i, type, shape);
    attention::storeAs<float>(values, out.size(), out);
}

/// Requires every listed input present to be of `type` (the type constraint T shared by the inputs of an op).
inline void requireSameType(const KernelContext& ctx, DataType type, std::initializer_list<size_t> inputs)
{
    for (size_t i : inputs)
        if (ctx.hasInput(i) && ctx.input(i).dtype() != type)
            throw ctx.error("input " + std::to_string(i) + " is " + ctx.input(i).typeString() + " but input 0 is "
                + std::string(dataTypeName(type)));
}

/// Input i as int32 of exactly `shape`, or null when it is absent.
inline const int32_t* int32Input(const KernelContext& ctx, size_t i, const Shape& shape, const char* what)
{
    if (!ctx.hasInput(i))
        return nullptr;
    const Tensor& t = ctx.input(i);
    if (t.dtype() != DataType::Int32 || t.shape() != shape)
        throw ctx.error(std::string(what) + " must be int32 " + shapeToString(shape) + ", got " + t.typeString());
    return t.data<int32_t>().data();
}

} // namespace onnxscope::contrib
