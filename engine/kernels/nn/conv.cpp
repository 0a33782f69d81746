// SPDX-License-Identifier: MIT
#include "engine/kernels/nn/conv.h"

#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/im2col.h"

#include <mutex>
#include <type_traits>
#include <vector>

namespace onnxscope {

namespace {

/// Conv 1, 11: 1-D, 2-D and 3-D convolution with group, strides, dilations, pads or auto_pad, optional bias.
/// float, double, float16, bfloat16; half types are computed in float. im2col + GEMM (convolve()).
/// Built with a ConvFolding (conv.h) for plain-run fusion: weights, bias and an activation fixed at plan time. Folded
/// float weights are kept packed for the GEMM (packConvWeights) instead of as they are: a private copy either way.
class Conv final : public Kernel {
public:
    explicit Conv(const KernelInit& init, ConvFolding folding = {})
        : m_window(WindowAttributes::parse(init, false))
        , m_group(init.attributes().getInt("group", 1))
        , m_folding(std::move(folding))
    {
        if (m_group < 1)
            throw init.attributes().error("group", "must be positive, got " + std::to_string(m_group));
        if (!m_folding.weights && init.graph && init.node.inputs.size() > 1 && init.node.inputs[1] != kNoValue)
            m_constantWeights = init.graph->value(init.node.inputs[1]).source == ValueInfo::Source::Initializer;
        if (m_folding.weights) {
            const Tensor& w = *m_folding.weights;
            m_weightShape = w.shape();
            m_weightsFinite = w.dtype() == DataType::Float && !simd::anyNonFinite(w.data<float>().data(), w.size());
            if (w.dtype() == DataType::Float && w.rank() >= 3 && w.dim(0) % m_group == 0)
                m_packed = packConvWeights(w.data<float>().data(), w.shape(), m_group);
            if (!m_packed.empty())
                m_folding.weights.reset();
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const bool folded = !m_weightShape.empty();
        const bool packed = !m_packed.empty();
        const Tensor* w = packed ? nullptr : (folded ? &*m_folding.weights : &ctx.input(1));
        const Shape& ws = w ? w->shape() : m_weightShape;
        const DataType wType = w ? w->dtype() : DataType::Float;
        const Tensor* b
            = folded ? (m_folding.bias ? &*m_folding.bias : nullptr) : (ctx.hasInput(2) ? &ctx.input(2) : nullptr);
        if (wType != x.dtype() || (b && b->dtype() != x.dtype()))
            throw ctx.error("X, W and B must have the same element type, got " + x.typeString() + ", "
                + (w ? w->typeString() : x.typeString()) + (b ? ", " + b->typeString() : std::string()));
        if (x.rank() < 3 || static_cast<int64_t>(ws.size()) != x.rank())
            throw ctx.error("X " + shapeToString(x.shape()) + " and W " + shapeToString(ws)
                + " must have the same rank, at least 3");
        const int64_t c = x.dim(1), m = ws[0];
        if (c % m_group != 0 || m % m_group != 0 || ws[1] * m_group != c)
            throw ctx.error("X " + shapeToString(x.shape()) + " and W " + shapeToString(ws)
                + " do not match with group " + std::to_string(m_group));
        if (b && (b->rank() != 1 || b->dim(0) != m))
            throw ctx.error("B " + shapeToString(b->shape()) + " must be [" + std::to_string(m) + "]");
        const ConvWindow window = resolveConvWindow(ctx, m_window, x, ws, "W");
        const WindowGeometry& g = window.geometry;
        const Shape& outShape = window.outShape;
        if (m_folding.activation.kind != simd::Activation::None && x.dtype() != DataType::Float)
            throw ctx.error("a fused activation needs float data, got " + x.typeString());
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), outShape);
        const ConvolveOptions options { ctx.threadPool(), m_folding.activation, packed ? m_packed.data() : nullptr,
            folded ? m_weightsFinite : constantWeightsFinite(*w), folded || m_constantWeights ? &m_liveTaps : nullptr };
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
                convolve<T>(x.data<T>().data(), w ? w->data<T>().data() : nullptr, b ? b->data<T>().data() : nullptr,
                    y.data<T>().data(), x.dim(0), c, m, m_group, g, options);
            } else {
                auto xf = convertElements<float>(x.data<T>()), wf = convertElements<float>(w->data<T>());
                auto bf = b ? convertElements<float>(b->data<T>()) : std::vector<float>();
                std::vector<float> yf(static_cast<size_t>(y.size()));
                convolve<float>(
                    xf.data(), wf.data(), b ? bf.data() : nullptr, yf.data(), x.dim(0), c, m, m_group, g, options);
                auto out = y.data<T>();
                for (size_t i = 0; i < yf.size(); ++i)
                    out[i] = static_cast<T>(yf[i]);
            }
        });
    }

private:
    /// For W an initializer of the graph (it cannot change while the kernel lives): whether its float values are all
    /// finite, checked on the first run. False for other weights (convolve() then checks what it needs).
    bool constantWeightsFinite(const Tensor& w) const
    {
        if (!m_constantWeights || w.dtype() != DataType::Float)
            return false;
        std::call_once(m_finiteOnce, [&] { m_constantFinite = !simd::anyNonFinite(w.data<float>().data(), w.size()); });
        return m_constantFinite;
    }

    WindowAttributes m_window;
    int64_t m_group;
    ConvFolding m_folding;
    Shape m_weightShape; // of the folded weights (empty: W is the node's input)
    std::vector<float> m_packed; // the folded float weights, packed (then m_folding.weights is dropped)
    bool m_weightsFinite = false; // every folded weight is finite
    bool m_constantWeights = false; // W is an initializer, not a graph input
    mutable std::once_flag m_finiteOnce;
    mutable bool m_constantFinite = false;
    mutable LiveTapCache m_liveTaps; // for folded or constant weights
};

} // namespace

std::unique_ptr<Kernel> makeFoldedConv(const KernelInit& init, ConvFolding folding)
{
    return std::make_unique<Conv>(init, std::move(folding));
}

void registerConv(KernelRegistry& r)
{
    r.add("", "Conv", 1, 22, makeFactory<Conv>());
}

} // namespace onnxscope
