// SPDX-License-Identifier: MIT
#include "engine/core/cast.h"
#include "engine/core/narrow_types.h"
#include "engine/core/thread_pool.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/quant_common.h"
#include "engine/kernels/simd/simd.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace onnxscope {

namespace {

/// Where the scale / zero point of element i of x is: per tensor, per axis (1-D, one per element of x's `axis`) or
/// blocked (opset 21: x's rank, x's shape but ceil(dim / block_size) along `axis`).
struct QuantLayout {
    int64_t inner = 1; // elements after the axis
    int64_t axisDim = 1; // x's size along the axis
    int64_t scaleAxisDim = 1; // the scale's
    int64_t block = 0; // 0: per tensor or per axis
    bool perTensor = true;

    int64_t index(int64_t i) const
    {
        if (perTensor)
            return 0;
        const int64_t a = (i / inner) % axisDim;
        if (block == 0)
            return a;
        const int64_t outer = i / (inner * axisDim);
        return (outer * scaleAxisDim + a / block) * inner + i % inner;
    }
};

QuantLayout quantLayout(const KernelContext& ctx, const Tensor& x, const Tensor& scale, const Tensor* zeroPoint,
    int64_t axis, int64_t block)
{
    if (zeroPoint && zeroPoint->shape() != scale.shape() && !(zeroPoint->size() == 1 && scale.size() == 1))
        throw ctx.error("zero point " + zeroPoint->typeString() + " does not match scale " + scale.typeString());
    QuantLayout q;
    if (scale.size() == 1 && (scale.rank() <= 1 || block == 0))
        return q;
    int64_t a;
    try {
        a = normalizeAxis(axis, x.rank());
    } catch (const Error& e) {
        throw ctx.error(std::string("attribute 'axis': ") + e.what());
    }
    q.perTensor = false;
    q.axisDim = x.dim(a);
    for (int64_t d = a + 1; d < x.rank(); ++d)
        q.inner *= x.dim(d);
    if (block == 0) {
        if (scale.rank() != 1)
            throw ctx.error("scale must be a scalar or 1-D without block_size, got " + scale.typeString());
        if (scale.dim(0) != x.dim(a))
            throw ctx.error("per-axis scale " + scale.typeString() + " does not match axis " + std::to_string(a)
                + " of " + x.typeString());
        q.scaleAxisDim = q.axisDim;
        return q;
    }
    if (block < 0)
        throw ctx.error("attribute 'block_size' must be positive, got " + std::to_string(block));
    bool ok = scale.rank() == x.rank();
    for (int64_t d = 0; ok && d < x.rank(); ++d)
        ok = d == a ? scale.dim(d) == (x.dim(d) + block - 1) / block : scale.dim(d) == x.dim(d);
    if (!ok)
        throw ctx.error("blocked scale " + scale.typeString() + " does not fit " + x.typeString() + " with block_size "
            + std::to_string(block) + " along axis " + std::to_string(a));
    q.block = block;
    q.scaleAxisDim = scale.dim(a);
    return q;
}

/// The elements of `t` (any numeric type) as doubles, exactly.
std::vector<double> doubleValues(const KernelContext& ctx, const Tensor& t, const char* what)
{
    if (isComplex(t.dtype()) || t.dtype() == DataType::String)
        throw ctx.error(
            std::string(what) + ": element type " + std::string(dataTypeName(t.dtype())) + " is not supported");
    const Tensor d = castTensor(t, DataType::Double);
    auto s = d.data<double>();
    return { s.begin(), s.end() };
}

/// `v` rounded to the floating type `type` (float, double, float16, bfloat16), back as a double.
double roundTo(DataType type, double v)
{
    switch (type) {
    case DataType::Double:
        return v;
    case DataType::Float16:
        return static_cast<double>(static_cast<float>(Float16(roundToOddFloat(v))));
    case DataType::BFloat16:
        return static_cast<double>(static_cast<float>(BFloat16(roundToOddFloat(v))));
    default:
        return static_cast<double>(static_cast<float>(v));
    }
}

/// The type numpy computes a / b in for these operand types (ml_dtypes' halves divide in their own type).
DataType divisionType(DataType a, DataType b)
{
    if (a == DataType::Double || b == DataType::Double || a == DataType::Int32 || b == DataType::Int32)
        return DataType::Double;
    if (a == b && (a == DataType::Float16 || a == DataType::BFloat16))
        return a;
    return DataType::Float;
}

bool isQuantizedType(DataType t)
{
    return t == DataType::UInt8 || t == DataType::Int8 || t == DataType::UInt16 || t == DataType::Int16
        || (isNarrow(t) && t != DataType::Float8E8M0);
}

/// Runs f(begin, end, p) over the runs of x's elements that share parameter p (per tensor or per axis, no blocks),
/// blocks of them split over the pool.
template <class F> void forEachParameterRun(ThreadPool* pool, const QuantLayout& q, int64_t n, F&& f)
{
    if (q.perTensor) {
        parallelFor(pool, n, simd::kGrainElements, [&](int64_t b, int64_t e) { f(b, e, size_t(0)); });
        return;
    }
    const int64_t inner = std::max<int64_t>(1, q.inner), runs = (n + inner - 1) / inner;
    parallelFor(pool, runs, std::max<int64_t>(1, simd::kGrainElements / inner), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r)
            f(r * inner, std::min(n, (r + 1) * inner), static_cast<size_t>(r % q.axisDim));
    });
}

