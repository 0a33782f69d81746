// SPDX-License-Identifier: MIT
#pragma once

// The decoding step shared by MultiHeadAttention with a shared past buffer and DecoderMaskedMultiHeadAttention:
// new keys and values are written into a KV cache (a buffer of max_sequence_length rows, of which the first
// past_sequence_length are valid, or a plain past to concatenate), past rows are read through an optional beam
// search cache_indirection, then masked, biased attention. Include only from kernel .cpp files.

#include "engine/kernels/kernel.h"

#include <cstdint>

namespace onnxscope::contrib {

/// One attention call over a KV cache. Q is [B, S, N, H]; the new K and V are [B, N, L, H] and [B, N, L, Hv].
struct KvCacheStep {
    int64_t batch = 0, heads = 0, qLen = 0, newLen = 0, headSize = 0, vHeadSize = 0;
    const float* q = nullptr;
    const float* k = nullptr;
    const float* v = nullptr;
    /// past_key [B, N, R, H] and past_value [B, N, R, Hv], or null for no past.
    const float* pastK = nullptr;
    const float* pastV = nullptr;
    int64_t pastRows = 0; // R
    /// Shared buffer: the first `pastLen` of the R rows are valid, the new rows go at pastLen and the present outputs
    /// are [B, N, R, *]. Otherwise pastLen = R and the presents are [B, N, R + L, *].
    bool shared = false;
    int64_t pastLen = 0;
    /// Beam search: past row j of batch-beam b comes from beam cacheIndirection[b * indirectionLen + j] of the same
    /// batch entry (beams of a batch entry are consecutive, `beams` of them). Null: each row's own past.
    const int32_t* cacheIndirection = nullptr;
    int64_t indirectionLen = 0, beams = 1;
    float scale = 0, filter = -10000.0f;
    bool causal = false;
};

/// Runs the step: the mask input `maskInput` (key padding forms of MultiHeadAttention: [B], [B, T], [B, S, T]),
/// attention_bias `biasInput` [B or 1, N or 1, S, T], outputs output [B, S, N*Hv] at 0, present key and value at
/// presentKey and presentKey + 1, and the scaled, biased, masked scores [B, N, S, T] before softmax at qkOutput (each
/// written only when the node has it). `type` is the element type of the outputs.
void runKvCacheAttention(KernelContext& ctx, const KvCacheStep& st, DataType type, size_t maskInput, size_t biasInput,
    size_t presentKey, size_t qkOutput);

} // namespace onnxscope::contrib
