// SPDX-License-Identifier: MIT
#include "engine/kernels/common/half_convert.h"
#include "engine/kernels/contrib/contrib_attention.h"
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace onnxscope {

namespace {

/// Attention (com.microsoft 1), as onnxruntime's CPU provider computes it: Q, K, V = input [B, S, Din] · weights
/// [Din, Dq + Dk + Dv] (+ bias), sizes from qkv_hidden_sizes or three equal parts, num_heads heads each. past
/// [2, B, N, P, H] is prepended to K and V, which become present [2, B, N, P + S, H]. mask_index: [B] key lengths,
/// [2B] end then start positions, [B, T] or [B, S, T] of 0/1; masked keys get mask_filter_value, keys after the query
/// -inf with unidirectional; attention_bias [B or 1, N or 1, S, T] adds. float, float16, bfloat16, computed in float.
/// past_present_share_buffer = 1 (as convert_generation writes for GreedySearch/Sampling): past is a buffer
/// [2, B, N, M, H] whose first past_sequence_length (input 6, one int32) rows P are valid; the S new rows go to rows
/// P.., attention sees T = P + S keys, and present is the buffer [2, B, N, M, H] with those rows written (the rows
/// after P + S are past's). onnxruntime 1.32's CPU provider refuses every such node ("past_sequence_length tensor must
/// be of one element"), so this is checked against its unshared Attention over the P valid rows.
/// Refused: do_rotary, past_sequence_length without past_present_share_buffer, the [3B + 2] and 4-D masks.
class ContribAttention final : public Kernel {
public:
    explicit ContribAttention(const KernelInit& init)
        : m_constantWeights(isConstantInput(init, 1))
    {
        const auto& a = init.attributes();
        m_heads = a.requireInt("num_heads");
        m_scale = a.getFloat("scale", 0.0f);
        m_filter = a.getFloat("mask_filter_value", -10000.0f);
        m_causal = a.getInt("unidirectional", 0) != 0;
        m_sizes = a.getInts("qkv_hidden_sizes");
        if (m_heads <= 0)
            throw a.error("num_heads", "must be positive");
        if (!m_sizes.empty()
            && (m_sizes.size() != 3 || m_sizes[0] != m_sizes[1]
                || std::any_of(m_sizes.begin(), m_sizes.end(), [&](int64_t s) { return s <= 0 || s % m_heads; })))
            throw a.error("qkv_hidden_sizes", "must be 3 positive multiples of num_heads, Q's and K's equal");
        if (a.getInt("do_rotary", 0) != 0)
            throw a.error("do_rotary", "only 0 is supported");
        m_shared = a.getInt("past_present_share_buffer", 0) != 0;
    }

    void compute(KernelContext& ctx) const override
    {
        if (ctx.hasInput(6) && !m_shared)
            throw ctx.error("past_sequence_length is given but past_present_share_buffer is 0 (it is read only with a "
                            "shared past/present buffer)");
        if (m_shared && (!ctx.hasInput(4) || !ctx.hasInput(6)))
            throw ctx.error("past_present_share_buffer = 1 needs past (the shared buffer) and past_sequence_length");
        const Tensor& input = ctx.input(0);
        const Tensor& weights = ctx.input(1);
        contrib::requireSameType(ctx, input.dtype(), { 1, 2, 4, 5 });
        if (input.rank() != 3 || weights.rank() != 2 || weights.dim(0) != input.dim(2))
            throw ctx.error("input [B, S, Din] and weights [Din, Dq + Dk + Dv] do not fit: "
                + shapeToString(input.shape()) + " and " + shapeToString(weights.shape()));
        const int64_t width = weights.dim(1);
        std::vector<int64_t> sizes = m_sizes;
        if (sizes.empty()) {
            if (width % 3 || (width / 3) % m_heads)
                throw ctx.error("weights' second dimension " + std::to_string(width)
                    + " is not three multiples of num_heads (give qkv_hidden_sizes)");
            sizes = { width / 3, width / 3, width / 3 };
        }
        if (sizes[0] + sizes[1] + sizes[2] != width)
            throw ctx.error("qkv_hidden_sizes do not add up to the weights' second dimension " + std::to_string(width));
        const int64_t B = input.dim(0), S = input.dim(1), Din = input.dim(2), N = m_heads;
        const int64_t H = sizes[0] / N, Hv = sizes[2] / N;

        std::vector<float> ib, wb, bb;
        const float* x = contrib::floats(ctx, input, ib, "input");
        // Half-precision weights that are an initializer: converted to float once, not on every run.
        const bool halfWeights = weights.dtype() == DataType::Float16 || weights.dtype() == DataType::BFloat16;
        const float* w = m_constantWeights && halfWeights ? m_floatWeights.get(weights)
                                                          : contrib::floats(ctx, weights, wb, "weights");
        const Shape biasShape { width };
        const float* bias = contrib::optionalFloats(ctx, 2, bb, "bias", &biasShape);
        std::vector<float> qkv(static_cast<size_t>(B * S * width));
        simd::parallelGemm(
            ctx.threadPool(), B * S, width, Din, x, Din, false, w, width, false, qkv.data(), width, false);
        if (bias)
            for (int64_t r = 0; r < B * S; ++r)
                for (int64_t c = 0; c < width; ++c)
                    qkv[static_cast<size_t>(r * width + c)] += bias[c];

        // K and V as [B, N, P + S, H*], the past rows first.
        int64_t P = 0, M = 0; // M: the shared buffer's rows
        std::vector<float> pb;
        const float* past = nullptr;
        if (ctx.hasInput(4)) {
            const Tensor& pt = ctx.input(4);
            if (pt.rank() != 5 || pt.dim(0) != 2 || pt.dim(1) != B || pt.dim(2) != N || pt.dim(4) != H || Hv != H)
                throw ctx.error("past must be [2, B, num_heads, P, H] = [2, " + std::to_string(B) + ", "
                    + std::to_string(N) + ", P, " + std::to_string(H) + "] with equal K and V head sizes, got "
                    + shapeToString(pt.shape()));
            P = M = pt.dim(3);
            past = contrib::floats(ctx, pt, pb, "past");
            if (m_shared) {
                const Tensor& len = ctx.input(6);
                if (len.dtype() != DataType::Int32 || len.size() != 1)
                    throw ctx.error("past_sequence_length must be one int32 value, got " + len.typeString());
                P = len.data<int32_t>()[0];
                if (P < 0 || P + S > M)
                    throw ctx.error("past_sequence_length " + std::to_string(P) + " plus " + std::to_string(S)
                        + " new rows does not fit the shared buffer's " + std::to_string(M) + " rows (past "
                        + shapeToString(pt.shape()) + ")");
            }
        }
        const int64_t T = P + S;
        std::vector<float> k(static_cast<size_t>(B * N * T * H)), v(static_cast<size_t>(B * N * T * Hv));
        for (int64_t b = 0; b < B; ++b)
            for (int64_t n = 0; n < N; ++n) {
                float* kd = k.data() + (b * N + n) * T * H;
                float* vd = v.data() + (b * N + n) * T * Hv;
                if (P) {
                    std::copy_n(past + (b * N + n) * M * H, P * H, kd);
                    std::copy_n(past + ((B + b) * N + n) * M * H, P * H, vd);
                }
                for (int64_t s = 0; s < S; ++s) {
                    const float* row = qkv.data() + (b * S + s) * width;
                    std::copy(row + sizes[0] + n * H, row + sizes[0] + (n + 1) * H, kd + (P + s) * H);
                    std::copy(row + sizes[0] + sizes[1] + n * Hv, row + sizes[0] + sizes[1] + (n + 1) * Hv,
                        vd + (P + s) * Hv);
                }
            }

        attention::Problem<float> p;
        p.batch = B;
        p.qHeads = p.kvHeads = N;
        p.qLen = S;
        p.kvLen = T;
        p.headSize = H;
        p.vHeadSize = Hv;
        p.scale = m_scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(H)) : m_scale;
        p.q = { qkv.data(), S * width, H, width };
        p.k = { k.data(), N * T * H, T * H, H };
        p.v = { v.data(), N * T * Hv, T * Hv, Hv };
        std::vector<float> y(static_cast<size_t>(B * S * N * Hv));
        p.y = { y.data(), S * N * Hv, Hv, N * Hv };
        contrib::runMaskedAttention(ctx, p, 3, "mask_index", true, 5, P, m_causal, m_filter);
        contrib::storeOutput(ctx, 0, input.dtype(), { B, S, N * Hv }, y.data());
        if (ctx.hasOutput(1) && m_shared) {
            // The buffer with rows P .. P + S - 1 of each (K or V, b, n) block written.
            std::vector<float> present(past, past + 2 * B * N * M * H);
            for (int64_t b = 0; b < B; ++b)
                for (int64_t n = 0; n < N; ++n) {
                    std::copy_n(
                        k.data() + ((b * N + n) * T + P) * H, S * H, present.data() + ((b * N + n) * M + P) * H);
                    std::copy_n(
                        v.data() + ((b * N + n) * T + P) * H, S * H, present.data() + (((B + b) * N + n) * M + P) * H);
                }
            contrib::storeOutput(ctx, 1, input.dtype(), { 2, B, N, M, H }, present.data());
        } else if (ctx.hasOutput(1)) {
            std::vector<float> present(k);
            present.insert(present.end(), v.begin(), v.end());
            contrib::storeOutput(ctx, 1, input.dtype(), { 2, B, N, T, H }, present.data());
        }
    }

private:
    bool m_constantWeights = false;
    ConstantFloats m_floatWeights; // half-precision weights as float (m_constantWeights)
    int64_t m_heads = 0;
    float m_scale = 0, m_filter = -10000.0f;
    bool m_causal = false, m_shared = false;
    std::vector<int64_t> m_sizes;
};

} // namespace

void registerContribAttention(KernelRegistry& r)
{
    r.add("com.microsoft", "Attention", 1, KernelRegistry::kLatest, makeFactory<ContribAttention>());
}

} // namespace onnxscope
