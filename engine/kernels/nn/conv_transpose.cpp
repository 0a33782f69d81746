// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/im2col.h"

#include <type_traits>

namespace onnxscope {

namespace {

int64_t floorDiv2(int64_t v)
{
    return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

/// ConvTranspose 1, 11: 1-D, 2-D and 3-D transposed convolution with group, strides, dilations, pads, auto_pad,
/// output_padding and output_shape (which overrides pads; its total padding is split as the spec says, the odd
/// unit at the end for SAME_UPPER and at the start otherwise, and may be negative, extending the output with
/// zeros + bias). float, double, float16, bfloat16 (half types computed in float). GEMM + col2im.
/// With `dynamicPads`, com.microsoft ConvTransposeWithDynamicPads 1: the same, with the pads read at run time from
/// the int64 input 2 (Pads, [2 * spatial rank], non-negative; required, as onnxruntime requires it) and the bias at
/// input 3.
class ConvTranspose final : public Kernel {
public:
    explicit ConvTranspose(const KernelInit& init, bool dynamicPads = false)
        : m_window(WindowAttributes::parse(init, false))
        , m_dynamicPads(dynamicPads)
        , m_group(init.attributes().getInt("group", 1))
        , m_outputPadding(init.attributes().getInts("output_padding"))
        , m_outputShape(init.attributes().getInts("output_shape"))
    {
        if (m_group < 1)
            throw init.attributes().error("group", "must be positive, got " + std::to_string(m_group));
        for (int64_t v : m_outputPadding)
            if (v < 0)
                throw init.attributes().error("output_padding", "values must be non-negative");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& w = ctx.input(1);
        const size_t biasInput = m_dynamicPads ? 3 : 2;
        const Tensor* b = ctx.hasInput(biasInput) ? &ctx.input(biasInput) : nullptr;
        if (w.dtype() != x.dtype() || (b && b->dtype() != x.dtype()))
            throw ctx.error("X, W and B must have the same element type, got " + x.typeString() + ", " + w.typeString()
                + (b ? ", " + b->typeString() : std::string()));
        if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
            throw ctx.error("X " + shapeToString(x.shape()) + " and W " + shapeToString(w.shape())
                + " must have the same rank, 3 to 5");
        const int64_t c = x.dim(1), m = checkedMul(w.dim(1), m_group, "output channels");
        if (w.dim(0) != c || c % m_group != 0)
            throw ctx.error("X " + shapeToString(x.shape()) + " and W " + shapeToString(w.shape())
                + " do not match with group " + std::to_string(m_group));
        if (b && (b->rank() != 1 || b->dim(0) != m))
            throw ctx.error("B " + shapeToString(b->shape()) + " must be [" + std::to_string(m) + "]");
        const WindowGeometry g = geometry(ctx, x, w);
        Shape outShape { x.dim(0), m };
        for (size_t i = WindowGeometry::kMaxRank - static_cast<size_t>(g.rank); i < WindowGeometry::kMaxRank; ++i)
            outShape.push_back(g.in[i]);
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), outShape);
        int64_t columns = 0; // the GEMM result scattered by col2im: (M / group) * kernel x input positions
        if (__builtin_mul_overflow(m / m_group * g.kernelSize(), g.outSize(), &columns)
            || static_cast<uint64_t>(columns) > Tensor::allocationLimit() / sizeof(double))
            throw ctx.error("the column buffer for W " + shapeToString(w.shape()) + " and X " + shapeToString(x.shape())
                + " exceeds the memory limit");
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
                convolveTranspose<T>(x.data<T>().data(), w.data<T>().data(), b ? b->data<T>().data() : nullptr,
                    y.data<T>().data(), x.dim(0), c, m, m_group, g, ConvolveOptions { ctx.threadPool(), {} });
            } else {
                auto xf = convertElements<float>(x.data<T>()), wf = convertElements<float>(w.data<T>());
                auto bf = b ? convertElements<float>(b->data<T>()) : std::vector<float>();
                std::vector<float> yf(static_cast<size_t>(y.size()));
                convolveTranspose<float>(xf.data(), wf.data(), b ? bf.data() : nullptr, yf.data(), x.dim(0), c, m,
                    m_group, g, ConvolveOptions { ctx.threadPool(), {} });
                auto out = y.data<T>();
                for (size_t i = 0; i < yf.size(); ++i)
                    out[i] = static_cast<T>(yf[i]);
            }
        });
    }

