// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// MRotaryEmbedding (com.microsoft 1), the multimodal rotary embedding of Qwen2-VL and its successors: as
/// RotaryEmbedding, but each token has three positions (temporal, height, width; position_ids [3, B, S] int64) and
/// element i of the half rotary width takes its cos/sin from the cache row of one of them, chosen by mrope_section
/// [t, h, w] (t + h + w = rotary_dim / 2): mrope_layout 0 gives the first t elements the temporal position, the
/// next h the height and the last w the width; mrope_layout 1 gives i the height when i % 3 == 1 and i < 3h, the
/// width when i % 3 == 2 and i < 3w, else the temporal position. input [B, S, N*H] or [B, N, S, H]; interleaved,
/// rotary_embedding_dim (with num_heads) as RotaryEmbedding. scale multiplies the rotated elements (the
/// others are copied), as onnxruntime's CPU kernel does; is_packed_batching is accepted without effect, as there.
/// float, float16, bfloat16, computed in float.
class MRotaryEmbedding final : public Kernel {
public:
    explicit MRotaryEmbedding(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_interleaved = a.getInt("interleaved", 0) != 0;
        m_rotaryDim = a.getInt("rotary_embedding_dim", 0);
        m_heads = a.getInt("num_heads", 0);
        m_layout = a.getInt("mrope_layout", 0);
        m_scale = a.getFloat("scale", 1.0f);
        if (!a.has("mrope_section"))
            throw a.error("mrope_section", "is required: 3 non-negative integers [t, h, w]");
        m_section = a.getInts("mrope_section");
        if (m_section.size() != 3 || m_section[0] < 0 || m_section[1] < 0 || m_section[2] < 0)
            throw a.error("mrope_section", "must be 3 non-negative integers [t, h, w]");
        if (m_layout != 0 && m_layout != 1)
            throw a.error("mrope_layout", "must be 0 (sectioned) or 1 (interleaved), got " + std::to_string(m_layout));
        if (m_rotaryDim < 0 || m_rotaryDim % 2)
            throw a.error("rotary_embedding_dim", "must be even and non-negative");
        if (m_heads < 0)
            throw a.error("num_heads", "must be non-negative");
        if (m_rotaryDim > 0 && m_heads == 0)
            throw a.error("num_heads", "is required with rotary_embedding_dim");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& pos = ctx.input(1);
        const Tensor& cosT = ctx.input(2);
        const Tensor& sinT = ctx.input(3);
        if (x.rank() != 3 && x.rank() != 4)
            throw ctx.error("input must be 3-D [B, S, hidden] or 4-D [B, N, S, H], got " + shapeToString(x.shape()));
        if (cosT.rank() != 2 || cosT.shape() != sinT.shape())
            throw ctx.error("cos_cache " + shapeToString(cosT.shape()) + " and sin_cache " + shapeToString(sinT.shape())
                + " must be 2-D of the same shape");
        contrib::requireSameType(ctx, x.dtype(), { 2, 3 });
        const bool transposed = x.rank() == 4;
        const int64_t b = x.dim(0), s = transposed ? x.dim(2) : x.dim(1);
        const int64_t hidden = transposed ? x.dim(1) * x.dim(3) : x.dim(2);
        int64_t head = transposed ? x.dim(3) : 0;
        if (!transposed)
            head = m_heads ? (hidden % m_heads ? 0 : hidden / m_heads) : cosT.dim(1) * 2;
        if (head <= 0 || hidden % head)
            throw ctx.error("hidden size " + std::to_string(hidden) + " is not a multiple of the head size "
                + std::to_string(head) + (m_heads ? "" : " (twice the caches' width, without num_heads)"));
        const int64_t heads = hidden / head;
        const int64_t rd = m_rotaryDim ? m_rotaryDim : head, half = rd / 2;
        if (rd > head)
            throw ctx.error(
                "rotary_embedding_dim " + std::to_string(rd) + " exceeds the head size " + std::to_string(head));
        if (cosT.dim(1) != half)
            throw ctx.error(
                "the caches must be [max_position, " + std::to_string(half) + "], got " + shapeToString(cosT.shape()));
        if (m_section[0] + m_section[1] + m_section[2] != half)
            throw ctx.error("mrope_section [" + std::to_string(m_section[0]) + ", " + std::to_string(m_section[1])
                + ", " + std::to_string(m_section[2]) + "] must add up to the half rotary width "
                + std::to_string(half));
        if (pos.dtype() != DataType::Int64)
            throw ctx.error("position_ids must be int64, got " + pos.typeString());
        if (pos.shape() != Shape { 3, b, s })
            throw ctx.error("position_ids must be [3, " + std::to_string(b) + ", " + std::to_string(s) + "], got "
                + shapeToString(pos.shape()));
        const int64_t maxPos = cosT.dim(0);
        const int64_t* p = pos.data<int64_t>().data();
        for (int64_t i = 0; i < 3 * b * s; ++i)
            if (p[i] < 0 || p[i] >= maxPos)
                throw ctx.error("position_ids[" + std::to_string(i / (b * s)) + ", " + std::to_string(i % (b * s) / s)
                    + ", " + std::to_string(i % s) + "] = " + std::to_string(p[i]) + " is outside the caches' "
                    + std::to_string(maxPos) + " rows");
        // The stream (0 temporal, 1 height, 2 width) of each element of the half rotary width.
        std::vector<int> stream(static_cast<size_t>(half), 0);
        for (int64_t i = 0; i < half; ++i) {
            if (m_layout == 0)
                stream[static_cast<size_t>(i)] = i < m_section[0] ? 0 : (i < m_section[0] + m_section[1] ? 1 : 2);
            else if (i % 3 == 1 && i < 3 * m_section[1])
                stream[static_cast<size_t>(i)] = 1;
            else if (i % 3 == 2 && i < 3 * m_section[2])
                stream[static_cast<size_t>(i)] = 2;
        }
        std::vector<float> xb, cb, sb;
        const float* in = contrib::floats(ctx, x, xb, "input");
        const float* cs = contrib::floats(ctx, cosT, cb, "cos_cache");
        const float* sn = contrib::floats(ctx, sinT, sb, "sin_cache");
        std::vector<float> y(in, in + x.size()), c(static_cast<size_t>(half)), sv(static_cast<size_t>(half));
        for (int64_t bi = 0; bi < b; ++bi)
            for (int64_t si = 0; si < s; ++si) {
                for (int64_t i = 0; i < half; ++i) {
                    const int64_t row = p[(stream[static_cast<size_t>(i)] * b + bi) * s + si];
                    c[static_cast<size_t>(i)] = cs[row * half + i];
                    sv[static_cast<size_t>(i)] = sn[row * half + i];
                }
                for (int64_t hi = 0; hi < heads; ++hi) {
                    const int64_t off
                        = transposed ? ((bi * heads + hi) * s + si) * head : ((bi * s + si) * heads + hi) * head;
                    for (int64_t i = 0; i < half; ++i) {
                        const int64_t ia = m_interleaved ? 2 * i : i, ib = m_interleaved ? 2 * i + 1 : i + half;
                        const float av = in[off + ia], bv = in[off + ib];
                        y[static_cast<size_t>(off + ia)]
                            = m_scale * (av * c[static_cast<size_t>(i)] - bv * sv[static_cast<size_t>(i)]);
                        y[static_cast<size_t>(off + ib)]
                            = m_scale * (bv * c[static_cast<size_t>(i)] + av * sv[static_cast<size_t>(i)]);
                    }
                }
            }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
    }

private:
    bool m_interleaved = false;
    int64_t m_rotaryDim = 0, m_heads = 0, m_layout = 0;
    float m_scale = 1.0f;
    std::vector<int64_t> m_section;
};

} // namespace

void registerLlmRotary(KernelRegistry& r)
{
    r.add("com.microsoft", "MRotaryEmbedding", 1, KernelRegistry::kLatest, makeFactory<MRotaryEmbedding>());
}

} // namespace onnxscope
