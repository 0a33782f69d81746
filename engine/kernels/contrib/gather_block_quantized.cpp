// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include "engine/core/narrow_types.h"

#include <vector>

namespace onnxscope {

namespace {

/// GatherBlockQuantized (com.microsoft 1): Gather along gather_axis of data quantized block-wise along quantize_axis,
/// dequantized as (q - zero_point) * scale with the block's scale and zero point (scales and zero_points have data's
/// shape with the quantize axis divided by block_size). data int4 or uint4 (zero point default 0), uint8 holding
/// `bits` = 2, 4 or 8 bit codes packed along the last axis, lowest bits first (zero point default 2^(bits-1), packed
/// like data; gather_axis 0), or float8/float4 (no zero point; block_size 0 = the whole axis; scale dimensions of 1
/// broadcast). Indices int32/int64, negative ones counted from the end; an index out of range gives zeros. Output
/// has scales' element type (float, float16, bfloat16).
class GatherBlockQuantized final : public Kernel {
public:
    explicit GatherBlockQuantized(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_bits = a.getInt("bits", 4);
        m_blockSize = a.getInt("block_size", 128);
        m_gatherAxis = a.getInt("gather_axis", 0);
        m_quantizeAxis = a.getInt("quantize_axis", 1);
        if (m_bits != 2 && m_bits != 4 && m_bits != 8)
            throw a.error("bits", "supported values are 2, 4 and 8, got " + std::to_string(m_bits));
        if (m_blockSize < 0 || (m_blockSize && (m_blockSize < 16 || (m_blockSize & (m_blockSize - 1)))))
            throw a.error("block_size",
                "must be a power of two of at least 16 (or 0 for float8/float4 data), got "
                    + std::to_string(m_blockSize));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const Tensor& indices = ctx.input(1);
        const Tensor& scales = ctx.input(2);
        const DataType dt = data.dtype();
        const bool packedBytes = dt == DataType::UInt8;
        const bool floating = isNarrow(dt) && dt != DataType::Int4 && dt != DataType::UInt4;
        if (!packedBytes && dt != DataType::Int4 && dt != DataType::UInt4 && !floating)
            throw ctx.error("data must be int4, uint4, uint8, float8 or float4, got " + data.typeString());
        const int64_t r = data.rank();
        if (r < 1 || scales.rank() != r)
            throw ctx.error("data and scales must have one rank of at least 1, got " + data.typeString() + " and "
                + scales.typeString());
        const int64_t g = m_gatherAxis < 0 ? m_gatherAxis + r : m_gatherAxis;
        const int64_t qa = m_quantizeAxis < 0 ? m_quantizeAxis + r : m_quantizeAxis;
        if (g < 0 || g >= r)
            throw ctx.error("gather_axis " + std::to_string(m_gatherAxis) + " is outside data's rank");
        if (qa < 0 || qa >= r)
            throw ctx.error("quantize_axis " + std::to_string(m_quantizeAxis) + " is outside data's rank");
        const int64_t perByte = packedBytes ? 8 / m_bits : 1;
        if (packedBytes && g != 0)
            throw ctx.error("uint8 data needs gather_axis 0, got " + std::to_string(m_gatherAxis));
        if (packedBytes && perByte > 1 && g == qa)
            throw ctx.error(
                "uint8 data of " + std::to_string(m_bits) + " bits needs gather_axis and quantize_axis " + "to differ");
        if (floating && ctx.hasInput(3))
            throw ctx.error("zero_points must not be given with " + std::string(dataTypeName(dt)) + " data");
        if (!floating && m_blockSize == 0)
            throw ctx.error("block_size 0 is only valid for float8/float4 data");
        Shape logical = data.shape();
        logical.back() *= perByte;
        const int64_t block = m_blockSize ? m_blockSize : logical[static_cast<size_t>(qa)];
        for (int64_t d = 0; d < r; ++d) {
            const int64_t want
                = d == qa ? (logical[static_cast<size_t>(d)] + block - 1) / block : logical[static_cast<size_t>(d)];
            if (scales.dim(d) != want && !(floating && d != qa && scales.dim(d) == 1))
                throw ctx.error("scales " + shapeToString(scales.shape()) + " do not fit data of logical shape "
                    + shapeToString(logical) + " in blocks of " + std::to_string(block));
        }
        std::vector<float> sb;
        const float* sc = contrib::floats(ctx, scales, sb, "scales");
        const Tensor* zp = ctx.hasInput(3) ? &ctx.input(3) : nullptr;
        if (zp && zp->dtype() != dt)
            throw ctx.error("zero_points must have data's type, got " + zp->typeString());
        if (indices.dtype() != DataType::Int32 && indices.dtype() != DataType::Int64)
            throw ctx.error("indices must be int32 or int64, got " + indices.typeString());

        const int64_t axisLen = logical[static_cast<size_t>(g)];
        Shape outShape(logical.begin(), logical.begin() + g);
        outShape.insert(outShape.end(), indices.shape().begin(), indices.shape().end());
        outShape.insert(outShape.end(), logical.begin() + g + 1, logical.end());
        const int64_t outer = elementCount(Shape(logical.begin(), logical.begin() + g));
        const int64_t inner = elementCount(Shape(logical.begin() + g + 1, logical.end()));
        const auto logicalStrides = stridesOf(logical);
        const auto scaleStrides = stridesOf(scales.shape());
        const int64_t lastLogical = logical.back();
        const int64_t lastScales = scales.shape().back();
        const int64_t zpRowBytes = (lastScales + perByte - 1) / perByte;
        const int64_t defaultZero = packedBytes ? (int64_t(1) << (m_bits - 1)) : 0;
        const uint8_t* raw = static_cast<const uint8_t*>(data.raw());

        // Code of the logical element at flat index i.
        auto code = [&](int64_t i) -> double {
            if (!packedBytes)
                return data.toDouble(i);
            const int64_t row = i / lastLogical, col = i % lastLogical;
            const uint8_t byte = raw[row * data.shape().back() + col / perByte];
            return static_cast<double>((byte >> ((col % perByte) * m_bits)) & ((1 << m_bits) - 1));
        };
        auto zeroAt = [&](int64_t scaleIndex) -> double {
            if (!zp)
                return static_cast<double>(defaultZero);
            if (!packedBytes)
                return zp->toDouble(scaleIndex);
            const int64_t row = scaleIndex / lastScales, col = scaleIndex % lastScales;
            const uint8_t byte = static_cast<const uint8_t*>(zp->raw())[row * zpRowBytes + col / perByte];
            return static_cast<double>((byte >> ((col % perByte) * m_bits)) & ((1 << m_bits) - 1));
        };
        if (zp && packedBytes
            && zp->size() != elementCount(Shape(scales.shape().begin(), scales.shape().end() - 1)) * zpRowBytes)
            throw ctx.error("zero_points " + shapeToString(zp->shape()) + " do not fit scales "
                + shapeToString(scales.shape()) + " packed " + std::to_string(perByte) + " to a byte");
        if (zp && !packedBytes && zp->shape() != scales.shape())
            throw ctx.error("zero_points must have scales' shape " + shapeToString(scales.shape()));

        std::vector<float> out(static_cast<size_t>(elementCount(outShape)), 0.0f);
        const int64_t count = indices.size();
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t n = 0; n < count; ++n) {
                int64_t idx = indices.dtype() == DataType::Int32 ? indices.data<int32_t>()[static_cast<size_t>(n)]
                                                                 : indices.data<int64_t>()[static_cast<size_t>(n)];
                if (idx < 0)
                    idx += axisLen;
                if (idx < 0 || idx >= axisLen)
                    continue; // zeros
                for (int64_t i = 0; i < inner; ++i) {
                    const int64_t flat = (o * axisLen + idx) * inner + i;
                    int64_t rem = flat, scaleIndex = 0;
                    for (int64_t d = 0; d < r; ++d) {
                        int64_t c = rem / logicalStrides[static_cast<size_t>(d)];
                        rem %= logicalStrides[static_cast<size_t>(d)];
                        if (d == qa)
                            c /= block;
                        if (scales.dim(d) == 1)
                            c = 0;
                        scaleIndex += c * scaleStrides[static_cast<size_t>(d)];
                    }
                    out[static_cast<size_t>((o * count + n) * inner + i)]
                        = static_cast<float>((code(flat) - zeroAt(scaleIndex)) * sc[scaleIndex]);
                }
            }
        contrib::storeOutput(ctx, 0, scales.dtype(), outShape, out.data());
    }

private:
    int64_t m_bits = 4, m_blockSize = 128, m_gatherAxis = 0, m_quantizeAxis = 1;
};

} // namespace

void registerGatherBlockQuantized(KernelRegistry& r)
{
    r.add("com.microsoft", "GatherBlockQuantized", 1, KernelRegistry::kLatest, makeFactory<GatherBlockQuantized>());
}

} // namespace onnxscope
