// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/int_input.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/im2col.h"

namespace onnxscope {

namespace {

/// MaxUnpool 9, 11: scatters X into a zero tensor at the flat positions I (as MaxPool's Indices output gives them).
/// The default output size per axis is (in - 1) * stride + kernel - pads. With the output_shape input (11), indices
/// are read in the layout of the default shape and each element lands at the same spatial coordinates of the
/// larger output, as ONNX's reference case expects. float types; indices int64.
class MaxUnpool final : public Kernel {
public:
    explicit MaxUnpool(const KernelInit& init)
        : m_window(WindowAttributes::parse(init, true))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& ind = ctx.input(1);
        const int64_t r = x.rank() - 2;
        if (r < 1 || static_cast<int64_t>(m_window.kernelShape.size()) != r)
            throw ctx.error("X " + shapeToString(x.shape()) + " does not match kernel_shape "
                + shapeToString(m_window.kernelShape));
        if (ind.dtype() != DataType::Int64 || ind.shape() != x.shape())
            throw ctx.error("I must be int64 with the shape of X, got " + ind.typeString());
        if ((!m_window.strides.empty() && static_cast<int64_t>(m_window.strides.size()) != r)
            || (!m_window.pads.empty() && static_cast<int64_t>(m_window.pads.size()) != 2 * r))
            throw ctx.error("attributes 'strides' and 'pads' must have " + std::to_string(r) + " and "
                + std::to_string(2 * r) + " values");
        Shape inferred { x.dim(0), x.dim(1) };
        for (int64_t i = 0; i < r; ++i) {
            const auto ui = static_cast<size_t>(i);
            const int64_t s = m_window.strides.empty() ? 1 : m_window.strides[ui];
            const int64_t pads
                = m_window.pads.empty() ? 0 : m_window.pads[ui] + m_window.pads[ui + static_cast<size_t>(r)];
            const int64_t d = checkedMul(x.dim(2 + i) - 1, s, "output size") + m_window.kernelShape[ui] - pads;
            if (d < 0)
                throw ctx.error("pads exceed the output size on spatial axis " + std::to_string(i));
            inferred.push_back(d);
        }
        Shape outShape = inferred;
        if (ctx.hasInput(2)) {
            outShape = readIntList(ctx, 2, "output_shape");
            if (outShape.size() != inferred.size() || outShape[0] != x.dim(0) || outShape[1] != x.dim(1))
                throw ctx.error(
                    "output_shape " + shapeToString(outShape) + " does not match X " + shapeToString(x.shape()));
            for (size_t i = 2; i < outShape.size(); ++i)
                if (outShape[i] < inferred[i])
                    throw ctx.error("output_shape " + shapeToString(outShape) + " is smaller than the inferred "
                        + shapeToString(inferred));
        }
        Tensor& y = ctx.allocateOutput(0, x.dtype(), outShape);
        const auto inferredStrides = stridesOf(inferred), outStrides = stridesOf(outShape);
        const int64_t total = elementCount(inferred);
        auto idx = ind.data<int64_t>();
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto in = x.data<T>();
            auto out = y.data<T>();
            for (size_t i = 0; i < in.size(); ++i) {
                int64_t flat = idx[i];
                if (flat < 0 || flat >= total)
                    throw ctx.error("index " + std::to_string(flat) + " at position " + std::to_string(i)
                        + " is outside the output " + shapeToString(inferred));
                int64_t pos = 0;
                for (size_t a = 0; a < inferred.size(); ++a) {
                    pos += (flat / inferredStrides[a]) * outStrides[a];
                    flat %= inferredStrides[a];
                }
                out[static_cast<size_t>(pos)] = in[i];
            }
        });
    }

private:
    WindowAttributes m_window;
};

} // namespace

void registerMaxUnpool(KernelRegistry& r)
{
    r.add("", "MaxUnpool", 9, 22, makeFactory<MaxUnpool>());
}

} // namespace onnxscope
