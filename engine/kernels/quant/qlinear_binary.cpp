// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/qlinear_common.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>
#include <type_traits>

namespace onnxscope {

namespace {

/// Which operand onnxruntime's broadcast loop hands its kernels as one value repeated over the innermost run of
/// the output: the one of size 1 along the last output dimension larger than 1 (or of one element).
enum class Repeated { None, A, B };

Repeated repeatedOperand(const Shape& a, const Shape& b, const Shape& out)
{
    if (elementCount(a) == 1 && elementCount(b) != 1)
        return Repeated::A;
    if (elementCount(b) == 1)
        return Repeated::B;
    for (size_t d = out.size(); d-- > 0;) {
        if (out[d] == 1)
            continue;
        const size_t fromEnd = out.size() - d;
        const bool aOne = a.size() < fromEnd || a[a.size() - fromEnd] == 1;
        const bool bOne = b.size() < fromEnd || b[b.size() - fromEnd] == 1;
        return aOne ? Repeated::A : (bOne ? Repeated::B : Repeated::None);
    }
    return Repeated::None;
}

/// QLinearAdd and QLinearMul (com.microsoft 1): C = quantize(dequantize(A) + dequantize(B)) or
/// quantize(dequantize(A) * dequantize(B)) with numpy broadcasting. A, B and C uint8 or int8 (one type), every
/// scale and zero point per tensor; absent zero points are 0. The arithmetic is onnxruntime's, so the integers
/// match it: Add computes A * (A_scale / C_scale) + B * (B_scale / C_scale) + (C_zero_point - the zero points'
/// share) in float with fused multiply-adds (the repeated operand folded into the constant first), Mul computes
/// (A - A_zero_point) * (B - B_zero_point) exactly, times A_scale * B_scale / C_scale in float, plus C_zero_point;
/// both round half to even and saturate.
class QLinearBinary final : public Kernel {
public:
    QLinearBinary(const KernelInit&, bool add)
        : m_add(add)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const DataType t = qlinear::requireByteType(ctx, 0, "A");
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(3);
        if (b.dtype() != t)
            throw ctx.error("B is " + b.typeString() + " but A is " + a.typeString());
        const qlinear::Params pa = qlinear::params(ctx, 1, 2, t, "A");
        const qlinear::Params pb = qlinear::params(ctx, 4, 5, t, "B");
        const qlinear::Params pc = qlinear::params(ctx, 6, 7, t, "C");
        const Shape outShape = broadcastShapesOf(ctx, a.shape(), b.shape());
        Tensor& out = ctx.allocateOutputUninitialized(0, t, outShape);
        const Repeated rep = repeatedOperand(a.shape(), b.shape(), outShape);
        if (t == DataType::UInt8)
            run<uint8_t>(a, b, out, pa, pb, pc, rep, ctx.threadPool());
        else
            run<int8_t>(a, b, out, pa, pb, pc, rep, ctx.threadPool());
    }

private:
    template <class T>
    void run(const Tensor& a, const Tensor& b, Tensor& out, qlinear::Params pa, qlinear::Params pb, qlinear::Params pc,
        Repeated rep, ThreadPool* pool) const
    {
        const auto round = [](float v) { return qlinear::saturate<T>(static_cast<int64_t>(std::nearbyint(v))); };
        if (!m_add) {
            const float ratio = pa.scale * pb.scale / pc.scale;
            const float zc = static_cast<float>(pc.zeroPoint);
            broadcastBinary<T, T, T>(a, b, out, [&](T x, T y) {
                const int32_t product = (int32_t(x) - pa.zeroPoint) * (int32_t(y) - pb.zeroPoint);
                return round(static_cast<float>(product) * ratio + zc);
            });
            return;
        }
        // onnxruntime's kernel takes (vector, repeated value): a repeated A runs with the operands' roles swapped.
        const bool swap = rep == Repeated::A;
        const qlinear::Params p1 = swap ? pb : pa, p2 = swap ? pa : pb;
        const float r1 = p1.scale / pc.scale, r2 = p2.scale / pc.scale;
        const float shift = static_cast<float>(p1.zeroPoint) * r1 + static_cast<float>(p2.zeroPoint) * r2;
        const float fixed = static_cast<float>(pc.zeroPoint) - shift;
        // One shape, or one operand of one element: simd::Ops' loop, same bytes.
        const int64_t n = out.size();
        const auto* bytesA = static_cast<const uint8_t*>(a.raw());
        const auto* bytesB = static_cast<const uint8_t*>(b.raw());
        auto* py = static_cast<uint8_t*>(out.mutableRaw());
        const bool isSigned = std::is_same_v<T, int8_t>;
        const auto valueOf = [](const uint8_t* p) { return static_cast<float>(*reinterpret_cast<const T*>(p)); };
        const auto vectorLoop = [&](const uint8_t* v, const uint8_t* w, float rw, float c) {
            parallelFor(pool, n, simd::kGrainElements, [&](int64_t i0, int64_t i1) {
                simd::ops().qlinearAddBytes(isSigned, v + i0, w ? w + i0 : nullptr, i1 - i0, r1, rw, c, py + i0);
            });
        };
        if (a.shape() == b.shape() && a.size() == n) {
            vectorLoop(bytesA, bytesB, r2, fixed);
            return;
        }
        if (rep == Repeated::B && b.size() == 1 && a.size() == n) {
            vectorLoop(bytesA, nullptr, 0.0f, fixed + valueOf(bytesB) * r2);
            return;
        }
        if (swap && a.size() == 1 && b.size() == n) {
            vectorLoop(bytesB, nullptr, 0.0f, fixed + valueOf(bytesA) * r2);
            return;
        }
        if (rep == Repeated::None) {
            broadcastBinary<T, T, T>(a, b, out, [&](T x, T y) {
                return round(std::fma(static_cast<float>(x), r1, std::fma(static_cast<float>(y), r2, fixed)));
            });
        } else if (!swap) {
            broadcastBinary<T, T, T>(a, b, out, [&](T x, T y) {
                const float folded = fixed + static_cast<float>(y) * r2;
                return round(std::fma(static_cast<float>(x), r1, folded));
            });
        } else {
            broadcastBinary<T, T, T>(a, b, out, [&](T x, T y) {
                const float folded = fixed + static_cast<float>(x) * r2;
                return round(std::fma(static_cast<float>(y), r1, folded));
            });
        }
    }

    bool m_add;
};

template <bool Add> KernelFactory binaryFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<QLinearBinary>(init, Add); };
}

} // namespace

void registerQLinearBinary(KernelRegistry& r)
{
    r.add("com.microsoft", "QLinearAdd", 1, KernelRegistry::kLatest, binaryFactory<true>());
    r.add("com.microsoft", "QLinearMul", 1, KernelRegistry::kLatest, binaryFactory<false>());
}

} // namespace onnxscope
