// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// ConstantOfShape 9, 20, 21, 23, 24, 25 (bfloat16 and the narrow types, one byte each in memory): a tensor of the
/// shape given by the 1-D int64 input, filled with the single element of the `value` attribute (float 0 by default),
/// whose type it takes. The size is checked against the allocation limit before allocation, so an absurd shape is an
/// Error naming it.
class ConstantOfShape final : public Kernel {
public:
    explicit ConstantOfShape(const KernelInit& init)
    {
        m_value = init.attributes().getTensor("value");
        if (!m_value.defined())
            m_value = Tensor(DataType::Float, { 1 });
        if (m_value.size() != 1)
            throw init.attributes().error("value", "must hold exactly one element, got " + m_value.typeString());
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& shapeTensor = ctx.input(0);
        if (shapeTensor.dtype() != DataType::Int64 || shapeTensor.rank() != 1)
            throw ctx.error("input must be a 1-D int64 shape, got " + shapeTensor.typeString());
        auto d = shapeTensor.data<int64_t>();
        const Shape shape(d.begin(), d.end());
        for (int64_t v : shape)
            if (v < 0)
                throw ctx.error("shape " + shapeToString(shape) + " has a negative dimension");
        Tensor& out = ctx.allocateOutput(0, m_value.dtype(), shape);
        byElementSize(m_value.dtype(), [&]<class W>() {
            W* o = mutableWords<W>(out);
            std::fill(o, o + out.size(), words<W>(m_value)[0]);
        });
    }

private:
    Tensor m_value;
};

} // namespace

void registerConstantOfShape(KernelRegistry& r)
{
    r.add("", "ConstantOfShape", 9, 25, makeFactory<ConstantOfShape>());
}

} // namespace onnxscope
