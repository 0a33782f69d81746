// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

namespace onnxscope {

namespace {

enum class Reduction { None, Sum, Mean };

/// NegativeLogLikelihoodLoss 12, 13 and SoftmaxCrossEntropyLoss 12, 13. Input [N, C, d1, ...] (float, double,
/// float16, bfloat16; computed in double), target/labels [N, d1, ...] int32 or int64, optional weight [C].
/// loss = -input[n, target, d] * weight[target], 0 where target == ignore_index; reduction none, sum, or mean
/// (divided by the sum of the applied weights, or the count of non-ignored elements without weights; NaN when
/// everything is ignored, as in ONNX's reference). SoftmaxCrossEntropyLoss applies log-softmax over axis 1 first
/// and can output it (log_prob). A target outside [0, C) that is not ignore_index is an error.
class Loss final : public Kernel {
public:
    Loss(const KernelInit& init, bool softmax)
        : m_softmax(softmax)
    {
        const NodeAttributes& attrs = init.attributes();
        const std::string reduction = attrs.getString("reduction", "mean");
        if (reduction == "none")
            m_reduction = Reduction::None;
        else if (reduction == "sum")
            m_reduction = Reduction::Sum;
        else if (reduction == "mean")
            m_reduction = Reduction::Mean;
        else
            throw attrs.error("reduction", "expected none, sum or mean, got '" + reduction + "'");
        if (attrs.has("ignore_index"))
            m_ignore = attrs.getInt("ignore_index", 0);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& target = ctx.input(1);
        const Tensor* weight = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
        if (x.rank() < 2 || target.rank() != x.rank() - 1 || target.dim(0) != x.dim(0)
            || !std::equal(target.shape().begin() + 1, target.shape().end(), x.shape().begin() + 2))
            throw ctx.error("input " + shapeToString(x.shape()) + " and target " + shapeToString(target.shape())
                + " do not match (expected [N, C, d...] and [N, d...])");
        const int64_t n = x.dim(0), c = x.dim(1), d = c == 0 || n == 0 ? 0 : x.size() / n / c;
        if (weight && (weight->rank() != 1 || weight->dim(0) != c || weight->dtype() != x.dtype()))
            throw ctx.error(
                "weight " + weight->typeString() + " must be [" + std::to_string(c) + "] of the input's type");
        if (target.dtype() != DataType::Int64 && target.dtype() != DataType::Int32)
            throw ctx.error("target must be int32 or int64, got " + target.typeString());
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            std::vector<double> in(static_cast<size_t>(x.size()));
            auto xd = x.data<T>();
            for (size_t i = 0; i < in.size(); ++i)
                in[i] = static_cast<double>(xd[i]);
            if (m_softmax) {
                logSoftmax(in, n, c, d);
                if (ctx.hasOutput(1)) {
                    auto lp = ctx.allocateOutput(1, x.dtype(), x.shape()).template data<T>();
                    for (size_t i = 0; i < in.size(); ++i)
                        lp[i] = static_cast<T>(in[i]);
                }
            }
            std::vector<double> w;
            if (weight)
                for (T v : weight->data<T>())
                    w.push_back(static_cast<double>(v));
            std::vector<double> loss(static_cast<size_t>(n * d));
            double weightSum = 0;
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = 0; j < d; ++j) {
                    const auto k = static_cast<size_t>(i * d + j);
                    const int64_t t
                        = target.dtype() == DataType::Int64 ? target.data<int64_t>()[k] : target.data<int32_t>()[k];
                    if (m_ignore && t == *m_ignore)
                        continue;
                    if (t < 0 || t >= c)
                        throw ctx.error("target " + std::to_string(t) + " at position " + std::to_string(k)
                            + " is outside [0, " + std::to_string(c) + ")");
                    const double wt = weight ? w[static_cast<size_t>(t)] : 1.0;
                    loss[k] = -in[static_cast<size_t>((i * c + t) * d + j)] * wt;
                    weightSum += wt;
                }
            if (m_reduction == Reduction::None) {
                auto out = ctx.allocateOutput(0, x.dtype(), target.shape()).template data<T>();
                for (size_t i = 0; i < loss.size(); ++i)
                    out[i] = static_cast<T>(loss[i]);
                return;
            }
            double total = 0;
            for (double v : loss)
                total += v;
            if (m_reduction == Reduction::Mean)
                total = (weight || m_ignore) ? total / weightSum : total / static_cast<double>(loss.size());
            ctx.allocateOutput(0, x.dtype(), {}).template data<T>()[0] = static_cast<T>(total);
        });
    }

private:
    static void logSoftmax(std::vector<double>& v, int64_t n, int64_t c, int64_t d)
    {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < d; ++j) {
                double mx = -std::numeric_limits<double>::infinity(), sum = 0;
                for (int64_t k = 0; k < c; ++k)
                    mx = std::max(mx, v[static_cast<size_t>((i * c + k) * d + j)]);
                for (int64_t k = 0; k < c; ++k)
                    sum += std::exp(v[static_cast<size_t>((i * c + k) * d + j)] - mx);
                const double lse = mx + std::log(sum);
                for (int64_t k = 0; k < c; ++k)
                    v[static_cast<size_t>((i * c + k) * d + j)] -= lse;
            }
    }

    bool m_softmax;
    Reduction m_reduction = Reduction::Mean;
    std::optional<int64_t> m_ignore;
};

template <bool Softmax> KernelFactory lossFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Loss>(init, Softmax); };
}

} // namespace

void registerLosses(KernelRegistry& r)
{
    r.add("", "NegativeLogLikelihoodLoss", 12, 22, lossFactory<false>());
    r.add("", "SoftmaxCrossEntropyLoss", 12, 13, lossFactory<true>());
}

} // namespace onnxscope
