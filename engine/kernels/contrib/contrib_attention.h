// SPDX-License-Identifier: MIT
#pragma once

// The attention step shared by onnxruntime's attention contrib kernels (GroupQueryAttention, MultiHeadAttention,
// Attention): scores from the shared core, then a per-row hook that soft-caps, biases and masks them as each op
// defines, a softmax with an optional sink logit, and the weighted sum of V. Include only from kernel .cpp files.

#include "engine/kernels/nn/attention_core.h"

#include "engine/core/tensor.h"
#include "engine/kernels/kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace onnxscope::contrib {

/// Softmax of a row in place with an extra logit `sink` in the denominator (-inf: none). A row whose logits are all
/// -inf, with no sink, becomes 0.
inline void softmaxWithSink(float* row, int64_t n, float sink)
{
    float mx = sink;
    for (int64_t j = 0; j < n; ++j)
        mx = std::max(mx, row[j]);
    if (mx == -std::numeric_limits<float>::infinity()) {
        std::fill(row, row + n, 0.0f);
        return;
    }
    double sum = sink == -std::numeric_limits<float>::infinity() ? 0.0 : std::exp(static_cast<double>(sink - mx));
    for (int64_t j = 0; j < n; ++j) {
        row[j] = std::exp(row[j] - mx);
        sum += row[j];
    }
    const float inv = static_cast<float>(1.0 / sum);
    for (int64_t j = 0; j < n; ++j)
        row[j] *= inv;
}

/// Runs p (p.scores and p.tap are set here): scores = Q·Kᵀ·scale, then rowHook(b, h, s, row) turns each row of
/// kvLen scores into probabilities, then Y = P·V. `scores` receives the probabilities [B, Hq, qLen, kvLen].
template <class RowHook>
void runAttention(ThreadPool* pool, attention::Problem<float>& p, std::vector<float>& scores, RowHook&& rowHook)
{
    scores.assign(static_cast<size_t>(p.batch * p.qHeads * p.qLen * p.kvLen), 0.0f);
    p.scores = { scores.data(), p.qHeads * p.qLen * p.kvLen, p.qLen * p.kvLen, p.kvLen };
    attention::attentionScores<float>(pool, p);
    for (int64_t b = 0; b < p.batch; ++b)
        for (int64_t h = 0; h < p.qHeads; ++h)
            for (int64_t s = 0; s < p.qLen; ++s)
                rowHook(b, h, s, p.scores.head(b, h) + s * p.kvLen);
    attention::attentionOutput<float>(pool, p);
}

/// The rotation of rotary embedding on one head vector x of `rd` rotated elements with the cache rows cs, sn
/// (rd/2 values each): halves (x[i], x[i + rd/2]) or interleaved pairs (x[2i], x[2i+1]).
inline void rotate(float* x, int64_t rd, const float* cs, const float* sn, bool interleaved)
{
    const int64_t half = rd / 2;
    for (int64_t i = 0; i < half; ++i) {
        const int64_t ia = interleaved ? 2 * i : i, ib = interleaved ? 2 * i + 1 : i + half;
        const float a = x[ia], b = x[ib];
        x[ia] = a * cs[i] - b * sn[i];
        x[ib] = b * cs[i] + a * sn[i];
    }
}

/// The optional attention_bias input [B or 1, N or 1, S, T] of the attention ops, as float rows.
struct AttentionBias {
    const float* data = nullptr;
    int64_t batchStride = 0, headStride = 0, length = 0;
    /// Row (b, h, s) of T values, or null without bias.
    const float* row(int64_t b, int64_t h, int64_t s) const
    {
        return data ? data + b * batchStride + h * headStride + s * length : nullptr;
    }
};

/// Input `input` as an attention bias for B batches, N heads, S queries and T keys (absent: no bias). Throws a
/// message naming the expected shape.
AttentionBias attentionBias(const KernelContext& ctx, size_t input, int64_t batch, int64_t heads, int64_t qLen,
    int64_t total, std::vector<float>& buffer);

/// One score row of onnxruntime's Attention and MultiHeadAttention: keys the mask row marks -inf drop out, the other
/// mask values and the bias row add (either may be null), then the softmax.
inline void maskBiasSoftmax(float* row, int64_t n, const float* mask, const float* bias)
{
    for (int64_t j = 0; j < n; ++j) {
        if (mask && mask[j] == -std::numeric_limits<float>::infinity())
            row[j] = mask[j];
        else
            row[j] += (mask ? mask[j] : 0.0f) + (bias ? bias[j] : 0.0f);
    }
    softmaxWithSink(row, n, -std::numeric_limits<float>::infinity());
}

/// Runs p (B = p.batch, N = p.qHeads, S = p.qLen, T = p.kvLen) as onnxruntime's Attention and MultiHeadAttention
/// do: the additiveMask of input maskInput (past: the number of past keys), the attention_bias of input biasInput,
/// then maskBiasSoftmax on every row.
void runMaskedAttention(KernelContext& ctx, attention::Problem<float>& p, size_t maskInput, const char* maskName,
    bool allowStartEnd, size_t biasInput, int64_t past, bool causal, float filter);

/// The additive mask [B, S, T] of onnxruntime's Attention and MultiHeadAttention (CPU): a key masked out by the mask
/// input gets mask_filter_value (the scores stay finite, so a row masked everywhere still averages its keys), a key
/// after the query under unidirectional gets -inf. Mask forms by shape: [B] key lengths (right padding), [2B] end
/// then start positions (left padding too), [B, T] or [B, S, T] values 0 (masked) / 1. Empty without mask and
/// causality. Throws a message naming the mask form otherwise; the [2B] form only when allowStartEnd.
std::vector<float> additiveMask(const Tensor* mask, int64_t batch, int64_t qLen, int64_t total, int64_t past,
    bool causal, float filter, const char* inputName, bool allowStartEnd);

} // namespace onnxscope::contrib
