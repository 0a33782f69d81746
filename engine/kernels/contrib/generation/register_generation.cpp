// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerGreedySearch(KernelRegistry& r);
void registerBeamSearch(KernelRegistry& r);
void registerWhisperBeamSearch(KernelRegistry& r);

/// onnxruntime's generation operators (issue #41): GreedySearch and Sampling, BeamSearch, WhisperBeamSearch.
void registerGenerationKernels(KernelRegistry& r)
{
    registerGreedySearch(r);
    registerBeamSearch(r);
    registerWhisperBeamSearch(r);
}

} // namespace onnxscope
