// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/int_input.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/resize_core.h"

#include <cmath>

namespace onnxscope {

namespace {

/// The elements of a floating-point input (float, double, float16, bfloat16) as doubles.
std::vector<double> readFloatList(const KernelContext& ctx, size_t i, const std::string& what)
{
    const Tensor& t = ctx.input(i);
    std::vector<double> v;
    dispatch<FloatTypes>(t.dtype(), ctx.node().label() + ": input '" + what + "'", [&]<class T>() {
        for (T e : t.data<T>())
            v.push_back(static_cast<double>(e));
    });
    return v;
}

enum class AspectPolicy { Stretch, NotLarger, NotSmaller };

/// Resize, every version: 10 (X, scales; nearest/linear with Upsample's asymmetric coordinates and legacy
/// nearest rounding, as onnxruntime does), 11-17 (roi, scales, sizes; every coordinate_transformation_mode,
/// nearest_mode, cubic with cubic_coeff_a and exclude_outside, extrapolation_value), 18+ (axes,
/// keep_aspect_ratio_policy; 19's half_pixel_symmetric). Nearest takes every element type, linear and cubic every
/// numeric type (integers are computed in double, rounded half to even and saturated). antialias (18) widens the
/// linear/cubic filter by 1 / scale when downsampling, with the coefficients of ONNX's reference implementation.
class Resize final : public Kernel {
public:
    explicit Resize(const KernelInit& init)
        : m_opset(init.opset())
    {
        const auto& a = init.attributes();
        const std::string mode = a.getString("mode", "nearest");
        if (mode == "nearest")
            m_params.mode = ResizeMode::Nearest;
        else if (mode == "linear")
            m_params.mode = ResizeMode::Linear;
        else if (mode == "cubic" && m_opset >= 11)
            m_params.mode = ResizeMode::Cubic;
        else
            throw a.error("mode",
                "expected nearest, linear" + std::string(m_opset >= 11 ? " or cubic" : "") + ", got \"" + mode + "\"");
        if (m_opset < 11) {
            m_params.coordinates = CoordinateMode::Asymmetric;
            m_params.nearest = NearestMode::Legacy;
            return;
        }
        const std::string coord = a.getString("coordinate_transformation_mode", "half_pixel");
        if (!parseCoordinateMode(coord, m_params.coordinates)
            || (m_params.coordinates == CoordinateMode::HalfPixelSymmetric && m_opset < 19))
            throw a.error("coordinate_transformation_mode", "unknown mode \"" + coord + "\"");
        const std::string nearest = a.getString("nearest_mode", "round_prefer_floor");
        if (!parseNearestMode(nearest, m_params.nearest))
            throw a.error("nearest_mode", "unknown mode \"" + nearest + "\"");
        m_params.cubicA = a.getFloat("cubic_coeff_a", -0.75f);
        m_params.excludeOutside = a.getInt("exclude_outside", 0) != 0;
        m_params.extrapolationValue = a.getFloat("extrapolation_value", 0.0f);
        if (m_opset >= 18) {
            m_params.antialias = a.getInt("antialias", 0) != 0;
            m_axes = a.getInts("axes");
            const std::string policy = a.getString("keep_aspect_ratio_policy", "stretch");
            if (policy == "stretch")
                m_policy = AspectPolicy::Stretch;
            else if (policy == "not_larger")
                m_policy = AspectPolicy::NotLarger;
            else if (policy == "not_smaller")
                m_policy = AspectPolicy::NotSmaller;
            else
                throw a.error(
                    "keep_aspect_ratio_policy", "expected stretch, not_larger or not_smaller, got \"" + policy + "\"");
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const int64_t rank = x.rank();
        std::vector<int64_t> axes;
        if (m_axes.empty()) {
            for (int64_t d = 0; d < rank; ++d)
                axes.push_back(d);
        } else {
            std::vector<bool> seen(static_cast<size_t>(rank), false);
            for (int64_t a : m_axes) {
                if (a < -rank || a >= rank)
                    throw ctx.error(
                        "attribute 'axes': " + std::to_string(a) + " is out of range for " + x.typeString());
                a = a < 0 ? a + rank : a;
                if (seen[static_cast<size_t>(a)])
                    throw ctx.error("attribute 'axes': axis " + std::to_string(a) + " is repeated");
                seen[static_cast<size_t>(a)] = true;
                axes.push_back(a);
            }
        }
        const size_t n = axes.size();

        std::vector<double> scales;
        std::vector<int64_t> sizes;
        const size_t scalesInput = m_opset < 11 ? 1 : 2;
        if (ctx.hasInput(scalesInput) && ctx.input(scalesInput).size() > 0)
            scales = readFloatList(ctx, scalesInput, "scales");
        if (m_opset >= 11 && ctx.hasInput(3) && ctx.input(3).size() > 0)
            sizes = readIntList(ctx, 3, "sizes");
        if (!scales.empty() && !sizes.empty())
            throw ctx.error("only one of 'scales' and 'sizes' may be given");
        if (scales.empty() && sizes.empty())
            throw ctx.error(m_opset < 11 ? "input 'scales' is empty" : "one of 'scales' and 'sizes' is required");
        if ((!scales.empty() && scales.size() != n) || (!sizes.empty() && sizes.size() != n))
            throw ctx.error("'" + std::string(scales.empty() ? "sizes" : "scales") + "' has "
                + std::to_string(scales.empty() ? sizes.size() : scales.size()) + " values, expected "
                + std::to_string(n) + " for " + x.typeString());

        std::vector<ResizeAxis> ax(static_cast<size_t>(rank));
        for (int64_t d = 0; d < rank; ++d) {
            auto& a = ax[static_cast<size_t>(d)];
            a.outLength = x.dim(d);
            a.resizedLength = static_cast<double>(x.dim(d));
        }
        if (m_params.coordinates == CoordinateMode::TfCropAndResize) {
            if (!ctx.hasInput(1) || ctx.input(1).size() == 0)
                throw ctx.error("tf_crop_and_resize needs the input 'roi'");
            const auto roi = readFloatList(ctx, 1, "roi");
            if (roi.size() != 2 * n)
                throw ctx.error(
                    "'roi' has " + std::to_string(roi.size()) + " values, expected " + std::to_string(2 * n));
            for (size_t i = 0; i < n; ++i) {
                ax[static_cast<size_t>(axes[i])].roiStart = roi[i];
                ax[static_cast<size_t>(axes[i])].roiEnd = roi[i + n];
            }
        }

        if (!scales.empty()) {
            for (size_t i = 0; i < n; ++i) {
                auto& a = ax[static_cast<size_t>(axes[i])];
                const double s = scales[i];
                if (!(s > 0) || !std::isfinite(s))
                    throw ctx.error("scales must be positive and finite, got " + std::to_string(s));
                const double in = static_cast<double>(x.dim(axes[i]));
                const double extent
                    = m_params.coordinates == CoordinateMode::TfCropAndResize ? a.roiEnd - a.roiStart : 1.0;
                const double len = in * extent * s;
                if (!(len < 9.0e15))
                    throw ctx.error(
                        "scale " + std::to_string(s) + " makes axis " + std::to_string(axes[i]) + " too large");
                a.scale = s;
                a.resizedLength = len;
                a.outLength = static_cast<int64_t>(std::floor(std::max(len, 0.0)));
            }
        } else {
            for (size_t i = 0; i < n; ++i)
                if (sizes[i] < 0)
                    throw ctx.error("sizes must not be negative, got " + std::to_string(sizes[i]));
            double common = 0;
            if (m_policy != AspectPolicy::Stretch) {
                for (size_t i = 0; i < n; ++i) {
                    const double r = static_cast<double>(sizes[i]) / static_cast<double>(x.dim(axes[i]));
                    if (i == 0 || (m_policy == AspectPolicy::NotLarger ? r < common : r > common))
                        common = r;
                }
            }
            for (size_t i = 0; i < n; ++i) {
                auto& a = ax[static_cast<size_t>(axes[i])];
                const double in = static_cast<double>(x.dim(axes[i]));
                if (m_policy == AspectPolicy::Stretch) {
                    a.outLength = sizes[i];
                    a.scale = in > 0 ? static_cast<double>(sizes[i]) / in : 1.0;
                } else {
                    if (!std::isfinite(common) || common * in > 9.0e15)
                        throw ctx.error("sizes give no finite aspect-preserving scale for " + x.typeString());
                    a.scale = common;
                    a.outLength = static_cast<int64_t>(std::nearbyint(common * in));
                }
                a.resizedLength = static_cast<double>(a.outLength);
            }
        }
        ctx.setOutput(0, resizeTensor(ctx, m_params, x, ax));
    }

private:
    int64_t m_opset;
    ResizeParams m_params;
    std::vector<int64_t> m_axes;
    AspectPolicy m_policy = AspectPolicy::Stretch;
};

} // namespace

void registerResize(KernelRegistry& r)
{
    r.add("", "Resize", 10, 19, makeFactory<Resize>());
}

} // namespace onnxscope
