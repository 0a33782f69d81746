// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// EyeLike, opset 9: a 2-D tensor of the input's shape with ones on the diagonal shifted by `k` (positive: above)
/// and zeros elsewhere. The element type is `dtype` if given, else the input's; numeric types and bool.
class EyeLike final : public Kernel {
public:
    explicit EyeLike(const KernelInit& init)
        : m_k(init.attributes().getInt("k", 0))
    {
        if (init.attributes().has("dtype"))
            m_dtype = dtypeAttribute(init, init.attributes().getInt("dtype", 0), "dtype");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() != 2)
            throw ctx.error("input must be 2-D, got " + x.typeString());
        const DataType type = m_dtype != DataType::Undefined ? m_dtype : x.dtype();
        Tensor& out = ctx.allocateOutput(0, type, x.shape());
        const int64_t rows = x.dim(0), cols = x.dim(1);
        dispatch<TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
            uint32_t, uint64_t, bool>>(type, ctx.node(), [&]<class T>() {
            auto o = out.data<T>();
            for (int64_t i = 0; i < rows; ++i) {
                // j = i + k in [0, cols), tested without overflow for extreme k.
                if (m_k >= 0 ? m_k < cols - i : (i + m_k >= 0 && i + m_k < cols))
                    o[static_cast<size_t>(i * cols + i + m_k)] = T(1);
            }
        });
    }

private:
    int64_t m_k;
    DataType m_dtype = DataType::Undefined;
};

} // namespace

void registerEyeLike(KernelRegistry& r)
{
    r.add("", "EyeLike", 9, 22, makeFactory<EyeLike>());
}

} // namespace onnxscope
