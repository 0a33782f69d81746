// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// Binarizer (ai.onnx.ml 1): Y = X > threshold ? 1 : 0, element-wise, same type and shape (float, double, int32,
/// int64). NaN stays NaN, as in onnxruntime.
class Binarizer final : public Kernel {
public:
    explicit Binarizer(const KernelInit& init)
        : m_threshold(init.attributes().getFloat("threshold", 0.0f))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Tensor& out = ctx.allocateOutput(0, x.dtype(), x.shape());
        dispatch<TypeList<float, double, int32_t, int64_t>>(x.dtype(), ctx.node(), [&]<class T>() {
            auto src = x.data<T>();
            auto dst = out.data<T>();
            for (size_t i = 0; i < src.size(); ++i) {
                if constexpr (std::is_floating_point_v<T>)
                    if (std::isnan(src[i])) {
                        dst[i] = src[i];
                        continue;
                    }
                dst[i] = static_cast<double>(src[i]) > static_cast<double>(m_threshold) ? T(1) : T(0);
            }
        });
    }

private:
    float m_threshold;
};

} // namespace

void registerBinarizer(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "Binarizer", 1, 1, makeFactory<Binarizer>());
}

} // namespace onnxscope
