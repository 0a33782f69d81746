// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onnxscope {

namespace {

enum class Metric { SqEuclidean, Euclidean, Minkowski, Cityblock, Chebyshev, Cosine };

/// CDist (mlprodict and com.microsoft 1): D[i, j] = distance between row i of A [n, k] and row j of B [m, k], as
/// scipy.spatial.distance.cdist with metric sqeuclidean (default), euclidean, minkowski (attribute p, default 2),
/// cityblock, chebyshev or cosine (NaN for a zero vector, as scipy). float or double; D has A's type. Sums run in
/// double.
class CDist final : public Kernel {
public:
    explicit CDist(const KernelInit& init)
    {
        const auto& a = init.attributes();
        const std::string m = a.getString("metric", "sqeuclidean");
        if (m == "sqeuclidean")
            m_metric = Metric::SqEuclidean;
        else if (m == "euclidean")
            m_metric = Metric::Euclidean;
        else if (m == "minkowski")
            m_metric = Metric::Minkowski;
        else if (m == "cityblock")
            m_metric = Metric::Cityblock;
        else if (m == "chebyshev")
            m_metric = Metric::Chebyshev;
        else if (m == "cosine")
            m_metric = Metric::Cosine;
        else
            throw a.error("metric",
                "unsupported metric \"" + m
                    + "\" (supported: sqeuclidean, euclidean, minkowski, cityblock, chebyshev, cosine)");
        m_p = a.getFloat("p", 2.0f);
        if (m_metric == Metric::Minkowski && !(m_p > 0))
            throw a.error("p", "must be positive for minkowski, got " + std::to_string(m_p));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        if (a.rank() != 2 || b.rank() != 2 || a.dim(1) != b.dim(1))
            throw ctx.error("expects A [n, k] and B [m, k], got " + a.typeString() + " and " + b.typeString());
        if (a.dtype() != b.dtype())
            throw ctx.error("A is " + a.typeString() + " but B is " + b.typeString());
        Tensor& out = ctx.allocateOutput(0, a.dtype(), { a.dim(0), b.dim(0) });
        dispatch<TypeList<float, double>>(a.dtype(), ctx.node(), [&]<class T>() {
            const T* pa = a.data<T>().data();
            const T* pb = b.data<T>().data();
            T* po = out.data<T>().data();
            const int64_t n = a.dim(0), m = b.dim(0), k = a.dim(1);
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = 0; j < m; ++j)
                    po[i * m + j] = static_cast<T>(distance(pa + i * k, pb + j * k, k));
        });
    }

private:
    template <class T> double distance(const T* u, const T* v, int64_t k) const
    {
        double acc = 0;
        switch (m_metric) {
        case Metric::SqEuclidean:
        case Metric::Euclidean:
            for (int64_t i = 0; i < k; ++i) {
                const double d = static_cast<double>(u[i]) - static_cast<double>(v[i]);
                acc += d * d;
            }
            return m_metric == Metric::Euclidean ? std::sqrt(acc) : acc;
        case Metric::Minkowski:
            for (int64_t i = 0; i < k; ++i)
                acc += std::pow(std::abs(static_cast<double>(u[i]) - static_cast<double>(v[i])), m_p);
            return std::pow(acc, 1.0 / m_p);
        case Metric::Cityblock:
            for (int64_t i = 0; i < k; ++i)
                acc += std::abs(static_cast<double>(u[i]) - static_cast<double>(v[i]));
            return acc;
        case Metric::Chebyshev:
            for (int64_t i = 0; i < k; ++i)
                acc = std::max(acc, std::abs(static_cast<double>(u[i]) - static_cast<double>(v[i])));
            return acc;
        case Metric::Cosine: {
            double uu = 0, vv = 0;
            for (int64_t i = 0; i < k; ++i) {
                acc += static_cast<double>(u[i]) * static_cast<double>(v[i]);
                uu += static_cast<double>(u[i]) * static_cast<double>(u[i]);
                vv += static_cast<double>(v[i]) * static_cast<double>(v[i]);
            }
            if (uu == 0 || vv == 0)
                return std::numeric_limits<double>::quiet_NaN();
            return std::clamp(1.0 - acc / std::sqrt(uu * vv), 0.0, 2.0);
        }
        }
        return acc;
    }

    Metric m_metric = Metric::SqEuclidean;
    double m_p = 2.0;
};

} // namespace

void registerCDist(KernelRegistry& r)
{
    for (const char* domain : { "mlprodict", "com.microsoft" })
        r.add(domain, "CDist", 1, KernelRegistry::kLatest, makeFactory<CDist>());
}

} // namespace onnxscope
