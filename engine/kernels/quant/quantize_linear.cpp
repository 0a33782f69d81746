// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/quant_common.h"

namespace onnxscope {

namespace {

/// QuantizeLinear 10 (per tensor), 13+ (per axis, `axis` default 1): y = saturate(round_half_even(x / y_scale) +
/// y_zero_point). x: float, double, float16, bfloat16 or int32; y: the zero point's type (uint8 when absent, or
/// opset 21's output_dtype), uint8, int8, uint16 or int16. Float inputs divide in float, as numpy and onnxruntime
/// do, so ties round alike. Deviation: float8/int4 outputs and opset 21's blocked quantization are refused.
class QuantizeLinear final : public Kernel {
public:
    explicit QuantizeLinear(const KernelInit& init)
        : m_opset(init.opset())
    {
        const auto& a = init.attributes();
        m_axis = m_opset >= 13 ? a.getInt("axis", 1) : 1;
        if (a.getInt("block_size", 0) != 0)
            throw a.error("block_size", "blocked quantization is not supported yet");
        const int64_t outType = a.getInt("output_dtype", 0);
        if (outType != 0) {
            m_outType = dataTypeFromOnnx(static_cast<int32_t>(outType));
            if (m_outType != DataType::UInt8 && m_outType != DataType::Int8 && m_outType != DataType::UInt16
                && m_outType != DataType::Int16)
                throw a.error("output_dtype", "type " + std::to_string(outType) + " is not supported");
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
        const QuantAxis q = quantAxis(ctx, x, scale, zp, m_axis);
        const auto scales = floatValues(ctx, scale, "y_scale");
        const auto zeros = zp ? integerValues(ctx, *zp, "y_zero_point") : std::vector<int64_t>(scales.size(), 0);
        Tensor& y = ctx.allocateOutput(0, outType, x.shape());
        dispatch<TypeList<uint8_t, int8_t, uint16_t, int16_t>>(outType, ctx.node(), ": output", [&]<class Q>() {
            auto dst = y.data<Q>();
            dispatch<TypeList<float, double, Float16, BFloat16, int32_t>>(x.dtype(), ctx.node(), ": x", [&]<class T>() {
                auto src = x.data<T>();
                for (int64_t i = 0; i < x.size(); ++i) {
                    const size_t p = static_cast<size_t>(q.index(i));
                    const double z = static_cast<double>(zeros[p]);
                    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
                        const double v = static_cast<double>(src[static_cast<size_t>(i)]) / scales[p];
                        dst[static_cast<size_t>(i)] = saturateRound<Q>(std::nearbyint(v) + z);
                    } else {
                        const float v = static_cast<float>(src[static_cast<size_t>(i)]) / static_cast<float>(scales[p]);
                        dst[static_cast<size_t>(i)] = saturateRound<Q>(static_cast<double>(std::nearbyint(v)) + z);
                    }
                }
            });
        });
    }

private:
    int64_t m_opset;
    int64_t m_axis = 1;
    DataType m_outType = DataType::Undefined;
};

/// DequantizeLinear 10 (per tensor), 13+ (per axis): y = (x - x_zero_point) * x_scale. x: int8, uint8, int16,
/// uint16 or int32 (whose zero point must be 0); y: the scale's type (float before opset 19; float, float16 or
/// bfloat16 after). The subtraction is exact (int64), the product in the scale's precision.
class DequantizeLinear final : public Kernel {
public:
    explicit DequantizeLinear(const KernelInit& init)
        : m_opset(init.opset())
    {
        const auto& a = init.attributes();
        m_axis = m_opset >= 13 ? a.getInt("axis", 1) : 1;
        if (a.getInt("block_size", 0) != 0)
            throw a.error("block_size", "blocked quantization is not supported yet");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& scale = ctx.input(1);
        const Tensor* zp = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
        if (zp && zp->dtype() != x.dtype())
            throw ctx.error("x_zero_point is " + zp->typeString() + " but x is " + x.typeString());
        const QuantAxis q = quantAxis(ctx, x, scale, zp, m_axis);
        const auto zeros = zp ? integerValues(ctx, *zp, "x_zero_point") : std::vector<int64_t>(scale.size(), 0);
        if (x.dtype() == DataType::Int32)
            for (int64_t z : zeros)
                if (z != 0)
                    throw ctx.error("an int32 input needs a zero point of 0, got " + std::to_string(z));
        const auto xs = integerValues(ctx, x, "x");
        Tensor& y = ctx.allocateOutput(0, scale.dtype(), x.shape());
        dispatch<FloatTypes>(scale.dtype(), ctx.node(), ": x_scale", [&]<class S>() {
            auto sc = scale.data<S>();
            auto dst = y.data<S>();
            using Acc = std::conditional_t<std::is_same_v<S, double>, double, float>;
            for (int64_t i = 0; i < x.size(); ++i) {
                const size_t p = static_cast<size_t>(q.index(i));
                const Acc d = static_cast<Acc>(xs[static_cast<size_t>(i)] - zeros[p]);
                dst[static_cast<size_t>(i)] = static_cast<S>(d * static_cast<Acc>(sc[p]));
            }
        });
    }

private:
    int64_t m_opset;
    int64_t m_axis = 1;
};

} // namespace

void registerQuantizeLinear(KernelRegistry& r)
{
    r.add("", "QuantizeLinear", 10, 19, makeFactory<QuantizeLinear>());
    r.add("", "DequantizeLinear", 10, 19, makeFactory<DequantizeLinear>());
}

} // namespace onnxscope
