// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/contrib/llm/moe_common.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// QMoE (com.microsoft 1): MoE (moe_common.h: routing, activations, swiglu_fusion 0/1/2) with integer-quantized
/// expert weights, quant_type 'int'. Each weight row (one output feature) is an LSB-first bitstream of K codes of
/// expert_weight_bits 2, 3, 4 or 8 bits (fc1/fc2/fc3_expert_weight_bits override it per projection), dequantized
/// as (q - zero_point) · scale. Scales [E, N] (per output channel) or, with block_size (a power of two >= 16 that
/// divides hidden and inter), [E, N, K / block_size]. Zero points uint8, packed the same way per row: [E, ceil(N ·
/// bits / 8)] or [E, N, ceil(K / block_size · bits / 8)]; absent, 2^(bits - 1). router_weights [tokens, E]: the
/// mixing weights at the selected experts. float, float16, bfloat16 computed in float. Refused: quant_type other
/// than 'int' (fp4, nvfp4, fp8, wfp4afp8: GPU modes; onnxruntime's CPU kernel reads their bytes as integers), global
/// and activation scales, weights_prepacked other than -1, 0, 1, missing scales, INT3 outside its profile.
class QMoE final : public Kernel {
public:
    explicit QMoE(const KernelInit& init)
        : m_cfg(init.attributes())
    {
        const auto& a = init.attributes();
        const std::string qt = a.getString("quant_type", "int");
        if (qt != "int")
            throw a.error("quant_type",
                "'" + qt
                    + "' is not supported, only 'int' (fp4, nvfp4, fp8 and wfp4afp8 run on onnxruntime's GPU "
                      "providers; its CPU kernel reads their bytes as integers)");
        m_bits = a.getInt("expert_weight_bits", 4);
        m_fcBits[0] = a.getInt("fc1_expert_weight_bits", m_bits);
        m_fcBits[1] = a.getInt("fc2_expert_weight_bits", m_bits);
        m_fcBits[2] = a.getInt("fc3_expert_weight_bits", m_fcBits[0]);
        const char* names[] = { "fc1_expert_weight_bits", "fc2_expert_weight_bits", "fc3_expert_weight_bits" };
        auto okBits = [](int64_t b) { return b == 2 || b == 3 || b == 4 || b == 8; };
        if (!okBits(m_bits))
            throw a.error("expert_weight_bits", "must be 2, 3, 4 or 8, got " + std::to_string(m_bits));
        for (int i = 0; i < 3; ++i)
            if (!okBits(m_fcBits[i]))
                throw a.error(names[i], "must be 2, 3, 4 or 8, got " + std::to_string(m_fcBits[i]));
        m_block = a.getInt("block_size", 0);
        if (m_block < 0 || (m_block > 0 && (m_block < 16 || (m_block & (m_block - 1)) != 0)))
            throw a.error("block_size", "must be a power of two of at least 16, got " + std::to_string(m_block));
        const int64_t prepacked = a.getInt("weights_prepacked", -1);
        if (prepacked < -1 || prepacked > 1)
            throw a.error("weights_prepacked", "must be -1, 0 or 1, got " + std::to_string(prepacked));
        const bool int3 = m_fcBits[0] == 3 || m_fcBits[1] == 3 || m_fcBits[2] == 3;
        if (int3) {
            if (!m_cfg.swiglu() || m_cfg.fusion != 1)
                throw a.error("activation_type", "3-bit weights need activation_type 'swiglu' with swiglu_fusion 1");
            if (m_block != 32 && m_block != 64 && m_block != 128)
                throw a.error("block_size", "3-bit weights need block_size 32, 64 or 128");
            if (prepacked != 0)
                throw a.error("weights_prepacked", "3-bit weights need weights_prepacked 0 (raw weights)");
        }
        m_int3 = int3;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& router = ctx.input(1);
        contrib::requireSameType(ctx, x.dtype(), { 1, 4, 7, 10, 14 });
        if (x.rank() != 2 && x.rank() != 3)
            throw ctx.error("input must be [tokens, hidden] or [B, S, hidden], got " + shapeToString(x.shape()));
        if (m_int3 && x.dtype() == DataType::Float)
            throw ctx.error("3-bit weights need float16 or bfloat16 activations (the INT3 profile)");
        for (size_t i = 15; i < 21 && i < ctx.inputCount(); ++i)
            if (ctx.hasInput(i))
                throw ctx.error("input " + std::to_string(i)
                    + " (a global or activation scale) belongs to the fp4/fp8 quant_types, which are not supported");
        const int64_t hidden = x.dim(x.rank() - 1), tokens = hidden ? static_cast<int64_t>(x.size()) / hidden : 0;
        if (router.rank() != 2 || router.dim(0) != tokens)
            throw ctx.error("router_probs must be [tokens, num_experts] with tokens = " + std::to_string(tokens)
                + ", got " + shapeToString(router.shape()));
        const int64_t E = router.dim(1);
        if (m_cfg.k > E)
            throw ctx.error("k " + std::to_string(m_cfg.k) + " exceeds the " + std::to_string(E) + " experts");
        const bool swiglu = m_cfg.swiglu();
        const bool fc3 = ctx.hasInput(8);
        for (size_t i : { 9, 10, 13 })
            if (ctx.hasInput(i) && !fc3)
                throw ctx.error("input " + std::to_string(i) + " (fc3) needs fc3_experts_weights");
        if (fc3 && !(swiglu && m_cfg.fusion == 0))
            throw ctx.error("fc3_experts_weights is supported with activation_type swiglu and swiglu_fusion 0 (FC1 the "
                            "gate, FC3 the linear part) only");
        if (swiglu && m_cfg.fusion == 0 && !fc3)
            throw ctx.error("swiglu with swiglu_fusion 0 needs fc3_experts_weights (the linear part)");
        const Tensor& w2 = ctx.input(5);
        if (w2.rank() != 3 || w2.dim(0) != E || w2.dim(1) != hidden)
            throw ctx.error("fc2_experts_weights must be [num_experts, hidden, inter · bits / 8] with num_experts = "
                + std::to_string(E) + ", hidden = " + std::to_string(hidden) + ", got " + shapeToString(w2.shape()));
        const int64_t inter = w2.dim(2) * 8 / m_fcBits[1];
        if (w2.dim(2) * 8 % m_fcBits[1] != 0)
            throw ctx.error("fc2_experts_weights' last dimension " + std::to_string(w2.dim(2))
                + " is not a whole number of " + std::to_string(m_fcBits[1]) + "-bit codes");
        if (m_block && (hidden % m_block || inter % m_block))
            throw ctx.error("hidden " + std::to_string(hidden) + " and inter " + std::to_string(inter)
                + " must be divisible by block_size " + std::to_string(m_block));
        const int64_t fc1Rows = swiglu && m_cfg.fusion != 0 ? 2 * inter : inter;
        std::vector<float> xb, rb, rwb, b1b, b2b, b3b;
        const float* in = contrib::floats(ctx, x, xb, "input");
        const float* logits = contrib::floats(ctx, router, rb, "router_probs");
        const Shape rwShape { tokens, E }, b1Shape { E, fc1Rows }, b2Shape { E, hidden }, b3Shape { E, inter };
        const float* rw = contrib::optionalFloats(ctx, 14, rwb, "router_weights", &rwShape);
        const Projection p1 = projection(ctx, 2, 3, 11, "fc1", E, fc1Rows, hidden, m_fcBits[0]);
        const Projection p2 = projection(ctx, 5, 6, 12, "fc2", E, hidden, inter, m_fcBits[1]);
        const Projection p3 = fc3 ? projection(ctx, 8, 9, 13, "fc3", E, inter, hidden, m_fcBits[2]) : Projection {};
        std::vector<float> W1, W2, W3; // one expert's weights at a time: the experts no token selected stay packed
        const float* B1 = contrib::optionalFloats(ctx, 4, b1b, "fc1_experts_bias", &b1Shape);
        const float* B2 = contrib::optionalFloats(ctx, 7, b2b, "fc2_experts_bias", &b2Shape);
        const float* B3 = contrib::optionalFloats(ctx, 10, b3b, "fc3_experts_bias", &b3Shape);
        std::vector<float> y(x.size(), 0.0f);
        const auto at = [](const float* b, int64_t e, int64_t n) { return b ? b + e * n : nullptr; };
        moe::run(
            m_cfg, tokens, hidden, inter, E, in, logits, rw,
            [&](int64_t e) {
                dequantize(ctx, p1, e, W1);
                dequantize(ctx, p2, e, W2);
                if (fc3)
                    dequantize(ctx, p3, e, W3);
                return moe::Weights { W1.data(), at(B1, e, fc1Rows), W2.data(), at(B2, e, hidden),
                    fc3 ? W3.data() : nullptr, at(B3, e, inter) };
            },
            y.data());
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
    }

private:
    /// Code j of an LSB-first bitstream of `bits`-bit codes.
    static int code(const uint8_t* row, int64_t j, int64_t bits)
    {
        const int64_t bit = j * bits;
        unsigned v = row[bit / 8];
        if (bit % 8 + bits > 8)
            v |= static_cast<unsigned>(row[bit / 8 + 1]) << 8;
        return static_cast<int>((v >> (bit % 8)) & ((1u << bits) - 1));
    }

