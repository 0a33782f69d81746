// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <vector>

namespace onnxscope {

namespace {

/// RMSNormalization 23: Y = X / sqrt(mean(X², over the axes [axis, rank)) + epsilon) * scale, scale broadcast to X
/// (unidirectionally). X and scale float, double, float16, bfloat16; Y has scale's element type. The statistics are
/// computed in double whatever stash_type asks (it may only be a floating-point type).
class RmsNormalization final : public Kernel {
public:
    explicit RmsNormalization(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", -1))
        , m_epsilon(init.attributes().getFloat("epsilon", 1e-5f))
    {
        const int64_t stash = init.attributes().getInt("stash_type", 1);
        if (!isFloatingPoint(dataTypeFromOnnx(static_cast<int32_t>(stash))))
            throw init.attributes().error("stash_type", "must be a floating-point type, got " + std::to_string(stash));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& scale = ctx.input(1);
        int64_t axis = 0;
        try {
            axis = normalizeAxis(m_axis, x.rank());
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        if (scale.rank() > x.rank())
            throw ctx.error(
                "scale " + shapeToString(scale.shape()) + " does not broadcast to X " + shapeToString(x.shape()));
        for (int64_t d = 1; d <= scale.rank(); ++d)
            if (scale.dim(scale.rank() - d) != 1 && scale.dim(scale.rank() - d) != x.dim(x.rank() - d))
                throw ctx.error(
                    "scale " + shapeToString(scale.shape()) + " does not broadcast to X " + shapeToString(x.shape()));
        const int64_t inner = elementCount(Shape(x.shape().begin() + axis, x.shape().end()));
        const int64_t outer = inner == 0 ? 0 : x.size() / inner;
        // The scale over the whole of X when it reaches before `axis`, else over one normalised block.
        const bool whole = scale.rank() > x.rank() - axis;
        Tensor s(scale.dtype(), whole ? x.shape() : Shape(x.shape().begin() + axis, x.shape().end()));
        dispatch<FloatTypes>(scale.dtype(), ctx.node(), " scale", [&]<class S>() { broadcastTo<S>(scale, s); });
        std::vector<double> sv(static_cast<size_t>(s.size()));
        for (size_t i = 0; i < sv.size(); ++i)
            sv[i] = s.toDouble(static_cast<int64_t>(i));
        Tensor& y = ctx.allocateOutputUninitialized(0, scale.dtype(), x.shape());
        std::vector<double> xv(static_cast<size_t>(inner));
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            const T* in = x.data<T>().data();
            dispatch<FloatTypes>(y.dtype(), ctx.node(), [&]<class S>() {
                S* out = y.data<S>().data();
                for (int64_t o = 0; o < outer; ++o) {
                    double sq = 0;
                    for (int64_t j = 0; j < inner; ++j) {
                        xv[static_cast<size_t>(j)] = static_cast<double>(in[o * inner + j]);
                        sq += xv[static_cast<size_t>(j)] * xv[static_cast<size_t>(j)];
                    }
                    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(inner) + m_epsilon);
                    const double* sc = sv.data() + (whole ? o * inner : 0);
                    for (int64_t j = 0; j < inner; ++j)
                        out[o * inner + j] = static_cast<S>(xv[static_cast<size_t>(j)] * inv * sc[j]);
                }
            });
        });
    }

private:
    int64_t m_axis;
    double m_epsilon;
};

} // namespace

void registerRmsNormalization(KernelRegistry& r)
{
    r.add("", "RMSNormalization", 23, 23, makeFactory<RmsNormalization>());
}

} // namespace onnxscope
