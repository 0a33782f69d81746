// SPDX-License-Identifier: MIT
#pragma once

// Numpy-style broadcasting loops for element-wise kernels. Include only from kernel .cpp files.

#include "engine/core/tensor.h"

#include <vector>

namespace onnxscope {

/// Strides of `shape` aligned to the broadcast `outShape`: 0 along broadcast dimensions.
inline std::vector<int64_t> broadcastStrides(const Shape& shape, const Shape& outShape)
{
    std::vector<int64_t> strides(outShape.size(), 0);
    auto own = stridesOf(shape);
    size_t offset = outShape.size() - shape.size();
    for (size_t i = 0; i < shape.size(); ++i)
        strides[offset + i] = shape[i] == 1 ? 0 : own[i];
    return strides;
}

/// out[i] = f(a[ia], b[ib]) over the broadcast of a and b. `out` must already have the broadcast shape.
template <class TA, class TB, class TO, class F>
void broadcastBinary(const Tensor& a, const Tensor& b, Tensor& out, F f)
{
    auto pa = a.data<TA>();
    auto pb = b.data<TB>();
    auto po = out.data<TO>();
    const int64_t n = out.size();
    if (n == 0)
        return;
    if (a.shape() == b.shape()) {
        for (int64_t i = 0; i < n; ++i)
            po[i] = f(pa[i], pb[i]);
        return;
    }
    if (b.size() == 1) {
        const TB vb = pb[0];
        for (int64_t i = 0; i < n; ++i)
            po[i] = f(pa[a.size() == 1 ? 0 : i], vb);
        return;
    }
    if (a.size() == 1) {
        const TA va = pa[0];
        for (int64_t i = 0; i < n; ++i)
            po[i] = f(va, pb[i]);
        return;
    }
    const Shape& shape = out.shape();
    const size_t rank = shape.size();
    auto sa = broadcastStrides(a.shape(), shape);
    auto sb = broadcastStrides(b.shape(), shape);
    const int64_t inner = shape[rank - 1];
    const int64_t ia = sa[rank - 1], ib = sb[rank - 1];
    std::vector<int64_t> index(rank, 0);
    int64_t offA = 0, offB = 0;
    for (int64_t o = 0; o < n; o += inner) {
        for (int64_t j = 0; j < inner; ++j)
            po[o + j] = f(pa[offA + j * ia], pb[offB + j * ib]);
        for (size_t d = rank - 1; d-- > 0;) {
            offA += sa[d];
            offB += sb[d];
            if (++index[d] < shape[d])
                break;
            offA -= sa[d] * shape[d];
            offB -= sb[d] * shape[d];
            index[d] = 0;
        }
    }
}

/// Copies `in` broadcast to `outShape` into `out` (element type T).
template <class T> void broadcastTo(const Tensor& in, Tensor& out)
{
    auto pi = in.data<T>();
    auto po = out.data<T>();
    const Shape& shape = out.shape();
    const int64_t n = out.size();
    if (n == 0)
        return;
    if (in.size() == n) {
        std::copy(pi.begin(), pi.end(), po.begin());
        return;
    }
    const size_t rank = shape.size();
    auto s = broadcastStrides(in.shape(), shape);
    std::vector<int64_t> index(rank, 0);
    int64_t off = 0;
    const int64_t inner = rank ? shape[rank - 1] : 1;
    const int64_t is = rank ? s[rank - 1] : 0;
    for (int64_t o = 0; o < n; o += inner) {
        for (int64_t j = 0; j < inner; ++j)
            po[o + j] = pi[off + j * is];
        for (size_t d = rank - 1; d-- > 0;) {
            off += s[d];
            if (++index[d] < shape[d])
                break;
            off -= s[d] * shape[d];
            index[d] = 0;
        }
    }
}

} // namespace onnxscope
