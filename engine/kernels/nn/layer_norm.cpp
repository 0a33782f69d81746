// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// LayerNormalization 17: normalises over the axes [axis, rank): y = (x - mean) / sqrt(var + epsilon) * Scale + B,
/// Scale and optional B broadcast to X's normalised shape. Optional outputs Mean and InvStdDev have X's shape with
/// the normalised axes set to 1 and the element type of stash_type (float by default). X float, double, float16,
/// bfloat16; statistics in double.
class LayerNorm final : public Kernel {
public:
    explicit LayerNorm(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", -1))
        , m_epsilon(init.attributes().getFloat("epsilon", 1e-5f))
    {
        const int64_t stash = init.attributes().getInt("stash_type", 1);
        m_stash = dataTypeFromOnnx(static_cast<int32_t>(stash));
        if (!isFloatingPoint(m_stash))
            throw init.attributes().error("stash_type", "must be a floating-point type, got " + std::to_string(stash));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        int64_t axis = 0;
        try {
            axis = normalizeAxis(m_axis, x.rank());
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        const Shape normShape(x.shape().begin() + axis, x.shape().end());
        const int64_t inner = elementCount(normShape), outer = inner == 0 ? 0 : x.size() / inner;
        Tensor params[2];
        for (size_t i = 0; i < 2; ++i) {
            if (!ctx.hasInput(i + 1))
                continue;
            const Tensor& p = ctx.input(i + 1);
            if (p.dtype() != x.dtype() || p.rank() > static_cast<int64_t>(normShape.size()))
                throw ctx.error(std::string(i == 0 ? "Scale " : "B ") + p.typeString() + " does not broadcast to "
                    + shapeToString(normShape));
            for (int64_t d = 0; d < p.rank(); ++d)
                if (p.dim(p.rank() - 1 - d) != 1
                    && p.dim(p.rank() - 1 - d) != normShape[normShape.size() - 1 - static_cast<size_t>(d)])
                    throw ctx.error(std::string(i == 0 ? "Scale " : "B ") + shapeToString(p.shape())
                        + " does not broadcast to " + shapeToString(normShape));
            // Already of the normalized shape (the usual case): read in place, not broadcast into a copy every run.
            params[i] = p.shape() == normShape ? p : Tensor(x.dtype(), normShape);
        }
        Shape statShape = x.shape();
        for (size_t d = static_cast<size_t>(axis); d < statShape.size(); ++d)
            statShape[d] = 1;
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        std::vector<double> means(static_cast<size_t>(outer)), inv(static_cast<size_t>(outer));
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            for (size_t i = 0; i < 2; ++i)
                if (params[i].defined() && params[i].shape() != ctx.input(i + 1).shape())
                    broadcastTo<T>(ctx.input(i + 1), params[i]);
            auto in = x.data<T>();
            auto out = y.data<T>();
            const T* scale = params[0].defined() ? params[0].data<T>().data() : nullptr;
            const T* bias = params[1].defined() ? params[1].data<T>().data() : nullptr;
            for (int64_t o = 0; o < outer; ++o) {
                const auto base = static_cast<size_t>(o * inner);
                // Four partial sums each, so that the additions (in double) do not wait on one another.
                const T* row = in.data() + base;
                double s4[4] = {}, q4[4] = {};
                int64_t j = 0;
                for (; j + 4 <= inner; j += 4)
                    for (int64_t l = 0; l < 4; ++l)
                        s4[l] += static_cast<double>(row[j + l]);
                for (; j < inner; ++j)
                    s4[0] += static_cast<double>(row[j]);
                const double mean = (s4[0] + s4[1] + s4[2] + s4[3]) / static_cast<double>(inner);
                for (j = 0; j + 4 <= inner; j += 4)
                    for (int64_t l = 0; l < 4; ++l) {
                        const double d = static_cast<double>(row[j + l]) - mean;
                        q4[l] += d * d;
                    }
                for (; j < inner; ++j) {
                    const double d = static_cast<double>(row[j]) - mean;
                    q4[0] += d * d;
                }
                const double sq = q4[0] + q4[1] + q4[2] + q4[3];
                const double is = 1.0 / std::sqrt(sq / static_cast<double>(inner) + m_epsilon);
                means[static_cast<size_t>(o)] = mean;
                inv[static_cast<size_t>(o)] = is;
                for (int64_t j = 0; j < inner; ++j) {
                    const auto k = base + static_cast<size_t>(j);
                    double v = (static_cast<double>(in[k]) - mean) * is;
                    if (scale)
                        v *= static_cast<double>(scale[j]);
                    if (bias)
                        v += static_cast<double>(bias[j]);
                    out[k] = static_cast<T>(v);
                }
            }
        });
        for (size_t i = 1; i < 3; ++i) {
            if (!ctx.hasOutput(i))
                continue;
            Tensor& t = ctx.allocateOutput(i, m_stash, statShape);
            const std::vector<double>& src = i == 1 ? means : inv;
            dispatch<FloatTypes>(m_stash, ctx.node(), [&]<class T>() {
                auto d = t.data<T>();
                for (size_t k = 0; k < src.size(); ++k)
                    d[k] = static_cast<T>(src[k]);
            });
        }
    }

private:
    int64_t m_axis;
    double m_epsilon;
    DataType m_stash = DataType::Float;
};

} // namespace

void registerLayerNorm(KernelRegistry& r)
{
    // onnxruntime registers LayerNormalization in the default domain from version 1 (before onnx defined it in 17,
    // its transformer optimizer wrote it at whatever opset the model had), with the meaning of version 17. Those
    // opsets resolve to no schema, so the range 1-16 is one of opsets; model_diagnostics warns about such nodes.
    r.add("", "LayerNormalization", 1, 16, makeFactory<LayerNorm>());
    r.add("", "LayerNormalization", 17, 17, makeFactory<LayerNorm>());
}

} // namespace onnxscope
