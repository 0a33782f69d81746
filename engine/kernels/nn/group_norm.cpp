// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// GroupNormalization 18, 21 on X [N, C, ...]: the C channels fall into `num_groups` groups of C / num_groups
/// channels; each [n, group] block is normalized by its mean and (population) variance, x_hat = (x - mean) /
/// sqrt(var + epsilon), then y = scale * x_hat + bias. Opset 18: scale and bias hold one value per group; 21: one per
/// channel, and `stash_type` (1 float, 11 double) is the precision of x_hat before it is rounded to X's type.
/// float, double, float16, bfloat16; statistics accumulate in double.
class GroupNorm final : public Kernel {
public:
    explicit GroupNorm(const KernelInit& init)
        : m_perChannel(init.opset() >= 21)
    {
        const auto& a = init.attributes();
        m_groups = a.requireInt("num_groups");
        if (m_groups < 1)
            throw a.error("num_groups", "must be positive, got " + std::to_string(m_groups));
        m_epsilon = a.getFloat("epsilon", 1e-5f);
        if (m_perChannel) {
            const int64_t stash = a.getInt("stash_type", 1);
            if (stash != 1 && stash != 11)
                throw a.error("stash_type", "expected 1 (float) or 11 (double), got " + std::to_string(stash));
            m_stashDouble = stash == 11;
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& scale = ctx.input(1);
        const Tensor& bias = ctx.input(2);
        if (x.rank() < 2)
            throw ctx.error("input must be [N, C, ...], got " + x.typeString());
        const int64_t c = x.dim(1);
        if (c % m_groups)
            throw ctx.error(
                "C = " + std::to_string(c) + " is not a multiple of num_groups = " + std::to_string(m_groups));
        const int64_t params = m_perChannel ? c : m_groups;
        for (const Tensor* p : { &scale, &bias })
            if (p->rank() != 1 || p->dim(0) != params || p->dtype() != x.dtype())
                throw ctx.error("scale and bias must be [" + std::to_string(params) + "] of the input's type, got "
                    + p->typeString());
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        const int64_t n = x.dim(0), perGroup = c / m_groups;
        const int64_t spatial = n * c == 0 ? 0 : x.size() / (n * c);
        const int64_t block = perGroup * spatial;
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            using F = MathType<T>;
            auto in = x.data<T>();
            auto out = y.data<T>();
            auto s = scale.data<T>();
            auto b = bias.data<T>();
            for (int64_t ng = 0; ng < n * m_groups; ++ng) {
                const size_t base = static_cast<size_t>(ng * block);
                double sum = 0, sq = 0;
                for (size_t i = base; i < base + static_cast<size_t>(block); ++i)
                    sum += static_cast<double>(in[i]);
                const double mean = block ? sum / static_cast<double>(block) : 0.0;
                for (size_t i = base; i < base + static_cast<size_t>(block); ++i) {
                    const double d = static_cast<double>(in[i]) - mean;
                    sq += d * d;
                }
                const double inv = 1.0 / std::sqrt((block ? sq / static_cast<double>(block) : 0.0) + m_epsilon);
                const int64_t g = ng % m_groups;
                for (int64_t ch = 0; ch < perGroup; ++ch) {
                    const auto p = static_cast<size_t>(m_perChannel ? g * perGroup + ch : g);
                    const F fs = static_cast<F>(s[p]), fb = static_cast<F>(b[p]);
                    const size_t at = base + static_cast<size_t>(ch * spatial);
                    for (size_t i = at; i < at + static_cast<size_t>(spatial); ++i) {
                        const double xhat = (static_cast<double>(in[i]) - mean) * inv;
                        const T rounded
                            = m_stashDouble ? static_cast<T>(xhat) : static_cast<T>(static_cast<float>(xhat));
                        out[i] = static_cast<T>(fs * static_cast<F>(rounded) + fb);
                    }
                }
            }
        });
    }

private:
    bool m_perChannel;
    bool m_stashDouble = false;
    int64_t m_groups = 1;
    double m_epsilon = 1e-5;
};

} // namespace

void registerGroupNorm(KernelRegistry& r)
{
    r.add("", "GroupNormalization", 18, 21, makeFactory<GroupNorm>());
}

} // namespace onnxscope
