// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the quantization kernels. Include only from kernel .cpp files.

#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel.h"

#include <cmath>
#include <limits>
#include <vector>

namespace onnxscope {

/// Rounds half to even and saturates into T's range (NaN becomes 0), as QuantizeLinear specifies.
template <class T, class F> T saturateRound(F v)
{
    if (std::isnan(v))
        return T(0);
    const F r = std::nearbyint(v);
    if (r <= static_cast<F>(std::numeric_limits<T>::lowest()))
        return std::numeric_limits<T>::lowest();
    if (r >= static_cast<F>(std::numeric_limits<T>::max()))
        return std::numeric_limits<T>::max();
    return static_cast<T>(r);
}

/// The elements of a floating-point tensor (float, double, float16, bfloat16) as doubles.
inline std::vector<double> floatValues(const KernelContext& ctx, const Tensor& t, const std::string& what)
{
    std::vector<double> v(static_cast<size_t>(t.size()));
    dispatch<FloatTypes>(t.dtype(), ctx.node().label() + ": " + what, [&]<class T>() {
        auto d = t.data<T>();
        for (size_t i = 0; i < d.size(); ++i)
            v[i] = static_cast<double>(d[i]);
    });
    return v;
}

/// The elements of an integer tensor as int64.
inline std::vector<int64_t> integerValues(const KernelContext& ctx, const Tensor& t, const std::string& what)
{
    std::vector<int64_t> v(static_cast<size_t>(t.size()));
    dispatch<IntTypes>(t.dtype(), ctx.node().label() + ": " + what, [&]<class T>() {
        auto d = t.data<T>();
        for (size_t i = 0; i < d.size(); ++i)
            v[i] = static_cast<int64_t>(d[i]);
    });
    return v;
}

/// How a batched matrix product (numpy matmul semantics: 1-D operands promoted, batch dims broadcast) walks its
/// operands: M, K, N, the output shape, and for every output batch the element offsets of its A and B matrices.
struct MatMulPlan {
    int64_t m = 0, k = 0, n = 0;
    Shape outShape;
    std::vector<int64_t> aOffset, bOffset;
};

inline MatMulPlan planMatMul(const KernelContext& ctx, const Shape& a, const Shape& b)
{
    if (a.empty() || b.empty())
        throw ctx.error("matmul operands must have rank >= 1, got " + shapeToString(a) + " and " + shapeToString(b));
    Shape sa = a, sb = b;
    const bool aVec = sa.size() == 1, bVec = sb.size() == 1;
    if (aVec)
        sa.insert(sa.begin(), 1);
    if (bVec)
        sb.push_back(1);
    MatMulPlan p;
    p.m = sa[sa.size() - 2];
    p.k = sa.back();
    p.n = sb.back();
    if (sb[sb.size() - 2] != p.k)
        throw ctx.error(
            "cannot multiply " + shapeToString(a) + " by " + shapeToString(b) + ": inner dimensions differ");
    const Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
    Shape batch;
    try {
        batch = broadcastShapes(ba, bb);
    } catch (const Error& e) {
        throw ctx.error(e.what());
    }
    const int64_t batches = elementCount(batch);
    if (static_cast<size_t>(batches) > Tensor::allocationLimit() / 16)
        throw ctx.error("cannot multiply " + shapeToString(a) + " by " + shapeToString(b) + ": too many batches");
    const size_t r = batch.size();
    auto stridesFor = [&](const Shape& s) {
        // Strides in matrices, 0 on broadcast dims, aligned to the right of `batch`.
        std::vector<int64_t> st(r, 0);
        int64_t acc = 1;
        for (size_t i = s.size(); i-- > 0;) {
            const size_t j = r - (s.size() - i);
            st[j] = s[i] == 1 ? 0 : acc;
            acc *= s[i];
        }
        return st;
    };
    const auto stA = stridesFor(ba), stB = stridesFor(bb);
    std::vector<int64_t> pos(r, 0);
    for (int64_t i = 0; i < batches; ++i) {
        int64_t oa = 0, ob = 0;
        for (size_t d = 0; d < r; ++d) {
            oa += pos[d] * stA[d];
            ob += pos[d] * stB[d];
        }
        p.aOffset.push_back(oa * p.m * p.k);
        p.bOffset.push_back(ob * p.k * p.n);
        for (size_t d = r; d-- > 0;) {
            if (++pos[d] < batch[d])
                break;
            pos[d] = 0;
        }
    }
    p.outShape = batch;
    if (!aVec)
        p.outShape.push_back(p.m);
    if (!bVec)
        p.outShape.push_back(p.n);
    return p;
}

} // namespace onnxscope

namespace onnxscope {

/// Where the scale / zero point of element i is: index (i / inner) % count (count 1 = per tensor).
struct QuantAxis {
    int64_t count = 1;
    int64_t inner = 1;
    int64_t index(int64_t i) const { return count == 1 ? 0 : (i / inner) % count; }
};

/// Per-tensor (one value) or per-axis (1-D, one per element of x's `axis`) parameters of x; a zero point, if
/// given, must match the scale's shape.
inline QuantAxis quantAxis(
    const KernelContext& ctx, const Tensor& x, const Tensor& scale, const Tensor* zeroPoint, int64_t axis)
{
    if (zeroPoint && zeroPoint->size() != scale.size())
        throw ctx.error("zero point " + zeroPoint->typeString() + " does not match scale " + scale.typeString());
    QuantAxis q;
    if (scale.size() == 1 && scale.rank() <= 1)
        return q;
    if (scale.rank() != 1)
        throw ctx.error("scale must be a scalar or 1-D, got " + scale.typeString());
    int64_t a;
    try {
        a = normalizeAxis(axis, x.rank());
    } catch (const Error& e) {
        throw ctx.error(std::string("attribute 'axis': ") + e.what());
    }
    if (scale.dim(0) != x.dim(a))
        throw ctx.error("per-axis scale " + scale.typeString() + " does not match axis " + std::to_string(a) + " of "
            + x.typeString());
    q.count = scale.dim(0);
    for (int64_t d = a + 1; d < x.rank(); ++d)
        q.inner *= x.dim(d);
    return q;
}

} // namespace onnxscope
