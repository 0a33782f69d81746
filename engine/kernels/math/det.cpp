// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <Eigen/Core>
#include <Eigen/LU>

namespace onnxscope {

namespace {

/// Det 11, 13: determinants of the square matrices in the last two dimensions of X ([*, M, M] -> [*]).
/// float, double, float16, bfloat16, computed in double by LU decomposition with partial pivoting (Eigen), so a
/// singular matrix gives 0 and an empty (0 x 0) matrix gives 1.
class Det final : public Kernel {
public:
    explicit Det(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2))
            throw ctx.error("input must be [*, M, M], got " + shapeToString(x.shape()));
        const Shape batch(x.shape().begin(), x.shape().end() - 2);
        Tensor& y = ctx.allocateOutput(0, x.dtype(), batch);
        const int64_t m = x.dim(x.rank() - 1);
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            const T* in = x.data<T>().data();
            auto out = y.data<T>();
            using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
            Matrix a(m, m);
            for (size_t b = 0; b < out.size(); ++b) {
                const T* p = in + static_cast<int64_t>(b) * m * m;
                for (int64_t i = 0; i < m * m; ++i)
                    a.data()[i] = static_cast<double>(p[i]);
                out[b] = static_cast<T>(m == 0 ? 1.0 : a.partialPivLu().determinant());
            }
        });
    }
};

} // namespace

void registerDet(KernelRegistry& r)
{
    r.add("", "Det", 11, 22, makeFactory<Det>());
}

} // namespace onnxscope
