// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerDft(KernelRegistry& r);
void registerStft(KernelRegistry& r);
void registerWindows(KernelRegistry& r);

/// Signal processing: DFT, STFT, Hann/Hamming/Blackman windows, MelWeightMatrix.
void registerSignalKernels(KernelRegistry& r)
{
    registerDft(r);
    registerStft(r);
    registerWindows(r);
}

} // namespace onnxscope
