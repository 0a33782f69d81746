// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/contrib/llm/kv_cache_attention.h"
#include "engine/kernels/kernel_registry.h"

#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// DecoderMaskedMultiHeadAttention (com.microsoft 1): one decoding step (query [B, 1, D], or packed QKV [B, 1, 3D]
/// without key and value). Self attention: key [B, 1, D] and value [B, 1, Dv] plus bias [2D + Dv] are appended to
/// past_key/past_value, which with past_present_share_buffer are buffers [B, N, M, H] whose first
/// past_sequence_length rows are valid (the new row goes there, presents are [B, N, M, H]), else [B, N, P, H]
/// (presents [B, N, P + 1, H]). beam_width and cache_indirection [B/W, W, M] read past rows from the beam each
/// came from. Cross attention: key and value [B, N, L, H] already projected, no past and no presents; bias then
/// only adds to the query (its key and value parts must be zero). mask_index [B, T] (0 masks, or [B] key lengths
/// / [B, S, T] as MultiHeadAttention), attention_bias [B or 1, N or 1, 1, T], qk output (output_qk = 1): the
/// scaled, biased, masked Q·Kᵀ. float, float16, bfloat16, computed in float.
class DecoderMaskedMultiHeadAttention final : public Kernel {
public:
    explicit DecoderMaskedMultiHeadAttention(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_heads = a.requireInt("num_heads");
        m_scale = a.getFloat("scale", 0.0f);
        m_filter = a.getFloat("mask_filter_value", -10000.0f);
        m_shared = a.getInt("past_present_share_buffer", 0) != 0;
        m_outputQk = a.getInt("output_qk", 0) != 0;
        if (m_heads <= 0)
            throw a.error("num_heads", "must be positive");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& query = ctx.input(0);
        contrib::requireSameType(ctx, query.dtype(), { 1, 2, 4, 5, 6, 10 });
        if (ctx.hasOutput(3) && !m_outputQk)
            throw ctx.error("the qk output is wired but output_qk is 0; set output_qk = 1 to produce it");
        const int64_t N = m_heads;
        if (query.rank() != 3 || query.dim(1) != 1)
            throw ctx.error(
                "query must be [batch, 1, hidden] (one decoding step), got " + shapeToString(query.shape()));
        const int64_t B = query.dim(0);
        const bool packed = !ctx.hasInput(1) && !ctx.hasInput(2);
        const bool cross = ctx.hasInput(1) && ctx.input(1).rank() == 4;
        if (ctx.hasInput(1) != ctx.hasInput(2))
            throw ctx.error("key and value must be given together (or neither, for packed QKV query)");
        int64_t D = 0, Dv = 0, L = 1;
        if (packed) {
            if (query.dim(2) % 3 || (query.dim(2) / 3) % N)
                throw ctx.error("packed QKV query [B, 1, 3 * hidden] needs hidden a multiple of num_heads, got "
                    + shapeToString(query.shape()));
            D = Dv = query.dim(2) / 3;
        } else if (cross) {
            const Tensor& key = ctx.input(1);
            const Tensor& value = ctx.input(2);
            D = query.dim(2);
            if (D % N || key.dim(0) != B || key.dim(1) != N || key.dim(3) != D / N || value.rank() != 4
                || value.dim(0) != B || value.dim(1) != N || value.dim(2) != key.dim(2))
                throw ctx.error("cross attention key [B, N, L, H] and value [B, N, L, Hv] do not fit query "
                    + shapeToString(query.shape()) + ": got " + shapeToString(key.shape()) + " and "
                    + shapeToString(value.shape()));
            L = key.dim(2);
            Dv = value.dim(3) * N;
        } else {
            const Tensor& key = ctx.input(1);
            const Tensor& value = ctx.input(2);
            D = query.dim(2);
            if (D % N || key.rank() != 3 || key.dim(0) != B || key.dim(1) != 1 || key.dim(2) != D || value.rank() != 3
                || value.dim(0) != B || value.dim(1) != 1 || value.dim(2) % N)
                throw ctx.error("self attention key [B, 1, hidden] and value [B, 1, v_hidden] do not fit query "
                    + shapeToString(query.shape()) + ": got " + shapeToString(key.shape()) + " and "
                    + shapeToString(value.shape()));
            Dv = value.dim(2);
        }
        if (D % N || Dv % N)
            throw ctx.error("hidden sizes " + std::to_string(D) + " and " + std::to_string(Dv)
                + " are not multiples of num_heads " + std::to_string(N));
        const int64_t H = D / N, Hv = Dv / N;

        std::vector<float> qb, kb, vb, biasBuf;
        const Shape biasShape { 2 * D + Dv };
        const float* bias = contrib::optionalFloats(ctx, 10, biasBuf, "bias", &biasShape);
        const float* in = contrib::floats(ctx, query, qb, "query");
        const float* kIn
            = packed ? in + D : (ctx.hasInput(1) ? contrib::floats(ctx, ctx.input(1), kb, "key") : nullptr);
        const float* vIn
            = packed ? in + 2 * D : (ctx.hasInput(2) ? contrib::floats(ctx, ctx.input(2), vb, "value") : nullptr);
        const int64_t rowStride = packed ? 3 * D : D, vRowStride = packed ? 3 * D : Dv;
        std::vector<float> q(static_cast<size_t>(B * D)), k(static_cast<size_t>(B * L * D)),
            v(static_cast<size_t>(B * L * Dv));
        for (int64_t b = 0; b < B; ++b) {
            for (int64_t i = 0; i < D; ++i)
                q[static_cast<size_t>(b * D + i)] = in[b * rowStride + i] + (bias ? bias[i] : 0.0f);
            if (cross)
                continue;
            for (int64_t i = 0; i < D; ++i) // [B, 1, N, H] is [B, N, 1, H]
                k[static_cast<size_t>(b * D + i)] = kIn[b * rowStride + i] + (bias ? bias[D + i] : 0.0f);
            for (int64_t i = 0; i < Dv; ++i)
                v[static_cast<size_t>(b * Dv + i)] = vIn[b * vRowStride + i] + (bias ? bias[2 * D + i] : 0.0f);
        }
        if (cross) {
            if (bias)
                for (int64_t i = D; i < 2 * D + Dv; ++i)
                    if (bias[i] != 0.0f)
                        throw ctx.error("bias adds to key and value, but in cross attention they are already "
                                        "projected [B, N, L, H]; its key/value part must be zero (bias["
                            + std::to_string(i) + "] is not)");
            std::copy(kIn, kIn + B * L * D, k.begin());
            std::copy(vIn, vIn + B * L * Dv, v.begin());
        }

        contrib::KvCacheStep st;
        st.batch = B;
        st.heads = N;
        st.qLen = 1;
        st.newLen = L;
        st.headSize = H;
        st.vHeadSize = Hv;
        st.q = q.data();
        st.k = k.data();
        st.v = v.data();
        st.scale = m_scale;
        st.filter = m_filter;
        std::vector<float> pkb, pvb;
        if (ctx.hasInput(5) != ctx.hasInput(6))
            throw ctx.error("past_key and past_value must be given together");
        if (cross) {
            if (ctx.hasInput(5) || ctx.hasOutput(1) || ctx.hasOutput(2))
                throw ctx.error("cross attention (key and value [B, N, L, H]) takes no past_key/past_value and "
                                "gives no present_key/present_value");
        } else if (ctx.hasInput(5)) {
            const Tensor& pk = ctx.input(5);
            const Tensor& pv = ctx.input(6);
            if (pk.rank() != 4 || pk.dim(0) != B || pk.dim(1) != N || pk.dim(3) != H || pv.rank() != 4 || pv.dim(0) != B
                || pv.dim(1) != N || pv.dim(2) != pk.dim(2) || pv.dim(3) != Hv)
                throw ctx.error("past_key [B, N, M, H] and past_value [B, N, M, Hv] do not fit, got "
                    + shapeToString(pk.shape()) + " and " + shapeToString(pv.shape()));
            st.pastK = contrib::floats(ctx, pk, pkb, "past_key");
            st.pastV = contrib::floats(ctx, pv, pvb, "past_value");
            st.pastRows = st.pastLen = pk.dim(2);
            if (m_shared) {
                if (!ctx.hasInput(7))
                    throw ctx.error("past_present_share_buffer = 1 needs the past_sequence_length input");
                const Tensor& len = ctx.input(7);
                if (len.dtype() != DataType::Int32 || len.size() != 1)
                    throw ctx.error("past_sequence_length must be one int32 value, got " + len.typeString() + " "
                        + shapeToString(len.shape()));
                st.shared = true;
                st.pastLen = len.data<int32_t>()[0];
            }
        } else if (m_shared) {
            throw ctx.error("past_present_share_buffer = 1 needs past_key and past_value (the shared buffers)");
        }

        int64_t beams = 1;
        if (ctx.hasInput(8)) {
            const Tensor& bw = ctx.input(8);
            if (bw.dtype() != DataType::Int32 || bw.size() != 1 || bw.data<int32_t>()[0] <= 0)
                throw ctx.error("beam_width must be one positive int32 value");
            beams = bw.data<int32_t>()[0];
        }
        if (ctx.hasInput(9) && !cross) {
            if (!st.shared)
                throw ctx.error("cache_indirection needs past_present_share_buffer = 1 with past_key/past_value");
            const Tensor& ci = ctx.input(9);
            if (ci.dtype() != DataType::Int32 || ci.rank() != 3 || ci.dim(1) != beams || ci.dim(0) * beams != B
                || ci.dim(2) != st.pastRows)
                throw ctx.error("cache_indirection must be int32 [batch, beam_width, max_sequence_length] = ["
                    + std::to_string(B / beams) + ", " + std::to_string(beams) + ", " + std::to_string(st.pastRows)
                    + "], got " + ci.typeString() + " " + shapeToString(ci.shape()));
            st.cacheIndirection = ci.data<int32_t>().data();
            st.beams = beams;
            st.indirectionLen = ci.dim(2);
        } else if (beams > 1 && !cross) {
            throw ctx.error("beam_width " + std::to_string(beams) + " > 1 needs the cache_indirection input");
        }
        contrib::runKvCacheAttention(ctx, st, query.dtype(), 3, 4, 1, 3);
    }

private:
    int64_t m_heads = 0;
    float m_scale = 0, m_filter = -10000.0f;
    bool m_shared = false, m_outputQk = false;
};

} // namespace

void registerLlmAttention(KernelRegistry& r)
{
    r.add("com.microsoft", "DecoderMaskedMultiHeadAttention", 1, KernelRegistry::kLatest,
        makeFactory<DecoderMaskedMultiHeadAttention>());
}

} // namespace onnxscope
