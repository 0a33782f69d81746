// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/contrib/llm/moe_common.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace onnxscope {

namespace {

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
        : m_cfg(init.attributes())
    {
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
        if (m_cfg.k > E)
            throw ctx.error("k " + std::to_string(m_cfg.k) + " exceeds the " + std::to_string(E) + " experts");
        const bool swiglu = m_cfg.swiglu();
        const bool fc3 = ctx.hasInput(6);
        if (ctx.hasInput(7) && !fc3)
            throw ctx.error("fc3_experts_bias needs fc3_experts_weights");
        if (fc3 && !(swiglu && m_cfg.fusion == 0))
            throw ctx.error("fc3_experts_weights is supported with activation_type swiglu and swiglu_fusion 0 (FC1 the "
                            "gate, FC3 the linear part) only");
        if (swiglu && m_cfg.fusion == 0 && !fc3)
            throw ctx.error("swiglu with swiglu_fusion 0 needs fc3_experts_weights (the linear part)");
        if (w2.rank() != 3 || w2.dim(0) != E || w2.dim(1) != hidden)
            throw ctx.error("fc2_experts_weights must be [num_experts, hidden, inter] with num_experts = "
                + std::to_string(E) + ", hidden = " + std::to_string(hidden) + ", got " + shapeToString(w2.shape()));
        const int64_t inter = w2.dim(2);
        const int64_t fc1Rows = swiglu && m_cfg.fusion != 0 ? 2 * inter : inter;
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

        std::vector<float> y(x.size(), 0.0f);
        moe::run(
            m_cfg, tokens, hidden, inter, E, in, logits, nullptr,
            [&](int64_t e) {
                const auto at = [e](const float* p, int64_t n) { return p ? p + e * n : nullptr; };
                return moe::Weights { at(W1, fc1Rows * hidden), at(B1, fc1Rows), at(W2, hidden * inter), at(B2, hidden),
                    at(W3, inter * hidden), at(B3, inter) };
            },
            y.data());
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
    }

private:
    moe::Config m_cfg;
};

} // namespace

void registerLlmMoE(KernelRegistry& r)
{
    r.add("com.microsoft", "MoE", 1, KernelRegistry::kLatest, makeFactory<MoE>());
}

} // namespace onnxscope