    /// One projection's checked inputs: codes [E, N, K · bits / 8], scales (as floats), packed zero points.
    struct Projection {
        std::string name;
        const uint8_t* q = nullptr;
        const uint8_t* zp = nullptr;
        const float* scales = nullptr;
        std::vector<float> scaleBuffer;
        int64_t N = 0, K = 0, bits = 4, groups = 1, zRow = 0;
    };

    Projection projection(const KernelContext& ctx, size_t wi, size_t si, size_t zi, const std::string& fc, int64_t E,
        int64_t N, int64_t K, int64_t bits) const
    {
        Projection p;
        p.name = fc;
        p.N = N;
        p.K = K;
        p.bits = bits;
        const Tensor& w = ctx.input(wi);
        if (K * bits % 8 != 0)
            throw ctx.error(
                fc + ": rows of " + std::to_string(K) + " " + std::to_string(bits) + "-bit codes are not byte-aligned");
        const Shape wShape { E, N, K * bits / 8 };
        if (w.dtype() != DataType::UInt8 || w.shape() != wShape)
            throw ctx.error(fc + "_experts_weights must be uint8 " + shapeToString(wShape) + ", got " + w.typeString());
        p.q = w.data<uint8_t>().data();
        if (!ctx.hasInput(si))
            throw ctx.error(fc + "_scales is required with quant_type 'int'");
        p.groups = m_block ? K / m_block : 1;
        const Shape sShape = m_block ? Shape { E, N, p.groups } : Shape { E, N };
        p.scales = contrib::optionalFloats(ctx, si, p.scaleBuffer, (fc + "_scales").c_str(), &sShape);
        if (m_int3 && bits == 3)
            for (int64_t i = 0; i < E * N * p.groups; ++i)
                if (!(p.scales[i] >= 0.0f) || !std::isfinite(p.scales[i]))
                    throw ctx.error(fc + "_scales must be finite and nonnegative with 3-bit weights");
        p.zRow = m_block ? (p.groups * bits + 7) / 8 : (N * bits + 7) / 8;
        if (ctx.hasInput(zi)) {
            const Tensor& z = ctx.input(zi);
            const Shape zShape = m_block ? Shape { E, N, p.zRow } : Shape { E, p.zRow };
            if (z.dtype() != DataType::UInt8 || z.shape() != zShape)
                throw ctx.error(fc + "_zero_points must be uint8 " + shapeToString(zShape) + ", got " + z.typeString());
            p.zp = z.data<uint8_t>().data();
        }
        return p;
    }

