// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <cstring>

namespace onnxscope {

namespace {

/// MatMulFpQ4 (com.microsoft 1): Y = A x B, A float [..., K], B the [K, N] matrix given by B_shape (int64 [2]) and
/// packed in the blob B (uint8 1-D) as onnxruntime's MLAS Q4 format: for each column, blocks of 32 rows, each a float
/// scale, with blk_quant_type 1 (the default) a uint8 zero point, then 16 bytes per 32 values (byte l holds row l in
/// its low nibble and row l + 16 in its high one); value = (code - 8) * scale with blk_quant_type 0, (code -
/// zero point) * scale otherwise. onnxruntime's kernel reads every blk_quant_type other than 0 as 1 (the schema's
/// "type 2, block 64" does not run there); so does this one. A blob of the wrong size is refused with the size
/// expected.
class MatMulFpQ4 final : public Kernel {
public:
    explicit MatMulFpQ4(const KernelInit& init)
        : m_zeroPoint(init.attributes().getInt("blk_quant_type", 1) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& blob = ctx.input(1);
        const Tensor& shape = ctx.input(2);
        if (a.dtype() != DataType::Float || a.rank() < 1)
            throw ctx.error("A must be float with rank 1 or more, got " + a.typeString());
        if (shape.dtype() != DataType::Int64 || shape.size() != 2)
            throw ctx.error("B_shape must be int64 [2] (K, N), got " + shape.typeString());
        const int64_t K = shape.data<int64_t>()[0], N = shape.data<int64_t>()[1];
        if (K <= 0 || N <= 0 || a.dim(a.rank() - 1) != K)
            throw ctx.error("A " + shapeToString(a.shape()) + " cannot multiply B [" + std::to_string(K) + ", "
                + std::to_string(N) + "]");
        const int64_t blocks = (K + 31) / 32, blockBytes = 4 + (m_zeroPoint ? 1 : 0) + 16;
        if (blob.dtype() != DataType::UInt8 || blob.rank() != 1 || blob.size() != N * blocks * blockBytes)
            throw ctx.error("B must be a uint8 blob of " + std::to_string(N * blocks * blockBytes)
                + " bytes for B_shape [" + std::to_string(K) + ", " + std::to_string(N) + "] and blk_quant_type "
                + (m_zeroPoint ? "1" : "0") + ", got " + blob.typeString());
        std::vector<float> w(static_cast<size_t>(K * N));
        const uint8_t* src = blob.data<uint8_t>().data();
        for (int64_t n = 0; n < N; ++n)
            for (int64_t blk = 0; blk < blocks; ++blk, src += blockBytes) {
                float scale;
                std::memcpy(&scale, src, sizeof scale);
                const int32_t zero = m_zeroPoint ? src[4] : 8;
                const uint8_t* data = src + (m_zeroPoint ? 5 : 4);
                for (int64_t l = 0; l < 32 && blk * 32 + l < K; ++l) {
                    const int32_t code = l < 16 ? data[l] & 0x0F : data[l - 16] >> 4;
                    w[static_cast<size_t>((blk * 32 + l) * N + n)] = static_cast<float>(code - zero) * scale;
                }
            }
        Shape outShape = a.shape();
        outShape.back() = N;
        Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, outShape);
        const int64_t rows = a.size() / K;
        simd::parallelGemm(ctx.threadPool(), rows, N, K, a.data<float>().data(), K, false, w.data(), N, false,
            y.data<float>().data(), N, false);
    }

private:
    bool m_zeroPoint;
};

} // namespace

void registerMatMulFpQ4(KernelRegistry& r)
{
    r.add("com.microsoft", "MatMulFpQ4", 1, KernelRegistry::kLatest, makeFactory<MatMulFpQ4>());
}

} // namespace onnxscope
