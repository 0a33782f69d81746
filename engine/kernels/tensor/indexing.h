// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the shape and indexing kernels (Slice, Tile, Expand, Pad, Gather*/Scatter*, ...): reading
// integer inputs, type-blind element moves and a strided copy. Include only from kernel .cpp files.

#include "engine/kernels/common/element_copy.h"
#include "engine/kernels/kernel.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace onnxscope::indexing {

// Element moves by size come from common/element_copy.h; these names are kept for the indexing kernels.
using Word16 = Bytes16;
template <class Fn> void byElementSize(DataType type, Fn&& fn)
{
    dispatchByElementSize(type, std::forward<Fn>(fn));
}
template <class W> const W* words(const Tensor& t)
{
    return elementsOf<W>(t);
}
template <class W> W* mutableWords(Tensor& t)
{
    return mutableElementsOf<W>(t);
}

/// The elements of an int32 or int64 tensor as int64 (any shape, row-major). Error naming `what` otherwise.
inline std::vector<int64_t> toInt64s(const KernelContext& ctx, const Tensor& t, const std::string& what)
{
    if (t.dtype() == DataType::Int64) {
        auto d = t.data<int64_t>();
        return { d.begin(), d.end() };
    }
    if (t.dtype() == DataType::Int32) {
        auto d = t.data<int32_t>();
        return { d.begin(), d.end() };
    }
    throw ctx.error(what + " must be int32 or int64, got " + t.typeString());
}

/// Input `i` read as a list of int64 (1-D, or a scalar read as one value).
inline std::vector<int64_t> intListInput(const KernelContext& ctx, size_t i, const std::string& what)
{
    const Tensor& t = ctx.input(i);
    if (t.rank() > 1)
        throw ctx.error(what + " must be 1-D, got " + t.typeString());
    return toInt64s(ctx, t, what);
}

/// Input `i` as one int64: a scalar or a 1-element tensor.
inline int64_t intScalarInput(const KernelContext& ctx, size_t i, const std::string& what)
{
    const Tensor& t = ctx.input(i);
    if (t.size() != 1)
        throw ctx.error(what + " must hold exactly one value, got " + t.typeString());
    return toInt64s(ctx, t, what)[0];
}

/// Normalises an index against a dimension of size `dim` (negative counts from the end) and checks it, or throws
/// an Error naming `what`.
inline int64_t checkIndex(const KernelContext& ctx, int64_t index, int64_t dim, const std::string& what)
{
    const int64_t fixed = index < 0 ? index + dim : index;
    if (fixed < 0 || fixed >= dim)
        throw ctx.error(
            what + " " + std::to_string(index) + " is out of range for a dimension of size " + std::to_string(dim));
    return fixed;
}

/// out[i] = in[inOffset + sum_d index_d * inStrides[d]] for every index of `outShape` (row-major). The strides may
/// be zero (broadcast) or negative (reversed slices); the caller guarantees every offset is within `in`.
template <class W>
void stridedCopy(
    const W* in, W* out, const Shape& givenShape, const std::vector<int64_t>& givenStrides, int64_t inOffset)
{
    int64_t n = 1;
    for (int64_t d : givenShape)
        n *= d;
    if (n == 0)
        return;
    // Axes that continue the one after them in the input (stride = that axis's stride times its extent) merge with
    // it, so that a slice of whole rows is one long copy instead of one per row.
    Shape outShape;
    std::vector<int64_t> inStrides;
    for (size_t d = 0; d < givenShape.size(); ++d) {
        if (givenShape[d] == 1 && d + 1 < givenShape.size())
            continue; // an axis of one element adds nothing
        if (!outShape.empty() && inStrides.back() == givenStrides[d] * givenShape[d]) {
            outShape.back() *= givenShape[d];
            inStrides.back() = givenStrides[d];
        } else {
            outShape.push_back(givenShape[d]);
            inStrides.push_back(givenStrides[d]);
        }
    }
    const size_t rank = outShape.size();
    if (rank == 0) {
        out[0] = in[inOffset];
        return;
    }
    const int64_t inner = outShape[rank - 1];
    const int64_t innerStride = inStrides[rank - 1];
    std::vector<int64_t> index(rank, 0);
    int64_t off = inOffset;
    for (int64_t o = 0; o < n; o += inner) {
        if (innerStride == 1) {
            std::copy(in + off, in + off + inner, out + o);
        } else {
            for (int64_t j = 0; j < inner; ++j)
                out[o + j] = in[off + j * innerStride];
        }
        for (size_t d = rank - 1; d-- > 0;) {
            off += inStrides[d];
            if (++index[d] < outShape[d])
                break;
            off -= inStrides[d] * outShape[d];
            index[d] = 0;
        }
    }
}

/// Element type of an ONNX `dtype` attribute value; Error naming the attribute if it is not a tensor element type.
inline DataType dtypeAttribute(const KernelInit& init, int64_t value, const std::string& name)
{
    DataType t = value >= INT32_MIN && value <= INT32_MAX ? dataTypeFromOnnx(static_cast<int32_t>(value))
                                                          : DataType::Undefined;
    if (t == DataType::Undefined)
        throw init.error("attribute '" + name + "': " + std::to_string(value) + " is not a tensor element type");
    return t;
}

/// How Scatter* combine an update with the existing element (attribute `reduction`, opsets 16 and 18).
enum class Reduction { None, Add, Mul, Max, Min };

/// Parses `reduction` ("none", "add", "mul" from opset 16; "max", "min" from 18); Error naming the attribute.
inline Reduction reductionAttribute(const KernelInit& init)
{
    if (init.opset() < 16)
        return Reduction::None;
    const std::string r = init.attributes().getString("reduction", "none");
    if (r == "none")
        return Reduction::None;
    if (r == "add")
        return Reduction::Add;
    if (r == "mul")
        return Reduction::Mul;
    if (init.opset() >= 18 && r == "max")
        return Reduction::Max;
    if (init.opset() >= 18 && r == "min")
        return Reduction::Min;
    throw init.attributes().error("reduction",
        "expected none, add, mul" + std::string(init.opset() >= 18 ? ", max or min" : "") + " (opset "
            + std::to_string(init.opset()) + "), got \"" + r + "\"");
}

/// dst = reduce(dst, src). Bool adds as "or" and multiplies as "and"; the caller refuses strings (and max/min on
/// complex numbers) before calling.
template <class T> void reduceInto(T& dst, const T& src, Reduction r)
{
    if constexpr (std::is_same_v<T, bool>) {
        dst = (r == Reduction::Add || r == Reduction::Max) ? (dst || src) : r == Reduction::None ? src : (dst && src);
    } else if constexpr (std::is_same_v<T, std::string>) {
        dst = src;
    } else {
        switch (r) {
        case Reduction::None:
            dst = src;
            break;
        case Reduction::Add:
        case Reduction::Mul:
            if constexpr (std::is_integral_v<T>) {
                // Wraps, as onnxruntime does, without signed overflow: computed in an unsigned type that does not
                // promote to int.
                using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
                dst = static_cast<T>(r == Reduction::Add ? static_cast<U>(dst) + static_cast<U>(src)
                                                         : static_cast<U>(dst) * static_cast<U>(src));
            } else {
                dst = r == Reduction::Add ? static_cast<T>(dst + src) : static_cast<T>(dst * src);
            }
            break;
        case Reduction::Max:
        case Reduction::Min:
            if constexpr (requires(T a, T b) { a < b; }) {
                if (r == Reduction::Max ? dst < src : src < dst)
                    dst = src;
            }
            break;
        }
    }
}

} // namespace onnxscope::indexing
