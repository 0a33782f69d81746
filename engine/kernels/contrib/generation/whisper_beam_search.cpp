// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/generation/beam_scorer.h"

#include <cstring>

namespace onnxscope {

namespace {

using namespace generation;

/// WhisperBeamSearch (com.microsoft 1, model_type 2): beam search over an encoder-decoder model as onnxruntime's
/// Whisper export writes it. The `encoder` subgraph (inputs encoder_input_ids: the float features [batch, mels,
/// frames], decoder_input_ids: int32 [batch, S]; outputs logits, encoder_hidden_states, present_key_self_i /
/// present_value_self_i per layer, then present_key_cross_i / present_value_cross_i per layer) runs once as the frame
/// `WhisperBeamSearch "name" encoder`, on the batch's rows; its logits give the first token (each row's last position,
/// repeated for its beams). decoder_input_ids is input 10, or decoder_start_token_id per row when absent. Then the
/// `decoder` subgraph (inputs input_ids, optionally encoder_hidden_states, past_key_self_i / past_value_self_i,
/// past_key_cross_i / past_value_cross_i; outputs logits, present_key_self_i / present_value_self_i) runs once per
/// token as `WhisperBeamSearch "name" decoder step i` on batch * num_beams rows: input_ids is the new token ([rows, 1],
/// when the decoder declares input_ids' second dimension as 1) or the whole sequence so far; the encoder's outputs are
/// repeated num_beams times, the self-attention state follows the beams, the cross-attention state stays. Scoring,
/// logits processing, hypotheses and outputs are BeamSearch's (beam_scorer.h).
class WhisperBeamSearch final : public SubgraphKernel {
public:
    explicit WhisperBeamSearch(const KernelInit& init)
        : m_encoder(init.node.subgraph("encoder"))
        , m_decoder(init.node.subgraph("decoder"))
        , m_eos(init.attributes().getInt("eos_token_id", -1))
        , m_pad(init.attributes().getInt("pad_token_id", -1))
        , m_start(init.attributes().getInt("decoder_start_token_id", -1))
        , m_noRepeatNgram(init.attributes().getInt("no_repeat_ngram_size", 0))
        , m_vocabSize(init.attributes().getInt("vocab_size", -1))
        , m_earlyStopping(init.attributes().getInt("early_stopping", 0) != 0)
    {
        const auto& a = init.attributes();
        if (!m_encoder)
            throw a.error("encoder", "required graph attribute is missing");
        if (!m_decoder)
            throw a.error("decoder", "required graph attribute is missing");
        const int64_t modelType = a.getInt("model_type", 2);
        if (modelType != 2)
            throw a.error(
                "model_type", std::to_string(modelType) + " is not supported: WhisperBeamSearch runs model_type 2");
        if (a.has("init_decoder"))
            throw a.error("init_decoder", "is for GPT-2 style decoders; WhisperBeamSearch's first step is the encoder");
        if (a.getInt("decoder_output_cross_qk", 0) != 0)
            throw a.error("decoder_output_cross_qk",
                "cross attention Q*K outputs (for timestamp alignment) are not supported here; only 0");
        if (m_noRepeatNgram < 0)
            throw a.error("no_repeat_ngram_size", "must be non-negative");
        const auto& outs = init.node.outputs;
        if (outs.size() > 3 && outs[3] != kNoValue)
            throw init.error("output 'cross_qk' is not supported here (it needs decoder_output_cross_qk)");
        if (outs.size() > 4 && outs[4] != kNoValue)
            throw init.error("output 'non_speech_probs' (no_speech_token_id's probability) is not supported here");
        const auto& ins = init.node.inputs;
        if (ins.size() > 15)
            throw init.error("has " + std::to_string(ins.size()) + " inputs; WhisperBeamSearch takes at most 15");
        if (ins.size() > 12 && ins[12] != kNoValue)
            throw init.error("input 'cross_qk_layer_head' is not supported here (cross attention Q*K outputs)");
        if (ins.size() > 13 && ins[13] != kNoValue)
            throw init.error("input 'extra_decoding_ids' is not supported here");
        checkEncoder(init);
        checkDecoder(init);
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override { return std::make_unique<Run>(*this, ctx); }

private:
    void checkEncoder(const KernelInit& init)
    {
        const Graph& g = *m_encoder;
        const auto& in = g.inputs();
        const auto& out = g.outputs();
        auto fail = [&](const std::string& what) { return init.attributes().error("encoder", what); };
        if (in.size() != 2 || g.value(in[0]).name != "encoder_input_ids" || g.value(in[1]).name != "decoder_input_ids")
            throw fail("the subgraph must take encoder_input_ids and decoder_input_ids (2 inputs)");
        if (out.size() < 6 || (out.size() - 2) % 4 != 0)
            throw fail("the subgraph must give logits, encoder_hidden_states and 4 present_* per layer, got "
                + std::to_string(out.size()) + " outputs");
        const char* names[] = { "logits", "encoder_hidden_states", "present_key_self_0", "present_value_self_0" };
        for (size_t i = 0; i < 4; ++i)
            if (g.value(out[i]).name != names[i])
                throw fail("subgraph output " + std::to_string(i) + " must be named " + names[i] + ", got "
                    + g.value(out[i]).name);
        m_layers = (out.size() - 2) / 4;
    }

    void checkDecoder(const KernelInit& init)
    {
        const Graph& g = *m_decoder;
        const auto& in = g.inputs();
        const auto& out = g.outputs();
        auto fail = [&](const std::string& what) { return init.attributes().error("decoder", what); };
        if (in.empty() || g.value(in[0]).name != "input_ids")
            throw fail("subgraph input 0 must be named input_ids");
        for (size_t i = 1; i < in.size(); ++i) {
            const std::string& name = g.value(in[i]).name;
            if (name == "past_sequence_length" || name == "beam_width" || name == "cache_indirection")
                throw fail("subgraph input " + name
                    + " (a shared past/present buffer, as DecoderMaskedMultiHeadAttention decoders take) is not "
                      "supported here");
        }
        m_hiddenInput = in.size() > 1 && g.value(in[1]).name == "encoder_hidden_states";
        const size_t first = m_hiddenInput ? 2 : 1;
        if (in.size() != first + 4 * m_layers)
            throw fail("the subgraph must take input_ids" + std::string(m_hiddenInput ? ", encoder_hidden_states" : "")
                + " and 4 past_* per layer (" + std::to_string(m_layers) + " layers, from the encoder), got "
                + std::to_string(in.size()) + " inputs");
        if (out.size() != 1 + 2 * m_layers || g.value(out[0]).name != "logits")
            throw fail("the subgraph must give logits and 2 present_* per layer (" + std::to_string(1 + 2 * m_layers)
                + " outputs), got " + std::to_string(out.size()));
        const auto& ids = g.value(in[0]).type;
        m_idsOneToken = ids.hasShape && ids.shape.size() == 2 && ids.shape[1].known() && ids.shape[1].value == 1;
    }

    class Run final : public SubgraphRun {
    public:
        Run(const WhisperBeamSearch& op, KernelContext& ctx)
            : m_op(op)
            , m_name(ctx.node().displayName())
        {
            const Tensor& features = ctx.input(0);
            if (features.dtype() != DataType::Float || features.rank() != 3 || features.dim(0) < 1)
                throw ctx.error("input 'input_ids' (the audio features) must be float[batch, feature_size, "
                                "sequence_length], got "
                    + features.typeString());
            m_batch = features.dim(0);
            Tensor decoderIds;
            if (ctx.inputCount() > 10 && ctx.hasInput(10)) {
                decoderIds = ctx.input(10);
                if (decoderIds.dtype() != DataType::Int32 || decoderIds.rank() != 2 || decoderIds.dim(0) != m_batch
                    || decoderIds.dim(1) < 1)
                    throw ctx.error("input 'decoder_input_ids' must be int32[" + std::to_string(m_batch)
                        + ", initial_length], got " + decoderIds.typeString());
            } else {
                if (op.m_start < 0)
                    throw ctx.error("needs input 'decoder_input_ids' or the attribute decoder_start_token_id");
                decoderIds = Tensor::fromVector(
                    std::vector<int32_t>(static_cast<size_t>(m_batch), static_cast<int32_t>(op.m_start)),
                    { m_batch, 1 });
            }
            m_initialLength = decoderIds.dim(1);
            BeamInputs in = readBeamInputs(ctx, m_batch, m_initialLength, op.m_vocabSize, op.m_eos, op.m_noRepeatNgram,
                "decoder_input_ids length");
            if (in.maxLength < m_initialLength + 2)
                throw ctx.error("max_length (" + std::to_string(in.maxLength)
                    + ") must exceed the decoder_input_ids length (" + std::to_string(m_initialLength)
                    + ") by at least 2, as onnxruntime's WhisperBeamSearch requires");
            m_proc = in.proc;
            m_beams = in.beams;
            m_returns = in.returns;
            m_vocab = in.vocab;
            m_maxLength = in.maxLength;
            if (ctx.inputCount() > 11 && ctx.hasInput(11) && int32Scalar(ctx, 11, "logits_processor") != 0)
                throw ctx.error("input 'logits_processor': only 0 (none) is supported; 1 (Whisper's timestamp "
                                "processor) is not implemented here");
            // As onnxruntime: the processed log-probabilities divided by a temperature above 0 (0 and below: none).
            if (ctx.inputCount() > 14 && ctx.hasInput(14))
                m_proc.temperature = floatScalar(ctx, 14, "temperature");
            const int64_t rows = m_batch * m_beams;
            m_sequences.assign(static_cast<size_t>(rows * m_maxLength), static_cast<int32_t>(op.m_pad));
            auto d = decoderIds.data<int32_t>();
            for (int64_t r = 0; r < rows; ++r)
                std::copy_n(d.begin() + (r / m_beams) * m_initialLength, m_initialLength,
                    m_sequences.begin() + r * m_maxLength);
            m_length = m_initialLength;
            m_encoderInputs = { Value(features), Value(decoderIds) };
            m_scorer.init(m_batch, m_beams, in.lengthPenalty, op.m_eos, op.m_pad, op.m_earlyStopping, ctx.hasOutput(2));
        }

        std::optional<SubgraphCall> next() override
        {
            SubgraphCall call;
            if (m_step == 0) {
                call.graph = m_op.m_encoder;
                call.inputs = std::move(m_encoderInputs);
                call.label = "WhisperBeamSearch \"" + m_name + "\" encoder";
                call.iteration = 0;
                return call;
            }
            if (m_scorer.allDone() || m_length >= m_maxLength)
                return std::nullopt;
            call.graph = m_op.m_decoder;
            call.inputs = m_feeds;
            call.label = "WhisperBeamSearch \"" + m_name + "\" decoder step " + std::to_string(m_step);
            call.iteration = m_step;
            return call;
        }

        void finished(std::vector<Value> outputs) override
        {
            const bool encoder = m_step == 0;
            const std::string where = "WhisperBeamSearch \"" + m_name + "\" "
                + (encoder ? "encoder" : "decoder step " + std::to_string(m_step));
            const int64_t rows = m_batch * m_beams;
            std::vector<float> scores;
            if (encoder) { // the batch's rows, each repeated for its beams
                std::vector<float> perEntry = lastLogits(outputs.at(0), m_batch, where, m_vocab);
                scores.resize(static_cast<size_t>(rows * m_vocab));
                for (int64_t r = 0; r < rows; ++r)
                    std::copy_n(perEntry.begin() + (r / m_beams) * m_vocab, m_vocab, scores.begin() + r * m_vocab);
            } else {
                scores = lastLogits(outputs.at(0), rows, where, m_vocab);
            }
            std::vector<int32_t> nextTokens, nextIndices;
            m_scorer.step(std::move(scores), m_vocab, m_proc, m_sequences, m_maxLength, m_length, m_step, where,
                nextTokens, nextIndices);
            std::vector<int32_t> old = m_sequences;
            for (int64_t r = 0; r < rows; ++r) {
                std::copy_n(old.begin() + nextIndices[static_cast<size_t>(r)] * m_maxLength, m_length,
                    m_sequences.begin() + r * m_maxLength);
                m_sequences[static_cast<size_t>(r * m_maxLength + m_length)] = nextTokens[static_cast<size_t>(r)];
            }
            ++m_length;
            ++m_step;
            // As onnxruntime: the encoder's step always goes on to the decoder; a decoder step stops when all done.
            if ((!encoder && m_scorer.allDone()) || m_length >= m_maxLength)
                return;
            if (encoder)
                initFeeds(outputs, where);
            else
                advance(outputs, nextIndices, where);
            setInputIds(nextTokens);
        }

        void complete(KernelContext& ctx) override
        {
            std::vector<int32_t> sequences;
            std::vector<float> sequenceScores, scores;
            const int64_t steps = m_maxLength - m_initialLength;
            m_scorer.finish(
                m_sequences, m_maxLength, m_length, m_returns, m_maxLength, steps, sequences, sequenceScores, scores);
            ctx.setOutput(0, Value(Tensor::fromVector(sequences, { m_batch, m_returns, m_maxLength })));
            if (ctx.hasOutput(1))
                ctx.setOutput(1, Value(Tensor::fromVector(sequenceScores, { m_batch, m_returns })));
            if (ctx.hasOutput(2))
                ctx.setOutput(2, Value(Tensor::fromVector(scores, { steps, m_batch, m_beams, m_scorer.vocab() })));
        }

    private:
        /// Each row of a float tensor [batch, ...] repeated num_beams times.
        Value expand(const Value& v, const std::string& name) const
        {
            const Tensor& t = v.tensor(name);
            if (t.dtype() != DataType::Float || t.rank() < 1 || t.dim(0) != m_batch)
                throw Error("WhisperBeamSearch \"" + m_name + "\" encoder: output " + name + " must be float["
                    + std::to_string(m_batch) + ", ...], got " + t.typeString());
            Shape shape = t.shape();
            shape[0] = m_batch * m_beams;
            Tensor out(DataType::Float, shape);
            const int64_t block = t.size() / m_batch;
            auto src = t.data<float>();
            auto dst = out.data<float>();
            for (int64_t r = 0; r < m_batch * m_beams; ++r)
                std::memcpy(dst.data() + r * block, src.data() + (r / m_beams) * block,
                    static_cast<size_t>(block) * sizeof(float));
            return Value(std::move(out));
        }

        void initFeeds(std::vector<Value>& outputs, const std::string& where)
        {
            m_feeds.clear();
            m_feeds.emplace_back(); // input_ids, set after
            const size_t layers = m_op.m_layers;
            if (m_op.m_hiddenInput)
                m_feeds.push_back(expand(outputs.at(1), "encoder_hidden_states"));
            for (size_t i = 2; i < 2 + 4 * layers; ++i)
                m_feeds.push_back(expand(outputs.at(i), m_op.m_encoder->value(m_op.m_encoder->outputs()[i]).name));
            (void)where;
        }

        void advance(std::vector<Value>& outputs, const std::vector<int32_t>& beamIndex, const std::string& where)
        {
            const int64_t rows = m_batch * m_beams;
            const size_t first = m_op.m_hiddenInput ? 2 : 1;
            for (size_t i = 1; i < outputs.size(); ++i) { // present_*_self: the next pasts, following the beams
                const Tensor& present
                    = outputs[i].tensor(where + " " + m_op.m_decoder->value(m_op.m_decoder->outputs()[i]).name);
                if (present.dtype() != DataType::Float || present.rank() < 1 || present.dim(0) != rows)
                    throw Error(where + ": decoder output " + m_op.m_decoder->value(m_op.m_decoder->outputs()[i]).name
                        + " must be float[" + std::to_string(rows) + ", ...], got " + present.typeString());
                const int64_t block = present.size() / rows;
                Tensor past(DataType::Float, present.shape());
                auto src = present.data<float>();
                auto dst = past.data<float>();
                for (int64_t r = 0; r < rows; ++r)
                    std::memcpy(dst.data() + r * block, src.data() + beamIndex[static_cast<size_t>(r)] * block,
                        static_cast<size_t>(block) * sizeof(float));
                m_feeds[first + i - 1] = Value(std::move(past));
            }
        }

        void setInputIds(const std::vector<int32_t>& next)
        {
            const int64_t rows = m_batch * m_beams;
            if (m_op.m_idsOneToken) {
                m_feeds[0] = Value(Tensor::fromVector(next, { rows, 1 }));
                return;
            }
            Tensor ids(DataType::Int32, { rows, m_length });
            auto d = ids.data<int32_t>();
            for (int64_t r = 0; r < rows; ++r)
                std::copy_n(m_sequences.begin() + r * m_maxLength, m_length, d.begin() + r * m_length);
            m_feeds[0] = Value(std::move(ids));
        }

        const WhisperBeamSearch& m_op;
        std::string m_name;
        int64_t m_batch = 0, m_initialLength = 0, m_beams = 1, m_returns = 1, m_vocab = -1, m_step = 0;
        int64_t m_maxLength = 0, m_length = 0;
        LogitsProcessing m_proc;
        BeamScorer m_scorer;
        std::vector<int32_t> m_sequences; // [rows, maxLength]
        std::vector<Value> m_encoderInputs, m_feeds;
    };

    const Graph* m_encoder;
    const Graph* m_decoder;
    int64_t m_eos, m_pad, m_start, m_noRepeatNgram, m_vocabSize;
    bool m_earlyStopping;
    size_t m_layers = 0;
    bool m_hiddenInput = false, m_idsOneToken = false;
};

} // namespace

void registerWhisperBeamSearch(KernelRegistry& r)
{
    r.add("com.microsoft", "WhisperBeamSearch", 1, KernelRegistry::kLatest, makeFactory<WhisperBeamSearch>());
}

} // namespace onnxscope
