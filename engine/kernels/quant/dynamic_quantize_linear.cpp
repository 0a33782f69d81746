// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/quant_common.h"

#include <algorithm>

namespace onnxscope {

namespace {

/// DynamicQuantizeLinear 11: float x -> uint8 y, float y_scale, uint8 y_zero_point, over the range [min(0, min x),
/// max(0, max x)], in float arithmetic as the spec's formula and numpy do. An all-zero (or empty) x gives scale 0,
/// zero point 0 and y 0 instead of dividing by zero. NaN elements are ignored for the range and quantize to the
/// zero point.
class DynamicQuantizeLinear final : public Kernel {
public:
    explicit DynamicQuantizeLinear(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::Float)
            throw ctx.error("x must be float, got " + x.typeString());
        auto src = x.data<float>();
        float lo = 0, hi = 0;
        for (float v : src)
            if (!std::isnan(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        const float scale = (hi - lo) / 255.0f;
        Tensor& y = ctx.allocateOutput(0, DataType::UInt8, x.shape());
        auto dst = y.data<uint8_t>();
        uint8_t zp = 0;
        if (scale > 0 && std::isfinite(scale)) {
            zp = saturateRound<uint8_t>(0.0f - lo / scale);
            for (size_t i = 0; i < dst.size(); ++i)
                dst[i] = std::isnan(src[i])
                    ? zp
                    : saturateRound<uint8_t>(std::nearbyint(src[i] / scale) + static_cast<float>(zp));
        }
        ctx.allocateOutput(1, DataType::Float, {}).data<float>()[0] = scale;
        ctx.allocateOutput(2, DataType::UInt8, {}).data<uint8_t>()[0] = zp;
    }
};

} // namespace

void registerDynamicQuantizeLinear(KernelRegistry& r)
{
    r.add("", "DynamicQuantizeLinear", 11, 11, makeFactory<DynamicQuantizeLinear>());
}

} // namespace onnxscope
