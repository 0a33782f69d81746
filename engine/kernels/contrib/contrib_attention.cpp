// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_attention.h"

#include "engine/core/error.h"

#include <limits>
#include <string>

namespace onnxscope::contrib {

AttentionBias attentionBias(const KernelContext& ctx, size_t input, int64_t batch, int64_t heads, int64_t qLen,
    int64_t total, std::vector<float>& buffer)
{
    AttentionBias bias;
    if (!ctx.hasInput(input))
        return bias;
    const Tensor& t = ctx.input(input);
    if (t.rank() != 4 || (t.dim(0) != 1 && t.dim(0) != batch) || (t.dim(1) != 1 && t.dim(1) != heads)
        || t.dim(2) != qLen || t.dim(3) != total)
        throw ctx.error("attention_bias must be [B or 1, num_heads or 1, S, T] = [" + std::to_string(batch) + ", "
            + std::to_string(heads) + ", " + std::to_string(qLen) + ", " + std::to_string(total) + "], got "
            + shapeToString(t.shape()));
    if (!isFloatingPoint(t.dtype()))
        throw ctx.error("attention_bias must be a floating-point tensor, got " + t.typeString());
    bias.data = attention::elementsAs<float>(t, buffer);
    bias.length = total;
    bias.headStride = t.dim(1) == 1 ? 0 : qLen * total;
    bias.batchStride = t.dim(0) == 1 ? 0 : t.dim(1) * qLen * total;
    return bias;
}

std::vector<float> additiveMask(const Tensor* mask, int64_t batch, int64_t qLen, int64_t total, int64_t past,
    bool causal, float filter, const char* inputName, bool allowStartEnd)
{
    if (!mask && !causal)
        return {};
    std::vector<float> out(static_cast<size_t>(batch * qLen * total), 0.0f);
    if (mask) {
        const std::string name = inputName;
        if (mask->dtype() != DataType::Int32)
            throw Error(name + " must be int32, got " + mask->typeString());
        const int32_t* m = mask->data<int32_t>().data();
        const Shape& shape = mask->shape();
        if (shape == Shape { batch } || (allowStartEnd && shape == Shape { 2 * batch })) {
            const bool start = shape[0] == 2 * batch && batch > 0;
            for (int64_t b = 0; b < batch; ++b) {
                const int64_t end = m[b];
                const int64_t first = start ? std::min<int64_t>(m[batch + b], total) : 0;
                for (int64_t s = 0; s < qLen; ++s)
                    for (int64_t j = 0; j < total; ++j)
                        if (j >= end || j < first)
                            out[static_cast<size_t>((b * qLen + s) * total + j)] = filter;
            }
        } else if (shape == Shape { batch, total } || shape == Shape { batch, qLen, total }) {
            const bool perQuery = shape.size() == 3;
            for (int64_t b = 0; b < batch; ++b)
                for (int64_t s = 0; s < qLen; ++s)
                    for (int64_t j = 0; j < total; ++j) {
                        const int32_t v = m[perQuery ? (b * qLen + s) * total + j : b * total + j];
                        out[static_cast<size_t>((b * qLen + s) * total + j)] = v > 0 ? 0.0f : filter;
                    }
        } else {
            throw Error(name + " " + shapeToString(shape) + " is not a supported form: [B] key lengths, "
                + (allowStartEnd ? "[2B] end and start positions, " : "")
                + "[B, T] or [B, S, T] of 0/1 with B = " + std::to_string(batch) + ", S = " + std::to_string(qLen)
                + ", T = " + std::to_string(total) + " ([3B + 2] and the 4-D Megatron mask are not supported)");
        }
    }
    if (causal)
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t s = 0; s < qLen; ++s)
                for (int64_t j = past + s + 1; j < total; ++j)
                    out[static_cast<size_t>((b * qLen + s) * total + j)] = -std::numeric_limits<float>::infinity();
    return out;
}

void runMaskedAttention(KernelContext& ctx, attention::Problem<float>& p, size_t maskInput, const char* maskName,
    bool allowStartEnd, size_t biasInput, int64_t past, bool causal, float filter)
{
    const int64_t S = p.qLen, T = p.kvLen;
    std::vector<float> mask;
    try {
        mask = additiveMask(ctx.hasInput(maskInput) ? &ctx.input(maskInput) : nullptr, p.batch, S, T, past, causal,
            filter, maskName, allowStartEnd);
    } catch (const Error& e) {
        throw ctx.error(e.what());
    }
    std::vector<float> biasBuffer, scores;
    const AttentionBias bias = attentionBias(ctx, biasInput, p.batch, p.qHeads, S, T, biasBuffer);
    runAttention(ctx.threadPool(), p, scores, [&](int64_t b, int64_t h, int64_t s, float* row) {
        maskBiasSoftmax(row, T, mask.empty() ? nullptr : mask.data() + (b * S + s) * T, bias.row(b, h, s));
    });
}

} // namespace onnxscope::contrib
