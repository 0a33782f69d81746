// SPDX-License-Identifier: MIT
#include "engine/kernels/math/matmul.h"
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/half_convert.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <Eigen/Core>

#include <algorithm>
#include <type_traits>
#include <vector>

namespace onnxscope {

namespace {

template <class T> using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The type the product is computed in: float for float16/bfloat16 (float accumulation, as onnxruntime does), the
/// unsigned counterpart for signed integers (overflow wraps instead of being undefined), T otherwise.
template <class T> struct ComputeType {
    using type = T;
};
template <> struct ComputeType<Float16> {
    using type = float;
};
template <> struct ComputeType<BFloat16> {
    using type = float;
};
template <> struct ComputeType<int32_t> {
    using type = uint32_t;
};
template <> struct ComputeType<int64_t> {
    using type = uint64_t;
};

/// MatMul 1, 9, 13: numpy matmul. 1-D operands are promoted (A to [1, K], B to [K, 1]) and the added dimension
/// removed from the result; leading (batch) dimensions broadcast. float, double, float16, bfloat16, int32, int64,
/// uint32, uint64. Half types accumulate in float; signed integer overflow wraps.
class MatMul final : public Kernel {
public:
    explicit MatMul(const KernelInit& init)
        : m_constantB(isConstantInput(init, 1))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        if (a.dtype() != b.dtype())
            throw ctx.error("inputs have different element types (" + std::string(dataTypeName(a.dtype())) + " and "
                + std::string(dataTypeName(b.dtype())) + ")");
        if (a.rank() == 0 || b.rank() == 0)
            throw ctx.error("MatMul needs operands of rank 1 or more, got " + shapeToString(a.shape()) + " and "
                + shapeToString(b.shape()));
        Shape sa = a.shape(), sb = b.shape();
        const bool promoteA = sa.size() == 1, promoteB = sb.size() == 1;
        if (promoteA)
            sa.insert(sa.begin(), 1);
        if (promoteB)
            sb.push_back(1);
        const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
        if (sb[sb.size() - 2] != k)
            throw ctx.error(
                "inner dimensions do not match: A " + shapeToString(a.shape()) + ", B " + shapeToString(b.shape()));
        const Shape batchA(sa.begin(), sa.end() - 2), batchB(sb.begin(), sb.end() - 2);
        Shape batch;
        try {
            batch = broadcastShapes(batchA, batchB);
        } catch (const Error& e) {
            throw ctx.error("batch dimensions: " + std::string(e.what()));
        }
        Shape outShape = batch;
        if (!promoteA)
            outShape.push_back(m);
        if (!promoteB)
            outShape.push_back(n);
        Tensor& out = ctx.allocateOutputUninitialized(0, a.dtype(), outShape);
        dispatch<TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>>(
            a.dtype(), ctx.node(), [&]<class T>() { run<T>(ctx, a, b, out, batchA, batchB, batch, m, k, n); });
    }

private:
    /// A constant float16 B (a weight) converted to float once, not on every run.
    bool m_constantB = false;
    ConstantFloats m_floatB;

