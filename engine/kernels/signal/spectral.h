// SPDX-License-Identifier: MIT
#pragma once

// Shared by the signal kernels (DFT, STFT). Include only from kernel .cpp files.

#include "engine/kernels/kernel.h"

#include <complex>
#include <vector>

namespace onnxscope {

/// Discrete Fourier transform of `x` in place, any length (Eigen's FFT: mixed radix, with a generic butterfly for
/// large prime factors). The inverse is scaled by 1/n, as numpy.fft.ifft.
void fourierTransform(std::vector<std::complex<double>>& x, bool inverse);

/// A signal tensor [..., 1] (real) or [..., 2] (complex) of a float type as complex doubles (shape without the
/// last dim in `signalShape`); Error naming the node and `what` otherwise.
std::vector<std::complex<double>> readSignal(
    const KernelContext& ctx, const Tensor& t, const std::string& what, Shape& signalShape);

/// Writes complex doubles as a [..., 2] tensor of `type` (a float type).
Tensor writeSpectrum(const KernelContext& ctx, DataType type, Shape shape, const std::vector<std::complex<double>>& v);

/// A scalar (or one-element) int32/int64 input as int64.
int64_t readIntScalar(const KernelContext& ctx, size_t input, const std::string& what);

} // namespace onnxscope
