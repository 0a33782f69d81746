// SPDX-License-Identifier: MIT
#include "engine/kernels/nn/attention_core.h"

#include "engine/core/half.h"
#include "engine/core/tensor.h"
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/half_convert.h"
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

/// sc[qLen, ldc] = Q·Kᵀ·scale of head (b, h).
template <class F> void headScores(const Problem<F>& p, int64_t b, int64_t h, F* sc, int64_t ldc)
{
    const int64_t group = p.qHeads / p.kvHeads;
    const int64_t lq = p.qLen, lk = p.kvLen;
    if (lk == 0)
        return;
    if (p.headSize == 0) {
        for (int64_t i = 0; i < lq; ++i)
            std::fill(sc + i * ldc, sc + i * ldc + lk, F(0));
        return;
    }
    product<F>(lq, lk, p.headSize, p.q.head(b, h), p.q.rowStride, p.k.head(b, h / group), p.k.rowStride, true, sc, ldc);
    for (int64_t i = 0; i < lq; ++i)
        for (int64_t j = 0; j < lk; ++j)
            sc[i * ldc + j] *= p.scale;
}

/// y of head (b, h) = P·V, P [qLen, kvLen] with row stride ldp.
template <class F> void headOutput(const Problem<F>& p, int64_t b, int64_t h, const F* probs, int64_t ldp)
{
    const int64_t group = p.qHeads / p.kvHeads;
    F* y = p.y.head(b, h);
    if (p.vHeadSize == 0)
        return;
    if (p.kvLen == 0) {
        for (int64_t i = 0; i < p.qLen; ++i)
            std::fill(y + i * p.y.rowStride, y + i * p.y.rowStride + p.vHeadSize, F(0));
        return;
    }
    product<F>(
        p.qLen, p.vHeadSize, p.kvLen, probs, ldp, p.v.head(b, h / group), p.v.rowStride, false, y, p.y.rowStride);
}

template <class F> void oneHead(const Problem<F>& p, int64_t b, int64_t h, std::vector<F>& s)
{
    const int64_t lq = p.qLen, lk = p.kvLen;
    s.resize(static_cast<size_t>(lq * lk));
    F* sc = s.data();
    headScores(p, b, h, sc, lk);
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
    headOutput(p, b, h, sc, lk);
}

/// fn(b, h) over every (batch, query head), in parallel when a pool is given.
template <class F, class Fn> void forEachHead(ThreadPool* pool, const Problem<F>& p, Fn&& fn)
{
    const int64_t heads = p.batch * p.qHeads;
    if (heads == 0 || p.qLen == 0)
        return;
    const int64_t work = std::max<int64_t>(1, p.qLen * p.kvLen * (p.headSize + p.vHeadSize));
    parallelFor(pool, heads, std::max<int64_t>(1, simd::kGrainMacs / work), [&](int64_t h0, int64_t h1) {
        for (int64_t i = h0; i < h1; ++i)
            fn(i / p.qHeads, i % p.qHeads);
    });
}

} // namespace

template <class F> void scaledDotProductAttention(ThreadPool* pool, const Problem<F>& p)
{
    forEachHead(pool, p, [&](int64_t b, int64_t h) {
        thread_local std::vector<F> scratch;
        oneHead(p, b, h, scratch);
    });
}

template <class F> void attentionScores(ThreadPool* pool, const Problem<F>& p)
{
    forEachHead(pool, p, [&](int64_t b, int64_t h) { headScores(p, b, h, p.scores.head(b, h), p.scores.rowStride); });
}

template <class F> void softmaxRows(F* rows, int64_t count, int64_t len)
{
    for (int64_t r = 0; r < count; ++r)
        softmaxRow(rows + r * len, len);
}

template <class F> void attentionOutput(ThreadPool* pool, const Problem<F>& p)
{
    forEachHead(pool, p, [&](int64_t b, int64_t h) { headOutput(p, b, h, p.scores.head(b, h), p.scores.rowStride); });
}

template void scaledDotProductAttention<float>(ThreadPool*, const Problem<float>&);
template void scaledDotProductAttention<double>(ThreadPool*, const Problem<double>&);
template void attentionScores<float>(ThreadPool*, const Problem<float>&);
template void attentionScores<double>(ThreadPool*, const Problem<double>&);
template void softmaxRows<float>(float*, int64_t, int64_t);
template void softmaxRows<double>(double*, int64_t, int64_t);
template void attentionOutput<float>(ThreadPool*, const Problem<float>&);
template void attentionOutput<double>(ThreadPool*, const Problem<double>&);

template <class F> const F* elementsAs(const Tensor& t, std::vector<F>& buffer)
{
    if (t.dtype() == DataTypeOf<F>::value)
        return t.data<F>().data();
    buffer.resize(static_cast<size_t>(t.size()));
    if constexpr (std::is_same_v<F, float>)
        if (t.dtype() == DataType::Float16) {
            halfToFloat(t.data<Float16>().data(), buffer.data(), t.size());
            return buffer.data();
        }
    dispatch<FloatTypes>(t.dtype(), "attention input", [&]<class T>() {
        auto in = t.data<T>();
        for (size_t i = 0; i < buffer.size(); ++i)
            buffer[i] = static_cast<F>(static_cast<float>(in[i]));
    });
    return buffer.data();
}

template <class F> void storeAs(const F* values, int64_t n, Tensor& out)
{
    if constexpr (std::is_same_v<F, float>)
        if (out.dtype() == DataType::Float16)
            return floatToHalf(values, out.data<Float16>().data(), n);
    dispatch<FloatTypes>(out.dtype(), "attention output", [&]<class T>() {
        T* o = out.data<T>().data();
        for (int64_t i = 0; i < n; ++i)
            if constexpr (std::is_same_v<T, double>)
                o[i] = static_cast<double>(values[i]);
            else
                o[i] = static_cast<T>(static_cast<float>(values[i]));
    });
}

double roundedScale(double root, DataType qType)
{
    double rounded = root;
    if (isFloatingPoint(qType))
        dispatch<FloatTypes>(
            qType, "attention scale", [&]<class T>() { rounded = static_cast<double>(static_cast<T>(root)); });
    return rounded * rounded;
}

template const float* elementsAs<float>(const Tensor&, std::vector<float>&);
template const double* elementsAs<double>(const Tensor&, std::vector<double>&);
template void storeAs<float>(const float*, int64_t, Tensor&);
template void storeAs<double>(const double*, int64_t, Tensor&);

} // namespace onnxscope::attention
