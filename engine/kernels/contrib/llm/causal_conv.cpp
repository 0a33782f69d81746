// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// The activation attribute of the causal convolutions: true for silu (alias swish), false for none.
bool siluActivation(const NodeAttributes& a)
{
    const std::string act = a.getString("activation", "none");
    if (act != "none" && act != "silu" && act != "swish")
        throw a.error("activation", "must be 'none', 'silu' or 'swish', got '" + act + "'");
    return act != "none";
}

/// One channel of one sequence: `virt` holds the stateLen history samples, then the L inputs. Writes the L outputs
/// (stride outStride) of the causal depthwise convolution with taps w[0..k) spaced by dilation.
void convolve(const std::vector<float>& virt, int64_t stateLen, int64_t length, const float* w, int64_t k,
    int64_t dilation, float bias, bool silu, float* out, int64_t outStride)
{
    for (int64_t t = 0; t < length; ++t) {
        float acc = bias;
        for (int64_t j = 0; j < k; ++j)
            acc += w[j] * virt[static_cast<size_t>(stateLen + t - (k - 1 - j) * dilation)];
        out[t * outStride] = silu ? acc / (1.0f + std::exp(-acc)) : acc;
    }
}

/// Attributes that only onnxruntime's CUDA provider implements: refused unless at their defaults.
void refuseCudaOnly(const NodeAttributes& a, std::initializer_list<std::pair<const char*, int64_t>> defaults)
{
    for (const auto& [name, fallback] : defaults)
        if (a.getInt(name, fallback) != fallback)
            throw a.error(name,
                "is implemented by onnxruntime's CUDA provider only; only " + std::to_string(fallback)
                    + " is supported");
}

/// CausalConvWithState (com.microsoft 1), ndim 1: a causal depthwise convolution of input [B, C, L] (or, with
/// channels_last, [B, L, d1..dn] with C = d1*..*dn) by weight [C, 1, K], bias [C], dilation, activation silu/swish,
/// continuing from past_state [B, C, (K-1)*dilation] (zeros when absent; [B, S, d1..dn] with channels_last);
/// present_state holds the last (K-1)*dilation samples of past_state followed by the input. state_window W > 0 gives
/// both states a leading axis of W slots, slot j the state after position L - W + j (zeros before the input's first
/// position); past_state's slot W-1 is read. ndim 2 and 3 and the CUDA-only attributes are refused.
class CausalConvWithState final : public Kernel {
public:
    explicit CausalConvWithState(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_silu = siluActivation(a);
        m_dilation = a.getInt("dilation", 1);
        m_channelsLast = a.getInt("channels_last", 0) != 0;
        m_window = a.getInt("state_window", 0);
        const int64_t ndim = a.getInt("ndim", 1);
        if (m_dilation < 1)
            throw a.error("dilation", "must be at least 1, got " + std::to_string(m_dilation));
        if (m_window < 0 || m_window > 8)
            throw a.error("state_window", "must be in [0, 8], got " + std::to_string(m_window));
        if (ndim != 1)
            throw a.error(
                "ndim", "only 1 (a causal axis, no other spatial axes) is supported, got " + std::to_string(ndim));
        refuseCudaOnly(a,
            { { "state_update_capacity", 0 }, { "state_channels_last", -1 }, { "state_length", 0 },
                { "input_channel_offset", 0 }, { "input_channels", 0 } });
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& weight = ctx.input(1);
        contrib::requireSameType(ctx, x.dtype(), { 1, 2, 3 });
        if (x.rank() < 3 || (!m_channelsLast && x.rank() != 3))
            throw ctx.error(std::string("input must be ")
                + (m_channelsLast ? "[B, L, d1, ..., dn]" : "[B, C, L] (ndim 1)") + ", got "
                + shapeToString(x.shape()));
        const int64_t b = x.dim(0);
        const int64_t len = m_channelsLast ? x.dim(1) : x.dim(2);
        const int64_t c = m_channelsLast ? static_cast<int64_t>(x.size()) / std::max<int64_t>(b * len, 1) : x.dim(1);
        if (weight.rank() != 3 || weight.dim(0) != c || weight.dim(1) != 1 || weight.dim(2) < 1)
            throw ctx.error(
                "weight must be [C, 1, K] with C = " + std::to_string(c) + ", got " + shapeToString(weight.shape()));
        const int64_t k = weight.dim(2), stateLen = (k - 1) * m_dilation;
        if (ctx.hasInput(2) && ctx.input(2).shape() != Shape { c })
            throw ctx.error(
                "bias must be [C] = [" + std::to_string(c) + "], got " + shapeToString(ctx.input(2).shape()));
        // One slot of the state: [B, C, S] or [B, S, d1..dn].
        Shape slot;
        if (m_channelsLast) {
            slot = { b, stateLen };
            slot.insert(slot.end(), x.shape().begin() + 2, x.shape().end());
        } else {
            slot = { b, c, stateLen };
        }
        Shape stateShape = slot;
        if (m_window > 0)
            stateShape.insert(stateShape.begin(), m_window);
        if (ctx.hasInput(3) && ctx.input(3).shape() != stateShape)
            throw ctx.error(
                "past_state must be " + shapeToString(stateShape) + ", got " + shapeToString(ctx.input(3).shape()));
        std::vector<float> xb, wb, bb, sb;
        const float* in = contrib::floats(ctx, x, xb, "input");
        const float* w = contrib::floats(ctx, weight, wb, "weight");
        const float* bias = contrib::optionalFloats(ctx, 2, bb, "bias");
        const float* past = ctx.hasInput(3) ? contrib::floats(ctx, ctx.input(3), sb, "past_state") : nullptr;
        if (past && m_window > 0)
            past += (m_window - 1) * b * c * stateLen;
        const int64_t slotSize = b * c * stateLen;
        std::vector<float> y(x.size()), present(static_cast<size_t>(std::max<int64_t>(m_window, 1) * slotSize), 0.0f);
        std::vector<float> virt(static_cast<size_t>(stateLen + len));
        // Element offsets: input (bi, ci, t) and state (bi, ci, s).
        auto xAt = [&](int64_t bi, int64_t ci, int64_t t) {
            return m_channelsLast ? (bi * len + t) * c + ci : (bi * c + ci) * len + t;
        };
        auto sAt = [&](int64_t bi, int64_t ci, int64_t s) {
            return m_channelsLast ? (bi * stateLen + s) * c + ci : (bi * c + ci) * stateLen + s;
        };
        for (int64_t bi = 0; bi < b; ++bi)
            for (int64_t ci = 0; ci < c; ++ci) {
                for (int64_t s = 0; s < stateLen; ++s)
                    virt[static_cast<size_t>(s)] = past ? past[sAt(bi, ci, s)] : 0.0f;
                for (int64_t t = 0; t < len; ++t)
                    virt[static_cast<size_t>(stateLen + t)] = in[xAt(bi, ci, t)];
                convolve(virt, stateLen, len, w + ci * k, k, m_dilation, bias ? bias[ci] : 0.0f, m_silu,
                    y.data() + xAt(bi, ci, 0), m_channelsLast ? c : 1);
                const int64_t slots = std::max<int64_t>(m_window, 1);
                for (int64_t j = 0; j < slots; ++j) {
                    // The state after position last = L - slots + j: the stateLen samples ending there.
                    const int64_t last = len - slots + j;
                    if (last < 0)
                        continue; // holds no position from this call: zeros
                    for (int64_t s = 0; s < stateLen; ++s)
                        present[static_cast<size_t>(j * slotSize + sAt(bi, ci, s))]
                            = virt[static_cast<size_t>(last + 1 + s)];
                }
            }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
        if (ctx.hasOutput(1))
            contrib::storeOutput(ctx, 1, x.dtype(), stateShape, present.data());
        if (ctx.hasOutput(2))
            throw ctx.error("the state_update output is implemented by onnxruntime's CUDA provider only");
    }

private:
    bool m_silu = false, m_channelsLast = false;
    int64_t m_dilation = 1, m_window = 0;
};

