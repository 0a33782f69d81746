// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace onnxscope {

namespace {

enum class GlobalKind { Max, Average, Lp };

/// GlobalMaxPool 1, GlobalAveragePool 1, GlobalLpPool 1 (p float) and 2 (p int): pools every [N, C] plane of an
/// input of rank >= 3 (rank 2 is accepted too) to one value; the output keeps the rank with spatial dims 1.
/// float, double, float16, bfloat16 (half types accumulate in float). GlobalMaxPool propagates NaN.
class GlobalPool final : public Kernel {
public:
    GlobalPool(const KernelInit& init, GlobalKind kind)
        : m_kind(kind)
    {
        if (kind == GlobalKind::Lp)
            m_p = init.opset() < 2 ? init.attributes().getFloat("p", 2.0f)
                                   : static_cast<double>(init.attributes().getInt("p", 2));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() < 2)
            throw ctx.error("X must be [N, C, spatial...], got " + shapeToString(x.shape()));
        Shape outShape(x.shape().size(), 1);
        outShape[0] = x.dim(0);
        outShape[1] = x.dim(1);
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), outShape);
        const int64_t planes = x.dim(0) * x.dim(1);
        const int64_t size = planes == 0 ? 0 : x.size() / planes;
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            const T* in = x.data<T>().data();
            T* out = y.data<T>().data();
            switch (m_kind) {
            case GlobalKind::Max:
                pool<GlobalKind::Max>(in, out, planes, size);
                break;
            case GlobalKind::Average:
                pool<GlobalKind::Average>(in, out, planes, size);
                break;
            case GlobalKind::Lp:
                pool<GlobalKind::Lp>(in, out, planes, size);
                break;
            }
        });
    }

private:
    /// Pools planes in groups: each plane is still reduced in order from its first element (the result of one plane
    /// at a time), but the group's sums are independent, so that they overlap instead of waiting on each other.
    template <GlobalKind K, class T> void pool(const T* in, T* out, int64_t planes, int64_t size) const
    {
        using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
        constexpr int64_t kGroup = 8;
        for (int64_t p0 = 0; p0 < planes; p0 += kGroup) {
            const int64_t n = std::min(kGroup, planes - p0);
            const T* v = in + p0 * size;
            F acc[kGroup];
            std::fill(acc, acc + kGroup, K == GlobalKind::Max ? -std::numeric_limits<F>::infinity() : F(0));
            if (n == kGroup) {
                for (int64_t i = 0; i < size; ++i)
                    for (int64_t j = 0; j < kGroup; ++j)
                        acc[j] = accumulate<K>(acc[j], static_cast<F>(v[j * size + i]), m_p);
            } else {
                for (int64_t i = 0; i < size; ++i)
                    for (int64_t j = 0; j < n; ++j)
                        acc[j] = accumulate<K>(acc[j], static_cast<F>(v[j * size + i]), m_p);
            }
            for (int64_t j = 0; j < n; ++j) {
                F r = acc[j];
                if constexpr (K == GlobalKind::Average)
                    r /= static_cast<F>(size);
                else if constexpr (K == GlobalKind::Lp)
                    r = static_cast<F>(std::pow(static_cast<double>(r), 1.0 / m_p));
                out[p0 + j] = static_cast<T>(r);
            }
        }
    }

    template <GlobalKind K, class F> static F accumulate(F acc, F e, double p)
    {
        if constexpr (K == GlobalKind::Max)
            return (e > acc || std::isnan(e)) && !std::isnan(acc) ? e : acc;
        else if constexpr (K == GlobalKind::Average)
            return acc + e;
        else
            return acc + static_cast<F>(std::pow(std::abs(static_cast<double>(e)), p));
    }

    GlobalKind m_kind;
    double m_p = 2.0;
};

template <GlobalKind K> KernelFactory globalFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<GlobalPool>(init, K); };
}

} // namespace

void registerGlobalPool(KernelRegistry& r)
{
    r.add("", "GlobalMaxPool", 1, 22, globalFactory<GlobalKind::Max>());
    r.add("", "GlobalAveragePool", 1, 22, globalFactory<GlobalKind::Average>());
    r.add("", "GlobalLpPool", 1, 22, globalFactory<GlobalKind::Lp>());
}

} // namespace onnxscope