/// QuantizeLinear's common case without doubles: float x and scales, uint8/int8 y. The same numbers as the general
/// loop: the quotient x / scale in float, rounded half to even (by the 1.5 * 2^23 addition, exact once the quotient
/// is clamped to the output range less the zero point, whose bounds are integers), NaN to 0.
template <class Q>
void quantizeFloatBytes(
    ThreadPool* pool, const float* x, int64_t n, const QuantLayout& q, const float* scales, const Q* zeros, Q* y)
{
    forEachParameterRun(pool, q, n, [&](int64_t b, int64_t e, size_t p) {
        const float s = scales[p];
        const int32_t z = zeros ? int32_t(zeros[p]) : 0;
        const float lo = float(int32_t(std::numeric_limits<Q>::lowest()) - z);
        const float hi = float(int32_t(std::numeric_limits<Q>::max()) - z);
        constexpr float kRound = 12582912.0f; // 1.5 * 2^23
        constexpr int64_t kBlock = 256;
        int32_t q[kBlock]; // in blocks, so that both loops vectorize
        for (int64_t i0 = b; i0 < e; i0 += kBlock) {
            const int64_t m = std::min(kBlock, e - i0);
            for (int64_t j = 0; j < m; ++j) {
                const float v = x[i0 + j] / s;
                float c = v > lo ? v : lo;
                c = c < hi ? c : hi;
                const int32_t r = static_cast<int32_t>((c + kRound) - kRound) + z;
                q[j] = v != v ? 0 : r;
            }
            for (int64_t j = 0; j < m; ++j)
                y[i0 + j] = static_cast<Q>(q[j]);
        }
    });
}

/// DequantizeLinear's common case: uint8/int8 x, float scales and y: y = float(x - zero) * scale, as the general
/// loop computes it (the product of two floats rounded once).
template <class Q>
void dequantizeBytesFloat(
    ThreadPool* pool, const Q* x, int64_t n, const QuantLayout& q, const float* scales, const Q* zeros, float* y)
{
    forEachParameterRun(pool, q, n, [&](int64_t b, int64_t e, size_t p) {
        const float s = scales[p];
        const int32_t z = zeros ? int32_t(zeros[p]) : 0;
        for (int64_t i = b; i < e; ++i)
            y[i] = static_cast<float>(int32_t(x[i]) - z) * s;
    });
}

