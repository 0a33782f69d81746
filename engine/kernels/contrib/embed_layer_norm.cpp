// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/contrib/embedding_inputs.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

/// EmbedLayerNormalization (com.microsoft 1), BERT's embedding layer: for token (b, s), word_embedding[input_ids] +
/// position_embedding[position id] (+ segment_embedding[segment_ids]), layer-normalised with gamma (and beta). The
/// position id is position_ids[b, s] ([B, S], or [1, S] shared by the batch), else s. Outputs: the normalised
/// embeddings, mask_index (int32 [B], the number of ones in each row of mask, 0 without mask) and embedding_sum (the
/// sum before normalisation). float and float16, computed in double.
class EmbedLayerNorm final : public Kernel {
public:
    explicit EmbedLayerNorm(const KernelInit& init)
        : m_epsilon(contrib::embedding::epsilon(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const contrib::embedding::Tokens tok = contrib::embedding::tokens(ctx);
        const Tensor& words = ctx.input(2);
        const Tensor& positions = ctx.input(3);
        if (words.rank() != 2 || positions.rank() != 2 || positions.dim(1) != words.dim(1))
            throw ctx.error("word_embedding and position_embedding must be [rows, hidden] of one hidden size, got "
                + shapeToString(words.shape()) + " and " + shapeToString(positions.shape()));
        contrib::requireSameType(ctx, words.dtype(), { 3, 4, 5, 6 });
        const int64_t B = tok.B, S = tok.S, H = words.dim(1);
        const Shape idShape { B, S }, hShape { H };
        const int32_t* posIds = nullptr;
        bool sharedPositions = false;
        if (ctx.hasInput(8)) {
            const Tensor& p = ctx.input(8);
            sharedPositions = p.shape() == Shape { 1, S };
            if (p.dtype() != DataType::Int32 || (!sharedPositions && p.shape() != idShape))
                throw ctx.error("position_ids must be int32 [B, S] or [1, S], got " + p.typeString());
            posIds = p.data<int32_t>().data();
        }
        std::vector<float> wb, pb, sb, gb, bb;
        const float* we = contrib::floats(ctx, words, wb, "word_embedding");
        const float* pe = contrib::floats(ctx, positions, pb, "position_embedding");
        const float* se = ctx.hasInput(4) ? contrib::floats(ctx, ctx.input(4), sb, "segment_embedding") : nullptr;
        const float* gamma = contrib::optionalFloats(ctx, 5, gb, "gamma", &hShape);
        if (!gamma)
            throw ctx.error("gamma is required");
        const float* beta = contrib::optionalFloats(ctx, 6, bb, "beta", &hShape);
        if (se && ctx.input(4).dim(1) != H)
            throw ctx.error("segment_embedding must be [rows, " + std::to_string(H) + "]");

        std::vector<float> sum(static_cast<size_t>(B * S * H)), y(sum.size());
        for (int64_t b = 0; b < B; ++b)
            for (int64_t s = 0; s < S; ++s) {
                const int64_t t = b * S + s;
                const float* w = contrib::embedding::row(ctx, we, words.dim(0), H, tok.ids[t], "input_ids");
                const int64_t pid = posIds ? posIds[sharedPositions ? s : t] : s;
                const float* p = contrib::embedding::row(ctx, pe, positions.dim(0), H, pid, "position id");
                const float* g = se
                    ? contrib::embedding::row(ctx, se, ctx.input(4).dim(0), H, tok.segments[t], "segment_ids")
                    : nullptr;
                float* out = sum.data() + t * H;
                double total = 0;
                for (int64_t j = 0; j < H; ++j) {
                    out[j] = w[j] + p[j] + (g ? g[j] : 0.0f);
                    total += out[j];
                }
                const double mean = total / static_cast<double>(H);
                double var = 0;
                for (int64_t j = 0; j < H; ++j)
                    var += (out[j] - mean) * (out[j] - mean);
                const double inv = 1.0 / std::sqrt(var / static_cast<double>(H) + m_epsilon);
                for (int64_t j = 0; j < H; ++j)
                    y[static_cast<size_t>(t * H + j)]
                        = static_cast<float>((out[j] - mean) * inv * gamma[j] + (beta ? beta[j] : 0.0f));
            }
        contrib::storeOutput(ctx, 0, words.dtype(), { B, S, H }, y.data());
        contrib::embedding::storeMaskIndex(ctx, 1, tok);
        if (ctx.hasOutput(2))
            contrib::storeOutput(ctx, 2, words.dtype(), { B, S, H }, sum.data());
    }

private:
    double m_epsilon;
};

} // namespace

void registerEmbedLayerNorm(KernelRegistry& r)
{
    r.add("com.microsoft", "EmbedLayerNormalization", 1, KernelRegistry::kLatest, makeFactory<EmbedLayerNorm>());
}

} // namespace onnxscope
