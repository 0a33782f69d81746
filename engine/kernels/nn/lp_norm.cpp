// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// LpNormalization 1: x divided by its L1 (p=1) or L2 (p=2) norm along `axis` (default -1). A zero norm gives 0
/// rather than NaN, as onnxruntime does. float, double, float16, bfloat16; norms accumulate in double.
class LpNorm final : public Kernel {
public:
    explicit LpNorm(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", -1))
        , m_p(init.attributes().getInt("p", 2))
    {
        if (m_p != 1 && m_p != 2)
            throw init.attributes().error("p", "must be 1 or 2, got " + std::to_string(m_p));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        int64_t axis = 0;
        try {
            axis = normalizeAxis(m_axis, std::max<int64_t>(x.rank(), 1));
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
        const int64_t len = x.rank() == 0 ? 1 : x.dim(axis);
        int64_t inner = 1;
        for (int64_t i = axis + 1; i < x.rank(); ++i)
            inner *= x.dim(i);
        const int64_t outer = len * inner == 0 ? 0 : x.size() / (len * inner);
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto in = x.data<T>();
            auto out = y.data<T>();
            for (int64_t o = 0; o < outer; ++o)
                for (int64_t i = 0; i < inner; ++i) {
                    const int64_t base = o * len * inner + i;
                    double norm = 0;
                    for (int64_t k = 0; k < len; ++k) {
                        const double v = static_cast<double>(in[static_cast<size_t>(base + k * inner)]);
                        norm += m_p == 1 ? std::abs(v) : v * v;
                    }
                    if (m_p == 2)
                        norm = std::sqrt(norm);
                    for (int64_t k = 0; k < len; ++k) {
                        const auto idx = static_cast<size_t>(base + k * inner);
                        out[idx] = norm == 0 ? T(0) : static_cast<T>(static_cast<double>(in[idx]) / norm);
                    }
                }
        });
    }

private:
    int64_t m_axis;
    int64_t m_p;
};

} // namespace

void registerLpNorm(KernelRegistry& r)
{
    r.add("", "LpNormalization", 1, 22, makeFactory<LpNorm>());
}

} // namespace onnxscope
