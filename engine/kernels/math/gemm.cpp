// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <Eigen/Core>

#include <limits>
#include <type_traits>

namespace onnxscope {

namespace {

template <class T> using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// float16/bfloat16 are computed in float; signed integers in their unsigned counterpart (overflow wraps).
template <class T> struct GemmCompute {
    using type = T;
};
template <> struct GemmCompute<Float16> {
    using type = float;
};
template <> struct GemmCompute<BFloat16> {
    using type = float;
};
template <> struct GemmCompute<int32_t> {
    using type = uint32_t;
};
template <> struct GemmCompute<int64_t> {
    using type = uint64_t;
};

/// Gemm 1, 6, 7, 9, 11, 13: Y = alpha * A' * B' + beta * C, with A' = transA ? A^T : A (2-D) and likewise B'.
/// C broadcasts unidirectionally to [M, N]; in opsets 1-6 only when the `broadcast` attribute is set (otherwise it
/// must be [M, N]), and from opset 11 C is optional. float, double, float16, bfloat16, int32, int64, uint32, uint64.
/// Half types accumulate in float; for integer types alpha and beta are truncated to the element type.
class Gemm final : public Kernel {
public:
    explicit Gemm(const KernelInit& init)
    {
        const NodeAttributes& attrs = init.attributes();
        m_alpha = attrs.getFloat("alpha", 1.0f);
        m_beta = attrs.getFloat("beta", 1.0f);
        m_transA = attrs.getInt("transA", 0) != 0;
        m_transB = attrs.getInt("transB", 0) != 0;
        if (init.opset() < 7)
            m_legacyNoBroadcast = attrs.getInt("broadcast", 0) == 0;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        if (a.rank() != 2 || b.rank() != 2)
            throw ctx.error(
                "A and B must be 2-D, got " + shapeToString(a.shape()) + " and " + shapeToString(b.shape()));
        if (a.dtype() != b.dtype())
            throw ctx.error("A and B have different element types (" + std::string(dataTypeName(a.dtype())) + " and "
                + std::string(dataTypeName(b.dtype())) + ")");
        const int64_t m = m_transA ? a.dim(1) : a.dim(0), k = m_transA ? a.dim(0) : a.dim(1);
        const int64_t kb = m_transB ? b.dim(1) : b.dim(0), n = m_transB ? b.dim(0) : b.dim(1);
        if (k != kb)
            throw ctx.error("inner dimensions do not match: A " + shapeToString(a.shape())
                + (m_transA ? " (transposed)" : "") + ", B " + shapeToString(b.shape())
                + (m_transB ? " (transposed)" : ""));
        const Tensor* c = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
        const Shape outShape { m, n };
        if (c) {
            if (c->dtype() != a.dtype())
                throw ctx.error("C has element type " + std::string(dataTypeName(c->dtype())) + ", A has "
                    + std::string(dataTypeName(a.dtype())));
            if (m_legacyNoBroadcast && c->shape() != outShape)
                throw ctx.error("C " + shapeToString(c->shape()) + " must be " + shapeToString(outShape)
                    + " when the 'broadcast' attribute is 0");
            bool ok = c->rank() <= 2;
            for (int64_t i = 0; ok && i < c->rank(); ++i) {
                const int64_t want = outShape[static_cast<size_t>(2 - c->rank() + i)];
                ok = c->dim(i) == want || c->dim(i) == 1;
            }
            if (!ok)
                throw ctx.error(
                    "C " + shapeToString(c->shape()) + " cannot be broadcast to " + shapeToString(outShape));
        }
        Tensor& out = ctx.allocateOutputUninitialized(0, a.dtype(), outShape);
        if (a.dtype() == DataType::Float) {
            runFloat(ctx, a, b, c, out, m, k, n);
            return;
        }
        dispatch<TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>>(
            a.dtype(), ctx.node(), [&]<class T>() { run<T>(a, b, c, out, m, k, n); });
    }

private:
    /// float on the SIMD GEMM: Y = A' * B', then Y = alpha * Y + beta * C in one pass.
    void runFloat(const KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor* c, Tensor& out, int64_t m,
        int64_t k, int64_t n) const
    {
        float* y = out.data<float>().data();
        simd::parallelGemm(ctx.threadPool(), m, n, k, a.data<float>().data(), a.dim(1), m_transA,
            b.data<float>().data(), b.dim(1), m_transB, y, n, false);
        const bool addC = c && m_beta != 0.0f && c->size() > 0;
        if (m_alpha == 1.0f && !addC)
            return;
        const float alpha = m_alpha, beta = m_beta;
        const float* pc = addC ? c->data<float>().data() : nullptr;
        // C is [M, N], [1, N], [M, 1], [N], [1, 1], [1] or a scalar: strides of its rows and columns.
        const int64_t cRows = !addC || c->rank() < 2 ? 1 : c->dim(0);
        const int64_t cCols = !addC || c->rank() == 0 ? 1 : c->dim(c->rank() - 1);
        const int64_t rowStride = cRows == 1 ? 0 : cCols, colStride = cCols == 1 ? 0 : 1;
        for (int64_t i = 0; i < m; ++i) {
            float* row = y + i * n;
            if (!pc) {
                for (int64_t j = 0; j < n; ++j)
                    row[j] *= alpha;
            } else {
                const float* crow = pc + i * rowStride;
                for (int64_t j = 0; j < n; ++j)
                    row[j] = alpha * row[j] + beta * crow[j * colStride];
            }
        }
    }

