// SPDX-License-Identifier: MIT
#include "engine/core/half.h"
#include "engine/kernels/kernel_registry.h"

#include <cstring>
#include <vector>

namespace onnxscope {

namespace {

/// The packed row formats of GatherPacked, by the packed_type IDs onnxruntime accepts (GGML's type numbers, the
/// published GGUF block layouts, little-endian): each block of `block` values takes `bytes` bytes.
enum PackedType : int64_t { F32 = 0, F16 = 1, Q4_0 = 2, Q5_0 = 6, Q8_0 = 8, IQ4_NL = 20, BF16 = 30 };

struct Format {
    int64_t block, bytes;
};

bool formatOf(int64_t type, Format& f)
{
    switch (type) {
    case F32:
        f = { 1, 4 };
        return true;
    case F16:
    case BF16:
        f = { 1, 2 };
        return true;
    case Q4_0:
    case IQ4_NL:
        f = { 32, 18 }; // float16 scale d, 16 bytes of 4-bit codes
        return true;
    case Q5_0:
        f = { 32, 22 }; // d, 32 high bits, 16 bytes of low 4-bit codes
        return true;
    case Q8_0:
        f = { 32, 34 }; // d, 32 int8 codes
        return true;
    default:
        return false;
    }
}

float half(const uint8_t* p)
{
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return static_cast<float>(Eigen::numext::bit_cast<Float16>(bits));
}

/// One packed row of K values dequantized to float.
void dequantizeRow(int64_t type, const uint8_t* row, int64_t K, float* out)
{
    // IQ4_NL's non-linear code book (GGML's kvalues_iq4nl).
    static constexpr int8_t kNonLinear[16]
        = { -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113 };
    switch (type) {
    case F32:
        std::memcpy(out, row, static_cast<size_t>(K) * 4);
        return;
    case F16:
        for (int64_t i = 0; i < K; ++i)
            out[i] = half(row + 2 * i);
        return;
    case BF16:
        for (int64_t i = 0; i < K; ++i) {
            uint16_t bits;
            std::memcpy(&bits, row + 2 * i, 2);
            out[i] = static_cast<float>(Eigen::numext::bit_cast<BFloat16>(bits));
        }
        return;
    default:
        break;
    }
    for (int64_t b = 0; b < K / 32; ++b, out += 32) {
        const float d = half(row);
        if (type == Q8_0) {
            for (int j = 0; j < 32; ++j)
                out[j] = d * static_cast<float>(static_cast<int8_t>(row[2 + j]));
            row += 34;
            continue;
        }
        // Q4_0, IQ4_NL, Q5_0: value j < 16 in the low nibble of byte j, value j + 16 in its high nibble.
        uint32_t high = 0;
        const uint8_t* codes = row + 2;
        if (type == Q5_0) {
            std::memcpy(&high, row + 2, 4);
            codes = row + 6;
        }
        for (int j = 0; j < 16; ++j) {
            int lo = codes[j] & 0x0F, hi = codes[j] >> 4;
            if (type == IQ4_NL) {
                out[j] = d * static_cast<float>(kNonLinear[lo]);
                out[j + 16] = d * static_cast<float>(kNonLinear[hi]);
                continue;
            }
            if (type == Q5_0) {
                lo |= static_cast<int>((high >> j) & 1u) << 4;
                hi |= static_cast<int>((high >> (j + 16)) & 1u) << 4;
            }
            const int offset = type == Q5_0 ? 16 : 8;
            out[j] = d * static_cast<float>(lo - offset);
            out[j + 16] = d * static_cast<float>(hi - offset);
        }
        row += type == Q5_0 ? 22 : 18;
    }
}

/// GatherPacked (com.microsoft 1): rows of a 2-D packed embedding table data [vocab, row_bytes] (uint8) gathered by
/// indices (int32 or int64, any rank) and dequantized: output [..., K] of output_dtype (1 float, 10 float16, 16
/// bfloat16, the default). packed_type (required): 0 float32, 1 float16, 30 bfloat16, 2 Q4_0, 6 Q5_0, 8 Q8_0,
/// 20 IQ4_NL (blocks of 32 with a float16 scale, GGUF's layouts); K (required) a positive multiple of the block.
/// As the schema says, a negative index or one >= vocab selects row 0. row_bytes must be the format's for K.
class GatherPacked final : public Kernel {
public:
    explicit GatherPacked(const KernelInit& init)
        : m_type(init.attributes().requireInt("packed_type"))
        , m_k(init.attributes().requireInt("K"))
    {
        if (!formatOf(m_type, m_format))
            throw init.attributes().error("packed_type",
                "must be 0 (float32), 1 (float16), 30 (bfloat16), 2 (Q4_0), "
                "6 (Q5_0), 8 (Q8_0) or 20 (IQ4_NL), got "
                    + std::to_string(m_type));
        if (m_k <= 0 || m_k % m_format.block != 0)
            throw init.attributes().error("K",
                "must be a positive multiple of " + std::to_string(m_format.block) + ", got " + std::to_string(m_k));
        const int64_t od = init.attributes().getInt("output_dtype", 16);
        if (od == 1)
            m_out = DataType::Float;
        else if (od == 10)
            m_out = DataType::Float16;
        else if (od == 16)
            m_out = DataType::BFloat16;
        else
            throw init.attributes().error(
                "output_dtype", "must be 1 (float), 10 (float16) or 16 (bfloat16), got " + std::to_string(od));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const Tensor& indices = ctx.input(1);
        const int64_t rowBytes = m_k / m_format.block * m_format.bytes;
        if (data.dtype() != DataType::UInt8 || data.rank() != 2 || data.dim(1) != rowBytes)
            throw ctx.error("data must be uint8 [vocab, " + std::to_string(rowBytes) + "] (K = " + std::to_string(m_k)
                + " in packed_type " + std::to_string(m_type) + "), got " + data.typeString());
        if (data.dim(0) < 1)
            throw ctx.error("data has no rows");
        if (indices.dtype() != DataType::Int32 && indices.dtype() != DataType::Int64)
            throw ctx.error("indices must be int32 or int64, got " + indices.typeString());
        Shape shape = indices.shape();
        shape.push_back(m_k);
        Tensor& y = ctx.allocateOutputUninitialized(0, m_out, shape);
        const int64_t n = indices.size(), vocab = data.dim(0);
        const auto* table = static_cast<const uint8_t*>(data.raw());
        std::vector<float> row(static_cast<size_t>(m_k));
        for (int64_t i = 0; i < n; ++i) {
            int64_t id = indices.dtype() == DataType::Int32 ? indices.data<int32_t>()[static_cast<size_t>(i)]
                                                            : indices.data<int64_t>()[static_cast<size_t>(i)];
            if (id < 0 || id >= vocab)
                id = 0;
            dequantizeRow(m_type, table + id * rowBytes, m_k, row.data());
            for (int64_t j = 0; j < m_k; ++j) {
                const size_t at = static_cast<size_t>(i * m_k + j);
                if (m_out == DataType::Float)
                    y.data<float>()[at] = row[static_cast<size_t>(j)];
                else if (m_out == DataType::Float16)
                    y.data<Float16>()[at] = static_cast<Float16>(row[static_cast<size_t>(j)]);
                else
                    y.data<BFloat16>()[at] = static_cast<BFloat16>(row[static_cast<size_t>(j)]);
            }
        }
    }

private:
    int64_t m_type, m_k;
    Format m_format {};
    DataType m_out = DataType::BFloat16;
};

} // namespace

void registerGatherPacked(KernelRegistry& r)
{
    r.add("com.microsoft", "GatherPacked", 1, KernelRegistry::kLatest, makeFactory<GatherPacked>());
}

} // namespace onnxscope
