// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

enum class Optimizer { Adagrad, Adam, Momentum, Nesterov };

/// Adagrad, Adam and Momentum 1 (domain ai.onnx.preview.training): one optimisation step for n tensors. Inputs
/// R (learning rate, float or double scalar), T (int64 step count), then n X, n G and the n state tensors per
/// state (Adagrad H; Adam V, H; Momentum V). Outputs the new X then the new states, in input order. Formulas as in
/// the operator specs (Momentum mode "standard" or "nesterov"); X, G and states float or double, all of one type;
/// computed in double.
class OptimizerStep final : public Kernel {
public:
    OptimizerStep(const KernelInit& init, Optimizer kind)
        : m_kind(kind)
    {
        const NodeAttributes& a = init.attributes();
        if (kind == Optimizer::Adagrad) {
            m_decay = a.getFloat("decay_factor", 0.0f);
            m_epsilon = a.getFloat("epsilon", 1e-6f);
            m_norm = a.getFloat("norm_coefficient", 0.0f);
        } else if (kind == Optimizer::Adam) {
            m_alpha = a.getFloat("alpha", 0.9f);
            m_beta = a.getFloat("beta", 0.999f);
            m_epsilon = a.getFloat("epsilon", 1e-6f);
            m_norm = a.getFloat("norm_coefficient", 0.0f);
            m_normPost = a.getFloat("norm_coefficient_post", 0.0f);
        } else {
            m_alpha = a.requireFloat("alpha");
            m_beta = a.requireFloat("beta");
            m_norm = a.requireFloat("norm_coefficient");
            const std::string mode = a.requireString("mode");
            if (mode == "nesterov")
                m_kind = Optimizer::Nesterov;
            else if (mode != "standard")
                throw a.error("mode", "expected standard or nesterov, got '" + mode + "'");
        }
        m_states = kind == Optimizer::Adam ? 2 : 1;
    }

    void compute(KernelContext& ctx) const override
    {
        const size_t groups = 2 + m_states;
        if (ctx.inputCount() < 2 || (ctx.inputCount() - 2) % groups != 0)
            throw ctx.error("expected R, T and " + std::to_string(groups) + " tensors per optimised input, got "
                + std::to_string(ctx.inputCount()) + " inputs");
        const size_t n = (ctx.inputCount() - 2) / groups;
        const Tensor& rt = ctx.input(0);
        const Tensor& tt = ctx.input(1);
        if (rt.size() != 1 || tt.size() != 1 || tt.dtype() != DataType::Int64)
            throw ctx.error(
                "R must be a float scalar and T an int64 scalar, got " + rt.typeString() + " and " + tt.typeString());
        double r = 0;
        dispatch<TypeList<float, double>>(rt.dtype(), ctx.node(), ": R", [&]<class T>() { r = rt.data<T>()[0]; });
        const double t = static_cast<double>(tt.data<int64_t>()[0]);
        for (size_t i = 0; i < n; ++i) {
            const Tensor& x = ctx.input(2 + i);
            std::vector<const Tensor*> ins { &x };
            for (size_t k = 1; k < groups; ++k) {
                ins.push_back(&ctx.input(2 + k * n + i));
                if (ins.back()->dtype() != x.dtype() || ins.back()->shape() != x.shape())
                    throw ctx.error("input " + std::to_string(2 + k * n + i) + " " + ins.back()->typeString()
                        + " must match X " + x.typeString());
            }
            std::vector<Tensor*> outs;
            std::vector<Tensor> unused(1 + m_states); // outputs the node does not declare
            for (size_t k = 0; k < 1 + m_states; ++k) {
                if (k * n + i < ctx.outputCount()) {
                    outs.push_back(&ctx.allocateOutput(k * n + i, x.dtype(), x.shape()));
                } else {
                    unused[k] = Tensor(x.dtype(), x.shape());
                    outs.push_back(&unused[k]);
                }
            }
            dispatch<TypeList<float, double>>(x.dtype(), ctx.node(), [&]<class T>() { step<T>(r, t, ins, outs); });
        }
    }

private:
    template <class T>
    void step(double r, double t, const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) const
    {
        auto x = in[0]->data<T>(), g = in[1]->data<T>(), s1 = in[2]->data<T>();
        auto xo = out[0]->data<T>(), s1o = out[1]->data<T>();
        for (size_t j = 0; j < x.size(); ++j) {
            const double xv = x[j], gr = m_norm * xv + static_cast<double>(g[j]), s = s1[j];
            switch (m_kind) {
            case Optimizer::Adagrad: {
                const double h = s + gr * gr;
                xo[j] = static_cast<T>(xv - r / (1 + t * m_decay) * gr / (std::sqrt(h) + m_epsilon));
                s1o[j] = static_cast<T>(h);
                break;
            }
            case Optimizer::Adam: {
                const double v = m_alpha * s + (1 - m_alpha) * gr;
                const double h = m_beta * static_cast<double>(in[3]->data<T>()[j]) + (1 - m_beta) * gr * gr;
                const double ra = t > 0 ? r * std::sqrt(1 - std::pow(m_beta, t)) / (1 - std::pow(m_alpha, t)) : r;
                xo[j] = static_cast<T>((1 - m_normPost) * (xv - ra * (v / (std::sqrt(h) + m_epsilon))));
                s1o[j] = static_cast<T>(v);
                out[2]->data<T>()[j] = static_cast<T>(h);
                break;
            }
            case Optimizer::Momentum:
            case Optimizer::Nesterov: {
                const double v = m_alpha * s + (t > 0 ? m_beta : 1.0) * gr;
                xo[j] = static_cast<T>(m_kind == Optimizer::Momentum ? xv - r * v : xv - r * (gr + m_alpha * v));
                s1o[j] = static_cast<T>(v);
                break;
            }
            }
        }
    }

    Optimizer m_kind;
    size_t m_states = 1;
    double m_alpha = 0, m_beta = 0, m_epsilon = 0, m_norm = 0, m_normPost = 0, m_decay = 0;
};

template <Optimizer O> KernelFactory optimizerFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<OptimizerStep>(init, O); };
}

} // namespace

void registerOptimizers(KernelRegistry& r)
{
    const std::string domain = "ai.onnx.preview.training";
    r.add(domain, "Adagrad", 1, 1, optimizerFactory<Optimizer::Adagrad>());
    r.add(domain, "Adam", 1, 1, optimizerFactory<Optimizer::Adam>());
    r.add(domain, "Momentum", 1, 1, optimizerFactory<Optimizer::Momentum>());
}

} // namespace onnxscope