    template <class T>
    void run(const Tensor& a, const Tensor& b, const Tensor* c, Tensor& out, int64_t m, int64_t k, int64_t n) const
    {
        using C = typename GemmCompute<T>::type;
        RowMajor<C> y(m, n);
        if (c && m_beta != 0.0f) {
            Tensor full(c->dtype(), { m, n });
            broadcastTo<T>(*c, full);
            y = matrix<C, T>(full, m, n) * scalar<C, T>(m_beta);
        } else {
            y.setZero();
        }
        const C alpha = scalar<C, T>(m_alpha);
        auto product = [&](const auto& ma, const auto& mb) {
            if (m_transA && m_transB)
                y.noalias() += alpha * (ma.transpose() * mb.transpose());
            else if (m_transA)
                y.noalias() += alpha * (ma.transpose() * mb);
            else if (m_transB)
                y.noalias() += alpha * (ma * mb.transpose());
            else
                y.noalias() += alpha * (ma * mb);
        };
        if constexpr (std::is_same_v<C, T> || std::is_integral_v<T>) {
            product(matrix<C, T>(a, a.dim(0), a.dim(1)), matrix<C, T>(b, b.dim(0), b.dim(1)));
            Eigen::Map<RowMajor<C>>(reinterpret_cast<C*>(out.data<T>().data()), m, n) = y;
        } else {
            const RowMajor<C> ma
                = Eigen::Map<const RowMajor<T>>(a.data<T>().data(), a.dim(0), a.dim(1)).template cast<C>();
            const RowMajor<C> mb
                = Eigen::Map<const RowMajor<T>>(b.data<T>().data(), b.dim(0), b.dim(1)).template cast<C>();
            product(ma, mb);
            Eigen::Map<RowMajor<T>>(out.data<T>().data(), m, n) = y.template cast<T>();
        }
    }

    /// The elements of `t` as a rows x cols matrix of C, without copying (C is T or, for signed integers, the
    /// unsigned type of the same size, which may alias it). Not for the half types.
    template <class C, class T> static auto matrix(const Tensor& t, int64_t rows, int64_t cols)
    {
        if constexpr (std::is_same_v<C, T> || std::is_integral_v<T>)
            return Eigen::Map<const RowMajor<C>>(reinterpret_cast<const C*>(t.data<T>().data()), rows, cols);
        else
            return Eigen::Map<const RowMajor<T>>(t.data<T>().data(), rows, cols).template cast<C>();
    }

    /// alpha/beta in the compute type; for integers truncated (saturating, NaN as 0) to T first.
    template <class C, class T> static C scalar(float v)
    {
        if constexpr (std::is_integral_v<T>) {
            if (!(v == v))
                return C(0);
            const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
            const double hi = static_cast<double>(std::numeric_limits<T>::max());
            const double d = static_cast<double>(v);
            const T t = d <= lo ? std::numeric_limits<T>::lowest()
                : d >= hi       ? std::numeric_limits<T>::max()
                                : static_cast<T>(d);
            return static_cast<C>(t);
        } else {
            return static_cast<C>(v);
        }
    }

    float m_alpha = 1.0f;
    float m_beta = 1.0f;
    bool m_transA = false;
    bool m_transB = false;
    bool m_legacyNoBroadcast = false;
};

} // namespace

void registerGemm(KernelRegistry& r)
{
    r.add("", "Gemm", 1, 13, makeFactory<Gemm>());
}

} // namespace onnxscope
