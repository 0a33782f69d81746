// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// GatedDeltaNet (com.microsoft 1): the token-major gated delta rule. query [T, Hq, dk], key [T, Hq, dk], value
/// [T, Hv, dv] (or [B, S, H, D] each, or packed QKV [T or B, S, 2 Hq dk + Hv dv] without key and value, shaped by
/// initial_state); requests given by cu_seqlens [B + 1] or uniform (B from initial_state or the rank-4 spelling).
/// Per value head (query/key head hv / (Hv / Hq)), state S [dk, dv] from initial_state [B, Hv, dv, dk] (V-major,
/// float; zeros when absent): gated rules S = exp(g)·S (g per head or per key dimension), delta rules
/// S += k (β (v − Sᵀk))ᵀ, others S += k vᵀ; o = scale·Sᵀq. gate_activation none (g = decay), softplus/qwen
/// (g = −exp(a_log)·softplus(decay + dt_bias)), sigmoid/kda (g = gate_lower_bound·sigmoid(exp(a_log)·(decay +
/// dt_bias))); beta_activation sigmoid; qk_l2_norm. float, float16, bfloat16 in float; state float. Refused:
/// state_update_capacity > 0 (the compact state-update outputs).
class GatedDeltaNet final : public Kernel {
public:
    explicit GatedDeltaNet(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_scale = a.getFloat("scale", 0.0f);
        m_l2 = a.getInt("qk_l2_norm", 0) != 0;
        m_lowerBound = a.getFloat("gate_lower_bound", -5.0f);
        const std::string rule = a.getString("update_rule", "gated_delta");
        if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
            throw a.error("update_rule", "must be 'linear', 'gated', 'delta' or 'gated_delta', got '" + rule + "'");
        m_gated = rule == "gated" || rule == "gated_delta";
        m_delta = rule == "delta" || rule == "gated_delta";
        const std::string gate = a.getString("gate_activation", "none");
        if (gate == "none")
            m_gate = 0;
        else if (gate == "softplus" || gate == "qwen")
            m_gate = 1;
        else if (gate == "sigmoid" || gate == "kda")
            m_gate = 2;
        else
            throw a.error(
                "gate_activation", "must be 'none', 'softplus' ('qwen') or 'sigmoid' ('kda'), got '" + gate + "'");
        const std::string beta = a.getString("beta_activation", "none");
        if (beta != "none" && beta != "sigmoid")
            throw a.error("beta_activation", "must be 'none' or 'sigmoid', got '" + beta + "'");
        m_betaSigmoid = beta == "sigmoid";
        const int64_t capacity = a.getInt("state_update_capacity", 0);
        if (capacity != 0)
            throw a.error("state_update_capacity",
                "only 0 is supported (the compact state-update outputs are not "
                "implemented)");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& query = ctx.input(0);
        contrib::requireSameType(ctx, query.dtype(), { 1, 2 });
        if (ctx.hasInput(9) || ctx.hasOutput(2))
            throw ctx.error("capture_count and the state_update output need state_update_capacity > 0, which is not "
                            "supported");
        const bool packed = !ctx.hasInput(1);
        if (ctx.hasInput(1) != ctx.hasInput(2))
            throw ctx.error("key and value must be given together (or neither, for packed QKV)");
        const Tensor* init = ctx.hasInput(6) ? &ctx.input(6) : nullptr;
        if (init && (init->dtype() != DataType::Float || init->rank() != 4))
            throw ctx.error("initial_state must be float [B, Hv, dv, dk], got " + init->typeString() + " "
                + shapeToString(init->shape()));
        // Shapes: tokens, heads and sizes; rank4: the [B, S, ...] spelling.
        int64_t tokens = 0, Hq = 0, Hv = 0, dk = 0, dv = 0, B = 0, S = 0;
        bool rank4 = false;
        if (packed) {
            if (!init)
                throw ctx.error("packed QKV needs initial_state (it gives the head counts and sizes)");
            Hv = init->dim(1);
            dv = init->dim(2);
            dk = init->dim(3);
            const int64_t w = query.dim(query.rank() - 1);
            if ((query.rank() != 2 && query.rank() != 3) || dk <= 0 || w <= Hv * dv || (w - Hv * dv) % (2 * dk))
                throw ctx.error("packed QKV must be [T, 2 Hq dk + Hv dv] or [B, S, 2 Hq dk + Hv dv] with Hv, dv, dk of "
                                "initial_state, got "
                    + shapeToString(query.shape()));
            Hq = (w - Hv * dv) / (2 * dk);
            rank4 = query.rank() == 3;
            tokens = rank4 ? query.dim(0) * query.dim(1) : query.dim(0);
            if (rank4) {
                B = query.dim(0);
                S = query.dim(1);
            }
        } else {
            const Tensor& key = ctx.input(1);
            const Tensor& value = ctx.input(2);
            rank4 = query.rank() == 4;
            const size_t r = rank4 ? 4 : 3;
            if (query.rank() != r || key.rank() != r || value.rank() != r)
                throw ctx.error("query, key and value must all be [T, H, D] or all [B, S, H, D], got "
                    + shapeToString(query.shape()) + ", " + shapeToString(key.shape()) + ", "
                    + shapeToString(value.shape()));
            for (size_t i = 0; i + 2 < r; ++i)
                if (key.dim(i) != query.dim(i) || value.dim(i) != query.dim(i))
                    throw ctx.error("query, key and value must share their token dimensions");
            Hq = query.dim(r - 2);
            dk = query.dim(r - 1);
            Hv = value.dim(r - 2);
            dv = value.dim(r - 1);
            if (key.dim(r - 2) != Hq || key.dim(r - 1) != dk)
                throw ctx.error("key must have query's heads and head size, got " + shapeToString(key.shape()));
            tokens = rank4 ? query.dim(0) * query.dim(1) : query.dim(0);
            if (rank4) {
                B = query.dim(0);
                S = query.dim(1);
            }
        }
        if (Hq <= 0 || Hv <= 0 || Hv % Hq)
            throw ctx.error("num_heads_v " + std::to_string(Hv) + " must be a positive multiple of num_heads_q "
                + std::to_string(Hq));
        // The requests.
        std::vector<int64_t> starts;
        if (ctx.hasInput(3)) {
            const Tensor& cu = ctx.input(3);
            if (rank4)
                throw ctx.error("cu_seqlens needs the rank-3 token-major spelling");
            if (cu.dtype() != DataType::Int32 || cu.rank() != 1 || cu.dim(0) < 2)
                throw ctx.error(
                    "cu_seqlens must be int32 [batch + 1], got " + cu.typeString() + " " + shapeToString(cu.shape()));
            const int32_t* c = cu.data<int32_t>().data();
            for (int64_t i = 0; i < cu.dim(0); ++i) {
                if ((i == 0 && c[0] != 0) || (i > 0 && c[i] < c[i - 1]) || c[i] > tokens)
                    throw ctx.error("cu_seqlens must rise from 0 to the token count " + std::to_string(tokens));
                starts.push_back(c[i]);
            }
            if (starts.back() != tokens)
                throw ctx.error("cu_seqlens must end at the token count " + std::to_string(tokens) + ", got "
                    + std::to_string(starts.back()));
            B = cu.dim(0) - 1;
        } else {
            if (!rank4) {
                if (!init)
                    throw ctx.error("without cu_seqlens the batch comes from initial_state, which is then required");
                B = init->dim(0);
                if (B <= 0 || tokens % B)
                    throw ctx.error(std::to_string(tokens) + " tokens do not split evenly into the " + std::to_string(B)
                        + " requests of initial_state");
                S = tokens / B;
            }
            for (int64_t i = 0; i <= B; ++i)
                starts.push_back(i * S);
        }
        if (init && init->shape() != Shape { B, Hv, dv, dk })
            throw ctx.error("initial_state must be " + shapeToString(Shape { B, Hv, dv, dk }) + ", got "
                + shapeToString(init->shape()));
        // Decay and beta, as per-token rows.
        bool perKeyDecay = false;
        if (m_gated) {
            if (!ctx.hasInput(4))
                throw ctx.error("a gated update_rule needs the decay input");
            const Tensor& d = ctx.input(4);
            if (d.size() == static_cast<size_t>(tokens * Hv) && d.dim(d.rank() - 1) == Hv)
                perKeyDecay = false;
            else if (d.size() == static_cast<size_t>(tokens * Hv * dk) && d.dim(d.rank() - 1) == dk)
                perKeyDecay = true;
            else
                throw ctx.error("decay must be [tokens, Hv] or [tokens, Hv, dk] (token axes as the query), got "
                    + shapeToString(d.shape()));
        }
        if (m_delta) {
            if (!ctx.hasInput(5))
                throw ctx.error("a delta update_rule needs the beta input");
            if (ctx.input(5).size() != static_cast<size_t>(tokens * Hv)
                || ctx.input(5).dim(ctx.input(5).rank() - 1) != Hv)
                throw ctx.error(
                    "beta must be [tokens, Hv] (token axes as the query), got " + shapeToString(ctx.input(5).shape()));
        }
        bool perKeyBias = false;
        std::vector<float> alb, dtb;
        const float* aLog = nullptr;
        const float* dtBias = nullptr;
        if (m_gated && m_gate != 0) {
            if (!ctx.hasInput(7))
                throw ctx.error("gate_activation softplus/sigmoid needs a_log");
            if (ctx.input(7).shape() != Shape { Hv })
                throw ctx.error("a_log must be [Hv], got " + shapeToString(ctx.input(7).shape()));
            aLog = contrib::floats(ctx, ctx.input(7), alb, "a_log");
            if (ctx.hasInput(8)) {
                const Tensor& db = ctx.input(8);
                perKeyBias = db.size() == static_cast<size_t>(Hv * dk) && db.shape() != Shape { Hv };
                if (db.shape() != Shape { Hv } && db.shape() != Shape { Hv, dk } && db.shape() != Shape { Hv * dk })
                    throw ctx.error("dt_bias must be [Hv], [Hv, dk] or [Hv * dk], got " + shapeToString(db.shape()));
                if (perKeyBias && !perKeyDecay)
                    throw ctx.error("dt_bias per key dimension " + shapeToString(db.shape())
                        + " needs the per-key-dimension decay [tokens, Hv, dk]");
                dtBias = contrib::floats(ctx, db, dtb, "dt_bias");
            }
        }
        std::vector<float> qb, kb, vb, gb, bb, sb;
        const float* qIn = contrib::floats(ctx, query, qb, "query");
        const float* kIn = packed ? nullptr : contrib::floats(ctx, ctx.input(1), kb, "key");
        const float* vIn = packed ? nullptr : contrib::floats(ctx, ctx.input(2), vb, "value");
        const float* decay = m_gated ? contrib::floats(ctx, ctx.input(4), gb, "decay") : nullptr;
        const float* beta = m_delta ? contrib::floats(ctx, ctx.input(5), bb, "beta") : nullptr;
        const float* state0 = init ? init->data<float>().data() : nullptr;
        const int64_t W = 2 * Hq * dk + Hv * dv;
        auto qAt = [&](int64_t t, int64_t h) { return packed ? qIn + t * W + h * dk : qIn + (t * Hq + h) * dk; };
        auto kAt = [&](int64_t t, int64_t h) { return packed ? qIn + t * W + (Hq + h) * dk : kIn + (t * Hq + h) * dk; };
        auto vAt = [&](int64_t t, int64_t h) {
            return packed ? qIn + t * W + 2 * Hq * dk + h * dv : vIn + (t * Hv + h) * dv;
        };
        const float scale = m_scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(dk)) : m_scale;
        std::vector<float> y(static_cast<size_t>(tokens * Hv * dv)), finalState(static_cast<size_t>(B * Hv * dv * dk));
        std::vector<float> Sm(static_cast<size_t>(dk * dv)), q(static_cast<size_t>(dk)), k(static_cast<size_t>(dk)),
            g(static_cast<size_t>(dk)), retrieved(static_cast<size_t>(dv));
        for (int64_t b = 0; b < B; ++b)
            for (int64_t hv = 0; hv < Hv; ++hv) {
                const int64_t hq = hv / (Hv / Hq);
                for (int64_t i = 0; i < dk; ++i)
                    for (int64_t j = 0; j < dv; ++j)
                        Sm[static_cast<size_t>(i * dv + j)] = state0 ? state0[((b * Hv + hv) * dv + j) * dk + i] : 0.0f;
                for (int64_t t = starts[static_cast<size_t>(b)]; t < starts[static_cast<size_t>(b + 1)]; ++t) {
                    std::copy(qAt(t, hq), qAt(t, hq) + dk, q.begin());
                    std::copy(kAt(t, hq), kAt(t, hq) + dk, k.begin());
                    if (m_l2) {
                        normalize(q);
                        normalize(k);
                    }
                    const float* v = vAt(t, hv);
                    if (m_gated) {
                        for (int64_t i = 0; i < dk; ++i) {
                            float d = perKeyDecay ? decay[(t * Hv + hv) * dk + i] : decay[t * Hv + hv];
                            if (m_gate != 0) {
                                d += dtBias ? (perKeyBias ? dtBias[hv * dk + i] : dtBias[hv]) : 0.0f;
                                const float e = std::exp(aLog[hv]);
                                if (m_gate == 1)
                                    d = -e * (d > 20.0f ? d : std::log1p(std::exp(d)));
                                else
                                    d = m_lowerBound / (1.0f + std::exp(-e * d));
                            }
                            g[static_cast<size_t>(i)] = std::exp(d);
                        }
                        for (int64_t i = 0; i < dk; ++i)
                            for (int64_t j = 0; j < dv; ++j)
                                Sm[static_cast<size_t>(i * dv + j)] *= g[static_cast<size_t>(i)];
                    }
                    if (m_delta) {
                        float bt = beta[t * Hv + hv];
                        if (m_betaSigmoid)
                            bt = 1.0f / (1.0f + std::exp(-bt));
                        std::fill(retrieved.begin(), retrieved.end(), 0.0f);
                        for (int64_t i = 0; i < dk; ++i)
                            for (int64_t j = 0; j < dv; ++j)
                                retrieved[static_cast<size_t>(j)]
                                    += Sm[static_cast<size_t>(i * dv + j)] * k[static_cast<size_t>(i)];
                        for (int64_t i = 0; i < dk; ++i)
                            for (int64_t j = 0; j < dv; ++j)
                                Sm[static_cast<size_t>(i * dv + j)]
                                    += k[static_cast<size_t>(i)] * bt * (v[j] - retrieved[static_cast<size_t>(j)]);
                    } else {
                        for (int64_t i = 0; i < dk; ++i)
                            for (int64_t j = 0; j < dv; ++j)
                                Sm[static_cast<size_t>(i * dv + j)] += k[static_cast<size_t>(i)] * v[j];
                    }
                    float* out = y.data() + (t * Hv + hv) * dv;
                    for (int64_t j = 0; j < dv; ++j) {
                        float acc = 0;
                        for (int64_t i = 0; i < dk; ++i)
                            acc += Sm[static_cast<size_t>(i * dv + j)] * q[static_cast<size_t>(i)];
                        out[j] = scale * acc;
                    }
                }
                for (int64_t i = 0; i < dk; ++i)
                    for (int64_t j = 0; j < dv; ++j)
                        finalState[static_cast<size_t>(((b * Hv + hv) * dv + j) * dk + i)]
                            = Sm[static_cast<size_t>(i * dv + j)];
            }
        const Shape outShape = rank4 ? Shape { B, S, Hv, dv } : Shape { tokens, Hv, dv };
        contrib::storeOutput(ctx, 0, query.dtype(), outShape, y.data());
        if (ctx.hasOutput(1))
            contrib::storeOutput(ctx, 1, DataType::Float, { B, Hv, dv, dk }, finalState.data());
    }

private:
    static void normalize(std::vector<float>& x)
    {
        double sum = 0;
        for (float v : x)
            sum += static_cast<double>(v) * v;
        const float inv = 1.0f / std::sqrt(static_cast<float>(sum) + 1e-6f);
        for (float& v : x)
            v *= inv;
    }

    float m_scale = 0, m_lowerBound = -5.0f;
    bool m_l2 = false, m_gated = true, m_delta = true, m_betaSigmoid = false;
    int m_gate = 0;
};

} // namespace

void registerLlmGatedDeltaNet(KernelRegistry& r)
{
    r.add("com.microsoft", "GatedDeltaNet", 1, KernelRegistry::kLatest, makeFactory<GatedDeltaNet>());
}

} // namespace onnxscope