/// QuantizeLinear 10 (per tensor), 13 (per axis, `axis` default 1), 19 (float8 outputs, `saturate`), 21 (blocked
/// quantization `block_size`, `output_dtype`, int4/uint4, int16/uint16), 23 (float4e2m1, `precision`), 25
/// (int2/uint2), 28 (float6*). y's type: the zero point's (uint8 when absent, or output_dtype).
/// Integer outputs: y = saturate(round_half_even(x / y_scale) + y_zero_point). Float outputs (float8, float4, float6):
/// y = x / y_scale (+ the zero point for float4/float6, which must be 0 for float8) rounded to nearest even, with
/// `saturate`'s overflow rules for float8 (float4/float6 always saturate). x / y_scale is computed as numpy does in
/// onnx's reference: in `precision`'s type if set, else float (double if x is double or int32; float16 or bfloat16
/// if both operands are).
class QuantizeLinear final : public Kernel {
public:
    /// `opset`: the default-domain version whose attributes apply (com.microsoft QuantizeLinear 1 reads as 13).
    QuantizeLinear(const KernelInit& init, int64_t opset)
        : m_opset(opset)
    {
        const auto& a = init.attributes();
        m_axis = m_opset >= 13 ? a.getInt("axis", 1) : 1;
        if (m_opset >= 19)
            m_saturate = a.getInt("saturate", 1) != 0;
        if (m_opset >= 21) {
            m_block = a.getInt("block_size", 0);
            const int64_t outType = a.getInt("output_dtype", 0);
            if (outType != 0) {
                m_outType = dataTypeFromOnnx(static_cast<int32_t>(std::clamp<int64_t>(outType, -1, 1000)));
                if (!isQuantizedType(m_outType))
                    throw a.error("output_dtype", "type " + std::to_string(outType) + " is not a quantized type");
            }
        }
        if (m_opset >= 23) {
            const int64_t p = a.getInt("precision", 0);
            if (p != 0) {
                m_precision = dataTypeFromOnnx(static_cast<int32_t>(std::clamp<int64_t>(p, -1, 1000)));
                if (!isFloatingPoint(m_precision))
                    throw a.error("precision", "type " + std::to_string(p) + " is not float, double or a half type");
            }
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& scale = ctx.input(1);
        const Tensor* zp = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
        const DataType outType = zp ? zp->dtype() : (m_outType != DataType::Undefined ? m_outType : DataType::UInt8);
        if (zp && m_outType != DataType::Undefined && zp->dtype() != m_outType)
            throw ctx.error("y_zero_point is " + zp->typeString() + " but output_dtype asks for "
                + std::string(dataTypeName(m_outType)));
        if (!isQuantizedType(outType))
            throw ctx.error("cannot quantize to " + std::string(dataTypeName(outType)));
        if (!isFloatingPoint(x.dtype()) && x.dtype() != DataType::Int32)
            throw ctx.error("x must be float, double, float16, bfloat16 or int32, got " + x.typeString());
        const QuantLayout q = quantLayout(ctx, x, scale, zp, m_axis, m_block);
        if (x.dtype() == DataType::Float && scale.dtype() == DataType::Float && q.block == 0
            && (outType == DataType::UInt8 || outType == DataType::Int8)
            && (m_precision == DataType::Undefined || m_precision == DataType::Float)) {
            Tensor& y = ctx.allocateOutputUninitialized(0, outType, x.shape()); // every element written
            dispatch<TypeList<uint8_t, int8_t>>(outType, ctx.node(), [&]<class Q>() {
                quantizeFloatBytes<Q>(ctx.threadPool(), x.data<float>().data(), x.size(), q, scale.data<float>().data(),
                    zp ? zp->data<Q>().data() : nullptr, y.data<Q>().data());
            });
            return;
        }
        const auto xs = doubleValues(ctx, x, "x");
        const auto scales = doubleValues(ctx, scale, "y_scale");
        const auto zeros = zp ? doubleValues(ctx, *zp, "y_zero_point") : std::vector<double>(scales.size(), 0.0);
        const DataType div = m_precision != DataType::Undefined ? m_precision : divisionType(x.dtype(), scale.dtype());
        auto quotient = [&](int64_t i, size_t p) {
            const double a = roundTo(div, xs[static_cast<size_t>(i)]), b = roundTo(div, scales[p]);
            return roundTo(div, a / b);
        };
        Tensor& y = ctx.allocateOutput(0, outType, x.shape());
        if (isNarrow(outType)) {
            auto* dst = static_cast<uint8_t*>(y.mutableRaw());
            const double lo = narrowLowest(outType), hi = narrowMax(outType);
            for (int64_t i = 0; i < x.size(); ++i) {
                const size_t p = static_cast<size_t>(q.index(i));
                const double v = quotient(i, p);
                if (isNarrowInteger(outType)) {
                    const double r = std::isnan(v) ? 0.0 : std::clamp(std::nearbyint(v) + zeros[p], lo, hi);
                    dst[i] = narrowFromInteger(outType, static_cast<int64_t>(r));
                } else if (outType == DataType::Float4E2M1 || outType == DataType::Float6E2M3
                    || outType == DataType::Float6E3M2) {
                    dst[i] = narrowFromDouble(outType, roundTo(div, v + zeros[p]), true);
                } else {
                    dst[i] = narrowFromDouble(outType, v, m_saturate);
                }
            }
            return;
        }
        dispatch<TypeList<uint8_t, int8_t, uint16_t, int16_t>>(outType, ctx.node(), ": output", [&]<class Q>() {
            auto dst = y.data<Q>();
            for (int64_t i = 0; i < x.size(); ++i) {
                const size_t p = static_cast<size_t>(q.index(i));
                dst[static_cast<size_t>(i)] = saturateRound<Q>(std::nearbyint(quotient(i, p)) + zeros[p]);
            }
        });
    }

private:
    int64_t m_opset;
    int64_t m_axis = 1;
    int64_t m_block = 0;
    bool m_saturate = true;
    DataType m_outType = DataType::Undefined;
    DataType m_precision = DataType::Undefined;
};

/// DequantizeLinear 10 (per tensor), 13 (per axis), 19 (float8 x, float16/bfloat16 scales), 21 (blocked
/// `block_size`, int4/uint4, int16/uint16), 23 (float4e2m1, `output_dtype`), 24 (float8e8m0 scales), 25 (int2/uint2),
/// 28 (float6*): y = (x - x_zero_point) * x_scale, in y's type: output_dtype if set, else the scale's. The
/// subtraction is exact, the product in the scale's precision (float for the half and e8m0 scales), as numpy does in
/// onnx's reference. int32 x needs a zero point of 0, and so do float8 x (whose zero point is ignored); a float4e2m1
/// zero point is ignored.
class DequantizeLinear final : public Kernel {
public:
    /// `opset`: the default-domain version whose attributes apply (com.microsoft DequantizeLinear 1 reads as 13).
    DequantizeLinear(const KernelInit& init, int64_t opset)
        : m_opset(opset)
    {
        const auto& a = init.attributes();
        m_axis = m_opset >= 13 ? a.getInt("axis", 1) : 1;
        if (m_opset >= 21)
            m_block = a.getInt("block_size", 0);
        if (m_opset >= 23) {
            const int64_t outType = a.getInt("output_dtype", 0);
            if (outType != 0) {
                m_outType = dataTypeFromOnnx(static_cast<int32_t>(std::clamp<int64_t>(outType, -1, 1000)));
                if (!isFloatingPoint(m_outType))
                    throw a.error("output_dtype", "type " + std::to_string(outType) + " is not a float type");
            }
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& scale = ctx.input(1);
        const Tensor* zp = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
        const DataType xt = x.dtype();
        if (!isQuantizedType(xt) && xt != DataType::Int32)
            throw ctx.error("cannot dequantize " + x.typeString());
        const bool zeroIgnored = isNarrowFloat(xt) && xt != DataType::Float4E2M1 && xt != DataType::Float6E2M3
            && xt != DataType::Float6E3M2;
        if (zp && zp->dtype() != xt)
            throw ctx.error("x_zero_point is " + zp->typeString() + " but x is " + x.typeString());
        if (!isFloatingPoint(scale.dtype()) && scale.dtype() != DataType::Float8E8M0)
            throw ctx.error("x_scale must be a float type, got " + scale.typeString());
        const QuantLayout q = quantLayout(ctx, x, scale, zp, m_axis, m_block);
        if ((xt == DataType::UInt8 || xt == DataType::Int8) && scale.dtype() == DataType::Float && q.block == 0
            && (m_outType == DataType::Undefined || m_outType == DataType::Float)) {
            Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, x.shape()); // every element written
            dispatch<TypeList<uint8_t, int8_t>>(xt, ctx.node(), [&]<class Q>() {
                dequantizeBytesFloat<Q>(ctx.threadPool(), x.data<Q>().data(), x.size(), q, scale.data<float>().data(),
                    zp ? zp->data<Q>().data() : nullptr, y.data<float>().data());
            });
            return;
        }
        auto zeros = zp ? doubleValues(ctx, *zp, "x_zero_point") : std::vector<double>(scale.size(), 0.0);
        if (xt == DataType::Int32 || zeroIgnored) {
            for (double z : zeros)
                if (z != 0)
                    throw ctx.error("a " + std::string(dataTypeName(xt)) + " input needs a zero point of 0, got "
                        + std::to_string(z));
            zeros.assign(zeros.size(), 0.0);
        }
        if (xt == DataType::Float4E2M1) // onnx's reference ignores a float4e2m1 zero point
            zeros.assign(zeros.size(), 0.0);
        const auto xs = doubleValues(ctx, x, "x");
        const auto scales = doubleValues(ctx, scale, "x_scale");
        const DataType acc = scale.dtype() == DataType::Double ? DataType::Double : DataType::Float;
        Tensor y(DataType::Double, x.shape());
        auto out = y.data<double>();
        for (int64_t i = 0; i < x.size(); ++i) {
            const size_t p = static_cast<size_t>(q.index(i));
            const double d = roundTo(acc, xs[static_cast<size_t>(i)] - zeros[p]);
            out[static_cast<size_t>(i)] = roundTo(acc, d * scales[p]);
        }
        const DataType outType = m_outType != DataType::Undefined ? m_outType : scale.dtype();
        ctx.setOutput(0, Value(castTensor(y, outType)));
    }

private:
    int64_t m_opset;
    int64_t m_axis = 1;
    int64_t m_block = 0;
    DataType m_outType = DataType::Undefined;
};

/// The kernel K reading its attributes as the node's opset does, or as `fixedOpset` when given.
template <class K> KernelFactory quantizeFactory(int64_t fixedOpset = 0)
{
    return [fixedOpset](const KernelInit& init) -> std::unique_ptr<Kernel> {
        return std::make_unique<K>(init, fixedOpset ? fixedOpset : init.opset());
    };
}

} // namespace

void registerQuantizeLinear(KernelRegistry& r)
{
    r.add("", "QuantizeLinear", 10, 28, quantizeFactory<QuantizeLinear>());
    r.add("", "DequantizeLinear", 10, 28, quantizeFactory<DequantizeLinear>());
}

/// com.microsoft QuantizeLinear and DequantizeLinear 1, as onnxruntime's quantizer writes them for 16-bit and 4-bit
/// types: the default domain's kernels with opset 13's attributes (`axis`, default 1, used only with a 1-D scale;
/// no block size). Types: x float or float16; y int8, uint8, int16, uint16, int4, uint4 (DequantizeLinear also
/// int32 x).
void registerContribQuantizeLinear(KernelRegistry& r)
{
    r.add("com.microsoft", "QuantizeLinear", 1, KernelRegistry::kLatest, quantizeFactory<QuantizeLinear>(13));
    r.add("com.microsoft", "DequantizeLinear", 1, KernelRegistry::kLatest, quantizeFactory<DequantizeLinear>(13));
}

} // namespace onnxscope
