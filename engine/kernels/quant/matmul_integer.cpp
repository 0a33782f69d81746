// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/half_convert.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/integer_product.h"
#include "engine/kernels/quant/quant_common.h"
#include "engine/kernels/simd/simd.h"

#include <map>
#include <memory>
#include <mutex>

namespace onnxscope {

namespace {

/// A zero point of a matmul operand: a scalar (or one value), or one value per row of A (`perRows`) / per column
/// of B.
std::vector<int64_t> matmulZeroPoint(
    const KernelContext& ctx, size_t input, DataType operandType, int64_t perCount, const char* what)
{
    if (!ctx.hasInput(input))
        return { 0 };
    const Tensor& z = ctx.input(input);
    if (z.dtype() != operandType)
        throw ctx.error(std::string(what) + " is " + z.typeString() + " but its operand is "
            + std::string(dataTypeName(operandType)));
    if (z.size() == 1)
        return integerValues(ctx, z, what);
    if (z.rank() != 1 || z.dim(0) != perCount)
        throw ctx.error(
            std::string(what) + " must be a scalar or 1-D of " + std::to_string(perCount) + ", got " + z.typeString());
    return integerValues(ctx, z, what);
}

/// sum_k (a[m, k] - azp[m]) * (b[k, n] - bzp[n]) for every batch of the plan, into `acc` (int64, exact).
std::vector<int64_t> integerProduct(const KernelContext& ctx, const MatMulPlan& p, const std::vector<int64_t>& a,
    const std::vector<int64_t>& b, const std::vector<int64_t>& azp, const std::vector<int64_t>& bzp)
{
    if (static_cast<size_t>(elementCount(p.outShape)) > Tensor::allocationLimit() / 8)
        throw ctx.error("the product " + shapeToString(p.outShape) + " needs more memory than allowed");
    std::vector<int64_t> acc(p.aOffset.size() * static_cast<size_t>(p.m * p.n), 0);
    std::vector<int64_t> row(static_cast<size_t>(p.n));
    for (size_t bi = 0; bi < p.aOffset.size(); ++bi) {
        const int64_t* A = a.data() + p.aOffset[bi];
        const int64_t* B = b.data() + p.bOffset[bi];
        int64_t* C = acc.data() + static_cast<int64_t>(bi) * p.m * p.n;
        for (int64_t i = 0; i < p.m; ++i) {
            const int64_t za = azp.size() == 1 ? azp[0] : azp[static_cast<size_t>(i)];
            for (int64_t k = 0; k < p.k; ++k) {
                const int64_t av = A[i * p.k + k] - za;
                if (av == 0)
                    continue;
                for (int64_t j = 0; j < p.n; ++j) {
                    const int64_t zb = bzp.size() == 1 ? bzp[0] : bzp[static_cast<size_t>(j)];
                    C[i * p.n + j] += av * (B[k * p.n + j] - zb);
                }
            }
        }
    }
    return acc;
}

/// B's weights for the shared integer kernel (B^T as rows), prepared once when B and its zero point are constant
/// (while their storage stays the same), else on every run.
class PreparedB {
public:
    PreparedB(const KernelInit& init, size_t b, size_t bZero)
        : m_constant(isConstantInput(init, b) && (init.node.inputs.size() <= bZero || isConstantInput(init, bZero)))
    {
    }

