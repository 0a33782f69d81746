// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_attention.h"
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/quant_common.h"

#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

/// QAttention (com.microsoft 1), as onnxruntime's CPU provider computes it: Q, K, V (three equal parts of hidden size
/// num_heads * H) = the int32 product (input - input_zero_point)·(weight - weight_zero_point) of input [B, S, Din]
/// (uint8 or int8) and weight [Din, 3 * hidden] (uint8 or int8), times input_scale * weight_scale[column] in float,
/// plus bias [3 * hidden]; weight_scale and weight_zero_point per tensor or per column. Then Attention's float path:
/// past [2, B, N, P, H] prepended to K and V (present [2, B, N, P + S, H]), mask_index ([B] key lengths, [2B] end and
/// start, [B, T], [B, S, T]) with mask_filter_value, unidirectional, scale (default 1/sqrt(H)). Output and present
/// have bias's type (float or float16). Refused: do_rotary, past_present_share_buffer.
class QAttention final : public Kernel {
public:
    explicit QAttention(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_heads = a.requireInt("num_heads");
        if (m_heads <= 0)
            throw a.error("num_heads", "must be positive");
        m_scale = a.getFloat("scale", 0.0f);
        m_filter = a.getFloat("mask_filter_value", -10000.0f);
        m_causal = a.getInt("unidirectional", 0) != 0;
        if (a.getInt("do_rotary", 0) != 0)
            throw a.error("do_rotary", "only 0 is supported");
        if (a.getInt("past_present_share_buffer", 0) != 0)
            throw a.error("past_present_share_buffer", "only 0 is supported");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& input = ctx.input(0);
        const Tensor& weight = ctx.input(1);
        for (const Tensor* t : { &input, &weight })
            if (t->dtype() != DataType::UInt8 && t->dtype() != DataType::Int8)
                throw ctx.error("input and weight must be uint8 or int8, got " + t->typeString());
        if (input.rank() != 3 || weight.rank() != 2 || weight.dim(0) != input.dim(2) || weight.dim(1) % 3 != 0)
            throw ctx.error("input [B, S, Din] and weight [Din, 3 * hidden] do not fit: " + shapeToString(input.shape())
                + " and " + shapeToString(weight.shape()));
        const int64_t B = input.dim(0), S = input.dim(1), Din = input.dim(2), width = weight.dim(1);
        const int64_t N = m_heads, hidden = width / 3;
        if (hidden % N != 0)
            throw ctx.error("hidden size " + std::to_string(hidden) + " is not a multiple of num_heads");
        const int64_t H = hidden / N;
        const Tensor& biasT = ctx.input(2);
        std::vector<float> bb;
        const Shape biasShape { width };
        const float* bias = contrib::optionalFloats(ctx, 2, bb, "bias", &biasShape);
        const Tensor& inScale = ctx.input(3);
        if (inScale.size() != 1)
            throw ctx.error("input_scale must be a scalar (per tensor), got " + inScale.typeString());
        const float inputScale = static_cast<float>(floatValues(ctx, inScale, "input_scale")[0]);
        const std::vector<double> wScale = floatValues(ctx, ctx.input(4), "weight_scale");
        if (wScale.size() != 1 && wScale.size() != static_cast<size_t>(width))
            throw ctx.error("weight_scale must be a scalar or [" + std::to_string(width) + "] (per column), got "
                + ctx.input(4).typeString());
        int64_t inZero = 0;
        if (ctx.hasInput(6)) {
            const Tensor& z = ctx.input(6);
            if (z.size() != 1 || z.dtype() != input.dtype())
                throw ctx.error("input_zero_point must be a scalar of input's type, got " + z.typeString());
            inZero = integerValues(ctx, z, "input_zero_point")[0];
        }
        std::vector<int64_t> wZero { 0 };
        if (ctx.hasInput(7)) {
            const Tensor& z = ctx.input(7);
            if (z.dtype() != weight.dtype() || (z.size() != 1 && z.size() != width))
                throw ctx.error("weight_zero_point must be a scalar or [" + std::to_string(width)
                    + "] of weight's type, got " + z.typeString());
            wZero = integerValues(ctx, z, "weight_zero_point");
        }
        const auto xv = integerValues(ctx, input, "input"), wv = integerValues(ctx, weight, "weight");
        std::vector<float> qkv(static_cast<size_t>(B * S * width));
        for (int64_t r = 0; r < B * S; ++r)
            for (int64_t c = 0; c < width; ++c) {
                const int64_t zw = wZero[wZero.size() == 1 ? 0 : static_cast<size_t>(c)];
                int64_t acc = 0;
                for (int64_t k = 0; k < Din; ++k)
                    acc += (xv[static_cast<size_t>(r * Din + k)] - inZero)
                        * (wv[static_cast<size_t>(k * width + c)] - zw);
                const float scale
                    = static_cast<float>(wScale[wScale.size() == 1 ? 0 : static_cast<size_t>(c)]) * inputScale;
                qkv[static_cast<size_t>(r * width + c)]
                    = static_cast<float>(static_cast<int32_t>(acc)) * scale + (bias ? bias[c] : 0.0f);
            }

        int64_t P = 0;
        std::vector<float> pb;
        const float* past = nullptr;
        if (ctx.hasInput(8)) {
            const Tensor& pt = ctx.input(8);
            if (pt.rank() != 5 || pt.dim(0) != 2 || pt.dim(1) != B || pt.dim(2) != N || pt.dim(4) != H)
                throw ctx.error("past must be [2, B, num_heads, P, H] = [2, " + std::to_string(B) + ", "
                    + std::to_string(N) + ", P, " + std::to_string(H) + "], got " + shapeToString(pt.shape()));
            P = pt.dim(3);
            past = contrib::floats(ctx, pt, pb, "past");
        }
        const int64_t T = P + S;
        std::vector<float> k(static_cast<size_t>(B * N * T * H)), v(k.size());
        for (int64_t b = 0; b < B; ++b)
            for (int64_t n = 0; n < N; ++n) {
                float* kd = k.data() + (b * N + n) * T * H;
                float* vd = v.data() + (b * N + n) * T * H;
                if (P) {
                    std::copy(past + (b * N + n) * P * H, past + (b * N + n + 1) * P * H, kd);
                    std::copy(past + ((B + b) * N + n) * P * H, past + ((B + b) * N + n + 1) * P * H, vd);
                }
                for (int64_t s = 0; s < S; ++s) {
                    const float* row = qkv.data() + (b * S + s) * width;
                    std::copy(row + hidden + n * H, row + hidden + (n + 1) * H, kd + (P + s) * H);
                    std::copy(row + 2 * hidden + n * H, row + 2 * hidden + (n + 1) * H, vd + (P + s) * H);
                }
            }
        attention::Problem<float> p;
        p.batch = B;
        p.qHeads = p.kvHeads = N;
        p.qLen = S;
        p.kvLen = T;
        p.headSize = p.vHeadSize = H;
        p.scale = m_scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(H)) : m_scale;
        p.q = { qkv.data(), S * width, H, width };
        p.k = { k.data(), N * T * H, T * H, H };
        p.v = { v.data(), N * T * H, T * H, H };
        std::vector<float> y(static_cast<size_t>(B * S * hidden));
        p.y = { y.data(), S * hidden, H, hidden };
        // No attention_bias input: an index past the inputs.
        contrib::runMaskedAttention(ctx, p, 5, "mask_index", true, ctx.inputCount() + 1, P, m_causal, m_filter);
        contrib::storeOutput(ctx, 0, biasT.dtype(), { B, S, hidden }, y.data());
        if (ctx.hasOutput(1)) {
            std::vector<float> present(k);
            present.insert(present.end(), v.begin(), v.end());
            contrib::storeOutput(ctx, 1, biasT.dtype(), { 2, B, N, T, H }, present.data());
        }
    }

private:
    int64_t m_heads = 0;
    float m_scale = 0, m_filter = -10000.0f;
    bool m_causal = false;
};

} // namespace

void registerQAttention(KernelRegistry& r)
{
    r.add("com.microsoft", "QAttention", 1, KernelRegistry::kLatest, makeFactory<QAttention>());
}

} // namespace onnxscope
