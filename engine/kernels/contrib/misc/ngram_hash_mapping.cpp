// SPDX-License-Identifier: MIT
// com.microsoft NGramHashMapping and VarlenNGramHashMapping (Engram's n-gram hash ids): one hashing core, two
// layouts (a [batch, sequence] batch, and requests packed token-major with cumulative lengths).
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <type_traits>
#include <vector>

namespace onnxscope {

namespace {

/// For token t of a sequence, order n in [2, max_ngram_size] and head h < n_head_per_ngram (output j = (n - 2) *
/// heads + h): mix = XOR over k < n of (id[t - k] * multipliers[k]), wrapping in the id type T; the hash is
/// (mix mod vocab_sizes[j]), non-negative, + head_offsets[j] (wrapping). An id before the sequence's chunk comes from
/// its history (past ids, right-aligned), else the fill: eos_token_id when given, else pad_id. With reset_on_eos and
/// eos_token_id, every id at or before the most recent EOS strictly before t (history included) reads as EOS. With
/// segment ids, every id before the start of t's segment (history included, whose segments are the past segment ids
/// when given, else the first token's) reads as the fill.
template <class T> struct NGramHasher {
    using U = std::make_unsigned_t<T>;
    int64_t maxN = 0, heads = 0;
    const T* multipliers = nullptr;
    const T* vocab = nullptr;
    const T* offsets = nullptr; ///< null when absent
    const T* eos = nullptr; ///< null when absent
    bool resetOnEos = false;
    T fill = 0;

    int64_t history() const { return maxN - 1; }
    int64_t outputs() const { return history() * heads; }

    /// Hashes `length` tokens into out[length, outputs()]; `full` receives the history followed by the tokens.
    void hash(const T* past, const int32_t* pastSegments, const T* tokens, const int32_t* segments, int64_t length,
        T* out, std::vector<T>& full) const
    {
        const int64_t P = history(), J = outputs();
        full.assign(static_cast<size_t>(P + length), fill);
        if (past)
            std::copy(past, past + P, full.begin());
        std::copy(tokens, tokens + length, full.begin() + P);
        const auto segmentAt = [&](int64_t q) {
            if (q >= P)
                return segments[q - P];
            return pastSegments ? pastSegments[q] : segments[0];
        };
        const bool resets = resetOnEos && eos;
        int64_t lastEos = -1, segmentStart = 0; // indices in `full`
        for (int64_t q = 0; q < P; ++q) {
            if (resets && full[static_cast<size_t>(q)] == *eos)
                lastEos = q;
            if (segments && length > 0 && q > 0 && segmentAt(q) != segmentAt(q - 1))
                segmentStart = q;
        }
        for (int64_t t = 0; t < length; ++t) {
            const int64_t at = P + t;
            if (resets && at > 0 && full[static_cast<size_t>(at - 1)] == *eos)
                lastEos = at - 1;
            if (segments && at > 0 && segmentAt(at) != segmentAt(at - 1))
                segmentStart = at;
            T* o = out + t * J;
            U mix = 0;
            for (int64_t k = 0; k < maxN; ++k) {
                const int64_t q = at - k;
                T v = full[static_cast<size_t>(q)];
                if (q <= lastEos)
                    v = *eos;
                if (segments && q < segmentStart)
                    v = fill;
                mix ^= static_cast<U>(static_cast<U>(v) * static_cast<U>(multipliers[k]));
                for (int64_t h = 0; k > 0 && h < heads; ++h) {
                    const int64_t j = (k - 1) * heads + h;
                    T r = static_cast<T>(static_cast<T>(mix) % vocab[j]);
                    if (r < 0)
                        r = static_cast<T>(r + vocab[j]);
                    if (offsets)
                        r = static_cast<T>(static_cast<U>(r) + static_cast<U>(offsets[j]));
                    o[j] = r;
                }
            }
        }
    }
};

/// The attributes and id inputs both operators share; `first` is the index of multipliers, then vocab_sizes;
/// past_ids, head_offsets and eos_token_id are at `past`, past + 1 and past + 2.
struct NGramAttributes {
    int64_t maxN, heads, pad;
    bool resetOnEos;

    explicit NGramAttributes(const KernelInit& init)
        : maxN(init.attributes().requireInt("max_ngram_size"))
        , heads(init.attributes().requireInt("n_head_per_ngram"))
        , pad(init.attributes().requireInt("pad_id"))
        , resetOnEos(init.attributes().getInt("reset_on_eos", 0) != 0)
    {
        if (maxN < 2)
            throw init.attributes().error("max_ngram_size", "must be at least 2, got " + std::to_string(maxN));
        if (heads < 1)
            throw init.attributes().error("n_head_per_ngram", "must be positive, got " + std::to_string(heads));
    }

