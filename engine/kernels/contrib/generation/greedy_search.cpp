// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/generation/gpt_generation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace onnxscope {

namespace {

using namespace generation;

/// GreedySearch (com.microsoft 1) for GPT-2 style decoders (model_type 0). The decoder subgraph takes input_ids,
/// position_ids, attention_mask (int32) and past_0..past_{L-1} ([2, batch, heads, past_length, head_size]) and gives
/// logits [batch, length, vocab] and present_0..present_{L-1}, fed back as the next step's past. Each step runs the
/// decoder (init_decoder, when present, for the first) as a nested frame labelled `GreedySearch "name" decoder step
/// i`, so the debugger steps into it as into a Loop body. Position ids and the attention mask are made as onnxruntime
/// makes them: a pad_token_id in the prompt gets mask 0 (unless attention_mask is given) and position 0, the others
/// count from 0; each new token gets the next position and mask 1. The next token is the arg max of the processed
/// logits. A row whose token is eos_token_id is finished: it and every later token of the row become pad_token_id;
/// the search stops when every row is finished or at max_length. sequences is [batch, max_length], the columns
/// after an early stop filled with pad_token_id (onnxruntime leaves them unwritten).
///
/// Sampling (com.microsoft 1) is the same search with the next token drawn instead of taken as the arg max: after
/// the processors (those of GreedySearch, then division by temperature, then presence_penalty times presence_mask
/// [batch, vocab] subtracted) the scores are filtered by top_p as onnxruntime filters them, and a token is drawn
/// with probabilities softmax(scores). custom 0: the tokens sorted by ascending score whose cumulative probability
/// is at most 1 - top_p get filter_value, the last min_tokens_to_keep never; custom 1: sorted by descending score,
/// each token after the first whose preceding cumulative probability exceeds top_p gets filter_value. The draw uses
/// this engine's generator (std::mt19937 seeded with the seed input, 0 without it): a seeded run repeats itself,
/// but is not onnxruntime's random stream. The filtered_logits output (onnxruntime's debug output) is refused.
class GreedySearch final : public SubgraphKernel {
public:
    GreedySearch(const KernelInit& init, bool sampling)
        : m_sampling(sampling)
        , m_decoder(init.node.subgraph("decoder"))
        , m_initDecoder(init.node.subgraph("init_decoder"))
        , m_eos(init.attributes().getInt("eos_token_id", -1))
        , m_pad(init.attributes().getInt("pad_token_id", -1))
        , m_noRepeatNgram(init.attributes().getInt("no_repeat_ngram_size", 0))
        , m_vocabSize(init.attributes().getInt("vocab_size", -1))
    {
        const auto& a = init.attributes();
        if (!m_decoder)
            throw a.error("decoder", "required graph attribute is missing");
        refuseNonGpt(init, sampling ? "Sampling" : "GreedySearch");
        if (m_noRepeatNgram < 0)
            throw a.error("no_repeat_ngram_size", "must be non-negative");
        const size_t maxInputs = sampling ? 9 : 7;
        if (init.node.inputs.size() > maxInputs)
            throw init.error("has " + std::to_string(init.node.inputs.size()) + " inputs; takes at most "
                + std::to_string(maxInputs)
                + " (input_ids, max_length, min_length, repetition_penalty, vocab_mask, prefix_vocab_mask, "
                  "attention_mask"
                + (sampling ? ", presence_mask, seed)" : ")"));
        if (sampling) {
            m_temperature = a.getFloat("temperature", 1.0f);
            m_topP = a.getFloat("top_p", 0.0f);
            m_filterValue = a.getFloat("filter_value", -std::numeric_limits<float>::infinity());
            m_minTokensToKeep = a.getInt("min_tokens_to_keep", 0);
            m_presencePenalty = a.getFloat("presence_penalty", 0.0f);
            m_custom = a.getInt("custom", 0);
            if (m_custom != 0 && m_custom != 1)
                throw a.error("custom", "must be 0 or 1, got " + std::to_string(m_custom));
            if (m_minTokensToKeep < 0)
                throw a.error("min_tokens_to_keep", "must be non-negative");
            if (init.node.outputs.size() > 1 && init.node.outputs[1] != kNoValue)
                throw init.error("output 'filtered_logits' (onnxruntime's debug output of the filtered scores) is not "
                                 "produced here; only 'sequences'");
        }
        m_shape = checkGptDecoder(init, *m_decoder, "decoder");
        if (m_initDecoder)
            checkGptDecoder(init, *m_initDecoder, "init_decoder");
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override { return std::make_unique<Run>(*this, ctx); }

private:
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
            const int64_t promptLength = ids.dim(1);
            const int64_t maxLength = ctx.hasInput(1) ? int32Scalar(ctx, 1, "max_length") : 16384;
            if (maxLength <= promptLength)
                throw ctx.error("max_length (" + std::to_string(maxLength)
                    + ") must be greater than the input sequence length (" + std::to_string(promptLength) + ")");
            m_proc.eos = op.m_eos;
            m_proc.noRepeatNgram = op.m_noRepeatNgram;
            if (ctx.hasInput(2))
                m_proc.minLength = int32Scalar(ctx, 2, "min_length");
            if (ctx.hasInput(3)) {
                m_proc.repetitionPenalty = floatScalar(ctx, 3, "repetition_penalty");
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
                givenMask = int32Vector(ctx, 6, "attention_mask", { m_batch, promptLength });
            if (op.m_sampling) {
                if (ctx.inputCount() > 7 && ctx.hasInput(7)) {
                    const Tensor& m = ctx.input(7);
                    if (m.rank() != 2)
                        throw ctx.error(
                            "input 'presence_mask' must be int32[batch, vocab_size], got " + m.typeString());
                    if (m_vocab < 0)
                        m_vocab = m.dim(1);
                    m_presenceMask = int32Vector(ctx, 7, "presence_mask", { m_batch, m_vocab });
                }
                int32_t seed = 0;
                if (ctx.inputCount() > 8 && ctx.hasInput(8))
                    seed = int32Scalar(ctx, 8, "seed");
                if (seed < 0)
                    throw ctx.error("input 'seed' must be non-negative, got " + std::to_string(seed));
                m_random.seed(static_cast<uint32_t>(seed));
            }
            m_feeds.init(ids, givenMask, op.m_pad, 1, maxLength, op.m_shape);
            m_finished.assign(static_cast<size_t>(m_batch), false);
        }

        std::optional<SubgraphCall> next() override
        {
            if (m_done || m_feeds.length() >= m_feeds.maxLength())
                return std::nullopt;
            SubgraphCall call;
            const bool first = m_step == 0 && m_op.m_initDecoder;
            call.graph = first ? m_op.m_initDecoder : m_op.m_decoder;
            call.inputs = m_feeds.feeds();
            call.label = std::string(m_op.m_sampling ? "Sampling" : "GreedySearch") + " \"" + m_name + "\" "
                + (first ? "init_decoder" : "decoder") + " step " + std::to_string(m_step);
            call.iteration = m_step;
            return call;
        }

        void finished(std::vector<Value> outputs) override
        {
            const std::string where = std::string(m_op.m_sampling ? "Sampling" : "GreedySearch") + " \"" + m_name
                + "\" step " + std::to_string(m_step);
            std::vector<float> scores = lastLogits(outputs.at(0), m_batch, where, m_vocab);
            if (m_op.m_eos >= m_vocab || m_op.m_eos < -1)
                throw Error(where + ": eos_token_id " + std::to_string(m_op.m_eos) + " is outside the vocabulary of "
                    + std::to_string(m_vocab));
            m_proc.apply(
                scores, m_batch, 1, m_vocab, m_feeds.sequences(), m_feeds.maxLength(), m_feeds.length(), m_step);
            std::vector<int32_t> next(static_cast<size_t>(m_batch));
            bool all = true;
            for (int64_t b = 0; b < m_batch; ++b) {
                const float* s = scores.data() + b * m_vocab;
                int32_t token = m_op.m_sampling ? sample(scores.data() + b * m_vocab, b)
                                                : static_cast<int32_t>(std::max_element(s, s + m_vocab) - s);
                const bool fin = m_finished[static_cast<size_t>(b)];
                if (fin || token == m_op.m_eos) {
                    m_finished[static_cast<size_t>(b)] = true;
                    token = static_cast<int32_t>(m_op.m_pad);
                }
                all = all && m_finished[static_cast<size_t>(b)];
                next[static_cast<size_t>(b)] = token;
            }
            m_feeds.append(next, {});
            ++m_step;
            if (all)
                m_done = true;
            else if (m_feeds.length() < m_feeds.maxLength())
                m_feeds.advance(next, {}, outputs);
        }

        void complete(KernelContext& ctx) override
        {
            ctx.setOutput(0, Value(Tensor::fromVector(m_feeds.sequences(), { m_batch, m_feeds.maxLength() })));
        }

        /// Sampling: temperature, presence penalty, top_p filter, then a draw from softmax(scores).
        int32_t sample(float* s, int64_t row)
        {
            const int64_t v = m_vocab;
            if (m_op.m_temperature > 0.0f && m_op.m_temperature != 1.0f)
                for (int64_t k = 0; k < v; ++k)
                    s[k] /= m_op.m_temperature;
            if (!m_presenceMask.empty() && m_op.m_presencePenalty != 0.0f)
                for (int64_t k = 0; k < v; ++k)
                    s[k] -= static_cast<float>(m_presenceMask[static_cast<size_t>(row * v + k)])
                        * m_op.m_presencePenalty;
            const bool custom = m_op.m_custom == 1;
            std::vector<int64_t> order(static_cast<size_t>(v));
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(
                order.begin(), order.end(), [&](int64_t x, int64_t y) { return custom ? s[x] > s[y] : s[x] < s[y]; });
            // Probabilities of the sorted scores, accumulated from the first.
            const float mx = *std::max_element(s, s + v);
            std::vector<float> cumulative(static_cast<size_t>(v));
            float sum = 0.0f;
            for (int64_t k = 0; k < v; ++k)
                sum += cumulative[static_cast<size_t>(k)] = std::exp(s[order[static_cast<size_t>(k)]] - mx);
            for (auto& c : cumulative)
                c /= sum;
            std::vector<int64_t> filtered;
            if (custom) {
                if (cumulative[0] > m_op.m_topP && v > 1)
                    filtered.push_back(order[1]);
                for (int64_t j = 1; j < v - 1; ++j) {
                    cumulative[static_cast<size_t>(j)] += cumulative[static_cast<size_t>(j - 1)];
                    if (cumulative[static_cast<size_t>(j)] > m_op.m_topP)
                        filtered.push_back(order[static_cast<size_t>(j + 1)]);
                }
            } else {
                if (cumulative[0] <= 1.0f - m_op.m_topP)
                    filtered.push_back(order[0]);
                for (int64_t j = 1; j < v - m_op.m_minTokensToKeep; ++j) {
                    cumulative[static_cast<size_t>(j)] += cumulative[static_cast<size_t>(j - 1)];
                    if (cumulative[static_cast<size_t>(j)] <= 1.0f - m_op.m_topP)
                        filtered.push_back(order[static_cast<size_t>(j)]);
                }
            }
            for (int64_t k : filtered)
                s[k] = m_op.m_filterValue;
            // softmax(s) and a draw; a row whose every score is filtered (or -inf) draws uniformly.
            const float top = *std::max_element(s, s + v);
            std::vector<double> weights(static_cast<size_t>(v));
            double total = 0.0;
            for (int64_t k = 0; k < v; ++k)
                total += weights[static_cast<size_t>(k)] = std::isfinite(top) ? std::exp(double(s[k]) - top) : 1.0;
            std::uniform_real_distribution<double> uniform(0.0, total);
            double u = uniform(m_random);
            for (int64_t k = 0; k < v; ++k) {
                u -= weights[static_cast<size_t>(k)];
                if (u < 0.0 && weights[static_cast<size_t>(k)] > 0.0)
                    return static_cast<int32_t>(k);
            }
            for (int64_t k = v - 1; k >= 0; --k) // rounding left u at the end: the last token with weight
                if (weights[static_cast<size_t>(k)] > 0.0)
                    return static_cast<int32_t>(k);
            return 0;
        }

    private:
        const GreedySearch& m_op;
        std::string m_name;
        int64_t m_batch = 0, m_vocab = -1, m_step = 0;
        bool m_done = false;
        LogitsProcessing m_proc;
        GptFeeds m_feeds;
        std::vector<bool> m_finished;
        std::vector<int32_t> m_presenceMask;
        std::mt19937 m_random;
    };

    bool m_sampling;
    const Graph* m_decoder;
    const Graph* m_initDecoder;
    int64_t m_eos, m_pad, m_noRepeatNgram, m_vocabSize;
    DecoderShape m_shape;
    float m_temperature = 1.0f, m_topP = 0.0f, m_filterValue = 0.0f, m_presencePenalty = 0.0f;
    int64_t m_minTokensToKeep = 0, m_custom = 0;
};

} // namespace

void registerGreedySearch(KernelRegistry& r)
{
    r.add("com.microsoft", "GreedySearch", 1, KernelRegistry::kLatest,
        [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<GreedySearch>(init, false); });
    r.add("com.microsoft", "Sampling", 1, KernelRegistry::kLatest,
        [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<GreedySearch>(init, true); });
}

} // namespace onnxscope
