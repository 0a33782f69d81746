// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// DeformConv 19, 22 (22 adds bfloat16), 2-D only: X [N, C, H, W], W [M, C / group, kH, kW], offset [N,
/// offset_group * kH * kW * 2, oH, oW] (a (dy, dx) pair per kernel tap and output position), optional B [M] and mask
/// [N, offset_group * kH * kW, oH, oW]. Each tap samples X bilinearly at (-pad_top + i * stride + kh * dilation + dy,
/// -pad_left + j * stride + kw * dilation + dx), zero outside the image, times its mask value; the rest is a grouped
/// Conv. Input channels are split evenly among the offset groups. float, double, float16, bfloat16; sums in double.
/// The spec allows any number of spatial dimensions; as in onnx's reference, only 2-D is implemented.
class DeformConv final : public Kernel {
public:
    explicit DeformConv(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_group = a.getInt("group", 1);
        m_offsetGroup = a.getInt("offset_group", 1);
        if (m_group < 1 || m_offsetGroup < 1)
            throw init.error("group and offset_group must be positive");
        m_dilations = a.getInts("dilations", { 1, 1 });
        m_strides = a.getInts("strides", { 1, 1 });
        m_pads = a.getInts("pads", { 0, 0, 0, 0 });
        if (m_dilations.size() != 2 || m_strides.size() != 2 || m_pads.size() != 4)
            throw init.error("only 2-D DeformConv is supported: dilations and strides need 2 values, pads 4");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& w = ctx.input(1);
        const Tensor& off = ctx.input(2);
        const bool hasBias = ctx.hasInput(3), hasMask = ctx.hasInput(4);
        if (x.rank() != 4 || w.rank() != 4 || off.rank() != 4)
            throw ctx.error("only 2-D DeformConv is supported: X, W and offset must be 4-D");
        const int64_t n = x.dim(0), c = x.dim(1), ih = x.dim(2), iw = x.dim(3);
        const int64_t m = w.dim(0), kh = w.dim(2), kw = w.dim(3), oh = off.dim(2), ow = off.dim(3);
        if (c != w.dim(1) * m_group || m % m_group || c % m_offsetGroup)
            throw ctx.error("X " + x.typeString() + " and W " + w.typeString() + " do not match group "
                + std::to_string(m_group) + " and offset_group " + std::to_string(m_offsetGroup));
        if (off.dim(0) != n || off.dim(1) != m_offsetGroup * kh * kw * 2)
            throw ctx.error("offset must be [N, offset_group * kH * kW * 2, oH, oW], got " + off.typeString());
        if (hasBias && ctx.input(3).size() != m)
            throw ctx.error("B must have " + std::to_string(m) + " values, got " + ctx.input(3).typeString());
        if (hasMask && ctx.input(4).shape() != Shape { n, m_offsetGroup * kh * kw, oh, ow })
            throw ctx.error("mask must be [N, offset_group * kH * kW, oH, oW], got " + ctx.input(4).typeString());
        for (const Tensor* t : { &w, &off })
            if (t->dtype() != x.dtype())
                throw ctx.error("inputs must share X's element type, got " + t->typeString());
        Tensor& y = ctx.allocateOutput(0, x.dtype(), { n, m, oh, ow });
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto xs = x.data<T>();
            auto ws = w.data<T>();
            auto os = off.data<T>();
            auto out = y.data<T>();
            const int64_t cPerGroup = c / m_group, mPerGroup = m / m_group, cPerOffset = c / m_offsetGroup;
            const int64_t taps = kh * kw, plane = oh * ow;
            auto sample = [&](int64_t img, double py, double px) {
                const double fy = std::floor(py), fx = std::floor(px);
                const auto y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
                const double ay = py - fy, ax = px - fx;
                double v = 0;
                for (int dy = 0; dy < 2; ++dy)
                    for (int dx = 0; dx < 2; ++dx) {
                        const int64_t yy = y0 + dy, xx = x0 + dx;
                        if (yy < 0 || yy >= ih || xx < 0 || xx >= iw)
                            continue;
                        const double wgt = (dy ? ay : 1 - ay) * (dx ? ax : 1 - ax);
                        v += wgt * static_cast<double>(xs[static_cast<size_t>(img + yy * iw + xx)]);
                    }
                return v;
            };
            for (int64_t b = 0; b < n; ++b)
                for (int64_t oc = 0; oc < m; ++oc) {
                    const int64_t g = oc / mPerGroup;
                    for (int64_t i = 0; i < oh; ++i)
                        for (int64_t j = 0; j < ow; ++j) {
                            double sum = hasBias ? ctx.input(3).toDouble(oc) : 0.0;
                            for (int64_t ci = 0; ci < cPerGroup; ++ci) {
                                const int64_t ic = g * cPerGroup + ci, og = ic / cPerOffset;
                                const int64_t img = (b * c + ic) * ih * iw;
                                for (int64_t t = 0; t < taps; ++t) {
                                    const int64_t ky = t / kw, kx = t % kw;
                                    const int64_t oBase = ((b * m_offsetGroup + og) * taps + t) * 2;
                                    const double dy
                                        = static_cast<double>(os[static_cast<size_t>(oBase * plane + i * ow + j)]);
                                    const double dx = static_cast<double>(
                                        os[static_cast<size_t>((oBase + 1) * plane + i * ow + j)]);
                                    const double py
                                        = static_cast<double>(-m_pads[0] + i * m_strides[0] + ky * m_dilations[0]) + dy;
                                    const double px
                                        = static_cast<double>(-m_pads[1] + j * m_strides[1] + kx * m_dilations[1]) + dx;
                                    double v = sample(img, py, px);
                                    if (hasMask)
                                        v *= ctx.input(4).toDouble(
                                            ((b * m_offsetGroup + og) * taps + t) * plane + i * ow + j);
                                    sum += v
                                        * static_cast<double>(
                                            ws[static_cast<size_t>(((oc * cPerGroup + ci) * taps) + t)]);
                                }
                            }
                            out[static_cast<size_t>(((b * m + oc) * oh + i) * ow + j)] = static_cast<T>(sum);
                        }
                }
        });
    }

private:
    int64_t m_group = 1, m_offsetGroup = 1;
    std::vector<int64_t> m_dilations, m_strides, m_pads;
};

} // namespace

void registerDeformConv(KernelRegistry& r)
{
    r.add("", "DeformConv", 19, 22, makeFactory<DeformConv>());
}

} // namespace onnxscope
