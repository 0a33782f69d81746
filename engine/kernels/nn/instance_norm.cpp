// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <type_traits>

namespace onnxscope {

namespace {

/// InstanceNormalization 1, 6: y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c], mean and (population)
/// variance over the spatial axes of each [n, c] plane. float, double, float16, bfloat16; statistics accumulate in
/// double. The opset-1 `consumed_inputs` hint is ignored.
class InstanceNorm final : public Kernel {
public:
    explicit InstanceNorm(const KernelInit& init)
        : m_epsilon(init.attributes().getFloat("epsilon", 1e-5f))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& scale = ctx.input(1);
        const Tensor& bias = ctx.input(2);
        if (x.rank() < 2)
            throw ctx.error("input must be [N, C, ...], got " + shapeToString(x.shape()));
        const int64_t c = x.dim(1);
        for (const Tensor* p : { &scale, &bias })
            if (p->rank() != 1 || p->dim(0) != c || p->dtype() != x.dtype())
                throw ctx.error(
                    "scale and B must be [" + std::to_string(c) + "] of the input's type, got " + p->typeString());
        Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
        const int64_t planes = x.dim(0) * c;
        const int64_t size = planes == 0 ? 0 : x.size() / planes;
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
            auto in = x.data<T>();
            auto out = y.data<T>();
            auto s = scale.data<T>();
            auto b = bias.data<T>();
            for (int64_t p = 0; p < planes; ++p) {
                const size_t base = static_cast<size_t>(p * size);
                double sum = 0, sq = 0;
                for (size_t i = base; i < base + static_cast<size_t>(size); ++i)
                    sum += static_cast<double>(in[i]);
                const double mean = sum / static_cast<double>(size);
                for (size_t i = base; i < base + static_cast<size_t>(size); ++i) {
                    const double d = static_cast<double>(in[i]) - mean;
                    sq += d * d;
                }
                const auto ch = static_cast<size_t>(p % c);
                const double a = static_cast<double>(s[ch]) / std::sqrt(sq / static_cast<double>(size) + m_epsilon);
                const F fa = static_cast<F>(a), fb = static_cast<F>(static_cast<double>(b[ch]) - mean * a);
                for (size_t i = base; i < base + static_cast<size_t>(size); ++i)
                    out[i] = static_cast<T>(static_cast<F>(in[i]) * fa + fb);
            }
        });
    }

private:
    double m_epsilon;
};

} // namespace

void registerInstanceNorm(KernelRegistry& r)
{
    r.add("", "InstanceNormalization", 1, 22, makeFactory<InstanceNorm>());
}

} // namespace onnxscope
