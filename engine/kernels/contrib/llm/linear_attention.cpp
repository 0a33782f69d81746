// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// LinearAttention (com.microsoft 1): the recurrence of linear attention run token by token over query
/// [B, T, Hq*dk], key [B, T, Hkv*dk], value [B, T, Hkv*dv], with per-KV-head state S [dk, dv] (past_state
/// [B, Hkv, dk, dv], zeros when absent): update_rule linear S += k⊗v; gated S = exp(g)·S + k⊗v; delta
/// S += β·k⊗(v − Sᵀk); gated_delta S = exp(g)·S, then S += β·k⊗(v − Sᵀk); then o = scale·qᵀS. decay g is
/// [B, T, Hkv] (one per head) or [B, T, Hkv*dk] (per key dimension, scaling S's rows); beta [B, T, Hkv] or
/// [B, T, 1]. Query heads share KV heads (GQA), or, with more KV heads than query heads, each KV head reads its
/// query head and gives one output (inverse GQA): output [B, T, max(Hq, Hkv)*dv]. A key of fewer heads Hk than
/// kv_num_heads (dk from the query; onnxruntime-genai's Qwen3.5, with num_k_heads < num_v_heads) is shared as the
/// query is: KV head h reads key head h / (Hkv / Hk), as onnxruntime does. state_window W keeps the states
/// after each of the last W tokens in a leading axis (zeros before the first token; past_state's slot W-1 is read).
/// scale 0 means 1/sqrt(dk). chunk_size is a tuning hint without effect here. float, float16, bfloat16 in float.
class LinearAttention final : public Kernel {
public:
    explicit LinearAttention(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_qHeads = a.requireInt("q_num_heads");
        m_kvHeads = a.requireInt("kv_num_heads");
        m_scale = a.getFloat("scale", 0.0f);
        m_window = a.getInt("state_window", 0);
        const std::string rule = a.getString("update_rule", "gated_delta");
        if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
            throw a.error("update_rule", "must be 'linear', 'gated', 'delta' or 'gated_delta', got '" + rule + "'");
        m_gated = rule == "gated" || rule == "gated_delta";
        m_delta = rule == "delta" || rule == "gated_delta";
        if (m_qHeads <= 0 || m_kvHeads <= 0)
            throw a.error(m_qHeads <= 0 ? "q_num_heads" : "kv_num_heads", "must be positive");
        if (m_qHeads % m_kvHeads && m_kvHeads % m_qHeads)
            throw a.error("kv_num_heads",
                "and q_num_heads must divide one another, got " + std::to_string(m_kvHeads) + " and "
                    + std::to_string(m_qHeads));
        if (m_window < 0 || m_window > 8)
            throw a.error("state_window", "must be in [0, 8], got " + std::to_string(m_window));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& q = ctx.input(0);
        const Tensor& k = ctx.input(1);
        const Tensor& v = ctx.input(2);
        contrib::requireSameType(ctx, q.dtype(), { 1, 2, 3, 4, 5 });
        if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3 || k.dim(0) != q.dim(0) || v.dim(0) != q.dim(0)
            || k.dim(1) != q.dim(1) || v.dim(1) != q.dim(1) || q.dim(2) % m_qHeads || q.dim(2) == 0
            || k.dim(2) % (q.dim(2) / m_qHeads) || v.dim(2) % m_kvHeads || k.dim(2) == 0
            || m_kvHeads % (k.dim(2) / (q.dim(2) / m_qHeads)))
            throw ctx.error("query [B, T, q_num_heads*dk], key [B, T, Hk*dk] (Hk dividing kv_num_heads) and value "
                            "[B, T, kv_num_heads*dv] do not fit, got "
                + shapeToString(q.shape()) + ", " + shapeToString(k.shape()) + " and " + shapeToString(v.shape()));
        const int64_t B = q.dim(0), T = q.dim(1), Hq = m_qHeads, Hkv = m_kvHeads;
        const int64_t dk = q.dim(2) / Hq, dv = v.dim(2) / Hkv, Ho = std::max(Hq, Hkv), Hk = k.dim(2) / dk;
        const Shape slot { B, Hkv, dk, dv };
        Shape stateShape = slot;
        if (m_window > 0)
            stateShape.insert(stateShape.begin(), m_window);
        if (ctx.hasInput(3) && ctx.input(3).shape() != stateShape)
            throw ctx.error(
                "past_state must be " + shapeToString(stateShape) + ", got " + shapeToString(ctx.input(3).shape()));
        bool perKeyDecay = false;
        if (m_gated) {
            if (!ctx.hasInput(4))
                throw ctx.error(
                    "update_rule '" + std::string(m_delta ? "gated_delta" : "gated") + "' needs the decay input");
            const Shape& ds = ctx.input(4).shape();
            perKeyDecay = ds == Shape { B, T, Hkv * dk } && dk != 1;
            if (ds != Shape { B, T, Hkv } && !perKeyDecay)
                throw ctx.error("decay must be [B, T, kv_num_heads] or [B, T, kv_num_heads*dk] = [" + std::to_string(B)
                    + ", " + std::to_string(T) + ", " + std::to_string(Hkv) + " or " + std::to_string(Hkv * dk)
                    + "], got " + shapeToString(ds));
        }
        bool sharedBeta = false;
        if (m_delta) {
            if (!ctx.hasInput(5))
                throw ctx.error(
                    "update_rule '" + std::string(m_gated ? "gated_delta" : "delta") + "' needs the beta input");
            const Shape& bs = ctx.input(5).shape();
            sharedBeta = bs == Shape { B, T, 1 } && Hkv != 1;
            if (bs != Shape { B, T, Hkv } && !sharedBeta)
                throw ctx.error("beta must be [B, T, kv_num_heads] or [B, T, 1], got " + shapeToString(bs));
        }
        std::vector<float> qb, kb, vb, sb, gb, bb;
        const float* qv = contrib::floats(ctx, q, qb, "query");
        const float* kv = contrib::floats(ctx, k, kb, "key");
        const float* vv = contrib::floats(ctx, v, vb, "value");
        const float* past = ctx.hasInput(3) ? contrib::floats(ctx, ctx.input(3), sb, "past_state") : nullptr;
        if (past && m_window > 0)
            past += (m_window - 1) * B * Hkv * dk * dv;
        const float* g = m_gated ? contrib::floats(ctx, ctx.input(4), gb, "decay") : nullptr;
        const float* beta = m_delta ? contrib::floats(ctx, ctx.input(5), bb, "beta") : nullptr;
        const float scale = m_scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(dk)) : m_scale;
        const int64_t slotSize = B * Hkv * dk * dv, slots = std::max<int64_t>(m_window, 1);
        std::vector<float> y(static_cast<size_t>(B * T * Ho * dv)),
            present(static_cast<size_t>(slots * slotSize), 0.0f);
        std::vector<float> S(static_cast<size_t>(dk * dv)), retrieved(static_cast<size_t>(dv));
        for (int64_t b = 0; b < B; ++b)
            for (int64_t h = 0; h < Hkv; ++h) {
                const int64_t sOff = (b * Hkv + h) * dk * dv;
                for (int64_t i = 0; i < dk * dv; ++i)
                    S[static_cast<size_t>(i)] = past ? past[sOff + i] : 0.0f;
                for (int64_t t = 0; t < T; ++t) {
                    const float* kt = kv + (b * T + t) * Hk * dk + h / (Hkv / Hk) * dk;
                    const float* vt = vv + (b * T + t) * Hkv * dv + h * dv;
                    if (m_gated)
                        for (int64_t i = 0; i < dk; ++i) {
                            const float f = std::exp(
                                perKeyDecay ? g[(b * T + t) * Hkv * dk + h * dk + i] : g[(b * T + t) * Hkv + h]);
                            for (int64_t j = 0; j < dv; ++j)
                                S[static_cast<size_t>(i * dv + j)] *= f;
                        }
                    if (m_delta) {
                        const float bt = beta[(b * T + t) * (sharedBeta ? 1 : Hkv) + (sharedBeta ? 0 : h)];
                        std::fill(retrieved.begin(), retrieved.end(), 0.0f);
                        for (int64_t i = 0; i < dk; ++i)
                            for (int64_t j = 0; j < dv; ++j)
                                retrieved[static_cast<size_t>(j)] += S[static_cast<size_t>(i * dv + j)] * kt[i];
                        for (int64_t i = 0; i < dk; ++i)
                            for (int64_t j = 0; j < dv; ++j)
                                S[static_cast<size_t>(i * dv + j)]
                                    += bt * kt[i] * (vt[j] - retrieved[static_cast<size_t>(j)]);
                    } else {
                        for (int64_t i = 0; i < dk; ++i)
                            for (int64_t j = 0; j < dv; ++j)
                                S[static_cast<size_t>(i * dv + j)] += kt[i] * vt[j];
                    }
                    // The output heads reading this KV head.
                    const int64_t group = Hq >= Hkv ? Hq / Hkv : 1;
                    for (int64_t r = 0; r < group; ++r) {
                        const int64_t oh = Hq >= Hkv ? h * group + r : h;
                        const int64_t qh = Hq >= Hkv ? oh : h / (Hkv / Hq);
                        const float* qt = qv + (b * T + t) * Hq * dk + qh * dk;
                        float* out = y.data() + (b * T + t) * Ho * dv + oh * dv;
                        for (int64_t j = 0; j < dv; ++j) {
                            float acc = 0;
                            for (int64_t i = 0; i < dk; ++i)
                                acc += qt[i] * S[static_cast<size_t>(i * dv + j)];
                            out[j] = scale * acc;
                        }
                    }
                    const int64_t j = t - (T - slots); // the window slot of the state after token t
                    if (j >= 0)
                        std::copy(S.begin(), S.end(), present.begin() + j * slotSize + sOff);
                }
                if (T == 0 && m_window == 0) // no token: the state passes through
                    std::copy(S.begin(), S.end(), present.begin() + sOff);
            }
        contrib::storeOutput(ctx, 0, q.dtype(), { B, T, Ho * dv }, y.data());
        if (ctx.hasOutput(1))
            contrib::storeOutput(
                ctx, 1, ctx.hasInput(3) ? ctx.input(3).dtype() : q.dtype(), stateShape, present.data());
    }

private:
    int64_t m_qHeads = 0, m_kvHeads = 0, m_window = 0;
    float m_scale = 0;
    bool m_gated = true, m_delta = true;
};

} // namespace

void registerLlmLinearAttention(KernelRegistry& r)
{
    r.add("com.microsoft", "LinearAttention", 1, KernelRegistry::kLatest, makeFactory<LinearAttention>());
}

} // namespace onnxscope
