// SPDX-License-Identifier: MIT
#pragma once

// Scaled dot-product attention over strided heads, shared by ONNX's Attention, FlexAttention and the attention
// kernels of other domains. Computed in F (float or double); kernels of float16/bfloat16 models convert to float
// first (float accumulation). Include only from kernel .cpp files.

#include "engine/core/data_type.h"

#include <cstdint>
#include <vector>

namespace onnxscope {

class Tensor;
class ThreadPool;

namespace attention {

/// Where the per-head matrices of one operand lie: row r, column c of the head (b, h) is element
/// data[b * batchStride + h * headStride + r * rowStride + c]. A stride of 0 broadcasts along that axis.
template <class P> struct HeadLayout {
    P* data = nullptr;
    int64_t batchStride = 0;
    int64_t headStride = 0;
    int64_t rowStride = 0;
    P* head(int64_t b, int64_t h) const { return data + b * batchStride + h * headStride; }
};

/// What the optional scores output receives (Attention's qk_matmul_output_mode).
enum class ScoresTap : uint8_t {
    None,
    Raw, // Q·Kᵀ·scale
    Softcapped, // after the soft cap
    Biased, // after the soft cap and the additive bias
    Probabilities, // after the softmax (fully masked rows are 0)
};

/// One attention problem. Query head h reads key/value head h / (qHeads / kvHeads) (grouped-query attention).
template <class F> struct Problem {
    int64_t batch = 1, qHeads = 1, kvHeads = 1;
    int64_t qLen = 0, kvLen = 0, headSize = 0, vHeadSize = 0;
    F scale = 1; // multiplies Q·Kᵀ
    F softcap = 0; // > 0: scores = softcap * tanh(scores / softcap), before the bias
    HeadLayout<const F> q; // [qLen, headSize] per (batch, query head)
    HeadLayout<const F> k; // [kvLen, headSize] per (batch, kv head)
    HeadLayout<const F> v; // [kvLen, vHeadSize] per (batch, kv head)
    /// Optional additive bias [qLen, kvLen] per (batch, query head) (-inf masks a key out). A row whose bias is all
    /// -inf, or whose biased scores are all -inf, gives a zero output row.
    HeadLayout<const F> bias;
    HeadLayout<F> y; // [qLen, vHeadSize] per (batch, query head)
    ScoresTap tap = ScoresTap::None;
    HeadLayout<F> scores; // [qLen, kvLen] per (batch, query head), written when tap != None
};

/// The heads of a tensor [batch, heads, len, width], or of [batch, len, heads * width] when `packed`.
template <class P> HeadLayout<P> headsOf(P* data, int64_t heads, int64_t len, int64_t width, bool packed = false)
{
    if (packed)
        return { data, len * heads * width, width, heads * width };
    return { data, heads * len * width, len * width, width };
}

/// The factor of Q·Kᵀ when, as onnx does, Q and K are each multiplied by `root` (the square root of the scale)
/// rounded to Q's element type `qType`: that rounded root, squared.
double roundedScale(double root, DataType qType);

/// Runs the problem, in parallel over (batch, query head) when a pool is given.
template <class F> void scaledDotProductAttention(ThreadPool* pool, const Problem<F>& p);

/// The stages of scaledDotProductAttention for callers that change the scores or the probabilities in between (as
/// FlexAttention's modifier graphs do). attentionScores writes p.scores = Q·Kᵀ·scale (no soft cap, no bias);
/// softmaxRows normalises `rows` rows of `len` in place (a row whose maximum is -inf becomes 0); attentionOutput
/// writes p.y = P·V with the probabilities P read from p.scores.
template <class F> void attentionScores(ThreadPool* pool, const Problem<F>& p);
template <class F> void softmaxRows(F* rows, int64_t count, int64_t len);
template <class F> void attentionOutput(ThreadPool* pool, const Problem<F>& p);

extern template void scaledDotProductAttention<float>(ThreadPool*, const Problem<float>&);
extern template void scaledDotProductAttention<double>(ThreadPool*, const Problem<double>&);
extern template void attentionScores<float>(ThreadPool*, const Problem<float>&);
extern template void attentionScores<double>(ThreadPool*, const Problem<double>&);
extern template void softmaxRows<float>(float*, int64_t, int64_t);
extern template void softmaxRows<double>(double*, int64_t, int64_t);
extern template void attentionOutput<float>(ThreadPool*, const Problem<float>&);
extern template void attentionOutput<double>(ThreadPool*, const Problem<double>&);

/// The elements of a float, double, float16 or bfloat16 tensor as F: the tensor's own storage when it already holds
/// F, otherwise converted into `buffer`. Error for other element types.
template <class F> const F* elementsAs(const Tensor& t, std::vector<F>& buffer);
/// Writes n elements of F into `out` (float, double, float16 or bfloat16), rounding to its element type.
template <class F> void storeAs(const F* values, int64_t n, Tensor& out);

extern template const float* elementsAs<float>(const Tensor&, std::vector<float>&);
extern template const double* elementsAs<double>(const Tensor&, std::vector<double>&);
extern template void storeAs<float>(const float*, int64_t, Tensor&);
extern template void storeAs<double>(const double*, int64_t, Tensor&);

} // namespace attention
} // namespace onnxscope
