// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/quant_common.h"
#include "engine/kernels/simd/simd.h"

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
        const auto n = static_cast<int64_t>(src.size());
        // Sixteen lanes of running extremes (a form the compiler vectorizes); NaN fails both tests and is skipped.
        constexpr int kLanes = 16;
        float lo[kLanes] = {}, hi[kLanes] = {};
        int64_t i = 0;
        for (; i + kLanes <= n; i += kLanes)
            for (int l = 0; l < kLanes; ++l) {
                const float v = src[static_cast<size_t>(i + l)];
                lo[l] = v < lo[l] ? v : lo[l];
                hi[l] = v > hi[l] ? v : hi[l];
            }
        for (; i < n; ++i) {
            const float v = src[static_cast<size_t>(i)];
            lo[0] = v < lo[0] ? v : lo[0];
            hi[0] = v > hi[0] ? v : hi[0];
        }
        const float mn = *std::min_element(lo, lo + kLanes), mx = *std::max_element(hi, hi + kLanes);
        const float scale = (mx - mn) / 255.0f;
        Tensor& y = ctx.allocateOutput(0, DataType::UInt8, x.shape());
        uint8_t* dst = y.data<uint8_t>().data();
        uint8_t zp = 0;
        if (scale > 0 && std::isfinite(scale)) {
            zp = saturateRound<uint8_t>(0.0f - mn / scale);
            // round_half_even(x / scale) + zp saturated, as clamp(x / scale, -zp, 255 - zp) rounded (the bounds are
            // integers) by the 1.5 * 2^23 addition, plus zp; NaN gives zp.
            const float qlo = -float(zp), qhi = 255.0f - float(zp);
            const float* xs = src.data();
            parallelFor(ctx.threadPool(), n, simd::kGrainElements, [&](int64_t b, int64_t e) {
                constexpr float kRound = 12582912.0f;
                for (int64_t j = b; j < e; ++j) {
                    const float v = xs[j] / scale;
                    float c = v > qlo ? v : qlo;
                    c = c < qhi ? c : qhi;
                    const int32_t r = static_cast<int32_t>((c + kRound) - kRound) + zp;
                    dst[j] = static_cast<uint8_t>(v != v ? int32_t(zp) : r);
                }
            });
        } else {
            std::fill_n(dst, n, uint8_t(0));
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
