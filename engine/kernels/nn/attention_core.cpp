// SPDX-License-Identifier: MIT
#include "engine/kernels/nn/attention_core.h"

#include "engine/core/half.h"
#include "engine/core/tensor.h"
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/simd/simd.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace onnxscope::attention {

namespace {

template <class F> using RowMajor = Eigen::Matrix<F, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class F> using ConstStrided = Eigen::Map<const RowMajor<F>, 0, Eigen::OuterStride<>>;
template <class F> using Strided = Eigen::Map<RowMajor<F>, 0, Eigen::OuterStride<>>;

/// c[m, n] (row stride ldc) = a[m, k] · op(b), op(b) = b[k, n] or, with transB, the transpose of b[n, k].
template <class F>
void product(
    int64_t m, int64_t n, int64_t k, const F* a, int64_t lda, const F* b, int64_t ldb, bool transB, F* c, int64_t ldc)
{
    if constexpr (std::is_same_v<F, float>) {
        simd::ops().gemm(m, n, k, a, lda, false, b, ldb, transB, c, ldc, false);
    } else {
        const ConstStrided<F> ma(a, m, k, Eigen::OuterStride<>(lda));
        Strided<F> mc(c, m, n, Eigen::OuterStride<>(ldc));
        if (transB)
            mc.noalias() = ma * ConstStrided<F>(b, n, k, Eigen::OuterStride<>(ldb)).transpose();
        else
            mc.noalias() = ma * ConstStrided<F>(b, k, n, Eigen::OuterStride<>(ldb));
    }
}

template <class F> void copyRows(const F* s, int64_t rows, int64_t cols, F* dst, int64_t ld)
{
    for (int64_t r = 0; r < rows; ++r)
        std::copy(s + r * cols, s + (r + 1) * cols, dst + r * ld);
}

/// Softmax of one row in place; a row whose maximum is -inf (every key masked) becomes 0. NaN propagates.
template <class F> void softmaxRow(F* row, int64_t n)
{
    F mx = -std::numeric_limits<F>::infinity();
    bool nan = false;
    for (int64_t j = 0; j < n; ++j) {
        nan |= std::isnan(row[j]);
        mx = std::max(mx, row[j]);
    }
    if (nan) {
        std::fill(row, row + n, std::numeric_limits<F>::quiet_NaN());
        return;
    }
    if (mx == -std::numeric_limits<F>::infinity()) {
        std::fill(row, row + n, F(0));
        return;
    }
    if constexpr (std::is_same_v<F, float>) {
        simd::ops().softmaxRows(row, row, 1, n, false);
    } else {
        F sum = 0;
        for (int64_t j = 0; j < n; ++j) {
            row[j] = std::exp(row[j] - mx);
            sum += row[j];
        }
        for (int64_t j = 0; j < n; ++j)
            row[j] /= sum;
    }
}

template <class F> void oneHead(const Problem<F>& p, int64_t b, int64_t h, std::vector<F>& s)
{
    const int64_t group = p.qHeads / p.kvHeads;
    const int64_t lq = p.qLen, lk = p.kvLen;
    const F* q = p.q.head(b, h);
    const F* k = p.k.head(b, h / group);
    const F* v = p.v.head(b, h / group);
    F* y = p.y.head(b, h);
    s.resize(static_cast<size_t>(lq * lk));
    F* sc = s.data();
    if (lk == 0 || p.headSize == 0)
        std::fill(s.begin(), s.end(), F(0));
    else
        product<F>(lq, lk, p.headSize, q, p.q.rowStride, k, p.k.rowStride, true, sc, lk);
    for (F& x : s)
        x *= p.scale;
    if (p.tap == ScoresTap::Raw)
        copyRows(sc, lq, lk, p.scores.head(b, h), p.scores.rowStride);
    if (p.softcap > 0)
        for (F& x : s)
            x = p.softcap * std::tanh(x / p.softcap);
    if (p.tap == ScoresTap::Softcapped)
        copyRows(sc, lq, lk, p.scores.head(b, h), p.scores.rowStride);
    std::vector<char> masked(static_cast<size_t>(lq), 0);
    if (p.bias.data) {
        const F* bias = p.bias.head(b, h);
        for (int64_t i = 0; i < lq; ++i) {
            const F* br = bias + i * p.bias.rowStride;
            F* row = sc + i * lk;
            bool all = true;
            for (int64_t j = 0; j < lk; ++j) {
                row[j] += br[j];
                all = all && br[j] == -std::numeric_limits<F>::infinity();
            }
            masked[static_cast<size_t>(i)] = all && lk > 0;
        }
    }
    if (p.tap == ScoresTap::Biased)
        copyRows(sc, lq, lk, p.scores.head(b, h), p.scores.rowStride);
    for (int64_t i = 0; i < lq; ++i) {
        if (masked[static_cast<size_t>(i)])
            std::fill(sc + i * lk, sc + (i + 1) * lk, F(0));
        else
            softmaxRow(sc + i * lk, lk);
    }
    if (p.tap == ScoresTap::Probabilities)
        copyRows(sc, lq, lk, p.scores.head(b, h), p.scores.rowStride);
    if (p.vHeadSize == 0)
        return;
    if (lk == 0) {
        for (int64_t i = 0; i < lq; ++i)
            std::fill(y + i * p.y.rowStride, y + i * p.y.rowStride + p.vHeadSize, F(0));
        return;
    }
    product<F>(lq, p.vHeadSize, lk, sc, lk, v, p.v.rowStride, false, y, p.y.rowStride);
}

} // namespace

template <class F> void scaledDotProductAttention(ThreadPool* pool, const Problem<F>& p)
{
    const int64_t heads = p.batch * p.qHeads;
    if (heads == 0 || p.qLen == 0)
        return;
    const int64_t work = std::max<int64_t>(1, p.qLen * p.kvLen * (p.headSize + p.vHeadSize));
    parallelFor(pool, heads, std::max<int64_t>(1, simd::kGrainMacs / work), [&](int64_t h0, int64_t h1) {
        std::vector<F> scratch;
        for (int64_t i = h0; i < h1; ++i)
            oneHead(p, i / p.qHeads, i % p.qHeads, scratch);
    });
}

template void scaledDotProductAttention<float>(ThreadPool*, const Problem<float>&);
template void scaledDotProductAttention<double>(ThreadPool*, const Problem<double>&);

template <class F> const F* elementsAs(const Tensor& t, std::vector<F>& buffer)
{
    if (t.dtype() == DataTypeOf<F>::value)
        return t.data<F>().data();
    buffer.resize(static_cast<size_t>(t.size()));
    dispatch<FloatTypes>(t.dtype(), "attention input", [&]<class T>() {
        auto in = t.data<T>();
        for (size_t i = 0; i < buffer.size(); ++i)
            buffer[i] = static_cast<F>(static_cast<float>(in[i]));
    });
    return buffer.data();
}

template <class F> void storeAs(const F* values, int64_t n, Tensor& out)
{
    dispatch<FloatTypes>(out.dtype(), "attention output", [&]<class T>() {
        T* o = out.data<T>().data();
        for (int64_t i = 0; i < n; ++i)
            if constexpr (std::is_same_v<T, double>)
                o[i] = static_cast<double>(values[i]);
            else
                o[i] = static_cast<T>(static_cast<float>(values[i]));
    });
}

template const float* elementsAs<float>(const Tensor&, std::vector<float>&);
template const double* elementsAs<double>(const Tensor&, std::vector<double>&);
template void storeAs<float>(const float*, int64_t, Tensor&);
template void storeAs<double>(const double*, int64_t, Tensor&);

} // namespace onnxscope::attention
