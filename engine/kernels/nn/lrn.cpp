// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>

namespace onnxscope {

namespace {

/// LRN 1, 13: y = x / (bias + alpha / size * sum of x^2 over channels [c - floor((size-1)/2),
/// c + ceil((size-1)/2)])^beta, for inputs [N, C, ...]. float, double, float16, bfloat16, computed in double.
class Lrn final : public Kernel {
public:
    explicit Lrn(const KernelInit& init)
    {
        const NodeAttributes& attrs = init.attributes();
        m_size = attrs.requireInt("size");
        if (m_size < 1)
            throw attrs.error("size", "must be positive, got " + std::to_string(m_size));
        m_alpha = attrs.getFloat("alpha", 1e-4f);
        m_beta = attrs.getFloat("beta", 0.75f);
        m_bias = attrs.getFloat("bias", 1.0f);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() < 2)
            throw ctx.error("X must be [N, C, ...], got " + shapeToString(x.shape()));
        Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
        const int64_t n = x.dim(0), c = x.dim(1), inner = n * c == 0 ? 0 : x.size() / (n * c);
        const int64_t before = (m_size - 1) / 2, after = m_size - 1 - before;
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto in = x.data<T>();
            auto out = y.data<T>();
            const auto at
                = [&](int64_t b, int64_t ch, int64_t i) { return static_cast<size_t>((b * c + ch) * inner + i); };
            for (int64_t b = 0; b < n; ++b)
                for (int64_t ch = 0; ch < c; ++ch) {
                    const int64_t lo = std::max<int64_t>(0, ch - before), hi = std::min(c - 1, ch + after);
                    for (int64_t i = 0; i < inner; ++i) {
                        double sq = 0;
                        for (int64_t k = lo; k <= hi; ++k) {
                            const double v = static_cast<double>(in[at(b, k, i)]);
                            sq += v * v;
                        }
                        const double denom = std::pow(m_bias + m_alpha / static_cast<double>(m_size) * sq, m_beta);
                        out[at(b, ch, i)] = static_cast<T>(static_cast<double>(in[at(b, ch, i)]) / denom);
                    }
                }
        });
    }

private:
    int64_t m_size = 1;
    double m_alpha = 1e-4, m_beta = 0.75, m_bias = 1.0;
};

} // namespace

void registerLrn(KernelRegistry& r)
{
    r.add("", "LRN", 1, 13, makeFactory<Lrn>());
}

} // namespace onnxscope