    /// The hasher over the inputs of ctx; `pastShape` is past_ids' expected shape.
    template <class T>
    NGramHasher<T> hasher(const KernelContext& ctx, size_t past, const Shape& pastShape, const T** pastIds) const
    {
        const DataType type = ctx.input(0).dtype();
        NGramHasher<T> h;
        h.maxN = maxN;
        h.heads = heads;
        const Shape headShape { h.outputs() };
        const auto typed = [&](size_t i, const char* what, const Shape* shape, int64_t minSize) -> const T* {
            if (!ctx.hasInput(i))
                return nullptr;
            const Tensor& t = ctx.input(i);
            if (t.dtype() != type || (shape && t.shape() != *shape) || (!shape && t.size() < minSize))
                throw ctx.error(std::string(what) + " must be " + std::string(dataTypeName(type)) + " "
                    + (shape ? shapeToString(*shape) : "of at least " + std::to_string(minSize) + " elements")
                    + " (input_ids' type), got " + t.typeString());
            return t.data<T>().data();
        };
        h.multipliers = typed(1, "multipliers", nullptr, maxN);
        h.vocab = typed(2, "vocab_sizes", &headShape, 0);
        if (!h.multipliers || !h.vocab)
            throw ctx.error("multipliers and vocab_sizes are required");
        for (int64_t j = 0; j < h.outputs(); ++j)
            if (h.vocab[j] <= 0)
                throw ctx.error("vocab_sizes[" + std::to_string(j) + "] is " + std::to_string(h.vocab[j])
                    + "; every vocabulary size must be positive");
        *pastIds = typed(past, "past_ids", &pastShape, 0);
        h.offsets = typed(past + 1, "head_offsets", &headShape, 0);
        if (ctx.hasInput(past + 2)) {
            const Tensor& e = ctx.input(past + 2);
            if (e.dtype() != type || e.size() != 1)
                throw ctx.error("eos_token_id must be one " + std::string(dataTypeName(type))
                    + " (input_ids' type), got " + e.typeString());
            h.eos = e.data<T>().data();
        }
        h.resetOnEos = resetOnEos;
        h.fill = h.eos ? *h.eos : static_cast<T>(pad);
        return h;
    }
};

using contrib::int32Input;

/// Checks input_ids (int32 or int64, of `rank`) and calls fn.operator()<T>() with its element type.
template <class F> void forIdType(const KernelContext& ctx, int64_t rank, const char* layout, F&& fn)
{
    const Tensor& ids = ctx.input(0);
    if (ids.rank() != rank || (ids.dtype() != DataType::Int32 && ids.dtype() != DataType::Int64))
        throw ctx.error(std::string("input_ids must be int32 or int64 ") + layout + ", got " + ids.typeString());
    if (ids.dtype() == DataType::Int32)
        fn.template operator()<int32_t>();
    else
        fn.template operator()<int64_t>();
}

/// NGramHashMapping (com.microsoft 1): input_ids [B, S] (int32 or int64; every id input of that type), multipliers
/// (at least max_ngram_size), vocab_sizes [(max_ngram_size - 1) * heads], optional past_ids [B, max_ngram_size - 1],
/// head_offsets, eos_token_id (one value) and segment_ids (int32 [B, S], boundaries within this chunk only). Outputs
/// hash_ids [B, S, (max_ngram_size - 1) * heads] (NGramHasher) and present_ids [B, max_ngram_size - 1], the last ids
/// of the history followed by input_ids. A vocabulary size not positive is refused, as onnxruntime refuses it.
class NGramHashMapping final : public Kernel {
public:
    explicit NGramHashMapping(const KernelInit& init)
        : m_attrs(init)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        forIdType(ctx, 2, "[batch, sequence]", [&]<class T>() { run<T>(ctx); });
    }

private:
    template <class T> void run(KernelContext& ctx) const
    {
        const Tensor& ids = ctx.input(0);
        const int64_t B = ids.dim(0), S = ids.dim(1), P = m_attrs.maxN - 1;
        const T* past = nullptr;
        const NGramHasher<T> h = m_attrs.hasher<T>(ctx, 3, Shape { B, P }, &past);
        const int32_t* seg = int32Input(ctx, 6, ids.shape(), "segment_ids");
        const T* in = ids.data<T>().data();
        T* hash = ctx.allocateOutputUninitialized(0, ids.dtype(), { B, S, h.outputs() }).template data<T>().data();
        T* present
            = ctx.hasOutput(1) ? ctx.allocateOutputUninitialized(1, ids.dtype(), { B, P }).data<T>().data() : nullptr;
        std::vector<T> full;
        for (int64_t b = 0; b < B; ++b) {
            h.hash(past ? past + b * P : nullptr, nullptr, in + b * S, seg ? seg + b * S : nullptr, S,
                hash + b * S * h.outputs(), full);
            if (present)
                std::copy(full.end() - P, full.end(), present + b * P);
        }
    }

