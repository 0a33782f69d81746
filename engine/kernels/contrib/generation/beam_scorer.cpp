// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/generation/beam_scorer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace onnxscope::generation {

void Hypotheses::add(const int32_t* tokens, int64_t length, float sumLogprobs)
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

bool Hypotheses::canImprove(float bestSumLogprobs, int64_t length) const
{
    return items.back().score < bestSumLogprobs / std::pow(static_cast<float>(length), lengthPenalty);
}

void BeamScorer::init(
    int64_t batch, int64_t beams, float lengthPenalty, int64_t eos, int64_t pad, bool earlyStopping, bool keepScores)
{
    m_batch = batch;
    m_beams = beams;
    m_eos = eos;
    m_pad = pad;
    m_earlyStopping = earlyStopping;
    m_keepScores = keepScores;
    m_beamScores.assign(static_cast<size_t>(batch * beams), 0.0f);
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 1; j < beams; ++j)
            m_beamScores[static_cast<size_t>(b * beams + j)] = -1e9f;
    m_hyps.assign(static_cast<size_t>(batch), Hypotheses {});
    for (auto& h : m_hyps) {
        h.capacity = static_cast<size_t>(beams);
        h.lengthPenalty = lengthPenalty;
    }
    m_notDone = batch;
    m_scores.clear();
}

void BeamScorer::step(std::vector<float> scores, int64_t v, const LogitsProcessing& proc,
    const std::vector<int32_t>& sequences, int64_t stride, int64_t length, int64_t stepIndex, const std::string& where,
    std::vector<int32_t>& nextTokens, std::vector<int32_t>& nextIndices)
{
    m_vocab = v;
    const int64_t rows = m_batch * m_beams;
    if (m_eos >= v || m_eos < -1)
        throw Error(
            where + ": eos_token_id " + std::to_string(m_eos) + " is outside the vocabulary of " + std::to_string(v));
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
    proc.apply(scores, rows, m_beams, v, sequences, stride, length, stepIndex);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < v; ++k)
            scores[static_cast<size_t>(r * v + k)] += m_beamScores[static_cast<size_t>(r)];
    if (m_keepScores)
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
    nextTokens.assign(static_cast<size_t>(rows), 0);
    nextIndices.assign(static_cast<size_t>(rows), 0);
    for (int64_t b = 0; b < m_batch; ++b) {
        Hypotheses& hyp = m_hyps[static_cast<size_t>(b)];
        if (hyp.done) {
            for (int64_t j = 0; j < m_beams; ++j) {
                const size_t at = static_cast<size_t>(b * m_beams + j);
                nextScores[at] = 0.0f;
                nextTokens[at] = static_cast<int32_t>(m_pad);
                nextIndices[at] = 0;
            }
            continue;
        }
        int64_t chosen = 0;
        for (int64_t j = 0; j < topK && chosen < m_beams; ++j) {
            const size_t at = static_cast<size_t>(b * topK + j);
            const int32_t row = static_cast<int32_t>(b * m_beams + topBeams[at]);
            if (m_eos >= 0 && topTokens[at] == m_eos) {
                if (j < m_beams)
                    hyp.add(sequences.data() + row * stride, length, topScores[at]);
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
        if (!m_earlyStopping) {
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
}

void BeamScorer::finish(const std::vector<int32_t>& sequences, int64_t stride, int64_t length, int64_t returns,
    int64_t maxLength, int64_t steps, std::vector<int32_t>& outSequences, std::vector<float>& outSequenceScores,
    std::vector<float>& outScores)
{
    for (int64_t b = 0; b < m_batch; ++b) {
        Hypotheses& hyp = m_hyps[static_cast<size_t>(b)];
        if (hyp.done)
            continue;
        for (int64_t j = 0; j < m_beams; ++j) {
            const int64_t row = b * m_beams + j;
            hyp.add(sequences.data() + row * stride, length, m_beamScores[static_cast<size_t>(row)]);
        }
    }
    outSequences.assign(static_cast<size_t>(m_batch * returns * maxLength), static_cast<int32_t>(m_pad));
    outSequenceScores.assign(static_cast<size_t>(m_batch * returns), 0.0f);
    for (int64_t b = 0; b < m_batch; ++b)
        for (int64_t k = 0; k < returns; ++k) {
            const auto& item = m_hyps[static_cast<size_t>(b)].items.at(static_cast<size_t>(k));
            std::copy(item.tokens.begin(), item.tokens.end(), outSequences.begin() + (b * returns + k) * maxLength);
            outSequenceScores[static_cast<size_t>(b * returns + k)] = item.score;
        }
    if (m_keepScores) {
        outScores = m_scores;
        outScores.resize(static_cast<size_t>(steps * m_batch * m_beams * m_vocab), 0.0f);
    }
}

BeamInputs readBeamInputs(KernelContext& ctx, int64_t batch, int64_t length, int64_t vocabSize, int64_t eos,
    int64_t noRepeatNgram, const char* lengthName)
{
    BeamInputs in;
    in.maxLength = ctx.hasInput(1) ? int32Scalar(ctx, 1, "max_length") : 16384;
    if (in.maxLength <= length)
        throw ctx.error("max_length (" + std::to_string(in.maxLength) + ") must be greater than the " + lengthName
            + " (" + std::to_string(length) + ")");
    in.proc.eos = eos;
    in.proc.noRepeatNgram = noRepeatNgram;
    if (ctx.hasInput(2))
        in.proc.minLength = int32Scalar(ctx, 2, "min_length");
    in.beams = ctx.hasInput(3) ? int32Scalar(ctx, 3, "num_beams") : 1;
    if (in.beams < 1 || in.beams > 32)
        throw ctx.error("input 'num_beams' must be in 1..32, got " + std::to_string(in.beams));
    in.returns = ctx.hasInput(4) ? int32Scalar(ctx, 4, "num_return_sequences") : 1;
    if (in.returns < 1 || in.returns > in.beams)
        throw ctx.error("input 'num_return_sequences' must be in 1..num_beams (" + std::to_string(in.beams) + "), got "
            + std::to_string(in.returns));
    in.lengthPenalty = ctx.hasInput(5) ? floatScalar(ctx, 5, "length_penalty") : 1.0f;
    if (ctx.hasInput(6)) {
        in.proc.repetitionPenalty = floatScalar(ctx, 6, "repetition_penalty");
        if (!(in.proc.repetitionPenalty > 0.0f))
            throw ctx.error(
                "input 'repetition_penalty' must be greater than 0, got " + std::to_string(in.proc.repetitionPenalty));
    }
    in.vocab = vocabSize;
    if (ctx.hasInput(7)) {
        const Tensor& m = ctx.input(7);
        if (m.rank() != 1)
            throw ctx.error("input 'vocab_mask' must be int32[vocab_size], got " + m.typeString());
        if (in.vocab < 0)
            in.vocab = m.dim(0);
        in.proc.vocabMask = int32Vector(ctx, 7, "vocab_mask", { in.vocab });
    }
    if (ctx.hasInput(8)) {
        const Tensor& m = ctx.input(8);
        if (m.rank() != 2)
            throw ctx.error("input 'prefix_vocab_mask' must be int32[batch, vocab_size], got " + m.typeString());
        if (in.vocab < 0)
            in.vocab = m.dim(1);
        in.proc.prefixVocabMask = int32Vector(ctx, 8, "prefix_vocab_mask", { batch, in.vocab });
    }
    return in;
}

} // namespace onnxscope::generation
