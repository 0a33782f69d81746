// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_attention.h"
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/contrib/llm/kv_cache_attention.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <limits>
#include <vector>

namespace onnxscope {

namespace {

/// MultiHeadAttention (com.microsoft 1), as onnxruntime's CPU provider computes it. Forms: query [B, S, N*H] with
/// key [B, L, N*H] and value [B, L, N*Hv]; packed QKV query [B, L, N, 3, H]; packed KV key [B, L, N, 2, H]; or
/// key and value already in heads [B, N, L, H] (cross attention, no bias on them). bias [N*H + N*H + N*Hv] adds to
/// the projections given in the 3-D forms. past_key/past_value [B, N, P, H] are prepended to K and V, which become
/// present_key/present_value. key_padding_mask: [B] key lengths, [B, T] or [B, S, T];
/// masked keys get mask_filter_value, keys after the query -inf with unidirectional; attention_bias
/// [B or 1, N or 1, S, T] adds. float, float16, bfloat16, computed in float. past_sequence_length makes
/// past_key/past_value a shared buffer [B, N, M, H] (new rows written at that position, presents [B, N, M, H]);
/// cache_indirection [B/W, W, M] reads past rows from other beams; qk is the scaled, biased, masked Q·Kᵀ.
/// (onnxruntime's CPU provider has no packed forms; they are checked against it running the same values unpacked.)
class MultiHeadAttention final : public Kernel {
public:
    explicit MultiHeadAttention(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_heads = a.requireInt("num_heads");
        m_scale = a.getFloat("scale", 0.0f);
        m_filter = a.getFloat("mask_filter_value", -10000.0f);
        m_causal = a.getInt("unidirectional", 0) != 0;
        if (m_heads <= 0)
            throw a.error("num_heads", "must be positive");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& query = ctx.input(0);
        contrib::requireSameType(ctx, query.dtype(), { 1, 2, 3, 5, 6, 7 });
        const int64_t N = m_heads, B = query.dim(0);
        int64_t S = 0, L = 0, H = 0, Hv = 0;
        std::vector<float> qb, kb, vb, biasBuf;
        const float* qIn = contrib::floats(ctx, query, qb, "query");
        std::vector<float> q, k, v; // Q as [B, S, N, H]; K, V as [B, N, L, H]
        const bool kv4d = ctx.hasInput(1) && ctx.input(1).rank() == 4 && ctx.hasInput(2);
        if (query.rank() == 5) {
            if (ctx.hasInput(1) || ctx.hasInput(2) || query.dim(2) != N || query.dim(3) != 3)
                throw ctx.error("packed QKV query must be [B, L, num_heads, 3, H] without key and value, got "
                    + shapeToString(query.shape()));
            S = L = query.dim(1);
            H = Hv = query.dim(4);
        } else if (query.rank() == 3) {
            S = query.dim(1);
            if (query.dim(2) % N)
                throw ctx.error("query's hidden size is not a multiple of num_heads");
            H = query.dim(2) / N;
            if (!ctx.hasInput(1))
                throw ctx.error("key is required unless query is packed QKV");
            const Tensor& key = ctx.input(1);
            if (kv4d) {
                if (key.dim(0) != B || key.dim(1) != N || key.dim(3) != H || ctx.input(2).rank() != 4)
                    throw ctx.error("key and value in heads must be [B, num_heads, L, H], got "
                        + shapeToString(key.shape()) + " and " + shapeToString(ctx.input(2).shape()));
                L = key.dim(2);
                Hv = ctx.input(2).dim(3);
            } else if (key.rank() == 5) {
                if (ctx.hasInput(2) || key.dim(0) != B || key.dim(2) != N || key.dim(3) != 2 || key.dim(4) != H)
                    throw ctx.error("packed KV key must be [B, L, num_heads, 2, H] without value, got "
                        + shapeToString(key.shape()));
                L = key.dim(1);
                Hv = H;
            } else if (key.rank() == 3 && ctx.hasInput(2) && ctx.input(2).rank() == 3) {
                const Tensor& value = ctx.input(2);
                if (key.dim(0) != B || key.dim(2) != N * H || value.dim(0) != B || value.dim(1) != key.dim(1)
                    || value.dim(2) % N)
                    throw ctx.error("key [B, L, num_heads * H] and value [B, L, num_heads * Hv] do not fit query, got "
                        + shapeToString(key.shape()) + " and " + shapeToString(value.shape()));
                L = key.dim(1);
                Hv = value.dim(2) / N;
            } else {
                throw ctx.error("unsupported key/value layout: key " + shapeToString(key.shape()) + ", value "
                    + (ctx.hasInput(2) ? shapeToString(ctx.input(2).shape()) : std::string("absent")));
            }
        } else {
            throw ctx.error("query must be 3-D [B, S, hidden] or packed QKV 5-D, got " + shapeToString(query.shape()));
        }
        const Shape biasShape { N * H * 2 + N * Hv };
        const float* bias = contrib::optionalFloats(ctx, 3, biasBuf, "bias", &biasShape);
        if (bias && kv4d)
            throw ctx.error("bias is not supported with key and value already in heads [B, N, L, H]");

        // Q [B, S, N, H], new K/V [B, N, L, H*].
        q.resize(static_cast<size_t>(B * S * N * H));
        k.resize(static_cast<size_t>(B * N * L * H));
        v.resize(static_cast<size_t>(B * N * L * Hv));
        const float* kIn = ctx.hasInput(1) ? contrib::floats(ctx, ctx.input(1), kb, "key") : nullptr;
        const float* vIn = ctx.hasInput(2) ? contrib::floats(ctx, ctx.input(2), vb, "value") : nullptr;
        for (int64_t b = 0; b < B; ++b)
            for (int64_t n = 0; n < N; ++n) {
                for (int64_t s = 0; s < S; ++s)
                    for (int64_t i = 0; i < H; ++i) {
                        const float x = query.rank() == 5 ? qIn[(((b * S + s) * N + n) * 3 + 0) * H + i]
                                                          : qIn[((b * S + s) * N + n) * H + i];
                        q[static_cast<size_t>(((b * S + s) * N + n) * H + i)] = x + (bias ? bias[n * H + i] : 0.0f);
                    }
                for (int64_t l = 0; l < L; ++l) {
                    for (int64_t i = 0; i < H; ++i) {
                        float x = 0;
                        if (query.rank() == 5)
                            x = qIn[(((b * L + l) * N + n) * 3 + 1) * H + i];
                        else if (kv4d)
                            x = kIn[((b * N + n) * L + l) * H + i];
                        else if (ctx.input(1).rank() == 5)
                            x = kIn[(((b * L + l) * N + n) * 2 + 0) * H + i];
                        else
                            x = kIn[((b * L + l) * N + n) * H + i];
                        k[static_cast<size_t>(((b * N + n) * L + l) * H + i)]
                            = x + (bias ? bias[N * H + n * H + i] : 0.0f);
                    }
                    for (int64_t i = 0; i < Hv; ++i) {
                        float x = 0;
                        if (query.rank() == 5)
                            x = qIn[(((b * L + l) * N + n) * 3 + 2) * H + i];
                        else if (kv4d)
                            x = vIn[((b * N + n) * L + l) * Hv + i];
                        else if (ctx.input(1).rank() == 5)
                            x = kIn[(((b * L + l) * N + n) * 2 + 1) * H + i];
                        else
                            x = vIn[((b * L + l) * N + n) * Hv + i];
                        v[static_cast<size_t>(((b * N + n) * L + l) * Hv + i)]
                            = x + (bias ? bias[2 * N * H + n * Hv + i] : 0.0f);
                    }
                }
            }

        if (ctx.hasInput(6) != ctx.hasInput(7))
            throw ctx.error("past_key and past_value must be given together");
        if (ctx.hasInput(8) || ctx.hasInput(9) || ctx.hasOutput(3)) {
            runWithKvCache(ctx, query.dtype(), kv4d, B, S, L, H, Hv, q, k, v);
            return;
        }

        // The past rows go first.
        int64_t P = 0;
        std::vector<float> pkb, pvb;
        if (ctx.hasInput(6)) {
            if (kv4d)
                throw ctx.error("past_key/past_value are not supported with key and value already in heads");
            const Tensor& pk = ctx.input(6);
            const Tensor& pv = ctx.input(7);
            if (pk.rank() != 4 || pk.dim(0) != B || pk.dim(1) != N || pk.dim(3) != H || pv.rank() != 4
                || pv.dim(2) != pk.dim(2) || pv.dim(3) != Hv)
                throw ctx.error("past_key [B, N, P, H] and past_value [B, N, P, Hv] do not fit, got "
                    + shapeToString(pk.shape()) + " and " + shapeToString(pv.shape()));
            P = pk.dim(2);
            const float* pkIn = contrib::floats(ctx, pk, pkb, "past_key");
            const float* pvIn = contrib::floats(ctx, pv, pvb, "past_value");
            k = prepend(pkIn, k, B * N, P, L, H);
            v = prepend(pvIn, v, B * N, P, L, Hv);
        }
        const int64_t T = P + L;

        attention::Problem<float> p;
        p.batch = B;
        p.qHeads = p.kvHeads = N;
        p.qLen = S;
        p.kvLen = T;
        p.headSize = H;
        p.vHeadSize = Hv;
        p.scale = m_scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(H)) : m_scale;
        p.q = { q.data(), S * N * H, H, N * H };
        p.k = { k.data(), N * T * H, T * H, H };
        p.v = { v.data(), N * T * Hv, T * Hv, Hv };
        std::vector<float> y(static_cast<size_t>(B * S * N * Hv));
        p.y = { y.data(), S * N * Hv, Hv, N * Hv };
        contrib::runMaskedAttention(ctx, p, 4, "key_padding_mask", false, 5, P, m_causal, m_filter);
        contrib::storeOutput(ctx, 0, query.dtype(), { B, S, N * Hv }, y.data());
        if (ctx.hasOutput(1))
            contrib::storeOutput(ctx, 1, query.dtype(), { B, N, T, H }, k.data());
        if (ctx.hasOutput(2))
            contrib::storeOutput(ctx, 2, query.dtype(), { B, N, T, Hv }, v.data());
    }

private:
    /// A shared past buffer (past_sequence_length), beam search's cache_indirection or the qk output.
    void runWithKvCache(KernelContext& ctx, DataType type, bool kv4d, int64_t B, int64_t S, int64_t L, int64_t H,
        int64_t Hv, const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v) const
    {
        contrib::KvCacheStep st;
        st.batch = B;
        st.heads = m_heads;
        st.qLen = S;
        st.newLen = L;
        st.headSize = H;
        st.vHeadSize = Hv;
        st.q = q.data();
        st.k = k.data();
        st.v = v.data();
        st.scale = m_scale;
        st.filter = m_filter;
        st.causal = m_causal;
        std::vector<float> pkb, pvb;
        const bool past = ctx.hasInput(6);
        if (past) {
            if (kv4d)
                throw ctx.error("past_key/past_value are not supported with key and value already in heads");
            const Tensor& pk = ctx.input(6);
            const Tensor& pv = ctx.input(7);
            if (pk.rank() != 4 || pk.dim(0) != B || pk.dim(1) != m_heads || pk.dim(3) != H || pv.rank() != 4
                || pv.dim(0) != B || pv.dim(1) != m_heads || pv.dim(2) != pk.dim(2) || pv.dim(3) != Hv)
                throw ctx.error("past_key [B, N, P or max_sequence_length, H] and past_value [B, N, P or "
                                "max_sequence_length, Hv] do not fit, got "
                    + shapeToString(pk.shape()) + " and " + shapeToString(pv.shape()));
            st.pastK = contrib::floats(ctx, pk, pkb, "past_key");
            st.pastV = contrib::floats(ctx, pv, pvb, "past_value");
            st.pastRows = st.pastLen = pk.dim(2);
        }
        // Cross attention (key and value in heads, no past) attends all L keys: past_sequence_length and
        // cache_indirection have nothing to address there, as in onnxruntime's decoder cross attention.
        if (ctx.hasInput(8) && !kv4d) {
            if (!past)
                throw ctx.error("past_sequence_length needs past_key and past_value (the shared KV buffer "
                                "[B, N, max_sequence_length, H])");
            const Tensor& len = ctx.input(8);
            if (len.dtype() != DataType::Int32 || len.size() != 1)
                throw ctx.error("past_sequence_length must be one int32 value, got " + len.typeString() + " "
                    + shapeToString(len.shape()));
            st.shared = true;
            st.pastLen = len.data<int32_t>()[0];
        }
        if (ctx.hasInput(9) && !kv4d) {
            if (!st.shared)
                throw ctx.error("cache_indirection needs past_sequence_length and past_key/past_value (a shared KV "
                                "buffer)");
            const Tensor& ci = ctx.input(9);
            if (ci.dtype() != DataType::Int32 || ci.rank() != 3 || ci.dim(1) <= 0 || ci.dim(0) * ci.dim(1) != B
                || ci.dim(2) != st.pastRows)
                throw ctx.error("cache_indirection must be int32 [batch, beam_width, max_sequence_length] with batch "
                                "* beam_width = "
                    + std::to_string(B) + " and max_sequence_length = " + std::to_string(st.pastRows) + ", got "
                    + ci.typeString() + " " + shapeToString(ci.shape()));
            st.cacheIndirection = ci.data<int32_t>().data();
            st.beams = ci.dim(1);
            st.indirectionLen = ci.dim(2);
        }
        contrib::runKvCacheAttention(ctx, st, type, 4, 5, 1, 3);
    }

    /// [heads, P + L, width] from past [heads, P, width] and next [heads, L, width].
    static std::vector<float> prepend(
        const float* past, const std::vector<float>& next, int64_t heads, int64_t P, int64_t L, int64_t width)
    {
        std::vector<float> out(static_cast<size_t>(heads * (P + L) * width));
        for (int64_t i = 0; i < heads; ++i) {
            std::copy(past + i * P * width, past + (i + 1) * P * width, out.begin() + i * (P + L) * width);
            std::copy(next.begin() + i * L * width, next.begin() + (i + 1) * L * width,
                out.begin() + (i * (P + L) + P) * width);
        }
        return out;
    }

    int64_t m_heads = 0;
    float m_scale = 0, m_filter = -10000.0f;
    bool m_causal = false;
};

} // namespace

void registerMultiHeadAttention(KernelRegistry& r)
{
    r.add("com.microsoft", "MultiHeadAttention", 1, KernelRegistry::kLatest, makeFactory<MultiHeadAttention>());
}

} // namespace onnxscope
