// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <optional>

namespace onnxscope {

namespace {

/// RotaryEmbedding 23: rotates the first rotary_embedding_dim (default: all) elements of every head of X
/// ([B, H, S, D], or [B, S, H*D] with num_heads) by the angles of cos_cache/sin_cache: pairs (x[i], x[i + rd/2]), or
/// (x[2i], x[2i+1]) with interleaved, become (cos·a - sin·b, sin·a + cos·b). The caches are [max_position, rd/2]
/// indexed by position_ids [B, S], or [B, S, rd/2] without position_ids. float, float16, bfloat16, computed in float.
class RotaryEmbedding final : public Kernel {
public:
    explicit RotaryEmbedding(const KernelInit& init)
        : m_interleaved(init.attributes().getInt("interleaved", 0) != 0)
        , m_rotaryDim(init.attributes().getInt("rotary_embedding_dim", 0))
    {
        if (init.attributes().has("num_heads"))
            m_heads = init.attributes().requireInt("num_heads");
        if (m_rotaryDim < 0 || m_rotaryDim % 2)
            throw init.attributes().error("rotary_embedding_dim", "must be even and non-negative");
        if (m_heads && *m_heads <= 0)
            throw init.attributes().error("num_heads", "must be positive");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& cosT = ctx.input(1);
        const Tensor& sinT = ctx.input(2);
        if (x.rank() != 3 && x.rank() != 4)
            throw ctx.error("X must be 3-D or 4-D, got " + shapeToString(x.shape()));
        const bool packed = x.rank() == 3;
        if (packed && !m_heads)
            throw ctx.error("3-D input needs the attribute num_heads");
        const int64_t b = x.dim(0), s = packed ? x.dim(1) : x.dim(2);
        const int64_t h = packed ? *m_heads : x.dim(1);
        if (packed && x.dim(2) % h)
            throw ctx.error("hidden size " + std::to_string(x.dim(2)) + " is not a multiple of num_heads");
        const int64_t d = packed ? x.dim(2) / h : x.dim(3);
        const int64_t rd = m_rotaryDim ? m_rotaryDim : d, half = rd / 2;
        if (rd > d || rd % 2)
            throw ctx.error("rotary dimension " + std::to_string(rd) + " does not fit head size " + std::to_string(d));
        const bool hasPos = ctx.hasInput(3);
        const Shape cacheShape = hasPos ? Shape { cosT.rank() == 2 ? cosT.dim(0) : 0, half } : Shape { b, s, half };
        if (cosT.shape() != cacheShape || sinT.shape() != cacheShape || cosT.dtype() != x.dtype()
            || sinT.dtype() != x.dtype())
            throw ctx.error("cos_cache " + cosT.typeString() + " and sin_cache " + sinT.typeString()
                + " must both be of X's type and shape " + (hasPos ? "[max_position, " : "[B, S, ")
                + std::to_string(half) + "]");
        std::vector<int64_t> rows(static_cast<size_t>(b * s)); // cache row of (batch, position)
        for (int64_t i = 0; i < b * s; ++i)
            rows[static_cast<size_t>(i)] = i;
        if (hasPos) {
            const Tensor& pos = ctx.input(3);
            if (pos.dtype() != DataType::Int64 || pos.shape() != Shape { b, s })
                throw ctx.error("position_ids must be int64 of shape [" + std::to_string(b) + ", " + std::to_string(s)
                    + "], got " + pos.typeString());
            for (int64_t i = 0; i < b * s; ++i) {
                const int64_t p = pos.data<int64_t>()[static_cast<size_t>(i)];
                if (p < 0 || p >= cacheShape[0])
                    throw ctx.error("position id " + std::to_string(p) + " is outside the caches' "
                        + std::to_string(cacheShape[0]) + " rows");
                rows[static_cast<size_t>(i)] = p;
            }
        }
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        dispatch<TypeList<float, Float16, BFloat16>>(x.dtype(), ctx.node(), [&]<class T>() {
            const T* in = x.data<T>().data();
            const T* cs = cosT.data<T>().data();
            const T* sn = sinT.data<T>().data();
            T* out = y.data<T>().data();
            for (int64_t bi = 0; bi < b; ++bi)
                for (int64_t hi = 0; hi < h; ++hi)
                    for (int64_t si = 0; si < s; ++si) {
                        const int64_t off = packed ? ((bi * s + si) * h + hi) * d : ((bi * h + hi) * s + si) * d;
                        const int64_t row = rows[static_cast<size_t>(bi * s + si)] * half;
                        const T* xi = in + off;
                        T* yo = out + off;
                        for (int64_t i = 0; i < half; ++i) {
                            const int64_t ia = m_interleaved ? 2 * i : i, ib = m_interleaved ? 2 * i + 1 : i + half;
                            const float a = static_cast<float>(xi[ia]), bv = static_cast<float>(xi[ib]);
                            const float c = static_cast<float>(cs[row + i]), sv = static_cast<float>(sn[row + i]);
                            yo[ia] = static_cast<T>(c * a - sv * bv);
                            yo[ib] = static_cast<T>(sv * a + c * bv);
                        }
                        for (int64_t i = rd; i < d; ++i)
                            yo[i] = xi[i];
                    }
        });
    }

private:
    bool m_interleaved;
    int64_t m_rotaryDim;
    std::optional<int64_t> m_heads;
};

} // namespace

void registerRotaryEmbedding(KernelRegistry& r)
{
    r.add("", "RotaryEmbedding", 23, 23, makeFactory<RotaryEmbedding>());
}

} // namespace onnxscope
