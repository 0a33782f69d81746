// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/embedding_inputs.h"
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
        : m_epsilon(contrib::embedding::epsilon(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const contrib::embedding::Tokens tok = contrib::embedding::tokens(ctx);
        const int64_t B = tok.B, S = tok.S;
        const Table word = table(ctx, 2, 8, 13, "word_embedding");
        const Table position = table(ctx, 3, 9, 14, "position_embedding");
        const int64_t H = word.hidden;
        const bool segments = tok.segments != nullptr;
        const Table segment = segments ? table(ctx, 4, 10, 15, "segment_embedding") : Table {};
        const Table gamma = table(ctx, 5, 11, 16, "gamma");
        const Table beta = table(ctx, 6, 12, 17, "beta");
        if (position.hidden != H || (segments && segment.hidden != H) || gamma.values.size() != size_t(H)
            || beta.values.size() != size_t(H))
            throw ctx.error("the embeddings, gamma and beta must share the hidden size " + std::to_string(H));
        Tensor& out = ctx.allocateOutputUninitialized(0, DataType::Float, { B, S, H });
        float* y = out.data<float>().data();
        for (int64_t t = 0; t < B * S; ++t) {
            const float* w = word.row(ctx, tok.ids[t], "input_ids");
            const float* p = position.row(ctx, t % S, "position");
            const float* g = segments ? segment.row(ctx, tok.segments[t], "segment_ids") : nullptr;
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
        contrib::embedding::storeMaskIndex(ctx, 1, tok);
    }

private:
    /// A quantized table (or gamma/beta vector) dequantized to float: rows of `hidden` values.
    struct Table {
        std::vector<float> values;
        int64_t rows = 0, hidden = 0;
        const float* row(const KernelContext& ctx, int64_t id, const char* what) const
        {
            return contrib::embedding::row(ctx, values.data(), rows, hidden, id, what);
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
