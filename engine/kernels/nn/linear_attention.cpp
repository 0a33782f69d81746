// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/attention_core.h"

#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

/// LinearAttention 27: the recurrence over t of a state S [d_k, d_v] per (batch, kv head), started from past_state
/// (B, H_kv, d_k, d_v) or zeros: "linear" S += k⊗v; "gated" S = exp(g)·S + k⊗v; "delta" S += k⊗β(v - Sᵀk);
/// "gated_delta" both (decay first). Output o_t = scale · qᵀS per query head (query head h reads kv head
/// h / (q_num_heads / kv_num_heads)). Q, K, V, decay (per head or per key dimension) and beta (per head or one) are
/// packed 3-D [B, T, heads * width]. float, float16, bfloat16, computed in float; present_state has past_state's type
/// (query's without it).
class LinearAttention final : public Kernel {
public:
    explicit LinearAttention(const KernelInit& init)
        : m_qHeads(init.attributes().requireInt("q_num_heads"))
        , m_kvHeads(init.attributes().requireInt("kv_num_heads"))
        , m_scale(init.attributes().getFloat("scale", 0.0f))
    {
        const std::string rule = init.attributes().getString("update_rule", "gated_delta");
        if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
            throw init.attributes().error(
                "update_rule", "expected linear, gated, delta or gated_delta, got \"" + rule + "\"");
        m_gated = rule == "gated" || rule == "gated_delta";
        m_delta = rule == "delta" || rule == "gated_delta";
        if (m_qHeads <= 0 || m_kvHeads <= 0 || m_qHeads % m_kvHeads)
            throw init.error("q_num_heads must be a positive multiple of kv_num_heads");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& q = ctx.input(0);
        const Tensor& k = ctx.input(1);
        const Tensor& v = ctx.input(2);
        if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3)
            throw ctx.error("query, key and value must be 3-D [B, T, heads * width]");
        const int64_t b = q.dim(0), t = q.dim(1), hq = m_qHeads, hk = m_kvHeads, group = hq / hk;
        if (q.dim(2) % hq || v.dim(2) % hk)
            throw ctx.error("hidden sizes are not multiples of q_num_heads and kv_num_heads");
        const int64_t dk = q.dim(2) / hq, dv = v.dim(2) / hk;
        if (k.shape() != Shape { b, t, hk * dk } || v.dim(0) != b || v.dim(1) != t)
            throw ctx.error("key " + shapeToString(k.shape()) + " or value " + shapeToString(v.shape())
                + " does not fit query " + shapeToString(q.shape()));
        if (m_gated != ctx.hasInput(4))
            throw ctx.error(m_gated ? "this update_rule needs decay" : "this update_rule takes no decay");
        if (m_delta != ctx.hasInput(5))
            throw ctx.error(m_delta ? "this update_rule needs beta" : "this update_rule takes no beta");
        int64_t decayWidth = 0, betaHeads = 0;
        if (m_gated) {
            const Tensor& g = ctx.input(4);
            decayWidth = g.rank() == 3 ? g.dim(2) : -1;
            if (g.rank() != 3 || g.dim(0) != b || g.dim(1) != t || (decayWidth != hk && decayWidth != hk * dk))
                throw ctx.error("decay must be [B, T, kv_num_heads] or [B, T, kv_num_heads * d_k], got "
                    + shapeToString(g.shape()));
        }
        if (m_delta) {
            const Tensor& be = ctx.input(5);
            betaHeads = be.rank() == 3 ? be.dim(2) : -1;
            if (be.rank() != 3 || be.dim(0) != b || be.dim(1) != t || (betaHeads != hk && betaHeads != 1))
                throw ctx.error("beta must be [B, T, kv_num_heads] or [B, T, 1], got " + shapeToString(be.shape()));
        }
        std::vector<float> qb, kb, vb, gb, bb, pb;
        const float* qp = attention::elementsAs<float>(q, qb);
        const float* kp = attention::elementsAs<float>(k, kb);
        const float* vp = attention::elementsAs<float>(v, vb);
        const float* gp = m_gated ? attention::elementsAs<float>(ctx.input(4), gb) : nullptr;
        const float* bp = m_delta ? attention::elementsAs<float>(ctx.input(5), bb) : nullptr;
        const Shape stateShape { b, hk, dk, dv };
        std::vector<float> state(static_cast<size_t>(b * hk * dk * dv), 0.0f);
        DataType stateType = q.dtype();
        if (ctx.hasInput(3)) {
            const Tensor& past = ctx.input(3);
            if (past.shape() != stateShape)
                throw ctx.error("past_state " + shapeToString(past.shape()) + " must be " + shapeToString(stateShape));
            const float* pp = attention::elementsAs<float>(past, pb);
            std::copy(pp, pp + state.size(), state.begin());
            stateType = past.dtype();
        }
        const float scale = m_scale != 0.0f ? m_scale : 1.0f / std::sqrt(static_cast<float>(dk));
        std::vector<float> out(static_cast<size_t>(b * t * hq * dv)), vt(static_cast<size_t>(dv));
        for (int64_t bi = 0; bi < b; ++bi)
            for (int64_t h = 0; h < hk; ++h) {
                float* s = state.data() + (bi * hk + h) * dk * dv;
                for (int64_t ti = 0; ti < t; ++ti) {
                    const int64_t row = bi * t + ti;
                    const float* kt = kp + row * hk * dk + h * dk;
                    const float* vin = vp + row * hk * dv + h * dv;
                    if (m_gated)
                        for (int64_t d = 0; d < dk; ++d) {
                            const float g = std::exp(gp[row * decayWidth + (decayWidth == hk ? h : h * dk + d)]);
                            for (int64_t m = 0; m < dv; ++m)
                                s[d * dv + m] *= g;
                        }
                    std::copy(vin, vin + dv, vt.begin());
                    if (m_delta) {
                        const float beta = bp[row * betaHeads + (betaHeads == 1 ? 0 : h)];
                        for (int64_t m = 0; m < dv; ++m) {
                            float r = 0;
                            for (int64_t d = 0; d < dk; ++d)
                                r += s[d * dv + m] * kt[d];
                            vt[static_cast<size_t>(m)] = beta * (vt[static_cast<size_t>(m)] - r);
                        }
                    }
                    for (int64_t d = 0; d < dk; ++d)
                        for (int64_t m = 0; m < dv; ++m)
                            s[d * dv + m] += kt[d] * vt[static_cast<size_t>(m)];
                    for (int64_t qh = h * group; qh < (h + 1) * group; ++qh) {
                        const float* qt = qp + row * hq * dk + qh * dk;
                        float* o = out.data() + row * hq * dv + qh * dv;
                        for (int64_t m = 0; m < dv; ++m) {
                            float acc = 0;
                            for (int64_t d = 0; d < dk; ++d)
                                acc += qt[d] * s[d * dv + m];
                            o[m] = scale * acc;
                        }
                    }
                }
            }
        Tensor& y = ctx.allocateOutputUninitialized(0, q.dtype(), { b, t, hq * dv });
        attention::storeAs<float>(out.data(), y.size(), y);
        if (ctx.hasOutput(1)) {
            Tensor& st = ctx.allocateOutputUninitialized(1, stateType, stateShape);
            attention::storeAs<float>(state.data(), st.size(), st);
        }
    }

private:
    int64_t m_qHeads, m_kvHeads;
    float m_scale;
    bool m_gated = true, m_delta = true;
};

} // namespace

void registerLinearAttention(KernelRegistry& r)
{
    r.add("", "LinearAttention", 27, 27, makeFactory<LinearAttention>());
}

} // namespace onnxscope
