// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <vector>

namespace onnxscope {

namespace {

/// Where 9, 16: out = condition ? X : Y element-wise, the three inputs broadcast together as numpy does. X and Y
/// have one element type, any type.
class Where final : public Kernel {
public:
    explicit Where(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& c = ctx.input(0);
        const Tensor& x = ctx.input(1);
        const Tensor& y = ctx.input(2);
        if (c.dtype() != DataType::Bool)
            throw ctx.error("condition must be bool, got " + c.typeString());
        if (x.dtype() != y.dtype())
            throw ctx.error("X and Y have different element types (" + std::string(dataTypeName(x.dtype())) + " and "
                + std::string(dataTypeName(y.dtype())) + ")");
        Shape outShape;
        try {
            outShape = broadcastShapes(broadcastShapes(c.shape(), x.shape()), y.shape());
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        Tensor& out = ctx.allocateOutput(0, x.dtype(), outShape);
        if (out.size() == 0)
            return;
        dispatch<AllTypes>(x.dtype(), ctx.node(), [&]<class T>() { run<T>(c, x, y, out); });
    }

private:
    template <class T> static void run(const Tensor& c, const Tensor& x, const Tensor& y, Tensor& out)
    {
        const bool* pc = c.data<bool>().data();
        const T* px = x.data<T>().data();
        const T* py = y.data<T>().data();
        T* po = out.data<T>().data();
        const Shape& shape = out.shape();
        const int64_t n = out.size();
        if (c.shape() == shape && x.shape() == shape && y.shape() == shape) {
            for (int64_t i = 0; i < n; ++i)
                po[i] = pc[i] ? px[i] : py[i];
            return;
        }
        const size_t rank = shape.size();
        if (rank == 0) {
            po[0] = pc[0] ? px[0] : py[0];
            return;
        }
        const auto sc = broadcastStrides(c.shape(), shape), sx = broadcastStrides(x.shape(), shape),
                   sy = broadcastStrides(y.shape(), shape);
        const int64_t inner = shape[rank - 1];
        const int64_t ic = sc[rank - 1], ix = sx[rank - 1], iy = sy[rank - 1];
        std::vector<int64_t> index(rank, 0);
        int64_t oc = 0, ox = 0, oy = 0;
        for (int64_t o = 0; o < n; o += inner) {
            for (int64_t j = 0; j < inner; ++j)
                po[o + j] = pc[oc + j * ic] ? px[ox + j * ix] : py[oy + j * iy];
            for (size_t d = rank - 1; d-- > 0;) {
                oc += sc[d];
                ox += sx[d];
                oy += sy[d];
                if (++index[d] < shape[d])
                    break;
                oc -= sc[d] * shape[d];
                ox -= sx[d] * shape[d];
                oy -= sy[d] * shape[d];
                index[d] = 0;
            }
        }
    }
};

} // namespace

void registerWhere(KernelRegistry& r)
{
    r.add("", "Where", 9, 16, makeFactory<Where>());
}

} // namespace onnxscope
