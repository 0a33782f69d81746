// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_attention.h"
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace onnxscope {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// GroupQueryAttention (com.microsoft 1), as onnxruntime's CPU provider computes it. query [B, S, N*H] (or packed
/// QKV [B, S, (N + 2*Nkv)*H] without key and value), key and value [B, S, Nkv*H]; the KV cache past_key/past_value
/// and present_key/present_value is BNSH, present holding max(total_sequence_length, past length) rows: the past rows
/// [0, P_b) then the S new ones, the rest 0. Batch entry b has T_b = seqlens_k[b] + 1 keys; P_b = T_b - S, or 0 for a
/// first prompt (S == total_sequence_length, rows beyond T_b being right padding). Query row s sees the keys
/// [0, min(P_b + s, T_b - 1)] (causal), only the last local_window_size of them with a local window, or [0, T_b)
/// with causal 0. Optional: rotary embedding of Q and K (do_rotary, cos_cache/sin_cache [max_position, rd/2],
/// positions position_ids, of which a first prompt takes position_ids[0, 0] + s, or P_b + s), softcap, then
/// attention_bias, a softmax sink (smooth_softmax, head_sink). float, float16, bfloat16, computed in float.
/// sliding_window_cache 1 (onnxruntime-genai's gpt-oss sliding layers): past/present hold C rows (C >= W =
/// local_window_size); after T tokens rows [0, L(T)) hold positions T - L(T) .. T - 1, L(T) = T when T <= C, else
/// T - G * ceil((T - C) / G) with G = C - W + 1, the rest 0; the step attends over the L(T - S) resident rows and the
/// S new ones. Refused with an error: quantized KV caches, query_seqlens, qk_output, q_norm_weight/k_norm_weight (which
/// onnxruntime's CPU provider refuses too), attention_bias with sliding_window_cache.
class GroupQueryAttention final : public Kernel {
public:
    explicit GroupQueryAttention(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_heads = a.requireInt("num_heads");
        m_kvHeads = a.requireInt("kv_num_heads");
        m_scale = a.getFloat("scale", 0.0f);
        m_softcap = a.getFloat("softcap", 0.0f);
        m_rotary = a.getInt("do_rotary", 0) != 0;
        m_interleaved = a.getInt("rotary_interleaved", 0) != 0;
        m_window = a.getInt("local_window_size", -1);
        m_causal = a.getInt("causal", 1);
        m_smooth = a.getInt("smooth_softmax", 0) != 0;
        if (m_heads <= 0 || m_kvHeads <= 0 || m_heads % m_kvHeads)
            throw a.error("num_heads", "must be a positive multiple of kv_num_heads");
        if (m_causal != 0 && m_causal != 1)
            throw a.error("causal", "supported values are 0 and 1, got " + std::to_string(m_causal));
        if (m_causal == 0 && m_window != -1)
            throw a.error("local_window_size", "must be -1 when causal is 0");
        for (const char* name : { "k_quant_type", "v_quant_type" }) {
            const std::string q = a.getString(name, "NONE");
            if (q != "NONE")
                throw a.error(name, "only NONE is supported (a float KV cache), got " + q);
        }
        if (a.has("kv_cache_bit_width"))
            throw a.error("kv_cache_bit_width", "quantized KV caches are not supported");
        const int64_t sliding = a.getInt("sliding_window_cache", 0);
        if (sliding != 0 && sliding != 1)
            throw a.error("sliding_window_cache", "supported values are 0 and 1, got " + std::to_string(sliding));
        m_slidingCache = sliding == 1;
        if (m_slidingCache && (m_window <= 0 || m_causal != 1))
            throw a.error("sliding_window_cache", "1 needs local_window_size > 0 and causal 1");
        if (a.getInt("qk_output", 0) != 0)
            throw a.error("qk_output", "only 0 is supported (output_qk is not produced)");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& query = ctx.input(0);
        const bool packed = !ctx.hasInput(1);
        if (packed != !ctx.hasInput(2))
            throw ctx.error("key and value must be given together (or both omitted for packed QKV)");
        for (size_t i : { 12, 13 })
            if (ctx.hasInput(i))
                throw ctx.error(
                    std::string(i == 12 ? "k_scale" : "v_scale") + " is given: quantized KV caches are not supported");
        if (ctx.hasInput(16))
            throw ctx.error("query_seqlens (right-padded query chunks) is not supported");
        if (ctx.hasInput(14) || ctx.hasInput(15))
            throw ctx.error("q_norm_weight and k_norm_weight (per-head RMS norm of Q and K) are not supported");
        if (query.rank() != 3)
            throw ctx.error("query must be 3-D [B, S, hidden], got " + shapeToString(query.shape()));
        contrib::requireSameType(ctx, query.dtype(), { 1, 2, 3, 4, 7, 8, 10, 11, 14, 15 });
        const int64_t B = query.dim(0), S = query.dim(1), N = m_heads, Nk = m_kvHeads;
        const int64_t width = packed ? N + 2 * Nk : N;
        if (query.dim(2) % width)
            throw ctx.error("query's last dimension " + std::to_string(query.dim(2)) + " is not a multiple of "
                + std::to_string(width) + (packed ? " (num_heads + 2 * kv_num_heads)" : " (num_heads)"));
        const int64_t H = query.dim(2) / width;
        if (!packed) {
            const Shape kvShape { B, S, Nk * H };
            if (ctx.input(1).shape() != kvShape || ctx.input(2).shape() != kvShape)
                throw ctx.error("key and value must be " + shapeToString(kvShape) + ", got "
                    + shapeToString(ctx.input(1).shape()) + " and " + shapeToString(ctx.input(2).shape()));
        }
        const Tensor& seqlens = ctx.input(5);
        const Tensor& totalT = ctx.input(6);
        if (seqlens.dtype() != DataType::Int32 || seqlens.size() != B)
            throw ctx.error("seqlens_k must be int32 [" + std::to_string(B) + "], got " + seqlens.typeString());
        if (totalT.dtype() != DataType::Int32 || totalT.size() != 1)
            throw ctx.error("total_sequence_length must be an int32 scalar, got " + totalT.typeString());
        const int64_t total = totalT.data<int32_t>()[0];
        const bool hasPast = ctx.hasInput(3);
        if (hasPast != ctx.hasInput(4))
            throw ctx.error("past_key and past_value must be given together");
        int64_t pastLen = 0;
        if (hasPast) {
            const Tensor& pk = ctx.input(3);
            pastLen = pk.rank() == 4 ? pk.dim(2) : -1;
            if (pk.rank() != 4 || pk.dim(0) != B || pk.dim(1) != Nk || pk.dim(3) != H
                || ctx.input(4).shape() != pk.shape())
                throw ctx.error("past_key and past_value must be [B, kv_num_heads, past, H] = [" + std::to_string(B)
                    + ", " + std::to_string(Nk) + ", past, " + std::to_string(H) + "], got " + shapeToString(pk.shape())
                    + " and " + shapeToString(ctx.input(4).shape()));
        }
        if (m_slidingCache && !hasPast)
            throw ctx.error("sliding_window_cache 1 needs past_key and past_value (the window-sized buffers)");
        if (m_slidingCache && pastLen < m_window)
            throw ctx.error("sliding_window_cache: the KV cache capacity " + std::to_string(pastLen)
                + " (past_key's dimension 2) is smaller than local_window_size " + std::to_string(m_window));
        if (m_slidingCache && ctx.hasInput(10))
            throw ctx.error("attention_bias with sliding_window_cache 1 is not supported");
        const int64_t presentLen = m_slidingCache ? pastLen : std::max(total, pastLen);
        const bool firstPrompt = S == total;
        // pastOf: the tokens before this step (absolute); baseOf: the absolute position of staged row 0 (the
        // resident past rows, then the S new ones); stagedLen: the rows attention reads.
        std::vector<int64_t> pastOf(static_cast<size_t>(B)), totalOf(static_cast<size_t>(B)),
            baseOf(static_cast<size_t>(B), 0), residentOf(static_cast<size_t>(B));
        int64_t stagedLen = presentLen;
        if (m_slidingCache)
            stagedLen = 0;
        for (int64_t b = 0; b < B; ++b) {
            const int64_t t = int64_t(seqlens.data<int32_t>()[static_cast<size_t>(b)]) + 1;
            // A window-sized cache has no padded first prompt: every entry holds its S new tokens (as onnxruntime).
            const int64_t p = firstPrompt && !m_slidingCache ? 0 : t - S;
            const bool fits = m_slidingCache ? p >= 0 : p >= 0 && p <= pastLen && p + S <= presentLen;
            if (t < 1 || t > total || !fits)
                throw ctx.error("seqlens_k[" + std::to_string(b) + "] = " + std::to_string(t - 1)
                    + " does not fit sequence length " + std::to_string(S) + ", total_sequence_length "
                    + std::to_string(total) + " and a past of " + std::to_string(pastLen) + " rows");
            pastOf[static_cast<size_t>(b)] = p;
            totalOf[static_cast<size_t>(b)] = t;
            residentOf[static_cast<size_t>(b)] = m_slidingCache ? resident(p, pastLen) : p;
            if (m_slidingCache) {
                baseOf[static_cast<size_t>(b)] = p - residentOf[static_cast<size_t>(b)];
                stagedLen = std::max(stagedLen, residentOf[static_cast<size_t>(b)] + S);
            }
        }

        // Q, K, V as BSNH floats.
        std::vector<float> qb, kb, vb;
        const float* qIn = contrib::floats(ctx, query, qb, "query");
        std::vector<float> q(static_cast<size_t>(B * S * N * H)), k(static_cast<size_t>(B * S * Nk * H)), v(k.size());
        {
            const float* kIn = packed ? nullptr : contrib::floats(ctx, ctx.input(1), kb, "key");
            const float* vIn = packed ? nullptr : contrib::floats(ctx, ctx.input(2), vb, "value");
            for (int64_t t = 0; t < B * S; ++t) {
                const float* row = qIn + t * width * H;
                std::copy(row, row + N * H, q.begin() + t * N * H);
                const float* kr = packed ? row + N * H : kIn + t * Nk * H;
                const float* vr = packed ? row + (N + Nk) * H : vIn + t * Nk * H;
                std::copy(kr, kr + Nk * H, k.begin() + t * Nk * H);
                std::copy(vr, vr + Nk * H, v.begin() + t * Nk * H);
            }
        }
        if (m_rotary)
            applyRotary(ctx, q, k, B, S, N, Nk, H, pastOf, firstPrompt);

        // The K/V attention reads [B, Nk, stagedLen, H]: the resident past rows, then the new ones. Without
        // sliding_window_cache it is present itself.
        std::vector<float> pkb, pvb;
        const float* pastK = hasPast ? contrib::floats(ctx, ctx.input(3), pkb, "past_key") : nullptr;
        const float* pastV = hasPast ? contrib::floats(ctx, ctx.input(4), pvb, "past_value") : nullptr;
        std::vector<float> presentK(static_cast<size_t>(B * Nk * stagedLen * H), 0.0f), presentV(presentK.size(), 0.0f);
        for (int64_t b = 0; b < B; ++b)
            for (int64_t h = 0; h < Nk; ++h) {
                const int64_t p = residentOf[static_cast<size_t>(b)];
                float* dk = presentK.data() + (b * Nk + h) * stagedLen * H;
                float* dv = presentV.data() + (b * Nk + h) * stagedLen * H;
                if (p > 0) {
                    std::copy(pastK + (b * Nk + h) * pastLen * H, pastK + ((b * Nk + h) * pastLen + p) * H, dk);
                    std::copy(pastV + (b * Nk + h) * pastLen * H, pastV + ((b * Nk + h) * pastLen + p) * H, dv);
                }
                for (int64_t s = 0; s < S; ++s) {
                    const int64_t src = ((b * S + s) * Nk + h) * H;
                    std::copy(k.begin() + src, k.begin() + src + H, dk + (p + s) * H);
                    std::copy(v.begin() + src, v.begin() + src + H, dv + (p + s) * H);
                }
            }

        std::vector<float> biasBuf, sinkBuf;
        const contrib::AttentionBias bias = contrib::attentionBias(ctx, 10, B, N, S, total, biasBuf);
        const Shape sinkShape { N };
        const float* sink = contrib::optionalFloats(ctx, 11, sinkBuf, "head_sink", &sinkShape);

        attention::Problem<float> p;
        p.batch = B;
        p.qHeads = N;
        p.kvHeads = Nk;
        p.qLen = S;
        p.kvLen = stagedLen;
        p.headSize = H;
        p.vHeadSize = H;
        p.scale = m_scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(H)) : m_scale;
        p.q = { q.data(), S * N * H, H, N * H };
        p.k = { presentK.data(), Nk * stagedLen * H, stagedLen * H, H };
        p.v = { presentV.data(), Nk * stagedLen * H, stagedLen * H, H };
        std::vector<float> y(static_cast<size_t>(B * S * N * H));
        p.y = { y.data(), S * N * H, H, N * H };
        std::vector<float> scores;
        contrib::runAttention(ctx.threadPool(), p, scores, [&](int64_t b, int64_t h, int64_t s, float* row) {
            const int64_t past = pastOf[static_cast<size_t>(b)];
            const int64_t keys = totalOf[static_cast<size_t>(b)];
            const int64_t base = baseOf[static_cast<size_t>(b)];
            int64_t lo = 0, hi = m_causal ? std::min(past + s + 1, keys) : keys;
            if (m_window > 0 && hi > m_window)
                lo = hi - m_window;
            lo -= base; // absolute positions to staged rows
            hi -= base;
            for (int64_t j = lo; j < hi; ++j) {
                float x = row[j];
                if (m_softcap > 0)
                    x = m_softcap * std::tanh(x / m_softcap);
                if (bias.data && j < total)
                    x += bias.row(b, h, s)[j];
                row[j] = x;
            }
            for (int64_t j = 0; j < stagedLen; ++j)
                if (j < lo || j >= hi)
                    row[j] = kNegInf;
            contrib::softmaxWithSink(row, stagedLen, sink ? sink[h] : (m_smooth ? 0.0f : kNegInf));
        });
        contrib::storeOutput(ctx, 0, query.dtype(), { B, S, N * H }, y.data());
        if (m_slidingCache) {
            // Keep the L(T) most recent positions at rows [0, L), zeros after them (as onnxruntime's CPU provider).
            std::vector<float> windowK(static_cast<size_t>(B * Nk * presentLen * H), 0.0f),
                windowV(windowK.size(), 0.0f);
            for (int64_t b = 0; b < B; ++b) {
                const int64_t t = totalOf[static_cast<size_t>(b)];
                const int64_t keep = resident(t, presentLen);
                const int64_t from = t - keep - baseOf[static_cast<size_t>(b)];
                for (int64_t h = 0; h < Nk; ++h) {
                    const size_t src = static_cast<size_t>(((b * Nk + h) * stagedLen + from) * H);
                    const size_t dst = static_cast<size_t>((b * Nk + h) * presentLen * H);
                    std::copy_n(presentK.begin() + src, keep * H, windowK.begin() + dst);
                    std::copy_n(presentV.begin() + src, keep * H, windowV.begin() + dst);
                }
            }
            presentK.swap(windowK);
            presentV.swap(windowV);
        }
        const Shape presentShape { B, Nk, presentLen, H };
        if (ctx.hasOutput(1))
            contrib::storeOutput(ctx, 1, query.dtype(), presentShape, presentK.data());
        if (ctx.hasOutput(2))
            contrib::storeOutput(ctx, 2, query.dtype(), presentShape, presentV.data());
    }

private:
    /// The rows a window-sized cache of `capacity` rows holds after `tokens` tokens (onnxruntime's L(T)).
    int64_t resident(int64_t tokens, int64_t capacity) const
    {
        if (tokens <= capacity)
            return tokens;
        const int64_t g = capacity - m_window + 1;
        return tokens - g * ((tokens - capacity + g - 1) / g);
    }

    void applyRotary(const KernelContext& ctx, std::vector<float>& q, std::vector<float>& k, int64_t B, int64_t S,
        int64_t N, int64_t Nk, int64_t H, const std::vector<int64_t>& pastOf, bool firstPrompt) const
    {
        if (!ctx.hasInput(7) || !ctx.hasInput(8))
            throw ctx.error("do_rotary needs cos_cache and sin_cache");
        const Tensor& cosT = ctx.input(7);
        const Tensor& sinT = ctx.input(8);
        if (cosT.rank() != 2 || cosT.shape() != sinT.shape() || cosT.dim(1) * 2 > H)
            throw ctx.error("cos_cache and sin_cache must be [max_position, rotary_dim / 2] with rotary_dim <= "
                + std::to_string(H) + ", got " + shapeToString(cosT.shape()) + " and " + shapeToString(sinT.shape()));
        const int64_t half = cosT.dim(1), maxPos = cosT.dim(0);
        std::vector<float> cb, sb;
        const float* cs = contrib::floats(ctx, cosT, cb, "cos_cache");
        const float* sn = contrib::floats(ctx, sinT, sb, "sin_cache");
        const int64_t* ids = nullptr;
        if (ctx.hasInput(9)) {
            const Tensor& pos = ctx.input(9);
            if (pos.dtype() != DataType::Int64 || pos.shape() != Shape { B, S })
                throw ctx.error("position_ids must be int64 [" + std::to_string(B) + ", " + std::to_string(S)
                    + "], got " + pos.typeString());
            ids = pos.data<int64_t>().data();
        }
        for (int64_t b = 0; b < B; ++b)
            for (int64_t s = 0; s < S; ++s) {
                // A first prompt takes only the first position id, onnxruntime's rule.
                const int64_t position
                    = ids ? (firstPrompt ? ids[0] + s : ids[b * S + s]) : pastOf[static_cast<size_t>(b)] + s;
                if (position < 0 || position >= maxPos)
                    throw ctx.error("position " + std::to_string(position) + " is outside the rotary caches' "
                        + std::to_string(maxPos) + " rows");
                for (int64_t h = 0; h < N; ++h)
                    contrib::rotate(q.data() + ((b * S + s) * N + h) * H, 2 * half, cs + position * half,
                        sn + position * half, m_interleaved);
                for (int64_t h = 0; h < Nk; ++h)
                    contrib::rotate(k.data() + ((b * S + s) * Nk + h) * H, 2 * half, cs + position * half,
                        sn + position * half, m_interleaved);
            }
    }

    int64_t m_heads = 0, m_kvHeads = 0, m_window = -1, m_causal = 1;
    float m_scale = 0, m_softcap = 0;
    bool m_rotary = false, m_interleaved = false, m_smooth = false, m_slidingCache = false;
};

} // namespace

void registerGroupQueryAttention(KernelRegistry& r)
{
    r.add("com.microsoft", "GroupQueryAttention", 1, KernelRegistry::kLatest, makeFactory<GroupQueryAttention>());
}

} // namespace onnxscope
