// SPDX-License-Identifier: MIT
#pragma once

// The beam scorer that BeamSearch (decoder only) and WhisperBeamSearch (encoder-decoder) share: one step's scoring
// (log-softmax, logits processing, beam scores, the 2 * num_beams candidates), the finished hypotheses, and the
// final sequences.

#include "engine/kernels/contrib/generation/gpt_generation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace onnxscope::generation {

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

    void add(const int32_t* tokens, int64_t length, float sumLogprobs);
    bool canImprove(float bestSumLogprobs, int64_t length) const;
};

/// The running state of a beam search over batch * num_beams rows (entry b's beams are rows b * beams ..).
class BeamScorer {
public:
    void init(int64_t batch, int64_t beams, float lengthPenalty, int64_t eos, int64_t pad, bool earlyStopping,
        bool keepScores);

    /// One step. logits: the last position's logits [rows, vocab]; the sequences so far (row r at r * stride,
    /// `length` tokens). Gives each row's next token and the row it continues; `where` names the step in errors.
    void step(std::vector<float> logits, int64_t vocab, const LogitsProcessing& proc,
        const std::vector<int32_t>& sequences, int64_t stride, int64_t length, int64_t step, const std::string& where,
        std::vector<int32_t>& nextTokens, std::vector<int32_t>& nextIndices);

    bool allDone() const { return m_notDone == 0; }

    /// Closes the open beams of the entries not done (the sequences as in step), then writes sequences
    /// [batch, returns, maxLength], sequences_scores [batch, returns] and, if kept, scores [steps, batch, beams,
    /// vocab] (zeros after an early stop).
    void finish(const std::vector<int32_t>& sequences, int64_t stride, int64_t length, int64_t returns,
        int64_t maxLength, int64_t steps, std::vector<int32_t>& outSequences, std::vector<float>& outSequenceScores,
        std::vector<float>& outScores);

    int64_t vocab() const { return m_vocab; }

private:
    int64_t m_batch = 0, m_beams = 1, m_eos = -1, m_pad = -1, m_vocab = -1, m_notDone = 0;
    bool m_earlyStopping = false, m_keepScores = false;
    std::vector<float> m_beamScores;
    std::vector<Hypotheses> m_hyps;
    std::vector<float> m_scores;
};

/// The inputs BeamSearch and WhisperBeamSearch read at the same indices: max_length (1), min_length (2), num_beams
/// (3), num_return_sequences (4), length_penalty (5), repetition_penalty (6), vocab_mask (7), prefix_vocab_mask (8);
/// `length` is the sequence length the search starts from.
struct BeamInputs {
    int64_t maxLength = 0, beams = 1, returns = 1, vocab = -1;
    float lengthPenalty = 1.0f;
    LogitsProcessing proc;
};
BeamInputs readBeamInputs(KernelContext& ctx, int64_t batch, int64_t length, int64_t vocabSize, int64_t eos,
    int64_t noRepeatNgram, const char* lengthName);

} // namespace onnxscope::generation
