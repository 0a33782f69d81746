// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the element-wise math and logic kernels: legacy (opset < 7) broadcasting, output shapes,
// the compute type of half-precision elements and conversions from double without undefined behaviour.
// Include only from kernel .cpp files.

#include "engine/core/half.h"
#include "engine/kernels/kernel.h"

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

namespace onnxscope {

/// The shape numpy broadcasting gives shapes a and b; an error naming the node when they don't broadcast.
inline Shape broadcastShapesOf(const KernelContext& ctx, const Shape& a, const Shape& b)
{
    try {
        return broadcastShapes(a, b);
    } catch (const Error& e) {
        throw ctx.error(e.what());
    }
}

/// The `broadcast`/`axis` attributes of binary ops before opset 7: with broadcast=1, B is aligned to A at `axis`
/// (default: the trailing dimensions). With broadcast=0 we fall back to numpy broadcasting, which accepts every
/// model the old rule accepts.
struct LegacyBroadcast {
    bool enabled = false;
    std::optional<int64_t> axis;

    static LegacyBroadcast parse(const KernelInit& init, int64_t firstNumpyOpset = 7)
    {
        LegacyBroadcast lb;
        if (init.opset() < firstNumpyOpset) {
            lb.enabled = init.attributes().getInt("broadcast", 0) != 0;
            if (init.attributes().has("axis"))
                lb.axis = init.attributes().getInt("axis", 0);
        }
        return lb;
    }

    /// The output shape of a binary op on a and b; with legacy broadcasting `b` is reshaped in place so that
    /// numpy broadcasting does the alignment. Errors name the node.
    Shape apply(const KernelContext& ctx, const Tensor& a, Tensor& b) const
    {
        if (!enabled)
            return broadcastShapesOf(ctx, a.shape(), b.shape());
        int64_t ax = axis ? *axis : a.rank() - b.rank();
        if (ax < 0)
            ax += a.rank();
        const auto fail = [&] {
            return ctx.error("cannot broadcast B " + shapeToString(b.shape()) + " to A " + shapeToString(a.shape())
                + " at axis " + std::to_string(ax));
        };
        if (ax < 0 || ax + b.rank() > a.rank())
            throw fail();
        Shape s(static_cast<size_t>(a.rank()), 1);
        for (int64_t i = 0; i < b.rank(); ++i) {
            if (b.dim(i) != a.dim(ax + i) && b.dim(i) != 1)
                throw fail();
            s[static_cast<size_t>(ax + i)] = b.dim(i);
        }
        b = b.reshaped(s);
        return a.shape();
    }
};

/// The type element-wise maths is done in: float for float16/bfloat16 (and float), double for double.
template <class T> using MathType = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// `v` converted to T. For integer T, NaN becomes 0 and out-of-range values saturate (a plain cast would be
/// undefined behaviour); for floating T an ordinary conversion.
template <class T, class F> T convertFromFloat(F v)
{
    if constexpr (std::is_integral_v<T>) {
        if (std::isnan(v))
            return T(0);
        if (v <= static_cast<F>(std::numeric_limits<T>::lowest()))
            return std::numeric_limits<T>::lowest();
        if (v >= static_cast<F>(std::numeric_limits<T>::max()))
            return std::numeric_limits<T>::max();
        return static_cast<T>(v);
    } else {
        return static_cast<T>(v);
    }
}

/// "inputs have different element types (float and int64)".
inline Error typeMismatch(
    const KernelContext& ctx, const Tensor& a, const Tensor& b, const std::string& what = "inputs")
{
    return ctx.error(what + " have different element types (" + std::string(dataTypeName(a.dtype())) + " and "
        + std::string(dataTypeName(b.dtype())) + ")");
}

/// Output 0 of a binary op whose inputs share one element type, with numpy broadcasting: checks that a and b have
/// the same type and broadcast, then allocates the output (zeroed) of that type and the broadcast shape.
inline Tensor& allocateBinaryOutput(KernelContext& ctx, const Tensor& a, const Tensor& b)
{
    if (a.dtype() != b.dtype())
        throw typeMismatch(ctx, a, b);
    return ctx.allocateOutput(0, a.dtype(), broadcastShapesOf(ctx, a.shape(), b.shape()));
}

} // namespace onnxscope
