// SPDX-License-Identifier: MIT
#include "engine/kernels/tensor/cast_options.h"

#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cctype>

namespace onnxscope {

CastOptions castOptions(const KernelInit& init)
{
    CastOptions o;
    const auto& a = init.attributes();
    if (init.opset() >= 19)
        o.saturate = a.getInt("saturate", 1) != 0;
    if (init.opset() >= 24) {
        const std::string mode = a.getString("round_mode", "up");
        if (mode == "up")
            o.round = E8M0Rounding::Up;
        else if (mode == "down")
            o.round = E8M0Rounding::Down;
        else if (mode == "nearest")
            o.round = E8M0Rounding::Nearest;
        else
            throw a.error("round_mode", "\"" + mode + "\" is not one of up, down, nearest");
    }
    return o;
}

namespace {

/// Cast 1 (`to` is a type name such as "FLOAT"), 6, 9, 13 (`to` is a TensorProto data type), 19 (float8 types,
/// `saturate`), 21 (int4/uint4), 23 (float4e2m1), 24 (float8e8m0, `round_mode`), 25 (int2/uint2), 28 (float6*):
/// every numeric type, bool and string, in both directions; complex types are refused. The conversions are
/// castTensor()'s (core/cast.h, shared with CastLike): numpy's astype (ml_dtypes' for the narrow types), which
/// generated ONNX's test data, with round-to-nearest-even to float16/bfloat16/float8, numpy str() formatting to
/// string, and saturation for float -> integer.
class Cast final : public Kernel {
public:
    explicit Cast(const KernelInit& init)
    {
        if (init.opset() < 6) {
            const std::string to = init.attributes().requireString("to");
            std::string name = to;
            std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
            m_to = dataTypeFromName(name);
            if (m_to == DataType::Undefined)
                throw init.error("attribute 'to': unknown type \"" + to + "\"");
        } else {
            const int64_t to = init.attributes().requireInt("to");
            m_to = dataTypeFromOnnx(static_cast<int32_t>(std::clamp<int64_t>(to, -1, 1000)));
            if (m_to == DataType::Undefined)
                throw init.error("attribute 'to': " + std::to_string(to) + " is not a tensor element type");
        }
        if (isComplex(m_to))
            throw init.error("attribute 'to': casting to " + std::string(dataTypeName(m_to)) + " is not supported");
        m_options = castOptions(init);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        try {
            ctx.setOutput(0, Value(castTensor(x, m_to, m_options)));
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
    }

private:
    DataType m_to = DataType::Undefined;
    CastOptions m_options;
};

} // namespace

void registerCast(KernelRegistry& r)
{
    r.add("", "Cast", 1, 28, makeFactory<Cast>());
}

} // namespace onnxscope