    template <class T>
    void run(const KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor& out, const Shape& batchA,
        const Shape& batchB, const Shape& batch, int64_t m, int64_t k, int64_t n) const
    {
        using C = typename ComputeType<T>::type;
        const int64_t batches = elementCount(batch);
        if (out.size() == 0)
            return;
        const std::vector<int64_t> stridesA = broadcastStrides(batchA, batch);
        const std::vector<int64_t> stridesB = broadcastStrides(batchB, batch);
        const T* pa = a.data<T>().data();
        const T* pb = b.data<T>().data();
        T* po = out.data<T>().data();
        // B shared by every batch of an unbroadcast A ([..., M, K] x [K, N]): one [batches * M, K] product.
        const bool foldBatches = elementCount(batchB) == 1 && batchA == batch;
        const int64_t rowsPerProduct = foldBatches ? batches * m : m;
        const int64_t products = foldBatches ? 1 : batches;
        std::vector<int64_t> index(batch.size(), 0);
        RowMajor<C> ta, tb, tc; // conversion buffers for bfloat16
        // float16: converted (F16C where the CPU has it) and multiplied by the float GEMM of the CPU's level.
        std::vector<float> fa, fbAll, fc;
        const float* fb = nullptr;
        if constexpr (std::is_same_v<T, Float16>) {
            if (m_constantB) {
                fb = m_floatB.get(b);
            } else {
                fbAll.resize(static_cast<size_t>(b.size()));
                halfToFloat(pb, fbAll.data(), b.size());
                fb = fbAll.data();
            }
            fa.resize(static_cast<size_t>(rowsPerProduct * k));
            fc.resize(static_cast<size_t>(rowsPerProduct * n));
        }
        for (int64_t i = 0; i < products; ++i) {
            int64_t offA = 0, offB = 0;
            for (size_t d = 0; d < batch.size(); ++d) {
                offA += index[d] * stridesA[d];
                offB += index[d] * stridesB[d];
            }
            const T* ma = pa + offA * m * k;
            const T* mb = pb + offB * k * n;
            T* mo = po + i * m * n;
            if constexpr (std::is_same_v<T, float>) {
                simd::parallelGemm(ctx.threadPool(), rowsPerProduct, n, k, ma, k, false, mb, n, false, mo, n, false);
            } else if constexpr (std::is_same_v<T, Float16>) {
                halfToFloat(ma, fa.data(), rowsPerProduct * k);
                simd::parallelGemm(ctx.threadPool(), rowsPerProduct, n, k, fa.data(), k, false, fb + offB * k * n, n,
                    false, fc.data(), n, false);
                floatToHalf(fc.data(), mo, rowsPerProduct * n);
            } else if constexpr (std::is_same_v<C, T>) {
                Eigen::Map<RowMajor<T>>(mo, rowsPerProduct, n).noalias()
                    = Eigen::Map<const RowMajor<T>>(ma, rowsPerProduct, k) * Eigen::Map<const RowMajor<T>>(mb, k, n);
            } else if constexpr (std::is_integral_v<T>) {
                // Signed and unsigned integers of one size may alias each other.
                Eigen::Map<RowMajor<C>>(reinterpret_cast<C*>(mo), rowsPerProduct, n).noalias()
                    = Eigen::Map<const RowMajor<C>>(reinterpret_cast<const C*>(ma), rowsPerProduct, k)
                    * Eigen::Map<const RowMajor<C>>(reinterpret_cast<const C*>(mb), k, n);
            } else {
                ta = Eigen::Map<const RowMajor<T>>(ma, rowsPerProduct, k).template cast<C>();
                tb = Eigen::Map<const RowMajor<T>>(mb, k, n).template cast<C>();
                tc.noalias() = ta * tb;
                Eigen::Map<RowMajor<T>>(mo, rowsPerProduct, n) = tc.template cast<T>();
            }
            for (size_t d = batch.size(); d-- > 0;) {
                if (++index[d] < batch[d])
                    break;
                index[d] = 0;
            }
        }
    }
};

/// makeMatMulTransposedB: float A [..., K] (rank 1 or more) times weights^T, weights [N, K]. Few rows (a decoding
/// step: the GEMV shape) run as weights x A^T, so that the level's product streams the weights' rows once, then
/// the small [N, rows] result is transposed; more rows as A x weights^T.
class MatMulTransposedB final : public Kernel {
public:
    explicit MatMulTransposedB(Tensor weights)
        : m_weights(std::move(weights))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const int64_t n = m_weights.dim(0), k = m_weights.dim(1);
        if (a.dtype() != DataType::Float)
            throw ctx.error(
                "inputs have different element types (" + std::string(dataTypeName(a.dtype())) + " and float)");
        if (a.rank() == 0 || a.dim(a.rank() - 1) != k)
            throw ctx.error("inner dimensions do not match: A " + shapeToString(a.shape()) + ", B [" + std::to_string(k)
                + ", " + std::to_string(n) + "]");
        Shape outShape(a.shape().begin(), a.shape().end() - 1);
        outShape.push_back(n);
        Tensor& out = ctx.allocateOutputUninitialized(0, DataType::Float, outShape);
        const int64_t rows = k == 0 ? elementCount(outShape) / std::max<int64_t>(n, 1) : a.size() / k;
        if (out.size() == 0)
            return;
        const float* pa = a.data<float>().data();
        const float* pw = m_weights.data<float>().data();
        float* po = out.data<float>().data();
        constexpr int64_t kFewRows = 16;
        if (rows > kFewRows) {
            simd::parallelGemm(ctx.threadPool(), rows, n, k, pa, k, false, pw, k, true, po, n, false);
            return;
        }
        std::vector<float> yt(static_cast<size_t>(n * rows));
        simd::parallelGemm(ctx.threadPool(), n, rows, k, pw, k, false, pa, k, true, yt.data(), rows, false);
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < n; ++j)
                po[r * n + j] = yt[static_cast<size_t>(j * rows + r)];
    }

private:
    Tensor m_weights;
};

} // namespace

std::unique_ptr<Kernel> makeMatMulTransposedB(const KernelInit&, Tensor weights)
{
    return std::make_unique<MatMulTransposedB>(std::move(weights));
}

void registerMatMul(KernelRegistry& r)
{
    r.add("", "MatMul", 1, 13, makeFactory<MatMul>());
}

} // namespace onnxscope
