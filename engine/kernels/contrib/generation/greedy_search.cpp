// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <limits>
#include <unordered_set>
#include <vector>

namespace onnxscope {

namespace {

/// The logits processors onnxruntime's generation operators apply to the last position's scores, in its order:
/// repetition penalty, no-repeat n-gram, vocab_mask, prefix_vocab_mask (first step only), min_length.
struct LogitsProcessing {
    float repetitionPenalty = 1.0f;
    int64_t noRepeatNgram = 0;
    std::vector<int32_t> vocabMask; // [V] or empty
    std::vector<int32_t> prefixVocabMask; // [B, V] or empty
    int64_t minLength = 0;
    int64_t eos = -1;

    /// scores: [rows, V]; sequences: row r's tokens so far (length `length`, row stride `stride`).
    void apply(std::vector<float>& scores, int64_t rows, int64_t vocab, const std::vector<int32_t>& sequences,
        int64_t stride, int64_t length, int64_t step) const
    {
        const float lowest = std::numeric_limits<float>::lowest();
        for (int64_t r = 0; r < rows; ++r) {
            float* s = scores.data() + r * vocab;
            const int32_t* seq = sequences.data() + r * stride;
            if (repetitionPenalty != 1.0f) {
                std::unordered_set<int32_t> seen(seq, seq + length);
                for (int32_t id : seen)
                    if (id >= 0 && id < vocab)
                        s[id] = s[id] < 0 ? s[id] * repetitionPenalty : s[id] / repetitionPenalty;
            }
            if (noRepeatNgram > 0 && noRepeatNgram <= length) {
                const int64_t prefix = noRepeatNgram - 1;
                for (int64_t j = 0; j + noRepeatNgram <= length; ++j)
                    if (std::equal(seq + length - prefix, seq + length, seq + j)) {
                        const int32_t id = seq[j + prefix];
                        if (id >= 0 && id < vocab)
                            s[id] = lowest;
                    }
            }
            if (!vocabMask.empty())
                for (int64_t v = 0; v < vocab; ++v)
                    if (vocabMask[static_cast<size_t>(v)] == 0)
                        s[v] = lowest;
            if (!prefixVocabMask.empty() && step == 0)
                for (int64_t v = 0; v < vocab; ++v)
                    if (prefixVocabMask[static_cast<size_t>(r * vocab + v)] == 0)
                        s[v] = lowest;
            if (minLength > 0 && length < minLength && eos >= 0 && eos < vocab)
                s[eos] = lowest;
        }
    }
};

int32_t int32Scalar(KernelContext& ctx, size_t index, const char* name)
{
    const Tensor& t = ctx.input(index);
    if (t.dtype() != DataType::Int32 || t.size() != 1)
        throw ctx.error(std::string("input '") + name + "' must be one int32, got " + t.typeString());
    return t.data<int32_t>()[0];
}

std::vector<int32_t> int32Vector(KernelContext& ctx, size_t index, const char* name, const Shape& expected)
{
    const Tensor& t = ctx.input(index);
    if (t.dtype() != DataType::Int32 || t.shape() != expected)
        throw ctx.error(
            std::string("input '") + name + "' must be int32" + shapeToString(expected) + ", got " + t.typeString());
    auto d = t.data<int32_t>();
    return { d.begin(), d.end() };
}

/// GreedySearch (com.microsoft 1) for GPT-2 style decoders (model_type 0). The decoder subgraph takes input_ids,
/// position_ids, attention_mask (int32) and past_0..past_{L-1} ([2, batch, heads, past_length, head_size]) and gives
/// logits [batch, length, vocab] and present_0..present_{L-1}, fed back as the next step's past. Each step runs the
/// decoder (init_decoder, when present, for the first) as a nested frame labelled `GreedySearch "name" step i`, so
/// the debugger steps into it as into a Loop body. Position ids and the attention mask are made as onnxruntime makes
/// them: a pad_token_id in the prompt gets mask 0 (unless attention_mask is given) and position 0, the others count
/// from 0; each new token gets the next position and mask 1. A row whose token is eos_token_id is finished: it and
/// every later token of the row become pad_token_id; the search stops when every row is finished or at max_length.
/// sequences is [batch, max_length], the columns after an early stop filled with pad_token_id.
class GreedySearch final : public SubgraphKernel {
public:
    explicit GreedySearch(const KernelInit& init)
        : m_decoder(init.node.subgraph("decoder"))
        , m_initDecoder(init.node.subgraph("init_decoder"))
        , m_eos(init.attributes().getInt("eos_token_id", -1))
        , m_pad(init.attributes().getInt("pad_token_id", -1))
        , m_noRepeatNgram(init.attributes().getInt("no_repeat_ngram_size", 0))
        , m_vocabSize(init.attributes().getInt("vocab_size", -1))
    {
        const auto& a = init.attributes();
        if (!m_decoder)
            throw a.error("decoder", "required graph attribute is missing");
        const int64_t modelType = a.getInt("model_type", 0);
        if (modelType != 0)
            throw a.error("model_type",
                std::to_string(modelType)
                    + " is not supported: GreedySearch runs model_type 0 (GPT-2 style decoder with past state) only");
        if (a.has("encoder"))
            throw a.error("encoder",
                "encoder-decoder generation is not supported by GreedySearch here; only model_type 0 (decoder only)");
        if (m_noRepeatNgram < 0)
            throw a.error("no_repeat_ngram_size", "must be non-negative");
        if (init.node.inputs.size() > 7)
            throw init.error("has " + std::to_string(init.node.inputs.size())
                + " inputs; GreedySearch takes at most 7 (input_ids, max_length, min_length, repetition_penalty, "
                  "vocab_mask, prefix_vocab_mask, attention_mask)");
        checkDecoder(init, *m_decoder, "decoder");
        if (m_initDecoder)
            checkDecoder(init, *m_initDecoder, "init_decoder");
        const auto& past = m_decoder->value(m_decoder->inputs()[3]).type;
        m_heads = past.shape[2].value;
        m_headSize = past.shape[4].value;
        m_pastType = past.elementType != DataType::Undefined ? past.elementType : DataType::Float;
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override { return std::make_unique<Run>(*this, ctx); }

private:
    static void checkDecoder(const KernelInit& init, const Graph& g, const char* attribute)
    {
        const auto& in = g.inputs();
        const auto& out = g.outputs();
        const char* names[] = { "input_ids", "position_ids", "attention_mask", "past_0" };
        if (in.size() < 4)
            throw init.attributes().error(attribute,
                "the subgraph must take input_ids, position_ids, attention_mask and past_0.., got "
                    + std::to_string(in.size()) + " inputs");
        for (size_t i = 0; i < 4; ++i)
            if (g.value(in[i]).name != names[i])
                throw init.attributes().error(attribute,
                    "subgraph input " + std::to_string(i) + " must be named " + names[i] + ", got "
                        + g.value(in[i]).name);
        if (out.size() + 2 != in.size())
            throw init.attributes().error(attribute,
                "the subgraph must give logits and one present_* per past_* input (" + std::to_string(in.size() - 1)
                    + " outputs), got " + std::to_string(out.size())
                    + " (past/present buffer sharing is not supported)");
        const auto& past = g.value(in[3]).type;
        if (!past.hasShape || past.shape.size() != 5 || !past.shape[0].known() || past.shape[0].value != 2
            || !past.shape[2].known() || past.shape[2].value <= 0 || !past.shape[4].known() || past.shape[4].value <= 0)
            throw init.attributes().error(attribute,
                "subgraph input past_0 must be declared [2, batch, num_heads, past_length, head_size] with "
                "num_heads and head_size fixed, got "
                    + past.toString());
    }

    class Run final : public SubgraphRun {
    public:
        Run(const GreedySearch& op, KernelContext& ctx)
            : m_op(op)
            , m_name(ctx.node().displayName())
        {
            const Tensor& ids = ctx.input(0);
            if (ids.dtype() != DataType::Int32 || ids.rank() != 2 || ids.dim(0) < 1 || ids.dim(1) < 1)
                throw ctx.error("input 'input_ids' must be int32[batch, sequence_length], got " + ids.typeString());
            m_batch = ids.dim(0);
            m_promptLength = ids.dim(1);
            m_maxLength = ctx.hasInput(1) ? int32Scalar(ctx, 1, "max_length") : 16384;
            if (m_maxLength <= m_promptLength)
                throw ctx.error("max_length (" + std::to_string(m_maxLength)
                    + ") must be greater than the input sequence length (" + std::to_string(m_promptLength) + ")");
            m_proc.eos = op.m_eos;
            m_proc.noRepeatNgram = op.m_noRepeatNgram;
            if (ctx.hasInput(2))
                m_proc.minLength = int32Scalar(ctx, 2, "min_length");
            if (ctx.hasInput(3)) {
                const Tensor& p = ctx.input(3);
                if (p.dtype() != DataType::Float || p.size() != 1)
                    throw ctx.error("input 'repetition_penalty' must be one float, got " + p.typeString());
                m_proc.repetitionPenalty = p.data<float>()[0];
                if (!(m_proc.repetitionPenalty > 0.0f))
                    throw ctx.error("input 'repetition_penalty' must be greater than 0, got "
                        + std::to_string(m_proc.repetitionPenalty));
            }
            // The vocabulary size: the attribute, else the masks' or the first logits' (checked there).
            m_vocab = op.m_vocabSize;
            if (ctx.hasInput(4)) {
                const Tensor& m = ctx.input(4);
                if (m.rank() != 1)
                    throw ctx.error("input 'vocab_mask' must be int32[vocab_size], got " + m.typeString());
                if (m_vocab < 0)
                    m_vocab = m.dim(0);
                m_proc.vocabMask = int32Vector(ctx, 4, "vocab_mask", { m_vocab });
            }
            if (ctx.hasInput(5)) {
                const Tensor& m = ctx.input(5);
                if (m.rank() != 2)
                    throw ctx.error(
                        "input 'prefix_vocab_mask' must be int32[batch, vocab_size], got " + m.typeString());
                if (m_vocab < 0)
                    m_vocab = m.dim(1);
                m_proc.prefixVocabMask = int32Vector(ctx, 5, "prefix_vocab_mask", { m_batch, m_vocab });
            }
            std::vector<int32_t> givenMask;
            if (ctx.hasInput(6))
                givenMask = int32Vector(ctx, 6, "attention_mask", { m_batch, m_promptLength });

            auto idData = ids.data<int32_t>();
            m_sequences.assign(static_cast<size_t>(m_batch * m_maxLength), static_cast<int32_t>(op.m_pad));
            Tensor position(DataType::Int32, { m_batch, m_promptLength });
            Tensor mask(DataType::Int32, { m_batch, m_promptLength });
            auto pos = position.data<int32_t>();
            auto msk = mask.data<int32_t>();
            m_nextPosition.resize(static_cast<size_t>(m_batch));
            for (int64_t b = 0; b < m_batch; ++b) {
                int32_t count = 0;
                for (int64_t s = 0; s < m_promptLength; ++s) {
                    const size_t i = static_cast<size_t>(b * m_promptLength + s);
                    m_sequences[static_cast<size_t>(b * m_maxLength + s)] = idData[i];
                    const bool pad = idData[i] == op.m_pad;
                    msk[i] = givenMask.empty() ? (pad ? 0 : 1) : givenMask[i];
                    pos[i] = pad ? 0 : count++;
                }
                m_nextPosition[static_cast<size_t>(b)] = count;
            }
            m_length = m_promptLength;
            m_finished.assign(static_cast<size_t>(m_batch), false);
            m_feeds.push_back(Value(ids));
            m_feeds.push_back(Value(std::move(position)));
            m_feeds.push_back(Value(std::move(mask)));
            const size_t layers = op.m_decoder->inputs().size() - 3;
            Tensor emptyPast(op.m_pastType, { 2, m_batch, op.m_heads, 0, op.m_headSize });
            for (size_t l = 0; l < layers; ++l)
                m_feeds.push_back(Value(emptyPast));
        }

        std::optional<SubgraphCall> next() override
        {
            if (m_done || m_length >= m_maxLength)
                return std::nullopt;
            SubgraphCall call;
            const bool first = m_step == 0 && m_op.m_initDecoder;
            call.graph = first ? m_op.m_initDecoder : m_op.m_decoder;
            call.inputs = m_feeds;
            call.label = "GreedySearch \"" + m_name + "\" " + (first ? "init_decoder" : "decoder") + " step "
                + std::to_string(m_step);
            call.iteration = m_step;
            return call;
        }

        void finished(std::vector<Value> outputs) override
        {
            const std::string where = "GreedySearch \"" + m_name + "\" step " + std::to_string(m_step);
            const Tensor& logits = outputs.at(0).tensor(where + " logits");
            if (logits.dtype() != DataType::Float || logits.rank() != 3 || logits.dim(0) != m_batch
                || logits.dim(1) < 1)
                throw Error(where + ": the decoder's logits must be float[" + std::to_string(m_batch)
                    + ", length, vocab_size], got " + logits.typeString());
            const int64_t vocab = logits.dim(2);
            if (m_vocab >= 0 && vocab != m_vocab)
                throw Error(where + ": the decoder's logits have " + std::to_string(vocab)
                    + " vocabulary entries, the node's vocab_size or masks say " + std::to_string(m_vocab));
            m_vocab = vocab;
            if ((m_op.m_eos >= vocab) || (m_op.m_eos < -1))
                throw Error(where + ": eos_token_id " + std::to_string(m_op.m_eos) + " is outside the vocabulary of "
                    + std::to_string(vocab));
            const int64_t last = logits.dim(1) - 1;
            auto l = logits.data<float>();
            std::vector<float> scores(static_cast<size_t>(m_batch * vocab));
            for (int64_t b = 0; b < m_batch; ++b)
                std::copy_n(l.begin() + (b * logits.dim(1) + last) * vocab, vocab, scores.begin() + b * vocab);
            m_proc.apply(scores, m_batch, vocab, m_sequences, m_maxLength, m_length, m_step);

            Tensor nextIds(DataType::Int32, { m_batch, 1 });
            auto next = nextIds.data<int32_t>();
            bool all = true;
            for (int64_t b = 0; b < m_batch; ++b) {
                const float* s = scores.data() + b * vocab;
                int32_t token = static_cast<int32_t>(std::max_element(s, s + vocab) - s);
                const bool fin = m_finished[static_cast<size_t>(b)];
                if (fin || token == m_op.m_eos) {
                    m_finished[static_cast<size_t>(b)] = true;
                    token = static_cast<int32_t>(m_op.m_pad);
                }
                all = all && m_finished[static_cast<size_t>(b)];
                next[static_cast<size_t>(b)] = token;
                m_sequences[static_cast<size_t>(b * m_maxLength + m_length)] = token;
            }
            ++m_length;
            ++m_step;
            if (all) {
                m_done = true;
                return;
            }
            if (m_length >= m_maxLength)
                return;
            // The next step's feeds: the new tokens, their positions, the mask grown by one, presents as pasts.
            Tensor position(DataType::Int32, { m_batch, 1 });
            auto pos = position.data<int32_t>();
            for (int64_t b = 0; b < m_batch; ++b)
                pos[static_cast<size_t>(b)] = m_nextPosition[static_cast<size_t>(b)]++;
            const Tensor& oldMask = m_feeds[2].tensor("attention_mask");
            const int64_t oldLength = oldMask.dim(1);
            Tensor mask(DataType::Int32, { m_batch, oldLength + 1 });
            auto om = oldMask.data<int32_t>();
            auto nm = mask.data<int32_t>();
            for (int64_t b = 0; b < m_batch; ++b) {
                std::copy_n(om.begin() + b * oldLength, oldLength, nm.begin() + b * (oldLength + 1));
                nm[static_cast<size_t>(b * (oldLength + 1) + oldLength)] = 1;
            }
            m_feeds[0] = Value(std::move(nextIds));
            m_feeds[1] = Value(std::move(position));
            m_feeds[2] = Value(std::move(mask));
            for (size_t i = 1; i < outputs.size(); ++i)
                m_feeds[2 + i] = std::move(outputs[i]);
        }

        void complete(KernelContext& ctx) override
        {
            ctx.setOutput(0, Value(Tensor::fromVector(m_sequences, { m_batch, m_maxLength })));
        }

    private:
        const GreedySearch& m_op;
        std::string m_name;
        int64_t m_batch = 0, m_promptLength = 0, m_maxLength = 0, m_vocab = -1;
        int64_t m_length = 0, m_step = 0;
        bool m_done = false;
        LogitsProcessing m_proc;
        std::vector<int32_t> m_sequences; // [batch, max_length]
        std::vector<int32_t> m_nextPosition;
        std::vector<bool> m_finished;
        std::vector<Value> m_feeds;
    };

    const Graph* m_decoder;
    const Graph* m_initDecoder;
    int64_t m_eos, m_pad, m_noRepeatNgram, m_vocabSize;
    int64_t m_heads = 0, m_headSize = 0;
    DataType m_pastType = DataType::Float;
};

} // namespace

void registerGenerationKernels(KernelRegistry& r)
{
    r.add("com.microsoft", "GreedySearch", 1, KernelRegistry::kLatest, makeFactory<GreedySearch>());
}

} // namespace onnxscope