    /// Expert e's weights [N, K] of projection p as float, into out.
    void dequantize(const KernelContext& ctx, const Projection& p, int64_t e, std::vector<float>& out) const
    {
        const int64_t N = p.N, K = p.K, bits = p.bits, groups = p.groups, groupLen = K / groups;
        const int zDefault = 1 << (bits - 1);
        out.resize(static_cast<size_t>(N * K));
        for (int64_t n = 0; n < N; ++n) {
            const uint8_t* row = p.q + (e * N + n) * (K * bits / 8);
            float* o = out.data() + n * K;
            for (int64_t g = 0; g < groups; ++g) {
                const float s = p.scales[(e * N + n) * groups + g];
                int z = zDefault;
                if (p.zp)
                    z = m_block ? code(p.zp + (e * N + n) * p.zRow, g, bits) : code(p.zp + e * p.zRow, n, bits);
                if (m_int3 && bits == 3 && z != 4)
                    throw ctx.error(p.name + "_zero_points must all be 4 with 3-bit weights (the INT3 profile)");
                const float zs = static_cast<float>(z) * s;
                const int64_t i0 = g * groupLen, i1 = (g + 1) * groupLen;
                if (bits == 8) // fast paths by width: whole bytes, nibble pairs
                    for (int64_t i = i0; i < i1; ++i)
                        o[i] = static_cast<float>(row[i]) * s - zs;
                else if (bits == 4)
                    for (int64_t i = i0; i < i1; i += 2) {
                        o[i] = static_cast<float>(row[i / 2] & 15) * s - zs;
                        o[i + 1] = static_cast<float>(row[i / 2] >> 4) * s - zs;
                    }
                else
                    for (int64_t i = i0; i < i1; ++i)
                        o[i] = static_cast<float>(code(row, i, bits) - z) * s;
            }
        }
    }

    moe::Config m_cfg;
    int64_t m_bits = 4, m_fcBits[3] = { 4, 4, 4 }, m_block = 0;
    bool m_int3 = false;
};

} // namespace

void registerLlmQMoE(KernelRegistry& r)
{
    r.add("com.microsoft", "QMoE", 1, KernelRegistry::kLatest, makeFactory<QMoE>());
}

} // namespace onnxscope
