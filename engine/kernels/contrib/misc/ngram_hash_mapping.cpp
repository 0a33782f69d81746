// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <type_traits>
#include <vector>

namespace onnxscope {

namespace {

/// NGramHashMapping (com.microsoft 1), Engram's n-gram hash ids. input_ids [B, S] (int32 or int64, type M); every
/// other id input of type M. For token t, order n in [2, max_ngram_size] and head h < n_head_per_ngram:
///   mix = XOR over k < n of (id[t - k] * multipliers[k]), wrapping in M;
///   hash_ids[b, t, (n - 2) * heads + h] = (mix mod vocab_sizes[j]) + head_offsets[j] (j that index; the modulo is
///   non-negative, the offset wraps in M).
/// An id before the chunk comes from past_ids [B, max_ngram_size - 1] (right-aligned), else the fill: eos_token_id
/// when given, else pad_id. With reset_on_eos != 0 and eos_token_id given, every id at or before the most recent
/// EOS strictly before t (past_ids included) reads as eos_token_id. With segment_ids (int32 [B, S]), every id
/// before the start of t's segment in this chunk reads as the fill. present_ids: the last max_ngram_size - 1 ids of
/// past_ids (or the fill) followed by input_ids. A vocabulary size not positive is refused, as onnxruntime's CPU
/// kernel refuses it.
class NGramHashMapping final : public Kernel {
public:
    explicit NGramHashMapping(const KernelInit& init)
        : m_maxN(init.attributes().requireInt("max_ngram_size"))
        , m_heads(init.attributes().requireInt("n_head_per_ngram"))
        , m_pad(init.attributes().requireInt("pad_id"))
        , m_resetOnEos(init.attributes().getInt("reset_on_eos", 0) != 0)
    {
        if (m_maxN < 2)
            throw init.attributes().error("max_ngram_size", "must be at least 2, got " + std::to_string(m_maxN));
        if (m_heads < 1)
            throw init.attributes().error("n_head_per_ngram", "must be positive, got " + std::to_string(m_heads));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& ids = ctx.input(0);
        if (ids.rank() != 2 || (ids.dtype() != DataType::Int32 && ids.dtype() != DataType::Int64))
            throw ctx.error("input_ids must be int32 or int64 [batch, sequence], got " + ids.typeString());
        if (ids.dtype() == DataType::Int32)
            run<int32_t>(ctx);
        else
            run<int64_t>(ctx);
    }

private:
    template <class T> void run(KernelContext& ctx) const
    {
        using U = std::make_unsigned_t<T>;
        const Tensor& ids = ctx.input(0);
        const int64_t B = ids.dim(0), S = ids.dim(1), P = m_maxN - 1, J = P * m_heads;
        const auto typed = [&](size_t i, const char* what, const Shape* shape, int64_t minSize) -> const T* {
            if (!ctx.hasInput(i))
                return nullptr;
            const Tensor& t = ctx.input(i);
            if (t.dtype() != ids.dtype() || (shape && t.shape() != *shape) || (!shape && t.size() < minSize))
                throw ctx.error(std::string(what) + " must be " + std::string(dataTypeName(ids.dtype())) + " "
                    + (shape ? shapeToString(*shape) : "of at least " + std::to_string(minSize) + " elements")
                    + " (input_ids' type), got " + t.typeString());
            return t.data<T>().data();
        };
        const Shape heads { J }, history { B, P };
        const T* mult = typed(1, "multipliers", nullptr, m_maxN);
        const T* vocab = typed(2, "vocab_sizes", &heads, 0);
        const T* past = typed(3, "past_ids", &history, 0);
        const T* offsets = typed(4, "head_offsets", &heads, 0);
        if (!mult || !vocab)
            throw ctx.error("multipliers and vocab_sizes are required");
        for (int64_t j = 0; j < J; ++j)
            if (vocab[j] <= 0)
                throw ctx.error("vocab_sizes[" + std::to_string(j) + "] is " + std::to_string(vocab[j])
                    + "; every vocabulary size must be positive");
        const T* eos = nullptr;
        if (ctx.hasInput(5)) {
            const Tensor& e = ctx.input(5);
            if (e.dtype() != ids.dtype() || e.size() != 1)
                throw ctx.error("eos_token_id must be one " + std::string(dataTypeName(ids.dtype()))
                    + " (input_ids' type), got " + e.typeString());
            eos = e.data<T>().data();
        }
        const int32_t* seg = nullptr;
        if (ctx.hasInput(6)) {
            const Tensor& s = ctx.input(6);
            if (s.dtype() != DataType::Int32 || s.shape() != ids.shape())
                throw ctx.error("segment_ids must be int32 " + shapeToString(ids.shape()) + ", got " + s.typeString());
            seg = s.data<int32_t>().data();
        }
        const T fill = eos ? *eos : static_cast<T>(m_pad);
        const bool resets = m_resetOnEos && eos;
        const T* in = ids.data<T>().data();
        Tensor& out = ctx.allocateOutputUninitialized(0, ids.dtype(), { B, S, J });
        T* hash = out.data<T>().data();
        T* present
            = ctx.hasOutput(1) ? ctx.allocateOutputUninitialized(1, ids.dtype(), { B, P }).data<T>().data() : nullptr;
        std::vector<T> full(static_cast<size_t>(P + S)); // the history, then the chunk
        for (int64_t b = 0; b < B; ++b) {
            for (int64_t q = 0; q < P; ++q)
                full[static_cast<size_t>(q)] = past ? past[b * P + q] : fill;
            for (int64_t t = 0; t < S; ++t)
                full[static_cast<size_t>(P + t)] = in[b * S + t];
            int64_t lastEos = -1; // index in `full` of the most recent EOS before the current token
            if (resets)
                for (int64_t q = 0; q < P; ++q)
                    if (full[static_cast<size_t>(q)] == *eos)
                        lastEos = q;
            int64_t segmentStart = 0; // index in `full` of the first token of the current segment
            for (int64_t t = 0; t < S; ++t) {
                const int64_t at = P + t;
                if (resets && t > 0 && full[static_cast<size_t>(at - 1)] == *eos)
                    lastEos = at - 1;
                if (seg && t > 0 && seg[b * S + t] != seg[b * S + t - 1])
                    segmentStart = at;
                T* o = hash + (b * S + t) * J;
                U mix = 0;
                for (int64_t k = 0; k < m_maxN; ++k) {
                    const int64_t q = at - k;
                    T v = full[static_cast<size_t>(q)];
                    if (q <= lastEos)
                        v = *eos;
                    if (seg && q < segmentStart)
                        v = fill;
                    mix ^= static_cast<U>(static_cast<U>(v) * static_cast<U>(mult[k]));
                    if (k == 0)
                        continue;
                    const int64_t n = k + 1;
                    for (int64_t h = 0; h < m_heads; ++h) {
                        const int64_t j = (n - 2) * m_heads + h;
                        T r = static_cast<T>(static_cast<T>(mix) % vocab[j]);
                        if (r < 0)
                            r = static_cast<T>(r + vocab[j]);
                        if (offsets)
                            r = static_cast<T>(static_cast<U>(r) + static_cast<U>(offsets[j]));
                        o[j] = r;
                    }
                }
            }
            for (int64_t q = 0; present && q < P; ++q)
                present[b * P + q] = full[static_cast<size_t>(S + q)];
        }
    }

    int64_t m_maxN, m_heads, m_pad;
    bool m_resetOnEos;
};

} // namespace

void registerNGramHashMapping(KernelRegistry& r)
{
    r.add("com.microsoft", "NGramHashMapping", 1, KernelRegistry::kLatest, makeFactory<NGramHashMapping>());
}

} // namespace onnxscope
