// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/quant_common.h"

namespace onnxscope {

namespace {

/// MatMulInteger16 (com.microsoft 1): Y = A x B with numpy matmul broadcasting, A and B int16 or uint16 (no zero
/// points); Y is uint32 when both are uint16, else int32. The products are summed exactly and the sum wraps to 32
/// bits, as the schema allows ("the accumulation may overflow if and only if in 32 bits").
class MatMulInteger16 final : public Kernel {
public:
    explicit MatMulInteger16(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        for (const Tensor* t : { &a, &b })
            if (t->dtype() != DataType::Int16 && t->dtype() != DataType::UInt16)
                throw ctx.error("A and B must be int16 or uint16, got " + t->typeString());
        const bool unsignedOut = a.dtype() == DataType::UInt16 && b.dtype() == DataType::UInt16;
        const MatMulPlan p = planMatMul(ctx, a.shape(), b.shape());
        Tensor& y = ctx.allocateOutput(0, unsignedOut ? DataType::UInt32 : DataType::Int32, p.outShape);
        const auto av = integerValues(ctx, a, "A"), bv = integerValues(ctx, b, "B");
        auto* out = static_cast<uint32_t*>(y.mutableRaw());
        for (size_t bi = 0; bi < p.aOffset.size(); ++bi) {
            const int64_t* A = av.data() + p.aOffset[bi];
            const int64_t* B = bv.data() + p.bOffset[bi];
            uint32_t* C = out + static_cast<int64_t>(bi) * p.m * p.n;
            for (int64_t i = 0; i < p.m; ++i)
                for (int64_t j = 0; j < p.n; ++j) {
                    int64_t acc = 0;
                    for (int64_t k = 0; k < p.k; ++k)
                        acc += A[i * p.k + k] * B[k * p.n + j];
                    C[i * p.n + j] = static_cast<uint32_t>(acc);
                }
        }
    }
};

} // namespace

void registerMatMulInteger16(KernelRegistry& r)
{
    r.add("com.microsoft", "MatMulInteger16", 1, KernelRegistry::kLatest, makeFactory<MatMulInteger16>());
}

} // namespace onnxscope
