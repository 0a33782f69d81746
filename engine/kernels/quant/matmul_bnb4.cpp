// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <array>

namespace onnxscope {

namespace {

/// The 4-bit codes of bitsandbytes' formats, as fractions of the block's absmax. FP4: sign bit, then the e2m1
/// magnitudes of bitsandbytes (exponent bias 3: 0, 0.0625, 8, 12, 4, 6, 2, 3) over their largest, 12. NF4: the
/// NormalFloat4 levels of the QLoRA paper (quantiles of a standard normal, scaled to [-1, 1]).
constexpr std::array<float, 8> kFp4Magnitude { 0.0f, 0.0625f / 12, 8.0f / 12, 1.0f, 4.0f / 12, 6.0f / 12, 2.0f / 12,
    3.0f / 12 };
constexpr std::array<float, 16> kNf4 { -1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f,
    -0.28444138169288635f, -0.18477343022823334f, -0.09105003625154495f, 0.0f, 0.07958029955625534f,
    0.16093020141124725f, 0.24611230194568634f, 0.33791524171829224f, 0.44070982933044434f, 0.5626170039176941f,
    0.7229568362236023f, 1.0f };

/// MatMulBnb4 (com.microsoft 1): Y = A x dequant(B)ᵀ (transB = 1, the default: A [..., K], Y [..., N]) or A x
/// dequant(B) (transB = 0: A [..., N], Y [..., K]). B holds the [N, K] weight row-major as 4-bit codes, two per byte
/// (the first in the high nibble), in blocks of `block_size` (a power of 2, at least 16) values each scaled by its
/// absmax (A's type); quant_type 0 is FP4, 1 is NF4. A float, float16 or bfloat16 (computed in float). Refused:
/// training_mode. onnxruntime's CPU kernel multiplies by the transpose whatever transB says; this kernel follows the
/// schema.
class MatMulBnb4 final : public Kernel {
public:
    explicit MatMulBnb4(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_k = a.requireInt("K");
        m_n = a.requireInt("N");
        m_block = a.requireInt("block_size");
        m_type = a.requireInt("quant_type");
        m_transB = a.getInt("transB", 1) != 0;
        if (m_k <= 0 || m_n <= 0)
            throw a.error("K", "K and N must be positive, got " + std::to_string(m_k) + " and " + std::to_string(m_n));
        if (m_block < 16 || (m_block & (m_block - 1)) != 0)
            throw a.error("block_size", "must be a power of 2, at least 16, got " + std::to_string(m_block));
        if (m_type != 0 && m_type != 1)
            throw a.error("quant_type", "must be 0 (FP4) or 1 (NF4), got " + std::to_string(m_type));
        if (a.getInt("training_mode", 0) != 0)
            throw a.error("training_mode", "only 0 is supported");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        const int64_t count = m_n * m_k, blocks = (count + m_block - 1) / m_block;
        if (b.dtype() != DataType::UInt8 || b.size() != (count + 1) / 2)
            throw ctx.error(
                "B must be uint8 [" + std::to_string((count + 1) / 2) + "] (N * K 4-bit codes), got " + b.typeString());
        const Tensor& absmax = ctx.input(2);
        if (absmax.size() != blocks || absmax.dtype() != a.dtype())
            throw ctx.error(
                "absmax must hold " + std::to_string(blocks) + " values of A's type, got " + absmax.typeString());
        const int64_t inner = m_transB ? m_k : m_n, outer = m_transB ? m_n : m_k;
        if (a.rank() < 1 || a.dim(a.rank() - 1) != inner)
            throw ctx.error("A's last dimension must be " + std::to_string(inner) + ", got " + a.typeString());
        std::vector<float> ab, mb;
        const float* av = contrib::floats(ctx, a, ab, "A");
        const float* scales = contrib::floats(ctx, absmax, mb, "absmax");
        std::vector<float> w(static_cast<size_t>(count));
        const uint8_t* codes = b.data<uint8_t>().data();
        for (int64_t i = 0; i < count; ++i) {
            const uint8_t code = (i % 2 == 0) ? codes[i / 2] >> 4 : codes[i / 2] & 0xF;
            const float level = m_type == 1 ? kNf4[code] : (code & 8 ? -1.0f : 1.0f) * kFp4Magnitude[code & 7];
            w[static_cast<size_t>(i)] = level * scales[i / m_block];
        }
        const int64_t rows = a.size() / inner;
        Shape outShape = a.shape();
        outShape.back() = outer;
        std::vector<float> y(static_cast<size_t>(rows * outer));
        simd::parallelGemm(
            ctx.threadPool(), rows, outer, inner, av, inner, false, w.data(), m_k, m_transB, y.data(), outer, false);
        contrib::storeOutput(ctx, 0, a.dtype(), outShape, y.data());
    }

private:
    int64_t m_k = 0, m_n = 0, m_block = 0, m_type = 0;
    bool m_transB = true;
};

} // namespace

void registerMatMulBnb4(KernelRegistry& r)
{
    r.add("com.microsoft", "MatMulBnb4", 1, KernelRegistry::kLatest, makeFactory<MatMulBnb4>());
}

} // namespace onnxscope
