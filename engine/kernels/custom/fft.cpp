// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <unsupported/Eigen/FFT>

#include <cmath>

namespace onnxscope {

namespace {

/// X as complex128 (real float/double inputs get a zero imaginary part); remembers whether X was single precision.
Tensor toComplex(const KernelContext& ctx, const Tensor& x, bool& single)
{
    Tensor out(DataType::Complex128, x.shape());
    auto dst = out.data<Complex128>();
    switch (x.dtype()) {
    case DataType::Float:
    case DataType::Complex64:
        single = true;
        break;
    case DataType::Double:
    case DataType::Complex128:
        single = false;
        break;
    default:
        throw ctx.error("input X must be float, double, complex64 or complex128, got " + x.typeString());
    }
    for (int64_t i = 0; i < x.size(); ++i) {
        const size_t s = static_cast<size_t>(i);
        switch (x.dtype()) {
        case DataType::Float:
            dst[s] = Complex128(x.data<float>()[s], 0);
            break;
        case DataType::Double:
            dst[s] = Complex128(x.data<double>()[s], 0);
            break;
        case DataType::Complex64:
            dst[s] = Complex128(x.data<Complex64>()[s]);
            break;
        default:
            dst[s] = x.data<Complex128>()[s];
        }
    }
    return out;
}

/// numpy.fft.fft of `x` (complex128) along `axis`, zero-padded or cropped to `length`; keeps the first `keep` outputs.
Tensor fftAlong(const Tensor& x, int64_t axis, int64_t length, int64_t keep)
{
    Shape shape = x.shape();
    const int64_t n = shape[static_cast<size_t>(axis)];
    shape[static_cast<size_t>(axis)] = keep;
    Tensor out(DataType::Complex128, shape);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
        outer *= x.dim(d);
    for (int64_t d = axis + 1; d < x.rank(); ++d)
        inner *= x.dim(d);
    auto src = x.data<Complex128>();
    auto dst = out.data<Complex128>();
    Eigen::FFT<double> fft;
    std::vector<Complex128> in(static_cast<size_t>(length)), res(static_cast<size_t>(length));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            for (int64_t t = 0; t < length; ++t)
                in[static_cast<size_t>(t)] = t < n ? src[static_cast<size_t>((o * n + t) * inner + i)] : Complex128();
            if (length > 0)
                fft.fwd(res, in);
            for (int64_t t = 0; t < keep; ++t)
                dst[static_cast<size_t>((o * keep + t) * inner + i)] = res[static_cast<size_t>(t)];
        }
    return out;
}

void setComplexOutput(KernelContext& ctx, const Tensor& result, bool single)
{
    if (!single) {
        ctx.setOutput(0, Value(result));
        return;
    }
    Tensor& out = ctx.allocateOutput(0, DataType::Complex64, result.shape());
    auto src = result.data<Complex128>();
    auto dst = out.data<Complex64>();
    for (size_t i = 0; i < src.size(); ++i)
        dst[i] = Complex64(src[i]);
}

std::vector<int64_t> readLengths(const KernelContext& ctx, size_t count)
{
    if (ctx.inputCount() < 2 || !ctx.hasInput(1))
        return {};
    const Tensor& t = ctx.input(1);
    if (t.dtype() != DataType::Int64 || t.size() != static_cast<int64_t>(count))
        throw ctx.error("fft_length must be int64 with " + std::to_string(count) + " value(s), got " + t.typeString());
    std::vector<int64_t> v(t.data<int64_t>().begin(), t.data<int64_t>().end());
    for (int64_t l : v)
        if (l < 1 || l > (int64_t(1) << 40))
            throw ctx.error("fft_length " + std::to_string(l) + " is out of range");
    return v;
}

enum class FftKind { Fft, Rfft, Fft2d };

/// FFT, RFFT and FFT2D (mlprodict 1), as numpy.fft.fft / rfft / fft2: along `axis` (FFT, RFFT; default -1) or
/// `axes` (FFT2D; default [-2, -1]), each axis zero-padded or cropped to the optional fft_length input (int64 [1] or
/// [2]). float and complex64 give complex64, double and complex128 complex128; RFFT takes real input only and keeps
/// n/2 + 1 outputs. Computed in double with Eigen's FFT module.
class Fft final : public Kernel {
public:
    Fft(const KernelInit& init, FftKind kind)
        : m_kind(kind)
    {
        const auto& a = init.attributes();
        if (kind == FftKind::Fft2d) {
            m_axes = a.getInts("axes", { -2, -1 });
            if (m_axes.size() != 2)
                throw a.error("axes", "expected 2 axes, got " + std::to_string(m_axes.size()));
        } else {
            m_axes = { a.getInt("axis", -1) };
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (m_kind == FftKind::Rfft && isComplex(x.dtype()))
            throw ctx.error("RFFT takes real input, got " + x.typeString());
        bool single = true;
        Tensor data = toComplex(ctx, x, single);
        const auto lengths = readLengths(ctx, m_axes.size());
        std::vector<int64_t> axes;
        for (int64_t axis : m_axes) {
            try {
                axes.push_back(normalizeAxis(axis, x.rank()));
            } catch (const Error& e) {
                throw ctx.error(e.what());
            }
        }
        if (axes.size() == 2 && axes[0] == axes[1])
            throw ctx.error("axes must be two different axes");
        for (size_t i = 0; i < axes.size(); ++i) {
            const int64_t len = lengths.empty() ? data.dim(axes[i]) : lengths[i];
            Shape s = data.shape();
            s[static_cast<size_t>(axes[i])] = len;
            elementCount(s); // refuses absurd sizes before allocating
            const int64_t keep = m_kind == FftKind::Rfft ? len / 2 + 1 : len;
            data = fftAlong(data, axes[i], len, keep);
        }
        setComplexOutput(ctx, data, single);
    }

private:
    FftKind m_kind;
    std::vector<int64_t> m_axes;
};

/// ComplexAbs (mlprodict 1): |x| element-wise; complex64 -> float, complex128 -> double.
class ComplexAbs final : public Kernel {
public:
    explicit ComplexAbs(const KernelInit&) { }
    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() == DataType::Complex64) {
            auto dst = ctx.allocateOutput(0, DataType::Float, x.shape()).data<float>();
            auto src = x.data<Complex64>();
            for (size_t i = 0; i < src.size(); ++i)
                dst[i] = std::abs(src[i]);
        } else if (x.dtype() == DataType::Complex128) {
            auto dst = ctx.allocateOutput(0, DataType::Double, x.shape()).data<double>();
            auto src = x.data<Complex128>();
            for (size_t i = 0; i < src.size(); ++i)
                dst[i] = std::abs(src[i]);
        } else {
            throw ctx.error("input must be complex64 or complex128, got " + x.typeString());
        }
    }
};

template <FftKind K> KernelFactory fftFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Fft>(init, K); };
}

} // namespace

void registerFftOps(KernelRegistry& r)
{
    r.add("mlprodict", "FFT", 1, KernelRegistry::kLatest, fftFactory<FftKind::Fft>());
    r.add("mlprodict", "RFFT", 1, KernelRegistry::kLatest, fftFactory<FftKind::Rfft>());
    r.add("mlprodict", "FFT2D", 1, KernelRegistry::kLatest, fftFactory<FftKind::Fft2d>());
    r.add("mlprodict", "ComplexAbs", 1, KernelRegistry::kLatest, makeFactory<ComplexAbs>());
}

} // namespace onnxscope
