// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/llm/moe_common.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

namespace onnxscope::moe {

Config::Config(const NodeAttributes& a)
{
    k = a.getInt("k", 1);
    normalize = a.getInt("normalize_routing_weights", 0) != 0;
    alpha = a.getFloat("activation_alpha", 1.0f);
    beta = a.getFloat("activation_beta", 0.0f);
    limit = a.getFloat("swiglu_limit", std::numeric_limits<float>::infinity());
    fusion = a.getInt("swiglu_fusion", 0);
    const std::string type = a.getString("activation_type", "relu");
    if (type == "relu")
        act = Activation::Relu;
    else if (type == "gelu")
        act = Activation::Gelu;
    else if (type == "silu")
        act = Activation::Silu;
    else if (type == "identity")
        act = Activation::Identity;
    else if (type == "swiglu")
        act = Activation::SwiGlu;
    else
        throw a.error("activation_type",
            "'" + type + "' is not supported: relu, gelu, silu, identity, swiglu"
                + (type == "relu2" || type == "geglu" ? " (onnxruntime implements it on CUDA only)" : ""));
    if (k < 1)
        throw a.error("k", "must be at least 1, got " + std::to_string(k));
    if (fusion < 0 || fusion > 2)
        throw a.error("swiglu_fusion", "must be 0, 1 or 2, got " + std::to_string(fusion));
    if (a.getInt("use_sparse_mixer", 0) != 0)
        throw a.error("use_sparse_mixer", "is not supported (only 0: softmax top-k routing)");
    if (a.getInt("swiglu_limit_after_activation", 0) != 0)
        throw a.error("swiglu_limit_after_activation",
            "is implemented by onnxruntime's CUDA provider only; only 0 "
            "is supported");
}

namespace {

float activate(const Config& c, const std::vector<float>& h1, const std::vector<float>& h3, int64_t o, int64_t inter)
{
    const float v = h1[static_cast<size_t>(o)];
    switch (c.act) {
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
    if (c.fusion == 1) {
        g = h1[static_cast<size_t>(2 * o)];
        l = h1[static_cast<size_t>(2 * o + 1)];
    } else if (c.fusion == 2) {
        g = h1[static_cast<size_t>(o)];
        l = h1[static_cast<size_t>(inter + o)];
    } else {
        g = h1[static_cast<size_t>(o)];
        l = h3[static_cast<size_t>(o)];
    }
    g = std::min(g, c.limit);
    l = std::clamp(l, -c.limit, c.limit);
    return g / (1.0f + std::exp(-c.alpha * g)) * (l + c.beta);
}

} // namespace

void run(const Config& cfg, int64_t tokens, int64_t hidden, int64_t inter, int64_t E, const float* in,
    const float* logits, const float* routerWeights, const std::function<Weights(int64_t)>& expert, float* y)
{
    const int64_t fc1Rows = cfg.swiglu() && cfg.fusion != 0 ? 2 * inter : inter;
    std::vector<float> probs(static_cast<size_t>(E)), h1(static_cast<size_t>(fc1Rows)), h3(static_cast<size_t>(inter)),
        act(static_cast<size_t>(inter));
    std::vector<std::pair<float, int64_t>> order(static_cast<size_t>(E));
    // The routing of every token first, then expert by expert (each expert's weights are asked for once).
    std::vector<std::vector<std::pair<int64_t, float>>> routed(static_cast<size_t>(E));
    const int64_t k = cfg.k;
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
        std::partial_sort(order.begin(), order.begin() + k, order.end(), std::greater<>());
        if (routerWeights)
            for (int64_t j = 0; j < k; ++j)
                order[static_cast<size_t>(j)].first = routerWeights[t * E + order[static_cast<size_t>(j)].second];
        float topSum = 0;
        for (int64_t j = 0; j < k; ++j)
            topSum += order[static_cast<size_t>(j)].first;
        for (int64_t j = 0; j < k; ++j) {
            const auto [q, e] = order[static_cast<size_t>(j)];
            const float p = cfg.normalize ? q / topSum : q;
            if (p != 0.0f)
                routed[static_cast<size_t>(e)].emplace_back(t, p);
        }
    }
    for (int64_t e = 0; e < E; ++e) {
        if (routed[static_cast<size_t>(e)].empty())
            continue;
        const Weights w = expert(e);
        for (const auto& [t, p] : routed[static_cast<size_t>(e)]) {
            const float* xt = in + t * hidden;
            for (int64_t o = 0; o < fc1Rows; ++o) {
                const float* row = w.w1 + o * hidden;
                float acc = w.b1 ? w.b1[o] : 0.0f;
                for (int64_t i = 0; i < hidden; ++i)
                    acc += row[i] * xt[i];
                h1[static_cast<size_t>(o)] = acc;
            }
            if (w.w3)
                for (int64_t o = 0; o < inter; ++o) {
                    const float* row = w.w3 + o * hidden;
                    float acc = w.b3 ? w.b3[o] : 0.0f;
                    for (int64_t i = 0; i < hidden; ++i)
                        acc += row[i] * xt[i];
                    h3[static_cast<size_t>(o)] = acc;
                }
            for (int64_t o = 0; o < inter; ++o)
                act[static_cast<size_t>(o)] = activate(cfg, h1, h3, o, inter);
            float* yt = y + t * hidden;
            for (int64_t o = 0; o < hidden; ++o) {
                const float* row = w.w2 + o * inter;
                float acc = w.b2 ? w.b2[o] : 0.0f;
                for (int64_t i = 0; i < inter; ++i)
                    acc += row[i] * act[static_cast<size_t>(i)];
                yt[o] += p * acc;
            }
        }
    }
}

} // namespace onnxscope::moe
