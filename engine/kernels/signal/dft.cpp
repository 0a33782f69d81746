// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/signal/spectral.h"

#include <algorithm>

namespace onnxscope {

namespace {

/// DFT 17 (axis attribute, counted from the batch dim, default 1) and 20+ (axis as input 2, default -2): a real
/// [..., 1] or complex [..., 2] signal of a float type, transformed along `axis` after zero-padding or cropping it
/// to dft_length; inverse scales by 1/n (numpy.fft.ifft); onesided keeps the first floor(n/2) + 1 outputs. Output
/// [..., 2] of the input's type, computed in double. onesided with inverse is the inverse real transform
/// (numpy.fft.irfft, the meaning DFT 20 gives it and onnx's reference gives 17 too): the first floor(n/2) + 1 complex
/// values (cropped or zero-padded) are completed by conjugate symmetry and transformed back to a real [..., n, ...,
/// 1] signal, n = dft_length, by default 2 * (length - 1).
class Dft final : public Kernel {
public:
    explicit Dft(const KernelInit& init)
        : m_opset(init.opset())
    {
        const auto& a = init.attributes();
        m_inverse = a.getInt("inverse", 0) != 0;
        m_onesided = a.getInt("onesided", 0) != 0;
        if (m_opset < 20)
            m_axis = a.getInt("axis", 1);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Shape sig;
        const auto v = readSignal(ctx, x, "input", sig);
        const int64_t rank = static_cast<int64_t>(sig.size());
        int64_t axis = m_axis;
        if (m_opset >= 20) {
            axis = ctx.hasInput(2) ? readIntScalar(ctx, 2, "axis") : -2;
            if (axis < 0)
                axis += rank + 1;
        } else if (axis < 0) {
            axis += rank;
        }
        if (axis < 0 || axis >= rank)
            throw ctx.error("axis " + std::to_string(axis) + " is out of range for " + x.typeString());
        const int64_t len = sig[static_cast<size_t>(axis)];
        const bool irfft = m_inverse && m_onesided;
        int64_t n = irfft ? 2 * (len - 1) : len;
        if (ctx.hasInput(1) && ctx.input(1).size() > 0)
            n = readIntScalar(ctx, 1, "dft_length");
        if (n < 1)
            throw ctx.error("dft_length must be positive, got " + std::to_string(n));
        const int64_t keep = m_onesided && !irfft ? n / 2 + 1 : n;
        const int64_t used = irfft ? std::min(n / 2 + 1, len) : std::min(n, len); // input values read per line
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < axis; ++d)
            outer *= sig[static_cast<size_t>(d)];
        for (int64_t d = axis + 1; d < rank; ++d)
            inner *= sig[static_cast<size_t>(d)];
        Shape outShape = sig;
        outShape[static_cast<size_t>(axis)] = keep;
        const int64_t count = elementCount(outShape);
        if (static_cast<size_t>(std::max(count, n)) > Tensor::allocationLimit() / 16)
            throw ctx.error("a DFT of length " + std::to_string(n) + " over " + x.typeString() + " is too large");
        std::vector<std::complex<double>> out(static_cast<size_t>(count));
        std::vector<std::complex<double>> line;
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
                line.assign(static_cast<size_t>(n), {});
                for (int64_t k = 0; k < used; ++k)
                    line[static_cast<size_t>(k)] = v[static_cast<size_t>((o * len + k) * inner + i)];
                if (irfft)
                    for (int64_t k = n / 2 + 1; k < n; ++k)
                        line[static_cast<size_t>(k)] = std::conj(line[static_cast<size_t>(n - k)]);
                fourierTransform(line, m_inverse);
                for (int64_t k = 0; k < keep; ++k)
                    out[static_cast<size_t>((o * keep + k) * inner + i)] = line[static_cast<size_t>(k)];
            }
        if (!irfft) {
            ctx.setOutput(0, writeSpectrum(ctx, x.dtype(), outShape, out));
            return;
        }
        outShape.push_back(1);
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), outShape);
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto d = y.data<T>();
            for (size_t k = 0; k < out.size(); ++k)
                d[k] = static_cast<T>(out[k].real());
        });
    }

private:
    int64_t m_opset;
    bool m_inverse = false;
    bool m_onesided = false;
    int64_t m_axis = 1;
};

} // namespace

void registerDft(KernelRegistry& r)
{
    r.add("", "DFT", 17, 20, makeFactory<Dft>());
}

} // namespace onnxscope
