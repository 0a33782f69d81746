// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace onnxscope {

namespace {

/// MaxRoiPool 1: max pooling of each region of interest [batch, x1, y1, x2, y2] (scaled by spatial_scale and
/// rounded, both ends inclusive) into pooled_shape bins, as Caffe and onnxruntime do; empty bins give 0.
/// float, double, float16, bfloat16 (computed in float / double).
class MaxRoiPool final : public Kernel {
public:
    explicit MaxRoiPool(const KernelInit& init)
        : m_pooled(init.attributes().getInts("pooled_shape"))
        , m_scale(init.attributes().getFloat("spatial_scale", 1.0f))
    {
        if (m_pooled.size() != 2 || m_pooled[0] < 1 || m_pooled[1] < 1)
            throw init.attributes().error("pooled_shape", "expected 2 positive values, got " + shapeToString(m_pooled));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& rois = ctx.input(1);
        if (x.rank() != 4)
            throw ctx.error("X must be [N, C, H, W], got " + shapeToString(x.shape()));
        if (rois.dtype() != x.dtype() || rois.rank() != 2 || rois.dim(1) != 5)
            throw ctx.error("rois must be [num_rois, 5] of X's element type, got " + rois.typeString());
        const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), ph = m_pooled[0], pw = m_pooled[1];
        Tensor& y = ctx.allocateOutput(0, x.dtype(), { rois.dim(0), c, ph, pw });
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
            auto in = x.data<T>();
            auto r = rois.data<T>();
            auto out = y.data<T>();
            size_t o = 0;
            for (int64_t roi = 0; roi < rois.dim(0); ++roi) {
                const auto val = [&](int64_t k) {
                    return static_cast<double>(static_cast<F>(r[static_cast<size_t>(roi * 5 + k)]));
                };
                const double batch = val(0);
                if (!(batch >= 0 && batch < static_cast<double>(n)))
                    throw ctx.error("roi " + std::to_string(roi) + " has batch index " + std::to_string(batch)
                        + ", X has " + std::to_string(n) + " images");
                const auto scaled = [&](int64_t k) {
                    const double v = std::round(val(k) * m_scale);
                    return static_cast<int64_t>(std::clamp(v, -1e15, 1e15));
                };
                const int64_t x1 = scaled(1), y1 = scaled(2), x2 = scaled(3), y2 = scaled(4);
                const double binH = static_cast<double>(std::max<int64_t>(y2 - y1 + 1, 1)) / static_cast<double>(ph);
                const double binW = static_cast<double>(std::max<int64_t>(x2 - x1 + 1, 1)) / static_cast<double>(pw);
                const T* base = in.data() + static_cast<int64_t>(batch) * c * h * w;
                for (int64_t ch = 0; ch < c; ++ch)
                    for (int64_t i = 0; i < ph; ++i)
                        for (int64_t j = 0; j < pw; ++j) {
                            const auto clampTo = [](double v, int64_t hi) {
                                return static_cast<int64_t>(std::clamp(v, 0.0, static_cast<double>(hi)));
                            };
                            const int64_t hs = clampTo(std::floor(i * binH) + y1, h),
                                          he = clampTo(std::ceil((i + 1) * binH) + y1, h);
                            const int64_t ws = clampTo(std::floor(j * binW) + x1, w),
                                          we = clampTo(std::ceil((j + 1) * binW) + x1, w);
                            F best = (he <= hs || we <= ws) ? F(0) : -std::numeric_limits<F>::infinity();
                            for (int64_t yy = hs; yy < he; ++yy)
                                for (int64_t xx = ws; xx < we; ++xx)
                                    best = std::max(best, static_cast<F>(base[(ch * h + yy) * w + xx]));
                            out[o++] = static_cast<T>(best);
                        }
            }
        });
    }

private:
    std::vector<int64_t> m_pooled;
    float m_scale;
};

} // namespace

void registerMaxRoiPool(KernelRegistry& r)
{
    r.add("", "MaxRoiPool", 1, 22, makeFactory<MaxRoiPool>());
}

} // namespace onnxscope
