// SPDX-License-Identifier: MIT
#pragma once

// The parts onnxruntime's generation operators share for GPT-2 style decoders (model_type 0): the decoder's
// contract, the logits processors, and the decoder feeds from one step to the next.

#include "engine/kernels/kernel_registry.h"

#include <cstdint>
#include <string>
#include <vector>

namespace onnxscope::generation {

/// The logits processors, applied in onnxruntime's order: repetition penalty, no-repeat n-gram, vocab_mask,
/// prefix_vocab_mask (first step only), min_length, then (WhisperBeamSearch's temperature input) division by a
/// temperature greater than 0.
struct LogitsProcessing {
    float repetitionPenalty = 1.0f;
    int64_t noRepeatNgram = 0;
    std::vector<int32_t> vocabMask; // [V] or empty
    std::vector<int32_t> prefixVocabMask; // [batch, V] or empty
    int64_t minLength = 0;
    int64_t eos = -1;
    float temperature = 1.0f;

    /// scores: [rows, V], rows = batch * beams; sequences: row r's tokens (`length` of them, row stride `stride`).
    void apply(std::vector<float>& scores, int64_t rows, int64_t beams, int64_t vocab,
        const std::vector<int32_t>& sequences, int64_t stride, int64_t length, int64_t step) const;
};

/// The decoder subgraph's contract (inputs input_ids, position_ids, attention_mask, past_0.., optionally
/// past_sequence_length; outputs logits, present_0..), checked at plan time; past_0's declared shape gives the number
/// of heads and the head size.
struct DecoderShape {
    int64_t heads = 0, headSize = 0;
    size_t layers = 0;
    DataType pastType = DataType::Float;
    /// The decoder's last input is past_sequence_length (convert_generation's --past_present_share_buffer): pasts are
    /// buffers [2, rows, heads, max_length, head_size], their first past_sequence_length rows valid.
    bool sharedBuffer = false;
};
DecoderShape checkGptDecoder(const KernelInit& init, const Graph& g, const char* attribute);

/// Refusals common to the generation operators: model_type other than 0, the encoder attribute.
void refuseNonGpt(const KernelInit& init, const char* op);

/// The inputs and attributes read the same way by every generation operator.
int32_t int32Scalar(KernelContext& ctx, size_t index, const char* name);
float floatScalar(KernelContext& ctx, size_t index, const char* name);
std::vector<int32_t> int32Vector(KernelContext& ctx, size_t index, const char* name, const Shape& expected);

/// The decoder's feeds and the sequences generated so far, for batch * beams rows (each prompt row repeated
/// `beams` times).
class GptFeeds {
public:
    /// ids: int32[batch, S]; givenMask: [batch, S] or empty (then pad tokens get mask 0).
    void init(const Tensor& ids, const std::vector<int32_t>& givenMask, int64_t pad, int64_t beams, int64_t maxLength,
        const DecoderShape& decoder);
    /// After a step: row i continues row beamIndex[i] (empty: row i) with token next[i]; the decoder's outputs
    /// (logits, presents) give the next pasts, gathered along the rows by beamIndex.
    void append(const std::vector<int32_t>& next, const std::vector<int32_t>& beamIndex);
    void advance(const std::vector<int32_t>& next, const std::vector<int32_t>& beamIndex, std::vector<Value>& outputs);

    const std::vector<Value>& feeds() const { return m_feeds; }
    const std::vector<int32_t>& sequences() const { return m_sequences; } // [rows, maxLength]
    int64_t rows() const { return m_rows; }
    int64_t length() const { return m_length; }
    int64_t maxLength() const { return m_maxLength; }
    const int32_t* row(int64_t r) const { return m_sequences.data() + r * m_maxLength; }

private:
    int64_t m_rows = 0, m_maxLength = 0, m_length = 0;
    bool m_shared = false; // the last feed is past_sequence_length
    std::vector<int32_t> m_sequences;
    std::vector<int32_t> m_nextPosition;
    std::vector<Value> m_feeds;
};

/// Last-position logits [rows, V] of the decoder's logits output; checks its type and the rows.
std::vector<float> lastLogits(const Value& logits, int64_t rows, const std::string& where, int64_t& vocab);

} // namespace onnxscope::generation
