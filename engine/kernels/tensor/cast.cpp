// SPDX-License-Identifier: MIT
#include "engine/core/cast.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cctype>

namespace onnxscope {

namespace {

/// Cast 1 (`to` is a type name such as "FLOAT"), 6, 9, 13 (`to` is a TensorProto data type): every numeric type,
/// bool and string, in both directions; complex types are refused. The conversions are castTensor()'s
/// (core/cast.h, shared with CastLike): numpy's astype, which generated ONNX's test data, with round-to-nearest-even
/// to float16/bfloat16, numpy str() formatting to string, and saturation for float -> integer.
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
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        try {
            ctx.setOutput(0, Value(castTensor(x, m_to)));
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
    }

private:
    DataType m_to = DataType::Undefined;
};

} // namespace

void registerCast(KernelRegistry& r)
{
    r.add("", "Cast", 1, 28, makeFactory<Cast>());
}

} // namespace onnxscope
