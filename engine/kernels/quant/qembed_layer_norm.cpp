// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/qlinear_common.h"

#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

/// QEmbedLayerNormalization (com.microsoft 1), the quantized BERT embedding layer, as onnxruntime computes it: for
/// token (b, s), dequantize(word_embedding[input_ids]) + dequantize(position_embedding[s]) (+
/// dequantize(segment_embedding[segment_ids])), layer-normalised in float with dequantized gamma and beta
/// (`epsilon`, default 1e-12). Every table and gamma/beta uint8 or int8 with a per-tensor scale and zero point
/// (real = scale * (q - zero_point)). Outputs: layernorm_out (float [B, S, hidden]) and mask_index (int32 [B], the
/// number of ones in each row of mask; 0 without mask). An id outside its table is refused with the id.
class QEmbedLayerNorm final : public Kernel {
public:
    explicit QEmbedLayerNorm(const KernelInit& init)
        : m_epsilon(init.attributes().getFloat("epsilon", 1e-12f))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& ids = ctx.input(0);
        if (ids.dtype() != DataType::Int32 || ids.rank() != 2)
            throw ctx.error("input_ids must be int32 [B, S], got " + ids.typeString());
        const int64_t B = ids.dim(0), S = ids.dim(1);
        const Table word = table(ctx, 2, 8, 13, "word_embedding");
        const Table position = table(ctx, 3, 9, 14, "position_embedding");
        const int64_t H = word.hidden;
        const bool segments = ctx.hasInput(1);
        if (segments != ctx.hasInput(4))
            throw ctx.error("segment_ids and segment_embedding must be given together");
        const Table segment = segments ? table(ctx, 4, 10, 15, "segment_embedding") : Table {};
        const Table gamma = table(ctx, 5, 11, 16, "gamma");
        const Table beta = table(ctx, 6, 12, 17, "beta");
        if (position.hidden != H || (segments && segment.hidden != H) || gamma.values.size() != size_t(H)
            || beta.values.size() != size_t(H))
            throw ctx.error("the embeddings, gamma and beta must share the hidden size " + std::to_string(H));
        const Shape idShape { B, S };
        const int32_t* seg = nullptr;
        if (segments) {
            const Tensor& t = ctx.input(1);
            if (t.dtype() != DataType::Int32 || t.shape() != idShape)
                throw ctx.error("segment_ids must be int32 " + shapeToString(idShape) + ", got " + t.typeString());
            seg = t.data<int32_t>().data();
        }
        Tensor& out = ctx.allocateOutputUninitialized(0, DataType::Float, { B, S, H });
        float* y = out.data<float>().data();
        const int32_t* idv = ids.data<int32_t>().data();
        for (int64_t t = 0; t < B * S; ++t) {
            const float* w = word.row(ctx, idv[t], "input_ids");
            const float* p = position.row(ctx, t % S, "position");
            const float* g = seg ? segment.row(ctx, seg[t], "segment_ids") : nullptr;
            float* o = y + t * H;
            float sum = 0;
            for (int64_t i = 0; i < H; ++i) {
                float v = w[i] + p[i];
                if (g)
                    v += g[i];
                o[i] = v;
                sum += v;
            }
            const float mean = sum / static_cast<float>(H);
            sum = 0;
            for (int64_t i = 0; i < H; ++i) {
                o[i] -= mean;
                sum += o[i] * o[i];
            }
            const float e = std::sqrt(sum / static_cast<float>(H) + m_epsilon);
            for (int64_t i = 0; i < H; ++i)
                o[i] = o[i] / e * gamma.values[static_cast<size_t>(i)] + beta.values[static_cast<size_t>(i)];
        }
        if (ctx.hasOutput(1)) {
            const int32_t* mask = nullptr;
            if (ctx.hasInput(7)) {
                const Tensor& m = ctx.input(7);
                if (m.dtype() != DataType::Int32 || m.shape() != idShape)
                    throw ctx.error("mask must be int32 " + shapeToString(idShape) + ", got " + m.typeString());
                mask = m.data<int32_t>().data();
            }
            Tensor& mi = ctx.allocateOutput(1, DataType::Int32, { B });
            for (int64_t b = 0; b < B; ++b) {
                int32_t count = 0;
                for (int64_t s = 0; mask && s < S; ++s)
                    count += mask[b * S + s] == 1;
                mi.data<int32_t>()[static_cast<size_t>(b)] = count;
            }
        }
    }

private:
    /// A quantized table (or gamma/beta vector) dequantized to float: rows of `hidden` values.
    struct Table {
        std::vector<float> values;
        int64_t rows = 0, hidden = 0;
        const float* row(const KernelContext& ctx, int64_t id, const char* what) const
        {
            if (id < 0 || id >= rows)
                throw ctx.error(std::string(what) + " " + std::to_string(id) + " is outside its table's "
                    + std::to_string(rows) + " rows");
            return values.data() + id * hidden;
        }
    };

    static Table table(const KernelContext& ctx, size_t data, size_t scale, size_t zero, const char* what)
    {
        const DataType t = qlinear::requireByteType(ctx, data, what);
        const Tensor& q = ctx.input(data);
        const qlinear::Params p = qlinear::params(ctx, scale, zero, t, what);
        Table out;
        out.hidden = q.rank() >= 1 ? q.dim(q.rank() - 1) : 1;
        out.rows = out.hidden == 0 ? 0 : q.size() / out.hidden;
        out.values.resize(static_cast<size_t>(q.size()));
        const auto* src = static_cast<const uint8_t*>(q.raw());
        for (int64_t i = 0; i < q.size(); ++i) {
            const int32_t v = t == DataType::Int8 ? int32_t(static_cast<int8_t>(src[i])) : int32_t(src[i]);
            out.values[static_cast<size_t>(i)] = p.scale * static_cast<float>(v - p.zeroPoint);
        }
        return out;
    }

    float m_epsilon;
};

} // namespace

void registerQEmbedLayerNorm(KernelRegistry& r)
{
    r.add("com.microsoft", "QEmbedLayerNormalization", 1, KernelRegistry::kLatest, makeFactory<QEmbedLayerNorm>());
}

} // namespace onnxscope
