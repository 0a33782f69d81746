// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <Eigen/Dense>

#include <limits>
#include <sstream>

namespace onnxscope {

namespace {

/// Solve (mlprodict 1): X with A X = B (Aᵀ X = B when transposed=1), A [n, n], B [n] or [n, k], as
/// scipy.linalg.solve. `lower` only says which triangle holds a symmetric A's data and does not change the result for
/// a general A (validated, otherwise unused). A singular A (reciprocal condition number below n * machine epsilon,
/// which includes exactly singular matrices) is an error, not NaNs. float and double.
class Solve final : public Kernel {
public:
    explicit Solve(const KernelInit& init)
    {
        const auto& a = init.attributes();
        a.getInt("lower", 0);
        m_transposed = a.getInt("transposed", 0) != 0;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        if (a.rank() != 2 || a.dim(0) != a.dim(1))
            throw ctx.error("A must be a square matrix [n, n], got " + a.typeString());
        if ((b.rank() != 1 && b.rank() != 2) || b.dim(0) != a.dim(0))
            throw ctx.error("B must be [n] or [n, k] with n = " + std::to_string(a.dim(0)) + ", got " + b.typeString());
        if (a.dtype() != b.dtype())
            throw ctx.error("A is " + a.typeString() + " but B is " + b.typeString());
        dispatch<TypeList<float, double>>(a.dtype(), ctx.node(), [&]<class T>() { run<T>(ctx, a, b); });
    }

private:
    template <class T> void run(KernelContext& ctx, const Tensor& a, const Tensor& b) const
    {
        using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        const int64_t n = a.dim(0);
        const int64_t k = b.rank() == 1 ? 1 : b.dim(1);
        Mat ma = Eigen::Map<const Mat>(a.data<T>().data(), n, n);
        if (m_transposed)
            ma.transposeInPlace();
        Tensor& out = ctx.allocateOutput(0, b.dtype(), b.shape());
        if (n == 0)
            return;
        Eigen::PartialPivLU<Mat> lu(ma);
        const T rcond = lu.rcond();
        if (!(rcond >= static_cast<T>(n) * std::numeric_limits<T>::epsilon())) {
            std::ostringstream s;
            s << "matrix A " << shapeToString(a.shape()) << " is singular (reciprocal condition number " << rcond
              << "); the system has no unique solution";
            throw ctx.error(s.str());
        }
        Eigen::Map<const Mat> mb(b.data<T>().data(), n, k);
        Eigen::Map<Mat>(out.data<T>().data(), n, k) = lu.solve(Mat(mb));
    }

    bool m_transposed = false;
};

} // namespace

void registerSolve(KernelRegistry& r)
{
    r.add("mlprodict", "Solve", 1, KernelRegistry::kLatest, makeFactory<Solve>());
}

} // namespace onnxscope
