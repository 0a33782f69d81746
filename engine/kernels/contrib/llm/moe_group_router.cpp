// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// MoEGroupRouter (com.microsoft 1), the group-limited sigmoid router of DeepSeek-V3: s = sigmoid(logits) per
/// token row of logits [..., E], b = s + expert_bias; the n_group groups of E / n_group experts are ranked by the
/// sum of their group_topk largest b (clamped to the group size), the topk_group best kept, and the top_k experts
/// of those by b selected (ties: the lower index). router_probs [tokens, E] holds log(max(s, 1e-20)) at the
/// selected experts and router_sentinel elsewhere. Or the full-score outputs (n_group = topk_group = 1, without
/// router_probs): selection_scores = b and router_weights = s, float; then projection_weight [E, width] may turn
/// logits [tokens, width] (width a multiple of 256) into the logits first, accumulated in float. logits float,
/// float16, bfloat16; computed in float.
class MoEGroupRouter final : public Kernel {
public:
    explicit MoEGroupRouter(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_topK = a.requireInt("top_k");
        m_groups = a.getInt("n_group", 1);
        m_topkGroup = a.getInt("topk_group", 1);
        m_groupTopk = a.getInt("group_topk", 2);
        m_sentinel = a.getFloat("router_sentinel", -10000.0f);
        for (const auto& [name, v] : { std::pair<const char*, int64_t> { "top_k", m_topK }, { "n_group", m_groups },
                 { "topk_group", m_topkGroup }, { "group_topk", m_groupTopk } })
            if (v <= 0)
                throw a.error(name, "must be positive, got " + std::to_string(v));
        if (m_topkGroup > m_groups)
            throw a.error("topk_group", std::to_string(m_topkGroup) + " exceeds n_group " + std::to_string(m_groups));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& logits = ctx.input(0);
        const Tensor& biasT = ctx.input(1);
        const bool full = ctx.hasOutput(1) || ctx.hasOutput(2);
        if (full && (!ctx.hasOutput(1) || !ctx.hasOutput(2) || ctx.hasOutput(0)))
            throw ctx.error("selection_scores and router_weights come together, without router_probs");
        if (!full && !ctx.hasOutput(0))
            throw ctx.error("no output requested: router_probs, or selection_scores with router_weights");
        if (full && (m_groups != 1 || m_topkGroup != 1))
            throw ctx.error("the full-score outputs need n_group = topk_group = 1");
        const bool project = ctx.hasInput(2);
        if (project && !full)
            throw ctx.error("projection_weight needs the full-score outputs (selection_scores, router_weights)");
        if (logits.rank() < 1)
            throw ctx.error("logits must be [..., num_experts], got a scalar");
        if (biasT.dtype() != DataType::Float || biasT.rank() != 1)
            throw ctx.error("expert_bias must be float [num_experts], got " + biasT.typeString() + " "
                + shapeToString(biasT.shape()));
        const int64_t E = biasT.dim(0);
        std::vector<float> lb, wb;
        const float* in = contrib::floats(ctx, logits, lb, "logits");
        int64_t tokens = 0;
        std::vector<float> projected;
        if (project) {
            const Tensor& w = ctx.input(2);
            contrib::requireSameType(ctx, logits.dtype(), { 2 });
            const int64_t width = logits.rank() == 2 ? logits.dim(1) : 0;
            if (logits.rank() != 2 || width <= 0 || width % 256 || w.shape() != Shape { E, width })
                throw ctx.error("with projection_weight, logits must be [tokens, width] (width a positive multiple of "
                                "256) and projection_weight [num_experts, width], got "
                    + shapeToString(logits.shape()) + " and " + shapeToString(w.shape()));
            tokens = logits.dim(0);
            const float* wv = contrib::floats(ctx, w, wb, "projection_weight");
            projected.resize(static_cast<size_t>(tokens * E));
            for (int64_t t = 0; t < tokens; ++t)
                for (int64_t e = 0; e < E; ++e) {
                    float acc = 0;
                    for (int64_t i = 0; i < width; ++i)
                        acc += in[t * width + i] * wv[e * width + i];
                    projected[static_cast<size_t>(t * E + e)] = acc;
                }
            in = projected.data();
        } else {
            if (logits.dim(logits.rank() - 1) != E)
                throw ctx.error("logits' last dimension must be num_experts " + std::to_string(E)
                    + " (expert_bias), got " + shapeToString(logits.shape()));
            tokens = E ? static_cast<int64_t>(logits.size()) / E : 0;
        }
        if (E % m_groups)
            throw ctx.error(
                std::to_string(E) + " experts do not split into n_group " + std::to_string(m_groups) + " groups");
        if (!full && m_topK > E / m_groups * m_topkGroup)
            throw ctx.error("top_k " + std::to_string(m_topK) + " exceeds the "
                + std::to_string(E / m_groups * m_topkGroup) + " experts of the topk_group selected groups");
        const float* bias = biasT.data<float>().data();
        const int64_t size = E / m_groups, perGroup = std::min(m_groupTopk, size);
        std::vector<float> s(static_cast<size_t>(E)), b(static_cast<size_t>(E));
        std::vector<float> probs(full ? 0 : static_cast<size_t>(tokens * E)),
            sel(full ? static_cast<size_t>(tokens * E) : 0), weights(full ? static_cast<size_t>(tokens * E) : 0);
        std::vector<int64_t> groupOrder(static_cast<size_t>(m_groups)), expertOrder;
        std::vector<float> groupScore(static_cast<size_t>(m_groups)), top(static_cast<size_t>(size));
        for (int64_t t = 0; t < tokens; ++t) {
            for (int64_t e = 0; e < E; ++e) {
                s[static_cast<size_t>(e)] = 1.0f / (1.0f + std::exp(-in[t * E + e]));
                b[static_cast<size_t>(e)] = s[static_cast<size_t>(e)] + bias[e];
            }
            if (full) {
                std::copy(b.begin(), b.end(), sel.begin() + t * E);
                std::copy(s.begin(), s.end(), weights.begin() + t * E);
                continue;
            }
            for (int64_t g = 0; g < m_groups; ++g) {
                std::copy(b.begin() + g * size, b.begin() + (g + 1) * size, top.begin());
                std::partial_sort(top.begin(), top.begin() + perGroup, top.end(), std::greater<>());
                groupScore[static_cast<size_t>(g)] = std::accumulate(top.begin(), top.begin() + perGroup, 0.0f);
            }
            std::iota(groupOrder.begin(), groupOrder.end(), 0);
            std::stable_sort(groupOrder.begin(), groupOrder.end(), [&](int64_t x, int64_t y) {
                return groupScore[static_cast<size_t>(x)] > groupScore[static_cast<size_t>(y)];
            });
            expertOrder.clear();
            for (int64_t i = 0; i < m_topkGroup; ++i)
                for (int64_t e = 0; e < size; ++e)
                    expertOrder.push_back(groupOrder[static_cast<size_t>(i)] * size + e);
            std::sort(expertOrder.begin(), expertOrder.end());
            std::stable_sort(expertOrder.begin(), expertOrder.end(),
                [&](int64_t x, int64_t y) { return b[static_cast<size_t>(x)] > b[static_cast<size_t>(y)]; });
            float* row = probs.data() + t * E;
            std::fill(row, row + E, m_sentinel);
            for (int64_t i = 0; i < m_topK; ++i) {
                const int64_t e = expertOrder[static_cast<size_t>(i)];
                row[e] = std::log(std::max(s[static_cast<size_t>(e)], 1e-20f));
            }
        }
        if (full) {
            contrib::storeOutput(ctx, 1, DataType::Float, { tokens, E }, sel.data());
            contrib::storeOutput(ctx, 2, DataType::Float, { tokens, E }, weights.data());
        } else {
            contrib::storeOutput(ctx, 0, logits.dtype(), { tokens, E }, probs.data());
        }
    }

private:
    int64_t m_topK = 1, m_groups = 1, m_topkGroup = 1, m_groupTopk = 2;
    float m_sentinel = -10000.0f;
};

} // namespace

void registerLlmMoEGroupRouter(KernelRegistry& r)
{
    r.add("com.microsoft", "MoEGroupRouter", 1, KernelRegistry::kLatest, makeFactory<MoEGroupRouter>());
}

} // namespace onnxscope
