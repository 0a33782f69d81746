// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/resize_core.h"

#include <cmath>

namespace onnxscope {

namespace {

/// Upsample 7 (scales attribute), 9 and 10 (scales input; 10 is deprecated but still found in models). Modes
/// nearest and linear (N-D), asymmetric coordinates (x_original = x / scale) and, for nearest, floor as
/// onnxruntime does. Every element type for nearest, numeric types for linear. Scales must be >= 1, as the spec
/// says.
class Upsample final : public Kernel {
public:
    explicit Upsample(const KernelInit& init)
        : m_opset(init.opset())
    {
        const auto& a = init.attributes();
        const std::string mode = a.getString("mode", "nearest");
        if (mode == "nearest")
            m_params.mode = ResizeMode::Nearest;
        else if (mode == "linear" || mode == "bilinear")
            m_params.mode = ResizeMode::Linear;
        else
            throw a.error("mode", "expected nearest or linear, got \"" + mode + "\"");
        m_params.coordinates = CoordinateMode::Asymmetric;
        m_params.nearest = NearestMode::Legacy;
        if (m_opset < 9) {
            if (!a.has("scales"))
                throw init.error("attribute 'scales' is required");
            for (float s : a.getFloats("scales"))
                m_scales.push_back(s);
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        std::vector<double> scales = m_scales;
        if (m_opset >= 9) {
            const Tensor& s = ctx.input(1);
            dispatch<FloatTypes>(s.dtype(), ctx.node(), ": input 'scales'", [&]<class T>() {
                for (T e : s.data<T>())
                    scales.push_back(static_cast<double>(e));
            });
        }
        if (scales.size() != static_cast<size_t>(x.rank()))
            throw ctx.error("'scales' has " + std::to_string(scales.size()) + " values, expected "
                + std::to_string(x.rank()) + " for " + x.typeString());
        std::vector<ResizeAxis> axes(scales.size());
        for (size_t d = 0; d < scales.size(); ++d) {
            const double s = scales[d];
            if (!(s >= 1) || !std::isfinite(s))
                throw ctx.error("scales must be finite and >= 1, got " + std::to_string(s));
            const double len = static_cast<double>(x.shape()[d]) * s;
            if (!(len < 9.0e15))
                throw ctx.error("scale " + std::to_string(s) + " makes axis " + std::to_string(d) + " too large");
            axes[d].scale = s;
            axes[d].resizedLength = len;
            axes[d].outLength = static_cast<int64_t>(std::floor(len));
        }
        ctx.setOutput(0, resizeTensor(ctx, m_params, x, axes));
    }

private:
    int64_t m_opset;
    ResizeParams m_params;
    std::vector<double> m_scales;
};

} // namespace

void registerUpsample(KernelRegistry& r)
{
    r.add("", "Upsample", 7, 10, makeFactory<Upsample>());
}

} // namespace onnxscope
