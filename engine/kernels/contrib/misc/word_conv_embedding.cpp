// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

/// WordConvEmbedding (com.microsoft 1): a character-CNN word embedding. Sequence [S, L] int32 holds each word's
/// character ids; W [M, 1, F, E] float the filters, B [M] their bias, C [V, E] the character embeddings. A word's
/// length n is the number of its ids > 0 (0 when its first id is not > 0). For a word with n > 0, its first max(n, F)
/// characters are embedded (rows of C) and Y[s, m] = max over windows u in [0, max(n, F) - F] of
/// tanh(B[m] + sum over k < F, e < E of C[id[s, u + k], e] * W[m, 0, k, e]); a word of length 0 gives 0.
/// Attributes embedding_size (M), conv_window_size (F) and char_embedding_size (E) are optional checks. A filter
/// wider than L, or a character id that the windows read outside [0, V), is refused (onnxruntime would read
/// outside its buffers).
class WordConvEmbedding final : public Kernel {
public:
    explicit WordConvEmbedding(const KernelInit& init)
        : m_embeddingSize(init.attributes().getInt("embedding_size", -1))
        , m_windowSize(init.attributes().getInt("conv_window_size", -1))
        , m_charSize(init.attributes().getInt("char_embedding_size", -1))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& seq = ctx.input(0);
        const Tensor& w = ctx.input(1);
        const Tensor& b = ctx.input(2);
        const Tensor& table = ctx.input(3);
        if (seq.dtype() != DataType::Int32 || seq.rank() != 2)
            throw ctx.error("Sequence must be int32 [sequence, word length], got " + seq.typeString());
        if (w.dtype() != DataType::Float || w.rank() != 4 || w.dim(1) != 1)
            throw ctx.error("W must be float [filters, 1, window, char embedding size], got " + w.typeString());
        if (table.dtype() != DataType::Float || table.rank() != 2 || table.dim(1) != w.dim(3))
            throw ctx.error("C must be float [characters, " + std::to_string(w.dim(3)) + "] (W's last dimension), got "
                + table.typeString());
        const int64_t S = seq.dim(0), L = seq.dim(1), M = w.dim(0), F = w.dim(2), E = w.dim(3), V = table.dim(0);
        if (b.dtype() != DataType::Float || b.shape() != Shape { M })
            throw ctx.error("B must be float [" + std::to_string(M) + "], got " + b.typeString());
        check(ctx, "embedding_size", m_embeddingSize, M, "W's filter count");
        check(ctx, "conv_window_size", m_windowSize, F, "W's window");
        check(ctx, "char_embedding_size", m_charSize, E, "C's embedding size");
        if (F < 1 || F > L)
            throw ctx.error("W's window " + std::to_string(F) + " must be in [1, " + std::to_string(L)
                + "] (the word length of Sequence)");
        const int32_t* ids = seq.data<int32_t>().data();
        const float* wf = w.data<float>().data();
        const float* bias = b.data<float>().data();
        const float* emb = table.data<float>().data();
        Tensor& y = ctx.allocateOutput(0, DataType::Float, { S, M });
        float* out = y.data<float>().data();
        for (int64_t s = 0; s < S; ++s) {
            const int32_t* word = ids + s * L;
            int64_t n = 0;
            if (word[0] > 0)
                for (int64_t c = 0; c < L; ++c)
                    n += word[c] > 0;
            if (n == 0)
                continue;
            const int64_t used = std::max(n, F);
            for (int64_t c = 0; c < used; ++c)
                if (word[c] < 0 || word[c] >= V)
                    throw ctx.error("character id " + std::to_string(word[c]) + " of word " + std::to_string(s)
                        + " is outside C's " + std::to_string(V) + " rows");
            float* o = out + s * M;
            std::fill(o, o + M, -1e12f);
            for (int64_t u = 0; u + F <= used; ++u) {
                for (int64_t m = 0; m < M; ++m) {
                    double sum = 0;
                    for (int64_t k = 0; k < F; ++k) {
                        const float* e = emb + static_cast<int64_t>(word[u + k]) * E;
                        const float* f = wf + (m * F + k) * E;
                        for (int64_t j = 0; j < E; ++j)
                            sum += static_cast<double>(e[j]) * f[j];
                    }
                    o[m] = std::max(o[m], std::tanh(static_cast<float>(sum) + bias[m]));
                }
            }
        }
    }

private:
    static void check(const KernelContext& ctx, const char* attribute, int64_t value, int64_t actual, const char* what)
    {
        if (value != -1 && value != actual)
            throw ctx.error(std::string("attribute '") + attribute + "' is " + std::to_string(value) + " but " + what
                + " is " + std::to_string(actual));
    }

    int64_t m_embeddingSize, m_windowSize, m_charSize;
};

} // namespace

void registerWordConvEmbedding(KernelRegistry& r)
{
    r.add("com.microsoft", "WordConvEmbedding", 1, KernelRegistry::kLatest, makeFactory<WordConvEmbedding>());
}

} // namespace onnxscope
