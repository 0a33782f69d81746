// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/generation/gpt_generation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace onnxscope {

namespace {

using namespace generation;

/// The finished hypotheses of one batch entry: at most num_beams, best first, scored sum_logprobs / length^penalty.
struct Hypotheses {
    struct Item {
        float score;
        std::vector<int32_t> tokens;
    };
    std::vector<Item> items;
    size_t capacity = 0;
    float lengthPenalty = 1.0f;
    bool done = false;

    void add(const int32_t* tokens, int64_t length, float sumLogprobs)
    {
        const float score = sumLogprobs / std::pow(static_cast<float>(length), lengthPenalty);
        if (items.size() == capacity) {
            if (score <= items.back().score)
                return;
            items.pop_back();
        }
        // After the items it does not beat: an equal score keeps the earlier item first.
        auto at = std::find_if(items.begin(), items.end(), [&](const Item& i) { return score > i.score; });
        items.insert(at, Item { score, std::vector<int32_t>(tokens, tokens + length) });
    }
    bool canImprove(float bestSumLogprobs, int64_t length) const
    {
        return items.back().score < bestSumLogprobs / std::pow(static_cast<float>(length), lengthPenalty);
    }
};

/// BeamSearch (com.microsoft 1) for GPT-2 style decoders (model_type 0), the decoder contract of GreedySearch
/// (gpt_generation.h). The prompt's rows are repeated num_beams times; each step runs the decoder on the batch *
/// num_beams rows as a nested frame `BeamSearch "name" decoder step i`. A step's scores are the log-softmax of the
/// last position's logits, processed (repetition penalty, no-repeat n-gram, vocab masks, min_length), plus the beam's
/// running score (0 for the first beam of an entry, -1e9 for the others at the start). Per batch entry the 2 *
/// num_beams best (beam, token) pairs, best first, are taken in order: an eos_token_id among the first num_beams
/// closes a hypothesis (the sequence without the eos, scored sum / length^length_penalty), other tokens continue a
/// beam until num_beams beams are chosen; the beams' past state follows them. An entry is done when it holds
/// num_beams hypotheses and, without early_stopping, its best candidate of the step could not beat the worst one (as
/// onnxruntime, the candidates read are those at offset entry * num_beams of the step's top lists). The search stops
/// when every entry is done or at max_length; the open beams of the entries not done become hypotheses then.
/// Outputs: sequences [batch, num_return_sequences, max_length] (pad_token_id after each hypothesis),
/// sequences_scores [batch, num_return_sequences], scores [max_length - sequence_length, batch, num_beams, vocab]
/// (each step's scores with the beam scores added; zeros for the steps after an early stop).
class BeamSearch final : public SubgraphKernel {
public:
    explicit BeamSearch(const KernelInit& init)
        : m_decoder(init.node.subgraph("decoder"))
        , m_initDecoder(init.node.subgraph("init_decoder"))
        , m_eos(init.attributes().getInt("eos_token_id", -1))
        , m_pad(init.attributes().getInt("pad_token_id", -1))
        , m_noRepeatNgram(init.attributes().getInt("no_repeat_ngram_size", 0))
        , m_vocabSize(init.attributes().getInt("vocab_size", -1))
        , m_earlyStopping(init.attributes().getInt("early_stopping", 0) != 0)
    {
        const auto& a = init.attributes();
        if (!m_decoder)
            throw a.error("decoder", "required graph attribute is missing");
        refuseNonGpt(init, "BeamSearch");
        if (m_noRepeatNgram < 0)
            throw a.error("no_repeat_ngram_size", "must be non-negative");
        if (init.node.inputs.size() > 12)
            throw init.error("has " + std::to_string(init.node.inputs.size()) + " inputs; BeamSearch takes at most 12");
        if (init.node.inputs.size() > 10 && init.node.inputs[10] != kNoValue)
            throw init.error("input 'decoder_input_ids' is for encoder-decoder models (model_type 1 and 2), which are "
                             "not supported here; model_type 0 takes the prompt in input_ids");
        m_shape = checkGptDecoder(init, *m_decoder, "decoder");
        if (m_initDecoder)
            checkGptDecoder(init, *m_initDecoder, "init_decoder");
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override { return std::make_unique<Run>(*this, ctx); }

private:
    class Run final : public SubgraphRun {
    public:
        Run(const BeamSearch& op, KernelContext& ctx)
            : m_op(op)
            , m_name(ctx.node().displayName())
        {
            const Tensor& ids = ctx.input(0);
            if (ids.dtype() != DataType::Int32 || ids.rank() != 2 || ids.dim(0) < 1 || ids.dim(1) < 1)
                throw ctx.error("input 'input_ids' must be int32[batch, sequence_length], got " + ids.typeString());
            m_batch = ids.dim(0);
            m_promptLength = ids.dim(1);
            const int64_t maxLength = ctx.hasInput(1) ? int32Scalar(ctx, 1, "max_length") : 16384;
            if (maxLength <= m_promptLength)
                throw ctx.error("max_length (" + std::to_string(maxLength)
                    + ") must be greater than the input sequence length (" + std::to_string(m_promptLength) + ")");
            m_proc.eos = op.m_eos;
            m_proc.noRepeatNgram = op.m_noRepeatNgram;
            if (ctx.hasInput(2))
                m_proc.minLength = int32Scalar(ctx, 2, "min_length");
            m_beams = ctx.hasInput(3) ? int32Scalar(ctx, 3, "num_beams") : 1;
            if (m_beams < 1 || m_beams > 32)
                throw ctx.error("input 'num_beams' must be in 1..32, got " + std::to_string(m_beams));
            m_returns = ctx.hasInput(4) ? int32Scalar(ctx, 4, "num_return_sequences") : 1;
            if (m_returns < 1 || m_returns > m_beams)
                throw ctx.error("input 'num_return_sequences' must be in 1..num_beams (" + std::to_string(m_beams)
                    + "), got " + std::to_string(m_returns));
            const float lengthPenalty = ctx.hasInput(5) ? floatScalar(ctx, 5, "length_penalty") : 1.0f;
            if (ctx.hasInput(6)) {
                m_proc.repetitionPenalty = floatScalar(ctx, 6, "repetition_penalty");
                if (!(m_proc.repetitionPenalty > 0.0f))
                    throw ctx.error("input 'repetition_penalty' must be greater than 0, got "
                        + std::to_string(m_proc.repetitionPenalty));
            }
            m_vocab = op.m_vocabSize;
            if (ctx.hasInput(7)) {
                const Tensor& m = ctx.input(7);
                if (m.rank() != 1)
                    throw ctx.error("input 'vocab_mask' must be int32[vocab_size], got " + m.typeString());
                if (m_vocab < 0)
                    m_vocab = m.dim(0);
                m_proc.vocabMask = int32Vector(ctx, 7, "vocab_mask", { m_vocab });
            }
            if (ctx.hasInput(8)) {
                const Tensor& m = ctx.input(8);
                if (m.rank() != 2)
                    throw ctx.error(
                        "input 'prefix_vocab_mask' must be int32[batch, vocab_size], got " + m.typeString());
                if (m_vocab < 0)
                    m_vocab = m.dim(1);
                m_proc.prefixVocabMask = int32Vector(ctx, 8, "prefix_vocab_mask", { m_batch, m_vocab });
            }
            std::vector<int32_t> givenMask;
            if (ctx.hasInput(9))
                givenMask = int32Vector(ctx, 9, "attention_mask", { m_batch, m_promptLength });
            if (ctx.inputCount() > 11 && ctx.hasInput(11) && int32Scalar(ctx, 11, "logits_processor") != 0)
                throw ctx.error("input 'logits_processor': only 0 (none) is supported; 1 is Whisper's timestamp "
                                "processor, for model_type 2");
            m_feeds.init(ids, givenMask, op.m_pad, m_beams, maxLength, op.m_shape);
            m_wantScores = ctx.hasOutput(2);
            m_beamScores.assign(static_cast<size_t>(m_batch * m_beams), 0.0f);
            for (int64_t b = 0; b < m_batch; ++b)
                for (int64_t j = 1; j < m_beams; ++j)
                    m_beamScores[static_cast<size_t>(b * m_beams + j)] = -1e9f;
            m_hyps.resize(static_cast<size_t>(m_batch));
            for (auto& h : m_hyps) {
                h.capacity = static_cast<size_t>(m_beams);
                h.lengthPenalty = lengthPenalty;
            }
            m_notDone = m_batch;
        }

        std::optional<SubgraphCall> next() override
        {
            if (m_notDone == 0 || m_feeds.length() >= m_feeds.maxLength())
                return std::nullopt;
            SubgraphCall call;
            const bool first = m_step == 0 && m_op.m_initDecoder;
            call.graph = first ? m_op.m_initDecoder : m_op.m_decoder;
            call.inputs = m_feeds.feeds();
            call.label = "BeamSearch \"" + m_name + "\" " + (first ? "init_decoder" : "decoder") + " step "
                + std::to_string(m_step);
            call.iteration = m_step;
            return call;
        }

        void finished(std::vector<Value> outputs) override
        {
            const std::string where = "BeamSearch \"" + m_name + "\" step " + std::to_string(m_step);
            const int64_t rows = m_batch * m_beams;
            std::vector<float> scores = lastLogits(outputs.at(0), rows, where, m_vocab);
            const int64_t v = m_vocab;
            if (m_op.m_eos >= v || m_op.m_eos < -1)
                throw Error(where + ": eos_token_id " + std::to_string(m_op.m_eos) + " is outside the vocabulary of "
                    + std::to_string(v));
            for (int64_t r = 0; r < rows; ++r) { // log-softmax
                float* s = scores.data() + r * v;
                const float mx = *std::max_element(s, s + v);
                float sum = 0.0f;
                for (int64_t k = 0; k < v; ++k)
                    sum += std::exp(s[k] - mx);
                const float logSum = std::log(sum);
                for (int64_t k = 0; k < v; ++k)
                    s[k] = s[k] - mx - logSum;
            }
            m_proc.apply(scores, rows, m_beams, v, m_feeds.sequences(), m_feeds.maxLength(), m_feeds.length(), m_step);
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t k = 0; k < v; ++k)
                    scores[static_cast<size_t>(r * v + k)] += m_beamScores[static_cast<size_t>(r)];
            if (m_wantScores)
                m_scores.insert(m_scores.end(), scores.begin(), scores.end());

            // Per batch entry: the 2 * num_beams best (beam, token) pairs, best first.
            const int64_t topK = 2 * m_beams;
            if (m_beams * v < topK)
                throw Error(where + ": a vocabulary of " + std::to_string(v) + " cannot give the 2 * num_beams ("
                    + std::to_string(topK) + ") candidates beam search takes per step");
            std::vector<float> topScores(static_cast<size_t>(m_batch * topK));
            std::vector<int32_t> topTokens(topScores.size()), topBeams(topScores.size());
            std::vector<int64_t> order(static_cast<size_t>(m_beams * v));
            for (int64_t b = 0; b < m_batch; ++b) {
                const float* s = scores.data() + b * m_beams * v;
                std::iota(order.begin(), order.end(), 0);
                std::partial_sort(order.begin(), order.begin() + topK, order.end(),
                    [&](int64_t x, int64_t y) { return s[x] > s[y] || (s[x] == s[y] && x < y); });
                for (int64_t j = 0; j < topK; ++j) {
                    const size_t at = static_cast<size_t>(b * topK + j);
                    topScores[at] = s[order[static_cast<size_t>(j)]];
                    topBeams[at] = static_cast<int32_t>(order[static_cast<size_t>(j)] / v);
                    topTokens[at] = static_cast<int32_t>(order[static_cast<size_t>(j)] % v);
                }
            }

            std::vector<float> nextScores(static_cast<size_t>(rows));
            std::vector<int32_t> nextTokens(static_cast<size_t>(rows)), nextIndices(static_cast<size_t>(rows));
            const int64_t length = m_feeds.length();
            for (int64_t b = 0; b < m_batch; ++b) {
                Hypotheses& hyp = m_hyps[static_cast<size_t>(b)];
                if (hyp.done) {
                    for (int64_t j = 0; j < m_beams; ++j) {
                        const size_t at = static_cast<size_t>(b * m_beams + j);
                        nextScores[at] = 0.0f;
                        nextTokens[at] = static_cast<int32_t>(m_op.m_pad);
                        nextIndices[at] = 0;
                    }
                    continue;
                }
                int64_t chosen = 0;
                for (int64_t j = 0; j < topK && chosen < m_beams; ++j) {
                    const size_t at = static_cast<size_t>(b * topK + j);
                    const int32_t row = static_cast<int32_t>(b * m_beams + topBeams[at]);
                    if (m_op.m_eos >= 0 && topTokens[at] == m_op.m_eos) {
                        if (j < m_beams)
                            hyp.add(m_feeds.row(row), length, topScores[at]);
                        continue;
                    }
                    const size_t to = static_cast<size_t>(b * m_beams + chosen);
                    nextScores[to] = topScores[at];
                    nextTokens[to] = topTokens[at];
                    nextIndices[to] = row;
                    ++chosen;
                }
                if (chosen < m_beams)
                    throw Error(where + ": batch entry " + std::to_string(b) + " found only " + std::to_string(chosen)
                        + " continuing beams");
                if (hyp.items.size() < hyp.capacity)
                    continue;
                if (!m_op.m_earlyStopping) {
                    // onnxruntime reads the step's candidates from offset b * num_beams of the top lists.
                    const auto first = topScores.begin() + b * m_beams;
                    const float best = *std::max_element(first, first + topK);
                    if (hyp.canImprove(best, length))
                        continue;
                }
                hyp.done = true;
                --m_notDone;
            }
            m_beamScores = nextScores;
            m_feeds.append(nextTokens, nextIndices);
            ++m_step;
            if (m_notDone > 0 && m_feeds.length() < m_feeds.maxLength())
                m_feeds.advance(nextTokens, nextIndices, outputs);
        }

        void complete(KernelContext& ctx) override
        {
            for (int64_t b = 0; b < m_batch; ++b) {
                Hypotheses& hyp = m_hyps[static_cast<size_t>(b)];
                if (hyp.done)
                    continue;
                for (int64_t j = 0; j < m_beams; ++j) {
                    const int64_t row = b * m_beams + j;
                    hyp.add(m_feeds.row(row), m_feeds.length(), m_beamScores[static_cast<size_t>(row)]);
                }
            }
            const int64_t maxLength = m_feeds.maxLength();
            std::vector<int32_t> sequences(
                static_cast<size_t>(m_batch * m_returns * maxLength), static_cast<int32_t>(m_op.m_pad));
            std::vector<float> sequenceScores(static_cast<size_t>(m_batch * m_returns));
            for (int64_t b = 0; b < m_batch; ++b)
                for (int64_t k = 0; k < m_returns; ++k) {
                    const auto& item = m_hyps[static_cast<size_t>(b)].items.at(static_cast<size_t>(k));
                    std::copy(
                        item.tokens.begin(), item.tokens.end(), sequences.begin() + (b * m_returns + k) * maxLength);
                    sequenceScores[static_cast<size_t>(b * m_returns + k)] = item.score;
                }
            ctx.setOutput(0, Value(Tensor::fromVector(sequences, { m_batch, m_returns, maxLength })));
            if (ctx.hasOutput(1))
                ctx.setOutput(1, Value(Tensor::fromVector(sequenceScores, { m_batch, m_returns })));
            if (m_wantScores) {
                const int64_t steps = maxLength - m_promptLength;
                m_scores.resize(static_cast<size_t>(steps * m_batch * m_beams * m_vocab), 0.0f);
                ctx.setOutput(2, Value(Tensor::fromVector(m_scores, { steps, m_batch, m_beams, m_vocab })));
            }
        }

    private:
        const BeamSearch& m_op;
        std::string m_name;
        int64_t m_batch = 0, m_promptLength = 0, m_beams = 1, m_returns = 1, m_vocab = -1, m_step = 0;
        int64_t m_notDone = 0;
        bool m_wantScores = false;
        LogitsProcessing m_proc;
        GptFeeds m_feeds;
        std::vector<float> m_beamScores;
        std::vector<Hypotheses> m_hyps;
        std::vector<float> m_scores;
    };

    const Graph* m_decoder;
    const Graph* m_initDecoder;
    int64_t m_eos, m_pad, m_noRepeatNgram, m_vocabSize;
    bool m_earlyStopping;
    DecoderShape m_shape;
};

} // namespace

void registerBeamSearch(KernelRegistry& r)
{
    r.add("com.microsoft", "BeamSearch", 1, KernelRegistry::kLatest, makeFactory<BeamSearch>());
}

} // namespace onnxscope
