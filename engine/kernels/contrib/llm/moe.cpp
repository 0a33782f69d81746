// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace onnxscope {

namespace {

enum class Activation { Relu, Gelu, Silu, Identity, SwiGlu };

/// MoE (com.microsoft 1): for each token row x of input [T, hidden] or [B, S, hidden], the softmax of its
/// router_probs row (logits [tokens, E]) picks the k most probable experts (ties: the higher expert index first,
/// as onnxruntime), their probabilities renormalised to sum 1 with normalize_routing_weights; output = sum over
/// them of p · (fc2(act(fc1·x + b1)) + b2), weights [E, out, in]. activation_type relu, gelu (tanh form, as
/// onnxruntime's CPU kernel), silu, identity, swiglu: G·sigmoid(activation_alpha·G)·(L + activation_beta) with
/// G = min(g, swiglu_limit), L = clamp(l, ±swiglu_limit), g and l interleaved in FC1 (swiglu_fusion 1),
/// concatenated [g | l] (2) or FC1 and FC3 (0). float, float16, bfloat16 computed in float. Refused:
/// use_sparse_mixer, swiglu_limit_after_activation, relu2/geglu (CUDA only), FC3 without swiglu.
class MoE final : public Kernel {
public:
    explicit MoE(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_k = a.getInt("k", 1);
        m_normalize = a.getInt("normalize_routing_weights", 0) != 0;
        m_alpha = a.getFloat("activation_alpha", 1.0f);
        m_beta = a.getFloat("activation_beta", 0.0f);
        m_limit = a.getFloat("swiglu_limit", std::numeric_limits<float>::infinity());
        m_fusion = a.getInt("swiglu_fusion", 0);
        const std::string act = a.getString("activation_type", "relu");
        if (act == "relu")
            m_act = Activation::Relu;
        else if (act == "gelu")
            m_act = Activation::Gelu;
        else if (act == "silu")
            m_act = Activation::Silu;
        else if (act == "identity")
            m_act = Activation::Identity;
        else if (act == "swiglu")
            m_act = Activation::SwiGlu;
        else
            throw a.error("activation_type",
                "'" + act + "' is not supported: relu, gelu, silu, identity, swiglu"
                    + (act == "relu2" || act == "geglu" ? " (onnxruntime implements it on CUDA only)" : ""));
        if (m_k < 1)
            throw a.error("k", "must be at least 1, got " + std::to_string(m_k));
        if (m_fusion < 0 || m_fusion > 2)
            throw a.error("swiglu_fusion", "must be 0, 1 or 2, got " + std::to_string(m_fusion));
        if (a.getInt("use_sparse_mixer", 0) != 0)
            throw a.error("use_sparse_mixer", "is not supported (only 0: softmax top-k routing)");
        if (a.getInt("swiglu_limit_after_activation", 0) != 0)
            throw a.error("swiglu_limit_after_activation",
                "is implemented by onnxruntime's CUDA provider only; only 0 "
                "is supported");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& router = ctx.input(1);
        const Tensor& w1 = ctx.input(2);
        const Tensor& w2 = ctx.input(4);
        contrib::requireSameType(ctx, x.dtype(), { 1, 2, 3, 4, 5, 6, 7 });
        if (x.rank() != 2 && x.rank() != 3)
            throw ctx.error("input must be [tokens, hidden] or [B, S, hidden], got " + shapeToString(x.shape()));
        const int64_t hidden = x.dim(x.rank() - 1), tokens = hidden ? static_cast<int64_t>(x.size()) / hidden : 0;
        if (router.rank() != 2 || router.dim(0) != tokens)
            throw ctx.error("router_probs must be [tokens, num_experts] with tokens = " + std::to_string(tokens)
                + ", got " + shapeToString(router.shape()));
        const int64_t E = router.dim(1);
        if (m_k > E)
            throw ctx.error("k " + std::to_string(m_k) + " exceeds the " + std::to_string(E) + " experts");
        const bool swiglu = m_act == Activation::SwiGlu;
        const bool fc3 = ctx.hasInput(6);
        if (ctx.hasInput(7) && !fc3)
            throw ctx.error("fc3_experts_bias needs fc3_experts_weights");
        if (fc3 && !(swiglu && m_fusion == 0))
            throw ctx.error("fc3_experts_weights is supported with activation_type swiglu and swiglu_fusion 0 (FC1 the "
                            "gate, FC3 the linear part) only");
        if (swiglu && m_fusion == 0 && !fc3)
            throw ctx.error("swiglu with swiglu_fusion 0 needs fc3_experts_weights (the linear part)");
        if (w2.rank() != 3 || w2.dim(0) != E || w2.dim(1) != hidden)
            throw ctx.error("fc2_experts_weights must be [num_experts, hidden, inter] with num_experts = "
                + std::to_string(E) + ", hidden = " + std::to_string(hidden) + ", got " + shapeToString(w2.shape()));
        const int64_t inter = w2.dim(2);
        const int64_t fc1Rows = swiglu && m_fusion != 0 ? 2 * inter : inter;
        if (w1.shape() != Shape { E, fc1Rows, hidden })
            throw ctx.error("fc1_experts_weights must be " + shapeToString(Shape { E, fc1Rows, hidden }) + ", got "
                + shapeToString(w1.shape()));
        const Shape b1Shape { E, fc1Rows }, b2Shape { E, hidden }, w3Shape { E, inter, hidden }, b3Shape { E, inter };
        if (fc3 && ctx.input(6).shape() != w3Shape)
            throw ctx.error("fc3_experts_weights must be " + shapeToString(w3Shape) + ", got "
                + shapeToString(ctx.input(6).shape()));
        std::vector<float> xb, rb, w1b, b1b, w2b, b2b, w3b, b3b;
        const float* in = contrib::floats(ctx, x, xb, "input");
        const float* logits = contrib::floats(ctx, router, rb, "router_probs");
        const float* W1 = contrib::floats(ctx, w1, w1b, "fc1_experts_weights");
        const float* B1 = contrib::optionalFloats(ctx, 3, b1b, "fc1_experts_bias", &b1Shape);
        const float* W2 = contrib::floats(ctx, w2, w2b, "fc2_experts_weights");
        const float* B2 = contrib::optionalFloats(ctx, 5, b2b, "fc2_experts_bias", &b2Shape);
        const float* W3 = fc3 ? contrib::floats(ctx, ctx.input(6), w3b, "fc3_experts_weights") : nullptr;
        const float* B3 = contrib::optionalFloats(ctx, 7, b3b, "fc3_experts_bias", &b3Shape);

        std::vector<float> y(x.size(), 0.0f), probs(static_cast<size_t>(E)), h1(static_cast<size_t>(fc1Rows)),
            h3(static_cast<size_t>(inter)), act(static_cast<size_t>(inter));
        std::vector<std::pair<float, int64_t>> order(static_cast<size_t>(E));
        for (int64_t t = 0; t < tokens; ++t) {
            const float* lg = logits + t * E;
            const float mx = *std::max_element(lg, lg + E);
            double sum = 0;
            for (int64_t e = 0; e < E; ++e) {
                probs[static_cast<size_t>(e)] = std::exp(lg[e] - mx);
                sum += probs[static_cast<size_t>(e)];
            }
            for (int64_t e = 0; e < E; ++e)
                order[static_cast<size_t>(e)] = { static_cast<float>(probs[static_cast<size_t>(e)] / sum), e };
            std::partial_sort(order.begin(), order.begin() + m_k, order.end(), std::greater<>());
            float topSum = 0;
            for (int64_t j = 0; j < m_k; ++j)
                topSum += order[static_cast<size_t>(j)].first;
            const float* xt = in + t * hidden;
            for (int64_t j = 0; j < m_k; ++j) {
                const int64_t e = order[static_cast<size_t>(j)].second;
                const float p
                    = m_normalize ? order[static_cast<size_t>(j)].first / topSum : order[static_cast<size_t>(j)].first;
                if (p == 0.0f)
                    continue;
                for (int64_t o = 0; o < fc1Rows; ++o) {
                    const float* row = W1 + (e * fc1Rows + o) * hidden;
                    float acc = B1 ? B1[e * fc1Rows + o] : 0.0f;
                    for (int64_t i = 0; i < hidden; ++i)
                        acc += row[i] * xt[i];
                    h1[static_cast<size_t>(o)] = acc;
                }
                if (fc3)
                    for (int64_t o = 0; o < inter; ++o) {
                        const float* row = W3 + (e * inter + o) * hidden;
                        float acc = B3 ? B3[e * inter + o] : 0.0f;
                        for (int64_t i = 0; i < hidden; ++i)
                            acc += row[i] * xt[i];
                        h3[static_cast<size_t>(o)] = acc;
                    }
                for (int64_t o = 0; o < inter; ++o)
                    act[static_cast<size_t>(o)] = activate(h1, h3, o, inter);
                float* yt = y.data() + t * hidden;
                for (int64_t o = 0; o < hidden; ++o) {
                    const float* row = W2 + (e * hidden + o) * inter;
                    float acc = B2 ? B2[e * hidden + o] : 0.0f;
                    for (int64_t i = 0; i < inter; ++i)
                        acc += row[i] * act[static_cast<size_t>(i)];
                    yt[o] += p * acc;
                }
            }
        }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
    }

private:
    float activate(const std::vector<float>& h1, const std::vector<float>& h3, int64_t o, int64_t inter) const
    {
        const float v = h1[static_cast<size_t>(o)];
        switch (m_act) {
        case Activation::Relu:
            return std::max(0.0f, v);
        case Activation::Gelu:
            return 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
        case Activation::Silu:
            return v / (1.0f + std::exp(-v));
        case Activation::Identity:
            return v;
        case Activation::SwiGlu:
            break;
        }
        float g = 0, l = 0;
        if (m_fusion == 1) {
            g = h1[static_cast<size_t>(2 * o)];
            l = h1[static_cast<size_t>(2 * o + 1)];
        } else if (m_fusion == 2) {
            g = h1[static_cast<size_t>(o)];
            l = h1[static_cast<size_t>(inter + o)];
        } else {
            g = h1[static_cast<size_t>(o)];
            l = h3[static_cast<size_t>(o)];
        }
        g = std::min(g, m_limit);
        l = std::clamp(l, -m_limit, m_limit);
        return g / (1.0f + std::exp(-m_alpha * g)) * (l + m_beta);
    }

    int64_t m_k = 1, m_fusion = 0;
    bool m_normalize = false;
    float m_alpha = 1.0f, m_beta = 0.0f, m_limit = 0;
    Activation m_act = Activation::Relu;
};

} // namespace

void registerLlmMoE(KernelRegistry& r)
{
    r.add("com.microsoft", "MoE", 1, KernelRegistry::kLatest, makeFactory<MoE>());
}

} // namespace onnxscope
