// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/generation/beam_scorer.h"

namespace onnxscope {

namespace {

using namespace generation;

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
            BeamInputs in = readBeamInputs(
                ctx, m_batch, m_promptLength, op.m_vocabSize, op.m_eos, op.m_noRepeatNgram, "input sequence length");
            m_proc = in.proc;
            m_beams = in.beams;
            m_returns = in.returns;
            m_vocab = in.vocab;
            if (ctx.inputCount() > 11 && ctx.hasInput(11) && int32Scalar(ctx, 11, "logits_processor") != 0)
                throw ctx.error("input 'logits_processor': only 0 (none) is supported; 1 is Whisper's timestamp "
                                "processor, for model_type 2");
            std::vector<int32_t> givenMask;
            if (ctx.hasInput(9))
                givenMask = int32Vector(ctx, 9, "attention_mask", { m_batch, m_promptLength });
            m_feeds.init(ids, givenMask, op.m_pad, m_beams, in.maxLength, op.m_shape);
            m_scorer.init(m_batch, m_beams, in.lengthPenalty, op.m_eos, op.m_pad, op.m_earlyStopping, ctx.hasOutput(2));
        }

        std::optional<SubgraphCall> next() override
        {
            if (m_scorer.allDone() || m_feeds.length() >= m_feeds.maxLength())
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
            std::vector<int32_t> nextTokens, nextIndices;
            m_scorer.step(std::move(scores), m_vocab, m_proc, m_feeds.sequences(), m_feeds.maxLength(),
                m_feeds.length(), m_step, where, nextTokens, nextIndices);
            m_feeds.append(nextTokens, nextIndices);
            ++m_step;
            if (!m_scorer.allDone() && m_feeds.length() < m_feeds.maxLength())
                m_feeds.advance(nextTokens, nextIndices, outputs);
        }

        void complete(KernelContext& ctx) override
        {
            const int64_t maxLength = m_feeds.maxLength();
            std::vector<int32_t> sequences;
            std::vector<float> sequenceScores, scores;
            m_scorer.finish(m_feeds.sequences(), maxLength, m_feeds.length(), m_returns, maxLength,
                maxLength - m_promptLength, sequences, sequenceScores, scores);
            ctx.setOutput(0, Value(Tensor::fromVector(sequences, { m_batch, m_returns, maxLength })));
            if (ctx.hasOutput(1))
                ctx.setOutput(1, Value(Tensor::fromVector(sequenceScores, { m_batch, m_returns })));
            if (ctx.hasOutput(2))
                ctx.setOutput(2,
                    Value(Tensor::fromVector(
                        scores, { maxLength - m_promptLength, m_batch, m_beams, m_scorer.vocab() })));
        }

    private:
        const BeamSearch& m_op;
        std::string m_name;
        int64_t m_batch = 0, m_promptLength = 0, m_beams = 1, m_returns = 1, m_vocab = -1, m_step = 0;
        LogitsProcessing m_proc;
        GptFeeds m_feeds;
        BeamScorer m_scorer;
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