private:
    /// In the returned geometry `in` is the output image and `out` the input image (see convolveTranspose()).
    WindowGeometry geometry(const KernelContext& ctx, const Tensor& x, const Tensor& w) const
    {
        const int64_t r = x.rank() - 2;
        const auto expect = [&](const std::vector<int64_t>& v, int64_t n, const char* name) {
            if (!v.empty() && static_cast<int64_t>(v.size()) != n)
                throw ctx.error(std::string("attribute '") + name + "': expected " + std::to_string(n) + " values, got "
                    + std::to_string(v.size()));
        };
        expect(m_window.kernelShape, r, "kernel_shape");
        expect(m_window.strides, r, "strides");
        expect(m_window.dilations, r, "dilations");
        const std::vector<int64_t> pads = m_dynamicPads ? dynamicPads(ctx, r) : m_window.pads;
        expect(pads, 2 * r, "pads");
        expect(m_outputPadding, r, "output_padding");
        // Some exporters write the full [N, C, spatial...] output shape.
        std::vector<int64_t> outputShape = m_outputShape;
        if (static_cast<int64_t>(outputShape.size()) == r + 2)
            outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
        expect(outputShape, r, "output_shape");
        WindowGeometry g;
        g.rank = r;
        const size_t off = WindowGeometry::kMaxRank - static_cast<size_t>(r);
        for (int64_t i = 0; i < r; ++i) {
            const auto ui = static_cast<size_t>(i);
            const size_t j = off + ui;
            const int64_t in = x.dim(2 + i), k = w.dim(2 + i);
            if (!m_window.kernelShape.empty() && m_window.kernelShape[ui] != k)
                throw ctx.error("attribute 'kernel_shape' " + shapeToString(m_window.kernelShape) + " does not match W "
                    + shapeToString(w.shape()));
            const int64_t s = m_window.strides.empty() ? 1 : m_window.strides[ui];
            const int64_t d = m_window.dilations.empty() ? 1 : m_window.dilations[ui];
            const int64_t op = m_outputPadding.empty() ? 0 : m_outputPadding[ui];
            const int64_t full = checkedMul(s, std::max<int64_t>(in - 1, 0), "output size") + op
                + checkedMul(std::max<int64_t>(k - 1, 0), d, "output size") + 1;
            int64_t pb = 0, out = 0;
            const bool upper = m_window.autoPad == AutoPad::SameUpper;
            if (!outputShape.empty() || upper || m_window.autoPad == AutoPad::SameLower) {
                out = outputShape.empty() ? checkedMul(in, s, "output size") : outputShape[ui];
                const int64_t total = full - out;
                pb = upper ? floorDiv2(total) : total - floorDiv2(total);
            } else if (m_window.autoPad == AutoPad::Valid) {
                out = full;
            } else {
                pb = pads.empty() ? 0 : pads[ui];
                out = full - pb - (pads.empty() ? 0 : pads[ui + static_cast<size_t>(r)]);
            }
            if (out < 0 || in == 0)
                throw ctx.error("output size on spatial axis " + std::to_string(i) + " would be " + std::to_string(out)
                    + " for an input of size " + std::to_string(in));
            g.in[j] = out;
            g.out[j] = in;
            g.kernel[j] = k;
            g.stride[j] = s;
            g.dilation[j] = d;
            g.padBegin[j] = pb;
        }
        return g;
    }

    /// ConvTransposeWithDynamicPads' input Pads.
    static std::vector<int64_t> dynamicPads(const KernelContext& ctx, int64_t r)
    {
        if (!ctx.hasInput(2))
            throw ctx.error("input Pads is required (the schema marks it optional, but what its absence means is "
                            "not defined; onnxruntime's kernel requires it too)");
        const Tensor& t = ctx.input(2);
        if (t.dtype() != DataType::Int64 || t.rank() != 1 || t.dim(0) != 2 * r)
            throw ctx.error("Pads must be int64 [" + std::to_string(2 * r) + "] (begin and end per spatial axis), got "
                + t.typeString());
        std::vector<int64_t> pads(t.data<int64_t>().begin(), t.data<int64_t>().end());
        for (int64_t v : pads)
            if (v < 0)
                throw ctx.error("Pads must be non-negative, got " + shapeToString(pads));
        return pads;
    }

    WindowAttributes m_window;
    bool m_dynamicPads = false;
    int64_t m_group;
    std::vector<int64_t> m_outputPadding;
    std::vector<int64_t> m_outputShape;
};

} // namespace

void registerConvTranspose(KernelRegistry& r)
{
    r.add("", "ConvTranspose", 1, 22, makeFactory<ConvTranspose>());
}

/// Called from contrib/misc/register_misc.cpp (issue #41): the com.microsoft op shares ConvTranspose's kernel.
void registerConvTransposeWithDynamicPads(KernelRegistry& r)
{
    r.add("com.microsoft", "ConvTransposeWithDynamicPads", 1, KernelRegistry::kLatest,
        [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<ConvTranspose>(init, true); });
}

} // namespace onnxscope