    /// The weights of batch `offset` of b ([k, n] at that element offset).
    std::shared_ptr<const intprod::Weights> get(
        const Tensor& b, int64_t offset, int64_t k, int64_t n, const std::vector<int32_t>& bz) const
    {
        const auto prepare = [&] {
            return std::make_shared<const intprod::Weights>(
                intprod::prepareWeights(b.dtype(), static_cast<const uint8_t*>(b.raw()) + offset, n, k, 1, n, bz));
        };
        if (!m_constant)
            return prepare();
        std::lock_guard lock(m_mutex);
        auto& slot = m_cache[offset];
        if (!slot.weights || slot.key != b.raw() || slot.weights->k != k || slot.weights->rows != n) {
            slot.weights = prepare();
            slot.key = b.raw();
        }
        return slot.weights;
    }

private:
    struct Slot {
        std::shared_ptr<const intprod::Weights> weights;
        const void* key = nullptr;
    };
    bool m_constant;
    mutable std::mutex m_mutex;
    mutable std::map<int64_t, Slot> m_cache;
};

/// integerProduct on the shared integer kernel, for a per-tensor zero point of A: into acc (int32, wrapping past it
/// as a 32-bit accumulator). Blocks of B's columns are split over the pool.
void fastProduct(const KernelContext& ctx, const PreparedB& prepared, const MatMulPlan& p, const Tensor& a,
    const Tensor& b, int32_t azp, const std::vector<int64_t>& bzp, int32_t* acc)
{
    const std::vector<int32_t> bz(bzp.begin(), bzp.end());
    const auto* ab = static_cast<const uint8_t*>(a.raw());
    std::shared_ptr<const intprod::Weights> w;
    intprod::Columns x;
    int64_t preparedOffset = -1;
    for (size_t bi = 0; bi < p.aOffset.size(); ++bi) {
        // Y = A B computed as Y^T = B^T A^T: B's columns are the weights' rows, A's rows the packed columns.
        if (p.bOffset[bi] != preparedOffset) {
            w = prepared.get(b, p.bOffset[bi], p.k, p.n, bz);
            preparedOffset = p.bOffset[bi];
        }
        intprod::packColumns(a.dtype(), ab + p.aOffset[bi], p.k, p.m, 1, p.k, x, w->needsColumnSums);
        int32_t* c = acc + static_cast<int64_t>(bi) * p.m * p.n;
        const int64_t grain = std::max<int64_t>(16, simd::kGrainMacs / std::max<int64_t>(1, p.m * p.k));
        parallelFor(ctx.threadPool(), p.n, grain,
            [&](int64_t r0, int64_t r1) { intprod::product(*w, r0, r1 - r0, x, azp, c + r0, 1, p.n); });
    }
}

/// MatMulInteger 10: int32 = (A - a_zero_point) x (B - b_zero_point) with numpy matmul broadcasting. A and B
/// uint8 or int8; zero points per tensor, per row of A, per column of B. Accumulates exactly; the int32 result
/// wraps as onnxruntime's does only past 2^31.
class MatMulInteger final : public Kernel {
public:
    explicit MatMulInteger(const KernelInit& init)
        : m_b(init, 1, 3)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        for (const Tensor* t : { &a, &b })
            if (t->dtype() != DataType::UInt8 && t->dtype() != DataType::Int8)
                throw ctx.error("operands must be uint8 or int8, got " + t->typeString());
        const MatMulPlan p = planMatMul(ctx, a.shape(), b.shape());
        const auto azp = matmulZeroPoint(ctx, 2, a.dtype(), p.m, "a_zero_point");
        const auto bzp = matmulZeroPoint(ctx, 3, b.dtype(), p.n, "b_zero_point");
        Tensor& y = ctx.allocateOutput(0, DataType::Int32, p.outShape);
        auto dst = y.data<int32_t>();
        if (azp.size() == 1) {
            fastProduct(ctx, m_b, p, a, b, static_cast<int32_t>(azp[0]), bzp, dst.data());
            return;
        }
        const auto acc = integerProduct(ctx, p, integerValues(ctx, a, "A"), integerValues(ctx, b, "B"), azp, bzp);
        for (size_t i = 0; i < dst.size(); ++i)
            dst[i] = static_cast<int32_t>(acc[i]);
    }

private:
    PreparedB m_b;
};

/// QLinearMatMul 10+: y = saturate(round_half_even(acc * (a_scale * b_scale / y_scale)) + y_zero_point) where acc
/// is the exact integer product of the zero-point-shifted operands. a_scale/a_zero_point per tensor or per row of
/// a, b_scale/b_zero_point per tensor or per column of b; uint8/int8 operands and output. The requantization
/// multiplier is formed in float, as onnxruntime does.
class QLinearMatMul final : public Kernel {
public:
    explicit QLinearMatMul(const KernelInit& init)
        : m_b(init, 3, 5)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(3);
        const Tensor& yzpT = ctx.input(7);
        for (const Tensor* t : { &a, &b, &yzpT })
            if (t->dtype() != DataType::UInt8 && t->dtype() != DataType::Int8)
                throw ctx.error("operands and y_zero_point must be uint8 or int8, got " + t->typeString());
        const MatMulPlan p = planMatMul(ctx, a.shape(), b.shape());
        const auto azp = matmulZeroPoint(ctx, 2, a.dtype(), p.m, "a_zero_point");
        const auto bzp = matmulZeroPoint(ctx, 5, b.dtype(), p.n, "b_zero_point");
        const auto as = scales(ctx, 1, p.m, "a_scale"), bs = scales(ctx, 4, p.n, "b_scale"),
                   ys = scales(ctx, 6, 1, "y_scale");
        if (yzpT.size() != 1)
            throw ctx.error("y_zero_point must be a scalar, got " + yzpT.typeString());
        const double yzp = static_cast<double>(integerValues(ctx, yzpT, "y_zero_point")[0]);
        Tensor& y = ctx.allocateOutput(0, yzpT.dtype(), p.outShape);
        std::vector<int64_t> acc;
        if (azp.size() == 1) {
            std::vector<int32_t> acc32(static_cast<size_t>(y.size()));
            fastProduct(ctx, m_b, p, a, b, static_cast<int32_t>(azp[0]), bzp, acc32.data());
            acc.assign(acc32.begin(), acc32.end());
        } else {
            acc = integerProduct(ctx, p, integerValues(ctx, a, "a"), integerValues(ctx, b, "b"), azp, bzp);
        }
        dispatch<TypeList<uint8_t, int8_t>>(yzpT.dtype(), ctx.node(), [&]<class Q>() {
            auto dst = y.data<Q>();
            for (size_t i = 0; i < dst.size(); ++i) {
                const int64_t row = (static_cast<int64_t>(i) / p.n) % p.m, col = static_cast<int64_t>(i) % p.n;
                const float multiplier = as[as.size() == 1 ? 0 : static_cast<size_t>(row)]
                    * bs[bs.size() == 1 ? 0 : static_cast<size_t>(col)] / ys[0];
                const float v = static_cast<float>(acc[i]) * multiplier;
                dst[i] = saturateRound<Q>(static_cast<double>(std::nearbyint(v)) + yzp);
            }
        });
    }

private:
    static std::vector<float> scales(const KernelContext& ctx, size_t input, int64_t perCount, const char* what)
    {
        const Tensor& t = ctx.input(input);
        if (t.size() != 1 && (t.rank() != 1 || t.dim(0) != perCount || perCount == 1))
            throw ctx.error(std::string(what) + " must be a scalar"
                + (perCount > 1 ? " or 1-D of " + std::to_string(perCount) : "") + ", got " + t.typeString());
        std::vector<float> v;
        for (double d : floatValues(ctx, t, what))
            v.push_back(static_cast<float>(d));
        return v;
    }

    PreparedB m_b;
};

} // namespace

void registerMatMulInteger(KernelRegistry& r)
{
    r.add("", "MatMulInteger", 10, 10, makeFactory<MatMulInteger>());
    r.add("", "QLinearMatMul", 10, 21, makeFactory<QLinearMatMul>());
}

} // namespace onnxscope
