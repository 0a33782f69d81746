// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/generation/gpt_generation.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_set>

namespace onnxscope::generation {

void LogitsProcessing::apply(std::vector<float>& scores, int64_t rows, int64_t beams, int64_t vocab,
    const std::vector<int32_t>& sequences, int64_t stride, int64_t length, int64_t step) const
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
                if (prefixVocabMask[static_cast<size_t>(r / beams * vocab + v)] == 0)
                    s[v] = lowest;
        if (minLength > 0 && length < minLength && eos >= 0 && eos < vocab)
            s[eos] = lowest;
        if (temperature > 0.0f && temperature != 1.0f)
            for (int64_t v = 0; v < vocab; ++v)
                s[v] /= temperature;
    }
}

DecoderShape checkGptDecoder(const KernelInit& init, const Graph& g, const char* attribute)
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
                "subgraph input " + std::to_string(i) + " must be named " + names[i] + ", got " + g.value(in[i]).name);
    // A shared past/present buffer adds past_sequence_length as the last input; beam search's shared buffer
    // (beam_width, cache_indirection for DecoderMaskedSelfAttention) is not implemented.
    const bool shared = g.value(in.back()).name == "past_sequence_length";
    for (size_t i = 4; i < in.size(); ++i) {
        const std::string& name = g.value(in[i]).name;
        if (name == "beam_width" || name == "cache_indirection")
            throw init.attributes().error(attribute,
                "subgraph input " + name
                    + " (a shared buffer with cache indirection, as DecoderMaskedSelfAttention decoders take) is not "
                      "supported; the decoder may take input_ids, position_ids, attention_mask, past_0.. and "
                      "past_sequence_length");
    }
    const size_t pasts = in.size() - 3 - (shared ? 1 : 0);
    if (out.size() != pasts + 1)
        throw init.attributes().error(attribute,
            "the subgraph must give logits and one present_* per past_* input (" + std::to_string(pasts + 1)
                + " outputs), got " + std::to_string(out.size()));
    const auto& past = g.value(in[3]).type;
    if (!past.hasShape || past.shape.size() != 5 || !past.shape[0].known() || past.shape[0].value != 2
        || !past.shape[2].known() || past.shape[2].value <= 0 || !past.shape[4].known() || past.shape[4].value <= 0)
        throw init.attributes().error(attribute,
            "subgraph input past_0 must be declared [2, batch, num_heads, past_length, head_size] with num_heads and "
            "head_size fixed, got "
                + past.toString());
    DecoderShape d;
    d.heads = past.shape[2].value;
    d.headSize = past.shape[4].value;
    d.layers = pasts;
    d.sharedBuffer = shared;
    d.pastType = past.elementType != DataType::Undefined ? past.elementType : DataType::Float;
    if (d.pastType != DataType::Float)
        throw init.attributes().error(attribute, "past state must be float, got " + past.toString());
    return d;
}

void refuseNonGpt(const KernelInit& init, const char* op)
{
    const auto& a = init.attributes();
    const int64_t modelType = a.getInt("model_type", 0);
    if (modelType != 0)
        throw a.error("model_type",
            std::to_string(modelType) + " is not supported: " + op
                + " runs model_type 0 (GPT-2 style decoder with past state) only");
    if (a.has("encoder"))
        throw a.error("encoder",
            std::string("encoder-decoder generation is not supported by ") + op
                + " here; only model_type 0 (decoder only)");
}

int32_t int32Scalar(KernelContext& ctx, size_t index, const char* name)
{
    const Tensor& t = ctx.input(index);
    if (t.dtype() != DataType::Int32 || t.size() != 1)
        throw ctx.error(std::string("input '") + name + "' must be one int32, got " + t.typeString());
    return t.data<int32_t>()[0];
}

