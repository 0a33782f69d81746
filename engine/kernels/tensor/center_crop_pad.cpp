// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// CenterCropPad 18: each axis in `axes` (default: all, negative counts from the back) is cropped or zero-padded to
/// the size given by input 1 (int32/int64, one value per axis), keeping the centre; when the difference is odd the
/// extra element is cropped from, or padded at, the end. Every element type (strings pad with "").
class CenterCropPad final : public Kernel {
public:
    explicit CenterCropPad(const KernelInit& init)
        : m_axes(init.attributes().getInts("axes"))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const std::vector<int64_t> sizes = intListInput(ctx, 1, "shape");
        const int64_t rank = x.rank();
        std::vector<int64_t> axes = m_axes;
        if (axes.empty())
            for (int64_t a = 0; a < rank; ++a)
                axes.push_back(a);
        if (sizes.size() != axes.size())
            throw ctx.error(
                "shape has " + std::to_string(sizes.size()) + " values for " + std::to_string(axes.size()) + " axes");
        Shape outShape = x.shape();
        std::vector<int64_t> offset(static_cast<size_t>(rank), 0); // input index - output index, per axis
        std::vector<bool> seen(static_cast<size_t>(rank), false);
        for (size_t i = 0; i < axes.size(); ++i) {
            const auto a = static_cast<size_t>(checkIndex(ctx, axes[i], rank, "axis"));
            if (seen[a])
                throw ctx.error("axis " + std::to_string(a) + " is given twice");
            seen[a] = true;
            if (sizes[i] < 0)
                throw ctx.error("shape value " + std::to_string(sizes[i]) + " is negative");
            offset[a] = (x.shape()[a] - sizes[i]) / 2; // crop: positive, pad: negative (both floor toward the start)
            if (sizes[i] > x.shape()[a])
                offset[a] = -((sizes[i] - x.shape()[a]) / 2);
            outShape[a] = sizes[i];
        }
        Tensor& y = ctx.allocateOutput(0, x.dtype(), outShape);
        if (y.size() == 0 || x.size() == 0)
            return;
        // The output box that has input behind it, then a row-major walk over it.
        std::vector<int64_t> lo(static_cast<size_t>(rank)), hi(static_cast<size_t>(rank));
        for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
            lo[d] = std::max<int64_t>(0, -offset[d]);
            hi[d] = std::min<int64_t>(outShape[d], x.shape()[d] - offset[d]);
            if (lo[d] >= hi[d])
                return;
        }
        const auto inStrides = stridesOf(x.shape());
        const auto outStrides = stridesOf(outShape);
        byElementSize(x.dtype(), [&]<class W>() {
            const W* in = words<W>(x);
            W* out = mutableWords<W>(y);
            std::vector<int64_t> idx = lo;
            while (true) {
                int64_t io = 0, oo = 0;
                for (size_t d = 0; d < idx.size(); ++d) {
                    io += (idx[d] + offset[d]) * inStrides[d];
                    oo += idx[d] * outStrides[d];
                }
                out[oo] = in[io];
                size_t d = idx.size();
                while (d > 0) {
                    --d;
                    if (++idx[d] < hi[d])
                        break;
                    idx[d] = lo[d];
                    if (d == 0)
                        return;
                }
                if (idx.empty())
                    return;
            }
        });
    }

private:
    std::vector<int64_t> m_axes;
};

} // namespace

void registerCenterCropPad(KernelRegistry& r)
{
    r.add("", "CenterCropPad", 18, 18, makeFactory<CenterCropPad>());
}

} // namespace onnxscope
