// SPDX-License-Identifier: MIT
#include "engine/kernels/signal/spectral.h"

#include "engine/kernels/common/dispatch.h"

#include <unsupported/Eigen/FFT>

namespace onnxscope {

void fourierTransform(std::vector<std::complex<double>>& x, bool inverse)
{
    if (x.size() <= 1)
        return;
    // Eigen::FFT caches twiddles per length; one per thread keeps kernels re-entrant.
    thread_local Eigen::FFT<double> fft;
    fft.SetFlag(Eigen::FFT<double>::Unscaled);
    std::vector<std::complex<double>> out;
    if (inverse) {
        fft.inv(out, x);
        const double scale = 1.0 / static_cast<double>(x.size());
        for (auto& v : out)
            v *= scale;
    } else {
        fft.fwd(out, x);
    }
    x.swap(out);
}

std::vector<std::complex<double>> readSignal(
    const KernelContext& ctx, const Tensor& t, const std::string& what, Shape& signalShape)
{
    if (t.rank() < 2 || (t.shape().back() != 1 && t.shape().back() != 2))
        throw ctx.error(what + " must end in a dimension of 1 (real) or 2 (complex), got " + t.typeString());
    signalShape.assign(t.shape().begin(), t.shape().end() - 1);
    const bool complex = t.shape().back() == 2;
    std::vector<std::complex<double>> v(static_cast<size_t>(t.size() / (complex ? 2 : 1)));
    dispatch<FloatTypes>(t.dtype(), ctx.node().label() + ": " + what, [&]<class T>() {
        auto d = t.data<T>();
        for (size_t i = 0; i < v.size(); ++i)
            v[i] = complex ? std::complex<double>(static_cast<double>(d[2 * i]), static_cast<double>(d[2 * i + 1]))
                           : std::complex<double>(static_cast<double>(d[i]), 0.0);
    });
    return v;
}

Tensor writeSpectrum(const KernelContext& ctx, DataType type, Shape shape, const std::vector<std::complex<double>>& v)
{
    shape.push_back(2);
    Tensor out(type, shape);
    dispatch<FloatTypes>(type, ctx.node(), [&]<class T>() {
        auto d = out.data<T>();
        for (size_t i = 0; i < v.size(); ++i) {
            d[2 * i] = static_cast<T>(v[i].real());
            d[2 * i + 1] = static_cast<T>(v[i].imag());
        }
    });
    return out;
}

int64_t readIntScalar(const KernelContext& ctx, size_t input, const std::string& what)
{
    const Tensor& t = ctx.input(input);
    if (t.size() != 1 || t.rank() > 1)
        throw ctx.error(what + " must be a scalar, got " + t.typeString());
    if (t.dtype() == DataType::Int64)
        return t.data<int64_t>()[0];
    if (t.dtype() == DataType::Int32)
        return t.data<int32_t>()[0];
    throw ctx.error(what + " must be int32 or int64, got " + t.typeString());
}

} // namespace onnxscope
