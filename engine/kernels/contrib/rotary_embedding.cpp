// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <vector>

namespace onnxscope {

namespace {

/// RotaryEmbedding (com.microsoft 1): rotates the first rotary_embedding_dim elements of every head of input
/// ([B, S, N*H], or [B, N, S, H]) by the angles of cos_cache/sin_cache [max_position, rd/2]: pairs (x[i], x[i+rd/2]),
/// or (x[2i], x[2i+1]) when interleaved, become (cos·a - sin·b, sin·a + cos·b). position_ids is [B, S], or one value
/// p0 giving the positions p0 + s. Without rotary_embedding_dim the head size is twice the caches' width; num_heads
/// is then optional. The other elements of a head are copied. scale and is_packed_batching are accepted and, as in
/// onnxruntime's CPU provider, have no effect. float, float16, bfloat16, computed in float.
class ContribRotaryEmbedding final : public Kernel {
public:
    explicit ContribRotaryEmbedding(const KernelInit& init)
        : m_interleaved(init.attributes().getInt("interleaved", 0) != 0)
        , m_rotaryDim(init.attributes().getInt("rotary_embedding_dim", 0))
        , m_heads(init.attributes().getInt("num_heads", 0))
    {
        if (m_rotaryDim < 0 || m_rotaryDim % 2)
            throw init.attributes().error("rotary_embedding_dim", "must be even and non-negative");
        if (m_heads < 0)
            throw init.attributes().error("num_heads", "must be non-negative");
        if (m_rotaryDim > 0 && m_heads == 0)
            throw init.attributes().error("num_heads", "is required with rotary_embedding_dim");
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
        const int64_t head = m_rotaryDim == 0 ? cosT.dim(1) * 2 : (m_heads ? hidden / m_heads : 0);
        if (head <= 0 || hidden % head)
            throw ctx.error("hidden size " + std::to_string(hidden) + " is not a multiple of the head size "
                + std::to_string(head));
        const int64_t heads = transposed ? x.dim(1) : hidden / head;
        if (transposed && head != x.dim(3))
            throw ctx.error("head size " + std::to_string(x.dim(3)) + " of the input differs from the caches' "
                + std::to_string(head));
        const int64_t rd = m_rotaryDim ? m_rotaryDim : head, half = rd / 2;
        if (rd > head)
            throw ctx.error(
                "rotary_embedding_dim " + std::to_string(rd) + " exceeds the head size " + std::to_string(head));
        if (cosT.dim(1) != half)
            throw ctx.error(
                "the caches must be [max_position, " + std::to_string(half) + "], got " + shapeToString(cosT.shape()));
        if (pos.dtype() != DataType::Int64)
            throw ctx.error("position_ids must be int64, got " + pos.typeString());
        const bool single = pos.size() == 1 && pos.rank() <= 1;
        if (!single && pos.shape() != Shape { b, s })
            throw ctx.error("position_ids must be [1] or [" + std::to_string(b) + ", " + std::to_string(s) + "], got "
                + shapeToString(pos.shape()));
        const int64_t maxPos = cosT.dim(0);
        std::vector<int64_t> rows(static_cast<size_t>(b * s));
        for (int64_t i = 0; i < b * s; ++i) {
            const int64_t p = single ? pos.data<int64_t>()[0] + i % s : pos.data<int64_t>()[static_cast<size_t>(i)];
            if (p < 0 || p >= maxPos)
                throw ctx.error(
                    "position " + std::to_string(p) + " is outside the caches' " + std::to_string(maxPos) + " rows");
            rows[static_cast<size_t>(i)] = p;
        }
        std::vector<float> xb, cb, sb;
        const float* in = contrib::floats(ctx, x, xb, "input");
        const float* cs = contrib::floats(ctx, cosT, cb, "cos_cache");
        const float* sn = contrib::floats(ctx, sinT, sb, "sin_cache");
        std::vector<float> y(in, in + x.size());
        for (int64_t bi = 0; bi < b; ++bi)
            for (int64_t hi = 0; hi < heads; ++hi)
                for (int64_t si = 0; si < s; ++si) {
                    const int64_t off
                        = transposed ? ((bi * heads + hi) * s + si) * head : ((bi * s + si) * heads + hi) * head;
                    const int64_t row = rows[static_cast<size_t>(bi * s + si)] * half;
                    for (int64_t i = 0; i < half; ++i) {
                        const int64_t ia = m_interleaved ? 2 * i : i, ib = m_interleaved ? 2 * i + 1 : i + half;
                        const float a = in[off + ia], bv = in[off + ib];
                        y[static_cast<size_t>(off + ia)] = a * cs[row + i] - bv * sn[row + i];
                        y[static_cast<size_t>(off + ib)] = bv * cs[row + i] + a * sn[row + i];
                    }
                }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
    }

private:
    bool m_interleaved;
    int64_t m_rotaryDim;
    int64_t m_heads;
};

} // namespace

void registerContribRotaryEmbedding(KernelRegistry& r)
{
    r.add("com.microsoft", "RotaryEmbedding", 1, KernelRegistry::kLatest, makeFactory<ContribRotaryEmbedding>());
}

} // namespace onnxscope