/// VarlenCausalConvWithState (com.microsoft 1): the causal depthwise convolution of packed sequences, input
/// [total_tokens, C] with sequence i at rows [cu[i], cu[i+1]) of cumulative_sequence_length [B + 1], weight
/// [C, 1, K], bias [C], initial_state [B, C, (K-1)*dilation] → output, final_state; state_update_capacity with
/// capture_count [B]: state_update [B, capacity, C] holds the first clamp(capture_count[b], 0, min(capacity,
/// length)) input rows of each sequence, zeros after. dilation, activation. The dynamic mode (kernel_delta,
/// previous_mask) is refused, as by onnxruntime's CPU kernel. float, float16, bfloat16, computed in float.
class VarlenCausalConvWithState final : public Kernel {
public:
    explicit VarlenCausalConvWithState(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_silu = siluActivation(a);
        m_dilation = a.getInt("dilation", 1);
        m_capacity = a.getInt("state_update_capacity", 0);
        if (m_dilation < 1)
            throw a.error("dilation", "must be at least 1, got " + std::to_string(m_dilation));
        if (m_capacity < 0 || m_capacity > 8)
            throw a.error("state_update_capacity", "must be in [0, 8], got " + std::to_string(m_capacity));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& weight = ctx.input(1);
        const Tensor& cuT = ctx.input(2);
        contrib::requireSameType(ctx, x.dtype(), { 1, 3, 4 });
        if (ctx.hasInput(6) || ctx.hasInput(7))
            throw ctx.error("the dynamic mode (kernel_delta, previous_mask) is implemented by onnxruntime's CUDA "
                            "provider only");
        if (x.rank() != 2)
            throw ctx.error("input must be [total_tokens, channels], got " + shapeToString(x.shape()));
        const int64_t tokens = x.dim(0), c = x.dim(1);
        if (weight.rank() != 3 || weight.dim(0) != c || weight.dim(1) != 1 || weight.dim(2) < 1)
            throw ctx.error(
                "weight must be [C, 1, K] with C = " + std::to_string(c) + ", got " + shapeToString(weight.shape()));
        if (cuT.dtype() != DataType::Int32 || cuT.rank() != 1 || cuT.dim(0) < 1)
            throw ctx.error("cumulative_sequence_length must be int32 [batch + 1], got " + cuT.typeString() + " "
                + shapeToString(cuT.shape()));
        const int64_t b = cuT.dim(0) - 1, k = weight.dim(2), stateLen = (k - 1) * m_dilation;
        const int32_t* cu = cuT.data<int32_t>().data();
        if (cu[0] != 0 || cu[b] != tokens)
            throw ctx.error("cumulative_sequence_length must start at 0 and end at total_tokens "
                + std::to_string(tokens) + ", got " + std::to_string(cu[0]) + " and " + std::to_string(cu[b]));
        for (int64_t i = 0; i < b; ++i)
            if (cu[i + 1] <= cu[i])
                throw ctx.error("sequence " + std::to_string(i) + " of cumulative_sequence_length is empty or "
                    + "decreasing: [" + std::to_string(cu[i]) + ", " + std::to_string(cu[i + 1])
                    + ") (every sequence has at least one token)");
        if (ctx.hasInput(3) && ctx.input(3).shape() != Shape { c })
            throw ctx.error(
                "bias must be [C] = [" + std::to_string(c) + "], got " + shapeToString(ctx.input(3).shape()));
        const Shape stateShape { b, c, stateLen };
        if (!ctx.hasInput(4))
            throw ctx.error("initial_state is required");
        if (ctx.input(4).shape() != stateShape)
            throw ctx.error(
                "initial_state must be " + shapeToString(stateShape) + ", got " + shapeToString(ctx.input(4).shape()));
        if ((m_capacity > 0) != ctx.hasInput(5))
            throw ctx.error(m_capacity > 0 ? "capture_count is required when state_update_capacity is positive"
                                           : "capture_count needs state_update_capacity > 0");
        if (ctx.hasOutput(2) && m_capacity == 0)
            throw ctx.error("the state_update output needs state_update_capacity > 0");
        const int32_t* capture = nullptr;
        if (ctx.hasInput(5)) {
            const Tensor& cc = ctx.input(5);
            if (cc.dtype() != DataType::Int32 || cc.shape() != Shape { b })
                throw ctx.error("capture_count must be int32 [batch] = [" + std::to_string(b) + "], got "
                    + cc.typeString() + " " + shapeToString(cc.shape()));
            capture = cc.data<int32_t>().data();
        }
        std::vector<float> xb, wb, bb, sb;
        const float* in = contrib::floats(ctx, x, xb, "input");
        const float* w = contrib::floats(ctx, weight, wb, "weight");
        const float* bias = contrib::optionalFloats(ctx, 3, bb, "bias");
        const float* init = contrib::floats(ctx, ctx.input(4), sb, "initial_state");
        std::vector<float> y(x.size()), state(static_cast<size_t>(b * c * stateLen)),
            update(static_cast<size_t>(b * m_capacity * c), 0.0f);
        for (int64_t bi = 0; bi < b; ++bi) {
            const int64_t start = cu[bi], len = cu[bi + 1] - cu[bi];
            std::vector<float> virt(static_cast<size_t>(stateLen + len));
            for (int64_t ci = 0; ci < c; ++ci) {
                for (int64_t s = 0; s < stateLen; ++s)
                    virt[static_cast<size_t>(s)] = init[(bi * c + ci) * stateLen + s];
                for (int64_t t = 0; t < len; ++t)
                    virt[static_cast<size_t>(stateLen + t)] = in[(start + t) * c + ci];
                convolve(virt, stateLen, len, w + ci * k, k, m_dilation, bias ? bias[ci] : 0.0f, m_silu,
                    y.data() + start * c + ci, c);
                for (int64_t s = 0; s < stateLen; ++s)
                    state[static_cast<size_t>((bi * c + ci) * stateLen + s)] = virt[static_cast<size_t>(len + s)];
            }
            if (capture) {
                const int64_t n = std::clamp<int64_t>(capture[bi], 0, std::min(m_capacity, len));
                for (int64_t t = 0; t < n; ++t)
                    for (int64_t ci = 0; ci < c; ++ci)
                        update[static_cast<size_t>((bi * m_capacity + t) * c + ci)] = in[(start + t) * c + ci];
            }
        }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
        if (ctx.hasOutput(1))
            contrib::storeOutput(ctx, 1, x.dtype(), stateShape, state.data());
        if (ctx.hasOutput(2))
            contrib::storeOutput(ctx, 2, x.dtype(), { b, m_capacity, c }, update.data());
    }

private:
    bool m_silu = false;
    int64_t m_dilation = 1, m_capacity = 0;
};

} // namespace

void registerLlmCausalConv(KernelRegistry& r)
{
    r.add("com.microsoft", "CausalConvWithState", 1, KernelRegistry::kLatest, makeFactory<CausalConvWithState>());
    r.add("com.microsoft", "VarlenCausalConvWithState", 1, KernelRegistry::kLatest,
        makeFactory<VarlenCausalConvWithState>());
}

} // namespace onnxscope
