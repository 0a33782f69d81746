// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/im2col.h"

#include <algorithm>
#include <limits>

namespace onnxscope {

namespace {

/// MaxpoolWithMask (com.microsoft 1, "for internal use"): MaxPool over X [N, C, spatial] (float, 1 to 3 spatial
/// axes; kernel_shape, strides, pads, auto_pad as MaxPool's, no dilations) whose scan of each window row stops at
/// the first position where the int32 mask M is 0, as onnxruntime's kernel scans it: the window is read row by row
/// along the last spatial axis, and a zero of M ends that row (with 2 or 3 spatial axes, the flat position 0 never
/// stops a row). A window with nothing read gives the lowest float (-3.4028235e38). storage_order is accepted and
/// changes nothing (the operator has no indices output).
/// M must be [1, 1, spatial] (one mask shared by every image and channel). onnxruntime offsets the mask of channel
/// c by (c * spatial size) modulo M's first two dimensions' product, which means that sharing for a [1, 1, ...]
/// mask and reads unrelated mask rows for any other shape; those are refused.
class MaxpoolWithMask final : public Kernel {
public:
    explicit MaxpoolWithMask(const KernelInit& init)
        : m_attrs(WindowAttributes::parse(init, true))
    {
        if (!m_attrs.dilations.empty())
            throw init.attributes().error("dilations", "is not an attribute of MaxpoolWithMask");
        if (m_attrs.ceilMode)
            throw init.attributes().error("ceil_mode", "is not an attribute of MaxpoolWithMask");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& m = ctx.input(1);
        if (x.dtype() != DataType::Float || x.rank() < 3 || x.rank() > 5)
            throw ctx.error("X must be float [N, C, spatial] with 1 to 3 spatial axes, got " + x.typeString());
        const Shape spatial(x.shape().begin() + 2, x.shape().end());
        Shape maskShape { 1, 1 };
        maskShape.insert(maskShape.end(), spatial.begin(), spatial.end());
        if (m.dtype() != DataType::Int32 || m.shape() != maskShape)
            throw ctx.error("M must be int32 " + shapeToString(maskShape)
                + " (one mask shared by every image and channel), got " + m.typeString());
        if (m_attrs.kernelShape.size() != spatial.size())
            throw ctx.error("kernel_shape has " + std::to_string(m_attrs.kernelShape.size()) + " values but X has "
                + std::to_string(spatial.size()) + " spatial axes");
        const WindowGeometry g = resolveWindow(ctx, m_attrs, spatial, m_attrs.kernelShape);
        Shape outShape { x.dim(0), x.dim(1) };
        const Shape outSpatial = g.outSpatial();
        outShape.insert(outShape.end(), outSpatial.begin(), outSpatial.end());
        Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, outShape);
        const float* xd = x.data<float>().data();
        const int32_t* mask = m.data<int32_t>().data();
        float* yd = y.data<float>().data();
        const int64_t planes = x.dim(0) * x.dim(1), inSize = g.inSize(), outSize = g.outSize();
        const bool flatZeroStops = g.rank == 1;
        for (int64_t p = 0; p < planes; ++p) {
            const float* img = xd + p * inSize;
            float* o = yd + p * outSize;
            for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
                for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
                    for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                        int64_t lo[3], hi[3];
                        const int64_t at[3] = { o0, o1, o2 };
                        for (int a = 0; a < 3; ++a) {
                            const int64_t start = at[a] * g.stride[a] - g.padBegin[a];
                            hi[a] = std::min(start + g.kernel[a], g.in[a]);
                            lo[a] = std::max<int64_t>(start, 0);
                        }
                        float best = std::numeric_limits<float>::lowest();
                        for (int64_t i0 = lo[0]; i0 < hi[0]; ++i0)
                            for (int64_t i1 = lo[1]; i1 < hi[1]; ++i1)
                                for (int64_t i2 = lo[2]; i2 < hi[2]; ++i2) {
                                    const int64_t idx = (i0 * g.in[1] + i1) * g.in[2] + i2;
                                    if ((flatZeroStops || idx > 0) && mask[idx] == 0)
                                        break;
                                    best = std::max(best, img[idx]);
                                }
                        *o++ = best;
                    }
        }
    }

private:
    WindowAttributes m_attrs;
};

} // namespace

void registerMaxpoolWithMask(KernelRegistry& r)
{
    r.add("com.microsoft", "MaxpoolWithMask", 1, KernelRegistry::kLatest, makeFactory<MaxpoolWithMask>());
}

} // namespace onnxscope
