// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/signal/spectral.h"

#include "engine/kernels/common/dispatch.h"

#include <algorithm>

namespace onnxscope {

namespace {

/// STFT 17: signal [batch, length, 1 or 2], frame_step, optional window [frame_length] and/or frame_length ->
/// [batch, frames, bins, 2] with frames = (length - frame_length) / frame_step + 1 and bins = frame_length / 2 + 1
/// when onesided (the default), frame_length otherwise. Each frame is multiplied by the window (a float type,
/// default all ones) and transformed; computed in double, output of the signal's type.
class Stft final : public Kernel {
public:
    explicit Stft(const KernelInit& init)
        : m_onesided(init.attributes().getInt("onesided", 1) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Shape sig;
        const auto v = readSignal(ctx, x, "signal", sig);
        if (sig.size() != 2)
            throw ctx.error("signal must be [batch, length, 1 or 2], got " + x.typeString());
        const int64_t batch = sig[0], length = sig[1];
        const int64_t step = readIntScalar(ctx, 1, "frame_step");
        if (step < 1)
            throw ctx.error("frame_step must be positive, got " + std::to_string(step));
        std::vector<double> window;
        if (ctx.hasInput(2)) {
            const Tensor& w = ctx.input(2);
            if (w.rank() != 1)
                throw ctx.error("window must be 1-D, got " + w.typeString());
            dispatch<FloatTypes>(w.dtype(), ctx.node(), ": window", [&]<class T>() {
                for (T e : w.data<T>())
                    window.push_back(static_cast<double>(e));
            });
        }
        int64_t frameLength = static_cast<int64_t>(window.size());
        if (ctx.hasInput(3)) {
            frameLength = readIntScalar(ctx, 3, "frame_length");
            if (ctx.hasInput(2) && frameLength != static_cast<int64_t>(window.size()))
                throw ctx.error("frame_length " + std::to_string(frameLength) + " differs from the window's length "
                    + std::to_string(window.size()));
        } else if (!ctx.hasInput(2)) {
            throw ctx.error("one of 'window' and 'frame_length' is required");
        }
        if (frameLength < 1 || frameLength > length)
            throw ctx.error(
                "frame length " + std::to_string(frameLength) + " must be in [1, " + std::to_string(length) + "]");
        if (window.empty())
            window.assign(static_cast<size_t>(frameLength), 1.0);
        const int64_t frames = (length - frameLength) / step + 1;
        const int64_t bins = m_onesided ? frameLength / 2 + 1 : frameLength;
        const int64_t count = checkedMul(checkedMul(batch, frames), bins);
        if (static_cast<size_t>(count) > Tensor::allocationLimit() / 16)
            throw ctx.error("an STFT of " + std::to_string(frames) + " frames of " + std::to_string(bins)
                + " bins needs more memory than allowed");
        std::vector<std::complex<double>> out(static_cast<size_t>(count));
        std::vector<std::complex<double>> frame;
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t f = 0; f < frames; ++f) {
                frame.resize(static_cast<size_t>(frameLength));
                for (int64_t k = 0; k < frameLength; ++k)
                    frame[static_cast<size_t>(k)]
                        = v[static_cast<size_t>(b * length + f * step + k)] * window[static_cast<size_t>(k)];
                fourierTransform(frame, false);
                std::copy_n(frame.begin(), bins, out.begin() + (b * frames + f) * bins);
            }
        ctx.setOutput(0, writeSpectrum(ctx, x.dtype(), { batch, frames, bins }, out));
    }

private:
    bool m_onesided;
};

} // namespace

void registerStft(KernelRegistry& r)
{
    r.add("", "STFT", 17, 17, makeFactory<Stft>());
}

} // namespace onnxscope
