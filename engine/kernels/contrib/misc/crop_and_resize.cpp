// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// CropAndResize (com.microsoft 1), TensorFlow's crop_and_resize: for each box r, the region rois[r] = (y1, x1, y2,
/// x2) (normalised: 0 and 1 are the first and last pixel centres; y1 > y2 flips the crop) of image batch_indices[r]
/// of X [N, C, H, W] (float), sampled on a crop_size = (crop_height, crop_width) grid: Y [R, C, crop_height,
/// crop_width]. Sample i of n lies at y1 (H - 1) + i (y2 - y1) (H - 1) / (n - 1), the last exactly at y2 (H - 1);
/// a single sample at the box's centre. Samples outside the image (or at a non-finite position) get extrapolation_value
/// (default 0). mode: "bilinear" (default) or "nearest" (rounding half away from zero). rois float [R, 4],
/// batch_indices int32 [R], crop_size int32 [2] of positive values. A batch index outside [0, N) is refused.
class CropAndResize final : public Kernel {
public:
    explicit CropAndResize(const KernelInit& init)
        : m_extrapolation(init.attributes().getFloat("extrapolation_value", 0.0f))
    {
        const std::string mode = init.attributes().getString("mode", "bilinear");
        if (mode != "bilinear" && mode != "nearest")
            throw init.attributes().error("mode", "must be \"bilinear\" or \"nearest\", got \"" + mode + "\"");
        m_nearest = mode == "nearest";
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& rois = ctx.input(1);
        const Tensor& batch = ctx.input(2);
        const Tensor& size = ctx.input(3);
        if (x.dtype() != DataType::Float || x.rank() != 4)
            throw ctx.error("X must be float [N, C, H, W], got " + x.typeString());
        if (rois.dtype() != DataType::Float || rois.rank() != 2 || rois.dim(1) != 4)
            throw ctx.error("rois must be float [num_rois, 4], got " + rois.typeString());
        const int64_t R = rois.dim(0);
        if (batch.dtype() != DataType::Int32 || batch.shape() != Shape { R })
            throw ctx.error("batch_indices must be int32 [" + std::to_string(R) + "], got " + batch.typeString());
        if (size.dtype() != DataType::Int32 || size.shape() != Shape { 2 })
            throw ctx.error("crop_size must be int32 [2], got " + size.typeString());
        const int64_t cropH = size.data<int32_t>()[0], cropW = size.data<int32_t>()[1];
        if (cropH <= 0 || cropW <= 0)
            throw ctx.error(
                "crop_size must be positive, got [" + std::to_string(cropH) + ", " + std::to_string(cropW) + "]");
        const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
        Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, { R, C, cropH, cropW });
        const float* img = x.data<float>().data();
        const float* box = rois.data<float>().data();
        float* out = y.data<float>().data();
        const int64_t plane = cropH * cropW;
        for (int64_t r = 0; r < R; ++r) {
            const int64_t b = batch.data<int32_t>()[static_cast<size_t>(r)];
            if (b < 0 || b >= N)
                throw ctx.error("batch_indices[" + std::to_string(r) + "] = " + std::to_string(b)
                    + " is outside X's batch of " + std::to_string(N));
            const float* roi = box + r * 4;
            const float* image = img + b * C * H * W;
            float* o = out + r * C * plane;
            for (int64_t i = 0; i < cropH; ++i) {
                const float inY = samplePosition(roi[0], roi[2], H, i, cropH);
                for (int64_t j = 0; j < cropW; ++j) {
                    const float inX = samplePosition(roi[1], roi[3], W, j, cropW);
                    const int64_t at = i * cropW + j;
                    if (!(inY >= 0 && inY <= static_cast<float>(H - 1) && inX >= 0
                            && inX <= static_cast<float>(W - 1))) {
                        for (int64_t c = 0; c < C; ++c)
                            o[c * plane + at] = m_extrapolation;
                        continue;
                    }
                    if (m_nearest) {
                        const int64_t src
                            = static_cast<int64_t>(std::round(inY)) * W + static_cast<int64_t>(std::round(inX));
                        for (int64_t c = 0; c < C; ++c)
                            o[c * plane + at] = image[c * H * W + src];
                        continue;
                    }
                    const int64_t y0 = static_cast<int64_t>(std::floor(inY)), y1 = static_cast<int64_t>(std::ceil(inY));
                    const int64_t x0 = static_cast<int64_t>(std::floor(inX)), x1 = static_cast<int64_t>(std::ceil(inX));
                    const float dy = inY - static_cast<float>(y0), dx = inX - static_cast<float>(x0);
                    for (int64_t c = 0; c < C; ++c) {
                        const float* p = image + c * H * W;
                        const float top = p[y0 * W + x0] + (p[y0 * W + x1] - p[y0 * W + x0]) * dx;
                        const float bottom = p[y1 * W + x0] + (p[y1 * W + x1] - p[y1 * W + x0]) * dx;
                        o[c * plane + at] = top + (bottom - top) * dy;
                    }
                }
            }
        }
    }

private:
    /// Where sample i of n lies between the normalised box edges a and b over an axis of `extent` pixels (float
    /// arithmetic, as onnxruntime computes it).
    static float samplePosition(float a, float b, int64_t extent, int64_t i, int64_t n)
    {
        const float last = static_cast<float>(extent - 1);
        if (n == 1)
            return static_cast<float>(0.5 * static_cast<double>(a + b) * static_cast<double>(extent - 1));
        if (i == 0)
            return a * last;
        if (i == n - 1)
            return b * last;
        const float step = (b - a) * last / static_cast<float>(n - 1);
        return a * last + static_cast<float>(i) * step;
    }

    float m_extrapolation;
    bool m_nearest = false;
};

} // namespace

void registerCropAndResize(KernelRegistry& r)
{
    r.add("com.microsoft", "CropAndResize", 1, KernelRegistry::kLatest, makeFactory<CropAndResize>());
}

} // namespace onnxscope