    NGramAttributes m_attrs;
};

/// VarlenNGramHashMapping (com.microsoft 1): NGramHashMapping over requests packed token-major. input_ids [T];
/// cumulative_sequence_length int32 [B + 1] (starting at 0, strictly increasing: every request has a token, ending
/// at T); past_ids [B, P], head_offsets, eos_token_id as NGramHashMapping's, per request; segment_ids int32 [T],
/// past_segment_ids int32 [B, P] (the history's segments; without them the history belongs to the request's first
/// segment); capture_count int32 [B], required exactly when state_update_capacity (0..8) is positive. Outputs
/// hash_ids [T, P * heads], present_ids [B, P], present_segment_ids [B, P] (needs segment_ids) and state_update
/// [B, capacity, P]: for i < min(capture_count, request length, capacity), the last P ids after the request's token
/// i; other slots pad_id.
class VarlenNGramHashMapping final : public Kernel {
public:
    explicit VarlenNGramHashMapping(const KernelInit& init)
        : m_attrs(init)
        , m_capacity(init.attributes().getInt("state_update_capacity", 0))
    {
        if (m_capacity < 0 || m_capacity > 8)
            throw init.attributes().error(
                "state_update_capacity", "must be in [0, 8], got " + std::to_string(m_capacity));
    }

    void compute(KernelContext& ctx) const override
    {
        forIdType(ctx, 1, "[total tokens]", [&]<class T>() { run<T>(ctx); });
    }

private:
    template <class T> void run(KernelContext& ctx) const
    {
        const Tensor& ids = ctx.input(0);
        const Tensor& cu = ctx.input(3);
        const int64_t total = ids.dim(0), P = m_attrs.maxN - 1;
        if (cu.dtype() != DataType::Int32 || cu.rank() != 1 || cu.dim(0) < 1)
            throw ctx.error("cumulative_sequence_length must be int32 [batch + 1], got " + cu.typeString());
        const int64_t B = cu.dim(0) - 1;
        const int32_t* starts = cu.data<int32_t>().data();
        for (int64_t b = 0; b <= B; ++b)
            if ((b == 0 && starts[0] != 0) || (b > 0 && starts[b] <= starts[b - 1]) || (b == B && starts[b] != total))
                throw ctx.error("cumulative_sequence_length must start at 0, increase strictly (every request has a "
                                "token) and end at input_ids' "
                    + std::to_string(total) + " tokens, got " + shapeToString(Shape(starts, starts + B + 1)));
        const T* past = nullptr;
        const NGramHasher<T> h = m_attrs.hasher<T>(ctx, 4, Shape { B, P }, &past);
        const int32_t* seg = int32Input(ctx, 7, Shape { total }, "segment_ids");
        const int32_t* pastSeg = int32Input(ctx, 8, Shape { B, P }, "past_segment_ids");
        const int32_t* capture = int32Input(ctx, 9, Shape { B }, "capture_count");
        if (pastSeg && !seg)
            throw ctx.error("past_segment_ids needs segment_ids");
        if ((m_capacity > 0) != (capture != nullptr))
            throw ctx.error(
                "capture_count is required exactly when attribute 'state_update_capacity' is positive (it is "
                + std::to_string(m_capacity) + ")");
        if (ctx.hasOutput(2) && !seg)
            throw ctx.error("output present_segment_ids needs input segment_ids");
        const T* in = ids.data<T>().data();
        T* hash = ctx.allocateOutputUninitialized(0, ids.dtype(), { total, h.outputs() }).template data<T>().data();
        T* present
            = ctx.hasOutput(1) ? ctx.allocateOutputUninitialized(1, ids.dtype(), { B, P }).data<T>().data() : nullptr;
        int32_t* presentSeg = ctx.hasOutput(2)
            ? ctx.allocateOutputUninitialized(2, DataType::Int32, { B, P }).data<int32_t>().data()
            : nullptr;
        T* state = nullptr;
        if (ctx.hasOutput(3)) {
            Tensor& s = ctx.allocateOutputUninitialized(3, ids.dtype(), { B, m_capacity, P });
            std::fill(s.data<T>().begin(), s.data<T>().end(), static_cast<T>(m_attrs.pad));
            state = s.data<T>().data();
        }
        std::vector<T> full;
        for (int64_t b = 0; b < B; ++b) {
            const int64_t start = starts[b], length = starts[b + 1] - starts[b];
            h.hash(past ? past + b * P : nullptr, pastSeg ? pastSeg + b * P : nullptr, in + start,
                seg ? seg + start : nullptr, length, hash + start * h.outputs(), full);
            if (present)
                std::copy(full.end() - P, full.end(), present + b * P);
            for (int64_t q = 0; presentSeg && q < P; ++q) {
                const int64_t at = length + q; // index in history + tokens
                presentSeg[b * P + q] = at >= P ? seg[start + at - P] : (pastSeg ? pastSeg[b * P + at] : seg[start]);
            }
            const int64_t captured = capture ? std::min<int64_t>({ capture[b], length, m_capacity }) : 0;
            for (int64_t i = 0; state && i < captured; ++i)
                std::copy(full.begin() + i + 1, full.begin() + i + 1 + P, state + (b * m_capacity + i) * P);
        }
    }

    NGramAttributes m_attrs;
    int64_t m_capacity;
};

} // namespace

void registerNGramHashMapping(KernelRegistry& r)
{
    r.add("com.microsoft", "NGramHashMapping", 1, KernelRegistry::kLatest, makeFactory<NGramHashMapping>());
    r.add("com.microsoft", "VarlenNGramHashMapping", 1, KernelRegistry::kLatest, makeFactory<VarlenNGramHashMapping>());
}

} // namespace onnxscope
