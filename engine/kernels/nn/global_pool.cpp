// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

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
        dispatch<FloatTypes>(x.dtype(), ctx.node().label(), [&]<class T>() {
            using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
            auto in = x.data<T>();
            auto out = y.data<T>();
            for (int64_t p = 0; p < planes; ++p) {
                const T* v = in.data() + p * size;
                F acc = m_kind == GlobalKind::Max ? -std::numeric_limits<F>::infinity() : F(0);
                for (int64_t i = 0; i < size; ++i) {
                    const F e = static_cast<F>(v[i]);
                    if (m_kind == GlobalKind::Max)
                        acc = (e > acc || std::isnan(e)) && !std::isnan(acc) ? e : acc;
                    else if (m_kind == GlobalKind::Average)
                        acc += e;
                    else
                        acc += static_cast<F>(std::pow(std::abs(static_cast<double>(e)), m_p));
                }
                if (m_kind == GlobalKind::Average)
                    acc /= static_cast<F>(size);
                else if (m_kind == GlobalKind::Lp)
                    acc = static_cast<F>(std::pow(static_cast<double>(acc), 1.0 / m_p));
                out[static_cast<size_t>(p)] = static_cast<T>(acc);
            }
        });
    }

private:
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
    r.add("", "GlobalMaxPool", 1, KernelRegistry::kLatest, globalFactory<GlobalKind::Max>());
    r.add("", "GlobalAveragePool", 1, KernelRegistry::kLatest, globalFactory<GlobalKind::Average>());
    r.add("", "GlobalLpPool", 1, KernelRegistry::kLatest, globalFactory<GlobalKind::Lp>());
}

} // namespace onnxscope
