// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <Eigen/Core>

#include <numeric>

namespace onnxscope {

namespace {

/// Copies `t` transposed by `perm` (row-major, generic rank).
template <class T> Tensor permuted(const Tensor& t, const std::vector<int64_t>& perm)
{
    const int64_t rank = t.rank();
    Shape shape(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d)
        shape[static_cast<size_t>(d)] = t.dim(perm[static_cast<size_t>(d)]);
    Tensor out(t.dtype(), shape);
    const auto inStrides = stridesOf(t.shape());
    auto src = t.data<T>();
    auto dst = out.data<T>();
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    for (int64_t i = 0; i < out.size(); ++i) {
        int64_t offset = 0;
        for (int64_t d = 0; d < rank; ++d)
            offset += index[static_cast<size_t>(d)] * inStrides[static_cast<size_t>(perm[static_cast<size_t>(d)])];
        dst[static_cast<size_t>(i)] = src[static_cast<size_t>(offset)];
        for (int64_t d = rank - 1; d >= 0; --d) {
            if (++index[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)])
                break;
            index[static_cast<size_t>(d)] = 0;
        }
    }
    return out;
}

/// FusedMatMul (mlprodict and com.microsoft 1): Y = alpha * matmul(A', B'). transBatchX moves the first axis of X to
/// just before the last one (perm [1, ..., n-2, 0, n-1]), then transX swaps the last two axes. Batch dimensions
/// broadcast as in MatMul; a 1-D A is a row, a 1-D B a column (and that axis is dropped from Y). float and double.
class FusedMatMul final : public Kernel {
public:
    explicit FusedMatMul(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_alpha = a.getFloat("alpha", 1.0f);
        m_transA = a.getInt("transA", 0) != 0;
        m_transB = a.getInt("transB", 0) != 0;
        m_batchA = a.getInt("transBatchA", 0) != 0;
        m_batchB = a.getInt("transBatchB", 0) != 0;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        if (a.dtype() != b.dtype())
            throw ctx.error("A is " + a.typeString() + " but B is " + b.typeString());
        if (a.rank() == 0 || b.rank() == 0)
            throw ctx.error("A and B must have at least one dimension");
        dispatch<TypeList<float, double>>(a.dtype(), ctx.node(), [&]<class T>() { run<T>(ctx, a, b); });
    }

private:
    static std::vector<int64_t> permutation(int64_t rank, bool batch, bool trans)
    {
        std::vector<int64_t> p(static_cast<size_t>(rank));
        std::iota(p.begin(), p.end(), 0);
        if (batch && rank >= 3) {
            for (int64_t d = 0; d < rank - 2; ++d)
                p[static_cast<size_t>(d)] = d + 1;
            p[static_cast<size_t>(rank - 2)] = 0;
        }
        if (trans && rank >= 2)
            std::swap(p[static_cast<size_t>(rank - 1)], p[static_cast<size_t>(rank - 2)]);
        return p;
    }

    template <class T> void run(KernelContext& ctx, Tensor a, Tensor b) const
    {
        const bool aVector = a.rank() == 1, bVector = b.rank() == 1;
        if (aVector)
            a = a.reshaped({ 1, a.dim(0) });
        if (bVector)
            b = b.reshaped({ b.dim(0), 1 });
        a = permuted<T>(a, permutation(a.rank(), m_batchA, m_transA && !aVector));
        b = permuted<T>(b, permutation(b.rank(), m_batchB, m_transB && !bVector));
        const int64_t m = a.dim(a.rank() - 2), k = a.dim(a.rank() - 1);
        const int64_t k2 = b.dim(b.rank() - 2), n = b.dim(b.rank() - 1);
        if (k != k2)
            throw ctx.error(
                "inner dimensions differ: A' is " + shapeToString(a.shape()) + ", B' is " + shapeToString(b.shape()));
        Shape batchA(a.shape().begin(), a.shape().end() - 2), batchB(b.shape().begin(), b.shape().end() - 2);
        Shape batch;
        try {
            batch = broadcastShapes(batchA, batchB);
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        Shape outShape = batch;
        if (!aVector)
            outShape.push_back(m);
        if (!bVector)
            outShape.push_back(n);
        Tensor& out = ctx.allocateOutput(0, a.dtype(), outShape);
        const int64_t batches = elementCount(batch);
        // Map a flat batch index to the flat batch index of A and B (broadcast dims of size 1 stay 0).
        auto batchOffset = [&](const Shape& own, int64_t flat) {
            int64_t offset = 0, stride = 1;
            for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
                const int64_t idx = flat % batch[static_cast<size_t>(d)];
                flat /= batch[static_cast<size_t>(d)];
                const int64_t od = d - (static_cast<int64_t>(batch.size()) - static_cast<int64_t>(own.size()));
                if (od < 0)
                    continue;
                const int64_t dim = own[static_cast<size_t>(od)];
                offset += (dim == 1 ? 0 : idx) * stride;
                stride *= dim;
            }
            return offset;
        };
        using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        for (int64_t i = 0; i < batches; ++i) {
            Eigen::Map<const Mat> ma(a.data<T>().data() + batchOffset(batchA, i) * m * k, m, k);
            Eigen::Map<const Mat> mb(b.data<T>().data() + batchOffset(batchB, i) * k * n, k, n);
            Eigen::Map<Mat> mo(out.data<T>().data() + i * m * n, m, n);
            mo.noalias() = static_cast<T>(m_alpha) * (ma * mb);
        }
    }

    float m_alpha = 1.0f;
    bool m_transA = false, m_transB = false, m_batchA = false, m_batchB = false;
};

} // namespace

void registerFusedMatMul(KernelRegistry& r)
{
    for (const char* domain : { "mlprodict", "com.microsoft" })
        r.add(domain, "FusedMatMul", 1, KernelRegistry::kLatest, makeFactory<FusedMatMul>());
}

} // namespace onnxscope
