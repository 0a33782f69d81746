// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/signal/spectral.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace onnxscope {

namespace {

/// Converts a window or matrix value to the output element type: floats directly, integers truncated toward zero
/// (as the ops' function bodies do with Cast) and saturated.
template <class T> T castOut(double v)
{
    if constexpr (std::is_integral_v<T>) {
        if (std::isnan(v))
            return T(0);
        v = std::trunc(v);
        if (v <= static_cast<double>(std::numeric_limits<T>::lowest()))
            return std::numeric_limits<T>::lowest();
        if (v >= static_cast<double>(std::numeric_limits<T>::max()))
            return std::numeric_limits<T>::max();
        return static_cast<T>(v);
    } else {
        return static_cast<T>(v);
    }
}

/// The numeric output types of the window functions and MelWeightMatrix (`output_datatype`, default float).
DataType outputType(const KernelInit& init)
{
    const int64_t t = init.attributes().getInt("output_datatype", 1);
    const DataType type = dataTypeFromOnnx(static_cast<int32_t>(t));
    if (!isNumeric(type) || isComplex(type))
        throw init.attributes().error("output_datatype", "expected a real numeric type, got " + std::to_string(t));
    return type;
}

/// HannWindow, HammingWindow, BlackmanWindow 17: w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) for n in
/// [0, size), N = size (periodic, the default) or size - 1 (symmetric; a symmetric window of size 1 is [1], as
/// numpy's). Computed in double with the exact pi (ONNX's own cases use 3.1415) and written as `output_datatype`.
class CosineWindow final : public Kernel {
public:
    CosineWindow(const KernelInit& init, double a0, double a1, double a2)
        : m_type(outputType(init))
        , m_periodic(init.attributes().getInt("periodic", 1) != 0)
        , m_a0(a0)
        , m_a1(a1)
        , m_a2(a2)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const int64_t size = readIntScalar(ctx, 0, "size");
        if (size < 0)
            throw ctx.error("size must not be negative, got " + std::to_string(size));
        Tensor& y = ctx.allocateOutput(0, m_type, { size });
        const double n = static_cast<double>(m_periodic ? size : size - 1);
        dispatch<NumericTypes>(m_type, ctx.node(), [&]<class T>() {
            auto d = y.data<T>();
            for (int64_t i = 0; i < size; ++i) {
                const double x = n > 0 ? 2 * std::numbers::pi * static_cast<double>(i) / n : 0.0;
                const double w = n > 0 ? m_a0 - m_a1 * std::cos(x) + m_a2 * std::cos(2 * x) : 1.0;
                d[static_cast<size_t>(i)] = castOut<T>(w);
            }
        });
    }

private:
    DataType m_type;
    bool m_periodic;
    double m_a0, m_a1, m_a2;
};

/// MelWeightMatrix 17: [floor(dft_length / 2) + 1, num_mel_bins] triangular filters spaced evenly on the mel scale
/// (mel = 2595 log10(1 + hz / 700)) between lower_edge_hertz and upper_edge_hertz, exactly as ONNX's reference
/// (num_mel_bins + 2 band edges, each rounded down to a spectrogram bin). Edges beyond the spectrogram are
/// skipped. Written as `output_datatype`.
class MelWeightMatrix final : public Kernel {
public:
    explicit MelWeightMatrix(const KernelInit& init)
        : m_type(outputType(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const int64_t mels = readIntScalar(ctx, 0, "num_mel_bins");
        const int64_t dftLength = readIntScalar(ctx, 1, "dft_length");
        const int64_t sampleRate = readIntScalar(ctx, 2, "sample_rate");
        const double lower = floatScalar(ctx, 3, "lower_edge_hertz"), upper = floatScalar(ctx, 4, "upper_edge_hertz");
        if (mels < 1 || dftLength < 1 || sampleRate < 1)
            throw ctx.error("num_mel_bins, dft_length and sample_rate must be positive");
        if (!(lower >= 0) || !(upper > lower) || !std::isfinite(upper))
            throw ctx.error("expected 0 <= lower_edge_hertz < upper_edge_hertz, got " + std::to_string(lower) + " and "
                + std::to_string(upper));
        const int64_t bins = dftLength / 2 + 1;
        Tensor& y = ctx.allocateOutput(0, m_type, { bins, mels });
        if (static_cast<size_t>(y.size()) > Tensor::allocationLimit() / 8)
            throw ctx.error("a " + std::to_string(bins) + " x " + std::to_string(mels)
                + " mel matrix needs more memory than allowed");
        auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
        const double lowMel = mel(lower), highMel = mel(upper);
        const double step = (highMel - lowMel) / static_cast<double>(mels + 2);
        std::vector<int64_t> edge(static_cast<size_t>(mels + 2));
        for (int64_t i = 0; i < mels + 2; ++i) {
            const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + lowMel) / 2595) - 1);
            edge[static_cast<size_t>(i)] = static_cast<int64_t>(
                std::floor(static_cast<double>(dftLength + 1) * hz / static_cast<double>(sampleRate)));
        }
        std::vector<double> w(static_cast<size_t>(bins * mels), 0.0);
        auto set = [&](int64_t j, int64_t i, double value) {
            if (j >= 0 && j < bins)
                w[static_cast<size_t>(j * mels + i)] = value;
        };
        for (int64_t i = 0; i < mels; ++i) {
            const int64_t lo = edge[static_cast<size_t>(i)], center = edge[static_cast<size_t>(i + 1)],
                          hi = edge[static_cast<size_t>(i + 2)];
            if (center == lo)
                set(center, i, 1);
            else
                for (int64_t j = lo; j <= center; ++j)
                    set(j, i, static_cast<double>(j - lo) / static_cast<double>(center - lo));
            for (int64_t j = center; j < hi; ++j)
                set(j, i, static_cast<double>(hi - j) / static_cast<double>(hi - center));
        }
        dispatch<NumericTypes>(m_type, ctx.node(), [&]<class T>() {
            auto d = y.data<T>();
            for (size_t i = 0; i < w.size(); ++i)
                d[i] = castOut<T>(w[i]);
        });
    }

private:
    static double floatScalar(const KernelContext& ctx, size_t input, const std::string& what)
    {
        const Tensor& t = ctx.input(input);
        if (t.size() != 1 || t.rank() > 1)
            throw ctx.error(what + " must be a scalar, got " + t.typeString());
        double v = 0;
        dispatch<FloatTypes>(
            t.dtype(), ctx.node().label() + ": " + what, [&]<class T>() { v = static_cast<double>(t.data<T>()[0]); });
        return v;
    }

    DataType m_type;
};

template <int Kind> KernelFactory windowFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> {
        if constexpr (Kind == 0)
            return std::make_unique<CosineWindow>(init, 0.5, 0.5, 0.0);
        else if constexpr (Kind == 1)
            return std::make_unique<CosineWindow>(init, 25.0 / 46.0, 21.0 / 46.0, 0.0);
        else
            return std::make_unique<CosineWindow>(init, 0.42, 0.5, 0.08);
    };
}

} // namespace

void registerWindows(KernelRegistry& r)
{
    r.add("", "HannWindow", 17, 17, windowFactory<0>());
    r.add("", "HammingWindow", 17, 17, windowFactory<1>());
    r.add("", "BlackmanWindow", 17, 17, windowFactory<2>());
    r.add("", "MelWeightMatrix", 17, 17, makeFactory<MelWeightMatrix>());
}

} // namespace onnxscope
