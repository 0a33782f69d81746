// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/attention_core.h"

#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

/// CausalConvWithState 27: depthwise causal 1-D convolution of input [B, C, L] with weight [C, 1, k] (and bias [C]),
/// over past_state [B, C, k-1] (zeros without it) followed by the input; activation "silu"/"swish" applies
/// x·sigmoid(x). present_state is the last k-1 positions of past ++ input. float, float16, bfloat16, computed in float.
class CausalConvWithState final : public Kernel {
public:
    explicit CausalConvWithState(const KernelInit& init)
    {
        const std::string act = init.attributes().getString("activation", "none");
        if (act != "none" && act != "silu" && act != "swish")
            throw init.attributes().error("activation", "expected none, silu or swish, got \"" + act + "\"");
        m_silu = act != "none";
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& w = ctx.input(1);
        if (x.rank() != 3 || w.rank() != 3 || w.dim(0) != x.dim(1) || w.dim(1) != 1 || w.dim(2) < 1)
            throw ctx.error("input must be [B, C, L] and weight [C, 1, k], got " + shapeToString(x.shape()) + " and "
                + shapeToString(w.shape()));
        const int64_t b = x.dim(0), c = x.dim(1), l = x.dim(2), k = w.dim(2), keep = k - 1, padded = l + keep;
        if (ctx.hasInput(2) && ctx.input(2).shape() != Shape { c })
            throw ctx.error("bias must be [" + std::to_string(c) + "], got " + shapeToString(ctx.input(2).shape()));
        if (ctx.hasInput(3) && ctx.input(3).shape() != Shape { b, c, keep })
            throw ctx.error(
                "past_state must be " + shapeToString({ b, c, keep }) + ", got " + shapeToString(ctx.input(3).shape()));
        for (size_t i = 1; i < 4; ++i)
            if (ctx.hasInput(i) && ctx.input(i).dtype() != x.dtype())
                throw ctx.error("every input must have the input's element type");
        std::vector<float> xb, wb, bb, pb;
        const float* xp = attention::elementsAs<float>(x, xb);
        const float* wp = attention::elementsAs<float>(w, wb);
        const float* bias = ctx.hasInput(2) ? attention::elementsAs<float>(ctx.input(2), bb) : nullptr;
        const float* past = ctx.hasInput(3) ? attention::elementsAs<float>(ctx.input(3), pb) : nullptr;
        std::vector<float> seq(static_cast<size_t>(padded)), out(static_cast<size_t>(x.size())),
            state(static_cast<size_t>(b * c * keep));
        for (int64_t bc = 0; bc < b * c; ++bc) {
            const int64_t ch = bc % c;
            for (int64_t i = 0; i < keep; ++i)
                seq[static_cast<size_t>(i)] = past ? past[bc * keep + i] : 0.0f;
            std::copy(xp + bc * l, xp + (bc + 1) * l, seq.begin() + keep);
            for (int64_t t = 0; t < l; ++t) {
                float acc = bias ? bias[ch] : 0.0f;
                for (int64_t j = 0; j < k; ++j)
                    acc += wp[ch * k + j] * seq[static_cast<size_t>(t + j)];
                if (m_silu)
                    acc = acc / (1.0f + std::exp(-acc));
                out[static_cast<size_t>(bc * l + t)] = acc;
            }
            std::copy(seq.end() - keep, seq.end(), state.begin() + bc * keep);
        }
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        attention::storeAs<float>(out.data(), y.size(), y);
        if (ctx.hasOutput(1)) {
            Tensor& s = ctx.allocateOutputUninitialized(1, x.dtype(), { b, c, keep });
            attention::storeAs<float>(state.data(), s.size(), s);
        }
    }

private:
    bool m_silu = false;
};

} // namespace

void registerCausalConvWithState(KernelRegistry& r)
{
    r.add("", "CausalConvWithState", 27, 27, makeFactory<CausalConvWithState>());
}

} // namespace onnxscope
