// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>

namespace onnxscope {

namespace {

enum class GridMode { Bilinear, Nearest, Bicubic };
enum class GridPadding { Zeros, Border, Reflection };

/// Reflects x into [low, high] (given doubled, as PyTorch's reflect_coordinates does).
double reflect(double x, double twiceLow, double twiceHigh)
{
    if (twiceLow == twiceHigh)
        return 0;
    const double lo = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
    x = std::fabs(x - lo);
    const double extra = std::fmod(x, span);
    const double flips = std::floor(x / span);
    return std::fmod(flips, 2.0) == 0 ? extra + lo : span - extra + lo;
}

/// GridSample 16 and 20 (20 names the modes linear/cubic, and adds the volumetric form: X [N, C, D, H, W], grid [N,
/// D_out, H_out, W_out, 3] of (x, y, z), linear or nearest): X [N, C, H, W] sampled at grid [N, H_out, W_out, 2] of
/// normalised (x, y) in [-1, 1]. Modes bilinear, nearest (round half to even), bicubic
/// (A = -0.75); padding zeros, border, reflection; align_corners. Follows PyTorch's grid_sampler, which produced
/// ONNX's expected outputs: bicubic applies the padding to each of its 16 taps. Float element types; computed in
/// double.
class GridSample final : public Kernel {
public:
    explicit GridSample(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_alignCorners = a.getInt("align_corners", 0) != 0;
        const std::string mode = a.getString("mode", init.opset() >= 20 ? "linear" : "bilinear");
        if (mode == "bilinear" || mode == "linear")
            m_mode = GridMode::Bilinear;
        else if (mode == "nearest")
            m_mode = GridMode::Nearest;
        else if (mode == "bicubic" || mode == "cubic")
            m_mode = GridMode::Bicubic;
        else
            throw a.error("mode", "expected bilinear, nearest or bicubic, got \"" + mode + "\"");
        const std::string padding = a.getString("padding_mode", "zeros");
        if (padding == "zeros")
            m_padding = GridPadding::Zeros;
        else if (padding == "border")
            m_padding = GridPadding::Border;
        else if (padding == "reflection")
            m_padding = GridPadding::Reflection;
        else
            throw a.error("padding_mode", "expected zeros, border or reflection, got \"" + padding + "\"");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& grid = ctx.input(1);
        const int64_t spatial = x.rank() - 2;
        if (spatial != 2 && spatial != 3)
            throw ctx.error("X must be [N, C, H, W] or [N, C, D, H, W], got " + x.typeString());
        if (spatial == 3 && m_mode == GridMode::Bicubic)
            throw ctx.error("cubic mode is defined for 4-D X only, got " + x.typeString());
        if (grid.rank() != x.rank() || grid.dim(grid.rank() - 1) != spatial || grid.dim(0) != x.dim(0))
            throw ctx.error("grid must be [N, " + std::string(spatial == 3 ? "D_out, " : "") + "H_out, W_out, "
                + std::to_string(spatial) + "] with N = " + std::to_string(x.dim(0)) + ", got " + grid.typeString());
        std::vector<double> g(static_cast<size_t>(grid.size()));
        dispatch<FloatTypes>(grid.dtype(), ctx.node(), ": grid", [&]<class T>() {
            auto s = grid.data<T>();
            for (size_t i = 0; i < s.size(); ++i)
                g[i] = static_cast<double>(s[i]);
        });
        if (spatial == 3) {
            computeVolume(ctx, x, grid, g);
            return;
        }
        const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
        const int64_t ho = grid.dim(1), wo = grid.dim(2);
        Tensor& y = ctx.allocateOutput(0, x.dtype(), { n, c, ho, wo });
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto src = x.data<T>();
            auto dst = y.data<T>();
            for (int64_t b = 0; b < n; ++b)
                for (int64_t ch = 0; ch < c; ++ch) {
                    const T* plane = src.data() + (b * c + ch) * h * w;
                    T* out = dst.data() + (b * c + ch) * ho * wo;
                    for (int64_t i = 0; i < ho * wo; ++i) {
                        const size_t gi = static_cast<size_t>((b * ho * wo + i) * 2);
                        out[i] = static_cast<T>(sample(plane, h, w, g[gi], g[gi + 1]));
                    }
                }
        });
    }

private:
    /// The volumetric form of GridSample 20: X [N, C, D, H, W], grid [N, D_out, H_out, W_out, 3] of (x, y, z).
    void computeVolume(KernelContext& ctx, const Tensor& x, const Tensor& grid, const std::vector<double>& g) const
    {
        const int64_t n = x.dim(0), c = x.dim(1), d = x.dim(2), h = x.dim(3), w = x.dim(4);
        const int64_t outSize = grid.dim(1) * grid.dim(2) * grid.dim(3);
        Tensor& y = ctx.allocateOutput(0, x.dtype(), { n, c, grid.dim(1), grid.dim(2), grid.dim(3) });
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto src = x.data<T>();
            auto dst = y.data<T>();
            for (int64_t b = 0; b < n; ++b)
                for (int64_t ch = 0; ch < c; ++ch) {
                    const T* vol = src.data() + (b * c + ch) * d * h * w;
                    T* out = dst.data() + (b * c + ch) * outSize;
                    for (int64_t i = 0; i < outSize; ++i) {
                        const size_t gi = static_cast<size_t>((b * outSize + i) * 3);
                        out[i] = static_cast<T>(sampleVolume(
                            vol, d, h, w, unnormalize(g[gi], w), unnormalize(g[gi + 1], h), unnormalize(g[gi + 2], d)));
                    }
                }
        });
    }

    template <class T>
    double sampleVolume(const T* vol, int64_t d, int64_t h, int64_t w, double ix, double iy, double iz) const
    {
        if (std::isnan(ix) || std::isnan(iy) || std::isnan(iz))
            return NAN;
        ix = pad(std::clamp(ix, -1e15, 1e15), w);
        iy = pad(std::clamp(iy, -1e15, 1e15), h);
        iz = pad(std::clamp(iz, -1e15, 1e15), d);
        const auto at3 = [&](int64_t zi, int64_t yi, int64_t xi) {
            return zi < 0 || zi >= d ? 0.0 : at(vol + zi * h * w, h, w, yi, xi);
        };
        if (m_mode == GridMode::Nearest)
            return at3(static_cast<int64_t>(std::nearbyint(iz)), static_cast<int64_t>(std::nearbyint(iy)),
                static_cast<int64_t>(std::nearbyint(ix)));
        const double fx = std::floor(ix), fy = std::floor(iy), fz = std::floor(iz);
        const auto x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy), z0 = static_cast<int64_t>(fz);
        const double tx = ix - fx, ty = iy - fy, tz = iz - fz;
        double sum = 0;
        for (int k = 0; k < 2; ++k)
            for (int j = 0; j < 2; ++j)
                for (int i = 0; i < 2; ++i)
                    sum += (k ? tz : 1 - tz) * (j ? ty : 1 - ty) * (i ? tx : 1 - tx) * at3(z0 + k, y0 + j, x0 + i);
        return sum;
    }

    double unnormalize(double coord, int64_t size) const
    {
        const double s = static_cast<double>(size);
        return m_alignCorners ? (coord + 1) / 2 * (s - 1) : ((coord + 1) * s - 1) / 2;
    }

    /// Applies the padding mode to a coordinate (border and reflection clamp it into the image).
    double pad(double coord, int64_t size) const
    {
        const double s = static_cast<double>(size);
        if (m_padding == GridPadding::Border)
            return std::clamp(coord, 0.0, s - 1);
        if (m_padding == GridPadding::Reflection) {
            coord = m_alignCorners ? reflect(coord, 0, 2 * (s - 1)) : reflect(coord, -1, 2 * s - 1);
            return std::clamp(coord, 0.0, s - 1);
        }
        return coord;
    }

    template <class T> static double at(const T* plane, int64_t h, int64_t w, int64_t yi, int64_t xi)
    {
        if (yi < 0 || yi >= h || xi < 0 || xi >= w)
            return 0;
        return static_cast<double>(plane[yi * w + xi]);
    }

    template <class T> double sample(const T* plane, int64_t h, int64_t w, double gx, double gy) const
    {
        return sampleClamped(plane, h, w, unnormalize(gx, w), unnormalize(gy, h));
    }

    template <class T> double sampleClamped(const T* plane, int64_t h, int64_t w, double ix, double iy) const
    {
        if (std::isnan(ix) || std::isnan(iy))
            return NAN;
        // Far-away coordinates read zeros (or the clamped border); keep them in a range int64 can hold.
        ix = std::clamp(ix, -1e15, 1e15);
        iy = std::clamp(iy, -1e15, 1e15);
        if (m_mode == GridMode::Bicubic) {
            const double fx = std::floor(ix), fy = std::floor(iy);
            const double tx = ix - fx, ty = iy - fy;
            double cx[4], cy[4];
            cubic(tx, cx);
            cubic(ty, cy);
            double sum = 0;
            for (int j = 0; j < 4; ++j) {
                double row = 0;
                for (int i = 0; i < 4; ++i)
                    row += cx[i] * tap(plane, h, w, fy - 1 + j, fx - 1 + i);
                sum += cy[j] * row;
            }
            return sum;
        }
        ix = pad(ix, w);
        iy = pad(iy, h);
        if (m_mode == GridMode::Nearest)
            return at(plane, h, w, static_cast<int64_t>(std::nearbyint(iy)), static_cast<int64_t>(std::nearbyint(ix)));
        const double fx = std::floor(ix), fy = std::floor(iy);
        const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
        const double tx = ix - fx, ty = iy - fy;
        return (1 - ty) * ((1 - tx) * at(plane, h, w, y0, x0) + tx * at(plane, h, w, y0, x0 + 1))
            + ty * ((1 - tx) * at(plane, h, w, y0 + 1, x0) + tx * at(plane, h, w, y0 + 1, x0 + 1));
    }

    /// One bicubic tap at integer coordinates: padded like PyTorch's get_value_bounded.
    template <class T> double tap(const T* plane, int64_t h, int64_t w, double yi, double xi) const
    {
        const double px = pad(xi, w), py = pad(yi, h);
        return at(plane, h, w, static_cast<int64_t>(py), static_cast<int64_t>(px));
    }

    static void cubic(double t, double c[4])
    {
        const double A = -0.75;
        auto near = [A](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
        auto far = [A](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
        c[0] = far(t + 1);
        c[1] = near(t);
        c[2] = near(1 - t);
        c[3] = far(2 - t);
    }

    bool m_alignCorners = false;
    GridMode m_mode = GridMode::Bilinear;
    GridPadding m_padding = GridPadding::Zeros;
};

} // namespace

void registerGridSample(KernelRegistry& r)
{
    r.add("", "GridSample", 16, 22, makeFactory<GridSample>());
}

} // namespace onnxscope
