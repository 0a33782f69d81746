// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

/// The integer values of an int8 or uint8 tensor.
std::vector<int32_t> integers(const KernelContext& ctx, const Tensor& t, const char* what)
{
    std::vector<int32_t> out(static_cast<size_t>(t.size()));
    if (t.dtype() == DataType::Int8)
        std::copy(t.data<int8_t>().begin(), t.data<int8_t>().end(), out.begin());
    else if (t.dtype() == DataType::UInt8)
        std::copy(t.data<uint8_t>().begin(), t.data<uint8_t>().end(), out.begin());
    else
        throw ctx.error(std::string(what) + " must be int8 or uint8, got " + t.typeString());
    return out;
}

/// A per-tensor or per-column parameter (scale or zero point) of B [.., K, N]: one value or N.
std::vector<double> perColumn(const KernelContext& ctx, size_t input, int64_t n, double fallback, const char* what)
{
    if (!ctx.hasInput(input))
        return std::vector<double>(static_cast<size_t>(n), fallback);
    const Tensor& t = ctx.input(input);
    if (t.size() != 1 && !(t.rank() == 1 && t.size() == n))
        throw ctx.error(std::string(what) + " must be a scalar or [" + std::to_string(n) + "] (per column), got "
            + shapeToString(t.shape()));
    std::vector<double> out(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j)
        out[static_cast<size_t>(j)] = t.toDouble(t.size() == 1 ? 0 : j);
    return out;
}

/// Y [.., M, N] = Σ_k (A - a_zero)(B - b_zero) · a_scale · b_scale[n] (+ bias), computed exactly in integers. A
/// [.., M, K]; B [K, N], or with A's batch dimensions.
void integerMatMul(KernelContext& ctx, const Tensor& a, const std::vector<int32_t>& qa, int32_t aZero, double aScale,
    size_t bInput, size_t bScaleInput, size_t bZeroInput, size_t biasInput, DataType outType)
{
    const Tensor& b = ctx.input(bInput);
    if (a.rank() < 2 && a.rank() != 1)
        throw ctx.error("A must have at least one dimension");
    const int64_t K = a.dim(a.rank() - 1);
    const int64_t M = a.rank() >= 2 ? a.dim(a.rank() - 2) : 1;
    const int64_t batches = a.size() / std::max<int64_t>(1, M * K);
    const bool batchedB = b.rank() == a.rank() && b.rank() > 2;
    if (b.rank() < 2 || b.dim(b.rank() - 2) != K
        || (b.rank() > 2 && (!batchedB || !std::equal(b.shape().begin(), b.shape().end() - 2, a.shape().begin()))))
        throw ctx.error("B " + shapeToString(b.shape()) + " must be [K, N] or have A's batch dimensions, A is "
            + shapeToString(a.shape()));
    const int64_t N = b.dim(b.rank() - 1);
    const std::vector<int32_t> qb = integers(ctx, b, "B");
    const std::vector<double> bScale = perColumn(ctx, bScaleInput, N, 1.0, "b_scale");
    const std::vector<double> bZero = perColumn(ctx, bZeroInput, N, 0.0, "b_zero_point");
    std::vector<float> biasBuf;
    const Shape nShape { N };
    const float* bias = contrib::optionalFloats(ctx, biasInput, biasBuf, "bias", &nShape);
    Shape outShape = a.shape();
    if (a.rank() == 1)
        outShape = { N };
    else
        outShape.back() = N;
    std::vector<float> y(static_cast<size_t>(batches * M * N));
    for (int64_t t = 0; t < batches; ++t) {
        const int32_t* bt = qb.data() + (batchedB ? t * K * N : 0);
        for (int64_t m = 0; m < M; ++m) {
            const int32_t* ar = qa.data() + (t * M + m) * K;
            for (int64_t n = 0; n < N; ++n) {
                const int32_t zb = static_cast<int32_t>(bZero[static_cast<size_t>(n)]);
                int64_t acc = 0;
                for (int64_t k = 0; k < K; ++k)
                    acc += int64_t(ar[k] - aZero) * (bt[k * N + n] - zb);
                const float scale = static_cast<float>(aScale) * static_cast<float>(bScale[static_cast<size_t>(n)]);
                y[static_cast<size_t>((t * M + m) * N + n)] = static_cast<float>(acc) * scale + (bias ? bias[n] : 0.0f);
            }
        }
    }
    contrib::storeOutput(ctx, 0, outType, outShape, y.data());
}

/// MatMulIntegerToFloat (com.microsoft 1): Y = (A - a_zero_point)·(B - b_zero_point) · a_scale · b_scale (+ bias),
/// A and B int8 or uint8, a_scale a scalar, b_scale and b_zero_point a scalar or per column of B; Y has a_scale's
/// type (float or float16).
class MatMulIntegerToFloat final : public Kernel {
public:
    explicit MatMulIntegerToFloat(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& aScale = ctx.input(2);
        if (aScale.size() != 1)
            throw ctx.error("a_scale must be a scalar (per-tensor), got " + shapeToString(aScale.shape()));
        int32_t aZero = 0;
        if (ctx.hasInput(4)) {
            const Tensor& z = ctx.input(4);
            if (z.size() != 1 || z.dtype() != a.dtype())
                throw ctx.error("a_zero_point must be a scalar of A's type, got " + z.typeString());
            aZero = static_cast<int32_t>(z.toDouble(0));
        }
        integerMatMul(ctx, a, integers(ctx, a, "A"), aZero, aScale.toDouble(0), 1, 3, 5, 6, aScale.dtype());
    }
};

/// DynamicQuantizeMatMul (com.microsoft 1): A (float) is quantized to uint8 per tensor as DynamicQuantizeLinear does
/// (range including 0, scale = range / 255, zero point and values rounded half to even), then multiplied as
/// MatMulIntegerToFloat with B (int8 or uint8), b_scale, b_zero_point and bias.
class DynamicQuantizeMatMul final : public Kernel {
public:
    explicit DynamicQuantizeMatMul(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        if (a.dtype() != DataType::Float)
            throw ctx.error("A must be float, got " + a.typeString());
        const float* av = a.data<float>().data();
        float lo = 0, hi = 0;
        for (int64_t i = 0; i < a.size(); ++i) {
            lo = std::min(lo, av[i]);
            hi = std::max(hi, av[i]);
        }
        const float scale = (hi - lo) / 255.0f;
        int32_t zero = 0;
        std::vector<int32_t> qa(static_cast<size_t>(a.size()), 0);
        if (scale != 0) {
            zero = static_cast<int32_t>(std::clamp(std::nearbyint(-lo / scale), 0.0f, 255.0f));
            for (int64_t i = 0; i < a.size(); ++i)
                qa[static_cast<size_t>(i)]
                    = static_cast<int32_t>(std::clamp(std::nearbyint(av[i] / scale) + zero, 0.0f, 255.0f));
        }
        integerMatMul(ctx, a, qa, zero, scale, 1, 2, 3, 4, DataType::Float);
    }
};

} // namespace

void registerQuantizedMatMuls(KernelRegistry& r)
{
    r.add("com.microsoft", "MatMulIntegerToFloat", 1, KernelRegistry::kLatest, makeFactory<MatMulIntegerToFloat>());
    r.add("com.microsoft", "DynamicQuantizeMatMul", 1, KernelRegistry::kLatest, makeFactory<DynamicQuantizeMatMul>());
}

} // namespace onnxscope
