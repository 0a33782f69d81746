// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>

namespace onnxscope {

namespace {

/// RoiAlign 10 (output_half_pixel coordinates) and 16+ (coordinate_transformation_mode, default half_pixel): X
/// [N, C, H, W], rois [R, 4] as (x1, y1, x2, y2), batch_indices [R] -> [R, C, output_height, output_width].
/// Modes avg and max; max is onnxruntime's (the maximum over sampling points of the largest weighted corner),
/// which is what models exported for it expect. Float element types; computed in double.
class RoiAlign final : public Kernel {
public:
    explicit RoiAlign(const KernelInit& init)
    {
        const auto& a = init.attributes();
        const std::string mode = a.getString("mode", "avg");
        if (mode != "avg" && mode != "max")
            throw a.error("mode", "expected avg or max, got \"" + mode + "\"");
        m_max = mode == "max";
        m_outH = a.getInt("output_height", 1);
        m_outW = a.getInt("output_width", 1);
        if (m_outH < 1 || m_outW < 1)
            throw init.error("output_height and output_width must be positive");
        m_samplingRatio = a.getInt("sampling_ratio", 0);
        if (m_samplingRatio < 0)
            throw a.error("sampling_ratio", "must not be negative");
        m_spatialScale = a.getFloat("spatial_scale", 1.0f);
        if (init.opset() >= 16) {
            const std::string coord = a.getString("coordinate_transformation_mode", "half_pixel");
            if (coord != "half_pixel" && coord != "output_half_pixel")
                throw a.error("coordinate_transformation_mode",
                    "expected half_pixel or output_half_pixel, got \"" + coord + "\"");
            m_halfPixel = coord == "half_pixel";
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& rois = ctx.input(1);
        const Tensor& batch = ctx.input(2);
        if (x.rank() != 4)
            throw ctx.error("X must be 4-D [N, C, H, W], got " + x.typeString());
        if (rois.rank() != 2 || rois.dim(1) != 4)
            throw ctx.error("rois must be [num_rois, 4], got " + rois.typeString());
        if (batch.rank() != 1 || batch.dim(0) != rois.dim(0))
            throw ctx.error("batch_indices must be [" + std::to_string(rois.dim(0)) + "], got " + batch.typeString());
        std::vector<int64_t> bi;
        if (batch.dtype() == DataType::Int64)
            bi.assign(batch.data<int64_t>().begin(), batch.data<int64_t>().end());
        else if (batch.dtype() == DataType::Int32)
            bi.assign(batch.data<int32_t>().begin(), batch.data<int32_t>().end());
        else
            throw ctx.error("batch_indices must be int64, got " + batch.typeString());
        std::vector<double> r(static_cast<size_t>(rois.size()));
        dispatch<FloatTypes>(rois.dtype(), ctx.node(), ": rois", [&]<class T>() {
            auto s = rois.data<T>();
            for (size_t i = 0; i < s.size(); ++i)
                r[i] = static_cast<double>(s[i]);
        });
        const int64_t numRois = rois.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
        Tensor& y = ctx.allocateOutput(0, x.dtype(), { numRois, c, m_outH, m_outW });
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto src = x.data<T>();
            auto dst = y.data<T>();
            for (int64_t n = 0; n < numRois; ++n) {
                const int64_t b = bi[static_cast<size_t>(n)];
                if (b < 0 || b >= x.dim(0))
                    throw ctx.error("batch_indices[" + std::to_string(n) + "] = " + std::to_string(b)
                        + " is out of range for " + std::to_string(x.dim(0)) + " images");
                const double* roi = r.data() + n * 4;
                for (int k = 0; k < 4; ++k)
                    if (!std::isfinite(roi[k]))
                        throw ctx.error("rois[" + std::to_string(n) + "] is not finite");
                const double offset = m_halfPixel ? 0.5 : 0.0;
                const double x1 = roi[0] * m_spatialScale - offset, y1 = roi[1] * m_spatialScale - offset;
                double rw = roi[2] * m_spatialScale - offset - x1, rh = roi[3] * m_spatialScale - offset - y1;
                if (!m_halfPixel) {
                    rw = std::max(rw, 1.0);
                    rh = std::max(rh, 1.0);
                }
                const double binH = rh / static_cast<double>(m_outH), binW = rw / static_cast<double>(m_outW);
                const double gh = m_samplingRatio > 0 ? static_cast<double>(m_samplingRatio) : std::ceil(binH);
                const double gw = m_samplingRatio > 0 ? static_cast<double>(m_samplingRatio) : std::ceil(binW);
                if (gh * gw > 1e8)
                    throw ctx.error("rois[" + std::to_string(n) + "] needs more than 1e8 sampling points per bin");
                const int64_t gridH = static_cast<int64_t>(std::max(gh, 0.0)),
                              gridW = static_cast<int64_t>(std::max(gw, 0.0));
                const double count = static_cast<double>(std::max<int64_t>(gridH * gridW, 1));
                for (int64_t ch = 0; ch < c; ++ch) {
                    const T* plane = src.data() + (b * c + ch) * h * w;
                    T* out = dst.data() + (n * c + ch) * m_outH * m_outW;
                    for (int64_t ph = 0; ph < m_outH; ++ph)
                        for (int64_t pw = 0; pw < m_outW; ++pw) {
                            double acc = 0;
                            bool first = true;
                            for (int64_t iy = 0; iy < gridH; ++iy) {
                                const double yy = y1 + static_cast<double>(ph) * binH
                                    + (static_cast<double>(iy) + 0.5) * binH / static_cast<double>(gridH);
                                for (int64_t ix = 0; ix < gridW; ++ix) {
                                    const double xx = x1 + static_cast<double>(pw) * binW
                                        + (static_cast<double>(ix) + 0.5) * binW / static_cast<double>(gridW);
                                    double v[4], wt[4];
                                    bilinear(plane, h, w, yy, xx, v, wt);
                                    if (m_max) {
                                        const double m
                                            = std::max({ wt[0] * v[0], wt[1] * v[1], wt[2] * v[2], wt[3] * v[3] });
                                        acc = first ? m : std::max(acc, m);
                                        first = false;
                                    } else {
                                        acc += wt[0] * v[0] + wt[1] * v[1] + wt[2] * v[2] + wt[3] * v[3];
                                    }
                                }
                            }
                            out[ph * m_outW + pw] = static_cast<T>(m_max ? acc : acc / count);
                        }
                }
            }
        });
    }

private:
    /// The four corners and weights of a bilinear sample, as onnxruntime's RoiAlign computes them (points more than
    /// one pixel outside the image contribute nothing; others are clamped to the edge).
    template <class T>
    static void bilinear(const T* plane, int64_t h, int64_t w, double y, double x, double v[4], double wt[4])
    {
        const double hd = static_cast<double>(h), wd = static_cast<double>(w);
        if (y < -1.0 || y > hd || x < -1.0 || x > wd || h == 0 || w == 0) {
            for (int k = 0; k < 4; ++k)
                v[k] = wt[k] = 0;
            return;
        }
        y = std::max(y, 0.0);
        x = std::max(x, 0.0);
        int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x), yh, xh;
        if (yl >= h - 1) {
            yh = yl = h - 1;
            y = static_cast<double>(yl);
        } else {
            yh = yl + 1;
        }
        if (xl >= w - 1) {
            xh = xl = w - 1;
            x = static_cast<double>(xl);
        } else {
            xh = xl + 1;
        }
        const double ly = y - static_cast<double>(yl), lx = x - static_cast<double>(xl);
        const double hy = 1 - ly, hx = 1 - lx;
        wt[0] = hy * hx;
        wt[1] = hy * lx;
        wt[2] = ly * hx;
        wt[3] = ly * lx;
        v[0] = static_cast<double>(plane[yl * w + xl]);
        v[1] = static_cast<double>(plane[yl * w + xh]);
        v[2] = static_cast<double>(plane[yh * w + xl]);
        v[3] = static_cast<double>(plane[yh * w + xh]);
    }

    bool m_max = false;
    int64_t m_outH = 1, m_outW = 1, m_samplingRatio = 0;
    double m_spatialScale = 1.0;
    bool m_halfPixel = false;
};

} // namespace

void registerRoiAlign(KernelRegistry& r)
{
    r.add("", "RoiAlign", 10, 22, makeFactory<RoiAlign>());
}

} // namespace onnxscope
