// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/llm/moe_common.h"
#include "engine/kernels/simd/simd.h"

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

float activate(const Config& c, const float* h1, const float* h3, int64_t o, int64_t inter)
{
    const float v = h1[o];
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
        g = h1[2 * o];
        l = h1[2 * o + 1];
    } else if (c.fusion == 2) {
        g = h1[o];
        l = h1[inter + o];
    } else {
        g = h1[o];
        l = h3[o];
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
    std::vector<float> probs(static_cast<size_t>(E));
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
    // Per expert, its tokens as one matrix: H1 = X · W1ᵀ (+ H3 = X · W3ᵀ), A = act(H), O = A · W2ᵀ, y[t] += p · O.
    const simd::Ops& ops = simd::ops();
    std::vector<float> X, H1, H3, A, O;
    for (int64_t e = 0; e < E; ++e) {
        const auto& list = routed[static_cast<size_t>(e)];
        if (list.empty())
            continue;
        const Weights w = expert(e);
        const auto m = static_cast<int64_t>(list.size());
        X.resize(static_cast<size_t>(m * hidden));
        for (int64_t r = 0; r < m; ++r)
            std::copy_n(in + list[static_cast<size_t>(r)].first * hidden, hidden, X.data() + r * hidden);
        const auto project = [&](const float* W, const float* b, int64_t rows, int64_t depth, const float* src,
                                 std::vector<float>& dst) {
            dst.resize(static_cast<size_t>(m * rows));
            ops.gemm(m, rows, depth, src, depth, false, W, depth, true, dst.data(), rows, false);
            if (b)
                for (int64_t r = 0; r < m; ++r)
                    for (int64_t o = 0; o < rows; ++o)
                        dst[static_cast<size_t>(r * rows + o)] += b[o];
        };
        project(w.w1, w.b1, fc1Rows, hidden, X.data(), H1);
        if (w.w3)
            project(w.w3, w.b3, inter, hidden, X.data(), H3);
        A.resize(static_cast<size_t>(m * inter));
        for (int64_t r = 0; r < m; ++r)
            for (int64_t o = 0; o < inter; ++o)
                A[static_cast<size_t>(r * inter + o)]
                    = activate(cfg, H1.data() + r * fc1Rows, w.w3 ? H3.data() + r * inter : nullptr, o, inter);
        project(w.w2, w.b2, hidden, inter, A.data(), O);
        for (int64_t r = 0; r < m; ++r) {
            const auto [t, p] = list[static_cast<size_t>(r)];
            float* yt = y + t * hidden;
            for (int64_t o = 0; o < hidden; ++o)
                yt[o] += p * O[static_cast<size_t>(r * hidden + o)];
        }
    }
}

} // namespace onnxscope::moe
