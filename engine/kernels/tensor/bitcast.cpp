// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <cstring>

namespace onnxscope {

namespace {

/// BitCast 26: the bytes of X reinterpreted as the element type `to` of the same width; the shape is kept. Every
/// element type the engine has except string (bool is one byte, 0 or 1 as stored). The sub-byte and float8 types of
/// the spec are not engine types, so casts from or to them are rejected at plan time (models holding them do not
/// load). The engine stores elements little endian, as the spec asks.
class BitCast final : public Kernel {
public:
    explicit BitCast(const KernelInit& init)
    {
        const int64_t to = init.attributes().requireInt("to");
        m_to = dataTypeFromOnnx(static_cast<int32_t>(to));
        if (m_to == DataType::Undefined || m_to == DataType::String)
            throw init.attributes().error("to", "element type " + std::to_string(to) + " is not supported");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() == DataType::String)
            throw ctx.error("string inputs have no bit representation");
        if (elementSize(x.dtype()) != elementSize(m_to))
            throw ctx.error("cannot reinterpret " + x.typeString() + " as " + std::string(dataTypeName(m_to))
                + ": the element widths differ");
        Tensor& y = ctx.allocateOutputUninitialized(0, m_to, x.shape());
        if (x.byteSize() > 0)
            std::memcpy(y.mutableRaw(), x.raw(), x.byteSize());
    }

private:
    DataType m_to = DataType::Undefined;
};

} // namespace

void registerBitCast(KernelRegistry& r)
{
    r.add("", "BitCast", 26, 26, makeFactory<BitCast>());
}

} // namespace onnxscope