float floatScalar(KernelContext& ctx, size_t index, const char* name)
{
    const Tensor& t = ctx.input(index);
    if (t.dtype() != DataType::Float || t.size() != 1)
        throw ctx.error(std::string("input '") + name + "' must be one float, got " + t.typeString());
    return t.data<float>()[0];
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

void GptFeeds::init(const Tensor& ids, const std::vector<int32_t>& givenMask, int64_t pad, int64_t beams,
    int64_t maxLength, const DecoderShape& decoder)
{
    const int64_t batch = ids.dim(0), s = ids.dim(1);
    m_rows = batch * beams;
    m_maxLength = maxLength;
    m_length = s;
    auto idData = ids.data<int32_t>();
    m_sequences.assign(static_cast<size_t>(m_rows * maxLength), static_cast<int32_t>(pad));
    Tensor expanded(DataType::Int32, { m_rows, s });
    Tensor position(DataType::Int32, { m_rows, s });
    Tensor mask(DataType::Int32, { m_rows, s });
    auto e = expanded.data<int32_t>();
    auto pos = position.data<int32_t>();
    auto msk = mask.data<int32_t>();
    m_nextPosition.resize(static_cast<size_t>(m_rows));
    for (int64_t r = 0; r < m_rows; ++r) {
        const int64_t b = r / beams;
        int32_t count = 0;
        for (int64_t j = 0; j < s; ++j) {
            const size_t src = static_cast<size_t>(b * s + j), dst = static_cast<size_t>(r * s + j);
            e[dst] = idData[src];
            m_sequences[static_cast<size_t>(r * maxLength + j)] = idData[src];
            const bool isPad = idData[src] == pad;
            msk[dst] = givenMask.empty() ? (isPad ? 0 : 1) : givenMask[src];
            pos[dst] = isPad ? 0 : count++;
        }
        m_nextPosition[static_cast<size_t>(r)] = count;
    }
    m_feeds.clear();
    m_feeds.push_back(Value(std::move(expanded)));
    m_feeds.push_back(Value(std::move(position)));
    m_feeds.push_back(Value(std::move(mask)));
    // Shared buffers hold max_length rows from the start (zeros), past_sequence_length 0 of them valid.
    Tensor emptyPast(
        decoder.pastType, { 2, m_rows, decoder.heads, decoder.sharedBuffer ? maxLength : 0, decoder.headSize });
    for (size_t l = 0; l < decoder.layers; ++l)
        m_feeds.push_back(Value(emptyPast));
    m_shared = decoder.sharedBuffer;
    if (m_shared)
        m_feeds.push_back(Value(Tensor::fromVector(std::vector<int32_t> { 0 }, { 1 })));
}

void GptFeeds::append(const std::vector<int32_t>& next, const std::vector<int32_t>& beamIndex)
{
    if (!beamIndex.empty()) {
        std::vector<int32_t> old = m_sequences;
        for (int64_t r = 0; r < m_rows; ++r)
            std::copy_n(old.begin() + beamIndex[static_cast<size_t>(r)] * m_maxLength, m_length,
                m_sequences.begin() + r * m_maxLength);
    }
    for (int64_t r = 0; r < m_rows; ++r)
        m_sequences[static_cast<size_t>(r * m_maxLength + m_length)] = next[static_cast<size_t>(r)];
    ++m_length;
}

void GptFeeds::advance(
    const std::vector<int32_t>& next, const std::vector<int32_t>& beamIndex, std::vector<Value>& outputs)
{
    m_feeds[0] = Value(Tensor::fromVector(next, { m_rows, 1 }));
    Tensor position(DataType::Int32, { m_rows, 1 });
    auto pos = position.data<int32_t>();
    for (int64_t r = 0; r < m_rows; ++r)
        pos[static_cast<size_t>(r)] = m_nextPosition[static_cast<size_t>(r)]++;
    m_feeds[1] = Value(std::move(position));
    // The mask grows by one column of ones; as onnxruntime, its rows are not reordered with the beams (a batch
    // entry's beams share the prompt's mask).
    const Tensor& oldMask = m_feeds[2].tensor("attention_mask");
    const int64_t oldLength = oldMask.dim(1);
    Tensor mask(DataType::Int32, { m_rows, oldLength + 1 });
    auto om = oldMask.data<int32_t>();
    auto nm = mask.data<int32_t>();
    for (int64_t r = 0; r < m_rows; ++r) {
        std::copy_n(om.begin() + r * oldLength, oldLength, nm.begin() + r * (oldLength + 1));
        nm[static_cast<size_t>(r * (oldLength + 1) + oldLength)] = 1;
    }
    m_feeds[2] = Value(std::move(mask));
    if (m_shared) // the tokens run so far are the buffers' valid rows
        m_feeds.back() = Value(Tensor::fromVector(std::vector<int32_t> { static_cast<int32_t>(oldLength) }, { 1 }));
    for (size_t i = 1; i < outputs.size(); ++i) {
        if (beamIndex.empty()) {
            m_feeds[2 + i] = std::move(outputs[i]);
            continue;
        }
        // present [2, rows, heads, length, head_size]: row r of the next past is row beamIndex[r].
        const Tensor& present = outputs[i].tensor("present_" + std::to_string(i - 1));
        if (present.rank() != 5 || present.dim(0) != 2 || present.dim(1) != m_rows
            || present.dtype() != DataType::Float)
            throw Error("present_" + std::to_string(i - 1) + " must be float[2, " + std::to_string(m_rows)
                + ", heads, length, head_size], got " + present.typeString());
        const int64_t block = present.dim(2) * present.dim(3) * present.dim(4);
        Tensor past(DataType::Float, present.shape());
        auto src = present.data<float>();
        auto dst = past.data<float>();
        for (int64_t kv = 0; kv < 2; ++kv)
            for (int64_t r = 0; r < m_rows; ++r)
                std::memcpy(dst.data() + (kv * m_rows + r) * block,
                    src.data() + (kv * m_rows + beamIndex[static_cast<size_t>(r)]) * block,
                    static_cast<size_t>(block) * sizeof(float));
        m_feeds[2 + i] = Value(std::move(past));
    }
}

std::vector<float> lastLogits(const Value& value, int64_t rows, const std::string& where, int64_t& vocab)
{
    const Tensor& logits = value.tensor(where + " logits");
    if (logits.dtype() != DataType::Float || logits.rank() != 3 || logits.dim(0) != rows || logits.dim(1) < 1)
        throw Error(where + ": the decoder's logits must be float[" + std::to_string(rows)
            + ", length, vocab_size], got " + logits.typeString());
    if (vocab >= 0 && logits.dim(2) != vocab)
        throw Error(where + ": the decoder's logits have " + std::to_string(logits.dim(2))
            + " vocabulary entries, the node's vocab_size or masks say " + std::to_string(vocab));
    vocab = logits.dim(2);
    const int64_t length = logits.dim(1);
    auto l = logits.data<float>();
    std::vector<float> scores(static_cast<size_t>(rows * vocab));
    for (int64_t r = 0; r < rows; ++r)
        std::copy_n(l.begin() + (r * length + length - 1) * vocab, vocab, scores.begin() + r * vocab);
    return scores;
}

} // namespace onnxscope::generation
